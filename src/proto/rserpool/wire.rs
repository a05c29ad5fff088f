//! The nom parsers shared by messages, parameters and error causes (the TLV header and the TLV
//! with its padding), the 4-byte padding rule, and the writers of TLVs.

use nom::{IResult, Parser};

use crate::proto::be::{be_u16, take};

/// `code u16 | length u16`: the header of a parameter or an error cause.
#[inline]
pub(crate) fn tlv_header(i: &[u8]) -> IResult<&[u8], (u16, u16)> {
    (be_u16, be_u16).parse(i)
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
#[derive(Debug)]
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
    let Ok((after, (code, len))) = tlv_header(rest) else {
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
    let Ok((after, value)) = tlv_value(after, len) else {
        return Err(format!(
            "{what} 0x{code:04x} has length {len} but only {} byte(s) are left in its {parent}",
            rest.len()
        ));
    };
    // The padding there is: the parent's length may leave the last TLV's out.
    let pad = (padded(len) - len).min(after.len());
    let padding = after.get(..pad).unwrap_or_default();
    Ok(Tlv {
        code,
        len,
        value,
        next: len + pad,
        dirty_padding: padding.iter().any(|&b| b != 0),
    })
}

/// The value of a TLV whose length field (header included, at least 4) says `len`.
fn tlv_value(i: &[u8], len: usize) -> IResult<&[u8], &[u8]> {
    take(len - 4).parse(i)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tlvs_stop_at_the_end() {
        assert_eq!(tlv_header(&[0, 9, 0, 5, 7]), Ok((&[7u8][..], (9, 5))));
        assert!(tlv_header(&[0, 9, 0]).is_err());
        // A value of 1, then padding of which only 2 bytes are there.
        let t = read_tlv(&[0, 9, 0, 5, 7, 0, 1], "parameter", "parent").unwrap();
        assert_eq!((t.code, t.len, t.value, t.next), (9, 5, &[7u8][..], 7));
        assert!(t.dirty_padding);
        let e = read_tlv(&[0, 9, 0, 9, 7], "parameter", "message").unwrap_err();
        assert_eq!(
            e,
            "parameter 0x0009 has length 9 but only 5 byte(s) are left in its message"
        );
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
