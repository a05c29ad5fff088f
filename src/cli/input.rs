//! Options every command that reads a capture shares, and opening the capture.

use clap::Args;

use super::anyhow_like::{Error, Result};
use crate::dissect::dispatch::{DecodeAs, DispatchOptions};
use crate::pipeline::Options;
use crate::proto::rserpool::Encoding;
use crate::source::file::FileSource;

#[derive(Args, Debug, Clone)]
pub struct CaptureArgs {
    /// Capture file: pcap or pcapng, optionally gzip-compressed; `-` reads standard input.
    pub file: String,

    #[command(flatten)]
    pub decode: DecodeArgs,
}

/// How payloads are dispatched and decoded: shared by the commands that read a file and by
/// `capture`.
#[derive(Args, Debug, Clone)]
pub struct DecodeArgs {
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
    pub limits: super::limits::LimitArgs,
}

impl CaptureArgs {
    pub fn options(&self) -> Result<Options> {
        self.decode.options()
    }

    pub fn open(&self) -> Result<FileSource> {
        FileSource::open(&self.file).map_err(|e| {
            let name = if self.file == "-" {
                "standard input"
            } else {
                self.file.as_str()
            };
            Error::msg(format!("cannot read {name}: {e}"))
        })
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
        let limits = self.limits.limits();
        Ok(Options {
            dispatch: DispatchOptions {
                decode_as: self.decode_as.clone(),
                rserpool_encoding,
                conversations: limits.conversations,
                framer_bytes: limits.framer_bytes,
            },
            limits,
        })
    }
}
