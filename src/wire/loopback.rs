//! BSD loopback (LINKTYPE_NULL, LINKTYPE_LOOP): a 4-byte address family, then the IP packet.

use super::link::{LinkLayer, Network};
use super::view::{Next, Span, View};
use crate::error::DecodeError;

/// BSD loopback: a 4-byte address family in the capturing host's byte order (LINKTYPE_NULL,
/// `big_endian` unknown) or in network order (LINKTYPE_LOOP).
pub(crate) fn parse(data: &[u8], big_endian: Option<bool>) -> Result<LinkLayer, DecodeError> {
    let b: [u8; 4] = data
        .get(..4)
        .and_then(|b| b.try_into().ok())
        .ok_or_else(|| DecodeError::truncated(0, "loopback header", 4, data.len()))?;
    let family = match big_endian {
        Some(true) => u32::from_be_bytes(b),
        Some(false) => u32::from_le_bytes(b),
        // Families are small numbers: whichever reading is small is the host's order.
        None => {
            let le = u32::from_le_bytes(b);
            if le <= 0xffff {
                le
            } else {
                u32::from_be_bytes(b)
            }
        }
    };
    let network = match family {
        2 => Network::Ipv4,
        // AF_INET6: 24 on NetBSD/OpenBSD, 28 on FreeBSD, 30 on macOS (and 10 on Linux).
        10 | 24 | 28 | 30 => Network::Ipv6,
        f => Network::Other(f.min(0xffff) as u16),
    };
    Ok(LinkLayer::bare(network, 4))
}

/// What follows a loopback header in the display walk (tshark's `null`, whose family field
/// poolshark does not show): the family's byte order varies, so the IP version after it says
/// which IP it is.
pub fn fields(v: &View, s: Span) -> Next {
    match v.u8(s.at + 4, s).map(|b| b >> 4) {
        Some(4) => Next::Ipv4(s.from(4)),
        Some(6) => Next::Ipv6(s.from(4)),
        _ => Next::End,
    }
}

/// Appends a BSD loopback header: the address family in the writer's byte order (LINKTYPE_NULL)
/// or in network order (LINKTYPE_LOOP).
pub fn emit(out: &mut Vec<u8>, family: u32, big_endian: bool) {
    out.extend_from_slice(&if big_endian {
        family.to_be_bytes()
    } else {
        family.to_le_bytes()
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::view::tests::views;

    #[test]
    fn emit_then_parse_and_show_in_either_byte_order() {
        for (family, network) in [(2, Network::Ipv4), (24, Network::Ipv6), (30, Network::Ipv6)] {
            for big_endian in [false, true] {
                let mut b = Vec::new();
                emit(&mut b, family, big_endian);
                b.push(if network == Network::Ipv4 { 0x45 } else { 0x60 });
                // LINKTYPE_LOOP says the order; LINKTYPE_NULL's is guessed from the number.
                for known in [Some(big_endian), None] {
                    let l = parse(&b, known).unwrap();
                    assert_eq!((l.network, l.offset), (network, 4), "{family} {known:?}");
                }
                for (v, s) in views(&b) {
                    let next = fields(&v, s);
                    let ip = if network == Network::Ipv4 {
                        Next::Ipv4(s.from(4))
                    } else {
                        Next::Ipv6(s.from(4))
                    };
                    assert_eq!(next, ip);
                    assert_eq!(fields(&v, Span { at: 0, end: 4 }), Next::End);
                }
                for n in 0..4 {
                    assert_eq!(parse(&b[..n], None).map(|_| ()).unwrap_err().offset, 0);
                }
            }
        }
    }
}
