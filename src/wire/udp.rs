//! UDP: ports, and the payload bounded by the UDP length checked against the IP payload.

use etherparse::UdpHeaderSlice;

use super::bytes::{be16, set_be16};
use super::ip::internet_checksum;
use super::view::{hex, Span, View};
use crate::error::DecodeError;
use crate::field::Field;

/// A decoded UDP datagram.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UdpDatagram<'a> {
    pub sport: u16,
    pub dport: u16,
    /// The length field.
    pub length: u16,
    pub payload: &'a [u8],
}

/// Decodes a UDP datagram filling the IP payload `data` (errors relative to `data`). A length
/// field that disagrees with the IP payload is reported, and the payload is what both allow.
pub fn parse<'a>(
    data: &'a [u8],
    errors: &mut Vec<DecodeError>,
) -> Result<UdpDatagram<'a>, DecodeError> {
    let h = UdpHeaderSlice::from_slice(data)
        .map_err(|_| DecodeError::truncated(0, "UDP header", 8, data.len()))?;
    let length = h.length();
    let len = usize::from(length);
    let end = if len < 8 {
        // 0 is legal for IPv6 jumbograms only; take the IP payload either way.
        if len != 0 {
            errors.push(DecodeError::new(
                4,
                format!("UDP length {len} is shorter than its 8-byte header"),
            ));
        }
        data.len()
    } else if len > data.len() {
        errors.push(DecodeError::new(
            4,
            format!(
                "UDP length {len} exceeds the {} bytes of the IP payload",
                data.len()
            ),
        ));
        data.len()
    } else {
        len
    };
    Ok(UdpDatagram {
        sport: h.source_port(),
        dport: h.destination_port(),
        length,
        payload: data.get(8..end).unwrap_or(&[]),
    })
}

/// Appends a UDP datagram; `pseudo` is the pseudo-header sum of the IP layer (see
/// [`super::ip::pseudo_header_sum`]), computed for the datagram's length.
pub fn emit(out: &mut Vec<u8>, sport: u16, dport: u16, payload: &[u8], pseudo: u32) {
    let start = out.len();
    emit_header(out, sport, dport);
    out.extend_from_slice(payload);
    finish(out, start, |_| pseudo);
}

/// Appends a UDP header with its length and checksum zero, for a payload built in place after
/// it; [`finish`] fills them in.
pub fn emit_header(out: &mut Vec<u8>, sport: u16, dport: u16) {
    be16(out, sport);
    be16(out, dport);
    be16(out, 0);
    be16(out, 0);
}

/// Fills in the length and checksum of the datagram from `start` to the end of `out`;
/// `pseudo` gives the IP layer's pseudo-header sum for the datagram's length.
pub fn finish(out: &mut [u8], start: usize, pseudo: impl FnOnce(usize) -> u32) {
    let len = out.len().saturating_sub(start);
    set_be16(out, start + 4, len.min(0xffff) as u16);
    let mut sum = internet_checksum(pseudo(len), out.get(start..).unwrap_or_default());
    if sum == 0 {
        sum = 0xffff;
    }
    set_be16(out, start + 6, sum);
}

/// The display fields of a UDP header (`udp`) at `s.at`, its ports and its payload (bounded by
/// the length field); `None` when the header is cut short.
pub fn fields(v: &View, s: Span) -> Option<(Field, u16, u16, Span)> {
    let a = s.at;
    let (Some(sport), Some(dport), Some(len), Some(sum)) = (
        v.be16(a, s),
        v.be16(a + 2, s),
        v.be16(a + 4, s),
        v.be16(a + 6, s),
    ) else {
        return None;
    };
    let mut tree = Field::node(
        "udp",
        v.label(|| format!("User Datagram Protocol, Src Port: {sport}, Dst Port: {dport}")),
        a,
        8,
    )
    .children(vec![
        Field::uint("udp.srcport", "Source Port", sport, a, 2),
        Field::uint("udp.dstport", "Destination Port", dport, a + 2, 2),
        Field::uint("udp.length", "Length", len, a + 4, 2),
        v.show(
            hex(Field::uint("udp.checksum", "Checksum", sum, a + 6, 2), 4),
            || {
                if sum == 0 {
                    "0x0000 [zero-value ignored]".to_string()
                } else {
                    format!("0x{sum:04x} [unverified]")
                }
            },
        ),
    ]);
    if v.labels {
        let status = if sum == 0 {
            "Not present"
        } else {
            "Unverified"
        };
        tree =
            tree.child(Field::node("", format!("Checksum Status: {status}"), a + 6, 0).generated());
    }
    let end = if usize::from(len) >= 8 {
        s.end.min(a + usize::from(len))
    } else {
        s.end
    };
    if v.labels {
        let n = end.saturating_sub(a + 8);
        tree = tree.child(Field::node(
            "",
            format!("UDP payload ({n} bytes)"),
            a + 8,
            n,
        ));
    }
    Some((tree, sport, dport, Span { at: a + 8, end }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lengths_checked_against_the_ip_payload() {
        let d = [0, 67, 0, 68, 0, 12, 0, 0, 1, 2, 3, 4, 9, 9];
        let mut e = Vec::new();
        let u = parse(&d, &mut e).unwrap();
        assert_eq!((u.sport, u.dport, u.payload), (67, 68, &[1u8, 2, 3, 4][..]));
        assert!(e.is_empty());
        let u = parse(&d[..10], &mut e).unwrap();
        assert_eq!(u.payload, &[1, 2]);
        assert_eq!((e.len(), e[0].offset), (1, 4));
        assert_eq!(parse(&d[..7], &mut e).unwrap_err().offset, 0);
    }

    /// Emit then parse gives the ports and payload, and the checksum the emit wrote makes the
    /// sum over pseudo-header and datagram zero (RFC 768's check).
    #[test]
    fn emit_then_parse_round_trips() {
        let pseudo = super::super::ip::pseudo_header_sum(&[10, 0, 0, 1], &[10, 0, 0, 2], 17, 11);
        let mut b = Vec::new();
        emit(&mut b, 67, 68, &[1, 2, 3], pseudo);
        let mut e = Vec::new();
        let u = parse(&b, &mut e).unwrap();
        assert!(e.is_empty());
        assert_eq!(
            (u.sport, u.dport, u.length, u.payload),
            (67, 68, 11, &[1u8, 2, 3][..])
        );
        assert_eq!(internet_checksum(pseudo, &b), 0);
        for n in 0..b.len() {
            let mut e = Vec::new();
            match parse(&b[..n], &mut e) {
                Err(err) => assert_eq!((err.offset, n < 8), (0, true)),
                Ok(u) => assert!(u.payload.len() < 3 && e.len() == 1, "cut at {n}"),
            }
        }
    }

    #[test]
    fn fields_of_an_emitted_header() {
        use crate::wire::view::tests::{value, views};
        let mut b = Vec::new();
        emit(&mut b, 3868, 647, &[1, 2, 3], 0);
        for (v, s) in views(&b) {
            let (tree, sport, dport, payload) = fields(&v, s).unwrap();
            assert_eq!(
                (sport, dport, payload),
                (3868, 647, Span { at: 8, end: 11 })
            );
            assert_eq!(value(&tree, "udp.srcport"), "3868");
            assert_eq!(value(&tree, "udp.dstport"), "647");
            assert_eq!(value(&tree, "udp.length"), "11");
            for n in 0..8 {
                assert!(fields(&v, Span { at: 0, end: n }).is_none());
            }
        }
    }
}
