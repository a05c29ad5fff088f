//! `poolshark tui FILE`: the balance of every pool over time in the terminal, with the same
//! analysers as `check` and `stats`. `-i IFACE` is reserved for live capture.

use std::fs::File;
use std::io::{BufReader, IsTerminal};
use std::path::Path;
use std::sync::Arc;

use super::anyhow_like::{Error, Result};
use super::check::{analysers, AnalysisArgs};
use super::exit;
use super::input::CaptureArgs;
use super::stats::parse_duration_ns;
use crate::dissect::dispatch::DecodeAs;
use crate::source::file::FileSource;
use crate::source::FrameSource;
use crate::tui::loader::Counted;
use crate::tui::palette::Palette;
use crate::tui::{App, FrameLookup, LoadState, Loader, LoaderConfig};

/// Frames whose decoded trees are kept for the detail view when the input cannot be read twice.
const RECENT_FRAMES: usize = 2000;

#[derive(clap::Args, Debug)]
pub struct TuiArgs {
    /// Capture file: pcap or pcapng, optionally gzip-compressed; `-` reads standard input.
    #[arg(required_unless_present = "interface")]
    pub file: Option<String>,

    /// Capture live on this interface instead of reading a file.
    #[arg(short = 'i', long, value_name = "IFACE", conflicts_with = "file")]
    pub interface: Option<String>,

    /// Decode traffic on other ports as a protocol, e.g. `udp.port==2001:asap`,
    /// `sctp.port==10001:enrp`, `tcp.port==7911:dhcpfo`, `sctp.ppid==99:asap` (repeatable).
    #[arg(short = 'd', long = "decode-as", value_name = "RULE")]
    pub decode_as: Vec<DecodeAs>,

    /// RSerPool encoding: detected per association unless forced.
    #[arg(
        long,
        value_name = "auto|rfc|draft01|rsplib2007",
        default_value = "auto"
    )]
    pub rserpool_encoding: String,

    #[command(flatten)]
    pub analysis: AnalysisArgs,

    /// The chart's base interval (`+` and `-` show multiples of it): e.g. `10s`, `1m`, `500ms`.
    #[arg(long, default_value = "10s", value_parser = parse_duration_ns)]
    pub interval: u64,

    /// Colours: auto (none when NO_COLOR is set or TERM is dumb or unset), always, never.
    #[arg(long, value_enum, default_value = "auto")]
    pub color: ColorChoice,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

impl ColorChoice {
    pub fn palette(self) -> Palette {
        match self {
            ColorChoice::Auto => Palette::from_env(),
            ColorChoice::Always => Palette::new(true),
            ColorChoice::Never => Palette::new(false),
        }
    }
}

/// The message for `-i` until live capture is part of the build.
pub const LIVE_NOT_AVAILABLE: &str = "live capture (-i) is not available in this build yet: \
     run poolshark tui on a capture file (e.g. one written by tcpdump -w)";

pub fn run(args: TuiArgs) -> Result<i32> {
    if args.interface.is_some() {
        // With a LiveSource this becomes: open it, `loader.on_stop` its stop handle, set
        // `LoaderConfig { live: true, keep_recent: RECENT_FRAMES, .. }` and look frames up in
        // `FrameLookup::Recent(loader.recent())`.
        return Err(Error::msg(LIVE_NOT_AVAILABLE));
    }
    let file = args.file.clone().unwrap_or_else(|| "-".into());
    let capture = CaptureArgs {
        file: file.clone(),
        decode_as: args.decode_as.clone(),
        rserpool_encoding: args.rserpool_encoding.clone(),
    };
    let options = capture.options()?;
    // Bad analysis options are reported here, before the screen is taken over.
    analysers(&args.analysis)?;
    if !std::io::stdout().is_terminal() {
        return Err(Error::msg(
            "poolshark tui draws on a terminal: for text output use poolshark stats or poolshark check",
        ));
    }
    let mut cfg = LoaderConfig {
        options: options.clone(),
        interval_ns: args.interval,
        max_findings: args.analysis.max_findings,
        ..LoaderConfig::default()
    };
    let source: Box<dyn FrameSource + Send> = if file == "-" {
        cfg.keep_recent = RECENT_FRAMES;
        Box::new(capture.open()?)
    } else {
        let f = File::open(&file).map_err(|e| Error::msg(format!("cannot read {file}: {e}")))?;
        cfg.total_bytes = f.metadata().ok().map(|m| m.len());
        let (counted, bytes) = Counted::new(f);
        cfg.bytes = Some(bytes);
        let src = FileSource::from_reader(BufReader::with_capacity(1 << 16, counted))
            .map_err(|e| Error::msg(format!("cannot read {file}: {e}")))?;
        Box::new(src)
    };
    let title = if file == "-" {
        "standard input".to_string()
    } else {
        Path::new(&file)
            .file_name()
            .map_or_else(|| file.clone(), |n| n.to_string_lossy().into_owned())
    };
    let app = App::new(title, args.interval, args.color.palette());
    let analysis = args.analysis.clone();
    let loader = Loader::spawn(source, cfg, move || {
        // Checked above; should it fail now, the capture is still shown, without analysis.
        analysers(&analysis).unwrap_or_default()
    });
    let lookup = match loader.recent() {
        Some(recent) => FrameLookup::Recent(recent),
        None => {
            let path = file.clone();
            FrameLookup::Reopen {
                open: Arc::new(move || {
                    FileSource::open(&path)
                        .map(|s| Box::new(s) as Box<dyn FrameSource + Send>)
                        .map_err(|e| format!("cannot read {path} again: {e}"))
                }),
                options,
            }
        }
    };
    let progress = crate::tui::run(app, loader, lookup)?;
    eprintln!(
        "poolshark: {} frames, {} messages read",
        progress.frames, progress.messages
    );
    if let LoadState::Failed(e) = progress.state {
        eprintln!("poolshark: stopped reading {file}: {e}");
        return Ok(exit::USAGE);
    }
    Ok(exit::OK)
}
