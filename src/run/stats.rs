//! `poolshark stats FILE [--interval DURATION] [--format text|json|csv]`: how every pool and server
//! pair was balanced over time, against what the references predict, and message statistics.
//! One streaming pass with the same analysers as `check`, on `check`'s threads: the file read
//! and dissected once, RSerPool and DHCP each decoded and analysed on a thread of its own
//! ([`crate::handoff`]).

use std::io::Write;

use super::analysis::{analysers, AnalysisArgs};
use super::anyhow_like::{Error, Result};
use super::exit;
use super::files::{for_each_ordered, run_file, run_file_parts, Files};
use super::progress::Bars;
use crate::analyse::msgstats::MessageStats;
use crate::analyse::{Analyser, Report};
use crate::dissect::FrameSummary;
use crate::handoff::Part;
use crate::output::stats as out;
use crate::pipeline::{Decoded, Sink};
use crate::proto::AppProtocol;
use crate::source::{Frame, SourceError};

/// What a `stats` run reads and writes.
pub struct Options {
    /// The capture files.
    pub files: Files,
    /// How the files are dissected and decoded.
    pub pipeline: crate::pipeline::Options,
    pub analysis: AnalysisArgs,
    /// Window length, in nanoseconds.
    pub interval: u64,
    pub format: StatsFormat,
    /// `--plot FILE`.
    pub plot: Option<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum StatsFormat {
    Text,
    Json,
    Csv,
}

/// Feeds the analysers and the message statistics.
pub struct StatsSink {
    pub analysers: Vec<Box<dyn Analyser>>,
    pub report: Report,
    pub messages: MessageStats,
    /// The analysers' run has ended ([`StatsSink::finish`]).
    finished: bool,
}

impl StatsSink {
    fn new(analysers: Vec<Box<dyn Analyser>>, report: Report) -> Self {
        StatsSink {
            analysers,
            report,
            messages: MessageStats::new(),
            finished: false,
        }
    }

    /// Ends its analysers' run, once (more calls do nothing).
    fn finish(&mut self, last: Option<crate::base::Timestamp>) {
        if std::mem::replace(&mut self.finished, true) {
            return;
        }
        for a in &mut self.analysers {
            a.finish(last, &mut self.report);
        }
    }

    /// The protocols its analysers read.
    fn protocols(&self) -> Vec<AppProtocol> {
        AppProtocol::ALL
            .into_iter()
            .filter(|p| self.analysers.iter().any(|a| a.protocols().contains(p)))
            .collect()
    }

    /// Adds a part of the same run kept apart (another thread's protocols, analysers and
    /// windows): the message statistics, the series and the findings of both.
    fn absorb(&mut self, other: StatsSink) {
        self.analysers.extend(other.analysers);
        self.messages.absorb(other.messages);
        self.report.findings.absorb(other.report.findings);
        self.report.timeline.absorb(other.report.timeline);
    }
}

impl Sink for StatsSink {
    fn message(&mut self, d: &Decoded<'_>) {
        self.messages.record(d);
        for a in &mut self.analysers {
            a.message(d, &mut self.report);
        }
    }

    fn end_frame(&mut self, frame: &Frame<'_>, _summary: &FrameSummary) {
        self.report.timeline.start(frame.ts);
    }

    // On a part's own thread: its end (the DHCP replay's is not short) runs there too.
    fn run_ended(&mut self, last: Option<crate::base::Timestamp>) {
        self.finish(last);
    }

    fn source_error(&mut self, e: &SourceError) {
        eprintln!("poolshark: {e}");
    }
}

/// The statistics of the files (several in parallel, each on its own, written in their order).
pub fn run(args: Options) -> Result<i32> {
    let opts = &args.pipeline;
    // Bad analysis options are reported once, before any file is read.
    analysers(&args.analysis)?;
    let bars = Bars::new(args.files.no_progress, true);
    let files = &args.files.files;
    let mut stdout = std::io::stdout().lock();
    if let [file] = files.as_slice() {
        let threads = args.files.thread_budget();
        let done = stats_file(&args, opts, file, None, &bars, threads)?;
        stdout.write_all(done.text.as_bytes())?;
        stdout.flush()?;
        for n in &done.notes {
            bars.eprintln(n);
        }
        return Ok(done.code);
    }
    // Threads to spare beyond one per file go to the files' parts.
    let per_file = (args.files.thread_budget() / files.len()).max(1);
    let mut worst = exit::OK;
    let mut written: Result<()> = Ok(());
    let mut started = false;
    for_each_ordered(
        files,
        args.files.threads(),
        |file| stats_file(&args, opts, file, Some(file), &bars, per_file),
        |i, done| {
            let file = files.get(i).map_or("", String::as_str);
            let (done, notes) = match done {
                Ok(mut d) => {
                    let notes = std::mem::take(&mut d.notes);
                    (Ok(d), notes)
                }
                Err(e) => (Err(e.to_string()), vec![format!("poolshark: {e}")]),
            };
            worst = worst.max(done.as_ref().map_or(exit::USAGE, |d| d.code));
            if written.is_ok() {
                let text = several(args.format, file, &done, &mut started);
                written = stdout
                    .write_all(text.as_bytes())
                    .and_then(|_| stdout.flush())
                    .map_err(Error::from);
            }
            for n in &notes {
                bars.eprintln(n);
            }
        },
    );
    written?;
    if args.format == StatsFormat::Json {
        stdout.write_all(if started { b"\n]\n" } else { b"[]\n" })?;
    }
    stdout.flush()?;
    Ok(worst)
}

/// One file's statistics among several: text under a `== FILE` header; JSON as an element of an
/// array, with its `file` (and `error` when it could not be read); CSV with a first column
/// `file` and one header line in all. `started`: something was written before.
fn several(
    format: StatsFormat,
    file: &str,
    done: &std::result::Result<FileStats, String>,
    started: &mut bool,
) -> String {
    let first = !std::mem::replace(started, true);
    let mut s = String::new();
    match format {
        StatsFormat::Text => {
            s.push_str(&format!("== {file}\n"));
            if let Ok(d) = done {
                s.push_str(&d.text);
            }
        }
        StatsFormat::Json => {
            s.push_str(if first { "[\n" } else { ",\n" });
            let v = match done {
                Ok(d) => match d.json.clone() {
                    Some(serde_json::Value::Object(mut m)) => {
                        m.insert("file".into(), file.into());
                        serde_json::Value::Object(m)
                    }
                    _ => serde_json::json!({"file": file}),
                },
                Err(e) => serde_json::json!({"file": file, "error": e}),
            };
            s.push_str(&serde_json::to_string_pretty(&v).unwrap_or_default());
        }
        StatsFormat::Csv => {
            let Ok(d) = done else {
                return s;
            };
            let mut lines = d.text.lines();
            if let Some(header) = lines.next() {
                if first {
                    s.push_str(&format!("file,{header}\n"));
                }
            }
            let name = csv_field(file);
            for line in lines {
                s.push_str(&format!("{name},{line}\n"));
            }
        }
    }
    s
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// The parts on one pipeline: each message to the part that reads its protocol (the first
/// part: every protocol no other reads), as the parts' threads would have it.
struct Fan<'a>(&'a mut [StatsSink]);

impl Sink for Fan<'_> {
    fn message(&mut self, d: &Decoded<'_>) {
        let at = self
            .0
            .iter()
            .skip(1)
            .position(|p| {
                p.analysers
                    .iter()
                    .any(|a| a.protocols().contains(&d.protocol))
            })
            .map_or(0, |i| i + 1);
        if let Some(part) = self.0.get_mut(at) {
            part.message(d);
        }
    }

    fn end_frame(&mut self, frame: &Frame<'_>, summary: &FrameSummary) {
        for part in self.0.iter_mut() {
            part.end_frame(frame, summary);
        }
    }

    fn source_error(&mut self, e: &SourceError) {
        eprintln!("poolshark: {e}");
    }
}

/// What one file gave: its statistics as the single-file command prints them, and its exit code.
struct FileStats {
    text: String,
    /// The JSON that `text` shows, for `--format json`.
    json: Option<serde_json::Value>,
    code: i32,
    /// Lines for standard error once the file is done: its summary, why it stopped.
    notes: Vec<String>,
}

/// The analysers in the parts that can run apart, as `check` splits them: RSerPool's replay, and
/// the DHCP load-balancing and failover replays (which read the same messages); each part with
/// its own report and message statistics, added up at the end.
fn parts(all: Vec<Box<dyn Analyser>>, max_findings: usize, interval: u64) -> Vec<StatsSink> {
    super::check::split_analysers(all)
        .into_iter()
        .map(|analysers| StatsSink::new(analysers, Report::new(max_findings, interval)))
        .collect()
}

/// One file through its own pipeline, analysers and message statistics, on up to `threads`
/// threads; `label` names it in what goes to standard error when there are several. Errors:
/// the file cannot be opened.
fn stats_file(
    args: &Options,
    opts: &crate::pipeline::Options,
    file: &str,
    label: Option<&str>,
    bars: &Bars,
    threads: usize,
) -> Result<FileStats> {
    let mut parts = parts(
        analysers(&args.analysis)?,
        args.analysis.max_findings,
        args.interval,
    );
    let (stats, fatal) = if threads > 1 && parts.len() > 1 {
        // The first part also decodes (and counts) every protocol no other part reads.
        let protocols: Vec<Vec<AppProtocol>> = parts.iter().map(StatsSink::protocols).collect();
        let elsewhere: Vec<AppProtocol> = protocols.iter().skip(1).flatten().copied().collect();
        let handed: Vec<Part<'_, StatsSink>> = parts
            .iter_mut()
            .zip(protocols)
            .enumerate()
            .map(|(i, (sink, own))| Part {
                protocols: if i == 0 {
                    AppProtocol::ALL
                        .into_iter()
                        .filter(|p| opts.dispatch.wants(*p) && !elsewhere.contains(p))
                        .collect()
                } else {
                    own
                },
                sink,
            })
            .collect();
        run_file_parts(file, opts, bars, label, handed, None)?
    } else {
        run_file(file, opts, bars, label, &mut Fan(&mut parts))?
    };
    let mut sink: Option<StatsSink> = None;
    for mut part in parts {
        part.finish(stats.last);
        match &mut sink {
            None => sink = Some(part),
            Some(s) => s.absorb(part),
        }
    }
    let sink = sink.unwrap_or_else(|| {
        StatsSink::new(
            Vec::new(),
            Report::new(args.analysis.max_findings, args.interval),
        )
    });
    let rows = sink.messages.rows();
    let mut text = String::new();
    let mut json = None;
    match args.format {
        StatsFormat::Text => {
            out::message_table_text(&rows, &mut text);
            out::series_text(&sink.report.timeline, &mut text);
        }
        StatsFormat::Json => {
            let j = out::json(&rows, &sink.report.timeline);
            text = serde_json::to_string_pretty(&j).map_err(|e| Error::msg(e.to_string()))?;
            text.push('\n');
            json = Some(j);
        }
        StatsFormat::Csv => out::csv(&rows, &sink.report.timeline, &mut text),
    }
    let prefix = label.map(|f| format!("{f}: ")).unwrap_or_default();
    let mut notes = vec![format!("poolshark: {prefix}{}", stats.summary_line())];
    if let Some(path) = &args.plot {
        let req = crate::output::plot::Request {
            path,
            capture: file,
            several_captures: label.is_some(),
            with_findings_only: false,
            interval_given: true,
            last: stats.last,
        };
        notes.extend(
            crate::output::plot::write(&req, &sink.report.timeline, sink.report.findings.list())
                .map_err(Error::msg)?,
        );
    }
    let code = match fatal {
        Some(e) => {
            notes.push(format!("poolshark: stopped reading {file}: {e}"));
            exit::USAGE
        }
        None => exit::OK,
    };
    Ok(FileStats {
        text,
        json,
        code,
        notes,
    })
}
