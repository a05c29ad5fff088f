//! Display filters (`read -Y`, `capture -Y`): the part of Wireshark 4.0's display-filter language a
//! frame of poolshark's can answer.
//!
//! ```text
//! expr   := or
//! or     := and { ("||" | "or") and }
//! and    := unary { ("&&" | "and") unary }
//! unary  := ("!" | "not") unary | "(" expr ")" | test
//! test   := term [ op (VALUE | term) | ["not"] "in" "{" item { "," item } "}" ]
//! term   := NAME [ "[" range { "," range } "]" ] | FUNC "(" arg { "," arg } ")"
//! arg    := NAME | arithmetic | VALUE      (arithmetic, values, abs/max/min: abs, max, min only)
//! range  := [INT] ":" [COUNT] | INT "-" INT | INT        (INT < 0 counts from the end)
//! FUNC   := "len" | "count" | "string" | "upper" | "lower" | "abs" | "max" | "min"
//! op     := "==" | "eq" | "any_eq" | "!=" | "ne" | "all_ne" | "===" | "all_eq"
//!         | "!==" | "~=" | "any_ne" | ">" | "gt" | "<" | "lt" | ">=" | "ge" | "<=" | "le"
//!         | "contains" | "matches" | "~"     (matches: a quoted regular expression)
//! item   := VALUE | VALUE ".." VALUE
//! ```
//!
//! Keywords and names are case-sensitive, as in Wireshark. A NAME starts with a protocol poolshark
//! knows ([`PROTOCOLS`]; anything else is an error, as tshark refuses names it does not know): a
//! protocol (`asap`, `enrp`, `dhcp`, `dhcpv6`, `dhcpfo`; the frame's `ip`, `ipv6`, `arp`, `udp`,
//! `tcp`, `sctp`), a field of the messages' trees (the names of `read -V` and of the JSON records,
//! e.g. `asap.message_type`, `dhcpv6.xid`), a field of the frame (`frame.number`, `frame.len`,
//! `frame.cap_len`, `frame.time_epoch`, `frame.time_relative`, `frame.time_delta`,
//! `frame.time_delta_displayed` in seconds; `frame.time` and `frame.time_utc` compared with a date
//! and time, `frame.time > "2026-12-02 14:21:51"`, local unless it names a zone: the forms of
//! [`super::time::parse_absolute`]) or of its addresses and ports (`ip.src`, `ip.dst`, `ip.addr`,
//! `ipv6.*` likewise, `udp.port`, `udp.srcport`, `udp.dstport`, `tcp.*` and `sctp.*` likewise: the
//! layer the listing shows, the deepest decoded; in a tunnelled frame the outer IP layers and the
//! UDP ports of VXLAN or Geneve come first, outermost first, as tshark lists them:
//! [`FrameSummary::outer`]), or a field of the lower layers' trees ([`layers::FIELDS`]:
//! `frame.protocols`, `eth.src`, `vlan.id`, `ip.ttl`, `tcp.flags.syn`,
//! `sctp.data_payload_proto_id`, `gre.key`, `vxlan.vni`, `mpls.label`, ..., and the protocols
//! `frame`, `eth`, `vlan`, `gre`, `vxlan`, ...), which the caller decodes from the frame's bytes
//! into [`FrameView::layers`] only when [`Filter::needs_layers`] or [`Column::needs_layers`] says
//! so; they are looked up as the messages' fields are, outermost layer first. A VALUE is a number
//! (decimal or `0x` hex), an address (`192.0.2.0/24` is the subnet), bytes (`00:1a:2b`, `00-1a-2b`,
//! `001a2b`, or quoted text for its own bytes, with Wireshark's escapes, or `r"..."` without),
//! `true` or `false`, text (in double quotes when it has spaces), or the name of a numeric field's
//! value (`dhcpv6.msgtype == Solicit`). An unquoted right-hand side that starts with a protocol's
//! name (`udp.srcport`) is a field, as in tshark: every pair of occurrences is compared. Slices and
//! functions: see [`derived`].
//!
//! The operators mean what they mean in tshark 4.0: `==`, `>`, `<`, `>=`, `<=`, `contains` and
//! `in` hold when any occurrence of the field satisfies them; `!=` (`ne`, `all_ne`) when the field
//! is there and no occurrence equals the value; `===` (`all_eq`) when it is there and every
//! occurrence does; `!==` (`~=`, `any_ne`) when some occurrence differs. So `a != b` is not
//! `!(a == b)`: a frame without `a` passes the second only. `a not in {..}` is `!(a in {..})`. An
//! address compares on the bits of the shorter prefix (`ip.addr > 10.0.0.0/8` orders the networks).
//!
//! What is known before reading (the frame's numbers, addresses and ports) is checked when the
//! filter is parsed; the tree fields' types are known only from the messages, so a value that no
//! occurrence could be compared with (not a number, no such value name, out of the field's range)
//! is reported at the end ([`Filter::problems`]).

use std::cell::{Cell, RefCell};
use std::cmp::Ordering;
use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

mod arith;
mod derived;

use arith::{ArithOp, Calc, Operand};
use derived::{natural_len, Derive, Derived};

use super::{quoted, Record};
use crate::base::Timestamp;
use crate::dissect::{layers, Address, FrameSummary};
use crate::field::catalogue;
use crate::field::{format_float_g15, Base, Field, Value};
use crate::proto::AppProtocol;

/// What a name may start with: poolshark's protocols (`dhcp` is Wireshark's name for DHCPv4), the
/// frame and its lower layers, and `poolshark` for the fields Wireshark lacks.
pub const PROTOCOLS: [&str; 27] = [
    "asap",
    "enrp",
    "dhcp",
    "dhcpv4",
    "dhcpv6",
    "dhcpfo",
    "frame",
    "eth",
    "cfp",
    "vlan",
    "ieee8021ad",
    "sll",
    "ppp",
    "arp",
    "ip",
    "ipv6",
    "icmp",
    "icmpv6",
    "udp",
    "tcp",
    "sctp",
    "gre",
    "vxlan",
    "geneve",
    "teredo",
    "mpls",
    "poolshark",
];

/// A filter that does not parse: what is wrong and at which byte of the expression.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FilterError {
    pub offset: usize,
    pub what: String,
}

impl fmt::Display for FilterError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "at byte {}: {}", self.offset, self.what)
    }
}

impl std::error::Error for FilterError {}

/// How one occurrence is compared with a value (or with another field's occurrence).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Rel {
    Eq,
    Ne,
    Gt,
    Lt,
    Ge,
    Le,
    Contains,
    /// A regular expression (`matches`, `~`), in any case unless it says `(?-i)`.
    Matches,
}

impl Rel {
    /// The operator's word, for the errors of the two that are words.
    fn word(self) -> &'static str {
        match self {
            Rel::Matches => "matches",
            _ => "contains",
        }
    }
}

/// A comparison: the relation, and whether every occurrence must satisfy it (`!=`, `===`: the
/// field must then be there) or one is enough.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Op {
    rel: Rel,
    all: bool,
}

/// An operator's meaning, from its symbol or word, as tshark 4.0 has them.
fn operator(text: &str) -> Option<Op> {
    let (rel, all) = match text {
        "==" | "eq" | "any_eq" => (Rel::Eq, false),
        "!=" | "ne" | "all_ne" => (Rel::Ne, true),
        "===" | "all_eq" => (Rel::Eq, true),
        "!==" | "~=" | "any_ne" => (Rel::Ne, false),
        ">" | "gt" => (Rel::Gt, false),
        "<" | "lt" => (Rel::Lt, false),
        ">=" | "ge" => (Rel::Ge, false),
        "<=" | "le" => (Rel::Le, false),
        "contains" => (Rel::Contains, false),
        "matches" | "~" => (Rel::Matches, false),
        _ => return None,
    };
    Some(Op { rel, all })
}

/// The words of the language (lowercase only, as in Wireshark).
fn keyword(text: &str) -> Option<Kind> {
    Some(match text {
        "and" => Kind::And,
        "or" => Kind::Or,
        "not" => Kind::Not,
        "in" => Kind::In,
        w => Kind::Op(operator(w)?),
    })
}

/// A hint for a keyword written in capitals (`AND`), which Wireshark does not take either.
fn case_hint(text: &str) -> String {
    let lower = text.to_ascii_lowercase();
    if lower != text && keyword(&lower).is_some() {
        format!(" (keywords are lowercase: '{lower}')")
    } else {
        String::new()
    }
}

/// A value as written, with every reading of it the field types may ask for.
#[derive(Clone, Debug)]
struct Literal {
    text: String,
    quoted: bool,
    /// Its byte in the filter.
    offset: usize,
    int: Option<i128>,
    /// A finite number.
    float: Option<f64>,
    boolean: Option<bool>,
    /// Hex bytes, or a quoted text's own bytes.
    bytes: Option<Vec<u8>>,
    /// The regular expression `matches` tests with.
    regex: Option<regex::bytes::Regex>,
    /// An address and the prefix length it covers (32 or 128 without a `/`).
    v4: Option<(Ipv4Addr, u8)>,
    v6: Option<(Ipv6Addr, u8)>,
    /// Whether the occurrences it met could be compared with it.
    check: Check,
}

/// What a run learnt about comparing a value (or a field on the right) with the occurrences it
/// met: whether any could be compared at all, else why not. Only written until one could (one
/// flag read per comparison after that), and reported at the end when none could.
#[derive(Clone, Debug, Default)]
struct Check {
    met: Cell<bool>,
    fit: Cell<bool>,
    why: Cell<Option<Misfit>>,
    /// The value names of the occurrences met (a few), for a name that matched none.
    names: RefCell<Vec<String>>,
}

/// How many value names a report lists.
const NAMES_SHOWN: usize = 6;

impl Check {
    fn record(&self, outcome: Result<(), Misfit>, note: Option<&str>) {
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
    fn failed(&self) -> Option<Misfit> {
        if self.met.get() && !self.fit.get() {
            self.why.get()
        } else {
            None
        }
    }
}

/// Why a value could not be compared with an occurrence.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Misfit {
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
enum Sort {
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
    fn of(v: &Value) -> Sort {
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
    fn contains_applies(self) -> bool {
        matches!(self, Sort::Bytes | Sort::Mac | Sort::Text)
    }

    fn describe(self) -> &'static str {
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

/// What a name refers to.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Subject {
    /// One of the application protocols (the JSON record's `protocol`).
    App(&'static str),
    /// The frame's network or transport protocol as the listing shows it.
    Lower(Lower),
    Frame(FrameField),
    Addr {
        v6: bool,
        which: Which,
    },
    Port {
        proto: &'static str,
        which: Which,
    },
    /// A field of the messages' trees.
    Field(String),
    /// A field (or protocol) of the lower layers' trees, decoded from the frame's bytes when a
    /// filter or a column names one ([`crate::dissect::layers`]; `frame` is their root).
    Layer(&'static str),
    /// A slice of a field's bytes, or a function of fields.
    Derived(Box<Derived>),
    /// Arithmetic on fields (`frame.len - 14`, `tcp.flags & 0x12`).
    Calc(Box<Calc>),
}

impl Subject {
    /// The kind of value a frame-level subject holds (a tree field's is known only from the
    /// messages).
    fn sort(&self) -> Option<Sort> {
        match self {
            Subject::Frame(
                FrameField::TimeEpoch
                | FrameField::TimeRelative
                | FrameField::TimeDelta
                | FrameField::TimeDeltaDisplayed,
            ) => Some(Sort::Float),
            Subject::Frame(_) | Subject::Port { .. } => Some(Sort::Number),
            Subject::Addr { v6: false, .. } => Some(Sort::Ipv4),
            Subject::Addr { v6: true, .. } => Some(Sort::Ipv6),
            Subject::Derived(d) => d.sort(),
            Subject::Calc(c) => c.expr.sort(),
            _ => None,
        }
    }

    /// Whether the subject, or a field a function takes, is in the lower layers' trees.
    fn needs_layers(&self) -> bool {
        match self {
            Subject::Layer(_) => true,
            Subject::Derived(d) => d.args.iter().any(Subject::needs_layers),
            Subject::Calc(c) => {
                let mut needs = false;
                c.expr.terms(&mut |s| needs = needs || s.needs_layers());
                needs
            }
            _ => false,
        }
    }

    fn is_protocol(&self) -> bool {
        matches!(self, Subject::App(_) | Subject::Lower(_))
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Lower {
    Ip,
    Ipv6,
    /// ARP (and RARP, which Wireshark's `arp` covers too).
    Arp,
    Transport(&'static str),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum FrameField {
    Number,
    Len,
    CapLen,
    /// Seconds since the epoch, and since the first frame read.
    TimeEpoch,
    TimeRelative,
    /// Seconds since the frame read before, and since the frame shown before.
    TimeDelta,
    TimeDeltaDisplayed,
    /// The date and time, local and in UTC (compared with dates: nanoseconds since the epoch).
    Time,
    TimeUtc,
}

impl FrameField {
    /// Whether the field is one of the frame's times, which a frame without a time lacks
    /// ([`FrameView::has_time`]).
    fn is_time(self) -> bool {
        !matches!(
            self,
            FrameField::Number | FrameField::Len | FrameField::CapLen
        )
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Which {
    Src,
    Dst,
    Either,
}

#[derive(Clone, Debug)]
enum Expr {
    Or(Box<Expr>, Box<Expr>),
    And(Box<Expr>, Box<Expr>),
    Not(Box<Expr>),
    /// The subject is there.
    Has(Subject),
    /// The subject compared with a value.
    Value(Subject, Op, Box<Literal>),
    /// Two fields compared, every occurrence of one with every occurrence of the other.
    Fields(Box<FieldPair>),
    /// `in {..}`: each item a value, or a range with its upper end.
    In(Subject, Vec<(Literal, Option<Literal>)>),
}

#[derive(Clone, Debug)]
struct FieldPair {
    left: Subject,
    op: Op,
    right: Subject,
    names: (String, String),
    /// The right-hand name's byte in the filter.
    at: usize,
    check: Check,
}

/// A parsed display filter.
#[derive(Clone, Debug)]
pub struct Filter {
    expr: Expr,
    /// The tree fields the filter names, and whether any message had one.
    fields: Vec<(String, bool)>,
}

/// What a filter is evaluated on: one frame and the records of its messages.
pub struct FrameView<'a> {
    pub number: u64,
    pub len: u64,
    pub cap_len: u64,
    pub time: Timestamp,
    /// The time of the first frame read (`frame.time_relative` counts from it).
    pub first: Timestamp,
    /// The time of the frame read before (`frame.time_delta`), and of the frame shown before
    /// (`frame.time_delta_displayed`: the last one the filter kept); this frame's own time when
    /// there was none, as tshark gives 0 then.
    pub prev: Timestamp,
    pub prev_displayed: Timestamp,
    /// Whether the frame has a time of its own ([`crate::source::Frame::has_time`]): without
    /// one it has none of the time fields, as in tshark (`time` is still what the next frame's
    /// differences count from).
    pub has_time: bool,
    pub summary: &'a FrameSummary,
    pub records: &'a [Record],
    /// The lower layers' trees, `frame` first ([`crate::dissect::layers`]); empty unless the
    /// filter or a column needs them ([`Filter::needs_layers`], [`Column::needs_layers`]).
    pub layers: &'a [Field],
}

impl Filter {
    pub fn parse(text: &str) -> Result<Filter, FilterError> {
        let tokens = tokenize(text)?;
        if let Some(t) = tokens.get(MAX_TOKENS) {
            return Err(FilterError {
                offset: t.offset,
                what: format!("the filter is longer than {MAX_TOKENS} names, values and symbols"),
            });
        }
        let mut p = Parser {
            tokens,
            at: 0,
            end: text.len(),
            depth: 0,
        };
        let expr = p.or()?;
        if let Some(t) = p.tokens.get(p.at) {
            return Err(FilterError {
                offset: t.offset,
                what: format!("unexpected '{}'{}", t.text, case_hint(&t.text)),
            });
        }
        let mut fields = Vec::new();
        collect_fields(&expr, &mut fields);
        Ok(Filter { expr, fields })
    }

    /// Whether the filter names a field of the lower layers' trees, which [`FrameView::layers`]
    /// must then hold (decoding them costs: a filter without one does not pay it).
    pub fn needs_layers(&self) -> bool {
        needs_layers(&self.expr)
    }

    /// Whether the frame passes. Records which named fields occurred, for [`Self::unseen_fields`],
    /// and which values could be compared, for [`Self::problems`].
    pub fn matches(&mut self, frame: &FrameView<'_>) -> bool {
        for (name, seen) in &mut self.fields {
            if !*seen {
                *seen = frame
                    .records
                    .iter()
                    .any(|r| occurrences(&r.fields, name, &mut |_| true));
            }
        }
        eval(&self.expr, frame)
    }

    /// Tree fields the filter names that no message of the run had: most likely a typo, or a
    /// field poolshark names differently (`read -V` shows the names).
    pub fn unseen_fields(&self) -> Vec<&str> {
        self.fields
            .iter()
            .filter(|(_, seen)| !seen)
            .map(|(n, _)| n.as_str())
            .collect()
    }

    /// What in the filter could not apply to the messages read, each a sentence: a value that no
    /// occurrence of its tree field it met could be compared with (tshark refuses such a filter
    /// before reading, from its table of field types, which poolshark does not have), or two
    /// fields whose occurrences never could be.
    pub fn problems(&self) -> Vec<String> {
        let mut out = Vec::new();
        problems(&self.expr, &mut out);
        out
    }
}

fn needs_layers(e: &Expr) -> bool {
    match e {
        Expr::Or(a, b) | Expr::And(a, b) => needs_layers(a) || needs_layers(b),
        Expr::Not(a) => needs_layers(a),
        Expr::Has(s) | Expr::Value(s, ..) | Expr::In(s, _) => s.needs_layers(),
        Expr::Fields(p) => p.left.needs_layers() || p.right.needs_layers(),
    }
}

fn problems(e: &Expr, out: &mut Vec<String>) {
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

/// A field to extract (`read -T fields -e NAME`): any name a filter can test.
#[derive(Clone, Debug)]
pub struct Column {
    name: String,
    subject: Subject,
}

impl Column {
    /// The column of a name; an error says why the name cannot be one.
    pub fn parse(name: &str) -> Result<Column, String> {
        Ok(Column {
            name: name.to_string(),
            subject: subject(name)?,
        })
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// Whether the name is a field of the messages' trees (which one message or another may
    /// lack), not a protocol or a field of the frame.
    pub fn is_tree_field(&self) -> bool {
        matches!(self.subject, Subject::Field(_))
    }

    /// Whether the column needs the lower layers' trees ([`FrameView::layers`]).
    pub fn needs_layers(&self) -> bool {
        self.subject.needs_layers()
    }

    /// The name of the messages' tree field the column shows, if it shows one.
    pub fn tree_field(&self) -> Option<&str> {
        match &self.subject {
            Subject::Field(name) => Some(name),
            _ => None,
        }
    }

    /// Whether the column writes a lower layer's label: a protocol of the lower layers' trees
    /// (`-e eth`, `-e frame`) is written as its header line ([`Column::values`]), where any
    /// other column writes values.
    pub fn needs_labels(&self) -> bool {
        matches!(self.subject, Subject::Layer(name) if !name.contains('.'))
    }

    /// Whether the frame has it (for a tree field: whether a message has one).
    pub fn present(&self, f: &FrameView<'_>) -> bool {
        present(&self.subject, f)
    }

    /// Each occurrence in the frame, as tshark's `-T fields` writes it: numbers in the base the
    /// tree shows them in, booleans as 1 and 0, addresses, bytes as hex digits, times in
    /// seconds with nine decimals, a protocol as its name (once per message).
    pub fn values(&self, f: &FrameView<'_>, each: &mut impl FnMut(String)) {
        match &self.subject {
            Subject::App(p) => {
                for _ in f.records.iter().filter(|r| r.protocol == *p) {
                    each(self.name.clone());
                }
            }
            Subject::Lower(_) => {
                if present(&self.subject, f) {
                    each(self.name.clone());
                }
            }
            Subject::Frame(ff) if ff.is_time() && !f.has_time => {}
            Subject::Frame(FrameField::TimeEpoch) => each(f.time.to_string()),
            Subject::Frame(FrameField::TimeRelative) => each(seconds_between(f.first, f.time)),
            Subject::Frame(FrameField::TimeDelta) => each(seconds_between(f.prev, f.time)),
            Subject::Frame(FrameField::TimeDeltaDisplayed) => {
                each(seconds_between(f.prev_displayed, f.time))
            }
            Subject::Frame(FrameField::Time) => each(super::time::absolute_text(f.time, false)),
            Subject::Frame(FrameField::TimeUtc) => each(super::time::absolute_text(f.time, true)),
            Subject::Field(name) => {
                for r in f.records {
                    occurrences(&r.fields, name, &mut |fld| {
                        column_value(fld, each);
                        false
                    });
                }
            }
            Subject::Layer(name) => {
                occurrences(f.layers, name, &mut |fld| {
                    match fld.value {
                        // A protocol: its header line, as tshark writes it.
                        Value::None => each(escape_controls(&fld.label)),
                        _ => column_value(fld, each),
                    }
                    false
                });
            }
            _ => lower_values(&self.subject, f, &mut |v| each(v.display(Base::Dec))),
        }
    }
}

/// One occurrence of a tree field as tshark's `-T fields` writes it (a subtree header: nothing).
fn column_value(fld: &Field, each: &mut impl FnMut(String)) {
    match fld.value {
        Value::None if catalogue::no_value(fld.name) => each("1".into()),
        Value::None => {}
        Value::Bool(b) => each(u8::from(b).to_string()),
        Value::Float(x) => each(format_float_g15(x)),
        Value::Str(ref t) => each(escape_controls(t)),
        _ => each(fld.display_value()),
    }
}

/// Text with its control characters written as escapes (`\t`, `\n`, `\r`, `\xNN`), so that a
/// value cannot break the line or the columns it is written in.
fn escape_controls(t: &str) -> String {
    if !t.chars().any(char::is_control) {
        return t.to_string();
    }
    let mut out = String::with_capacity(t.len() + 8);
    for c in t.chars() {
        match c {
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => {
                let mut buf = [0; 4];
                for b in c.encode_utf8(&mut buf).bytes() {
                    out.push_str(&format!("\\x{b:02x}"));
                }
            }
            c => out.push(c),
        }
    }
    out
}

/// `later - earlier` in seconds with nine decimals, as tshark writes `frame.time_relative`.
pub(crate) fn seconds_between(earlier: Timestamp, later: Timestamp) -> String {
    let ns = |t: Timestamp| i128::from(t.secs) * 1_000_000_000 + i128::from(t.nanos);
    let d = ns(later) - ns(earlier);
    let sign = if d < 0 { "-" } else { "" };
    let d = d.unsigned_abs();
    format!("{sign}{}.{:09}", d / 1_000_000_000, d % 1_000_000_000)
}

fn collect_fields(e: &Expr, out: &mut Vec<(String, bool)>) {
    fn add(s: &Subject, out: &mut Vec<(String, bool)>) {
        match s {
            Subject::Field(name) if !out.iter().any(|(n, _)| n == name) => {
                out.push((name.clone(), false));
            }
            Subject::Derived(d) => d.args.iter().for_each(|a| add(a, out)),
            Subject::Calc(c) => c.expr.terms(&mut |a| add(a, out)),
            _ => {}
        }
    }
    match e {
        Expr::Or(a, b) | Expr::And(a, b) => {
            collect_fields(a, out);
            collect_fields(b, out);
        }
        Expr::Not(a) => collect_fields(a, out),
        Expr::Has(s) | Expr::Value(s, ..) | Expr::In(s, _) => add(s, out),
        Expr::Fields(p) => {
            add(&p.left, out);
            add(&p.right, out);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Tokens and grammar.

#[derive(Clone, Debug, PartialEq, Eq)]
enum Kind {
    /// A name or an unquoted value.
    Word,
    /// A double-quoted string (its text unescaped).
    Quoted,
    Op(Op),
    And,
    Or,
    Not,
    Open,
    Close,
    In,
    SetOpen,
    SetClose,
    Comma,
    /// `[..]` after a name: a slice (its text with the brackets).
    Slice,
    /// `+`, `*`, `%` or `&` (`-` and `/` are words: the parser takes them as operators where
    /// one may be).
    Arith(ArithOp),
}

#[derive(Clone, Debug)]
struct Token {
    kind: Kind,
    text: String,
    offset: usize,
    /// A quoted string's bytes, its escapes undone (`text` is them as UTF-8, lossily).
    raw: Vec<u8>,
}

fn word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b':' | b'/' | b'-')
}

fn tokenize(s: &str) -> Result<Vec<Token>, FilterError> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(&c) = b.get(i) {
        let start = i;
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if c == b'[' {
            let Some(len) = s[i..].find(']') else {
                return Err(FilterError {
                    offset: i,
                    what: "a '[' without its ']'".into(),
                });
            };
            out.push(Token {
                kind: Kind::Slice,
                text: s[i..=i + len].to_string(),
                offset: start,
                raw: Vec::new(),
            });
            i += len + 1;
            continue;
        }
        let ahead = |n: usize| b.get(i..i + n).unwrap_or(&[]);
        // The longest symbol first: `!==` before `!=` before `!`.
        let symbol = [3, 2, 1].into_iter().find_map(|n| {
            let text = std::str::from_utf8(ahead(n)).ok()?;
            let kind = match text {
                "&&" => Kind::And,
                "||" => Kind::Or,
                "!" => Kind::Not,
                "(" => Kind::Open,
                ")" => Kind::Close,
                "{" => Kind::SetOpen,
                "}" => Kind::SetClose,
                "," => Kind::Comma,
                "+" | "*" | "%" | "&" => Kind::Arith(ArithOp::of(text)?),
                t if !t.bytes().any(|c| c.is_ascii_alphanumeric()) => Kind::Op(operator(t)?),
                _ => return None,
            };
            Some((kind, n))
        });
        // `r"..."`: a raw string, its backslashes kept (for regular expressions).
        let raw_string = c == b'r' && b.get(i + 1) == Some(&b'"');
        let (kind, len) = match symbol {
            Some(s) => s,
            None if c == b'"' || raw_string => {
                let from = i + usize::from(raw_string);
                let (raw, len) = quoted(s, from, raw_string)?;
                out.push(Token {
                    kind: Kind::Quoted,
                    text: String::from_utf8_lossy(&raw).into_owned(),
                    offset: start,
                    raw,
                });
                i = from + len;
                continue;
            }
            None if word_byte(c) => {
                let len = b[i..].iter().take_while(|&&c| word_byte(c)).count();
                (keyword(&s[i..i + len]).unwrap_or(Kind::Word), len)
            }
            None => {
                let c = s[i..].chars().next().unwrap_or('?');
                return Err(FilterError {
                    offset: i,
                    what: format!("unexpected character '{c}'"),
                });
            }
        };
        out.push(Token {
            kind,
            text: s[i..i + len].to_string(),
            offset: start,
            raw: Vec::new(),
        });
        i += len;
    }
    Ok(out)
}

/// The string starting with the quote at `at`, its escapes undone as Wireshark 4.0 does (`\\`,
/// `\"`, `\'`, `\a \b \f \n \r \t \v`, `\xhh`, octal `\ooo`, `\uXXXX`, `\UXXXXXXXX`; any other
/// is an error, as `\.` is in tshark) unless `raw`, and the bytes it took with its quotes.
fn quoted(s: &str, at: usize, raw: bool) -> Result<(Vec<u8>, usize), FilterError> {
    let body = &s.as_bytes()[at + 1..];
    let mut out = Vec::new();
    let mut i = 0;
    let digits = |from: usize, radix: u32, max: usize| {
        body[from..]
            .iter()
            .take(max)
            .take_while(|b| char::from(**b).is_digit(radix))
            .count()
    };
    while let Some(&c) = body.get(i) {
        match c {
            b'"' => return Ok((out, i + 2)),
            b'\\' if raw => {
                // A raw string keeps its backslashes, and `\"` does not end it.
                out.push(c);
                if let Some(&n) = body.get(i + 1) {
                    out.push(n);
                }
                i += 2;
            }
            b'\\' => {
                let Some(&e) = body.get(i + 1) else {
                    break;
                };
                let simple = match e {
                    b'\\' | b'"' | b'\'' => Some(e),
                    b'a' => Some(7),
                    b'b' => Some(8),
                    b'f' => Some(12),
                    b'n' => Some(b'\n'),
                    b'r' => Some(b'\r'),
                    b't' => Some(b'\t'),
                    b'v' => Some(11),
                    _ => None,
                };
                if let Some(byte) = simple {
                    out.push(byte);
                    i += 2;
                    continue;
                }
                let (radix, from, n) = match e {
                    b'x' => (16, i + 2, digits(i + 2, 16, 2)),
                    b'0'..=b'7' => (8, i + 1, digits(i + 1, 8, 3)),
                    b'u' => (16, i + 2, digits(i + 2, 16, 4)),
                    b'U' => (16, i + 2, digits(i + 2, 16, 8)),
                    _ => (0, 0, 0),
                };
                let wanted = match e {
                    b'u' => 4,
                    b'U' => 8,
                    _ => 1,
                };
                let value = (n >= wanted)
                    .then(|| std::str::from_utf8(&body[from..from + n]).ok())
                    .flatten()
                    .and_then(|d| u32::from_str_radix(d, radix).ok());
                match (e, value) {
                    (b'x' | b'0'..=b'7', Some(v)) if v <= 0xff => out.push(v as u8),
                    (b'u' | b'U', Some(v)) if char::from_u32(v).is_some() => {
                        let mut buf = [0; 4];
                        let ch = char::from_u32(v).unwrap_or('?');
                        out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                    }
                    _ => {
                        let shown = s[at + 1 + i..].chars().take(2).collect::<String>();
                        return Err(FilterError {
                            offset: at + 1 + i,
                            what: format!(
                                "'{shown}' is not an escape: a string takes \\\\, \\\", \\n, \\t, \\xhh and \
                                 the like; write \\\\ for a backslash, or r\"...\" for a string \
                                 whose backslashes stay (a regular expression)"
                            ),
                        });
                    }
                }
                i = from + n;
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    Err(FilterError {
        offset: at,
        what: "a string without its closing quote".into(),
    })
}

/// The longest filter read, in tokens, and the deepest nesting of parentheses, braces, `not`
/// and minus signs: the parser, the evaluation and the dropping of a filter recurse into it, so
/// both bound the stack they take (a filter of 20,000 parentheses overflowed it).
const MAX_TOKENS: usize = 4096;
const MAX_NESTING: usize = 256;

struct Parser {
    tokens: Vec<Token>,
    at: usize,
    /// The filter's length: where "expected ..." points when it ends early.
    end: usize,
    /// How deep the parser is in nested parentheses, braces, `not`s and minus signs.
    depth: usize,
}

impl Parser {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.at)
    }

    fn here(&self) -> usize {
        self.peek().map_or(self.end, |t| t.offset)
    }

    fn or(&mut self) -> Result<Expr, FilterError> {
        self.chain(Kind::Or, Self::and, Expr::Or)
    }

    fn and(&mut self) -> Result<Expr, FilterError> {
        self.chain(Kind::And, Self::unary, Expr::And)
    }

    /// `next { joiner next }`, joined from the left.
    fn chain(
        &mut self,
        joiner: Kind,
        next: fn(&mut Self) -> Result<Expr, FilterError>,
        join: fn(Box<Expr>, Box<Expr>) -> Expr,
    ) -> Result<Expr, FilterError> {
        let mut left = next(self)?;
        while self.peek().is_some_and(|t| t.kind == joiner) {
            self.at += 1;
            let right = next(self)?;
            left = join(Box::new(left), Box::new(right));
        }
        Ok(left)
    }

    fn unary(&mut self) -> Result<Expr, FilterError> {
        self.enter()?;
        let e = self.unary_within();
        self.depth -= 1;
        e
    }

    /// One level deeper, or an error where that is too deep.
    fn enter(&mut self) -> Result<(), FilterError> {
        if self.depth >= MAX_NESTING {
            return Err(FilterError {
                offset: self.here(),
                what: format!(
                    "the filter nests deeper than {MAX_NESTING} parentheses, braces, 'not's and \
                     minus signs"
                ),
            });
        }
        self.depth += 1;
        Ok(())
    }

    fn unary_within(&mut self) -> Result<Expr, FilterError> {
        let Some(t) = self.peek().cloned() else {
            return Err(FilterError {
                offset: self.end,
                what: "expected a field, a protocol or '(' but the filter ends".into(),
            });
        };
        match t.kind {
            Kind::Not => {
                self.at += 1;
                Ok(Expr::Not(Box::new(self.unary()?)))
            }
            Kind::Open => {
                self.at += 1;
                let e = self.or()?;
                match self.peek() {
                    Some(c) if c.kind == Kind::Close => {
                        self.at += 1;
                        Ok(e)
                    }
                    _ => Err(FilterError {
                        offset: self.here(),
                        what: format!("expected ')' for the '(' at byte {}", t.offset),
                    }),
                }
            }
            // Arithmetic that starts with a brace or a minus (`{a + b} > 3`, `-a < 0`).
            Kind::SetOpen => self.calc_test(),
            Kind::Word if t.text.starts_with('-') => self.calc_test(),
            // `300 + ip.ttl > 0`: refused there, as tshark refuses it.
            Kind::Word
                if parse_int(&t.text).is_some()
                    && self.tokens.get(self.at + 1).is_some_and(|n| match n.kind {
                        Kind::Arith(_) => true,
                        Kind::Word => n.text == "-" || n.text == "/",
                        _ => false,
                    }) =>
            {
                self.calc_test()
            }
            Kind::Word => {
                self.at += 1;
                self.test(&t)
            }
            _ => Err(FilterError {
                offset: t.offset,
                what: format!("expected a field, a protocol or '(', found '{}'", t.text),
            }),
        }
    }

    /// What a test compares, from its first word (already taken): a name, a name sliced
    /// (`NAME[..]`) or a function of names (`len(NAME)`), with its text as written.
    fn term(&mut self, first: &Token) -> Result<(Subject, String), FilterError> {
        let call = Derive::function(&first.text)
            .filter(|_| self.peek().is_some_and(|t| t.kind == Kind::Open));
        if let Some(op) = call {
            self.at += 1;
            let mut args = Vec::new();
            loop {
                let at = match self.peek() {
                    Some(t) if matches!(t.kind, Kind::Word | Kind::Quoted | Kind::SetOpen) => {
                        t.offset
                    }
                    t => {
                        return Err(FilterError {
                            offset: self.here(),
                            what: format!(
                                "expected a field in {}(), found {}",
                                first.text,
                                t.map_or("the filter's end".into(), |t| format!("'{}'", t.text))
                            ),
                        })
                    }
                };
                let arg = self.argument(at)?;
                args.push(arg);
                match self.peek().map(|t| t.kind.clone()) {
                    Some(Kind::Comma) => self.at += 1,
                    Some(Kind::Close) => {
                        self.at += 1;
                        break;
                    }
                    _ => {
                        return Err(FilterError {
                            offset: self.here(),
                            what: format!("expected ',' or ')' in {}()", first.text),
                        })
                    }
                }
            }
            let inner: Vec<&str> = args.iter().map(|(_, t)| t.as_str()).collect();
            let text = format!("{}({})", first.text, inner.join(", "));
            let d = Derived::new(op, args, text.clone(), first.offset)?;
            return Ok((Subject::Derived(Box::new(d)), text));
        }
        if self.peek().is_some_and(|t| t.kind == Kind::Open) && !first.text.contains('.') {
            return Err(FilterError {
                offset: first.offset,
                what: format!(
                    "'{}' is not a function: display filters have len, count, string, upper, \
                     lower, abs, max and min",
                    first.text
                ),
            });
        }
        let s = subject(&first.text).map_err(|what| FilterError {
            offset: first.offset,
            what,
        })?;
        let Some(t) = self.peek().filter(|t| t.kind == Kind::Slice).cloned() else {
            return Ok((s, first.text.clone()));
        };
        self.at += 1;
        let inside = &t.text[1..t.text.len() - 1];
        let ranges = derived::ranges(inside, t.offset)?;
        let text = format!("{}{}", first.text, t.text);
        let args = vec![(s, first.text.clone())];
        let d = Derived::new(Derive::Slice(ranges), args, text.clone(), first.offset)?;
        Ok((Subject::Derived(Box::new(d)), text))
    }

    /// A function's argument (at byte `at`): a field or protocol alone (`count(dhcpv6)`), or
    /// else arithmetic, a constant or a function (which only `abs`, `max` and `min` take:
    /// [`Derived::new`] says so).
    fn argument(&mut self, at: usize) -> Result<(Subject, String), FilterError> {
        let start = self.at;
        if let Some(t) = self.peek().filter(|_| self.term_ahead()).cloned() {
            self.at += 1;
            let term = self.term(&t)?;
            if self
                .peek()
                .is_some_and(|n| matches!(n.kind, Kind::Comma | Kind::Close))
            {
                return Ok(term);
            }
            self.at = start;
        }
        let (e, text) = self.calc(0)?;
        let arg = match e {
            Operand::Term(s, _) => s,
            Operand::Const(lit) if !lit.quoted && valid_name(&lit.text) => {
                // A name poolshark does not know: say so.
                subject(&lit.text).map_err(|what| FilterError { offset: at, what })?
            }
            e => Subject::Calc(Box::new(Calc::new(e, text.clone(), at))),
        };
        Ok((arg, text))
    }

    /// Whether a term starts here: a field or protocol name, or a function's name and its `(`.
    fn term_ahead(&self) -> bool {
        let Some(t) = self.peek() else {
            return false;
        };
        is_field_name(t)
            || (t.kind == Kind::Word
                && Derive::function(&t.text).is_some()
                && self
                    .tokens
                    .get(self.at + 1)
                    .is_some_and(|n| n.kind == Kind::Open))
    }

    /// A test from its first word (already taken): a term, or arithmetic on it, and what it
    /// is compared with if anything.
    fn test(&mut self, name: &Token) -> Result<Expr, FilterError> {
        let start = self.at.saturating_sub(1);
        let (subject, text) = self.term(name)?;
        if self.arith_ahead().is_none() {
            return self.compare(subject, text);
        }
        self.at = start;
        self.calc_test()
    }

    /// A test whose left side is arithmetic.
    fn calc_test(&mut self) -> Result<Expr, FilterError> {
        let at = self.here();
        let (e, text) = self.calc(0)?;
        let subject = match e {
            // `{frame.len}`: the field itself.
            Operand::Term(s, _) => s,
            e if !e.has_term() => {
                return Err(FilterError {
                    offset: at,
                    what: format!(
                        "the left side of a test must be a field or a function, not only \
                         values: {text}"
                    ),
                })
            }
            e => Subject::Calc(Box::new(Calc::new(e, text.clone(), at))),
        };
        self.compare(subject, text)
    }

    /// The arithmetic operator next, if one is.
    fn arith_ahead(&self) -> Option<ArithOp> {
        let t = self.peek()?;
        match t.kind {
            Kind::Arith(op) => Some(op),
            Kind::Word if t.text == "-" || t.text == "/" => ArithOp::of(&t.text),
            _ => None,
        }
    }

    /// Whether the right side of a comparison is arithmetic or a field (rather than a value):
    /// it starts with a brace, a field, a negated field, or a value an operator follows.
    fn calc_or_term_ahead(&self) -> bool {
        let Some(t) = self.peek() else {
            return false;
        };
        let negated = t.kind == Kind::Word
            && t.text.len() > 1
            && t.text.starts_with('-')
            && parse_int(&t.text).is_none()
            && t.text[1..].starts_with(|c: char| c.is_ascii_alphabetic());
        let next = self.tokens.get(self.at + 1).is_some_and(|n| match n.kind {
            Kind::Arith(_) => true,
            Kind::Word => n.text == "-" || n.text == "/",
            _ => false,
        });
        t.kind == Kind::SetOpen || negated || next || self.term_ahead()
    }

    /// Arithmetic from here, operators binding tighter than `min` and tighter first, and its
    /// text as written.
    fn calc(&mut self, min: u8) -> Result<(Operand, String), FilterError> {
        let (mut left, mut text) = self.operand()?;
        while let Some(op) = self.arith_ahead().filter(|op| op.precedence() >= min) {
            let at = self.here();
            self.at += 1;
            let (right, right_text) = self.calc(op.precedence() + 1)?;
            left = Operand::bin(op, left, right, at)?;
            text = arith::joined(&text, op, &right_text);
        }
        Ok((left, text))
    }

    /// One side of an arithmetic operator: a braced expression, a (negated) field or function,
    /// or a value.
    fn operand(&mut self) -> Result<(Operand, String), FilterError> {
        self.enter()?;
        let e = self.operand_within();
        self.depth -= 1;
        e
    }

    fn operand_within(&mut self) -> Result<(Operand, String), FilterError> {
        let Some(t) = self.peek().cloned() else {
            return Err(FilterError {
                offset: self.end,
                what: "expected a field or a value but the filter ends".into(),
            });
        };
        match t.kind {
            Kind::SetOpen => {
                self.at += 1;
                let (e, text) = self.calc(0)?;
                if self.peek().map(|c| &c.kind) != Some(&Kind::SetClose) {
                    return Err(FilterError {
                        offset: self.here(),
                        what: format!("expected '}}' for the '{{' at byte {}", t.offset),
                    });
                }
                self.at += 1;
                Ok((e, format!("{{{text}}}")))
            }
            Kind::Word if t.text == "-" => {
                self.at += 1;
                let (e, text) = self.operand()?;
                Ok((Operand::neg(e, t.offset)?, format!("-{text}")))
            }
            Kind::Word if t.text.starts_with('-') && parse_int(&t.text).is_none() => {
                // `-frame.len`, `-abs(x)`: the minus and the name are one word.
                let rest = Token {
                    text: t.text[1..].to_string(),
                    offset: t.offset + 1,
                    ..t.clone()
                };
                self.at += 1;
                let (s, text) = self.term(&rest)?;
                let e = self.term_operand(s, &text, rest.offset)?;
                Ok((Operand::neg(e, t.offset)?, format!("-{text}")))
            }
            Kind::Word if self.term_ahead() => {
                self.at += 1;
                let (s, text) = self.term(&t)?;
                Ok((self.term_operand(s, &text, t.offset)?, text))
            }
            Kind::Word | Kind::Quoted => {
                let lit = self.value()?;
                let text = match t.kind {
                    Kind::Quoted => format!("\"{}\"", t.text),
                    _ => t.text,
                };
                Ok((Operand::Const(Box::new(lit)), text))
            }
            _ => Err(FilterError {
                offset: t.offset,
                what: format!("expected a field or a value, found '{}'", t.text),
            }),
        }
    }

    /// A field or function as an operand: not a protocol, which has no value.
    fn term_operand(&self, s: Subject, text: &str, at: usize) -> Result<Operand, FilterError> {
        if s.is_protocol() {
            return Err(FilterError {
                offset: at,
                what: format!("'{text}' is a protocol: it has no value to compute with"),
            });
        }
        Ok(Operand::Term(s, text.to_string()))
    }

    /// What follows a test's left side: nothing (it is there), a comparison or `in`.
    fn compare(&mut self, subject: Subject, text: String) -> Result<Expr, FilterError> {
        // tshark takes a test's type from its left side's first field.
        if let Some(lit) = leading_const(&subject) {
            return Err(FilterError {
                offset: lit.offset,
                what: format!(
                    "the left side of a test starts with the value '{}': it must start with a \
                     field, whose type the test takes, as in tshark (write the field first, or \
                     the value on the right)",
                    lit.text
                ),
            });
        }
        let kind = |p: &Self, ahead: usize| p.tokens.get(p.at + ahead).map(|t| t.kind.clone());
        let negated_in = kind(self, 0) == Some(Kind::Not) && kind(self, 1) == Some(Kind::In);
        let op = match kind(self, 0) {
            Some(Kind::Op(op)) => Some(op),
            Some(Kind::In) => None,
            _ if negated_in => None,
            _ => return Ok(Expr::Has(subject)),
        };
        let op_at = self.here();
        if let (
            Subject::Calc(_),
            None
            | Some(Op {
                rel: Rel::Contains | Rel::Matches,
                ..
            }),
        ) = (&subject, op)
        {
            return Err(FilterError {
                offset: op_at,
                what: format!(
                    "arithmetic ({text}) is compared with ==, !=, >, <, >= or <=, not with '{}'",
                    self.peek().map_or("", |t| t.text.as_str())
                ),
            });
        }
        if subject.is_protocol() {
            return Err(FilterError {
                offset: op_at,
                what: format!("'{text}' is a protocol: it can be tested for, not compared"),
            });
        }
        let Some(op) = op else {
            self.at += if negated_in { 2 } else { 1 };
            let mut items = self.set()?;
            for (lo, hi) in &mut items {
                for l in std::iter::once(lo).chain(hi) {
                    check_value(&subject, &text, l)?;
                }
            }
            let set = Expr::In(subject, items);
            return Ok(if negated_in {
                Expr::Not(Box::new(set))
            } else {
                set
            });
        };
        self.at += 1;
        if matches!(op.rel, Rel::Contains | Rel::Matches) {
            if let Some(sort) = subject.sort().filter(|s| !s.contains_applies()) {
                return Err(FilterError {
                    offset: op_at,
                    what: format!(
                        "'{}' does not apply to {text}, which holds {}",
                        op.rel.word(),
                        match subject {
                            Subject::Frame(FrameField::Time | FrameField::TimeUtc) => {
                                "dates and times"
                            }
                            _ => sort.describe(),
                        }
                    ),
                });
            }
        }
        if op.rel == Rel::Matches {
            return self.regex(subject, op);
        }
        // An unquoted name starting with a protocol is a field, as in tshark; arithmetic may
        // follow it, or a value.
        if self.calc_or_term_ahead() {
            let at = self.here();
            let (e, right_text) = self.calc(0)?;
            let right = match e {
                Operand::Term(s, _) => s,
                Operand::Const(lit) => {
                    let mut value = *lit;
                    check_value(&subject, &text, &mut value)?;
                    let mut subject = subject;
                    if let Subject::Calc(c) = &mut subject {
                        c.compared_with(&value);
                    }
                    return Ok(Expr::Value(subject, op, Box::new(value)));
                }
                e => {
                    let mut c = Calc::new(e, right_text.clone(), at);
                    c.typed_by(&subject, &text)?;
                    Subject::Calc(Box::new(c))
                }
            };
            return field_pair((subject, text), op, op_at, (right, right_text), at);
        }
        let mut value = self.value()?;
        check_value(&subject, &text, &mut value)?;
        let mut subject = subject;
        if let Subject::Calc(c) = &mut subject {
            c.compared_with(&value);
        }
        Ok(Expr::Value(subject, op, Box::new(value)))
    }

    /// The quoted regular expression after `matches`: compiled now, so that a bad one is an
    /// error at its byte (tshark's PCRE2 and the `regex` crate agree on the usual syntax; both
    /// ignore case unless told `(?-i)`).
    fn regex(&mut self, subject: Subject, op: Op) -> Result<Expr, FilterError> {
        let Some(t) = self.peek().filter(|t| t.kind == Kind::Quoted).cloned() else {
            return Err(FilterError {
                offset: self.here(),
                what: "'matches' takes a regular expression in double quotes (r\"...\" keeps \
                       its backslashes)"
                    .into(),
            });
        };
        self.at += 1;
        // Bytes that are not UTF-8 (`\x90`) stand for themselves, as in tshark.
        let mut pattern = String::new();
        for chunk in t.raw.utf8_chunks() {
            pattern.push_str(chunk.valid());
            for b in chunk.invalid() {
                pattern.push_str(&format!("(?-u:\\x{b:02x})"));
            }
        }
        let re = regex::bytes::RegexBuilder::new(&pattern)
            .case_insensitive(true)
            .size_limit(1 << 20)
            .dfa_size_limit(1 << 20)
            .build()
            .map_err(|e| FilterError {
                offset: t.offset,
                what: format!(
                    "not a regular expression: {}",
                    e.to_string().lines().last().unwrap_or_default()
                ),
            })?;
        let mut value = literal(&t.text, true, t.offset);
        value.regex = Some(re);
        Ok(Expr::Value(subject, op, Box::new(value)))
    }

    /// A value where one must be; the error names the token before.
    fn value(&mut self) -> Result<Literal, FilterError> {
        match self.peek() {
            Some(t) if matches!(t.kind, Kind::Word | Kind::Quoted) => {
                let quoted = t.kind == Kind::Quoted;
                let mut l = literal(&t.text, quoted, t.offset);
                if quoted {
                    l.bytes = Some(t.raw.clone());
                }
                self.at += 1;
                Ok(l)
            }
            _ => Err(FilterError {
                offset: self.here(),
                what: format!(
                    "expected a value after '{}'",
                    self.tokens
                        .get(self.at.wrapping_sub(1))
                        .map_or("", |t| t.text.as_str())
                ),
            }),
        }
    }

    /// A set's item: a value, or a range `low..high` (with spaces around `..` or not).
    fn item(&mut self) -> Result<(Literal, Option<Literal>), FilterError> {
        let Some(t) = self.peek().cloned() else {
            return Ok((self.value()?, None));
        };
        let split = t.text.split_once("..").filter(|_| t.kind == Kind::Word);
        let (lo, (hi, at)) = match split {
            Some(("", _)) => {
                return Err(FilterError {
                    offset: t.offset,
                    what: "expected a value before '..'".into(),
                })
            }
            Some((lo, hi)) => {
                self.at += 1;
                let at = t.offset + lo.len() + 2;
                (literal(lo, false, t.offset), (hi.to_string(), at))
            }
            None => {
                let lo = self.value()?;
                let range = self
                    .peek()
                    .filter(|n| n.kind == Kind::Word && n.text.starts_with(".."))
                    .map(|n| (n.text[2..].to_string(), n.offset + 2));
                match range {
                    Some(hi) => {
                        self.at += 1;
                        (lo, hi)
                    }
                    None => return Ok((lo, None)),
                }
            }
        };
        let hi = if hi.is_empty() {
            self.value()?
        } else {
            literal(&hi, false, at)
        };
        Ok((lo, Some(hi)))
    }

    /// `{ item, ... }` after `in`: values and `low..high` ranges.
    fn set(&mut self) -> Result<Vec<(Literal, Option<Literal>)>, FilterError> {
        if self.peek().map(|t| &t.kind) != Some(&Kind::SetOpen) {
            return Err(FilterError {
                offset: self.here(),
                what: "expected '{' after 'in'".into(),
            });
        }
        self.at += 1;
        let mut items = Vec::new();
        loop {
            if let Some(t) = self.peek().filter(|t| is_field_name(t)) {
                return Err(FilterError {
                    offset: t.offset,
                    what: format!(
                        "'{}' is a field: poolshark takes values in a set, not fields",
                        t.text
                    ),
                });
            }
            items.push(self.item()?);
            match self.peek().map(|t| t.kind.clone()) {
                Some(Kind::Comma) => self.at += 1,
                Some(Kind::SetClose) => {
                    self.at += 1;
                    return Ok(items);
                }
                _ => {
                    return Err(FilterError {
                        offset: self.here(),
                        what: "expected ',' or '}' in the set".into(),
                    })
                }
            }
        }
    }
}

/// `left op right` with a field (or a slice or function of fields) on the right, at byte
/// `right_at`; what is known of both is checked now.
fn field_pair(
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

/// Whether an unquoted word on the right is a field (or protocol) name rather than a value: it
/// starts with a protocol's name, alone or before a dot, as tshark reads it.
/// The constant a subject starts with as written, if it starts with one: arithmetic's first
/// value, or the first argument's of `abs`, `max` and `min`.
fn leading_const(s: &Subject) -> Option<&Literal> {
    match s {
        Subject::Calc(c) => c.expr.leading_const(),
        Subject::Derived(d) if d.op.numeric() => d.args.first().and_then(leading_const),
        _ => None,
    }
}

/// The largest value of a whole-number subject whose type is known before reading (the frame's
/// numbers, 32 bits, ports, 16, and the lower layers' whole numbers, [`layers::largest`];
/// arithmetic and `abs`, `max`, `min` take their first field's).
fn known_max(s: &Subject) -> Option<i128> {
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

fn is_field_name(t: &Token) -> bool {
    t.kind == Kind::Word
        && valid_name(&t.text)
        && PROTOCOLS.contains(&t.text.split('.').next().unwrap_or(""))
}

fn valid_name(name: &str) -> bool {
    name.starts_with(|c: char| c.is_ascii_alphabetic())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.' || b == b'-')
}

/// A value against a frame-level subject, whose type is known: an error (at the value's byte)
/// when it cannot be one, as tshark gives. Tree fields are checked on the messages instead.
fn check_value(s: &Subject, name: &str, lit: &mut Literal) -> Result<(), FilterError> {
    if let Subject::Frame(FrameField::Time | FrameField::TimeUtc) = s {
        // A date and time, read now (in the local time zone unless it names one).
        return match super::time::parse_absolute(&lit.text) {
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
fn plain_decimal(s: &str) -> bool {
    let s = s.strip_prefix('-').unwrap_or(s);
    let (int, frac) = s.split_once('.').unwrap_or((s, ""));
    !(int.is_empty() && frac.is_empty())
        && int.bytes().all(|b| b.is_ascii_digit())
        && frac.bytes().all(|b| b.is_ascii_digit())
}

/// The listing's name of a transport (`FrameSummary::protocol`) for its filter name.
fn transport(proto: &str) -> Option<&'static str> {
    match proto {
        "udp" => Some("UDP"),
        "tcp" => Some("TCP"),
        "sctp" => Some("SCTP"),
        _ => None,
    }
}

/// What a name refers to, or why it cannot be used.
fn subject(name: &str) -> Result<Subject, String> {
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

fn literal(text: &str, quoted: bool, offset: usize) -> Literal {
    let int = if quoted { None } else { parse_int(text) };
    let float = if quoted {
        None
    } else {
        text.parse::<f64>().ok().filter(|x| x.is_finite())
    };
    let boolean = match text.to_ascii_lowercase().as_str() {
        "true" | "1" => Some(true),
        "false" | "0" => Some(false),
        _ => None,
    };
    let (addr, prefix) = match text.split_once('/') {
        Some((a, p)) => (a, p.parse::<u8>().ok()),
        None => (text, None),
    };
    let has_prefix = text.contains('/');
    let prefix_within = |width: u8| match prefix {
        Some(p) if p <= width => Some(p),
        Some(_) => None,
        None if has_prefix => None,
        None => Some(width),
    };
    let v4 = (!quoted)
        .then(|| addr.parse::<Ipv4Addr>().ok())
        .flatten()
        .and_then(|a| Some((a, prefix_within(32)?)));
    let v6 = (!quoted)
        .then(|| addr.parse::<Ipv6Addr>().ok())
        .flatten()
        .and_then(|a| Some((a, prefix_within(128)?)));
    Literal {
        text: text.to_string(),
        quoted,
        offset,
        int,
        float,
        boolean,
        // Quoted text against a byte string is its UTF-8 bytes, as in Wireshark.
        bytes: if quoted {
            Some(text.as_bytes().to_vec())
        } else {
            parse_bytes(text)
        },
        v4,
        v6,
        regex: None,
        check: Check::default(),
    }
}

fn parse_int(s: &str) -> Option<i128> {
    let (neg, digits) = match s.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, s),
    };
    let v = match digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        Some(h) => i128::from_str_radix(h, 16).ok()?,
        None => digits.parse::<i128>().ok()?,
    };
    Some(if neg { -v } else { v })
}

/// `00:1a:2b`, `00-1a-2b`, `00.1a.2b` or `001a2b`.
fn parse_bytes(s: &str) -> Option<Vec<u8>> {
    let hex = |p: &str| u8::from_str_radix(p, 16).ok();
    for sep in [':', '-', '.'] {
        if s.contains(sep) {
            return s
                .split(sep)
                .map(|p| if p.len() == 2 { hex(p) } else { None })
                .collect();
        }
    }
    if s.is_empty() || s.len() % 2 != 0 || !s.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    (0..s.len()).step_by(2).map(|i| hex(&s[i..i + 2])).collect()
}

// ---------------------------------------------------------------------------------------------
// Evaluation.

fn eval(e: &Expr, f: &FrameView<'_>) -> bool {
    match e {
        Expr::Or(a, b) => eval(a, f) || eval(b, f),
        Expr::And(a, b) => eval(a, f) && eval(b, f),
        Expr::Not(a) => !eval(a, f),
        Expr::Has(s) => present(s, f),
        Expr::Value(s, op, lit) => quantified(s, f, op.all, &mut |v, note, len| {
            compare_literal(v, note, len, op.rel, lit)
        }),
        Expr::Fields(p) => {
            if let Subject::Calc(c) = &p.right {
                if c.wants_left_max() {
                    // The type a constant first on the right is read in: the left side's, by
                    // the narrowest of its occurrences, as a constant combined with a field is
                    // checked against each of its occurrences.
                    let natural = natural_len(&p.left);
                    let mut max: Option<i128> = None;
                    each(&p.left, f, &mut |v, _, len| {
                        if let Some(m) = whole_max(v, len.max(natural)) {
                            max = Some(max.map_or(m, |x| x.min(m)));
                        }
                        false
                    });
                    c.set_left_max(max);
                }
            }
            let mut right = Vec::new();
            each(&p.right, f, &mut |v, _, _| {
                right.push(v.clone());
                false
            });
            if right.is_empty() {
                return false;
            }
            quantified(&p.left, f, p.op.all, &mut |v, _, _| {
                let mut pair = |w: &Value| {
                    let (holds, fit) = compare_values(v, w, p.op.rel);
                    if !p.check.fit.get() {
                        p.check.record(fit, None);
                    }
                    holds
                };
                if p.op.all {
                    right.iter().all(&mut pair)
                } else {
                    right.iter().any(&mut pair)
                }
            })
        }
        Expr::In(s, items) => each(s, f, &mut |v, note, len| {
            items.iter().any(|(lo, hi)| match hi {
                None => compare_literal(v, note, len, Rel::Eq, lo),
                Some(hi) => {
                    compare_literal(v, note, len, Rel::Ge, lo)
                        && compare_literal(v, note, len, Rel::Le, hi)
                }
            })
        }),
    }
}

/// Whether one occurrence of the subject passes `test` or, with `all`, whether the subject is
/// there and every occurrence passes.
fn quantified(
    s: &Subject,
    f: &FrameView<'_>,
    all: bool,
    test: &mut impl FnMut(&Value, Option<&str>, usize) -> bool,
) -> bool {
    if !all {
        return each(s, f, test);
    }
    let mut there = false;
    let failed = each(s, f, &mut |v, note, len| {
        there = true;
        !test(v, note, len)
    });
    there && !failed
}

fn present(s: &Subject, f: &FrameView<'_>) -> bool {
    match s {
        Subject::App(p) => f.records.iter().any(|r| r.protocol == *p),
        Subject::Lower(l) => match l {
            Lower::Ip => {
                matches!(f.summary.src, Some(Address::Ip(IpAddr::V4(_))))
                    || f.summary.outer.iter().any(|o| o.src.is_ipv4())
            }
            Lower::Ipv6 => {
                matches!(f.summary.src, Some(Address::Ip(IpAddr::V6(_))))
                    || f.summary.outer.iter().any(|o| o.src.is_ipv6())
            }
            Lower::Arp => matches!(f.summary.protocol, "ARP" | "RARP"),
            Lower::Transport(p) => {
                f.summary.protocol == *p
                    || (*p == "UDP" && f.summary.outer.iter().any(|o| o.udp.is_some()))
            }
        },
        Subject::Frame(ff) => f.has_time || !ff.is_time(),
        Subject::Addr { .. } | Subject::Port { .. } | Subject::Derived(_) => {
            each(s, f, &mut |_, _, _| true)
        }
        Subject::Field(name) => f
            .records
            .iter()
            .any(|r| occurrences(&r.fields, name, &mut |_| true)),
        Subject::Layer(name) => occurrences(f.layers, name, &mut |_| true),
        // Arithmetic alone holds where it is not zero (`tcp.flags & 0x02`), as in tshark.
        Subject::Calc(c) => c.nonzero(f),
    }
}

/// Calls `test` on each value of the subject in the frame (with its value name and its length
/// on the wire, 0 when unknown) until it returns true; whether one did.
fn each(
    s: &Subject,
    f: &FrameView<'_>,
    test: &mut impl FnMut(&Value, Option<&str>, usize) -> bool,
) -> bool {
    match s {
        Subject::Field(name) => f.records.iter().any(|r| {
            occurrences(&r.fields, name, &mut |fld| {
                test(&fld.value, fld.note.as_deref(), fld.len)
            })
        }),
        Subject::Layer(name) => occurrences(f.layers, name, &mut |fld| {
            test(&fld.value, fld.note.as_deref(), fld.len)
        }),
        Subject::Derived(d) => d.each(f, test),
        Subject::Calc(c) => c.each(f, test),
        _ => {
            let mut hit = false;
            lower_values(s, f, &mut |v| {
                hit = hit || test(&v, None, 0);
            });
            hit
        }
    }
}

/// The frame-level values of a subject: frame fields, addresses, ports.
fn lower_values(s: &Subject, f: &FrameView<'_>, each: &mut impl FnMut(Value)) {
    let sum = f.summary;
    match *s {
        Subject::Frame(ff) if ff.is_time() && !f.has_time => {}
        Subject::Frame(ff) => each(match ff {
            FrameField::Number => Value::Uint(f.number),
            FrameField::Len => Value::Uint(f.len),
            FrameField::CapLen => Value::Uint(f.cap_len),
            FrameField::TimeEpoch => Value::Float(f.time.as_f64()),
            FrameField::TimeRelative => Value::Float(f.time.since(f.first)),
            FrameField::TimeDelta => Value::Float(f.time.since(f.prev)),
            FrameField::TimeDeltaDisplayed => Value::Float(f.time.since(f.prev_displayed)),
            FrameField::Time | FrameField::TimeUtc => Value::Int(
                i64::try_from(i128::from(f.time.secs) * 1_000_000_000 + i128::from(f.time.nanos))
                    .unwrap_or(i64::MAX),
            ),
        }),
        Subject::Addr { v6, which } => {
            // A tunnel's layers first, outermost first, as tshark lists the occurrences.
            let outer = sum.outer.iter().flat_map(|o| {
                [
                    (Some(Address::Ip(o.src)), Which::Src),
                    (Some(Address::Ip(o.dst)), Which::Dst),
                ]
            });
            for (a, w) in outer.chain([(sum.src, Which::Src), (sum.dst, Which::Dst)]) {
                if which != Which::Either && which != w {
                    continue;
                }
                match a {
                    Some(Address::Ip(IpAddr::V4(a))) if !v6 => each(Value::Ipv4(a)),
                    Some(Address::Ip(IpAddr::V6(a))) if v6 => each(Value::Ipv6(a)),
                    _ => {}
                }
            }
            // Then the packet an ICMP error quotes.
            let names: &[&str] = match (v6, which) {
                (false, Which::Src) => &["ip.src"],
                (false, Which::Dst) => &["ip.dst"],
                (false, Which::Either) => &["ip.src", "ip.dst"],
                (true, Which::Src) => &["ipv6.src"],
                (true, Which::Dst) => &["ipv6.dst"],
                (true, Which::Either) => &["ipv6.src", "ipv6.dst"],
            };
            quoted::values(f.layers, names, each);
        }
        Subject::Port { proto, which } => {
            // The UDP ports of VXLAN and Geneve datagrams first, then the listing's transport.
            let outer = sum
                .outer
                .iter()
                .filter_map(|o| o.udp.filter(|_| proto == "UDP"))
                .flat_map(|(a, b)| [(Some(a), Which::Src), (Some(b), Which::Dst)]);
            let own = (sum.protocol == proto)
                .then_some([(sum.src_port, Which::Src), (sum.dst_port, Which::Dst)])
                .into_iter()
                .flatten();
            for (p, w) in outer.chain(own) {
                if which != Which::Either && which != w {
                    continue;
                }
                if let Some(p) = p {
                    each(Value::Uint(u64::from(p)));
                }
            }
            // Then the header of the packet an ICMP error quotes.
            let names: &[&str] = match (proto, which) {
                ("UDP", Which::Src) => &["udp.srcport"],
                ("UDP", Which::Dst) => &["udp.dstport"],
                ("UDP", Which::Either) => &["udp.srcport", "udp.dstport"],
                ("TCP", Which::Src) => &["tcp.srcport"],
                ("TCP", Which::Dst) => &["tcp.dstport"],
                ("TCP", Which::Either) => &["tcp.srcport", "tcp.dstport"],
                (_, Which::Src) => &["sctp.srcport"],
                (_, Which::Dst) => &["sctp.dstport"],
                (_, Which::Either) => &["sctp.srcport", "sctp.dstport"],
            };
            quoted::values(f.layers, names, each);
        }
        _ => {}
    }
}

/// Calls `test` on every field named `name` in the trees until it returns true.
fn occurrences(fields: &[Field], name: &str, test: &mut impl FnMut(&Field) -> bool) -> bool {
    fields
        .iter()
        .any(|f| (f.name == name && test(f)) || occurrences(&f.children, name, test))
}

/// `rel` between one occurrence and a value; notes whether they could be compared at all.
fn compare_literal(v: &Value, note: Option<&str>, len: usize, rel: Rel, lit: &Literal) -> bool {
    let (holds, fit) = compare_value(v, note, len, rel, lit);
    if !lit.check.fit.get() {
        lit.check.record(fit, note);
    }
    holds
}

/// Whether an ordering satisfies `rel` (`contains` is not an ordering: false).
fn ordered(o: Ordering, rel: Rel) -> bool {
    match rel {
        Rel::Eq => o == Ordering::Equal,
        Rel::Ne => o != Ordering::Equal,
        Rel::Gt => o == Ordering::Greater,
        Rel::Lt => o == Ordering::Less,
        Rel::Ge => o != Ordering::Less,
        Rel::Le => o != Ordering::Greater,
        Rel::Contains | Rel::Matches => false,
    }
}

/// The values a number of `len` bytes on the wire can hold (widened to the value itself, for a
/// field whose value is not its bytes as they are).
/// The largest value of a whole number's type, from its length on the wire (none: not a whole
/// number).
fn whole_max(v: &Value, len: usize) -> Option<i128> {
    matches!(v, Value::Uint(_) | Value::Int(_)).then(|| int_range(v, len).1)
}

fn int_range(v: &Value, len: usize) -> (i128, i128) {
    let bits = if (1..8).contains(&len) {
        8 * len as u32
    } else {
        64
    };
    match *v {
        Value::Int(x) => {
            let half = 1i128 << (bits - 1);
            ((-half).min(x.into()), (half - 1).max(x.into()))
        }
        Value::Uint(u) => (0, ((1i128 << bits) - 1).max(u.into())),
        _ => (0, 0),
    }
}

/// Whether a value name (the note the tree shows after a number) is `text`: the whole note or
/// its part before " (", in any case, as Wireshark matches value names.
fn names_match(note: &str, text: &str) -> bool {
    note.eq_ignore_ascii_case(text)
        || note
            .split(" (")
            .next()
            .is_some_and(|n| n.eq_ignore_ascii_case(text))
}

/// `rel` between one occurrence (its value, value name and bytes on the wire) and a value:
/// whether it holds, and whether the value was one the occurrence could be compared with.
fn compare_value(
    v: &Value,
    note: Option<&str>,
    len: usize,
    rel: Rel,
    lit: &Literal,
) -> (bool, Result<(), Misfit>) {
    let sort = Sort::of(v);
    let order = |o: Option<Ordering>| match o {
        Some(o) => (ordered(o, rel), Ok(())),
        None => (false, Err(Misfit::Not(sort))),
    };
    if rel == Rel::Matches {
        return match (v, &lit.regex) {
            (Value::Str(s), Some(re)) => (re.is_match(s.as_bytes()), Ok(())),
            (Value::Bytes(b), Some(re)) => (re.is_match(b), Ok(())),
            (Value::Mac(m), Some(re)) => (re.is_match(m), Ok(())),
            _ => (false, Err(Misfit::NoMatches(sort))),
        };
    }
    let no_contains = (false, Err(Misfit::NoContains(sort)));
    // An address of `width` bits against a network: on the bits of the shorter prefix.
    let addr = |a: u128, net: Option<(u128, u8)>, width: u8| {
        order(net.map(|(n, p)| {
            let shift = u32::from(width.saturating_sub(p));
            let keep = |x: u128| x.checked_shr(shift).unwrap_or(0);
            keep(a).cmp(&keep(n))
        }))
    };
    match v {
        Value::None => (false, Err(Misfit::Not(Sort::Label))),
        Value::Uint(_) | Value::Int(_) if rel == Rel::Contains => no_contains,
        Value::Uint(_) | Value::Int(_) => {
            let x = match *v {
                Value::Int(x) => i128::from(x),
                Value::Uint(u) => i128::from(u),
                _ => 0,
            };
            match (lit.int, note) {
                (Some(i), _) => {
                    let (lo, hi) = int_range(v, len);
                    let fit = if (lo..=hi).contains(&i) {
                        Ok(())
                    } else {
                        Err(Misfit::OutOfRange(lo, hi))
                    };
                    (ordered(x.cmp(&i), rel), fit)
                }
                (None, Some(n)) if matches!(rel, Rel::Eq | Rel::Ne) => {
                    if names_match(n, &lit.text) {
                        (rel == Rel::Eq, Ok(()))
                    } else {
                        // Another value's name (if it is a name at all).
                        (rel == Rel::Ne, Err(Misfit::NoSuchName))
                    }
                }
                (None, Some(_)) => (false, Err(Misfit::NameOrdered)),
                (None, None) => (false, Err(Misfit::Not(Sort::Number))),
            }
        }
        Value::Float(_) | Value::Bool(_) | Value::Ipv4(_) | Value::Ipv6(_)
            if rel == Rel::Contains =>
        {
            no_contains
        }
        Value::Float(x) => order(lit.float.and_then(|l| x.partial_cmp(&l))),
        Value::Bool(b) => order(lit.boolean.map(|l| b.cmp(&l))),
        Value::Bytes(b) => bytes(b, rel, lit, sort),
        Value::Mac(m) => match &lit.bytes {
            Some(l) if rel != Rel::Contains && l.len() != m.len() => {
                (false, Err(Misfit::Not(sort)))
            }
            _ => bytes(m, rel, lit, sort),
        },
        Value::Str(s) => match rel {
            Rel::Contains => (s.contains(&lit.text), Ok(())),
            _ => order(Some(s.as_str().cmp(&lit.text))),
        },
        Value::Ipv4(a) => addr(
            u32::from(*a).into(),
            lit.v4.map(|(n, p)| (u32::from(n).into(), p)),
            32,
        ),
        Value::Ipv6(a) => addr(u128::from(*a), lit.v6.map(|(n, p)| (u128::from(n), p)), 128),
    }
}

fn bytes(b: &[u8], rel: Rel, lit: &Literal, sort: Sort) -> (bool, Result<(), Misfit>) {
    match (&lit.bytes, rel) {
        (None, _) => (false, Err(Misfit::Not(sort))),
        (Some(l), Rel::Contains) => (contains(b, l), Ok(())),
        (Some(l), _) => (ordered(b.cmp(l), rel), Ok(())),
    }
}

/// `rel` between occurrences of two fields: whether it holds, and whether they could be compared.
fn compare_values(a: &Value, b: &Value, rel: Rel) -> (bool, Result<(), Misfit>) {
    let num = |v: &Value| match *v {
        Value::Uint(u) => Some(i128::from(u)),
        Value::Int(i) => Some(i128::from(i)),
        _ => None,
    };
    let (sa, sb) = (Sort::of(a), Sort::of(b));
    if sa == Sort::Label || sb == Sort::Label {
        return (false, Err(Misfit::Not(Sort::Label)));
    }
    if rel == Rel::Contains {
        return match (a, b) {
            (Value::Str(x), Value::Str(y)) => (x.contains(y.as_str()), Ok(())),
            _ => match (raw(a), raw(b)) {
                (Some(x), Some(y)) => (contains(x, y), Ok(())),
                _ if !sa.contains_applies() => (false, Err(Misfit::NoContains(sa))),
                _ => (false, Err(Misfit::Sorts(sa, sb))),
            },
        };
    }
    let o = match (a, b) {
        (Value::Float(x), Value::Float(y)) => x.partial_cmp(y),
        (Value::Bool(x), Value::Bool(y)) => Some(x.cmp(y)),
        (Value::Str(x), Value::Str(y)) => Some(x.cmp(y)),
        (Value::Ipv4(x), Value::Ipv4(y)) => Some(x.cmp(y)),
        (Value::Ipv6(x), Value::Ipv6(y)) => Some(x.cmp(y)),
        _ => match (num(a), num(b)) {
            (Some(x), Some(y)) => Some(x.cmp(&y)),
            _ => match (raw(a), raw(b)) {
                (Some(x), Some(y)) => Some(x.cmp(y)),
                _ => return (false, Err(Misfit::Sorts(sa, sb))),
            },
        },
    };
    // NaN: comparable kinds, no order.
    (o.is_some_and(|o| ordered(o, rel)), Ok(()))
}

/// A byte string's bytes, or a hardware address's.
fn raw(v: &Value) -> Option<&[u8]> {
    match v {
        Value::Bytes(b) => Some(b),
        Value::Mac(m) => Some(m),
        _ => None,
    }
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    needle.is_empty() || hay.windows(needle.len()).any(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::Timestamp;
    use crate::field::Field;

    fn record(protocol: &'static str, fields: Vec<Field>) -> Record {
        Record {
            frame: 7,
            time: Some(Timestamp::default()),
            src: String::new(),
            dst: String::new(),
            protocol,
            info: String::new(),
            fields,
            errors: Vec::new(),
            reassembled_from: Vec::new(),
            quoted: false,
        }
    }

    fn summary() -> FrameSummary {
        FrameSummary {
            src: Some(Address::Ip("192.0.2.1".parse().unwrap())),
            dst: Some(Address::Ip("192.0.2.200".parse().unwrap())),
            src_port: Some(547),
            dst_port: Some(546),
            protocol: "UDP",
            ..FrameSummary::default()
        }
    }

    /// Frame 7, 120 bytes on the wire, 100 captured, at 1700000002.5, 2.5 s after the first:
    /// `summary()` and `records`.
    fn view<'a>(summary: &'a FrameSummary, records: &'a [Record]) -> FrameView<'a> {
        FrameView {
            number: 7,
            len: 120,
            cap_len: 100,
            time: Timestamp::new(1_700_000_002, 500_000_000),
            first: Timestamp::new(1_700_000_000, 0),
            prev: Timestamp::new(1_700_000_000, 0),
            prev_displayed: Timestamp::new(1_700_000_000, 0),
            has_time: true,
            summary,
            records,
            layers: &[],
        }
    }

    fn run_on(f: &mut Filter, records: &[Record]) -> bool {
        f.matches(&view(&summary(), records))
    }

    fn check(filter: &str, records: &[Record]) -> bool {
        let mut f = Filter::parse(filter).unwrap_or_else(|e| panic!("{filter}: {e}"));
        run_on(&mut f, records)
    }

    fn dhcpv6() -> Vec<Record> {
        vec![record(
            "dhcpv6",
            vec![
                Field::uint("dhcpv6.msgtype", "Message type", 1u8, 0, 1).note("Solicit"),
                Field::uint("dhcpv6.xid", "Transaction ID", 0x26fedd_u32, 1, 3).hex(6),
                Field::node("dhcpv6.option", "Client Identifier", 4, 14).child(Field::bytes(
                    "dhcpv6.duid.bytes",
                    "DUID",
                    &[0, 3, 0, 1, 2, 0, 0, 0, 2, 2],
                    8,
                )),
                Field::ipv6(
                    "dhcpv6.iaaddr.ip",
                    "Address",
                    "2001:db8::5".parse().unwrap(),
                    40,
                ),
                Field::ipv6(
                    "dhcpv6.iaaddr.ip",
                    "Address",
                    "2001:db8::9".parse().unwrap(),
                    70,
                ),
                Field::string("dhcpv6.domain", "Domain", "example.com", 90, 13),
                Field::boolean("dhcpv6.rapid", "Rapid", true, 100, 0),
                Field::bytes("poolshark.handle", "Handle", b"Web", 116),
                Field::new(
                    "dhcpv6.duidll.link_layer_addr",
                    "Link-layer address",
                    Value::Mac([0, 0x1a, 0x2b, 0, 0, 5]),
                    110,
                    6,
                ),
            ],
        )]
    }

    /// Each occurrence of a column in the sample frame, as `-T fields` writes them.
    fn column(name: &str) -> Vec<String> {
        let (sum, records) = (summary(), dhcpv6());
        let mut out = Vec::new();
        Column::parse(name)
            .unwrap_or_else(|e| panic!("{name}: {e}"))
            .values(&view(&sum, &records), &mut |v| out.push(v));
        out
    }

    #[test]
    fn columns_give_each_occurrence_in_tsharks_form() {
        for (name, want) in [
            ("dhcpv6.xid", &["0x26fedd"][..]),
            ("dhcpv6.msgtype", &["1"]),
            ("dhcpv6.iaaddr.ip", &["2001:db8::5", "2001:db8::9"]),
            ("dhcpv6.duid.bytes", &["00030001020000000202"]),
            ("dhcpv6.rapid", &["1"]),
            ("dhcpv6.domain", &["example.com"]),
            ("dhcpv6.duidll.link_layer_addr", &["00:1a:2b:00:00:05"]),
            // A subtree header has no value of its own.
            ("dhcpv6.option", &[]),
            ("dhcpv6", &["dhcpv6"]),
            ("asap", &[]),
            ("ip", &["ip"]),
            ("udp", &["udp"]),
            ("ipv6", &[]),
            ("ip.src", &["192.0.2.1"]),
            ("ip.addr", &["192.0.2.1", "192.0.2.200"]),
            ("udp.srcport", &["547"]),
            ("udp.port", &["547", "546"]),
            ("tcp.port", &[]),
            ("frame.number", &["7"]),
            ("frame.len", &["120"]),
            ("frame.cap_len", &["100"]),
            ("frame.time_epoch", &["1700000002.500000000"]),
            ("frame.time_relative", &["2.500000000"]),
            ("dhcpv6.nosuchfield", &[]),
        ] {
            assert_eq!(column(name), want, "{name}");
        }
        assert!(Column::parse("eth.lg").is_err());
        assert!(Column::parse("1x").is_err());
        assert!(Column::parse("dhcpv6.xid").is_ok_and(|c| c.is_tree_field()));
        assert!(Column::parse("frame.number").is_ok_and(|c| !c.is_tree_field()));
        // Only a lower layer's protocol is written as its label (its header line).
        for (name, labels) in [
            ("eth", true),
            ("vlan", true),
            ("frame", true),
            ("eth.src", false),
            ("ip.ttl", false),
            ("ip", false),
            ("frame.protocols", false),
            ("dhcpv6", false),
        ] {
            assert_eq!(
                Column::parse(name).map(|c| c.needs_labels()),
                Ok(labels),
                "{name}"
            );
        }
        // The frame's times are there for filters too.
        assert!(check(
            "frame.time_relative > 2 && frame.time_relative < 3",
            &dhcpv6()
        ));
        assert!(check("frame.time_epoch >= 1700000002.5", &dhcpv6()));
        assert!(!check("frame.time_relative > 2.5", &dhcpv6()));
        assert_eq!(
            seconds_between(Timestamp::new(10, 5), Timestamp::new(9, 999_999_999)),
            "-0.000000006"
        );
        assert_eq!(
            escape_controls("a\tb\nc\r\0\u{85}é"),
            "a\\tb\\nc\\r\\x00\\xc2\\x85é"
        );
        assert_eq!(escape_controls("plain é"), "plain é");
    }

    #[test]
    fn protocols_fields_and_values() {
        let r = dhcpv6();
        for (filter, want) in [
            ("dhcpv6", true),
            ("asap", false),
            ("dhcp", false),
            ("!asap", true),
            ("dhcpv6.msgtype == 1", true),
            ("dhcpv6.msgtype eq 1", true),
            ("dhcpv6.msgtype == \"solicit\"", true),
            ("dhcpv6.msgtype == Solicit", true),
            ("dhcpv6.msgtype == 3", false),
            ("dhcpv6.msgtype != 3", true),
            ("dhcpv6.msgtype > 0 && dhcpv6.msgtype <= 1", true),
            ("dhcpv6.xid == 0x26fedd", true),
            ("dhcpv6.xid == 2555613", true),
            ("dhcpv6.xid >= 0x26fede", false),
            ("dhcpv6.duid.bytes == 00:03:00:01:02:00:00:00:02:02", true),
            ("dhcpv6.duid.bytes == 00030001020000000202", true),
            ("dhcpv6.duid.bytes contains 02:00:00", true),
            ("dhcpv6.duid.bytes contains 02:03", false),
            // Text against bytes: its own bytes.
            ("poolshark.handle == \"Web\"", true),
            ("poolshark.handle == 57:65:62", true),
            ("poolshark.handle contains \"eb\"", true),
            ("poolshark.handle contains \"web\"", false),
            (
                "dhcpv6.duidll.link_layer_addr == \"00:1a:2b:00:00:05\"",
                false,
            ),
            // Two occurrences (::5 and ::9): == is "one equals", != (ne, all_ne) "none equals",
            // === (all_eq) "every one equals", !== (~=, any_ne) "one differs".
            ("dhcpv6.iaaddr.ip == 2001:db8::9", true),
            ("dhcpv6.iaaddr.ip any_eq 2001:db8::9", true),
            ("dhcpv6.iaaddr.ip != 2001:db8::9", false),
            ("dhcpv6.iaaddr.ip ne 2001:db8::9", false),
            ("dhcpv6.iaaddr.ip all_ne 2001:db8::9", false),
            ("dhcpv6.iaaddr.ip != 2001:db8::7", true),
            ("dhcpv6.iaaddr.ip === 2001:db8::9", false),
            ("dhcpv6.iaaddr.ip all_eq 2001:db8::/64", true),
            ("dhcpv6.iaaddr.ip !== 2001:db8::9", true),
            ("dhcpv6.iaaddr.ip ~= 2001:db8::9", true),
            ("dhcpv6.iaaddr.ip any_ne 2001:db8::9", true),
            ("dhcpv6.iaaddr.ip !== 2001:db8::/64", false),
            ("dhcpv6.iaaddr.ip != 2001:db8::/64", false),
            ("dhcpv6.iaaddr.ip != 2001:db9::/64", true),
            // Ordered on the bits of the shorter prefix.
            ("dhcpv6.iaaddr.ip > 2001:db8::/64", false),
            ("dhcpv6.iaaddr.ip >= 2001:db8::/64", true),
            ("dhcpv6.iaaddr.ip > 2001:db7::/32", true),
            ("ip.addr > 192.0.2.0/24", false),
            ("ip.addr < 192.0.3.0/24", true),
            ("ip.addr in {192.0.2.0/31 .. 192.0.2.100}", true),
            ("ip.addr in {192.0.2.2 ..192.0.2.100}", false),
            ("dhcpv6.msgtype != Solicit", false),
            ("dhcpv6.msgtype != Reply", true),
            ("dhcpv6.msgtype === solicit", true),
            ("dhcpv6.iaaddr.ip == 2001:db8::/64", true),
            ("dhcpv6.iaaddr.ip == 2001:db9::/32", false),
            ("dhcpv6.domain == \"example.com\"", true),
            ("dhcpv6.domain contains ample", true),
            ("dhcpv6.rapid == true", true),
            ("dhcpv6.rapid == 0", false),
            ("dhcpv6.duidll.link_layer_addr == 00:1a:2b:00:00:05", true),
            ("dhcpv6.duidll.link_layer_addr contains 2b:00", true),
            ("dhcpv6.duidll.link_layer_addr contains 2b:01", false),
            ("dhcpv6.duidll.link_layer_addr > 00:1a:2b:00:00:04", true),
            // A field no message has: absent, so every comparison is false, != and === too
            // (they need the field), and only the negation of == holds.
            ("dhcpv6.nothing", false),
            ("dhcpv6.nothing == 1", false),
            ("dhcpv6.nothing != 1", false),
            ("dhcpv6.nothing === 1", false),
            ("dhcpv6.nothing ~= 1", false),
            ("!(dhcpv6.nothing == 1)", true),
            ("tcp.port != 80", false),
            ("udp.port != 80", true),
            ("udp.port != 546", false),
            ("udp.port ~= 546", true),
            ("udp.port === 546", false),
            // A value the field's type cannot take matches nothing.
            ("dhcpv6.msgtype == 10.0.0.1", false),
            // Frame, addresses and ports.
            (
                "frame.number == 7 && frame.len == 120 && frame.cap_len < 101",
                true,
            ),
            ("ip && udp && !tcp && !ipv6", true),
            ("ip.src == 192.0.2.1", true),
            ("ip.dst == 192.0.2.1", false),
            ("ip.addr == 192.0.2.1 and ip.addr == 192.0.2.200", true),
            ("ip.addr == 192.0.2.0/25", true),
            ("ip.dst == 192.0.2.0/25", false),
            ("udp.port == 546", true),
            ("udp.srcport == 546", false),
            ("tcp.port == 546", false),
            ("ipv6.addr == ::1", false),
            // Precedence: && before ||, ! binds tightest, parentheses.
            ("asap || dhcpv6 && dhcpv6.msgtype == 1", true),
            ("(asap || dhcpv6) && dhcpv6.msgtype == 3", false),
            ("not dhcpv6 or dhcpv6.xid == 0x26fedd", true),
            ("!(dhcpv6.msgtype == 1)", false),
            // Sets: values and ranges, on one occurrence; `not in` is `!(in)`.
            ("dhcpv6.msgtype in {3, 1}", true),
            ("dhcpv6.msgtype in {2..5, 7}", false),
            ("dhcpv6.msgtype in {0..1}", true),
            ("dhcpv6.msgtype not in {2, 3}", true),
            ("dhcpv6.iaaddr.ip in {2001:db8::6..2001:db8::8}", false),
            ("dhcpv6.iaaddr.ip in {2001:db8::6..2001:db8::9}", true),
            ("dhcpv6.nothing not in {1}", true),
            ("ip.src in {192.0.2.1, 192.0.2.2}", true),
            ("arp", false),
            // Field with field: every pair of occurrences.
            ("frame.len == frame.cap_len", false),
            ("frame.len > frame.cap_len", true),
            ("udp.srcport == udp.srcport", true),
            ("udp.port == udp.port", true),
            ("udp.port != udp.port", false),
            ("udp.port ~= udp.port", true),
            ("udp.port === udp.port", false),
            ("udp.port === udp.srcport", false),
            ("udp.srcport === udp.srcport", true),
            ("udp.srcport > udp.dstport", true),
            ("dhcpv6.msgtype < frame.number", true),
            ("dhcpv6.iaaddr.ip == dhcpv6.iaaddr.ip", true),
            ("dhcpv6.iaaddr.ip ~= dhcpv6.iaaddr.ip", true),
            ("dhcpv6.iaaddr.ip === dhcpv6.iaaddr.ip", false),
            ("dhcpv6.domain contains dhcpv6.domain", true),
            ("poolshark.handle contains poolshark.handle", true),
            // Absent on one side: nothing holds.
            ("dhcpv6.nothing != dhcpv6.msgtype", false),
            ("dhcpv6.msgtype != tcp.port", false),
            // Different kinds: never equal (reported at the end).
            ("dhcpv6.msgtype == dhcpv6.domain", false),
        ] {
            assert_eq!(check(filter, &r), want, "{filter}");
        }
    }

    #[test]
    fn errors_say_what_and_where() {
        for (filter, offset, what) in [
            ("", 0, "ends"),
            ("dhcpv6 &&", 9, "ends"),
            ("dhcpv6.msgtype ==", 17, "expected a value after '=='"),
            ("(asap || enrp", 13, "expected ')'"),
            ("asap enrp", 5, "unexpected 'enrp'"),
            ("asap == 1", 5, "is a protocol"),
            (
                "ip.opt.len == 3",
                0,
                "'ip.opt.len' is not kept by poolshark",
            ),
            (
                "udp.time_delta > 3",
                0,
                "'udp.time_delta' is not kept by poolshark",
            ),
            (
                "tcp.analysis.flags",
                0,
                "tcp.stream, tcp.seq, tcp.nxtseq, tcp.ack",
            ),
            ("sctp.forward_tsn_tsn == 3", 0, "sctp.data_tsn_raw"),
            ("1abc", 0, "neither a field nor a protocol"),
            ("dhcpv6.domain == \"x", 17, "closing quote"),
            ("asap $ enrp", 5, "unexpected character '$'"),
            ("&& asap", 0, "expected a field"),
            ("dhcpv6.xid in 1", 14, "expected '{'"),
            ("dhcpv6.xid in {1 2}", 17, "expected ',' or '}'"),
            ("dhcpv6.xid in {1,", 17, "expected a value after ','"),
            ("asap in {1}", 5, "is a protocol"),
            // Names: the first part must be a protocol poolshark knows, in lowercase.
            ("DHCP", 0, "'DHCP' is not a protocol poolshark knows"),
            ("Dhcp.secs", 0, "'Dhcp' is not a protocol"),
            ("dhcpv6 && Dhcpv6.xid == 1", 10, "lowercase ('dhcpv6.xid')"),
            ("icmpv6.mtu == 1280", 0, "'icmpv6.mtu' is not kept"),
            ("igmp.type == 1", 0, "'igmp' is not a protocol"),
            ("arp.isgratuitous", 0, "'arp.isgratuitous' is not kept"),
            (
                "eth.lg == 1",
                0,
                "of eth's fields, filters and columns see eth.dst, eth.src, eth.addr, eth.type",
            ),
            ("poolshark", 0, "poolshark.*"),
            ("dhcpv6 AND asap", 7, "keywords are lowercase: 'and'"),
            ("NOT asap", 0, "keywords are lowercase ('not')"),
            ("dhcpv6.xid EQ 1", 11, "unexpected 'EQ'"),
            // Values the frame's own fields cannot take, at the value's byte.
            ("ip.addr == 192.0.2.300", 11, "not an IPv4 address"),
            ("ip.addr == 192.0.2.1/33", 11, "prefix '/33'"),
            ("ip.addr == fe80::1", 11, "not an IPv4 address"),
            ("ipv6.src == 10.0.0.1", 12, "not an IPv6 address"),
            ("ipv6.addr == fe80::/129", 13, "prefix '/129'"),
            ("ip.dst == \"10.0.0.1\"", 10, "not quoted text"),
            ("udp.port == 70000", 12, "outside udp.port's range 0..65535"),
            ("tcp.srcport == -1", 15, "outside"),
            ("sctp.port in {1..70000}", 17, "outside"),
            ("sctp.port in {1 .. 2, x}", 22, "not a whole number"),
            ("frame.number == 1.5", 16, "not a whole number"),
            ("frame.len > 4294967296", 12, "range 0..4294967295"),
            ("frame.time_relative > 1e2", 22, "not a number of seconds"),
            ("frame.len contains 1", 10, "'contains' does not apply"),
            ("ip.src contains 10.0.0.1", 7, "'contains' does not apply"),
            // Fields compared: what is known of both is checked.
            ("ip.src == udp.port", 10, "cannot be compared"),
            ("frame.time_epoch > frame.len", 19, "cannot be compared"),
            ("dhcpv6.xid == udp", 14, "is a protocol"),
            (
                "dhcpv6.xid contains udp.port",
                11,
                "'contains' does not apply",
            ),
            ("udp.port in {udp.srcport}", 13, "not fields"),
            ("dhcpv6.xid in {..3}", 15, "before '..'"),
            ("dhcpv6.xid in {1 ..}", 19, "expected a value"),
        ] {
            let e = Filter::parse(filter).expect_err(filter);
            assert_eq!(e.offset, offset, "{filter}: {e}");
            assert!(e.what.contains(what), "{filter}: {e}");
        }
    }

    #[test]
    fn unseen_fields_are_reported() {
        let mut f = Filter::parse("dhcpv6.msgtype == 1 || dhcpv6.xdi == 3 || asap").unwrap();
        run_on(&mut f, &dhcpv6());
        assert_eq!(f.unseen_fields(), vec!["dhcpv6.xdi"]);
    }

    /// What `problems` says after one frame of `dhcpv6()`, joined.
    fn problems_after(filter: &str) -> String {
        let mut f = Filter::parse(filter).unwrap_or_else(|e| panic!("{filter}: {e}"));
        run_on(&mut f, &dhcpv6());
        f.problems().join("\n")
    }

    #[test]
    fn values_no_occurrence_could_take_are_reported_with_their_byte() {
        for (filter, want) in [
            (
                "dhcpv6.msgtype == Solicitt",
                "value 'Solicitt' (byte 18) could not be compared with dhcpv6.msgtype",
            ),
            (
                "dhcpv6.msgtype == Solicitt",
                "value names of dhcpv6.msgtype seen ('Solicit')",
            ),
            // A name no message had may be a real one: the report says both.
            (
                "dhcpv6.msgtype != Reply",
                "or a value that no message here had",
            ),
            ("dhcpv6.xid == foo", "'foo' (byte 14)"),
            (
                "dhcpv6.xid == 1.5",
                "dhcpv6.xid holds whole numbers, and it is not one",
            ),
            // Three bytes on the wire.
            ("dhcpv6.xid > 16777216", "outside 0..16777215"),
            ("dhcpv6.xid in {1..16777216}", "'16777216' (byte 18)"),
            ("dhcpv6.msgtype > Solicit", "not ordered"),
            ("dhcpv6.rapid == maybe", "booleans"),
            ("dhcpv6.iaaddr.ip == 10.0.0.1", "IPv6 addresses"),
            ("dhcpv6.iaaddr.ip == 2001:db8::/200", "IPv6 addresses"),
            (
                "dhcpv6.duidll.link_layer_addr == 00:1a",
                "hardware addresses",
            ),
            ("dhcpv6.duid.bytes == xyz", "holds bytes"),
            ("dhcpv6.option == 1", "no value of its own"),
            (
                "dhcpv6.xid contains 1",
                "'contains' does not apply to dhcpv6.xid",
            ),
            (
                "dhcpv6.msgtype == dhcpv6.domain",
                "compares dhcpv6.msgtype with dhcpv6.domain (byte 18)",
            ),
            (
                "udp.port != dhcpv6.iaaddr.ip",
                "udp.port holds whole numbers and",
            ),
        ] {
            let got = problems_after(filter);
            assert!(got.contains(want), "{filter}: {got}");
        }
        // Values that fit, however the comparison comes out; and fields that were not met.
        for filter in [
            "dhcpv6.msgtype == Solicit",
            "dhcpv6.msgtype in {3, Solicit}",
            "dhcpv6.xid == 0x26fedd || dhcpv6.xid > 16777215",
            "dhcpv6.domain > zzz",
            "dhcpv6.rapid == 0",
            "dhcpv6.iaaddr.ip != ::1/0",
            "dhcpv6.duidll.link_layer_addr contains 00:1a",
            "poolshark.handle == \"Web\"",
            "asap.message_type == foo",
            "dhcpv6.xid > dhcpv6.msgtype",
            "frame.number == 7",
        ] {
            assert_eq!(problems_after(filter), "", "{filter}");
        }
    }

    #[test]
    fn arp_is_the_frames_summary_protocol() {
        for (protocol, want) in [("ARP", true), ("RARP", true), ("UDP", false)] {
            let s = FrameSummary {
                protocol,
                ..FrameSummary::default()
            };
            let mut f = Filter::parse("arp").unwrap();
            assert_eq!(f.matches(&view(&s, &[])), want, "{protocol}");
        }
        assert_eq!(column("arp"), Vec::<String>::new());
    }

    proptest::proptest! {
        /// Whatever is typed parses or fails with an offset inside it, and a filter that parses
        /// evaluates: from any characters, and from the language's own tokens in any order.
        #[test]
        fn any_text_parses_or_errs_within_it(text in "\\PC{0,40}") {
            parse_and_run(&text);
        }

        #[test]
        fn any_token_sequence_parses_or_errs_within_it(
            tokens in proptest::collection::vec(proptest::sample::select(vec![
                "asap", "dhcpv6", "ip", "udp.port", "ip.addr", "frame.number", "dhcpv6.msgtype",
                "dhcpv6.iaaddr.ip", "dhcpv6.duid.bytes", "==", "!=", ">=", "<", "contains", "in",
                "not", "!", "&&", "||", "and", "(", ")", "{", "}", ",", "1", "0x10", "1..3",
                "2001:db8::/64", "10.0.0.0/8", "00:03", "\"Solicit\"", "\"", "..", "-",
                "===", "!==", "~=", "all_ne", "udp.srcport", "frame.len", "arp", "DHCP", "Solicitt",
                "70000", "10.0.0.0/40", "..2", "len(", "count(", "max(", "min(", "string(",
                "upper(", "abs(", "[0:2]", "[-1]", "[1-3]", "[:9223372036854775807]", "[", "]",
                "dhcpv6.domain", "poolshark.handle", "dhcpv6.option", "matches", "~",
                "r\"\\d+\"", "\"\\x90\"", "\"[a-\"", "\"(?-i)EX\"",
            ]), 0..12)
        ) {
            parse_and_run(&tokens.join(" "));
        }
    }

    fn parse_and_run(text: &str) {
        match Filter::parse(text) {
            Ok(mut f) => {
                run_on(&mut f, &dhcpv6());
            }
            Err(e) => assert!(e.offset <= text.len(), "{text:?}: {e}"),
        }
    }

    #[test]
    fn literals() {
        assert_eq!(parse_int("0x1F"), Some(31));
        assert_eq!(parse_int("-5"), Some(-5));
        assert_eq!(parse_int("12a"), None);
        assert_eq!(parse_bytes("0a-0B"), Some(vec![10, 11]));
        assert_eq!(parse_bytes("0a:b"), None);
        assert_eq!(parse_bytes("abc"), None);
        let l = literal("10.0.0.0/8", false, 0);
        assert_eq!(l.v4, Some((Ipv4Addr::new(10, 0, 0, 0), 8)));
        assert_eq!(literal("10.0.0.0/33", false, 0).v4, None);
        assert_eq!(literal("10.0.0.0/", false, 0).v4, None);
        assert_eq!(literal("10.0.0.1", true, 0).v4, None);
        assert_eq!(literal("inf", false, 0).float, None);
        assert!(plain_decimal("12") && plain_decimal("-0.25") && plain_decimal("1."));
        assert!(!plain_decimal("1e2") && !plain_decimal(".") && !plain_decimal("0x1"));
        assert_eq!(quoted(r#""a\"b" x"#, 0, false), Ok((b"a\"b".to_vec(), 6)));
        assert_eq!(
            quoted(r#""\x62\101\t\\\u00e9\0" x"#, 0, false),
            Ok((b"bA\t\\\xc3\xa9\0".to_vec(), 22))
        );
        assert_eq!(
            quoted(r#""\.\"\d" x"#, 0, true),
            Ok((br#"\.\"\d"#.to_vec(), 8))
        );
        for bad in [r#""\.""#, r#""\x""#, r#""\u12""#, r#""\777""#, r#""\q""#] {
            let e = quoted(bad, 0, false).unwrap_err();
            assert_eq!(e.offset, 1, "{bad}");
            assert!(e.what.contains("is not an escape"), "{bad}: {e}");
        }
    }

    /// Slices and functions on the sample frame: what each derives, and what is told at the end
    /// when nothing could take one.
    #[test]
    fn slices_and_functions_derive_from_every_occurrence() {
        let records = dhcpv6();
        for (filter, want) in [
            ("dhcpv6.duid.bytes[0:2] == 00:03", true),
            ("dhcpv6.duid.bytes[-2:] == 02:02", true),
            ("dhcpv6.duid.bytes[9:2] == 02", false),
            ("dhcpv6.domain[0:7] == \"example\"", true),
            ("dhcpv6.iaaddr.ip[15] == 09", true),
            ("dhcpv6.iaaddr.ip[15] === 09", false),
            ("dhcpv6.duidll.link_layer_addr[1-2] == 1a:2b", true),
            ("len(dhcpv6.domain) == 11", true),
            ("len(dhcpv6.option) == 14", true),
            ("len(dhcpv6.rapid) == 0", true),
            ("len(dhcpv6.xid) == 3", true),
            ("count(dhcpv6.iaaddr.ip) == 2", true),
            ("count(dhcpv6.nosuch) == 0", false),
            ("count(dhcpv6) == 1 && count(ip) == 1", true),
            ("max(dhcpv6.iaaddr.ip) == 2001:db8::9", true),
            ("min(dhcpv6.iaaddr.ip) == 2001:db8::5", true),
            // Fields of different sizes (tshark: "must have the same type"): nothing.
            ("max(dhcpv6.msgtype, dhcpv6.xid) == 0x26fedd", false),
            ("min(dhcpv6.msgtype, dhcpv6.xid, udp.port) == 1", false),
            ("max(dhcpv6.xid, dhcpv6.xid + 1) == 0x26fede", true),
            ("min(dhcpv6.msgtype, 0) == 0", true),
            ("string(dhcpv6.xid) == \"2555613\"", true),
            ("upper(dhcpv6.domain) == \"EXAMPLE.COM\"", true),
            ("lower(upper(dhcpv6.domain)) == \"example.com\"", false),
            ("string(ip.dst) contains \".200\"", true),
            ("ip.src[0:3] == ip.dst[0:3]", true),
            ("frame.len > max(udp.port)", false),
            ("abs(frame.time_relative) == 2.5", true),
        ] {
            let parsed = Filter::parse(filter);
            if filter.starts_with("lower(upper") {
                assert!(parsed.is_err(), "{filter}");
                continue;
            }
            assert_eq!(check(filter, &records), want, "{filter}");
        }
        // Text with numbers: nothing to take the largest of, and said at the end.
        let mut f = Filter::parse("max(dhcpv6.domain, dhcpv6.xid) > 1").unwrap();
        assert!(!run_on(&mut f, &records));
        let problems = f.problems();
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(
            problems[0].starts_with(
                "the display filter's max(dhcpv6.domain, dhcpv6.xid) (byte 0) applied to no \
                 occurrence of dhcpv6.domain, dhcpv6.xid in any message read: dhcpv6.domain, \
                 dhcpv6.xid had occurrences of different kinds"
            ),
            "{problems:?}"
        );
        // A slice of a number is told of; one that met some bytes is not.
        let mut f = Filter::parse("dhcpv6.xid[0] == 00 || poolshark.handle[0] == 00").unwrap();
        assert!(!run_on(&mut f, &records));
        assert_eq!(f.problems().len(), 1);
        assert!(f.problems()[0].contains("dhcpv6.xid holds whole numbers"));
    }
    /// Arithmetic on the frame's numbers (frame 7, 120 bytes, 100 captured, ports 547 and 546,
    /// 2.5 s after the first) and on a tree field that occurs twice: tshark's precedence (`&`
    /// last), braces, unary minus, no wrapping, no value for a division by zero, a value per
    /// occurrence and per pair of occurrences, and arithmetic alone as a test of not zero.
    #[test]
    fn arithmetic_binds_and_computes_as_tshark_does() {
        let v6 = dhcpv6();
        for (filter, holds) in [
            ("frame.len - 20 == frame.cap_len", true),
            ("frame.len - 20 == frame.cap_len + 1", false),
            ("frame.len & 1 + 7 == 8", true), // 120 & 8
            ("{frame.len & 1} + 7 == 7", true),
            ("frame.len + 2 * 3 == 126", true),
            ("{frame.len + 2} * 3 == 366", true),
            ("frame.len - 10 - 10 == 100", true), // from the left
            ("frame.len / 7 == 17", true),
            ("frame.len % 7 == 1", true),
            ("frame.len / 0 == 0", false),
            ("frame.len / 0 != 0", false),
            ("frame.len - 200 < 0", true),
            ("-frame.len == -120", true),
            ("- frame.len < -119", true),
            ("frame.len & 0x07", false),
            ("frame.len & 0x08", true),
            ("not frame.len & 0x07", true),
            ("frame.number * 2", true),
            ("frame.number - 7", false),
            ("frame.time_relative + 0.5 == 3", true),
            ("frame.time_relative - 3 < 0", true),
            ("udp.port + udp.port == 1093", true), // 547 + 546
            ("udp.port + udp.port == 1094", true), // 547 + 547
            ("udp.port + udp.port == 1095", false),
            ("udp.srcport - udp.dstport == 1", true),
            ("ip.src & 255.255.255.0 == 192.0.2.0", true),
            ("ip.dst & 0.0.0.255 == 0.0.0.200", true),
            ("ip.src & 0.0.0.0", false),
            ("dhcpv6.msgtype + 1 == 2", true),
            ("dhcpv6.iaaddr.ip & ::ff == ::9", true),
            ("dhcpv6.iaaddr.ip & ::ff == ::7", false),
            ("dhcpv6.duid.bytes & 00:ff == 00:03", true),
            ("frame.len > dhcpv6.msgtype + 118", true),
            ("frame.len > dhcpv6.msgtype + 119", false),
        ] {
            assert_eq!(check(filter, &v6), holds, "{filter}");
        }
    }

    /// `open` 1,000 times, `inner`, `close` as often.
    fn nested(open: &str, inner: &str, close: &str) -> String {
        format!("{}{inner}{}", open.repeat(1000), close.repeat(1000))
    }

    /// What arithmetic cannot take is refused when the filter is read, where the kind is known
    /// then, and named at the end where it is a tree field's.
    #[test]
    fn arithmetic_that_cannot_apply_says_so() {
        for (filter, at, said) in [
            ("ip.src + 1 == 1", 7, "ip.src holds IPv4 addresses"),
            ("frame.time_relative * 2 > 1", 20, "only '+' and '-' apply"),
            ("frame.time + 1 > 2", 11, "take no arithmetic"),
            (
                "frame.len & 1.5",
                12,
                "'1.5' is not one of the whole numbers that frame.len",
            ),
            (
                "frame.time_relative + x > 1",
                22,
                "'x' is not one of the numbers",
            ),
            (
                "1 + 2 == 3",
                0,
                "must be a field or a function, not only values",
            ),
            (
                "{1 + 2} == 3",
                0,
                "must be a field or a function, not only values: {1 + 2}",
            ),
            ("frame.len + 1 contains 3", 14, "not with 'contains'"),
            ("frame.len + 1 in {2}", 14, "not with 'in'"),
            (
                "{frame.len + 1 == 2",
                15,
                "expected '}' for the '{' at byte 0",
            ),
            (
                "frame.len + == 2",
                12,
                "expected a field or a value, found '=='",
            ),
            ("frame.len + udp == 2", 12, "'udp' is a protocol"),
            // Bounds on the stack the parser and the evaluation take.
            (&nested("(", "frame", ")"), 256, "nests deeper than 256"),
            (&nested("{", "frame.len", "}"), 255, "nests deeper than 256"),
            (&nested("not ", "frame", ""), 1024, "nests deeper than 256"),
            (&nested("- ", "frame.len", ""), 510, "nests deeper than 256"),
            (
                &vec!["frame"; 3000].join(" && "),
                18432,
                "longer than 4096 names",
            ),
        ] {
            let shown = &filter[..filter.len().min(60)];
            let e = Filter::parse(filter).expect_err(shown);
            assert!(e.what.contains(said), "{shown}: {e}");
            assert_eq!(e.offset, at, "{shown}: {e}");
        }
        let v6 = dhcpv6();
        let mut f = Filter::parse("dhcpv6.duid.bytes * 2 == 4").unwrap();
        assert!(!run_on(&mut f, &v6));
        let problems = f.problems();
        assert!(
            problems
                .iter()
                .any(|p| p.contains("computes dhcpv6.duid.bytes * 2 (byte 0)")
                    && p.contains("holds bytes")),
            "{problems:?}"
        );
    }

    /// tshark 4.0's functions of arithmetic and constants: `abs`, `max` and `min` take them and
    /// `abs`, `max`, `min` of fields (a constant of `max` or `min` is there in every frame), the
    /// others take fields only; the left side of a test cannot start with a value.
    #[test]
    fn functions_take_arithmetic_and_constants_as_tshark_does() {
        let v6 = dhcpv6();
        for (filter, holds) in [
            ("abs(-frame.len) == 120", true),
            ("abs(frame.len - 2000) == 1880", true),
            ("abs({frame.len - 2000}) > 1880", false),
            ("max(frame.len + 1, 3) == 121", true),
            ("max(frame.len, 3) == 120", true),
            ("max(frame.len, 300) == 300", true),
            ("min(frame.len, 3, 4) == 3", true),
            ("max(frame.len - 200, -1) == -1", true),
            ("min(-frame.len, 3) == -120", true),
            ("abs(abs(frame.len)) == 120", true),
            ("max(abs(frame.len), 3) == 120", true),
            ("frame.len == abs(-120)", true),
            ("frame.len == max(120, 3)", true),
            ("frame.len == max(121, 3)", false),
            ("min(frame.time_relative, 1.5) == 1.5", true),
            // A constant is there where the field is not (no TCP here); a field alone is not.
            ("max(tcp.port, 3) == 3", true),
            ("min(tcp.port, 3) == 3", true),
            ("abs(-tcp.port) >= 0", false),
            ("max(tcp.srcport, tcp.dstport) >= 0", false),
            ("max(dhcpv6.msgtype, 0) == 1", true),
            ("max(dhcpv6.xid, dhcpv6.xid + 1) == 0x26fede", true),
            ("count(dhcpv6) == 1", true),
        ] {
            assert_eq!(check(filter, &v6), holds, "{filter}");
        }
        for (filter, at, said) in [
            ("abs(3) == 3", 4, "starts with the value '3'"),
            ("abs(-3) > 0", 4, "starts with the value '-3'"),
            ("max(3, frame.len) > 0", 4, "starts with the value '3'"),
            ("{1 + frame.len} > 0", 1, "starts with the value '1'"),
            ("300 + frame.len > 0", 0, "starts with the value '300'"),
            (
                "len(frame.len + 1) > 0",
                0,
                "len() takes fields, not a slice or a function's value, nor arithmetic",
            ),
            ("count(3) > 0", 0, "count() takes fields"),
            (
                "string(abs(frame.len)) == \"1\"",
                0,
                "string() takes fields",
            ),
            ("upper(\"a\") == \"A\"", 0, "upper() takes fields"),
            ("len(ip.src[0:2]) > 0", 0, "len() takes fields"),
            ("abs(ip.src[0:2]) > 0", 0, "not a slice (ip.src[0:2])"),
            ("max(ip.src[0], 3) > 0", 0, "not a slice (ip.src[0])"),
            ("abs(frame.len, 3) > 0", 0, "abs() takes one field"),
            (
                "max(frame.len, 3.5) > 0",
                15,
                "'3.5' is not one of the whole numbers",
            ),
            (
                "max(frame.len, \"3\") > 0",
                15,
                "is not one of the whole numbers",
            ),
            (
                "max(frame.len, udp.port) > 0",
                0,
                "max() takes fields of one type",
            ),
            (
                "min(frame.len, udp.port + 0) > 0",
                0,
                "min() takes fields of one type",
            ),
            (
                "min(udp.port, 70000) > 0",
                14,
                "'70000' is too big for udp.port, whose values go up to 65535",
            ),
            ("max(foo.bar, 3) > 0", 4, "'foo' is not a protocol"),
            ("abs(frame.len + ) > 0", 16, "expected a field or a value"),
        ] {
            let e = Filter::parse(filter).expect_err(filter);
            assert!(e.what.contains(said), "{filter}: {e}");
            assert_eq!(e.offset, at, "{filter}: {e}");
        }
    }

    /// A constant in arithmetic, or compared with it, must be one the field the arithmetic takes
    /// its type from (its first) can hold, as in tshark ("too big for this field"), by its
    /// magnitude when negative; an error where the type is known before reading, else nothing
    /// kept and said at the end. A negative value on the right of an unsigned one is its 64-bit
    /// two's complement, as in tshark 4.0.
    #[test]
    fn constants_must_fit_the_type_arithmetic_takes() {
        for (filter, at, said) in [
            (
                "frame.len + 5000000000 > 0",
                12,
                "'5000000000' is too big for frame.len, whose values go up to 4294967295",
            ),
            (
                "udp.port + 65536 > 0",
                11,
                "'65536' is too big for udp.port",
            ),
            (
                "udp.port + -65536 > 0",
                11,
                "'-65536' is too big for udp.port",
            ),
            ("udp.port * 65536 > 0", 11, "'65536' is too big"),
            ("udp.port & 0x10000", 11, "'0x10000' is too big"),
            (
                "{udp.port + 1} - 70000 < 0",
                17,
                "'70000' is too big for udp.port",
            ),
            (
                "-udp.port + 70000 > 0",
                12,
                "'70000' is too big for udp.port",
            ),
            (
                "frame.len > 1 + udp.port * 70000",
                27,
                "'70000' is too big for udp.port",
            ),
            (
                "udp.port + frame.len > 70000",
                23,
                "'70000' is too big for udp.port",
            ),
        ] {
            let e = Filter::parse(filter).expect_err(filter);
            assert!(e.what.contains(said), "{filter}: {e}");
            assert_eq!(e.offset, at, "{filter}: {e}");
        }
        for fits in [
            "udp.port + 65535 > 0",
            "udp.port + -65535 < 0",
            "frame.len + udp.port > 70000",
            "frame.len > 1 + udp.port",
            "frame.len + 4294967295 > 0",
        ] {
            Filter::parse(fits).unwrap_or_else(|e| panic!("{fits}: {e}"));
        }
        let v6 = dhcpv6();
        // Known from the occurrences (dhcpv6.msgtype is one byte on the wire).
        for (filter, said) in [
            ("dhcpv6.msgtype + 256 > 0", "constant '256' (byte 17)"),
            ("dhcpv6.msgtype - -256 > 0", "constant '-256' (byte 17)"),
            (
                "dhcpv6.msgtype + frame.len > 256",
                "constant '256' (byte 29)",
            ),
            ("abs(dhcpv6.msgtype * 300) > 0", "constant '300' (byte 21)"),
            (
                "max(dhcpv6.msgtype, 300) > 0",
                "the constant '300' (byte 20) is too big for dhcpv6.msgtype",
            ),
            (
                "max(dhcpv6.msgtype, dhcpv6.xid) > 0",
                "fields of one type, and dhcpv6.msgtype is 1 bytes on the wire, dhcpv6.xid 3",
            ),
        ] {
            let mut f = Filter::parse(filter).unwrap_or_else(|e| panic!("{filter}: {e}"));
            assert!(!run_on(&mut f, &v6), "{filter}");
            let problems = f.problems();
            assert!(
                problems.iter().any(|p| p.contains(said)),
                "{filter}: {problems:?}"
            );
        }
        for (filter, holds) in [
            ("dhcpv6.msgtype + 255 > 255", true), // 256: no wrapping at 8 bits
            ("dhcpv6.msgtype + frame.len > 255", false),
            ("max(dhcpv6.msgtype, 255) == 255", true),
            // Negative values against unsigned ones, as tshark 4.0 computes them.
            ("frame.len + -1 == 119", false),
            ("frame.len * -1 == -120", false),
            ("frame.len - -1 == 121", false),
            ("frame.len & -1 == 120", true),
            ("frame.len / -1 == 0", true),
            ("frame.len % -1 == 120", true),
            ("-frame.len + -1 == -121", true),
            ("-frame.len * -1 == 120", true),
            ("frame.len - 200 + -1 == -81", true),
            ("frame.len - 100 + -1 == 19", false),
        ] {
            let mut f = Filter::parse(filter).unwrap_or_else(|e| panic!("{filter}: {e}"));
            assert_eq!(run_on(&mut f, &v6), holds, "{filter}");
            assert!(f.problems().is_empty(), "{filter}: {:?}", f.problems());
        }
    }
}
