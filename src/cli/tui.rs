//! `poolshark tui FILE` (or `-i IFACE`): its arguments and the checks that refuse them (the
//! decode options), for [`crate::run::tui`].

use super::args::parse_duration_ns;
use super::input::{filter_choice, DecodeArgs};
use crate::run::analysis::AnalysisArgs;
use crate::run::anyhow_like::Result;
use crate::run::tui::{self, Input};
use crate::source::live::LiveOptions;
use crate::tui::palette::Palette;

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
    let options = args.decode.options()?;
    let input = match &args.interface {
        Some(interface) => {
            let mut live = LiveOptions::new(interface);
            live.filter = filter_choice(args.filter.as_deref(), &args.decode);
            Input::Live(live)
        }
        None => Input::File(
            args.file
                .clone()
                .or_else(|| args.read.clone())
                .unwrap_or_else(|| "-".into()),
        ),
    };
    tui::run(tui::Options {
        input,
        options,
        analysis: args.analysis,
        interval_ns: args.interval,
        palette: args.color.palette(),
    })
}
