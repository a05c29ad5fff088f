//! Inputs of the benchmarks, made in memory with the project's own generator: mixed captures
//! like `poolshark generate` writes, and the application messages they carry.
#![allow(dead_code)]

use std::io::Cursor;

use clap::Parser;

use poolshark::generate::scenario::preset::{MixOptions, Part, PartList};
use poolshark::generate::scenario::{CaptureFormat, Frames};
use poolshark::pipeline::{Decoded, Options, Pipeline, Sink};
use poolshark::proto::rserpool::Encoding;
use poolshark::proto::AppProtocol;
use poolshark::run::analysis::AnalysisArgs;
use poolshark::source::file::FileSource;

/// The seed the bench-vs-tshark script uses too.
pub const SEED: u64 = 7;

/// `frames` frames of the scenarios in `parts` (equal shares; `None`: the generator's default
/// mix), RSerPool in `encoding`.
pub fn mixed_frames(frames: u64, parts: Option<&[Part]>, encoding: Encoding) -> Frames {
    let mut opts = MixOptions {
        seed: SEED,
        encoding,
        ..MixOptions::default()
    };
    if let Some(parts) = parts {
        opts.parts = PartList(parts.iter().map(|p| (*p, 1.0)).collect());
    }
    let mut mix = opts.build().expect("the generator's options");
    let mut out = Frames::default();
    mix.run(Some(frames), &mut out).expect("frames in memory");
    out
}

/// The same as a pcap file in memory.
pub fn mixed_capture(frames: u64, parts: Option<&[Part]>, encoding: Encoding) -> Vec<u8> {
    mixed_frames(frames, parts, encoding)
        .to_capture(CaptureFormat::Pcap)
        .expect("pcap in memory")
}

/// The default capture: every scenario, the RFC encoding.
pub fn default_capture(frames: u64) -> Vec<u8> {
    mixed_capture(frames, None, Encoding::Rfc)
}

/// One application message as it was on the wire.
pub struct Wire {
    pub protocol: AppProtocol,
    pub bytes: Vec<u8>,
}

/// Every message of `capture` that lies whole in one frame, as the pipeline found it.
pub fn messages(capture: &[u8], encoding: Option<Encoding>) -> Vec<Wire> {
    struct Collect(Vec<Wire>);
    impl Sink for Collect {
        fn message(&mut self, d: &Decoded<'_>) {
            let Some(start) = d.frame_offset else {
                return;
            };
            if let Some(b) = d.frame.data.get(start..start + d.len) {
                self.0.push(Wire {
                    protocol: d.protocol,
                    bytes: b.to_vec(),
                });
            }
        }
    }
    let mut opts = Options::default();
    opts.dispatch.rserpool_encoding = encoding;
    let mut sink = Collect(Vec::new());
    let mut source = FileSource::from_reader(Cursor::new(capture.to_vec())).expect("a pcap");
    Pipeline::new(opts)
        .run(&mut source, &mut sink)
        .expect("the whole capture");
    sink.0
}

/// `check`'s analysis options with their defaults.
pub fn default_analysis() -> AnalysisArgs {
    #[derive(Parser)]
    struct Args {
        #[command(flatten)]
        analysis: AnalysisArgs,
    }
    Args::try_parse_from(["bench"])
        .expect("default analysis options")
        .analysis
}
