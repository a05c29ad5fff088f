//! The text listing: one line per frame as tshark prints it by default, and with `-V` the whole
//! field tree of every message under its frame's line.

use std::io::Write;

use crate::field::{bit_pattern, Field, Value};

/// What the one-line listing shows of a frame.
pub struct FrameLine<'a> {
    pub number: u64,
    /// The time column's text ([`super::time::TimeColumn`]): by default the seconds since the
    /// first frame.
    pub time: &'a str,
    pub src: &'a str,
    pub dst: &'a str,
    /// Protocol column, e.g. `ASAP`, `DHCPv6`.
    pub protocol: &'a str,
    pub len: u32,
    pub info: &'a str,
}

/// `    1    0.000000    192.0.2.2 → 192.0.2.2    ASAP 118 ASAP Registration`: the time right-aligned
/// in 11 columns, a longer one (a date, a large number of seconds) pushing the rest of the line
/// along, as in tshark.
pub fn write_line(out: &mut Vec<u8>, l: &FrameLine<'_>) {
    let _ = writeln!(
        out,
        "{:>5} {:>11} {:>12} → {:<12} {:>6} {:>4} {}",
        l.number, l.time, l.src, l.dst, l.protocol, l.len, l.info
    );
}

/// The field tree, four spaces per level, as `tshark -V` prints it.
pub fn write_tree(out: &mut Vec<u8>, fields: &[Field], depth: usize) {
    // Iterative to keep the stack flat whatever the nesting depth of the input (relays in relays).
    let mut stack: Vec<(&Field, usize)> = fields.iter().rev().map(|f| (f, depth)).collect();
    while let Some((f, d)) = stack.pop() {
        // Hidden fields are for filters and columns, as in tshark's tree.
        if f.hidden {
            continue;
        }
        for _ in 0..d {
            out.extend_from_slice(b"    ");
        }
        if f.generated {
            out.push(b'[');
        }
        if let Some((raw, mask, width)) = f.bits {
            out.extend_from_slice(bit_pattern(raw, mask, width).as_bytes());
            out.extend_from_slice(b" = ");
        }
        out.extend_from_slice(f.label.as_bytes());
        if let Some(shown) = &f.shown {
            let _ = write!(out, ": {shown}");
            if f.generated {
                out.push(b']');
            }
            out.push(b'\n');
            for c in f.children.iter().rev() {
                stack.push((c, d + 1));
            }
            continue;
        }
        let mut v = match f.value {
            // A flag: tshark's words for it, or the note alone (its own words).
            Value::Bool(_) if f.note.is_some() => String::new(),
            Value::Bool(b) if f.bits.is_some() => (if b { "Set" } else { "Not set" }).to_string(),
            Value::Bool(b) => (if b { "True" } else { "False" }).to_string(),
            _ => f.display_value(),
        };
        if let (Some(u), false) = (f.unit, v.is_empty()) {
            v.push_str(u);
        }
        match (&f.note, v.is_empty()) {
            (Some(n), true) => {
                let _ = write!(out, ": {n}");
            }
            (Some(n), false) => {
                let _ = write!(out, ": {n} ({v})");
            }
            (None, false) => {
                let _ = write!(out, ": {v}");
            }
            (None, true) => {}
        }
        if f.generated {
            out.push(b']');
        }
        out.push(b'\n');
        for c in f.children.iter().rev() {
            stack.push((c, d + 1));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tree_indents_and_notes() {
        let t = Field::node("asap", "Aggregate Server Access Protocol", 0, 8)
            .child(Field::uint("asap.message_type", "Type", 1u8, 0, 1).note("ASAP Registration"))
            .child(
                Field::node("", "Pool Handle Parameter", 4, 11).child(Field::bytes(
                    "asap.pool_handle_pool_handle",
                    "Pool Handle",
                    b"RR",
                    8,
                )),
            );
        let mut out = Vec::new();
        write_tree(&mut out, &[t], 0);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "Aggregate Server Access Protocol\n    Type: ASAP Registration (1)\n    Pool Handle Parameter\n        Pool Handle: 5252\n"
        );
    }

    #[test]
    fn line_has_the_columns() {
        let mut out = Vec::new();
        write_line(
            &mut out,
            &FrameLine {
                number: 31,
                time: "1.507441",
                src: "192.0.2.2",
                dst: "192.0.2.2",
                protocol: "ASAP",
                len: 118,
                info: "ASAP Registration",
            },
        );
        let s = String::from_utf8(out).unwrap();
        assert!(s.starts_with("   31    1.507441"), "{s}");
        assert!(s.trim_end().ends_with("ASAP  118 ASAP Registration"), "{s}");
    }
}
