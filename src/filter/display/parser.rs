//! The display filter's tree ([`Expr`], [`Subject`], [`Literal`]) and the recursive-descent parser
//! that builds it from the tokens, by the grammar in the [module's documentation](super): it
//! resolves each name through [`super::check`] and reads each value as every field type may ask
//! ([`literal`]), bounding the nesting it recurses into ([`MAX_NESTING`]).

use std::net::{Ipv4Addr, Ipv6Addr};

use super::arith::{ArithOp, Calc, Operand};
use super::check::{
    check_value, field_pair, is_field_name, leading_const, subject, valid_name, Check, Sort,
};
use super::derived::{Derive, Derived};
use super::lexer::{Kind, Op, Rel, Token};
use super::FilterError;
use super::{arith, derived};

/// A value as written, with every reading of it the field types may ask for.
#[derive(Clone, Debug)]
pub(super) struct Literal {
    pub(super) text: String,
    pub(super) quoted: bool,
    /// Its byte in the filter.
    pub(super) offset: usize,
    pub(super) int: Option<i128>,
    /// A finite number.
    pub(super) float: Option<f64>,
    pub(super) boolean: Option<bool>,
    /// Hex bytes, or a quoted text's own bytes.
    pub(super) bytes: Option<Vec<u8>>,
    /// The regular expression `matches` tests with.
    pub(super) regex: Option<regex::bytes::Regex>,
    /// An address and the prefix length it covers (32 or 128 without a `/`).
    pub(super) v4: Option<(Ipv4Addr, u8)>,
    pub(super) v6: Option<(Ipv6Addr, u8)>,
    /// Whether the occurrences it met could be compared with it.
    pub(super) check: Check,
}

/// What a name refers to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Subject {
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
    pub(super) fn sort(&self) -> Option<Sort> {
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
    pub(super) fn needs_layers(&self) -> bool {
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

    pub(super) fn is_protocol(&self) -> bool {
        matches!(self, Subject::App(_) | Subject::Lower(_))
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Lower {
    Ip,
    Ipv6,
    /// ARP (and RARP, which Wireshark's `arp` covers too).
    Arp,
    Transport(&'static str),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum FrameField {
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
    pub(super) fn is_time(self) -> bool {
        !matches!(
            self,
            FrameField::Number | FrameField::Len | FrameField::CapLen
        )
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Which {
    Src,
    Dst,
    Either,
}

#[derive(Clone, Debug)]
pub(super) enum Expr {
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
pub(super) struct FieldPair {
    pub(super) left: Subject,
    pub(super) op: Op,
    pub(super) right: Subject,
    pub(super) names: (String, String),
    /// The right-hand name's byte in the filter.
    pub(super) at: usize,
    pub(super) check: Check,
}

/// The longest filter read, in tokens, and the deepest nesting of parentheses, braces, `not`
/// and minus signs: the parser, the evaluation and the dropping of a filter recurse into it, so
/// both bound the stack they take (a filter of 20,000 parentheses overflowed it).
pub(super) const MAX_TOKENS: usize = 4096;
const MAX_NESTING: usize = 256;

pub(super) struct Parser {
    pub(super) tokens: Vec<Token>,
    pub(super) at: usize,
    /// The filter's length: where "expected ..." points when it ends early.
    pub(super) end: usize,
    /// How deep the parser is in nested parentheses, braces, `not`s and minus signs.
    pub(super) depth: usize,
}

impl Parser {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.at)
    }

    pub(super) fn here(&self) -> usize {
        self.peek().map_or(self.end, |t| t.offset)
    }

    pub(super) fn or(&mut self) -> Result<Expr, FilterError> {
        self.chain(Kind::Or, Self::and, Expr::Or)
    }

    pub(super) fn and(&mut self) -> Result<Expr, FilterError> {
        self.chain(Kind::And, Self::unary, Expr::And)
    }

    /// `next { joiner next }`, joined from the left.
    pub(super) fn chain(
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

    pub(super) fn unary(&mut self) -> Result<Expr, FilterError> {
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
    pub(super) fn term(&mut self, first: &Token) -> Result<(Subject, String), FilterError> {
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
    pub(super) fn argument(&mut self, at: usize) -> Result<(Subject, String), FilterError> {
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
    pub(super) fn test(&mut self, name: &Token) -> Result<Expr, FilterError> {
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
    pub(super) fn operand(&mut self) -> Result<(Operand, String), FilterError> {
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
    pub(super) fn compare(&mut self, subject: Subject, text: String) -> Result<Expr, FilterError> {
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
    pub(super) fn regex(&mut self, subject: Subject, op: Op) -> Result<Expr, FilterError> {
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
    pub(super) fn value(&mut self) -> Result<Literal, FilterError> {
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
    pub(super) fn item(&mut self) -> Result<(Literal, Option<Literal>), FilterError> {
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
    pub(super) fn set(&mut self) -> Result<Vec<(Literal, Option<Literal>)>, FilterError> {
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

pub(super) fn literal(text: &str, quoted: bool, offset: usize) -> Literal {
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

pub(super) fn parse_int(s: &str) -> Option<i128> {
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
pub(super) fn parse_bytes(s: &str) -> Option<Vec<u8>> {
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
