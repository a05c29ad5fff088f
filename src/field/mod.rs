//! The display tree of a decoded message: what `read -V` prints and what the JSON `fields` object is
//! made of.
//!
//! Every protocol module turns its typed representation into a list of [`Field`]s. A field carries
//! its Wireshark display-filter name (or a `poolshark.*` name where Wireshark has none), a label for
//! people, a typed value, and where it sits in the message (offset and length, relative to the start
//! of the message the protocol module was given). Nodes without a value of their own
//! ([`Value::None`]) group children, as Wireshark's subtrees do.

pub mod catalogue;
pub mod out;
mod record;

pub use record::Record;

use std::borrow::Cow;
use std::net::{Ipv4Addr, Ipv6Addr};

/// A field's value.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// A subtree header: no value of its own.
    None,
    Uint(u64),
    Int(i64),
    Float(f64),
    Bool(bool),
    Bytes(Vec<u8>),
    Str(String),
    Ipv4(Ipv4Addr),
    Ipv6(Ipv6Addr),
    Mac([u8; 6]),
}

/// How an integer is shown to people (JSON always gets the number).
impl Value {
    /// The value as the tree shows it, an unsigned number in `base`.
    pub fn display(&self, base: Base) -> String {
        match self {
            Value::None => String::new(),
            Value::Uint(v) => match base {
                Base::Dec => decimal(*v),
                Base::Hex(d) => hex_number(*v, d),
            },
            Value::Int(v) if *v >= 0 => decimal(v.unsigned_abs()),
            Value::Int(v) => v.to_string(),
            Value::Float(v) => format_float(*v),
            Value::Bool(v) => v.to_string(),
            Value::Bytes(b) => hex(b),
            Value::Str(s) => s.clone(),
            Value::Ipv4(a) => a.to_string(),
            Value::Ipv6(a) => a.to_string(),
            Value::Mac(m) => mac(m),
        }
    }
}

/// A whole number in decimal, as `to_string` writes it (without the formatting machinery:
/// `-T fields` and the trees write one or more per field).
fn decimal(n: u64) -> String {
    let mut out = Vec::with_capacity(20);
    push_decimal(&mut out, n);
    out.into_iter().map(char::from).collect()
}

/// Appends a whole number in decimal, as `write!("{n}")` would, without the formatting
/// machinery (the trees, `-T fields` and the JSON output write several per field).
pub fn push_decimal(out: &mut Vec<u8>, mut n: u64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[at..]);
}

/// `0x` and a whole number in lowercase hexadecimal, zero-padded to at least `width` digits, as
/// `format!("0x{:0width$x}")` writes it.
fn hex_number(n: u64, width: u8) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let needed = (64 - n.leading_zeros()).div_ceil(4).max(1) as usize;
    let len = needed.max(usize::from(width));
    let mut s = String::with_capacity(len + 2);
    s.push_str("0x");
    for i in (0..len).rev() {
        let nibble = if i < 16 { (n >> (4 * i)) & 15 } else { 0 };
        s.push(char::from(DIGITS[nibble as usize]));
    }
    s
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Base {
    #[default]
    Dec,
    /// Hexadecimal with this many digits, e.g. `0x00010003` for 8.
    Hex(u8),
}

/// One node of the display tree.
#[derive(Clone, Debug, PartialEq)]
pub struct Field {
    /// Display-filter name, e.g. `asap.pool_element_pe_identifier`. Empty for pure text nodes.
    pub name: &'static str,
    /// What people read, e.g. `PE Identifier`.
    pub label: Cow<'static, str>,
    pub value: Value,
    pub base: Base,
    /// A description of the value shown after it, e.g. `Round Robin (RR)` or `ms`.
    pub note: Option<Cow<'static, str>>,
    /// A unit written right after the value, e.g. `ms` in `1800000ms`.
    pub unit: Option<&'static str>,
    /// Byte offset relative to the start of the decoded message.
    pub offset: usize,
    /// Length in bytes on the wire.
    pub len: usize,
    /// Worked out rather than read from the bytes (a stream index, a relative sequence number):
    /// `read -V` shows it in brackets, as tshark does.
    pub generated: bool,
    /// `read -V` shows the bits the value is read from before the label, as tshark does
    /// (`0100 .... = Version: 4`): the mask over the bytes read, and their width in bits.
    /// `(raw, mask, width)`: the masked bits as read, the mask, the width in bits.
    pub bits: Option<(u64, u64, u8)>,
    /// Left out of `read -V`'s tree (a field tshark has but does not show, such as an IPv6
    /// packet's `ip.version`); filters and columns still see it.
    pub hidden: bool,
    /// What `read -V` shows after the label in place of the value, note and unit, where tshark
    /// words it otherwise (`0x9d0f (40207)`, `0x0514 [unverified]`); the value itself, which
    /// filters and columns use, is unchanged.
    pub shown: Option<Cow<'static, str>>,
    pub children: Vec<Field>,
}

impl Field {
    pub fn new(
        name: &'static str,
        label: impl Into<Cow<'static, str>>,
        value: Value,
        offset: usize,
        len: usize,
    ) -> Self {
        // Every name of the messages' protocols is in the catalogue that filters and columns
        // resolve names against: checked here, where every field builder passes (not in this
        // crate's unit tests, whose made-up trees use made-up names).
        #[cfg(all(debug_assertions, not(test)))]
        crate::field::catalogue::assert_allowed(name);
        Field {
            name,
            label: label.into(),
            value,
            base: Base::Dec,
            note: None,
            unit: None,
            offset,
            len,
            generated: false,
            bits: None,
            hidden: false,
            shown: None,
            children: Vec::new(),
        }
    }

    /// A subtree header.
    pub fn node(
        name: &'static str,
        label: impl Into<Cow<'static, str>>,
        offset: usize,
        len: usize,
    ) -> Self {
        Field::new(name, label, Value::None, offset, len)
    }

    pub fn uint(
        name: &'static str,
        label: &'static str,
        v: impl Into<u64>,
        offset: usize,
        len: usize,
    ) -> Self {
        Field::new(name, label, Value::Uint(v.into()), offset, len)
    }

    pub fn int(name: &'static str, label: &'static str, v: i64, offset: usize, len: usize) -> Self {
        Field::new(name, label, Value::Int(v), offset, len)
    }

    pub fn float(
        name: &'static str,
        label: &'static str,
        v: f64,
        offset: usize,
        len: usize,
    ) -> Self {
        Field::new(name, label, Value::Float(v), offset, len)
    }

    pub fn boolean(
        name: &'static str,
        label: &'static str,
        v: bool,
        offset: usize,
        len: usize,
    ) -> Self {
        Field::new(name, label, Value::Bool(v), offset, len)
    }

    pub fn bytes(name: &'static str, label: &'static str, v: &[u8], offset: usize) -> Self {
        Field::new(name, label, Value::Bytes(v.to_vec()), offset, v.len())
    }

    pub fn string(
        name: &'static str,
        label: &'static str,
        v: impl Into<String>,
        offset: usize,
        len: usize,
    ) -> Self {
        Field::new(name, label, Value::Str(v.into()), offset, len)
    }

    pub fn ipv4(name: &'static str, label: &'static str, v: Ipv4Addr, offset: usize) -> Self {
        Field::new(name, label, Value::Ipv4(v), offset, 4)
    }

    pub fn ipv6(name: &'static str, label: &'static str, v: Ipv6Addr, offset: usize) -> Self {
        Field::new(name, label, Value::Ipv6(v), offset, 16)
    }

    /// Show the integer in hexadecimal with `digits` digits.
    pub fn hex(mut self, digits: u8) -> Self {
        self.base = Base::Hex(digits);
        self
    }

    pub fn note(mut self, note: impl Into<Cow<'static, str>>) -> Self {
        self.note = Some(note.into());
        self
    }

    /// A unit written right after the value (include a leading space if one is wanted).
    /// Marks the field as worked out rather than read ([`Field::generated`]).
    pub fn generated(mut self) -> Self {
        self.generated = true;
        self
    }

    /// Shows the bits the value is read from (`mask` over `width` bits) before the label.
    pub fn bits(mut self, mask: u64, width: u8) -> Self {
        let shift = mask.trailing_zeros();
        let raw = match self.value {
            Value::Uint(v) => v.checked_shl(shift).unwrap_or(0) & mask,
            Value::Int(v) => (v as u64).checked_shl(shift).unwrap_or(0) & mask,
            Value::Bool(true) => mask,
            _ => 0,
        };
        self.bits = Some((raw, mask, width));
        self
    }

    /// [`Field::bits`] where the value is not the bits read (a length in bytes read in words).
    pub fn bits_raw(mut self, raw: u64, mask: u64, width: u8) -> Self {
        self.bits = Some((raw & mask, mask, width));
        self
    }

    /// Shows `text` after the label in `read -V` ([`Field::shown`]).
    pub fn show(mut self, text: impl Into<Cow<'static, str>>) -> Self {
        self.shown = Some(text.into());
        self
    }

    /// Leaves the field out of `read -V`'s tree ([`Field::hidden`]).
    pub fn hidden(mut self) -> Self {
        self.hidden = true;
        self
    }

    pub fn unit(mut self, unit: &'static str) -> Self {
        self.unit = Some(unit);
        self
    }

    pub fn child(mut self, f: Field) -> Self {
        self.children.push(f);
        self
    }

    pub fn children(mut self, fs: Vec<Field>) -> Self {
        // The usual case, a node given all its children at once, keeps their vector as it is
        // rather than moving them into a new one.
        if self.children.is_empty() {
            self.children = fs;
        } else {
            self.children.extend(fs);
        }
        self
    }

    /// Moves this field and its subtree by `delta` bytes (for messages nested in others).
    pub fn shift(&mut self, delta: usize) {
        self.offset += delta;
        for c in &mut self.children {
            c.shift(delta);
        }
    }

    /// The value as people read it (without the note).
    pub fn display_value(&self) -> String {
        self.value.display(self.base)
    }

    /// Depth-first, pre-order walk over this field and its subtree.
    pub fn walk<'a>(&'a self, f: &mut impl FnMut(&'a Field)) {
        f(self);
        for c in &self.children {
            c.walk(f);
        }
    }

    /// First field named `name` in this subtree.
    pub fn find(&self, name: &str) -> Option<&Field> {
        if self.name == name {
            return Some(self);
        }
        self.children.iter().find_map(|c| c.find(name))
    }
}

/// The bits `mask` selects of a `width`-bit integer whose masked part is `raw`, as tshark shows
/// them before a bit field's label: `0100 ....`, `.... ..1. .... ....`.
pub fn bit_pattern(raw: u64, mask: u64, width: u8) -> String {
    let width = usize::from(width.clamp(1, 64));
    let mut s = String::with_capacity(width + width / 4);
    for i in (0..width).rev() {
        if i + 1 != width && (i + 1) % 4 == 0 {
            s.push(' ');
        }
        let b = 1u64 << i;
        s.push(if mask & b == 0 {
            '.'
        } else if raw & b != 0 {
            '1'
        } else {
            '0'
        });
    }
    s
}

/// First field named `name` in a list of trees.
pub fn find<'a>(fields: &'a [Field], name: &str) -> Option<&'a Field> {
    fields.iter().find_map(|f| f.find(name))
}

/// Every field named `name` in a list of trees, in order.
pub fn find_all<'a>(fields: &'a [Field], name: &str) -> Vec<&'a Field> {
    let mut out = Vec::new();
    for f in fields {
        f.walk(&mut |x| {
            if x.name == name {
                out.push(x)
            }
        });
    }
    out
}

/// Lowercase hex without separators, as the JSON output writes byte strings.
pub fn hex(b: &[u8]) -> String {
    let mut s = String::with_capacity(b.len() * 2);
    push_hex(&mut s, b, None);
    s
}

/// Colon-separated lowercase hex, as Wireshark shows DUIDs and MAC addresses.
pub fn hex_colons(b: &[u8]) -> String {
    let mut s = String::with_capacity(b.len() * 3);
    push_hex(&mut s, b, Some(':'));
    s
}

/// Appends `b` in lowercase hex, `separator` between bytes.
pub fn push_hex(s: &mut String, b: &[u8], separator: Option<char>) {
    s.reserve(b.len() * 2 + separator.map_or(0, char::len_utf8) * b.len().saturating_sub(1));
    for (i, x) in b.iter().enumerate() {
        if let (Some(c), true) = (separator, i > 0) {
            s.push(c);
        }
        let [hi, lo] = hex_digits(*x);
        s.push(char::from(hi));
        s.push(char::from(lo));
    }
}

/// The two lowercase hex digits of a byte (`write!("{:02x}")` without the formatting machinery,
/// which the JSON output and the byte fields call for every byte).
pub fn hex_digits(x: u8) -> [u8; 2] {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    [DIGITS[usize::from(x >> 4)], DIGITS[usize::from(x & 15)]]
}

pub fn mac(m: &[u8; 6]) -> String {
    hex_colons(m)
}

/// Floats as Wireshark prints them in its tree: no trailing zeros, no exponent for ordinary values.
pub fn format_float(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{v:.0}")
    } else {
        let s = format!("{v:.9}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

/// A float as C's `%.15g` writes it (tshark's `-T fields` form of a double): 15 significant
/// digits, trailing zeros dropped, exponent form below 1e-4 and from 1e15.
pub fn format_float_g15(v: f64) -> String {
    if !v.is_finite() {
        return if v.is_nan() {
            "nan".into()
        } else if v > 0.0 {
            "inf".into()
        } else {
            "-inf".into()
        };
    }
    if v == 0.0 {
        return if v.is_sign_negative() { "-0" } else { "0" }.into();
    }
    // The exponent after rounding to 15 significant digits decides the form.
    let sci = format!("{v:.14e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let trim = |s: &str| -> String {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s.to_string()
        }
    };
    if (-4..15).contains(&exp) {
        let decimals = usize::try_from(14 - exp).unwrap_or(0);
        trim(&format!("{v:.decimals$}"))
    } else {
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{}e{sign}{:02}", trim(mantissa), exp.unsigned_abs())
    }
}

/// The text form of bytes when they are all printable ASCII (pool handles, names), else `None`.
pub fn printable(b: &[u8]) -> Option<&str> {
    if !b.is_empty() && b.iter().all(|&c| (0x20..0x7f).contains(&c)) {
        std::str::from_utf8(b).ok()
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_written_as_the_formatting_machinery_writes_them() {
        let mut values = vec![0u64, 1, 9, 10, 15, 16, 255, 256, 65535, 65536];
        values.extend([u64::from(u32::MAX), u64::MAX, u64::MAX - 1, 1 << 63]);
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..1000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            values.push(x >> (x % 64));
        }
        for v in values {
            assert_eq!(Value::Uint(v).display(Base::Dec), v.to_string());
            for width in [0u8, 1, 2, 4, 6, 8, 16, 17, 20, 255] {
                let want = format!("0x{:0width$x}", v, width = usize::from(width));
                assert_eq!(Value::Uint(v).display(Base::Hex(width)), want);
            }
            let i = v as i64;
            assert_eq!(Value::Int(i).display(Base::Dec), i.to_string());
        }
    }

    #[test]
    fn g15_is_printf_percent_15g() {
        // Expected strings: what C's printf("%.15g") prints for each value.
        for (v, want) in [
            (25.0000000058208_f64, "25.0000000058208"),
            (0.500000000116415, "0.500000000116415"),
            (0.25, "0.25"),
            (100.0, "100"),
            (1e15, "1e+15"),
            (123456789012345.0, "123456789012345"),
            (0.0001, "0.0001"),
            (0.00001234, "1.234e-05"),
            (-2.5, "-2.5"),
            (0.0, "0"),
            (999_999_999_999_999.9, "1e+15"),
            (1.0 / 3.0, "0.333333333333333"),
            (f64::INFINITY, "inf"),
        ] {
            assert_eq!(format_float_g15(v), want, "{v:e}");
        }
    }

    #[test]
    fn display_forms() {
        assert_eq!(
            Field::uint("a", "A", 0x10003u32, 0, 4)
                .hex(8)
                .display_value(),
            "0x00010003"
        );
        assert_eq!(
            Field::bytes("b", "B", &[0xde, 0xad], 0).display_value(),
            "dead"
        );
        assert_eq!(format_float(50.0000000116415), "50.000000012");
        assert_eq!(format_float(20.0), "20");
        assert_eq!(hex_colons(&[0, 1, 0xab]), "00:01:ab");
        assert_eq!(printable(b"RR-Pool"), Some("RR-Pool"));
        assert_eq!(printable(b"\x00a"), None);
    }

    #[test]
    fn find_and_shift() {
        let mut t = Field::node("x", "X", 0, 8)
            .child(Field::uint("x.a", "A", 1u8, 0, 1))
            .child(Field::node("x.n", "N", 4, 4).child(Field::uint("x.a", "A", 2u8, 4, 1)));
        t.shift(10);
        let all = find_all(std::slice::from_ref(&t), "x.a");
        assert_eq!(all.len(), 2);
        assert_eq!(all[1].offset, 14);
        assert_eq!(all[1].value, Value::Uint(2));
    }
}
