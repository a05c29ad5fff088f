//! The one pass every command makes: frames from a source, dissected, dispatched to the
//! application parsers, each decoded message handed to a sink (the text or JSON writer, the
//! replay analysers, the statistics, the TUI). The same pipeline serves files and live interfaces.

use std::collections::BTreeMap;

use crate::base::Timestamp;
use crate::dissect::dispatch::{DispatchCounters, DispatchOptions, Dispatcher};
use crate::dissect::{Counters, Dissector, FrameSummary, Limits, Payload};
use crate::error::DecodeError;
use crate::proto::{AppProtocol, Message};
use crate::source::{Frame, FrameSource, SourceError};

/// Settings of one run.
#[derive(Clone, Debug, Default)]
pub struct Options {
    pub limits: Limits,
    pub dispatch: DispatchOptions,
    /// Frame summaries without tshark's Info text of TCP, UDP and SCTP (for commands that never
    /// show it).
    pub without_info: bool,
}

/// One decoded message with where it came from.
pub struct Decoded<'a> {
    pub frame: &'a Frame<'a>,
    pub payload: &'a Payload<'a>,
    pub protocol: AppProtocol,
    pub message: &'a Message<'a>,
    /// Offsets in the frame when `frame_offset` is known, else in the message.
    pub errors: &'a [DecodeError],
    /// Where the message starts in the frame; `None` when it was reassembled from several.
    pub frame_offset: Option<usize>,
    /// Length of the message in bytes.
    pub len: usize,
}

/// Receives what the pipeline decodes.
pub trait Sink {
    /// A decoded message, in frame order.
    fn message(&mut self, d: &Decoded<'_>);
    /// After the last message of a frame: what the lower layers said of it.
    fn end_frame(&mut self, _frame: &Frame<'_>, _summary: &FrameSummary) {}
    /// The run has ended (called by runs that decode on other threads, on the sink's thread);
    /// `last`: the time of the run's last frame.
    fn run_ended(&mut self, _last: Option<Timestamp>) {}
    /// A problem reading the capture (the run goes on unless it is fatal).
    fn source_error(&mut self, _e: &SourceError) {}
    /// True when the sink wants no more (its output was closed): the run stops early.
    fn stopped(&self) -> bool {
        false
    }
    /// Whether the sink wants the messages of datagrams quoted in ICMP errors
    /// ([`Payload::quoted`]): `read` shows them as tshark does; analysers never see them.
    fn wants_quoted(&self) -> bool {
        false
    }
}

/// A sink that ignores everything (for measuring the pipeline itself).
pub struct NullSink;

impl Sink for NullSink {
    fn message(&mut self, _d: &Decoded<'_>) {}
}

/// Counts of one run, for the summary on stderr.
#[derive(Clone, Debug, Default)]
pub struct RunStats {
    pub frames: u64,
    pub first: Option<Timestamp>,
    pub last: Option<Timestamp>,
    pub messages: BTreeMap<AppProtocol, u64>,
    /// Messages with at least one decode error, per protocol.
    pub messages_with_errors: BTreeMap<AppProtocol, u64>,
    /// Frames whose lower layers had a decode error (their own, or a framing error of the
    /// stream they carry).
    pub frames_with_errors: u64,
    /// Of `frames_with_errors`, those whose only errors were framing errors of a stream (a
    /// protocol's part, when parts of a run decode different protocols: see
    /// [`RunStats::absorb_part`]).
    pub frames_with_stream_errors_only: u64,
    pub source_errors: u64,
    pub dissect: Counters,
    pub dispatch: DispatchCounters,
}

impl RunStats {
    /// Adds what another pipeline over the same frames decoded that this one did not: its
    /// protocols' messages, and the framing errors of its streams. The two must have decoded
    /// disjoint sets of protocols; the frames, their lower layers and the reading are this
    /// one's (both saw the same).
    pub fn absorb_part(&mut self, other: &RunStats) {
        for (p, n) in &other.messages {
            *self.messages.entry(*p).or_default() += n;
        }
        for (p, n) in &other.messages_with_errors {
            *self.messages_with_errors.entry(*p).or_default() += n;
        }
        self.frames_with_errors += other.frames_with_stream_errors_only;
        self.frames_with_stream_errors_only += other.frames_with_stream_errors_only;
        self.dispatch.conversations_evicted += other.dispatch.conversations_evicted;
        self.dispatch.stream_bytes_dropped += other.dispatch.stream_bytes_dropped;
        self.dispatch.rserpool_encoding_switches += other.dispatch.rserpool_encoding_switches;
    }

    pub fn total_messages(&self) -> u64 {
        self.messages.values().sum()
    }

    pub fn total_errors(&self) -> u64 {
        self.messages_with_errors.values().sum::<u64>()
            + self.frames_with_errors
            + self.source_errors
    }

    /// One line for stderr: what was read and how much of it was malformed.
    pub fn summary_line(&self) -> String {
        let per: Vec<String> = self
            .messages
            .iter()
            .map(|(p, n)| format!("{p} {n}"))
            .collect();
        let mut s = format!(
            "{} frames, {} messages ({})",
            self.frames,
            self.total_messages(),
            if per.is_empty() {
                "none".to_string()
            } else {
                per.join(", ")
            }
        );
        let errs: Vec<String> = self
            .messages_with_errors
            .iter()
            .map(|(p, n)| format!("{p} {n}"))
            .collect();
        s.push_str(&format!(
            "; decode errors: {} messages ({}), {} frames below the application, {} reading the capture",
            self.messages_with_errors.values().sum::<u64>(),
            if errs.is_empty() { "none".to_string() } else { errs.join(", ") },
            self.frames_with_errors,
            self.source_errors
        ));
        let evicted = self.dissect.ip_datagrams_evicted
            + self.dissect.sctp_messages_evicted
            + self.dissect.tcp_connections_evicted
            + self.dissect.sctp_associations_evicted
            + self.dispatch.conversations_evicted;
        if evicted > 0
            || self.dissect.tcp_bytes_skipped > 0
            || self.dispatch.stream_bytes_dropped > 0
        {
            s.push_str(&format!(
                "; bounded state: {} incomplete IP datagrams, {} SCTP messages, {} associations, {} TCP connections, {} other conversations evicted, {} TCP bytes skipped, {} framed-stream bytes dropped",
                self.dissect.ip_datagrams_evicted,
                self.dissect.sctp_messages_evicted,
                self.dissect.sctp_associations_evicted,
                self.dissect.tcp_connections_evicted,
                self.dispatch.conversations_evicted,
                self.dissect.tcp_bytes_skipped,
                self.dispatch.stream_bytes_dropped
            ));
        }
        if self.dissect.tcp_bytes_held > 0 {
            s.push_str(&format!(
                "; {} TCP bytes still waiting for bytes missing before them at the end, not decoded",
                self.dissect.tcp_bytes_held
            ));
        }
        s
    }
}

pub struct Pipeline {
    dissector: Dissector,
    dispatcher: Dispatcher,
    stats: RunStats,
}

/// The dispatcher's settings of a run: its bounds from the run's limits unless set.
fn dispatch_options(opts: &Options) -> DispatchOptions {
    let mut dispatch = opts.dispatch.clone();
    if dispatch.conversations == 0 {
        dispatch.conversations = opts.limits.conversations;
    }
    if dispatch.framer_bytes == 0 {
        dispatch.framer_bytes = opts.limits.framer_bytes;
    }
    dispatch
}

/// A run's statistics at the start of a frame.
fn frame_started(stats: &mut RunStats, frame: &Frame<'_>) {
    stats.frames += 1;
    if stats.first.is_none() {
        stats.first = Some(frame.ts);
    }
    stats.last = Some(frame.ts);
}

/// Decodes the messages of one payload and hands each to `sink`, counting them in `stats`;
/// the errors of the stream rather than of a message (framing) go to `stream_errors`, offsets
/// in the frame.
pub(crate) fn decode_payload(
    dispatcher: &mut Dispatcher,
    stats: &mut RunStats,
    frame: &Frame<'_>,
    payload: &Payload<'_>,
    sink: &mut dyn Sink,
    stream_errors: &mut Vec<DecodeError>,
) {
    let r = dispatcher.dispatch(payload, &mut |found| {
        let frame_offset = payload
            .frame_offset
            .zip(found.payload_offset)
            .map(|(a, b)| a + b);
        let mut errors = payload.errors.clone();
        errors.extend(
            found
                .errors
                .into_iter()
                .map(|e| e.shifted(frame_offset.unwrap_or(0))),
        );
        *stats.messages.entry(found.protocol).or_default() += 1;
        if !errors.is_empty() {
            *stats
                .messages_with_errors
                .entry(found.protocol)
                .or_default() += 1;
        }
        sink.message(&Decoded {
            frame,
            payload,
            protocol: found.protocol,
            message: &found.message,
            errors: &errors,
            frame_offset,
            len: found.len,
        });
    });
    if let Some((_, errs)) = r {
        let base = payload.frame_offset.unwrap_or(0);
        stream_errors.extend(errs.into_iter().map(|e| e.shifted(base)));
    }
}

/// Counts a frame whose stream had framing errors (`stream_errors`) among the frames with
/// errors, and apart when its lower layers had none (`lower_errors` false).
fn count_stream_errors(stats: &mut RunStats, lower_errors: bool, stream_errors: bool) {
    if stream_errors && !lower_errors {
        stats.frames_with_stream_errors_only += 1;
    }
    if lower_errors || stream_errors {
        stats.frames_with_errors += 1;
    }
}

impl Pipeline {
    pub fn new(opts: Options) -> Self {
        let dispatch = dispatch_options(&opts);
        let mut dissector = Dissector::new(opts.limits)
            .with_tunnels(crate::dissect::dispatch::tunnel_ports(&dispatch.decode_as));
        if opts.without_info {
            dissector = dissector.without_info();
        }
        if !dispatch.wants_sctp() {
            dissector = dissector.without_sctp();
        }
        Pipeline {
            dissector,
            dispatcher: Dispatcher::new(dispatch),
            stats: RunStats::default(),
        }
    }

    pub fn stats(&self) -> RunStats {
        let mut s = self.stats.clone();
        s.dissect = self.dissector.counters();
        s.dispatch = self.dispatcher.counters();
        s
    }

    /// Decodes one frame, handing its messages to `sink`.
    pub fn feed(&mut self, frame: &Frame<'_>, sink: &mut dyn Sink) {
        let Pipeline {
            dissector,
            dispatcher,
            stats,
        } = self;
        frame_started(stats, frame);
        let mut stream_errors: Vec<DecodeError> = Vec::new();
        let quoted = sink.wants_quoted();
        let mut summary = dissector.dissect(frame, &mut |payload: &Payload<'_>| {
            // A retransmitted DATA chunk repeats a message already decoded: like Wireshark, do
            // not decode it again (the dissector counts it).
            if !payload.duplicate && (quoted || !payload.quoted) {
                decode_payload(dispatcher, stats, frame, payload, sink, &mut stream_errors);
            }
        });
        count_stream_errors(stats, !summary.errors.is_empty(), !stream_errors.is_empty());
        summary.errors.extend(stream_errors);
        sink.end_frame(frame, &summary);
    }

    /// Dissects one frame without decoding its payloads: each payload that is not a
    /// retransmission goes to `payloads`, to be decoded elsewhere ([`Decoder`]). The frame
    /// counts in this pipeline's statistics with the errors of its lower layers. Returns what
    /// the lower layers said of the frame.
    pub fn dissect_only(
        &mut self,
        frame: &Frame<'_>,
        payloads: &mut dyn FnMut(&Payload<'_>),
    ) -> FrameSummary {
        frame_started(&mut self.stats, frame);
        let summary = self.dissector.dissect(frame, &mut |payload: &Payload<'_>| {
            if !payload.duplicate && !payload.quoted {
                payloads(payload);
            }
        });
        count_stream_errors(&mut self.stats, !summary.errors.is_empty(), false);
        summary
    }

    /// Runs the whole source through the pipeline. Non-fatal source errors go to the sink and
    /// the run goes on; a fatal one ends it and is returned.
    pub fn run(
        &mut self,
        source: &mut dyn FrameSource,
        sink: &mut dyn Sink,
    ) -> Result<(), SourceError> {
        self.each_frame(source, sink, |pipeline, frame, sink| {
            pipeline.feed(frame, sink)
        })
    }

    /// Hands every frame of `source` to `f` until the source ends, `sink` stops, or a fatal
    /// source error (returned, for the caller to tell); reading problems are counted and the
    /// others told to `sink`.
    pub fn each_frame(
        &mut self,
        source: &mut dyn FrameSource,
        sink: &mut dyn Sink,
        mut f: impl FnMut(&mut Self, &Frame<'_>, &mut dyn Sink),
    ) -> Result<(), SourceError> {
        while !sink.stopped() {
            match source.next_frame() {
                Ok(Some(frame)) => f(self, &frame, sink),
                Ok(None) => return Ok(()),
                Err(e) => {
                    self.stats.source_errors += 1;
                    if e.fatal {
                        return Err(e);
                    }
                    sink.source_error(&e);
                }
            }
        }
        Ok(())
    }
}

/// The application half of a pipeline, for payloads dissected elsewhere
/// ([`Pipeline::dissect_only`]): decodes them into messages for a sink and counts them. Its
/// statistics hold only what it decoded (messages, framing errors of streams, the dispatcher's
/// counters), to be added to the dissecting pipeline's with [`RunStats::absorb_part`].
pub struct Decoder {
    dispatcher: Dispatcher,
    stats: RunStats,
    stream_errors: Vec<DecodeError>,
}

impl Decoder {
    pub fn new(opts: &Options) -> Self {
        Decoder {
            dispatcher: Dispatcher::new(dispatch_options(opts)),
            stats: RunStats::default(),
            stream_errors: Vec::new(),
        }
    }

    /// Decodes one payload of `frame`. Payloads come in frame order, each frame's last one
    /// followed by [`Decoder::end_frame`].
    pub fn payload(&mut self, frame: &Frame<'_>, payload: &Payload<'_>, sink: &mut dyn Sink) {
        decode_payload(
            &mut self.dispatcher,
            &mut self.stats,
            frame,
            payload,
            sink,
            &mut self.stream_errors,
        );
    }

    /// After the last payload of a frame; `lower_errors`: its lower layers had errors (the
    /// dissecting pipeline counted the frame among those with errors).
    pub fn end_frame(&mut self, frame: &Frame<'_>, lower_errors: bool, sink: &mut dyn Sink) {
        // The same rule as one pipeline's; of these counts `RunStats::absorb_part` takes only
        // what the dissecting pipeline could not count (the frames with stream errors only).
        count_stream_errors(
            &mut self.stats,
            lower_errors,
            !self.stream_errors.is_empty(),
        );
        let summary = FrameSummary {
            errors: std::mem::take(&mut self.stream_errors),
            ..FrameSummary::default()
        };
        sink.end_frame(frame, &summary);
    }

    pub fn stats(&self) -> RunStats {
        let mut s = self.stats.clone();
        s.dispatch = self.dispatcher.counters();
        s
    }
}
