//! [`HostToolSpec`]: a tool the page registered, as the [`super::Platform`] reports it.

use serde::Deserialize;
use serde_json::Value;

use crate::core::{ApprovalScope, Permission};

/// A tool as the page registered it (the JS registry's spec without `execute`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HostToolSpec {
    /// Name.
    pub name: String,
    /// What it does.
    #[serde(default)]
    pub description: String,
    /// JSON Schema of its arguments.
    #[serde(default = "empty_object_schema")]
    pub parameters: Value,
    /// A narrower schema for small local models (see [`crate::protocol::ToolSpec::local_parameters`]).
    #[serde(default)]
    pub local_parameters: Option<Value>,
    /// Default permission.
    #[serde(default = "ask")]
    pub permission: Permission,
    /// Safe to re-run.
    #[serde(default)]
    pub idempotent: bool,
    /// Safe to run alongside others.
    #[serde(default)]
    pub parallel_safe: bool,
    /// What an approval also covers: `{ urlHost: "<argument>" }` = later calls to that host.
    #[serde(default)]
    pub approval_scope: Option<ApprovalScope>,
}

fn empty_object_schema() -> Value {
    serde_json::json!({"type": "object"})
}

fn ask() -> Permission {
    Permission::Ask
}
