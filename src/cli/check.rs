//! `poolshark check FILE`: replay what the capture shows through the reference algorithms and
//! report every deviation.
//!
//! Exit 0 when no finding is at or above `--fail-on` (default warning), 1 when one is, 2 on a usage
//! or input error, so it can gate a CI job. Several files are checked in parallel, each on its
//! own; the exit code is the worst of theirs.

use std::io::Write;

use super::anyhow_like::{Error, Result};
use super::configs::{self, Configs};
use super::exit;
use super::files::{for_each_ordered, run_file, run_file_parts};
use super::input::CaptureFilesArgs;
use super::progress::Bars;
use crate::analyse::dhcp_lb::config::Source;
use crate::analyse::dhcp_lb::{from_setup, ConfigFile, DhcpLbAnalyser, Overrides, Settings};
use crate::analyse::failover::from_config::FailoverSetup;
use crate::analyse::failover::{self, FailoverAnalyser, Params, PoolRange};
use crate::analyse::finding::{Findings, Severity};
use crate::analyse::setup::SetupAnalyser;
use crate::analyse::{Analyser, Report};
use crate::dissect::FrameSummary;
use crate::handoff::Part;
use crate::pipeline::{Decoded, Sink};
use crate::proto::AppProtocol;
use crate::source::{Frame, SourceError};

#[derive(clap::Args, Debug)]
pub struct CheckArgs {
    #[command(flatten)]
    pub input: CaptureFilesArgs,

    #[command(flatten)]
    pub analysis: AnalysisArgs,

    /// Output format (several files: a `== FILE` header before each report, or a JSON array of
    /// the reports, each with its `file`).
    #[arg(long, value_enum, default_value = "text", help_heading = "Output")]
    pub format: CheckFormat,

    /// Exit 1 when a finding is at or above this severity.
    #[arg(
        long,
        value_name = "info|warning|error",
        default_value = "warning",
        help_heading = "Output"
    )]
    pub fail_on: Severity,

    /// List every finding in the text report. Without it, four or more alike findings in a
    /// row (one rule, severity, subject and circumstance, each within 10 s of the one before:
    /// an outage seen by every client it left without service) show the first and a line
    /// counting the rest. JSON always lists every finding.
    #[arg(long, help_heading = "Output")]
    pub all_findings: bool,

    /// Also draw the pools and pairs with findings over time into FILE (`.svg` or `.png`), as
    /// `stats --plot` does; several give one file each, FILE-<name>.svg.
    #[arg(long, value_name = "FILE", value_parser = super::stats::plot_file, help_heading = "Output")]
    pub plot: Option<String>,

    /// A failover server's dhcpd.leases as the state the replay starts from, as
    /// `[primary=|secondary=]FILE` (the role is the file's when its failover state tells, else
    /// the one given; one file per server). It must be the state at the capture's start or
    /// before it (a file saved before the capture): a file showing a later time, such as one
    /// saved at the end, is not used.
    #[arg(
        long = "leases",
        value_name = "[ROLE=]FILE",
        help_heading = "ISC DHCP failover"
    )]
    pub leases: Vec<super::leases::SeedArg>,

    /// Write the run's Prometheus metrics to FILE at the end, in the text format that `capture
    /// --metrics` serves (for a node exporter's textfile collector, or a batch job). Several
    /// files: one snapshot, each series labelled with its `file`.
    #[arg(long, value_name = "FILE", help_heading = "Output")]
    pub metrics_file: Option<std::path::PathBuf>,
}

/// How the analysers are set up: shared by `check`, `stats` and the TUI.
#[derive(clap::Args, Debug, Clone)]
pub struct AnalysisArgs {
    /// Reference profiles, by name (repeatable): RSerPool rfc5356|draft01|rsplib|auto (default
    /// auto), DHCP load balancing draft|kea|isc, failover balance isc-code|isc-doc.
    #[arg(long = "profile", value_name = "NAME")]
    pub profiles: Vec<String>,

    /// Findings kept in the report (counts stay exact beyond it).
    #[arg(long, default_value_t = 100_000)]
    pub max_findings: usize,

    /// A server's own configuration, one per server (repeatable): ISC dhcpd's dhcpd.conf or
    /// Kea's kea-dhcp4.conf / kea-dhcp6.conf, the reference for the pair (servers, roles, bucket
    /// map, delayed-service threshold, pool balance options, failover pools); or poolshark's
    /// TOML file. The kind is told by the content. A file with errors is reported
    /// (FILE:LINE:COLUMN) and left out.
    #[arg(long = "config", value_name = "FILE")]
    pub configs: Vec<std::path::PathBuf>,

    /// The `--config` files, read once (their errors reported once).
    #[arg(skip)]
    pub loaded: std::sync::OnceLock<std::result::Result<Configs, String>>,

    #[command(flatten)]
    pub dhcp_lb: DhcpLbArgs,

    #[command(flatten)]
    pub failover: FailoverArgs,
}

/// The failover pair's pool balance settings: the options, else the failover peer statements
/// of `--config`'s dhcpd.conf, else dhcpd's defaults.
#[derive(clap::Args, Debug, Clone)]
#[command(next_help_heading = "ISC DHCP failover")]
pub struct FailoverArgs {
    /// max-lease-misbalance, percent [default: the config's, else 15].
    #[arg(long, value_name = "PERCENT")]
    pub max_lease_misbalance: Option<u32>,
    /// max-lease-ownership, percent [default: the config's, else 10].
    #[arg(long, value_name = "PERCENT")]
    pub max_lease_ownership: Option<u32>,
    /// min-balance, seconds [default: the config's, else 60].
    #[arg(long, value_name = "SECONDS")]
    pub min_balance: Option<u32>,
    /// max-balance, seconds [default: the config's, else 3600].
    #[arg(long, value_name = "SECONDS")]
    pub max_balance: Option<u32>,
    /// A failover pool as `NAME=FIRST-LAST` (repeatable); without any, the config's pools with a
    /// failover peer, else one pool per /24.
    #[arg(long = "failover-pool", value_name = "NAME=FIRST-LAST")]
    pub pools: Vec<PoolRange>,
}

impl FailoverArgs {
    /// The balance options: each option given, else `from_config`'s, else dhcpd's default; and
    /// where they came from (the command line when any option is given, else the config when
    /// there is one, else the defaults).
    pub fn params(&self, from_config: Option<Params>) -> (Params, Source) {
        let base = from_config.unwrap_or_default();
        let p = Params {
            max_lease_misbalance: self
                .max_lease_misbalance
                .unwrap_or(base.max_lease_misbalance),
            max_lease_ownership: self.max_lease_ownership.unwrap_or(base.max_lease_ownership),
            min_balance: self.min_balance.unwrap_or(base.min_balance),
            max_balance: self.max_balance.unwrap_or(base.max_balance),
        };
        let given = [
            self.max_lease_misbalance,
            self.max_lease_ownership,
            self.min_balance,
            self.max_balance,
        ];
        let source = if given.iter().any(Option::is_some) {
            Source::CommandLine
        } else if from_config.is_some() {
            Source::ConfigFile
        } else {
            Source::Default
        };
        (p, source)
    }

    /// The pools: `--failover-pool`, else `from_config`'s, else one per /24.
    pub fn pool_map(&self, from_config: &[PoolRange]) -> Result<failover::PoolMap> {
        let ranges = if self.pools.is_empty() {
            from_config
        } else {
            &self.pools
        };
        if ranges.is_empty() {
            Ok(failover::PoolMap::default())
        } else {
            failover::PoolMap::ranges(ranges.to_vec()).map_err(Error::msg)
        }
    }

    /// The failover replay's configuration, under the failover `profile`, for the pair that
    /// `setup` (read from `--config`) describes.
    pub fn config(&self, profile: Option<&str>, setup: &FailoverSetup) -> Result<failover::Config> {
        let profile = failover::Profile::by_name(profile.unwrap_or("isc-code"))
            .ok_or_else(|| Error::msg("unknown failover profile"))?;
        // One set of options for the replay: the primary's (the secondary's files are told
        // apart by config.mismatch when they differ).
        let (params, params_source) =
            self.params(setup.params_for(crate::analyse::dhcp_lb::Role::Primary));
        Ok(failover::Config {
            profile,
            params,
            params_source: params_source.name(),
            pools: self.pool_map(&setup.pools)?,
            hba: setup.hba,
            ..failover::Config::default()
        })
    }
}

/// DHCP load-balancing settings.
#[derive(clap::Args, Debug, Clone)]
#[command(next_help_heading = "DHCP load balancing")]
pub struct DhcpLbArgs {
    /// The hash bucket assignment (split:N, kea, or 64 hex digits).
    #[arg(long, value_name = "SPEC")]
    pub hba: Option<String>,

    /// Seconds a client waits (secs / elapsed time) before the server
    /// that does not own its bucket may answer.
    #[arg(long, value_name = "SECONDS")]
    pub lb_threshold: Option<u32>,

    /// DHCP transactions (client, xid) followed at once; the least recent are evicted and
    /// counted [default: 100000].
    #[arg(long, value_name = "N")]
    pub max_dhcp_transactions: Option<usize>,

    /// Client transmissions awaiting a verdict at once; the oldest are judged early, counted
    /// [default: 200000].
    #[arg(long, value_name = "N")]
    pub max_dhcp_pending: Option<usize>,
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
    input: &super::input::CaptureArgs,
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
    run_file_parts(file, input, opts, bars, label, handed, None)
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

impl AnalysisArgs {
    /// The `--config` files, read (and their errors reported) the first time they are asked for.
    pub fn configs(&self) -> Result<&Configs> {
        self.loaded
            .get_or_init(|| configs::load(&self.configs).map_err(|e| e.to_string()))
            .as_ref()
            .map_err(|e| Error::msg(e.clone()))
    }
}

/// The analysers `check` runs, configured from the command line.
pub fn analysers(args: &AnalysisArgs) -> Result<Vec<Box<dyn Analyser>>> {
    analysers_seeded(args, Vec::new())
}

/// [`analysers`] with the failover replay starting from lease files.
pub fn analysers_seeded(
    args: &AnalysisArgs,
    seeds: Vec<failover::seed::LeaseSeed>,
) -> Result<Vec<Box<dyn Analyser>>> {
    let profiles = Profiles::from_names(&args.profiles)?;
    let configs = args.configs()?;
    // RSerPool: every Handle Resolution Response against the reference selection policies.
    let rserpool = crate::analyse::rserpool::RserpoolAnalyser::from_profile_name(
        profiles.rserpool.as_deref(),
    )?;
    let failover_setup = failover::from_config::setup(&configs.servers);
    let (lb_file, notes) = from_setup::config_file(&configs.servers);
    let mut a: Vec<Box<dyn Analyser>> = vec![Box::new(rserpool)];
    if !configs.servers.is_empty() {
        a.push(Box::new(SetupAnalyser::new(configs.servers.clone(), notes)));
    }
    a.push(Box::new(dhcp_lb_analyser(
        &args.dhcp_lb,
        &profiles,
        configs,
        lb_file,
    )?));
    a.push(Box::new(FailoverAnalyser::with_seeds(
        args.failover
            .config(profiles.failover.as_deref(), &failover_setup)?,
        seeds,
    )));
    Ok(a)
}

/// The DHCP load-balancing replay, from `--config` (the servers' files, then poolshark's TOML
/// over them), `--hba`, `--lb-threshold` and the DHCP `--profile`.
fn dhcp_lb_analyser(
    args: &DhcpLbArgs,
    profiles: &Profiles,
    configs: &Configs,
    from_servers: ConfigFile,
) -> Result<DhcpLbAnalyser> {
    let file = match (&configs.toml, configs.servers.is_empty()) {
        (None, true) => None,
        (None, false) => Some(from_servers),
        (Some(t), _) => Some(from_setup::merged(from_servers, t.clone())),
    };
    let cli = Overrides {
        profile: profiles.dhcp.clone(),
        hba: args.hba.clone(),
        threshold: args.lb_threshold,
        max_transactions: args.max_dhcp_transactions,
        max_pending: args.max_dhcp_pending,
    };
    Ok(DhcpLbAnalyser::new(Settings::resolve(file.as_ref(), &cli)?))
}

pub fn run(mut args: CheckArgs) -> Result<i32> {
    args.input.take_read();
    let opts = args.input.analysis_options()?;
    args.input.check_files()?;
    // Bad analysis options are reported once, before any file is read.
    analysers(&args.analysis)?;
    let bars = Bars::new(args.input.progress.no_progress, true);
    let files = &args.input.files;
    if let [file] = files.as_slice() {
        let checked = check_file(&args, &opts, file, None, &bars, args.input.thread_budget())?;
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
    let per_file = (args.input.thread_budget() / files.len()).max(1);
    let mut worst = exit::OK;
    let mut out = std::io::stdout().lock();
    let mut written: Result<()> = Ok(());
    let mut metrics = crate::output::metrics::Exposition::new();
    if args.format == CheckFormat::Json {
        written = out.write_all(b"[\n").map_err(Error::from);
    }
    for_each_ordered(
        files,
        args.input.threads(),
        |file| check_file(&args, &opts, file, Some(file), &bars, per_file),
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
    args: &CheckArgs,
    opts: &crate::pipeline::Options,
    file: &str,
    label: Option<&str>,
    bars: &Bars,
    threads: usize,
) -> Result<Checked> {
    let input = args.input.capture(file);
    let seeds = super::leases::read_seeds(&args.leases)?;
    let mut parts = parts(
        analysers_seeded(&args.analysis, seeds)?,
        args.analysis.max_findings,
        args.plot.is_some(),
        args.metrics_file.is_some(),
    );
    let (stats, fatal) = if threads > 1 && parts.len() > 1 {
        run_parts(file, &input, opts, bars, label, &mut parts)?
    } else {
        run_file(file, &input, opts, bars, label, &mut Fan(&mut parts))?
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
