//! The run of `poolshark tui FILE`: the balance of every pool over time in the terminal, with
//! the same analysers as `check` and `stats`; `-i IFACE` shows a live capture as it arrives.

use std::fs::File;
use std::io::{BufReader, IsTerminal};
use std::path::Path;
use std::sync::Arc;

use crate::pipeline::Options as PipelineOptions;
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

/// What the TUI shows: a capture file (`-`: standard input) or a live capture.
pub enum Input {
    File(String),
    Live(LiveOptions),
}

/// What `tui` is given, already parsed: the input, how its payloads are decoded, the analysers'
/// options (checked here, before the screen is taken over), the chart's base interval and the
/// colours.
pub struct Options {
    pub input: Input,
    pub options: PipelineOptions,
    pub analysis: AnalysisArgs,
    pub interval_ns: u64,
    pub palette: Palette,
}

/// Reads the input on the loader's thread and draws it until the user quits.
pub fn run(args: Options) -> Result<i32> {
    let Options {
        input,
        options,
        analysis,
        interval_ns,
        palette,
    } = args;
    match input {
        Input::File(file) => run_file(file, options, analysis, interval_ns, palette),
        Input::Live(live) => run_live(&live, options, analysis, interval_ns, palette),
    }
}

/// `poolshark tui FILE`: a file is counted as it is read (the progress), and read again for a
/// frame's tree; standard input keeps its recent frames instead.
fn run_file(
    file: String,
    options: PipelineOptions,
    analysis: AnalysisArgs,
    interval_ns: u64,
    palette: Palette,
) -> Result<i32> {
    // Bad analysis options are reported here, before the screen is taken over.
    analysers(&analysis)?;
    if !std::io::stdout().is_terminal() {
        return Err(Error::msg(
            "poolshark tui draws on a terminal: for text output use poolshark stats or poolshark check",
        ));
    }
    let mut cfg = LoaderConfig {
        options: options.clone(),
        interval_ns,
        max_findings: analysis.max_findings,
        ..LoaderConfig::default()
    };
    let source: Box<dyn FrameSource + Send> = if file == "-" {
        cfg.keep_recent = RECENT_FRAMES;
        Box::new(crate::run::files::open_file(&file)?)
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
    let app = App::new(title, interval_ns, palette);
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
fn run_live(
    live: &LiveOptions,
    options: PipelineOptions,
    analysis: AnalysisArgs,
    interval_ns: u64,
    palette: Palette,
) -> Result<i32> {
    analysers(&analysis)?;
    if !std::io::stdout().is_terminal() {
        return Err(Error::msg(
            "poolshark tui draws on a terminal: for text output use poolshark capture",
        ));
    }
    // Opened before the screen is taken over, so a missing privilege is a plain error message.
    let source = LiveSource::open(live).map_err(|e| Error::msg(e.to_string()))?;
    let info = source.info().clone();
    let stop = source.stop_handle();
    let cfg = LoaderConfig {
        options,
        interval_ns,
        max_findings: analysis.max_findings,
        live: true,
        keep_recent: RECENT_FRAMES,
        ..LoaderConfig::default()
    };
    let title = format!("{} (live)", info.name);
    let app = App::new(title, interval_ns, palette);
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
