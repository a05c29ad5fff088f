//! Where generated frames go: a pcap or pcapng file (streamed: nothing is kept), or a list in
//! memory for tests.

use std::io::{self, Write};
use std::str::FromStr;

use crate::base::{linktype, Timestamp};
use crate::generate::{IfOptions, PcapNgWriter, PcapWriter, TsResolution};

/// Receives frames in capture order.
pub trait FrameSink {
    fn frame(&mut self, ts: Timestamp, data: &[u8]) -> io::Result<()>;
}

/// The capture file formats the generator writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CaptureFormat {
    /// Legacy pcap, microsecond timestamps, Ethernet.
    Pcap,
    /// pcapng, one Ethernet interface with nanosecond timestamps.
    PcapNg,
}

impl FromStr for CaptureFormat {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.to_ascii_lowercase().as_str() {
            "pcap" => Ok(CaptureFormat::Pcap),
            "pcapng" => Ok(CaptureFormat::PcapNg),
            _ => Err(format!("unknown capture format {s:?}: use pcap or pcapng")),
        }
    }
}

enum Writer<W: Write> {
    Pcap(PcapWriter<W>),
    PcapNg(PcapNgWriter<W>, u32),
}

/// A capture file being written, Ethernet link type.
pub struct CaptureFile<W: Write> {
    w: Writer<W>,
}

impl<W: Write> CaptureFile<W> {
    pub fn new(w: W, format: CaptureFormat) -> io::Result<Self> {
        let w = match format {
            CaptureFormat::Pcap => {
                Writer::Pcap(PcapWriter::new(w, linktype::ETHERNET, TsResolution::Micro)?)
            }
            CaptureFormat::PcapNg => {
                let mut p = PcapNgWriter::new(w)?;
                let iface = p.add_interface(
                    &IfOptions::new(linktype::ETHERNET)
                        .tsresol(9)
                        .name("poolshark-generate"),
                )?;
                Writer::PcapNg(p, iface)
            }
        };
        Ok(CaptureFile { w })
    }

    pub fn flush(&mut self) -> io::Result<()> {
        match &mut self.w {
            Writer::Pcap(p) => p.flush(),
            Writer::PcapNg(p, _) => p.flush(),
        }
    }

    pub fn into_inner(self) -> W {
        match self.w {
            Writer::Pcap(p) => p.into_inner(),
            Writer::PcapNg(p, _) => p.into_inner(),
        }
    }
}

impl<W: Write> FrameSink for CaptureFile<W> {
    fn frame(&mut self, ts: Timestamp, data: &[u8]) -> io::Result<()> {
        match &mut self.w {
            Writer::Pcap(p) => p.write(ts, data),
            Writer::PcapNg(p, iface) => p.write(*iface, ts, data),
        }
    }
}

/// Frames kept in memory (tests, small fixtures).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Frames(pub Vec<(Timestamp, Vec<u8>)>);

impl FrameSink for Frames {
    fn frame(&mut self, ts: Timestamp, data: &[u8]) -> io::Result<()> {
        self.0.push((ts, data.to_vec()));
        Ok(())
    }
}

impl Frames {
    /// The frames as a capture file in memory (an error only for a time pcap cannot hold).
    pub fn to_capture(&self, format: CaptureFormat) -> io::Result<Vec<u8>> {
        let mut f = CaptureFile::new(Vec::new(), format)?;
        for (ts, d) in &self.0 {
            f.frame(*ts, d)?;
        }
        Ok(f.into_inner())
    }
}
