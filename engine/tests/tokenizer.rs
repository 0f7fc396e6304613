//! The tokenizer against llama.cpp itself: SmolLM2's GGUF tokenized here must give the ids
//! llama.cpp gave for the fixture corpus (`fixtures/make_tokenizer_fixture.py` writes it with
//! llama-cpp-python), decode back to the text, and agree on the end-of-generation and control
//! sets and on every token's bytes. The same corpus with the file's pre-tokenizer swapped for
//! GPT-2's, Qwen2's and Llama 3's checks those against llama.cpp too (SmolLM2's vocabulary has
//! no multi-digit tokens, so Llama 3's digit triples show only in the hand-made splits). Also:
//! the pre-tokenizers on hand-made examples, BPE mechanics on a synthetic vocabulary, errors,
//! a fuzz run, and (ignored) timings.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::OnceLock;
use std::time::Instant;

use tabloop_engine::gguf::Gguf;
use tabloop_engine::tokenizer::{PreTokenizer, Tokenizer};

/// The model, relative to this crate; `TABLOOP_ENGINE_MODEL` may name another copy.
const MODEL: &str = "../www/models/smollm2-135m-instruct-q8_0.gguf";

fn model_bytes() -> &'static [u8] {
    static BYTES: OnceLock<Vec<u8>> = OnceLock::new();
    BYTES.get_or_init(|| {
        let path = match std::env::var_os("TABLOOP_ENGINE_MODEL") {
            Some(path) => std::path::PathBuf::from(path),
            None => std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(MODEL),
        };
        std::fs::read(&path).unwrap_or_else(|e| {
            panic!(
                "cannot read the model at {} ({e}): run scripts/fetch-model-assets.sh to put it \
                 there (or set TABLOOP_ENGINE_MODEL to a copy of it)",
                path.display()
            )
        })
    })
}

fn smollm2() -> &'static Tokenizer {
    static TOKENIZER: OnceLock<Tokenizer> = OnceLock::new();
    TOKENIZER.get_or_init(|| {
        let file = Gguf::parse(model_bytes()).expect("the model parses");
        Tokenizer::from_gguf(&file).expect("the tokenizer loads")
    })
}

// ---------- the fixtures ----------

/// A JSON value: just enough of JSON for the fixtures.
#[derive(Debug, Clone, PartialEq)]
enum Json {
    Null,
    Bool(bool),
    Num(f64),
    Str(String),
    List(Vec<Json>),
    Map(Vec<(String, Json)>),
}

impl Json {
    fn get(&self, key: &str) -> &Json {
        match self {
            Json::Map(entries) => entries.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
        .unwrap_or_else(|| panic!("no {key:?} in {self:?}"))
    }
    fn list(&self) -> &[Json] {
        match self {
            Json::List(items) => items,
            other => panic!("not a list: {other:?}"),
        }
    }
    fn str(&self) -> &str {
        match self {
            Json::Str(s) => s,
            other => panic!("not a string: {other:?}"),
        }
    }
    fn num(&self) -> f64 {
        match self {
            Json::Num(n) => *n,
            other => panic!("not a number: {other:?}"),
        }
    }
    fn bool(&self) -> bool {
        match self {
            Json::Bool(b) => *b,
            other => panic!("not a bool: {other:?}"),
        }
    }
    fn ids(&self) -> Vec<u32> {
        self.list().iter().map(|v| v.num() as u32).collect()
    }
}

struct Parser<'a> {
    s: &'a [u8],
    at: usize,
}

impl Parser<'_> {
    fn parse(text: &str) -> Json {
        let mut p = Parser {
            s: text.as_bytes(),
            at: 0,
        };
        let value = p.value();
        p.ws();
        assert_eq!(p.at, p.s.len(), "trailing characters in JSON");
        value
    }
    fn ws(&mut self) {
        while self.s.get(self.at).is_some_and(|b| b.is_ascii_whitespace()) {
            self.at += 1;
        }
    }
    fn eat(&mut self, b: u8) -> bool {
        self.ws();
        let hit = self.s.get(self.at) == Some(&b);
        self.at += usize::from(hit);
        hit
    }
    fn value(&mut self) -> Json {
        self.ws();
        let rest = &self.s[self.at..];
        for (word, value) in [
            ("null", Json::Null),
            ("true", Json::Bool(true)),
            ("false", Json::Bool(false)),
        ] {
            if rest.starts_with(word.as_bytes()) {
                self.at += word.len();
                return value;
            }
        }
        match rest.first() {
            Some(b'"') => Json::Str(self.string()),
            Some(b'[') => {
                self.at += 1;
                let mut items = Vec::new();
                while !self.eat(b']') {
                    items.push(self.value());
                    self.eat(b',');
                }
                Json::List(items)
            }
            Some(b'{') => {
                self.at += 1;
                let mut entries = Vec::new();
                while !self.eat(b'}') {
                    self.ws();
                    let key = self.string();
                    assert!(self.eat(b':'), "expected : in JSON");
                    entries.push((key, self.value()));
                    self.eat(b',');
                }
                Json::Map(entries)
            }
            _ => {
                let start = self.at;
                while self
                    .s
                    .get(self.at)
                    .is_some_and(|b| b"+-.eE0123456789".contains(b))
                {
                    self.at += 1;
                }
                let text = std::str::from_utf8(&self.s[start..self.at]).unwrap();
                Json::Num(
                    text.parse()
                        .unwrap_or_else(|_| panic!("bad JSON at {start}")),
                )
            }
        }
    }
    fn hex4(&mut self) -> u32 {
        let text = std::str::from_utf8(&self.s[self.at..self.at + 4]).unwrap();
        self.at += 4;
        u32::from_str_radix(text, 16).unwrap()
    }
    fn string(&mut self) -> String {
        assert_eq!(self.s[self.at], b'"');
        self.at += 1;
        let mut out = Vec::new();
        loop {
            let b = self.s[self.at];
            self.at += 1;
            match b {
                b'"' => return String::from_utf8(out).unwrap(),
                b'\\' => {
                    let e = self.s[self.at];
                    self.at += 1;
                    let c = match e {
                        b'n' => '\n',
                        b't' => '\t',
                        b'r' => '\r',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'u' => {
                            let mut code = self.hex4();
                            if (0xD800..0xDC00).contains(&code) {
                                self.at += 2; // \u of the low surrogate
                                code = 0x10000 + ((code - 0xD800) << 10) + (self.hex4() - 0xDC00);
                            }
                            char::from_u32(code).unwrap()
                        }
                        other => char::from(other),
                    };
                    out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
                }
                other => out.push(other),
            }
        }
    }
}

fn fixture(name: &str) -> Json {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    Parser::parse(&text)
}

/// The tokens of `ids` as text, for messages.
fn pieces(tok: &Tokenizer, ids: &[u32]) -> Vec<String> {
    ids.iter()
        .map(|&id| String::from_utf8_lossy(tok.token_bytes(id)).into_owned())
        .collect()
}

/// Checks every entry of a fixture against `tok`, reporting all differences at once.
fn check_fixture(tok: &Tokenizer, name: &str) {
    let entries = fixture(name);
    let entries = entries.list();
    assert!(entries.len() >= 60, "{name} has {} texts", entries.len());
    let mut mismatches = Vec::new();
    for entry in entries {
        let (text, special) = (entry.get("text").str(), entry.get("special").bool());
        let want = entry.get("ids").ids();
        let got = tok.encode(text, special);
        if got != want {
            mismatches.push(format!(
                "{text:?} (special={special}):\n  llama.cpp {want:?} {:?}\n  ours      {got:?} {:?}",
                pieces(tok, &want),
                pieces(tok, &got)
            ));
        }
    }
    println!(
        "{name}: {} of {} texts match llama.cpp",
        entries.len() - mismatches.len(),
        entries.len()
    );
    assert!(
        mismatches.is_empty(),
        "{name}: {} of {} texts differ from llama.cpp:\n{}",
        mismatches.len(),
        entries.len(),
        mismatches.join("\n")
    );
}

#[test]
fn every_fixture_text_tokenizes_as_llama_cpp_does() {
    check_fixture(smollm2(), "tokenizer_smollm2.json");
}

/// The model file's metadata with `tokenizer.ggml.pre` replaced and no tensors, as the
/// fixture script hands it to llama.cpp.
fn with_pre(data: &[u8], pre: &str) -> Vec<u8> {
    let u32_at = |at: usize| u32::from_le_bytes(data[at..at + 4].try_into().unwrap());
    let u64_at = |at: usize| u64::from_le_bytes(data[at..at + 8].try_into().unwrap()) as usize;
    fn size(kind: u32) -> Option<usize> {
        match kind {
            0 | 1 | 7 => Some(1),
            2 | 3 => Some(2),
            4..=6 => Some(4),
            10..=12 => Some(8),
            _ => None,
        }
    }
    fn skip(
        kind: u32,
        at: usize,
        u32_at: &dyn Fn(usize) -> u32,
        u64_at: &dyn Fn(usize) -> usize,
    ) -> usize {
        match (kind, size(kind)) {
            (_, Some(n)) => at + n,
            (8, None) => at + 8 + u64_at(at),
            (9, None) => {
                let (item, n) = (u32_at(at), u64_at(at + 4));
                match size(item) {
                    Some(bytes) => at + 12 + n * bytes,
                    None => (0..n).fold(at + 12, |at, _| skip(item, at, u32_at, u64_at)),
                }
            }
            _ => panic!("unknown GGUF value type {kind}"),
        }
    }
    let n_kv = u64_at(16);
    let mut out = data[..8].to_vec();
    out.extend_from_slice(&0u64.to_le_bytes());
    out.extend_from_slice(&(n_kv as u64).to_le_bytes());
    let mut at = 24;
    for _ in 0..n_kv {
        let start = at;
        let key_len = u64_at(at);
        let key = &data[at + 8..at + 8 + key_len];
        at = skip(
            u32_at(at + 8 + key_len),
            at + 12 + key_len,
            &u32_at,
            &u64_at,
        );
        if key == b"tokenizer.ggml.pre" {
            out.extend_from_slice(&data[start..start + 8 + key_len]);
            out.extend_from_slice(&8u32.to_le_bytes());
            out.extend_from_slice(&(pre.len() as u64).to_le_bytes());
            out.extend_from_slice(pre.as_bytes());
        } else {
            out.extend_from_slice(&data[start..at]);
        }
    }
    out
}

#[test]
fn gpt2_qwen2_and_llama3_pre_tokenizers_tokenize_as_llama_cpp_does() {
    for (pre, name, splitter) in [
        (
            "gpt-2",
            "tokenizer_smollm2_as_gpt2.json",
            PreTokenizer::Gpt2,
        ),
        (
            "qwen2",
            "tokenizer_smollm2_as_qwen2.json",
            PreTokenizer::Qwen2,
        ),
        (
            "llama-bpe",
            "tokenizer_smollm2_as_llama3.json",
            PreTokenizer::Llama3,
        ),
    ] {
        let bytes = with_pre(model_bytes(), pre);
        let tok = Tokenizer::from_gguf(&Gguf::parse(&bytes).unwrap()).unwrap();
        assert_eq!(tok.pre_tokenizer(), Some(splitter));
        check_fixture(&tok, name);
    }
}

fn decode(tok: &Tokenizer, ids: &[u32]) -> Vec<u8> {
    ids.iter()
        .flat_map(|&id| tok.token_bytes(id).to_vec())
        .collect()
}

/// `text` without the bytes the vocabulary cannot spell: a byte with no token (SmolLM2 lacks
/// 21, e.g. 0x04 and 0xF1) is dropped, as llama.cpp drops it.
fn kept(tok: &Tokenizer, text: &str) -> Vec<u8> {
    text.chars()
        .flat_map(|c| decode(tok, &tok.encode(&c.to_string(), false)))
        .collect()
}

#[test]
fn decoding_gives_back_the_text() {
    let tok = smollm2();
    for entry in fixture("tokenizer_smollm2.json").list() {
        let text = entry.get("text").str();
        let decoded = decode(tok, &tok.encode(text, false));
        assert_eq!(decoded, kept(tok, text), "round trip of {text:?}");
        let untokenizable = |c: char| {
            matches!(
                c,
                '\u{4}' | '\u{6}' | '\u{13}' | '\u{14}' | '\u{16}' | '\u{1d}'
            ) || ('\u{40000}'..='\u{bffff}').contains(&c)
        };
        if !text.chars().any(untokenizable) {
            assert_eq!(decoded, text.as_bytes());
        }
    }
}

fn fnv1a(mut hash: u64, bytes: &[u8]) -> u64 {
    for &b in bytes {
        hash = (hash ^ u64::from(b)).wrapping_mul(0x100000001b3);
    }
    hash
}

#[test]
fn special_tokens_and_token_bytes_agree_with_llama_cpp() {
    let tok = smollm2();
    let info = fixture("tokenizer_smollm2_vocab.json");
    assert_eq!(tok.len(), info.get("n_vocab").num() as usize);
    assert!(!tok.is_empty());
    assert_eq!(tok.bos(), Some(info.get("bos").num() as u32));
    assert_eq!(tok.add_bos(), info.get("add_bos").bool());
    assert_eq!(tok.pre_tokenizer(), Some(PreTokenizer::Smollm));

    let ids = 0..tok.len() as u32 + 10;
    let eog: Vec<u32> = ids
        .clone()
        .filter(|&id| tok.is_end_of_generation(id))
        .collect();
    assert_eq!(eog, info.get("end_of_generation").ids());
    assert!(tok.is_end_of_generation(0) && tok.is_end_of_generation(2));
    assert!(tok.is_end_of_generation(info.get("eos").num() as u32));
    let control: Vec<u32> = ids.filter(|&id| tok.is_control(id)).collect();
    assert_eq!(control, info.get("control").ids());

    assert_eq!(tok.token_bytes(2), b"<|im_end|>");
    assert_eq!(tok.token_bytes(tok.len() as u32), b"");
    assert_eq!(tok.token_bytes(u32::MAX), b"");
    let mut hash = 0xcbf29ce484222325;
    for id in 0..tok.len() as u32 {
        let bytes = tok.token_bytes(id);
        hash = fnv1a(hash, &(bytes.len() as u32).to_le_bytes());
        hash = fnv1a(hash, bytes);
    }
    assert_eq!(format!("{hash:016x}"), info.get("pieces_fnv1a").str());
}

#[test]
fn never_panics_on_arbitrary_text() {
    let tok = smollm2();
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let specials = [
        "<|im_start|>",
        "<|im_end|>",
        "<|endoftext|>",
        "<|im_",
        "|>",
        " ",
        "\n",
    ];
    for round in 0..1500 {
        let len = (next() % 64) as usize;
        let mut bytes: Vec<u8> = (0..len).map(|_| next() as u8).collect();
        if round % 3 == 0 {
            // Mostly ASCII, with special-token fragments mixed in.
            for b in &mut bytes {
                *b &= 0x7F;
            }
            let at = bytes.len() / 2;
            let s = specials[(next() % specials.len() as u64) as usize];
            bytes.splice(at..at, s.bytes());
        }
        let text = String::from_utf8_lossy(&bytes);
        let decoded = decode(tok, &tok.encode(&text, false));
        assert_eq!(decoded, kept(tok, &text), "round trip of {text:?}");
        let parsed = tok.encode(&text, true);
        assert!(parsed.iter().all(|&id| (id as usize) < tok.len()));
    }
}

#[test]
#[ignore = "timing: cargo test --release -p tabloop-engine --test tokenizer -- --ignored --nocapture"]
fn timing() {
    let bytes = model_bytes();
    let start = Instant::now();
    let file = Gguf::parse(bytes).unwrap();
    let parsed = start.elapsed();
    let start = Instant::now();
    let runs = 20;
    for _ in 0..runs {
        std::hint::black_box(Tokenizer::from_gguf(&file).unwrap());
    }
    let load = start.elapsed() / runs;
    let tok = Tokenizer::from_gguf(&file).unwrap();
    let unit = "<|im_start|>user\nPlease write the file /notes.txt with \"hello, world\" and \
                then list the directory; it's 2024-06-01, 12:30. Ünïcödé, 日本語, emoji 👍.\
                <|im_end|>\n";
    let mut prompt = String::new();
    while prompt.chars().count() < 2000 {
        prompt.push_str(unit);
    }
    let prompt: String = prompt.chars().take(2000).collect();
    let runs = 200;
    let start = Instant::now();
    let mut n = 0;
    for _ in 0..runs {
        n = std::hint::black_box(tok.encode(std::hint::black_box(&prompt), true)).len();
    }
    let encode = start.elapsed() / runs;
    println!(
        "GGUF parse {parsed:?}; Tokenizer::from_gguf {load:?}; encode of 2,000 characters \
         ({} bytes, {n} tokens) {encode:?}",
        prompt.len()
    );
}

// ---------- pre-tokenizers on hand-made examples ----------

fn split(pre: &str, text: &str) -> Vec<String> {
    let pre = PreTokenizer::from_name(pre).unwrap();
    let words = pre.split(text);
    assert_eq!(words.concat(), text, "words concatenate back to the text");
    words.into_iter().map(str::to_owned).collect()
}

#[test]
fn qwen2_splits_like_its_regex() {
    // (?i:'s|...)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
    let text = "Hello world's 1234 FOO'S  x\n\n  y!!\n";
    let want = [
        "Hello", " world", "'s", " ", "1", "2", "3", "4", " FOO", "'S", " ", " x", "\n\n", " ",
        " y", "!!\n",
    ];
    assert_eq!(split("qwen2", text), want);
    assert_eq!(split("qwen2", "\tfoo .bar"), ["\tfoo", " .", "bar"]);
    assert_eq!(split("qwen2", "€100"), ["€", "1", "0", "0"]);
    assert_eq!(split("deepseek-r1-qwen", "a  "), ["a", "  "]);
}

#[test]
fn llama3_splits_like_its_regex() {
    let text = "Hello world's 1234 FOO'S  x\n\n  y!!\n";
    let want = [
        "Hello", " world", "'s", " ", "123", "4", " FOO", "'S", " ", " x", "\n\n", " ", " y",
        "!!\n",
    ];
    assert_eq!(split("llama3", text), want);
    assert_eq!(
        split("llama-bpe", "€100 and\t\tfoo .bar\r\n\r\nend"),
        ["€", "100", " and", "\t", "\tfoo", " .", "bar", "\r\n\r\n", "end"]
    );
    assert_eq!(split("llama3", "12345678"), ["123", "456", "78"]);
    assert_eq!(split("llama3", ".\n\nx"), [".\n\n", "x"]);
    assert_eq!(split("llama3", "I'M 'll"), ["I", "'M", " '", "ll"]);
}

#[test]
fn gpt2_and_smollm_split_like_llama_cpp() {
    let text = "Hello world's  1234 FOO'S x\n\ny";
    let gpt2 = [
        "Hello", " world", "'s", " ", " 1234", " FOO", "'", "S", " x", "\n", "\n", "y",
    ];
    assert_eq!(split("gpt-2", text), gpt2);
    // Digits first, then GPT-2 within each stretch: the two spaces before "1" end their
    // stretch, so `\s+(?!\S)` takes both.
    let smollm = [
        "Hello", " world", "'s", "  ", "1", "2", "3", "4", " FOO", "'", "S", " x", "\n", "\n", "y",
    ];
    assert_eq!(split("smollm", text), smollm);
    assert_eq!(split("smollm", ""), Vec::<String>::new());
    assert_eq!(split("gpt2", "ab  "), ["ab", "  "]);
}

#[test]
fn unknown_pre_tokenizers_are_errors_naming_them() {
    let err = PreTokenizer::from_name("tekken").unwrap_err();
    assert!(err.to_string().contains("\"tekken\""), "{err}");
}

// ---------- BPE mechanics and errors on synthetic vocabularies ----------

/// GPT-2's character for a byte.
fn byte_char(b: u8) -> char {
    let printable = |b: u8| matches!(b, b'!'..=b'~' | 0xA1..=0xAC | 0xAE..=0xFF);
    if printable(b) {
        return char::from(b);
    }
    char::from_u32(0x100 + (0..b).filter(|&x| !printable(x)).count() as u32).unwrap()
}

fn encoded(text: &str) -> String {
    text.bytes().map(byte_char).collect()
}

/// A GGUF v3 file with only metadata.
fn gguf(model: &str, pre: &str, extra_tokens: &[&str], merges: &[&str]) -> Vec<u8> {
    fn string(out: &mut Vec<u8>, s: &str) {
        out.extend_from_slice(&(s.len() as u64).to_le_bytes());
        out.extend_from_slice(s.as_bytes());
    }
    fn strings(out: &mut Vec<u8>, key: &str, items: &[String]) {
        string(out, key);
        out.extend_from_slice(&9u32.to_le_bytes());
        out.extend_from_slice(&8u32.to_le_bytes());
        out.extend_from_slice(&(items.len() as u64).to_le_bytes());
        for item in items {
            string(out, item);
        }
    }
    let mut tokens: Vec<String> = vec!["<|end|>".into()];
    tokens.extend((0..=255u8).map(|b| byte_char(b).to_string()));
    tokens.extend(extra_tokens.iter().map(|t| encoded(t)));
    let merges: Vec<String> = merges
        .iter()
        .map(|m| {
            let (left, right) = m.split_once(' ').unwrap();
            format!("{} {}", encoded(left), encoded(right))
        })
        .collect();
    let mut out = b"GGUF".to_vec();
    out.extend_from_slice(&3u32.to_le_bytes());
    out.extend_from_slice(&0u64.to_le_bytes());
    out.extend_from_slice(&5u64.to_le_bytes());
    for (key, value) in [("tokenizer.ggml.model", model), ("tokenizer.ggml.pre", pre)] {
        string(&mut out, key);
        out.extend_from_slice(&8u32.to_le_bytes());
        string(&mut out, value);
    }
    strings(&mut out, "tokenizer.ggml.tokens", &tokens);
    strings(&mut out, "tokenizer.ggml.merges", &merges);
    string(&mut out, "tokenizer.ggml.token_type");
    out.extend_from_slice(&9u32.to_le_bytes());
    out.extend_from_slice(&5u32.to_le_bytes());
    out.extend_from_slice(&(tokens.len() as u64).to_le_bytes());
    for id in 0..tokens.len() {
        out.extend_from_slice(&(if id == 0 { 3i32 } else { 1 }).to_le_bytes());
    }
    out
}

fn synthetic(pre: &str, extra_tokens: &[&str], merges: &[&str]) -> Tokenizer {
    let bytes = gguf("gpt2", pre, extra_tokens, merges);
    Tokenizer::from_gguf(&Gguf::parse(&bytes).unwrap()).unwrap()
}

/// The id of a single byte's token in [`gguf`]'s vocabulary.
fn byte_id(b: u8) -> u32 {
    1 + u32::from(b)
}

#[test]
fn bpe_merges_lowest_rank_first_and_leftmost_among_equals() {
    // Ids: 0 <|end|>, 1..=256 the bytes, then the extra tokens in order.
    let tok = synthetic("gpt-2", &["aa", "bc", "ab", "abc"], &["b c", "a b", "a a"]);
    assert_eq!(tok.encode("aaa", false), [257, byte_id(b'a')]);
    assert_eq!(tok.encode("abc", false), [byte_id(b'a'), 258]);
    assert_eq!(tok.encode("ab", false), [259]);
    assert_eq!(tok.encode("<|end|>ab", true), [0, 259]);
    assert!(tok.is_end_of_generation(0) && tok.is_control(0));
    assert_eq!(tok.token_bytes(258), b"bc");
}

#[test]
fn a_merge_that_is_not_a_token_still_merges_and_falls_back_to_bytes() {
    // "x y" makes "xy", which is no token; "xy z" makes the token "xyz".
    let tok = synthetic("gpt-2", &["xyz"], &["x y", "xy z"]);
    assert_eq!(tok.encode("xyz", false), [257]);
    assert_eq!(tok.encode("xy", false), [byte_id(b'x'), byte_id(b'y')]);
}

#[test]
fn llama3_takes_a_whole_word_that_is_a_token_without_merging() {
    let tok = synthetic("llama3", &["abc"], &[]);
    assert_eq!(tok.encode("abc", false), [257]);
    assert!(tok.add_bos());
    let tok = synthetic("smollm", &["abc"], &[]);
    let abc: Vec<u32> = b"abc".iter().map(|&b| byte_id(b)).collect();
    assert_eq!(tok.encode("abc", false), abc);
}

#[test]
fn other_models_and_pre_tokenizers_are_errors_naming_them() {
    let bytes = gguf("bert", "default", &[], &[]);
    let err = Tokenizer::from_gguf(&Gguf::parse(&bytes).unwrap()).unwrap_err();
    assert!(err.to_string().contains("\"bert\""), "{err}");
    let bytes = gguf("gpt2", "no-such-pre", &[], &[]);
    let err = Tokenizer::from_gguf(&Gguf::parse(&bytes).unwrap()).unwrap_err();
    assert!(err.to_string().contains("\"no-such-pre\""), "{err}");
}
