//! How pool handles and PE identifiers are written in findings and reports.

use std::fmt;

use crate::analyse::KeyBytes;
use crate::field::printable;

/// A pool handle as it came on the wire (opaque bytes; RSPLIB uses text). Kept inline when
/// short (a handle is taken from every message).
///
/// Ordered as its bytes are (lexicographically): `head`, the first eight bytes as a big-endian
/// number (zeros past the end), orders two handles that differ there, which most do, with one
/// comparison; the bytes decide the rest. The replay looks pools up by handle several times
/// per message.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PoolHandle {
    head: u64,
    bytes: KeyBytes,
}

impl PoolHandle {
    pub fn new(bytes: &[u8]) -> Self {
        let mut head = [0u8; 8];
        for (h, b) in head.iter_mut().zip(bytes) {
            *h = *b;
        }
        PoolHandle {
            head: u64::from_be_bytes(head),
            bytes: KeyBytes::from_slice(bytes),
        }
    }

    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }
}

/// Text when every byte is printable ASCII, else `0x` and the bytes in hex; `(empty)` for a
/// handle of no bytes.
impl fmt::Display for PoolHandle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.bytes.is_empty() {
            return f.write_str("(empty)");
        }
        if let Some(text) = printable(&self.bytes) {
            return f.write_str(text);
        }
        f.write_str("0x")?;
        let mut hex = String::with_capacity(self.bytes.len() * 2);
        crate::field::push_hex(&mut hex, &self.bytes, None);
        f.write_str(&hex)
    }
}

/// A PE identifier as findings write it: `0x` and eight hex digits.
pub fn pe_hex(id: u32) -> String {
    // By hand: called for every member of every answer, where the formatting machinery showed.
    let mut s = String::with_capacity(10);
    s.push_str("0x");
    crate::field::push_hex(&mut s, &id.to_be_bytes(), None);
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
    fn handles_order_as_their_bytes() {
        // Prefixes, zero bytes where the head pads with zeros, differences before and after
        // the eighth byte.
        let raw: [&[u8]; 12] = [
            b"",
            b"\0",
            b"a",
            b"a\0",
            b"a\0\0\0\0\0\0\0\0",
            b"a\0\x01",
            b"RR-Pool",
            b"RR-Pool\0",
            b"RR-Pool-2",
            b"RR-Pool-10",
            b"WRR-Pool",
            &[0xff; 9],
        ];
        for a in raw {
            for b in raw {
                let (ha, hb) = (PoolHandle::new(a), PoolHandle::new(b));
                assert_eq!(ha.cmp(&hb), a.cmp(b), "{a:?} {b:?}");
                assert_eq!(ha == hb, a == b, "{a:?} {b:?}");
            }
        }
    }

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
