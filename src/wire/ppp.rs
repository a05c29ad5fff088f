//! PPP (LINKTYPE_PPP, and LINKTYPE_PPP_HDLC with its framing already undone).

use super::link::{be16, LinkLayer, Network};
use crate::error::DecodeError;

/// PPP protocol numbers of IPv4 and IPv6.
pub const PPP_IPV4: u16 = 0x0021;
pub const PPP_IPV6: u16 = 0x0057;

/// PPP (LINKTYPE_PPP, and LINKTYPE_PPP_HDLC with its framing already undone): the HDLC address
/// and control bytes unless they were compressed away (RFC 1661's ACFC: no 0xff first), then the
/// protocol, one byte when compressed (PFC: an odd first byte).
pub(crate) fn parse(data: &[u8]) -> Result<LinkLayer, DecodeError> {
    let at = if data.first() == Some(&0xff) { 2 } else { 0 };
    let first = *data.get(at).ok_or_else(|| {
        DecodeError::truncated(at, "PPP protocol", 2, data.len().saturating_sub(at))
    })?;
    let (protocol, len) = if first & 1 == 1 {
        (u16::from(first), 1)
    } else {
        let p = be16(data, at).ok_or_else(|| DecodeError::truncated(at, "PPP protocol", 2, 1))?;
        (p, 2)
    };
    let network = match protocol {
        PPP_IPV4 => Network::Ipv4,
        PPP_IPV6 => Network::Ipv6,
        p => Network::Ppp(p),
    };
    Ok(LinkLayer::bare(network, at + len))
}
