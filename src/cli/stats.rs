//! `poolshark stats FILE [--interval DURATION] [--format text|json|csv]`: how every pool and server
//! pair was balanced over time, against what the references predict, and message statistics
//! ([`crate::run::stats`] runs it).

use super::input::CaptureFilesArgs;
use crate::run::analysis::AnalysisArgs;
use crate::run::anyhow_like::Result;
use crate::run::stats::{self, StatsFormat};

/// `--jobs` as `stats` uses it: as `check` does, threads to spare beyond one per file go to each
/// file's parts (RSerPool and DHCP decoded and analysed apart).
pub const JOBS_HELP: &str = "Threads: files analysed at once, each read on a thread of its own; \
threads to spare beyond one per file decode and analyse RSerPool and DHCP apart [default: the \
cores available]";

#[derive(clap::Args, Debug)]
pub struct StatsArgs {
    #[command(flatten)]
    pub input: CaptureFilesArgs,

    #[command(flatten)]
    pub analysis: AnalysisArgs,

    /// Window length: e.g. `10s`, `1m`, `500ms`, `1h` (a number alone is seconds).
    #[arg(long, default_value = "60s", value_parser = super::args::parse_duration_ns, help_heading = "Output")]
    pub interval: u64,

    /// Output format (several files: a `== FILE` header before each, a JSON array of objects
    /// with their `file`, or CSV with a first column `file`).
    #[arg(long, value_enum, default_value = "text", help_heading = "Output")]
    pub format: StatsFormat,

    /// Also draw each pool's and pair's balance over time into FILE (`.svg` or `.png`): shares
    /// against expected shares, episodes, findings, failover pools; several pools or pairs give
    /// one file each, FILE-<name>.svg.
    #[arg(long, value_name = "FILE", value_parser = super::args::plot_file, help_heading = "Output")]
    pub plot: Option<String>,
}

pub fn run(mut args: StatsArgs) -> Result<i32> {
    args.input.take_read();
    let pipeline = args.input.analysis_options()?;
    args.input.check_files()?;
    stats::run(stats::Options {
        files: args.input.files(),
        pipeline,
        analysis: args.analysis,
        interval: args.interval,
        format: args.format,
        plot: args.plot,
    })
}
