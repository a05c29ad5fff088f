//! TCP: segment headers, and per connection and direction an in-order byte stream.
//!
//! In-order data is handed on straight from the frame. Segments ahead of the expected sequence
//! number are copied aside (all connections together up to `Limits::tcp_reassembly_bytes`) until
//! the hole before them fills. The hole is given up for lost when the other side acknowledges
//! bytes past its start (the capture missed them; they will not be sent again); when the other
//! side has been silent since data was first held behind it (a one-way capture, where no
//! acknowledgment will tell) and the sender's next segment comes `Limits::tcp_hole_timeout_secs`
//! later; or when the bound is hit: the bytes are counted as skipped, the stream resumes at the
//! first buffered byte and the next payload is marked `gap_before`. What is still held at the end
//! of a run is counted (`Counters::tcp_bytes_held`). Retransmitted bytes are dropped (the first
//! copy wins). A SYN starts a new stream; RST drops what was buffered; a FIN in order flushes
//! what is buffered past holes.
//! Connections beyond `Limits::conversations` are forgotten least recently used first; a
//! connection is forgotten at once when the second of its two FINs is acknowledged (the last
//! segment of an orderly close), so that memory follows the connections open, not those seen.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::net::IpAddr;

use super::lru::LruMap;
use super::{ConversationKey, Counters, Limits, Payload, Transport};
use crate::error::DecodeError;
use crate::wire::tcp::{flags_text, options_text, TcpSegment, ACK, FIN, RST, SYN};

/// Where a segment sits in its frame and conversation.
pub struct SegmentContext {
    pub src: IpAddr,
    pub dst: IpAddr,
    pub frame: u64,
    /// Where the TCP header starts in the frame; `None` when it came from a reassembled IP
    /// datagram.
    pub frame_offset: Option<usize>,
    /// The frame's capture time, seconds.
    pub time: f64,
}

#[derive(Default)]
struct Direction {
    /// The sequence number relative numbers count from (as 1): the first byte after the SYN,
    /// else the first seen, else the first the other side acknowledged (as tshark counts).
    base: Option<u32>,
    /// Whether a segment of this direction was seen (a direction may be numbered before, from
    /// the other side's acknowledgments).
    seen: bool,
    /// Whether `base` follows a SYN (relative numbers then count the SYN as 1).
    syn_seen: bool,
    syn_seq: u32,
    next_seq: u32,
    next_off: u64,
    /// The next payload handed on follows missing bytes.
    pending_gap: bool,
    /// Out-of-order data by stream offset, with the frame it came in.
    ooo: BTreeMap<u64, (Vec<u8>, u64)>,
    ooo_bytes: usize,
    wscale: Option<u8>,
    /// The sequence number after this direction's FIN, once one was sent.
    fin_next: Option<u32>,
    /// Whether the other side acknowledged that FIN.
    fin_acked: bool,
    /// Capture time of this direction's last segment (`None` before its first).
    last_seen: Option<f64>,
    /// Since when data has been held behind the hole before `ooo`'s first entry (`None` while
    /// nothing is held).
    hole_since: Option<f64>,
}

#[derive(Default)]
struct Connection {
    /// 0: sent by the conversation key's `a` endpoint, 1: by `b`.
    dirs: [Direction; 2],
}

/// The TCP connections of a capture.
pub struct TcpTracker {
    conns: LruMap<ConversationKey, Connection>,
    /// Connections closed both ways, without held data: what comes after their last ACK (a
    /// retransmitted FIN or segment) keeps its relative numbers and is not delivered again, as
    /// tshark keeps the conversation. As many as `conns` at most; the oldest are forgotten.
    closed: LruMap<ConversationKey, Connection>,
    limits: Limits,
    /// Out-of-order bytes held, all connections together.
    held: usize,
    /// Whether `segment` writes tshark's Info text.
    info: bool,
}

impl TcpTracker {
    pub fn new(limits: Limits) -> Self {
        TcpTracker {
            conns: LruMap::new(limits.conversations),
            closed: LruMap::new(limits.conversations),
            limits,
            held: 0,
            info: true,
        }
    }

    /// Whether [`Self::segment`] returns tshark's Info text (else an empty string).
    pub fn set_info(&mut self, on: bool) {
        self.info = on;
    }

    /// Bytes held out of order now.
    pub fn held_bytes(&self) -> usize {
        self.held
    }

    /// Takes in one segment: hands on the in-order stream bytes it makes available and returns
    /// tshark's info text for it.
    pub fn segment(
        &mut self,
        ctx: &SegmentContext,
        seg: &TcpSegment<'_>,
        counters: &mut Counters,
        errors: &mut Vec<DecodeError>,
        sink: &mut dyn FnMut(&mut Payload<'_>),
    ) -> String {
        counters.tcp_segments += 1;
        let key = ConversationKey::new(Transport::Tcp, ctx.src, seg.sport, ctx.dst, seg.dport);
        let d = usize::from((ctx.src, seg.sport) != key.a);
        let mut freed = 0usize;
        // A SYN after the close starts a new connection; anything else belongs to the old one.
        let closed = &mut self.closed;
        let reopen = || match closed.remove(&key) {
            Some(old) if seg.flags & SYN == 0 => old,
            _ => Connection::default(),
        };
        let conn = self
            .conns
            .get_or_insert_with(&key, reopen, |old: Connection| {
                for dir in &old.dirs {
                    freed += dir.ooo_bytes;
                }
                counters.tcp_connections_evicted += 1;
            });
        self.held = self.held.saturating_sub(freed);
        counters.tcp_bytes_skipped += freed as u64;

        let mut info = String::new();
        if self.info {
            let _ = write!(
                info,
                "{} → {} [{}]",
                seg.sport,
                seg.dport,
                flags_text(seg.flags)
            );
        }
        let syn = seg.flags & SYN != 0;
        {
            let dir = &mut conn.dirs[d];
            if syn && !(dir.syn_seen && dir.syn_seq == seg.seq) {
                // A new stream (or the first SYN seen): forget the old one.
                self.held = self.held.saturating_sub(dir.ooo_bytes);
                counters.tcp_bytes_skipped += dir.ooo_bytes as u64;
                *dir = Direction {
                    base: Some(seg.seq.wrapping_add(1)),
                    seen: true,
                    syn_seen: true,
                    syn_seq: seg.seq,
                    next_seq: seg.seq.wrapping_add(1),
                    ..Direction::default()
                };
            }
            if !dir.seen {
                // Picked up mid-stream: bytes before this one were not seen.
                dir.seen = true;
                dir.base.get_or_insert(seg.seq);
                dir.next_seq = seg.seq;
                dir.pending_gap = true;
            }
        }
        if seg.flags & ACK != 0 && conn.dirs[1 - d].base.is_none() {
            // The other side not seen yet: tshark numbers it from what this one acknowledges.
            conn.dirs[1 - d].base = Some(seg.ack);
        }
        // Relative numbers as tshark shows them: the SYN is 0, the first byte after it 1; a
        // direction picked up mid-stream starts at 1 too.
        let rel = |dir: &Direction, n: u32| {
            let b = dir.base.unwrap_or(n);
            n.wrapping_sub(b).wrapping_add(1)
        };
        if self.info {
            let _ = write!(info, " Seq={}", rel(&conn.dirs[d], seg.seq));
        }
        if self.info && seg.flags & ACK != 0 {
            let _ = write!(info, " Ack={}", rel(&conn.dirs[1 - d], seg.ack));
        }
        // The options matter to the analysis only on a SYN (the window scale); otherwise they
        // are read only for the Info text.
        let mut opts = String::new();
        if syn || self.info {
            let peer_base = conn.dirs[1 - d].base;
            let ws = options_text(seg.options, self.info.then_some(&mut opts), peer_base);
            if syn {
                conn.dirs[d].wscale = ws;
            }
        }
        // A side's window is scaled by the shift its SYN offered, unless the other side's SYN
        // was seen without one (then neither is: RFC 7323); never on the SYNs themselves. A
        // side whose SYN was not seen is not scaled: its shift is unknown. (tshark 4.0's rule:
        // it scales by the one shift known while the other side's SYN is unseen.)
        let other = &conn.dirs[1 - d];
        let declined = other.syn_seen && other.wscale.is_none();
        let window = match (syn, conn.dirs[d].wscale) {
            (false, Some(s)) if !declined => u32::from(seg.window) << s,
            _ => u32::from(seg.window),
        };
        if self.info {
            let _ = write!(info, " Win={window} Len={}{opts}", seg.payload.len());
        }

        if seg.flags & RST != 0 {
            for dir in &mut conn.dirs {
                self.held = self.held.saturating_sub(dir.ooo_bytes);
                counters.tcp_bytes_skipped += dir.ooo_bytes as u64;
                dir.ooo.clear();
                dir.ooo_bytes = 0;
                dir.hole_since = None;
            }
            return info;
        }
        let data_seq = if syn {
            seg.seq.wrapping_add(1)
        } else {
            seg.seq
        };
        let out = Out {
            src: ctx.src,
            dst: ctx.dst,
            sport: seg.sport,
            dport: seg.dport,
        };
        let offs = [conn.dirs[0].next_off, conn.dirs[1].next_off];
        let peer_last = conn.dirs[1 - d].last_seen;
        let dir = &mut conn.dirs[d];
        if let Some(since) = dir.hole_since {
            // A one-way capture: no acknowledgment from the other side will ever say that the
            // bytes were lost, so waiting for them is bounded in time (a retransmission comes
            // within seconds).
            let peer_silent = peer_last.is_none_or(|t| t < since);
            let timeout = f64::from(self.limits.tcp_hole_timeout_secs);
            if peer_silent && ctx.time - since > timeout {
                let resume = dir.ooo.first_key_value().map_or(dir.next_off, |(&o, _)| o);
                let lost = resume.saturating_sub(dir.next_off);
                errors.push(DecodeError::new(
                    ctx.frame_offset.unwrap_or(0),
                    format!(
                        "{lost} bytes of the TCP stream {}:{} → {}:{} are missing (not captured, or in a frame that could not be decoded): the data after them waited {:.1} s and the other direction is silent (a one-way capture?); skipped",
                        out.src, out.sport, out.dst, out.dport, ctx.time - since
                    ),
                ));
                self.held = skip_to(dir, self.held, resume, &out, counters, sink);
            }
        }
        dir.last_seen = Some(ctx.time);
        if !seg.payload.is_empty() {
            let payload_frame_offset = ctx.frame_offset.map(|o| o + seg.payload_offset);
            self.held = place(
                dir,
                self.held,
                self.limits.tcp_reassembly_bytes,
                data_seq,
                seg.payload,
                payload_frame_offset,
                ctx.frame,
                &out,
                counters,
                errors,
                sink,
            );
        }
        if seg.flags & FIN != 0 {
            let fin_seq = data_seq.wrapping_add(seg.payload.len() as u32);
            dir.fin_next = Some(fin_seq.wrapping_add(1));
            if fin_seq == dir.next_seq && !dir.ooo.is_empty() {
                // The stream ends here: whatever is buffered past holes will never be joined.
                while let Some((&off, _)) = dir.ooo.first_key_value() {
                    let lost = off.saturating_sub(dir.next_off);
                    if lost > 0 {
                        counters.tcp_bytes_skipped += lost;
                        dir.next_seq = dir.next_seq.wrapping_add(lost as u32);
                        dir.next_off = off;
                        dir.pending_gap = true;
                    }
                    self.held = drain(dir, self.held, &out, counters, sink);
                }
            }
        }
        if seg.flags & ACK != 0 {
            let other = &mut conn.dirs[1 - d];
            if !other.ooo.is_empty() {
                // The peer acknowledges bytes the capture never saw: they will not come again
                // (a cumulative ACK covers only bytes received), so the hole is given up at once
                // rather than held until the bound.
                let back = Out {
                    src: ctx.dst,
                    dst: ctx.src,
                    sport: seg.dport,
                    dport: seg.sport,
                };
                self.held = skip_acked(
                    other,
                    self.held,
                    seg.ack,
                    &back,
                    ctx.frame_offset.unwrap_or(0),
                    counters,
                    errors,
                    sink,
                );
            }
            if other.fin_next == Some(seg.ack) {
                other.fin_acked = true;
            }
        }
        for (dir, before) in conn.dirs.iter_mut().zip(offs) {
            // A hole starts its wait when data is first held behind it: now, if the stream
            // moved on to a later hole.
            dir.hole_since = match dir.hole_since {
                _ if dir.ooo.is_empty() => None,
                Some(t) if dir.next_off == before => Some(t),
                _ => Some(ctx.time),
            };
        }
        if conn.dirs.iter().all(|x| x.fin_acked) {
            // Closed both ways (this ACK was the last segment): nothing more can be delivered.
            if let Some(mut old) = self.conns.remove(&key) {
                for dir in &mut old.dirs {
                    self.held = self.held.saturating_sub(dir.ooo_bytes);
                    counters.tcp_bytes_skipped += dir.ooo_bytes as u64;
                    dir.ooo.clear();
                    dir.ooo_bytes = 0;
                    dir.hole_since = None;
                }
                self.closed.get_or_insert_with(&key, || old, |_| {});
            }
        }
        info
    }
}

struct Out {
    src: IpAddr,
    dst: IpAddr,
    sport: u16,
    dport: u16,
}

impl Out {
    fn deliver(
        &self,
        dir: &mut Direction,
        data: &[u8],
        frame_offset: Option<usize>,
        frames: Vec<u64>,
        sink: &mut dyn FnMut(&mut Payload<'_>),
    ) {
        let mut p = Payload::new(
            Transport::Tcp,
            self.src,
            self.sport,
            self.dst,
            self.dport,
            data,
        );
        p.frame_offset = frame_offset;
        p.reassembled_from = frames;
        p.stream_offset = Some(dir.next_off);
        p.gap_before = dir.pending_gap;
        dir.pending_gap = false;
        dir.next_off += data.len() as u64;
        dir.next_seq = dir.next_seq.wrapping_add(data.len() as u32);
        sink(&mut p);
    }
}

/// Places a segment's payload in its stream; returns the new count of held bytes.
#[allow(clippy::too_many_arguments)]
fn place(
    dir: &mut Direction,
    mut held: usize,
    bound: usize,
    seq: u32,
    payload: &[u8],
    frame_offset: Option<usize>,
    frame: u64,
    out: &Out,
    counters: &mut Counters,
    errors: &mut Vec<DecodeError>,
    sink: &mut dyn FnMut(&mut Payload<'_>),
) -> usize {
    // Signed distance from the expected sequence number, within a 2 GiB window.
    let delta = i64::from(seq.wrapping_sub(dir.next_seq) as i32);
    let len = payload.len() as u64;
    let seg_off = dir.next_off as i64 + delta;
    let seg_end = seg_off + len as i64;
    if seg_end <= dir.next_off as i64 {
        counters.tcp_retransmissions += 1;
        return held;
    }
    if seg_off <= dir.next_off as i64 {
        let trim = (dir.next_off as i64 - seg_off) as usize;
        let data = payload.get(trim..).unwrap_or(&[]);
        out.deliver(dir, data, frame_offset.map(|o| o + trim), Vec::new(), sink);
        return drain(dir, held, out, counters, sink);
    }
    // Ahead of the stream: hold it, making room by giving up the oldest hole if needed.
    let seg_off = seg_off as u64;
    loop {
        if held + payload.len() <= bound {
            if let Some((old, _)) = dir.ooo.get(&seg_off) {
                if old.len() >= payload.len() {
                    counters.tcp_retransmissions += 1;
                    return held;
                }
                let tail_off = seg_off + old.len() as u64;
                let tail = payload.get(old.len()..).unwrap_or(&[]);
                if !dir.ooo.contains_key(&tail_off) {
                    held += tail.len();
                    dir.ooo_bytes += tail.len();
                    dir.ooo.insert(tail_off, (tail.to_vec(), frame));
                }
                return held;
            }
            held += payload.len();
            dir.ooo_bytes += payload.len();
            dir.ooo.insert(seg_off, (payload.to_vec(), frame));
            return held;
        }
        // Over the bound: the bytes missing before the first held segment (or before this one)
        // are declared lost.
        let resume = dir
            .ooo
            .first_key_value()
            .map_or(seg_off, |(&o, _)| o.min(seg_off));
        let lost = resume.saturating_sub(dir.next_off);
        counters.tcp_bytes_skipped += lost;
        errors.push(DecodeError::new(
            frame_offset.unwrap_or(0),
            format!(
                "{lost} bytes of the TCP stream are missing; skipped once the {bound}-byte reassembly bound was reached"
            ),
        ));
        dir.next_off = resume;
        dir.next_seq = dir.next_seq.wrapping_add(lost as u32);
        dir.pending_gap = true;
        if resume == seg_off {
            out.deliver(dir, payload, frame_offset, Vec::new(), sink);
            return drain(dir, held, out, counters, sink);
        }
        held = drain(dir, held, out, counters, sink);
        if seg_off <= dir.next_off {
            // Now in order (or already covered).
            let trim = (dir.next_off - seg_off) as usize;
            if let Some(data) = payload.get(trim..).filter(|d| !d.is_empty()) {
                out.deliver(dir, data, frame_offset.map(|o| o + trim), Vec::new(), sink);
                held = drain(dir, held, out, counters, sink);
            }
            return held;
        }
    }
}

/// Gives up the hole before `dir`'s held data up to `ack`, which the other side acknowledged
/// (in a frame whose TCP header is at `offset`); returns the new count of held bytes.
#[allow(clippy::too_many_arguments)]
fn skip_acked(
    dir: &mut Direction,
    held: usize,
    ack: u32,
    out: &Out,
    offset: usize,
    counters: &mut Counters,
    errors: &mut Vec<DecodeError>,
    sink: &mut dyn FnMut(&mut Payload<'_>),
) -> usize {
    let ahead = i64::from(ack.wrapping_sub(dir.next_seq) as i32);
    let Some(&first) = dir.ooo.keys().next() else {
        return held;
    };
    if ahead <= 0 {
        return held;
    }
    let resume = (dir.next_off + ahead as u64).min(first);
    let lost = resume - dir.next_off;
    errors.push(DecodeError::new(
        offset,
        format!(
            "{lost} bytes of the TCP stream {}:{} → {}:{} are missing (not captured, or in a frame that could not be decoded) and this segment acknowledges them; skipped",
            out.src, out.sport, out.dst, out.dport
        ),
    ));
    skip_to(dir, held, resume, out, counters, sink)
}

/// Gives up the bytes from where `dir`'s stream is to `resume` (counted as skipped) and hands on
/// the held data that follows; returns the new count of held bytes.
fn skip_to(
    dir: &mut Direction,
    held: usize,
    resume: u64,
    out: &Out,
    counters: &mut Counters,
    sink: &mut dyn FnMut(&mut Payload<'_>),
) -> usize {
    let lost = resume.saturating_sub(dir.next_off);
    counters.tcp_bytes_skipped += lost;
    dir.next_off += lost;
    dir.next_seq = dir.next_seq.wrapping_add(lost as u32);
    dir.pending_gap = true;
    drain(dir, held, out, counters, sink)
}

/// Hands on the held segments that have become in order; returns the new count of held bytes.
fn drain(
    dir: &mut Direction,
    mut held: usize,
    out: &Out,
    counters: &mut Counters,
    sink: &mut dyn FnMut(&mut Payload<'_>),
) -> usize {
    while let Some(entry) = dir.ooo.first_entry() {
        let off = *entry.key();
        if off > dir.next_off {
            break;
        }
        let (data, frame) = entry.remove();
        held = held.saturating_sub(data.len());
        dir.ooo_bytes = dir.ooo_bytes.saturating_sub(data.len());
        let trim = (dir.next_off - off) as usize;
        match data.get(trim..).filter(|d| !d.is_empty()) {
            Some(rest) => out.deliver(dir, rest, None, vec![frame], sink),
            None => counters.tcp_retransmissions += 1,
        }
    }
    held
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::tcp::PSH;
    use std::net::Ipv4Addr;

    fn seg(sport: u16, dport: u16, seq: u32, flags: u8, payload: &[u8]) -> TcpSegment<'_> {
        acked(sport, dport, seq, 0, flags, payload)
    }

    fn acked(
        sport: u16,
        dport: u16,
        seq: u32,
        ack: u32,
        flags: u8,
        payload: &[u8],
    ) -> TcpSegment<'_> {
        TcpSegment {
            sport,
            dport,
            seq,
            ack,
            flags,
            window: 100,
            options: &[],
            payload,
            payload_offset: 20,
        }
    }

    type Got = (u16, u64, bool, Vec<u8>, Option<usize>);

    struct Run {
        t: TcpTracker,
        c: Counters,
        got: Vec<Got>,
        errors: Vec<DecodeError>,
        /// Capture time of the next segment fed.
        time: f64,
    }

    impl Run {
        fn new(limits: Limits) -> Self {
            Run {
                t: TcpTracker::new(limits),
                c: Counters::default(),
                got: Vec::new(),
                errors: Vec::new(),
                time: 0.0,
            }
        }

        fn feed(&mut self, from_client: bool, seq: u32, flags: u8, payload: &[u8]) -> String {
            self.feed_acked(from_client, seq, 0, flags, payload)
        }

        fn feed_acked(
            &mut self,
            from_client: bool,
            seq: u32,
            ack: u32,
            flags: u8,
            payload: &[u8],
        ) -> String {
            let (a, b) = (
                IpAddr::V4(Ipv4Addr::new(10, 0, 0, 1)),
                IpAddr::V4(Ipv4Addr::new(10, 0, 0, 2)),
            );
            let (src, dst, sp, dp) = if from_client {
                (a, b, 40000, 647)
            } else {
                (b, a, 647, 40000)
            };
            let ctx = SegmentContext {
                src,
                dst,
                frame: 1,
                frame_offset: Some(34),
                time: self.time,
            };
            let got = &mut self.got;
            self.t.segment(
                &ctx,
                &acked(sp, dp, seq, ack, flags, payload),
                &mut self.c,
                &mut self.errors,
                &mut |p: &mut Payload<'_>| {
                    got.push((
                        p.src_port,
                        p.stream_offset.unwrap_or(999),
                        p.gap_before,
                        p.data.to_vec(),
                        p.frame_offset,
                    ))
                },
            )
        }
    }

    #[test]
    fn in_order_out_of_order_and_retransmissions() {
        let mut r = Run::new(Limits::default());
        let info = r.feed(true, 1000, SYN, &[]);
        assert_eq!(info, "40000 → 647 [SYN] Seq=0 Win=100 Len=0");
        r.feed(false, 5000, SYN | ACK, &[]);
        r.feed(true, 1001, ACK, b"abc");
        // 1007.. arrives before 1004..
        r.feed(true, 1007, ACK, b"ghi");
        r.feed(true, 1004, ACK, b"def");
        // Retransmission of old bytes, and a partial overlap.
        r.feed(true, 1001, ACK, b"abc");
        r.feed(true, 1008, ACK, b"hijk");
        let client: Vec<_> = r.got.iter().filter(|g| g.0 == 40000).collect();
        let bytes: Vec<u8> = client.iter().flat_map(|g| g.3.clone()).collect();
        assert_eq!(bytes, b"abcdefghijk");
        assert_eq!(client[0].1, 0);
        assert_eq!(client[0].4, Some(54));
        // The held segment comes from a buffer, not the frame.
        assert_eq!(client[2].4, None);
        // The overlapping tail starts at its trimmed place in the frame.
        assert_eq!(client[3].3, b"jk");
        assert_eq!(client[3].4, Some(54 + 2));
        assert!(client.iter().all(|g| !g.2));
        assert_eq!(r.c.tcp_retransmissions, 1);
        assert_eq!(r.t.held_bytes(), 0);
    }

    #[test]
    fn bound_hit_skips_the_gap_and_marks_it() {
        let mut r = Run::new(Limits {
            tcp_reassembly_bytes: 8,
            ..Limits::default()
        });
        r.feed(true, 0, SYN, &[]);
        r.feed(true, 1, ACK, b"a");
        // Byte 1 ("b") is lost; 4 + 4 bytes are held, the next 4 do not fit.
        r.feed(true, 3, ACK, b"cdef");
        r.feed(true, 7, ACK, b"ghij");
        assert_eq!(r.got.len(), 1);
        r.feed(true, 11, ACK, b"klmn");
        let offsets: Vec<(u64, bool, Vec<u8>)> =
            r.got.iter().map(|g| (g.1, g.2, g.3.clone())).collect();
        assert_eq!(
            offsets,
            vec![
                (0, false, b"a".to_vec()),
                (2, true, b"cdef".to_vec()),
                (6, false, b"ghij".to_vec()),
                (10, false, b"klmn".to_vec()),
            ]
        );
        assert_eq!(r.c.tcp_bytes_skipped, 1);
        assert_eq!(r.errors.len(), 1);
        assert!(r.t.held_bytes() == 0);
    }

    #[test]
    fn a_hole_the_peer_acknowledged_is_given_up_at_once() {
        let mut r = Run::new(Limits::default());
        r.feed_acked(true, 0, 0, SYN, &[]);
        r.feed_acked(false, 100, 1, SYN | ACK, &[]);
        r.feed_acked(true, 1, 101, ACK, b"ab");
        // "cd" (3..5) was not captured; "ef" and "gh" wait behind the hole.
        r.feed_acked(true, 5, 101, ACK, b"ef");
        r.feed_acked(true, 7, 101, ACK, b"gh");
        // An ACK of the bytes before the hole proves nothing about it: the held bytes wait.
        r.feed_acked(false, 101, 3, ACK, &[]);
        assert_eq!(r.got.len(), 1);
        assert!(r.errors.is_empty());
        // The server acknowledges "ef": it had "cd", which will not be sent again.
        r.feed_acked(false, 101, 7, ACK, &[]);
        let got: Vec<(u16, u64, bool, Vec<u8>)> =
            r.got.iter().map(|g| (g.0, g.1, g.2, g.3.clone())).collect();
        assert_eq!(
            got,
            vec![
                (40000, 0, false, b"ab".to_vec()),
                (40000, 4, true, b"ef".to_vec()),
                (40000, 6, false, b"gh".to_vec()),
            ]
        );
        assert_eq!(r.c.tcp_bytes_skipped, 2);
        assert_eq!(r.errors.len(), 1);
        assert!(
            r.errors[0]
                .what
                .contains("2 bytes of the TCP stream 10.0.0.1:40000"),
            "{}",
            r.errors[0].what
        );
        assert_eq!(r.t.held_bytes(), 0);
        // Should "cd" turn up after all, it is behind the stream now: a retransmission.
        r.feed_acked(true, 3, 101, ACK, b"cd");
        assert_eq!(r.got.len(), 3);
        // A hole the peer has not acknowledged yet (nothing held behind it) changes nothing.
        r.feed_acked(false, 101, 20, ACK, &[]);
        r.feed_acked(true, 9, 101, ACK, b"ij");
        assert_eq!(r.got.last().map(|g| g.3.clone()), Some(b"ij".to_vec()));
    }

    #[test]
    fn a_hole_in_a_one_way_capture_is_given_up_after_the_timeout() {
        let mut r = Run::new(Limits::default());
        // Only the client's side is in the capture, picked up mid-stream.
        r.feed_acked(true, 1, 101, ACK, b"ab");
        // "cd" (3..5) was not captured; "ef" waits behind the hole from time 10.
        r.time = 10.0;
        r.feed_acked(true, 5, 101, ACK, b"ef");
        // Three seconds later the wait is not over yet (it must be longer than the timeout).
        r.time = 13.0;
        r.feed_acked(true, 7, 101, ACK, b"gh");
        assert_eq!(r.got.len(), 1);
        assert!(r.errors.is_empty());
        assert_eq!(r.t.held_bytes(), 4);
        // The client's next segment, past the timeout, gives the hole up before it is placed.
        r.time = 13.5;
        r.feed_acked(true, 9, 101, ACK, b"ij");
        let got: Vec<(u64, bool, Vec<u8>)> =
            r.got.iter().map(|g| (g.1, g.2, g.3.clone())).collect();
        assert_eq!(
            got,
            vec![
                (0, true, b"ab".to_vec()),
                (4, true, b"ef".to_vec()),
                (6, false, b"gh".to_vec()),
                (8, false, b"ij".to_vec()),
            ]
        );
        assert_eq!(r.c.tcp_bytes_skipped, 2);
        assert_eq!(r.errors.len(), 1);
        assert!(
            r.errors[0].what.contains(
                "2 bytes of the TCP stream 10.0.0.1:40000 → 10.0.0.2:647 are missing (not captured, or in a frame that could not be decoded): the data after them waited 3.5 s"
            ),
            "{}",
            r.errors[0].what
        );
        assert_eq!(r.t.held_bytes(), 0);
        // The next hole waits from when data is first held behind it, not from the first one's.
        r.feed_acked(true, 13, 101, ACK, b"mn");
        r.time = 16.0;
        r.feed_acked(true, 15, 101, ACK, b"op");
        assert_eq!(r.got.len(), 4, "\"kl\" missing, \"mn\" held since 13.5");
        r.time = 16.6;
        r.feed_acked(true, 17, 101, ACK, &[]);
        assert_eq!(r.got.len(), 6);
        assert_eq!(r.c.tcp_bytes_skipped, 4);
    }

    #[test]
    fn a_hole_the_peer_has_spoken_since_waits_for_the_retransmission() {
        let mut r = Run::new(Limits::default());
        r.feed_acked(true, 0, 0, SYN, &[]);
        r.feed_acked(false, 100, 1, SYN | ACK, &[]);
        r.feed_acked(true, 1, 101, ACK, b"ab");
        r.time = 10.0;
        r.feed_acked(true, 5, 101, ACK, b"ef");
        // The server acknowledges up to the hole (it lacks "cd" too): the client will resend it.
        r.time = 10.1;
        r.feed_acked(false, 101, 3, ACK, &[]);
        r.time = 20.0;
        r.feed_acked(true, 7, 101, ACK, b"gh");
        assert_eq!(r.got.len(), 1, "still held, long past the timeout");
        assert!(r.errors.is_empty());
        // The retransmission fills the hole: nothing was lost.
        r.feed_acked(true, 3, 101, ACK, b"cd");
        let data: Vec<u8> = r.got.iter().flat_map(|g| g.3.clone()).collect();
        assert_eq!(data, b"abcdefgh");
        assert!(r.got.iter().all(|g| !g.2), "no gap");
        assert_eq!(r.c.tcp_bytes_skipped, 0);
    }

    #[test]
    fn a_connection_closed_both_ways_is_forgotten_at_the_last_ack() {
        let mut r = Run::new(Limits::default());
        r.feed_acked(true, 100, 0, SYN, &[]);
        r.feed_acked(false, 500, 101, SYN | ACK, &[]);
        r.feed_acked(true, 101, 501, ACK, &[]);
        r.feed_acked(true, 101, 501, FIN | ACK, &[]);
        // The server's FIN acknowledges the client's; the client's ACK of it is still to come.
        r.feed_acked(false, 501, 102, FIN | ACK, &[]);
        assert_eq!(r.t.conns.len(), 1);
        let info = r.feed_acked(true, 102, 502, ACK, &[]);
        assert_eq!(
            info, "40000 → 647 [ACK] Seq=2 Ack=2 Win=100 Len=0",
            "numbered as before"
        );
        assert_eq!(r.t.conns.len(), 0, "forgotten");
        // A FIN retransmitted after the last ACK keeps its numbers (tshark's conversation
        // goes on) and delivers nothing.
        let info = r.feed_acked(false, 501, 102, FIN | ACK, &[]);
        assert_eq!(info, "647 → 40000 [FIN, ACK] Seq=1 Ack=2 Win=100 Len=0");
        // One FIN only, or a FIN not acknowledged, keeps the connection.
        r.feed_acked(true, 100, 0, SYN, &[]);
        r.feed_acked(true, 101, 0, FIN | ACK, &[]);
        r.feed_acked(false, 500, 999, ACK, &[]);
        assert_eq!(r.t.conns.len(), 1);
    }

    #[test]
    fn midstream_pickup_new_syn_rst_and_fin() {
        let mut r = Run::new(Limits::default());
        r.feed(true, 7777, ACK | PSH, b"xy");
        assert_eq!(r.got[0].1, 0);
        assert!(r.got[0].2, "the start of the stream was not seen");
        r.feed(true, 7790, ACK, b"zz");
        r.feed(true, 7800, RST, &[]);
        assert_eq!(r.c.tcp_bytes_skipped, 2);
        // A new connection on the same ports starts a new stream at offset 0.
        r.feed(true, 1, SYN, &[]);
        r.feed(true, 2, ACK, b"new");
        assert_eq!(r.got.last().map(|g| (g.1, g.2)), Some((0, false)));
        // Data past a hole, then FIN in order: flushed with the gap marked.
        r.feed(true, 10, ACK, b"late");
        r.feed(true, 5, FIN | ACK, &[]);
        let last = r.got.last().unwrap();
        assert_eq!((last.1, last.2, last.3.as_slice()), (8, true, &b"late"[..]));
    }

    #[test]
    fn connections_evicted_beyond_the_limit() {
        let mut r = Run::new(Limits {
            conversations: 1,
            ..Limits::default()
        });
        r.feed(true, 0, SYN, &[]);
        r.feed(true, 5, ACK, b"held");
        r.feed(false, 0, SYN, &[]);
        assert_eq!(
            r.c.tcp_connections_evicted, 0,
            "one connection, two directions"
        );
        // Another connection pushes it out, with its held bytes.
        let ctx = SegmentContext {
            src: IpAddr::V4(Ipv4Addr::new(9, 9, 9, 9)),
            dst: IpAddr::V4(Ipv4Addr::new(8, 8, 8, 8)),
            frame: 2,
            frame_offset: None,
            time: 0.0,
        };
        r.t.segment(
            &ctx,
            &seg(1, 2, 0, SYN, &[]),
            &mut r.c,
            &mut r.errors,
            &mut |_| {},
        );
        assert_eq!(r.c.tcp_connections_evicted, 1);
        assert_eq!(r.c.tcp_bytes_skipped, 4);
        assert_eq!(r.t.held_bytes(), 0);
    }

    #[test]
    fn options_and_window_scaling_in_the_info() {
        let options = [
            2, 4, 5, 0xb4, 4, 2, 8, 10, 0, 0, 0, 1, 0, 0, 0, 0, 1, 3, 3, 10,
        ];
        let mut s = String::new();
        let ws = options_text(&options, Some(&mut s), None);
        assert_eq!(s, " MSS=1460 SACK_PERM TSval=1 TSecr=0 WS=1024");
        assert_eq!(ws, Some(10));
        // Without the text (no Info column), the window scale all the same.
        assert_eq!(options_text(&options, None, None), Some(10));
        assert_eq!(options_text(&options[..16], None, None), None);
        // Garbage lengths end the walk without panicking.
        options_text(&[2, 0, 3], Some(&mut s), None);
        options_text(&[8, 200, 1], Some(&mut s), None);
        options_text(&[8, 200, 1], None, None);
        assert_eq!(flags_text(SYN | ACK), "SYN, ACK");
        assert_eq!(flags_text(FIN | PSH | ACK), "FIN, PSH, ACK");
    }

    #[test]
    fn sack_blocks_relative_to_the_peer() {
        // NOP, NOP, SACK of two blocks.
        let mut options = vec![1, 1, 5, 18];
        for edge in [5000u32, 5913, 7000, 7100] {
            options.extend_from_slice(&edge.to_be_bytes());
        }
        let mut s = String::new();
        options_text(&options, Some(&mut s), Some(644));
        assert_eq!(s, " SLE=4357 SRE=5270 SLE=6357 SRE=6457");
        s.clear();
        options_text(&options, Some(&mut s), None);
        assert_eq!(s, " SLE=5000 SRE=5913 SLE=7000 SRE=7100");
        // A block cut short is left out.
        s.clear();
        options_text(&[5, 6, 0, 0, 0, 1], Some(&mut s), None);
        assert_eq!(s, "");
    }
}
