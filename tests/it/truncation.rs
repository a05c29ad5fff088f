//! Every shared capture cut short, through the whole of `poolshark check` (reader, dissector,
//! dispatcher, display trees, the analysers with their default arguments): at random byte
//! positions (proptest) and at every byte of its first records. Nothing panics; every whole
//! packet record before the cut comes out as a frame, and a cut inside a record is reported as
//! a truncated file.

use crate::common;

use std::io::Cursor;
use std::path::PathBuf;
use std::sync::OnceLock;

use clap::Parser;
use proptest::prelude::*;

use poolshark::analyse::Report;
use poolshark::dissect::FrameSummary;
use poolshark::pipeline::{Decoded, Pipeline, Sink};
use poolshark::run::analysis::{analysers, AnalysisArgs};
use poolshark::run::check::CheckSink;
use poolshark::run::files::pipeline_options;
use poolshark::source::file::FileSource;
use poolshark::source::{Frame, SourceError};

/// `poolshark check -`'s analysis options, with their defaults.
#[derive(Parser)]
struct Check {
    #[command(flatten)]
    analysis: AnalysisArgs,
}

/// What one run gave.
#[derive(Debug, Default)]
struct Outcome {
    frames: u64,
    messages: u64,
    source_errors: Vec<SourceError>,
}

struct CountingSink {
    check: CheckSink,
    out: Outcome,
}

impl Sink for CountingSink {
    fn message(&mut self, d: &Decoded<'_>) {
        self.out.messages += 1;
        // What `read -V` shows of the message.
        std::hint::black_box((d.message.fields(), d.message.info()));
        self.check.message(d);
    }

    fn end_frame(&mut self, frame: &Frame<'_>, summary: &FrameSummary) {
        self.out.frames += 1;
        self.check.end_frame(frame, summary);
    }

    fn source_error(&mut self, e: &SourceError) {
        self.out.source_errors.push(e.clone());
    }
}

fn run_check(bytes: &[u8]) -> Outcome {
    let args = match Check::try_parse_from(["check"]) {
        Ok(c) => c,
        Err(e) => panic!("{e}"),
    };
    let mut sink = CountingSink {
        check: CheckSink::new(
            analysers(&args.analysis).unwrap(),
            Report::new(args.analysis.max_findings, 60_000_000_000),
        ),
        out: Outcome::default(),
    };
    let Ok(mut source) = FileSource::from_reader(Cursor::new(bytes.to_vec())) else {
        return sink.out;
    };
    // The decoding options `check -` has by default.
    let mut pipeline = Pipeline::new(pipeline_options(
        Vec::new(),
        None,
        poolshark::dissect::Limits::default(),
    ));
    let _ = pipeline.run(&mut source, &mut sink);
    let last = pipeline.stats().last;
    for a in &mut sink.check.analysers {
        a.finish(last, &mut sink.check.report);
    }
    let mut text = String::new();
    for a in &sink.check.analysers {
        poolshark::output::report::text(a.view(), &mut text);
    }
    sink.out
}

/// A capture's bytes and where each of its records ends, with whether it carries a packet.
struct Capture {
    name: String,
    bytes: Vec<u8>,
    /// (end offset, is a packet record).
    records: Vec<(usize, bool)>,
}

fn u32_at(b: &[u8], at: usize, big: bool) -> Option<usize> {
    let w: [u8; 4] = b.get(at..at + 4)?.try_into().ok()?;
    Some(if big {
        u32::from_be_bytes(w)
    } else {
        u32::from_le_bytes(w)
    } as usize)
}

/// The record boundaries, read straight from the file's framing (pcap record headers, pcapng
/// block lengths, in each section's byte order), independently of the reader under test. The
/// pcapng records that are frames: packet blocks (obsolete, simple, enhanced) and custom blocks
/// (`0x00000BAD`, `0x40000BAD`), which Wireshark numbers as frames too.
fn records(b: &[u8]) -> Vec<(usize, bool)> {
    let mut out = Vec::new();
    match b.get(..4) {
        Some([0x0a, 0x0d, 0x0d, 0x0a]) => {
            let mut big = false;
            let mut at = 0;
            loop {
                if b.get(at..at + 4) == Some(&[0x0a, 0x0d, 0x0d, 0x0a]) {
                    big = b.get(at + 8..at + 12) == Some(&[0x1a, 0x2b, 0x3c, 0x4d]);
                }
                let (Some(kind), Some(len)) = (u32_at(b, at, big), u32_at(b, at + 4, big)) else {
                    break;
                };
                if len < 12 || at + len > b.len() {
                    break;
                }
                at += len;
                out.push((at, matches!(kind, 2 | 3 | 6 | 0xbad | 0x4000_0bad)));
            }
        }
        Some(m) => {
            let big = m == [0xa1, 0xb2, 0xc3, 0xd4] || m == [0xa1, 0xb2, 0x3c, 0x4d];
            let mut at = 24;
            out.push((24, false));
            while let Some(caplen) = u32_at(b, at + 8, big) {
                if at + 16 + caplen > b.len() {
                    break;
                }
                at += 16 + caplen;
                out.push((at, true));
            }
        }
        None => {}
    }
    out
}

/// Every shared capture, read once for all the tests of this file.
fn captures() -> &'static [Capture] {
    static ALL: OnceLock<Vec<Capture>> = OnceLock::new();
    ALL.get_or_init(read_captures)
}

fn read_captures() -> Vec<Capture> {
    let Some(shared) = common::shared_dir() else {
        return Vec::new();
    };
    let mut paths: Vec<PathBuf> = Vec::new();
    let mut dirs = vec![shared.join("captures")];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "pcap" || x == "pcapng") {
                paths.push(p);
            }
        }
    }
    paths.sort();
    paths
        .into_iter()
        .map(|p| {
            let bytes = std::fs::read(&p).unwrap();
            Capture {
                name: p.file_name().unwrap().to_string_lossy().into_owned(),
                records: records(&bytes),
                bytes,
            }
        })
        .collect()
}

/// Runs the capture cut at `cut` and checks what came out against the record boundaries.
fn check_cut(c: &Capture, cut: usize) {
    let out = run_check(&c.bytes[..cut]);
    let whole_packets = c
        .records
        .iter()
        .filter(|(end, packet)| *packet && *end <= cut)
        .count() as u64;
    // Every packet record before the cut is a frame (a malformed one may be skipped with an
    // error, which none of the shared captures has).
    assert_eq!(
        out.frames, whole_packets,
        "{} cut at {cut}: {:?}",
        c.name, out.source_errors
    );
    let inside_record = c.records.iter().all(|(end, _)| *end != cut)
        && c.records.first().is_some_and(|(first, _)| cut > *first);
    if inside_record {
        assert!(
            out.source_errors
                .iter()
                .any(|e| e.what.contains("truncated")),
            "{} cut at {cut} inside a record: {:?}",
            c.name,
            out.source_errors
        );
    }
}

#[test]
fn first_records_cut_at_every_byte() {
    let mut cuts = 0;
    for c in captures() {
        // The file header and the first three packet records, at every byte.
        let end = c
            .records
            .iter()
            .filter(|r| r.1)
            .nth(2)
            .map_or(c.bytes.len(), |r| r.0);
        for cut in 0..=end {
            check_cut(c, cut);
            cuts += 1;
        }
    }
    if common::shared_dir().is_some() {
        assert!(cuts > 10_000, "only {cuts} cuts");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]

    #[test]
    fn every_capture_cut_at_random_positions(pick in any::<proptest::sample::Index>()) {
        for c in captures() {
            let cut = pick.index(c.bytes.len() + 1);
            check_cut(c, cut);
        }
    }
}

#[test]
fn a_whole_capture_gives_its_messages() {
    // The oracle for the counts: the capture's README (63 hand-built frames, every ASAP and
    // ENRP message type).
    let Some(path) = common::shared_capture("rserpool/asap-enrp-coverage.pcap") else {
        return;
    };
    let bytes = std::fs::read(path).unwrap();
    let out = run_check(&bytes);
    assert_eq!(out.frames, 63);
    assert!(out.messages >= 63, "{out:?}");
    assert!(out.source_errors.is_empty());
}

/// `check --format json` on a capture cut inside a record: exit 0 (the frames before the cut
/// are checked), and the JSON summary says the file could not be read whole. It used to carry
/// no trace of the cut (only stderr did), so a script reading the JSON could not tell.
#[test]
fn the_json_summary_counts_what_could_not_be_read() {
    let whole = std::fs::read(common::fixture("demo.pcap")).expect("fixture");
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("truncation");
    std::fs::create_dir_all(&dir).expect("tmp dir");
    let summary = |bytes: &[u8], name: &str| {
        let path = dir.join(name);
        std::fs::write(&path, bytes).expect("write");
        let out = common::poolshark()
            .args(["check", "--format", "json"])
            .arg(&path)
            .output()
            .expect("run poolshark");
        let j: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
        (out.status.code(), j["summary"].clone())
    };
    let (_, s) = summary(&whole, "whole.pcap");
    assert_eq!(s["read_errors"], 0, "{s}");
    assert_eq!(s["malformed_frames"], 0, "{s}");
    assert_eq!(s["malformed_messages"], 0, "{s}");
    // Cut 10 bytes into the last record's data.
    let (code, s) = summary(&whole[..whole.len() - 10], "cut.pcap");
    assert_ne!(code, Some(2), "{s}");
    assert_eq!(s["read_errors"], 1, "{s}");
    let frames = crate::dhcp_support::pcap::frames(&whole).len();
    assert_eq!(
        s["frames"],
        frames as u64 - 1,
        "every frame but the cut one: {s}"
    );
}
