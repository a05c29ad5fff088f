//! `-w`: frames written to a pcapng file (`read` writes those its display filter keeps, `capture`
//! every frame it captures).
//!
//! Each input interface (pcapng section, interface index and link type) becomes an interface of
//! the output, described when its first frame is written, with nanosecond timestamps and the
//! input's interface name and description, so the frames keep their link type, their time to the
//! nanosecond and the interface tshark names. A packet keeps its comments and its flags word
//! (`epb_flags`: direction, reception type, link-layer errors); its other options are left out.
//! A pcapng Custom Block, which Wireshark numbers as a frame, holds no packet and is not written.
//!
//! A message reassembled from several frames (IP fragments, SCTP fragments, TCP segments) is
//! decoded in the frame that completes it; a filter that keeps that frame would leave out the
//! frames it began in, and the file read back would not decode the message. So with a filter the
//! last frames wait in a window (at most [`WINDOW_FRAMES`] frames and [`WINDOW_BYTES`] bytes)
//! before they are written or dropped: a frame kept brings the frames its messages were
//! reassembled from, as `tshark -2 -Y FILTER -w` does. Frames are written in their order.
//! A frame that left the window before a frame depending on it was kept cannot be brought back
//! (it is in the file only if the filter kept it); such frames are counted
//! ([`CaptureFile::unreachable`]).

use std::collections::VecDeque;
use std::io::{self, BufWriter, Write};

use crate::output::pcap::{IfOptions, PacketOptions, PcapNgWriter};
use crate::source::{Frame, FrameMeta, InterfaceNames};

/// Frames held at most while the filter's verdicts on later frames may still want them.
pub const WINDOW_FRAMES: usize = 4096;
/// Bytes of frame data and comments held at most in the window.
pub const WINDOW_BYTES: usize = 16 << 20;
/// Input interfaces whose names are kept at most (a file of endless sections would otherwise
/// grow the table without end); the interfaces after them are written unnamed.
pub const MAX_NAMED: usize = 1024;

struct Held {
    meta: FrameMeta,
    section: u32,
    options: PacketOptions,
    data: Vec<u8>,
    keep: bool,
}

impl Held {
    /// What the frame holds that input decides the size of: its bytes and its comments.
    fn bytes(&self) -> usize {
        self.data.len() + self.options.comments.iter().map(String::len).sum::<usize>()
    }
}

/// An input interface: (pcapng section, interface index, link type); the section is 0 for pcap.
type InputInterface = (u32, u32, u32);

/// The input interface of `frame`.
fn input_interface(frame: &Frame<'_>) -> InputInterface {
    let section = frame.pcapng.map_or(0, |p| p.section);
    (section, frame.interface, frame.linktype)
}

/// The packet options of `frame` that are written with it.
fn packet_options(frame: &Frame<'_>) -> PacketOptions {
    let Some(p) = frame.pcapng else {
        return PacketOptions::default();
    };
    PacketOptions {
        comments: p
            .comments()
            .map(|c| String::from_utf8_lossy(c).into_owned())
            .collect(),
        flags: p.flags(),
    }
}

/// A pcapng file being written; the first write error is kept and ends the writing.
pub struct CaptureFile {
    out: PcapNgWriter<BufWriter<Box<dyn Write + Send>>>,
    /// The input interface of each output interface, by output index.
    interfaces: Vec<InputInterface>,
    /// The names of each input interface met, taken from its first frame (a frame may be written
    /// after the input has moved on to another section).
    names: Vec<(InputInterface, InterfaceNames)>,
    /// Whether frames wait in the window (a filter decides) or are written at once.
    windowed: bool,
    window: VecDeque<Held>,
    window_bytes: usize,
    /// Buffers of frames that left the window, for the next ones.
    spare: Vec<Vec<u8>>,
    /// The frame being taken's dependencies, sorted, each once.
    depends_on: Vec<u64>,
    written: u64,
    unreachable: u64,
    error: Option<io::Error>,
}

impl CaptureFile {
    /// A file on `out`, its section header written. `windowed`: frames wait for the verdicts on
    /// later frames (see the module doc); otherwise each frame given is written at once.
    pub fn new(out: Box<dyn Write + Send>, windowed: bool) -> io::Result<CaptureFile> {
        Ok(CaptureFile {
            out: PcapNgWriter::new(BufWriter::new(out))?,
            interfaces: Vec::new(),
            names: Vec::new(),
            windowed,
            window: VecDeque::new(),
            window_bytes: 0,
            spare: Vec::new(),
            depends_on: Vec::new(),
            written: 0,
            unreachable: 0,
            error: None,
        })
    }

    /// Describes interface `interface` of pcapng section `section` beforehand (a live capture
    /// names its interface and snap length); otherwise interfaces are described as their first
    /// frame comes.
    pub fn describe(&mut self, section: u32, interface: u32, opts: &IfOptions) -> io::Result<()> {
        self.out.add_interface(opts)?;
        self.interfaces.push((section, interface, opts.linktype));
        Ok(())
    }

    /// Frames written so far (frames still in the window are not counted).
    pub fn written(&self) -> u64 {
        self.written
    }

    /// Frames that kept frames depended on but that had left the window by then (written only
    /// if they were kept themselves).
    pub fn unreachable(&self) -> u64 {
        self.unreachable
    }

    /// Takes the next frame in capture order: `keep` whether it is to be written, `depends_on`
    /// the frames its messages were reassembled from (in any order, repeated or not; the earlier
    /// ones are written with it when `keep`, and not even read otherwise).
    pub fn frame(
        &mut self,
        frame: &Frame<'_>,
        keep: bool,
        depends_on: impl IntoIterator<Item = u64>,
    ) {
        // A pcapng custom block is numbered as a frame but holds no packet: there is nothing to
        // write (the frames after it are renumbered, as when editcap drops it).
        if self.error.is_some() || frame.custom_block().is_some() {
            return;
        }
        let key = input_interface(frame);
        if let Some(p) = frame.pcapng {
            if self.names.len() < MAX_NAMED && !self.names.iter().any(|(k, _)| *k == key) {
                self.names.push((key, p.names.clone()));
            }
        }
        if !self.windowed {
            if keep {
                self.write(&frame.meta(), key.0, &packet_options(frame), frame.data);
            }
            return;
        }
        if keep {
            self.depends_on.clear();
            self.depends_on
                .extend(depends_on.into_iter().filter(|&n| n < frame.number));
            self.depends_on.sort_unstable();
            self.depends_on.dedup();
            let first = self.window.front().map(|h| h.meta.number);
            for &n in &self.depends_on {
                let held = first
                    .filter(|&first| n >= first)
                    .and_then(|first| self.window.get_mut((n - first) as usize));
                match held {
                    Some(h) if h.meta.number == n => h.keep = true,
                    // Left the window already (or, were frames given out of order, never in it).
                    _ => self.unreachable += 1,
                }
            }
        }
        let mut data = self.spare.pop().unwrap_or_default();
        data.clear();
        data.extend_from_slice(frame.data);
        let held = Held {
            meta: frame.meta(),
            section: key.0,
            options: packet_options(frame),
            data,
            keep,
        };
        self.window_bytes += held.bytes();
        self.window.push_back(held);
        while self.window.len() > WINDOW_FRAMES || self.window_bytes > WINDOW_BYTES {
            self.evict();
        }
    }

    fn evict(&mut self) {
        let Some(h) = self.window.pop_front() else {
            return;
        };
        self.window_bytes -= h.bytes();
        if h.keep {
            self.write(&h.meta, h.section, &h.options, &h.data);
        }
        if self.spare.len() < 64 {
            self.spare.push(h.data);
        }
    }

    fn write(&mut self, meta: &FrameMeta, section: u32, options: &PacketOptions, data: &[u8]) {
        if self.error.is_some() {
            return;
        }
        let key = (section, meta.interface, meta.linktype);
        let iface = match self.interfaces.iter().position(|i| *i == key) {
            Some(i) => i as u32,
            None => {
                let mut opts = IfOptions::new(meta.linktype).tsresol(9);
                if let Some((_, names)) = self.names.iter().find(|(k, _)| *k == key) {
                    opts.name = names.name.as_deref().map(str::to_string);
                    opts.description = names.description.as_deref().map(str::to_string);
                }
                if let Err(e) = self.describe(section, meta.interface, &opts) {
                    self.error = Some(e);
                    return;
                }
                self.interfaces.len() as u32 - 1
            }
        };
        let orig_len = meta.orig_len.max(data.len() as u32);
        match self
            .out
            .write_packet_options(iface, meta.ts, data, orig_len, options)
        {
            Ok(()) => self.written += 1,
            Err(e) => self.error = Some(e),
        }
    }

    /// Writes out what is buffered (frames still in the window stay there).
    pub fn flush(&mut self) {
        if self.error.is_none() {
            if let Err(e) = self.out.flush() {
                self.error = Some(e);
            }
        }
    }

    /// Writes the frames left in the window and flushes; the first error met, if any.
    pub fn finish(&mut self) -> io::Result<()> {
        while !self.window.is_empty() {
            self.evict();
        }
        self.flush();
        match self.error.take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// The first write error, if any (the file stops growing at it).
    pub fn error(&self) -> Option<&io::Error> {
        self.error.as_ref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::Timestamp;
    use crate::source::file::FileSource;
    use crate::source::FrameSource;
    use std::sync::{Arc, Mutex};

    /// A `Write` whose bytes the test can still read after the writer took it.
    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);

    impl Write for Shared {
        fn write(&mut self, b: &[u8]) -> io::Result<usize> {
            self.0.lock().expect("lock").extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    fn frame(number: u64, interface: u32, linktype: u32, data: &[u8]) -> Frame<'_> {
        Frame {
            number,
            ts: Timestamp {
                secs: 1_700_000_000 + number as i64,
                nanos: 123_456_789,
            },
            ts_digits: 6,
            linktype,
            orig_len: data.len() as u32 + 10,
            interface,
            data,
            pcapng: None,
        }
    }

    /// A frame as read back from the file written.
    struct Back {
        interface: u32,
        linktype: u32,
        ts: Timestamp,
        data: Vec<u8>,
        orig_len: u32,
    }

    fn read_back(bytes: &[u8]) -> Vec<Back> {
        let mut src =
            FileSource::from_reader(io::Cursor::new(bytes.to_vec())).expect("a pcapng file");
        let mut out = Vec::new();
        while let Some(f) = src.next_frame().expect("a frame") {
            out.push(Back {
                interface: f.interface,
                linktype: f.linktype,
                ts: f.ts,
                data: f.data.to_vec(),
                orig_len: f.orig_len,
            });
        }
        out
    }

    #[test]
    fn kept_frames_bring_the_frames_they_depend_on_in_order() {
        let sink = Shared::default();
        let mut w = CaptureFile::new(Box::new(sink.clone()), true).unwrap();
        let datas: Vec<Vec<u8>> = (1..=6u8).map(|i| vec![i; usize::from(i)]).collect();
        // Frame 4 completes a message begun in 1 and 2; 3 and 6 pass on their own; 5 is dropped.
        let verdicts = [
            (false, vec![]),
            (false, vec![]),
            (true, vec![]),
            (true, vec![1, 2]),
            (false, vec![]),
            (true, vec![]),
        ];
        for (i, (keep, deps)) in verdicts.iter().enumerate() {
            w.frame(
                &frame(i as u64 + 1, 0, 1, &datas[i]),
                *keep,
                deps.iter().copied(),
            );
        }
        assert_eq!(w.written(), 0, "the window holds them");
        w.finish().unwrap();
        assert_eq!(w.written(), 5);
        let back = read_back(&sink.0.lock().unwrap());
        let firsts: Vec<u8> = back.iter().map(|f| f.data[0]).collect();
        assert_eq!(firsts, [1, 2, 3, 4, 6]);
        for f in &back {
            let secs = 1_700_000_000 + i64::from(f.data[0]);
            assert_eq!((f.ts.secs, f.ts.nanos), (secs, 123_456_789));
            assert_eq!(f.orig_len, f.data.len() as u32 + 10, "orig_len kept");
        }
    }

    #[test]
    fn each_input_interface_keeps_its_link_type() {
        let sink = Shared::default();
        let mut w = CaptureFile::new(Box::new(sink.clone()), false).unwrap();
        w.frame(&frame(1, 0, 1, &[1]), true, []);
        w.frame(&frame(2, 3, 113, &[2]), true, []);
        w.frame(&frame(3, 0, 1, &[3]), false, []);
        w.frame(&frame(4, 3, 113, &[4]), true, []);
        w.frame(&frame(5, 0, 1, &[5]), true, []);
        w.finish().unwrap();
        let back = read_back(&sink.0.lock().unwrap());
        let got: Vec<(u32, u32, u8)> = back
            .iter()
            .map(|f| (f.interface, f.linktype, f.data[0]))
            .collect();
        assert_eq!(got, [(0, 1, 1), (1, 113, 2), (1, 113, 4), (0, 1, 5)]);
    }

    /// A pcapng frame's names, comments and flags go with it, and two sections' interfaces of
    /// the same index stay two interfaces.
    #[test]
    fn names_comments_and_flags_are_kept() {
        use crate::output::pcap::Order;
        use crate::source::Pcapng;
        let named = |n: &str| InterfaceNames {
            name: Some(n.into()),
            description: Some(format!("{n} port").into()),
        };
        let (eth0, eth1) = (named("eth0"), named("eth1"));
        // Comments "hello" and "world", flags 0x2 (outbound), end of options.
        let mut options = Vec::new();
        for (code, value) in [
            (1u16, &b"hello"[..]),
            (1, b"world"),
            (2, &2u32.to_le_bytes()),
            (0, b""),
        ] {
            Order::LITTLE.u16(&mut options, code);
            Order::LITTLE.u16(&mut options, value.len() as u16);
            options.extend_from_slice(value);
            options.resize(options.len().next_multiple_of(4), 0);
        }
        let pcapng = |section, names, options| Pcapng {
            section,
            block: crate::source::Block::Packet,
            names,
            options,
            big_endian: false,
        };
        for windowed in [false, true] {
            let sink = Shared::default();
            let mut w = CaptureFile::new(Box::new(sink.clone()), windowed).unwrap();
            let mut f1 = frame(1, 0, 1, &[1]);
            f1.pcapng = Some(pcapng(1, &eth0, &options));
            let mut f2 = frame(2, 0, 1, &[2]);
            f2.pcapng = Some(pcapng(2, &eth1, &[]));
            let mut f3 = frame(3, 0, 1, &[3]);
            f3.pcapng = Some(pcapng(2, &eth1, &options[..12]));
            for f in [&f1, &f2, &f3] {
                w.frame(f, true, []);
            }
            w.finish().unwrap();
            let bytes = sink.0.lock().unwrap().clone();
            let mut src = FileSource::from_reader(io::Cursor::new(bytes)).expect("pcapng");
            let mut got = Vec::new();
            while let Some(f) = src.next_frame().expect("a frame") {
                let p = f.pcapng.expect("pcapng");
                let comments: Vec<String> = p
                    .comments()
                    .map(|c| String::from_utf8_lossy(c).into_owned())
                    .collect();
                got.push((f.interface, p.names.clone(), comments, p.flags()));
            }
            let hello = vec!["hello".to_string()];
            assert_eq!(
                got,
                [
                    (
                        0,
                        eth0.clone(),
                        vec!["hello".into(), "world".into()],
                        Some(2)
                    ),
                    (1, eth1.clone(), vec![], None),
                    (1, eth1.clone(), hello, None),
                ],
                "windowed {windowed}"
            );
        }
    }

    #[test]
    fn a_frame_past_the_window_is_counted_not_brought() {
        let sink = Shared::default();
        let mut w = CaptureFile::new(Box::new(sink.clone()), true).unwrap();
        let n = WINDOW_FRAMES as u64 + 2;
        for i in 1..n {
            w.frame(&frame(i, 0, 1, &[0]), false, []);
        }
        // Frame 1 has left the window (named twice, counted once); frame n-1 is still in it.
        w.frame(&frame(n, 0, 1, &[9]), true, [1, n - 1, 1]);
        w.finish().unwrap();
        assert_eq!(w.unreachable(), 1);
        assert_eq!(w.written(), 2);
        assert_eq!(read_back(&sink.0.lock().unwrap()).len(), 2);
    }

    #[test]
    fn the_window_is_bounded_by_bytes_too() {
        let sink = Shared::default();
        let mut w = CaptureFile::new(Box::new(sink.clone()), true).unwrap();
        let big = vec![0u8; 1 << 20];
        for i in 1..=40 {
            w.frame(&frame(i, 0, 1, &big), i % 2 == 0, []);
            assert!(w.window_bytes <= WINDOW_BYTES);
        }
        w.finish().unwrap();
        assert_eq!(w.written(), 20);
    }

    /// Comments count in the window's bytes: a frame of one byte may carry a megabyte of them.
    #[test]
    fn the_window_counts_the_comments_bytes() {
        use crate::source::Pcapng;
        let names = InterfaceNames::default();
        // Sixteen comments of 65,532 bytes each (an option's length is 16 bits).
        let mut options = Vec::new();
        for _ in 0..16 {
            options.extend_from_slice(&1u16.to_le_bytes());
            options.extend_from_slice(&65_532u16.to_le_bytes());
            options.resize(options.len() + 65_532, b'c');
        }
        let sink = Shared::default();
        let mut w = CaptureFile::new(Box::new(sink.clone()), true).unwrap();
        for i in 1..=40 {
            let mut f = frame(i, 0, 1, &[1]);
            f.pcapng = Some(Pcapng {
                section: 1,
                block: crate::source::Block::Packet,
                names: &names,
                options: &options,
                big_endian: false,
            });
            w.frame(&f, i % 2 == 0, []);
            assert!(w.window_bytes <= WINDOW_BYTES);
            assert!(w.window.len() < 17, "{} frames held", w.window.len());
        }
        w.finish().unwrap();
        assert_eq!(w.written(), 20);
    }
}
