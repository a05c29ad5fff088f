//! Weighted Round Robin (RFC 5356 4.2, draft-01 3.2): round robin where each member occurs in
//! proportion to its weight. Two mechanisms, chosen by the profile's `wrr` field:
//!
//! * RSPLIB's round counter: key (round, virtual counter, sequence number). A member enters with
//!   the current round and its weight as virtual counter; each update takes one off the virtual
//!   counter while it is above 1, else starts the member's next round with a full counter.
//! * The texts' circular list "as distributed as possible": the smooth weighted round robin
//!   sequence (each step every member gains its weight in credit, the richest is picked and pays
//!   the total). The head moves on by one step per answer.

use super::member::{Member, SortKey};

// ---- RSPLIB: round and virtual counter ----

pub fn key(m: &Member) -> SortKey {
    SortKey::new(m.round, u64::from(m.virtual_counter), m.seq)
}

/// A newcomer joins the round the pool is in (that of the member that would be picked first).
pub fn join(m: &mut Member, current_round: u64) {
    m.round = current_round;
    m.virtual_counter = m.settings.weight;
}

pub fn update(m: &mut Member) {
    if m.virtual_counter > 1 {
        m.virtual_counter -= 1;
    } else {
        m.round = m.round.saturating_add(1);
        m.virtual_counter = m.settings.weight;
    }
}

/// A new weight caps what is left of the current round.
pub fn reweigh(m: &mut Member) {
    m.virtual_counter = m.virtual_counter.min(m.settings.weight);
}

// ---- The texts: spread list ----

/// How many steps of the list an answer may look ahead for members it does not hold yet, per
/// member and in all; beyond that the rest follow in the order of their credit. Keeps an
/// answer's cost bounded whatever the weights (a weight of 1 beside 0xffffffff would otherwise
/// need billions of steps) and the pool size.
const LOOKAHEAD_PER_MEMBER: usize = 64;
const LOOKAHEAD_MAX: usize = 4096;

fn total_weight(members: &[Member]) -> i128 {
    members.iter().map(|m| i128::from(m.settings.weight)).sum()
}

/// The member the list holds at its head: the largest credit after this step's gain, ties to
/// the earlier registration. `None` when no member has a weight.
fn head(members: &[Member], credits: &[i128]) -> Option<usize> {
    let mut best: Option<(usize, i128)> = None;
    for (i, (m, c)) in members.iter().zip(credits).enumerate() {
        if m.settings.weight == 0 {
            continue;
        }
        let v = c + i128::from(m.settings.weight);
        let better = match best {
            None => true,
            Some((_, b)) => v > b,
        };
        if better {
            best = Some((i, v));
        }
    }
    best.map(|(i, _)| i)
}

fn step(members: &[Member], credits: &mut [i128], picked: usize) {
    let total = total_weight(members);
    for (m, c) in members.iter().zip(credits.iter_mut()) {
        *c += i128::from(m.settings.weight);
    }
    if let Some(c) = credits.get_mut(picked) {
        *c -= total;
    }
}

/// Up to `n` distinct members, in the order the list reaches them from its head. Members of
/// weight 0 are not in the list.
pub fn spread_answer(members: &[Member], n: usize) -> Vec<usize> {
    let mut credits: Vec<i128> = members.iter().map(|m| m.credit).collect();
    let in_list = members.iter().filter(|m| m.settings.weight > 0).count();
    let want = n.min(in_list);
    let mut out = Vec::with_capacity(want);
    let budget = LOOKAHEAD_PER_MEMBER
        .saturating_mul(members.len())
        .min(LOOKAHEAD_MAX);
    for _ in 0..budget {
        if out.len() >= want {
            break;
        }
        let Some(h) = head(members, &credits) else {
            break;
        };
        if !out.contains(&h) {
            out.push(h);
        }
        step(members, &mut credits, h);
    }
    if out.len() < want {
        let mut rest: Vec<usize> = (0..members.len())
            .filter(|i| !out.contains(i))
            .filter(|&i| members.get(i).is_some_and(|m| m.settings.weight > 0))
            .collect();
        rest.sort_by_key(|&i| {
            let c = credits.get(i).copied().unwrap_or(0);
            let w = members.get(i).map_or(0, |m| i128::from(m.settings.weight));
            std::cmp::Reverse(c + w)
        });
        out.extend(rest.into_iter().take(want - out.len()));
    }
    out
}

/// Moves the head on by one, with `picked` as the member handed out.
pub fn spread_advance(members: &mut [Member], picked: usize) {
    let mut credits: Vec<i128> = members.iter().map(|m| m.credit).collect();
    step(members, &mut credits, picked);
    for (m, c) in members.iter_mut().zip(credits) {
        m.credit = c;
    }
}
