//! The one table of what each event does to the folds that read a log without the agent's
//! state: whether a run starts, continues or ends ([`Flight`](super::Flight)), how its spend
//! moves ([`RunSpend`](super::RunSpend)), which [`RunPhase`] it enters, whether it pauses,
//! whether a model call's stream ends, and what it asks the driver to do ([`Ask`]). The
//! sessions digest, the budget meters, the live view and the agent's effects read their moves
//! here, so a new event variant is one row in [`Event::facts`] plus its handling in the agent's
//! own fold (and, if a person or the page can cause it, in replay verification and the
//! timeline).

use super::log::{BudgetLimits, CallPurpose, Event, Ledger, RunOutcome, StopProposal};
use super::run_phase::RunPhase;

/// How an event moves the run in flight.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FlightMove {
    /// It does not.
    Keep,
    /// Run `run` starts.
    Start(u32),
    /// The last run goes on (with more budget).
    Continue,
    /// The run ends.
    End,
}

/// How an event moves a run's spend.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SpendMove<'a> {
    /// It does not.
    Keep,
    /// A run starts with these limits and nothing spent.
    RunStart(&'a BudgetLimits),
    /// The run's limits are now these.
    Limits(&'a BudgetLimits),
    /// Step `step` starts with the run's spend so far.
    StepStart {
        /// Step number.
        step: u32,
        /// Spend before it.
        before: &'a Ledger,
    },
    /// Step `step` ended with the run's spend after it.
    StepEnd {
        /// Step number.
        step: u32,
        /// Spend after it.
        after: &'a Ledger,
    },
    /// The run ended with this outcome's totals.
    RunEnd(&'a RunOutcome),
}

/// How an event moves a pause for a person.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PauseMove<'a> {
    /// It does not.
    Keep,
    /// The run waits for a person, who is told this.
    Pause(&'a str),
    /// The pause is over.
    Unpause,
}

/// How an event moves the count of tool calls waiting for a person's approval.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ApprovalMove {
    /// It does not.
    Keep,
    /// One more call waits.
    Ask,
    /// A waiting call was decided.
    Answer,
    /// No call waits any more (a new batch, or the run ended).
    Clear,
}

/// What an event asks of the world outside the core: the effect the agent hands the driver
/// right after the event is recorded.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Ask<'a> {
    /// Send model request `request`.
    Model {
        /// Request id.
        request: u64,
        /// What it is for.
        purpose: CallPurpose,
    },
    /// Run tool call `call` (when its tool is the page's to run).
    Tool {
        /// Call id.
        call: &'a str,
    },
    /// Ask a person to approve tool call `call`.
    Approval {
        /// Call id.
        call: &'a str,
        /// Asked again after a reload interrupted it.
        after_interrupt: bool,
    },
    /// Put a completion to the page's stop hook.
    StopHook(&'a StopProposal),
    /// Tell the page the run ended.
    Finished(&'a RunOutcome),
}

/// What one event does, as the log-reading folds see it.
#[derive(Debug, Clone, PartialEq)]
pub struct EventFacts<'a> {
    /// The run in flight.
    pub flight: FlightMove,
    /// The run's spend.
    pub spend: SpendMove<'a>,
    /// The phase the run enters, if the event moves it.
    pub phase: Option<RunPhase>,
    /// A pause for a person.
    pub pause: PauseMove<'a>,
    /// Calls waiting for approval.
    pub approval: ApprovalMove,
    /// The model call in flight ended (or a new one starts): its streamed text is done with.
    pub ends_stream: bool,
    /// What the agent asks the driver to do about it.
    pub asks: Option<Ask<'a>>,
}

/// An event that moves none of them.
const QUIET: EventFacts<'static> = EventFacts {
    flight: FlightMove::Keep,
    spend: SpendMove::Keep,
    phase: None,
    pause: PauseMove::Keep,
    approval: ApprovalMove::Keep,
    ends_stream: false,
    asks: None,
};

impl Event {
    /// What this event does to the log-reading folds (see the module doc).
    pub fn facts(&self) -> EventFacts<'_> {
        let enters = |phase| EventFacts {
            phase: Some(phase),
            ..QUIET
        };
        match self {
            Event::RunStarted { run, budget } => EventFacts {
                flight: FlightMove::Start(*run),
                spend: SpendMove::RunStart(budget),
                ..enters(RunPhase::Working)
            },
            Event::BudgetExtended { budget } => EventFacts {
                flight: FlightMove::Continue,
                spend: SpendMove::Limits(budget),
                ..enters(RunPhase::Working)
            },
            Event::StepStarted {
                step,
                budget_before,
                ..
            } => EventFacts {
                spend: SpendMove::StepStart {
                    step: *step,
                    before: budget_before,
                },
                ..QUIET
            },
            Event::StepFinished {
                step, budget_after, ..
            } => EventFacts {
                spend: SpendMove::StepEnd {
                    step: *step,
                    after: budget_after,
                },
                ..QUIET
            },
            Event::ModelCallStarted { request, purpose } => EventFacts {
                ends_stream: true,
                asks: Some(Ask::Model {
                    request: *request,
                    purpose: *purpose,
                }),
                ..enters(RunPhase::CallingModel)
            },
            Event::ModelReplied { reply, .. } => EventFacts {
                approval: ApprovalMove::Clear,
                ends_stream: true,
                ..enters(if reply.tool_calls.is_empty() {
                    RunPhase::Working
                } else {
                    RunPhase::RunningTools
                })
            },
            Event::ModelFailed { .. } | Event::ModelCallAbandoned { .. } => EventFacts {
                ends_stream: true,
                ..enters(RunPhase::Working)
            },
            Event::Compacted { .. } => enters(RunPhase::Working),
            Event::ApprovalRequested {
                call,
                after_interrupt,
                ..
            } => EventFacts {
                approval: ApprovalMove::Ask,
                asks: Some(Ask::Approval {
                    call,
                    after_interrupt: *after_interrupt,
                }),
                ..enters(RunPhase::AwaitingApproval)
            },
            Event::ApprovalDecided { .. } => EventFacts {
                approval: ApprovalMove::Answer,
                ..enters(RunPhase::RunningTools)
            },
            Event::ToolCallStarted { call, .. } => EventFacts {
                asks: Some(Ask::Tool { call }),
                ..enters(RunPhase::RunningTools)
            },
            Event::StopHookAsked { proposal } => EventFacts {
                asks: Some(Ask::StopHook(proposal)),
                ..enters(RunPhase::Working)
            },
            Event::StopHookDecided { .. } => enters(RunPhase::Working),
            Event::RunPaused { message, .. } => EventFacts {
                pause: PauseMove::Pause(message),
                ..QUIET
            },
            Event::RunUnpaused => EventFacts {
                pause: PauseMove::Unpause,
                ..QUIET
            },
            Event::RunFinished { outcome } => EventFacts {
                flight: FlightMove::End,
                spend: SpendMove::RunEnd(outcome),
                pause: PauseMove::Unpause,
                approval: ApprovalMove::Clear,
                ends_stream: true,
                asks: Some(Ask::Finished(outcome)),
                ..enters(RunPhase::Finished {
                    stop: outcome.stop.clone(),
                })
            },
            Event::SessionStarted { .. }
            | Event::UserMessage { .. }
            | Event::ModelRetryScheduled { .. }
            | Event::ToolCallRejected { .. }
            | Event::ToolCallFinished { .. }
            | Event::ToolCallInterrupted { .. }
            | Event::GuardTriggered { .. }
            | Event::CompletionRejected { .. }
            | Event::Suspended
            | Event::Resumed => QUIET,
        }
    }
}
