//! Special tokens, following llama.cpp (`llama-vocab.cpp`): the ids the metadata names, the
//! end-of-generation set (found partly by token text, as llama.cpp does), the control-type
//! fixes that go with it, and cutting control tokens written in text out of it before BPE.

use std::collections::HashMap;

use super::hash::FxBuild;
use super::vocab::{Kind, Vocab};
use crate::gguf::Gguf;

/// Special token ids from the metadata.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct SpecialIds {
    pub(crate) bos: Option<u32>,
    pub(crate) eos: Option<u32>,
    eot: Option<u32>,
    eom: Option<u32>,
    fim: [Option<u32>; 3],
}

impl SpecialIds {
    /// Reads `tokenizer.ggml.*_token_id` for a vocabulary of `n` tokens. Like llama.cpp, BOS
    /// and EOS default to ids 11 and 11 for byte-level BPE, 1 and 2 for SentencePiece, when the
    /// file names none, and an id outside the vocabulary is ignored.
    pub(crate) fn read(file: &Gguf, n: usize, sentencepiece: bool) -> SpecialIds {
        let id = |key: &str| {
            let value = file.number(&format!("tokenizer.ggml.{key}_token_id"))?;
            (value >= 0.0 && (value as usize) < n).then_some(value as u32)
        };
        let (bos, eos): (u32, u32) = if sentencepiece { (1, 2) } else { (11, 11) };
        SpecialIds {
            bos: id("bos").or((n > bos as usize).then_some(bos)),
            eos: id("eos").or((n > eos as usize).then_some(eos)),
            eot: id("eot"),
            eom: id("eom"),
            fim: [id("fim_pad"), id("fim_rep"), id("fim_sep")],
        }
    }
}

/// Texts of tokens that end generation (llama.cpp's list); such a token also becomes a
/// control token.
const END_TEXTS: &[&str] = &[
    "<|eot_id|>",
    "<|im_end|>",
    "<|end|>",
    "<|return|>",
    "<|call|>",
    "<|flush|>",
    "<|calls|>",
    "<end_of_turn>",
    "<|endoftext|>",
    "</s>",
    "<|eom_id|>",
    "<EOT>",
    "_<EOT>",
    "[EOT]",
    "[EOS]",
    "<|end_of_text|>",
    "<end_of_utterance>",
    "<eos>",
    "<turn|>",
    "<|tool_response>",
    "<｜end▁of▁sentence｜>",
    "[e~[",
];

/// Fill-in-the-middle pad, repo and separator texts, looked for when the metadata names none;
/// they end generation too.
const FIM_TEXTS: [&[&str]; 3] = [
    &["<|fim_pad|>", "<fim-pad>", "<fim_pad>", "<PAD>", "[PAD]"],
    &[
        "<|fim_repo|>",
        "<|repo_name|>",
        "<fim-repo>",
        "<REPO>",
        "<reponame>",
    ],
    &["<|file_sep|>"],
];

/// Texts llama.cpp always renders (gpt-oss): made user-defined.
const SHOWN_TEXTS: &[&str] = &["<|channel|>", "<|message|>", "<|start|>", "<|constrain|>"];

/// Works out the end-of-generation set (sorted ids) and adjusts `kinds` as llama.cpp does.
/// Where llama.cpp takes whichever token its hash map yields first (two tokens with the same
/// text, several FIM candidates), this takes the last id with the text and the lowest FIM id.
pub(crate) fn end_of_generation<T: AsRef<[u8]>>(
    texts: &[T],
    kinds: &mut [Kind],
    ids: &SpecialIds,
) -> Vec<u32> {
    // The last id with each text of the lists above.
    let listed = END_TEXTS
        .iter()
        .chain(FIM_TEXTS.iter().copied().flatten())
        .chain(SHOWN_TEXTS);
    let mut last: HashMap<&[u8], Option<u32>, FxBuild> =
        listed.map(|text| (text.as_bytes(), None)).collect();
    for (id, text) in texts.iter().enumerate() {
        if let Some(slot) = last.get_mut(text.as_ref()) {
            *slot = Some(id as u32);
        }
    }
    let find = |text: &str| last.get(text.as_bytes()).copied().flatten();
    let mut eog = Vec::new();
    for (slot, candidates) in ids.fim.iter().zip(FIM_TEXTS) {
        let found = slot.or_else(|| candidates.iter().filter_map(|t| find(t)).min());
        if let Some(id) = found {
            if slot.is_none() {
                set_kind(kinds, id, Kind::Control);
            }
            eog.push(id);
        }
    }
    for id in END_TEXTS.iter().filter_map(|t| find(t)) {
        set_kind(kinds, id, Kind::Control);
        eog.push(id);
    }
    for id in SHOWN_TEXTS.iter().filter_map(|t| find(t)) {
        set_kind(kinds, id, Kind::UserDefined);
    }
    eog.extend([ids.eos, ids.eot, ids.eom].into_iter().flatten());
    eog.sort_unstable();
    eog.dedup();

    let text_of = |id: u32| texts.get(id as usize).map_or(&[][..], |t| t.as_ref());
    let has = |eog: &[u32], text: &str| eog.iter().any(|&id| text_of(id) == text.as_bytes());
    let last_with = |eog: &[u32], text: &str| {
        eog.iter()
            .rev()
            .copied()
            .find(|&id| text_of(id) == text.as_bytes())
    };
    // o200k_harmony and solar-open: "<|end|>" does not end generation there.
    let call = has(&eog, "<|call|>") || has(&eog, "<|calls|>");
    if call && (has(&eog, "<|return|>") || has(&eog, "<|flush|>")) {
        if let Some(end) = last_with(&eog, "<|end|>") {
            eog.retain(|&id| id != end);
            set_kind(kinds, end, Kind::UserDefined);
        }
    }
    // gemma4 and plamo: "</s>" is ordinary text there.
    if has(&eog, "<|tool_response>") || has(&eog, "<|plamo:eos|>") {
        if let Some(s) = last_with(&eog, "</s>") {
            eog.retain(|&id| id != s);
            set_kind(kinds, s, Kind::Normal);
        }
    }
    eog
}

fn set_kind(kinds: &mut [Kind], id: u32, kind: Kind) {
    if let Some(slot) = kinds.get_mut(id as usize) {
        *slot = kind;
    }
}

/// The tokens cut out of text before BPE (control, user-defined, unknown), longest text
/// first; ties keep id order (llama.cpp's sort leaves them unspecified).
pub(crate) fn cut_order(vocab: &Vocab) -> Vec<u32> {
    let mut ids: Vec<u32> = (0..vocab.len() as u32)
        .filter(|&id| {
            matches!(
                vocab.kind(id),
                Kind::Control | Kind::UserDefined | Kind::Unknown
            )
        })
        .collect();
    ids.sort_by_key(|&id| std::cmp::Reverse(vocab.shown(id).len()));
    ids
}

/// A stretch of the input: text for BPE, or a special token cut out of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fragment {
    /// Bytes `start..end` of the input.
    Text(usize, usize),
    /// A special token.
    Token(u32),
}

/// Cuts the tokens of `order` out of `text` the way llama.cpp does: for each token in turn,
/// every occurrence in what is still text, left to right. Without `parse_special`, control and
/// unknown tokens stay text; user-defined ones are still cut. `spare` is scratch.
pub(crate) fn cut(
    text: &str,
    order: &[u32],
    vocab: &Vocab,
    parse_special: bool,
    out: &mut Vec<Fragment>,
    spare: &mut Vec<Fragment>,
) {
    out.clear();
    if text.is_empty() {
        return;
    }
    out.push(Fragment::Text(0, text.len()));
    for &id in order {
        let kind = vocab.kind(id);
        if !parse_special && matches!(kind, Kind::Control | Kind::Unknown) {
            continue;
        }
        // A needle that is not UTF-8 never lines up with the characters of the text.
        let Ok(needle) = std::str::from_utf8(vocab.shown(id)) else {
            continue;
        };
        if needle.is_empty() || !text.contains(needle) {
            continue;
        }
        spare.clear();
        for &fragment in out.iter() {
            let Fragment::Text(mut start, end) = fragment else {
                spare.push(fragment);
                continue;
            };
            while let Some(found) = text.get(start..end).and_then(|rest| rest.find(needle)) {
                if found > 0 {
                    spare.push(Fragment::Text(start, start + found));
                }
                spare.push(Fragment::Token(id));
                start += found + needle.len();
            }
            if start < end {
                spare.push(Fragment::Text(start, end));
            }
        }
        std::mem::swap(out, spare);
    }
}
