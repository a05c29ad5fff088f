//! The members of one window and their counts ([`Members`]): in name order for whoever reads
//! them, and reached in constant time by the series' member slots while answers are counted
//! (an answer costs a lookup per member, not a search and no name built).

use std::ops::Index;

use super::MemberCounts;

/// Members of one window with their counts, in name order, each once.
///
/// Read as a map (`get`, `iter`, `keys`, ... in name order). Counted through
/// [`Members::slot_mut`]: a series numbers its members (`slot`, [`super::Slots`]) and each window
/// remembers where each numbered member is in it, so that counting an answer finds every member
/// at once. That memory is a cache: whatever moves the members (a new one, a merge) drops it, and
/// the next look-up of a slot finds its member by name and remembers it again.
#[derive(Clone, Debug, Default)]
pub struct Members {
    /// Sorted by name, names unique.
    entries: Vec<(String, MemberCounts)>,
    /// By slot: the member's position in `entries` plus one; 0 when not known.
    at: Vec<u32>,
}

impl PartialEq for Members {
    fn eq(&self, other: &Self) -> bool {
        self.entries == other.entries
    }
}

impl Members {
    pub fn get(&self, name: &str) -> Option<&MemberCounts> {
        self.find(name).ok().map(|i| &self.entries[i].1)
    }

    pub fn contains_key(&self, name: &str) -> bool {
        self.find(name).is_ok()
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The members and their counts in name order.
    pub fn iter(&self) -> impl Iterator<Item = (&String, &MemberCounts)> {
        self.entries.iter().map(|(n, c)| (n, c))
    }

    pub fn keys(&self) -> impl Iterator<Item = &String> {
        self.entries.iter().map(|(n, _)| n)
    }

    pub fn values(&self) -> impl Iterator<Item = &MemberCounts> {
        self.entries.iter().map(|(_, c)| c)
    }

    /// The counts of `name`, added (at zero) when it is not there yet.
    pub fn entry_mut(&mut self, name: &str) -> &mut MemberCounts {
        let i = match self.find(name) {
            Ok(i) => i,
            Err(i) => self.insert(i, name.to_string()),
        };
        &mut self.entries[i].1
    }

    /// The counts of the member the series numbers `slot` and names `name`, added when it is not
    /// there yet: at once when this window has met the slot before.
    pub fn slot_mut(&mut self, slot: usize, name: &str) -> &mut MemberCounts {
        let known = self.at.get(slot).copied().unwrap_or(0) as usize;
        let i = match known.checked_sub(1) {
            Some(i) if i < self.entries.len() => i,
            _ => {
                let i = match self.find(name) {
                    Ok(i) => i,
                    Err(i) => self.insert(i, name.to_string()),
                };
                if self.at.len() <= slot {
                    self.at.resize(slot + 1, 0);
                }
                // Positions are below u32::MAX: a window holds a bounded number of members.
                self.at[slot] = u32::try_from(i + 1).unwrap_or(0);
                i
            }
        };
        &mut self.entries[i].1
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

    fn find(&self, name: &str) -> Result<usize, usize> {
        self.entries.binary_search_by(|(n, _)| n.as_str().cmp(name))
    }

    /// Puts `name` at `i`; the members after it move, so the slots' positions are forgotten.
    fn insert(&mut self, i: usize, name: String) -> usize {
        self.entries.insert(i, (name, MemberCounts::default()));
        self.at.clear();
        i
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
    type IntoIter = std::iter::Map<
        std::slice::Iter<'a, (String, MemberCounts)>,
        fn(&'a (String, MemberCounts)) -> (&'a String, &'a MemberCounts),
    >;

    fn into_iter(self) -> Self::IntoIter {
        self.entries.iter().map(|(n, c)| (n, c))
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
    /// counts of a plain map; a slot found before a new member moved the others still reaches
    /// its own member.
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
