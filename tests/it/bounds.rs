//! Every buffer input can grow stays within its bound, and what is evicted is counted: the TCP
//! framers of many connections each holding most of a 64 KiB message, a pcapng file of interface
//! blocks, and the `--max-*` options reaching the pipeline.

use crate::common;

use std::io::Cursor;
use std::net::{IpAddr, Ipv4Addr};

use poolshark::base::{linktype, Timestamp};
use poolshark::dissect::dispatch::{DispatchOptions, Dispatcher};
use poolshark::dissect::{Payload, Transport};
use poolshark::generate::{IfOptions, PcapNgWriter};
use poolshark::source::file::{FileSource, MAX_INTERFACES};
use poolshark::source::FrameSource;

/// The first `len` bytes of an ASAP message whose header claims 65532 bytes: a framer holds
/// them, waiting for the rest.
fn partial_asap(len: usize) -> Vec<u8> {
    let mut m = vec![0u8; len];
    m[..4].copy_from_slice(&[1, 0, 0xff, 0xfc]);
    m
}

fn tcp_payload(client: u32, data: &[u8], offset: u64) -> Payload<'_> {
    let mut p = Payload::new(
        Transport::Tcp,
        IpAddr::V4(Ipv4Addr::from(0x0a00_0000 + client)),
        40000,
        IpAddr::V4(Ipv4Addr::new(192, 0, 2, 1)),
        3863,
        data,
    );
    p.stream_offset = Some(offset);
    p
}

#[test]
fn tcp_framers_hold_at_most_their_byte_bound() {
    let bound = 1 << 20;
    let mut d = Dispatcher::new(DispatchOptions {
        framer_bytes: bound,
        conversations: 65536,
        ..DispatchOptions::default()
    });
    // 1000 connections x 60000 bytes = 60 MB of partial messages offered.
    let chunk = partial_asap(60_000);
    let mut messages = 0;
    for c in 0..1000 {
        let r = d.dispatch(&tcp_payload(c, &chunk, 0), &mut |_| messages += 1);
        assert!(r.is_some(), "port 3863 is ASAP");
        assert!(
            d.framer_held_bytes() <= bound,
            "{} bytes held after {c} connections",
            d.framer_held_bytes()
        );
    }
    assert_eq!(messages, 0, "no message is complete");
    let c = d.counters();
    // Everything offered is either still held or counted as dropped.
    assert_eq!(
        c.stream_bytes_dropped + d.framer_held_bytes() as u64,
        1000 * 60_000
    );
    assert!(c.conversations_evicted >= 1000 - (bound / 60_000) as u64);
}

#[test]
fn a_connection_under_the_bound_still_completes_its_message() {
    let mut d = Dispatcher::new(DispatchOptions {
        framer_bytes: 1 << 20,
        ..DispatchOptions::default()
    });
    // A whole 12-byte ASAP Handle Resolution (pool handle "ab") sent in two segments.
    let msg = [5u8, 0, 0, 12, 0, 9, 0, 6, b'a', b'b', 0, 0];
    let mut got = Vec::new();
    d.dispatch(&tcp_payload(1, &msg[..5], 0), &mut |f| {
        got.push(f.message.info())
    });
    assert!(got.is_empty());
    assert_eq!(d.framer_held_bytes(), 5);
    d.dispatch(&tcp_payload(1, &msg[5..], 5), &mut |f| {
        got.push(f.message.info())
    });
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(d.framer_held_bytes(), 0);
}

#[test]
fn interface_blocks_beyond_the_bound_are_reported_not_kept() {
    let mut w = PcapNgWriter::new(Vec::new()).unwrap();
    let n = MAX_INTERFACES + 10;
    for _ in 0..n {
        w.add_interface(&IfOptions::new(linktype::ETHERNET))
            .unwrap();
    }
    // A packet on the first interface after them.
    let iface0 = 0;
    w.write(iface0, Timestamp::new(1, 0), &[0u8; 14]).unwrap();
    w.flush().unwrap();
    let bytes = w.into_inner();
    let mut src = FileSource::from_reader(Cursor::new(bytes)).unwrap();
    let mut ignored = 0;
    let mut frames = 0;
    loop {
        match src.next_frame() {
            Ok(Some(_)) => frames += 1,
            Ok(None) => break,
            Err(e) => {
                assert!(!e.fatal, "{e}");
                assert!(e.what.contains("interface description ignored"), "{e}");
                ignored += 1;
            }
        }
    }
    assert_eq!(ignored, 10);
    assert_eq!(frames, 1);
    assert_eq!(src.interfaces().len(), MAX_INTERFACES);
}

#[test]
fn max_options_reach_the_pipeline_and_the_summary_counts_evictions() {
    let Some(path) = common::shared_capture("dhcp-failover/isc-dhcpd-4.4.3-failover.pcap") else {
        return;
    };
    // One conversation and a tiny framer bound: the failover connections evict each other.
    let out = common::poolshark()
        .args(["read", "--format", "jsonl", "--max-conversations", "1"])
        .args(["--max-framer-bytes", "16"])
        .arg(&path)
        .output()
        .unwrap();
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bounded state:"), "{err}");
    assert!(err.contains("framed-stream bytes dropped"), "{err}");
    let bad = common::poolshark()
        .args(["read", "--max-conversations", "many"])
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
}

/// Under `auto`, findings held per profile past the bound are tallied: whatever the bound, the
/// counts per rule and severity and the findings per timeline window are the same; only the list
/// is shorter, and what it lists is what the unbounded run lists. (The placement of late
/// findings in their own window is tested beside the timeline.)
#[test]
fn auto_findings_past_the_hold_bound_are_counted_exactly() {
    use poolshark::analyse::finding::Severity;
    use poolshark::analyse::rserpool::RserpoolAnalyser;
    use poolshark::analyse::{Analyser, Report};
    use poolshark::pipeline::{Options, Pipeline};

    // The demo fixture's planted rserpool.rr-head-stuck is a profile finding, held under auto.
    let file = common::fixture("demo.pcap");
    let run = |limit: Option<usize>| {
        let analyser = match limit {
            Some(n) => RserpoolAnalyser::auto().holding(n),
            None => RserpoolAnalyser::auto(),
        };
        let mut feed = common::Feed {
            analyser,
            report: Report::new(1_000_000, 1_000_000_000),
        };
        let mut pipeline = Pipeline::new(Options::default());
        let mut source = FileSource::open(&file).expect("open");
        while let Ok(Some(f)) = source.next_frame() {
            pipeline.feed(&f, &mut feed);
        }
        feed.analyser.finish(None, &mut feed.report);
        feed
    };
    let whole = run(None);
    let tallied = run(Some(0));

    let (w, t) = (&whole.report.findings, &tallied.report.findings);
    assert_eq!(whole.analyser.counters().findings_not_held, 0);
    let not_held = tallied.analyser.counters().findings_not_held;
    assert!(not_held > 0, "the bound of 0 was reached");
    assert_eq!(w.by_rule(), t.by_rule());
    for s in [Severity::Info, Severity::Warning, Severity::Error] {
        assert_eq!(w.count(s), t.count(s), "{s}");
    }
    assert_eq!(w.total(), t.total());
    assert!(
        t.list().len() < w.list().len(),
        "{} < {}",
        t.list().len(),
        w.list().len()
    );
    assert_eq!(t.list().len() as u64 + t.dropped(), t.total());
    for f in t.list() {
        assert!(
            w.list().contains(f),
            "listed only when the whole run lists it: {f}"
        );
    }
    // The same findings in the same windows of the same subjects.
    let windows = |r: &Report| -> Vec<(String, u64, u64)> {
        r.timeline
            .series()
            .iter()
            .flat_map(|(subject, s)| {
                s.windows
                    .iter()
                    .filter(|w| w.findings > 0)
                    .map(move |w| (format!("{subject:?}"), w.index, w.findings))
            })
            .collect()
    };
    let (ww, tw) = (windows(&whole.report), windows(&tallied.report));
    assert!(!ww.is_empty());
    assert_eq!(ww, tw);
}
