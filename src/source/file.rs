//! Capture files: pcap (both byte orders, micro- and nanosecond), pcapng (several interfaces, any
//! timestamp resolution, several sections), gzip-compressed files and `-` for stdin, read as a
//! stream with pcap-parser.
//!
//! pcap-parser's streaming reader is driven with the record framing done here first: before a
//! record is handed to the parser, its length is read from its header, the buffer is grown (up to
//! [`MAX_RECORD`]) and refilled until the whole record is in memory. The parser therefore never
//! sees a partial record, and its ambiguous `Incomplete` / `BufferTooSmall` answers (which can
//! loop forever on a malformed block whose inner length exceeds the block) cannot occur. Memory is
//! bounded by the largest record, not by the file.

mod input;
mod interface;

pub use interface::{units_per_second, Interface};

use std::io::Read;
use std::path::Path;

use pcap_parser::traits::PcapReaderIterator;
use pcap_parser::{create_reader, Block, PcapBlockOwned, PcapError};

use super::{
    Block as PcapngBlock, Frame, FrameMeta, FrameSource, InterfaceNames, Pcapng, SourceError,
};
use crate::base::Timestamp;
use input::ErrorSlot;

/// The buffer a reader starts with; it grows when a record needs more.
pub const INITIAL_BUFFER: usize = 256 * 1024;
/// The largest record (pcap record or pcapng block) read; a larger one means a corrupt file.
pub const MAX_RECORD: usize = 64 << 20;
/// Interfaces described in one pcapng section; more are ignored (reported), so a file of
/// interface blocks cannot make the reader's memory grow with its size.
pub const MAX_INTERFACES: usize = 1 << 16;

/// Consecutive malformed records after which a file is taken as corrupt and reading stops
/// (fatal): a file whose body is zeros would otherwise read as millions of empty frames (16
/// bytes each in pcap), each reported. Damage in a real capture (a torn write, a bad 4 KiB
/// sector, a bit flip in one length) spoils one record or a few dozen even at pcap's 16-byte
/// minimum; 256 in a row is more than a 4 KiB sector of records none of which a capturing
/// program could have written, so a damaged file still reads past its damage while a corrupt
/// one stops after a few KiB.
pub const MAX_BAD_RUN: u64 = 256;

/// The names of an interface whose description gives none.
static NO_NAMES: InterfaceNames = InterfaceNames {
    name: None,
    description: None,
};
const SHB_TYPE: u32 = 0x0A0D_0D0A;
const BYTE_ORDER_MAGIC: u32 = 0x1A2B_3C4D;
/// The obsolete Packet Block, which pcap-parser leaves as an unknown block.
const PB_TYPE: u32 = 0x0000_0002;
const SPB_TYPE: u32 = 0x0000_0003;
const EPB_TYPE: u32 = 0x0000_0006;
/// Custom Blocks, which may be copied to another file or not: Wireshark numbers them as frames.
const CB_TYPE: u32 = 0x0000_0BAD;
const DCB_TYPE: u32 = 0x4000_0BAD;

/// What kind of file is being read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CaptureFormat {
    Pcap {
        big_endian: bool,
        nanosecond: bool,
        linktype: u32,
        snaplen: u32,
    },
    PcapNg,
}

/// A capture file (or stdin) read frame by frame.
pub struct FileSource {
    reader: Box<dyn PcapReaderIterator + Send>,
    format: CaptureFormat,
    /// Legacy pcap: 16, or 24 for the "modified" format.
    record_header_len: usize,
    /// Byte order of the current pcapng section.
    section_big_endian: bool,
    /// Interfaces of the current pcapng section, by index, and their names.
    interfaces: Vec<Interface>,
    names: Vec<InterfaceNames>,
    /// The pcapng section being read, from 1.
    section: u32,
    capacity: usize,
    /// Length of the record last handed out: it is consumed at the next call, once the frame that
    /// borrowed it is gone.
    pending: usize,
    next_number: u64,
    /// The time of the last packet read (0 for a simple packet block, which has none, and before
    /// the first): the time Wireshark counts with for a custom block, which has none either.
    last_ts: Timestamp,
    finished: bool,
    read_error: ErrorSlot,
    /// Malformed records in a row so far, and the byte offset of the first of them.
    bad_run: u64,
    bad_run_start: u64,
    /// The previous call's record: its offset, and whether it ended without a frame (a
    /// non-fatal error: one more malformed record).
    call_offset: u64,
    in_flight: bool,
}

enum RecordKind {
    Packet,
    Other,
}

fn fatal(frame: Option<u64>, offset: Option<u64>, what: impl Into<String>) -> SourceError {
    SourceError {
        frame,
        offset,
        what: what.into(),
        fatal: true,
    }
}

fn nonfatal(frame: u64, offset: u64, what: impl Into<String>) -> SourceError {
    SourceError {
        frame: Some(frame),
        offset: Some(offset),
        what: what.into(),
        fatal: false,
    }
}

fn u32_at(data: &[u8], at: usize, big_endian: bool) -> Option<u32> {
    let b: [u8; 4] = data.get(at..at.checked_add(4)?)?.try_into().ok()?;
    Some(if big_endian {
        u32::from_be_bytes(b)
    } else {
        u32::from_le_bytes(b)
    })
}

fn u16_at(data: &[u8], at: usize, big_endian: bool) -> Option<u16> {
    let b: [u8; 2] = data.get(at..at.checked_add(2)?)?.try_into().ok()?;
    Some(if big_endian {
        u16::from_be_bytes(b)
    } else {
        u16::from_le_bytes(b)
    })
}

/// The pcap magic numbers: (big endian, nanosecond, record header length).
fn pcap_magic(first4: &[u8]) -> Option<(bool, bool, usize)> {
    match first4 {
        [0xd4, 0xc3, 0xb2, 0xa1] => Some((false, false, 16)),
        [0xa1, 0xb2, 0xc3, 0xd4] => Some((true, false, 16)),
        [0x4d, 0x3c, 0xb2, 0xa1] => Some((false, true, 16)),
        [0xa1, 0xb2, 0x3c, 0x4d] => Some((true, true, 16)),
        // Alexey Kuznetsov's "modified" pcap: 8 more bytes per record header.
        [0x34, 0xcd, 0xb2, 0xa1] => Some((false, false, 24)),
        _ => None,
    }
}

fn hex_start(b: &[u8]) -> String {
    b.iter()
        .take(4)
        .map(|x| format!("{x:02x}"))
        .collect::<Vec<_>>()
        .join(" ")
}

impl FileSource {
    /// Opens a capture file; `-` reads stdin. gzip compression is recognised by its magic.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, SourceError> {
        let path = path.as_ref();
        let (r, slot) = input::open_path(path)
            .map_err(|e| fatal(None, None, format!("cannot open {}: {e}", path.display())))?;
        Self::from_stream(r, slot)
    }

    /// Reads a capture from any byte stream (gzip recognised by its magic).
    pub fn from_reader(r: impl Read + Send + 'static) -> Result<Self, SourceError> {
        let (r, slot) = input::ungzip(Box::new(r))
            .map_err(|e| fatal(None, Some(0), format!("cannot read the capture: {e}")))?;
        Self::from_stream(r, slot)
    }

    fn from_stream(mut r: input::BoxedRead, slot: ErrorSlot) -> Result<Self, SourceError> {
        let read_err =
            |e: std::io::Error| fatal(None, Some(0), format!("cannot read the capture: {e}"));
        let mut head = input::read_prefix(&mut r, 12).map_err(read_err)?;
        if head.is_empty() {
            return Err(fatal(
                None,
                Some(0),
                "the input is empty: not a pcap or pcapng file",
            ));
        }
        let first4 = head.get(..4).unwrap_or(&head);
        let mut legacy = None;
        if u32_at(&head, 0, false) == Some(SHB_TYPE) {
            let shb_len = Self::shb_len(&head)?;
            let more =
                input::read_prefix(&mut r, shb_len.saturating_sub(head.len())).map_err(read_err)?;
            head.extend_from_slice(&more);
            if head.len() < shb_len {
                return Err(fatal(
                    None,
                    Some(0),
                    format!(
                        "the file ends inside the pcapng section header block ({} of {shb_len} bytes)",
                        head.len()
                    ),
                ));
            }
        } else if let Some(m) = pcap_magic(first4) {
            let more =
                input::read_prefix(&mut r, 24usize.saturating_sub(head.len())).map_err(read_err)?;
            head.extend_from_slice(&more);
            if head.len() < 24 {
                return Err(fatal(
                    None,
                    Some(0),
                    format!(
                        "the file ends inside the pcap file header ({} of 24 bytes)",
                        head.len()
                    ),
                ));
            }
            legacy = Some(m);
        } else {
            return Err(fatal(
                None,
                Some(0),
                format!(
                    "not a pcap or pcapng file (it starts with {})",
                    hex_start(&head)
                ),
            ));
        }
        let capacity = INITIAL_BUFFER.max(head.len() + 8);
        let section_big_endian =
            legacy.is_none() && head.get(8..12) == Some(&[0x1a, 0x2b, 0x3c, 0x4d]);
        let reader = create_reader(capacity, input::rejoin(head, r)).map_err(|e| {
            let what = match e {
                PcapError::HeaderNotRecognized => "not a pcap or pcapng file".to_string(),
                PcapError::ReadError => "cannot read the capture".to_string(),
                e => format!("malformed capture file header: {e}"),
            };
            fatal(None, Some(0), what)
        })?;
        let mut src = FileSource {
            reader,
            format: CaptureFormat::PcapNg,
            record_header_len: 16,
            section_big_endian,
            interfaces: Vec::new(),
            names: Vec::new(),
            section: 0,
            capacity,
            pending: 0,
            next_number: 1,
            last_ts: Timestamp::default(),
            finished: false,
            read_error: slot,
            bad_run: 0,
            bad_run_start: 0,
            call_offset: 0,
            in_flight: false,
        };
        if let Some((big_endian, nanosecond, header_len)) = legacy {
            let header = match src.reader.next() {
                Ok((_, PcapBlockOwned::LegacyHeader(h))) => h,
                _ => return Err(fatal(None, Some(0), "malformed pcap file header")),
            };
            src.format = CaptureFormat::Pcap {
                big_endian,
                nanosecond,
                // The upper 16 bits may carry FCS information (the F bit and an FCS length);
                // the link type is the lower 16, as libpcap's LT_LINKTYPE takes it.
                linktype: (header.network.0 as u32) & 0xffff,
                snaplen: header.snaplen,
            };
            src.record_header_len = header_len;
            src.reader.consume(24);
        }
        Ok(src)
    }

    /// The length of the section header block at the start of `head` (12 bytes or fewer).
    fn shb_len(head: &[u8]) -> Result<usize, SourceError> {
        let big_endian = match u32_at(head, 8, false) {
            Some(BYTE_ORDER_MAGIC) => false,
            Some(m) if m.swap_bytes() == BYTE_ORDER_MAGIC => true,
            Some(_) => {
                return Err(fatal(
                    None,
                    Some(8),
                    "pcapng section header block with an unknown byte-order magic",
                ))
            }
            None => {
                return Err(fatal(
                    None,
                    Some(0),
                    format!(
                        "the file ends inside the pcapng section header block ({} of at least 28 bytes)",
                        head.len()
                    ),
                ))
            }
        };
        let len = u32_at(head, 4, big_endian).unwrap_or(0) as usize;
        if len < 28 || len % 4 != 0 || len > MAX_RECORD {
            return Err(fatal(
                None,
                Some(4),
                format!("pcapng section header block length {len} is not a multiple of 4 between 28 and {MAX_RECORD}"),
            ));
        }
        Ok(len)
    }

    pub fn format(&self) -> CaptureFormat {
        self.format
    }

    /// The interfaces of the current pcapng section (empty for pcap).
    pub fn interfaces(&self) -> &[Interface] {
        &self.interfaces
    }

    /// Bytes of the read buffer now: [`INITIAL_BUFFER`] at first, doubled only while the bytes of
    /// a longer record keep arriving.
    pub fn buffer_capacity(&self) -> usize {
        self.capacity
    }

    fn offset(&self) -> u64 {
        self.reader.consumed() as u64
    }

    /// The length and kind of the record at the head of the buffer (`Ok(Ok(..))`), or, while its
    /// header is incomplete, how many bytes are needed to read it (`Ok(Err(n))`). A length that
    /// cannot be right is a fatal error.
    fn record_len(&self, data: &[u8]) -> Result<Result<(usize, RecordKind), usize>, SourceError> {
        let too_big = |what: &str, len: u64| {
            fatal(
                Some(self.next_number),
                Some(self.offset()),
                format!(
                    "{what} claims {len} bytes, more than the {MAX_RECORD}-byte bound: the file is corrupt"
                ),
            )
        };
        match self.format {
            CaptureFormat::Pcap { big_endian, .. } => {
                let h = self.record_header_len;
                let Some(caplen) = u32_at(data, 8, big_endian).filter(|_| data.len() >= h) else {
                    return Ok(Err(h));
                };
                if caplen as usize > MAX_RECORD - h {
                    return Err(too_big("the pcap record header", u64::from(caplen)));
                }
                Ok(Ok((h + caplen as usize, RecordKind::Packet)))
            }
            CaptureFormat::PcapNg => {
                let Some(block_type) = u32_at(data, 0, self.section_big_endian) else {
                    return Ok(Err(8));
                };
                let big_endian = if block_type == SHB_TYPE {
                    match u32_at(data, 8, false) {
                        None => return Ok(Err(12)),
                        Some(BYTE_ORDER_MAGIC) => false,
                        Some(m) if m.swap_bytes() == BYTE_ORDER_MAGIC => true,
                        Some(_) => {
                            return Err(fatal(
                                Some(self.next_number),
                                Some(self.offset() + 8),
                                "pcapng section header block with an unknown byte-order magic",
                            ))
                        }
                    }
                } else {
                    self.section_big_endian
                };
                let Some(len) = u32_at(data, 4, big_endian) else {
                    return Ok(Err(8));
                };
                if len as usize > MAX_RECORD {
                    return Err(too_big("a pcapng block", u64::from(len)));
                }
                if len < 12 || len % 4 != 0 {
                    return Err(fatal(
                        Some(self.next_number),
                        Some(self.offset() + 4),
                        format!(
                            "pcapng block of type {block_type:#010x} has length {len}, not a multiple of 4 of at least 12: the next block cannot be found"
                        ),
                    ));
                }
                let kind = match block_type {
                    EPB_TYPE | SPB_TYPE | PB_TYPE | CB_TYPE | DCB_TYPE => RecordKind::Packet,
                    _ => RecordKind::Other,
                };
                Ok(Ok((len as usize, kind)))
            }
        }
    }

    /// Makes sure the whole next record is in the buffer. `Ok(None)` at a clean end of file.
    fn buffer_record(&mut self) -> Result<Option<(usize, RecordKind)>, SourceError> {
        loop {
            let data = self.reader.data();
            let have = data.len();
            let want = match self.record_len(data)? {
                Ok((len, kind)) if have >= len => return Ok(Some((len, kind))),
                Ok((len, _)) => len,
                Err(header) => header,
            };
            if self.reader.reader_exhausted() {
                self.finished = true;
                if have == 0 {
                    return Ok(None);
                }
                let what = match self.format {
                    CaptureFormat::Pcap { .. } => "record",
                    CaptureFormat::PcapNg => "pcapng block",
                };
                return Err(nonfatal(
                    self.next_number,
                    self.offset(),
                    format!(
                        "the file is truncated: it ends inside a {what} ({have} of {want} bytes present)"
                    ),
                ));
            }
            if want >= self.capacity {
                // Doubling towards the record's length, refilling in between: the buffer follows
                // the bytes that really arrive, so a corrupt length in a short file costs one
                // step, not the length it claims; refills stay rare.
                let new = self
                    .capacity
                    .saturating_mul(2)
                    .min(want.saturating_add(8))
                    .min(MAX_RECORD + 8);
                self.reader.grow(new);
                self.capacity = new;
            }
            if self.reader.refill().is_err() {
                self.finished = true;
                let why = self
                    .read_error
                    .lock()
                    .ok()
                    .and_then(|mut e| e.take())
                    .map(|e| e.to_string())
                    .unwrap_or_else(|| "read error".into());
                return Err(fatal(
                    Some(self.next_number),
                    Some(self.offset() + have as u64),
                    format!("cannot read the capture: {why}"),
                ));
            }
        }
    }

    /// One more malformed record, at `offset`: past [`MAX_BAD_RUN`] in a row the file is corrupt
    /// and reading stops.
    fn count_bad(&mut self, offset: u64) -> Result<(), SourceError> {
        if self.bad_run == 0 {
            self.bad_run_start = offset;
        }
        self.bad_run += 1;
        if self.bad_run >= MAX_BAD_RUN {
            self.finished = true;
            return Err(fatal(
                Some(self.next_number.saturating_sub(1)),
                Some(self.bad_run_start),
                format!(
                    "{} malformed records in a row from byte {} on (zero-length packets, \
                     impossible lengths or times, or blocks that do not parse): the file is \
                     corrupt from there, reading stops",
                    self.bad_run, self.bad_run_start
                ),
            ));
        }
        Ok(())
    }

    /// Takes in a block that carries no packet (section header, interface description, statistics,
    /// name resolution, unknown ones).
    fn meta_block(&mut self, len: usize) -> Result<(), SourceError> {
        let offset = self.offset();
        let number = self.next_number;
        let block_type = u32_at(self.reader.data(), 0, self.section_big_endian).unwrap_or(0);
        let outcome: Result<(), SourceError> = match self.reader.next() {
            Ok((_, PcapBlockOwned::NG(Block::SectionHeader(shb)))) => {
                self.section_big_endian = shb.big_endian();
                self.interfaces.clear();
                self.names.clear();
                self.section = self.section.saturating_add(1);
                Ok(())
            }
            Ok((_, PcapBlockOwned::NG(Block::InterfaceDescription(_))))
                if self.interfaces.len() >= MAX_INTERFACES =>
            {
                Err(nonfatal(
                    number,
                    offset,
                    format!("more than {MAX_INTERFACES} interfaces in one pcapng section: interface description ignored"),
                ))
            }
            Ok((_, PcapBlockOwned::NG(Block::InterfaceDescription(idb)))) => {
                let (iface, problem) = Interface::from_idb(&idb, self.section_big_endian);
                self.interfaces.push(iface);
                self.names.push(interface::names(&idb));
                match problem {
                    Some(p) => Err(nonfatal(number, offset, p)),
                    None => Ok(()),
                }
            }
            Ok(_) => Ok(()),
            Err(e) => {
                if block_type == SHB_TYPE {
                    // Without its section header the byte order of what follows is unknown.
                    self.finished = true;
                    Err(fatal(
                        Some(number),
                        Some(offset),
                        format!("malformed pcapng section header block: {e}"),
                    ))
                } else {
                    if block_type == 1 && self.interfaces.len() < MAX_INTERFACES {
                        // Keep the interface numbering of the section.
                        self.interfaces.push(Interface {
                            linktype: u32::MAX,
                            snaplen: 0,
                            units_per_sec: 1_000_000,
                            offset_secs: 0,
                        });
                        self.names.push(InterfaceNames::default());
                    }
                    Err(nonfatal(
                        number,
                        offset,
                        format!("malformed pcapng block of type {block_type:#010x} skipped: {e}"),
                    ))
                }
            }
        };
        self.reader.consume(len);
        outcome
    }
}

impl FrameSource for FileSource {
    fn next_frame(&mut self) -> Result<Option<Frame<'_>>, SourceError> {
        if self.pending > 0 {
            // Without moving what is left to the front of the buffer (`consume` does that each
            // time half the buffer is read, copying up to half of it): a refill moves only the
            // incomplete record it finds there.
            self.reader.consume_noshift(self.pending);
            self.pending = 0;
        }
        if self.finished {
            return Ok(None);
        }
        if self.in_flight {
            // The previous call ended in a non-fatal error: a malformed record.
            self.count_bad(self.call_offset)?;
        }
        self.in_flight = true;
        self.call_offset = self.offset();
        let len = loop {
            match self.buffer_record()? {
                None => return Ok(None),
                Some((len, RecordKind::Packet)) => break len,
                Some((len, RecordKind::Other)) => self.meta_block(len)?,
            }
        };
        let number = self.next_number;
        let offset = self.offset();
        self.pending = len;
        // A packet record skipped as malformed keeps its number too: the frames after it are
        // numbered by their place in the file, as a tool reading past the damage numbers them.
        self.next_number += 1;
        if let CaptureFormat::Pcap {
            big_endian,
            nanosecond,
            linktype,
            ..
        } = self.format
        {
            // The whole record is in the buffer (`buffer_record`): its four header words are
            // read here, as pcap-parser's reader would, without its parse per record.
            let h = self.record_header_len;
            let rec = self.reader.data().get(..len).unwrap_or_default();
            let word = |at| u32_at(rec, at, big_endian).unwrap_or_default();
            let per_sec: u32 = if nanosecond { 1_000_000_000 } else { 1_000_000 };
            let (secs, frac) = (word(0), word(4));
            // What no capturing program writes: a packet of no length, more bytes captured
            // than the packet had, a fraction of a second of a second or more.
            let (caplen, orig_len) = (word(8), word(12));
            let bad = orig_len == 0 || caplen > orig_len || frac >= per_sec;
            self.in_flight = false;
            if bad {
                self.count_bad(offset)?;
            } else {
                self.bad_run = 0;
            }
            let rec = self.reader.data().get(..len).unwrap_or_default();
            return Ok(Some(Frame {
                number,
                ts: Timestamp::new(
                    i64::from(secs) + i64::from(frac / per_sec),
                    (frac % per_sec) * (1_000_000_000 / per_sec),
                ),
                ts_digits: if nanosecond { 9 } else { 6 },
                linktype,
                orig_len,
                interface: 0,
                data: rec.get(h..).unwrap_or_default(),
                pcapng: None,
            }));
        }
        let big_endian = self.section_big_endian;
        if let Some(what) = packet_block_problem(self.reader.data().get(..len), big_endian) {
            return Err(nonfatal(number, offset, format!("{what}: skipped")));
        }
        let block_type = u32_at(self.reader.data(), 0, big_endian);
        if let Some(block_type @ (CB_TYPE | DCB_TYPE)) = block_type {
            self.in_flight = false;
            self.bad_run = 0;
            // Type, length, Private Enterprise Number; the trailing length (checked above).
            let record = self.reader.data().get(..len).unwrap_or_default();
            let pen = u32_at(record, 8, big_endian).unwrap_or_default();
            let data = record.get(12..len - 4).unwrap_or_default();
            return Ok(Some(Frame {
                number,
                ts: self.last_ts,
                ts_digits: 9,
                // No link layer: the dissector tells a custom block by its `block`.
                linktype: u32::MAX,
                orig_len: u32::try_from(data.len()).unwrap_or(u32::MAX),
                interface: 0,
                data,
                pcapng: Some(Pcapng {
                    section: self.section,
                    block: PcapngBlock::Custom {
                        pen,
                        copy: block_type == CB_TYPE,
                    },
                    names: &NO_NAMES,
                    options: &[],
                    big_endian,
                }),
            }));
        }
        let block = match self.reader.next() {
            Ok((_, b)) => b,
            Err(e) => {
                return Err(nonfatal(
                    number,
                    offset,
                    format!("malformed packet block skipped ({e})"),
                ))
            }
        };
        let iface = |id: u32| {
            self.interfaces.get(id as usize).copied().ok_or_else(|| {
                nonfatal(
                    number,
                    offset,
                    format!(
                        "packet block names interface {id}, but the section describes {}: skipped",
                        self.interfaces.len()
                    ),
                )
            })
        };
        // The frame's fields, and where its data and its options lie in the record: the block
        // borrows the reader, so the slices are taken from the record once it is dropped.
        let (frame, data, options, block) = match block {
            PcapBlockOwned::NG(Block::EnhancedPacket(epb)) => {
                let i = iface(epb.if_id)?;
                let caplen = epb.caplen as usize;
                let frame = FrameMeta {
                    number,
                    ts: i.timestamp(epb.ts_high, epb.ts_low),
                    ts_digits: crate::base::ts_digits(i.units_per_sec),
                    linktype: i.linktype,
                    orig_len: epb.origlen,
                    interface: epb.if_id,
                };
                // Type, length, interface, two timestamp words and two lengths: 28 bytes.
                (
                    frame,
                    28..28 + caplen,
                    28 + caplen.next_multiple_of(4)..len - 4,
                    PcapngBlock::Packet,
                )
            }
            PcapBlockOwned::NG(Block::SimplePacket(spb)) => {
                let i = iface(0)?;
                // The captured length of a simple packet block is the original length, cut
                // by the snap length and the block (whose data is padded to 32 bits).
                let mut caplen = (spb.origlen as usize).min(spb.data.len());
                if i.snaplen != 0 {
                    caplen = caplen.min(i.snaplen as usize);
                }
                let frame = FrameMeta {
                    number,
                    // A simple packet block has no timestamp: Wireshark counts with 0 (and
                    // shows none, `Frame::has_time`).
                    ts: Timestamp::default(),
                    ts_digits: crate::base::ts_digits(i.units_per_sec),
                    linktype: i.linktype,
                    orig_len: spb.origlen,
                    interface: 0,
                };
                // Type, length, original length: 12 bytes; no options.
                (frame, 12..12 + caplen, 0..0, PcapngBlock::Simple)
            }
            PcapBlockOwned::NG(Block::Unknown(ub))
                if ub.block_type == PB_TYPE || ub.block_type.swap_bytes() == PB_TYPE =>
            {
                // Obsolete Packet Block: if_id u16, drops u16, ts high, ts low, caplen, origlen.
                let d = ub.data;
                let (Some(if_id), Some(high), Some(low), Some(caplen), Some(orig)) = (
                    u16_at(d, 0, big_endian),
                    u32_at(d, 4, big_endian),
                    u32_at(d, 8, big_endian),
                    u32_at(d, 12, big_endian),
                    u32_at(d, 16, big_endian),
                ) else {
                    return Err(nonfatal(
                        number,
                        offset,
                        "packet block shorter than its 20-byte header: skipped",
                    ));
                };
                let i = iface(u32::from(if_id))?;
                let (body, caplen) = (d.len().saturating_sub(20), caplen as usize);
                if caplen > body {
                    return Err(nonfatal(
                        number,
                        offset,
                        format!(
                            "packet block captured length {caplen} exceeds the {body} bytes the block holds: skipped"
                        ),
                    ));
                }
                let frame = FrameMeta {
                    number,
                    ts: i.timestamp(high, low),
                    ts_digits: crate::base::ts_digits(i.units_per_sec),
                    linktype: i.linktype,
                    orig_len: orig,
                    interface: u32::from(if_id),
                };
                (
                    frame,
                    28..28 + caplen,
                    28 + caplen.next_multiple_of(4)..len - 4,
                    PcapngBlock::Packet,
                )
            }
            _ => {
                return Err(nonfatal(
                    number,
                    offset,
                    "unexpected block where a packet was expected: skipped",
                ))
            }
        };
        self.last_ts = frame.ts;
        self.in_flight = false;
        self.bad_run = 0;
        let record = self.reader.data().get(..len).unwrap_or_default();
        let mut frame = frame.with_data(record.get(data).unwrap_or_default());
        frame.pcapng = Some(Pcapng {
            section: self.section,
            block,
            names: self
                .names
                .get(frame.interface as usize)
                .unwrap_or(&NO_NAMES),
            options: record.get(options).unwrap_or_default(),
            big_endian,
        });
        Ok(Some(frame))
    }
}

/// What is wrong with a whole pcapng packet block (`block`, its length already checked to be a
/// multiple of 4 of at least 12), in the terms of the format: the checks the parser makes,
/// said so that a person can find the damage.
fn packet_block_problem(block: Option<&[u8]>, big_endian: bool) -> Option<String> {
    let block = block?;
    let len = block.len();
    let word = |at: usize| u32_at(block, at, big_endian);
    let (block_type, trailer) = (word(0)?, word(len.checked_sub(4)?)?);
    if trailer as usize != len {
        return Some(format!(
            "pcapng block lengths differ (first {len}, second {trailer})"
        ));
    }
    // Fixed fields before the packet data, and the block's header and trailer words.
    let (name, fixed) = match block_type {
        EPB_TYPE => ("enhanced packet block", 20),
        PB_TYPE => ("packet block", 20),
        SPB_TYPE => {
            return (len < 16).then(|| {
                format!("simple packet block of {len} bytes is shorter than its 16-byte minimum")
            })
        }
        CB_TYPE | DCB_TYPE => {
            return (len < 16).then(|| {
                format!("custom block of {len} bytes is shorter than its 16-byte minimum")
            })
        }
        _ => return None,
    };
    let room = len.checked_sub(fixed + 12);
    let Some(room) = room else {
        return Some(format!(
            "{name} of {len} bytes is shorter than its {}-byte minimum",
            fixed + 12
        ));
    };
    let caplen = word(8 + 12)? as usize;
    (caplen > room).then(|| {
        format!("{name} of {len} bytes holds at most {room} bytes of packet data, but its captured length is {caplen}")
    })
}
