//! Teredo (RFC 4380): IPv6 over UDP, after optional authentication and origin indication
//! headers.

use super::ethernet::ETHERTYPE_IPV6;
use super::tunnel::Overlay;
use super::view::Span;
use crate::field::Field;

/// Finds the IPv6 packet of a Teredo datagram after its optional headers (RFC 4380 5.1.1: the
/// authentication header, `00 01`, then the origin indication, `00 00`). `None` when no IPv6
/// header (version 6, 40 bytes) follows them: the datagram is not Teredo, whatever its port.
pub fn parse(data: &[u8]) -> Option<Overlay> {
    let mut at = 0;
    if data.get(..2) == Some(&[0, 1]) {
        // Client identifier and authentication value lengths; the nonce (8) and confirmation (1).
        let (id, au) = (usize::from(*data.get(2)?), usize::from(*data.get(3)?));
        at = 4 + id + au + 9;
    }
    if data.get(at..at + 2) == Some(&[0, 0]) {
        at += 8;
    }
    let ipv6 = data.get(at..at.checked_add(40)?)?;
    (ipv6[0] >> 4 == 6).then_some(Overlay {
        vni: None,
        protocol: ETHERTYPE_IPV6,
        header_len: at,
    })
}

/// The display tree of Teredo's headers (`teredo`): `header` bytes at `s.at` (from [`parse`]),
/// the IPv6 packet after them.
pub fn fields(s: Span, header: usize) -> Field {
    Field::node("teredo", "Teredo IPv6 over UDP tunneling", s.at, header)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn teredo_headers_before_ipv6() {
        let mut ipv6 = vec![0x60, 0, 0, 0, 0, 0, 59, 21];
        ipv6.extend_from_slice(&[0; 32]);
        assert_eq!(parse(&ipv6).map(|o| o.header_len), Some(0));
        // Origin indication, then the packet.
        let mut origin = vec![0, 0, 0xf3, 0xfd, 1, 2, 3, 4];
        origin.extend_from_slice(&ipv6);
        assert_eq!(parse(&origin).map(|o| o.header_len), Some(8));
        // Authentication (client id of 2 bytes, no value), origin indication, the packet.
        let mut auth = vec![0, 1, 2, 0, 9, 9];
        auth.extend_from_slice(&[0; 9]);
        auth.extend_from_slice(&origin);
        let o = parse(&auth).expect("teredo");
        assert_eq!((o.header_len, o.protocol, o.vni), (23, 0x86dd, None));
        // Not IPv6, or too short to be: not Teredo.
        assert_eq!(parse(&[0x45; 40]), None);
        assert_eq!(parse(&ipv6[..39]), None);
        for cut in 0..auth.len() {
            assert!(parse(&auth[..cut]).is_none_or(|o| o.header_len <= cut));
        }
    }
}
