//! When to send a failed model call again and how long to wait first, as the official SDKs do:
//! two retries, exponential backoff from 0.5 s capped at 8 s with up to 25 % jitter, and the
//! server's `retry-after-ms` / `retry-after` honoured up to a cap (above it the error is
//! surfaced instead of slept on). Also the stream rule: a stream that failed before any output
//! may be retried once; after output, never. Pure: the caller supplies jitter and the clock.

use crate::protocol::model::{ModelError, ModelErrorKind};

/// Retry settings. The defaults are the SDKs' (`max_retries` 2, 500 ms doubling to 8 s), with
/// server-directed waits honoured up to 60 s.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Retries after the first attempt.
    pub max_retries: u32,
    /// Backoff before the first retry, in milliseconds.
    pub initial_delay_ms: u64,
    /// Largest backoff, in milliseconds.
    pub max_delay_ms: u64,
    /// Longest server-directed wait that is obeyed; a longer one gives up.
    pub max_retry_after_ms: u64,
    /// The extra limit on retrying failed streams.
    pub stream: StreamRetryRule,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_retries: 2,
            initial_delay_ms: 500,
            max_delay_ms: 8_000,
            max_retry_after_ms: 60_000,
            stream: StreamRetryRule::default(),
        }
    }
}

/// What to do after a failed attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RetryDecision {
    /// Wait this long, then send the same request again.
    Retry {
        /// The wait in milliseconds.
        delay_ms: u64,
    },
    /// Surface the error.
    GiveUp {
        /// Why no retry is made.
        reason: GiveUpReason,
    },
}

/// Why a failed call is not retried.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GiveUpReason {
    /// The error is not transient (e.g. 400, 401, 403, 404, 413, 422).
    NotRetryable,
    /// The retry budget is spent.
    RetriesExhausted {
        /// Retries already made.
        retries: u32,
    },
    /// The server asked for a wait longer than `max_retry_after_ms`.
    RetryAfterTooLong {
        /// The requested wait in milliseconds.
        retry_after_ms: u64,
    },
    /// Output was already streamed to the user; a retry would duplicate it.
    OutputAlreadyStreamed,
}

/// The rule for failures after a response started streaming: retry only while no output
/// (text or tool call) has arrived, and at most `max_retries_before_output` times.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StreamRetryRule {
    /// Retries allowed for a stream that failed before any output.
    pub max_retries_before_output: u32,
}

impl Default for StreamRetryRule {
    fn default() -> Self {
        StreamRetryRule {
            max_retries_before_output: 1,
        }
    }
}

impl StreamRetryRule {
    /// Whether a stream that failed may be retried, given whether output had arrived and how
    /// many retries were already made.
    pub fn allows(&self, output_seen: bool, retries_done: u32) -> bool {
        !output_seen && retries_done < self.max_retries_before_output
    }
}

impl RetryPolicy {
    /// Decides after a failed attempt. `retries_done` counts retries already made for this call;
    /// `jitter` is a caller-supplied random number in `[0, 1)` (values outside are clamped).
    ///
    /// Errors that [`ModelError::is_retryable`] rejects give up; a server-directed wait is obeyed
    /// when within `max_retry_after_ms` and gives up above it; otherwise the backoff is
    /// `min(initial · 2^n, max) × (1 − 0.25 · jitter)`. A truncated stream follows
    /// [`StreamRetryRule`]: retried (once by default) only when no output had arrived.
    pub fn decide(&self, retries_done: u32, error: &ModelError, jitter: f64) -> RetryDecision {
        let limit = match &error.kind {
            ModelErrorKind::Truncated { partial: Some(_) } => {
                return give_up(GiveUpReason::OutputAlreadyStreamed);
            }
            ModelErrorKind::Truncated { partial: None } => {
                self.max_retries.min(self.stream.max_retries_before_output)
            }
            ModelErrorKind::Http { .. }
            | ModelErrorKind::Provider { .. }
            | ModelErrorKind::Network
            | ModelErrorKind::FirstByteTimeout
            | ModelErrorKind::IdleTimeout
            | ModelErrorKind::Malformed
            | ModelErrorKind::Cancelled
            | ModelErrorKind::LocalModel => self.max_retries,
        };
        if !error.is_retryable() {
            return give_up(GiveUpReason::NotRetryable);
        }
        if retries_done >= limit {
            return give_up(GiveUpReason::RetriesExhausted {
                retries: retries_done,
            });
        }
        if let ModelErrorKind::Http {
            retry_after_ms: Some(wait),
            ..
        } = error.kind
        {
            return if wait > self.max_retry_after_ms {
                give_up(GiveUpReason::RetryAfterTooLong {
                    retry_after_ms: wait,
                })
            } else {
                RetryDecision::Retry { delay_ms: wait }
            };
        }
        RetryDecision::Retry {
            delay_ms: self.backoff_ms(retries_done, jitter),
        }
    }

    /// Decides for a failure after the response started streaming (an in-stream `error` event,
    /// an idle timeout, a cut): gives up once output was seen, otherwise applies
    /// [`StreamRetryRule`] and then [`RetryPolicy::decide`].
    pub fn decide_mid_stream(
        &self,
        retries_done: u32,
        error: &ModelError,
        output_seen: bool,
        jitter: f64,
    ) -> RetryDecision {
        if output_seen {
            return give_up(GiveUpReason::OutputAlreadyStreamed);
        }
        if !self.stream.allows(false, retries_done) {
            return give_up(GiveUpReason::RetriesExhausted {
                retries: retries_done,
            });
        }
        self.decide(retries_done, error, jitter)
    }

    /// The backoff before retry number `retries_done + 1`, in milliseconds.
    pub fn backoff_ms(&self, retries_done: u32, jitter: f64) -> u64 {
        let factor = 1u64.checked_shl(retries_done).unwrap_or(u64::MAX);
        let base = self
            .initial_delay_ms
            .saturating_mul(factor)
            .min(self.max_delay_ms);
        let jitter = if jitter.is_finite() {
            jitter.clamp(0.0, 1.0)
        } else {
            0.0
        };
        (base as f64 * (1.0 - 0.25 * jitter)).round() as u64
    }
}

/// Shorthand for a give-up decision.
fn give_up(reason: GiveUpReason) -> RetryDecision {
    RetryDecision::GiveUp { reason }
}

/// The server-directed wait in milliseconds from response headers (names case-insensitive):
/// `retry-after-ms` first, then `retry-after` as (possibly fractional) seconds or as an
/// IMF-fixdate HTTP-date, relative to `now_unix_ms`. A date in the past gives 0.
pub fn parse_retry_after(headers: &[(String, String)], now_unix_ms: u64) -> Option<u64> {
    let header = |name: &str| {
        headers
            .iter()
            .find(|(n, _)| n.trim().eq_ignore_ascii_case(name))
            .map(|(_, v)| v.trim())
    };
    if let Some(ms) = header("retry-after-ms").and_then(non_negative) {
        return Some(ms.round() as u64);
    }
    let value = header("retry-after")?;
    if let Some(seconds) = non_negative(value) {
        return Some((seconds * 1000.0).round() as u64);
    }
    parse_http_date(value).map(|at| at.saturating_sub(now_unix_ms))
}

/// A finite, non-negative decimal number.
fn non_negative(text: &str) -> Option<f64> {
    let looks_numeric = !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit() || b == b'.');
    text.parse::<f64>()
        .ok()
        .filter(|n| looks_numeric && n.is_finite() && *n >= 0.0)
}

/// Parses an IMF-fixdate (`Wed, 21 Oct 2015 07:28:00 GMT`) to Unix milliseconds.
pub fn parse_http_date(text: &str) -> Option<u64> {
    let mut parts = text.split_whitespace();
    let day_name = parts.next()?;
    let day: u64 = two_digits(parts.next()?)?;
    let month = month_number(parts.next()?)?;
    let year_text = parts.next()?;
    let time = parts.next()?;
    let zone = parts.next()?;
    if parts.next().is_some()
        || zone != "GMT"
        || day_name.len() != 4
        || !day_name.ends_with(',')
        || year_text.len() != 4
    {
        return None;
    }
    let year: u64 = year_text.parse().ok()?;
    let mut clock = time.split(':');
    let hour = two_digits(clock.next()?)?;
    let minute = two_digits(clock.next()?)?;
    let second = two_digits(clock.next()?)?;
    if clock.next().is_some()
        || year < 1970
        || day == 0
        || day > days_in_month(year, month)
        || hour > 23
        || minute > 59
        || second > 60
    {
        return None;
    }
    let days = days_since_epoch(year, month, day);
    Some(((days * 24 + hour) * 60 + minute) * 60_000 + second * 1000)
}

/// A two-digit decimal field.
fn two_digits(text: &str) -> Option<u64> {
    if text.len() == 2 && text.bytes().all(|b| b.is_ascii_digit()) {
        text.parse().ok()
    } else {
        None
    }
}

/// `Jan` → 1 … `Dec` → 12.
fn month_number(name: &str) -> Option<u64> {
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    MONTHS.iter().position(|m| *m == name).map(|i| i as u64 + 1)
}

/// Gregorian leap year.
fn is_leap(year: u64) -> bool {
    (year.is_multiple_of(4) && !year.is_multiple_of(100)) || year.is_multiple_of(400)
}

/// Days in a month of a year.
fn days_in_month(year: u64, month: u64) -> u64 {
    match month {
        2 if is_leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days from 1970-01-01 to the given date (year ≥ 1970).
fn days_since_epoch(year: u64, month: u64, day: u64) -> u64 {
    let whole_years: u64 = (1970..year)
        .map(|y| if is_leap(y) { 366 } else { 365 })
        .sum();
    let whole_months: u64 = (1..month).map(|m| days_in_month(year, m)).sum();
    whole_years + whole_months + day - 1
}
