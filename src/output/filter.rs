//! Display filters (`read -Y`, `capture -Y`): the part of Wireshark's display-filter language a
//! frame of poolshark's can answer.
//!
//! ```text
//! expr   := or
//! or     := and { ("||" | "or") and }
//! and    := unary { ("&&" | "and") unary }
//! unary  := ("!" | "not") unary | "(" expr ")" | test
//! test   := NAME [ op VALUE | ["not"] "in" "{" item { "," item } "}" ]
//! op     := "==" | "eq" | "!=" | "ne" | ">" | "gt" | "<" | "lt" | ">=" | "ge" | "<=" | "le"
//!         | "contains"
//! item   := VALUE | VALUE ".." VALUE
//! ```
//!
//! A NAME is a protocol (`asap`, `enrp`, `dhcp`, `dhcpv6`, `dhcpfo`; the frame's `ip`, `ipv6`,
//! `udp`, `tcp`, `sctp`), a field of the messages' trees (the names of `read -V` and of the JSON
//! records, e.g. `asap.message_type`, `dhcpv6.xid`), a field of the frame (`frame.number`,
//! `frame.len`, `frame.cap_len`, `frame.time_epoch`, `frame.time_relative`) or of its addresses
//! and ports (`ip.src`, `ip.dst`, `ip.addr`, `ipv6.*` likewise, `udp.port`, `udp.srcport`,
//! `udp.dstport`, `tcp.*` and `sctp.*` likewise: the layer the listing shows, the deepest
//! decoded). A VALUE is a number (decimal or `0x` hex), an
//! address (`192.0.2.0/24` matches the subnet), bytes (`00:1a:2b`, `00-1a-2b`, `001a2b`, or
//! quoted text for its own bytes), `true` or `false`, or text (in double quotes when it has
//! spaces). As in Wireshark, a test holds when any occurrence of the field satisfies it (`in`:
//! equals an item, or lies in a range item), `a != b` is `!(a == b)` and `a not in {..}` is
//! `!(a in {..})`. A numeric field also equals the name of its value (`dhcpv6.msgtype ==
//! "Solicit"`).

use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use super::Record;
use crate::dissect::{Address, FrameSummary};
use crate::field::{format_float_g15, Base, Field, Value};
use crate::proto::AppProtocol;
use crate::source::Timestamp;

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

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    Eq,
    Ne,
    Gt,
    Lt,
    Ge,
    Le,
    Contains,
}

/// A value as written, with every reading of it the field types may ask for.
#[derive(Clone, Debug)]
struct Literal {
    text: String,
    int: Option<i128>,
    float: Option<f64>,
    boolean: Option<bool>,
    /// Hex bytes, or a quoted text's own bytes.
    bytes: Option<Vec<u8>>,
    /// An address and the prefix length it covers (32 or 128 without a `/`).
    v4: Option<(Ipv4Addr, u8)>,
    v6: Option<(Ipv6Addr, u8)>,
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
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Lower {
    Ip,
    Ipv6,
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
    Test(Subject, Option<(Op, Literal)>),
    /// `in {..}`: each item a value, or a range with its upper end.
    In(Subject, Vec<(Literal, Option<Literal>)>),
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
    pub summary: &'a FrameSummary,
    pub records: &'a [Record],
}

impl Filter {
    pub fn parse(text: &str) -> Result<Filter, FilterError> {
        let tokens = tokenize(text)?;
        let mut p = Parser {
            tokens,
            at: 0,
            end: text.len(),
        };
        let expr = p.or()?;
        if let Some(t) = p.tokens.get(p.at) {
            return Err(FilterError {
                offset: t.offset,
                what: format!("unexpected '{}'", t.text),
            });
        }
        let mut fields = Vec::new();
        collect_fields(&expr, &mut fields);
        Ok(Filter { expr, fields })
    }

    /// Whether the frame passes. Records which named fields occurred, for [`Self::unseen_fields`].
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
            Subject::Frame(FrameField::TimeEpoch) => each(f.time.to_string()),
            Subject::Frame(FrameField::TimeRelative) => each(seconds_between(f.first, f.time)),
            Subject::Field(name) => {
                for r in f.records {
                    occurrences(&r.fields, name, &mut |fld| {
                        match fld.value {
                            Value::None => {}
                            Value::Bool(b) => each(u8::from(b).to_string()),
                            Value::Float(x) => each(format_float_g15(x)),
                            Value::Str(ref t) => each(escape_controls(t)),
                            _ => each(fld.display_value()),
                        }
                        false
                    });
                }
            }
            _ => lower_values(&self.subject, f, &mut |v| each(v.display(Base::Dec))),
        }
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
fn seconds_between(earlier: Timestamp, later: Timestamp) -> String {
    let ns = |t: Timestamp| i128::from(t.secs) * 1_000_000_000 + i128::from(t.nanos);
    let d = ns(later) - ns(earlier);
    let sign = if d < 0 { "-" } else { "" };
    let d = d.unsigned_abs();
    format!("{sign}{}.{:09}", d / 1_000_000_000, d % 1_000_000_000)
}

fn collect_fields(e: &Expr, out: &mut Vec<(String, bool)>) {
    match e {
        Expr::Or(a, b) | Expr::And(a, b) => {
            collect_fields(a, out);
            collect_fields(b, out);
        }
        Expr::Not(a) => collect_fields(a, out),
        Expr::Test(Subject::Field(name), _) | Expr::In(Subject::Field(name), _) => {
            if !out.iter().any(|(n, _)| n == name) {
                out.push((name.clone(), false));
            }
        }
        Expr::Test(..) | Expr::In(..) => {}
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
}

#[derive(Clone, Debug)]
struct Token {
    kind: Kind,
    text: String,
    offset: usize,
}

fn word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b':' | b'/' | b'-')
}

fn tokenize(s: &str) -> Result<Vec<Token>, FilterError> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let start = i;
        let two = b.get(i..i + 2).unwrap_or(&[]);
        let (kind, len) = match (b[i], two) {
            (c, _) if c.is_ascii_whitespace() => {
                i += 1;
                continue;
            }
            (_, b"==") => (Kind::Op(Op::Eq), 2),
            (_, b"!=") => (Kind::Op(Op::Ne), 2),
            (_, b">=") => (Kind::Op(Op::Ge), 2),
            (_, b"<=") => (Kind::Op(Op::Le), 2),
            (_, b"&&") => (Kind::And, 2),
            (_, b"||") => (Kind::Or, 2),
            (b'>', _) => (Kind::Op(Op::Gt), 1),
            (b'<', _) => (Kind::Op(Op::Lt), 1),
            (b'!', _) => (Kind::Not, 1),
            (b'(', _) => (Kind::Open, 1),
            (b')', _) => (Kind::Close, 1),
            (b'{', _) => (Kind::SetOpen, 1),
            (b'}', _) => (Kind::SetClose, 1),
            (b',', _) => (Kind::Comma, 1),
            (b'"', _) => {
                let (text, len) = quoted(s, i)?;
                out.push(Token {
                    kind: Kind::Quoted,
                    text,
                    offset: start,
                });
                i += len;
                continue;
            }
            (c, _) if word_byte(c) => {
                let len = b[i..].iter().take_while(|&&c| word_byte(c)).count();
                let text = &s[i..i + len];
                let kind = match text.to_ascii_lowercase().as_str() {
                    "and" => Kind::And,
                    "or" => Kind::Or,
                    "not" => Kind::Not,
                    "eq" => Kind::Op(Op::Eq),
                    "ne" => Kind::Op(Op::Ne),
                    "gt" => Kind::Op(Op::Gt),
                    "lt" => Kind::Op(Op::Lt),
                    "ge" => Kind::Op(Op::Ge),
                    "le" => Kind::Op(Op::Le),
                    "contains" => Kind::Op(Op::Contains),
                    "in" => Kind::In,
                    _ => Kind::Word,
                };
                (kind, len)
            }
            _ => {
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
        });
        i += len;
    }
    Ok(out)
}

/// The string starting with the quote at `at`, unescaped, and the bytes it took with its quotes.
fn quoted(s: &str, at: usize) -> Result<(String, usize), FilterError> {
    let mut out = String::new();
    let mut chars = s[at + 1..].char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => return Ok((out, i + 2)),
            '\\' => match chars.next() {
                Some((_, e)) => out.push(e),
                None => break,
            },
            c => out.push(c),
        }
    }
    Err(FilterError {
        offset: at,
        what: "a string without its closing quote".into(),
    })
}

struct Parser {
    tokens: Vec<Token>,
    at: usize,
    /// The filter's length: where "expected ..." points when it ends early.
    end: usize,
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

    fn test(&mut self, name: &Token) -> Result<Expr, FilterError> {
        let subject = subject(&name.text).map_err(|what| FilterError {
            offset: name.offset,
            what,
        })?;
        let kind = |p: &Self, ahead: usize| p.tokens.get(p.at + ahead).map(|t| t.kind.clone());
        let negated_in = kind(self, 0) == Some(Kind::Not) && kind(self, 1) == Some(Kind::In);
        let op = match kind(self, 0) {
            Some(Kind::Op(op)) => Some(op),
            Some(Kind::In) => None,
            _ if negated_in => None,
            _ => return Ok(Expr::Test(subject, None)),
        };
        let op_at = self.here();
        if matches!(subject, Subject::App(_) | Subject::Lower(_)) {
            return Err(FilterError {
                offset: op_at,
                what: format!(
                    "'{}' is a protocol: it can be tested for, not compared",
                    name.text
                ),
            });
        }
        let Some(op) = op else {
            self.at += if negated_in { 2 } else { 1 };
            let set = Expr::In(subject, self.set()?);
            return Ok(if negated_in {
                Expr::Not(Box::new(set))
            } else {
                set
            });
        };
        self.at += 1;
        let value = self.value()?;
        Ok(Expr::Test(subject, Some((op, value))))
    }

    /// A value where one must be; the error names the token before.
    fn value(&mut self) -> Result<Literal, FilterError> {
        match self.peek() {
            Some(t) if matches!(t.kind, Kind::Word | Kind::Quoted) => {
                let quoted = t.kind == Kind::Quoted;
                let l = literal(&t.text, quoted);
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
            let range = self
                .peek()
                .filter(|t| t.kind == Kind::Word)
                .and_then(|t| t.text.split_once(".."))
                .map(|(lo, hi)| (literal(lo, false), literal(hi, false)));
            match range {
                Some((lo, hi)) => {
                    self.at += 1;
                    items.push((lo, Some(hi)));
                }
                None => items.push((self.value()?, None)),
            }
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
    let valid = name.starts_with(|c: char| c.is_ascii_alphabetic())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.' || b == b'-');
    if !valid {
        return Err(format!("'{name}' is neither a field nor a protocol name"));
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
    let (proto, rest) = name.split_once('.').unwrap_or((name, ""));
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
        ("frame.number", ..) => Subject::Frame(FrameField::Number),
        ("frame.len", ..) => Subject::Frame(FrameField::Len),
        ("frame.cap_len", ..) => Subject::Frame(FrameField::CapLen),
        ("frame.time_epoch", ..) => Subject::Frame(FrameField::TimeEpoch),
        ("frame.time_relative", ..) => Subject::Frame(FrameField::TimeRelative),
        (_, "ip" | "ipv6", Some(which)) if !rest.ends_with("port") => Subject::Addr {
            v6: proto == "ipv6",
            which,
        },
        (_, "frame" | "ip" | "ipv6" | "eth", _) => return Err(not_kept(name)),
        _ => Subject::Field(name.to_string()),
    })
}

fn not_kept(name: &str) -> String {
    format!(
        "'{name}' is not kept by poolshark: of the lower layers, filters see frame.number, \
         frame.len, frame.cap_len, frame.time_epoch, frame.time_relative, ip/ipv6 .src .dst .addr \
         and udp/tcp/sctp .port .srcport .dstport"
    )
}

fn literal(text: &str, quoted: bool) -> Literal {
    let int = if quoted { None } else { parse_int(text) };
    let float = if quoted { None } else { text.parse().ok() };
    let boolean = match text.to_ascii_lowercase().as_str() {
        "true" | "1" => Some(true),
        "false" | "0" => Some(false),
        _ => None,
    };
    let (addr, prefix) = match text.split_once('/') {
        Some((a, p)) => (a, p.parse::<u8>().ok()),
        None => (text, None),
    };
    let v4 = addr
        .parse::<Ipv4Addr>()
        .ok()
        .and_then(|a| Some((a, prefix.map_or(Some(32), |p| (p <= 32).then_some(p))?)));
    let v6 = addr
        .parse::<Ipv6Addr>()
        .ok()
        .and_then(|a| Some((a, prefix.map_or(Some(128), |p| (p <= 128).then_some(p))?)));
    Literal {
        text: text.to_string(),
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
        Expr::Test(s, None) => present(s, f),
        Expr::Test(s, Some((Op::Ne, lit))) => {
            !any(s, f, &mut |v, note| compare_value(v, note, Op::Eq, lit))
        }
        Expr::Test(s, Some((op, lit))) => {
            any(s, f, &mut |v, note| compare_value(v, note, *op, lit))
        }
        Expr::In(s, items) => any(s, f, &mut |v, note| {
            items.iter().any(|(lo, hi)| match hi {
                None => compare_value(v, note, Op::Eq, lo),
                Some(hi) => {
                    compare_value(v, note, Op::Ge, lo) && compare_value(v, note, Op::Le, hi)
                }
            })
        }),
    }
}

fn present(s: &Subject, f: &FrameView<'_>) -> bool {
    match s {
        Subject::App(p) => f.records.iter().any(|r| r.protocol == *p),
        Subject::Lower(l) => match l {
            Lower::Ip => matches!(f.summary.src, Some(Address::Ip(IpAddr::V4(_)))),
            Lower::Ipv6 => matches!(f.summary.src, Some(Address::Ip(IpAddr::V6(_)))),
            Lower::Transport(p) => f.summary.protocol == *p,
        },
        Subject::Frame(_) => true,
        Subject::Addr { .. } | Subject::Port { .. } => {
            let mut any = false;
            lower_values(s, f, &mut |_| any = true);
            any
        }
        Subject::Field(name) => f
            .records
            .iter()
            .any(|r| occurrences(&r.fields, name, &mut |_| true)),
    }
}

/// Whether any value of the subject in the frame passes `test` (given the value and its name).
fn any(
    s: &Subject,
    f: &FrameView<'_>,
    test: &mut impl FnMut(&Value, Option<&str>) -> bool,
) -> bool {
    match s {
        Subject::Field(name) => f.records.iter().any(|r| {
            occurrences(&r.fields, name, &mut |fld| {
                test(&fld.value, fld.note.as_deref())
            })
        }),
        _ => {
            let mut hit = false;
            lower_values(s, f, &mut |v| {
                hit = hit || test(&v, None);
            });
            hit
        }
    }
}

/// The frame-level values of a subject: frame fields, addresses, ports.
fn lower_values(s: &Subject, f: &FrameView<'_>, each: &mut impl FnMut(Value)) {
    let sum = f.summary;
    match *s {
        Subject::Frame(ff) => each(match ff {
            FrameField::Number => Value::Uint(f.number),
            FrameField::Len => Value::Uint(f.len),
            FrameField::CapLen => Value::Uint(f.cap_len),
            FrameField::TimeEpoch => Value::Float(f.time.as_f64()),
            FrameField::TimeRelative => Value::Float(f.time.since(f.first)),
        }),
        Subject::Addr { v6, which } => {
            for (a, w) in [(sum.src, Which::Src), (sum.dst, Which::Dst)] {
                if which != Which::Either && which != w {
                    continue;
                }
                match a {
                    Some(Address::Ip(IpAddr::V4(a))) if !v6 => each(Value::Ipv4(a)),
                    Some(Address::Ip(IpAddr::V6(a))) if v6 => each(Value::Ipv6(a)),
                    _ => {}
                }
            }
        }
        Subject::Port { proto, which } if sum.protocol == proto => {
            for (p, w) in [(sum.src_port, Which::Src), (sum.dst_port, Which::Dst)] {
                if which != Which::Either && which != w {
                    continue;
                }
                if let Some(p) = p {
                    each(Value::Uint(u64::from(p)));
                }
            }
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

fn compare_value(v: &Value, note: Option<&str>, op: Op, lit: &Literal) -> bool {
    use std::cmp::Ordering;
    let order = |o: Option<Ordering>| match (o, op) {
        (Some(o), Op::Eq) => o == Ordering::Equal,
        (Some(o), Op::Gt) => o == Ordering::Greater,
        (Some(o), Op::Lt) => o == Ordering::Less,
        (Some(o), Op::Ge) => o != Ordering::Less,
        (Some(o), Op::Le) => o != Ordering::Greater,
        _ => false,
    };
    // A numeric field equals the name of its value ("Solicit", "Round Robin").
    let named = || {
        op == Op::Eq
            && note.is_some_and(|n| {
                n.eq_ignore_ascii_case(&lit.text)
                    || n.split(" (")
                        .next()
                        .is_some_and(|n| n.eq_ignore_ascii_case(&lit.text))
            })
    };
    let bytes = |b: &[u8]| match op {
        Op::Contains => lit.bytes.as_deref().is_some_and(|l| contains(b, l)),
        _ => order(lit.bytes.as_deref().map(|l| b.cmp(l))),
    };
    // An address of `width` bits: == takes a network (`/prefix`), the others a whole address.
    let addr = |a: u128, net: Option<(u128, u8)>, width: u8| match net {
        Some((net, p)) if op == Op::Eq => {
            (a ^ net).checked_shr(u32::from(width - p)).unwrap_or(0) == 0
        }
        Some((net, p)) if p == width => order(Some(a.cmp(&net))),
        _ => false,
    };
    match v {
        Value::None => false,
        Value::Uint(u) => order(lit.int.map(|i| i128::from(*u).cmp(&i))) || named(),
        Value::Int(x) => order(lit.int.map(|i| i128::from(*x).cmp(&i))) || named(),
        Value::Float(x) => order(lit.float.and_then(|l| x.partial_cmp(&l))),
        Value::Bool(b) => matches!(op, Op::Eq) && lit.boolean == Some(*b),
        Value::Bytes(b) => bytes(b),
        Value::Mac(m) => bytes(m),
        Value::Str(s) => match op {
            Op::Contains => s.contains(&lit.text),
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

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    needle.is_empty() || hay.windows(needle.len()).any(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::field::Field;
    use crate::source::Timestamp;

    fn record(protocol: &'static str, fields: Vec<Field>) -> Record {
        Record {
            frame: 7,
            time: Timestamp::default(),
            src: String::new(),
            dst: String::new(),
            protocol,
            info: String::new(),
            fields,
            errors: Vec::new(),
            reassembled_from: Vec::new(),
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
            summary,
            records,
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
        assert!(Column::parse("eth.src").is_err());
        assert!(Column::parse("1x").is_err());
        assert!(Column::parse("dhcpv6.xid").is_ok_and(|c| c.is_tree_field()));
        assert!(Column::parse("frame.number").is_ok_and(|c| !c.is_tree_field()));
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
            // Any occurrence; != is "none equal".
            ("dhcpv6.iaaddr.ip == 2001:db8::9", true),
            ("dhcpv6.iaaddr.ip != 2001:db8::9", false),
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
            // A field no message has: absent, so == is false and != true.
            ("dhcpv6.nothing", false),
            ("dhcpv6.nothing == 1", false),
            ("dhcpv6.nothing != 1", true),
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
            ("ip.ttl == 3", 0, "'ip.ttl' is not kept by poolshark"),
            ("udp.length > 3", 0, "'udp.length' is not kept by poolshark"),
            ("1abc", 0, "neither a field nor a protocol"),
            ("dhcpv6.domain == \"x", 17, "closing quote"),
            ("asap $ enrp", 5, "unexpected character '$'"),
            ("&& asap", 0, "expected a field"),
            ("dhcpv6.xid in 1", 14, "expected '{'"),
            ("dhcpv6.xid in {1 2}", 17, "expected ',' or '}'"),
            ("dhcpv6.xid in {1,", 17, "expected a value after ','"),
            ("asap in {1}", 5, "is a protocol"),
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
        let l = literal("10.0.0.0/8", false);
        assert_eq!(l.v4, Some((Ipv4Addr::new(10, 0, 0, 0), 8)));
        assert_eq!(literal("10.0.0.0/33", false).v4, None);
        assert_eq!(quoted(r#""a\"b" x"#, 0), Ok(("a\"b".to_string(), 6)));
    }
}
