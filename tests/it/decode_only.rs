//! A pipeline told to decode only some protocols (`check` runs its DHCP replays on one such):
//! the messages of those protocols are the very ones a full run gives, the others are left
//! alone, and SCTP is not even dissected when nothing wanted can come over it.

use crate::common;

use std::collections::BTreeMap;

use common::fixture;
use poolshark::dissect::dispatch::DecodeAs;
use poolshark::pipeline::{Decoded, Options, Pipeline, RunStats, Sink};
use poolshark::proto::AppProtocol;
use poolshark::source::file::FileSource;

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
