//! The detectors on small trajectories: what each one catches, and the honest patterns none
//! of them may flag.

use serde_json::{json, Value};

use super::{Guard, Level, Observation};
use crate::core::log::{Detector, GuardThresholds};

fn see(
    guard: &mut Guard,
    tool: &str,
    args: Value,
    content: &str,
    is_error: bool,
) -> super::Judgement {
    let raw = args.to_string();
    guard.observe(
        &Observation {
            tool,
            args: &args,
            raw_args: &raw,
            content,
            is_error,
            effect: tool == "edit",
        },
        &GuardThresholds::default(),
    )
}

fn fired(judgement: &super::Judgement) -> Option<(Detector, Level)> {
    judgement.finding.as_ref().map(|f| (f.detector, f.level))
}

#[test]
fn a_cycle_of_four_with_noisy_results_is_thrashing() {
    let mut guard = Guard::default();
    let mut first = None;
    for round in 0..3 {
        let steps = [
            (
                "edit",
                json!({"path": "a.rs", "text": "x"}),
                "ok".to_string(),
                false,
            ),
            (
                "test",
                json!({}),
                format!("[2026-12-05T04:3{round}:00Z] FAIL parse (run {round}, 4{round}ms)"),
                true,
            ),
            (
                "edit",
                json!({"path": "a.rs", "text": "y"}),
                "ok".to_string(),
                false,
            ),
            (
                "test",
                json!({}),
                format!(
                    "[2026-12-05T05:1{round}:00Z] FAIL parse (run {}, 9{round}ms)",
                    round + 7
                ),
                true,
            ),
        ];
        for (tool, args, content, err) in steps {
            let j = see(&mut guard, tool, args, &content, err);
            if first.is_none() {
                first = fired(&j);
            }
        }
    }
    assert!(first.is_some(), "nothing fired on a noisy cycle");
}

#[test]
fn distinct_calls_with_the_same_empty_result_stagnate() {
    let mut guard = Guard::default();
    let mut levels = Vec::new();
    for name in [
        "parse_header",
        "read_config",
        "open_file",
        "load_user",
        "save_all",
        "init_db",
        "drop_cache",
    ] {
        let j = see(
            &mut guard,
            "grep",
            json!({"pattern": name}),
            &format!("no match for {name}"),
            false,
        );
        levels.push(fired(&j));
    }
    assert!(
        levels.contains(&Some((Detector::Stagnation, Level::Diagnose))),
        "{levels:?}"
    );
    assert_eq!(
        levels.last(),
        Some(&Some((Detector::Stagnation, Level::Stop)))
    );
}

#[test]
fn errors_that_differ_only_in_numbers_are_one_error() {
    let mut guard = Guard::default();
    let mut last = None;
    for line in 10..15 {
        let j = see(
            &mut guard,
            "compile",
            json!({"file": format!("f{line}.rs")}),
            &format!(
                "error[E0308]: mismatched types at line {line}, column {}",
                line * 3
            ),
            true,
        );
        last = fired(&j);
    }
    assert!(
        matches!(
            last,
            Some((Detector::RepeatedError | Detector::Stagnation, Level::Stop))
        ),
        "{last:?}"
    );
}

#[test]
fn honest_paging_polling_and_reading_similar_files_never_fire() {
    let mut guard = Guard::default();
    for page in 0..20 {
        let lines: Vec<String> = (0..10)
            .map(|i| {
                format!(
                    "line {}: entry {} value {}",
                    page * 10 + i,
                    (page * 7 + i * 3) % 17,
                    page * i
                )
            })
            .collect();
        let j = see(
            &mut guard,
            "read",
            json!({"offset": page * 10, "limit": 10}),
            &lines.join("\n"),
            false,
        );
        assert_eq!(fired(&j), None, "paging fired at page {page}");
    }
    let mut guard = Guard::default();
    for tick in 0..12 {
        let j = see(
            &mut guard,
            "status",
            json!({"job": "build-17"}),
            &format!(
                "job build-17 running: {}% done, at {}",
                tick * 8,
                format_args!("04:{:02}:00", tick)
            ),
            false,
        );
        assert_eq!(fired(&j), None, "polling fired at tick {tick}");
    }
    let mut guard = Guard::default();
    for (i, service) in [
        "auth", "billing", "search", "mailer", "gateway", "reports", "storage", "queue",
    ]
    .iter()
    .enumerate()
    {
        let text = format!("name: {service}\nreplicas: {}\nimage: registry/{service}:1.{}\nport: {}\nowner: team-{}", i % 3 + 1, i + 2, 8000 + i * 11, ["red", "blue", "green"][i % 3]);
        let j = see(
            &mut guard,
            "read",
            json!({"path": format!("services/{service}.yaml")}),
            &text,
            false,
        );
        assert_eq!(fired(&j), None, "similar files fired at {service}");
    }
}

#[test]
fn after_a_reflection_the_guard_counts_what_stays_stuck() {
    let mut guard = Guard::default();
    assert_eq!(guard.stuck_since_reflection(), None);
    see(&mut guard, "grep", json!({"q": "a"}), "nothing", false);
    guard.reflected();
    see(&mut guard, "grep", json!({"q": "b"}), "nothing", false);
    see(&mut guard, "grep", json!({"q": "c"}), "nothing", false);
    assert_eq!(guard.stuck_since_reflection(), Some(2));
    see(
        &mut guard,
        "read",
        json!({"path": "x"}),
        "a new thing entirely",
        false,
    );
    assert_eq!(guard.stuck_since_reflection(), Some(0));
}

#[test]
fn short_results_that_differ_by_a_number_are_each_new_evidence() {
    // Reading many files whose contents are short and alike: each is new, none repeats.
    let mut guard = Guard::default();
    for n in 1..=300 {
        let judgement = see(
            &mut guard,
            "read_file",
            json!({"path": format!("f{n}")}),
            &format!("contents {n}"),
            false,
        );
        assert!(judgement.novel, "read {n} was not new");
        assert_eq!(fired(&judgement), None, "read {n}");
    }
}

#[test]
fn a_long_result_with_one_volatile_word_changed_is_the_same_observation() {
    // A test runner's whole output printed again with another random seed (a volatile word
    // the normaliser does not know): the same observation.
    let mut guard = Guard::default();
    let body: String = (1..=48)
        .map(|n| format!("test parser::tests::case_{n} ... ok\n"))
        .collect();
    let run =
        |seed: &str| format!("running 49 tests (seed {seed})\n{body}FAILED handles_nested_quotes");
    assert!(see(&mut guard, "run_tests", json!({}), &run("48213"), false).novel);
    let again = see(&mut guard, "run_tests", json!({}), &run("99120"), false);
    assert!(!again.novel, "another seed is not evidence");
}

#[test]
fn pages_of_a_log_in_one_shape_are_each_new_evidence() {
    let mut guard = Guard::default();
    let users = ["ada", "bob", "cy", "dee", "eli", "fay"];
    let paths = ["/api/users", "/api/orders", "/login", "/search"];
    for page in 0..20u32 {
        let lines: String = (0..25u32)
            .map(|i| {
                let k = page * 25 + i;
                format!(
                    "GET {}/{} user={} status={} bytes={}\n",
                    paths[(k % 4) as usize],
                    (k * 37) % 900,
                    users[(k * 7 % 6) as usize],
                    if k % 9 == 0 { 500 } else { 200 },
                    (k * 7919) % 90_000
                )
            })
            .collect();
        let judgement = see(
            &mut guard,
            "read_log",
            json!({"page": page + 1}),
            &lines,
            false,
        );
        assert!(judgement.novel, "page {} was not new", page + 1);
        assert_eq!(fired(&judgement), None, "page {}", page + 1);
    }
}

#[test]
fn a_brief_is_the_text_on_one_line_cut_at_its_limit() {
    assert_eq!(super::brief("  ok \n  done\t", 90), "ok done");
    assert_eq!(super::brief("abc def", 7), "abc def");
    assert_eq!(super::brief("abc def", 6), "abc de…");
    assert_eq!(super::brief("abc def", 3), "abc…");
    assert_eq!(super::brief("abc def", 4), "abc …");
    assert_eq!(super::brief("ééé ü", 2), "éé…");
    assert_eq!(super::brief("x", 0), "…");
    assert_eq!(super::brief(" \n ", 0), "");
}
