//! The model's task list: its items and whether each is done (open ones block completion).

use serde::{Deserialize, Serialize};

/// One item of the model's task list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TodoItem {
    /// Stable id chosen by the model.
    pub id: String,
    /// What to do.
    pub text: String,
    /// `open` or `done`.
    pub status: TodoStatus,
}

/// Whether a todo is finished.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TodoStatus {
    /// Still to do: blocks completion.
    Open,
    /// Done.
    Done,
}
