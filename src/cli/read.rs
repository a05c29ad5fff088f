//! `poolshark read FILE`: decode a capture, as tshark does ([`crate::run::read`] runs it).

use std::path::{Path, PathBuf};

use super::args::{DisplayFilterArgs, FieldArgs, TimeArgs};
use super::input::{CaptureArgs, ProgressArgs};
use crate::output::Format;
use crate::run::anyhow_like::{Error, Result};
use crate::run::read;

#[derive(clap::Args, Debug)]
pub struct ReadArgs {
    #[command(flatten)]
    pub input: CaptureArgs,

    /// Show the whole field tree of every message, after the frame's lower layers (Ethernet,
    /// VLAN, IP, UDP/TCP/SCTP, tunnels) as tshark -V heads them.
    #[arg(short = 'V', long)]
    pub verbose: bool,

    /// Output format: a line per frame (text), a JSON array, one JSON object per line, or a
    /// line per frame of the fields -e names (fields, as tshark -T fields).
    #[arg(short = 'T', long, value_enum, default_value = "text")]
    pub format: Format,

    #[command(flatten)]
    pub fields: FieldArgs,

    #[command(flatten)]
    pub display: DisplayFilterArgs,

    #[command(flatten)]
    pub time: TimeArgs,

    /// Stop after reading N frames.
    #[arg(short = 'c', long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub count: Option<u64>,

    /// Write the frames the display filter keeps (every frame without -Y) to this pcapng file,
    /// `-` for standard output, instead of listing them. A frame kept brings the frames its
    /// reassembled messages began in (IP and SCTP fragments, TCP segments), as `tshark -2`
    /// does. Link types, nanosecond times, interface names, comments and flags are kept.
    #[arg(short = 'w', long = "write", value_name = "FILE.pcapng")]
    pub write: Option<PathBuf>,

    /// With -w: list the frames too, as without it (tshark's -P).
    #[arg(short = 'P', long = "print", requires = "write")]
    pub print: bool,

    // The bar is drawn only when standard output is not the terminal (sent to a file, a pipe).
    #[command(flatten)]
    pub progress: ProgressArgs,
}

pub fn run(args: ReadArgs) -> Result<i32> {
    let mut pipeline = args.input.options()?;
    // Only the text listing shows tshark's Info text of the frames without a message: the
    // other formats have it not built.
    pipeline.without_info = args.format != Format::Text;
    let filter = args.display.parse()?;
    if let Some(code) = args.fields.refuse_invalid(args.format) {
        return Ok(code);
    }
    let columns = args.fields.columns(args.format)?;
    if args.print && args.write.as_deref() == Some(Path::new("-")) {
        return Err(Error::msg(
            "-P with -w -: the listing and the capture file would both go to standard output",
        ));
    }
    read::run(read::Options {
        file: args.input.file().to_string(),
        pipeline,
        verbose: args.verbose,
        format: args.format,
        columns,
        filter,
        time: args.time.column(),
        count: args.count,
        write: args.write,
        print: args.print,
        no_progress: args.progress.no_progress,
    })
}
