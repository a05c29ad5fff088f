//! SCTP user messages: duplicate detection by TSN and reassembly of messages split over several
//! DATA chunks (by consecutive TSNs from a B to an E fragment, same stream and, when ordered,
//! same SSN) or I-DATA chunks (by stream, U bit and MID, fragments numbered by FSN).
//!
//! State is kept per association (the conversation key) and direction. Bounds ([`Limits`]):
//! associations tracked at once (least recently used forgotten), bytes of fragments held for all
//! associations together (the oldest fragment's message goes first), and the size of one message
//! (a message that grows past it is dropped). Every dropped message is counted.

use std::collections::BTreeMap;

use foldhash::HashMap;
use std::net::IpAddr;

use super::lru::LruMap;
use super::{ConversationKey, Counters, Limits, Payload, Transport};
use crate::error::DecodeError;
use crate::wire::sctp::DataChunk;

/// A set of 256 consecutive numbers: fixed memory, whatever the input.
#[derive(Clone, Copy, Default)]
struct Window([u64; 4]);

impl Window {
    const SIZE: u32 = 256;

    fn get(&self, i: u32) -> bool {
        i < Self::SIZE && self.0[(i / 64) as usize] & (1 << (i % 64)) != 0
    }

    fn set(&mut self, i: u32) {
        if i < Self::SIZE {
            self.0[(i / 64) as usize] |= 1 << (i % 64);
        }
    }

    /// Drops the first `n` numbers: bit i becomes bit i - n.
    fn shift(&mut self, n: u32) {
        if n >= Self::SIZE {
            self.0 = [0; 4];
            return;
        }
        let (words, bits) = ((n / 64) as usize, n % 64);
        let mut out = [0u64; 4];
        for (i, o) in out.iter_mut().enumerate() {
            let lo = self.0.get(i + words).copied().unwrap_or(0);
            let hi = self.0.get(i + words + 1).copied().unwrap_or(0);
            *o = if bits == 0 {
                lo
            } else {
                (lo >> bits) | (hi << (64 - bits))
            };
        }
        self.0 = out;
    }
}

/// The TSNs a flow has carried, in fixed memory: every TSN from the start up to `cum` (serial
/// arithmetic) and a window of 256 above it. The start is the INIT's initial TSN; without an
/// INIT, it is the first TSN seen, and the 256 TSNs before it (reordered at the start of the
/// capture) are remembered apart. A TSN more than 256 ahead moves the window: the TSNs it skips
/// are then taken as seen (a retransmission that late is rare; memory must stay bounded).
#[derive(Default)]
struct TsnSet {
    cum: Option<u32>,
    /// Bit i: TSN cum + 1 + i.
    above: Window,
    /// The first TSN seen when no INIT gave the start.
    first: Option<u32>,
    /// Bit i: TSN first - 1 - i.
    before: Window,
}

impl TsnSet {
    fn restart(&mut self, initial_tsn: u32) {
        *self = TsnSet {
            cum: Some(initial_tsn.wrapping_sub(1)),
            ..TsnSet::default()
        };
    }

    /// Records `tsn`; false when it had been seen.
    fn insert(&mut self, tsn: u32) -> bool {
        let Some(cum) = self.cum else {
            self.cum = Some(tsn);
            self.first = Some(tsn);
            return true;
        };
        let d = tsn.wrapping_sub(cum) as i32;
        if d <= 0 {
            let Some(first) = self.first else {
                return false;
            };
            let back = first.wrapping_sub(tsn) as i32;
            if back <= 0 {
                return false;
            }
            let i = (back - 1) as u32;
            if i >= Window::SIZE {
                return true;
            }
            let new = !self.before.get(i);
            self.before.set(i);
            return new;
        }
        let mut i = (d - 1) as u32;
        let mut cum = cum;
        if i >= Window::SIZE {
            let skip = i - (Window::SIZE - 1);
            self.above.shift(skip);
            cum = cum.wrapping_add(skip);
            i = Window::SIZE - 1;
        }
        if self.above.get(i) {
            return false;
        }
        self.above.set(i);
        while self.above.get(0) {
            self.above.shift(1);
            cum = cum.wrapping_add(1);
        }
        self.cum = Some(cum);
        true
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
struct IKey {
    stream: u16,
    unordered: bool,
    mid: u32,
}

/// A held DATA fragment.
struct Frag {
    stream: u16,
    ssn: u32,
    unordered: bool,
    begin: bool,
    end: bool,
    ppid: Option<u32>,
    data: Vec<u8>,
    frame: u64,
    arrival: u64,
}

/// A partly received I-DATA message.
struct IPartial {
    ppid: Option<u32>,
    first_tsn: Option<u32>,
    last_fsn: Option<u32>,
    frags: BTreeMap<u32, Vec<u8>>,
    frames: Vec<u64>,
    bytes: usize,
}

#[derive(Default)]
struct Flow {
    init_tsn: Option<u32>,
    seen: TsnSet,
    frags: BTreeMap<u32, Frag>,
    /// Runs of held DATA fragments with consecutive TSNs that belong together (same stream, U
    /// bit and, when ordered, SSN; no E before the end, no B after the start): first TSN ->
    /// (last TSN, bytes). Kept up to date on every insertion, so that a message is known complete
    /// without walking its fragments (a walk per fragment would be quadratic in their number).
    runs: HashMap<u32, (u32, usize)>,
    /// Last TSN of a run -> its first.
    run_ends: HashMap<u32, u32>,
    partials: BTreeMap<IKey, IPartial>,
}

/// Whether fragment `later` can follow fragment `earlier` (one TSN apart) in one message.
fn continues(earlier: &Frag, later: &Frag) -> bool {
    earlier.stream == later.stream
        && earlier.unordered == later.unordered
        && (earlier.unordered || earlier.ssn == later.ssn)
        && !earlier.end
        && !later.begin
}

impl Flow {
    /// Joins the fragment just inserted at `tsn` with the runs before and after it; returns the
    /// run it is now part of: (first TSN, last TSN, bytes).
    fn join_run(&mut self, tsn: u32) -> (u32, u32, usize) {
        let Some(f) = self.frags.get(&tsn) else {
            return (tsn, tsn, 0);
        };
        let (mut first, mut last, mut bytes) = (tsn, tsn, f.data.len());
        let prev = tsn.wrapping_sub(1);
        if let (Some(&start), Some(g)) = (self.run_ends.get(&prev), self.frags.get(&prev)) {
            if continues(g, f) {
                if let Some((_, b)) = self.runs.remove(&start) {
                    bytes += b;
                }
                self.run_ends.remove(&prev);
                first = start;
            }
        }
        let next = tsn.wrapping_add(1);
        if let (Some(&(end, b)), Some(g)) = (self.runs.get(&next), self.frags.get(&next)) {
            if continues(f, g) {
                self.runs.remove(&next);
                self.run_ends.remove(&end);
                bytes += b;
                last = end;
            }
        }
        self.runs.insert(first, (last, bytes));
        self.run_ends.insert(last, first);
        (first, last, bytes)
    }

    /// Removes the run `first..=last` and its fragments, in TSN order.
    fn take_run(&mut self, first: u32, last: u32) -> Vec<Frag> {
        self.runs.remove(&first);
        self.run_ends.remove(&last);
        let mut out = Vec::new();
        let mut t = first;
        loop {
            if let Some(g) = self.frags.remove(&t) {
                out.push(g);
            }
            if t == last {
                break;
            }
            t = t.wrapping_add(1);
        }
        out
    }

    /// The run holding the fragment at `tsn`: walks back to its first TSN (the cost is that of
    /// removing the run afterwards).
    fn run_of(&self, tsn: u32) -> Option<(u32, u32)> {
        self.frags.get(&tsn)?;
        let mut t = tsn;
        loop {
            if let Some(&(last, _)) = self.runs.get(&t) {
                return Some((t, last));
            }
            t = t.wrapping_sub(1);
            self.frags.get(&t)?;
        }
    }

    fn held_bytes(&self) -> usize {
        self.frags.values().map(|f| f.data.len()).sum::<usize>()
            + self.partials.values().map(|p| p.bytes).sum::<usize>()
    }

    /// Messages in progress (DATA runs counted by their fragments' B bits, at least one if any
    /// fragment is held).
    fn messages(&self) -> u64 {
        let starts = self.frags.values().filter(|f| f.begin).count();
        let runs = if self.frags.is_empty() {
            0
        } else {
            starts.max(1)
        };
        (runs + self.partials.len()) as u64
    }
}

#[derive(Default)]
struct Association {
    /// 0: sent by the conversation key's `a` endpoint, 1: by `b`.
    flows: [Flow; 2],
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum PartRef {
    Data(u32),
    IData(IKey),
}

/// What became of a DATA or I-DATA chunk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChunkStatus {
    /// Its TSN had been seen before (a retransmission).
    pub duplicate: bool,
    /// A fragment kept for a message not complete yet (tshark's "Message Fragment").
    pub fragment_held: bool,
}

/// Where the chunks of one packet came from.
pub struct ChunkContext<'e> {
    pub src: IpAddr,
    pub dst: IpAddr,
    pub sport: u16,
    pub dport: u16,
    pub frame: u64,
    /// Where the SCTP packet starts in the frame; `None` when it came from a reassembled IP
    /// datagram.
    pub packet_offset: Option<usize>,
    /// Problems of the packet that concern its payloads (a bad checksum).
    pub payload_errors: &'e [DecodeError],
}

impl ChunkContext<'_> {
    fn key(&self) -> (ConversationKey, usize) {
        let key = ConversationKey::new(Transport::Sctp, self.src, self.sport, self.dst, self.dport);
        let dir = usize::from((self.src, self.sport) != key.a);
        (key, dir)
    }

    fn payload<'d>(&self, data: &'d [u8]) -> Payload<'d> {
        let mut p = Payload::new(
            Transport::Sctp,
            self.src,
            self.sport,
            self.dst,
            self.dport,
            data,
        );
        p.errors = self.payload_errors.to_vec();
        p
    }
}

/// The SCTP associations of a capture.
pub struct SctpReassembler {
    assocs: LruMap<ConversationKey, Association>,
    /// Held fragments by arrival: the oldest is evicted first (stale entries are skipped).
    index: BTreeMap<u64, (ConversationKey, usize, PartRef)>,
    held: usize,
    arrival: u64,
    prune_at: usize,
    limits: Limits,
}

/// The index is pruned of stale entries once it holds more than this many (and twice as many as
/// after the previous pruning).
const PRUNE_FLOOR: usize = 4096;

impl SctpReassembler {
    pub fn new(limits: Limits) -> Self {
        SctpReassembler {
            assocs: LruMap::new(limits.conversations),
            index: BTreeMap::new(),
            held: 0,
            arrival: 0,
            prune_at: PRUNE_FLOOR,
            limits,
        }
    }

    /// Bytes of fragments held now.
    pub fn held_bytes(&self) -> usize {
        self.held
    }

    fn association(&mut self, key: ConversationKey, counters: &mut Counters) -> &mut Association {
        let mut freed = 0;
        let a = self
            .assocs
            .get_or_insert_with(&key, Association::default, |old| {
                counters.sctp_associations_evicted += 1;
                for f in &old.flows {
                    counters.sctp_messages_evicted += f.messages();
                    freed += f.held_bytes();
                }
            });
        self.held = self.held.saturating_sub(freed);
        a
    }

    /// `tsn` relative to the start of the TSNs sent by the context's source (`towards` false) or
    /// by its peer (`towards` true), as tshark shows TSNs: the INIT's initial TSN, else the
    /// first TSN seen, is 0. `None` when that start is unknown.
    pub fn relative_tsn(&mut self, ctx: &ChunkContext<'_>, towards: bool, tsn: u32) -> Option<u32> {
        let (key, dir) = ctx.key();
        let dir = if towards { 1 - dir } else { dir };
        let flow = &self.assocs.get_mut(&key)?.flows[dir];
        let base = flow.init_tsn.or(flow.seen.first)?;
        Some(tsn.wrapping_sub(base))
    }

    /// An INIT (`ack` false) or INIT_ACK from the context's source: the TSNs of what it sends
    /// start again at `initial_tsn`.
    pub fn init(&mut self, ctx: &ChunkContext<'_>, initial_tsn: u32, counters: &mut Counters) {
        let (key, dir) = ctx.key();
        let a = self.association(key, counters);
        let flow = &mut a.flows[dir];
        if flow.init_tsn == Some(initial_tsn) {
            // A retransmitted INIT: same association.
            return;
        }
        let freed = flow.held_bytes();
        counters.sctp_messages_evicted += flow.messages();
        *flow = Flow {
            init_tsn: Some(initial_tsn),
            ..Flow::default()
        };
        flow.seen.restart(initial_tsn);
        self.held = self.held.saturating_sub(freed);
    }

    /// Takes in a DATA or I-DATA chunk: hands on the user message it completes (or is).
    pub fn chunk(
        &mut self,
        ctx: &ChunkContext<'_>,
        c: &DataChunk<'_>,
        counters: &mut Counters,
        errors: &mut Vec<DecodeError>,
        sink: &mut dyn FnMut(&mut Payload<'_>),
    ) -> ChunkStatus {
        let mut delivered = false;
        let duplicate = {
            let mut counting = |p: &mut Payload<'_>| {
                delivered = true;
                sink(p)
            };
            self.chunk_inner(ctx, c, counters, errors, &mut counting)
        };
        ChunkStatus {
            duplicate,
            fragment_held: !duplicate && !delivered,
        }
    }

    /// Returns whether the chunk's TSN had been seen before.
    fn chunk_inner(
        &mut self,
        ctx: &ChunkContext<'_>,
        c: &DataChunk<'_>,
        counters: &mut Counters,
        errors: &mut Vec<DecodeError>,
        sink: &mut dyn FnMut(&mut Payload<'_>),
    ) -> bool {
        let (key, dir) = ctx.key();
        let duplicate = !self.association(key, counters).flows[dir]
            .seen
            .insert(c.tsn);
        if duplicate {
            counters.sctp_duplicate_chunks += 1;
        }
        if c.begin && c.end {
            let mut p = ctx.payload(c.data);
            p.frame_offset = ctx.packet_offset.map(|o| o + c.data_offset);
            p.ppid = c.ppid;
            p.stream = Some(c.stream);
            p.tsn = Some(c.tsn);
            p.ssn = Some(c.ssn);
            p.unordered = c.unordered;
            p.duplicate = duplicate;
            sink(&mut p);
            return duplicate;
        }
        if duplicate {
            // Already held or already part of a delivered message.
            return true;
        }
        let err_at = ctx.packet_offset.map_or(0, |o| o + c.data_offset);
        if c.data.is_empty() {
            errors.push(DecodeError::new(
                err_at,
                "SCTP DATA fragment without user data",
            ));
            return false;
        }
        if c.data.len() > self.limits.sctp_message_bytes {
            counters.sctp_messages_evicted += 1;
            errors.push(DecodeError::new(
                err_at,
                format!(
                    "SCTP message fragment of {} bytes exceeds the {}-byte message bound: dropped",
                    c.data.len(),
                    self.limits.sctp_message_bytes
                ),
            ));
            return false;
        }
        self.arrival += 1;
        let arrival = self.arrival;
        let part = if c.idata {
            let k = IKey {
                stream: c.stream,
                unordered: c.unordered,
                mid: c.ssn,
            };
            let flow = &mut self.association(key, counters).flows[dir];
            let p = flow.partials.entry(k).or_insert_with(|| IPartial {
                ppid: None,
                first_tsn: None,
                last_fsn: None,
                frags: BTreeMap::new(),
                frames: Vec::new(),
                bytes: 0,
            });
            if p.frags.contains_key(&c.fsn) {
                // Same fragment under another TSN: keep the first copy.
                return false;
            }
            p.frags.insert(c.fsn, c.data.to_vec());
            p.bytes += c.data.len();
            if c.begin {
                p.ppid = c.ppid;
                p.first_tsn = Some(c.tsn);
            }
            if c.end {
                p.last_fsn = Some(c.fsn);
            }
            if p.frames.last() != Some(&ctx.frame) {
                p.frames.push(ctx.frame);
            }
            PartRef::IData(k)
        } else {
            let flow = &mut self.association(key, counters).flows[dir];
            if flow.frags.contains_key(&c.tsn) {
                // Held already (a TSN too old for the duplicate window): keep the first copy.
                return true;
            }
            flow.frags.insert(
                c.tsn,
                Frag {
                    stream: c.stream,
                    ssn: c.ssn,
                    unordered: c.unordered,
                    begin: c.begin,
                    end: c.end,
                    ppid: c.ppid,
                    data: c.data.to_vec(),
                    frame: ctx.frame,
                    arrival,
                },
            );
            PartRef::Data(c.tsn)
        };
        self.held += c.data.len();
        self.index.insert(arrival, (key, dir, part));
        self.try_complete(ctx, key, dir, part, counters, errors, err_at, sink);
        self.enforce_bound(counters);
        false
    }

    #[allow(clippy::too_many_arguments)]
    fn try_complete(
        &mut self,
        ctx: &ChunkContext<'_>,
        key: ConversationKey,
        dir: usize,
        part: PartRef,
        counters: &mut Counters,
        errors: &mut Vec<DecodeError>,
        err_at: usize,
        sink: &mut dyn FnMut(&mut Payload<'_>),
    ) {
        let max = self.limits.sctp_message_bytes;
        let Some(a) = self.assocs.get_mut(&key) else {
            return;
        };
        let flow = &mut a.flows[dir];
        match part {
            PartRef::IData(k) => {
                let Some(p) = flow.partials.get(&k) else {
                    return;
                };
                if p.bytes > max {
                    let bytes = p.bytes;
                    flow.partials.remove(&k);
                    self.held = self.held.saturating_sub(bytes);
                    counters.sctp_messages_evicted += 1;
                    errors.push(too_big(err_at, bytes, max));
                    return;
                }
                let complete = p.ppid.is_some()
                    && p.last_fsn
                        .is_some_and(|l| p.frags.len() as u64 == u64::from(l) + 1);
                if !complete {
                    return;
                }
                let Some(p) = flow.partials.remove(&k) else {
                    return;
                };
                self.held = self.held.saturating_sub(p.bytes);
                let mut data = Vec::with_capacity(p.bytes);
                for f in p.frags.values() {
                    data.extend_from_slice(f);
                }
                counters.sctp_messages_reassembled += 1;
                let mut out = ctx.payload(&data);
                out.ppid = p.ppid;
                out.stream = Some(k.stream);
                out.tsn = p.first_tsn;
                out.ssn = Some(k.mid);
                out.unordered = k.unordered;
                let mut frames = p.frames;
                frames.sort_unstable();
                frames.dedup();
                out.reassembled_from = frames;
                sink(&mut out);
            }
            PartRef::Data(tsn) => {
                let (first, last, bytes) = flow.join_run(tsn);
                let complete = flow.frags.get(&first).is_some_and(|f| f.begin)
                    && flow.frags.get(&last).is_some_and(|f| f.end);
                if bytes <= max && !complete {
                    return;
                }
                let frags = flow.take_run(first, last);
                self.held = self.held.saturating_sub(bytes);
                if bytes > max {
                    counters.sctp_messages_evicted += 1;
                    errors.push(too_big(err_at, bytes, max));
                    return;
                }
                let mut data = Vec::with_capacity(bytes);
                let mut frames: Vec<u64> = Vec::with_capacity(frags.len());
                for g in &frags {
                    data.extend_from_slice(&g.data);
                    frames.push(g.frame);
                }
                let Some(head) = frags.first() else {
                    return;
                };
                counters.sctp_messages_reassembled += 1;
                frames.sort_unstable();
                frames.dedup();
                let mut out = ctx.payload(&data);
                out.ppid = head.ppid;
                out.stream = Some(head.stream);
                out.tsn = Some(first);
                out.ssn = Some(head.ssn);
                out.unordered = head.unordered;
                out.reassembled_from = frames;
                sink(&mut out);
            }
        }
    }

    /// Drops the oldest held messages until the held bytes are within the bound.
    fn enforce_bound(&mut self, counters: &mut Counters) {
        while self.held > self.limits.sctp_reassembly_bytes {
            let Some((arrival, (key, dir, part))) = self.index.pop_first() else {
                break;
            };
            let Some(a) = self.assocs.get_mut(&key) else {
                continue;
            };
            let flow = &mut a.flows[dir];
            match part {
                PartRef::IData(k) => {
                    if let Some(p) = flow.partials.remove(&k) {
                        self.held = self.held.saturating_sub(p.bytes);
                        counters.sctp_messages_evicted += 1;
                    }
                }
                PartRef::Data(tsn) => {
                    if flow.frags.get(&tsn).map(|f| f.arrival) != Some(arrival) {
                        continue;
                    }
                    let freed = remove_message_around(flow, tsn);
                    self.held = self.held.saturating_sub(freed);
                    counters.sctp_messages_evicted += 1;
                }
            }
        }
        // Entries of completed or evicted messages stay in the index: prune them now and then
        // (the threshold doubles, so this costs O(1) per fragment).
        if self.index.len() > self.prune_at {
            let assocs = &mut self.assocs;
            self.index.retain(|arrival, (key, dir, part)| {
                assocs.get_mut(key).is_some_and(|a| {
                    let flow = &a.flows[*dir];
                    match part {
                        PartRef::Data(t) => {
                            flow.frags.get(t).is_some_and(|f| f.arrival == *arrival)
                        }
                        PartRef::IData(k) => flow.partials.contains_key(k),
                    }
                })
            });
            self.prune_at = (2 * self.index.len()).max(PRUNE_FLOOR);
        }
    }
}

/// Removes the held DATA fragment at `tsn` with the rest of its run (the message can never
/// complete without it); returns the bytes freed.
fn remove_message_around(flow: &mut Flow, tsn: u32) -> usize {
    let Some((first, last)) = flow.run_of(tsn) else {
        return 0;
    };
    flow.take_run(first, last)
        .iter()
        .map(|f| f.data.len())
        .sum()
}

fn too_big(at: usize, bytes: usize, max: usize) -> DecodeError {
    DecodeError::new(
        at,
        format!("SCTP message grew to {bytes} bytes, past the {max}-byte message bound: dropped"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::Ipv4Addr;

    fn ctx(frame: u64) -> ChunkContext<'static> {
        ChunkContext {
            src: IpAddr::V4(Ipv4Addr::new(10, 0, 0, 1)),
            dst: IpAddr::V4(Ipv4Addr::new(10, 0, 0, 2)),
            sport: 3863,
            dport: 3863,
            frame,
            packet_offset: Some(34),
            payload_errors: &[],
        }
    }

    fn data(tsn: u32, ssn: u32, b: bool, e: bool, d: &'static [u8]) -> DataChunk<'static> {
        DataChunk {
            tsn,
            stream: 1,
            ssn,
            ppid: Some(11),
            fsn: 0,
            begin: b,
            end: e,
            unordered: false,
            idata: false,
            data: d,
            data_offset: 28,
        }
    }

    type Got = (
        Vec<u8>,
        Option<u32>,
        Option<u32>,
        bool,
        Vec<u64>,
        Option<usize>,
    );

    struct Run {
        r: SctpReassembler,
        c: Counters,
        e: Vec<DecodeError>,
        got: Vec<Got>,
    }

    impl Run {
        fn new(limits: Limits) -> Self {
            Run {
                r: SctpReassembler::new(limits),
                c: Counters::default(),
                e: Vec::new(),
                got: Vec::new(),
            }
        }
        fn feed(&mut self, frame: u64, c: DataChunk<'_>) -> bool {
            let got = &mut self.got;
            let st = self.r.chunk(
                &ctx(frame),
                &c,
                &mut self.c,
                &mut self.e,
                &mut |p: &mut Payload<'_>| {
                    got.push((
                        p.data.to_vec(),
                        p.ppid,
                        p.tsn,
                        p.duplicate,
                        p.reassembled_from.clone(),
                        p.frame_offset,
                    ))
                },
            );
            st.duplicate
        }
    }

    #[test]
    fn whole_messages_and_duplicates() {
        let mut r = Run::new(Limits::default());
        assert!(!r.feed(1, data(5, 0, true, true, b"one")));
        assert!(r.feed(2, data(5, 0, true, true, b"one")));
        assert_eq!(r.got.len(), 2);
        assert_eq!(r.got[0].5, Some(34 + 28));
        assert!(!r.got[0].3 && r.got[1].3);
        assert_eq!(r.c.sctp_duplicate_chunks, 1);
        // Out of order is not a duplicate; the gap it leaves is not either.
        assert!(!r.feed(3, data(8, 2, true, true, b"x")));
        assert!(!r.feed(4, data(6, 1, true, true, b"y")));
        assert!(r.feed(5, data(8, 2, true, true, b"x")));
        assert!(!r.feed(6, data(7, 3, true, true, b"z")));
    }

    #[test]
    fn split_messages_across_packets_in_any_order() {
        let mut r = Run::new(Limits::default());
        r.feed(1, data(10, 0, true, false, b"ab"));
        r.feed(3, data(12, 0, false, true, b"ef"));
        assert!(r.got.is_empty());
        r.feed(2, data(11, 0, false, false, b"cd"));
        assert_eq!(r.got.len(), 1);
        assert_eq!(r.got[0].0, b"abcdef");
        assert_eq!((r.got[0].1, r.got[0].2), (Some(11), Some(10)));
        assert_eq!(r.got[0].4, vec![1, 2, 3]);
        assert_eq!(r.got[0].5, None);
        assert_eq!(r.r.held_bytes(), 0);
        // A retransmitted fragment of a delivered message is only flagged.
        assert!(r.feed(4, data(11, 0, false, false, b"cd")));
        assert_eq!(r.got.len(), 1);
        assert_eq!(r.c.sctp_messages_reassembled, 1);
    }

    #[test]
    fn unordered_messages_by_tsn_and_inconsistent_ssns_kept_apart() {
        let mut r = Run::new(Limits::default());
        let u = |tsn, b, e, d: &'static [u8]| DataChunk {
            unordered: true,
            ..data(tsn, 0, b, e, d)
        };
        r.feed(1, u(13, false, true, b"D"));
        r.feed(2, u(10, true, false, b"A"));
        assert!(r.got.is_empty());
        r.feed(3, u(12, true, false, b"C"));
        assert_eq!(r.got.len(), 1, "12 and 13 make a message");
        r.feed(4, u(11, false, true, b"B"));
        let msgs: Vec<&[u8]> = r.got.iter().map(|g| g.0.as_slice()).collect();
        assert_eq!(msgs, vec![&b"CD"[..], b"AB"]);
        // Ordered fragments with different SSNs are not one message.
        r.feed(5, data(20, 1, true, false, b"x"));
        r.feed(6, data(21, 2, false, true, b"y"));
        assert_eq!(r.got.len(), 2);
        assert_eq!(r.r.held_bytes(), 2);
    }

    #[test]
    fn many_small_fragments_in_reverse_order() {
        // 20000 one-byte fragments arriving last first: each insertion joins runs in constant
        // time (a walk per fragment would take 2 * 10^8 steps).
        let n = 20_000u32;
        let bytes: Vec<u8> = (0..n).map(|i| (i % 251) as u8).collect();
        let mut r = Run::new(Limits::default());
        for i in (0..n).rev() {
            let d = &bytes[i as usize..i as usize + 1];
            let c = DataChunk {
                data: d,
                ..data(1000 + i, 4, i == 0, i == n - 1, b"")
            };
            let got = &mut r.got;
            r.r.chunk(
                &ctx(u64::from(i)),
                &c,
                &mut r.c,
                &mut r.e,
                &mut |p: &mut Payload<'_>| {
                    got.push((
                        p.data.to_vec(),
                        p.ppid,
                        p.tsn,
                        p.duplicate,
                        Vec::new(),
                        None,
                    ))
                },
            );
        }
        assert_eq!(r.got.len(), 1);
        assert_eq!(r.got[0].0, bytes);
        assert_eq!(r.got[0].2, Some(1000));
        assert_eq!(r.r.held_bytes(), 0);
    }

    #[test]
    fn idata_by_mid_and_fsn() {
        let mut r = Run::new(Limits::default());
        let mut c = data(100, 7, true, false, b"AB");
        c.idata = true;
        c.ppid = Some(12);
        let mut m = data(101, 7, false, false, b"CD");
        m.idata = true;
        m.ppid = None;
        m.fsn = 1;
        let mut e = data(102, 7, false, true, b"EF");
        e.idata = true;
        e.ppid = None;
        e.fsn = 2;
        r.feed(1, e);
        r.feed(2, c);
        assert!(r.got.is_empty());
        r.feed(3, m);
        assert_eq!(r.got[0].0, b"ABCDEF");
        assert_eq!((r.got[0].1, r.got[0].2), (Some(12), Some(100)));
    }

    #[test]
    fn bounds_drop_messages_and_count_them() {
        let mut r = Run::new(Limits {
            sctp_reassembly_bytes: 6,
            sctp_message_bytes: 5,
            ..Limits::default()
        });
        // Grows past 5 bytes: dropped.
        r.feed(1, data(1, 0, true, false, b"abc"));
        r.feed(2, data(2, 0, false, false, b"def"));
        assert_eq!(r.c.sctp_messages_evicted, 1);
        assert_eq!(r.r.held_bytes(), 0);
        assert_eq!(r.e.len(), 1);
        // Two partial messages of 4 bytes each: the older one goes.
        r.feed(3, data(10, 5, true, false, b"1111"));
        r.feed(4, data(20, 6, true, false, b"2222"));
        assert_eq!(r.c.sctp_messages_evicted, 2);
        assert_eq!(r.r.held_bytes(), 4);
        r.feed(5, data(21, 6, false, true, b"3"));
        assert_eq!(r.got.len(), 1);
        assert_eq!(r.got[0].0, b"22223");
    }

    #[test]
    fn init_restarts_the_tsn_space() {
        let mut r = Run::new(Limits::default());
        r.feed(1, data(50, 0, true, true, b"a"));
        let mut c = Counters::default();
        r.r.init(&ctx(2), 50, &mut c);
        assert!(!r.feed(3, data(50, 0, true, true, b"a")), "new association");
        // A retransmitted INIT does not restart it.
        r.r.init(&ctx(4), 50, &mut c);
        assert!(r.feed(5, data(50, 0, true, true, b"a")));
    }

    #[test]
    fn tsn_set_serial_arithmetic() {
        let mut s = TsnSet::default();
        s.restart(u32::MAX);
        assert!(s.insert(u32::MAX));
        assert!(s.insert(1));
        assert!(s.insert(0));
        assert!(!s.insert(1));
        assert_eq!(s.cum, Some(1));
        assert_eq!(s.above.0, [0; 4]);
        // Out of order within the window, then far ahead.
        assert!(s.insert(5));
        assert!(!s.insert(5));
        assert!(s.insert(3));
        assert!(s.insert(2));
        assert_eq!(s.cum, Some(3));
        assert!(s.insert(4));
        assert_eq!(s.cum, Some(5));
        assert!(s.insert(1000));
        assert!(!s.insert(1000));
        assert_eq!(s.cum, Some(1000 - 256));
        // Without an INIT: TSNs before the first one seen are new once.
        let mut s = TsnSet::default();
        assert!(s.insert(100));
        assert!(s.insert(99));
        assert!(!s.insert(99));
        assert!(!s.insert(100));
        assert!(s.insert(101));
    }

    #[test]
    fn window_shifts() {
        let mut w = Window::default();
        for i in [0, 63, 64, 130, 255] {
            w.set(i);
        }
        w.shift(63);
        assert!(w.get(0) && w.get(1) && w.get(67) && w.get(192));
        assert!(!w.get(2));
        w.shift(200);
        assert_eq!(w.0, [0; 4]);
    }
}
