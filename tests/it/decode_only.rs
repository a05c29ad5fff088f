//! A pipeline told to decode only some protocols (`check` runs its DHCP replays on one such):
//! the messages of those protocols are the very ones a full run gives, the others are left
//! alone, and SCTP is not even dissected when nothing wanted can come over it. A dissector told
//! not to make tshark's Info text (`check`, `stats`) gives the same frames and payloads.

use crate::common;

use std::collections::BTreeMap;

use common::fixture;
use poolshark::dissect::dispatch::DecodeAs;
use poolshark::dissect::{Dissector, FrameSummary, Limits};
use poolshark::pipeline::{Decoded, Options, Pipeline, RunStats, Sink};
use poolshark::proto::AppProtocol;
use poolshark::source::file::FileSource;
use poolshark::source::{Frame, FrameSource};
use std::path::Path;

/// Every message as (frame, protocol, length).
#[derive(Default)]
struct Seen(Vec<(u64, AppProtocol, usize)>);

impl Sink for Seen {
    fn message(&mut self, d: &Decoded<'_>) {
        self.0.push((d.frame.number, d.protocol, d.len));
    }
}

fn run(file: &str, opts: Options) -> (Vec<(u64, AppProtocol, usize)>, RunStats) {
    let mut src = FileSource::open(fixture(file)).expect("fixture");
    let mut p = Pipeline::new(opts);
    let mut seen = Seen::default();
    p.run(&mut src, &mut seen).expect("run");
    (seen.0, p.stats())
}

fn only(protocols: &[AppProtocol]) -> Options {
    let mut o = Options::default();
    o.dispatch.only = Some(protocols.to_vec());
    o
}

fn per_protocol(seen: &[(u64, AppProtocol, usize)]) -> BTreeMap<AppProtocol, usize> {
    let mut m = BTreeMap::new();
    for (_, p, _) in seen {
        *m.entry(*p).or_default() += 1;
    }
    m
}

#[test]
fn dhcp_only_gives_the_dhcp_messages_of_a_full_run_and_skips_sctp() {
    use AppProtocol::*;
    for file in [
        "demo.pcap",
        "failover-all-types.pcap",
        "dhcpv6-all-types.pcap",
    ] {
        let (all, full) = run(file, Options::default());
        let wanted = [Dhcpv4, Dhcpv6, Failover];
        let (got, stats) = run(file, only(&wanted));
        let want: Vec<_> = all
            .iter()
            .copied()
            .filter(|(_, p, _)| wanted.contains(p))
            .collect();
        assert!(!want.is_empty(), "{file}");
        assert_eq!(got, want, "{file}");
        assert_eq!(stats.frames, full.frames, "{file}");
        assert_eq!(stats.dissect.sctp_packets, 0, "{file}");
    }
    // The demo capture has RSerPool over SCTP: a full run dissects it.
    let (all, full) = run("demo.pcap", Options::default());
    assert!(full.dissect.sctp_packets > 0);
    assert!(per_protocol(&all).contains_key(&Asap));
}

#[test]
fn rserpool_only_gives_the_rserpool_messages_of_a_full_run() {
    use AppProtocol::*;
    for file in ["demo.pcap", "rserpool-udp.pcap", "rserpool-tcp.pcap"] {
        let (all, full) = run(file, Options::default());
        let (got, stats) = run(file, only(&[Asap, Enrp]));
        let want: Vec<_> = all
            .iter()
            .copied()
            .filter(|(_, p, _)| matches!(p, Asap | Enrp))
            .collect();
        assert!(!want.is_empty(), "{file}");
        assert_eq!(got, want, "{file}");
        assert_eq!(
            stats.dissect.sctp_packets, full.dissect.sctp_packets,
            "{file}"
        );
    }
}

#[test]
fn a_rule_that_puts_a_wanted_protocol_on_sctp_keeps_sctp_dissected() {
    let mut o = only(&[AppProtocol::Dhcpv4]);
    assert!(!o.dispatch.wants_sctp());
    o.dispatch.decode_as = vec!["sctp.port==9899:dhcpv4".parse::<DecodeAs>().expect("rule")];
    assert!(o.dispatch.wants_sctp());
    // A rule for an unwanted protocol does not.
    o.dispatch.decode_as = vec!["sctp.port==9899:asap".parse::<DecodeAs>().expect("rule")];
    assert!(!o.dispatch.wants_sctp());
    let (_, stats) = run("demo.pcap", {
        let mut o = only(&[AppProtocol::Dhcpv4]);
        o.dispatch.decode_as = vec!["port==9899:dhcpv4".parse::<DecodeAs>().expect("rule")];
        o
    });
    assert!(stats.dissect.sctp_packets > 0);
}

/// What the dissector gives for one frame, Info text apart: the summary without it, and each
/// payload's addressing, bytes, reassembly facts and errors.
type FrameOut = (FrameSummary, Vec<String>);

/// Every frame of `path`, each also cut short at every length below `cut_below` first (the link
/// and IP layers' errors).
fn dissect_frames(path: &Path, info: bool, cut_below: usize) -> Vec<FrameOut> {
    let mut src = FileSource::open(path).expect("open");
    let mut d = Dissector::new(Limits::default());
    if !info {
        d = d.without_info();
    }
    let mut out = Vec::new();
    loop {
        let f = match src.next_frame() {
            Ok(Some(f)) => f,
            Ok(None) => break,
            Err(e) if e.fatal => panic!("{}: {e}", path.display()),
            Err(_) => continue,
        };
        for k in (0..cut_below.min(f.data.len())).chain([f.data.len()]) {
            let f = Frame {
                data: &f.data[..k],
                ..f
            };
            out.push(dissect_one(&mut d, &f));
        }
    }
    out
}

fn dissect_one(d: &mut Dissector, f: &Frame<'_>) -> FrameOut {
    let mut payloads = Vec::new();
    let summary = d.dissect(f, &mut |p| {
        payloads.push(format!(
            "{:?} {}:{} > {}:{} ppid {:?} stream {:?} tsn {:?} ssn {:?} dup {} unordered {} \
                 at {:?} stream offset {:?} gap {} from {:?} errors {:?} data {:02x?}",
            p.transport,
            p.src,
            p.src_port,
            p.dst,
            p.dst_port,
            p.ppid,
            p.stream,
            p.tsn,
            p.ssn,
            p.duplicate,
            p.unordered,
            p.frame_offset,
            p.stream_offset,
            p.gap_before,
            p.reassembled_from,
            p.errors,
            p.data
        ))
    });
    (summary, payloads)
}

#[test]
fn without_the_info_text_the_dissector_gives_the_same_frames_and_payloads() {
    // The fixtures' frames also cut short at every length up to 80 bytes (link and IP errors).
    let mut files: Vec<_> = common::captures_under(&fixture(""))
        .into_iter()
        .map(|p| (p, 80))
        .collect();
    if let Some(shared) = common::shared_dir() {
        files.extend(
            common::captures_under(&shared.join("captures"))
                .into_iter()
                .map(|p| (p, 0)),
        );
    }
    files.sort();
    let (mut frames, mut with_text) = (0, 0);
    for (path, cut_below) in &files {
        let full = dissect_frames(path, true, *cut_below);
        let bare = dissect_frames(path, false, *cut_below);
        assert_eq!(full.len(), bare.len(), "{}", path.display());
        for (n, ((mut a, pa), (b, pb))) in full.into_iter().zip(bare).enumerate() {
            let at = format!("{} dissection {}", path.display(), n + 1);
            assert!(b.info.is_empty(), "{at}: Info text made: {:?}", b.info);
            with_text += usize::from(!a.info.is_empty());
            a.info.clear();
            assert_eq!(a, b, "{at}");
            assert_eq!(pa, pb, "{at}");
            frames += 1;
        }
    }
    // Not vacuous: the Info text is there when asked for (every fixture has some).
    assert!(
        frames > 500 && with_text > frames / 2,
        "{frames} frames, {with_text} with text"
    );
}
