//! Requests waiting for their answers: Handle Resolutions and Registrations, matched to their
//! responses first in, first out per association and pool handle (and PE id, for
//! registrations). An ASAP Error from the registrar answers the oldest request of its
//! association.
//!
//! Bounded: at most `MAX_PER_ASSOCIATION` waiting requests per association (the oldest goes),
//! at most `max_associations` associations (the one with the oldest request goes), and a request
//! older than `REQUEST_TIMEOUT_SECS` is dropped when its association is next touched. Every drop
//! is counted.

use std::collections::{HashMap, VecDeque};

use super::event::PeInfo;
use super::handle::PoolHandle;
use crate::dissect::ConversationKey;
use crate::source::Timestamp;

const MAX_PER_ASSOCIATION: usize = 64;
/// A registrar answers in milliseconds; a minute means the answer was not captured.
const REQUEST_TIMEOUT_SECS: i64 = 60;

#[derive(Clone, Debug, PartialEq)]
pub enum Request {
    Resolution { items: Option<u32> },
    Registration { pe: PeInfo },
}

#[derive(Clone, Debug, PartialEq)]
pub struct Waiting {
    pub pool: PoolHandle,
    pub request: Request,
    pub frame: u64,
    pub time: Timestamp,
    seq: u64,
}

#[derive(Debug, Default)]
pub struct Pending {
    by_association: HashMap<ConversationKey, VecDeque<Waiting>>,
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

    pub fn push(
        &mut self,
        association: ConversationKey,
        pool: PoolHandle,
        request: Request,
        frame: u64,
        time: Timestamp,
    ) {
        if !self.by_association.contains_key(&association)
            && self.by_association.len() >= self.max_associations
        {
            self.evict_oldest_association();
        }
        self.seq += 1;
        let q = self.by_association.entry(association).or_default();
        if q.len() >= MAX_PER_ASSOCIATION {
            q.pop_front();
            self.dropped += 1;
        }
        q.push_back(Waiting {
            pool,
            request,
            frame,
            time,
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
            self.by_association.remove(association);
        }
    }

    /// The oldest waiting request on `association` for `pool` that `accept` takes.
    pub fn take(
        &mut self,
        association: &ConversationKey,
        pool: &PoolHandle,
        now: Timestamp,
        accept: impl Fn(&Request) -> bool,
    ) -> Option<Waiting> {
        self.expire(association, now);
        let q = self.by_association.get_mut(association)?;
        let i = q
            .iter()
            .position(|w| w.pool == *pool && accept(&w.request))?;
        let w = q.remove(i);
        if q.is_empty() {
            self.by_association.remove(association);
        }
        w
    }

    /// An ASAP Error came back on `association`: it answers the oldest request there.
    pub fn error(&mut self, association: &ConversationKey, now: Timestamp) {
        self.expire(association, now);
        if let Some(q) = self.by_association.get_mut(association) {
            if q.pop_front().is_some() {
                self.answered_by_error += 1;
            }
            if q.is_empty() {
                self.by_association.remove(association);
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

    fn assoc(port: u16) -> ConversationKey {
        let a = std::net::IpAddr::from([10, 0, 0, 1]);
        ConversationKey::new(Transport::Sctp, a, port, a, 3863)
    }

    fn res(items: Option<u32>) -> Request {
        Request::Resolution { items }
    }

    fn t(s: i64) -> Timestamp {
        Timestamp::new(s, 0)
    }

    #[test]
    fn fifo_per_association_and_pool() {
        let mut p = Pending::new(8);
        let (a, b) = (PoolHandle::new(b"A"), PoolHandle::new(b"B"));
        p.push(assoc(1), a.clone(), res(Some(1)), 1, t(0));
        p.push(assoc(1), b.clone(), res(Some(2)), 2, t(0));
        p.push(assoc(1), a.clone(), res(Some(3)), 3, t(0));
        p.push(assoc(2), a.clone(), res(None), 4, t(0));
        let is_res = |r: &Request| matches!(r, Request::Resolution { .. });
        assert_eq!(
            p.take(&assoc(1), &a, t(1), is_res).map(|w| w.frame),
            Some(1)
        );
        assert_eq!(
            p.take(&assoc(1), &a, t(1), is_res).map(|w| w.frame),
            Some(3)
        );
        assert_eq!(p.take(&assoc(1), &a, t(1), is_res), None);
        assert_eq!(
            p.take(&assoc(2), &a, t(1), is_res).map(|w| w.frame),
            Some(4)
        );
        assert_eq!(p.waiting(), 1);
        // An error answers B's request.
        p.error(&assoc(1), t(1));
        assert_eq!(p.waiting(), 0);
        assert_eq!(p.answered_by_error, 1);
    }

    #[test]
    fn stale_and_surplus_requests_are_dropped_and_counted() {
        let mut p = Pending::new(2);
        let a = PoolHandle::new(b"A");
        p.push(assoc(1), a.clone(), res(None), 1, t(0));
        assert_eq!(p.take(&assoc(1), &a, t(61), |_| true), None);
        assert_eq!(p.timed_out, 1);
        for i in 0..70 {
            p.push(assoc(1), a.clone(), res(None), i, t(100));
        }
        assert_eq!(p.waiting(), MAX_PER_ASSOCIATION);
        assert_eq!(p.dropped, 6);
        p.push(assoc(2), a.clone(), res(None), 80, t(100));
        p.push(assoc(3), a.clone(), res(None), 81, t(100));
        assert_eq!(p.dropped, 6 + 64);
        assert_eq!(p.waiting(), 2);
    }
}
