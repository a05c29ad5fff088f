//! What a display filter derives from a field before comparing: its bytes sliced (`f[0:2]`,
//! `f[-1]`, `f[1-3]`, `f[:2]`, `f[2:]`, `f[0,2:2]`), and tshark 4.0's functions `len(f)`,
//! `count(f)`, `string(f)`, `upper(f)`, `lower(f)`, `abs(f)`, `max(f, ...)` and `min(f, ...)`.
//!
//! As in tshark 4.0, a slice applies to a field's bytes (byte strings, text, hardware and IP
//! addresses) and holds nothing where the range falls outside them. `len`, `count`, `string`,
//! `upper` and `lower` take fields only (not a slice, a function's value, arithmetic or a value);
//! `abs`, `max` and `min` also take arithmetic and `abs`, `max` and `min` of fields
//! (`abs(frame.len - 2000)`, `max(abs(f), 3)`), and `max` and `min` constants after their first
//! argument (`max(udp.port, 3)`), read as the first argument's type and refused where that cannot
//! hold them (`max(ip.ttl, 300)`, as "too big for this field"); their fields must be of one type
//! (`max(frame.len, udp.port)` is refused: 32 and 16 bits). On the left of a test a function
//! cannot start with a value (`abs(3) == 3`, `max(3, frame.len)`); on the right it may
//! (`frame.len == max(66, 3)`). A function gives nothing on a frame without its fields, so
//! `count(f) == 0` never holds, but a constant of `max` or `min` is always there:
//! `max(udp.port, 3) == 3` holds on a frame without UDP. Where the field's type is known before
//! reading (the frame's own fields) a slice or function that cannot apply is an error at once; for
//! tree fields it is reported at the end when no occurrence could take it
//! ([`Filter::problems`](super::Filter::problems)).

use std::borrow::Cow;
use std::cell::RefCell;

use super::arith::{constant, constant_of, fits};
use super::check::{known_max, Check, Misfit, Sort};
use super::eval::{compare_values, each, int_range, present};
use super::lexer::Rel;
use super::parser::{FrameField, Subject};
use super::{FilterError, FrameView};
use crate::field::Value;

/// What is derived from the fields.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Derive {
    Slice(Vec<Range>),
    /// Bytes: of the value (text, byte strings, addresses), or on the wire (numbers, subtrees).
    Len,
    /// Occurrences in the frame (messages, for a protocol).
    Count,
    /// A number in decimal, an address as written.
    Str,
    Upper,
    Lower,
    Abs,
    /// Of every occurrence of every argument.
    Max,
    Min,
}

impl Derive {
    /// The function a word names.
    pub(super) fn function(word: &str) -> Option<Derive> {
        Some(match word {
            "len" => Derive::Len,
            "count" => Derive::Count,
            "string" => Derive::Str,
            "upper" => Derive::Upper,
            "lower" => Derive::Lower,
            "abs" => Derive::Abs,
            "max" => Derive::Max,
            "min" => Derive::Min,
            _ => return None,
        })
    }

    fn name(&self) -> &'static str {
        match self {
            Derive::Slice(_) => "a slice",
            Derive::Len => "len()",
            Derive::Count => "count()",
            Derive::Str => "string()",
            Derive::Upper => "upper()",
            Derive::Lower => "lower()",
            Derive::Abs => "abs()",
            Derive::Max => "max()",
            Derive::Min => "min()",
        }
    }

    /// Whether it is `abs`, `max` or `min`: a number of its first argument's type, which takes
    /// arithmetic and these functions as arguments.
    pub(super) fn numeric(&self) -> bool {
        matches!(self, Derive::Abs | Derive::Max | Derive::Min)
    }

    /// What it takes, for the errors.
    fn takes(&self) -> &'static str {
        match self {
            Derive::Slice(_) => "byte strings, text and addresses can be sliced",
            Derive::Len => "len() takes byte strings, text, addresses, numbers and subtrees",
            Derive::Count => "count() takes any field or protocol",
            Derive::Str => "string() takes numbers and addresses",
            Derive::Upper | Derive::Lower => "upper() and lower() take text",
            Derive::Abs => "abs() takes numbers",
            Derive::Max | Derive::Min => {
                "max() and min() take numbers, text or addresses, all of one kind"
            }
        }
    }

    /// Whether it applies to values of this kind.
    fn applies(&self, sort: Sort) -> bool {
        use Sort::*;
        match self {
            Derive::Slice(_) => matches!(sort, Bytes | Text | Mac | Ipv4 | Ipv6),
            Derive::Len => !matches!(sort, Float),
            Derive::Count => true,
            Derive::Str => matches!(sort, Number | Mac | Ipv4 | Ipv6 | Text),
            Derive::Upper | Derive::Lower => sort == Text,
            Derive::Abs => matches!(sort, Number | Float),
            Derive::Max | Derive::Min => matches!(sort, Number | Float | Text | Ipv4 | Ipv6),
        }
    }
}

/// One range of a slice, offsets counted from the end when negative.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Range {
    /// `[i:j]` (`len` bytes from `start`), `[i]` (one), `[i:]` and `[:j]`.
    Len { start: i64, len: Option<u64> },
    /// `[i-j]`: from `start` to `end`, both included.
    To { start: i64, end: i64 },
}

/// A slice or a function and the fields it takes.
#[derive(Clone, Debug)]
pub(super) struct Derived {
    pub(super) op: Derive,
    pub(super) args: Vec<Subject>,
    /// The fields' names.
    names: Vec<String>,
    /// As written (`len(dhcp.option.hostname)`), for the messages.
    pub(super) text: String,
    /// Its byte in the filter.
    pub(super) at: usize,
    /// Whether an occurrence it met could take it.
    pub(super) check: Check,
    /// Why tshark would refuse it, learnt from the occurrences (a constant of `max` or `min`
    /// too big for the first field, fields of different sizes): from then on it gives nothing.
    refused: RefCell<Option<String>>,
}

impl PartialEq for Derived {
    fn eq(&self, other: &Self) -> bool {
        self.op == other.op && self.args == other.args && self.text == other.text
    }
}

impl Eq for Derived {}

impl Derived {
    /// A function of `args` or a slice of `args[0]`; an error (at `at`) when what is known of
    /// the fields before reading says it cannot apply.
    pub(super) fn new(
        op: Derive,
        args: Vec<(Subject, String)>,
        text: String,
        at: usize,
    ) -> Result<Derived, FilterError> {
        let err = |what: String| Err(FilterError { offset: at, what });
        let one = !matches!(op, Derive::Max | Derive::Min);
        if args.is_empty() || (one && args.len() > 1) {
            let n = if one { "one field" } else { "fields" };
            return err(format!("{} takes {n}: {text}", op.name()));
        }
        let mut sorts = Vec::new();
        let mut widths: Vec<(i128, &str)> = Vec::new();
        for (i, (s, name)) in args.iter().enumerate() {
            let constant = match s {
                Subject::Calc(c) => c.literal(),
                _ => None,
            };
            match s {
                Subject::Derived(d) if op.numeric() && matches!(d.op, Derive::Slice(_)) => {
                    return err(format!(
                        "{} takes fields, arithmetic and abs(), max() and min() of them, not a \
                         slice ({name}), as in tshark: {text}",
                        op.name()
                    ));
                }
                Subject::Derived(d) if op.numeric() && d.op.numeric() => {}
                Subject::Calc(_) if op.numeric() => {}
                Subject::Derived(_) | Subject::Calc(_) => {
                    return err(format!(
                        "{} takes fields, not a slice or a function's value, nor arithmetic or a \
                         value ({name}), as in tshark: {text}",
                        op.name()
                    ));
                }
                _ => {}
            }
            if let Some(lit) = constant {
                if op == Derive::Abs {
                    continue;
                }
                // A constant of max() or min(): one of the first argument's values.
                if let Some((first, first_name)) = args.first().filter(|_| i > 0) {
                    let sort = first.sort();
                    if lit.quoted || sort.is_some_and(|sort| constant_of(lit, sort).is_none()) {
                        return Err(FilterError {
                            offset: lit.offset,
                            what: format!(
                                "'{}' is not one of the {} that {first_name} holds: {}",
                                lit.text,
                                sort.map_or("values", Sort::describe),
                                op.takes()
                            ),
                        });
                    }
                    fits(lit, first, first_name)?;
                }
                continue;
            }
            if let Some(w) = known_max(s).filter(|_| op.numeric()) {
                if let Some((v, y)) = widths.iter().find(|(v, _)| *v != w) {
                    return err(format!(
                        "{} takes fields of one type, as in tshark: {y} holds whole numbers up \
                         to {v}, {name} up to {w}",
                        op.name()
                    ));
                }
                widths.push((w, name));
            }
            if s.is_protocol() && op != Derive::Count {
                let why = match op {
                    Derive::Len => ": poolshark does not keep a protocol's length",
                    Derive::Slice(_) => ": poolshark does not keep a protocol's bytes",
                    _ => "",
                };
                return err(format!(
                    "'{name}' is a protocol: {} takes a field{why}",
                    op.name()
                ));
            }
            if let Some(sort) = s.sort() {
                if !op.applies(sort) {
                    return err(format!(
                        "{name} holds {}: only {}",
                        sort.describe(),
                        op.takes()
                    ));
                }
                sorts.push((sort, name));
            }
        }
        // Every field known before reading against the first, as tshark checks its arguments.
        if let Some(&(a, x)) = sorts.first() {
            if let Some(&(b, y)) = sorts.iter().find(|(b, _)| *b != a) {
                return err(format!(
                    "{} takes fields of one kind: {x} holds {}, {y} {}",
                    op.name(),
                    a.describe(),
                    b.describe()
                ));
            }
        }
        let (args, names) = args.into_iter().unzip();
        Ok(Derived {
            op,
            args,
            names,
            text,
            at,
            check: Check::default(),
            refused: RefCell::new(None),
        })
    }

    /// The kind of value it gives, when known before reading.
    pub(super) fn sort(&self) -> Option<Sort> {
        match self.op {
            Derive::Slice(_) => Some(Sort::Bytes),
            Derive::Len | Derive::Count => Some(Sort::Number),
            Derive::Str | Derive::Upper | Derive::Lower => Some(Sort::Text),
            Derive::Abs | Derive::Max | Derive::Min => self.args.first().and_then(Subject::sort),
        }
    }

    /// Calls `test` on each value derived in the frame until it returns true; whether one did.
    /// (`dyn`: [`each`] calls this, and this calls [`each`] with closures of its own.)
    pub(super) fn each(
        &self,
        f: &FrameView<'_>,
        test: &mut dyn FnMut(&Value, Option<&str>, usize) -> bool,
    ) -> bool {
        match &self.op {
            Derive::Count => {
                let mut n = 0u64;
                for a in &self.args {
                    match a {
                        Subject::App(p) => {
                            n += f.records.iter().filter(|r| r.protocol == *p).count() as u64;
                        }
                        Subject::Lower(_) => n += u64::from(present(a, f)),
                        _ => {
                            each(a, f, &mut |_, _, _| {
                                n += 1;
                                false
                            });
                        }
                    }
                }
                n > 0 && test(&Value::Uint(n), None, 0)
            }
            Derive::Max | Derive::Min => {
                let want = if self.op == Derive::Max {
                    Rel::Gt
                } else {
                    Rel::Lt
                };
                // Occurrences of kinds that do not compare (bytes, or text with numbers) give
                // nothing for the frame, as tshark refuses such fields before reading.
                let mut best: Option<Value> = None;
                let mut mixed = false;
                // The largest value the first argument's occurrences hold, for its constants, and
                // their size on the wire, which the other fields' must have.
                let mut max: Option<i128> = None;
                let mut size: Option<usize> = None;
                if self.refused.borrow().is_some() {
                    return false;
                }
                for (i, a) in self.args.iter().enumerate() {
                    let lit = match a {
                        Subject::Calc(c) if i > 0 => c.literal(),
                        _ => None,
                    };
                    if let Some(lit) = lit {
                        if let (Some(n), Some(m)) = (lit.int.filter(|_| !lit.quoted), max) {
                            if n.unsigned_abs() > m.unsigned_abs() {
                                *self.refused.borrow_mut() = Some(format!(
                                    "the constant '{}' (byte {}) is too big for {}, whose values \
                                     go up to {m} on the wire",
                                    lit.text,
                                    lit.offset,
                                    self.names.first().map_or("its field", String::as_str)
                                ));
                                return false;
                            }
                        }
                        // Read as the first argument's kind (or a number without one).
                        let Some(v) = constant(lit, best.as_ref()) else {
                            continue;
                        };
                        let better = match &best {
                            None => true,
                            Some(b) => compare_values(&v, b, want).0,
                        };
                        if better {
                            best = Some(v);
                        }
                        continue;
                    }
                    let natural = natural_len(a);
                    let mut other_size = None;
                    each(a, f, &mut |v, _, len| {
                        let len = len.max(natural);
                        if i == 0 && matches!(v, Value::Uint(_) | Value::Int(_)) {
                            let m = int_range(v, len).1;
                            max = Some(max.map_or(m, |x: i128| x.max(m)));
                        }
                        if len > 0 && matches!(v, Value::Uint(_) | Value::Int(_)) {
                            if i == 0 {
                                size.get_or_insert(len);
                            } else if size.is_some_and(|s| s != len) {
                                other_size = Some(len);
                                return true;
                            }
                        }
                        if !self.op.applies(Sort::of(v)) {
                            self.note(Err(Misfit::Not(Sort::of(v))));
                            mixed = true;
                            return true;
                        }
                        let better = match &best {
                            None => true,
                            Some(b) => match compare_values(v, b, want) {
                                (holds, Ok(())) => holds,
                                (_, Err(m)) => {
                                    self.note(Err(m));
                                    mixed = true;
                                    return true;
                                }
                            },
                        };
                        if better {
                            best = Some(v.clone());
                        }
                        false
                    });
                    if let (Some(s), Some(o)) = (size, other_size) {
                        *self.refused.borrow_mut() = Some(format!(
                            "it takes fields of one type, and {} is {s} bytes on the wire, {} \
                             {o}",
                            self.names.first().map_or("its first field", String::as_str),
                            self.names.get(i).map_or("another", String::as_str)
                        ));
                        return false;
                    }
                    if mixed {
                        return false;
                    }
                }
                if best.is_some() {
                    self.note(Ok(()));
                }
                best.is_some_and(|b| test(&b, None, 0))
            }
            _ => self.args.first().is_some_and(|a| {
                let natural = natural_len(a);
                each(
                    a,
                    f,
                    &mut |v, _, len| match self.apply(v, len.max(natural)) {
                        Ok(Some(d)) => {
                            self.note(Ok(()));
                            test(&d, None, 0)
                        }
                        Ok(None) => {
                            self.note(Ok(()));
                            false
                        }
                        Err(m) => {
                            self.note(Err(m));
                            false
                        }
                    },
                )
            }),
        }
    }

    fn note(&self, outcome: Result<(), Misfit>) {
        if !self.check.fit.get() {
            self.check.record(outcome, None);
        }
    }

    /// The value derived from one occurrence (`len` its bytes on the wire, 0 when unknown):
    /// none for a slice outside it; an error when it cannot take the occurrence at all.
    fn apply(&self, v: &Value, len: usize) -> Result<Option<Value>, Misfit> {
        let sort = Sort::of(v);
        if !self.op.applies(sort) {
            return Err(Misfit::Not(sort));
        }
        Ok(Some(match &self.op {
            Derive::Slice(ranges) => match bytes_of(v) {
                Some(b) => match slice(&b, ranges) {
                    Some(s) => Value::Bytes(s),
                    None => return Ok(None),
                },
                None => return Err(Misfit::Not(sort)),
            },
            Derive::Len => match bytes_of(v) {
                Some(b) => Value::Uint(b.len() as u64),
                // tshark's booleans have no size of their own, even in a byte of flags.
                None if sort == Sort::Bool => Value::Uint(0),
                None if len > 0 => Value::Uint(len as u64),
                None => return Ok(None),
            },
            Derive::Str => Value::Str(match v {
                Value::Str(s) => s.clone(),
                Value::Uint(x) => x.to_string(),
                Value::Int(x) => x.to_string(),
                other => other.display(crate::field::Base::Dec),
            }),
            Derive::Upper | Derive::Lower => match v {
                Value::Str(s) if self.op == Derive::Upper => Value::Str(s.to_ascii_uppercase()),
                Value::Str(s) => Value::Str(s.to_ascii_lowercase()),
                _ => return Err(Misfit::Not(sort)),
            },
            Derive::Abs => match *v {
                Value::Int(x) => Value::Uint(x.unsigned_abs()),
                Value::Float(x) => Value::Float(x.abs()),
                ref other => other.clone(),
            },
            Derive::Count | Derive::Max | Derive::Min => return Ok(None),
        }))
    }

    /// Why no occurrence it met could take it, when that is so: a sentence for the end of the
    /// run.
    pub(super) fn problem(&self) -> Option<String> {
        if let Some(why) = &*self.refused.borrow() {
            return Some(format!(
                "the display filter's {} (byte {}) cannot apply: {why} (tshark refuses it); it \
                 kept no frame from then on",
                self.text, self.at
            ));
        }
        let why = self.check.failed()?;
        let fields = self.names.join(", ");
        let holds = match why {
            Misfit::Not(s) => format!("{fields} holds {}", s.describe()),
            Misfit::Sorts(a, b) => format!(
                "{fields} had occurrences of different kinds, {} and {}",
                a.describe(),
                b.describe()
            ),
            _ => format!("{fields} could not be compared"),
        };
        Some(format!(
            "the display filter's {} (byte {}) applied to no occurrence of {fields} in any \
             message read: {holds}, and only {}",
            self.text,
            self.at,
            self.op.takes()
        ))
    }
}

/// The size of a frame-level number, which has no bytes on the wire of its own here: tshark's
/// `len(frame.number)` is 4, `len(udp.srcport)` 2.
pub(super) fn natural_len(s: &Subject) -> usize {
    match s {
        Subject::Port { .. } => 2,
        Subject::Frame(FrameField::Number | FrameField::Len | FrameField::CapLen) => 4,
        _ => 0,
    }
}

/// The bytes a value is made of: a byte string's, text's (UTF-8), an address's.
fn bytes_of(v: &Value) -> Option<Cow<'_, [u8]>> {
    match v {
        Value::Bytes(b) => Some(Cow::Borrowed(b)),
        Value::Str(s) => Some(Cow::Borrowed(s.as_bytes())),
        Value::Mac(m) => Some(Cow::Borrowed(m)),
        Value::Ipv4(a) => Some(Cow::Owned(a.octets().to_vec())),
        Value::Ipv6(a) => Some(Cow::Owned(a.octets().to_vec())),
        _ => None,
    }
}

/// The ranges of `b`, one after the other; none when one falls outside it.
fn slice(b: &[u8], ranges: &[Range]) -> Option<Vec<u8>> {
    let n = i64::try_from(b.len()).ok()?;
    let at = |i: i64| if i < 0 { n + i } else { i };
    let mut out = Vec::new();
    for r in ranges {
        let (start, end) = match *r {
            Range::Len { start, len } => {
                let s = at(start);
                let e = match len {
                    Some(l) => s.checked_add(i64::try_from(l).ok()?)?,
                    None => n,
                };
                (s, e)
            }
            Range::To { start, end } => (at(start), at(end).checked_add(1)?),
        };
        if start >= end {
            return None;
        }
        let part = b.get(usize::try_from(start).ok()?..usize::try_from(end).ok()?)?;
        out.extend_from_slice(part);
    }
    Some(out)
}

/// The ranges between a slice's brackets (`text`, at byte `at` of the filter, the `[`'s).
pub(super) fn ranges(text: &str, at: usize) -> Result<Vec<Range>, FilterError> {
    let mut out = Vec::new();
    let mut offset = at + 1;
    for item in text.split(',') {
        let trimmed = item.trim();
        let here = offset + (item.len() - item.trim_start().len());
        offset += item.len() + 1;
        let bad = |why: &str| FilterError {
            offset: here,
            what: format!(
                "'{trimmed}' is not a range{why}: a slice is [i:j] (j bytes from i), [i-j] (i to \
                 j), [i], [:j] or [i:], negative offsets counting from the end"
            ),
        };
        let signed = |s: &str| -> Option<i64> {
            let (neg, digits) = match s.strip_prefix('-') {
                Some(d) => (true, d),
                None => (false, s),
            };
            if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            let v = digits.parse::<i64>().ok()?;
            Some(if neg { -v } else { v })
        };
        let range = if let Some((a, b)) = trimmed.split_once(':') {
            let start = if a.is_empty() {
                0
            } else {
                signed(a).ok_or_else(|| bad(""))?
            };
            let len = match b {
                "" => None,
                b => match signed(b) {
                    Some(l) if l > 0 => Some(l.unsigned_abs()),
                    Some(_) => return Err(bad(" (its length must be at least 1)")),
                    None => return Err(bad("")),
                },
            };
            Range::Len { start, len }
        } else {
            // `i`, `i-j`, `-i`, `-i-j`, `-i--j`: the start's own sign first.
            let body = trimmed.strip_prefix('-').unwrap_or(trimmed);
            let cut = body.find('-').map(|p| p + trimmed.len() - body.len());
            match cut {
                None => Range::Len {
                    start: signed(trimmed).ok_or_else(|| bad(""))?,
                    len: Some(1),
                },
                Some(p) => {
                    let start = signed(&trimmed[..p]).ok_or_else(|| bad(""))?;
                    let end = signed(&trimmed[p + 1..]).ok_or_else(|| bad(""))?;
                    if start.signum() == end.signum() && end < start {
                        return Err(bad(" (it ends before it starts)"));
                    }
                    Range::To { start, end }
                }
            }
        };
        out.push(range);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(text: &str) -> Vec<Range> {
        ranges(text, 0).unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    #[test]
    fn ranges_read_as_tshark_writes_them() {
        assert_eq!(
            r("0:2"),
            [Range::Len {
                start: 0,
                len: Some(2)
            }]
        );
        assert_eq!(r(":2"), r("0:2"));
        assert_eq!(
            r("-2:"),
            [Range::Len {
                start: -2,
                len: None
            }]
        );
        assert_eq!(
            r("-1"),
            [Range::Len {
                start: -1,
                len: Some(1)
            }]
        );
        assert_eq!(r("1-3"), [Range::To { start: 1, end: 3 }]);
        assert_eq!(r("-3--2"), [Range::To { start: -3, end: -2 }]);
        assert_eq!(r("0:1, 2").len(), 2);
        for bad in ["", "a", "1:0", "3-1", "1:-2", "--1", "1:2:3", "0x1"] {
            assert!(ranges(bad, 5).is_err(), "{bad}");
        }
        // The error points at the item, past the `[`.
        assert_eq!(ranges("0, x", 10).unwrap_err().offset, 14);
    }

    #[test]
    fn slices_take_the_ranges_or_nothing() {
        let b = [0x57, 0x65, 0x62];
        let s = |t: &str| slice(&b, &r(t));
        assert_eq!(s("0:2"), Some(vec![0x57, 0x65]));
        assert_eq!(s("1:"), Some(vec![0x65, 0x62]));
        assert_eq!(s("-1"), Some(vec![0x62]));
        assert_eq!(s("-3--2"), Some(vec![0x57, 0x65]));
        assert_eq!(s("0:1,2"), Some(vec![0x57, 0x62]));
        assert_eq!(s("1-2"), Some(vec![0x65, 0x62]));
        // Past either end: nothing, as tshark's `[0:10]` on three bytes.
        for out in ["0:10", "-5:", "3", "3:", "2-3", "-4"] {
            assert_eq!(s(out), None, "{out}");
        }
        assert_eq!(slice(&[], &r("0:")), None);
        assert_eq!(slice(&b, &r(&format!("{}:1", i64::MAX))), None);
    }
}
