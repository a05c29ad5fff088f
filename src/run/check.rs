//! `poolshark check FILE`: replay what the capture shows through the reference algorithms and
//! report every deviation.
//!
//! Exit 0 when no finding is at or above `--fail-on` (default warning), 1 when one is, 2 on a usage
//! or input error, so it can gate a CI job. Several files are checked in parallel, each on its
//! own; the exit code is the worst of theirs.

use std::io::Write;

use super::analysis::{analysers, analysers_seeded, AnalysisArgs};
use super::anyhow_like::{Error, Result};
use super::exit;
use super::files::{for_each_ordered, run_file, run_file_parts, Files};
use super::progress::Bars;
use super::seeds::SeedArg;
use crate::analyse::finding::{Findings, Severity};
use crate::analyse::{Analyser, Report};
use crate::dissect::FrameSummary;
use crate::handoff::Part;
use crate::pipeline::{Decoded, Sink};
use crate::proto::AppProtocol;
use crate::source::{Frame, SourceError};

/// What a `check` run reads and writes.
pub struct Options {
    /// The capture files.
    pub files: Files,
    /// How the files are dissected and decoded.
    pub pipeline: crate::pipeline::Options,
    pub analysis: AnalysisArgs,
    pub format: CheckFormat,
    /// Exit 1 when a finding is at or above this severity.
    pub fail_on: Severity,
    /// The text report lists every finding (none folded).
    pub all_findings: bool,
    /// `--plot FILE`.
    pub plot: Option<String>,
    /// The lease files the failover replay starts from.
    pub leases: Vec<SeedArg>,
    /// `--metrics-file FILE`.
    pub metrics_file: Option<std::path::PathBuf>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum CheckFormat {
    Text,
    Json,
}

/// Feeds every message to the analysers that read its protocol.
pub struct CheckSink {
    pub analysers: Vec<Box<dyn Analyser>>,
    pub report: Report,
    /// The analysers' run has ended ([`CheckSink::finish`]).
    finished: bool,
}

impl CheckSink {
    pub fn new(analysers: Vec<Box<dyn Analyser>>, report: Report) -> Self {
        CheckSink {
            analysers,
            report,
            finished: false,
        }
    }

    /// Ends its analysers' run, once (more calls do nothing).
    pub fn finish(&mut self, last: Option<crate::base::Timestamp>) {
        if std::mem::replace(&mut self.finished, true) {
            return;
        }
        for a in &mut self.analysers {
            a.finish(last, &mut self.report);
        }
    }

    /// Before a live snapshot of the analysers' state ([`Analyser::refresh`]).
    pub fn refresh(&mut self) {
        for a in &mut self.analysers {
            a.refresh();
        }
    }

    /// The protocols its analysers read.
    pub fn protocols(&self) -> Vec<AppProtocol> {
        AppProtocol::ALL
            .into_iter()
            .filter(|p| self.analysers.iter().any(|a| a.protocols().contains(p)))
            .collect()
    }
}

impl Sink for CheckSink {
    fn message(&mut self, d: &Decoded<'_>) {
        for a in &mut self.analysers {
            if a.protocols().contains(&d.protocol) {
                a.message(d, &mut self.report);
            }
        }
    }

    fn end_frame(&mut self, frame: &Frame<'_>, _summary: &FrameSummary) {
        self.report.timeline.start(frame.ts);
    }

    fn run_ended(&mut self, last: Option<crate::base::Timestamp>) {
        self.finish(last);
    }

    fn source_error(&mut self, e: &SourceError) {
        eprintln!("poolshark: {e}");
    }
}

/// Check's analysers in the parts that can run apart, each with a report of its own: RSerPool's
/// replay, and the DHCP load-balancing and failover replays (which read the same messages). The
/// parts' reports are merged at the end, so what `check` says is the same whether the parts
/// share one pipeline or each decodes on a thread of its own. With `plotting`, the reports keep
/// their series (in windows of [`PLOT_INTERVAL_NS`]) for `--plot`; with `timeline`, in a
/// minute's windows (the metrics' pool element shares); `check` alone reads neither.
fn parts(
    all: Vec<Box<dyn Analyser>>,
    max_findings: usize,
    plotting: bool,
    timeline: bool,
) -> Vec<CheckSink> {
    split_analysers(all)
        .into_iter()
        .map(|analysers| {
            let report = if plotting {
                Report::new(max_findings, PLOT_INTERVAL_NS)
            } else {
                findings_report(max_findings, timeline)
            };
            CheckSink::new(analysers, report)
        })
        .collect()
}

/// Analysers in the groups that can run apart ([`parts`]): RSerPool's replay, and the others
/// (the DHCP load-balancing and failover replays, which read the same messages); no empty group.
pub(super) fn split_analysers(all: Vec<Box<dyn Analyser>>) -> Vec<Vec<Box<dyn Analyser>>> {
    let (first, rest): (Vec<_>, Vec<_>) = all.into_iter().partition(|a| {
        a.protocols()
            .iter()
            .any(|p| matches!(p, AppProtocol::Asap | AppProtocol::Enrp))
    });
    [first, rest]
        .into_iter()
        .filter(|g| !g.is_empty())
        .collect()
}

/// The protocols each part decodes, its analysers' being `own`: the first part's also those of
/// every protocol no other part reads.
pub(super) fn part_protocols(
    opts: &crate::pipeline::Options,
    own: Vec<Vec<AppProtocol>>,
) -> Vec<Vec<AppProtocol>> {
    let elsewhere: Vec<AppProtocol> = own.iter().skip(1).flatten().copied().collect();
    own.into_iter()
        .enumerate()
        .map(|(i, own)| {
            if i == 0 {
                AppProtocol::ALL
                    .into_iter()
                    .filter(|p| opts.dispatch.wants(*p) && !elsewhere.contains(p))
                    .collect()
            } else {
                own
            }
        })
        .collect()
}

/// The windows `check --plot` records: a second, merged by the plot into round intervals of at
/// most 60 columns (and coarsened by the timeline on a long capture).
const PLOT_INTERVAL_NS: u64 = 1_000_000_000;

/// The report `check` writes into: findings only, or findings and the series (`timeline`),
/// windows as long as the findings-only report's origin assumes.
pub fn findings_report(max_findings: usize, timeline: bool) -> Report {
    if timeline {
        Report::new(max_findings, 60_000_000_000)
    } else {
        Report::for_findings(max_findings)
    }
}

/// The parts on one pipeline.
struct Fan<'a>(&'a mut [CheckSink]);

impl Sink for Fan<'_> {
    fn message(&mut self, d: &Decoded<'_>) {
        for part in self.0.iter_mut() {
            part.message(d);
        }
    }

    fn end_frame(&mut self, frame: &Frame<'_>, summary: &FrameSummary) {
        for part in self.0.iter_mut() {
            part.end_frame(frame, summary);
        }
    }
}

/// The file read and dissected once, on this thread, and each part's payloads decoded and
/// analysed on a thread of its own ([`crate::handoff`]): the first part's also those of every
/// protocol no other part reads. Each part's run ends on its thread (the DHCP replay's end is
/// not short).
fn run_parts(
    file: &str,
    opts: &crate::pipeline::Options,
    bars: &Bars,
    label: Option<&str>,
    parts: &mut [CheckSink],
) -> Result<(crate::pipeline::RunStats, Option<SourceError>)> {
    let protocols = part_protocols(opts, parts.iter().map(CheckSink::protocols).collect());
    let handed: Vec<Part<'_, CheckSink>> = parts
        .iter_mut()
        .zip(protocols)
        .map(|(sink, protocols)| Part { protocols, sink })
        .collect();
    run_file_parts(file, opts, bars, label, handed, None)
}

/// Ends every part's run not yet ended (each into its own report), then makes them one sink:
/// the analysers in the order they were made, the findings of all.
fn finish_parts(parts: Vec<CheckSink>, last: Option<crate::base::Timestamp>) -> CheckSink {
    let mut merged: Option<CheckSink> = None;
    for mut part in parts {
        part.finish(last);
        match &mut merged {
            None => merged = Some(part),
            Some(m) => {
                m.analysers.extend(part.analysers);
                m.report.findings.absorb(part.report.findings);
                // Recorded only for `--plot`; the parts' subjects are apart.
                m.report.timeline.absorb(part.report.timeline);
            }
        }
    }
    merged.unwrap_or_else(|| CheckSink::new(Vec::new(), Report::for_findings(0)))
}

/// Checks the files (several in parallel, each on its own); the exit code is the worst of theirs.
pub fn run(args: Options) -> Result<i32> {
    let opts = &args.pipeline;
    // Bad analysis options are reported once, before any file is read.
    analysers(&args.analysis)?;
    let bars = Bars::new(args.files.no_progress, true);
    let files = &args.files.files;
    if let [file] = files.as_slice() {
        let checked = check_file(&args, opts, file, None, &bars, args.files.thread_budget())?;
        let mut out = std::io::stdout().lock();
        match &checked.report {
            Rendered::Text(s) => out.write_all(s.as_bytes())?,
            Rendered::Json(v) => write_json(&mut out, v)?,
        }
        out.flush()?;
        for n in &checked.notes {
            bars.eprintln(n);
        }
        if let (Some(path), Some(m)) = (&args.metrics_file, checked.metrics) {
            write_metrics(path, &m)?;
        }
        return Ok(checked.code);
    }
    // Threads to spare beyond one per file go to the files' parts.
    let per_file = (args.files.thread_budget() / files.len()).max(1);
    let mut worst = exit::OK;
    let mut out = std::io::stdout().lock();
    let mut written: Result<()> = Ok(());
    let mut metrics = crate::output::metrics::Exposition::new();
    if args.format == CheckFormat::Json {
        written = out.write_all(b"[\n").map_err(Error::from);
    }
    for_each_ordered(
        files,
        args.files.threads(),
        |file| check_file(&args, opts, file, Some(file), &bars, per_file),
        |i, checked| {
            let file = files.get(i).map_or("", String::as_str);
            let (code, report, notes) = match checked {
                Ok(c) => {
                    if let Some(m) = c.metrics {
                        metrics.merge(m.labelled("file", file));
                    }
                    (c.code, Ok(c.report), c.notes)
                }
                Err(e) => (
                    exit::USAGE,
                    Err(e.to_string()),
                    vec![format!("poolshark: {e}")],
                ),
            };
            worst = worst.max(code);
            if written.is_ok() {
                written = write_file_report(&mut out, i, file, report, args.format);
            }
            for n in &notes {
                bars.eprintln(n);
            }
        },
    );
    written?;
    if args.format == CheckFormat::Json {
        out.write_all(b"\n]\n")?;
    }
    out.flush()?;
    if let Some(path) = &args.metrics_file {
        write_metrics(path, &metrics)?;
    }
    Ok(worst)
}

fn write_metrics(path: &std::path::Path, m: &crate::output::metrics::Exposition) -> Result<()> {
    crate::output::metrics::write_file(path, &m.render())
        .map_err(|e| Error::msg(format!("cannot write {}: {e}", path.display())))
}

/// One file's report among several: text under a `== FILE` header, JSON as an element of the
/// array with the file's name (and `error` when it could not be read).
fn write_file_report(
    out: &mut dyn Write,
    i: usize,
    file: &str,
    report: std::result::Result<Rendered, String>,
    format: CheckFormat,
) -> Result<()> {
    match format {
        CheckFormat::Text => {
            writeln!(out, "== {file}")?;
            if let Ok(Rendered::Text(s)) = report {
                out.write_all(s.as_bytes())?;
            }
        }
        CheckFormat::Json => {
            if i > 0 {
                out.write_all(b",\n")?;
            }
            let v = match report {
                Ok(Rendered::Json(serde_json::Value::Object(mut m))) => {
                    m.insert("file".into(), file.into());
                    serde_json::Value::Object(m)
                }
                Ok(_) => serde_json::json!({"file": file}),
                Err(e) => serde_json::json!({"file": file, "error": e}),
            };
            serde_json::to_writer_pretty(&mut *out, &v)?;
        }
    }
    out.flush()?;
    Ok(())
}

pub fn write_json(out: &mut dyn Write, v: &serde_json::Value) -> Result<()> {
    serde_json::to_writer_pretty(&mut *out, v)?;
    out.write_all(b"\n")?;
    Ok(())
}

/// What one file gave: its report, and its exit code on its own.
struct Checked {
    report: Rendered,
    /// The run's metrics, with `--metrics-file`.
    metrics: Option<crate::output::metrics::Exposition>,
    code: i32,
    /// Lines for standard error once the file is done: its summary, why it stopped.
    notes: Vec<String>,
}

/// A report made, not yet written.
pub enum Rendered {
    Text(String),
    Json(serde_json::Value),
}

/// Checks one file with its own pipelines and analysers, on up to `threads` threads; `label`
/// names it in what goes to standard error when there are several. Errors: the file cannot be
/// opened.
fn check_file(
    args: &Options,
    opts: &crate::pipeline::Options,
    file: &str,
    label: Option<&str>,
    bars: &Bars,
    threads: usize,
) -> Result<Checked> {
    let seeds = super::seeds::read_seeds(&args.leases)?;
    let mut parts = parts(
        analysers_seeded(&args.analysis, seeds)?,
        args.analysis.max_findings,
        args.plot.is_some(),
        args.metrics_file.is_some(),
    );
    let (stats, fatal) = if threads > 1 && parts.len() > 1 {
        run_parts(file, opts, bars, label, &mut parts)?
    } else {
        run_file(file, opts, bars, label, &mut Fan(&mut parts))?
    };
    let metrics = args.metrics_file.is_some().then(|| {
        for p in &mut parts {
            p.finish(stats.last);
        }
        metrics_of(&parts, &stats, None)
    });
    let mut sink = finish_parts(parts, stats.last);
    let report = render_finished(&mut sink, &stats, args.format, args.all_findings);
    let failed = sink.report.findings.any_at_least(args.fail_on);
    let prefix = label.map(|f| format!("{f}: ")).unwrap_or_default();
    let mut notes = vec![format!("poolshark: {prefix}{}", stats.summary_line())];
    if let Some(path) = &args.plot {
        let req = crate::output::plot::Request {
            path,
            capture: file,
            several_captures: label.is_some(),
            with_findings_only: true,
            interval_given: false,
            last: stats.last,
        };
        notes.extend(
            crate::output::plot::write(&req, &sink.report.timeline, sink.report.findings.list())
                .map_err(Error::msg)?,
        );
    }
    let code = if let Some(e) = fatal {
        notes.push(format!("poolshark: stopped reading {file}: {e}"));
        exit::USAGE
    } else if failed {
        exit::FINDINGS
    } else {
        exit::OK
    };
    Ok(Checked {
        report,
        metrics,
        code,
        notes,
    })
}

/// The metrics of sinks whose analysers ran over a run with `stats` (and, live, `live`).
pub fn metrics_of(
    sinks: &[CheckSink],
    stats: &crate::pipeline::RunStats,
    live: Option<&crate::source::live::LiveStats>,
) -> crate::output::metrics::Exposition {
    use crate::output::metrics::snapshot::{snapshot, Part, Sources};
    snapshot(&Sources {
        parts: sinks
            .iter()
            .map(|s| Part {
                analysers: &s.analysers,
                report: &s.report,
            })
            .collect(),
        stats,
        live,
    })
}

/// Ends the analysers' run and writes the findings report (what `check` prints, also after a
/// live capture with `--check`). True when a finding is at or above `fail_on`.
pub fn report(
    sink: &mut CheckSink,
    stats: &crate::pipeline::RunStats,
    format: CheckFormat,
    all_findings: bool,
    fail_on: Severity,
    out: &mut dyn Write,
) -> Result<bool> {
    match render(sink, stats, format, all_findings) {
        Rendered::Text(s) => out.write_all(s.as_bytes())?,
        Rendered::Json(v) => write_json(out, &v)?,
    }
    out.flush()?;
    Ok(sink.report.findings.any_at_least(fail_on))
}

/// Ends the analysers' run and makes the findings report (`all_findings`: text lists every
/// finding, none folded).
pub fn render(
    sink: &mut CheckSink,
    stats: &crate::pipeline::RunStats,
    format: CheckFormat,
    all_findings: bool,
) -> Rendered {
    sink.finish(stats.last);
    render_finished(sink, stats, format, all_findings)
}

/// The findings report of analysers whose run has ended.
fn render_finished(
    sink: &mut CheckSink,
    stats: &crate::pipeline::RunStats,
    format: CheckFormat,
    all_findings: bool,
) -> Rendered {
    let findings = &mut sink.report.findings;
    findings.sort();
    match format {
        CheckFormat::Text => {
            let mut s = findings.listing(all_findings);
            for a in &sink.analysers {
                crate::output::report::text(a.view(), &mut s);
            }
            s.push_str(&summary_text(findings));
            Rendered::Text(s)
        }
        CheckFormat::Json => {
            let mut m = serde_json::Map::new();
            m.insert(
                "findings".into(),
                findings.list().iter().map(|f| f.to_json()).collect(),
            );
            for a in &sink.analysers {
                crate::output::report::json(a.view(), &mut m);
            }
            m.insert("summary".into(), summary_json(findings, stats));
            Rendered::Json(serde_json::Value::Object(m))
        }
    }
}

fn summary_text(f: &Findings) -> String {
    let mut s = format!(
        "findings: {} ({} error, {} warning, {} info)",
        f.total(),
        f.count(Severity::Error),
        f.count(Severity::Warning),
        f.count(Severity::Info)
    );
    if f.dropped() > 0 {
        s.push_str(&format!("; {} not listed (--max-findings)", f.dropped()));
    }
    s.push('\n');
    for (rule, n) in f.by_rule() {
        s.push_str(&format!("  {rule}: {n}\n"));
    }
    s
}

fn summary_json(f: &Findings, stats: &crate::pipeline::RunStats) -> serde_json::Value {
    serde_json::json!({
        "findings": f.total(),
        "errors": f.count(Severity::Error),
        "warnings": f.count(Severity::Warning),
        "infos": f.count(Severity::Info),
        "not_listed": f.dropped(),
        "by_rule": f.by_rule(),
        "frames": stats.frames,
        "messages": stats.total_messages(),
        // What the stderr summary calls decode errors: a script reading the JSON must be able
        // to tell a capture cut short (exit 0, the frames before the cut checked) from a whole one.
        "malformed_messages": stats.messages_with_errors.values().sum::<u64>(),
        "malformed_frames": stats.frames_with_errors,
        "read_errors": stats.source_errors,
    })
}
