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
//! As in tshark, the type of arithmetic is the type of the field it starts with (`{ip.ttl + 1}
//! + frame.len` computes as `ip.ttl`'s type), and a constant in it, or the value it is compared
//! with, must be one that field can hold: `ip.ttl + 300` and `ip.ttl + frame.len > 300` are
//! refused (a negative constant by its magnitude: `ip.ttl + -256`); the left side of a test must
//! start with a field (`300 + ip.ttl > 0` is refused, `frame.len > 1 + ip.ttl` is not). On the
//! right of a test, arithmetic that starts with a constant takes the left side's type:
//! `frame.len < 300 + ip.ttl` computes in `frame.len`'s 32 bits, and `ip.ttl < 300 + ip.ttl` is
//! refused. As in
//! tshark 4.0, a negative value on the right of an unsigned one is taken as its 64-bit two's
//! complement, so `ip.ttl + -1` and `frame.len * -1` overflow and give nothing, while
//! `frame.len & -1` is `frame.len`; a negated field is signed (`-frame.len + -1 == -67`).
//!
//! Where the field's type is known before reading (the frame's numbers and ports) that is an error
//! at once; the types of tree fields and of the lower layers' fields are known only from the
//! messages (their bytes on the wire), so a constant that does not fit them, or a field that
//! cannot take an operator, is reported at the end
//! ([`Filter::problems`](super::Filter::problems)), as a slice's or function's is, and the
//! arithmetic gives nothing from the occurrence that showed it on.

use std::cell::{Cell, RefCell};
use std::net::{Ipv4Addr, Ipv6Addr};

use super::check::{known_max, leading_const, Check, Misfit, Sort};
use super::derived::natural_len;
use super::eval::{each, whole_max};
use super::parser::{FrameField, Literal, Subject};
use super::{FilterError, FrameView};
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
        // A constant must be readable as the kind of the other side, where that is known, and
        // within the range of the field the arithmetic takes its type from (the first one).
        // (A constant first is left to the test's own check, which refuses it on the left side,
        // as tshark does before it looks at the value.)
        // After a constant first, the type is the test's left side's (checked in the test, by
        // `Calc::typed_by`): tshark reads `frame.len < 300 + ip.ttl + 1000` in frame.len's type.
        let first = a.first_term().or_else(|| b.first_term());
        let typed_by_context = a.first_is_const();
        for (c, other, leading) in [(&a, &b, true), (&b, &a, false)] {
            if let (Operand::Const(lit), Some((s, name)), false, false) =
                (c, first, leading, typed_by_context)
            {
                fits(lit, s, name)?;
            }
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

    /// The first field in it as written, whose type the arithmetic takes, and its name.
    pub(super) fn first_term(&self) -> Option<(&Subject, &str)> {
        match self {
            Operand::Term(s, name) => Some((s, name)),
            Operand::Const(_) => None,
            Operand::Neg(a) => a.first_term(),
            Operand::Bin(_, a, b) => a.first_term().or_else(|| b.first_term()),
        }
    }

    /// Whether it starts with a constant, through minus signs and arithmetic (not through a
    /// function): its type is then the one its context gives.
    fn first_is_const(&self) -> bool {
        match self {
            Operand::Const(_) => true,
            Operand::Term(..) => false,
            Operand::Neg(a) | Operand::Bin(_, a, _) => a.first_is_const(),
        }
    }

    /// The constants read in the type its context gives: the first one and those combined with
    /// a part that starts with a constant.
    fn context_consts<'a>(&'a self, out: &mut Vec<&'a Literal>) {
        match self {
            Operand::Const(l) => out.push(l),
            Operand::Term(..) => {}
            Operand::Neg(a) => a.context_consts(out),
            Operand::Bin(_, a, b) if a.first_is_const() => {
                a.context_consts(out);
                if b.first_is_const() {
                    b.context_consts(out);
                }
            }
            Operand::Bin(_, a, _) => a.context_consts(out),
        }
    }

    /// The constant it starts with as written, if it starts with one (through braces, minus
    /// signs and the first argument of `abs`, `max` and `min`).
    pub(super) fn leading_const(&self) -> Option<&Literal> {
        match self {
            Operand::Term(s, _) => leading_const(s),
            Operand::Const(l) => Some(l),
            Operand::Neg(a) | Operand::Bin(_, a, _) => a.leading_const(),
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
    /// A constant found too big for the field it was combined with in a frame: its text, byte
    /// and the largest magnitude the field holds. From then on the arithmetic gives nothing.
    too_big: RefCell<Option<(String, usize, i128, bool)>>,
    /// The whole number it is compared with (its text, byte and value), which must fit the type
    /// as the constants in it must.
    compared: Option<(String, usize, i128)>,
    /// On the right of a test: the type its constant first takes, the left side's (its largest
    /// whole number where known before reading), as tshark reads `frame.len < 300 + ip.ttl`.
    context: Option<Option<i128>>,
    /// The left side's largest whole number in the frame at hand, where its type was not known
    /// before reading (a message's field), set before the values are computed.
    left_max: Cell<Option<i128>>,
}

/// A computed value with the length on the wire of the field its type comes from (0 when
/// unknown) and the largest magnitude a constant combined with it may have (none: not a number).
struct Computed {
    value: Value,
    len: usize,
    max: Option<i128>,
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
            too_big: RefCell::new(None),
            compared: None,
            context: None,
            left_max: Cell::new(None),
        }
    }

    /// Notes that it is the right side of a test whose left side is `left` (named `name`): a
    /// constant first is read in the left side's type, so it and the constants combined in that
    /// type must fit it, where that is known before reading (tshark's "too big for this
    /// field"); where it is not (a message's field), they are checked against the left side's
    /// occurrences in each frame ([`Calc::set_left_max`]).
    pub(super) fn typed_by(&mut self, left: &Subject, name: &str) -> Result<(), FilterError> {
        let max = known_max(left);
        self.context = Some(max);
        let mut consts = Vec::new();
        self.expr.context_consts(&mut consts);
        for lit in consts {
            fits(lit, left, name)?;
        }
        Ok(())
    }

    /// Whether its constant first takes the left side's type and that type is known only on
    /// the frames (then given by [`Calc::set_left_max`] before each).
    pub(super) fn wants_left_max(&self) -> bool {
        self.context == Some(None)
    }

    pub(super) fn set_left_max(&self, max: Option<i128>) {
        self.left_max.set(max);
    }

    /// Notes the value it is compared with (`ip.ttl + frame.len > 300`), to be checked against
    /// its type on the occurrences.
    pub(super) fn compared_with(&mut self, lit: &Literal) {
        if let Some(i) = lit.int.filter(|_| !lit.quoted) {
            self.compared = Some((lit.text.clone(), lit.offset, i));
        }
    }

    /// The constant it is, when it is only one (a function's argument: `max(f, 3)`).
    pub(super) fn literal(&self) -> Option<&Literal> {
        match &self.expr {
            Operand::Const(l) => Some(l),
            _ => None,
        }
    }

    /// Calls `test` on each value computed in the frame until it returns true; whether one did.
    pub(super) fn each(
        &self,
        f: &FrameView<'_>,
        test: &mut dyn FnMut(&Value, Option<&str>, usize) -> bool,
    ) -> bool {
        if self.too_big.borrow().is_some() {
            return false;
        }
        let mut out = Vec::new();
        let context = self.context.map(|m| m.or(self.left_max.get()));
        self.values(&self.expr, f, None, context, &mut out);
        if let Some((text, at, i)) = &self.compared {
            if let Some(m) = out
                .iter()
                .filter_map(|c| c.max)
                .find(|m| i.unsigned_abs() > m.unsigned_abs())
            {
                *self.too_big.borrow_mut() = Some((text.clone(), *at, m, false));
            }
        }
        self.too_big.borrow().is_none() && out.iter().any(|c| test(&c.value, None, c.len))
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
    /// value) where there is one; a constant first takes its range from `context` when given
    /// (the largest value of the type it is read in, where known), not from the field after it.
    fn values(
        &self,
        e: &Operand,
        f: &FrameView<'_>,
        like: Option<&Value>,
        context: Option<Option<i128>>,
        out: &mut Vec<Computed>,
    ) {
        match e {
            Operand::Term(s, _) => {
                let natural = natural_len(s);
                each(s, f, &mut |v, _, len| {
                    let len = len.max(natural);
                    let max = whole_max(v, len);
                    out.push(Computed {
                        value: v.clone(),
                        len,
                        max,
                    });
                    out.len() >= MAX_VALUES
                });
            }
            Operand::Const(lit) => match (constant(lit, like), like) {
                (Some(v), _) => out.push(Computed {
                    value: v,
                    len: 0,
                    max: None,
                }),
                // Not a value of the other side's kind (`2` against bytes).
                (None, Some(l)) => self.note(Err(Misfit::Not(Sort::of(l)))),
                (None, None) => {}
            },
            Operand::Neg(a) => {
                let mut inner = Vec::new();
                self.values(a, f, like, context, &mut inner);
                for c in inner {
                    match negate(&c.value) {
                        Ok(n) => {
                            self.note(Ok(()));
                            out.extend(n.map(|value| Computed { value, ..c }));
                        }
                        Err(m) => self.note(Err(m)),
                    }
                }
            }
            Operand::Bin(op, a, b) => {
                // A constant is read as the kind of the field on the other side.
                let (mut left, mut right) = (Vec::new(), Vec::new());
                let from_context = context.filter(|_| a.first_is_const());
                let b_context = from_context.filter(|_| b.first_is_const());
                if matches!(**a, Operand::Const(_)) && b.has_term() {
                    self.values(b, f, like, b_context, &mut right);
                    self.values(a, f, right.first().map(|c| &c.value), context, &mut left);
                } else {
                    self.values(a, f, like, context, &mut left);
                    let like = left.first().map(|c| &c.value).or(like);
                    self.values(b, f, like, b_context, &mut right);
                }
                // The type, and so the range of a constant, is the first field's, or the
                // context's after a constant first (checked before reading where known).
                let typed = |x: &'_ Computed, y: &'_ Computed| {
                    if let Some(max) = from_context {
                        (x.len.max(y.len), max)
                    } else if a.has_term() || !b.has_term() {
                        (x.len, x.max)
                    } else {
                        (y.len, y.max)
                    }
                };
                'pairs: for x in &left {
                    for y in &right {
                        let (len, max) = typed(x, y);
                        for side in [&**a, &**b] {
                            let (Operand::Const(lit), Some(m)) = (side, max) else {
                                continue;
                            };
                            let Some(i) = lit.int.filter(|_| !lit.quoted) else {
                                continue;
                            };
                            if i.unsigned_abs() > m.unsigned_abs() {
                                *self.too_big.borrow_mut() =
                                    Some((lit.text.clone(), lit.offset, m, from_context.is_some()));
                                out.clear();
                                return;
                            }
                        }
                        match combine(*op, &x.value, &y.value) {
                            Ok(v) => {
                                self.note(Ok(()));
                                out.extend(v.map(|value| Computed { value, len, max }));
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
        if let (true, Some((s, name))) = (ok, self.expr.first_term()) {
            fits(lit, s, name)?;
        }
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
        if let Some((text, at, max, left)) = &*self.too_big.borrow() {
            let whose = if *left {
                "the type of the field it is compared with"
            } else {
                "the field whose type it takes"
            };
            return Some(format!(
                "the display filter computes {} (byte {}) with the constant '{text}' (byte {at}), \
                 too big for {whose}, with values up to {max} on the wire (tshark refuses it); it \
                 kept no frame from then on",
                self.text, self.at
            ));
        }
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

/// Whether a whole constant (by its magnitude: tshark negates after reading the digits) is one
/// the field `s` can hold, where its type is known before reading: an error at the constant's
/// byte otherwise, as tshark's "too big for this field".
pub(super) fn fits(lit: &Literal, s: &Subject, name: &str) -> Result<(), FilterError> {
    let (Some(i), Some(max)) = (lit.int.filter(|_| !lit.quoted), known_max(s)) else {
        return Ok(());
    };
    if i.unsigned_abs() <= max.unsigned_abs() {
        return Ok(());
    }
    Err(FilterError {
        offset: lit.offset,
        what: format!(
            "'{}' is too big for {name}, whose values go up to {max}: tshark reads a constant \
             the field is combined with or compared with as one of the field's values",
            lit.text
        ),
    })
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
pub(super) fn constant(lit: &Literal, like: Option<&Value>) -> Option<Value> {
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
pub(super) fn constant_of(lit: &Literal, sort: Sort) -> Option<Value> {
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

/// `-v`: signed, as tshark 4.0 makes a negated whole number a signed 64-bit one.
fn negate(v: &Value) -> Result<Option<Value>, Misfit> {
    match v {
        Value::Float(x) => Ok(Some(Value::Float(-x))),
        _ => match int_of(v) {
            Some(x) => Ok(i64::try_from(-x).ok().map(Value::Int)),
            None => Err(Misfit::Not(Sort::of(v))),
        },
    }
}

/// `a op b` for an unsigned `a` and a negative `b`, as tshark 4.0 computes it: `b` read as its
/// 64-bit two's complement, a sum or product that overflows giving nothing, and a difference
/// that would need `b` as a signed number beyond its range nothing either.
fn unsigned_negative(op: ArithOp, a: u64, b: i64) -> Option<Value> {
    let w = b as u64;
    match op {
        ArithOp::Add => a.checked_add(w).map(Value::Uint),
        ArithOp::Mul => a.checked_mul(w).map(Value::Uint),
        ArithOp::Sub if w <= a => Some(Value::Uint(a - w)),
        ArithOp::Sub => None,
        ArithOp::Div => a.checked_div(w).map(Value::Uint),
        ArithOp::Rem => a.checked_rem(w).map(Value::Uint),
        ArithOp::And => Some(Value::Uint(a & w)),
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
    if let (Value::Uint(a), Value::Int(b)) = (x, y) {
        if *b < 0 {
            return Ok(unsigned_negative(op, *a, *b));
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
        // A signed left side keeps the result signed, as tshark's type is the left side's.
        return Ok(match x {
            Value::Int(_) => r.and_then(|r| i64::try_from(r).ok()).map(Value::Int),
            _ => r.and_then(whole),
        });
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
