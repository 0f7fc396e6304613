//! A session at a glance, folded from its log one record at a time: its title, whether a run
//! is in flight (the core's own [`Flight`] fold), what the loop is doing and what the current
//! run has spent (the one spend fold, [`RunSpend`]). Plain data the sessions index stores next to the records and the playground
//! shows.

use serde::{Deserialize, Serialize};

use super::event_facts::PauseMove;
use super::flight::Flight;
use super::log::{BudgetLimits, Event, Ledger, Record};
use super::phase_fold::PhaseFold;
use super::run_phase::RunPhase;
use super::spend::RunSpend;

/// Version of the [`SessionDigest`] layout and fold; a stored digest of another version is
/// rebuilt. (3: a title cut from a longer task ends with "…"; 4: the run's whole spend ledger
/// and limits, [`RunSpend`], in place of a summary, so the meters read the same fold.)
pub const DIGEST_SCHEMA: u32 = 4;

/// Longest session title, in characters.
pub const TITLE_CHARS: usize = 80;

/// A session's title from its task: the task itself, or when longer than [`TITLE_CHARS`] its
/// start, cut after a whole word where one ends in the last quarter, with "…" in place of the
/// rest (a title that just stops mid-sentence reads as the whole task).
pub fn task_title(task: &str) -> String {
    if task.chars().count() <= TITLE_CHARS {
        return task.to_string();
    }
    // One character is left for the "…".
    let kept: String = task.chars().take(TITLE_CHARS - 1).collect();
    let start = match kept.rfind(char::is_whitespace) {
        Some(at) if kept[..at].chars().count() >= TITLE_CHARS * 3 / 4 => &kept[..at],
        Some(_) | None => kept.as_str(),
    };
    format!("{}…", start.trim_end())
}

/// What a run had spent at some point, as the timeline and status bar show it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct SpentSummary {
    /// Steps started.
    pub steps: u32,
    /// Tool calls made.
    pub tool_calls: u32,
    /// Input (cached included) plus output tokens.
    pub tokens: u64,
    /// Spend in USD.
    pub cost_usd: f64,
}

impl SpentSummary {
    /// The summary of a ledger.
    pub fn of(ledger: &Ledger) -> Self {
        Self {
            steps: ledger.steps,
            tool_calls: ledger.tool_calls,
            tokens: ledger.input_tokens() + ledger.usage.output_tokens,
            cost_usd: ledger.cost_usd,
        }
    }
}

/// A session at a glance.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionDigest {
    /// Session id (empty until the log's first record).
    pub session: String,
    /// The first user message, cut to 80 characters.
    pub title: String,
    /// Whether the current or last run is in flight, folded as the agent folds it.
    pub flight: Flight,
    /// What the run is doing (see [`SessionDigest::phase`]).
    pub phase: PhaseFold,
    /// Limits and spend of the current or last run (the one spend fold of a log).
    pub spend: RunSpend,
    /// Records folded so far.
    pub records: u64,
    /// The run is paused for the user (the provider is unreachable): what they are told.
    #[serde(default)]
    pub paused: Option<String>,
}

impl Default for SessionDigest {
    fn default() -> Self {
        Self {
            session: String::new(),
            title: String::new(),
            flight: Flight::NoRun,
            phase: PhaseFold::default(),
            spend: RunSpend::default(),
            records: 0,
            paused: None,
        }
    }
}

impl SessionDigest {
    /// The summary of a whole log.
    pub fn from_records(records: &[Record]) -> Self {
        super::fold_records(records, Self::push)
    }

    /// A digest read back from the sessions index: `Some` only when it was stored under this
    /// [`DIGEST_SCHEMA`], reads as this layout and folded exactly the `records` its row counts;
    /// otherwise the caller rebuilds it from the log.
    pub fn stored(
        schema: Option<u32>,
        records: u64,
        read: impl FnOnce() -> Option<Self>,
    ) -> Option<Self> {
        if schema != Some(DIGEST_SCHEMA) {
            return None;
        }
        read().filter(|digest| digest.records == records)
    }

    /// A run started (or was continued) and has not finished.
    pub fn in_flight(&self) -> bool {
        self.flight.in_flight()
    }

    /// The current or last run, 0 before the first.
    pub fn run(&self) -> u32 {
        self.flight.run()
    }

    /// Folds one record in; records already seen are ignored. What each event moves comes
    /// from the event table ([`Event::facts`]); the title is the digest's own.
    pub fn push(&mut self, record: &Record) {
        if record.seq < self.records {
            return;
        }
        self.records = record.seq + 1;
        let event = &record.event;
        let facts = event.facts();
        self.flight.follow(facts.flight);
        self.spend.follow(facts.spend);
        self.phase.follow(&facts);
        match facts.pause {
            PauseMove::Keep => {}
            PauseMove::Pause(message) => self.paused = Some(message.to_string()),
            PauseMove::Unpause => self.paused = None,
        }
        if let Event::SessionStarted { session, .. } = event {
            self.session = session.clone();
        }
        if let (Event::UserMessage { text }, true) = (event, self.title.is_empty()) {
            self.title = task_title(text);
        }
    }

    /// What the current or last run is doing, as the agent's phase reads.
    pub fn phase(&self) -> &RunPhase {
        &self.phase.phase
    }

    /// What the current or last run has spent.
    pub fn spent(&self) -> SpentSummary {
        SpentSummary::of(&self.spend.spent)
    }

    /// Limits of the current or last run.
    pub fn limits(&self) -> Option<BudgetLimits> {
        self.spend.limits
    }
}
