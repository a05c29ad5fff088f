//! Writing pcapng files: several interfaces of different link types and timestamp resolutions,
//! either byte order, several sections.

use std::io::{self, Write};

use super::pcap_writer::too_long;
use super::Order;
use crate::base::Timestamp;
use crate::source::file::units_per_second;

const SHB: u32 = 0x0A0D_0D0A;
const IDB: u32 = 1;
const PB: u32 = 2;
const SPB: u32 = 3;
const EPB: u32 = 6;

/// How an interface is described.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IfOptions {
    pub linktype: u32,
    pub snaplen: u32,
    /// `if_tsresol`: 10^-n seconds, or 2^-n with the top bit set. 6 (microseconds) is the default
    /// and is then not written.
    pub tsresol: u8,
    /// `if_tsoffset`: seconds added to every timestamp.
    pub tsoffset: i64,
    pub name: Option<String>,
    /// `if_description`.
    pub description: Option<String>,
}

/// What an Enhanced Packet Block says of its packet besides the bytes: comments (`opt_comment`,
/// in order) and the flags word (`epb_flags`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PacketOptions {
    pub comments: Vec<String>,
    pub flags: Option<u32>,
}

impl IfOptions {
    pub fn new(linktype: u32) -> Self {
        IfOptions {
            linktype,
            snaplen: 0,
            tsresol: 6,
            tsoffset: 0,
            name: None,
            description: None,
        }
    }

    pub fn tsresol(mut self, r: u8) -> Self {
        self.tsresol = r;
        self
    }

    pub fn tsoffset(mut self, secs: i64) -> Self {
        self.tsoffset = secs;
        self
    }

    pub fn name(mut self, n: &str) -> Self {
        self.name = Some(n.to_string());
        self
    }

    pub fn description(mut self, d: &str) -> Self {
        self.description = Some(d.to_string());
        self
    }
}

/// A pcapng writer.
pub struct PcapNgWriter<W: Write> {
    w: W,
    order: Order,
    /// (units per second, offset) of each interface of the current section.
    ifaces: Vec<(u64, i64)>,
    block: Vec<u8>,
}

impl<W: Write> PcapNgWriter<W> {
    /// A little-endian file with one section and no interface yet.
    pub fn new(w: W) -> io::Result<Self> {
        Self::with_byte_order(w, false)
    }

    pub fn with_byte_order(w: W, big_endian: bool) -> io::Result<Self> {
        let mut s = PcapNgWriter {
            w,
            order: Order { big_endian },
            ifaces: Vec::new(),
            block: Vec::with_capacity(2048),
        };
        s.new_section(big_endian)?;
        Ok(s)
    }

    /// Starts a new section (its interfaces start again from 0).
    pub fn new_section(&mut self, big_endian: bool) -> io::Result<()> {
        self.order = Order { big_endian };
        self.ifaces.clear();
        let o = self.order;
        let mut body = Vec::with_capacity(16);
        o.u32(&mut body, 0x1A2B_3C4D);
        o.u16(&mut body, 1);
        o.u16(&mut body, 0);
        o.u64(&mut body, u64::MAX); // section length unknown
        self.write_block(SHB, &body, &[])
    }

    /// Describes an interface; returns its index for [`Self::write_packet`].
    pub fn add_interface(&mut self, opts: &IfOptions) -> io::Result<u32> {
        let units = units_per_second(opts.tsresol).ok_or_else(|| {
            io::Error::new(io::ErrorKind::InvalidInput, "if_tsresol out of range")
        })?;
        let o = self.order;
        let linktype = u16::try_from(opts.linktype)
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "link type over 65535"))?;
        let mut body = Vec::with_capacity(64);
        o.u16(&mut body, linktype);
        o.u16(&mut body, 0);
        o.u32(&mut body, opts.snaplen);
        let mut options = Vec::new();
        if let Some(n) = &opts.name {
            push_option(o, &mut options, 2, n.as_bytes());
        }
        if let Some(d) = &opts.description {
            push_option(o, &mut options, 3, d.as_bytes());
        }
        if opts.tsresol != 6 {
            push_option(o, &mut options, 9, &[opts.tsresol]);
        }
        if opts.tsoffset != 0 {
            let mut v = Vec::new();
            o.u64(&mut v, opts.tsoffset as u64);
            push_option(o, &mut options, 14, &v);
        }
        if !options.is_empty() {
            push_option(o, &mut options, 0, &[]);
        }
        self.write_block(IDB, &body, &options)?;
        self.ifaces.push((units, opts.tsoffset));
        Ok(self.ifaces.len() as u32 - 1)
    }

    fn raw_ts(&self, iface: u32, ts: Timestamp) -> io::Result<u64> {
        let (units, offset) = *self
            .ifaces
            .get(iface as usize)
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "no such interface"))?;
        let secs = u64::try_from(ts.secs.saturating_sub(offset)).map_err(|_| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                "time before the interface's offset",
            )
        })?;
        let frac = (u128::from(ts.nanos) * u128::from(units) / 1_000_000_000) as u64;
        secs.checked_mul(units)
            .and_then(|v| v.checked_add(frac))
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "time out of range"))
    }

    /// Writes a whole packet in an Enhanced Packet Block.
    pub fn write(&mut self, iface: u32, ts: Timestamp, data: &[u8]) -> io::Result<()> {
        let orig = u32::try_from(data.len()).map_err(|_| too_long())?;
        self.write_packet(iface, ts, data, orig)
    }

    /// Writes an Enhanced Packet Block: the captured part `data` of a packet that was
    /// `orig_len` bytes on the wire.
    pub fn write_packet(
        &mut self,
        iface: u32,
        ts: Timestamp,
        data: &[u8],
        orig_len: u32,
    ) -> io::Result<()> {
        self.write_packet_options(iface, ts, data, orig_len, &PacketOptions::default())
    }

    /// Writes an Enhanced Packet Block with options.
    pub fn write_packet_options(
        &mut self,
        iface: u32,
        ts: Timestamp,
        data: &[u8],
        orig_len: u32,
        opts: &PacketOptions,
    ) -> io::Result<()> {
        let raw = self.raw_ts(iface, ts)?;
        let o = self.order;
        let caplen = u32::try_from(data.len()).map_err(|_| too_long())?;
        let mut head = Vec::with_capacity(20);
        o.u32(&mut head, iface);
        o.u32(&mut head, (raw >> 32) as u32);
        o.u32(&mut head, raw as u32);
        o.u32(&mut head, caplen);
        o.u32(&mut head, orig_len);
        let mut options = Vec::new();
        for c in &opts.comments {
            push_option(o, &mut options, 1, c.as_bytes());
        }
        if let Some(f) = opts.flags {
            let mut v = Vec::new();
            o.u32(&mut v, f);
            push_option(o, &mut options, 2, &v);
        }
        if !options.is_empty() {
            push_option(o, &mut options, 0, &[]);
        }
        self.write_packet_block(EPB, &head, data, &options)
    }

    /// Writes a Simple Packet Block (interface 0, no timestamp).
    pub fn write_simple_packet(&mut self, data: &[u8], orig_len: u32) -> io::Result<()> {
        let mut head = Vec::with_capacity(4);
        self.order.u32(&mut head, orig_len);
        self.write_packet_block(SPB, &head, data, &[])
    }

    /// Writes an obsolete Packet Block (type 2), as old writers did.
    pub fn write_obsolete_packet(
        &mut self,
        iface: u16,
        ts: Timestamp,
        data: &[u8],
        orig_len: u32,
    ) -> io::Result<()> {
        let raw = self.raw_ts(u32::from(iface), ts)?;
        let o = self.order;
        let caplen = u32::try_from(data.len()).map_err(|_| too_long())?;
        let mut head = Vec::with_capacity(20);
        o.u16(&mut head, iface);
        o.u16(&mut head, 0);
        o.u32(&mut head, (raw >> 32) as u32);
        o.u32(&mut head, raw as u32);
        o.u32(&mut head, caplen);
        o.u32(&mut head, orig_len);
        self.write_packet_block(PB, &head, data, &[])
    }

    /// Writes any block: type and body (padded here).
    pub fn write_raw_block(&mut self, block_type: u32, body: &[u8]) -> io::Result<()> {
        self.write_block(block_type, body, &[])
    }

    fn write_packet_block(
        &mut self,
        t: u32,
        head: &[u8],
        data: &[u8],
        options: &[u8],
    ) -> io::Result<()> {
        let mut body = std::mem::take(&mut self.block);
        body.clear();
        body.extend_from_slice(head);
        body.extend_from_slice(data);
        let r = self.write_block(t, &body, options);
        self.block = body;
        r
    }

    fn write_block(&mut self, t: u32, body: &[u8], options: &[u8]) -> io::Result<()> {
        let padded = body.len().div_ceil(4) * 4;
        let total = 12 + padded + options.len();
        let total = u32::try_from(total).map_err(|_| too_long())?;
        let o = self.order;
        let mut head = Vec::with_capacity(8);
        o.u32(&mut head, t);
        o.u32(&mut head, total);
        self.w.write_all(&head)?;
        self.w.write_all(body)?;
        self.w.write_all(&[0u8; 3][..padded - body.len()])?;
        self.w.write_all(options)?;
        let mut tail = Vec::with_capacity(4);
        o.u32(&mut tail, total);
        self.w.write_all(&tail)
    }

    pub fn flush(&mut self) -> io::Result<()> {
        self.w.flush()
    }

    pub fn into_inner(self) -> W {
        self.w
    }
}

fn push_option(o: Order, out: &mut Vec<u8>, code: u16, value: &[u8]) {
    o.u16(out, code);
    o.u16(out, value.len() as u16);
    out.extend_from_slice(value);
    // Zeros up to a multiple of 4 bytes.
    out.resize(out.len() + (4 - value.len() % 4) % 4, 0);
}
