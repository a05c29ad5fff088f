//! The frame behind a finding, decoded again for the detail view.
//!
//! A frame cannot be decoded alone: its message may have been reassembled from earlier frames
//! (IP fragments, SCTP, TCP) and the RSerPool encoding is learnt per association. So for a file
//! the capture is read again through the same pipeline up to that frame, in the background
//! ([`decode_frame`]); for a live capture or standard input, which cannot be read twice, the loader
//! keeps the decoded trees of the last frames instead ([`RecentFrames`]).

use std::collections::VecDeque;
use std::fmt::Write as _;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::base::Timestamp;
use crate::dissect::FrameSummary;
use crate::error::DecodeError;
use crate::field::Field;
use crate::output::stats::clock;
use crate::output::text::write_tree;
use crate::pipeline::{Decoded, Options, Pipeline, Sink};
use crate::proto::AppProtocol;
use crate::source::{Frame, FrameSource};

/// One decoded message of the frame.
#[derive(Clone, Debug, PartialEq)]
pub struct MessageDetail {
    pub protocol: AppProtocol,
    /// `address:port` of each end.
    pub src: String,
    pub dst: String,
    pub transport: &'static str,
    pub info: String,
    /// The display tree, offsets in the frame when the message lies in it.
    pub fields: Vec<Field>,
    pub errors: Vec<DecodeError>,
    /// Frames the message was reassembled from (empty when it lies in this frame).
    pub reassembled_from: Vec<u64>,
}

impl MessageDetail {
    pub fn from_decoded(d: &Decoded<'_>) -> Self {
        let mut fields = d.message.fields();
        if let Some(o) = d.frame_offset {
            for f in &mut fields {
                f.shift(o);
            }
        }
        let p = d.payload;
        MessageDetail {
            protocol: d.protocol,
            src: endpoint(&p.src, p.src_port),
            dst: endpoint(&p.dst, p.dst_port),
            transport: p.transport.name(),
            info: d.message.info(),
            fields,
            errors: d.errors.to_vec(),
            reassembled_from: p.reassembled_from.clone(),
        }
    }
}

fn endpoint(a: &std::net::IpAddr, port: u16) -> String {
    match a {
        std::net::IpAddr::V4(v4) => format!("{v4}:{port}"),
        std::net::IpAddr::V6(v6) => format!("[{v6}]:{port}"),
    }
}

/// One frame as the detail view shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct FrameDetail {
    pub number: u64,
    pub time: Timestamp,
    pub orig_len: u32,
    pub captured_len: usize,
    /// The lower layers: `192.0.2.1 → 192.0.2.2 TCP 647 → 36235 [ACK] ...`.
    pub lower: String,
    pub messages: Vec<MessageDetail>,
    /// Decode errors below the application protocols.
    pub lower_errors: Vec<DecodeError>,
}

impl FrameDetail {
    fn new(frame: &Frame<'_>) -> Self {
        FrameDetail {
            number: frame.number,
            time: frame.ts,
            orig_len: frame.orig_len,
            captured_len: frame.data.len(),
            lower: String::new(),
            messages: Vec::new(),
            lower_errors: Vec::new(),
        }
    }

    fn end(&mut self, s: &FrameSummary) {
        let addr = |a: &Option<crate::dissect::Address>| a.map(|a| a.to_string());
        self.lower = match (addr(&s.src), addr(&s.dst)) {
            (Some(a), Some(b)) => format!("{a} → {b} {} {}", s.protocol, s.info),
            _ => format!("{} {}", s.protocol, s.info),
        };
        self.lower = self.lower.trim_end().to_string();
        self.lower_errors = s.errors.clone();
    }

    /// The text of the view, one line each, the trees indented as `read -V` indents them.
    pub fn lines(&self) -> Vec<String> {
        let mut out = vec![
            format!(
                "Frame {}: {}.{:09} UTC, {} bytes on the wire, {} captured",
                self.number,
                clock(self.time),
                self.time.nanos,
                self.orig_len,
                self.captured_len
            ),
            self.lower.clone(),
        ];
        for e in &self.lower_errors {
            out.push(format!("    [error at byte {}: {}]", e.offset, e.what));
        }
        if self.messages.is_empty() {
            out.push("No ASAP, ENRP, DHCP or failover message in this frame.".into());
        }
        for m in &self.messages {
            let mut head = format!(
                "{} {} → {} ({}): {}",
                m.protocol.column(),
                m.src,
                m.dst,
                m.transport,
                m.info
            );
            if !m.reassembled_from.is_empty() {
                let frames: Vec<String> =
                    m.reassembled_from.iter().map(|f| f.to_string()).collect();
                let _ = write!(head, " [reassembled from frames {}]", frames.join(", "));
            }
            out.push(head);
            let mut tree = Vec::new();
            write_tree(&mut tree, &m.fields, 1);
            out.extend(String::from_utf8_lossy(&tree).lines().map(str::to_string));
            for e in &m.errors {
                out.push(format!(
                    "    [{} error at byte {}: {}]",
                    m.protocol, e.offset, e.what
                ));
            }
        }
        out
    }
}

/// Collects one frame's messages.
struct FrameCollector<'c> {
    target: u64,
    found: Option<FrameDetail>,
    /// The highest frame number seen, for the message when the target is not there.
    last: u64,
    cancel: &'c AtomicBool,
}

impl Sink for FrameCollector<'_> {
    fn message(&mut self, d: &Decoded<'_>) {
        if d.frame.number == self.target {
            self.found
                .get_or_insert_with(|| FrameDetail::new(d.frame))
                .messages
                .push(MessageDetail::from_decoded(d));
        }
    }

    fn end_frame(&mut self, frame: &Frame<'_>, summary: &FrameSummary) {
        self.last = frame.number;
        if frame.number == self.target {
            self.found
                .get_or_insert_with(|| FrameDetail::new(frame))
                .end(summary);
        }
    }

    fn stopped(&self) -> bool {
        self.last >= self.target || self.cancel.load(Ordering::Relaxed)
    }
}

/// Reads `source` through the pipeline up to frame `number` and returns that frame decoded.
/// `cancel` stops the read early (another frame was asked for, or the UI quit).
pub fn decode_frame(
    source: &mut dyn FrameSource,
    options: Options,
    number: u64,
    cancel: &AtomicBool,
) -> Result<FrameDetail, String> {
    let mut sink = FrameCollector {
        target: number,
        found: None,
        last: 0,
        cancel,
    };
    let mut pipeline = Pipeline::new(options);
    let fatal = pipeline.run(source, &mut sink).err();
    if let Some(d) = sink.found {
        return Ok(d);
    }
    if cancel.load(Ordering::Relaxed) {
        return Err("cancelled".into());
    }
    Err(match fatal {
        Some(e) => format!("reading stopped before frame {number}: {e}"),
        None => format!(
            "frame {number} is not in the capture (it has {} frames)",
            sink.last
        ),
    })
}

/// Captured bytes of the frames [`RecentFrames`] keeps at most: a tree's size follows its
/// frame's, and records can be large.
pub const RECENT_BYTES: usize = 64 << 20;

/// The decoded trees of the last frames that carried messages, for inputs that cannot be read
/// twice. Bounded by a number of frames and by their captured bytes ([`RECENT_BYTES`]).
#[derive(Debug)]
pub struct RecentFrames {
    max: usize,
    frames: VecDeque<FrameDetail>,
    bytes: usize,
    /// The frame being filled (its messages arrive before its end).
    current: Option<FrameDetail>,
}

impl RecentFrames {
    pub fn new(max: usize) -> Self {
        RecentFrames {
            max: max.max(1),
            frames: VecDeque::new(),
            bytes: 0,
            current: None,
        }
    }

    pub fn message(&mut self, d: &Decoded<'_>) {
        if self.current.as_ref().map(|c| c.number) != Some(d.frame.number) {
            self.current = Some(FrameDetail::new(d.frame));
        }
        if let Some(c) = &mut self.current {
            c.messages.push(MessageDetail::from_decoded(d));
        }
    }

    /// The end of a frame: kept if it carried messages or lower-layer errors.
    pub fn end_frame(&mut self, frame: &Frame<'_>, summary: &FrameSummary) {
        let current = self.current.take().filter(|c| c.number == frame.number);
        if current.is_none() && summary.errors.is_empty() {
            return;
        }
        let mut d = current.unwrap_or_else(|| FrameDetail::new(frame));
        d.end(summary);
        self.bytes = self.bytes.saturating_add(d.captured_len);
        self.frames.push_back(d);
        while self.frames.len() > self.max || (self.bytes > RECENT_BYTES && self.frames.len() > 1) {
            match self.frames.pop_front() {
                Some(old) => self.bytes = self.bytes.saturating_sub(old.captured_len),
                None => break,
            }
        }
    }

    pub fn get(&self, number: u64) -> Result<FrameDetail, String> {
        // Frames arrive in order: a binary search by number.
        match self.frames.binary_search_by_key(&number, |f| f.number) {
            Ok(i) => self.frames.get(i).cloned().ok_or_else(|| "gone".into()),
            Err(_) => Err(match self.frames.front() {
                Some(f) if number < f.number => format!(
                    "frame {number} is no longer kept: the last {} decoded frames are (from frame {})",
                    self.frames.len(),
                    f.number
                ),
                _ => format!("frame {number} carried no message that was decoded"),
            }),
        }
    }

    /// Frames kept (the tests' view of the bound).
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.frames.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(number: u64, data: &[u8]) -> Frame<'_> {
        Frame {
            number,
            ts: Timestamp::default(),
            ts_digits: 6,
            linktype: 1,
            orig_len: data.len() as u32,
            interface: 0,
            data,
            pcapng: None,
        }
    }

    #[test]
    fn recent_frames_are_bounded_by_count_and_bytes() {
        let big = vec![0u8; 20 << 20];
        let summary = FrameSummary {
            errors: vec![DecodeError::new(0, "not an Ethernet frame")],
            ..FrameSummary::default()
        };
        let mut r = RecentFrames::new(100);
        for n in 1..=5 {
            r.end_frame(&frame(n, &big), &summary);
        }
        // 20 MiB each: three fit in 64 MiB.
        assert_eq!(r.len(), 3);
        assert!(r.get(2).unwrap_err().contains("no longer kept"));
        assert_eq!(r.get(5).map(|d| d.lower_errors.len()), Ok(1));
        let mut r = RecentFrames::new(2);
        for n in 1..=5 {
            r.end_frame(&frame(n, b"xx"), &summary);
        }
        assert_eq!(r.len(), 2);
        assert!(r.get(4).is_ok() && r.get(3).is_err());
        // A frame without messages or errors is not kept.
        r.end_frame(&frame(6, b"xx"), &FrameSummary::default());
        assert!(r.get(6).unwrap_err().contains("carried no message"));
    }
}
