//! Finding a session in the list: a query matches a session whose title or id contains every
//! word of it, ignoring case.

/// Whether a session titled `title` with id `id` matches `query` (an empty query matches all).
pub fn session_matches(title: &str, id: &str, query: &str) -> bool {
    let haystack = format!("{title}\n{id}").to_lowercase();
    query
        .split_whitespace()
        .all(|word| haystack.contains(&word.to_lowercase()))
}
