//! Runs the pipeline and the analysers in the background and sends the UI what it needs.
//!
//! Two threads: a reader pulls frames from the source (a file, or a live capture that blocks until
//! packets come) and hands owned copies over a bounded channel; the analysis thread decodes them,
//! feeds the analysers and sends [`Update`]s. Because the analysis thread waits on the channel with
//! a timeout, it can send the latest results when input pauses, so a live capture shows what
//! arrived within a tick even if nothing follows it.
//!
//! Progress goes out every [`PROGRESS_EVERY`]; copies of the results at most every
//! [`DATA_EVERY`], and never more often than ten times the time the last copy took, so copying
//! costs the decoding at most about a tenth of its time whatever the size of the results.

use std::io::Read;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Condvar, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use super::detail::RecentFrames;
use super::snapshot::{Data, LoadState, Progress, Update};
use crate::analyse::{Analyser, Report};
use crate::dissect::FrameSummary;
use crate::pipeline::{Decoded, Options, Pipeline, Sink};
use crate::source::{Frame, FrameMeta, FrameSource, SourceError};

/// How often progress is sent.
pub const PROGRESS_EVERY: Duration = Duration::from_millis(50);
/// The shortest time between two copies of the results.
pub const DATA_EVERY: Duration = Duration::from_millis(100);
/// How long the analysis thread waits for a frame before it sends what changed.
const TICK: Duration = Duration::from_millis(100);
/// Frames read ahead of the analysis.
const READ_AHEAD: usize = 4096;
/// Bytes of frames read ahead of the analysis: with records of up to 64 MiB a count alone would
/// not bound the memory.
const READ_AHEAD_BYTES: usize = 32 << 20;

/// What the reader has handed over and the analysis not yet taken.
#[derive(Default)]
struct Queued {
    frames: usize,
    bytes: usize,
    reader_waits: bool,
}

impl Queued {
    fn full(&self, len: usize) -> bool {
        self.frames > 0
            && (self.frames >= READ_AHEAD || self.bytes.saturating_add(len) > READ_AHEAD_BYTES)
    }

    /// Room again: half the budget. The reader is woken only then, not for every frame taken,
    /// so that a reader faster than the analysis does not cost two thread switches per frame.
    fn half_empty(&self) -> bool {
        self.frames <= READ_AHEAD / 2 && self.bytes <= READ_AHEAD_BYTES / 2
    }
}

/// Bounds the frames between the reader and the analysis, by count and by bytes.
#[derive(Default)]
struct InFlight {
    queued: Mutex<Queued>,
    room: Condvar,
}

impl InFlight {
    /// Waits until a frame of `len` bytes fits (one always does when nothing is queued); false
    /// when asked to stop.
    fn reserve(&self, len: usize, stop: &AtomicBool) -> bool {
        let Ok(mut q) = self.queued.lock() else {
            return false;
        };
        while q.full(len) {
            if stop.load(Ordering::Relaxed) {
                return false;
            }
            q.reader_waits = true;
            q = match self.room.wait_timeout(q, TICK) {
                Ok((q, _)) => q,
                Err(_) => return false,
            };
        }
        q.reader_waits = false;
        q.frames += 1;
        q.bytes = q.bytes.saturating_add(len);
        true
    }

    /// The analysis took a frame of `len` bytes. Returns whether the reader was woken.
    fn release(&self, len: usize) -> bool {
        let wake = match self.queued.lock() {
            Ok(mut q) => {
                q.frames = q.frames.saturating_sub(1);
                q.bytes = q.bytes.saturating_sub(len);
                q.reader_waits && q.half_empty()
            }
            Err(_) => true,
        };
        if wake {
            self.room.notify_one();
        }
        wake
    }
}

/// Bytes read from a file so far, shared with the thread that reads it.
#[derive(Clone, Debug, Default)]
pub struct ByteCount(Arc<AtomicU64>);

impl ByteCount {
    pub fn get(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }
}

/// A reader that counts the bytes it hands out.
pub struct Counted<R> {
    inner: R,
    count: ByteCount,
}

impl<R: Read> Counted<R> {
    pub fn new(inner: R) -> (Self, ByteCount) {
        let count = ByteCount::default();
        (
            Counted {
                inner,
                count: count.clone(),
            },
            count,
        )
    }
}

impl<R: Read> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count.0.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

/// How the loader runs.
#[derive(Clone, Debug, Default)]
pub struct LoaderConfig {
    pub options: Options,
    /// The timeline's base interval.
    pub interval_ns: u64,
    /// Findings kept (`--max-findings`).
    pub max_findings: usize,
    /// A live capture: shown as live while it runs.
    pub live: bool,
    /// Keep the decoded trees of this many recent frames for the detail view (0: none; for
    /// inputs that cannot be read again).
    pub keep_recent: usize,
    /// The file's bytes read so far and its size, for the progress.
    pub bytes: Option<ByteCount>,
    pub total_bytes: Option<u64>,
}

/// A frame copied out of the source's buffer.
struct OwnedFrame {
    meta: FrameMeta,
    data: Vec<u8>,
}

impl OwnedFrame {
    fn copy(f: &Frame<'_>) -> Self {
        OwnedFrame {
            meta: f.meta(),
            data: f.data.to_vec(),
        }
    }

    fn frame(&self) -> Frame<'_> {
        self.meta.with_data(&self.data)
    }
}

enum Item {
    Frame(OwnedFrame),
    Error(SourceError),
}

/// The running loader, as the UI holds it.
pub struct Loader {
    updates: Receiver<Update>,
    stop: Arc<AtomicBool>,
    stoppers: Vec<Box<dyn Fn() + Send>>,
    recent: Option<Arc<Mutex<RecentFrames>>>,
}

impl Loader {
    /// Starts reading `source`. `make_analysers` runs on the analysis thread (analysers need not
    /// be `Send`).
    pub fn spawn<F>(
        source: Box<dyn FrameSource + Send>,
        cfg: LoaderConfig,
        make_analysers: F,
    ) -> Self
    where
        F: FnOnce() -> Vec<Box<dyn Analyser>> + Send + 'static,
    {
        let (tx, updates) = mpsc::channel();
        // Unbounded as a channel: `InFlight` bounds it.
        let (frames_tx, frames_rx) = mpsc::channel();
        let stop = Arc::new(AtomicBool::new(false));
        let recent =
            (cfg.keep_recent > 0).then(|| Arc::new(Mutex::new(RecentFrames::new(cfg.keep_recent))));
        let in_flight = Arc::new(InFlight::default());
        {
            let stop = stop.clone();
            let in_flight = in_flight.clone();
            thread::Builder::new()
                .name("poolshark-reader".into())
                .spawn(move || read_frames(source, frames_tx, &in_flight, &stop))
                .ok();
        }
        {
            let stop = stop.clone();
            let recent = recent.clone();
            thread::Builder::new()
                .name("poolshark-analysis".into())
                .spawn(move || {
                    analyse(
                        frames_rx,
                        tx,
                        cfg,
                        make_analysers(),
                        recent,
                        &in_flight,
                        &stop,
                    )
                })
                .ok();
        }
        Loader {
            updates,
            stop,
            stoppers: Vec::new(),
            recent,
        }
    }

    pub fn updates(&self) -> &Receiver<Update> {
        &self.updates
    }

    /// Something more to do on [`Loader::stop`], e.g. stop a live capture that waits for packets.
    pub fn on_stop(&mut self, f: impl Fn() + Send + 'static) {
        self.stoppers.push(Box::new(f));
    }

    /// Asks both threads to end (they do at the next frame, or when the source returns).
    pub fn stop(&self) {
        self.stop.store(true, Ordering::SeqCst);
        for f in &self.stoppers {
            f();
        }
    }

    /// The recent frames kept for the detail view, when configured.
    pub fn recent(&self) -> Option<Arc<Mutex<RecentFrames>>> {
        self.recent.clone()
    }
}

fn read_frames(
    mut source: Box<dyn FrameSource + Send>,
    tx: Sender<Item>,
    in_flight: &InFlight,
    stop: &AtomicBool,
) {
    while !stop.load(Ordering::Relaxed) {
        let item = match source.next_frame() {
            Ok(Some(f)) => {
                if !in_flight.reserve(f.data.len(), stop) {
                    return;
                }
                Item::Frame(OwnedFrame::copy(&f))
            }
            Ok(None) => return,
            Err(e) => {
                let fatal = e.fatal;
                if tx.send(Item::Error(e)).is_err() || fatal {
                    return;
                }
                continue;
            }
        };
        if tx.send(item).is_err() {
            return;
        }
    }
}

/// Feeds the analysers and keeps what the UI is sent.
struct LoaderSink {
    analysers: Vec<Box<dyn Analyser>>,
    report: Report,
    recent: Option<Arc<Mutex<RecentFrames>>>,
    source_errors: u64,
    last_source_error: Option<String>,
}

impl Sink for LoaderSink {
    fn message(&mut self, d: &Decoded<'_>) {
        for a in &mut self.analysers {
            a.message(d, &mut self.report);
        }
        if let Some(r) = &self.recent {
            if let Ok(mut r) = r.lock() {
                r.message(d);
            }
        }
    }

    fn end_frame(&mut self, frame: &Frame<'_>, summary: &FrameSummary) {
        self.report.timeline.start(frame.ts);
        if let Some(r) = &self.recent {
            if let Ok(mut r) = r.lock() {
                r.end_frame(frame, summary);
            }
        }
    }

    fn source_error(&mut self, e: &SourceError) {
        self.source_errors += 1;
        self.last_source_error = Some(e.to_string());
    }
}

/// Sends updates no more often than their schedule allows.
struct Outbox {
    tx: Sender<Update>,
    cfg_live: bool,
    bytes: Option<ByteCount>,
    total_bytes: Option<u64>,
    next_progress: Instant,
    next_data: Instant,
    findings_sent: usize,
    /// The findings' revision when they were sent.
    findings_revision: u64,
    /// Frames when the last copy of the results was made.
    data_frames: u64,
}

impl Outbox {
    fn progress(&self, pipeline: &Pipeline, sink: &LoaderSink, state: LoadState) -> Progress {
        let stats = pipeline.stats();
        Progress {
            state,
            frames: stats.frames,
            messages: stats.total_messages(),
            bytes_read: self.bytes.as_ref().map(ByteCount::get),
            total_bytes: self.total_bytes,
            decode_errors: stats.total_errors() + sink.source_errors,
            source_errors: sink.source_errors,
            last_source_error: sink.last_source_error.clone(),
        }
    }

    fn running_state(&self) -> LoadState {
        if self.cfg_live {
            LoadState::Live
        } else {
            LoadState::Loading
        }
    }

    /// Sends what is due; with `force`, a copy of the results if any frame came since the last.
    /// Returns false when the UI is gone.
    /// `frames`: frames fed so far (counted by the caller: the pipeline's statistics are a copy,
    /// too dear to take for every frame).
    fn maybe_send(
        &mut self,
        pipeline: &Pipeline,
        sink: &LoaderSink,
        frames: u64,
        force: bool,
    ) -> bool {
        let now = Instant::now();
        let data_due = (force || now >= self.next_data) && frames != self.data_frames;
        if !data_due && now < self.next_progress {
            return true;
        }
        let progress = self.progress(pipeline, sink, self.running_state());
        let data = data_due.then(|| {
            let started = Instant::now();
            let d = Data::from_report(&sink.report, self.findings_sent, self.findings_revision);
            self.findings_sent = sink.report.findings.list().len();
            self.findings_revision = sink.report.findings.revision();
            self.data_frames = frames;
            let cost = started.elapsed();
            self.next_data = Instant::now() + DATA_EVERY.max(cost.saturating_mul(10));
            d
        });
        self.next_progress = Instant::now() + PROGRESS_EVERY;
        self.tx.send(Update { progress, data }).is_ok()
    }
}

fn analyse(
    frames: Receiver<Item>,
    tx: Sender<Update>,
    cfg: LoaderConfig,
    analysers: Vec<Box<dyn Analyser>>,
    recent: Option<Arc<Mutex<RecentFrames>>>,
    in_flight: &InFlight,
    stop: &AtomicBool,
) {
    let mut sink = LoaderSink {
        analysers,
        report: Report::new(cfg.max_findings, cfg.interval_ns),
        recent,
        source_errors: 0,
        last_source_error: None,
    };
    let mut out = Outbox {
        tx,
        cfg_live: cfg.live,
        bytes: cfg.bytes.clone(),
        total_bytes: cfg.total_bytes,
        next_progress: Instant::now(),
        next_data: Instant::now(),
        findings_sent: 0,
        findings_revision: 0,
        data_frames: 0,
    };
    let mut pipeline = Pipeline::new(cfg.options.clone());
    let mut failed = None;
    let mut fed = 0u64;
    while !stop.load(Ordering::Relaxed) {
        let alive = match frames.recv_timeout(TICK) {
            Ok(Item::Frame(f)) => {
                let _ = in_flight.release(f.data.len());
                pipeline.feed(&f.frame(), &mut sink);
                fed += 1;
                out.maybe_send(&pipeline, &sink, fed, false)
            }
            Ok(Item::Error(e)) => {
                sink.source_error(&e);
                if e.fatal {
                    failed = Some(e.to_string());
                    break;
                }
                true
            }
            Err(RecvTimeoutError::Timeout) => out.maybe_send(&pipeline, &sink, fed, true),
            Err(RecvTimeoutError::Disconnected) => break,
        };
        if !alive {
            return;
        }
    }
    let stats = pipeline.stats();
    for a in &mut sink.analysers {
        a.finish(stats.last, &mut sink.report);
    }
    let state = match failed {
        Some(e) => LoadState::Failed(e),
        None => LoadState::Done,
    };
    let progress = out.progress(&pipeline, &sink, state);
    let data = Data::from_report(&sink.report, out.findings_sent, out.findings_revision);
    let _ = out.tx.send(Update {
        progress,
        data: Some(data),
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_in_flight_are_bounded_by_their_bytes_and_count() {
        let f = Arc::new(InFlight::default());
        let stop = AtomicBool::new(false);
        assert!(f.reserve(READ_AHEAD_BYTES - 10, &stop));
        // A frame that does not fit waits until the analysis has taken enough.
        let f2 = f.clone();
        let waiting = thread::spawn(move || f2.reserve(20, &AtomicBool::new(false)));
        thread::sleep(Duration::from_millis(100));
        assert!(!waiting.is_finished());
        f.release(READ_AHEAD_BYTES - 10);
        assert!(waiting.join().unwrap_or(false));
        f.release(20);
        // One frame over the whole budget still passes alone.
        assert!(f.reserve(READ_AHEAD_BYTES * 2, &stop));
        f.release(READ_AHEAD_BYTES * 2);
        // By count: a waiting reader is woken only once half the frames are taken.
        for _ in 0..READ_AHEAD {
            assert!(f.reserve(1, &stop));
        }
        if let Ok(mut q) = f.queued.lock() {
            assert!(q.full(1));
            q.reader_waits = true;
        }
        for _ in 0..READ_AHEAD / 2 - 1 {
            assert!(!f.release(1));
        }
        assert!(f.release(1));
        // A stop ends a wait.
        for _ in 0..READ_AHEAD / 2 {
            assert!(f.reserve(1, &stop));
        }
        assert!(!f.reserve(1, &AtomicBool::new(true)));
    }
}
