//! IPv4 and IPv6 fragment reassembly with bounded buffers.
//!
//! Bounds ([`Limits`]): bytes held for all datagrams together (a datagram's buffer counts from
//! its first byte to the highest fragment end seen), incomplete datagrams held at once, and a
//! timeout in capture time. What is pushed out is counted. Overlapping fragments: the bytes
//! received first are kept (deterministic whatever the later copies say), and the overlap is
//! reported.

use std::collections::VecDeque;

use foldhash::{HashMap, HashMapExt};
use std::net::IpAddr;

use super::{Counters, Limits};
use crate::base::Timestamp;
use crate::error::DecodeError;
use crate::wire::ip::Fragment;

/// A datagram's payload cannot extend past this (the 16-bit length and offset fields).
pub const MAX_DATAGRAM_PAYLOAD: usize = 65535;
/// Frames remembered per datagram (for `reassembled_from`); fragments past this still count.
const MAX_FRAMES_LISTED: usize = 1024;

/// What identifies the fragments of one datagram (RFC 791: addresses, protocol, id; RFC 8200:
/// addresses, id; the protocol is then 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FragKey {
    pub src: IpAddr,
    pub dst: IpAddr,
    pub protocol: u8,
    pub id: u32,
    /// The overlay network of a tunnelled packet (its VNI or GRE key), 0 outside one.
    pub tunnel: u32,
}

/// A reassembled datagram payload.
#[derive(Debug, PartialEq, Eq)]
pub struct Reassembled {
    pub data: Vec<u8>,
    /// The protocol of the first fragment (IPv6: the fragment header's next header).
    pub protocol: u8,
    pub frames: Vec<u64>,
}

#[derive(Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Kept, waiting for more fragments.
    Held,
    Complete(Reassembled),
    /// Not kept (see the error).
    Dropped,
}

struct Datagram {
    buf: Vec<u8>,
    /// Byte ranges received, sorted and disjoint.
    have: Vec<(usize, usize)>,
    total: Option<usize>,
    frames: Vec<u64>,
    protocol: Option<u8>,
    /// Distinguishes this datagram from an earlier one with the same key in `arrivals`.
    serial: u64,
}

/// The incomplete datagrams of a capture.
pub struct FragmentTable {
    map: HashMap<FragKey, Datagram>,
    /// Datagrams in order of their first fragment (stale entries are skipped).
    arrivals: VecDeque<(Timestamp, u64, FragKey)>,
    bytes: usize,
    serial: u64,
    limits: Limits,
}

impl FragmentTable {
    pub fn new(limits: Limits) -> Self {
        FragmentTable {
            map: HashMap::new(),
            arrivals: VecDeque::new(),
            bytes: 0,
            serial: 0,
            limits,
        }
    }

    /// Bytes held now.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// Incomplete datagrams held now.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    fn remove(&mut self, key: &FragKey) -> Option<Datagram> {
        let d = self.map.remove(key)?;
        self.bytes = self.bytes.saturating_sub(d.buf.len());
        Some(d)
    }

    /// Drops the oldest incomplete datagram other than `keep`; false when there is none.
    fn evict_oldest(&mut self, keep: Option<&FragKey>, counters: &mut Counters) -> bool {
        let mut skipped = Vec::new();
        let mut done = false;
        while let Some((ts, serial, key)) = self.arrivals.pop_front() {
            let live = self.map.get(&key).is_some_and(|d| d.serial == serial);
            if !live {
                continue;
            }
            if Some(&key) == keep {
                skipped.push((ts, serial, key));
                continue;
            }
            self.remove(&key);
            counters.ip_datagrams_evicted += 1;
            done = true;
            break;
        }
        for s in skipped.into_iter().rev() {
            self.arrivals.push_front(s);
        }
        done
    }

    /// Drops datagrams whose first fragment is older than the timeout.
    pub fn expire(&mut self, now: Timestamp, counters: &mut Counters) {
        let timeout = f64::from(self.limits.ip_fragment_timeout_secs);
        while let Some(&(ts, serial, key)) = self.arrivals.front() {
            let live = self.map.get(&key).is_some_and(|d| d.serial == serial);
            if live && now.since(ts) <= timeout {
                break;
            }
            self.arrivals.pop_front();
            if live {
                self.remove(&key);
                counters.ip_datagrams_evicted += 1;
            }
        }
        // Completed datagrams leave stale entries behind a long-lived one: prune them.
        if self.arrivals.len() > 2 * self.map.len() + 64 {
            let map = &self.map;
            self.arrivals
                .retain(|(_, s, k)| map.get(k).is_some_and(|d| d.serial == *s));
        }
    }

    /// Adds a fragment whose payload is `data`. Problems go to `errors` at `err_offset` (the
    /// fragment's offset in the frame).
    #[allow(clippy::too_many_arguments)]
    pub fn add(
        &mut self,
        key: FragKey,
        protocol: u8,
        frag: Fragment,
        data: &[u8],
        ts: Timestamp,
        frame: u64,
        counters: &mut Counters,
        errors: &mut Vec<DecodeError>,
        err_offset: usize,
    ) -> Outcome {
        counters.ip_fragments += 1;
        self.expire(ts, counters);
        let start = frag.offset;
        let end = start.saturating_add(data.len());
        let drop = |errors: &mut Vec<DecodeError>, counters: &mut Counters, what: String| {
            counters.ip_fragments_dropped += 1;
            errors.push(DecodeError::new(err_offset, what));
            Outcome::Dropped
        };
        if end > MAX_DATAGRAM_PAYLOAD {
            return drop(
                errors,
                counters,
                format!("IP fragment ends at byte {end} of its datagram, beyond the {MAX_DATAGRAM_PAYLOAD}-byte limit"),
            );
        }
        if data.is_empty() && frag.more {
            return drop(errors, counters, "empty IP fragment".into());
        }
        if end > self.limits.ip_fragment_bytes {
            return drop(
                errors,
                counters,
                format!(
                    "IP fragment ends at byte {end}, beyond the {}-byte reassembly bound",
                    self.limits.ip_fragment_bytes
                ),
            );
        }
        if !self.map.contains_key(&key) {
            while self.map.len() >= self.limits.ip_fragment_datagrams.max(1) {
                if !self.evict_oldest(None, counters) {
                    break;
                }
            }
            self.serial += 1;
            self.map.insert(
                key,
                Datagram {
                    buf: Vec::new(),
                    have: Vec::new(),
                    total: None,
                    frames: Vec::new(),
                    protocol: None,
                    serial: self.serial,
                },
            );
            self.arrivals.push_back((ts, self.serial, key));
        }
        // Room for the buffer to grow to `end`.
        let held = self.map.get(&key).map_or(0, |d| d.buf.len());
        let growth = end.saturating_sub(held);
        while self.bytes + growth > self.limits.ip_fragment_bytes {
            if !self.evict_oldest(Some(&key), counters) {
                break;
            }
        }
        let Some(d) = self.map.get_mut(&key) else {
            return Outcome::Dropped;
        };
        let conflict = match (d.total, frag.more) {
            (Some(t), false) if t != end => Some(format!(
                "last IP fragment ends at byte {end}, but an earlier one ended the datagram at {t}"
            )),
            (Some(t), true) if end > t => Some(format!(
                "IP fragment ends at byte {end}, past the datagram's end at {t}"
            )),
            (None, false) if d.have.last().is_some_and(|&(_, e)| e > end) => Some(format!(
                "last IP fragment ends the datagram at {end}, but bytes up to {} were received",
                d.have.last().map_or(0, |r| r.1)
            )),
            _ => None,
        };
        if let Some(c) = conflict {
            return drop(errors, counters, c);
        }
        if !frag.more {
            d.total = Some(end);
        }
        if d.buf.len() < end {
            self.bytes += end - d.buf.len();
            d.buf.resize(end, 0);
        }
        // First copy wins: fill only the holes of [start, end).
        let mut overlap = false;
        let mut pos = start;
        for &(a, b) in &d.have {
            if b <= pos || a >= end {
                continue;
            }
            if a > pos {
                d.buf[pos..a].copy_from_slice(&data[pos - start..a - start]);
            }
            overlap = true;
            pos = pos.max(b);
            if pos >= end {
                break;
            }
        }
        if pos < end {
            d.buf[pos..end].copy_from_slice(&data[pos - start..]);
        }
        if overlap {
            counters.ip_fragment_overlaps += 1;
            errors.push(DecodeError::new(
                err_offset,
                format!("IP fragment bytes {start}..{end} overlap bytes already received; the first copy is kept"),
            ));
        }
        insert_range(&mut d.have, (start, end));
        if start == 0 {
            d.protocol = Some(protocol);
        }
        if d.frames.len() < MAX_FRAMES_LISTED && d.frames.last() != Some(&frame) {
            d.frames.push(frame);
        }
        let complete = d.total.is_some_and(|t| d.have.as_slice() == [(0, t)]);
        if !complete {
            return Outcome::Held;
        }
        let Some(mut d) = self.remove(&key) else {
            return Outcome::Dropped;
        };
        counters.ip_datagrams_reassembled += 1;
        d.buf.truncate(d.total.unwrap_or(0));
        Outcome::Complete(Reassembled {
            data: d.buf,
            protocol: d.protocol.unwrap_or(protocol),
            frames: d.frames,
        })
    }
}

/// Adds `r` to sorted disjoint ranges, merging what touches.
fn insert_range(ranges: &mut Vec<(usize, usize)>, r: (usize, usize)) {
    let (mut a, mut b) = r;
    let mut out = Vec::with_capacity(ranges.len() + 1);
    let mut placed = false;
    for &(x, y) in ranges.iter() {
        if y < a {
            out.push((x, y));
        } else if x > b {
            if !placed {
                out.push((a, b));
                placed = true;
            }
            out.push((x, y));
        } else {
            a = a.min(x);
            b = b.max(y);
        }
    }
    if !placed {
        out.push((a, b));
    }
    *ranges = out;
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::Ipv4Addr;

    fn key(id: u32) -> FragKey {
        FragKey {
            src: IpAddr::V4(Ipv4Addr::new(1, 1, 1, 1)),
            dst: IpAddr::V4(Ipv4Addr::new(2, 2, 2, 2)),
            protocol: 17,
            id,
            tunnel: 0,
        }
    }

    fn frag(offset: usize, more: bool) -> Fragment {
        Fragment {
            id: 0,
            offset,
            more,
        }
    }

    fn add(
        t: &mut FragmentTable,
        k: FragKey,
        off: usize,
        more: bool,
        data: &[u8],
        secs: i64,
        c: &mut Counters,
    ) -> (Outcome, Vec<DecodeError>) {
        let mut e = Vec::new();
        let o = t.add(
            k,
            17,
            frag(off, more),
            data,
            Timestamp::new(secs, 0),
            secs as u64,
            c,
            &mut e,
            34,
        );
        (o, e)
    }

    #[test]
    fn out_of_order_and_overlapping_first_copy_wins() {
        let mut t = FragmentTable::new(Limits::default());
        let mut c = Counters::default();
        assert_eq!(
            add(&mut t, key(1), 16, false, &[3; 8], 1, &mut c).0,
            Outcome::Held
        );
        assert_eq!(
            add(&mut t, key(1), 0, true, &[1; 8], 2, &mut c).0,
            Outcome::Held
        );
        // Overlaps 8..16 (new) and 16..24 (already there, kept as 3s).
        let (o, e) = add(&mut t, key(1), 8, true, &[2; 16], 3, &mut c);
        let Outcome::Complete(r) = o else {
            panic!("{o:?}")
        };
        let mut want = vec![1; 8];
        want.extend([2; 8]);
        want.extend([3; 8]);
        assert_eq!(r.data, want);
        assert_eq!(r.frames, vec![1, 2, 3]);
        assert_eq!(e.len(), 1);
        assert_eq!(e[0].offset, 34);
        assert_eq!(c.ip_fragment_overlaps, 1);
        assert!(t.is_empty());
        assert_eq!(t.bytes(), 0);
    }

    #[test]
    fn bounds_timeouts_and_limits() {
        let limits = Limits {
            ip_fragment_bytes: 64,
            ip_fragment_datagrams: 2,
            ip_fragment_timeout_secs: 10,
            ..Limits::default()
        };
        let mut t = FragmentTable::new(limits);
        let mut c = Counters::default();
        add(&mut t, key(1), 0, true, &[0; 8], 0, &mut c);
        add(&mut t, key(2), 0, true, &[0; 8], 1, &mut c);
        // A third datagram pushes out the first.
        add(&mut t, key(3), 0, true, &[0; 8], 2, &mut c);
        assert_eq!((t.len(), c.ip_datagrams_evicted), (2, 1));
        // Growing past 64 bytes pushes out the oldest other datagram.
        add(&mut t, key(3), 56, true, &[0; 8], 3, &mut c);
        assert_eq!((t.len(), c.ip_datagrams_evicted), (1, 2));
        assert!(t.bytes() <= 64);
        // Past the bound on its own: dropped.
        let (o, e) = add(&mut t, key(4), 64, false, &[0; 8], 4, &mut c);
        assert_eq!(o, Outcome::Dropped);
        assert_eq!(e.len(), 1);
        // Timeout: 11 s after its first fragment datagram 3 is gone.
        add(&mut t, key(5), 0, true, &[0; 8], 14, &mut c);
        assert_eq!(t.len(), 1);
        assert_eq!(c.ip_datagrams_evicted, 3);
        // Beyond 64 KiB.
        let (o, _) = add(&mut t, key(6), 65530, false, &[0; 8], 14, &mut c);
        assert_eq!(o, Outcome::Dropped);
        // Inconsistent ends.
        let mut t = FragmentTable::new(Limits::default());
        add(&mut t, key(7), 8, false, &[0; 8], 0, &mut c);
        let (o, e) = add(&mut t, key(7), 16, false, &[0; 8], 0, &mut c);
        assert_eq!(o, Outcome::Dropped);
        assert!(e[0].what.contains("earlier"));
    }

    #[test]
    fn ranges_merge() {
        let mut r = vec![(0, 8), (16, 24)];
        insert_range(&mut r, (8, 16));
        assert_eq!(r, vec![(0, 24)]);
        insert_range(&mut r, (40, 48));
        insert_range(&mut r, (30, 32));
        assert_eq!(r, vec![(0, 24), (30, 32), (40, 48)]);
    }
}
