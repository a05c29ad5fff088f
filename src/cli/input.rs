//! Options every command that reads a capture shares, and opening the capture.

use std::num::NonZeroUsize;

use clap::Args;

use crate::dissect::dispatch::DecodeAs;
use crate::filter::capture as capture_filter;
use crate::pipeline::Options;
use crate::proto::rserpool::Encoding;
use crate::run::anyhow_like::{Error, Result};
use crate::run::files::Files;
use crate::source::live::FilterChoice;

#[derive(Args, Debug, Clone)]
pub struct CaptureArgs {
    /// Capture file: pcap or pcapng, optionally gzip-compressed; `-` reads standard input.
    #[arg(value_name = "FILE", required_unless_present = "read")]
    pub file: Option<String>,

    /// The capture file, as tshark names it (`-r FILE`): instead of FILE, not with it.
    #[arg(
        short = 'r',
        long = "read",
        value_name = "FILE",
        conflicts_with = "file"
    )]
    pub read: Option<String>,

    #[command(flatten)]
    pub decode: DecodeArgs,
}

/// One or more capture files analysed side by side (`check`, `stats`), each with its own
/// pipeline and analysers.
#[derive(Args, Debug, Clone)]
pub struct CaptureFilesArgs {
    /// Capture files: pcap or pcapng, optionally gzip-compressed; `-` reads standard input (at
    /// most once). Several files are analysed in parallel and reported one after the other.
    #[arg(value_name = "FILE", required_unless_present = "read", num_args = 1..)]
    pub files: Vec<String>,

    /// A capture file, as tshark names it (`-r FILE`); repeatable, and with FILEs too: the files
    /// of -r come first, in their order, then the others.
    #[arg(short = 'r', long = "read", value_name = "FILE")]
    pub read: Vec<String>,

    /// Threads: files analysed at once; with threads to spare `check` reads and dissects a file
    /// on one and replays its RSerPool and its DHCP traffic on one more each [default: the cores
    /// available].
    #[arg(short = 'j', long, value_name = "N")]
    pub jobs: Option<NonZeroUsize>,

    #[command(flatten)]
    pub progress: ProgressArgs,

    #[command(flatten)]
    pub decode: DecodeArgs,
}

/// The progress bar's switch, shared by the commands that read a file.
#[derive(Args, Debug, Clone, Copy, Default)]
pub struct ProgressArgs {
    /// No progress bar (one is drawn on standard error when it is a terminal and a file is large).
    #[arg(long)]
    pub no_progress: bool,
}

impl CaptureFilesArgs {
    pub fn options(&self) -> Result<Options> {
        self.decode.options()
    }

    /// The options of the commands that only analyse (`check`, `stats`): they never show
    /// tshark's Info text, so it is not built.
    pub fn analysis_options(&self) -> Result<Options> {
        Ok(Options {
            without_info: true,
            ..self.options()?
        })
    }

    /// The files of `-r` put before the others, in [`Self::files`] (done once, first thing).
    pub fn take_read(&mut self) {
        let positional = std::mem::take(&mut self.files);
        self.files = std::mem::take(&mut self.read);
        self.files.extend(positional);
    }

    /// Standard input can be read once: `-` may be given once.
    pub fn check_files(&self) -> Result<()> {
        if self.files.iter().filter(|f| *f == "-").count() > 1 {
            return Err(Error::msg(
                "`-` (standard input) is given more than once: it can be read only once",
            ));
        }
        Ok(())
    }

    /// The files to run (after [`CaptureFilesArgs::take_read`]), with `--jobs` and whether to
    /// draw progress bars.
    pub fn files(&self) -> Files {
        Files {
            files: self.files.clone(),
            jobs: self.jobs,
            no_progress: self.progress.no_progress,
        }
    }
}

/// How payloads are dispatched and decoded: shared by the commands that read a file and by
/// `capture`.
#[derive(Args, Debug, Clone)]
pub struct DecodeArgs {
    /// Decode traffic on other ports as a protocol, e.g. `udp.port==2001:asap`,
    /// `sctp.port==10001:enrp`, `tcp.port==7911:dhcpfo`, `sctp.ppid==99:asap`, or as a tunnel:
    /// `udp.port==8472:vxlan`, `udp.port==N:geneve` (repeatable; tshark's `,` works for `:`).
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
    pub limits: super::limits::LimitArgs,
}

impl CaptureArgs {
    pub fn options(&self) -> Result<Options> {
        self.decode.options()
    }

    /// The capture file: FILE or `-r FILE` (clap requires one and refuses both).
    pub fn file(&self) -> &str {
        self.file.as_deref().or(self.read.as_deref()).unwrap_or("-")
    }
}

impl DecodeArgs {
    pub fn options(&self) -> Result<Options> {
        let rserpool_encoding = match self.rserpool_encoding.as_str() {
            "auto" => None,
            s => Some(Encoding::from_name(s).ok_or_else(|| {
                Error::msg(format!(
                    "unknown --rserpool-encoding {s:?}: use auto, rfc, draft01 or rsplib2007"
                ))
            })?),
        };
        Ok(crate::run::files::pipeline_options(
            self.decode_as.clone(),
            rserpool_encoding,
            self.limits.limits(),
        ))
    }
}

/// The kernel filter for `-f`: an empty one keeps everything; none keeps what poolshark decodes
/// (with the --decode-as ports).
pub fn filter_choice(filter: Option<&str>, decode: &DecodeArgs) -> FilterChoice {
    match filter {
        Some(f) if f.trim().is_empty() => FilterChoice::All,
        Some(f) => capture_filter::compiled_expression(f),
        None => capture_filter::compiled_default(&decode.decode_as),
    }
}
