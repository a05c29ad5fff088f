//! Geneve (RFC 8926): the 8-byte header and its options; the checked parse and the emit.

use super::bytes::{be16, be32};
use super::tunnel::{vni, Overlay};
use crate::error::DecodeError;

/// Decodes a Geneve header (8 bytes and its options).
pub fn parse(data: &[u8]) -> Result<Overlay, DecodeError> {
    let Some(h) = data.get(..8) else {
        return Err(DecodeError::truncated(0, "Geneve header", 8, data.len()));
    };
    let version = h[0] >> 6;
    if version != 0 {
        return Err(DecodeError::new(
            0,
            format!("Geneve version {version} is not defined (0 expected): not decoded further"),
        ));
    }
    let header_len = 8 + usize::from(h[0] & 0x3f) * 4;
    if data.len() < header_len {
        return Err(DecodeError::truncated(
            0,
            "Geneve header with its options",
            header_len,
            data.len(),
        ));
    }
    Ok(Overlay {
        vni: Some(vni(&h[4..7])),
        protocol: u16::from_be_bytes([h[2], h[3]]),
        header_len,
    })
}

/// Appends a Geneve header (version 0) of `protocol` (an EtherType) and `vni`, with `options`
/// (a multiple of 4 bytes, at most 252).
pub fn emit(out: &mut Vec<u8>, protocol: u16, vni: u32, options: &[u8]) {
    out.push((options.len() / 4).min(0x3f) as u8);
    out.push(0);
    be16(out, protocol);
    be32(out, (vni & 0xff_ffff) << 8);
    out.extend_from_slice(options);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn geneve_options_and_version() {
        let mut h = vec![0x01, 0, 0x08, 0x00, 0, 0, 5, 0, 1, 2, 3, 4];
        let o = parse(&h).unwrap();
        assert_eq!((o.vni, o.protocol, o.header_len), (Some(5), 0x0800, 12));
        h.pop();
        assert!(parse(&h).unwrap_err().what.contains("needs 12"));
        assert!(parse(&[0x40, 0, 8, 0, 0, 0, 0, 0])
            .unwrap_err()
            .what
            .contains("version 1"));
    }

    #[test]
    fn emit_then_parse_round_trips() {
        let mut b = Vec::new();
        emit(&mut b, 0x0800, 77, &[1, 2, 3, 1, 0xde, 0xad, 0xbe, 0xef]);
        let o = parse(&b).unwrap();
        assert_eq!((o.vni, o.protocol, o.header_len), (Some(77), 0x0800, 16));
        for n in 0..16 {
            assert_eq!(parse(&b[..n]).unwrap_err().offset, 0, "cut at {n}");
        }
    }
}
