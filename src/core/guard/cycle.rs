//! Cycles in the trajectory: the last observations (each an action with its normalised result)
//! repeating with a period of 2 to 6 (edit → test → revert → test → edit …). A fixed window
//! of the most recent keys is kept, so both the state and the work per step stay constant.

use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// Longest period looked for.
pub const MAX_PERIOD: usize = 6;

/// Keys remembered: three rounds of the longest period.
const WINDOW: usize = 3 * MAX_PERIOD;

/// A cycle found at the end of the trajectory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cycle {
    /// Observations in one round.
    pub period: usize,
    /// Rounds completed, counting the first (2 = the round was repeated once in full).
    pub rounds: u32,
}

/// The recent (action, result) keys of a run.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Trajectory {
    keys: VecDeque<u64>,
}

impl Trajectory {
    /// Adds one observation's key and returns the cycle the trajectory now ends in, if any:
    /// the shortest period whose rounds repeat exactly, with at least two different keys in a
    /// round (one key repeating is the repetition detector's business).
    pub fn push(&mut self, key: u64) -> Option<Cycle> {
        if self.keys.len() == WINDOW {
            self.keys.pop_front();
        }
        self.keys.push_back(key);
        (2..=MAX_PERIOD).find_map(|period| self.cycle_of(period))
    }

    /// The keys of the current cycle's round (oldest first), for the report.
    pub fn round(&self, period: usize) -> Vec<u64> {
        let n = self.keys.len();
        self.keys
            .range(n.saturating_sub(period)..)
            .copied()
            .collect()
    }

    fn cycle_of(&self, period: usize) -> Option<Cycle> {
        let n = self.keys.len();
        if n < 2 * period {
            return None;
        }
        // How far back the keys keep matching the ones a period later.
        let matching = (period..n)
            .rev()
            .take_while(|&i| self.keys[i] == self.keys[i - period])
            .count();
        if matching < period {
            return None;
        }
        let round = self.round(period);
        let distinct = round
            .iter()
            .enumerate()
            .filter(|(i, k)| !round[..*i].contains(k))
            .count();
        // A round made of a shorter cycle repeated is that shorter cycle.
        if distinct < 2
            || (2..period).any(|p| period.is_multiple_of(p) && self.cycle_of(p).is_some())
        {
            return None;
        }
        Some(Cycle {
            period,
            rounds: (1 + matching / period) as u32,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::{Cycle, Trajectory};

    fn feed(keys: &[u64]) -> Option<Cycle> {
        let mut t = Trajectory::default();
        keys.iter().fold(None, |_, k| t.push(*k))
    }

    #[test]
    fn finds_cycles_of_every_period_from_two_to_six() {
        for period in 2..=6u64 {
            let round: Vec<u64> = (1..=period).collect();
            let twice: Vec<u64> = round.iter().chain(&round).copied().collect();
            assert_eq!(
                feed(&twice),
                Some(Cycle {
                    period: period as usize,
                    rounds: 2
                })
            );
            let thrice: Vec<u64> = twice.iter().chain(&round).copied().collect();
            assert_eq!(feed(&thrice).map(|c| c.rounds), Some(3));
        }
    }

    #[test]
    fn no_cycle_in_progress_or_in_one_repeated_key() {
        assert_eq!(feed(&[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]), None);
        assert_eq!(feed(&[7, 7, 7, 7, 7, 7]), None);
        assert_eq!(feed(&[1, 2, 1, 3, 1, 4]), None);
    }

    #[test]
    fn a_period_four_made_of_two_twos_is_a_period_two() {
        assert_eq!(
            feed(&[1, 2, 1, 2, 1, 2, 1, 2]),
            Some(Cycle {
                period: 2,
                rounds: 4
            })
        );
    }
}
