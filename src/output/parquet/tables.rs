//! The tables `export --parquet` writes, their columns (README's "Export to Parquet" section says
//! what each means) and how a row of each is made.

use std::net::IpAddr;

use super::table::{col, Col, Encoding, Kind, Table};
use crate::analyse::finding::{Finding, Severity, Subject};
use crate::analyse::observe::{DhcpTransaction, Resolution};
use crate::analyse::rserpool::PoolHandle;
use crate::analyse::timeline::Timeline;
use crate::base::Timestamp;
use crate::pipeline::Decoded;
use crate::proto::Message;

pub const MESSAGES: &[Col] = &[
    col("file", Kind::Label, false),
    col("frame", Kind::U64, false),
    col("time", Kind::Time, false),
    col("src", Kind::Label, false).without_statistics(),
    col("dst", Kind::Label, false).without_statistics(),
    col("src_port", Kind::U32, false)
        .encoded(Encoding::Delta)
        .compressed(),
    col("dst_port", Kind::U32, false)
        .encoded(Encoding::Delta)
        .compressed(),
    col("protocol", Kind::Label, false),
    col("message_type", Kind::Label, false).without_statistics(),
    col("transaction_id", Kind::U32, true),
    col("client_key", Kind::Text, true).encoded(Encoding::Dictionary),
    col("server_id", Kind::Label, true).without_statistics(),
    col("pool_handle", Kind::Label, true).without_statistics(),
    col("pe_id", Kind::U32, true),
    col("decode_errors", Kind::U32, false).encoded(Encoding::Delta),
];

pub const DHCP_TRANSACTIONS: &[Col] = &[
    col("file", Kind::Label, false),
    col("pair", Kind::Label, false),
    col("family", Kind::Label, false),
    col("request_frame", Kind::U64, false),
    col("time", Kind::Time, false),
    col("message_type", Kind::U8, true),
    col("xid", Kind::U32, false),
    col("client_key", Kind::Text, false).encoded(Encoding::Dictionary),
    col("bucket", Kind::U8, false),
    col("owner", Kind::Label, false),
    col("other", Kind::Label, false),
    col("expected_server", Kind::Label, false),
    col("answered_by", Kind::Label, true),
    col("owner_answer_frame", Kind::U64, true),
    col("other_answer_frame", Kind::U64, true),
    col("episode", Kind::Label, false),
];

pub const RESOLUTIONS: &[Col] = &[
    col("file", Kind::Label, false),
    col("frame", Kind::U64, false),
    col("time", Kind::Time, false),
    col("registrar", Kind::Label, false),
    col("pool", Kind::Label, false),
    col("policy", Kind::Label, false),
    col("profile", Kind::Label, false),
    col("items", Kind::U32, true),
    col("answer", Kind::Text, false).encoded(Encoding::Dictionary),
    col("first_pe", Kind::Label, true),
    col("reference", Kind::Text, true).encoded(Encoding::Dictionary),
    col("matches_reference", Kind::Bool, true),
];

pub const FINDINGS: &[Col] = &[
    col("file", Kind::Label, false),
    col("rule", Kind::Label, false),
    col("severity", Kind::Label, false),
    col("frame", Kind::U64, true),
    col("time", Kind::Time, true),
    col("subject_kind", Kind::Label, false),
    col("subject", Kind::Label, false),
    col("count", Kind::U64, false),
    col("message", Kind::Text, true),
];

pub const WINDOWS: &[Col] = &[
    col("file", Kind::Label, false),
    col("subject_kind", Kind::Label, false),
    col("subject", Kind::Label, false),
    col("series", Kind::Label, false),
    col("start", Kind::Time, false),
    col("seconds", Kind::F64, false),
    col("answers", Kind::U64, false),
    col("findings", Kind::U64, false),
    col("member", Kind::Label, true),
    col("first", Kind::U64, true),
    col("expected_first", Kind::F64, true),
    col("any", Kind::U64, true),
    col("expected_any", Kind::F64, true),
];

/// The `messages` table of a capture, a row per decoded message: made by column place rather
/// than name, the repeating text (addresses) formatted once.
pub struct Messages {
    table: Table,
    file: String,
    /// Addresses as text, as `src`, `dst` and `server_id` write them: a direct-mapped cache (an
    /// address found at its slot is not formatted again; one that is not takes the slot).
    addrs: Vec<Option<(IpAddr, Box<str>)>>,
}

/// Slots of the address cache (a power of two).
const ADDRESS_SLOTS: usize = 1024;

/// An address's slot in the cache.
fn slot(a: &IpAddr) -> usize {
    let x = match a {
        IpAddr::V4(v) => u64::from(u32::from(*v)),
        IpAddr::V6(v) => {
            let n = u128::from(*v);
            (n as u64) ^ ((n >> 64) as u64)
        }
    };
    // Fibonacci hashing: the top bits of the product.
    (x.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (64 - ADDRESS_SLOTS.trailing_zeros())) as usize
}

// The places of `MESSAGES`' columns.
const M_FILE: usize = 0;
const M_FRAME: usize = 1;
const M_TIME: usize = 2;
const M_SRC: usize = 3;
const M_DST: usize = 4;
const M_SRC_PORT: usize = 5;
const M_DST_PORT: usize = 6;
const M_PROTOCOL: usize = 7;
const M_TYPE: usize = 8;
const M_XID: usize = 9;
const M_CLIENT_KEY: usize = 10;
const M_SERVER_ID: usize = 11;
const M_POOL_HANDLE: usize = 12;
const M_PE_ID: usize = 13;
const M_ERRORS: usize = 14;

impl Messages {
    pub fn create(path: &std::path::Path, file: &str) -> std::io::Result<Messages> {
        Ok(Messages {
            table: Table::create(path, MESSAGES)?,
            file: file.to_string(),
            addrs: vec![None; ADDRESS_SLOTS],
        })
    }

    /// Another front of the same table, for messages decoded on another thread
    /// ([`Table::another`]).
    pub fn another(&self) -> Messages {
        Messages {
            table: self.table.another(),
            file: self.file.clone(),
            addrs: vec![None; ADDRESS_SLOTS],
        }
    }

    fn addr(&mut self, i: usize, a: IpAddr) {
        let Some(entry) = self.addrs.get_mut(slot(&a)) else {
            return self.table.display_at(i, Some(&a));
        };
        let text = match entry {
            Some((cached, text)) if *cached == a => text,
            _ => &mut entry.insert((a, a.to_string().into_boxed_str())).1,
        };
        self.table.str_at(i, Some(text));
    }

    /// A row of `messages`.
    pub fn row(&mut self, d: &Decoded<'_>) -> std::io::Result<()> {
        self.table.str_at(M_FILE, Some(&self.file));
        self.table.u64_at(M_FRAME, Some(d.frame.number));
        self.table.time_at(M_TIME, Some(d.frame.ts));
        self.addr(M_SRC, d.payload.src);
        self.addr(M_DST, d.payload.dst);
        self.table
            .u32_at(M_SRC_PORT, Some(u32::from(d.payload.src_port)));
        self.table
            .u32_at(M_DST_PORT, Some(u32::from(d.payload.dst_port)));
        self.table.str_at(M_PROTOCOL, Some(d.protocol.name()));
        self.table.str_at(M_TYPE, Some(&d.message.type_label()));
        let t = &mut self.table;
        match d.message {
            Message::Dhcpv4(m) => {
                t.u32_at(M_XID, Some(m.xid()));
                match m.client_identifier() {
                    Some(id) => t.hex_at(M_CLIENT_KEY, Some(&id)),
                    None => t.hex_at(M_CLIENT_KEY, Some(m.chaddr().unwrap_or_default())),
                }
                match m.server_identifier() {
                    Some(a) => self.addr(M_SERVER_ID, IpAddr::V4(a)),
                    None => self.table.str_at(M_SERVER_ID, None),
                }
                self.table.str_at(M_POOL_HANDLE, None);
                self.table.u32_at(M_PE_ID, None);
            }
            Message::Dhcpv6(m) => {
                t.u32_at(M_XID, m.xid());
                t.hex_at(M_CLIENT_KEY, m.client_id().map(|d| d.bytes()));
                t.hex_at(M_SERVER_ID, m.server_id().map(|d| d.bytes()));
                t.str_at(M_POOL_HANDLE, None);
                t.u32_at(M_PE_ID, None);
            }
            Message::Failover(m) => {
                t.u32_at(M_XID, Some(m.xid));
                t.str_at(M_CLIENT_KEY, None);
                t.str_at(M_SERVER_ID, None);
                t.str_at(M_POOL_HANDLE, None);
                t.u32_at(M_PE_ID, None);
            }
            Message::Rserpool(m) => {
                t.u32_at(M_XID, None);
                t.str_at(M_CLIENT_KEY, None);
                t.str_at(M_SERVER_ID, None);
                let handle = m.pool_handle().map(PoolHandle::new);
                t.display_at(
                    M_POOL_HANDLE,
                    handle.as_ref().map(|h| h as &dyn std::fmt::Display),
                );
                t.u32_at(M_PE_ID, m.pe_identifiers().next());
            }
        }
        self.table.u32_at(
            M_ERRORS,
            Some(u32::try_from(d.errors.len()).unwrap_or(u32::MAX)),
        );
        self.table.end_row()
    }

    /// Writes what is left and the footer: the rows written.
    pub fn close(self) -> std::io::Result<u64> {
        self.table.close()
    }
}

/// A row of `dhcp_transactions`.
pub fn dhcp_transaction(t: &mut Table, file: &str, x: &DhcpTransaction<'_>) -> std::io::Result<()> {
    t.str("file", Some(file));
    t.str("pair", Some(x.pair));
    t.str("family", Some(x.family));
    t.u64("request_frame", Some(x.request_frame));
    t.time("time", Some(x.time));
    t.u8("message_type", x.message_type);
    t.u32("xid", Some(x.xid));
    t.hex("client_key", Some(x.key));
    t.u8("bucket", Some(x.bucket));
    t.str("owner", Some(x.owner));
    t.str("other", Some(x.other));
    t.str("expected_server", Some(x.expected));
    // The server credited with the answer: the owner when it answered, else the other.
    let answered_by = match (x.owner_answer, x.other_answer) {
        (Some(_), _) => Some(x.owner),
        (None, Some(_)) => Some(x.other),
        (None, None) => None,
    };
    t.str("answered_by", answered_by);
    t.u64("owner_answer_frame", x.owner_answer);
    t.u64("other_answer_frame", x.other_answer);
    t.str("episode", Some(x.episode));
    t.end_row()
}

/// PE identifiers as the reports write them (`0x` and eight hex digits), a space between.
fn push_pe_list(s: &mut String, ids: &[u32]) {
    for (i, id) in ids.iter().enumerate() {
        if i > 0 {
            s.push(' ');
        }
        s.push_str("0x");
        crate::field::push_hex(s, &id.to_be_bytes(), None);
    }
}

/// A row of `rserpool_resolutions`.
pub fn resolution(t: &mut Table, file: &str, r: &Resolution<'_>) -> std::io::Result<()> {
    t.str("file", Some(file));
    t.u64("frame", Some(r.frame));
    t.time("time", Some(r.time));
    t.str("registrar", Some(r.registrar));
    t.str("pool", Some(r.pool));
    t.str("policy", Some(r.policy));
    t.str("profile", Some(r.profile));
    t.u32("items", r.items);
    t.text_with("answer", Some(|s: &mut String| push_pe_list(s, r.answer)));
    let first = r.answer.get(..1);
    t.text_with(
        "first_pe",
        first.map(|f| |s: &mut String| push_pe_list(s, f)),
    );
    t.text_with(
        "reference",
        r.reference.map(|x| |s: &mut String| push_pe_list(s, x)),
    );
    t.bool("matches_reference", r.reference.map(|x| x == r.answer));
    t.end_row()
}

/// A row of `findings`: one finding, or (`count` > 1, no frame) findings counted only.
#[allow(clippy::too_many_arguments)]
fn finding_row(
    t: &mut Table,
    file: &str,
    rule: &str,
    severity: Severity,
    subject: &Subject,
    frame: Option<u64>,
    time: Option<Timestamp>,
    count: u64,
    message: Option<&str>,
) -> std::io::Result<()> {
    let (kind, name) = subject.kind_and_name();
    t.str("file", Some(file));
    t.str("rule", Some(rule));
    t.str("severity", Some(severity.name()));
    t.u64("frame", frame);
    t.time("time", time);
    t.str("subject_kind", Some(kind));
    t.str("subject", Some(name));
    t.u64("count", Some(count));
    t.str("message", message);
    t.end_row()
}

pub fn finding(t: &mut Table, file: &str, f: &Finding) -> std::io::Result<()> {
    finding_row(
        t,
        file,
        f.rule,
        f.severity,
        &f.subject,
        Some(f.frame),
        f.time,
        1,
        Some(&f.message),
    )
}

pub fn unlisted(
    t: &mut Table,
    file: &str,
    (rule, severity, subject): (&str, Severity, &Subject),
    time: Timestamp,
    n: u64,
) -> std::io::Result<()> {
    finding_row(t, file, rule, severity, subject, None, Some(time), n, None)
}

/// The rows of `windows`: per series and window, one row per member (a window without members,
/// one row with no member).
pub fn windows(t: &mut Table, file: &str, timeline: &Timeline) -> std::io::Result<()> {
    let Some(origin) = timeline.origin() else {
        return Ok(());
    };
    let origin_ns = super::table::nanos(origin);
    for (subject, series) in timeline.series() {
        let (kind, name) = subject.kind_and_name();
        let seconds = series.interval_ns as f64 / 1e9;
        for w in &series.windows {
            let start_ns = origin_ns.saturating_add(
                i64::try_from(w.index.saturating_mul(series.interval_ns)).unwrap_or(i64::MAX),
            );
            let start = Timestamp {
                secs: start_ns.div_euclid(1_000_000_000),
                nanos: start_ns.rem_euclid(1_000_000_000) as u32,
            };
            let mut row = |member: Option<(&str, &crate::analyse::timeline::MemberCounts)>| {
                t.str("file", Some(file));
                t.str("subject_kind", Some(kind));
                t.str("subject", Some(name));
                t.str("series", Some(&series.kind));
                t.time("start", Some(start));
                t.f64("seconds", Some(seconds));
                t.u64("answers", Some(w.answers));
                t.u64("findings", Some(w.findings));
                if let Some((m, c)) = member {
                    t.str("member", Some(m));
                    t.u64("first", Some(c.first));
                    t.f64("expected_first", Some(c.expected_first));
                    t.u64("any", Some(c.any));
                    t.f64("expected_any", Some(c.expected_any));
                }
                t.end_row()
            };
            if w.members.is_empty() {
                row(None)?;
            }
            for (m, c) in &w.members {
                row(Some((m, c)))?;
            }
        }
    }
    Ok(())
}
