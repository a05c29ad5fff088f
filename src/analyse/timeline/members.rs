//! The members of one window and their counts ([`Members`]): in name order for whoever reads
//! them, and reached in constant time by the series' member slots while answers are counted
//! (an answer costs a look-up per member, not a search and no name built); a new member costs
//! a search in the names, as in a map.

use std::collections::BTreeMap;
use std::ops::Index;

use super::MemberCounts;

/// Members of one window with their counts, in name order, each once.
///
/// Read as a map (`get`, `iter`, `keys`, ... in name order). Counted through
/// [`Members::slot_mut`]: a series numbers its members (`slot`, [`super::Slots`]) and each window
/// remembers where each numbered member's counts are, so that counting an answer finds every
/// member at once. The counts never move (a new member's are added at the end), so that memory
/// stays true; a window no longer counted into forgets it ([`Members::forget_slots`]).
#[derive(Clone, Debug, Default)]
pub struct Members {
    /// Each member's name and where its counts are.
    names: BTreeMap<String, usize>,
    /// The counts, in the order the members came.
    counts: Vec<MemberCounts>,
    /// By slot: where the member's counts are, plus one; 0 when not known.
    at: Vec<u32>,
}

impl PartialEq for Members {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl Members {
    pub fn get(&self, name: &str) -> Option<&MemberCounts> {
        self.names.get(name).and_then(|&i| self.counts.get(i))
    }

    pub fn contains_key(&self, name: &str) -> bool {
        self.names.contains_key(name)
    }

    pub fn len(&self) -> usize {
        self.names.len()
    }

    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// The members and their counts in name order.
    pub fn iter(&self) -> Iter<'_> {
        Iter {
            names: self.names.iter(),
            counts: &self.counts,
        }
    }

    pub fn keys(&self) -> impl Iterator<Item = &String> {
        self.names.keys()
    }

    pub fn values(&self) -> impl Iterator<Item = &MemberCounts> {
        self.iter().map(|(_, c)| c)
    }

    /// The counts of `name`, added (at zero) when it is not there yet.
    pub fn entry_mut(&mut self, name: &str) -> &mut MemberCounts {
        let i = self.index(name);
        &mut self.counts[i]
    }

    /// The counts of the member the series numbers `slot` and names `name`, added when it is not
    /// there yet: at once when this window has met the slot before.
    pub fn slot_mut(&mut self, slot: usize, name: &str) -> &mut MemberCounts {
        let known = self.at.get(slot).copied().unwrap_or(0) as usize;
        let i = match known.checked_sub(1) {
            Some(i) if i < self.counts.len() => i,
            _ => {
                let i = self.index(name);
                if self.at.len() <= slot {
                    self.at.resize(slot + 1, 0);
                }
                // A window cannot hold u32::MAX members (memory runs out first); were it to,
                // the slot is not remembered and the name found again.
                self.at[slot] = u32::try_from(i + 1).unwrap_or(0);
                i
            }
        };
        &mut self.counts[i]
    }

    /// Forgets where the slots' members are (a window no longer counted into), freeing that
    /// memory; a later look-up by slot finds its member by name again.
    pub fn forget_slots(&mut self) {
        self.at = Vec::new();
    }

    /// How many slots' places this window remembers.
    #[cfg(test)]
    pub(super) fn slots_remembered(&self) -> usize {
        self.at.len()
    }

    /// Where `name`'s counts are, added at the end (at zero) when it is new.
    fn index(&mut self, name: &str) -> usize {
        if let Some(&i) = self.names.get(name) {
            return i;
        }
        self.counts.push(MemberCounts::default());
        let i = self.counts.len() - 1;
        self.names.insert(name.to_string(), i);
        i
    }
}

/// The members of a window and their counts, in name order ([`Members::iter`]).
pub struct Iter<'a> {
    names: std::collections::btree_map::Iter<'a, String, usize>,
    counts: &'a [MemberCounts],
}

impl<'a> Iterator for Iter<'a> {
    type Item = (&'a String, &'a MemberCounts);

    fn next(&mut self) -> Option<Self::Item> {
        // Every name's place is one of the counts (both only ever grow together).
        self.names
            .by_ref()
            .find_map(|(n, &i)| self.counts.get(i).map(|c| (n, c)))
    }
}

impl Index<&str> for Members {
    type Output = MemberCounts;

    /// The counts of `name`; panics when it is not a member (as a map's index does).
    fn index(&self, name: &str) -> &MemberCounts {
        match self.get(name) {
            Some(c) => c,
            None => panic!("no member {name} in the window"),
        }
    }
}

impl<'a> IntoIterator for &'a Members {
    type Item = (&'a String, &'a MemberCounts);
    type IntoIter = Iter<'a>;

    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

impl FromIterator<(String, MemberCounts)> for Members {
    /// Members named more than once are counted once, their counts added.
    fn from_iter<I: IntoIterator<Item = (String, MemberCounts)>>(iter: I) -> Self {
        let mut m = Members::default();
        for (name, c) in iter {
            m.entry_mut(&name).add(&c);
        }
        m
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counted(first: u64) -> MemberCounts {
        MemberCounts {
            first,
            ..MemberCounts::default()
        }
    }

    /// Counted through slots and by name in any order, the members read in name order with the
    /// counts of a plain map; a slot found before other members came still reaches its own
    /// member.
    #[test]
    fn slots_and_names_count_the_same_members() {
        let mut m = Members::default();
        let mut want = std::collections::BTreeMap::<String, u64>::new();
        let names = [
            "0x0000000c",
            "0x0000000a",
            "b",
            "0x0000000b",
            "a",
            "0x0000000a",
        ];
        let mut state = 7u64;
        for round in 0..400 {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let k = (state >> 33) as usize % names.len();
            let name = names[k];
            // Slots follow the series' numbering: the first index of the name.
            let slot = names.iter().position(|n| *n == name).unwrap_or(k);
            if round % 3 == 0 {
                m.entry_mut(name).first += 1;
            } else {
                m.slot_mut(slot, name).first += 1;
            }
            *want.entry(name.to_string()).or_default() += 1;
            let got: Vec<(String, u64)> = m.iter().map(|(n, c)| (n.clone(), c.first)).collect();
            let expect: Vec<(String, u64)> = want.iter().map(|(n, c)| (n.clone(), *c)).collect();
            assert_eq!(got, expect, "round {round}");
        }
        assert_eq!(m.len(), 5);
        assert_eq!(m["a"], m.get("a").cloned().unwrap_or_default());
        assert!(m.contains_key("0x0000000b") && !m.contains_key("c"));
        // Built from pairs: each name once, the counts added.
        let built: Members = [("y", 1), ("x", 2), ("y", 3)]
            .into_iter()
            .map(|(n, f)| (n.to_string(), counted(f)))
            .collect();
        let got: Vec<(&str, u64)> = built.iter().map(|(n, c)| (n.as_str(), c.first)).collect();
        assert_eq!(got, [("x", 2), ("y", 4)]);
    }
}
