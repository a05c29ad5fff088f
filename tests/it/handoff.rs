//! Dissect once, decode in parts ([`poolshark::handoff`], what `check` does with threads to
//! spare): each part gets exactly the messages of its protocols that one pipeline decodes, in
//! the same order, with the same frames, offsets, lengths and errors; the run's statistics are
//! one pipeline's; each part's run ends once, with the time of the run's last frame.

use crate::common;

use std::path::{Path, PathBuf};

use common::fixture;
use poolshark::base::Timestamp;
use poolshark::dissect::FrameSummary;
use poolshark::handoff::{self, Part};
use poolshark::pipeline::{Decoded, NullSink, Options, Pipeline, RunStats, Sink};
use poolshark::proto::AppProtocol;
use poolshark::source::file::FileSource;
use poolshark::source::Frame;

/// What a sink is told, in order: each message (its frame, time, protocol, offsets, length,
/// errors, the payload's addresses and ports, the message itself) and each frame's end with
/// its errors.
#[derive(Default)]
struct Recorded {
    lines: Vec<String>,
    ended: Vec<Option<Timestamp>>,
    /// The frames whose end it was told.
    frame_ends: Vec<u64>,
    /// The frame of each message.
    frames: Vec<u64>,
}

impl Sink for Recorded {
    fn message(&mut self, d: &Decoded<'_>) {
        self.frames.push(d.frame.number);
        self.lines.push(format!(
            "{} {} {:?} {:?} {} {:?} {}:{} > {}:{} {:?} {:?}",
            d.protocol,
            d.frame.number,
            d.frame.ts,
            d.frame_offset,
            d.len,
            d.errors,
            d.payload.src,
            d.payload.src_port,
            d.payload.dst,
            d.payload.dst_port,
            d.payload.reassembled_from,
            d.message
        ));
    }

    fn end_frame(&mut self, frame: &Frame<'_>, _summary: &FrameSummary) {
        self.frame_ends.push(frame.number);
    }

    fn run_ended(&mut self, last: Option<Timestamp>) {
        self.ended.push(last);
    }
}

const RSERPOOL: [AppProtocol; 2] = [AppProtocol::Asap, AppProtocol::Enrp];
const DHCP: [AppProtocol; 3] = [
    AppProtocol::Dhcpv4,
    AppProtocol::Dhcpv6,
    AppProtocol::Failover,
];

fn protocol_of(line: &str) -> &str {
    line.split(' ').next().unwrap_or("")
}

/// The statistics as the summary says them, and every counter.
fn counts(s: &RunStats) -> String {
    format!(
        "{} | {:?} {:?} {:?} {:?}",
        s.summary_line(),
        s.first,
        s.last,
        s.dissect,
        s.dispatch
    )
}

/// One pipeline over `file`: what it decodes, and its statistics.
fn whole(file: &Path) -> (Recorded, RunStats) {
    let mut src = FileSource::open(file).expect("capture");
    let mut p = Pipeline::new(Options::default());
    let mut rec = Recorded::default();
    let _ = p.run(&mut src, &mut rec);
    (rec, p.stats())
}

/// The same file dissected once and decoded in two parts (RSerPool, DHCP and failover).
fn in_parts(file: &Path) -> (Recorded, Recorded, RunStats) {
    let mut src = FileSource::open(file).expect("capture");
    let (mut a, mut b) = (Recorded::default(), Recorded::default());
    let parts = vec![
        Part {
            protocols: RSERPOOL.to_vec(),
            sink: &mut a,
        },
        Part {
            protocols: DHCP.to_vec(),
            sink: &mut b,
        },
    ];
    let (stats, _) = handoff::run(&mut src, &Options::default(), &mut NullSink, parts);
    (a, b, stats)
}

fn compare(file: &Path) -> usize {
    let (all, full) = whole(file);
    let (a, b, stats) = in_parts(file);
    let name = file.display();
    let want_a: Vec<&String> = all
        .lines
        .iter()
        .filter(|l| ["asap", "enrp"].contains(&protocol_of(l)))
        .collect();
    let want_b: Vec<&String> = all
        .lines
        .iter()
        .filter(|l| !["asap", "enrp"].contains(&protocol_of(l)))
        .collect();
    assert_eq!(
        a.lines.iter().collect::<Vec<_>>(),
        want_a,
        "{name}: RSerPool part"
    );
    assert_eq!(
        b.lines.iter().collect::<Vec<_>>(),
        want_b,
        "{name}: DHCP part"
    );
    assert_eq!(counts(&stats), counts(&full), "{name}: statistics");
    for part in [&a, &b] {
        assert_eq!(part.ended, vec![full.last], "{name}: the run ends once");
        // Frames end in order, the run's first among them, and after every frame with a
        // message of the part.
        assert!(part.frame_ends.windows(2).all(|w| w[0] < w[1]), "{name}");
        if full.frames > 0 {
            assert_eq!(part.frame_ends.first(), Some(&1), "{name}");
        }
        assert!(
            part.frames
                .iter()
                .all(|f| part.frame_ends.binary_search(f).is_ok()),
            "{name}"
        );
    }
    all.lines.len()
}

#[test]
fn every_fixture_decodes_in_parts_as_on_one_pipeline() {
    let dir = fixture("");
    let mut messages = 0;
    for f in common::captures_under(&dir) {
        messages += compare(&f);
    }
    // The fixtures hold every protocol: the comparison is not of empty lists.
    assert!(messages > 500, "{messages}");
    // Each protocol reaches its part.
    let (a, b, _) = in_parts(&fixture("demo.pcap"));
    assert!(a.lines.iter().any(|l| protocol_of(l) == "asap"));
    assert!(b.lines.iter().any(|l| protocol_of(l) == "dhcpv4"));
}

#[test]
fn every_shared_capture_decodes_in_parts_as_on_one_pipeline() {
    let Some(dir) = common::shared_dir() else {
        return;
    };
    let files = common::captures_under(&dir.join("captures"));
    assert!(files.len() > 10, "{files:?}");
    for f in files {
        compare(&f);
    }
}

fn generated(frames: u32) -> PathBuf {
    let out = std::env::temp_dir().join(format!(
        "poolshark-handoff-{}-{frames}.pcap",
        std::process::id()
    ));
    let status = common::poolshark()
        .args([
            "generate",
            "--frames",
            &frames.to_string(),
            "--seed",
            "11",
            "--out",
        ])
        .arg(&out)
        .output()
        .expect("run poolshark generate");
    assert!(status.status.success(), "{status:?}");
    out
}

/// Many batches (of hundreds of payloads each) with SCTP, TCP and UDP traffic interleaved:
/// nothing is lost, repeated or reordered where one batch ends and the next begins.
#[test]
fn a_generated_capture_of_many_batches_decodes_in_parts_as_on_one_pipeline() {
    let file = generated(30_000);
    let messages = compare(&file);
    let _ = std::fs::remove_file(&file);
    assert!(messages > 20_000, "{messages}");
}

/// A sink that fails on its thread: the run does not hang on the full channel, and the panic
/// reaches the caller.
#[test]
fn a_part_that_panics_ends_the_run_with_its_panic() {
    struct Fails;
    impl Sink for Fails {
        fn message(&mut self, _d: &Decoded<'_>) {
            panic!("the part's sink failed");
        }
    }
    let file = generated(20_000);
    let r = std::panic::catch_unwind(|| {
        let mut src = FileSource::open(&file).expect("capture");
        let mut fails = Fails;
        let parts = vec![Part {
            protocols: RSERPOOL.to_vec(),
            sink: &mut fails,
        }];
        handoff::run(&mut src, &Options::default(), &mut NullSink, parts)
    });
    let _ = std::fs::remove_file(&file);
    let panic = r.expect_err("the panic is passed on");
    let text = panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_default();
    assert!(text.contains("the part's sink failed"), "{text}");
}

/// A failover stream whose framing breaks in a frame whose lower layers may be broken too
/// (`common::broken_failover_stream`): the frame counts once among the frames with errors, its
/// stream's errors apart only when its lower layers had none. The lower layers are the
/// dissecting thread's, the stream the DHCP part's.
#[test]
fn a_frame_with_errors_below_and_in_its_stream_counts_once() {
    for (cut, stream_only) in [(false, 1), (true, 0)] {
        let file = common::broken_failover_stream("handoff-broken", cut);
        compare(&file);
        let (_, _, stats) = in_parts(&file);
        let _ = std::fs::remove_file(&file);
        assert_eq!(stats.frames_with_errors, 1, "cut {cut}");
        assert_eq!(
            stats.frames_with_stream_errors_only, stream_only,
            "cut {cut}"
        );
    }
}
