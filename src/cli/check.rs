//! `poolshark check FILE`: replay what the capture shows through the reference algorithms and
//! report every deviation.
//!
//! Exit 0 when no finding is at or above `--fail-on` (default warning), 1 when one is, 2 on a usage
//! or input error, so it can gate a CI job.

use std::io::Write;

use super::anyhow_like::{Error, Result};
use super::exit;
use super::input::CaptureArgs;
use crate::analyse::finding::{Findings, Severity};
use crate::analyse::{Analyser, Report};
use crate::dissect::FrameSummary;
use crate::pipeline::{Decoded, Pipeline, Sink};
use crate::source::{Frame, SourceError};

#[derive(clap::Args, Debug)]
pub struct CheckArgs {
    #[command(flatten)]
    pub input: CaptureArgs,

    /// Reference profiles, by name (repeatable): RSerPool rfc5356|draft01|rsplib|auto (default
    /// auto), DHCP load balancing draft|kea|isc, failover balance isc-code|isc-doc.
    #[arg(long = "profile", value_name = "NAME")]
    pub profiles: Vec<String>,

    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    pub format: CheckFormat,

    /// Exit 1 when a finding is at or above this severity.
    #[arg(long, value_name = "info|warning|error", default_value = "warning")]
    pub fail_on: Severity,

    /// Findings kept in the report (counts stay exact beyond it).
    #[arg(long, default_value_t = 100_000)]
    pub max_findings: usize,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum CheckFormat {
    Text,
    Json,
}

/// Feeds every message to every analyser.
pub struct CheckSink {
    pub analysers: Vec<Box<dyn Analyser>>,
    pub report: Report,
}

impl Sink for CheckSink {
    fn message(&mut self, d: &Decoded<'_>) {
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

/// The profile chosen for each family of reference algorithms.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Profiles {
    /// rfc5356, draft01, rsplib or auto.
    pub rserpool: Option<String>,
    /// draft, kea or isc.
    pub dhcp: Option<String>,
    /// isc-code or isc-doc.
    pub failover: Option<String>,
}

const RSERPOOL_PROFILES: &[&str] = &["rfc5356", "draft01", "rsplib", "auto"];
const DHCP_PROFILES: &[&str] = &["draft", "kea", "isc"];
const FAILOVER_PROFILES: &[&str] = &["isc-code", "isc-doc"];

impl Profiles {
    /// Sorts `--profile` values into their families by name (the names do not overlap).
    pub fn from_names(names: &[String]) -> Result<Profiles> {
        let mut p = Profiles::default();
        for n in names {
            let slot = if RSERPOOL_PROFILES.contains(&n.as_str()) {
                &mut p.rserpool
            } else if DHCP_PROFILES.contains(&n.as_str()) {
                &mut p.dhcp
            } else if FAILOVER_PROFILES.contains(&n.as_str()) {
                &mut p.failover
            } else {
                return Err(Error::msg(format!(
                    "unknown --profile {n:?}: RSerPool {}, DHCP load balancing {}, failover {}",
                    RSERPOOL_PROFILES.join("|"),
                    DHCP_PROFILES.join("|"),
                    FAILOVER_PROFILES.join("|")
                )));
            };
            if let Some(old) = slot.replace(n.clone()) {
                if old != *n {
                    return Err(Error::msg(format!(
                        "--profile {old} and --profile {n} are of the same family: give one"
                    )));
                }
            }
        }
        Ok(p)
    }
}

/// The analysers `check` runs, configured from the command line.
pub fn analysers(args: &CheckArgs) -> Result<Vec<Box<dyn Analyser>>> {
    let profiles = Profiles::from_names(&args.profiles)?;
    // RSerPool: every Handle Resolution Response against the reference selection policies.
    let rserpool =
        crate::analyse::rserpool::RserpoolReplay::from_profile_name(profiles.rserpool.as_deref())?;
    let a: Vec<Box<dyn Analyser>> = vec![Box::new(rserpool)];
    Ok(a)
}

pub fn run(args: CheckArgs) -> Result<i32> {
    let opts = args.input.options()?;
    let mut sink = CheckSink {
        analysers: analysers(&args)?,
        report: Report::new(args.max_findings, 60_000_000_000),
    };
    let mut source = args.input.open()?;
    let mut pipeline = Pipeline::new(opts);
    let fatal = pipeline.run(&mut source, &mut sink).err();
    let stats = pipeline.stats();
    for a in &mut sink.analysers {
        a.finish(stats.last, &mut sink.report);
    }
    let findings = &mut sink.report.findings;
    findings.sort();
    let mut out = std::io::stdout().lock();
    match args.format {
        CheckFormat::Text => {
            let mut s = String::new();
            for f in findings.list() {
                s.push_str(&f.to_string());
                s.push('\n');
            }
            for a in &sink.analysers {
                a.report_text(&mut s);
            }
            s.push_str(&summary_text(findings));
            out.write_all(s.as_bytes())?;
        }
        CheckFormat::Json => {
            let mut m = serde_json::Map::new();
            m.insert(
                "findings".into(),
                findings.list().iter().map(|f| f.to_json()).collect(),
            );
            for a in &sink.analysers {
                a.report_json(&mut m);
            }
            m.insert("summary".into(), summary_json(findings, &stats));
            serde_json::to_writer_pretty(&mut out, &serde_json::Value::Object(m))?;
            out.write_all(b"\n")?;
        }
    }
    out.flush()?;
    eprintln!("poolshark: {}", stats.summary_line());
    if let Some(e) = fatal {
        eprintln!("poolshark: stopped reading {}: {e}", args.input.file);
        return Ok(exit::USAGE);
    }
    Ok(if findings.any_at_least(args.fail_on) {
        exit::FINDINGS
    } else {
        exit::OK
    })
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
    })
}
