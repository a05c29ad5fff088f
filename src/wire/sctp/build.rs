//! The emit of SCTP packets: common header, chunks (DATA, I-DATA, INIT, INIT_ACK, SACK and any
//! other as raw bytes), bundling, messages split over several chunks, and the CRC32c checksum
//! ([`super::crc32c`], the one the parse checks).

use super::{DATA, INIT, INIT_ACK, I_DATA, SACK};
use crate::wire::bytes::{be16, be32, pad4, set_be16};

/// The flags of DATA and I-DATA chunks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DataFlags {
    /// B: first fragment of a message.
    pub begin: bool,
    /// E: last fragment.
    pub end: bool,
    /// U: unordered.
    pub unordered: bool,
    /// I: SACK immediately.
    pub immediate: bool,
}

impl DataFlags {
    /// A whole message in one chunk (B and E).
    pub const WHOLE: DataFlags = DataFlags {
        begin: true,
        end: true,
        unordered: false,
        immediate: false,
    };

    pub fn bits(self) -> u8 {
        u8::from(self.end)
            | u8::from(self.begin) << 1
            | u8::from(self.unordered) << 2
            | u8::from(self.immediate) << 3
    }
}

/// One chunk as built.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Chunk<'a> {
    Data {
        tsn: u32,
        stream: u16,
        ssn: u16,
        ppid: u32,
        flags: DataFlags,
        data: &'a [u8],
    },
    /// RFC 8260: the first fragment (B) carries the PPID, the others their fragment sequence
    /// number.
    IData {
        tsn: u32,
        stream: u16,
        mid: u32,
        ppid_or_fsn: u32,
        flags: DataFlags,
        data: &'a [u8],
    },
    Init {
        ack: bool,
        initiate_tag: u32,
        a_rwnd: u32,
        out_streams: u16,
        in_streams: u16,
        initial_tsn: u32,
    },
    Sack {
        cum_tsn: u32,
        a_rwnd: u32,
    },
    /// Any chunk: type, flags, value (padded here).
    Raw {
        kind: u8,
        flags: u8,
        value: &'a [u8],
    },
}

impl Chunk<'_> {
    /// Appends the chunk and its padding.
    pub fn emit(&self, out: &mut Vec<u8>) {
        let start = out.len();
        match self {
            Chunk::Data {
                tsn,
                stream,
                ssn,
                ppid,
                flags,
                data,
            } => {
                head(out, DATA, flags.bits());
                be32(out, *tsn);
                be16(out, *stream);
                be16(out, *ssn);
                be32(out, *ppid);
                out.extend_from_slice(data);
            }
            Chunk::IData {
                tsn,
                stream,
                mid,
                ppid_or_fsn,
                flags,
                data,
            } => {
                head(out, I_DATA, flags.bits());
                be32(out, *tsn);
                be16(out, *stream);
                be16(out, 0);
                be32(out, *mid);
                be32(out, *ppid_or_fsn);
                out.extend_from_slice(data);
            }
            Chunk::Init {
                ack,
                initiate_tag,
                a_rwnd,
                out_streams,
                in_streams,
                initial_tsn,
            } => {
                head(out, if *ack { INIT_ACK } else { INIT }, 0);
                be32(out, *initiate_tag);
                be32(out, *a_rwnd);
                be16(out, *out_streams);
                be16(out, *in_streams);
                be32(out, *initial_tsn);
                if *ack {
                    // A State Cookie parameter: INIT_ACK must carry one.
                    be16(out, 7);
                    be16(out, 8);
                    be32(out, 0x636f_6f6b);
                }
            }
            Chunk::Sack { cum_tsn, a_rwnd } => {
                head(out, SACK, 0);
                be32(out, *cum_tsn);
                be32(out, *a_rwnd);
                be16(out, 0);
                be16(out, 0);
            }
            Chunk::Raw { kind, flags, value } => {
                head(out, *kind, *flags);
                out.extend_from_slice(value);
            }
        }
        let len = (out.len() - start).min(0xffff) as u16;
        set_be16(out, start + 2, len);
        pad4(out, start);
    }
}

fn head(out: &mut Vec<u8>, kind: u8, flags: u8) {
    out.push(kind);
    out.push(flags);
    be16(out, 0);
}

/// Appends an SCTP packet: common header, the chunks, and the CRC32c.
pub fn packet(out: &mut Vec<u8>, sport: u16, dport: u16, vtag: u32, chunks: &[Chunk<'_>]) {
    let start = out.len();
    be16(out, sport);
    be16(out, dport);
    be32(out, vtag);
    be32(out, 0);
    for c in chunks {
        c.emit(out);
    }
    set_checksum(&mut out[start..]);
}

/// Writes the CRC32c into the packet's checksum field (RFC 9260 appendix A: the CRC's bytes go
/// out least significant first).
pub fn set_checksum(packet: &mut [u8]) {
    let c = super::crc32c(packet);
    if let Some(f) = packet.get_mut(8..12) {
        f.copy_from_slice(&c.to_le_bytes());
    }
}

/// Splits a user message into DATA chunks of at most `max_fragment` bytes each, with
/// consecutive TSNs from `first_tsn`.
pub fn split_data<'a>(
    msg: &'a [u8],
    max_fragment: usize,
    first_tsn: u32,
    stream: u16,
    ssn: u16,
    ppid: u32,
    unordered: bool,
) -> Vec<Chunk<'a>> {
    let parts = fragments(msg, max_fragment);
    let n = parts.len();
    parts
        .into_iter()
        .enumerate()
        .map(|(i, data)| Chunk::Data {
            tsn: first_tsn.wrapping_add(i as u32),
            stream,
            ssn,
            ppid,
            flags: DataFlags {
                begin: i == 0,
                end: i + 1 == n,
                unordered,
                immediate: false,
            },
            data,
        })
        .collect()
}

/// A user message cut into fragments of at most `max_fragment` bytes (one empty fragment for an
/// empty message), as DATA and I-DATA carry it.
fn fragments(msg: &[u8], max_fragment: usize) -> Vec<&[u8]> {
    if msg.is_empty() {
        vec![msg]
    } else {
        msg.chunks(max_fragment.max(1)).collect()
    }
}

/// Splits a user message into I-DATA chunks (fragment sequence numbers 0, 1, ...).
pub fn split_idata<'a>(
    msg: &'a [u8],
    max_fragment: usize,
    first_tsn: u32,
    stream: u16,
    mid: u32,
    ppid: u32,
    unordered: bool,
) -> Vec<Chunk<'a>> {
    let parts = fragments(msg, max_fragment);
    let n = parts.len();
    parts
        .into_iter()
        .enumerate()
        .map(|(i, data)| Chunk::IData {
            tsn: first_tsn.wrapping_add(i as u32),
            stream,
            mid,
            ppid_or_fsn: if i == 0 { ppid } else { i as u32 },
            flags: DataFlags {
                begin: i == 0,
                end: i + 1 == n,
                unordered,
                immediate: false,
            },
            data,
        })
        .collect()
}
