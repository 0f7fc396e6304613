//! Whether a run is in flight: the one fold of the log that decides it. The agent's state, the
//! sessions digest and, through the digest, every view and the session service read it from
//! here, so they can never disagree about it.

use serde::{Deserialize, Serialize};

use super::event_facts::FlightMove;
use super::log::Event;

/// Where the session's current (or last) run stands.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum Flight {
    /// No run has started yet.
    #[default]
    NoRun,
    /// Run `run` started (or was continued with more budget) and has not finished.
    InFlight {
        /// Run number, from 1.
        run: u32,
    },
    /// Run `run` finished.
    Ended {
        /// Run number, from 1.
        run: u32,
    },
}

impl Flight {
    /// Folds one event in. Only a run's start, its continuation and its end move it (see
    /// [`Event::facts`]); a continuation or an end before any run is not one.
    pub fn apply(&mut self, event: &Event) {
        self.follow(event.facts().flight);
    }

    /// Takes one move of the event table (for a fold that has read an event's facts already).
    pub fn follow(&mut self, step: FlightMove) {
        *self = match (*self, step) {
            (_, FlightMove::Start(run)) => Flight::InFlight { run },
            (Flight::Ended { run } | Flight::InFlight { run }, FlightMove::Continue) => {
                Flight::InFlight { run }
            }
            (Flight::Ended { run } | Flight::InFlight { run }, FlightMove::End) => {
                Flight::Ended { run }
            }
            (current, FlightMove::Keep | FlightMove::Continue | FlightMove::End) => current,
        };
    }

    /// A run is in flight.
    pub fn in_flight(&self) -> bool {
        matches!(self, Flight::InFlight { .. })
    }

    /// The current or last run's number, 0 before the first.
    pub fn run(&self) -> u32 {
        match self {
            Flight::NoRun => 0,
            Flight::InFlight { run } | Flight::Ended { run } => *run,
        }
    }
}
