//! Each application parser over the messages of a generated capture: ASAP/ENRP in each encoding,
//! DHCPv4, DHCPv6 (with relays), ISC failover; then the display tree `read -V` and the JSON
//! output build from a parsed message. Throughput in message bytes.
//!
//! `cargo bench --bench parsers`

mod common;

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};

use common::Wire;
use poolshark::generate::scenario::preset::Part;
use poolshark::proto::rserpool::Encoding;
use poolshark::proto::{AppProtocol, Message};

/// Frames generated for each set of messages.
const FRAMES: u64 = 20_000;

struct Set {
    name: &'static str,
    encoding: Encoding,
    messages: Vec<Wire>,
}

fn sets() -> Vec<Set> {
    let mut out = Vec::new();
    for encoding in [Encoding::Rfc, Encoding::Draft01, Encoding::Rsplib2007] {
        let capture = common::mixed_capture(FRAMES, Some(&[Part::Rserpool]), encoding);
        out.push(Set {
            name: match encoding {
                Encoding::Rfc => "asap+enrp/rfc",
                Encoding::Draft01 => "asap+enrp/draft01",
                _ => "asap+enrp/rsplib2007",
            },
            encoding,
            messages: common::messages(&capture, Some(encoding)),
        });
    }
    let capture = common::mixed_capture(FRAMES, Some(&[Part::Dhcp, Part::Failover]), Encoding::Rfc);
    let all = common::messages(&capture, None);
    for (name, protocol) in [
        ("dhcpv4", AppProtocol::Dhcpv4),
        ("dhcpv6", AppProtocol::Dhcpv6),
        ("failover", AppProtocol::Failover),
    ] {
        out.push(Set {
            name,
            encoding: Encoding::Rfc,
            messages: all
                .iter()
                .filter(|w| w.protocol == protocol)
                .map(|w| Wire {
                    protocol: w.protocol,
                    bytes: w.bytes.clone(),
                })
                .collect(),
        });
    }
    out
}

fn bytes(set: &Set) -> u64 {
    set.messages.iter().map(|w| w.bytes.len() as u64).sum()
}

fn parsers(c: &mut Criterion) {
    let sets = sets();
    let mut g = c.benchmark_group("parse");
    for set in &sets {
        assert!(!set.messages.is_empty(), "{}: no messages", set.name);
        g.throughput(Throughput::Bytes(bytes(set)));
        g.bench_function(set.name, |b| {
            b.iter(|| {
                for w in &set.messages {
                    black_box(Message::parse(
                        black_box(&w.bytes),
                        w.protocol,
                        set.encoding,
                    ));
                }
            })
        });
    }
    g.finish();

    // What `read -V` and `read --format json` add: the display tree of every message.
    let mut g = c.benchmark_group("parse+tree");
    for set in &sets {
        g.throughput(Throughput::Bytes(bytes(set)));
        g.bench_function(set.name, |b| {
            b.iter(|| {
                for w in &set.messages {
                    let (m, _) = Message::parse(&w.bytes, w.protocol, set.encoding);
                    black_box(m.fields());
                }
            })
        });
    }
    g.finish();
}

fn quick() -> Criterion {
    Criterion::default()
        .sample_size(20)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
}

criterion_group! {
    name = benches;
    config = quick();
    targets = parsers
}
criterion_main!(benches);
