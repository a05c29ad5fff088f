//! `poolshark check FILE`: replay what the capture shows through the reference algorithms and
//! report every deviation ([`crate::run::check`] runs it).
//!
//! Exit 0 when no finding is at or above `--fail-on` (default warning), 1 when one is, 2 on a usage
//! or input error, so it can gate a CI job. Several files are checked in parallel, each on its
//! own; the exit code is the worst of theirs.

use super::input::CaptureFilesArgs;
use crate::analyse::finding::Severity;
use crate::run::analysis::AnalysisArgs;
use crate::run::anyhow_like::Result;
use crate::run::check::{self, CheckFormat};
use crate::run::seeds::SeedArg;

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
    #[arg(long, value_name = "FILE", value_parser = super::args::plot_file, help_heading = "Output")]
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
    pub leases: Vec<SeedArg>,

    /// Write the run's Prometheus metrics to FILE at the end, in the text format that `capture
    /// --metrics` serves (for a node exporter's textfile collector, or a batch job). Several
    /// files: one snapshot, each series labelled with its `file`.
    #[arg(long, value_name = "FILE", help_heading = "Output")]
    pub metrics_file: Option<std::path::PathBuf>,
}

pub fn run(mut args: CheckArgs) -> Result<i32> {
    args.input.take_read();
    let pipeline = args.input.analysis_options()?;
    args.input.check_files()?;
    check::run(check::Options {
        files: args.input.files(),
        pipeline,
        analysis: args.analysis,
        format: args.format,
        fail_on: args.fail_on,
        all_findings: args.all_findings,
        plot: args.plot,
        leases: args.leases,
        metrics_file: args.metrics_file,
    })
}
