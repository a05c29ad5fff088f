//! BSD loopback (LINKTYPE_NULL, LINKTYPE_LOOP): a 4-byte address family, then the IP packet.

use super::link::{LinkLayer, Network};
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

/// Appends a BSD loopback header: the address family in the writer's byte order (LINKTYPE_NULL)
/// or in network order (LINKTYPE_LOOP).
pub fn emit(out: &mut Vec<u8>, family: u32, big_endian: bool) {
    out.extend_from_slice(&if big_endian {
        family.to_be_bytes()
    } else {
        family.to_le_bytes()
    });
}
