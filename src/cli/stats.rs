//! `poolshark stats FILE [--interval DURATION] [--format text|json|csv]`: how every pool and server
//! pair was balanced over time, against what the references predict, and message statistics.
//! One streaming pass with the same analysers as `check`.

use std::io::Write;

use super::anyhow_like::{Error, Result};
use super::check::{analysers, AnalysisArgs};
use super::exit;
use super::input::CaptureArgs;
use crate::analyse::msgstats::MessageStats;
use crate::analyse::timeline::Timeline;
use crate::analyse::{Analyser, Report};
use crate::dissect::FrameSummary;
use crate::output::stats as out;
use crate::pipeline::{Decoded, Pipeline, Sink};
use crate::source::{Frame, SourceError};

#[derive(clap::Args, Debug)]
pub struct StatsArgs {
    #[command(flatten)]
    pub input: CaptureArgs,

    #[command(flatten)]
    pub analysis: AnalysisArgs,

    /// Window length: e.g. `10s`, `1m`, `500ms`, `1h` (a number alone is seconds).
    #[arg(long, default_value = "60s", value_parser = parse_duration_ns)]
    pub interval: u64,

    #[arg(long, value_enum, default_value = "text")]
    pub format: StatsFormat,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum StatsFormat {
    Text,
    Json,
    Csv,
}

/// A duration in nanoseconds from `500ms`, `10s`, `2m`, `1h`, `1.5s` or a plain number of seconds.
pub fn parse_duration_ns(s: &str) -> std::result::Result<u64, String> {
    let t = s.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let n: f64 = num
        .parse()
        .map_err(|_| format!("bad duration {s:?}: expected e.g. 10s, 1m, 500ms"))?;
    let scale = match unit.trim() {
        "" | "s" => 1e9,
        "ms" => 1e6,
        "us" => 1e3,
        "m" | "min" => 60e9,
        "h" => 3600e9,
        u => {
            return Err(format!(
                "bad duration {s:?}: unknown unit {u:?} (ms, s, m, h)"
            ))
        }
    };
    let ns = n * scale;
    if !(1.0..1e19).contains(&ns) {
        return Err(format!("bad duration {s:?}: must be at least 1ns"));
    }
    Ok(ns as u64)
}

/// Feeds the analysers and the message statistics.
pub struct StatsSink {
    pub analysers: Vec<Box<dyn Analyser>>,
    pub report: Report,
    pub messages: MessageStats,
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

    fn source_error(&mut self, e: &SourceError) {
        eprintln!("poolshark: {e}");
    }
}

pub fn run(args: StatsArgs) -> Result<i32> {
    let opts = args.input.options()?;
    let mut sink = StatsSink {
        analysers: analysers(&args.analysis)?,
        report: Report {
            findings: crate::analyse::finding::Findings::new(args.analysis.max_findings),
            timeline: Timeline::new(args.interval),
        },
        messages: MessageStats::new(),
    };
    let mut source = args.input.open()?;
    let mut pipeline = Pipeline::new(opts);
    let fatal = pipeline.run(&mut source, &mut sink).err();
    let stats = pipeline.stats();
    for a in &mut sink.analysers {
        a.finish(stats.last, &mut sink.report);
    }
    let rows = sink.messages.rows();
    let mut text = String::new();
    match args.format {
        StatsFormat::Text => {
            out::message_table_text(&rows, &mut text);
            out::series_text(&sink.report.timeline, &mut text);
        }
        StatsFormat::Json => {
            let j = out::json(&rows, &sink.report.timeline);
            text = serde_json::to_string_pretty(&j).map_err(|e| Error::msg(e.to_string()))?;
            text.push('\n');
        }
        StatsFormat::Csv => out::csv(&rows, &sink.report.timeline, &mut text),
    }
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(text.as_bytes())?;
    stdout.flush()?;
    eprintln!("poolshark: {}", stats.summary_line());
    if let Some(e) = fatal {
        eprintln!("poolshark: stopped reading {}: {e}", args.input.file);
        return Ok(exit::USAGE);
    }
    Ok(exit::OK)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration_ns("10s"), Ok(10_000_000_000));
        assert_eq!(parse_duration_ns("500ms"), Ok(500_000_000));
        assert_eq!(parse_duration_ns("2m"), Ok(120_000_000_000));
        assert_eq!(parse_duration_ns("1.5"), Ok(1_500_000_000));
        assert_eq!(parse_duration_ns("1h"), Ok(3_600_000_000_000));
        assert!(parse_duration_ns("0s").is_err());
        assert!(parse_duration_ns("ten").is_err());
        assert!(parse_duration_ns("5 parsecs").is_err());
    }
}
