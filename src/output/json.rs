//! JSON records: `{"frame": N, "time": EPOCH_SECONDS, "src": ..., "dst": ..., "protocol": ...,
//! "fields": {...}, "errors": [...]}` (`"time": null` for a frame without a time).
//!
//! `fields` is flat: every field with a value, in tree order, under its display-filter name; a name
//! that occurs several times in one message becomes an array in order. Integers are numbers, byte
//! strings lowercase hex, addresses text. Written by hand rather than through serde: this is the
//! hot path of `read --format jsonl` and the shape is fixed.

use std::io::Write;

use crate::field::out::TreeOut;
use crate::field::Record;
use crate::field::{hex_digits, push_decimal, Field, Value};

/// Appends one record as a single-line JSON object (no trailing newline).
pub fn write_record(out: &mut Vec<u8>, r: &Record) {
    out.extend_from_slice(b"{\"frame\":");
    push_decimal(out, r.frame);
    out.extend_from_slice(b",\"time\":");
    match r.time {
        Some(t) => push_time(out, t.secs, t.nanos),
        None => out.extend_from_slice(b"null"),
    }
    out.extend_from_slice(b",\"src\":");
    push_str(out, &r.src);
    out.extend_from_slice(b",\"dst\":");
    push_str(out, &r.dst);
    out.extend_from_slice(b",\"protocol\":");
    push_str(out, r.protocol);
    out.extend_from_slice(b",\"fields\":");
    match &r.fields_json {
        Some(object) => out.extend_from_slice(object),
        None => write_fields(out, &r.fields),
    }
    out.extend_from_slice(b",\"errors\":[");
    for (i, e) in r.errors.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(b"{\"offset\":");
        push_decimal(out, e.offset as u64);
        out.extend_from_slice(b",\"what\":");
        push_str(out, &e.what);
        out.push(b'}');
    }
    out.push(b']');
    if !r.reassembled_from.is_empty() {
        out.extend_from_slice(b",\"reassembled_from\":[");
        for (i, f) in r.reassembled_from.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            push_decimal(out, *f);
        }
        out.push(b']');
    }
    if r.quoted {
        out.extend_from_slice(b",\"quoted\":true");
    }
    out.push(b'}');
}

/// The flat `fields` object of a list of field trees.
pub fn write_fields(out: &mut Vec<u8>, fields: &[Field]) {
    let mut object = JsonFields::default();
    for f in fields {
        f.walk(&mut |x| object.add(x));
    }
    object.write(out);
}

/// The flat `fields` object, gathered as a protocol writes its fields ([`TreeOut`]): each name
/// with its values as JSON text, in the order of the name's first field. No tree is kept, and no
/// display text is asked for.
#[derive(Debug, Default)]
pub struct JsonFields {
    /// Name, how many values, the values (JSON, comma-separated).
    groups: Vec<(&'static str, usize, Vec<u8>)>,
}

impl JsonFields {
    fn add(&mut self, f: &Field) {
        if f.name.is_empty() || matches!(f.value, Value::None) {
            return;
        }
        // Messages have tens of names, so a linear scan beats a hash map here.
        let at = match self.groups.iter().position(|(n, _, _)| *n == f.name) {
            Some(i) => i,
            None => {
                self.groups.push((f.name, 0, Vec::new()));
                self.groups.len() - 1
            }
        };
        if let Some((_, count, values)) = self.groups.get_mut(at) {
            if *count > 0 {
                values.push(b',');
            }
            push_value(values, &f.value);
            *count += 1;
        }
    }

    /// Appends the object.
    pub fn write(&self, out: &mut Vec<u8>) {
        out.push(b'{');
        for (i, (name, count, values)) in self.groups.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            push_str(out, name);
            out.push(b':');
            if *count > 1 {
                out.push(b'[');
                out.extend_from_slice(values);
                out.push(b']');
            } else {
                out.extend_from_slice(values);
            }
        }
        out.push(b'}');
    }
}

/// For the protocols' tests: the `fields` object `write` gives through [`JsonFields`] is the one
/// [`write_fields`] gives from `tree` (panics with `context` where they differ); returns it.
#[cfg(test)]
pub(crate) fn assert_written_as_the_tree(
    tree: &[Field],
    write: impl FnOnce(&mut dyn TreeOut),
    context: &str,
) -> String {
    let mut from_tree = Vec::new();
    write_fields(&mut from_tree, tree);
    let mut straight = JsonFields::default();
    write(&mut straight);
    let mut written = Vec::new();
    straight.write(&mut written);
    let (written, from_tree) = (
        String::from_utf8_lossy(&written),
        String::from_utf8_lossy(&from_tree),
    );
    assert_eq!(written, from_tree, "{context}");
    from_tree.into_owned()
}

impl TreeOut for JsonFields {
    fn labels(&self) -> bool {
        false
    }

    fn notes(&self) -> bool {
        false
    }

    fn open(&mut self, f: Field) {
        self.add(&f);
    }

    fn close(&mut self) {}

    fn leaf(&mut self, f: Field) {
        self.add(&f);
    }
}

fn push_value(out: &mut Vec<u8>, v: &Value) {
    match v {
        Value::None => out.extend_from_slice(b"null"),
        Value::Uint(n) => push_decimal(out, *n),
        Value::Int(n) => {
            if *n < 0 {
                out.push(b'-');
            }
            push_decimal(out, n.unsigned_abs());
        }
        Value::Float(x) => {
            if x.is_finite() {
                let _ = write!(out, "{x}");
            } else {
                out.extend_from_slice(b"null");
            }
        }
        Value::Bool(b) => out.extend_from_slice(if *b { b"true" } else { b"false" }),
        Value::Bytes(b) => push_hex(out, b, None),
        Value::Str(s) => push_str(out, s),
        // Addresses need no escapes.
        Value::Ipv4(a) => {
            out.push(b'"');
            for (i, x) in a.octets().into_iter().enumerate() {
                if i > 0 {
                    out.push(b'.');
                }
                push_decimal(out, x.into());
            }
            out.push(b'"');
        }
        Value::Ipv6(a) => {
            let _ = write!(out, "\"{a}\"");
        }
        Value::Mac(m) => push_hex(out, m, Some(b':')),
    }
}

/// A JSON string of `b` in lowercase hex, `separator` between bytes (as `field::hex` and
/// `field::hex_colons` write it, straight into the output).
fn push_hex(out: &mut Vec<u8>, b: &[u8], separator: Option<u8>) {
    out.reserve(b.len() * 3 + 2);
    out.push(b'"');
    for (i, x) in b.iter().enumerate() {
        if let (Some(c), true) = (separator, i > 0) {
            out.push(c);
        }
        out.extend_from_slice(&hex_digits(*x));
    }
    out.push(b'"');
}

fn push_time(out: &mut Vec<u8>, secs: i64, nanos: u32) {
    if nanos >= 1_000_000_000 {
        // Not made by the readers, which carry a second over; written as it is all the same.
        let _ = write!(out, "{secs}.{nanos:09}");
        return;
    }
    if secs < 0 {
        out.push(b'-');
    }
    push_decimal(out, secs.unsigned_abs());
    out.push(b'.');
    // Nine digits, zero-padded.
    let mut digits = [b'0'; 9];
    let mut n = nanos;
    for d in digits.iter_mut().rev() {
        *d = b'0' + (n % 10) as u8;
        n /= 10;
    }
    out.extend_from_slice(&digits);
}

/// A JSON string literal with the escapes RFC 8259 requires. The runs between escapes are
/// copied whole: a byte that needs one is ASCII, and every byte of a multi-byte UTF-8 character
/// is 0x80 or above, so the scan can go byte by byte.
pub fn push_str(out: &mut Vec<u8>, s: &str) {
    let bytes = s.as_bytes();
    out.reserve(bytes.len() + 2);
    out.push(b'"');
    let mut run = 0;
    let mut i = 0;
    while i < bytes.len() {
        // Eight bytes at a time while none needs an escape (the usual case: names, text).
        if let Some(chunk) = bytes.get(i..i + 8) {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            if !needs_escape(u64::from_le_bytes(word)) {
                i += 8;
                continue;
            }
        }
        let b = bytes[i];
        i += 1;
        if b >= 0x20 && b != b'"' && b != b'\\' {
            continue;
        }
        let at = i - 1;
        let short: &[u8] = match b {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            b'\n' => b"\\n",
            b'\r' => b"\\r",
            b'\t' => b"\\t",
            _ => b"",
        };
        out.extend_from_slice(&bytes[run..at]);
        if short.is_empty() {
            out.extend_from_slice(b"\\u00");
            out.extend_from_slice(&hex_digits(b));
        } else {
            out.extend_from_slice(short);
        }
        run = at + 1;
    }
    out.extend_from_slice(&bytes[run..]);
    out.push(b'"');
}

/// Whether any of the eight bytes of `w` is below 0x20, a quote or a backslash (the test of a
/// byte below n, and of a zero byte after xor with the byte repeated, from "Bit Twiddling Hacks":
/// exact for whether any byte is one, which is all that is asked).
fn needs_escape(w: u64) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let below = |x: u64, n: u64| x.wrapping_sub(ONES * n) & !x & HIGH;
    below(w, 0x20) | below(w ^ (ONES * 0x22), 1) | below(w ^ (ONES * 0x5c), 1) != 0
}

/// Writes records as JSON lines or as one JSON array into a buffer the caller flushes.
pub struct JsonRecords {
    array: bool,
    count: u64,
}

impl JsonRecords {
    pub fn new(array: bool) -> Self {
        JsonRecords { array, count: 0 }
    }

    pub fn write(&mut self, out: &mut Vec<u8>, r: &Record) {
        if self.array {
            out.extend_from_slice(if self.count == 0 { b"[\n" } else { b",\n" });
        }
        write_record(out, r);
        if !self.array {
            out.push(b'\n');
        }
        self.count += 1;
    }

    /// Closes the array (nothing for JSON lines).
    pub fn finish(&self, out: &mut Vec<u8>) {
        if self.array {
            out.extend_from_slice(if self.count == 0 { b"[]\n" } else { b"\n]\n" });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::Timestamp;
    use crate::error::DecodeError;

    /// Every character below 0x80 alone and among others, and multi-byte characters, written
    /// as a JSON string and read back by serde_json, is the text it was; the controls are
    /// escaped (the short escapes where JSON has them), and nothing else is.
    #[test]
    fn strings_escape_and_read_back() {
        let mut texts: Vec<String> = (0u8..0x80).map(|b| char::from(b).to_string()).collect();
        texts.extend((0u8..0x80).map(|b| format!("a{}é{b}{}z", char::from(b), char::MAX)));
        // Each ASCII character at every position of a longer text, so that the eight-byte
        // steps meet it in every place of a step.
        for b in 0u8..0x80 {
            for at in 0..24 {
                let mut t: Vec<char> = "the pool handle é and more".chars().collect();
                t.insert(at, char::from(b));
                texts.push(t.into_iter().collect());
            }
        }
        texts.push(String::new());
        texts.push("pool \"é\" \\ end\n".into());
        for t in &texts {
            let mut out = Vec::new();
            push_str(&mut out, t);
            let back: String = serde_json::from_slice(&out).expect("valid JSON");
            assert_eq!(&back, t);
            assert!(out.iter().all(|b| *b >= 0x20), "{out:?}");
        }
        let mut out = Vec::new();
        push_str(&mut out, "\u{1}\t\"\\x\u{1f}");
        assert_eq!(out, b"\"\\u0001\\t\\\"\\\\x\\u001f\"");
    }

    /// The eight-byte test says what a byte-by-byte test says, on words drawn from the bytes
    /// around each boundary (0x1f/0x20, the quote, the backslash, 0x7f/0x80, 0xff) and on random
    /// words.
    #[test]
    fn eight_byte_escape_test_is_exact() {
        let naive = |w: u64| {
            w.to_le_bytes()
                .iter()
                .any(|&b| b < 0x20 || b == b'"' || b == b'\\')
        };
        let near = [
            0x00, 0x01, 0x1f, 0x20, 0x21, 0x22, 0x23, 0x5b, 0x5c, 0x5d, 0x7f, 0x80, 0x81, 0xa2,
            0xdc, 0xfe, 0xff,
        ];
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for _ in 0..200_000 {
            let r = next();
            let mut bytes = [0u8; 8];
            for (k, b) in bytes.iter_mut().enumerate() {
                *b = near[((r >> (k * 5)) % near.len() as u64) as usize];
            }
            let w = u64::from_le_bytes(bytes);
            assert_eq!(needs_escape(w), naive(w), "{bytes:02x?}");
            let w = next();
            assert_eq!(needs_escape(w), naive(w), "{w:016x}");
        }
    }

    /// Numbers, byte strings and addresses are written as the formatting machinery writes them.
    #[test]
    fn values_written_as_formatted() {
        let mut cases: Vec<(Value, String)> =
            [0, 1, 9, 10, 99, 100, 65535, u64::MAX / 10, u64::MAX]
                .into_iter()
                .map(|n| (Value::Uint(n), n.to_string()))
                .collect();
        for n in [0, -1, 1, -10, 4321, i64::MIN, i64::MAX, i64::MIN + 1] {
            cases.push((Value::Int(n), n.to_string()));
        }
        let bytes: Vec<u8> = (0..=255).collect();
        let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        cases.push((Value::Bytes(bytes.clone()), format!("\"{hex}\"")));
        cases.push((Value::Bytes(Vec::new()), "\"\"".into()));
        let m = [0x00, 0x1a, 0x2b, 0xa0, 0xff, 0x09];
        cases.push((Value::Mac(m), "\"00:1a:2b:a0:ff:09\"".into()));
        let v6: std::net::Ipv6Addr = "2001:db8::1".parse().expect("address");
        cases.push((Value::Ipv6(v6), "\"2001:db8::1\"".into()));
        for a in [
            [192, 0, 2, 1],
            [0, 0, 0, 0],
            [255, 255, 255, 255],
            [10, 100, 9, 99],
        ] {
            let a = std::net::Ipv4Addr::from(a);
            cases.push((Value::Ipv4(a), format!("\"{a}\"")));
        }
        for (v, want) in cases {
            let mut out = Vec::new();
            push_value(&mut out, &v);
            assert_eq!(String::from_utf8_lossy(&out), want, "{v:?}");
        }
        for (secs, nanos) in [
            (0, 0),
            (1_796_010_890, 774_912_000),
            (-1, 5),
            (i64::MIN, 999_999_999),
            (7, 4_294_967_295),
        ] {
            let mut out = Vec::new();
            push_time(&mut out, secs, nanos);
            assert_eq!(String::from_utf8_lossy(&out), format!("{secs}.{nanos:09}"));
        }
    }

    #[test]
    fn record_shape_parses_back() {
        let r = Record {
            frame: 3,
            time: Some(Timestamp::new(1_796_010_890, 774_912_000)),
            src: "192.0.2.2".into(),
            dst: "192.0.2.2".into(),
            protocol: "asap",
            info: String::new(),
            fields: vec![Field::node("asap.x", "X", 0, 8)
                .child(Field::uint(
                    "asap.pool_element_pe_identifier",
                    "PE",
                    7u32,
                    0,
                    4,
                ))
                .child(Field::uint(
                    "asap.pool_element_pe_identifier",
                    "PE",
                    9u32,
                    4,
                    4,
                ))
                .child(Field::bytes("asap.pool_handle_pool_handle", "PH", b"RR", 8))
                .child(Field::string("poolshark.note", "N", "a \"q\"\n", 0, 0))],
            fields_json: None,
            errors: vec![DecodeError::new(12, "bad length")],
            reassembled_from: vec![],
            quoted: false,
        };
        let mut out = Vec::new();
        write_record(&mut out, &r);
        let v: serde_json::Value = serde_json::from_slice(&out).expect("valid JSON");
        assert_eq!(v["frame"], 3);
        assert_eq!(v["time"].as_f64(), Some(1_796_010_890.774912));
        assert_eq!(
            v["fields"]["asap.pool_element_pe_identifier"],
            serde_json::json!([7, 9])
        );
        assert_eq!(v["fields"]["asap.pool_handle_pool_handle"], "5252");
        assert_eq!(v["fields"]["poolshark.note"], "a \"q\"\n");
        assert!(v["fields"].get("asap.x").is_none());
        assert_eq!(v["errors"][0]["offset"], 12);
        assert_eq!(v["errors"][0]["what"], "bad length");
    }
}
