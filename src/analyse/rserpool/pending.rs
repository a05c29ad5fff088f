//! Requests waiting for their answers: Handle Resolutions and Registrations, matched to their
//! responses first in, first out per association and pool handle (and PE id, for
//! registrations); a response must come from where its request went. An ASAP Error from there
//! answers the oldest request of its association.
//!
//! Bounded: at most `MAX_PER_ASSOCIATION` waiting requests per association (the oldest goes),
//! at most `max_associations` associations (the one with the oldest request goes), and a request
//! older than `REQUEST_TIMEOUT_SECS` is dropped when its association is next touched. Every drop
//! is counted.

use std::collections::VecDeque;

use foldhash::HashMap;

use super::events::{Endpoint, Meta, PeInfo};
use super::handle::PoolHandle;
use crate::base::Timestamp;
use crate::dissect::ConversationKey;

const MAX_PER_ASSOCIATION: usize = 64;
/// Emptied queues kept for reuse.
const SPARE_QUEUES: usize = 16;
/// A registrar answers in milliseconds; a minute means the answer was not captured.
const REQUEST_TIMEOUT_SECS: i64 = 60;

#[derive(Clone, Debug, PartialEq)]
pub enum Request {
    Resolution { items: Option<u32> },
    Registration { pe: PeInfo },
}

#[derive(Clone, Debug, PartialEq)]
pub struct Waiting {
    /// Where the request went (the registrar).
    pub to: Endpoint,
    pub pool: PoolHandle,
    pub request: Request,
    pub frame: u64,
    pub time: Timestamp,
    seq: u64,
}

#[derive(Debug, Default)]
pub struct Pending {
    by_association: HashMap<ConversationKey, VecDeque<Waiting>>,
    /// Emptied queues kept for the next associations (most requests are answered at once: their
    /// queue would otherwise be allocated and freed per request).
    spare: Vec<VecDeque<Waiting>>,
    max_associations: usize,
    seq: u64,
    pub dropped: u64,
    pub timed_out: u64,
    pub answered_by_error: u64,
}

impl Pending {
    pub fn new(max_associations: usize) -> Self {
        Pending {
            max_associations: max_associations.max(1),
            ..Pending::default()
        }
    }

    /// A request, as the event `meta` carried it.
    pub fn push(&mut self, meta: &Meta, pool: PoolHandle, request: Request) {
        let association = meta.association;
        if !self.by_association.contains_key(&association)
            && self.by_association.len() >= self.max_associations
        {
            self.evict_oldest_association();
        }
        self.seq += 1;
        let spare = &mut self.spare;
        let q = self
            .by_association
            .entry(association)
            .or_insert_with(|| spare.pop().unwrap_or_default());
        if q.len() >= MAX_PER_ASSOCIATION {
            q.pop_front();
            self.dropped += 1;
        }
        q.push_back(Waiting {
            to: meta.dst,
            pool,
            request,
            frame: meta.frame,
            time: meta.time,
            seq: self.seq,
        });
    }

    fn evict_oldest_association(&mut self) {
        let oldest = self
            .by_association
            .iter()
            .min_by_key(|(_, q)| q.front().map_or(0, |w| w.seq))
            .map(|(k, _)| *k);
        if let Some(k) = oldest {
            if let Some(q) = self.by_association.remove(&k) {
                self.dropped += q.len() as u64;
            }
        }
    }

    /// Drops the association's requests that waited longer than the timeout.
    fn expire(&mut self, association: &ConversationKey, now: Timestamp) {
        let Some(q) = self.by_association.get_mut(association) else {
            return;
        };
        while q
            .front()
            .is_some_and(|w| now.secs.saturating_sub(w.time.secs) > REQUEST_TIMEOUT_SECS)
        {
            q.pop_front();
            self.timed_out += 1;
        }
        if q.is_empty() {
            self.retire(association);
        }
    }

    /// Takes the association's emptied queue out of the map, keeping it for another.
    fn retire(&mut self, association: &ConversationKey) {
        if let Some(q) = self.by_association.remove(association) {
            if self.spare.len() < SPARE_QUEUES {
                self.spare.push(q);
            }
        }
    }

    /// The oldest request for `pool` that the response `meta` answers (same association, sent
    /// to where the response comes from) and that `accept` takes.
    pub fn take(
        &mut self,
        meta: &Meta,
        pool: &PoolHandle,
        accept: impl Fn(&Request) -> bool,
    ) -> Option<Waiting> {
        let association = &meta.association;
        self.expire(association, meta.time);
        let q = self.by_association.get_mut(association)?;
        let i = q
            .iter()
            .position(|w| w.to == meta.src && w.pool == *pool && accept(&w.request))?;
        let w = q.remove(i);
        if q.is_empty() {
            self.retire(association);
        }
        w
    }

    /// An ASAP Error (`meta`): it answers the oldest request of its association sent to where
    /// it comes from.
    pub fn error(&mut self, meta: &Meta) {
        let association = &meta.association;
        self.expire(association, meta.time);
        if let Some(q) = self.by_association.get_mut(association) {
            if let Some(i) = q.iter().position(|w| w.to == meta.src) {
                q.remove(i);
                self.answered_by_error += 1;
            }
            if q.is_empty() {
                self.retire(association);
            }
        }
    }

    /// Requests still waiting.
    pub fn waiting(&self) -> usize {
        self.by_association.values().map(VecDeque::len).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dissect::Transport;

    const REGISTRAR: u16 = 3863;

    /// A message on the association of user port `port`, from the user (`up`) or back.
    fn meta(port: u16, up: bool, frame: u64, secs: i64) -> Meta {
        let a = std::net::IpAddr::from([10, 0, 0, 1]);
        let user = Endpoint::new(a, port);
        let registrar = Endpoint::new(a, REGISTRAR);
        let (src, dst) = if up {
            (user, registrar)
        } else {
            (registrar, user)
        };
        Meta {
            frame,
            time: Timestamp::new(secs, 0),
            src,
            dst,
            association: ConversationKey::new(Transport::Sctp, a, port, a, REGISTRAR),
            sctp: true,
        }
    }

    fn res(items: Option<u32>) -> Request {
        Request::Resolution { items }
    }

    #[test]
    fn fifo_per_association_and_pool() {
        let mut p = Pending::new(8);
        let (a, b) = (PoolHandle::new(b"A"), PoolHandle::new(b"B"));
        p.push(&meta(1, true, 1, 0), a.clone(), res(Some(1)));
        p.push(&meta(1, true, 2, 0), b.clone(), res(Some(2)));
        p.push(&meta(1, true, 3, 0), a.clone(), res(Some(3)));
        p.push(&meta(2, true, 4, 0), a.clone(), res(None));
        let is_res = |r: &Request| matches!(r, Request::Resolution { .. });
        // A "response" from the user's side answers nothing.
        assert_eq!(p.take(&meta(1, true, 5, 1), &a, is_res), None);
        let back = meta(1, false, 5, 1);
        assert_eq!(p.take(&back, &a, is_res).map(|w| w.frame), Some(1));
        assert_eq!(p.take(&back, &a, is_res).map(|w| w.frame), Some(3));
        assert_eq!(p.take(&back, &a, is_res), None);
        assert_eq!(
            p.take(&meta(2, false, 6, 1), &a, is_res).map(|w| w.frame),
            Some(4)
        );
        assert_eq!(p.waiting(), 1);
        // An error from the user's side answers nothing; from the registrar, B's request.
        p.error(&meta(1, true, 7, 1));
        assert_eq!(p.waiting(), 1);
        p.error(&back);
        assert_eq!(p.waiting(), 0);
        assert_eq!(p.answered_by_error, 1);
    }

    #[test]
    fn stale_and_surplus_requests_are_dropped_and_counted() {
        let mut p = Pending::new(2);
        let a = PoolHandle::new(b"A");
        p.push(&meta(1, true, 1, 0), a.clone(), res(None));
        assert_eq!(p.take(&meta(1, false, 2, 61), &a, |_| true), None);
        assert_eq!(p.timed_out, 1);
        for i in 0..70 {
            p.push(&meta(1, true, i, 100), a.clone(), res(None));
        }
        assert_eq!(p.waiting(), MAX_PER_ASSOCIATION);
        assert_eq!(p.dropped, 6);
        p.push(&meta(2, true, 80, 100), a.clone(), res(None));
        p.push(&meta(3, true, 81, 100), a.clone(), res(None));
        assert_eq!(p.dropped, 6 + 64);
        assert_eq!(p.waiting(), 2);
    }
}
