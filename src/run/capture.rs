//! `poolshark capture -i IFACE [-f FILTER] [-Y FILTER] [-w FILE.pcapng] [--format text|json|jsonl]
//! [--check] [--duration SECONDS] [--count N]`: the `read` pipeline on a live interface.
//!
//! Decoded messages print as `read` prints them, one frame at a time as it arrives (those a
//! display filter `-Y` keeps; the capture filter `-f` decides what is captured at all); `-w` keeps
//! every captured frame in a pcapng file (interface name, snap length, nanosecond timestamps)
//! that `read` and tshark read back; `--check` feeds the analysers and prints their report at
//! the end as `check` does. Ctrl-C (or SIGTERM), `--duration` and `--count` end the capture the
//! same way: outputs flushed, the summary on stderr.

use std::fs::File;
use std::io::{self, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::analysis::{analysers, AnalysisArgs};
use super::anyhow_like::{Error, Result};
use super::check::{self, CheckFormat, CheckSink};
use super::exit;
use super::read::ReadSink;
use crate::analyse::finding::Severity;
use crate::dissect::FrameSummary;
use crate::filter::display::Filter;
use crate::output::capture_file::CaptureFile;
use crate::output::fields::Columns;
use crate::output::metrics::{self, http, Pace, Published};
use crate::output::pcap::IfOptions;
use crate::output::time::TimeColumn;
use crate::output::Format;
use crate::pipeline::{Decoded, Pipeline, Sink};
use crate::source::live::{interrupt, InterfaceInfo, LiveOptions, LiveSource, LiveStats, Polled};
use crate::source::{Frame, SourceError};

/// What a `capture` run reads and writes.
pub struct Options {
    /// The interfaces, the capture filter and the capture's bounds.
    pub live: LiveOptions,
    /// How frames are dissected and decoded.
    pub pipeline: crate::pipeline::Options,
    /// The display filter.
    pub display: Option<Filter>,
    /// The columns of `-T fields`.
    pub columns: Option<Columns>,
    pub format: Format,
    pub time: TimeColumn,
    /// The whole field tree of every message.
    pub verbose: bool,
    /// `-w FILE.pcapng` (`-`: standard output).
    pub write: Option<PathBuf>,
    /// `--check`: the findings at the end.
    pub check: bool,
    /// With `check`: exit 1 when a finding is at or above this severity.
    pub fail_on: Severity,
    /// With `check`: the text report lists every finding.
    pub all_findings: bool,
    /// `--metrics ADDR:PORT`.
    pub metrics: Option<String>,
    /// `--metrics-file FILE`.
    pub metrics_file: Option<PathBuf>,
    /// `-Z USER`: who the capture runs as once it is open.
    pub user: String,
    pub analysis: AnalysisArgs,
}

/// Whether `-w` names standard output.
fn to_stdout(path: &Path) -> bool {
    path == Path::new("-")
}

/// The pcapng file `-w` names (`-`: standard output), with its name for messages.
struct Recorder {
    name: String,
    stdout: bool,
    file: CaptureFile,
}

impl Recorder {
    fn create(path: &Path, interfaces: &[InterfaceInfo]) -> Result<Recorder> {
        let name = if to_stdout(path) {
            "standard output".to_string()
        } else {
            path.display().to_string()
        };
        let fail = |e: io::Error| Error::msg(format!("cannot write {name}: {e}"));
        let out: Box<dyn Write + Send> = if to_stdout(path) {
            Box::new(io::stdout())
        } else {
            let f = File::create(path).map_err(fail)?;
            give_to_invoking_user(&f).map_err(fail)?;
            Box::new(f)
        };
        // Every frame captured is written, at once: no window.
        let mut file = CaptureFile::new(out, false).map_err(fail)?;
        for (i, info) in interfaces.iter().enumerate() {
            let mut ifo = IfOptions::new(info.linktype).tsresol(9).name(&info.name);
            ifo.snaplen = info.snaplen;
            // The live source's frames: section 1, interface i.
            let i = u32::try_from(i).map_err(|_| Error::msg("too many interfaces"))?;
            file.describe(1, i, &ifo).map_err(fail)?;
        }
        // The header is on disk at once: a reader started now sees a valid (empty) capture.
        file.flush();
        if let Some(e) = file.error() {
            return Err(Error::msg(format!("cannot write {name}: {e}")));
        }
        Ok(Recorder {
            name,
            stdout: to_stdout(path),
            file,
        })
    }
}

/// The user who asked for the capture: `sudo`'s caller (SUDO_UID, SUDO_GID) when set, else this
/// process's real user.
#[cfg(target_os = "linux")]
fn invoking_user() -> (u32, u32) {
    let id = |v: &str| std::env::var(v).ok().and_then(|s| s.parse::<u32>().ok());
    match (id("SUDO_UID"), id("SUDO_GID")) {
        (Some(u), Some(g)) => (u, g),
        // SAFETY: getuid and getgid have no arguments and cannot fail.
        _ => unsafe { (libc::getuid(), libc::getgid()) },
    }
}

/// Makes a file this run created (`-w`, `--metrics-file`) the invoking user's, as tcpdump's
/// `-w` under sudo does: it is created before privileges are given up, as root.
#[cfg(target_os = "linux")]
fn give_to_invoking_user(f: &File) -> io::Result<()> {
    use std::os::fd::AsRawFd;
    let (uid, gid) = invoking_user();
    // SAFETY: geteuid has no arguments and cannot fail.
    if unsafe { libc::geteuid() } != 0 {
        return Ok(());
    }
    // SAFETY: a descriptor of a file this process holds open; plain ids.
    if unsafe { libc::fchown(f.as_raw_fd(), uid, gid) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

#[cfg(not(target_os = "linux"))]
fn give_to_invoking_user(_f: &File) -> io::Result<()> {
    Ok(())
}

/// `-w -` takes standard output for the capture file: refused where the file would be mixed
/// with another output or written to a terminal (checked before the capture opens).
fn check_stdout_write(args: &Options) -> Result<()> {
    if !args.write.as_deref().is_some_and(to_stdout) {
        return Ok(());
    }
    if args.check {
        return Err(Error::msg(
            "--check with -w -: the report and the capture file would both go to standard \
             output; write the capture to a file",
        ));
    }
    if io::stdout().is_terminal() {
        return Err(Error::msg(
            "-w -: standard output is a terminal; name a file, or send the output to a file or \
             a pipe",
        ));
    }
    Ok(())
}

/// Longest time decoded output and captured frames wait in buffers while packets keep coming
/// (when none are waiting, they are written at once).
const FLUSH_INTERVAL: Duration = Duration::from_millis(200);

/// What a capture feeds: the `read` output, the analysers, the pcapng file.
struct CaptureSink {
    read: ReadSink<io::StdoutLock<'static>>,
    check: Option<CheckSink>,
    recorder: Option<Recorder>,
    last_flush: Instant,
}

impl CaptureSink {
    /// Writes out what the outputs hold: called when no packet is waiting, so output keeps up
    /// with a quiet link without a write per frame under load.
    fn flush(&mut self) {
        self.read.flush_now();
        if let Some(r) = &mut self.recorder {
            r.file.flush();
        }
        self.last_flush = Instant::now();
    }
}

impl Sink for CaptureSink {
    fn message(&mut self, d: &Decoded<'_>) {
        self.read.message(d);
        // A message quoted in an ICMP error is shown, never replayed.
        if let Some(c) = self.check.as_mut().filter(|_| !d.payload.quoted) {
            c.message(d);
        }
    }

    fn end_frame(&mut self, frame: &Frame<'_>, summary: &FrameSummary) {
        self.read.end_frame(frame, summary);
        if let Some(c) = &mut self.check {
            c.end_frame(frame, summary);
        }
        if let Some(r) = &mut self.recorder {
            r.file.frame(frame, true, []);
        }
        if self.last_flush.elapsed() >= FLUSH_INTERVAL {
            self.flush();
        }
    }

    fn source_error(&mut self, e: &SourceError) {
        eprintln!("poolshark: {e}");
    }

    fn wants_quoted(&self) -> bool {
        self.read.wants_quoted()
    }

    fn stopped(&self) -> bool {
        self.read.stopped()
            || self
                .recorder
                .as_ref()
                .is_some_and(|r| r.file.error().is_some())
    }
}

/// The metrics served while capturing: the page, how often it is made again, the server.
struct LiveMetrics {
    page: Published,
    pace: Pace,
    /// The listener bound before privileges go, served after.
    bound: Option<http::Bound>,
    /// None with --metrics-file alone (no snapshot before the end); dropping it stops serving.
    server: Option<http::Server>,
}

impl LiveMetrics {
    /// A snapshot of the analysers (on this thread, which runs them), published for the server.
    fn publish(&self, sink: &mut CaptureSink, stats: &crate::pipeline::RunStats, live: &LiveStats) {
        if let Some(c) = &mut sink.check {
            c.refresh();
        }
        let sinks = sink.check.as_slice();
        let text = check::metrics_of(sinks, stats, Some(live)).render();
        self.page.publish(text);
    }
}

/// The pipeline's run loop, with the outputs flushed whenever the source has nothing waiting,
/// and the metrics made again at their pace. Returns the error that ended the capture, if one
/// did.
fn drive(
    source: &mut LiveSource,
    pipeline: &mut Pipeline,
    sink: &mut CaptureSink,
    mut metrics: Option<&mut LiveMetrics>,
) -> Option<SourceError> {
    while !sink.stopped() {
        if let Some(m) = metrics.as_deref_mut() {
            if m.pace.due() {
                m.publish(sink, &pipeline.stats(), &source.stats());
            }
        }
        let mut idle = false;
        match source.poll_frame() {
            Ok(Polled::Frame(f)) => pipeline.feed(&f, sink),
            Ok(Polled::Idle) => idle = true,
            Ok(Polled::End) => return None,
            Err(e) if e.fatal => return Some(e),
            Err(e) => sink.source_error(&e),
        }
        if idle {
            sink.flush();
            if let Err(e) = source.wait() {
                return Some(e);
            }
        }
    }
    None
}

/// Binds the metrics endpoint (before the capture opens, so a taken port stops the run at
/// once) and says where it is; it is served once privileges are given up.
fn bind_metrics(address: &str) -> Result<LiveMetrics> {
    let addr = http::parse_address(address).map_err(Error::msg)?;
    let bound = http::Server::bind(addr)
        .map_err(|e| Error::msg(format!("--metrics {address}: cannot listen on {addr}: {e}")))?;
    eprintln!(
        "poolshark: metrics at http://{}/metrics",
        bound.local_addr()
    );
    Ok(LiveMetrics {
        page: Published::new(),
        pace: Pace::new(metrics::SNAPSHOT_EVERY),
        bound: Some(bound),
        server: None,
    })
}

/// The lines for stderr about the capture itself: one per interface, and the totals when there
/// are several.
pub fn live_summary(interfaces: &[InterfaceInfo], s: &LiveStats) -> Vec<String> {
    let line = |captured: u64, name: &str, kernel: u64, user: u64, echoes: u64| {
        let mut line = format!(
            "captured {captured} frames on {name} ({kernel} dropped by the kernel, {user} \
             dropped in poolshark (analysis behind)"
        );
        if echoes > 0 {
            line.push_str(&format!(", {echoes} outgoing loopback copies left out"));
        }
        line.push(')');
        line
    };
    let mut lines: Vec<String> = s
        .interfaces
        .iter()
        .map(|i| {
            line(
                i.captured,
                &i.name,
                i.kernel_dropped,
                i.user_dropped,
                i.loopback_echoes,
            )
        })
        .collect();
    if lines.is_empty() || s.interfaces.len() > 1 {
        let names: Vec<&str> = interfaces.iter().map(|i| i.name.as_str()).collect();
        lines.push(line(
            s.captured,
            &names.join(", "),
            s.kernel_dropped,
            s.user_dropped,
            s.loopback_echoes,
        ));
    }
    lines
}

/// The capture's counts for the JSON report: totals and each interface's.
pub fn live_json(s: &LiveStats) -> serde_json::Value {
    let per: Vec<serde_json::Value> = s
        .interfaces
        .iter()
        .map(|i| {
            serde_json::json!({
                "interface": i.name,
                "captured": i.captured,
                "kernel_received": i.kernel_received,
                "kernel_dropped": i.kernel_dropped,
                "kernel_freezes": i.kernel_freezes,
                "user_dropped": i.user_dropped,
                "loopback_echoes": i.loopback_echoes,
                "bad_ring_blocks": i.bad_blocks,
            })
        })
        .collect();
    serde_json::json!({
        "captured": s.captured,
        "kernel_dropped": s.kernel_dropped,
        "user_dropped": s.user_dropped,
        "interfaces": per,
    })
}

/// Captures until the capture ends (Ctrl-C, `--duration`, `-c`), decoding as `read` does.
pub fn run(args: Options) -> Result<i32> {
    check_stdout_write(&args)?;
    let live_opts = &args.live;
    let wants_metrics = args.metrics.is_some() || args.metrics_file.is_some();
    let check = if args.check {
        Some(CheckSink::new(
            analysers(&args.analysis)?,
            // The series too when metrics are made: the pool elements' shares.
            check::findings_report(args.analysis.max_findings, wants_metrics),
        ))
    } else {
        None
    };
    let mut metrics = match &args.metrics {
        Some(a) => Some(bind_metrics(a)?),
        None if args.metrics_file.is_some() => Some(LiveMetrics {
            page: Published::new(),
            pace: Pace::new(metrics::SNAPSHOT_EVERY),
            bound: None,
            server: None,
        }),
        None => None,
    };
    interrupt::install()?;
    let mut source = LiveSource::open(live_opts).map_err(|e| Error::msg(e.to_string()))?;
    let interfaces = source.interfaces().to_vec();
    let recorder = match &args.write {
        Some(p) => Some(Recorder::create(p, &interfaces)?),
        None => None,
    };
    // Created now, while this process may still write where the invoking user may.
    let mut metrics_file = match &args.metrics_file {
        Some(p) => {
            let fail = |e: io::Error| Error::msg(format!("cannot write {}: {e}", p.display()));
            let f = File::create(p).map_err(fail)?;
            give_to_invoking_user(&f).map_err(fail)?;
            Some(f)
        }
        None => None,
    };
    // Everything that needed privileges is open: nothing that parses packets keeps them.
    #[cfg(target_os = "linux")]
    let dropped = crate::privileges::drop_to(&args.user)
        .map_err(Error::msg)?
        .to_string();
    // Elsewhere (libpcap) the capture keeps the privileges it was started with.
    #[cfg(not(target_os = "linux"))]
    let dropped = "privileges kept: -Z is implemented for Linux only".to_string();
    if args.user == "root" && dropped.contains("still running as root") {
        eprintln!("poolshark: -Z root: still running as root, packets are parsed as root");
    }
    if let Some(m) = metrics.as_mut() {
        if let Some(b) = m.bound.take() {
            m.server = Some(
                b.serve(m.page.clone(), http::Limits::default())
                    .map_err(|e| Error::msg(format!("cannot serve the metrics: {e}")))?,
            );
        }
    }
    for info in &interfaces {
        eprintln!(
            "poolshark: capturing on {} ({}, link type {}, snap length {}, buffer {} MiB, \
             filter: {}; {dropped}); Ctrl-C stops",
            info.name,
            info.backend,
            info.linktype,
            info.snaplen,
            info.buffer >> 20,
            info.filter
        );
    }
    // With `-w -` standard output carries the capture file alone, as with `tshark -w -`.
    // (Nor a JSON array's brackets or a fields header.)
    let read = if args.write.as_deref().is_some_and(to_stdout) {
        ReadSink::new(io::stdout().lock(), Format::Text, false).capture_file(None, false)
    } else {
        ReadSink::new(io::stdout().lock(), args.format, args.verbose).columns(args.columns)
    };
    let mut sink = CaptureSink {
        read: read
            .tunnels(crate::dissect::dispatch::tunnel_ports(
                &args.pipeline.dispatch.decode_as,
            ))
            .time_column(args.time)
            .filter(args.display),
        check,
        recorder,
        last_flush: Instant::now(),
    };
    let mut pipeline = Pipeline::new(args.pipeline);
    let served = metrics.as_mut().filter(|m| m.server.is_some());
    let fatal = match source.start() {
        Ok(()) => drive(&mut source, &mut pipeline, &mut sink, served),
        Err(e) => Some(e),
    };
    let live_stats = source.stats();
    let CaptureSink {
        read,
        mut check,
        recorder,
        ..
    } = sink;
    let output = read.finish();
    let mut write_failed = false;
    if let Some(mut r) = recorder {
        match r.file.finish() {
            Ok(()) => {}
            // `-w - | head -c N`: the reader has all it wants; stop quietly, as a listing does.
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe && r.stdout => {}
            Err(e) => {
                eprintln!("poolshark: cannot write {}: {e}", r.name);
                write_failed = true;
            }
        }
    }
    output?;
    let stats = pipeline.stats();
    let mut failed = false;
    if let Some(c) = &mut check {
        let mut out = io::stdout().lock();
        match args.format {
            Format::Text | Format::Fields => {
                failed = check::report(
                    c,
                    &stats,
                    CheckFormat::Text,
                    args.all_findings,
                    args.fail_on,
                    &mut out,
                )?;
            }
            Format::Json | Format::Jsonl => {
                // check's report, with the capture's own counts.
                let mut v = match check::render(c, &stats, CheckFormat::Json, args.all_findings) {
                    check::Rendered::Json(v) => v,
                    check::Rendered::Text(t) => serde_json::Value::String(t),
                };
                if let Some(o) = v.as_object_mut() {
                    o.insert("capture".into(), live_json(&live_stats));
                }
                check::write_json(&mut out, &v)?;
                out.flush()?;
                failed = c.report.findings.any_at_least(args.fail_on);
            }
        }
    }
    if let Some(m) = &metrics {
        // The last snapshot: the analysers' run has ended.
        let text = check::metrics_of(check.as_slice(), &stats, Some(&live_stats)).render();
        if let (Some(f), Some(path)) = (metrics_file.as_mut(), &args.metrics_file) {
            f.write_all(text.as_bytes())
                .and_then(|()| f.flush())
                .map_err(|e| Error::msg(format!("cannot write {}: {e}", path.display())))?;
        }
        m.page.publish(text);
    }
    for line in live_summary(&interfaces, &live_stats) {
        eprintln!("poolshark: {line}");
    }
    eprintln!("poolshark: {}", stats.summary_line());
    if let Some(e) = fatal {
        let names: Vec<&str> = interfaces.iter().map(|i| i.name.as_str()).collect();
        eprintln!("poolshark: capture on {} stopped: {e}", names.join(", "));
        return Ok(exit::USAGE);
    }
    if write_failed {
        return Ok(exit::USAGE);
    }
    Ok(if failed { exit::FINDINGS } else { exit::OK })
}
