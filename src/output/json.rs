//! JSON records: `{"frame": N, "time": EPOCH_SECONDS, "src": ..., "dst": ..., "protocol": ...,
//! "fields": {...}, "errors": [...]}`.
//!
//! `fields` is flat: every field with a value, in tree order, under its display-filter name; a name
//! that occurs several times in one message becomes an array in order. Integers are numbers, byte
//! strings lowercase hex, addresses text. Written by hand rather than through serde: this is the
//! hot path of `read --format jsonl` and the shape is fixed.

use std::io::Write;

use super::Record;
use crate::field::{hex, Field, Value};

/// Appends one record as a single-line JSON object (no trailing newline).
pub fn write_record(out: &mut Vec<u8>, r: &Record) {
    out.extend_from_slice(b"{\"frame\":");
    push_u64(out, r.frame);
    out.extend_from_slice(b",\"time\":");
    push_time(out, r.time.secs, r.time.nanos);
    out.extend_from_slice(b",\"src\":");
    push_str(out, &r.src);
    out.extend_from_slice(b",\"dst\":");
    push_str(out, &r.dst);
    out.extend_from_slice(b",\"protocol\":");
    push_str(out, r.protocol);
    out.extend_from_slice(b",\"fields\":");
    write_fields(out, &r.fields);
    out.extend_from_slice(b",\"errors\":[");
    for (i, e) in r.errors.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(b"{\"offset\":");
        push_u64(out, e.offset as u64);
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
            push_u64(out, *f);
        }
        out.push(b']');
    }
    out.push(b'}');
}

/// The flat `fields` object of a list of field trees.
pub fn write_fields(out: &mut Vec<u8>, fields: &[Field]) {
    // Group by name, keeping the order of first occurrence. Messages have tens of fields, so a
    // linear scan beats a hash map here.
    let mut groups: Vec<(&'static str, Vec<&Value>)> = Vec::new();
    for f in fields {
        f.walk(&mut |x| {
            if x.name.is_empty() || matches!(x.value, Value::None) {
                return;
            }
            match groups.iter_mut().find(|(n, _)| *n == x.name) {
                Some((_, v)) => v.push(&x.value),
                None => groups.push((x.name, vec![&x.value])),
            }
        });
    }
    out.push(b'{');
    for (i, (name, values)) in groups.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        push_str(out, name);
        out.push(b':');
        if values.len() == 1 {
            push_value(out, values[0]);
        } else {
            out.push(b'[');
            for (j, v) in values.iter().enumerate() {
                if j > 0 {
                    out.push(b',');
                }
                push_value(out, v);
            }
            out.push(b']');
        }
    }
    out.push(b'}');
}

fn push_value(out: &mut Vec<u8>, v: &Value) {
    match v {
        Value::None => out.extend_from_slice(b"null"),
        Value::Uint(n) => push_u64(out, *n),
        Value::Int(n) => {
            let _ = write!(out, "{n}");
        }
        Value::Float(x) => {
            if x.is_finite() {
                let _ = write!(out, "{x}");
            } else {
                out.extend_from_slice(b"null");
            }
        }
        Value::Bool(b) => out.extend_from_slice(if *b { b"true" } else { b"false" }),
        Value::Bytes(b) => {
            out.push(b'"');
            out.extend_from_slice(hex(b).as_bytes());
            out.push(b'"');
        }
        Value::Str(s) => push_str(out, s),
        Value::Ipv4(a) => push_str(out, &a.to_string()),
        Value::Ipv6(a) => push_str(out, &a.to_string()),
        Value::Mac(m) => push_str(out, &crate::field::mac(m)),
    }
}

fn push_u64(out: &mut Vec<u8>, n: u64) {
    let _ = write!(out, "{n}");
}

fn push_time(out: &mut Vec<u8>, secs: i64, nanos: u32) {
    let _ = write!(out, "{secs}.{nanos:09}");
}

/// A JSON string literal with the escapes RFC 8259 requires.
pub fn push_str(out: &mut Vec<u8>, s: &str) {
    out.push(b'"');
    for c in s.chars() {
        match c {
            '"' => out.extend_from_slice(b"\\\""),
            '\\' => out.extend_from_slice(b"\\\\"),
            '\n' => out.extend_from_slice(b"\\n"),
            '\r' => out.extend_from_slice(b"\\r"),
            '\t' => out.extend_from_slice(b"\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => {
                let mut buf = [0u8; 4];
                out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            }
        }
    }
    out.push(b'"');
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
    use crate::error::DecodeError;
    use crate::source::Timestamp;

    #[test]
    fn record_shape_parses_back() {
        let r = Record {
            frame: 3,
            time: Timestamp::new(1_796_010_890, 774_912_000),
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
            errors: vec![DecodeError::new(12, "bad length")],
            reassembled_from: vec![],
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
