//! What of an observation is evidence. Tool results carry spans that change on every call
//! without saying anything new: timestamps, dates, clock times, UUIDs and hex ids, durations
//! (`446ms`, `1.2 s`), counters labelled as ids (`run 17`, `req=9`, `#12`), epoch numbers, and
//! the call's own arguments echoed back. Masking them makes "the same failure at another time"
//! read as the same failure. Other numbers are kept whole (a progress of 40 % then 50 % is news),
//! and a number is never split, so `0.5` is not read as two numbers.

/// Labels after which a number is an identifier or a counter, not evidence.
const ID_LABELS: [&str; 14] = [
    "run", "req", "request", "trace", "attempt", "id", "pid", "seq", "build", "job", "session",
    "span", "nonce", "try",
];

/// Units that make the number before them a duration.
const DURATION_UNITS: [&str; 10] = [
    "ns", "us", "µs", "ms", "s", "sec", "secs", "seconds", "m", "min",
];

/// The text with volatile spans masked, lower-cased, whitespace collapsed. `echoes` are the
/// call's argument values (strings of 3+ characters and whole numbers), masked wherever the
/// result repeats them, so `grep foo` → "no match for foo" and `grep bar` → "no match for bar"
/// read as the same observation.
pub fn normalize(text: &str, echoes: &[String]) -> String {
    let mut text = text.to_lowercase();
    let mut echoes: Vec<String> = echoes
        .iter()
        .map(|e| e.to_lowercase())
        .filter(|e| e.chars().count() >= 3 || e.chars().all(|c| c.is_ascii_digit()))
        .filter(|e| !e.is_empty())
        .collect();
    // Longest first, so an argument inside another is not masked in pieces.
    echoes.sort_by_key(|e| std::cmp::Reverse(e.len()));
    for echo in &echoes {
        if echo.chars().all(|c| c.is_ascii_digit()) {
            continue; // numbers are masked token by token below
        }
        if text.contains(echo.as_str()) {
            text = text.replace(echo.as_str(), " ‹arg› ");
        }
    }
    let numbers: Vec<&str> = echoes
        .iter()
        .filter(|e| e.chars().all(|c| c.is_ascii_digit()))
        .map(String::as_str)
        .collect();

    let words = split_words(&text);
    let mut out = String::with_capacity(text.len());
    for (i, word) in words.iter().enumerate() {
        let previous = i.checked_sub(1).map(|p| words[p]);
        let next = words.get(i + 1).copied();
        if i > 0 {
            out.push(' ');
        }
        out.push_str(mask(word, previous, next, &numbers));
    }
    out
}

/// The mask a word gets, or the word itself.
fn mask<'a>(word: &'a str, previous: Option<&str>, next: Option<&str>, echoes: &[&str]) -> &'a str {
    if is_time(word) {
        return "‹time›";
    }
    if is_uuid(word) || is_hex_id(word) {
        return "‹id›";
    }
    if is_glued_duration(word) {
        return "‹dur›";
    }
    if let Some(number) = as_number(word) {
        let digits = number.chars().filter(char::is_ascii_digit).count();
        if digits >= 9 || echoes.contains(&number) {
            return "‹n›";
        }
        if next.is_some_and(|n| DURATION_UNITS.contains(&n)) {
            return "‹dur›";
        }
        if previous.is_some_and(|p| ID_LABELS.contains(&p.trim_end_matches(['=', ':', '#']))) {
            return "‹n›";
        }
        if word.starts_with('#') {
            return "‹n›";
        }
    }
    if DURATION_UNITS.contains(&word) && previous.is_some_and(|p| as_number(p).is_some()) {
        return "";
    }
    word
}

/// Words: runs of characters that can belong to a value (letters, digits and the joiners of
/// times, ids and numbers); everything else separates.
fn split_words(text: &str) -> Vec<&str> {
    text.split(|c: char| !(c.is_alphanumeric() || "-:._#+/‹›=%".contains(c)))
        .flat_map(|w| w.split('='))
        .map(|w| w.trim_matches(|c: char| ".:,-/".contains(c)))
        .filter(|w| !w.is_empty())
        .collect()
}

/// A number (`12`, `-3`, `0.25`, `#7`, `40%`), as its digits-and-dot text: digits with at
/// most one dot among them, and nothing else.
fn as_number(word: &str) -> Option<&str> {
    let core = word
        .trim_start_matches(['#', '-', '+'])
        .trim_end_matches('%');
    let (mut digits, mut dots) = (0, 0);
    for byte in core.bytes() {
        match byte {
            b'0'..=b'9' => digits += 1,
            b'.' => dots += 1,
            _ => return None,
        }
    }
    (digits > 0 && dots <= 1).then_some(core)
}

/// Dates (`2026-12-05`), clock times (`04:32:30`, `4:32`), and both joined (`…T04:32:30.1Z`).
fn is_time(word: &str) -> bool {
    let digits = word.chars().filter(char::is_ascii_digit).count();
    if digits < 3 {
        return false;
    }
    let allowed = word
        .chars()
        .all(|c| c.is_ascii_digit() || "-:.tz+".contains(c));
    if !allowed {
        return false;
    }
    let colons = word.matches(':').count();
    let dashes = word.matches('-').count();
    let clock = colons >= 1 && word.split(':').skip(1).all(|p| p.len() >= 2);
    let date = dashes >= 2 && word.split('-').next().is_some_and(|y| y.len() == 4);
    clock || date
}

/// Five dash-separated groups of 8, 4, 4, 4 and 12 hex digits.
fn is_uuid(word: &str) -> bool {
    const GROUPS: [usize; 5] = [8, 4, 4, 4, 12];
    if word.len() != 36 {
        return false;
    }
    let mut groups = 0;
    for part in word.split('-') {
        let fits = GROUPS.get(groups).is_some_and(|n| part.len() == *n);
        if !fits || !part.chars().all(|c| c.is_ascii_hexdigit()) {
            return false;
        }
        groups += 1;
    }
    groups == GROUPS.len()
}

/// Hex ids and hashes: six or more hex digits mixing digits and letters (`a3f9c2`, a commit).
fn is_hex_id(word: &str) -> bool {
    let word = word.strip_prefix("0x").unwrap_or(word);
    word.len() >= 6
        && word.chars().all(|c| c.is_ascii_hexdigit())
        && word.chars().any(|c| c.is_ascii_digit())
        && word.chars().any(|c| c.is_ascii_alphabetic())
}

/// A number glued to its unit: `446ms`, `1.2s`, `3min`.
fn is_glued_duration(word: &str) -> bool {
    let split = word
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(word.len());
    let (number, unit) = word.split_at(split);
    !number.is_empty()
        && number.chars().any(|c| c.is_ascii_digit())
        && DURATION_UNITS.contains(&unit)
}

#[cfg(test)]
mod tests {
    use super::normalize;

    fn same(a: &str, b: &str) {
        assert_eq!(normalize(a, &[]), normalize(b, &[]), "{a:?} vs {b:?}");
    }

    fn differ(a: &str, b: &str) {
        assert_ne!(normalize(a, &[]), normalize(b, &[]), "{a:?} vs {b:?}");
    }

    #[test]
    fn volatile_spans_are_not_evidence() {
        same(
            "[2026-12-05T04:32:30.123Z] FAIL test_parse (run 17, 446ms)",
            "[2026-12-05T04:33:02.871Z] FAIL test_parse (run 18, 512ms)",
        );
        same(
            "request id 3f2a9c1e-0b1d-4e5f-9a8b-7c6d5e4f3a2b failed after 1.2 s",
            "request id 9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a failed after 0.4 s",
        );
        same("commit a3f9c21 at 04:32", "commit 77be0f9 at 05:10");
        same("attempt #3: timeout", "attempt #4: timeout");
        same("took 1733370750123 ticks", "took 1733370751999 ticks");
    }

    #[test]
    fn numbers_that_say_something_stay() {
        differ("job 12: 40% done", "job 12: 50% done");
        differ("lines 1-50 of 400", "lines 51-100 of 400");
        differ("ratio 0.5", "ratio 0.25");
        differ("3 tests failed", "2 tests failed");
    }

    #[test]
    fn echoed_arguments_are_masked() {
        let a = normalize("no match for 'parse_header'", &["parse_header".into()]);
        let b = normalize("no match for 'read_config'", &["read_config".into()]);
        assert_eq!(a, b);
        let a = normalize("page 3 is empty", &["3".into()]);
        let b = normalize("page 4 is empty", &["4".into()]);
        assert_eq!(a, b);
    }
}
