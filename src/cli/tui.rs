//! `poolshark tui FILE`: the balance of every pool over time in the terminal, with the same
//! analysers as `check` and `stats`; `-i IFACE` shows a live capture as it arrives.

use std::fs::File;
use std::io::{BufReader, IsTerminal};
use std::path::Path;
use std::sync::Arc;

use super::args::parse_duration_ns;
use super::input::{filter_choice, CaptureArgs, DecodeArgs};
use crate::run::analysis::{analysers, AnalysisArgs};
use crate::run::anyhow_like::{Error, Result};
use crate::run::exit;
use crate::source::file::FileSource;
use crate::source::live::{LiveOptions, LiveSource};
use crate::source::FrameSource;
use crate::tui::loader::Counted;
use crate::tui::palette::Palette;
use crate::tui::{App, FrameLookup, LoadState, Loader, LoaderConfig};

/// Frames whose decoded trees are kept for the detail view when the input cannot be read twice.
const RECENT_FRAMES: usize = 2000;

#[derive(clap::Args, Debug)]
pub struct TuiArgs {
    /// Capture file: pcap or pcapng, optionally gzip-compressed; `-` reads standard input.
    #[arg(value_name = "FILE", required_unless_present_any = ["interface", "read"])]
    pub file: Option<String>,

    /// The capture file, as tshark names it (`-r FILE`): instead of FILE, not with it.
    #[arg(short = 'r', long = "read", value_name = "FILE", conflicts_with_all = ["file", "interface"])]
    pub read: Option<String>,

    /// Capture live on this interface instead of reading a file.
    #[arg(short = 'i', long, value_name = "IFACE", conflicts_with = "file")]
    pub interface: Option<String>,

    /// With -i: the capture filter, as for `poolshark capture` (without it only what poolshark
    /// decodes is kept).
    #[arg(
        short = 'f',
        long = "filter",
        value_name = "FILTER",
        requires = "interface"
    )]
    pub filter: Option<String>,

    #[command(flatten)]
    pub decode: DecodeArgs,

    #[command(flatten)]
    pub analysis: AnalysisArgs,

    /// The chart's base interval (`+` and `-` show multiples of it): e.g. `10s`, `1m`, `500ms`.
    #[arg(long, default_value = "10s", value_parser = parse_duration_ns, help_heading = "Display")]
    pub interval: u64,

    /// Colours: auto (none when NO_COLOR is set or TERM is dumb or unset), always, never.
    #[arg(long, value_enum, default_value = "auto", help_heading = "Display")]
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

pub fn run(args: TuiArgs) -> Result<i32> {
    if let Some(interface) = args.interface.clone() {
        return run_live(args, &interface);
    }
    let file = args
        .file
        .clone()
        .or_else(|| args.read.clone())
        .unwrap_or_else(|| "-".into());
    let capture = CaptureArgs {
        file: Some(file.clone()),
        read: None,
        decode: args.decode.clone(),
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

/// `poolshark tui -i IFACE`: the live source read on the loader's thread; quitting stops it.
fn run_live(args: TuiArgs, interface: &str) -> Result<i32> {
    let options = args.decode.options()?;
    analysers(&args.analysis)?;
    if !std::io::stdout().is_terminal() {
        return Err(Error::msg(
            "poolshark tui draws on a terminal: for text output use poolshark capture",
        ));
    }
    let mut live = LiveOptions::new(interface);
    live.filter = filter_choice(args.filter.as_deref(), &args.decode);
    // Opened before the screen is taken over, so a missing privilege is a plain error message.
    let source = LiveSource::open(&live).map_err(|e| Error::msg(e.to_string()))?;
    let info = source.info().clone();
    let stop = source.stop_handle();
    let cfg = LoaderConfig {
        options,
        interval_ns: args.interval,
        max_findings: args.analysis.max_findings,
        live: true,
        keep_recent: RECENT_FRAMES,
        ..LoaderConfig::default()
    };
    let title = format!("{} (live)", info.name);
    let app = App::new(title, args.interval, args.color.palette());
    let analysis = args.analysis.clone();
    let mut loader = Loader::spawn(Box::new(source), cfg, move || {
        analysers(&analysis).unwrap_or_default()
    });
    loader.on_stop(move || stop.stop());
    let Some(recent) = loader.recent() else {
        return Err(Error::msg("live view without its frame store"));
    };
    let progress = crate::tui::run(app, loader, FrameLookup::Recent(recent))?;
    eprintln!(
        "poolshark: {} frames, {} messages captured on {}",
        progress.frames, progress.messages, info.name
    );
    if let LoadState::Failed(e) = progress.state {
        eprintln!("poolshark: capture on {} stopped: {e}", info.name);
        return Ok(exit::USAGE);
    }
    Ok(exit::OK)
}
