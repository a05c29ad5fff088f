//! `poolshark export --parquet DIR FILE...`: each capture's messages, judged DHCP transactions,
//! checked RSerPool resolutions, findings and `stats` windows as Parquet tables under
//! `DIR/TABLE/`, named after the capture (the layout and the columns: README, "Export to
//! Parquet"). Files run in parallel as `check`'s do, each through its own pipeline and analysers.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use super::analysis::{analysers, analysers_seeded, AnalysisArgs};
use super::anyhow_like::{Error, Result};
use super::check::{part_protocols, split_analysers, CheckSink};
use super::exit;
use super::files::{for_each_ordered, run_file, run_file_parts, Files};
use super::progress::Bars;
use crate::analyse::Report;
use crate::base::Timestamp;
use crate::dissect::FrameSummary;
use crate::handoff::Part;
use crate::output::parquet::{self, table::Table, tables, Recorder};
use crate::pipeline::{Decoded, Sink};
use crate::source::{Frame, SourceError};

/// What an `export` run reads and writes.
pub struct Options {
    /// The directory the tables are written under.
    pub parquet: PathBuf,
    /// Window length of the `windows` table, in nanoseconds.
    pub interval: u64,
    /// The capture files.
    pub files: Files,
    /// How the files are dissected and decoded (a bad decoding option is told for each file).
    pub pipeline: std::result::Result<crate::pipeline::Options, String>,
    pub analysis: AnalysisArgs,
}

/// The analysers' sink with the messages written as they pass.
struct ExportSink<'a> {
    check: CheckSink,
    messages: tables::Messages,
    error: Option<std::io::Error>,
    /// Set once a table cannot be written: the reading stops (it runs on another thread when
    /// the capture is dissected apart).
    failed: &'a AtomicBool,
}

impl Sink for ExportSink<'_> {
    fn message(&mut self, d: &Decoded<'_>) {
        if self.error.is_none() {
            if let Err(e) = self.messages.row(d) {
                self.error = Some(e);
                self.failed.store(true, Ordering::Relaxed);
            }
        }
        self.check.message(d);
        if self
            .check
            .report
            .observer
            .as_ref()
            .is_some_and(|o| o.failed())
        {
            self.failed.store(true, Ordering::Relaxed);
        }
    }

    fn end_frame(&mut self, frame: &Frame<'_>, summary: &FrameSummary) {
        self.check.end_frame(frame, summary);
    }

    fn run_ended(&mut self, last: Option<Timestamp>) {
        self.check.run_ended(last);
    }

    fn source_error(&mut self, e: &SourceError) {
        self.check.source_error(e);
    }

    fn stopped(&self) -> bool {
        self.failed.load(Ordering::Relaxed)
    }
}

/// What one capture's export wrote.
struct Exported {
    messages: u64,
    windows: u64,
    /// Why the capture's reading ended early, if it did.
    fatal: Option<String>,
}

/// Exports one capture, on up to `threads` threads; the tables exist (each whole) once it
/// returns `Ok`.
fn export_file(
    args: &Options,
    file: &str,
    label: Option<&str>,
    bars: &Bars,
    threads: usize,
) -> Result<Exported> {
    let opts = args.pipeline.clone().map_err(Error::msg)?;
    let dir = &args.parquet;
    let name = parquet::output_name(file);
    let io = |what: &str, e: std::io::Error| Error::msg(format!("{file}: {what}: {e}"));
    let recorder =
        Recorder::create(dir, &name, file).map_err(|e| io("cannot create its tables", e))?;
    let messages = tables::Messages::create(
        &parquet::table_path(dir, "messages", &name).map_err(|e| io("messages", e))?,
        file,
    )
    .map_err(|e| io("messages", e))?;
    let analysers = analysers_seeded(&args.analysis, Vec::new())?;
    // As `check` does, on more than one thread: the capture is read and dissected on this
    // thread, and its messages decoded, analysed and made rows in parts that run apart (RSerPool's
    // analysers, the DHCP family's), each on a thread of its own and with fronts of its own to
    // the tables (each table's row groups are the parts' in turn, each in frame order).
    let groups = if threads > 1 {
        split_analysers(analysers)
    } else {
        vec![analysers]
    };
    let failed = AtomicBool::new(false);
    let mut fronts: Vec<(Recorder, tables::Messages)> = (1..groups.len())
        .map(|_| (recorder.another(), messages.another()))
        .collect();
    fronts.insert(0, (recorder, messages));
    let mut sinks: Vec<ExportSink> = groups
        .into_iter()
        .zip(fronts)
        .map(|(analysers, (recorder, messages))| {
            let mut report =
                Report::new(args.analysis.max_findings, args.interval).observed(Box::new(recorder));
            // The `windows` table reads the windows only: no member descriptions.
            report.timeline = crate::analyse::timeline::Timeline::new(args.interval).windows_only();
            ExportSink {
                check: CheckSink::new(analysers, report),
                messages,
                error: None,
                failed: &failed,
            }
        })
        .collect();
    let (stats, fatal) = if threads > 1 {
        let own = sinks.iter().map(|s| s.check.protocols()).collect();
        let parts: Vec<Part<'_, ExportSink>> = sinks
            .iter_mut()
            .zip(part_protocols(&opts, own))
            .map(|(sink, protocols)| Part { protocols, sink })
            .collect();
        run_file_parts(file, &opts, bars, label, parts, Some(&failed))?
    } else {
        match sinks.first_mut() {
            Some(sink) => run_file(file, &opts, bars, label, sink)?,
            None => return Err(Error::msg(format!("{file}: no analysers"))),
        }
    };
    let mut messages = 0;
    let mut timeline: Option<crate::analyse::timeline::Timeline> = None;
    for mut sink in sinks {
        sink.check.finish(stats.last);
        if let Some(e) = sink.error.take() {
            return Err(io("writing the messages", e));
        }
        messages += sink
            .messages
            .close()
            .map_err(|e| io("writing the messages", e))?;
        if let Some(o) = sink.check.report.observer.take() {
            o.close()
                .map_err(|e| io("writing the analysers' tables", e))?;
        }
        // The parts' subjects are apart: their series make the capture's.
        let own = std::mem::replace(
            &mut sink.check.report.timeline,
            crate::analyse::timeline::Timeline::new(args.interval),
        );
        match &mut timeline {
            None => timeline = Some(own),
            Some(t) => t.absorb(own),
        }
    }
    let timeline =
        timeline.unwrap_or_else(|| crate::analyse::timeline::Timeline::new(args.interval));
    let mut w = Table::create(
        &parquet::table_path(dir, "windows", &name).map_err(|e| io("windows", e))?,
        tables::WINDOWS,
    )
    .map_err(|e| io("windows", e))?;
    tables::windows(&mut w, file, &timeline).map_err(|e| io("writing the windows", e))?;
    let windows = w.close().map_err(|e| io("writing the windows", e))?;
    Ok(Exported {
        messages,
        windows,
        fatal: fatal.map(|e| e.to_string()),
    })
}

/// Two captures of one run whose tables would have the same name.
fn same_names(files: &[String]) -> Option<(String, String)> {
    let mut seen = std::collections::BTreeMap::new();
    for f in files {
        if let Some(other) = seen.insert(parquet::output_name(f), f) {
            return Some((other.clone(), f.clone()));
        }
    }
    None
}

/// Exports the files (several in parallel, each through its own pipeline and analysers).
pub fn run(args: Options) -> Result<i32> {
    analysers(&args.analysis)?;
    if let Some((a, b)) = same_names(&args.files.files) {
        return Err(Error::msg(format!(
            "{a} and {b} have the same file name: their tables would have the same name under \
             {}; export them in separate runs into separate directories, or rename one",
            args.parquet.display()
        )));
    }
    std::fs::create_dir_all(&args.parquet)
        .map_err(|e| Error::msg(format!("cannot create {}: {e}", args.parquet.display())))?;
    let bars = Bars::new(args.files.no_progress, true);
    let files = &args.files.files;
    let several = files.len() > 1;
    let mut worst = exit::OK;
    // Threads to spare beyond one per file go to the files' own (as `check`'s).
    let per_file = (args.files.thread_budget() / files.len().max(1)).max(1);
    for_each_ordered(
        files,
        args.files.threads(),
        |file| export_file(&args, file, several.then_some(file), &bars, per_file),
        |i, done| {
            let file = files.get(i).map_or("", String::as_str);
            match done {
                Ok(x) => {
                    bars.eprintln(&format!(
                        "poolshark: {file}: {} messages, {} windows written under {}",
                        x.messages,
                        x.windows,
                        Path::new(&args.parquet).display()
                    ));
                    if let Some(why) = x.fatal {
                        bars.eprintln(&format!("poolshark: {file}: stopped early: {why}"));
                    }
                }
                Err(e) => {
                    bars.eprintln(&format!("poolshark: {e}"));
                    worst = exit::USAGE;
                }
            }
        },
    );
    Ok(worst)
}
