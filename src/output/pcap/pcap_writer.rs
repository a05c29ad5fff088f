//! Writing legacy pcap files (either byte order, micro- or nanosecond timestamps).

use std::io::{self, Write};

use super::Order;
use crate::base::Timestamp;

/// Timestamp resolution of a legacy pcap file (chosen by its magic number).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TsResolution {
    Micro,
    Nano,
}

/// A legacy pcap writer.
pub struct PcapWriter<W: Write> {
    w: W,
    res: TsResolution,
    order: Order,
    scratch: Vec<u8>,
}

/// The snap length written in the header: what tcpdump uses by default.
pub const SNAPLEN: u32 = 262_144;

impl<W: Write> PcapWriter<W> {
    /// A little-endian file for `linktype` (a LINKTYPE_ number).
    pub fn new(w: W, linktype: u32, res: TsResolution) -> io::Result<Self> {
        Self::with_byte_order(w, linktype, res, false)
    }

    pub fn with_byte_order(
        mut w: W,
        linktype: u32,
        res: TsResolution,
        big_endian: bool,
    ) -> io::Result<Self> {
        let order = Order { big_endian };
        let mut h = Vec::with_capacity(24);
        let magic = match res {
            TsResolution::Micro => 0xa1b2_c3d4,
            TsResolution::Nano => 0xa1b2_3c4d,
        };
        order.u32(&mut h, magic);
        order.u16(&mut h, 2);
        order.u16(&mut h, 4);
        order.u32(&mut h, 0); // thiszone
        order.u32(&mut h, 0); // sigfigs
        order.u32(&mut h, SNAPLEN);
        order.u32(&mut h, linktype);
        w.write_all(&h)?;
        Ok(PcapWriter {
            w,
            res,
            order,
            scratch: Vec::with_capacity(16),
        })
    }

    /// Writes a whole packet.
    pub fn write(&mut self, ts: Timestamp, data: &[u8]) -> io::Result<()> {
        let orig = u32::try_from(data.len()).map_err(|_| too_long())?;
        self.write_cut(ts, data, orig)
    }

    /// Writes the captured part `data` of a packet that was `orig_len` bytes on the wire.
    pub fn write_cut(&mut self, ts: Timestamp, data: &[u8], orig_len: u32) -> io::Result<()> {
        let secs = u32::try_from(ts.secs).map_err(|_| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                "pcap times run from 1970 to 2106",
            )
        })?;
        let frac = match self.res {
            TsResolution::Micro => ts.nanos / 1000,
            TsResolution::Nano => ts.nanos,
        };
        let caplen = u32::try_from(data.len()).map_err(|_| too_long())?;
        self.scratch.clear();
        self.order.u32(&mut self.scratch, secs);
        self.order.u32(&mut self.scratch, frac);
        self.order.u32(&mut self.scratch, caplen);
        self.order.u32(&mut self.scratch, orig_len);
        self.w.write_all(&self.scratch)?;
        self.w.write_all(data)
    }

    pub fn flush(&mut self) -> io::Result<()> {
        self.w.flush()
    }

    pub fn into_inner(self) -> W {
        self.w
    }
}

pub(crate) fn too_long() -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, "packet longer than 4 GiB")
}
