//! Fragmentation of built IPv4 and IPv6 packets (the headers themselves are
//! [`crate::wire::ipv4`]'s and [`crate::wire::ipv6`]'s).

use crate::wire::bytes::set_be16;
use crate::wire::ip::internet_checksum;
use crate::wire::ipv6::{ipv6_fragment_header, PROTO_FRAGMENT};

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
