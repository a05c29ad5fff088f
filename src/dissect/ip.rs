//! IPv4 (options skipped; the header checksum is not required) and IPv6 with its extension
//! headers (hop-by-hop, routing, fragment, destination options, AH; ESP and "no next header" end
//! the walk).

use std::net::IpAddr;

use etherparse::err::ipv4::{HeaderError as V4Error, HeaderSliceError as V4SliceError};
use etherparse::{Ipv4HeaderSlice, Ipv6HeaderSlice};

use crate::error::DecodeError;

pub const PROTO_ICMP: u8 = 1;
pub const PROTO_IGMP: u8 = 2;
pub const PROTO_TCP: u8 = 6;
pub const PROTO_UDP: u8 = 17;
pub const PROTO_ESP: u8 = 50;
pub const PROTO_ICMPV6: u8 = 58;
pub const PROTO_NONE: u8 = 59;
pub const PROTO_SCTP: u8 = 132;

const HOPOPTS: u8 = 0;
const ROUTING: u8 = 43;
const FRAGMENT: u8 = 44;
const AH: u8 = 51;
const DSTOPTS: u8 = 60;
const MOBILITY: u8 = 135;
const HIP: u8 = 139;
const SHIM6: u8 = 140;
/// Chains of extension headers longer than this are taken for garbage.
pub(super) const MAX_EXTENSIONS: usize = 16;

/// Where a fragment belongs in its datagram.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fragment {
    /// IPv4: the 16-bit identification; IPv6: the 32-bit one.
    pub id: u32,
    /// Byte offset of this fragment's payload in the datagram's payload.
    pub offset: usize,
    pub more: bool,
}

/// A decoded IP header and the payload it carries in this frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IpPacket<'a> {
    pub version: u8,
    pub src: IpAddr,
    pub dst: IpAddr,
    /// The upper-layer protocol (after IPv6 extension headers). For an IPv6 fragment this is
    /// the fragment header's next header, which applies to the reassembled payload.
    pub protocol: u8,
    pub payload: &'a [u8],
    /// Offset of `payload` relative to the start of the IP header.
    pub payload_offset: usize,
    pub fragment: Option<Fragment>,
    /// The capture holds fewer bytes than the header announces (`payload` is cut short).
    pub cut: bool,
}

/// Decodes an IPv4 header at the start of `data` (errors relative to `data`). Problems that
/// still leave a payload (a total length beyond the captured bytes) go to `errors`.
// Inlined into the frame's path as it was when it had one caller (tunnels call it too): out of
// line it cost 1.5% more instructions to dissect.
#[inline(always)]
pub fn parse_ipv4<'a>(
    data: &'a [u8],
    errors: &mut Vec<DecodeError>,
) -> Result<IpPacket<'a>, DecodeError> {
    let h = Ipv4HeaderSlice::from_slice(data).map_err(|e| match e {
        V4SliceError::Len(l) => DecodeError::truncated(0, "IPv4 header", l.required_len, l.len),
        V4SliceError::Content(V4Error::UnexpectedVersion { version_number }) => {
            DecodeError::new(0, format!("IP version {version_number} in an IPv4 packet"))
        }
        V4SliceError::Content(V4Error::HeaderLengthSmallerThanHeader { ihl }) => DecodeError::new(
            0,
            format!(
                "IPv4 header length {} is below the 20-byte minimum",
                u32::from(ihl) * 4
            ),
        ),
    })?;
    let hl = h.slice().len();
    let total = usize::from(h.total_len());
    if total < hl {
        return Err(DecodeError::new(
            2,
            format!("IPv4 total length {total} is shorter than its {hl}-byte header"),
        ));
    }
    let cut = total > data.len();
    let end = if cut {
        errors.push(DecodeError::new(
            2,
            format!(
                "IPv4 total length {total} exceeds the {} bytes captured",
                data.len()
            ),
        ));
        data.len()
    } else {
        // Bytes past the total length are link-layer padding.
        total
    };
    let payload = data.get(hl..end).unwrap_or(&[]);
    let offset = usize::from(h.fragments_offset().value()) * 8;
    let more = h.more_fragments();
    Ok(IpPacket {
        version: 4,
        src: IpAddr::V4(h.source_addr()),
        dst: IpAddr::V4(h.destination_addr()),
        protocol: h.protocol().0,
        payload,
        payload_offset: hl,
        fragment: (more || offset != 0).then_some(Fragment {
            id: u32::from(h.identification()),
            offset,
            more,
        }),
        cut,
    })
}

/// Decodes an IPv6 header and its extension headers at the start of `data`.
pub fn parse_ipv6<'a>(
    data: &'a [u8],
    errors: &mut Vec<DecodeError>,
) -> Result<IpPacket<'a>, DecodeError> {
    let h = Ipv6HeaderSlice::from_slice(data).map_err(|e| match e {
        etherparse::err::ipv6::HeaderSliceError::Len(l) => {
            DecodeError::truncated(0, "IPv6 header", l.required_len, l.len)
        }
        etherparse::err::ipv6::HeaderSliceError::Content(c) => DecodeError::new(0, c.to_string()),
    })?;
    let declared = usize::from(h.payload_length());
    let available = data.len().saturating_sub(40);
    let cut = declared > available;
    let plen = if declared == 0 && h.next_header().0 == HOPOPTS {
        // A jumbogram: the length is in a hop-by-hop option; take what was captured.
        available
    } else if declared > available {
        errors.push(DecodeError::new(
            4,
            format!("IPv6 payload length {declared} exceeds the {available} bytes captured"),
        ));
        available
    } else {
        declared
    };
    let body = data.get(40..40 + plen).unwrap_or(&[]);
    let walk = walk_extensions(h.next_header().0, body).map_err(|e| e.shifted(40))?;
    Ok(IpPacket {
        version: 6,
        src: IpAddr::V6(h.source_addr()),
        dst: IpAddr::V6(h.destination_addr()),
        protocol: walk.protocol,
        payload: body.get(walk.offset..).unwrap_or(&[]),
        payload_offset: 40 + walk.offset,
        fragment: walk.fragment,
        cut,
    })
}

/// Where the IPv6 extension headers of a payload end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Extensions {
    pub protocol: u8,
    /// Offset of the upper-layer payload in the walked buffer.
    pub offset: usize,
    /// A fragment header ends the walk: what follows belongs to the reassembled datagram.
    pub fragment: Option<Fragment>,
}

/// Walks IPv6 extension headers starting with `next` at the start of `data`. Used on a
/// packet's payload and again on a reassembled datagram (extension headers after the fragment
/// header are in the fragmentable part).
pub fn walk_extensions(mut next: u8, data: &[u8]) -> Result<Extensions, DecodeError> {
    let mut off = 0usize;
    for _ in 0..MAX_EXTENSIONS {
        let rest = data.get(off..).unwrap_or(&[]);
        let len = match next {
            HOPOPTS | ROUTING | DSTOPTS | MOBILITY | HIP | SHIM6 => {
                let Some(&l) = rest.get(1) else {
                    return Err(DecodeError::truncated(
                        off,
                        "IPv6 extension header",
                        2,
                        rest.len(),
                    ));
                };
                (usize::from(l) + 1) * 8
            }
            AH => {
                let Some(&l) = rest.get(1) else {
                    return Err(DecodeError::truncated(
                        off,
                        "IPv6 authentication header",
                        2,
                        rest.len(),
                    ));
                };
                (usize::from(l) + 2) * 4
            }
            FRAGMENT => {
                let Some(f) = rest.get(..8) else {
                    return Err(DecodeError::truncated(
                        off,
                        "IPv6 fragment header",
                        8,
                        rest.len(),
                    ));
                };
                let field = u16::from_be_bytes([f[2], f[3]]);
                return Ok(Extensions {
                    protocol: f[0],
                    offset: off + 8,
                    fragment: Some(Fragment {
                        id: u32::from_be_bytes([f[4], f[5], f[6], f[7]]),
                        offset: usize::from(field >> 3) * 8,
                        more: field & 1 == 1,
                    }),
                });
            }
            // The upper layer, ESP (opaque) or "no next header".
            _ => {
                return Ok(Extensions {
                    protocol: next,
                    offset: off,
                    fragment: None,
                })
            }
        };
        if rest.len() < len {
            return Err(DecodeError::truncated(
                off,
                "IPv6 extension header",
                len,
                rest.len(),
            ));
        }
        next = rest[0];
        off += len;
    }
    Err(DecodeError::new(
        off,
        format!("more than {MAX_EXTENSIONS} IPv6 extension headers"),
    ))
}

/// The name tshark gives an IP protocol it shows as the deepest layer.
pub fn protocol_name(p: u8, version: u8) -> &'static str {
    match p {
        PROTO_ICMP => "ICMP",
        PROTO_IGMP => "IGMP",
        PROTO_TCP => "TCP",
        PROTO_UDP => "UDP",
        PROTO_SCTP => "SCTP",
        PROTO_ICMPV6 => "ICMPv6",
        PROTO_ESP => "ESP",
        4 => "IPv4",
        41 => "IPv6",
        47 => "GRE",
        89 => "OSPF",
        103 => "PIM",
        112 => "VRRP",
        _ if version == 6 => "IPv6",
        _ => "IPv4",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::ip as build;
    use std::net::{Ipv4Addr, Ipv6Addr};

    #[test]
    fn ipv4_options_padding_and_fragments() {
        let mut h =
            build::Ipv4Header::new(Ipv4Addr::new(10, 0, 0, 1), Ipv4Addr::new(10, 0, 0, 2), 17);
        h.options = vec![1, 1, 1, 0]; // NOPs and end of options
        h.more_fragments = true;
        h.fragment_offset = 3;
        h.id = 0xbeef;
        let mut b = Vec::new();
        h.emit(&mut b, 8);
        b.extend_from_slice(&[9; 8]);
        b.extend_from_slice(&[0; 6]); // Ethernet padding
        let mut errs = Vec::new();
        let p = parse_ipv4(&b, &mut errs).unwrap();
        assert!(errs.is_empty());
        assert_eq!(p.payload, &[9; 8]);
        assert_eq!(p.payload_offset, 24);
        assert_eq!(
            p.fragment,
            Some(Fragment {
                id: 0xbeef,
                offset: 24,
                more: true
            })
        );
        // Cut: the payload is what is there, with an error.
        let p = parse_ipv4(&b[..28], &mut errs).unwrap();
        assert_eq!(p.payload.len(), 4);
        assert_eq!(errs.len(), 1);
        assert_eq!(errs[0].offset, 2);
        assert_eq!(parse_ipv4(&b[..10], &mut errs).unwrap_err().offset, 0);
    }

    #[test]
    fn ipv6_extension_chain() {
        let src = Ipv6Addr::LOCALHOST;
        let mut ext = Vec::new();
        build::ipv6_options_header(&mut ext, build::PROTO_ROUTING, &[]);
        build::ipv6_routing_header(&mut ext, build::PROTO_DSTOPTS, &[src]);
        build::ipv6_options_header(&mut ext, build::PROTO_AH, &[5, 1, 0]);
        build::ipv6_auth_header(&mut ext, build::PROTO_UDP, 1, 2, 12);
        let payload = [0xaa; 12];
        let mut b = Vec::new();
        build::Ipv6Header::new(src, src, build::PROTO_HOPOPTS)
            .emit(&mut b, ext.len() + payload.len());
        b.extend_from_slice(&ext);
        b.extend_from_slice(&payload);
        let mut errs = Vec::new();
        let p = parse_ipv6(&b, &mut errs).unwrap();
        assert!(errs.is_empty());
        assert_eq!(p.protocol, PROTO_UDP);
        assert_eq!(p.payload, &payload);
        assert_eq!(p.payload_offset, 40 + ext.len());
        // Cut inside the routing header: the error points at it.
        let e = parse_ipv6(&b[..40 + 12], &mut errs).unwrap_err();
        assert_eq!(e.offset, 48);
    }

    #[test]
    fn ipv6_fragment_header_ends_the_walk() {
        let mut b = Vec::new();
        build::ipv6_fragment_header(&mut b, PROTO_SCTP, 100, true, 0x01020304);
        b.extend_from_slice(&[1; 8]);
        let w = walk_extensions(44, &b).unwrap();
        assert_eq!(w.protocol, PROTO_SCTP);
        assert_eq!(w.offset, 8);
        assert_eq!(
            w.fragment,
            Some(Fragment {
                id: 0x01020304,
                offset: 800,
                more: true
            })
        );
        assert_eq!(walk_extensions(PROTO_ESP, &b).unwrap().protocol, PROTO_ESP);
    }
}
