//! Client transmissions and the answers they got.
//!
//! A transaction is a client's transaction id with the key its answers echo (chaddr in DHCPv4,
//! the client DUID in DHCPv6). Each client message of it is a *transmission*; the same message
//! seen again within a second with the same secs / elapsed time is a copy (a relay forwarding it
//! to each server, or one hop further), not a retry. An answer belongs to the latest transmission
//! of its transaction whose type it answers (an OFFER a DISCOVER, a REPLY a REQUEST ...). A
//! transmission waits for its verdict until `lookahead` has passed in capture time, so that
//! retries and late evidence are known; then it is handed out with its answers.
//!
//! Bounded: open transactions (least recently used evicted), answers kept per transmission,
//! transmissions awaiting a verdict (the oldest handed out early); every eviction is counted.

use std::collections::hash_map::Entry;
use std::collections::VecDeque;
use std::hash::{Hash, Hasher};

use foldhash::{HashMap, HashMapExt};
use smallvec::SmallVec;
use std::net::IpAddr;

use super::events::{Answer, KeyBytes, Request};
use super::profile::{v4_type as v4, v6_type as v6};
use crate::base::Timestamp;
use crate::proto::lb::Family;

/// A copy of a transmission arrives within this of the first.
const COPY_WINDOW_NS: u64 = 1_000_000_000;
/// Answers kept per transmission; destinations kept per transmission.
const MAX_ANSWERS: usize = 8;
const MAX_DSTS: usize = 4;
/// Transmissions of one transaction open to answers at once: a client (or a flood) repeating
/// one xid cannot make each message cost more than this.
const MAX_OPEN: usize = 32;

/// The answer types that answer a request type.
pub fn answer_types(family: Family, request: Option<u8>) -> &'static [Option<u8>] {
    match (family, request) {
        (Family::V4, None) => &[None],
        (Family::V4, Some(v4::DISCOVER)) => &[Some(v4::OFFER), Some(v4::ACK)],
        (Family::V4, Some(v4::REQUEST)) => &[Some(v4::ACK), Some(v4::NAK)],
        (Family::V4, Some(v4::INFORM)) => &[Some(v4::ACK)],
        (Family::V4, Some(v4::LEASEQUERY)) => &[Some(11), Some(12), Some(13)],
        (Family::V6, Some(v6::SOLICIT)) => &[Some(v6::ADVERTISE), Some(v6::REPLY)],
        (
            Family::V6,
            Some(
                v6::REQUEST
                | v6::CONFIRM
                | v6::RENEW
                | v6::REBIND
                | v6::RELEASE
                | v6::DECLINE
                | v6::INFORMATION_REQUEST,
            ),
        ) => &[Some(v6::REPLY)],
        (Family::V6, Some(v6::LEASEQUERY)) => &[Some(15)],
        (Family::V6, Some(v6::RECONFIGURE_REQUEST)) => &[Some(19)],
        (Family::V6, Some(v6::DHCPV4_QUERY)) => &[Some(21)],
        _ => &[],
    }
}

/// One answer to a transmission.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Answered {
    pub server: usize,
    pub frame: u64,
    pub time: Timestamp,
    /// Came after the answer window.
    pub late: bool,
}

/// Destinations of a transmission's copies: never more than `MAX_DSTS`, so always inline.
pub type Dsts = SmallVec<[IpAddr; MAX_DSTS]>;
/// A transmission's answers: inline up to two (one per server of a pair), the usual case.
pub type Answers = SmallVec<[Answered; 2]>;

/// A client message and what became of it.
#[derive(Clone, Debug)]
pub struct Transmission {
    pub seq: u64,
    pub req: Request,
    /// Destinations of the copies seen (bounded).
    pub dsts: Dsts,
    pub answers: Answers,
    /// The frame of the client's next message of the same type in this transaction.
    pub retried: Option<u64>,
    /// The capture went on for at least the answer window after it.
    pub window_passed: bool,
    /// The server (registry index) that owns its bucket, for a balanced message: set by the
    /// replay, so that an answer from the other server can be told at once (a takeover).
    pub owner: Option<usize>,
}

impl Transmission {
    pub fn answered_by(&self, server: usize) -> Option<&Answered> {
        self.answers.iter().find(|a| a.server == server && !a.late)
    }
}

/// A transaction's key: family, xid and the bytes its answers echo.
#[derive(PartialEq, Eq)]
struct Key {
    family: Family,
    xid: u32,
    match_key: KeyBytes,
}

impl Key {
    fn new(family: Family, xid: u32, match_key: &KeyBytes) -> Self {
        Key {
            family,
            xid,
            match_key: match_key.clone(),
        }
    }
}

/// Two writes (family and xid in one word, then the bytes) where the derived hash makes four:
/// every DHCP message is hashed once or twice. Equal keys write the same.
impl Hash for Key {
    fn hash<H: Hasher>(&self, h: &mut H) {
        h.write_u64(u64::from(self.xid) << 1 | u64::from(self.family == Family::V6));
        h.write(&self.match_key);
    }
}

struct Txn {
    last_seen: Timestamp,
    /// Sequence numbers of its transmissions still awaiting a verdict, oldest first (inline for
    /// the usual few: a DISCOVER and a REQUEST, a retry or two).
    open: SmallVec<[u64; 4]>,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    pub transmissions: u64,
    pub copies: u64,
    pub answers: u64,
    pub duplicate_answers: u64,
    pub unmatched_answers: u64,
    pub transactions_evicted: u64,
    pub judged_early: u64,
    pub answers_dropped: u64,
}

pub struct Tracker {
    txns: HashMap<Key, Txn>,
    pending: VecDeque<Transmission>,
    next_seq: u64,
    window_ns: u64,
    lookahead_ns: u64,
    max_txns: usize,
    max_pending: usize,
    last_time: Timestamp,
    pub counters: Counters,
}

fn ns_between(a: Timestamp, b: Timestamp) -> i128 {
    (i128::from(b.secs) - i128::from(a.secs)) * 1_000_000_000 + i128::from(b.nanos)
        - i128::from(a.nanos)
}

impl Tracker {
    pub fn new(window_ns: u64, lookahead_ns: u64, max_txns: usize, max_pending: usize) -> Self {
        Tracker {
            txns: HashMap::new(),
            pending: VecDeque::new(),
            next_seq: 0,
            window_ns,
            lookahead_ns: lookahead_ns.max(window_ns),
            max_txns: max_txns.max(16),
            max_pending: max_pending.max(16),
            last_time: Timestamp::default(),
            counters: Counters::default(),
        }
    }

    /// Notes the server that owns the bucket of transmission `seq` (see [`Transmission::owner`]).
    pub fn set_owner(&mut self, seq: u64, owner: usize) {
        if let Some(t) = pending_mut(&mut self.pending, seq) {
            t.owner = Some(owner);
        }
    }

    /// The transmission `seq`, while it waits for its verdict.
    pub fn transmission(&self, seq: u64) -> Option<&Transmission> {
        let front = self.pending.front()?.seq;
        let i = usize::try_from(seq.checked_sub(front)?).ok()?;
        self.pending.get(i)
    }

    /// A client message. Returns the sequence number of its transmission, or `None` for a copy.
    pub fn request(&mut self, r: Request) -> Option<u64> {
        self.last_time = self.last_time.max(r.time);
        let key = Key::new(r.family, r.xid, &r.match_key);
        let seq = self.next_seq;
        if self.txns.len() >= self.max_txns && !self.txns.contains_key(&key) {
            self.evict();
        }
        // One hash of the key whether the transaction is known or new.
        match self.txns.entry(key) {
            Entry::Occupied(o) => {
                let txn = o.into_mut();
                let mut copy = false;
                for &open in txn.open.iter().rev() {
                    let Some(t) = pending_mut(&mut self.pending, open) else {
                        continue;
                    };
                    if t.req.msg_type != r.msg_type {
                        continue;
                    }
                    let gap = ns_between(t.req.time, r.time);
                    if t.req.elapsed == r.elapsed && (0..i128::from(COPY_WINDOW_NS)).contains(&gap)
                    {
                        if !t.dsts.contains(&r.dst) && t.dsts.len() < MAX_DSTS {
                            t.dsts.push(r.dst);
                        }
                        copy = true;
                    } else if t.retried.is_none() {
                        t.retried = Some(r.frame);
                    }
                    break;
                }
                txn.last_seen = r.time;
                if copy {
                    self.counters.copies += 1;
                    return None;
                }
                if txn.open.len() >= MAX_OPEN {
                    // The oldest stays pending (it is still judged) but takes no more answers.
                    txn.open.remove(0);
                }
                txn.open.push(seq);
            }
            Entry::Vacant(v) => {
                let mut open = SmallVec::new();
                open.push(seq);
                v.insert(Txn {
                    last_seen: r.time,
                    open,
                });
            }
        }
        self.next_seq += 1;
        self.counters.transmissions += 1;
        let mut dsts = Dsts::new();
        dsts.push(r.dst);
        self.pending.push_back(Transmission {
            seq,
            req: r,
            dsts,
            answers: Answers::new(),
            retried: None,
            window_passed: false,
            owner: None,
        });
        Some(seq)
    }

    /// Drops the least recently seen tenth of the transactions.
    fn evict(&mut self) {
        let mut times: Vec<Timestamp> = self.txns.values().map(|t| t.last_seen).collect();
        times.sort_unstable();
        let cut = times.get(times.len() / 10).copied().unwrap_or_default();
        let before = self.txns.len();
        self.txns.retain(|_, t| t.last_seen > cut);
        self.counters.transactions_evicted += (before - self.txns.len()) as u64;
    }

    /// An answer from `server` (the registry's index). Returns the sequence number of the
    /// transmission it answers.
    pub fn answer(&mut self, a: &Answer, server: usize) -> Option<u64> {
        self.last_time = self.last_time.max(a.time);
        self.counters.answers += 1;
        let key = Key::new(a.family, a.xid, &a.match_key);
        let Some(txn) = self.txns.get_mut(&key) else {
            self.counters.unmatched_answers += 1;
            return None;
        };
        txn.last_seen = a.time;
        let window = i128::from(self.window_ns);
        for &seq in txn.open.iter().rev() {
            let Some(t) = pending_mut(&mut self.pending, seq) else {
                continue;
            };
            if !answer_types(t.req.family, t.req.msg_type).contains(&a.msg_type) {
                continue;
            }
            let delay = ns_between(t.req.time, a.time);
            if delay < 0 {
                continue;
            }
            // The same server's answer seen again (a relay's copy to the client).
            if t.answers.iter().any(|x| {
                x.server == server && ns_between(x.time, a.time) < i128::from(COPY_WINDOW_NS)
            }) {
                self.counters.duplicate_answers += 1;
                return Some(seq);
            }
            if t.answers.len() >= MAX_ANSWERS {
                self.counters.answers_dropped += 1;
                return Some(seq);
            }
            t.answers.push(Answered {
                server,
                frame: a.frame,
                time: a.time,
                late: delay > window,
            });
            return Some(seq);
        }
        self.counters.unmatched_answers += 1;
        None
    }

    /// Notes the capture time (any event) so that waiting transmissions can be handed out.
    pub fn tick(&mut self, t: Timestamp) {
        self.last_time = self.last_time.max(t);
    }

    /// The oldest transmission whose lookahead has passed (or that must go to respect the bound):
    /// [`Self::judge_ready`] one at a time, moved out. The tests' form of it (the replay judges in
    /// place).
    #[cfg(test)]
    pub fn pop_ready(&mut self) -> Option<Transmission> {
        if !self.front_ready() {
            return None;
        }
        self.pop_front()
    }

    /// Every transmission still waiting (the capture ended).
    pub fn pop_any(&mut self) -> Option<Transmission> {
        self.pop_front()
    }

    /// Hands each ready transmission (every one when `all`: the capture ended) to `judge`, as
    /// `pop_ready` (tests) / `pop_any` would, without moving it out of the queue first.
    pub fn judge_ready(&mut self, all: bool, mut judge: impl FnMut(&Transmission)) {
        while all || self.front_ready() {
            let Some(t) = self.close_front() else {
                break;
            };
            judge(t);
            self.pending.pop_front();
        }
    }

    /// Whether the front transmission's lookahead has passed (or it must go to respect the
    /// bound); counts an early verdict.
    fn front_ready(&mut self) -> bool {
        let Some(front) = self.pending.front() else {
            return false;
        };
        let waited = ns_between(front.req.time, self.last_time);
        let over = self.pending.len() > self.max_pending;
        if waited <= i128::from(self.lookahead_ns) && !over {
            return false;
        }
        if over && waited <= i128::from(self.lookahead_ns) {
            self.counters.judged_early += 1;
        }
        true
    }

    fn pop_front(&mut self) -> Option<Transmission> {
        self.close_front()?;
        self.pending.pop_front()
    }

    /// Readies the front transmission for its verdict: whether its answer window passed, and it
    /// no longer open to copies and answers.
    fn close_front(&mut self) -> Option<&Transmission> {
        let t = self.pending.front_mut()?;
        t.window_passed = ns_between(t.req.time, self.last_time) > i128::from(self.window_ns);
        let key = Key::new(t.req.family, t.req.xid, &t.req.match_key);
        if let Entry::Occupied(mut txn) = self.txns.entry(key) {
            txn.get_mut().open.retain(|s| *s != t.seq);
            // With nothing open it can match nothing (copies and answers are matched against
            // open transmissions only) and a new request makes it anew: kept, it would only
            // hold memory until the --max-transactions bound evicts it (an answer seen after
            // the request keeps `last_seen` within the lookahead when the request is judged).
            if txn.get().open.is_empty() {
                txn.remove();
            }
        }
        self.pending.front()
    }

    pub fn pending_len(&self) -> usize {
        self.pending.len()
    }
}

/// The transmission numbered `seq` among those pending (numbered consecutively from the front).
fn pending_mut(pending: &mut VecDeque<Transmission>, seq: u64) -> Option<&mut Transmission> {
    let front = pending.front()?.seq;
    let i = usize::try_from(seq.checked_sub(front)?).ok()?;
    pending.get_mut(i)
}

#[cfg(test)]
mod tests {
    use super::super::events::ClientKey;
    use super::*;

    fn req(frame: u64, secs: i64, t: u8, elapsed: u16, dst: &str) -> Request {
        Request {
            frame,
            time: Timestamp::new(secs, 0),
            family: Family::V4,
            msg_type: Some(t),
            xid: 7,
            match_key: vec![1, 2, 3, 4, 5, 6].into(),
            key: ClientKey::V4 {
                client_id: None,
                chaddr: [0; 16],
                hlen: 6,
            },
            elapsed: Some(elapsed),
            server_id: None,
            relay_depth: 0,
            ciaddr_set: false,
            src: "0.0.0.0".parse().unwrap(),
            dst: dst.parse().unwrap(),
        }
    }

    fn ans(frame: u64, secs: i64, t: u8) -> Answer {
        Answer {
            frame,
            time: Timestamp::new(secs, 0),
            family: Family::V4,
            msg_type: Some(t),
            xid: 7,
            match_key: vec![1, 2, 3, 4, 5, 6].into(),
            server_id: None,
            server_addr: None,
            relay_depth: 0,
        }
    }

    #[test]
    fn copies_retries_and_answers() {
        let mut tr = Tracker::new(5_000_000_000, 20_000_000_000, 100, 100);
        assert_eq!(tr.request(req(1, 100, 1, 0, "10.0.0.1")), Some(0));
        // A relay's second copy, to the other server.
        assert_eq!(tr.request(req(2, 100, 1, 0, "10.0.0.2")), None);
        // The client retries 4 s later with secs 4.
        assert_eq!(tr.request(req(3, 104, 1, 4, "255.255.255.255")), Some(1));
        // An OFFER goes to the latest DISCOVER; an ACK answers no DISCOVER... but a DISCOVER may
        // be answered by an ACK (rapid commit), so use a NAK to check the type filter.
        assert_eq!(tr.answer(&ans(4, 104, 2), 0), Some(1));
        assert_eq!(tr.answer(&ans(5, 104, 2), 0), Some(1), "relay copy");
        assert_eq!(tr.counters.duplicate_answers, 1);
        assert_eq!(tr.answer(&ans(6, 104, 6), 1), None);
        assert_eq!(tr.request(req(7, 105, 3, 5, "255.255.255.255")), Some(2));
        assert_eq!(tr.answer(&ans(8, 112, 5), 1), Some(2));
        assert!(tr.pop_ready().is_none());
        tr.tick(Timestamp::new(200, 0));
        let a = tr.pop_ready().unwrap();
        assert_eq!((a.seq, a.retried, a.dsts.len()), (0, Some(3), 2));
        assert!(a.answers.is_empty() && a.window_passed);
        let b = tr.pop_ready().unwrap();
        assert_eq!(b.answers.len(), 1);
        assert_eq!(b.retried, None, "a REQUEST is not a DISCOVER retry");
        let c = tr.pop_ready().unwrap();
        assert!(c.answers[0].late, "7 s after the request");
        assert!(tr.pop_ready().is_none());
        // Every transmission judged: nothing is kept of the transaction, though its last answer
        // came well after its first request.
        assert!(tr.txns.is_empty());
    }

    #[test]
    fn judge_ready_hands_out_what_pop_ready_would() {
        let feed = |tr: &mut Tracker| {
            tr.request(req(1, 100, 1, 0, "10.0.0.1"));
            tr.answer(&ans(2, 100, 2), 0);
            tr.request(req(3, 115, 3, 0, "10.0.0.1"));
            tr.tick(Timestamp::new(125, 0));
        };
        let (mut a, mut b) = (
            Tracker::new(5_000_000_000, 20_000_000_000, 100, 100),
            Tracker::new(5_000_000_000, 20_000_000_000, 100, 100),
        );
        feed(&mut a);
        feed(&mut b);
        let mut popped = Vec::new();
        while let Some(t) = a.pop_ready() {
            popped.push((t.seq, t.window_passed, t.answers.len()));
        }
        let mut judged = Vec::new();
        b.judge_ready(false, |t| {
            judged.push((t.seq, t.window_passed, t.answers.len()))
        });
        assert_eq!(popped, [(0, true, 1)]);
        assert_eq!(judged, popped);
        assert_eq!(
            (a.pending_len(), a.txns.len()),
            (b.pending_len(), b.txns.len())
        );
        b.judge_ready(true, |t| judged.push((t.seq, t.window_passed, 0)));
        assert_eq!(judged, [(0, true, 1), (1, true, 0)]);
        assert!(b.txns.is_empty() && b.pending_len() == 0);
    }

    #[test]
    fn a_transaction_goes_with_its_last_open_transmission() {
        let mut tr = Tracker::new(5_000_000_000, 20_000_000_000, 100, 100);
        // DISCOVER, OFFER, REQUEST 15 s later (same xid), ACK 19 s after it.
        assert_eq!(tr.request(req(1, 100, 1, 0, "10.0.0.1")), Some(0));
        assert_eq!(tr.answer(&ans(2, 100, 2), 0), Some(0));
        assert_eq!(tr.request(req(3, 115, 3, 0, "10.0.0.1")), Some(1));
        assert_eq!(tr.answer(&ans(4, 134, 5), 0), Some(1));
        tr.tick(Timestamp::new(136, 0));
        assert_eq!(tr.pop_ready().map(|t| t.seq), Some(0));
        assert_eq!(tr.txns.len(), 1, "the REQUEST is still open");
        // Judged 21 s after the REQUEST, 2 s after the ACK that last touched the transaction.
        assert_eq!(tr.pop_ready().map(|t| t.seq), Some(1));
        assert!(tr.txns.is_empty());
        // The same xid again is a new transaction, and a stray answer matches nothing.
        assert_eq!(tr.answer(&ans(5, 137, 5), 0), None);
        assert_eq!(tr.request(req(6, 140, 1, 0, "10.0.0.1")), Some(2));
        assert_eq!(tr.answer(&ans(7, 140, 2), 1), Some(2));
    }

    #[test]
    fn bounded() {
        // Transmissions judged early to keep the pending bound take their transactions along.
        let mut tr = Tracker::new(1, 1_000_000_000_000, 20, 20);
        for i in 0..100u32 {
            let mut r = req(u64::from(i), i64::from(i), 1, 0, "255.255.255.255");
            r.xid = i;
            tr.request(r);
            while tr.pending_len() > 20 {
                assert!(tr.pop_ready().is_some());
            }
        }
        assert!(tr.counters.judged_early > 0);
        assert!(tr.txns.len() <= 20);
        // Transactions still open past the transaction bound: the least recently seen go.
        let mut tr = Tracker::new(1, 1_000_000_000_000, 20, 1000);
        for i in 0..100u32 {
            let mut r = req(u64::from(i), i64::from(i), 1, 0, "255.255.255.255");
            r.xid = i;
            tr.request(r);
        }
        assert!(tr.counters.transactions_evicted > 0);
        assert!(tr.txns.len() <= 20);
        // One xid repeated with ever new secs: the open list stays bounded.
        let mut tr = Tracker::new(1, 1_000_000_000_000, 1000, 1000);
        for i in 0..200u16 {
            tr.request(req(u64::from(i), i64::from(i) * 2, 1, i, "255.255.255.255"));
        }
        assert_eq!(tr.pending_len(), 200);
        assert!(tr.txns.values().all(|t| t.open.len() <= MAX_OPEN));
    }
}
