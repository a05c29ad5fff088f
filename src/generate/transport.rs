//! UDP and TCP headers with their checksums.

use super::bytes::{be16, be32, set_be16};
use super::ip::internet_checksum;

/// TCP flag bits.
pub mod tcp_flags {
    pub const FIN: u8 = 0x01;
    pub const SYN: u8 = 0x02;
    pub const RST: u8 = 0x04;
    pub const PSH: u8 = 0x08;
    pub const ACK: u8 = 0x10;
    pub const URG: u8 = 0x20;
}

/// Appends a UDP datagram; `pseudo` is the pseudo-header sum of the IP layer (see
/// [`super::ip::pseudo_header_sum`]), computed for the datagram's length.
pub fn udp(out: &mut Vec<u8>, sport: u16, dport: u16, payload: &[u8], pseudo: u32) {
    let start = out.len();
    be16(out, sport);
    be16(out, dport);
    be16(out, (8 + payload.len()).min(0xffff) as u16);
    be16(out, 0);
    out.extend_from_slice(payload);
    let mut sum = internet_checksum(pseudo, &out[start..]);
    if sum == 0 {
        sum = 0xffff;
    }
    set_be16(out, start + 6, sum);
}

/// A TCP header as built.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TcpHeader {
    pub sport: u16,
    pub dport: u16,
    pub seq: u32,
    pub ack: u32,
    pub flags: u8,
    pub window: u16,
    /// Options, padded here to a multiple of 4.
    pub options: Vec<u8>,
}

impl TcpHeader {
    pub fn new(sport: u16, dport: u16, seq: u32, ack: u32, flags: u8) -> Self {
        TcpHeader {
            sport,
            dport,
            seq,
            ack,
            flags,
            window: 65535,
            options: Vec::new(),
        }
    }

    pub fn header_len(&self) -> usize {
        20 + self.options.len().div_ceil(4) * 4
    }

    /// Appends the segment (header and payload) with its checksum.
    pub fn emit(&self, out: &mut Vec<u8>, payload: &[u8], pseudo: u32) {
        let start = out.len();
        let hl = self.header_len();
        be16(out, self.sport);
        be16(out, self.dport);
        be32(out, self.seq);
        be32(out, self.ack);
        out.push(((hl / 4) as u8) << 4);
        out.push(self.flags);
        be16(out, self.window);
        be16(out, 0);
        be16(out, 0);
        out.extend_from_slice(&self.options);
        while out.len() - start < hl {
            out.push(0);
        }
        out.extend_from_slice(payload);
        let sum = internet_checksum(pseudo, &out[start..]);
        set_be16(out, start + 16, sum);
    }
}
