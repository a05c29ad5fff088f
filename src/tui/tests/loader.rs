//! The loader and the detail lookups over the shared failover capture: what the UI is sent must
//! be what `check` computes from the same file, frame numbers and decoded frames as tshark has them.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use crate::analyse::finding::Finding;
use crate::analyse::timeline::Series;
use crate::base::Timestamp;
use crate::field::{Field, Value};
use crate::pipeline::{Options, Pipeline};
use crate::run::analysis::{analysers, AnalysisArgs, DhcpLbArgs, FailoverArgs};
use crate::run::check::CheckSink;
use crate::source::file::FileSource;
use crate::source::{Frame, FrameSource, SourceError};
use crate::tui::detail::decode_frame;
use crate::tui::loader::{Counted, Loader, LoaderConfig};
use crate::tui::snapshot::{LoadState, Update};

use super::Report;

const CAPTURE: &str = "captures/dhcp-failover/isc-dhcpd-4.4.3-failover.pcap";
/// Frames in the capture, from its README.
const FRAMES: u64 = 4347;

/// The shared capture, or `None` to skip (a failure under `POOLSHARK_REQUIRE_SHARED`).
fn capture() -> Option<PathBuf> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../shared")
        .join(CAPTURE);
    if p.is_file() {
        return Some(p);
    }
    assert!(
        std::env::var_os("POOLSHARK_REQUIRE_SHARED").is_none(),
        "POOLSHARK_REQUIRE_SHARED is set but {} is missing",
        p.display()
    );
    crate::test_support::skip("../shared is absent");
    None
}

/// The capture's pair split into two failover pools, as the README's configuration allows: the
/// replay then reports findings for both.
fn analysis() -> AnalysisArgs {
    AnalysisArgs {
        profiles: Vec::new(),
        max_findings: 1000,
        configs: Vec::new(),
        loaded: Default::default(),
        dhcp_lb: DhcpLbArgs {
            hba: None,
            lb_threshold: None,
            max_dhcp_transactions: None,
            max_dhcp_pending: None,
        },
        failover: FailoverArgs {
            max_lease_misbalance: Some(15),
            max_lease_ownership: Some(10),
            min_balance: Some(5),
            max_balance: Some(30),
            pools: vec![
                "a=192.0.2.100-192.0.2.129".parse().expect("pool"),
                "b=192.0.2.130-192.0.2.159".parse().expect("pool"),
            ],
        },
    }
}

/// What `check` computes: the same analysers through the pipeline on the calling thread.
fn direct(
    path: &PathBuf,
) -> (
    Vec<(crate::analyse::finding::Subject, Series)>,
    Vec<Finding>,
) {
    let mut sink = CheckSink::new(
        analysers(&analysis()).expect("analysers"),
        Report::new(1000, 10 * super::S),
    );
    let mut src = FileSource::open(path).expect("open");
    let mut p = Pipeline::new(Options::default());
    p.run(&mut src, &mut sink).expect("run");
    let last = p.stats().last;
    for a in &mut sink.analysers {
        a.finish(last, &mut sink.report);
    }
    let series = sink
        .report
        .timeline
        .series()
        .iter()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    (series, sink.report.findings.list().to_vec())
}

/// Every update until the loader is done.
fn collect(loader: &Loader) -> Vec<Update> {
    let mut out = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(120);
    while Instant::now() < deadline {
        match loader.updates().recv_timeout(Duration::from_secs(1)) {
            Ok(u) => {
                let done = !u.progress.is_running();
                out.push(u);
                if done {
                    return out;
                }
            }
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
            Err(_) => return out,
        }
    }
    panic!("the loader did not finish");
}

#[test]
fn the_loader_sends_what_check_computes() {
    let Some(path) = capture() else { return };
    let (series, findings) = direct(&path);
    assert!(findings.len() > 10, "the two-pool split has findings");
    let file = std::fs::File::open(&path).expect("open");
    let size = file.metadata().expect("size").len();
    let (counted, bytes) = Counted::new(file);
    let src = FileSource::from_reader(std::io::BufReader::new(counted)).expect("pcap");
    let cfg = LoaderConfig {
        interval_ns: 10 * super::S,
        max_findings: 1000,
        bytes: Some(bytes),
        total_bytes: Some(size),
        ..LoaderConfig::default()
    };
    let loader = Loader::spawn(Box::new(src), cfg, || analysers(&analysis()).expect("a"));
    let updates = collect(&loader);
    let last = updates.last().expect("updates");
    assert_eq!(last.progress.state, LoadState::Done);
    assert_eq!(last.progress.frames, FRAMES);
    assert_eq!(last.progress.bytes_read, Some(size));
    assert_eq!(last.progress.fraction(), Some(1.0));
    // Progress only grows.
    for w in updates.windows(2) {
        assert!(w[0].progress.frames <= w[1].progress.frames);
        assert!(w[0].progress.bytes_read <= w[1].progress.bytes_read);
    }
    // The copies add up to the findings check has, in the same order, and the last copy's
    // series are check's.
    let sent: Vec<Finding> = updates
        .iter()
        .filter_map(|u| u.data.as_ref())
        .flat_map(|d| d.new_findings.clone())
        .collect();
    assert_eq!(sent, findings);
    let data = updates
        .iter()
        .rev()
        .find_map(|u| u.data.as_ref())
        .expect("data");
    assert_eq!(data.series, series);
    assert_eq!(data.findings_total, findings.len() as u64);
}

/// Replays frames from memory like a live capture: the first `pause_after` come at once, then
/// nothing until stopped.
struct PausingSource {
    frames: Vec<(u64, Timestamp, u32, u32, Vec<u8>)>,
    next: usize,
    pause_after: usize,
    stop: Arc<AtomicBool>,
}

impl FrameSource for PausingSource {
    fn next_frame(&mut self) -> Result<Option<Frame<'_>>, SourceError> {
        if self.next >= self.pause_after.min(self.frames.len()) {
            while !self.stop.load(Ordering::SeqCst) {
                thread::sleep(Duration::from_millis(5));
            }
            return Ok(None);
        }
        let (number, ts, linktype, orig_len, data) = &self.frames[self.next];
        self.next += 1;
        Ok(Some(Frame {
            number: *number,
            ts: *ts,
            ts_digits: 6,
            linktype: *linktype,
            orig_len: *orig_len,
            interface: 0,
            data,
            pcapng: None,
        }))
    }
}

fn frames_of(path: &Path, n: usize) -> Vec<(u64, Timestamp, u32, u32, Vec<u8>)> {
    let mut src = FileSource::open(path).expect("open");
    let mut out = Vec::new();
    while out.len() < n {
        match src.next_frame() {
            Ok(Some(f)) => out.push((f.number, f.ts, f.linktype, f.orig_len, f.data.to_vec())),
            _ => break,
        }
    }
    out
}

#[test]
fn live_input_is_shown_when_it_pauses_and_recent_frames_are_kept() {
    let Some(path) = capture() else { return };
    let stop = Arc::new(AtomicBool::new(false));
    let src = PausingSource {
        frames: frames_of(&path, 200),
        next: 0,
        pause_after: 200,
        stop: stop.clone(),
    };
    let cfg = LoaderConfig {
        interval_ns: 10 * super::S,
        max_findings: 100,
        live: true,
        keep_recent: 50,
        ..LoaderConfig::default()
    };
    let mut loader = Loader::spawn(Box::new(src), cfg, || analysers(&analysis()).expect("a"));
    let flag = stop.clone();
    loader.on_stop(move || flag.store(true, Ordering::SeqCst));
    // The source now waits; the 200 frames must still reach the UI, with their results.
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut seen = None;
    while Instant::now() < deadline && seen.is_none() {
        if let Ok(u) = loader.updates().recv_timeout(Duration::from_secs(1)) {
            if u.progress.frames == 200 && u.data.is_some() {
                seen = Some(u);
            }
        }
    }
    let u = seen.expect("an update with all 200 frames while the source waits");
    assert_eq!(u.progress.state, LoadState::Live);
    assert!(
        !u.data.expect("data").series.is_empty(),
        "the failover pools are known by frame 200"
    );
    // Recent frames: the last 50 with messages or errors, older ones reported as gone.
    let recent = loader.recent().expect("kept");
    {
        let r = recent.lock().expect("lock");
        assert_eq!(r.len(), 50);
        let tshark_frames = frames_with_failover(&path, 200);
        if let (Some(&first), Some(&last)) = (tshark_frames.first(), tshark_frames.last()) {
            let d = r.get(last).expect("the last failover frame is kept");
            assert_eq!(d.number, last);
            assert!(d
                .messages
                .iter()
                .all(|m| m.protocol == crate::proto::AppProtocol::Failover));
            let err = r.get(first).expect_err("the first is no longer kept");
            assert!(err.contains("no longer kept"), "{err}");
        } else {
            crate::test_support::skip("the frames' check: tshark is not installed");
        }
    }
    loader.stop();
    let rest = collect(&loader);
    assert_eq!(
        rest.last().map(|u| u.progress.state.clone()),
        Some(LoadState::Done)
    );
}

/// tshark's numbers of the frames up to `max` that carry failover messages.
fn frames_with_failover(path: &Path, max: u64) -> Vec<u64> {
    let out = tshark(&[
        "-r",
        &path.to_string_lossy(),
        "-Y",
        &format!("dhcpfo && frame.number <= {max}"),
        "-T",
        "fields",
        "-e",
        "frame.number",
    ]);
    out.lines().filter_map(|l| l.trim().parse().ok()).collect()
}

fn tshark(args: &[&str]) -> String {
    let out = Command::new("tshark").args(args).output();
    match out {
        Ok(o) if o.status.success() => String::from_utf8_lossy(&o.stdout).into_owned(),
        _ => {
            assert!(
                std::env::var_os("POOLSHARK_REQUIRE_TSHARK").is_none(),
                "tshark cannot be run"
            );
            String::new()
        }
    }
}

fn collect_fields<'a>(fields: &'a [Field], name: &str, out: &mut Vec<&'a Value>) {
    for f in fields {
        if f.name == name {
            out.push(&f.value);
        }
        collect_fields(&f.children, name, out);
    }
}

#[test]
fn a_frame_decoded_again_is_the_frame_tshark_shows() {
    let Some(path) = capture() else { return };
    // Frame 4198 carries four BNDUPDs in one TCP segment (a finding's frame with two pools).
    let fields = tshark(&[
        "-r",
        &path.to_string_lossy(),
        "-Y",
        "frame.number == 4198",
        "-T",
        "fields",
        "-e",
        "dhcpfo.xid",
        "-e",
        "dhcpfo.assignedipaddress",
    ]);
    if fields.is_empty() {
        crate::test_support::skip("tshark is not installed");
        return;
    }
    let mut cols = fields.trim_end().split('\t');
    let xids: Vec<u64> = cols
        .next()
        .unwrap_or_default()
        .split(',')
        .filter_map(|x| u64::from_str_radix(x.trim_start_matches("0x"), 16).ok())
        .collect();
    let ips: Vec<String> = cols
        .next()
        .unwrap_or_default()
        .split(',')
        .map(str::to_string)
        .collect();
    assert_eq!(xids.len(), 4);
    let mut src = FileSource::open(&path).expect("open");
    let cancel = AtomicBool::new(false);
    let d = decode_frame(&mut src, Options::default(), 4198, &cancel).expect("frame");
    assert_eq!(d.number, 4198);
    let mut ours_x = Vec::new();
    let mut ours_ip = Vec::new();
    for m in &d.messages {
        collect_fields(&m.fields, "dhcpfo.xid", &mut ours_x);
        collect_fields(&m.fields, "dhcpfo.assignedipaddress", &mut ours_ip);
    }
    let ours_x: Vec<u64> = ours_x
        .iter()
        .filter_map(|v| match v {
            Value::Uint(x) => Some(*x),
            _ => None,
        })
        .collect();
    let ours_ip: Vec<String> = ours_ip
        .iter()
        .filter_map(|v| match v {
            Value::Ipv4(a) => Some(a.to_string()),
            _ => None,
        })
        .collect();
    assert_eq!(ours_x, xids);
    assert_eq!(ours_ip, ips);
    let text = d.lines().join("\n");
    assert!(text.starts_with("Frame 4198: 2026-11-30 "), "{text}");
    assert_eq!(text.matches("DHCPFO 192.0.2.").count(), 4, "{text}");
    // A frame past the end says so.
    let mut src = FileSource::open(&path).expect("open");
    let err = decode_frame(&mut src, Options::default(), FRAMES + 1, &cancel).expect_err("past");
    assert_eq!(
        err,
        format!(
            "frame {} is not in the capture (it has {FRAMES} frames)",
            FRAMES + 1
        )
    );
}

/// The legacy RSPLIB capture through the loader into the app: the pool's members pane counts
/// every Handle Resolution Response on the wire (tshark's count), as `check` and `stats` do,
/// and says how many the reference could not judge (the 5 before the registrar was known to
/// hold the pool; tests/it/rserpool_check_captures.rs checks the same in `check`).
#[test]
fn the_members_pane_counts_every_answer_as_check_does() {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/captures/rserpool/rsplib-2007-legacy-draft.pcap");
    if !p.is_file() {
        assert!(
            std::env::var_os("POOLSHARK_REQUIRE_SHARED").is_none(),
            "POOLSHARK_REQUIRE_SHARED is set but {} is missing",
            p.display()
        );
        crate::test_support::skip("../shared is absent");
        return;
    }
    let wire = tshark(&["-r", &p.to_string_lossy(), "-Y", "asap.message_type == 6"])
        .lines()
        .count();
    let src = FileSource::open(&p).expect("open");
    let cfg = LoaderConfig {
        interval_ns: 10 * super::S,
        max_findings: 1000,
        ..LoaderConfig::default()
    };
    let loader = Loader::spawn(Box::new(src), cfg, || analysers(&analysis()).expect("a"));
    let mut app = crate::tui::App::new(
        "legacy",
        10 * super::S,
        crate::tui::palette::Palette::new(false),
    );
    for u in collect(&loader) {
        app.apply(u);
    }
    let screen = super::screen(&mut app, 120, 30);
    assert!(screen.contains("CalcAppPool"), "{screen}");
    if wire > 0 {
        assert_eq!(wire, 20, "tshark's count");
    }
    assert!(screen.contains("Members, 20 answers"), "{screen}");
    assert!(screen.contains("5 not judged, % of 15"), "{screen}");
    // The registrar's takeover and the deregistrations are marked at the chart's top.
    assert!(screen.contains('◆') && screen.contains('▼'), "{screen}");
}
