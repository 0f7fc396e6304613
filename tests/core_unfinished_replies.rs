//! What becomes of a reply the model did not finish: cancelled or stopped by the time budget
//! while it streamed (its text is kept for the person and the next run), or cut at the output
//! limit with no recovery allowed.

mod core_support;

use core_support::prelude::*;
use pretty_assertions::assert_eq;
use tabloop::core::BudgetKind;

#[test]
fn a_run_stopped_while_the_model_writes_keeps_what_it_wrote_for_the_next_run() {
    // By the user, and by the time budget (a minute past it); the abort itself:
    // `cancelling_while_the_model_thinks_aborts_the_request`.
    let stops = [
        (
            Input::Cancel {
                partial_reply: "Once upon a".into(),
            },
            StopReason::Cancelled,
        ),
        (
            Input::Tick {
                partial_reply: "Once upon a".into(),
            },
            StopReason::BudgetExhausted {
                budget: BudgetKind::WallClock,
            },
        ),
    ];
    for (stop, reason) in stops {
        let mut cfg = config();
        cfg.budget.max_wall_ms = Some(60_000);
        let mut h = Harness::new(cfg);
        let effects = h.user("write a long story");
        Harness::model_call(&effects);
        h.tick(61_000);
        let effects = h.send(stop).unwrap();
        assert_eq!(Harness::finished(&effects).unwrap().stop, reason);
        assert_eq!(
            h.events().find_map(|e| {
                if let Event::ModelCallAbandoned { partial_reply, .. } = e {
                    Some(partial_reply.as_str())
                } else {
                    None
                }
            }),
            Some("Once upon a")
        );
        // The next run's model call reads it as the model's own message, before the new task.
        h.user("go on");
        let messages = h.request().messages.to_vec();
        assert_eq!(
            messages[messages.len() - 3..],
            [
                Message::User {
                    text: "write a long story".into()
                },
                Message::Assistant {
                    text: "Once upon a".into(),
                    tool_calls: vec![]
                },
                Message::User {
                    text: "go on".into()
                },
            ],
            "{reason:?}"
        );
    }
}

#[test]
fn a_tick_inside_the_time_budget_keeps_nothing_yet() {
    let mut cfg = config();
    cfg.budget.max_wall_ms = Some(60_000);
    let mut h = Harness::new(cfg);
    let effects = h.user("write a long story");
    let request = Harness::model_call(&effects);
    h.tick(1_000);
    assert!(h
        .send(Input::Tick {
            partial_reply: "Once".into(),
        })
        .unwrap()
        .is_empty());
    let effects = h
        .send(Input::ModelReplied {
            request,
            reply: text("Once upon a time."),
        })
        .unwrap();
    assert_eq!(
        Harness::finished(&effects).unwrap().stop,
        StopReason::Completed
    );
    assert!(h
        .events()
        .all(|e| !matches!(e, Event::ModelCallAbandoned { .. })));
}

#[test]
fn cancelling_before_the_model_wrote_anything_adds_no_message() {
    let mut h = Harness::new(config());
    h.user("write a long story");
    h.send(Input::cancel()).unwrap();
    h.user("go on");
    let messages = h.request().messages.to_vec();
    assert!(
        messages
            .iter()
            .all(|m| !matches!(m, Message::Assistant { .. })),
        "{messages:?}"
    );
}

#[test]
fn with_no_recoveries_allowed_the_first_cut_reply_ends_the_run() {
    let mut cfg = config();
    cfg.max_output_recoveries = 0;
    let mut h = Harness::new(cfg);
    let effects = h.user("tell a long story");
    let effects = h.reply(&effects, cut_text("Once upon"));
    let outcome = Harness::finished(&effects).unwrap();
    assert_eq!(outcome.stop, StopReason::OutputLimit);
    assert_eq!(
        outcome.explanation,
        "The model's reply was cut at the output limit."
    );
}
