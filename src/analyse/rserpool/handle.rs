//! How pool handles and PE identifiers are written in findings and reports.

use std::fmt;

use crate::analyse::KeyBytes;
use crate::field::printable;

/// A pool handle as it came on the wire (opaque bytes; RSPLIB uses text). Kept inline when
/// short (a handle is taken from every message).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PoolHandle(KeyBytes);

impl PoolHandle {
    pub fn new(bytes: &[u8]) -> Self {
        PoolHandle(KeyBytes::from_slice(bytes))
    }

    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }
}

/// Text when every byte is printable ASCII, else `0x` and the bytes in hex; `(empty)` for a
/// handle of no bytes.
impl fmt::Display for PoolHandle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            return f.write_str("(empty)");
        }
        if let Some(text) = printable(&self.0) {
            return f.write_str(text);
        }
        f.write_str("0x")?;
        for b in self.0.iter() {
            write!(f, "{b:02x}")?;
        }
        Ok(())
    }
}

/// A PE identifier as findings write it: `0x` and eight hex digits.
pub fn pe_hex(id: u32) -> String {
    // By hand: called for every member of every answer, where the formatting machinery showed.
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(10);
    s.push_str("0x");
    for shift in (0..8).rev() {
        s.push(char::from(DIGITS[((id >> (shift * 4)) & 0xf) as usize]));
    }
    s
}

/// A list of PE identifiers as a JSON array of hex strings.
pub fn pe_list(ids: &[u32]) -> serde_json::Value {
    ids.iter()
        .map(|&id| serde_json::Value::from(pe_hex(id)))
        .collect()
}

/// A list of PE identifiers for a sentence: `0x00010001, 0x00010002`.
pub fn pe_text(ids: &[u32]) -> String {
    if ids.is_empty() {
        return "none".to_string();
    }
    ids.iter()
        .map(|&id| pe_hex(id))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn handles_are_text_when_printable_else_hex() {
        assert_eq!(PoolHandle::new(b"RR-Pool").to_string(), "RR-Pool");
        assert_eq!(PoolHandle::new(&[0x52, 0x00, 0xff]).to_string(), "0x5200ff");
        assert_eq!(
            PoolHandle::new(b"tab\there").to_string(),
            "0x7461620968657265"
        );
        assert_eq!(PoolHandle::new(b"").to_string(), "(empty)");
    }

    #[test]
    fn pe_ids_are_eight_hex_digits() {
        assert_eq!(pe_hex(0x10003), "0x00010003");
        for id in [0u32, 1, 0xc0003, 0x1234_abcd, u32::MAX] {
            assert_eq!(pe_hex(id), format!("0x{id:08x}"));
        }
        assert_eq!(
            pe_list(&[1, 0xffff_ffff]),
            serde_json::json!(["0x00000001", "0xffffffff"])
        );
        assert_eq!(pe_text(&[]), "none");
        assert_eq!(pe_text(&[2, 3]), "0x00000002, 0x00000003");
    }
}
