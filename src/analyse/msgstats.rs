//! Message statistics per protocol and type, like `tshark -z asap,stat`: count, share of the
//! protocol's messages, bytes, first and last seen, rate. A tap on decoded messages, bounded by the
//! number of distinct (protocol, type) pairs, which the decoders keep small (unknown types are
//! counted by number, at most 256 per protocol).

use std::collections::BTreeMap;

use crate::base::Timestamp;
use crate::pipeline::Decoded;
use crate::proto::AppProtocol;

#[derive(Clone, Debug, PartialEq)]
pub struct TypeStats {
    pub count: u64,
    pub bytes: u64,
    pub first: Timestamp,
    pub last: Timestamp,
    /// Messages of this type with a decode error.
    pub malformed: u64,
}

#[derive(Debug, Default)]
pub struct MessageStats {
    by_type: BTreeMap<(AppProtocol, String), TypeStats>,
    /// First and last message of any type: the span rates are taken over.
    span: Option<(Timestamp, Timestamp)>,
}

/// One row of the table.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub protocol: AppProtocol,
    pub message_type: String,
    pub stats: TypeStats,
    /// Share of this protocol's messages.
    pub share: f64,
    /// Messages per second over the span of every decoded message (as tshark's statistics divide
    /// by the capture's duration; a type's own first-to-last span would make two messages 40 µs
    /// apart a rate of 50,000/s). 0 when all messages share one instant.
    pub rate: f64,
}

impl MessageStats {
    pub fn new() -> Self {
        MessageStats::default()
    }

    pub fn record(&mut self, d: &Decoded<'_>) {
        let key = (d.protocol, d.message.type_name());
        let t = d.frame.ts;
        let e = self.by_type.entry(key).or_insert(TypeStats {
            count: 0,
            bytes: 0,
            first: t,
            last: t,
            malformed: 0,
        });
        self.span = Some(match self.span {
            Some((a, b)) => (a.min(t), b.max(t)),
            None => (t, t),
        });
        e.count += 1;
        e.bytes += d.len as u64;
        e.first = e.first.min(t);
        e.last = e.last.max(t);
        if !d.errors.is_empty() {
            e.malformed += 1;
        }
    }

    /// Adds the statistics of the same run's other messages, counted apart (another thread's
    /// protocols).
    pub fn absorb(&mut self, other: MessageStats) {
        for (key, o) in other.by_type {
            match self.by_type.get_mut(&key) {
                None => {
                    self.by_type.insert(key, o);
                }
                Some(e) => {
                    e.count += o.count;
                    e.bytes += o.bytes;
                    e.first = e.first.min(o.first);
                    e.last = e.last.max(o.last);
                    e.malformed += o.malformed;
                }
            }
        }
        self.span = match (self.span, other.span) {
            (Some((a, b)), Some((c, d))) => Some((a.min(c), b.max(d))),
            (a, b) => a.or(b),
        };
    }

    /// The table, by protocol then type name.
    pub fn rows(&self) -> Vec<Row> {
        let mut per_protocol: BTreeMap<AppProtocol, u64> = BTreeMap::new();
        for ((p, _), s) in &self.by_type {
            *per_protocol.entry(*p).or_default() += s.count;
        }
        let span = self.span.map_or(0.0, |(first, last)| last.since(first));
        self.by_type
            .iter()
            .map(|((p, name), s)| {
                let total = per_protocol.get(p).copied().unwrap_or(0).max(1);
                Row {
                    protocol: *p,
                    message_type: name.clone(),
                    stats: s.clone(),
                    share: s.count as f64 / total as f64,
                    rate: if span > 0.0 {
                        s.count as f64 / span
                    } else {
                        0.0
                    },
                }
            })
            .collect()
    }
}
