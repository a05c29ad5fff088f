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
//! [`date::parse_absolute`]) or of its addresses and ports (`ip.src`, `ip.dst`, `ip.addr`,
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
//!
//! The compiler, a file a stage: [`lexer`] cuts the text into tokens (names, values, operators,
//! keywords); [`parser`] builds the tree of tests ([`parser::Expr`]) and reads each value in every
//! way a field type may ask for; [`check`] resolves the names (protocols, the frame's fields, the
//! lower layers' and the messages' trees, [`crate::field::catalogue`]) and checks what is known of
//! the types before reading, and keeps what the run learns for [`Filter::problems`]; [`eval`] runs
//! the tree on a frame; [`arith`] and [`derived`] are the arithmetic, slices and functions;
//! [`columns`] looks up a `-T fields` column's values, and [`quoted`] the packet an ICMP error
//! quotes.

mod arith;
mod check;
mod columns;
mod date;
mod derived;
mod eval;
mod lexer;
mod parser;
pub mod quoted;
#[cfg(test)]
mod tests;

pub(crate) use columns::seconds_between;
pub use columns::Column;

use std::fmt;

use crate::base::Timestamp;
use crate::dissect::FrameSummary;
use crate::field::Field;
use crate::field::Record;
use check::problems;
use eval::{eval, occurrences};
use lexer::{case_hint, tokenize};
use parser::{Expr, Parser, Subject, MAX_TOKENS};

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

    /// The fields of the messages' trees the filter names, each once: a message whose
    /// protocol's trees never hold one of them needs no tree to be filtered.
    pub fn tree_names(&self) -> impl Iterator<Item = &str> {
        self.fields.iter().map(|(n, _)| n.as_str())
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
