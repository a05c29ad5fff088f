//! A map that forgets its least recently used entries beyond a capacity, for per-conversation
//! state (TCP connections, SCTP associations).
//!
//! Each entry carries the tick of its last use; nothing else is updated on a hit. When the map is
//! full, the oldest eighth of the entries is evicted at once (found by a linear selection), so an
//! eviction costs O(1) amortised per insertion, even under a flood of new conversations.
//!
//! Values are boxed: the hash table's bucket array is sized for the capacity (and, after a churn
//! of insertions and removals, may double once while it clears its tombstones), so values held
//! inline would cost their full size in every bucket, used or not (measured: 65536 SCTP
//! associations took 175 MB, growing to 270 MB over a million new associations).

use foldhash::{HashMap, HashMapExt};
use std::hash::Hash;

pub struct LruMap<K, V> {
    map: HashMap<K, (Box<V>, u64)>,
    tick: u64,
    capacity: usize,
}

impl<K: Hash + Eq + Clone, V> LruMap<K, V> {
    pub fn new(capacity: usize) -> Self {
        LruMap {
            map: HashMap::new(),
            tick: 0,
            capacity: capacity.max(1),
        }
    }

    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// The entry for `key`, created with `make` if absent, marked as the most recently used.
    /// Entries evicted to make room are handed to `evicted`.
    pub fn get_or_insert_with(
        &mut self,
        key: &K,
        make: impl FnOnce() -> V,
        evicted: impl FnMut(V),
    ) -> &mut V {
        self.tick += 1;
        let tick = self.tick;
        if self.map.len() >= self.capacity && !self.map.contains_key(key) {
            self.evict_oldest(evicted);
        }
        let entry = self
            .map
            .entry(key.clone())
            .or_insert_with(|| (Box::new(make()), tick));
        entry.1 = tick;
        &mut entry.0
    }

    /// Evicts the least recently used eighth of the entries (at least one, none when empty).
    pub fn evict_oldest(&mut self, mut evicted: impl FnMut(V)) {
        if self.map.is_empty() {
            return;
        }
        let n = (self.map.len() / 8).max(1);
        let mut ticks: Vec<u64> = self.map.values().map(|(_, t)| *t).collect();
        let (_, &mut threshold, _) = ticks.select_nth_unstable(n - 1);
        let old: Vec<K> = self
            .map
            .iter()
            .filter(|(_, (_, t))| *t <= threshold)
            .map(|(k, _)| k.clone())
            .collect();
        for k in old {
            if let Some((v, _)) = self.map.remove(&k) {
                evicted(*v);
            }
        }
    }

    /// The entry for `key`, without marking it used.
    pub fn get_mut(&mut self, key: &K) -> Option<&mut V> {
        self.map.get_mut(key).map(|(v, _)| &mut **v)
    }

    /// Keeps only the entries `keep` accepts (their use order unchanged).
    pub fn retain(&mut self, mut keep: impl FnMut(&V) -> bool) {
        self.map.retain(|_, (v, _)| keep(v));
    }

    /// Forgets `key`'s entry, handing it back.
    pub fn remove(&mut self, key: &K) -> Option<V> {
        self.map.remove(key).map(|(v, _)| *v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn evicts_the_least_recently_used() {
        let mut m = LruMap::new(2);
        let mut gone = Vec::new();
        *m.get_or_insert_with(&1, || 10, |v| gone.push(v)) += 1;
        m.get_or_insert_with(&2, || 20, |v| gone.push(v));
        // Touch 1: 2 becomes the oldest.
        m.get_or_insert_with(&1, || 0, |v| gone.push(v));
        m.get_or_insert_with(&3, || 30, |v| gone.push(v));
        assert_eq!(gone, vec![20]);
        assert_eq!(m.len(), 2);
        assert_eq!(m.get_mut(&1), Some(&mut 11));
        assert_eq!(m.remove(&3), Some(30));
        assert_eq!(m.len(), 1);
    }

    #[test]
    fn evicts_an_eighth_at_a_time_oldest_first() {
        let mut m = LruMap::new(64);
        let mut gone = Vec::new();
        for k in 0..64 {
            m.get_or_insert_with(&k, || k, |v| gone.push(v));
        }
        // Keys 0..8 used again: 8..16 are now the oldest.
        for k in 0..8 {
            m.get_or_insert_with(&k, || 0, |v| gone.push(v));
        }
        m.get_or_insert_with(&100, || 100, |v| gone.push(v));
        gone.sort_unstable();
        assert_eq!(gone, (8..16).collect::<Vec<_>>());
        assert_eq!(m.len(), 57);
    }
}
