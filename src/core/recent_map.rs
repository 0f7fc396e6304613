//! A map that remembers only the keys inserted most recently: the loop guard's memory of past
//! observations, bounded so a run's state (and each fold snapshot of it) stays the same size
//! however many steps the run takes. A loop repeats within a few steps; an observation first
//! seen hundreds of distinct observations ago is forgotten without changing any verdict.

use std::collections::{HashMap, VecDeque};
use std::hash::{BuildHasherDefault, Hash, Hasher};

use serde::{Deserialize, Serialize};

use super::mix64::mix64;

/// Up to `cap` entries; inserting a new key beyond that forgets the oldest inserted one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(
    into = "Entries<K, V>",
    from = "Entries<K, V>",
    bound(
        serialize = "K: Serialize + Clone, V: Serialize + Clone",
        deserialize = "K: Deserialize<'de>, V: Deserialize<'de>"
    )
)]
pub struct RecentMap<K: Eq + Hash + Clone, V> {
    values: HashMap<K, V, BuildHasherDefault<KeyHasher>>,
    /// Keys in insertion order, oldest first.
    order: VecDeque<K>,
}

/// The serialised form: entries oldest first.
#[derive(Serialize, Deserialize)]
struct Entries<K, V>(Vec<(K, V)>);

impl<K: Eq + Hash + Clone, V> Default for RecentMap<K, V> {
    fn default() -> Self {
        Self {
            values: HashMap::default(),
            order: VecDeque::new(),
        }
    }
}

impl<K: Eq + Hash + Clone, V> RecentMap<K, V> {
    /// The value under `key`, inserted with `make` (forgetting the oldest key when the map
    /// holds `cap`) if absent. The bool says whether it was inserted.
    pub fn get_or_insert(
        &mut self,
        key: K,
        cap: usize,
        make: impl FnOnce() -> V,
    ) -> (&mut V, bool) {
        let inserted = !self.values.contains_key(&key);
        if inserted {
            while self.order.len() >= cap.max(1) {
                if let Some(oldest) = self.order.pop_front() {
                    self.values.remove(&oldest);
                }
            }
            self.order.push_back(key.clone());
        }
        (self.values.entry(key).or_insert_with(make), inserted)
    }
}

impl<K: Eq + Hash + Clone, V> From<Entries<K, V>> for RecentMap<K, V> {
    fn from(Entries(entries): Entries<K, V>) -> Self {
        let mut map = Self::default();
        for (key, value) in entries {
            if map.values.insert(key.clone(), value).is_none() {
                map.order.push_back(key);
            }
        }
        map
    }
}

impl<K: Eq + Hash + Clone, V: Clone> From<RecentMap<K, V>> for Entries<K, V> {
    fn from(mut map: RecentMap<K, V>) -> Self {
        Entries(
            map.order
                .drain(..)
                .filter_map(|key| map.values.remove(&key).map(|value| (key, value)))
                .collect(),
        )
    }
}

/// The maps' hasher. Their keys are already hashes (SHA-256 prefixes of observations), a few
/// hundred at most, so std's SipHash, keyed against flooding, is work for nothing: it was a
/// visible share of the loop guard's time on each tool result. Every write is folded in with a
/// multiply and the result finished with splitmix64's mixer.
#[derive(Default)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn write(&mut self, bytes: &[u8]) {
        for byte in bytes {
            self.write_u64(u64::from(*byte));
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }

    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }

    fn finish(&self) -> u64 {
        mix64(self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_most_recent_keys_and_their_values_through_serde() {
        let mut map = RecentMap::default();
        for key in 0..5u64 {
            *map.get_or_insert(key, 3, || 0).0 += key;
        }
        // A key seen again keeps its place and value; it is not inserted anew.
        let (value, inserted) = map.get_or_insert(4, 3, || 99);
        assert_eq!((*value, inserted), (4, false));
        let (value, inserted) = map.get_or_insert(0, 3, || 7);
        assert_eq!((*value, inserted), (7, true), "0 was forgotten");
        let json = serde_json::to_string(&map).unwrap();
        assert_eq!(json, "[[3,3],[4,4],[0,7]]");
        let back: RecentMap<u64, u64> = serde_json::from_str(&json).unwrap();
        assert_eq!(back, map);
    }
}
