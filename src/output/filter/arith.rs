//! Arithmetic in display filters, as tshark 4.0 has it: `frame.len - 14 > ip.len`,
//! `tcp.flags & 0x12 == 0x12`, `ip.src & 255.255.0.0 == 10.1.0.0`, `-abs(x)`, grouped with braces
//! (`{frame.len & 3} + 1 == 2`).
//!
//! The operators bind as tshark's do: unary minus first, then `*`, `/` and `%`, then `+` and `-`,
//! then `&` last (`frame.len & 1 + 1` is `frame.len & 2`), each joined from the left, and all of
//! them before the comparison. `+ - * / %` take numbers (whole or not); `&` takes whole numbers,
//! IPv4 and IPv6 addresses, hardware addresses and byte strings. Whole numbers are computed without
//! wrapping (`frame.len - 2000 < 0` holds, as in tshark); a division by zero gives nothing, so the
//! frame does not pass. A field with several occurrences gives a value for each, and two such
//! fields every pair (`udp.port + udp.port == 135` on a DHCP datagram from 67 to 68), as tshark
//! computes. A test of arithmetic alone (`tcp.flags & 0x02`) holds when a value is not zero.
//!
//! Where tshark differs: it refuses a constant outside the field's range (`ip.ttl + 300`), which
//! poolshark computes; the types of tree fields are known only from the messages, so a field that
//! cannot take an operator is reported at the end ([`Filter::problems`](super::Filter::problems)),
//! as a slice's or function's is.

use std::net::{Ipv4Addr, Ipv6Addr};

use super::{each, Check, FilterError, FrameField, FrameView, Literal, Misfit, Sort, Subject};
use crate::field::Value;

/// An arithmetic operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum ArithOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    /// Bitwise and.
    And,
}

impl ArithOp {
    /// The operator a symbol stands for (`-` and `/` are parts of words too: the parser asks
    /// for them where an operator may be).
    pub(super) fn of(symbol: &str) -> Option<ArithOp> {
        Some(match symbol {
            "+" => ArithOp::Add,
            "-" => ArithOp::Sub,
            "*" => ArithOp::Mul,
            "/" => ArithOp::Div,
            "%" => ArithOp::Rem,
            "&" => ArithOp::And,
            _ => return None,
        })
    }

    fn symbol(self) -> &'static str {
        match self {
            ArithOp::Add => "+",
            ArithOp::Sub => "-",
            ArithOp::Mul => "*",
            ArithOp::Div => "/",
            ArithOp::Rem => "%",
            ArithOp::And => "&",
        }
    }

    /// How tightly it binds: the higher, the earlier.
    pub(super) fn precedence(self) -> u8 {
        match self {
            ArithOp::And => 0,
            ArithOp::Add | ArithOp::Sub => 1,
            ArithOp::Mul | ArithOp::Div | ArithOp::Rem => 2,
        }
    }

    /// Whether it takes values of this kind.
    fn applies(self, sort: Sort) -> bool {
        match self {
            ArithOp::And => matches!(
                sort,
                Sort::Number | Sort::Ipv4 | Sort::Ipv6 | Sort::Mac | Sort::Bytes
            ),
            _ => matches!(sort, Sort::Number | Sort::Float),
        }
    }

    fn takes(self) -> &'static str {
        match self {
            ArithOp::And => "'&' takes whole numbers, addresses and byte strings",
            _ => "'+', '-', '*', '/' and '%' take numbers",
        }
    }
}

/// One side of an operator.
#[derive(Clone, Debug)]
pub(super) enum Operand {
    /// A field, a slice or a function of fields, and its name as written.
    Term(Subject, String),
    /// A number, an address or bytes, read as the other side's kind.
    Const(Box<Literal>),
    Neg(Box<Operand>),
    Bin(ArithOp, Box<Operand>, Box<Operand>),
}

impl Operand {
    /// `a op b`; an error (at `at`) where a side's kind is known now and cannot take `op`.
    pub(super) fn bin(
        op: ArithOp,
        a: Operand,
        b: Operand,
        at: usize,
    ) -> Result<Operand, FilterError> {
        for side in [&a, &b] {
            if let Some(why) = side.time_refuses(op) {
                return Err(FilterError {
                    offset: at,
                    what: why,
                });
            }
            if let Some(sort) = side.sort().filter(|s| !op.applies(*s)) {
                return Err(FilterError {
                    offset: at,
                    what: format!(
                        "{} holds {}: {}",
                        side.describe(),
                        sort.describe(),
                        op.takes()
                    ),
                });
            }
        }
        // A constant must be readable as the kind of the other side, where that is known.
        for (c, other) in [(&a, &b), (&b, &a)] {
            let (Operand::Const(lit), Some(sort)) = (c, other.sort()) else {
                continue;
            };
            if constant_of(lit, sort).is_none() {
                return Err(FilterError {
                    offset: lit.offset,
                    what: format!(
                        "'{}' is not one of the {} that {} holds",
                        lit.text,
                        sort.describe(),
                        other.describe()
                    ),
                });
            }
        }
        Ok(Operand::Bin(op, Box::new(a), Box::new(b)))
    }

    /// Why a time cannot take `op`, if it is one: tshark adds and subtracts times in seconds
    /// but does not multiply or divide them, and has no arithmetic on dates.
    fn time_refuses(&self, op: ArithOp) -> Option<String> {
        let Operand::Term(Subject::Frame(ff), name) = self else {
            return None;
        };
        match ff {
            FrameField::Time | FrameField::TimeUtc => Some(format!(
                "{name} holds dates and times: they take no arithmetic, as in tshark"
            )),
            FrameField::TimeRelative | FrameField::TimeDelta | FrameField::TimeDeltaDisplayed
                if !matches!(op, ArithOp::Add | ArithOp::Sub) =>
            {
                Some(format!(
                    "{name} holds a time in seconds: only '+' and '-' apply to it, as in tshark"
                ))
            }
            _ => None,
        }
    }

    /// `-a`.
    pub(super) fn neg(a: Operand, at: usize) -> Result<Operand, FilterError> {
        if let Some(why) = a.time_refuses(ArithOp::Sub) {
            return Err(FilterError {
                offset: at,
                what: why,
            });
        }
        match a.sort() {
            Some(Sort::Number | Sort::Float) | None => Ok(Operand::Neg(Box::new(a))),
            Some(sort) => Err(FilterError {
                offset: at,
                what: format!(
                    "{} holds {}: '-' takes numbers",
                    a.describe(),
                    sort.describe()
                ),
            }),
        }
    }

    fn describe(&self) -> String {
        match self {
            Operand::Term(_, name) => name.clone(),
            Operand::Neg(_) | Operand::Bin(..) => "the value".into(),
            Operand::Const(l) => format!("'{}'", l.text),
        }
    }

    /// The kind of value it gives, when known before reading.
    pub(super) fn sort(&self) -> Option<Sort> {
        match self {
            Operand::Term(s, _) => s.sort(),
            Operand::Const(_) => None,
            Operand::Neg(a) => a.sort(),
            Operand::Bin(op, a, b) => match (a.sort(), b.sort()) {
                (Some(Sort::Float), _) | (_, Some(Sort::Float)) if *op != ArithOp::And => {
                    Some(Sort::Float)
                }
                (Some(s), _) | (None, Some(s)) => Some(s),
                (None, None) => None,
            },
        }
    }

    /// Whether a field (not only constants) is in it.
    pub(super) fn has_term(&self) -> bool {
        match self {
            Operand::Term(..) => true,
            Operand::Const(_) => false,
            Operand::Neg(a) => a.has_term(),
            Operand::Bin(_, a, b) => a.has_term() || b.has_term(),
        }
    }

    /// Calls `f` on every field in it.
    pub(super) fn terms<'a>(&'a self, f: &mut impl FnMut(&'a Subject)) {
        match self {
            Operand::Term(s, _) => f(s),
            Operand::Const(_) => {}
            Operand::Neg(a) => a.terms(f),
            Operand::Bin(_, a, b) => {
                a.terms(f);
                b.terms(f);
            }
        }
    }
}

/// At most this many values are computed for one operand in a frame (the pairs of two fields'
/// occurrences grow as their product).
const MAX_VALUES: usize = 1024;

/// An arithmetic expression and what a run learnt of it.
#[derive(Clone, Debug)]
pub(super) struct Calc {
    pub(super) expr: Operand,
    /// As written, for the messages.
    pub(super) text: String,
    /// Its byte in the filter.
    pub(super) at: usize,
    check: Check,
}

impl PartialEq for Calc {
    fn eq(&self, other: &Self) -> bool {
        self.text == other.text && self.at == other.at
    }
}

impl Eq for Calc {}

impl Calc {
    pub(super) fn new(expr: Operand, text: String, at: usize) -> Calc {
        Calc {
            expr,
            text,
            at,
            check: Check::default(),
        }
    }

    /// Calls `test` on each value computed in the frame until it returns true; whether one did.
    pub(super) fn each(
        &self,
        f: &FrameView<'_>,
        test: &mut dyn FnMut(&Value, Option<&str>, usize) -> bool,
    ) -> bool {
        let mut out = Vec::new();
        self.values(&self.expr, f, None, &mut out);
        out.iter().any(|v| test(v, None, 0))
    }

    /// Whether a value computed in the frame is not zero (a test of the arithmetic alone).
    pub(super) fn nonzero(&self, f: &FrameView<'_>) -> bool {
        self.each(f, &mut |v, _, _| match v {
            Value::Uint(x) => *x != 0,
            Value::Int(x) => *x != 0,
            Value::Float(x) => *x != 0.0,
            Value::Ipv4(a) => !a.is_unspecified(),
            Value::Ipv6(a) => !a.is_unspecified(),
            Value::Mac(m) => m.iter().any(|b| *b != 0),
            Value::Bytes(b) => b.iter().any(|b| *b != 0),
            Value::Bool(b) => *b,
            Value::Str(s) => !s.is_empty(),
            Value::None => false,
        })
    }

    /// The values of `e` in the frame, constants read as the kind of `like` (the other side's
    /// value) where there is one.
    fn values(&self, e: &Operand, f: &FrameView<'_>, like: Option<&Value>, out: &mut Vec<Value>) {
        match e {
            Operand::Term(s, _) => {
                each(s, f, &mut |v, _, _| {
                    out.push(v.clone());
                    out.len() >= MAX_VALUES
                });
            }
            Operand::Const(lit) => match (constant(lit, like), like) {
                (Some(v), _) => out.push(v),
                // Not a value of the other side's kind (`2` against bytes).
                (None, Some(l)) => self.note(Err(Misfit::Not(Sort::of(l)))),
                (None, None) => {}
            },
            Operand::Neg(a) => {
                let mut inner = Vec::new();
                self.values(a, f, like, &mut inner);
                for v in inner {
                    match negate(&v) {
                        Ok(n) => {
                            self.note(Ok(()));
                            out.extend(n);
                        }
                        Err(m) => self.note(Err(m)),
                    }
                }
            }
            Operand::Bin(op, a, b) => {
                // A constant is read as the kind of the field on the other side.
                let (mut left, mut right) = (Vec::new(), Vec::new());
                if matches!(**a, Operand::Const(_)) && b.has_term() {
                    self.values(b, f, like, &mut right);
                    self.values(a, f, right.first(), &mut left);
                } else {
                    self.values(a, f, like, &mut left);
                    self.values(b, f, left.first().or(like), &mut right);
                }
                'pairs: for x in &left {
                    for y in &right {
                        match combine(*op, x, y) {
                            Ok(v) => {
                                self.note(Ok(()));
                                out.extend(v);
                            }
                            Err(m) => self.note(Err(m)),
                        }
                        if out.len() >= MAX_VALUES {
                            break 'pairs;
                        }
                    }
                }
            }
        }
    }

    fn note(&self, outcome: Result<(), Misfit>) {
        if !self.check.fit.get() {
            self.check.record(outcome, None);
        }
    }

    /// A value compared with the computed ones, checked as far as the kind is known now.
    pub(super) fn check_literal(&self, lit: &Literal) -> Result<(), FilterError> {
        let ok = match self.expr.sort() {
            _ if lit.quoted && lit.bytes.is_some() && self.expr.sort() == Some(Sort::Bytes) => true,
            Some(_) if lit.quoted => false,
            Some(Sort::Number) => lit.int.is_some(),
            Some(Sort::Float) => lit.float.is_some(),
            Some(Sort::Ipv4) => lit.v4.is_some(),
            Some(Sort::Ipv6) => lit.v6.is_some(),
            Some(Sort::Mac | Sort::Bytes) => lit.bytes.is_some(),
            _ => true,
        };
        match (ok, self.expr.sort()) {
            (true, _) | (false, None) => Ok(()),
            (false, Some(sort)) => Err(FilterError {
                offset: lit.offset,
                what: format!(
                    "'{}' is not one of the {} that {} gives",
                    lit.text,
                    sort.describe(),
                    self.text
                ),
            }),
        }
    }

    /// Why no occurrence it met could take it, when that is so: a sentence for the end of the
    /// run.
    pub(super) fn problem(&self) -> Option<String> {
        let why = match self.check.failed()? {
            Misfit::Not(s) => format!("a field in it holds {}", s.describe()),
            Misfit::Sorts(a, b) => format!(
                "it met {} with {}, which do not combine",
                a.describe(),
                b.describe()
            ),
            _ => "its fields could not be combined".into(),
        };
        Some(format!(
            "the display filter computes {} (byte {}), but no occurrence could take it: {why}; \
             '+', '-', '*', '/' and '%' take numbers, '&' whole numbers, addresses and byte \
             strings",
            self.text, self.at
        ))
    }
}

/// A whole number as a value: unsigned where it is not negative, nothing beyond 64 bits.
fn whole(x: i128) -> Option<Value> {
    u64::try_from(x)
        .map(Value::Uint)
        .ok()
        .or_else(|| i64::try_from(x).ok().map(Value::Int))
}

fn int_of(v: &Value) -> Option<i128> {
    match *v {
        Value::Uint(u) => Some(i128::from(u)),
        Value::Int(i) => Some(i128::from(i)),
        _ => None,
    }
}

/// A constant read as the kind of `like`; on its own, a whole number if it is one.
fn constant(lit: &Literal, like: Option<&Value>) -> Option<Value> {
    let v4 = || {
        lit.v4
            .filter(|(_, p)| *p == 32)
            .map(|(a, _)| Value::Ipv4(a))
    };
    let v6 = || {
        lit.v6
            .filter(|(_, p)| *p == 128)
            .map(|(a, _)| Value::Ipv6(a))
    };
    match like {
        Some(Value::Float(_)) => lit.float.map(Value::Float),
        Some(Value::Ipv4(_)) => v4(),
        Some(Value::Ipv6(_)) => v6(),
        Some(Value::Mac(_) | Value::Bytes(_)) => lit.bytes.clone().map(Value::Bytes),
        _ if lit.quoted => lit.bytes.clone().map(Value::Bytes),
        _ => lit
            .int
            .and_then(whole)
            .or_else(|| lit.float.map(Value::Float))
            .or_else(v4)
            .or_else(v6)
            .or_else(|| lit.bytes.clone().map(Value::Bytes)),
    }
}

/// A constant read as a value of a kind known before reading.
fn constant_of(lit: &Literal, sort: Sort) -> Option<Value> {
    let like = match sort {
        Sort::Number => return lit.int.filter(|_| !lit.quoted).and_then(whole),
        Sort::Float => Value::Float(0.0),
        Sort::Ipv4 => Value::Ipv4(Ipv4Addr::UNSPECIFIED),
        Sort::Ipv6 => Value::Ipv6(Ipv6Addr::UNSPECIFIED),
        Sort::Mac | Sort::Bytes => Value::Bytes(Vec::new()),
        Sort::Label | Sort::Bool | Sort::Text => return None,
    };
    constant(lit, Some(&like))
}

fn negate(v: &Value) -> Result<Option<Value>, Misfit> {
    match v {
        Value::Float(x) => Ok(Some(Value::Float(-x))),
        _ => match int_of(v) {
            Some(x) => Ok(whole(-x)),
            None => Err(Misfit::Not(Sort::of(v))),
        },
    }
}

/// `x op y`: nothing where it has no value (a division by zero, beyond 64 bits); an error where
/// the kinds do not combine.
fn combine(op: ArithOp, x: &Value, y: &Value) -> Result<Option<Value>, Misfit> {
    let (sx, sy) = (Sort::of(x), Sort::of(y));
    for s in [sx, sy] {
        if !op.applies(s) {
            return Err(Misfit::Not(s));
        }
    }
    if let (Some(a), Some(b)) = (int_of(x), int_of(y)) {
        let r = match op {
            ArithOp::Add => a.checked_add(b),
            ArithOp::Sub => a.checked_sub(b),
            ArithOp::Mul => a.checked_mul(b),
            ArithOp::Div => a.checked_div(b),
            ArithOp::Rem => a.checked_rem(b),
            ArithOp::And => Some(a & b),
        };
        return Ok(r.and_then(whole));
    }
    let float = |v: &Value| match *v {
        Value::Float(f) => Some(f),
        _ => int_of(v).map(|i| i as f64),
    };
    if op != ArithOp::And {
        return match (float(x), float(y)) {
            (Some(a), Some(b)) => Ok(match op {
                ArithOp::Add => Some(a + b),
                ArithOp::Sub => Some(a - b),
                ArithOp::Mul => Some(a * b),
                ArithOp::Div if b != 0.0 => Some(a / b),
                ArithOp::Rem if b != 0.0 => Some(a % b),
                _ => None,
            }
            .map(Value::Float)),
            _ => Err(Misfit::Sorts(sx, sy)),
        };
    }
    match (x, y) {
        (Value::Ipv4(a), Value::Ipv4(b)) => Ok(Some(Value::Ipv4(Ipv4Addr::from(
            u32::from(*a) & u32::from(*b),
        )))),
        (Value::Ipv6(a), Value::Ipv6(b)) => Ok(Some(Value::Ipv6(Ipv6Addr::from(
            u128::from(*a) & u128::from(*b),
        )))),
        _ => {
            let raw = |v: &Value| match v {
                Value::Bytes(b) => Some(b.clone()),
                Value::Mac(m) => Some(m.to_vec()),
                _ => None,
            };
            let (Some(a), Some(b)) = (raw(x), raw(y)) else {
                return Err(Misfit::Sorts(sx, sy));
            };
            // Over the shorter of the two; a hardware address stays one when whole.
            let anded: Vec<u8> = a.iter().zip(&b).map(|(p, q)| p & q).collect();
            Ok(Some(match (x, <[u8; 6]>::try_from(anded.as_slice())) {
                (Value::Mac(_), Ok(m)) => Value::Mac(m),
                _ => Value::Bytes(anded),
            }))
        }
    }
}

/// The text of `op` between two sides, for the expression as written.
pub(super) fn joined(a: &str, op: ArithOp, b: &str) -> String {
    format!("{a} {} {b}", op.symbol())
}
