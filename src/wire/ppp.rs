//! PPP (LINKTYPE_PPP, and LINKTYPE_PPP_HDLC with its framing already undone).

use super::link::{be16, LinkLayer, Network};
use super::view::{hex, Next, Span, View};
use crate::error::DecodeError;
use crate::field::Field;

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

/// The display fields of PPP (`ppp`) and what follows it: the HDLC address and control bytes unless compressed away, the protocol (one byte
/// when compressed), then IPv4 or IPv6.
pub fn fields(v: &View, s: Span) -> (Field, Next) {
    let mut children = Vec::with_capacity(3);
    let mut at = s.at;
    if let (Some(0xff), Some(control)) = (v.u8(at, s), v.u8(at + 1, s)) {
        children.push(hex(Field::uint("ppp.address", "Address", 0xffu8, at, 1), 2));
        children.push(hex(
            Field::uint("ppp.control", "Control", control, at + 1, 1),
            2,
        ));
        at += 2;
    }
    let protocol = match v.u8(at, s) {
        Some(p) if p & 1 == 1 => Some((u16::from(p), 1)),
        Some(_) => v.be16(at, s).map(|p| (p, 2)),
        None => None,
    };
    if let Some((p, len)) = protocol {
        children.push(hex(Field::uint("ppp.protocol", "Protocol", p, at, len), 4));
    }
    let len = at - s.at + protocol.map_or(0, |(_, n)| n);
    let tree = Field::node("ppp", "Point-to-Point Protocol", s.at, len).children(children);
    let next = match protocol {
        Some((PPP_IPV4, len)) => Next::Ipv4(s.from(at - s.at + len)),
        Some((PPP_IPV6, len)) => Next::Ipv6(s.from(at - s.at + len)),
        _ => Next::End,
    };
    (tree, next)
}

/// Appends a PPP header: the HDLC address and control bytes unless `compressed` (ACFC), then
/// `protocol` (one byte when `compressed` and it fits: PFC).
pub fn emit(out: &mut Vec<u8>, protocol: u16, compressed: bool) {
    if !compressed {
        out.extend_from_slice(&[0xff, 0x03]);
    }
    match u8::try_from(protocol) {
        Ok(p) if compressed && p & 1 == 1 => out.push(p),
        _ => out.extend_from_slice(&protocol.to_be_bytes()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::view::tests::{value, views};

    /// Emit then parse, and the display fields, give the emitted protocol and where the packet
    /// starts, compressed or not.
    #[test]
    fn emit_parse_and_fields_agree() {
        for (compressed, protocol, network, len) in [
            (false, PPP_IPV4, Network::Ipv4, 4),
            (true, PPP_IPV6, Network::Ipv6, 1),
            (true, 0xc021, Network::Ppp(0xc021), 2),
        ] {
            let mut b = Vec::new();
            emit(&mut b, protocol, compressed);
            let l = parse(&b).unwrap();
            assert_eq!((l.network, l.offset), (network, len));
            b.extend_from_slice(&[0x45; 20]);
            for (v, s) in views(&b) {
                let (tree, next) = fields(&v, s);
                assert_eq!(value(&tree, "ppp.protocol"), format!("0x{protocol:04x}"));
                match network {
                    Network::Ipv4 => assert_eq!(next, Next::Ipv4(s.from(len))),
                    Network::Ipv6 => assert_eq!(next, Next::Ipv6(s.from(len))),
                    _ => assert_eq!(next, Next::End),
                }
            }
            for n in 0..len {
                assert!(parse(&b[..n]).is_err(), "cut at {n}");
            }
        }
    }
}
