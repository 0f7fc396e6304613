//! The driver's tool calls: called once the records before them are stored, or started in a
//! tool host that sees the append of those records while it commits, so the tool runs the
//! moment they are stored instead of after a round trip through the driver.

use super::super::work::WorkKey;
use super::Driver;
use crate::core::{Effect, Input, ToolInvocation};
use crate::ports::{PortSet, ToolHost, Unreachable};
use futures::future::LocalBoxFuture;

impl<P: PortSet> Driver<P> {
    /// The work of one tool call, ending in the input that reports it: the call itself, or,
    /// with `stored`, one the host runs once the append ending at that seq commits.
    pub(super) fn tool_work(
        &self,
        invocation: ToolInvocation,
        stored: Option<u64>,
    ) -> LocalBoxFuture<'static, Input> {
        let tools = self.tools.clone();
        Box::pin(async move {
            let output = match stored {
                Some(seq) => tools.call_when_stored(&invocation, seq).await,
                None => tools.call(&invocation).await,
            };
            match output.unreachable {
                Some(how) => Input::ToolUnreachable {
                    call: invocation.call,
                    error: output.content,
                    sent: how == Unreachable::MaybeSent,
                },
                None => Input::ToolFinished {
                    call: invocation.call,
                    content: output.content,
                    is_error: output.is_error,
                },
            }
        })
    }

    /// Starts the tool calls waiting on the append under way whose last record is seq `last`,
    /// if the tool host sees that append: each begins now and its tool runs the moment the
    /// append commits. Returns the calls started (the rest wait for the append as before).
    pub(super) async fn start_calls_when_stored(&mut self, last: u64) -> Vec<ToolInvocation> {
        if !self.tools.sees_append(last) {
            return Vec::new();
        }
        let mut started = Vec::new();
        let mut rest = Vec::new();
        for effect in std::mem::take(&mut self.waiting) {
            if let Effect::CallTool(invocation) = effect {
                started.push(invocation);
            } else {
                rest.push(effect);
            }
        }
        self.waiting = rest;
        for invocation in &started {
            let key = WorkKey::Tool(invocation.call.clone());
            let work = self.tool_work(invocation.clone(), Some(last));
            self.in_flight.start(key, work).await;
        }
        started
    }

    /// Calls started on an append that failed: dropped (their tools never ran) and queued again
    /// in front of the actions still waiting, to be called once the records are stored.
    pub(super) fn call_again_later(&mut self, started: Vec<ToolInvocation>) {
        if started.is_empty() {
            return;
        }
        for invocation in &started {
            self.in_flight
                .abort(&WorkKey::Tool(invocation.call.clone()));
        }
        let mut waiting: Vec<Effect> = started.into_iter().map(Effect::CallTool).collect();
        waiting.append(&mut self.waiting);
        self.waiting = waiting;
    }
}
