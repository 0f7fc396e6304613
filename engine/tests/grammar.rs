//! The GBNF grammar engine from the outside: parsing (and its error messages), matching text
//! fed in arbitrary byte chunks, and greedy token choice, above all under the grammar the app
//! generates tool calls with.
// Helpers outside #[test] functions report failures by panicking, as tests do.
#![allow(clippy::panic)]

use tabloop_engine::grammar::{choose_greedy, Grammar, GrammarError, GrammarState};

/// The grammar the app constrains generation with.
const APP: &str = r#"
root ::= call0 | call1 | final
final ::= "answer\",\"arguments\":{\"text\":" string "}}"
call0 ::= "vfs\",\"arguments\":" (r0 | r1 | r2) "}"
r0 ::= "{" "\"op\":" "\"read\"" "," "\"path\":" string "}"
r1 ::= "{" "\"op\":" "\"write\"" "," "\"path\":" string "," "\"content\":" string "}"
r2 ::= "{" "\"op\":" "\"list\"" "," "\"path\":" string "}"
call1 ::= "eval\",\"arguments\":" "{" "\"code\":" string "}" "}"
string ::= "\"" char* "\""
char ::= [^"\\\x7F\x00-\x1F] | "\\" ["\\bfnrt]
integer ::= "-"? ("0" | [1-9] [0-9]{0,15})
number ::= integer ("." [0-9]+)? ([eE] [-+]? [0-9]+)?
boolean ::= "true" | "false"
null ::= "null"
value ::= object | array | string | number | boolean | null
object ::= "{" (string ":" value ("," string ":" value)*)? "}"
array ::= "[" (value ("," value)*)? "]"
"#;

const WRITE_CALL: &str =
    r#"vfs","arguments":{"op":"write","path":"/notes.txt","content":"hello"}}"#;

fn grammar(text: &str) -> Grammar {
    Grammar::parse(text).unwrap_or_else(|e| panic!("grammar should parse: {e}"))
}

/// The app's rules with `root` matching any JSON value instead.
fn json() -> Grammar {
    grammar(&APP.replace("root ::= call0 | call1 | final", "root ::= value"))
}

fn parse_error(text: &str) -> String {
    match Grammar::parse(text) {
        Ok(_) => panic!("grammar should not parse: {text}"),
        Err(GrammarError(message)) => message,
    }
}

/// Feeds the chunks in order (skipping empty ones, which `advance` refuses); the state after
/// them, or the error of the first refused one.
fn feed(g: &Grammar, chunks: &[&[u8]]) -> Result<GrammarState, GrammarError> {
    let mut state = GrammarState::new(g);
    for chunk in chunks.iter().filter(|c| !c.is_empty()) {
        state.advance(g, chunk)?;
    }
    Ok(state)
}

/// Whether `text` (fed whole) is a complete match.
fn matches(g: &Grammar, text: &str) -> bool {
    feed(g, &[text.as_bytes()]).is_ok_and(|s| s.is_complete())
}

/// Whether `text` (fed whole) is allowed at all, complete or not.
fn allowed(g: &Grammar, text: &str) -> bool {
    feed(g, &[text.as_bytes()]).is_ok()
}

/// `text` split into chunks of `size` bytes.
fn chunks(text: &[u8], size: usize) -> Vec<&[u8]> {
    text.chunks(size).collect()
}

#[test]
fn a_write_call_split_into_chunks_is_accepted_and_complete_only_at_the_end() {
    let g = grammar(APP);
    for size in 1..=9 {
        let mut state = GrammarState::new(&g);
        let pieces = chunks(WRITE_CALL.as_bytes(), size);
        let mut completeness = Vec::new();
        for piece in &pieces {
            state
                .advance(&g, piece)
                .unwrap_or_else(|e| panic!("chunk size {size}: {e}"));
            completeness.push(state.is_complete());
        }
        let mut expected = vec![false; pieces.len()];
        expected[pieces.len() - 1] = true;
        assert_eq!(completeness, expected, "chunk size {size}");
        assert!(!state.can_continue());
    }
}

#[test]
fn every_call_form_of_the_app_grammar_is_a_whole_match() {
    let g = grammar(APP);
    let calls = [
        r#"vfs","arguments":{"op":"read","path":"/a/b.md"}}"#,
        r#"vfs","arguments":{"op":"list","path":"/"}}"#,
        WRITE_CALL,
        r#"eval","arguments":{"code":"console.log(\"hi\\n\")"}}"#,
        r#"answer","arguments":{"text":"Done: 3 files, \"ok\"."}}"#,
        r#"answer","arguments":{"text":""}}"#,
    ];
    let results: Vec<bool> = calls.iter().map(|c| matches(&g, c)).collect();
    assert_eq!(results, vec![true; calls.len()]);
}

#[test]
fn a_missing_quote_is_rejected() {
    let g = grammar(APP);
    let missing = r#"vfs","arguments":{"op":"write","path":/notes.txt","content":"hello"}}"#;
    let error = feed(&g, &[missing.as_bytes()]).map(|_| ());
    assert_eq!(
        error,
        Err(GrammarError(format!(
            "the grammar does not allow {missing:?} here"
        )))
    );
    assert!(!allowed(&g, r#"vfs,"arguments""#));
}

#[test]
fn a_raw_newline_inside_a_string_is_rejected_but_an_escaped_one_is_accepted() {
    let g = grammar(APP);
    assert!(!allowed(
        &g,
        "answer\",\"arguments\":{\"text\":\"line one\nline two"
    ));
    assert!(matches(
        &g,
        r#"answer","arguments":{"text":"line one\nline two"}}"#
    ));
    assert!(!allowed(
        &g,
        r#"answer","arguments":{"text":"bad \q escape"#
    ));
    assert!(!allowed(&g, "answer\",\"arguments\":{\"text\":\"tab\there"));
}

#[test]
fn a_trailing_character_after_the_end_is_rejected() {
    let g = grammar(APP);
    let mut state = feed(&g, &[WRITE_CALL.as_bytes()]).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((state.is_complete(), state.can_continue()), (true, false));
    let before = state.clone();
    assert!(state.advance(&g, b"}").is_err());
    assert!(state.advance(&g, b" ").is_err());
    assert_eq!(state, before);
    assert!(!matches(&g, &format!("{WRITE_CALL}\n")));
}

#[test]
fn an_unknown_tool_or_operation_is_rejected() {
    let g = grammar(APP);
    assert!(!allowed(&g, "vfz"));
    assert!(!allowed(&g, r#"vfs","arguments":{"op":"delete""#));
    assert!(allowed(&g, r#"vfs","arguments":{"op":"wr"#));
}

#[test]
fn non_ascii_text_split_inside_a_character_across_advances_is_accepted() {
    let g = grammar(APP);
    let text = r#"answer","arguments":{"text":"café – 😀 naïve"}}"#;
    let bytes = text.as_bytes();
    let e_acute = text.find('é').unwrap_or(0);
    let emoji = text.find('😀').unwrap_or(0);
    let mut state = GrammarState::new(&g);
    let cuts = [0, e_acute + 1, emoji + 1, emoji + 2, emoji + 3, bytes.len()];
    for window in cuts.windows(2) {
        state
            .advance(&g, &bytes[window[0]..window[1]])
            .unwrap_or_else(|e| panic!("{e}"));
        let inside_a_character = window[1] != bytes.len();
        assert_eq!(
            state.is_complete(),
            !inside_a_character && window[1] == bytes.len()
        );
        assert!(state.can_continue() || window[1] == bytes.len());
    }
    assert!(state.is_complete());
    for size in 1..=5 {
        assert!(
            feed(&g, &chunks(bytes, size)).is_ok_and(|s| s.is_complete()),
            "chunk size {size}"
        );
    }
}

#[test]
fn a_token_ending_inside_a_character_is_accepted_only_when_an_allowed_character_starts_so() {
    let g = grammar(r#"root ::= "é" | [\u4e00-\u9fff]"#);
    let state = GrammarState::new(&g);
    let verdicts: Vec<bool> = [
        &[0xC3][..],
        &[0xC2],
        &[0xE4],
        &[0xE4, 0xB8],
        &[0xE3],
        &[0xF0, 0x9F],
    ]
    .iter()
    .map(|b| state.accepts(&g, b))
    .collect();
    assert_eq!(verdicts, vec![true, false, true, true, false, false]);
    let mut state = state;
    state.advance(&g, &[0xE4]).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((state.is_complete(), state.can_continue()), (false, true));
    assert!(!state.accepts(&g, b"a"));
    state
        .advance(&g, &[0xB8, 0x80])
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((state.is_complete(), state.can_continue()), (true, false));
}

#[test]
fn invalid_utf8_is_rejected() {
    let g = grammar("root ::= .*");
    let state = GrammarState::new(&g);
    let bad: [&[u8]; 6] = [
        &[0xFF],
        &[0xC0, 0x80],
        &[0x80],
        &[0xE0, 0x80, 0x80],
        &[0xED, 0xA0, 0x80],
        &[0xC3, 0x41],
    ];
    assert_eq!(
        bad.iter().map(|b| state.accepts(&g, b)).collect::<Vec<_>>(),
        vec![false; bad.len()]
    );
    assert!(state.accepts(&g, "ok ✓".as_bytes()));
}

#[test]
fn empty_bytes_are_never_accepted() {
    let g = grammar(APP);
    let mut state = GrammarState::new(&g);
    assert!(!state.accepts(&g, b""));
    assert!(state.advance(&g, b"").is_err());
}

#[test]
fn accepts_does_not_change_the_state_and_a_refused_advance_leaves_it_as_it_was() {
    let g = grammar(APP);
    let mut state =
        feed(&g, &[b"vfs\",\"arguments\":{\"op\":\""]).unwrap_or_else(|e| panic!("{e}"));
    let before = state.clone();
    let verdicts: Vec<bool> = ["read", "list\"", "x", "wr", "\""]
        .iter()
        .map(|t| state.accepts(&g, t.as_bytes()))
        .collect();
    assert_eq!(verdicts, vec![true, true, false, true, false]);
    assert_eq!(state, before);
    assert!(state.advance(&g, b"rex").is_err());
    assert_eq!(state, before);
    assert!(state.advance(&g, b"rea").is_ok());
    assert_ne!(state, before);
}

#[test]
fn json_values_follow_the_app_grammar_value_rules() {
    let g = json();
    let good = [
        "0",
        "-12",
        "3.25e-7",
        "1234567890123456",
        r#"{"a":[1,true,null,{"b":"c"}],"d":false}"#,
        "[]",
        "{}",
        r#""é\"""#,
    ];
    let bad = [
        "01",
        "12345678901234567",
        "1.",
        "[1,]",
        r#"{"a"}"#,
        "tru",
        "-",
        r#"{"a":1"#,
    ];
    assert_eq!(
        good.iter().map(|t| matches(&g, t)).collect::<Vec<_>>(),
        vec![true; good.len()]
    );
    assert_eq!(
        bad.iter().map(|t| matches(&g, t)).collect::<Vec<_>>(),
        vec![false; bad.len()]
    );
}

#[test]
fn each_repetition_form_honours_its_bounds() {
    let cases: [(&str, [bool; 6]); 7] = [
        // whole match of "", "a", "aa", "aaa", "aaaa", "aaaaa"
        (r#"root ::= "a"*"#, [true, true, true, true, true, true]),
        (r#"root ::= "a"+"#, [false, true, true, true, true, true]),
        (r#"root ::= "a"?"#, [true, true, false, false, false, false]),
        (
            r#"root ::= "a"{3}"#,
            [false, false, false, true, false, false],
        ),
        (
            r#"root ::= "a"{2,}"#,
            [false, false, true, true, true, true],
        ),
        (
            r#"root ::= "a"{2,4}"#,
            [false, false, true, true, true, false],
        ),
        (
            r#"root ::= "a"{,2}"#,
            [true, true, true, false, false, false],
        ),
    ];
    for (text, expected) in cases {
        let g = grammar(text);
        let got: Vec<bool> = (0..6).map(|n| matches(&g, &"a".repeat(n))).collect();
        assert_eq!(got, expected, "{text}");
    }
}

#[test]
fn a_repeated_literal_or_group_repeats_as_a_whole() {
    let g = grammar(r#"root ::= "ab"{2} ("c" | "de")+ [0-9]{0,15}"#);
    assert!(matches(&g, "ababc"));
    assert!(matches(&g, "ababdecde123456789012345"));
    assert!(!matches(&g, "ababdecde1234567890123456"));
    assert!(!matches(&g, "abac"));
    assert!(!matches(&g, "abab"));
}

#[test]
fn a_huge_repetition_bound_is_refused_instead_of_using_unbounded_memory() {
    let message = parse_error(r#"root ::= "abc"{100000000}"#);
    assert_eq!(
        message,
        "line 1, column 15: the grammar is too large (it expands to more than 262144 elements)"
    );
    assert!(Grammar::parse(r#"root ::= [0-9]{0,5000}"#).is_ok());
}

#[test]
fn negated_classes_any_character_and_escapes_match_the_right_code_points() {
    let g = grammar(r#"root ::= [^a-c\n] . "\x41\u00e9\U0001F600\t\"\\" [\[\]\-x]"#);
    assert!(matches(&g, "d\nAé😀\t\"\\]"));
    assert!(matches(&g, "😀😀Aé😀\t\"\\-"));
    assert!(matches(&g, "ZzAé😀\t\"\\x"));
    assert!(!matches(&g, "b Aé😀\t\"\\x"));
    assert!(!matches(&g, "\n Aé😀\t\"\\x"));
    assert!(!matches(&g, "d Aé😀\t\"\\y"));
}

#[test]
fn nested_groups_and_alternatives_match_as_written() {
    let g = grammar(r#"root ::= ("a" ("b" | "c" ("d" | "e")*)+ | "x")* "!""#);
    let good = ["!", "ab!", "acdde!", "abcb!", "xabx!"];
    let bad = ["a!", "ad!", "abx", "acf!"];
    assert_eq!(
        good.iter().map(|t| matches(&g, t)).collect::<Vec<_>>(),
        vec![true; good.len()]
    );
    assert_eq!(
        bad.iter().map(|t| matches(&g, t)).collect::<Vec<_>>(),
        vec![false; bad.len()]
    );
}

#[test]
fn comments_and_rules_spanning_lines_are_understood() {
    let g = grammar(
        "# a greeting\nroot ::= greeting # trailing comment\n    \" \" name\n\
         greeting ::= \"hi\"\n  | \"hello\" # either\nname ::= (\n  \"world\" |\n  \"you\"\n)\n",
    );
    assert!(matches(&g, "hi world"));
    assert!(matches(&g, "hello you"));
    assert!(!matches(&g, "hi"));
    assert!(!matches(&g, "hey you"));
}

#[test]
fn a_nullable_loop_is_matched_rather_than_refused() {
    let g = grammar(r#"root ::= ("a"? "b"?)* "c""#);
    assert_eq!(
        ["c", "abbac", "bbbc", "ab"].map(|t| matches(&g, t)),
        [true, true, true, false]
    );
}

#[test]
fn an_ambiguous_grammar_keeps_few_stacks_and_still_matches() {
    let g = grammar(r#"root ::= ("a" | "a" "a" | "aa")* "b""#);
    let long = format!("{}b", "a".repeat(2000));
    assert!(feed(&g, &chunks(long.as_bytes(), 3)).is_ok_and(|s| s.is_complete()));
}

#[test]
fn parse_errors_say_what_and_where() {
    let cases = [
        (
            "root ::= greeting\n",
            "line 1, column 10: rule `greeting` is used but never defined",
        ),
        (
            "root ::= \"abc\n",
            "line 1, column 10: unterminated literal: this `\"` is never closed",
        ),
        (
            "root \"a\"",
            "line 1, column 6: expected `::=` after the rule name `root`",
        ),
        (
            "start ::= \"a\"",
            "the grammar has no `root` rule (matching starts there)",
        ),
        (
            "root ::= [a-z",
            "line 1, column 10: unterminated character class: this `[` is never closed",
        ),
        (
            "root ::= \"\\q\"",
            "line 1, column 11: unknown escape `\\q`",
        ),
        (
            "root ::= \"\\x4\"",
            "line 1, column 11: the escape `\\x` needs 2 hexadecimal digits",
        ),
        (
            "root ::= [z-a]",
            "line 1, column 11: this character range runs backwards",
        ),
        (
            "root ::= * \"a\"",
            "line 1, column 10: `*` has nothing before it to repeat",
        ),
        (
            "root ::= (\"a\"",
            "line 1, column 14: expected `)` to close the `(` at line 1, column 10",
        ),
        (
            "root ::= \"a\")",
            "line 1, column 13: unexpected `)`: there is no `(` to close",
        ),
        (
            "root ::= \"a\"{3,1}",
            "line 1, column 13: the repetition's upper bound is below its lower bound",
        ),
        (
            "root ::= \"a\" ; \"b\"",
            "line 1, column 14: unexpected character `;`",
        ),
        (
            "root ::= \"a\"\nroot ::= \"b\"",
            "line 2, column 1: rule `root` is defined twice",
        ),
        (
            "root ::= expr\nexpr ::= expr \"+\" \"1\" | \"1\"",
            "rule `expr` is left-recursive: it can reach itself before matching anything",
        ),
        (
            "::= \"a\"",
            "line 1, column 1: expected a rule name, found `:`",
        ),
    ];
    let got: Vec<(&str, String)> = cases
        .iter()
        .map(|&(text, _)| (text, parse_error(text)))
        .collect();
    let expected: Vec<(&str, String)> = cases
        .iter()
        .map(|&(text, m)| (text, m.to_string()))
        .collect();
    assert_eq!(got, expected);
}

#[test]
fn indirect_left_recursion_is_refused_but_a_rule_ending_in_itself_is_not() {
    let indirect = "root ::= a\na ::= b? c \"x\" | \"y\"\nb ::= \"z\"\nc ::= a | \"w\"";
    assert_eq!(
        parse_error(indirect),
        "rule `a` is left-recursive: it can reach itself before matching anything"
    );
    let tail = grammar("root ::= root | \"a\" root | \"b\"");
    assert_eq!(
        ["b", "aab", "a", ""].map(|t| matches(&tail, t)),
        [true, true, false, false]
    );
}

#[test]
fn deeply_nested_parentheses_are_refused_instead_of_overflowing_the_stack() {
    let deep = format!("root ::= {}\"a\"{}", "(".repeat(10_000), ")".repeat(10_000));
    assert_eq!(
        parse_error(&deep),
        "line 1, column 73: parentheses nest more than 64 deep"
    );
    let fine = format!("root ::= {}\"a\"{}", "(".repeat(50), ")".repeat(50));
    assert!(matches(&grammar(&fine), "a"));
}

#[test]
fn hostile_grammar_text_is_an_error_never_a_panic() {
    let inputs = [
        "",
        "root",
        "root ::=",
        "root ::= \\",
        "root ::= \"\\",
        "root ::= [\\",
        "root ::= \"a\"{",
        "root ::= \"a\"{,",
        "root ::= \"a\"{99999999999}",
        "root ::= \"\\U00110000\"",
        "root ::= é",
        "\u{0}",
        "root ::= (((",
        "root ::= )",
    ];
    for text in inputs {
        let _ = Grammar::parse(text);
    }
    assert!(Grammar::parse("root ::=").is_ok_and(|g| GrammarState::new(&g).is_complete()));
}

#[test]
fn a_grammar_too_ambiguous_to_follow_is_refused_rather_than_exhausting_memory() {
    // After n "a"s every string of n "x"/"y" is a possible ending: 2^n parse stacks.
    let g = grammar(
        r#"root ::= t
t ::= "a" t "x" | "a" t "y" | """#,
    );
    let mut state = GrammarState::new(&g);
    let mut outcome = Ok(());
    let mut fed = 0;
    while outcome.is_ok() && fed < 40 {
        outcome = state.advance(&g, b"a");
        fed += 1;
    }
    let message = "the grammar is too ambiguous here: more than 16384 parse stacks".to_string();
    assert_eq!(outcome, Err(GrammarError(message)));
    assert_eq!(fed, 13);
    assert!(!state.accepts(&g, b"a"));
    assert!(state.accepts(&g, b"xy"));
}

#[test]
fn random_grammar_text_and_random_bytes_never_panic() {
    // Mostly well-formed pieces (so that many texts parse and get matched against), and a few
    // that break the syntax.
    let pieces = [
        "a",
        "b",
        "\"x\"",
        "\"\\u00e9\"",
        "[^a-z]",
        ".",
        " ",
        "\n ",
        "|",
        "(",
        ")",
        "*",
        "+",
        "?",
        "{2}",
        "{1,3}",
        "{,2}",
        "{2,}",
        "#c\n",
        "\"",
        "[",
        "\\",
        "é",
        "::=",
    ];
    let mut rng = Lcg(3);
    let mut parsed = 0;
    for _ in 0..3000 {
        let n = 1 + rng.next() % 14;
        let body: String = (0..n)
            .map(|_| pieces[(rng.next() % pieces.len() as u64) as usize])
            .collect();
        let text = format!("root ::= {body}\na ::= \"q\" | b\nb ::= \"r\"* a?\n");
        let Ok(g) = Grammar::parse(&text) else {
            continue;
        };
        parsed += 1;
        let mut state = GrammarState::new(&g);
        for _ in 0..8 {
            let len = rng.next() % 4;
            let bytes: Vec<u8> = (0..len)
                .map(|_| b"xaz\xc3\xa9\"!"[(rng.next() % 7) as usize])
                .collect();
            let _ = state.advance(&g, &bytes);
            let _ = (state.is_complete(), state.can_continue());
        }
    }
    assert!(parsed > 100, "only {parsed} random grammars parsed");
}

/// Tokens for choice tests: index -> bytes.
fn vocab(tokens: &[&'static str]) -> Vec<&'static [u8]> {
    tokens.iter().map(|t| t.as_bytes()).collect()
}

#[test]
fn choose_greedy_picks_the_best_scoring_allowed_token() {
    let g = grammar(APP);
    let tokens = vocab(&["hello", "vfs", "answer", "ev", "", "<end>", "a"]);
    let state = GrammarState::new(&g);
    let choose = |scores: &[f32]| choose_greedy(&g, &state, scores, |i| tokens[i], |i| i == 5);
    assert_eq!(choose(&[9.0, 1.0, 2.0, 3.0, 8.0, 7.0, 0.5]), Some(3));
    assert_eq!(choose(&[9.0, 4.0, 2.0, 3.0, 8.0, 7.0, 0.5]), Some(1));
    assert_eq!(choose(&[9.0, f32::NAN, 2.0, 2.0, 8.0, 7.0, 2.0]), Some(2));
    assert_eq!(choose(&[9.0, -1.0, -2.0, -3.0, 8.0, 7.0, 0.5]), Some(6));
    assert_eq!(
        choose(&[9.0, f32::NAN, f32::NAN, f32::NAN, 8.0, 7.0, f32::NAN]),
        None
    );
}

#[test]
fn choose_greedy_allows_an_end_token_only_when_the_match_is_complete() {
    let g = grammar(APP);
    let tokens = vocab(&["}", "}}", "<end>", "\"", " "]);
    let scores = [1.0, 2.0, 5.0, 0.5, 3.0];
    let choose =
        |state: &GrammarState| choose_greedy(&g, state, &scores, |i| tokens[i], |i| i == 2);
    let almost = feed(&g, &[&WRITE_CALL.as_bytes()[..WRITE_CALL.len() - 2]])
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(choose(&almost), Some(1));
    let done = feed(&g, &[WRITE_CALL.as_bytes()]).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(choose(&done), Some(2));
    let inside =
        feed(&g, &[b"answer\",\"arguments\":{\"text\":\"x"]).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(choose(&inside), Some(4));
}

/// A deterministic pseudo-random generator for the timing vocabulary.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
}

/// 49,152 tokens: pseudo-random pieces of JSON-ish text and some non-ASCII.
fn timing_vocab() -> Vec<Vec<u8>> {
    let pieces = [
        "a", "n", "s", "w", "e", "r", "\"", ",", ":", "{", "}", " ", "the", "ing", "é", "中", "\\",
        "\n", "1", "v", "f", "x",
    ];
    let mut rng = Lcg(7);
    (0..49_152)
        .map(|_| {
            let n = 1 + rng.next() % 4;
            (0..n)
                .flat_map(|_| pieces[(rng.next() % pieces.len() as u64) as usize].bytes())
                .collect()
        })
        .collect()
}

/// A timing scenario: its name, the text before the choice, which tokens to score highest
/// (those of the kind that the grammar refuses there).
type Scenario = (&'static str, &'static [u8], fn(&[u8]) -> bool);

/// Times choose_greedy where the ~1,000 best-scoring tokens are refused; prints the figures.
/// Run with `cargo test -p tabloop-engine --release --test grammar -- --ignored --nocapture`.
#[test]
#[ignore = "timing; prints figures, asserts only the choices"]
fn choose_greedy_timing_with_the_top_thousand_tokens_refused() {
    let g = grammar(APP);
    let vocab = timing_vocab();
    let mut rng = Lcg(11);
    let scenarios: [Scenario; 2] = [
        // At the start: only "vfs...", "eval..." or "answer..." may come; the refused top
        // tokens start with 'a' or 'v' so each one passes the first-byte filter and is matched.
        ("start of a call", b"", |t| {
            t.first().is_some_and(|&b| b == b'a' || b == b'v') && t.len() > 1
        }),
        // Inside a string: nearly everything is allowed; the refused top tokens contain a raw newline.
        (
            "inside a string",
            b"answer\",\"arguments\":{\"text\":\"so",
            |t| t.len() > 1 && t[1..].contains(&b'\n'),
        ),
    ];
    for (name, prefix, refused_kind) in scenarios {
        let state = feed(&g, &[prefix]).unwrap_or_else(|e| panic!("{e}"));
        let mut scores: Vec<f32> = (0..vocab.len())
            .map(|_| (rng.next() % 10_000) as f32 / 1000.0)
            .collect();
        let mut refused = 0;
        for (i, token) in vocab.iter().enumerate() {
            if refused < 1000 && refused_kind(token) && !state.accepts(&g, token) {
                scores[i] = 100.0 + refused as f32;
                refused += 1;
            }
        }
        assert_eq!(
            refused, 1000,
            "{name}: the vocabulary should have 1000 refused tokens of the kind"
        );
        let runs = 200;
        let mut chosen = None;
        let start = std::time::Instant::now();
        for _ in 0..runs {
            chosen = choose_greedy(&g, &state, &scores, |i| &vocab[i], |_| false);
        }
        let per_call = start.elapsed().as_secs_f64() * 1000.0 / f64::from(runs);
        let chosen = chosen.unwrap_or_else(|| panic!("{name}: some token should be allowed"));
        assert!(scores[chosen] < 100.0 && state.accepts(&g, &vocab[chosen]));
        println!(
            "choose_greedy, {name}: {per_call:.3} ms per call (49,152 tokens, top 1,000 refused)"
        );
    }
}

#[test]
fn the_only_continuation_the_grammar_admits_is_forced_and_nothing_where_there_is_a_choice() {
    let g = grammar(APP);
    let forced = |text: &str| {
        let state = feed(&g, &[text.as_bytes()]).unwrap();
        String::from_utf8(state.forced_bytes(&g, 256)).unwrap()
    };
    // a tool's name chosen by its first letter: the rest of the call's head is forced
    assert_eq!(forced("v"), r#"fs","arguments":{"op":""#);
    assert_eq!(
        forced("vfs\",\"arguments\":{\"op\":\"w"),
        r#"rite","path":""#
    );
    // a string's end opens the next key
    assert_eq!(
        forced(r#"vfs","arguments":{"op":"write","path":"/a""#),
        r#","content":""#
    );
    // and a call's last string its closing braces
    assert_eq!(forced(&WRITE_CALL[..WRITE_CALL.len() - 2]), "}}");
    // a choice (which tool, a string's text) forces nothing, and neither does a whole match
    assert_eq!(forced(""), "");
    assert_eq!(forced(r#"vfs","arguments":{"op":"write","path":"/a"#), "");
    assert_eq!(forced(WRITE_CALL), "");
    // where the match may end or go on, nothing is forced
    let optional = grammar(r#"root ::= "a" "b"?"#);
    let state = feed(&optional, &[b"a"]).unwrap();
    assert!(state.forced_bytes(&optional, 8).is_empty());
    // and the limit holds
    let state = feed(&g, &[b"v"]).unwrap();
    assert_eq!(state.forced_bytes(&g, 4), b"fs\",");
}
