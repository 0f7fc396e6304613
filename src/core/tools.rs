//! Declarations of the tools the core itself understands: `todo` (executed by the core) and
//! `finish` (executed by the host's verifier, accepted only when the completion check passes).

use serde_json::json;

use super::log::{Permission, ToolDecl, ToolKind};
use crate::protocol::ToolSpec;

/// The model's task list. Open items block completion.
pub fn todo_tool() -> ToolDecl {
    ToolDecl {
        spec: ToolSpec {
            local_parameters: None,
            name: "todo".into(),
            description: "Keep your task list. Send the whole list each time; items with status \
                          \"open\" must be done before the task can be finished."
                .into(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "items": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "properties": {
                                "id": {"type": "string", "minLength": 1},
                                "text": {"type": "string"},
                                "status": {"enum": ["open", "done"]}
                            },
                            "required": ["id", "text", "status"],
                            "additionalProperties": false
                        }
                    }
                },
                "required": ["items"],
                "additionalProperties": false
            }),
        },
        permission: Permission::Allow,
        idempotent: true,
        parallel_safe: true,
        kind: ToolKind::Todo,
        approval_scope: None,
    }
}

/// Ends the task when the registered verifier accepts it.
pub fn finish_tool() -> ToolDecl {
    ToolDecl {
        spec: ToolSpec {
            // A local model writes the summary as plain text (protocol::local_prose).
            local_parameters: Some(json!({
                "type": "object",
                "properties": {"summary": {"type": "string", "minLength": 1, "x-plain-text": true}},
                "required": ["summary"],
                "additionalProperties": false
            })),
            name: "finish".into(),
            description: "Call when the task is done, with a summary of the result. A verifier \
                          checks it; if it fails you get the reason and must fix it."
                .into(),
            parameters: json!({
                "type": "object",
                "properties": {"summary": {"type": "string", "minLength": 1}},
                "required": ["summary"],
                "additionalProperties": false
            }),
        },
        permission: Permission::Allow,
        idempotent: true,
        parallel_safe: false,
        kind: ToolKind::Finish,
        approval_scope: None,
    }
}
