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

/// Teredo's authentication header (RFC 4380 5.1.1): the client identifier, the authentication
/// value, the nonce and the confirmation byte.
#[derive(Clone, Copy, Debug)]
pub struct Authentication<'a> {
    pub client_id: &'a [u8],
    pub value: &'a [u8],
    pub nonce: [u8; 8],
    pub confirmation: u8,
}

/// Appends Teredo's optional headers (the IPv6 packet goes after them): the authentication
/// header, then the origin indication with the port and IPv4 address obfuscated (each bit
/// inverted) as RFC 4380 5.1.1 writes them. `None` for a header skips it. The identifier and
/// the value are cut at 255 bytes, what their one-byte lengths can say.
pub fn emit(
    out: &mut Vec<u8>,
    auth: Option<Authentication>,
    origin: Option<(u16, std::net::Ipv4Addr)>,
) {
    if let Some(a) = auth {
        let id = &a.client_id[..a.client_id.len().min(255)];
        let value = &a.value[..a.value.len().min(255)];
        out.extend_from_slice(&[0, 1, id.len() as u8, value.len() as u8]);
        out.extend_from_slice(id);
        out.extend_from_slice(value);
        out.extend_from_slice(&a.nonce);
        out.push(a.confirmation);
    }
    if let Some((port, addr)) = origin {
        out.extend_from_slice(&[0, 0]);
        out.extend_from_slice(&(!port).to_be_bytes());
        out.extend_from_slice(&(!u32::from(addr)).to_be_bytes());
    }
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
    fn emit_then_parse_finds_the_ipv6_packet() {
        let mut ipv6 = vec![0x60, 0, 0, 0, 0, 0, 59, 64];
        ipv6.extend_from_slice(&[0; 32]);
        let auth = Authentication {
            client_id: b"id",
            value: b"value",
            nonce: [1, 2, 3, 4, 5, 6, 7, 8],
            confirmation: 0,
        };
        let origin = Some((40000, std::net::Ipv4Addr::new(192, 0, 2, 45)));
        for (a, o, len) in [
            (None, None, 0),
            (None, origin, 8),
            (Some(auth), None, 20),
            (Some(auth), origin, 28),
        ] {
            let mut b = Vec::new();
            emit(&mut b, a, o);
            assert_eq!(b.len(), len);
            if o.is_some() {
                // RFC 4380 4's example: port 40000 obfuscated is 0x63bf, 192.0.2.45 is
                // 0x3ffffdd2 (the last 48 bits of 2001:0000:4136:e378:8000:63bf:3fff:fdd2).
                assert_eq!(b[len - 6..], [0x63, 0xbf, 0x3f, 0xff, 0xfd, 0xd2]);
            }
            b.extend_from_slice(&ipv6);
            let t = parse(&b).expect("teredo");
            assert_eq!(
                (t.header_len, t.protocol, t.vni),
                (len, ETHERTYPE_IPV6, None)
            );
            assert_eq!(
                fields(
                    Span {
                        at: 0,
                        end: b.len()
                    },
                    t.header_len
                )
                .len,
                len
            );
            for cut in 0..b.len() {
                assert!(parse(&b[..cut]).is_none(), "cut at {cut}");
            }
        }
    }

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
