//! The display filter's names and types: what a name refers to ([`subject`]: a protocol, the
//! frame's fields, the lower layers' trees of [`layers::FIELDS`], or the messages' trees, whose
//! protocols are [`catalogue::PROTOCOLS`]), the checks made when the filter is parsed where the
//! type is known before reading ([`check_value`], [`field_pair`]), and what a run learns of the
//! values it could not compare ([`Check`], [`Misfit`]), told at the end ([`problems`]).

use std::cell::{Cell, RefCell};
use std::net::{Ipv4Addr, Ipv6Addr};

use super::arith;
use super::date::parse_absolute;
use super::derived::Derive;
use super::lexer::{keyword, Kind, Op, Rel, Token};
use super::parser::{Expr, FieldPair, FrameField, Literal, Lower, Subject, Which};
use super::{FilterError, PROTOCOLS};
use crate::dissect::layers;
use crate::field::catalogue;
use crate::field::Value;
use crate::proto::AppProtocol;

/// What a run learnt about comparing a value (or a field on the right) with the occurrences it
/// met: whether any could be compared at all, else why not. Only written until one could (one
/// flag read per comparison after that), and reported at the end when none could.
#[derive(Clone, Debug, Default)]
pub(super) struct Check {
    pub(super) met: Cell<bool>,
    pub(super) fit: Cell<bool>,
    pub(super) why: Cell<Option<Misfit>>,
    /// The value names of the occurrences met (a few), for a name that matched none.
    pub(super) names: RefCell<Vec<String>>,
}

/// How many value names a report lists.
const NAMES_SHOWN: usize = 6;

impl Check {
    pub(super) fn record(&self, outcome: Result<(), Misfit>, note: Option<&str>) {
        self.met.set(true);
        match outcome {
            Ok(()) => self.fit.set(true),
            Err(m) => {
                if self.why.get().is_none() {
                    self.why.set(Some(m));
                }
                if let (Some(n), Ok(mut names)) = (note, self.names.try_borrow_mut()) {
                    if names.len() <= NAMES_SHOWN && !names.iter().any(|x| x == n) {
                        names.push(n.to_string());
                    }
                }
            }
        }
    }

    /// Why nothing it met could be compared, when that is so.
    pub(super) fn failed(&self) -> Option<Misfit> {
        if self.met.get() && !self.fit.get() {
            self.why.get()
        } else {
            None
        }
    }
}

/// Why a value could not be compared with an occurrence.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Misfit {
    /// The value is not of the kind the occurrence holds.
    Not(Sort),
    /// A number outside what the field's bytes on the wire can hold.
    OutOfRange(i128, i128),
    /// A name that was not the occurrence's value name.
    NoSuchName,
    /// A value name with `>` and the like: poolshark knows a name only on the occurrences that
    /// have it, not the number to order by.
    NameOrdered,
    /// `contains` on numbers or addresses.
    NoContains(Sort),
    /// `matches` on numbers or addresses.
    NoMatches(Sort),
    /// Two fields' occurrences of different kinds.
    Sorts(Sort, Sort),
}

/// The kinds of values, as far as comparing them goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Sort {
    Label,
    Number,
    Float,
    Bool,
    Bytes,
    Mac,
    Text,
    Ipv4,
    Ipv6,
}

impl Sort {
    pub(super) fn of(v: &Value) -> Sort {
        match v {
            Value::None => Sort::Label,
            Value::Uint(_) | Value::Int(_) => Sort::Number,
            Value::Float(_) => Sort::Float,
            Value::Bool(_) => Sort::Bool,
            Value::Bytes(_) => Sort::Bytes,
            Value::Mac(_) => Sort::Mac,
            Value::Str(_) => Sort::Text,
            Value::Ipv4(_) => Sort::Ipv4,
            Value::Ipv6(_) => Sort::Ipv6,
        }
    }

    /// Whether `contains` and `matches` apply to values of this kind.
    pub(super) fn contains_applies(self) -> bool {
        matches!(self, Sort::Bytes | Sort::Mac | Sort::Text)
    }

    pub(super) fn describe(self) -> &'static str {
        match self {
            Sort::Label => "no value of its own (a subtree: test for it alone)",
            Sort::Number => "whole numbers",
            Sort::Float => "numbers",
            Sort::Bool => "booleans (true, false, 1, 0)",
            Sort::Bytes => "bytes (00:1a:2b, or \"text\" for its bytes)",
            Sort::Mac => "hardware addresses (00:1a:2b:3c:4d:5e)",
            Sort::Text => "text",
            Sort::Ipv4 => "IPv4 addresses (a.b.c.d, or a.b.c.d/prefix for a network)",
            Sort::Ipv6 => "IPv6 addresses (with an optional /prefix)",
        }
    }
}

pub(super) fn problems(e: &Expr, out: &mut Vec<String>) {
    match e {
        Expr::Or(a, b) | Expr::And(a, b) => {
            problems(a, out);
            problems(b, out);
        }
        Expr::Not(a) => problems(a, out),
        Expr::Has(s) => derived_problem(s, out),
        Expr::Value(s, _, lit) => {
            derived_problem(s, out);
            if let Some(name) = tree_name(s) {
                literal_problem(name, lit, out);
            }
        }
        Expr::In(s, items) => {
            derived_problem(s, out);
            let Some(name) = tree_name(s) else {
                return;
            };
            for (lo, hi) in items {
                literal_problem(name, lo, out);
                if let Some(hi) = hi {
                    literal_problem(name, hi, out);
                }
            }
        }
        Expr::Fields(p) => {
            derived_problem(&p.left, out);
            derived_problem(&p.right, out);
            let (a, b) = (&p.names.0, &p.names.1);
            let reason = match p.check.failed() {
                None => return,
                Some(Misfit::Sorts(x, y)) => {
                    format!("{a} holds {} and {b} {}", x.describe(), y.describe())
                }
                Some(Misfit::NoContains(s)) => {
                    format!("'contains' does not apply to {}", s.describe())
                }
                Some(_) => format!("{a} or {b} has {}", Sort::Label.describe()),
            };
            out.push(format!(
                "the display filter compares {a} with {b} (byte {}), but no occurrence of one \
                 could be compared with one of the other: {reason}",
                p.at
            ));
        }
    }
}

/// The name a value's problem is told of: a tree field's, or a slice's or function's as written
/// (the frame's own fields are checked before reading).
fn tree_name(s: &Subject) -> Option<&str> {
    match s {
        Subject::Field(name) => Some(name),
        Subject::Layer(name) => Some(name),
        Subject::Derived(d) => Some(&d.text),
        Subject::Calc(c) => Some(&c.text),
        _ => None,
    }
}

/// A slice, function or arithmetic that no occurrence it met could take.
fn derived_problem(s: &Subject, out: &mut Vec<String>) {
    match s {
        Subject::Derived(d) => {
            d.args.iter().for_each(|a| derived_problem(a, out));
            out.extend(d.problem());
        }
        Subject::Calc(c) => {
            c.expr.terms(&mut |t| derived_problem(t, out));
            out.extend(c.problem());
        }
        _ => {}
    }
}

fn literal_problem(name: &str, lit: &Literal, out: &mut Vec<String>) {
    let Some(why) = lit.check.failed() else {
        return;
    };
    let names = lit.check.names.borrow();
    let mut listed = names
        .iter()
        .take(NAMES_SHOWN)
        .map(|n| format!("'{n}'"))
        .collect::<Vec<_>>()
        .join(", ");
    if names.len() > NAMES_SHOWN {
        listed.push_str(", ...");
    }
    let reason = match why {
        Misfit::Not(Sort::Label) => format!("{name} has {}", Sort::Label.describe()),
        Misfit::Not(Sort::Number) | Misfit::NoSuchName if !names.is_empty() => format!(
            "it is neither a number nor one of the value names of {name} seen ({listed}): a \
             misspelt name, or a value that no message here had"
        ),
        Misfit::Not(s) | Misfit::Sorts(s, _) => {
            format!("{name} holds {}, and it is not one", s.describe())
        }
        Misfit::NoSuchName => format!("{name} had no value names, and it is not a number"),
        Misfit::OutOfRange(lo, hi) => {
            format!("it is outside {lo}..{hi}, what {name}'s bytes on the wire can hold")
        }
        Misfit::NameOrdered => format!(
            "it is not a number, and a value name can be tested with ==, !=, ===, !==, ~= and \
             in {{..}} but not ordered (poolshark knows {name}'s names only from the messages); \
             give the number"
        ),
        Misfit::NoContains(s) => {
            format!(
                "'contains' does not apply to {name}, which holds {}",
                s.describe()
            )
        }
        Misfit::NoMatches(s) => {
            format!(
                "'matches' does not apply to {name}, which holds {}",
                s.describe()
            )
        }
    };
    out.push(format!(
        "the display filter's value '{}' (byte {}) could not be compared with {name} in any \
         message read: {reason}",
        lit.text, lit.offset
    ));
}

/// `left op right` with a field (or a slice or function of fields) on the right, at byte
/// `right_at`; what is known of both is checked now.
pub(super) fn field_pair(
    (left, left_text): (Subject, String),
    op: Op,
    op_at: usize,
    (right, right_text): (Subject, String),
    right_at: usize,
) -> Result<Expr, FilterError> {
    let err = |offset: usize, what: String| Err(FilterError { offset, what });
    if right.is_protocol() {
        return err(
            right_at,
            format!("'{right_text}' is a protocol: it can be tested for, not compared with"),
        );
    }
    if let Some(sort) = right
        .sort()
        .filter(|s| op.rel == Rel::Contains && !s.contains_applies())
    {
        return err(
            op_at,
            format!(
                "'contains' does not apply to {right_text}, which holds {}",
                sort.describe()
            ),
        );
    }
    if let (Some(a), Some(b)) = (left.sort(), right.sort()) {
        if a != b {
            return err(
                right_at,
                format!(
                    "{left_text} and {right_text} cannot be compared: one holds {}, the other {}",
                    a.describe(),
                    b.describe()
                ),
            );
        }
    }
    Ok(Expr::Fields(Box::new(FieldPair {
        left,
        op,
        right,
        names: (left_text, right_text),
        at: right_at,
        check: Check::default(),
    })))
}

/// The constant a subject starts with as written, if it starts with one: arithmetic's first
/// value, or the first argument's of `abs`, `max` and `min`.
pub(super) fn leading_const(s: &Subject) -> Option<&Literal> {
    match s {
        Subject::Calc(c) => c.expr.leading_const(),
        Subject::Derived(d) if d.op.numeric() => d.args.first().and_then(leading_const),
        _ => None,
    }
}

/// The largest value of a whole-number subject whose type is known before reading (the frame's
/// numbers, 32 bits, ports, 16, and the lower layers' whole numbers, [`layers::largest`];
/// arithmetic and `abs`, `max`, `min` take their first field's).
pub(super) fn known_max(s: &Subject) -> Option<i128> {
    match s {
        Subject::Frame(FrameField::Number | FrameField::Len | FrameField::CapLen) => {
            Some(u32::MAX.into())
        }
        Subject::Port { .. } => Some(u16::MAX.into()),
        Subject::Layer(name) => layers::largest(name).map(i128::from),
        Subject::Calc(c) => c.expr.first_term().and_then(|(s, _)| known_max(s)),
        Subject::Derived(d) if d.op.numeric() => d.args.first().and_then(known_max),
        _ => None,
    }
}

/// Whether an unquoted word on the right is a field (or protocol) name rather than a value: it
/// starts with a protocol's name, alone or before a dot, as tshark reads it.
pub(super) fn is_field_name(t: &Token) -> bool {
    t.kind == Kind::Word
        && valid_name(&t.text)
        && PROTOCOLS.contains(&t.text.split('.').next().unwrap_or(""))
}

pub(super) fn valid_name(name: &str) -> bool {
    name.starts_with(|c: char| c.is_ascii_alphabetic())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.' || b == b'-')
}

/// A value against a frame-level subject, whose type is known: an error (at the value's byte)
/// when it cannot be one, as tshark gives. Tree fields are checked on the messages instead.
pub(super) fn check_value(s: &Subject, name: &str, lit: &mut Literal) -> Result<(), FilterError> {
    if let Subject::Frame(FrameField::Time | FrameField::TimeUtc) = s {
        // A date and time, read now (in the local time zone unless it names one).
        return match parse_absolute(&lit.text) {
            Ok(ns) => {
                lit.int = Some(ns);
                Ok(())
            }
            Err(why) => Err(FilterError {
                offset: lit.offset,
                what: format!("'{}' for {name}: {why}", lit.text),
            }),
        };
    }
    if let Subject::Calc(c) = s {
        return c.check_literal(lit);
    }
    if let Subject::Layer(_) = s {
        // A whole number beyond the field's type (tshark's "too big for this field"); anything
        // else is checked against the occurrences.
        return arith::fits(lit, s, name);
    }
    let Some(sort) = s.sort() else {
        return Ok(());
    };
    if let Subject::Derived(d) = s {
        let what = match (&d.op, sort) {
            (Derive::Abs | Derive::Max | Derive::Min, _) => {
                return d.args.first().map_or(Ok(()), |a| check_value(a, name, lit))
            }
            (_, Sort::Bytes) if lit.bytes.is_none() => format!(
                "'{}' is not bytes (00:1a:2b, or \"text\" for its bytes) for {name}",
                lit.text
            ),
            (_, Sort::Number) if lit.quoted || lit.int.is_none() => {
                format!("'{}' is not a whole number, which {name} gives", lit.text)
            }
            _ => return Ok(()),
        };
        return Err(FilterError {
            offset: lit.offset,
            what,
        });
    }
    let what = if lit.quoted {
        format!("{name} holds {}, not quoted text", sort.describe())
    } else {
        match s {
            Subject::Frame(
                FrameField::TimeEpoch
                | FrameField::TimeRelative
                | FrameField::TimeDelta
                | FrameField::TimeDeltaDisplayed,
            ) => {
                if plain_decimal(&lit.text) {
                    return Ok(());
                }
                format!(
                    "'{}' is not a number of seconds (like 12 or 0.25) for {name}",
                    lit.text
                )
            }
            Subject::Addr { v6, .. } => {
                let (ok, width, family) = match v6 {
                    false => (lit.v4.is_some(), 32, "IPv4"),
                    true => (lit.v6.is_some(), 128, "IPv6"),
                };
                if ok {
                    return Ok(());
                }
                let addr_ok = |a: &str| match v6 {
                    false => a.parse::<Ipv4Addr>().is_ok(),
                    true => a.parse::<Ipv6Addr>().is_ok(),
                };
                match lit.text.split_once('/') {
                    Some((a, p)) if addr_ok(a) => {
                        format!("the prefix '/{p}' is not a length from 0 to {width}")
                    }
                    _ => format!("'{}' is not an {family} address for {name}", lit.text),
                }
            }
            _ => {
                let max = match s {
                    Subject::Port { .. } => i128::from(u16::MAX),
                    _ => i128::from(u32::MAX),
                };
                match lit.int {
                    Some(i) if (0..=max).contains(&i) => return Ok(()),
                    Some(_) => format!("'{}' is outside {name}'s range 0..{max}", lit.text),
                    None => format!("'{}' is not a whole number, which {name} holds", lit.text),
                }
            }
        }
    };
    Err(FilterError {
        offset: lit.offset,
        what,
    })
}

/// `12`, `-3`, `0.25`, `1.`: what tshark takes for a time in seconds.
pub(super) fn plain_decimal(s: &str) -> bool {
    let s = s.strip_prefix('-').unwrap_or(s);
    let (int, frac) = s.split_once('.').unwrap_or((s, ""));
    !(int.is_empty() && frac.is_empty())
        && int.bytes().all(|b| b.is_ascii_digit())
        && frac.bytes().all(|b| b.is_ascii_digit())
}

/// The listing's name of a transport (`FrameSummary::protocol`) for its filter name.
pub(super) fn transport(proto: &str) -> Option<&'static str> {
    match proto {
        "udp" => Some("UDP"),
        "tcp" => Some("TCP"),
        "sctp" => Some("SCTP"),
        _ => None,
    }
}

/// What a name refers to, or why it cannot be used.
pub(super) fn subject(name: &str) -> Result<Subject, String> {
    if !valid_name(name) {
        return Err(format!("'{name}' is neither a field nor a protocol name"));
    }
    let (proto, rest) = name.split_once('.').unwrap_or((name, ""));
    if !PROTOCOLS.contains(&proto) {
        let lower = name.to_ascii_lowercase();
        if keyword(&lower).is_some() {
            return Err(format!(
                "'{name}' is not a keyword: keywords are lowercase ('{lower}'), as in Wireshark"
            ));
        }
        let known = PROTOCOLS.join(", ");
        let hint = match lower.split('.').next() {
            Some(p) if PROTOCOLS.contains(&p) => format!(": names are lowercase ('{lower}')"),
            _ => String::new(),
        };
        return Err(if rest.is_empty() {
            format!(
                "'{name}' is not a protocol poolshark knows ({known}; names are \
                 case-sensitive){hint}"
            )
        } else {
            format!(
                "'{name}' is neither a field nor a protocol name: '{proto}' is not a protocol \
                 poolshark knows ({known}; names are case-sensitive){hint}"
            )
        });
    }
    if let Some(p) = AppProtocol::ALL.iter().find(|p| p.name() == name) {
        return Ok(Subject::App(p.name()));
    }
    let which = |w: &str| match w {
        "src" | "srcport" => Some(Which::Src),
        "dst" | "dstport" => Some(Which::Dst),
        "addr" | "port" => Some(Which::Either),
        _ => None,
    };
    if name == "frame" {
        return Ok(Subject::Layer("frame"));
    }
    if let Some(&field) = layers::FIELDS.iter().find(|f| **f == name) {
        return Ok(Subject::Layer(field));
    }
    if let Some(t) = transport(proto) {
        return match (rest, which(rest)) {
            ("", _) => Ok(Subject::Lower(Lower::Transport(t))),
            (r, Some(which)) if r.ends_with("port") => Ok(Subject::Port { proto: t, which }),
            _ => Err(not_kept(name)),
        };
    }
    Ok(match (name, proto, which(rest)) {
        // Wireshark's name for DHCPv4 (and BOOTP).
        ("dhcp", ..) => Subject::App(AppProtocol::Dhcpv4.name()),
        ("ip", ..) => Subject::Lower(Lower::Ip),
        ("ipv6", ..) => Subject::Lower(Lower::Ipv6),
        ("arp", ..) => Subject::Lower(Lower::Arp),
        ("poolshark", ..) => {
            return Err("'poolshark' is no protocol: poolshark's own fields are poolshark.*".into())
        }
        ("frame.number", ..) => Subject::Frame(FrameField::Number),
        ("frame.len", ..) => Subject::Frame(FrameField::Len),
        ("frame.cap_len", ..) => Subject::Frame(FrameField::CapLen),
        ("frame.time_epoch", ..) => Subject::Frame(FrameField::TimeEpoch),
        ("frame.time_relative", ..) => Subject::Frame(FrameField::TimeRelative),
        ("frame.time_delta", ..) => Subject::Frame(FrameField::TimeDelta),
        ("frame.time_delta_displayed", ..) => Subject::Frame(FrameField::TimeDeltaDisplayed),
        ("frame.time", ..) => Subject::Frame(FrameField::Time),
        ("frame.time_utc", ..) => Subject::Frame(FrameField::TimeUtc),
        (_, "ip" | "ipv6", Some(which)) if !rest.ends_with("port") => Subject::Addr {
            v6: proto == "ipv6",
            which,
        },
        (_, p, _) if lower_protocol(p) => return Err(not_kept(name)),
        // A name no decoder gives (not in the unit tests, whose made-up trees use made-up
        // names: tests/it/field_catalogue.rs checks this against tshark).
        _ if !cfg!(test) && catalogue::unknown(name) => return Err(catalogue::unknown_text(name)),
        _ => Subject::Field(name.to_string()),
    })
}

/// Whether `p` is one of [`PROTOCOLS`] below the applications: a name of theirs that is not known
/// is refused (the applications' names, [`catalogue::PROTOCOLS`], are looked for in the messages
/// instead).
fn lower_protocol(p: &str) -> bool {
    PROTOCOLS.contains(&p) && !catalogue::PROTOCOLS.contains(&p)
}

/// The lower layers' names kept in the frame's summary, by protocol (the rest are
/// [`layers::FIELDS`]).
const SUMMARY_FIELDS: &[(&str, &[&str])] = &[
    (
        "frame",
        &[
            "frame.number",
            "frame.len",
            "frame.cap_len",
            "frame.time",
            "frame.time_utc",
            "frame.time_epoch",
            "frame.time_relative",
            "frame.time_delta",
            "frame.time_delta_displayed",
        ],
    ),
    ("ip", &["ip.src", "ip.dst", "ip.addr"]),
    ("ipv6", &["ipv6.src", "ipv6.dst", "ipv6.addr"]),
    ("udp", &["udp.port", "udp.srcport", "udp.dstport"]),
    ("tcp", &["tcp.port", "tcp.srcport", "tcp.dstport"]),
    ("sctp", &["sctp.port", "sctp.srcport", "sctp.dstport"]),
];

/// A lower layer's field poolshark does not decode: which of that protocol's it does.
fn not_kept(name: &str) -> String {
    let proto = name.split('.').next().unwrap_or(name);
    let prefix = format!("{proto}.");
    let mut known: Vec<&str> = SUMMARY_FIELDS
        .iter()
        .filter(|(p, _)| *p == proto)
        .flat_map(|(_, f)| f.iter().copied())
        .collect();
    known.extend(layers::FIELDS.iter().filter(|f| f.starts_with(&prefix)));
    format!(
        "'{name}' is not kept by poolshark: of {proto}'s fields, filters and columns see {}",
        known.join(", ")
    )
}
