//! The display filter run on a frame: each test of the tree ([`eval`]) on every occurrence of its
//! subject (the frame's numbers, addresses and ports, the lower layers' and the messages' trees,
//! [`quoted`] packets), each comparison with tshark's meaning, and what could not be compared
//! recorded for [`super::Filter::problems`].

use std::cmp::Ordering;
use std::net::IpAddr;

use super::check::{Misfit, Sort};
use super::derived::natural_len;
use super::lexer::Rel;
use super::parser::{Expr, FrameField, Literal, Lower, Subject, Which};
use super::quoted;
use super::FrameView;
use crate::dissect::Address;
use crate::field::{Field, Value};

pub(super) fn eval(e: &Expr, f: &FrameView<'_>) -> bool {
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

pub(super) fn present(s: &Subject, f: &FrameView<'_>) -> bool {
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
pub(super) fn each(
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
pub(super) fn lower_values(s: &Subject, f: &FrameView<'_>, each: &mut impl FnMut(Value)) {
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
pub(super) fn occurrences(
    fields: &[Field],
    name: &str,
    test: &mut impl FnMut(&Field) -> bool,
) -> bool {
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
pub(super) fn ordered(o: Ordering, rel: Rel) -> bool {
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
pub(super) fn whole_max(v: &Value, len: usize) -> Option<i128> {
    matches!(v, Value::Uint(_) | Value::Int(_)).then(|| int_range(v, len).1)
}

pub(super) fn int_range(v: &Value, len: usize) -> (i128, i128) {
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

pub(super) fn bytes(b: &[u8], rel: Rel, lit: &Literal, sort: Sort) -> (bool, Result<(), Misfit>) {
    match (&lit.bytes, rel) {
        (None, _) => (false, Err(Misfit::Not(sort))),
        (Some(l), Rel::Contains) => (contains(b, l), Ok(())),
        (Some(l), _) => (ordered(b.cmp(l), rel), Ok(())),
    }
}

/// `rel` between occurrences of two fields: whether it holds, and whether they could be compared.
pub(super) fn compare_values(a: &Value, b: &Value, rel: Rel) -> (bool, Result<(), Misfit>) {
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
pub(super) fn raw(v: &Value) -> Option<&[u8]> {
    match v {
        Value::Bytes(b) => Some(b),
        Value::Mac(m) => Some(m),
        _ => None,
    }
}

pub(super) fn contains(hay: &[u8], needle: &[u8]) -> bool {
    needle.is_empty() || hay.windows(needle.len()).any(|w| w == needle)
}
