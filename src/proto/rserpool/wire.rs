//! Bounds-checked big-endian reads and the 4-byte padding rule shared by messages, parameters and
//! error causes.

/// The u16 at `at`, or `None` when the buffer ends first.
pub(crate) fn be16(b: &[u8], at: usize) -> Option<u16> {
    let s = b.get(at..at.checked_add(2)?)?;
    Some(u16::from_be_bytes(s.try_into().ok()?))
}

/// The u32 at `at`, or `None` when the buffer ends first.
pub(crate) fn be32(b: &[u8], at: usize) -> Option<u32> {
    let s = b.get(at..at.checked_add(4)?)?;
    Some(u32::from_be_bytes(s.try_into().ok()?))
}

/// `len` rounded up to a multiple of 4 (lengths here come from u16 fields, so this cannot overflow
/// a usize; saturating all the same).
pub(crate) fn padded(len: usize) -> usize {
    len.saturating_add(3) & !3
}

/// Appends zero bytes until `out.len()` is a multiple of 4.
pub(crate) fn pad_to_4(out: &mut Vec<u8>) {
    while out.len() % 4 != 0 {
        out.push(0);
    }
}

/// Appends a TLV header (`code`, `length` = 4 + `value_len`), saturating a length that would not
/// fit the 16-bit field (only a hand-built oversized value can get there).
pub(crate) fn push_tlv_header(out: &mut Vec<u8>, code: u16, value_len: usize) {
    let len = u16::try_from(value_len.saturating_add(4)).unwrap_or(u16::MAX);
    out.extend_from_slice(&code.to_be_bytes());
    out.extend_from_slice(&len.to_be_bytes());
}

/// Writes a TLV whose value is produced by `body`, fixing the length afterwards, then pads.
pub(crate) fn push_tlv(out: &mut Vec<u8>, code: u16, body: impl FnOnce(&mut Vec<u8>)) {
    let start = out.len();
    out.extend_from_slice(&code.to_be_bytes());
    out.extend_from_slice(&[0, 0]);
    body(out);
    let len = u16::try_from(out.len() - start).unwrap_or(u16::MAX);
    if let Some(slot) = out.get_mut(start + 2..start + 4) {
        slot.copy_from_slice(&len.to_be_bytes());
    }
    pad_to_4(out);
}

/// One TLV (parameter or error cause) read from the front of a buffer.
pub(crate) struct Tlv<'a> {
    pub code: u16,
    /// The length field: header and value, without padding.
    pub len: usize,
    pub value: &'a [u8],
    /// Where the next TLV starts: after the padding, or at the end of the buffer when the
    /// parent's length left the last padding out.
    pub next: usize,
    /// Whether the padding bytes present are not all zero.
    pub dirty_padding: bool,
}

/// Reads the TLV at the start of `rest`; `what` ("parameter", "error cause") names it in the
/// error sentence. Never trusts the length field.
pub(crate) fn read_tlv<'a>(rest: &'a [u8], what: &str, parent: &str) -> Result<Tlv<'a>, String> {
    let (Some(code), Some(len)) = (be16(rest, 0), be16(rest, 2)) else {
        return Err(format!(
            "{} byte(s) left, too few for a 4-byte {what} header",
            rest.len()
        ));
    };
    let len = usize::from(len);
    if len < 4 {
        return Err(format!(
            "{what} 0x{code:04x} has length {len}, shorter than its 4-byte header"
        ));
    }
    let Some(value) = rest.get(4..len) else {
        return Err(format!(
            "{what} 0x{code:04x} has length {len} but only {} byte(s) are left in its {parent}",
            rest.len()
        ));
    };
    let next = padded(len).min(rest.len());
    let dirty_padding = rest
        .get(len..next)
        .is_some_and(|p| p.iter().any(|&b| b != 0));
    Ok(Tlv {
        code,
        len,
        value,
        next,
        dirty_padding,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_stop_at_the_end() {
        let b = [1, 2, 3, 4, 5];
        assert_eq!(be16(&b, 3), Some(0x0405));
        assert_eq!(be16(&b, 4), None);
        assert_eq!(be16(&b, usize::MAX), None);
        assert_eq!(be32(&b, 1), Some(0x0203_0405));
        assert_eq!(be32(&b, 2), None);
    }

    #[test]
    fn padding() {
        assert_eq!(padded(0), 0);
        assert_eq!(padded(5), 8);
        assert_eq!(padded(8), 8);
        let mut v = Vec::new();
        push_tlv(&mut v, 9, |o| o.extend_from_slice(b"abcde"));
        assert_eq!(v, [0, 9, 0, 9, b'a', b'b', b'c', b'd', b'e', 0, 0, 0]);
    }
}
