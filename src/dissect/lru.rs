//! A map that forgets its least recently used entries beyond a capacity, for per-conversation
//! state (TCP connections, SCTP associations).

use std::collections::{BTreeMap, HashMap};
use std::hash::Hash;

pub struct LruMap<K, V> {
    map: HashMap<K, (V, u64)>,
    /// Last use -> key: the oldest entry is the first.
    order: BTreeMap<u64, K>,
    tick: u64,
    capacity: usize,
}

impl<K: Hash + Eq + Clone, V> LruMap<K, V> {
    pub fn new(capacity: usize) -> Self {
        LruMap {
            map: HashMap::new(),
            order: BTreeMap::new(),
            tick: 0,
            capacity: capacity.max(1),
        }
    }

    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// The entry for `key`, created with `make` if absent, marked as the most recently used. Entries
    /// evicted to make room are handed to `evicted`.
    pub fn get_or_insert_with(
        &mut self,
        key: &K,
        make: impl FnOnce() -> V,
        mut evicted: impl FnMut(V),
    ) -> &mut V {
        self.tick += 1;
        let tick = self.tick;
        if !self.map.contains_key(key) {
            while self.map.len() >= self.capacity {
                let Some((_, old)) = self.order.pop_first() else {
                    break;
                };
                if let Some((v, _)) = self.map.remove(&old) {
                    evicted(v);
                }
            }
        }
        let entry = self
            .map
            .entry(key.clone())
            .or_insert_with(|| (make(), tick));
        if entry.1 != tick {
            self.order.remove(&entry.1);
            entry.1 = tick;
        }
        self.order.insert(tick, key.clone());
        &mut entry.0
    }

    pub fn get_mut(&mut self, key: &K) -> Option<&mut V> {
        self.map.get_mut(key).map(|(v, _)| v)
    }

    #[cfg(test)]
    pub fn remove(&mut self, key: &K) -> Option<V> {
        let (v, t) = self.map.remove(key)?;
        self.order.remove(&t);
        Some(v)
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
}
