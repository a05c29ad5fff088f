//! `poolshark export --parquet DIR FILE...`: each capture's messages, judged DHCP transactions,
//! checked RSerPool resolutions, findings and `stats` windows as Parquet tables under
//! `DIR/TABLE/` ([`crate::run::export`] runs it).

use std::path::PathBuf;

use super::input::CaptureFilesArgs;
use crate::run::analysis::AnalysisArgs;
use crate::run::anyhow_like::Result;
use crate::run::export;

#[derive(clap::Args, Debug)]
pub struct ExportArgs {
    /// Write Parquet tables under DIR: DIR/messages/, DIR/dhcp_transactions/,
    /// DIR/rserpool_resolutions/, DIR/findings/, DIR/windows/, one file per capture in each,
    /// named after the capture's file name (two captures of one run may not share a name).
    #[arg(long, value_name = "DIR", help_heading = "Output")]
    pub parquet: PathBuf,

    /// Window length of the `windows` table, as `stats --interval`.
    #[arg(long, default_value = "60s", value_parser = super::args::parse_duration_ns, help_heading = "Output")]
    pub interval: u64,

    #[command(flatten)]
    pub input: CaptureFilesArgs,

    #[command(flatten)]
    pub analysis: AnalysisArgs,
}

pub fn run(mut args: ExportArgs) -> Result<i32> {
    args.input.take_read();
    args.input.check_files()?;
    export::run(export::Options {
        parquet: args.parquet,
        interval: args.interval,
        files: args.input.files(),
        pipeline: args.input.analysis_options().map_err(|e| e.to_string()),
        analysis: args.analysis,
    })
}
