//! Retry policy: the status matrix, backoff, server-directed waits and the stream rule.

use pretty_assertions::assert_eq;
use tabloop::protocol::{FinishReason, ModelError, ModelErrorKind, ModelReply, Usage};
use tabloop::providers::retry::parse_http_date;
use tabloop::providers::{
    parse_retry_after, GiveUpReason, RetryDecision, RetryPolicy, StreamRetryRule,
};

fn http(status: u16, retry_after_ms: Option<u64>) -> ModelError {
    ModelError {
        kind: ModelErrorKind::Http {
            status,
            retry_after_ms,
            should_retry: None,
        },
        message: format!("HTTP {status}"),
    }
}

fn error(kind: ModelErrorKind) -> ModelError {
    ModelError {
        kind,
        message: String::new(),
    }
}

/// Attempts made for an error that keeps recurring, following the policy's decisions.
fn attempts(policy: &RetryPolicy, failure: &ModelError) -> u32 {
    let mut retries = 0;
    while let RetryDecision::Retry { .. } = policy.decide(retries, failure, 0.5) {
        retries += 1;
    }
    retries + 1
}

fn headers(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(n, v)| (n.to_string(), v.to_string()))
        .collect()
}

#[test]
fn the_status_matrix_retries_transient_statuses_twice_and_others_never() {
    let policy = RetryPolicy::default();
    let statuses = [
        408, 409, 429, 500, 502, 503, 504, 529, 400, 401, 403, 404, 413, 422,
    ];
    let matrix: Vec<(u16, u32)> = statuses
        .iter()
        .map(|s| (*s, attempts(&policy, &http(*s, None))))
        .collect();
    assert_eq!(
        matrix,
        vec![
            (408, 3),
            (409, 3),
            (429, 3),
            (500, 3),
            (502, 3),
            (503, 3),
            (504, 3),
            (529, 3),
            (400, 1),
            (401, 1),
            (403, 1),
            (404, 1),
            (413, 1),
            (422, 1),
        ]
    );
}

#[test]
fn non_retryable_and_exhausted_errors_say_why_they_give_up() {
    let policy = RetryPolicy::default();
    assert_eq!(
        policy.decide(0, &http(401, None), 0.0),
        RetryDecision::GiveUp {
            reason: GiveUpReason::NotRetryable
        }
    );
    assert_eq!(
        policy.decide(2, &http(503, None), 0.0),
        RetryDecision::GiveUp {
            reason: GiveUpReason::RetriesExhausted { retries: 2 }
        }
    );
}

#[test]
fn backoff_doubles_from_half_a_second_up_to_eight_with_jitter_removing_up_to_a_quarter() {
    let policy = RetryPolicy {
        max_retries: 6,
        ..RetryPolicy::default()
    };
    let schedule = |jitter: f64| -> Vec<u64> {
        (0..6)
            .map(|n| match policy.decide(n, &http(500, None), jitter) {
                RetryDecision::Retry { delay_ms } => delay_ms,
                RetryDecision::GiveUp { reason } => panic!("gave up: {reason:?}"),
            })
            .collect()
    };
    assert_eq!(schedule(0.0), vec![500, 1000, 2000, 4000, 8000, 8000]);
    assert_eq!(schedule(0.999), vec![375, 750, 1501, 3001, 6002, 6002]);
}

#[test]
fn retry_after_ms_of_1500_is_obeyed() {
    let wait = parse_retry_after(&headers(&[("Retry-After-Ms", "1500")]), 0);
    assert_eq!(wait, Some(1500));
    assert_eq!(
        RetryPolicy::default().decide(0, &http(429, wait), 0.3),
        RetryDecision::Retry { delay_ms: 1500 }
    );
}

#[test]
fn retry_after_ms_takes_precedence_over_retry_after() {
    let found = parse_retry_after(
        &headers(&[("retry-after", "30"), ("retry-after-ms", "250.4")]),
        0,
    );
    assert_eq!(found, Some(250));
}

#[test]
fn retry_after_of_2_seconds_is_obeyed() {
    let wait = parse_retry_after(&headers(&[("retry-after", "2")]), 0);
    assert_eq!(wait, Some(2000));
    assert_eq!(
        RetryPolicy::default().decide(0, &http(503, wait), 0.9),
        RetryDecision::Retry { delay_ms: 2000 }
    );
}

#[test]
fn fractional_retry_after_seconds_are_accepted() {
    assert_eq!(
        parse_retry_after(&headers(&[("retry-after", "1.25")]), 0),
        Some(1250)
    );
}

#[test]
fn an_http_date_retry_after_is_the_time_left_until_that_date() {
    let now = parse_http_date("Wed, 21 Oct 2015 07:27:55 GMT").unwrap();
    assert_eq!(now, 1_445_412_475_000);
    let wait = parse_retry_after(
        &headers(&[("retry-after", "Wed, 21 Oct 2015 07:28:00 GMT")]),
        now,
    );
    assert_eq!(wait, Some(5000));
    assert_eq!(
        parse_retry_after(
            &headers(&[("retry-after", "Wed, 21 Oct 2015 07:28:00 GMT")]),
            now + 9000
        ),
        Some(0)
    );
}

#[test]
fn http_dates_are_converted_exactly_and_bad_ones_rejected() {
    assert_eq!(parse_http_date("Thu, 01 Jan 1970 00:00:00 GMT"), Some(0));
    assert_eq!(
        parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT"),
        Some(784_111_777_000)
    );
    assert_eq!(
        parse_http_date("Thu, 29 Feb 2024 23:59:59 GMT"),
        Some(1_709_251_199_000)
    );
    for bad in [
        "Thu, 30 Feb 2024 00:00:00 GMT",
        "Sunday, 06-Nov-94 08:49:37 GMT",
        "Sun Nov  6 08:49:37 1994",
        "Sun, 06 Nov 1994 08:49:37 UTC",
        "Sun, 06 Nov 1994 24:00:00 GMT",
        "",
    ] {
        assert_eq!(parse_http_date(bad), None, "{bad}");
    }
}

#[test]
fn unusable_retry_after_values_are_ignored() {
    for value in ["-1", "soon", "NaN", "inf", ""] {
        assert_eq!(
            parse_retry_after(&headers(&[("retry-after", value)]), 0),
            None,
            "{value}"
        );
    }
}

#[test]
fn a_retry_after_of_an_hour_is_above_the_cap_and_gives_up() {
    let wait = parse_retry_after(&headers(&[("retry-after", "3600")]), 0);
    assert_eq!(wait, Some(3_600_000));
    assert_eq!(
        RetryPolicy::default().decide(0, &http(429, wait), 0.0),
        RetryDecision::GiveUp {
            reason: GiveUpReason::RetryAfterTooLong {
                retry_after_ms: 3_600_000
            }
        }
    );
}

#[test]
fn network_errors_and_first_byte_timeouts_are_retried_with_backoff() {
    let policy = RetryPolicy::default();
    for kind in [ModelErrorKind::Network, ModelErrorKind::FirstByteTimeout] {
        assert_eq!(
            policy.decide(1, &error(kind), 0.0),
            RetryDecision::Retry { delay_ms: 1000 }
        );
    }
}

#[test]
fn a_stream_cut_before_output_is_retried_once() {
    let cut = error(ModelErrorKind::Truncated { partial: None });
    assert_eq!(attempts(&RetryPolicy::default(), &cut), 2);
}

#[test]
fn a_stream_cut_after_output_is_never_retried() {
    let partial = ModelReply {
        text: "Hel".to_string(),
        tool_calls: vec![],
        finish: FinishReason::EndTurn,
        usage: Usage::default(),
        model: String::new(),
        reasoning: String::new(),
    };
    let cut = error(ModelErrorKind::Truncated {
        partial: Some(Box::new(partial)),
    });
    assert_eq!(
        RetryPolicy::default().decide(0, &cut, 0.0),
        RetryDecision::GiveUp {
            reason: GiveUpReason::OutputAlreadyStreamed
        }
    );
}

#[test]
fn an_overloaded_event_mid_stream_is_retried_only_before_output() {
    let policy = RetryPolicy::default();
    let overloaded = error(ModelErrorKind::Provider {
        error_type: "overloaded_error".to_string(),
    });
    assert_eq!(
        policy.decide_mid_stream(0, &overloaded, true, 0.0),
        RetryDecision::GiveUp {
            reason: GiveUpReason::OutputAlreadyStreamed
        }
    );
    assert_eq!(
        policy.decide_mid_stream(0, &overloaded, false, 0.0),
        RetryDecision::Retry { delay_ms: 500 }
    );
    assert_eq!(
        policy.decide_mid_stream(1, &overloaded, false, 0.0),
        RetryDecision::GiveUp {
            reason: GiveUpReason::RetriesExhausted { retries: 1 }
        }
    );
}

#[test]
fn the_stream_rule_allows_one_retry_before_output_and_none_after() {
    let rule = StreamRetryRule::default();
    assert_eq!(
        [
            rule.allows(false, 0),
            rule.allows(false, 1),
            rule.allows(true, 0)
        ],
        [true, false, false]
    );
}

#[test]
fn the_servers_x_should_retry_header_overrides_the_status_both_ways() {
    use tabloop::providers::should_retry_header;
    let policy = RetryPolicy::default();
    let with = |status: u16, directive: Option<bool>| ModelError {
        kind: ModelErrorKind::Http {
            status,
            retry_after_ms: None,
            should_retry: directive,
        },
        message: format!("HTTP {status}"),
    };
    let header = |v: &str| vec![("X-Should-Retry".to_string(), v.to_string())];
    assert_eq!(should_retry_header(&header("true")), Some(true));
    assert_eq!(should_retry_header(&header("false")), Some(false));
    assert_eq!(should_retry_header(&header("maybe")), None);
    assert!(matches!(
        policy.decide(0, &with(400, Some(true)), 0.0),
        RetryDecision::Retry { .. }
    ));
    assert_eq!(
        policy.decide(0, &with(503, Some(false)), 0.0),
        RetryDecision::GiveUp {
            reason: GiveUpReason::NotRetryable
        }
    );
    assert!(matches!(
        policy.decide(0, &with(503, None), 0.0),
        RetryDecision::Retry { .. }
    ));
}

#[test]
fn a_429_for_an_exhausted_quota_or_spend_limit_is_not_retried() {
    use tabloop::providers::parse_error_body;
    let policy = RetryPolicy::default();
    let openai = r#"{"error":{"message":"You exceeded your current quota","type":"insufficient_quota","code":"insufficient_quota"}}"#;
    let anthropic = r#"{"type":"error","error":{"type":"rate_limit_error","message":"spend limit","details":{"error_code":"enforced_spend_limit_reached"}}}"#;
    let rate_limit =
        r#"{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}"#;
    for body in [openai, anthropic] {
        let error = parse_error_body(429, body, None);
        assert!(!error.is_retryable(), "{body}");
        assert_eq!(
            policy.decide(0, &error, 0.0),
            RetryDecision::GiveUp {
                reason: GiveUpReason::NotRetryable
            }
        );
    }
    assert!(
        parse_error_body(429, rate_limit, None).is_retryable(),
        "a plain rate limit is retried"
    );
}

#[test]
fn provider_error_events_of_a_transient_type_are_retryable_and_the_rest_are_not() {
    let kinds = [
        "overloaded_error",
        "rate_limit_error",
        "api_error",
        "server_error",
        "invalid_request_error",
        "authentication_error",
        "permission_error",
        "not_found_error",
    ];
    let retryable: Vec<(&str, bool)> = kinds
        .iter()
        .map(|t| {
            let e = error(ModelErrorKind::Provider {
                error_type: (*t).to_string(),
            });
            (*t, e.is_retryable())
        })
        .collect();
    assert_eq!(
        retryable,
        vec![
            ("overloaded_error", true),
            ("rate_limit_error", true),
            ("api_error", true),
            ("server_error", true),
            ("invalid_request_error", false),
            ("authentication_error", false),
            ("permission_error", false),
            ("not_found_error", false),
        ]
    );
}
