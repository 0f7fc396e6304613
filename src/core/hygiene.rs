//! History hygiene: leaked control tokens are stripped from assistant text before it goes back
//! into context, so a model cannot feed a stray `</think>` to itself turn after turn.

/// Removes reasoning markers (`<think>`, `</think>`, `<thinking>`, ...), chat-template special
/// tokens (`<|im_end|>`, `<|eot_id|>`, `<｜end▁of▁sentence｜>`, ...) and `[INST]`-style markers.
/// Text between think tags is dropped too: it is reasoning, not an answer.
pub fn strip_control_tokens(text: &str) -> String {
    // Every marker starts with `<` or `[`: text with neither has nothing to strip (most replies
    // and every tool call's text; the searches below cost a tenth of the core's work a step).
    if !text.contains(['<', '[']) {
        return text.trim().to_string();
    }
    strip_markers(text)
}

fn strip_markers(text: &str) -> String {
    let without_reasoning = drop_think_blocks(text);
    let mut out = String::with_capacity(without_reasoning.len());
    let mut rest = without_reasoning.as_str();
    while let Some(start) = find_marker_start(rest) {
        out.push_str(&rest[..start.0]);
        rest = &rest[start.0 + start.1..];
    }
    out.push_str(rest);
    for marker in ["[INST]", "[/INST]", "<s>", "</s>"] {
        out = out.replace(marker, "");
    }
    out.trim().to_string()
}

/// Finds the next `<|...|>` or `<｜...｜>` token: (byte offset, byte length).
fn find_marker_start(s: &str) -> Option<(usize, usize)> {
    for (open, close) in [("<|", "|>"), ("<｜", "｜>")] {
        if let Some(i) = s.find(open) {
            let after = i + open.len();
            if let Some(j) = s[after..].find(close) {
                let inner = &s[after..after + j];
                if inner.len() <= 64 && !inner.contains(char::is_whitespace) {
                    return Some((i, open.len() + j + close.len()));
                }
            }
        }
    }
    None
}

fn drop_think_blocks(text: &str) -> String {
    const TAGS: [(&str, &str); 3] = [
        ("<think>", "</think>"),
        ("<thinking>", "</thinking>"),
        ("<reasoning>", "</reasoning>"),
    ];
    let mut s = text.to_string();
    for (open, close) in TAGS {
        // Whole blocks first, then any unpaired tag left over.
        while let (Some(a), Some(b)) = (s.find(open), s.find(close)) {
            if b < a {
                break;
            }
            s.replace_range(a..b + close.len(), "");
        }
        s = s.replace(open, "").replace(close, "");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_without_markers_is_only_trimmed_as_the_full_search_would() {
        // Marker-free, with every other character markers are made of.
        for text in [
            "",
            "  plain answer \n",
            "a | b > c ｜ d",
            "ünïcödé\t…",
            "ends with s> |> ｜> INST] /INST] think>",
        ] {
            assert_eq!(strip_control_tokens(text), text.trim(), "{text:?}");
            assert_eq!(strip_markers(text), text.trim(), "{text:?}");
        }
    }

    #[test]
    fn stray_closing_think_tag_is_removed() {
        assert_eq!(strip_control_tokens("ink</think>rath"), "inkrath");
    }

    #[test]
    fn think_blocks_are_dropped_with_their_content() {
        assert_eq!(
            strip_control_tokens("<think>plan</think>The answer is 4."),
            "The answer is 4."
        );
    }

    #[test]
    fn template_tokens_are_removed() {
        assert_eq!(strip_control_tokens("done<|im_end|>\n<|eot_id|>"), "done");
        assert_eq!(strip_control_tokens("ok<｜end▁of▁sentence｜>"), "ok");
        assert_eq!(strip_control_tokens("[INST]x[/INST] y"), "x y");
    }

    #[test]
    fn ordinary_text_with_pipes_and_angles_is_kept() {
        assert_eq!(
            strip_control_tokens("a <| b |> c and x < y"),
            "a <| b |> c and x < y"
        );
    }
}
