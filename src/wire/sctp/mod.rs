//! SCTP packets: the common header, the CRC32c, and the chunks (RFC 9260 and its extensions)
//! walked without trusting a length: a chunk length below 4 or past the packet ends the walk with
//! an error, padding is skipped when present and tolerated when missing at the end. Their emit
//! is [`build`]'s.

use crate::error::DecodeError;

pub mod build;
pub mod show;

pub const DATA: u8 = 0;
pub const INIT: u8 = 1;
pub const INIT_ACK: u8 = 2;
pub const SACK: u8 = 3;
pub const I_DATA: u8 = 64;

/// The UDP port of SCTP over UDP (RFC 6951).
pub const UDP_ENCAPSULATION_PORT: u16 = 9899;

/// Chunk names as tshark writes them.
pub fn chunk_name(kind: u8) -> Option<&'static str> {
    Some(match kind {
        0 => "DATA",
        1 => "INIT",
        2 => "INIT_ACK",
        3 => "SACK",
        4 => "HEARTBEAT",
        5 => "HEARTBEAT_ACK",
        6 => "ABORT",
        7 => "SHUTDOWN",
        8 => "SHUTDOWN_ACK",
        9 => "ERROR",
        10 => "COOKIE_ECHO",
        11 => "COOKIE_ACK",
        12 => "ECNE",
        13 => "CWR",
        14 => "SHUTDOWN_COMPLETE",
        15 => "AUTH",
        16 => "NR_SACK",
        64 => "I_DATA",
        128 => "ASCONF_ACK",
        129 => "PKTDROP",
        130 => "RE_CONFIG",
        132 => "PAD",
        192 => "FORWARD_TSN",
        193 => "ASCONF",
        194 => "I_FORWARD_TSN",
        _ => return None,
    })
}

/// What RFC 9260 section 3.2 says a receiver does with an unrecognised chunk type, by its top
/// two bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnknownChunkAction {
    /// 00: stop processing the packet and discard the rest.
    Stop,
    /// 01: stop, and report it in an ERROR chunk.
    StopAndReport,
    /// 10: skip this chunk and go on.
    Skip,
    /// 11: skip, go on, and report it.
    SkipAndReport,
}

pub fn unknown_chunk_action(kind: u8) -> UnknownChunkAction {
    match kind >> 6 {
        0 => UnknownChunkAction::Stop,
        1 => UnknownChunkAction::StopAndReport,
        2 => UnknownChunkAction::Skip,
        _ => UnknownChunkAction::SkipAndReport,
    }
}

/// The SCTP common header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CommonHeader {
    pub sport: u16,
    pub dport: u16,
    pub vtag: u32,
    /// The checksum field as a little-endian number: how RFC 9260 appendix A stores the CRC32c.
    pub checksum: u32,
}

pub fn parse_header(data: &[u8]) -> Result<CommonHeader, DecodeError> {
    let h: &[u8; 12] = data
        .get(..12)
        .and_then(|h| h.try_into().ok())
        .ok_or_else(|| DecodeError::truncated(0, "SCTP common header", 12, data.len()))?;
    Ok(CommonHeader {
        sport: u16::from_be_bytes([h[0], h[1]]),
        dport: u16::from_be_bytes([h[2], h[3]]),
        vtag: u32::from_be_bytes([h[4], h[5], h[6], h[7]]),
        checksum: u32::from_le_bytes([h[8], h[9], h[10], h[11]]),
    })
}

/// The CRC32c of a packet computed with its checksum field as zero.
pub fn crc32c(packet: &[u8]) -> u32 {
    // The common header with its checksum field zeroed, then the rest: two calls, not three.
    let mut head = [0u8; 12];
    let n = packet.len().min(8);
    head[..n].copy_from_slice(packet.get(..n).unwrap_or_default());
    let head = &head[..n + 4];
    let rest = packet.get(12..).unwrap_or(&[]);
    crc32c::crc32c_append(crc32c::crc32c(head), rest)
}

/// The Adler-32 of a packet computed with its checksum field as zero: RFC 2960's checksum, before
/// RFC 3309 made it the CRC32c, which old stacks still send. RFC 2960 stores it in network order;
/// it is returned as [`CommonHeader::checksum`] reads the field (little-endian), to compare.
pub fn adler32(packet: &[u8]) -> u32 {
    const MOD: u32 = 65_521;
    // The sums stay below 2^32 over 5,552 bytes between reductions (zlib's NMAX).
    const BLOCK: usize = 5552;
    let (mut a, mut b) = (1u32, 0u32);
    let n = packet.len();
    let head = packet.get(..n.min(8)).unwrap_or_default();
    let zeros = [0u8; 4];
    let zeros = zeros.get(..n.saturating_sub(8).min(4)).unwrap_or_default();
    let rest = packet.get(12..).unwrap_or_default();
    for part in [head, zeros, rest] {
        for block in part.chunks(BLOCK) {
            for &x in block {
                a += u32::from(x);
                b += a;
            }
            a %= MOD;
            b %= MOD;
        }
    }
    ((b << 16) | a).swap_bytes()
}

/// One chunk of a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Chunk<'a> {
    pub kind: u8,
    pub flags: u8,
    /// The chunk value, bounded by the chunk length (no header, no padding).
    pub value: &'a [u8],
    /// Offset of the chunk header in the SCTP packet.
    pub offset: usize,
}

impl Chunk<'_> {
    /// Offset of the value in the SCTP packet.
    pub fn value_offset(&self) -> usize {
        self.offset + 4
    }
}

/// A packet's chunks: inline up to four (a packet of RSerPool traffic carries one or two), so
/// that walking a packet allocates nothing.
pub type Chunks<'a> = smallvec::SmallVec<[Chunk<'a>; 4]>;

/// The chunks of a packet (everything after the common header), in order. A chunk whose length
/// field cannot be right ends the walk with an error; an unknown chunk type whose top bits say
/// "stop" ends it too.
pub fn chunks<'a>(packet: &'a [u8], errors: &mut Vec<DecodeError>) -> Chunks<'a> {
    let mut out = Chunks::new();
    let mut off = 12usize;
    while off < packet.len() {
        let rest = packet.get(off..).unwrap_or(&[]);
        if rest.len() < 4 {
            errors.push(DecodeError::truncated(
                off,
                "SCTP chunk header",
                4,
                rest.len(),
            ));
            break;
        }
        let kind = rest[0];
        let flags = rest[1];
        let len = usize::from(u16::from_be_bytes([rest[2], rest[3]]));
        if len < 4 {
            errors.push(DecodeError::new(
                off + 2,
                format!("SCTP chunk length {len} is shorter than its 4-byte header"),
            ));
            break;
        }
        let Some(value) = rest.get(4..len) else {
            errors.push(DecodeError::new(
                off + 2,
                format!(
                    "SCTP {} chunk length {len} exceeds the {} bytes left in the packet",
                    chunk_name(kind).unwrap_or("unknown"),
                    rest.len()
                ),
            ));
            break;
        };
        out.push(Chunk {
            kind,
            flags,
            value,
            offset: off,
        });
        if chunk_name(kind).is_none() {
            match unknown_chunk_action(kind) {
                UnknownChunkAction::Stop | UnknownChunkAction::StopAndReport => break,
                UnknownChunkAction::Skip | UnknownChunkAction::SkipAndReport => {}
            }
        }
        // Padding to 4 bytes; a last chunk without it is tolerated.
        off = off.saturating_add(len.div_ceil(4) * 4);
    }
    out
}

/// A DATA chunk's fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DataChunk<'a> {
    pub tsn: u32,
    pub stream: u16,
    /// DATA: the stream sequence number; I-DATA: the message identifier.
    pub ssn: u32,
    /// DATA and the first I-DATA fragment: the PPID; later I-DATA fragments: `None`.
    pub ppid: Option<u32>,
    /// I-DATA fragments after the first: the fragment sequence number (the first is 0).
    pub fsn: u32,
    pub begin: bool,
    pub end: bool,
    pub unordered: bool,
    pub idata: bool,
    pub data: &'a [u8],
    /// Offset of `data` in the SCTP packet.
    pub data_offset: usize,
}

/// Decodes a DATA (type 0) or I-DATA (type 64) chunk.
pub fn data_chunk<'a>(c: &Chunk<'a>) -> Result<DataChunk<'a>, DecodeError> {
    let v = c.value;
    let idata = c.kind == I_DATA;
    let need = if idata { 16 } else { 12 };
    if v.len() < need {
        return Err(DecodeError::truncated(
            c.value_offset(),
            if idata {
                "SCTP I_DATA chunk"
            } else {
                "SCTP DATA chunk"
            },
            need,
            v.len(),
        ));
    }
    let u32_at = |i: usize| u32::from_be_bytes([v[i], v[i + 1], v[i + 2], v[i + 3]]);
    let begin = c.flags & 0x02 != 0;
    let (ssn, ppid, fsn) = if idata {
        let last = u32_at(12);
        (
            u32_at(8),
            begin.then_some(last),
            if begin { 0 } else { last },
        )
    } else {
        (
            u32::from(u16::from_be_bytes([v[6], v[7]])),
            Some(u32_at(8)),
            0,
        )
    };
    Ok(DataChunk {
        tsn: u32_at(0),
        stream: u16::from_be_bytes([v[4], v[5]]),
        ssn,
        ppid,
        fsn,
        begin,
        end: c.flags & 0x01 != 0,
        unordered: c.flags & 0x04 != 0,
        idata,
        data: &v[need..],
        data_offset: c.value_offset() + need,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bundled_chunks_with_padding_and_bad_lengths() {
        let mut p = Vec::new();
        build::packet(
            &mut p,
            1,
            2,
            3,
            &[
                build::Chunk::Sack {
                    cum_tsn: 9,
                    a_rwnd: 100,
                },
                build::Chunk::Data {
                    tsn: 10,
                    stream: 1,
                    ssn: 2,
                    ppid: 11,
                    flags: build::DataFlags::WHOLE,
                    data: b"hello",
                },
                build::Chunk::Raw {
                    kind: 14,
                    flags: 0,
                    value: &[],
                },
            ],
        );
        let mut e = Vec::new();
        let cs = chunks(&p, &mut e);
        assert!(e.is_empty());
        assert_eq!(
            cs.iter().map(|c| c.kind).collect::<Vec<_>>(),
            vec![3, 0, 14]
        );
        let d = data_chunk(&cs[1]).unwrap();
        assert_eq!((d.tsn, d.stream, d.ssn, d.ppid), (10, 1, 2, Some(11)));
        assert_eq!(d.data, b"hello");
        assert_eq!(&p[d.data_offset..d.data_offset + 5], b"hello");
        assert_eq!(parse_header(&p).unwrap().checksum, crc32c(&p));
        // The checksum field counts as zeros: Python's zlib.adler32 of
        // b"Wikipedi\0\0\0\0Wikipedia" is 0x49f606ce.
        assert_eq!(adler32(b"WikipediaXYZWikipedia").swap_bytes(), 0x49f6_06ce);
        let mut q = p.clone();
        q[8..12].copy_from_slice(&[1, 2, 3, 4]);
        assert_eq!(adler32(&q), adler32(&p));
        assert_eq!(adler32(&[]), 1u32.swap_bytes());
        // The same as the header, four zero bytes and the rest, at every length.
        for len in 0..p.len() {
            let q = &p[..len];
            let mut zeroed = q.to_vec();
            for b in zeroed.iter_mut().skip(8).take(4) {
                *b = 0;
            }
            if len < 12 {
                zeroed.resize(len.min(8) + 4, 0);
            }
            assert_eq!(crc32c(q), crc32c::crc32c(&zeroed), "{len}");
        }
        // A chunk length past the end.
        let mut bad = p.clone();
        bad[12 + 16 + 2] = 0x40;
        assert_eq!(chunks(&bad, &mut e).len(), 1);
        assert_eq!(e[0].offset, 12 + 16 + 2);
        // A zero chunk length.
        let mut e = Vec::new();
        bad[12 + 16 + 2] = 0;
        bad[12 + 16 + 3] = 0;
        assert_eq!(chunks(&bad, &mut e).len(), 1);
        assert_eq!(e.len(), 1);
    }

    #[test]
    fn unknown_chunks_by_their_top_bits() {
        let mut p = vec![0u8; 12];
        for kind in [0x3f_u8, 0x4f] {
            let mut q = p.clone();
            q.extend_from_slice(&[kind, 0, 0, 4, 14, 0, 0, 4]);
            let mut e = Vec::new();
            assert_eq!(chunks(&q, &mut e).len(), 1, "{kind:#x} stops");
        }
        p.extend_from_slice(&[0xbf, 0, 0, 5, 1, 0, 0, 0, 14, 0, 0, 4]);
        let mut e = Vec::new();
        assert_eq!(chunks(&p, &mut e).len(), 2, "0xbf is skipped");
        assert_eq!(
            unknown_chunk_action(0xff),
            UnknownChunkAction::SkipAndReport
        );
    }

    #[test]
    fn idata_fields() {
        let mut p = Vec::new();
        let parts = build::split_idata(b"abcdef", 4, 100, 7, 55, 12, false);
        build::packet(&mut p, 1, 2, 3, &parts);
        let mut e = Vec::new();
        let cs = chunks(&p, &mut e);
        let first = data_chunk(&cs[0]).unwrap();
        let second = data_chunk(&cs[1]).unwrap();
        assert!(first.idata && first.begin && !first.end);
        assert_eq!((first.ssn, first.ppid, first.fsn), (55, Some(12), 0));
        assert_eq!((second.ssn, second.ppid, second.fsn), (55, None, 1));
        assert_eq!(second.data, b"ef");
        let short = Chunk {
            kind: I_DATA,
            flags: 3,
            value: &[0; 15],
            offset: 12,
        };
        assert_eq!(data_chunk(&short).unwrap_err().offset, 16);
    }

    /// A packet from port 5000 to 647 (tag 0xfeed) of one whole DATA chunk: TSN 9, stream 2,
    /// SSN 3, PPID 11, "hello".
    fn hello_packet() -> Vec<u8> {
        let mut p = Vec::new();
        let chunk = build::Chunk::Data {
            tsn: 9,
            stream: 2,
            ssn: 3,
            ppid: 11,
            flags: build::DataFlags::WHOLE,
            data: b"hello",
        };
        build::packet(&mut p, 5000, 647, 0xfeed, &[chunk]);
        p
    }

    /// Emit then parse: the common header, the checksum (the CRC32c the parse checks) and the
    /// DATA chunk's fields are the emitted ones; every truncation parses to an error or fewer
    /// chunks, never a panic.
    #[test]
    fn emit_then_parse_round_trips() {
        let p = hello_packet();
        let h = parse_header(&p).unwrap();
        assert_eq!((h.sport, h.dport, h.vtag), (5000, 647, 0xfeed));
        assert_eq!(h.checksum, crc32c(&p));
        let mut errs = Vec::new();
        let cs = chunks(&p, &mut errs);
        assert!(errs.is_empty());
        assert_eq!(cs.len(), 1);
        let d = data_chunk(&cs[0]).unwrap();
        assert_eq!((d.tsn, d.stream, d.ssn, d.ppid), (9, 2, 3, Some(11)));
        assert_eq!((d.begin, d.end, d.data), (true, true, &b"hello"[..]));
        for n in 0..p.len() {
            if parse_header(&p[..n]).is_err() {
                assert!(n < 12);
                continue;
            }
            let mut errs = Vec::new();
            let cs = chunks(&p[..n], &mut errs);
            if n >= 12 + 16 + 5 {
                // Only the padding is missing: tolerated at the end.
                assert!(cs.len() == 1 && errs.is_empty(), "cut at {n}");
            } else {
                assert!(cs.is_empty() && (n == 12 || !errs.is_empty()), "cut at {n}");
            }
        }
    }

    /// The display fields of an emitted packet hold the emitted header and chunk values.
    #[test]
    fn fields_of_an_emitted_packet() {
        use crate::wire::view::tests::{value, views};
        let p = hello_packet();
        for (v, s) in views(&p) {
            let (tree, sport, dport, vtag) = show::fields(&v, s).unwrap();
            assert_eq!((sport, dport, vtag), (5000, 647, 0xfeed));
            assert_eq!(value(&tree, "sctp.verification_tag"), "0x0000feed");
            assert_eq!(value(&tree, "sctp.data_tsn_raw"), "9");
            assert_eq!(value(&tree, "sctp.data_sid"), "0x0002");
            assert_eq!(value(&tree, "sctp.data_ssn"), "3");
            assert_eq!(value(&tree, "sctp.data_payload_proto_id"), "11");
            assert_eq!(value(&tree, "sctp.chunk_length"), "21");
            for n in 0..12 {
                assert!(show::fields(&v, crate::wire::view::Span { at: 0, end: n }).is_none());
            }
        }
    }
}
