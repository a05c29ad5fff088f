//! IPv6 with its extension headers (hop-by-hop, routing, fragment, destination options, AH; ESP
//! and "no next header" end the walk): the checked parse and the emit of the header and of the
//! extension headers.

use std::net::{IpAddr, Ipv6Addr};

use etherparse::Ipv6HeaderSlice;

use super::bytes::{be16, be32};
use super::ip::{ds_fields, ds_summary, ip_proto_name};
use super::ip::{Fragment, IpPacket};
use super::view::{hex, Next, Span, View};
use crate::error::DecodeError;
use crate::field::{mac, Field};

pub const PROTO_HOPOPTS: u8 = 0;
pub const PROTO_ROUTING: u8 = 43;
pub const PROTO_FRAGMENT: u8 = 44;
pub const PROTO_AH: u8 = 51;
pub const PROTO_DSTOPTS: u8 = 60;
const HOPOPTS: u8 = PROTO_HOPOPTS;
const ROUTING: u8 = PROTO_ROUTING;
const FRAGMENT: u8 = PROTO_FRAGMENT;
const AH: u8 = PROTO_AH;
const DSTOPTS: u8 = PROTO_DSTOPTS;
const MOBILITY: u8 = 135;
const HIP: u8 = 139;
const SHIM6: u8 = 140;
/// Chains of extension headers longer than this are taken for garbage.
pub const MAX_EXTENSIONS: usize = 16;

/// Decodes an IPv6 header and its extension headers at the start of `data`.
pub fn parse<'a>(
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

/// An IPv6 header as built.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ipv6Header {
    pub src: Ipv6Addr,
    pub dst: Ipv6Addr,
    pub next_header: u8,
    pub hop_limit: u8,
    pub flow_label: u32,
}

impl Ipv6Header {
    pub fn new(src: Ipv6Addr, dst: Ipv6Addr, next_header: u8) -> Self {
        Ipv6Header {
            src,
            dst,
            next_header,
            hop_limit: 64,
            flow_label: 0,
        }
    }

    /// Appends the header for a payload (extension headers included) of `payload_len` bytes.
    pub fn emit(&self, out: &mut Vec<u8>, payload_len: usize) {
        be32(out, 0x6000_0000 | (self.flow_label & 0x000f_ffff));
        be16(out, payload_len.min(0xffff) as u16);
        out.push(self.next_header);
        out.push(self.hop_limit);
        out.extend_from_slice(&self.src.octets());
        out.extend_from_slice(&self.dst.octets());
    }
}

/// A hop-by-hop or destination options header carrying `options` (PadN added to reach a multiple
/// of 8 bytes).
pub fn ipv6_options_header(out: &mut Vec<u8>, next_header: u8, options: &[u8]) {
    let start = out.len();
    out.push(next_header);
    out.push(0);
    out.extend_from_slice(options);
    let pad = (8 - (out.len() - start) % 8) % 8;
    match pad {
        0 => {}
        1 => out.push(0), // Pad1
        n => {
            out.push(1); // PadN
            out.push((n - 2) as u8);
            out.resize(out.len() + n - 2, 0);
        }
    }
    out[start + 1] = ((out.len() - start) / 8 - 1) as u8;
}

/// A type 0 routing header with `segments_left` 0 and the given addresses.
pub fn ipv6_routing_header(out: &mut Vec<u8>, next_header: u8, addrs: &[Ipv6Addr]) {
    out.push(next_header);
    out.push((addrs.len() * 2) as u8);
    out.push(0);
    out.push(0);
    be32(out, 0);
    for a in addrs {
        out.extend_from_slice(&a.octets());
    }
}

/// An authentication header with an ICV of `icv_len` bytes (a multiple of 4).
pub fn ipv6_auth_header(out: &mut Vec<u8>, next_header: u8, spi: u32, seq: u32, icv_len: usize) {
    out.push(next_header);
    out.push(((12 + icv_len) / 4 - 2) as u8);
    be16(out, 0);
    be32(out, spi);
    be32(out, seq);
    out.resize(out.len() + icv_len, 0xab);
}

/// An IPv6 fragment header; `offset` in 8-byte units.
pub fn ipv6_fragment_header(out: &mut Vec<u8>, next_header: u8, offset: u16, more: bool, id: u32) {
    out.push(next_header);
    out.push(0);
    be16(out, (offset << 3) | u16::from(more));
    be32(out, id);
}

/// Fills in the payload length of the IPv6 packet from `start` to the end of `out` (its
/// payload built in place after its header).
pub fn finish(out: &mut [u8], start: usize) {
    let len = out.len().saturating_sub(start + 40).min(0xffff) as u16;
    super::bytes::set_be16(out, start + 4, len);
}

/// The display fields of an IPv6 header (`ipv6`) and what follows it (its extension headers,
/// [`extensions`]); `None` when the header is cut short.
pub fn fields(v: &View, s: Span) -> Option<(Field, Next)> {
    let a = s.at;
    let (Some(w), Some(plen), Some(nxt), Some(hlim), Some(src), Some(dst)) = (
        v.be32(a, s),
        v.be16(a + 4, s),
        v.u8(a + 6, s),
        v.u8(a + 7, s),
        v.v6(a + 8, s),
        v.v6(a + 24, s),
    ) else {
        return None;
    };
    let mut tree = Field::node(
        "ipv6",
        v.label(|| format!("Internet Protocol Version 6, Src: {src}, Dst: {dst}")),
        a,
        40,
    )
    // tshark gives IPv6 packets an ip.version too (not shown).
    .children(vec![
        Field::uint("ipv6.version", "Version", w >> 28, a, 1).bits(0xf0, 8),
        Field::uint("ip.version", "Version", w >> 28, a, 1).hidden(),
        {
            let tc = ((w >> 20) & 0xff) as u8;
            v.show(
                hex(Field::uint("ipv6.tclass", "Traffic Class", tc, a, 4), 8).bits(0x0ff0_0000, 32),
                || format!("0x{tc:02x} ({})", ds_summary(tc)),
            )
            .children(ds_fields(v.labels, tc, a, 0x0fc0_0000, 0x0030_0000, 32))
        },
        v.show(
            hex(
                Field::uint("ipv6.flow", "Flow Label", w & 0xfffff, a + 1, 3),
                6,
            )
            .bits(0x0f_ffff, 24),
            || format!("0x{:05x}", w & 0xfffff),
        ),
        Field::uint("ipv6.plen", "Payload Length", plen, a + 4, 2),
        v.name(
            Field::uint("ipv6.nxt", "Next Header", nxt, a + 6, 1),
            ip_proto_name(nxt),
        ),
        Field::uint("ipv6.hlim", "Hop Limit", hlim, a + 7, 1),
        Field::ipv6("ipv6.src", "Source Address", src, a + 8),
        Field::ipv6("ipv6.dst", "Destination Address", dst, a + 24),
    ]);
    if v.labels {
        // tshark's note of the MAC address an EUI-64 interface identifier holds.
        for (which, addr) in [("Source", src), ("Destination", dst)] {
            let o = addr.octets();
            if o[11] == 0xff && o[12] == 0xfe && o[8] & 2 != 0 {
                let m = [o[8] ^ 2, o[9], o[10], o[13], o[14], o[15]];
                let t = format!("{which} SLAAC MAC: {}", mac(&m));
                tree = tree.child(Field::node("", t, a, 0).generated());
            }
        }
    }
    let end = s.end.min(a + 40 + usize::from(plen));
    let next = Next::Ipv6Extensions {
        next: nxt,
        span: Span { at: a + 40, end },
        src: src.into(),
        dst: dst.into(),
    };
    Some((tree, next))
}

/// Walks the extension headers of an IPv6 packet from `src` to `dst`, the first of type
/// `next` at `span.at`, naming each in `names` (as `frame.protocols` does): what follows them
/// (the payload, `data` after a fragment header that is not the first fragment's, or nothing
/// when one is cut short).
pub fn extensions(
    v: &View,
    mut next: u8,
    span: Span,
    src: IpAddr,
    dst: IpAddr,
    names: &mut Vec<&'static str>,
) -> Next {
    let Span { mut at, end } = span;
    for _ in 0..MAX_EXTENSIONS {
        let s = Span { at, end };
        let (name, len) = match next {
            0 | 43 | 60 | 135 | 139 | 140 => {
                let name = match next {
                    0 => "ipv6.hopopts",
                    43 => "ipv6.routing",
                    60 => "ipv6.dstopts",
                    _ => "ipv6.ext",
                };
                let Some(l) = v.u8(at + 1, s) else {
                    return Next::End;
                };
                (name, (usize::from(l) + 1) * 8)
            }
            51 => {
                let Some(l) = v.u8(at + 1, s) else {
                    return Next::End;
                };
                ("ah", (usize::from(l) + 2) * 4)
            }
            44 => {
                names.push("ipv6.fraghdr");
                let Some(off) = v.be16(at + 2, s) else {
                    return Next::End;
                };
                if off & 0xfff9 != 0 {
                    return Next::Data;
                }
                let Some(n) = v.u8(at, s) else {
                    return Next::End;
                };
                next = n;
                at += 8;
                continue;
            }
            _ => break,
        };
        names.push(name);
        let Some(n) = v.u8(at, s) else {
            return Next::End;
        };
        next = n;
        at += len;
        if at > end {
            return Next::End;
        }
    }
    Next::Ip {
        protocol: next,
        span: Span { at, end },
        src,
        dst,
        fragment: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::ip::{PROTO_ESP, PROTO_SCTP, PROTO_UDP};

    fn chain() -> (Vec<u8>, Vec<u8>) {
        let src = Ipv6Addr::LOCALHOST;
        let mut ext = Vec::new();
        ipv6_options_header(&mut ext, PROTO_ROUTING, &[]);
        ipv6_routing_header(&mut ext, PROTO_DSTOPTS, &[src]);
        ipv6_options_header(&mut ext, PROTO_AH, &[5, 1, 0]);
        ipv6_auth_header(&mut ext, PROTO_UDP, 1, 2, 12);
        let payload = [0xaa; 12];
        let mut b = Vec::new();
        Ipv6Header::new(src, src, PROTO_HOPOPTS).emit(&mut b, ext.len() + payload.len());
        b.extend_from_slice(&ext);
        b.extend_from_slice(&payload);
        (b, ext)
    }

    #[test]
    fn ipv6_extension_chain() {
        let (b, ext) = chain();
        let mut errs = Vec::new();
        let p = parse(&b, &mut errs).unwrap();
        assert!(errs.is_empty());
        assert_eq!(p.protocol, PROTO_UDP);
        assert_eq!(p.payload, &[0xaa; 12]);
        assert_eq!(p.payload_offset, 40 + ext.len());
        // Cut inside the routing header: the error points at it.
        let e = parse(&b[..40 + 12], &mut errs).unwrap_err();
        assert_eq!(e.offset, 48);
    }

    #[test]
    fn ipv6_fragment_header_ends_the_walk() {
        let mut b = Vec::new();
        ipv6_fragment_header(&mut b, PROTO_SCTP, 100, true, 0x01020304);
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

    /// Emit then parse gives the emitted addresses, hop limit, flow label and next header.
    #[test]
    fn emit_then_parse_round_trips() {
        let (src, dst) = ("2001:db8::1".parse().unwrap(), "fe80::2".parse().unwrap());
        let mut h = Ipv6Header::new(src, dst, PROTO_SCTP);
        h.hop_limit = 3;
        h.flow_label = 0xabcde;
        let mut b = Vec::new();
        h.emit(&mut b, 4);
        b.extend_from_slice(&[1, 2, 3, 4]);
        let mut errs = Vec::new();
        let p = parse(&b, &mut errs).unwrap();
        assert!(errs.is_empty());
        assert_eq!((p.src, p.dst), (IpAddr::V6(src), IpAddr::V6(dst)));
        assert_eq!(
            (p.protocol, p.payload, p.cut),
            (PROTO_SCTP, &[1u8, 2, 3, 4][..], false)
        );
        assert_eq!(
            (b[7], u32::from_be_bytes([0, b[1] & 0xf, b[2], b[3]])),
            (3, 0xabcde)
        );
    }

    /// Every truncation of an emitted packet with its extension chain parses to an error or a
    /// shorter payload, never a panic.
    #[test]
    fn every_truncation_is_an_error_or_shorter() {
        let (b, _) = chain();
        for n in 0..b.len() {
            let mut errs = Vec::new();
            if let Ok(p) = parse(&b[..n], &mut errs) {
                assert!(p.cut && p.payload.len() < 12, "cut at {n}");
            }
        }
    }

    /// The display fields of an emitted header hold the emitted values; its extension headers
    /// are named and walked to the payload.
    #[test]
    fn fields_of_an_emitted_header() {
        use crate::wire::view::tests::{value, views};
        let (b, ext) = chain();
        for (v, s) in views(&b) {
            let (tree, next) = fields(&v, s).unwrap();
            assert_eq!(value(&tree, "ipv6.src"), "::1");
            assert_eq!(value(&tree, "ipv6.nxt"), "0");
            assert_eq!(value(&tree, "ipv6.hlim"), "64");
            assert_eq!(value(&tree, "ipv6.plen"), (ext.len() + 12).to_string());
            let Next::Ipv6Extensions {
                next,
                span,
                src,
                dst,
            } = next
            else {
                panic!("{next:?}")
            };
            let mut names = Vec::new();
            let after = extensions(&v, next, span, src, dst, &mut names);
            assert_eq!(
                names,
                ["ipv6.hopopts", "ipv6.routing", "ipv6.dstopts", "ah"]
            );
            let Next::Ip { protocol, span, .. } = after else {
                panic!("{after:?}")
            };
            assert_eq!(
                (protocol, span.at, span.end),
                (PROTO_UDP, 40 + ext.len(), b.len())
            );
            for n in 0..40 {
                assert!(fields(&v, Span { at: 0, end: n }).is_none());
            }
        }
    }
}
