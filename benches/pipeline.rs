//! The layers below and above the parsers, over generated captures held in memory:
//!
//! * `dissect`: Ethernet, IPv4/IPv6, UDP, TCP and SCTP with user-message reassembly, frames
//!   already in memory (no file reading, no application parsing);
//! * `pipeline/decode`: the whole of `poolshark read` but the output: pcap reading, dissection,
//!   dispatch, parsing (a sink that ignores the messages);
//! * `pipeline/check`: the same with `check`'s analysers (RSerPool, DHCP load balancing,
//!   failover) and their report at the end, as `poolshark check` runs.
//!
//! Throughput in frames. `cargo bench --bench pipeline`

mod common;

use std::hint::black_box;
use std::io::Cursor;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};

use poolshark::analyse::Report;
use poolshark::base::linktype;
use poolshark::dissect::{Dissector, Limits};
use poolshark::generate::scenario::preset::Part;
use poolshark::pipeline::{NullSink, Options, Pipeline};
use poolshark::proto::rserpool::Encoding;
use poolshark::run::analysis::analysers;
use poolshark::run::check::{render, CheckFormat, CheckSink};
use poolshark::source::file::FileSource;
use poolshark::source::Frame;

const FRAMES: u64 = 20_000;

fn dissect(c: &mut Criterion) {
    let mut g = c.benchmark_group("dissect");
    g.throughput(Throughput::Elements(FRAMES));
    for (name, parts) in [
        ("rserpool-sctp", Some(&[Part::Rserpool][..])),
        ("mixed", None),
    ] {
        let frames = common::mixed_frames(FRAMES, parts, Encoding::Rfc);
        g.bench_function(name, |b| {
            b.iter_batched_ref(
                || Dissector::new(Limits::default()),
                |d| {
                    let mut payloads = 0usize;
                    for (i, (ts, data)) in frames.0.iter().enumerate() {
                        let frame = Frame {
                            number: i as u64 + 1,
                            ts: *ts,
                            ts_digits: 6,
                            linktype: linktype::ETHERNET,
                            orig_len: data.len() as u32,
                            interface: 0,
                            data,
                            pcapng: None,
                        };
                        d.dissect(&frame, &mut |p| payloads += p.data.len());
                    }
                    black_box(payloads)
                },
                BatchSize::LargeInput,
            )
        });
    }
    g.finish();
}

fn pipeline(c: &mut Criterion) {
    let capture = common::default_capture(FRAMES);
    let analysis = common::default_analysis();
    let mut g = c.benchmark_group("pipeline");
    g.throughput(Throughput::Elements(FRAMES));
    g.bench_function("decode", |b| {
        b.iter(|| {
            let mut source = FileSource::from_reader(Cursor::new(capture.clone())).expect("a pcap");
            let mut p = Pipeline::new(Options::default());
            p.run(&mut source, &mut NullSink)
                .expect("the whole capture");
            black_box(p.stats().frames)
        })
    });
    g.bench_function("check", |b| {
        b.iter(|| {
            let mut source = FileSource::from_reader(Cursor::new(capture.clone())).expect("a pcap");
            let mut sink = CheckSink::new(
                analysers(&analysis).expect("default analysers"),
                Report::for_findings(analysis.max_findings),
            );
            let mut p = Pipeline::new(Options::default());
            p.run(&mut source, &mut sink).expect("the whole capture");
            black_box(render(&mut sink, &p.stats(), CheckFormat::Text, false))
        })
    });
    g.finish();
}

fn quick() -> Criterion {
    Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5))
}

criterion_group! {
    name = benches;
    config = quick();
    targets = dissect, pipeline
}
criterion_main!(benches);
