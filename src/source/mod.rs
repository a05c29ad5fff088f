//! Where frames come from: capture files (pcap, pcapng, gzip-compressed, stdin) and live
//! interfaces. A source hands out [`Frame`]s one at a time; the bytes borrow the source's buffer
//! until the next call, so nothing is copied and memory stays bounded by the largest record.

pub mod calendar;
pub mod file;
pub mod leases;
pub mod live;

use std::fmt;

/// Capture time: seconds and nanoseconds since the Unix epoch.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp {
    pub secs: i64,
    pub nanos: u32,
}

impl Timestamp {
    pub fn new(secs: i64, nanos: u32) -> Self {
        Timestamp { secs, nanos }
    }

    /// Seconds since the epoch as a float (JSON `time`).
    pub fn as_f64(&self) -> f64 {
        self.secs as f64 + self.nanos as f64 * 1e-9
    }

    /// The time in UTC as tshark's `-t ud` shows it: `2026-11-30 03:54:50.123456`.
    pub fn utc(&self) -> calendar::Utc {
        calendar::Utc(*self)
    }

    /// `self - earlier` in seconds.
    pub fn since(&self, earlier: Timestamp) -> f64 {
        (self.secs - earlier.secs) as f64 + (self.nanos as f64 - earlier.nanos as f64) * 1e-9
    }
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{:09}", self.secs, self.nanos)
    }
}

/// Decimals of the second a clock counting `units_per_sec` gives, as Wireshark 4.0 rounds it
/// down to the precisions it knows: 9 from 10^9 units a second, 6 from 10^6, 3 from 10^3, then
/// 2, 1 and 0 (a pcapng interface counting 2^20 units a second gives 6).
pub fn ts_digits(units_per_sec: u64) -> u8 {
    match units_per_sec {
        1_000_000_000.. => 9,
        1_000_000.. => 6,
        1_000.. => 3,
        100.. => 2,
        10.. => 1,
        _ => 0,
    }
}

/// Link-layer header types (the tcpdump.org LINKTYPE_ numbers).
pub mod linktype {
    pub const NULL: u32 = 0;
    pub const ETHERNET: u32 = 1;
    pub const RAW: u32 = 101;
    pub const LOOP: u32 = 108;
    pub const LINUX_SLL: u32 = 113;
    pub const IPV4: u32 = 228;
    pub const IPV6: u32 = 229;
    pub const LINUX_SLL2: u32 = 276;
}

/// One captured frame. `data` borrows the source's buffer.
#[derive(Clone, Copy, Debug)]
pub struct Frame<'a> {
    /// 1-based, as Wireshark numbers frames.
    pub number: u64,
    pub ts: Timestamp,
    /// Decimals of the second the capture's clock gives, 0 to 9: 6 for microseconds (pcap,
    /// pcapng's default, live captures), 9 for nanoseconds, 3 for a pcapng interface counting
    /// milliseconds ([`ts_digits`]). The listing shows times with as many, as tshark does.
    pub ts_digits: u8,
    /// LINKTYPE_ of the interface the frame was captured on.
    pub linktype: u32,
    /// Length on the wire (may exceed `data.len()` when the capture was cut by a snap length).
    pub orig_len: u32,
    /// Interface index (pcapng), 0 for pcap.
    pub interface: u32,
    pub data: &'a [u8],
}

/// A frame without its bytes, to outlive them (`Frame::meta`, `FrameMeta::with_data`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FrameMeta {
    pub number: u64,
    pub ts: Timestamp,
    pub ts_digits: u8,
    pub linktype: u32,
    pub orig_len: u32,
    pub interface: u32,
}

impl Frame<'_> {
    pub fn meta(&self) -> FrameMeta {
        FrameMeta {
            number: self.number,
            ts: self.ts,
            ts_digits: self.ts_digits,
            linktype: self.linktype,
            orig_len: self.orig_len,
            interface: self.interface,
        }
    }
}

impl FrameMeta {
    /// The frame again, with `data` for its bytes.
    pub fn with_data<'a>(&self, data: &'a [u8]) -> Frame<'a> {
        Frame {
            number: self.number,
            ts: self.ts,
            ts_digits: self.ts_digits,
            linktype: self.linktype,
            orig_len: self.orig_len,
            interface: self.interface,
            data,
        }
    }
}

/// A problem reading the capture itself (not the packets in it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceError {
    /// The frame number the problem concerns (the next frame when reading stopped), if known.
    pub frame: Option<u64>,
    /// Byte offset in the (decompressed) file, if known.
    pub offset: Option<u64>,
    pub what: String,
    /// After a fatal error the source yields nothing more.
    pub fatal: bool,
}

impl fmt::Display for SourceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.frame, self.offset) {
            (Some(n), Some(o)) => write!(f, "frame {n} (file byte {o}): {}", self.what),
            (Some(n), None) => write!(f, "frame {n}: {}", self.what),
            (None, Some(o)) => write!(f, "file byte {o}: {}", self.what),
            (None, None) => write!(f, "{}", self.what),
        }
    }
}

impl std::error::Error for SourceError {}

/// Anything that yields frames: a file reader, a live capture.
pub trait FrameSource {
    /// The next frame, `Ok(None)` at the end. A non-fatal error may be followed by more frames.
    fn next_frame(&mut self) -> Result<Option<Frame<'_>>, SourceError>;
}
