//! Scenarios decoded by the project's own pipeline: no decode error anywhere, and what the
//! scenarios promise about answers holds on the wire (RR cycles in registration order, LU lists
//! ascend by load, the owner answers balanced DHCP requests, planted frames carry the fault).
//! Independent oracles (tshark, the Pearson table from the specs) check the same in
//! `tests/it/generate.rs`.

use std::collections::BTreeMap;
use std::io::Cursor;

use crate::analyse::dhcp_lb::{self, Hba, Role};
use crate::analyse::policy::{scaled_from_percent, PeSettings, PolicyKind, RSPLIB};
use crate::dissect::FrameSummary;
use crate::pipeline::{Decoded, Options, Pipeline, Sink};
use crate::proto::rserpool::{AsapType, Encoding};
use crate::proto::{dhcpv4, dhcpv6, Message};
use crate::source::file::FileSource;
use crate::source::Frame;

use super::dhcp::{DhcpAction, DhcpConfig, DhcpFault, DhcpPlant, DhcpScenario, Exchange};
use super::failover::{FailoverConfig, FailoverFault, FailoverPlant, FailoverScenario};
use super::rserpool::{
    Action, AnswerFault, Carrier, Plant, PoolSpec, RserpoolConfig, RserpoolScenario,
};
use super::{background, CaptureFormat, Frames, Mix, RunLog, Scenario};

/// A DHCPv4 message's type, server identifier, xid and client MAC.
type V4Seen = (u8, Option<std::net::Ipv4Addr>, u32, Option<[u8; 6]>);

/// One decoded message, owned.
#[derive(Debug)]
struct Got {
    frame: u64,
    time: f64,
    src: String,
    rserpool: Option<crate::proto::rserpool::Message>,
    dhcpv4: Option<V4Seen>,
    dhcpv6: Option<(u8, Option<Vec<u8>>, Option<u32>)>,
    failover: Option<crate::proto::failover::Message>,
    errors: usize,
}

#[derive(Default)]
struct Collect {
    got: Vec<Got>,
    lower_errors: usize,
}

impl Sink for Collect {
    fn message(&mut self, d: &Decoded<'_>) {
        let mut g = Got {
            frame: d.frame.number,
            time: d.frame.ts.as_f64(),
            src: d.payload.src.to_string(),
            rserpool: None,
            dhcpv4: None,
            dhcpv6: None,
            failover: None,
            errors: d.errors.len(),
        };
        match d.message {
            Message::Rserpool(m) => g.rserpool = Some(m.clone()),
            Message::Dhcpv4(m) => {
                g.dhcpv4 = Some((
                    m.message_type().unwrap_or(0),
                    m.server_identifier(),
                    m.xid,
                    m.mac(),
                ))
            }
            Message::Dhcpv6(m) => {
                g.dhcpv6 = Some((
                    m.innermost().map_or(0, |i| i.msg_type),
                    m.server_id().map(|s| s.bytes().to_vec()),
                    m.xid(),
                ))
            }
            Message::Failover(m) => g.failover = Some(m.clone()),
        }
        self.got.push(g);
    }

    fn end_frame(&mut self, _frame: &Frame<'_>, summary: &FrameSummary) {
        self.lower_errors += summary.errors.len();
    }
}

fn run(scenarios: Vec<Box<dyn Scenario>>, limit: Option<u64>) -> (RunLog, Vec<Got>) {
    let mut mix = Mix::new();
    for s in scenarios {
        mix.add(s, 1_700_000_000 * super::batch::NS);
    }
    let mut frames = Frames::default();
    let log = mix.run(limit, &mut frames).unwrap();
    let bytes = frames.to_capture(CaptureFormat::PcapNg).unwrap();
    let mut source = FileSource::from_reader(Cursor::new(bytes)).unwrap();
    let mut sink = Collect::default();
    let mut p = Pipeline::new(Options::default());
    p.run(&mut source, &mut sink).unwrap();
    assert_eq!(sink.lower_errors, 0, "decode errors below the application");
    let bad: Vec<&Got> = sink.got.iter().filter(|g| g.errors > 0).collect();
    assert!(bad.is_empty(), "decode errors: {bad:?}");
    (log, sink.got)
}

fn hrr_ids(g: &Got) -> Option<Vec<u32>> {
    let m = g.rserpool.as_ref()?;
    (m.asap_type() == Some(AsapType::HandleResolutionResponse))
        .then(|| m.pool_elements().map(|pe| pe.pe_id).collect())
}

fn rr_config(carrier: Carrier, encoding: Encoding) -> RserpoolConfig {
    let mut cfg = RserpoolConfig::new(&RSPLIB).pool(
        PoolSpec::new("RR-Pool", PolicyKind::RoundRobin)
            .pe(0x11, 0, |s| s)
            .pe(0x12, 1, |s| s)
            .pe(0x13, 0, |s| s),
    );
    cfg.carrier = carrier;
    cfg.encoding = encoding;
    cfg.pool_users = 2;
    let resolve = |user| Action::Resolve {
        pool: "RR-Pool".into(),
        user,
        items: Some(1),
    };
    cfg.script = Some((0..8).map(|k| resolve(k % 2)).collect());
    cfg
}

#[test]
fn round_robin_cycles_in_registration_order_at_each_registrar() {
    for carrier in [
        Carrier::Sctp,
        Carrier::SctpIData,
        Carrier::Tcp,
        Carrier::Udp,
    ] {
        for enc in [Encoding::Rfc, Encoding::Draft01, Encoding::Rsplib2007] {
            let s = RserpoolScenario::new(rr_config(carrier, enc), 5).unwrap();
            let (log, got) = run(vec![Box::new(s)], None);
            assert!(log.planted.is_empty());
            let answers: Vec<(String, Vec<u32>)> = got
                .iter()
                .filter_map(|g| hrr_ids(g).map(|ids| (g.src.clone(), ids)))
                .collect();
            assert_eq!(answers.len(), 8, "{carrier:?} {enc:?}");
            // Users alternate between the two registrars; each keeps its own head.
            let mut by_registrar: BTreeMap<String, Vec<u32>> = BTreeMap::new();
            for (src, ids) in answers {
                by_registrar.entry(src).or_default().extend(ids);
            }
            // RFC: one item asked for. Legacy encodings have no Handle Resolution Option: the
            // registrar's default of 3 items, the head still advancing by one.
            let order = [0x11, 0x12, 0x13];
            for ids in by_registrar.values() {
                let want: Vec<u32> = if enc == Encoding::Rfc {
                    vec![0x11, 0x12, 0x13, 0x11]
                } else {
                    (0..4)
                        .flat_map(|k| (0..3).map(move |i| order[(k + i) % 3]))
                        .collect()
                };
                assert_eq!(ids, &want, "{carrier:?} {enc:?}");
            }
        }
    }
}

#[test]
fn planted_answers_are_marked_on_the_response_frame() {
    let mut cfg = rr_config(Carrier::Sctp, Encoding::Rfc);
    cfg.plants
        .push(Plant::at("RR-Pool", 4, AnswerFault::RepeatPrevious));
    cfg.plants
        .push(Plant::at("RR-Pool", 6, AnswerFault::UnknownPe(0xdead)));
    let s = RserpoolScenario::new(cfg, 5).unwrap();
    let (log, got) = run(vec![Box::new(s)], None);
    assert_eq!(log.planted.len(), 2);
    let hrr: Vec<&Got> = got.iter().filter(|g| hrr_ids(g).is_some()).collect();
    assert_eq!(log.planted[0].rule, "rserpool.rr-head-stuck");
    assert_eq!(log.planted[0].frame, hrr[4].frame);
    // The fifth answer repeats the third (the same registrar's previous one).
    assert_eq!(hrr_ids(hrr[4]), hrr_ids(hrr[2]));
    assert_eq!(log.planted[1].rule, "rserpool.unknown-pe");
    assert_eq!(log.planted[1].frame, hrr[6].frame);
    assert_eq!(hrr_ids(hrr[6]), Some(vec![0xdead]));
}

#[test]
fn least_used_answers_ascend_by_load_and_follow_reregistration() {
    let pct = |p| scaled_from_percent(p).unwrap();
    let mut cfg = RserpoolConfig::new(&RSPLIB).pool(
        PoolSpec::new("LU", PolicyKind::LeastUsed)
            .pe(1, 0, |s| s.with_load(pct(50.0)))
            .pe(2, 0, |s| s.with_load(pct(20.0)))
            .pe(3, 1, |s| s.with_load(pct(80.0))),
    );
    let resolve = Action::Resolve {
        pool: "LU".into(),
        user: 0,
        items: Some(3),
    };
    cfg.script = Some(vec![
        resolve.clone(),
        Action::ReRegister {
            pool: "LU".into(),
            pe: 3,
            settings: PeSettings::new(PolicyKind::LeastUsed).with_load(pct(5.0)),
        },
        resolve,
    ]);
    let (_, got) = run(vec![Box::new(RserpoolScenario::new(cfg, 1).unwrap())], None);
    let answers: Vec<Vec<u32>> = got.iter().filter_map(hrr_ids).collect();
    assert_eq!(answers, vec![vec![2, 1, 3], vec![3, 2, 1]]);
}

#[test]
fn inconsistent_policies_are_rejected_unless_planted() {
    let mut cfg = RserpoolConfig::new(&RSPLIB)
        .pool(PoolSpec::new("RR", PolicyKind::RoundRobin).pe(1, 0, |s| s));
    let stray = |pe, accept| Action::RegisterInconsistent {
        pool: "RR".into(),
        pe,
        settings: PeSettings::new(PolicyKind::LeastUsed),
        home: 0,
        accept,
    };
    cfg.script = Some(vec![stray(7, false), stray(8, true)]);
    let (log, got) = run(vec![Box::new(RserpoolScenario::new(cfg, 1).unwrap())], None);
    let responses: Vec<(bool, Vec<u16>)> = got
        .iter()
        .filter_map(|g| g.rserpool.as_ref())
        .filter(|m| m.asap_type() == Some(AsapType::RegistrationResponse))
        .map(|m| (m.rejected(), m.causes().map(|c| c.code).collect()))
        .collect();
    // PE 1, then the two strays: the first rejected with cause 0x5, the second (planted) not.
    assert_eq!(
        responses,
        vec![(false, vec![]), (true, vec![5]), (false, vec![])]
    );
    assert_eq!(log.planted.len(), 1);
    assert_eq!(log.planted[0].rule, "rserpool.policy-inconsistent");
}

#[test]
fn random_rserpool_traffic_decodes_cleanly_in_every_encoding() {
    for (enc, carrier, ipv6) in [
        (Encoding::Rfc, Carrier::Sctp, false),
        (Encoding::Rfc, Carrier::SctpIData, true),
        (Encoding::Draft01, Carrier::Tcp, false),
        (Encoding::Rsplib2007, Carrier::Udp, true),
    ] {
        let profile = if enc == Encoding::Draft01 {
            &crate::analyse::policy::DRAFT01
        } else {
            &RSPLIB
        };
        let mut cfg = RserpoolConfig::new(profile);
        cfg.encoding = enc;
        cfg.carrier = carrier;
        cfg.ipv6 = ipv6;
        cfg.max_fragment = 200;
        let cfg = cfg.standard_pools(5);
        let (_, got) = run(
            vec![Box::new(RserpoolScenario::new(cfg, 9).unwrap())],
            Some(3000),
        );
        assert!(got.iter().filter(|g| hrr_ids(g).is_some()).count() > 300);
    }
}

#[test]
fn registrations_are_renewed_before_they_expire() {
    let mut cfg = RserpoolConfig::new(&RSPLIB).pool(
        PoolSpec::new("RR", PolicyKind::RoundRobin)
            .pe(1, 0, |s| s)
            .pe(2, 1, |s| s),
    );
    cfg.registration_life_ms = 2000;
    cfg.rate = 100.0;
    // The PEs stay: only the renewals register them again.
    cfg.activity.churn = 0;
    cfg.activity.keep_alive_lost = 0;
    let (log, got) = run(
        vec![Box::new(RserpoolScenario::new(cfg, 1).unwrap())],
        Some(3000),
    );
    let span = log.last.unwrap().since(log.first.unwrap());
    assert!(span > 8.0, "{span} s of traffic");
    // Each PE registers again within its 2 s lifetime, all along.
    let mut times: BTreeMap<u32, Vec<f64>> = BTreeMap::new();
    for g in &got {
        let Some(m) = &g.rserpool else { continue };
        if m.asap_type() == Some(AsapType::Registration) {
            for pe in m.pool_elements() {
                times.entry(pe.pe_id).or_default().push(g.time);
            }
        }
    }
    for id in [1, 2] {
        let t = &times[&id];
        assert!(t.len() >= 5, "PE {id}: {t:?}");
        assert!(t.windows(2).all(|w| w[1] - w[0] < 2.0), "PE {id}: {t:?}");
        assert!(log.last.unwrap().as_f64() - t[t.len() - 1] < 2.0);
    }
}

fn owner_v4(c: &super::dhcp::Client, hba: &Hba) -> Role {
    let key = c.client_id.clone().unwrap_or_else(|| c.mac.to_vec());
    hba.owner_of_key(&key).1
}

#[test]
fn only_the_owner_offers_under_kea_and_plants_are_marked() {
    let hba = Hba::kea();
    let mut cfg = DhcpConfig::new(&dhcp_lb::profile::KEA, hba);
    cfg.clients = 12;
    cfg.relays = 1;
    cfg.script = Some(
        (0..12)
            .map(|client| DhcpAction::Do {
                client,
                exchange: Exchange::Dora,
                elapsed: 0,
            })
            .collect(),
    );
    cfg.plants = vec![
        DhcpPlant::at(3, DhcpFault::WrongServer),
        DhcpPlant::at(6, DhcpFault::DoubleAnswer),
        DhcpPlant::at(8, DhcpFault::NoAnswer),
        DhcpPlant::at(10, DhcpFault::IgnoreDirected),
    ];
    let (log, got) = run(vec![Box::new(DhcpScenario::new(cfg, 2).unwrap())], None);
    let rules: Vec<&str> = log.planted.iter().map(|p| p.rule).collect();
    assert_eq!(
        rules,
        vec![
            // The owner leaves the DISCOVER unanswered while the other server offers; Kea
            // balances REQUEST too: the wrong server's ACK is wrong as well.
            "dhcp.lb.no-answer",
            "dhcp.lb.wrong-server",
            "dhcp.lb.wrong-server",
            "dhcp.lb.double-answer",
            "dhcp.lb.double-answer",
            "dhcp.lb.no-answer",
            "dhcp.lb.directed-ignored"
        ]
    );
    let clients: Vec<super::dhcp::Client> =
        (0..12).map(|k| super::dhcp::Client::new(k, 1)).collect();
    // Every OFFER not planted comes from the owner of its client's key.
    let server = |r: Role| match r {
        Role::Primary => std::net::Ipv4Addr::new(192, 0, 2, 1),
        Role::Secondary => std::net::Ipv4Addr::new(192, 0, 2, 2),
    };
    let planted: Vec<u64> = log.planted.iter().map(|p| p.frame).collect();
    let mut offers = 0;
    for g in &got {
        let Some((ty, Some(sid), _, Some(mac))) = g.dhcpv4 else {
            continue;
        };
        if ty != dhcpv4::message_type::OFFER || planted.contains(&g.frame) {
            continue;
        }
        let c = clients
            .iter()
            .find(|c| c.mac == mac)
            .expect("an OFFER goes to one of the clients");
        assert_eq!(sid, server(owner_v4(c, &hba)), "frame {}", g.frame);
        offers += 1;
    }
    assert_eq!(
        offers, 11,
        "12 DORAs, one of them answered by the wrong server only"
    );
}

#[test]
fn isc_answers_late_discovers_from_both_servers() {
    let mut cfg = DhcpConfig::new(&dhcp_lb::profile::ISC, Hba::split(128).unwrap());
    cfg.clients = 4;
    cfg.script = Some(
        (0..4)
            .map(|client| DhcpAction::Do {
                client,
                exchange: Exchange::Dora,
                elapsed: if client % 2 == 0 { 3 } else { 4 },
            })
            .collect(),
    );
    let (_, got) = run(vec![Box::new(DhcpScenario::new(cfg, 2).unwrap())], None);
    let mut offers_per_xid: BTreeMap<u32, usize> = BTreeMap::new();
    for g in &got {
        if let Some((dhcpv4::message_type::OFFER, _, xid, _)) = g.dhcpv4 {
            *offers_per_xid.entry(xid).or_default() += 1;
        }
    }
    // secs 3 is still balanced (one offer), secs 4 is not (two), as the ISC capture shows.
    let counts: Vec<usize> = offers_per_xid.values().copied().collect();
    assert_eq!(counts.iter().filter(|n| **n == 1).count(), 2, "{counts:?}");
    assert_eq!(counts.iter().filter(|n| **n == 2).count(), 2, "{counts:?}");
}

#[test]
fn random_dhcp_traffic_covers_every_exchange_without_errors() {
    for profile in [&dhcp_lb::profile::DRAFT, &dhcp_lb::profile::KEA] {
        let mut cfg = DhcpConfig::new(profile, Hba::split(100).unwrap());
        cfg.clients = 40;
        let (_, got) = run(
            vec![Box::new(DhcpScenario::new(cfg, 4).unwrap())],
            Some(6000),
        );
        let v6_types: std::collections::BTreeSet<u8> = got
            .iter()
            .filter_map(|g| g.dhcpv6.as_ref().map(|d| d.0))
            .collect();
        for t in [
            dhcpv6::msg_type::SOLICIT,
            dhcpv6::msg_type::ADVERTISE,
            dhcpv6::msg_type::REQUEST,
            dhcpv6::msg_type::REPLY,
            dhcpv6::msg_type::RENEW,
            dhcpv6::msg_type::REBIND,
            dhcpv6::msg_type::CONFIRM,
            dhcpv6::msg_type::RELEASE,
            dhcpv6::msg_type::INFORMATION_REQUEST,
            dhcpv6::msg_type::LEASEQUERY,
            dhcpv6::msg_type::LEASEQUERY_REPLY,
            dhcpv6::msg_type::DHCPV4_QUERY,
            dhcpv6::msg_type::DHCPV4_RESPONSE,
        ] {
            assert!(
                v6_types.contains(&t),
                "{}: no DHCPv6 type {t}",
                profile.name
            );
        }
        let v4_types: std::collections::BTreeSet<u8> =
            got.iter().filter_map(|g| g.dhcpv4.map(|d| d.0)).collect();
        for t in 1..=8u8 {
            if t != dhcpv4::message_type::NAK {
                assert!(
                    v4_types.contains(&t),
                    "{}: no DHCPv4 type {t}",
                    profile.name
                );
            }
        }
        assert!(v4_types.contains(&dhcpv4::message_type::LEASEACTIVE));
    }
}

#[test]
fn failover_traffic_acknowledges_every_update_and_marks_plants() {
    let mut cfg = FailoverConfig::new(Hba::split(128).unwrap());
    cfg.transactions = Some(3000);
    // The shared ISC run's timers: runs at least 5 s apart, at most 30 s.
    cfg.params.min_balance = 5;
    cfg.params.max_balance = 30;
    cfg.contact_every = 3;
    cfg.plants = vec![
        FailoverPlant::at_run(2, FailoverFault::AffinityViolation),
        FailoverPlant::at_run(3, FailoverFault::UnexpectedPoolReq),
        FailoverPlant::at_run(4, FailoverFault::Overbalance),
    ];
    let (log, got) = run(vec![Box::new(FailoverScenario::new(cfg, 3))], None);
    let types: Vec<u8> = got
        .iter()
        .filter_map(|g| g.failover.as_ref().map(|m| m.msg_type.to_u8()))
        .collect();
    let n = |t: u8| types.iter().filter(|x| **x == t).count();
    assert!(n(3) > 1000, "BNDUPDs: {}", n(3));
    assert_eq!(n(3), n(4), "every BNDUPD acknowledged");
    for t in [5, 6, 7, 9, 8, 10, 11] {
        assert!(n(t) > 0, "no failover message of type {t}");
    }
    let rules: Vec<&str> = log.planted.iter().map(|p| p.rule).collect();
    assert_eq!(rules.len(), 3, "each plant once: {:?}", log.planted);
    for rule in [
        "failover.affinity",
        "failover.unexpected-poolreq",
        "failover.overbalance",
    ] {
        assert!(rules.contains(&rule), "{rule}: {rules:?}");
    }
    assert!(
        n(1) >= 1 && n(1) == n(2),
        "POOLREQ {} POOLRESP {}",
        n(1),
        n(2)
    );
}

/// What the mixer holds at once does not grow with the number of frames written.
#[test]
fn memory_stays_flat_in_the_number_of_frames() {
    struct Count(u64);
    impl super::FrameSink for Count {
        fn frame(&mut self, _: crate::base::Timestamp, _: &[u8]) -> std::io::Result<()> {
            self.0 += 1;
            Ok(())
        }
    }
    let held = |n| {
        let mut mix = super::preset::MixOptions::default().build().unwrap();
        let mut sink = Count(0);
        let log = mix.run(Some(n), &mut sink).unwrap();
        assert_eq!(sink.0, n);
        log.max_pending
    };
    let (small, large) = (held(20_000), held(200_000));
    // A few hundred frames: the exchanges under way (DHCP clients waiting seconds for a retry
    // overlap with others), whatever the length of the run.
    assert!(large < 1000, "{large} frames held at once");
    assert!(
        large <= small * 2,
        "{small} frames held for 20k, {large} for 200k"
    );
}

#[test]
fn the_full_mix_is_deterministic_and_time_ordered() {
    let build = |seed| {
        let opts = super::preset::MixOptions {
            seed,
            ..Default::default()
        };
        let mut mix = opts.build().unwrap();
        let mut frames = Frames::default();
        mix.run(Some(4000), &mut frames).unwrap();
        frames
    };
    let a = build(11);
    assert_eq!(a, build(11));
    assert_ne!(a, build(12));
    assert!(a.0.windows(2).all(|w| w[0].0 <= w[1].0));
    let _ = background::BackgroundConfig::default();
}
