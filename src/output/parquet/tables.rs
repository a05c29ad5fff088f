//! The tables `export --parquet` writes, their columns (README's "Export to Parquet" section says
//! what each means) and how a row of each is made.

use super::table::{col, Col, Kind, Table};
use crate::analyse::finding::{Finding, Severity, Subject};
use crate::analyse::observe::{DhcpTransaction, Resolution};
use crate::analyse::rserpool::PoolHandle;
use crate::analyse::timeline::Timeline;
use crate::field::hex;
use crate::pipeline::Decoded;
use crate::proto::Message;
use crate::source::Timestamp;

pub const MESSAGES: &[Col] = &[
    col("file", Kind::Label, false),
    col("frame", Kind::U64, false),
    col("time", Kind::Time, false),
    col("src", Kind::Label, false),
    col("dst", Kind::Label, false),
    col("src_port", Kind::U32, false),
    col("dst_port", Kind::U32, false),
    col("protocol", Kind::Label, false),
    col("message_type", Kind::Label, false),
    col("transaction_id", Kind::U32, true),
    col("client_key", Kind::Text, true),
    col("server_id", Kind::Label, true),
    col("pool_handle", Kind::Label, true),
    col("pe_id", Kind::U32, true),
    col("decode_errors", Kind::U32, false),
];

pub const DHCP_TRANSACTIONS: &[Col] = &[
    col("file", Kind::Label, false),
    col("pair", Kind::Label, false),
    col("family", Kind::Label, false),
    col("request_frame", Kind::U64, false),
    col("time", Kind::Time, false),
    col("message_type", Kind::U8, true),
    col("xid", Kind::U32, false),
    col("client_key", Kind::Text, false),
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
    col("answer", Kind::Text, false),
    col("first_pe", Kind::Label, true),
    col("reference", Kind::Text, true),
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

/// A row of `messages`.
pub fn message(t: &mut Table, file: &str, d: &Decoded<'_>) -> std::io::Result<()> {
    t.str("file", Some(file));
    t.u64("frame", Some(d.frame.number));
    t.time("time", Some(d.frame.ts));
    t.display("src", Some(&d.payload.src));
    t.display("dst", Some(&d.payload.dst));
    t.u32("src_port", Some(u32::from(d.payload.src_port)));
    t.u32("dst_port", Some(u32::from(d.payload.dst_port)));
    t.str("protocol", Some(d.protocol.name()));
    t.str("message_type", Some(&d.message.type_name()));
    match d.message {
        Message::Dhcpv4(m) => {
            t.u32("transaction_id", Some(m.xid()));
            let key = match m.client_identifier() {
                Some(id) => hex(&id),
                None => m.chaddr().map(hex).unwrap_or_default(),
            };
            t.str("client_key", Some(&key));
            let server = m.server_identifier();
            t.display(
                "server_id",
                server.as_ref().map(|a| a as &dyn std::fmt::Display),
            );
        }
        Message::Dhcpv6(m) => {
            t.u32("transaction_id", m.xid());
            t.str(
                "client_key",
                m.client_id().map(|d| hex(d.bytes())).as_deref(),
            );
            t.str(
                "server_id",
                m.server_id().map(|d| hex(d.bytes())).as_deref(),
            );
        }
        Message::Failover(m) => t.u32("transaction_id", Some(m.xid)),
        Message::Rserpool(m) => {
            let handle = m.pool_handle().map(PoolHandle::new);
            t.display(
                "pool_handle",
                handle.as_ref().map(|h| h as &dyn std::fmt::Display),
            );
            t.u32("pe_id", m.pe_identifiers().next());
        }
    }
    t.u32(
        "decode_errors",
        Some(u32::try_from(d.errors.len()).unwrap_or(u32::MAX)),
    );
    t.end_row()
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
    t.str("client_key", Some(&hex(x.key)));
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

/// A PE identifier as the reports write it.
fn pe_hex(id: u32) -> String {
    format!("0x{id:08x}")
}

fn pe_list(ids: &[u32]) -> String {
    ids.iter().map(|i| pe_hex(*i)).collect::<Vec<_>>().join(" ")
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
    t.str("answer", Some(&pe_list(r.answer)));
    t.str("first_pe", r.answer.first().map(|p| pe_hex(*p)).as_deref());
    t.str("reference", r.reference.map(pe_list).as_deref());
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
