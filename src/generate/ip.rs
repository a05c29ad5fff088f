//! IPv4 and IPv6 headers, IPv6 extension headers and fragmentation of built packets.

use std::net::{Ipv4Addr, Ipv6Addr};

use super::bytes::{be16, be32, set_be16};

pub const PROTO_HOPOPTS: u8 = 0;
pub const PROTO_TCP: u8 = 6;
pub const PROTO_UDP: u8 = 17;
pub const PROTO_ROUTING: u8 = 43;
pub const PROTO_FRAGMENT: u8 = 44;
pub const PROTO_ESP: u8 = 50;
pub const PROTO_AH: u8 = 51;
pub const PROTO_NONE: u8 = 59;
pub const PROTO_DSTOPTS: u8 = 60;
pub const PROTO_SCTP: u8 = 132;

/// An IPv4 header as built.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ipv4Header {
    pub src: Ipv4Addr,
    pub dst: Ipv4Addr,
    pub protocol: u8,
    pub ttl: u8,
    pub id: u16,
    pub dont_fragment: bool,
    pub more_fragments: bool,
    /// In 8-byte units.
    pub fragment_offset: u16,
    /// Options, padded here to a multiple of 4 (at most 40 bytes).
    pub options: Vec<u8>,
}

impl Ipv4Header {
    pub fn new(src: Ipv4Addr, dst: Ipv4Addr, protocol: u8) -> Self {
        Ipv4Header {
            src,
            dst,
            protocol,
            ttl: 64,
            id: 0,
            dont_fragment: false,
            more_fragments: false,
            fragment_offset: 0,
            options: Vec::new(),
        }
    }

    pub fn header_len(&self) -> usize {
        20 + self.options.len().div_ceil(4) * 4
    }

    /// Appends the header (with its checksum) for a payload of `payload_len` bytes.
    pub fn emit(&self, out: &mut Vec<u8>, payload_len: usize) {
        let start = out.len();
        let hl = self.header_len();
        out.push(0x40 | (hl / 4) as u8);
        out.push(0);
        be16(out, (hl + payload_len).min(0xffff) as u16);
        be16(out, self.id);
        let mut frag = self.fragment_offset & 0x1fff;
        if self.dont_fragment {
            frag |= 0x4000;
        }
        if self.more_fragments {
            frag |= 0x2000;
        }
        be16(out, frag);
        out.push(self.ttl);
        out.push(self.protocol);
        be16(out, 0);
        out.extend_from_slice(&self.src.octets());
        out.extend_from_slice(&self.dst.octets());
        out.extend_from_slice(&self.options);
        while out.len() - start < hl {
            out.push(0);
        }
        let sum = internet_checksum(0, &out[start..]);
        set_be16(out, start + 10, sum);
    }
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

/// The one's-complement sum of `data` folded into 16 bits, starting from `initial` (a
/// pseudo-header's sum), complemented: what IPv4, UDP and TCP carry.
pub fn internet_checksum(initial: u32, data: &[u8]) -> u16 {
    let mut sum = u64::from(initial);
    let mut chunks = data.chunks_exact(2);
    for c in &mut chunks {
        sum += u64::from(u16::from_be_bytes([c[0], c[1]]));
    }
    if let [last] = chunks.remainder() {
        sum += u64::from(*last) << 8;
    }
    while sum >> 16 != 0 {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

/// The uncomplemented sum of a pseudo-header (addresses, protocol, length).
pub fn pseudo_header_sum(src: &[u8], dst: &[u8], protocol: u8, len: usize) -> u32 {
    let mut sum: u32 = 0;
    for c in src.chunks_exact(2).chain(dst.chunks_exact(2)) {
        sum += u32::from(u16::from_be_bytes([c[0], c[1]]));
    }
    sum += u32::from(protocol);
    sum += (len as u32) >> 16;
    sum += (len as u32) & 0xffff;
    sum
}

/// Splits a built IPv4 packet (header without MF, offset 0) into fragments whose payloads hold
/// at most `max_payload` bytes (rounded down to a multiple of 8, at least 8).
pub fn fragment_ipv4(packet: &[u8], max_payload: usize) -> Vec<Vec<u8>> {
    let hl = usize::from(packet.first().copied().unwrap_or(0x45) & 0x0f) * 4;
    if hl < 20 {
        return vec![packet.to_vec()];
    }
    let (Some(header), Some(payload)) = (packet.get(..hl), packet.get(hl..)) else {
        return vec![packet.to_vec()];
    };
    let step = (max_payload / 8).max(1) * 8;
    let n = payload.len().div_ceil(step).max(1);
    let mut out = Vec::with_capacity(n);
    for (i, part) in payload.chunks(step).enumerate() {
        let mut f = Vec::with_capacity(hl + part.len());
        f.extend_from_slice(header);
        f.extend_from_slice(part);
        set_be16(&mut f, 2, (hl + part.len()) as u16);
        let more = i + 1 < n;
        let flags = u16::from_be_bytes([header[6], header[7]]) & 0x4000;
        set_be16(
            &mut f,
            6,
            flags | if more { 0x2000 } else { 0 } | ((i * step / 8) as u16 & 0x1fff),
        );
        set_be16(&mut f, 10, 0);
        let sum = internet_checksum(0, &f[..hl]);
        set_be16(&mut f, 10, sum);
        out.push(f);
    }
    out
}

/// Splits a built IPv6 packet without extension headers into fragments (fragment header
/// `id`), each carrying at most `max_payload` bytes of the original payload (multiple of 8).
pub fn fragment_ipv6(packet: &[u8], max_payload: usize, id: u32) -> Vec<Vec<u8>> {
    let (Some(header), Some(payload)) = (packet.get(..40), packet.get(40..)) else {
        return vec![packet.to_vec()];
    };
    let next = header[6];
    let step = (max_payload / 8).max(1) * 8;
    let n = payload.len().div_ceil(step).max(1);
    let mut out = Vec::with_capacity(n);
    for (i, part) in payload.chunks(step).enumerate() {
        let mut f = Vec::with_capacity(48 + part.len());
        f.extend_from_slice(header);
        f[6] = PROTO_FRAGMENT;
        set_be16(&mut f, 4, (8 + part.len()) as u16);
        ipv6_fragment_header(&mut f, next, (i * step / 8) as u16, i + 1 < n, id);
        f.extend_from_slice(part);
        out.push(f);
    }
    out
}
