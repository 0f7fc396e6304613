//! The warm-up request read on page load leaves in the KV cache exactly the prompt prefix that a
//! new session's first step starts with: same system message (tool prompt first, then the
//! system text), and a user turn after it.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod core_support;

use core_support::Harness;
use pretty_assertions::assert_eq;
use tabloop::ports::HostToolSpec;
use tabloop::providers::build_local_request;
use tabloop::providers::local_prompt::warm_up_request;
use tabloop::runtime::options::AgentOptions;

fn registered() -> Vec<HostToolSpec> {
    serde_json::from_str(include_str!("fixtures/default_host_tools.json")).unwrap()
}

#[test]
fn the_warm_up_prompt_is_the_first_steps_prompt_up_to_the_task() {
    let config = AgentOptions::default().to_config(&registered()).unwrap();
    let tools = config.tools.iter().map(|d| d.spec.clone()).collect();
    let warm = build_local_request(&warm_up_request(config.system.clone(), tools));

    let mut harness = Harness::new(config);
    let effects =
        harness.user("Use the vfs tool to write the text hello into the file /notes.txt.");
    Harness::model_call(&effects);
    let first = build_local_request(&harness.request());

    assert_eq!(
        warm.messages[0], first.messages[0],
        "the system message is the same"
    );
    assert_eq!(warm.messages[1]["role"], "user");
    assert_eq!(first.messages[1]["role"], "user");
    assert_eq!(warm.grammar, first.grammar, "and so is the grammar");
    assert!(
        first.messages[0]["content"]
            .as_str()
            .unwrap()
            .contains("- vfs: "),
        "the default tools are in it"
    );
}
