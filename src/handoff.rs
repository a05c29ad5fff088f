//! Dissect once, decode in parts: a capture's frames are read and dissected once, on the
//! calling thread, and each part's payloads (those of the protocols its sink reads) are decoded
//! and analysed on a thread of its own, in frame order. The link, IP, TCP and SCTP layers (and
//! their reassembly) run once whatever the number of parts, and the parts run side by side.
//!
//! The payloads cross to the parts' threads in batches, copied out of the frames, through
//! bounded channels: memory stays bounded by the batches in flight, not by the capture. What a
//! run counts is the same as one [`Pipeline`] would count: the frames and their lower layers
//! are the dissecting pipeline's, the messages each part's ([`RunStats::absorb_part`]).
//!
//! A part's sink sees its messages as on one pipeline, with two differences: the frames it is
//! given carry no bytes (`Frame::data` is empty: the payload's are there), and a frame's end
//! ([`Sink::end_frame`]) comes only after frames with a payload of its protocols (and after the
//! run's first frame, where its timeline starts), with only its streams' framing errors.

use std::ops::Range;
use std::sync::mpsc::{self, Receiver, Sender, SyncSender};

use crate::base::Timestamp;
use crate::dissect::dispatch::classify;
use crate::dissect::{FrameSummary, Payload};
use crate::pipeline::{Decoder, Options, Pipeline, RunStats, Sink};
use crate::proto::AppProtocol;
use crate::source::{Frame, FrameMeta, FrameSource, SourceError};

/// A batch is handed over once a frame ends with at least this many payloads in it...
const BATCH_ITEMS: usize = 512;
/// ... or this many bytes.
const BATCH_BYTES: usize = 256 * 1024;
/// Batches waiting for a part's thread; the dissecting thread waits when they are all full.
/// Deep enough that, on fewer cores than threads, the parts and the dissecting thread can take
/// turns without one waiting for another: with 8, the dissecting thread, held up by the slower
/// part, left the other idle, and a core with it (`check` 1M generated frames on two cores:
/// median 0.59 s wall with 8, 0.56 s with 32, 0.56 s with 64; peak memory 42, 49 and 61 MB).
const BATCHES_IN_FLIGHT: usize = 32;

/// One part of a run: the protocols it decodes and the sink of their messages.
pub struct Part<'a, S> {
    pub protocols: Vec<AppProtocol>,
    pub sink: &'a mut S,
}

struct Item {
    frame: FrameMeta,
    /// Its bytes are `Batch::bytes[data]`.
    payload: Payload<'static>,
    data: Range<usize>,
    /// The last payload of its frame in this part.
    frame_end: bool,
    /// Its frame's lower layers had errors (set with `frame_end`).
    lower_errors: bool,
}

/// Payloads handed to a part's thread at once.
#[derive(Default)]
struct Batch {
    /// The run's first frame (its end is the start of the parts' timelines).
    first: Option<FrameMeta>,
    bytes: Vec<u8>,
    items: Vec<Item>,
}

/// What goes to a part's thread.
enum Handed {
    Payloads(Batch),
    /// The run has ended: its first frame (if it had one) and the time of its last.
    End(Option<FrameMeta>, Option<Timestamp>),
}

/// The dissecting thread's end of one part.
struct Lane {
    protocols: Vec<AppProtocol>,
    /// `None` once the part's thread has gone (it panicked: see [`run`]).
    tx: Option<SyncSender<Handed>>,
    /// Batches the part's thread is done with, to be filled again.
    back: Receiver<Batch>,
    batch: Batch,
    /// Payloads of the current frame in `batch`.
    in_frame: usize,
}

impl Lane {
    fn push(&mut self, frame: &Frame<'_>, p: &Payload<'_>) {
        let start = self.batch.bytes.len();
        self.batch.bytes.extend_from_slice(p.data);
        self.batch.items.push(Item {
            frame: frame.meta(),
            payload: p.detached(),
            data: start..self.batch.bytes.len(),
            frame_end: false,
            lower_errors: false,
        });
        self.in_frame += 1;
    }

    fn end_frame(&mut self, lower_errors: bool, first: Option<FrameMeta>) {
        if std::mem::take(&mut self.in_frame) == 0 {
            return;
        }
        if let Some(last) = self.batch.items.last_mut() {
            last.frame_end = true;
            last.lower_errors = lower_errors;
        }
        if self.batch.items.len() >= BATCH_ITEMS || self.batch.bytes.len() >= BATCH_BYTES {
            self.send(first);
        }
    }

    fn send(&mut self, first: Option<FrameMeta>) {
        if self.batch.items.is_empty() {
            return;
        }
        let fresh = self.back.try_recv().unwrap_or_default();
        let mut full = std::mem::replace(&mut self.batch, fresh);
        full.first = first;
        if let Some(tx) = &self.tx {
            if tx.send(Handed::Payloads(full)).is_err() {
                self.tx = None;
            }
        }
    }
}

/// Reads `source` to its end (or to a fatal error, returned with the statistics), dissecting
/// each frame once on this thread and decoding each part's payloads on a thread of its own.
/// `front` sees every frame's end (with what its lower layers said) and the reading problems;
/// a payload goes to the first part whose protocols hold its protocol, payloads of other
/// protocols to none. The statistics are the whole run's.
pub fn run<S: Sink + Send>(
    source: &mut dyn FrameSource,
    opts: &Options,
    front: &mut dyn Sink,
    parts: Vec<Part<'_, S>>,
) -> (RunStats, Option<SourceError>) {
    std::thread::scope(|s| {
        let mut lanes = Vec::new();
        let mut threads = Vec::new();
        for part in parts {
            let (tx, rx) = mpsc::sync_channel::<Handed>(BATCHES_IN_FLIGHT);
            let (back_tx, back_rx) = mpsc::channel::<Batch>();
            let mut own = opts.clone();
            own.dispatch.only = Some(part.protocols.clone());
            let sink = part.sink;
            threads.push(s.spawn(move || decode(rx, back_tx, &own, sink)));
            lanes.push(Lane {
                protocols: part.protocols,
                tx: Some(tx),
                back: back_rx,
                batch: Batch::default(),
                in_frame: 0,
            });
        }
        let mut pipeline = Pipeline::new(opts.clone());
        let rules = &opts.dispatch.decode_as;
        let mut first = None;
        let fatal = pipeline
            .each_frame(source, front, |pipeline, frame, front| {
                let first = *first.get_or_insert_with(|| frame.meta());
                let summary = pipeline.dissect_only(frame, &mut |p| {
                    let Some(protocol) = classify(rules, p) else {
                        return;
                    };
                    if let Some(lane) = lanes.iter_mut().find(|l| l.protocols.contains(&protocol)) {
                        lane.push(frame, p);
                    }
                });
                let lower_errors = !summary.errors.is_empty();
                for lane in &mut lanes {
                    lane.end_frame(lower_errors, Some(first));
                }
                front.end_frame(frame, &summary);
            })
            .err();
        let mut stats = pipeline.stats();
        for lane in &mut lanes {
            lane.send(first);
            if let Some(tx) = lane.tx.take() {
                // Gone: its thread's panic is told below.
                let _ = tx.send(Handed::End(first, stats.last));
            }
        }
        for t in threads {
            match t.join() {
                Ok(part) => stats.absorb_part(&part),
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
        (stats, fatal)
    })
}

/// A part's thread: decodes the payloads of each batch into `sink` and gives the batch back;
/// at the end of the run ends the sink's ([`Sink::run_ended`]) and returns what it counted.
fn decode<S: Sink>(
    rx: Receiver<Handed>,
    back: Sender<Batch>,
    opts: &Options,
    sink: &mut S,
) -> RunStats {
    let mut decoder = Decoder::new(opts);
    let mut started = false;
    for handed in rx {
        if !started {
            started = true;
            // As on one pipeline the part sees the run's first frame end: before its first
            // payload unless that payload is the first frame's (then after it), or at the end
            // of a run that gave it none.
            let (first, own_first) = match &handed {
                Handed::Payloads(b) => (b.first, b.items.first().map(|i| i.frame.number)),
                Handed::End(first, _) => (*first, None),
            };
            if let Some(first) = first.filter(|f| own_first != Some(f.number)) {
                sink.end_frame(&first.with_data(&[]), &FrameSummary::default());
            }
        }
        let mut batch = match handed {
            Handed::Payloads(b) => b,
            Handed::End(_, last) => {
                sink.run_ended(last);
                break;
            }
        };
        let bytes = &batch.bytes;
        for item in batch.items.drain(..) {
            let frame = item.frame.with_data(&[]);
            let mut payload: Payload<'_> = item.payload;
            payload.data = bytes.get(item.data).unwrap_or(&[]);
            decoder.payload(&frame, &payload, sink);
            if item.frame_end {
                decoder.end_frame(&frame, item.lower_errors, sink);
            }
        }
        batch.bytes.clear();
        batch.first = None;
        // The dissecting thread may have finished: the batch is then not needed.
        let _ = back.send(batch);
    }
    decoder.stats()
}
