//! `poolshark check` on captures built here with the project's emitters: two DHCP servers
//! balancing clients (direct, relayed over one to three relay levels, leasequery by client id and
//! by address, INFORMATION-REQUEST without DUID, DUIDs longer than 16 bytes), with violations
//! planted on purpose. Each capture is checked by the real binary (`--format json`); the test
//! asserts exactly the planted findings (rule, frame, server), and that the same capture without
//! the plants gives none.
//!
//! Who owns a client is worked out here from the RFC 3074 hash and the map, independently of
//! the analyser, and the clients are chosen so that each plant lands where it is meant to.

use crate::common;

use std::collections::BTreeSet;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::path::Path;

use poolshark::analyse::dhcp_lb::{bucket, Hba, Role};
use poolshark::base::Timestamp;
use poolshark::generate::{Ip, Packet, PcapWriter, TcpFlow, TsResolution};
use poolshark::proto::dhcpv4::{self, message_type as v4t, Opt as Opt4};
use poolshark::proto::dhcpv6::{self, msg_type as v6t, ClientMessage, Duid, Opt as Opt6};
use poolshark::proto::failover::{self, FoOption, MessageType, ServerState};

/// Frames written so far, and the capture clock.
struct Capture {
    w: PcapWriter<std::fs::File>,
    frames: u64,
    /// Tenths of a second since the start.
    tick: i64,
    buf: Vec<u8>,
}

impl Capture {
    fn new(path: &Path) -> Capture {
        let f = std::fs::File::create(path).unwrap();
        Capture {
            w: PcapWriter::new(f, 1, TsResolution::Micro).unwrap(),
            frames: 0,
            tick: 0,
            buf: Vec::new(),
        }
    }

    fn now(&self) -> Timestamp {
        Timestamp::new(
            1_800_000_000 + self.tick / 10,
            (self.tick % 10) as u32 * 100_000_000,
        )
    }

    /// Advances the clock by `tenths` of a second.
    fn wait(&mut self, tenths: i64) {
        self.tick += tenths;
    }

    fn raw(&mut self, frame: &[u8]) -> u64 {
        let ts = self.now();
        self.w.write(ts, frame).unwrap();
        self.frames += 1;
        self.tick += 1;
        self.frames
    }

    fn udp(&mut self, ip: Ip, sport: u16, dport: u16, payload: &[u8]) -> u64 {
        let mut buf = std::mem::take(&mut self.buf);
        Packet::udp(ip, sport, dport, payload).frame(&mut buf);
        let n = self.raw(&buf);
        self.buf = buf;
        n
    }

    fn finish(mut self) {
        self.w.flush().unwrap();
    }
}

/// One expected finding.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Expect {
    frame: u64,
    rule: String,
    server: String,
}

fn expect(frame: u64, rule: &str, server: &str) -> Expect {
    Expect {
        frame,
        rule: format!("dhcp.lb.{rule}"),
        server: server.to_string(),
    }
}

fn check(file: &Path, extra: &[&str]) -> serde_json::Value {
    let out = common::poolshark()
        .arg("check")
        .arg(file)
        .args(["--format", "json", "--fail-on", "error"])
        .args(extra)
        .output()
        .unwrap();
    let code = out.status.code();
    assert!(
        code == Some(0) || code == Some(1),
        "exit {code:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn findings(j: &serde_json::Value) -> BTreeSet<Expect> {
    j["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| Expect {
            frame: f["frame"].as_u64().unwrap(),
            rule: f["rule"].as_str().unwrap().to_string(),
            server: f["server"].as_str().unwrap_or("").to_string(),
        })
        .collect()
}

fn assert_findings(j: &serde_json::Value, want: &[Expect]) {
    let got = findings(j);
    let want: BTreeSet<Expect> = want.iter().cloned().collect();
    assert_eq!(
        got,
        want,
        "\nmissing: {:?}\nunexpected: {:?}\nreport: {}",
        want.difference(&got).collect::<Vec<_>>(),
        got.difference(&want).collect::<Vec<_>>(),
        serde_json::to_string_pretty(&j["findings"]).unwrap()
    );
}

// ---------------------------------------------------------------------------------------------
// DHCPv6: a draft-profile pair given by a configuration file.

const A_DUID: [u8; 10] = [0, 3, 0, 1, 2, 0, 0, 0, 0xa, 0xa];
const B_DUID: [u8; 10] = [0, 3, 0, 1, 2, 0, 0, 0, 0xb, 0xb];

fn v6addr(s: &str) -> Ipv6Addr {
    s.parse().unwrap()
}

struct V6Pair {
    hba: Hba,
    servers: [(Ipv6Addr, Duid<'static>); 2],
    relay: Ipv6Addr,
}

impl V6Pair {
    fn new() -> V6Pair {
        V6Pair {
            hba: Hba::split(128).unwrap(),
            servers: [
                (v6addr("2001:db8::a"), Duid(A_DUID.to_vec().into())),
                (v6addr("2001:db8::b"), Duid(B_DUID.to_vec().into())),
            ],
            relay: v6addr("2001:db8:1::1"),
        }
    }

    fn owner(&self, duid: &[u8]) -> usize {
        usize::from(self.hba.owner(bucket(duid)) == Role::Secondary)
    }
}

/// A client DUID-LL whose whole-DUID bucket is owned by `want` (0 primary, 1 secondary), the
/// `n`-th such.
fn client_duid(p: &V6Pair, want: usize, n: usize) -> Vec<u8> {
    (0u32..)
        .map(|i| {
            Duid::ll(1, &[2, 0, 0, (i >> 16) as u8, (i >> 8) as u8, i as u8])
                .0
                .into_owned()
        })
        .filter(|d| p.owner(d) == want)
        .nth(n)
        .unwrap()
}

/// A 20-byte DUID-EN whose whole bucket is owned by `whole` and whose first 16 bytes' bucket
/// by `first16`.
fn long_duid(p: &V6Pair, whole: usize, first16: usize, n: usize) -> Vec<u8> {
    (0u32..)
        .map(|i| {
            // The counter sits inside the first 16 bytes, so that both hashes vary.
            let mut id = i.to_be_bytes().to_vec();
            id.extend_from_slice(&[0x55; 10]);
            Duid::en(9, &id).0.into_owned()
        })
        .filter(|d| {
            d.len() == 20
                && p.owner(d) == whole
                && usize::from(p.hba.owner(bucket(&d[..16])) == Role::Secondary) == first16
        })
        .nth(n)
        .unwrap()
}

/// How a client message travels: straight (multicast), or through `levels` relays (the last
/// relay sends one copy to each server).
#[derive(Clone, Copy)]
enum Path6 {
    Direct,
    Relayed(u8),
}

fn wrap(m: dhcpv6::Message<'static>, p: &V6Pair, levels: u8) -> dhcpv6::Message<'static> {
    let mut m = m;
    for hop in 0..levels {
        let link = v6addr(&format!("2001:db8:{}::1", hop + 10));
        let t = if m.relays.is_empty() && !is_server_msg(&m) {
            v6t::RELAY_FORW
        } else if is_server_msg(&m) {
            v6t::RELAY_REPL
        } else {
            m.relays[0].msg_type
        };
        m = m.relayed(
            t,
            hop,
            link,
            v6addr("fe80::c"),
            vec![Opt6::interface_id(format!("eth{hop}").as_bytes())],
        );
    }
    let _ = p;
    m
}

fn is_server_msg(m: &dhcpv6::Message<'_>) -> bool {
    m.innermost().is_some_and(|i| {
        matches!(
            i.msg_type,
            v6t::ADVERTISE | v6t::REPLY | v6t::LEASEQUERY_REPLY
        )
    })
}

/// Sends a client message; returns its (first) frame.
fn send6(cap: &mut Capture, p: &V6Pair, m: ClientMessage<'static>, path: Path6) -> u64 {
    let client = v6addr("fe80::c");
    match path {
        Path6::Direct => {
            let b = dhcpv6::Message::client(m).emit();
            cap.udp(Ip::v6(client, v6addr("ff02::1:2")), 546, 547, &b)
        }
        Path6::Relayed(levels) => {
            let b = wrap(dhcpv6::Message::client(m), p, levels).emit();
            let first = cap.udp(Ip::v6(p.relay, p.servers[0].0), 547, 547, &b);
            cap.udp(Ip::v6(p.relay, p.servers[1].0), 547, 547, &b);
            first
        }
    }
}

/// Server `s` answers; returns the frame.
fn answer6(
    cap: &mut Capture,
    p: &V6Pair,
    s: usize,
    t: u8,
    xid: u32,
    client: Option<&[u8]>,
    path: Path6,
) -> u64 {
    let mut opts = Vec::new();
    if let Some(c) = client {
        opts.push(Opt6::client_id(Duid(c.to_vec().into())));
    }
    opts.push(Opt6::server_id(p.servers[s].1.clone()));
    let m = dhcpv6::Message::client(ClientMessage::new(t, xid, opts));
    match path {
        Path6::Direct => {
            let b = m.emit();
            cap.udp(Ip::v6(p.servers[s].0, v6addr("fe80::c")), 547, 546, &b)
        }
        Path6::Relayed(levels) => {
            let b = wrap(m, p, levels).emit();
            cap.udp(Ip::v6(p.servers[s].0, p.relay), 547, 547, &b)
        }
    }
}

fn solicit(duid: &[u8], xid: u32, elapsed: u16) -> ClientMessage<'static> {
    ClientMessage::new(
        v6t::SOLICIT,
        xid,
        vec![
            Opt6::client_id(Duid(duid.to_vec().into())),
            Opt6::elapsed_time(elapsed),
            Opt6::ia_na(1, 0, 0, vec![]),
        ],
    )
}

/// A clean exchange: SOLICIT answered by its owner, then REQUEST naming it, answered.
fn clean_exchange(cap: &mut Capture, p: &V6Pair, duid: &[u8], xid: u32, path: Path6) {
    let o = p.owner(duid);
    send6(cap, p, solicit(duid, xid, 0), path);
    answer6(cap, p, o, v6t::ADVERTISE, xid, Some(duid), path);
    let req = ClientMessage::new(
        v6t::REQUEST,
        xid + 1,
        vec![
            Opt6::client_id(Duid(duid.to_vec().into())),
            Opt6::server_id(p.servers[o].1.clone()),
            Opt6::elapsed_time(0),
        ],
    );
    send6(cap, p, req, path);
    answer6(cap, p, o, v6t::REPLY, xid + 1, Some(duid), path);
    cap.wait(5);
}

fn build_v6(path: &Path, plant: bool) -> Vec<Expect> {
    let p = V6Pair::new();
    let (a, b) = ("dhcp-a", "dhcp-b");
    let mut cap = Capture::new(path);
    let mut want = Vec::new();
    let mut xid = 0x100;
    // 24 clean clients, alternating owners and paths (direct, 1, 2 and 3 relay levels).
    for i in 0..24 {
        let duid = client_duid(&p, i % 2, i / 2);
        let route = match i % 4 {
            0 => Path6::Direct,
            k => Path6::Relayed(k as u8),
        };
        clean_exchange(&mut cap, &p, &duid, xid, route);
        xid += 0x10;
    }
    // INFORMATION-REQUEST without a DUID: bucket 0, the primary's under split:128.
    let ir = ClientMessage::new(v6t::INFORMATION_REQUEST, 0x900, vec![Opt6::elapsed_time(0)]);
    send6(&mut cap, &p, ir, Path6::Direct);
    answer6(&mut cap, &p, 0, v6t::REPLY, 0x900, None, Path6::Direct);
    // Leasequery by client id (a secondary-owned client) from a requestor; by address, both
    // answer (not balanced).
    let target = client_duid(&p, 1, 0);
    let requestor = Duid::en(9, b"lq-requestor").0.into_owned();
    let lq = ClientMessage::new(
        v6t::LEASEQUERY,
        0x910,
        vec![
            Opt6::client_id(Duid(requestor.clone().into())),
            Opt6::lq_query(
                dhcpv6::QUERY_BY_CLIENTID,
                Ipv6Addr::UNSPECIFIED,
                vec![Opt6::client_id(Duid(target.clone().into()))],
            ),
        ],
    );
    send6(&mut cap, &p, lq, Path6::Direct);
    answer6(
        &mut cap,
        &p,
        1,
        v6t::LEASEQUERY_REPLY,
        0x910,
        Some(&requestor),
        Path6::Direct,
    );
    let lq_ip = ClientMessage::new(
        v6t::LEASEQUERY,
        0x920,
        vec![
            Opt6::client_id(Duid(requestor.clone().into())),
            Opt6::lq_query(
                dhcpv6::QUERY_BY_ADDRESS,
                Ipv6Addr::UNSPECIFIED,
                vec![Opt6::iaaddr(v6addr("2001:db8::99"), 0, 0, vec![])],
            ),
        ],
    );
    send6(&mut cap, &p, lq_ip, Path6::Direct);
    answer6(
        &mut cap,
        &p,
        0,
        v6t::LEASEQUERY_REPLY,
        0x920,
        Some(&requestor),
        Path6::Direct,
    );
    answer6(
        &mut cap,
        &p,
        1,
        v6t::LEASEQUERY_REPLY,
        0x920,
        Some(&requestor),
        Path6::Direct,
    );
    cap.wait(5);
    if !plant {
        // The same kinds of client as the plants below, served correctly.
        for (i, whole) in [(0usize, 0usize), (1, 0)] {
            let d = long_duid(&p, whole, 1, i);
            send6(
                &mut cap,
                &p,
                solicit(&d, 0xa00 + i as u32, 0),
                Path6::Relayed(2),
            );
            answer6(
                &mut cap,
                &p,
                0,
                v6t::ADVERTISE,
                0xa00 + i as u32,
                Some(&d),
                Path6::Relayed(2),
            );
            cap.wait(5);
        }
        cap.finish();
        return want;
    }
    // 1. wrong-server: the secondary alone answers a primary-owned client.
    let d = client_duid(&p, 0, 40);
    let f_req = send6(&mut cap, &p, solicit(&d, 0x500, 0), Path6::Direct);
    let f_ans = answer6(
        &mut cap,
        &p,
        1,
        v6t::ADVERTISE,
        0x500,
        Some(&d),
        Path6::Direct,
    );
    want.push(expect(f_ans, "wrong-server", b));
    want.push(expect(f_req, "no-answer", a));
    cap.wait(5);
    // 2. double-answer: both answer a primary-owned client, relayed over two levels.
    let d = client_duid(&p, 0, 41);
    send6(&mut cap, &p, solicit(&d, 0x510, 0), Path6::Relayed(2));
    answer6(
        &mut cap,
        &p,
        0,
        v6t::ADVERTISE,
        0x510,
        Some(&d),
        Path6::Relayed(2),
    );
    let f_ans = answer6(
        &mut cap,
        &p,
        1,
        v6t::ADVERTISE,
        0x510,
        Some(&d),
        Path6::Relayed(2),
    );
    want.push(expect(f_ans, "double-answer", b));
    cap.wait(5);
    // 3. no-answer: a secondary-owned client is ignored, retries, and gets its answer.
    let d = client_duid(&p, 1, 40);
    let f_req = send6(&mut cap, &p, solicit(&d, 0x520, 0), Path6::Direct);
    cap.wait(10);
    send6(&mut cap, &p, solicit(&d, 0x520, 110), Path6::Direct);
    answer6(
        &mut cap,
        &p,
        1,
        v6t::ADVERTISE,
        0x520,
        Some(&d),
        Path6::Direct,
    );
    want.push(expect(f_req, "no-answer", b));
    cap.wait(5);
    // 4. delayed service: after 5 s (elapsed 500 > 3 s), both answer a primary-owned client.
    let d = client_duid(&p, 0, 42);
    send6(&mut cap, &p, solicit(&d, 0x530, 500), Path6::Relayed(1));
    answer6(
        &mut cap,
        &p,
        0,
        v6t::ADVERTISE,
        0x530,
        Some(&d),
        Path6::Relayed(1),
    );
    let f_ans = answer6(
        &mut cap,
        &p,
        1,
        v6t::ADVERTISE,
        0x530,
        Some(&d),
        Path6::Relayed(1),
    );
    want.push(expect(f_ans, "delayed-service", b));
    cap.wait(5);
    // 5. directed-ignored: a REQUEST naming the primary (a secondary-owned client: the draft
    //    answers named messages whatever the bucket) is ignored by it; the retry is answered.
    let d = client_duid(&p, 1, 41);
    let named = |e: u16| {
        ClientMessage::new(
            v6t::REQUEST,
            0x540,
            vec![
                Opt6::client_id(Duid(d.clone().into())),
                Opt6::server_id(p.servers[0].1.clone()),
                Opt6::elapsed_time(e),
            ],
        )
    };
    let f_req = send6(&mut cap, &p, named(0), Path6::Direct);
    cap.wait(10);
    send6(&mut cap, &p, named(100), Path6::Direct);
    answer6(&mut cap, &p, 0, v6t::REPLY, 0x540, Some(&d), Path6::Direct);
    want.push(expect(f_req, "directed-ignored", a));
    cap.wait(5);
    // 6. stid-truncated: the secondary hashes only the first 16 bytes of 20-byte DUIDs: for two
    //    clients the whole DUID gives the primary, the first 16 bytes the secondary, and both
    //    answer.
    let mut first = None;
    for i in 0..2usize {
        let d = long_duid(&p, 0, 1, i);
        let x = 0x600 + i as u32;
        send6(&mut cap, &p, solicit(&d, x, 0), Path6::Relayed(2));
        answer6(
            &mut cap,
            &p,
            0,
            v6t::ADVERTISE,
            x,
            Some(&d),
            Path6::Relayed(2),
        );
        let f = answer6(
            &mut cap,
            &p,
            1,
            v6t::ADVERTISE,
            x,
            Some(&d),
            Path6::Relayed(2),
        );
        want.push(expect(f, "double-answer", b));
        first.get_or_insert(f);
        cap.wait(5);
    }
    want.push(expect(first.unwrap(), "stid-truncated", b));
    // Enough clean traffic afterwards that no server looks silent.
    for i in 0..4 {
        let duid = client_duid(&p, i % 2, 30 + i);
        clean_exchange(&mut cap, &p, &duid, 0x700 + 0x10 * i as u32, Path6::Direct);
    }
    cap.finish();
    want
}

const V6_CONFIG: &str = r#"
profile = "draft"
hba = "split:128"
delayed_service_threshold = 3

[[server]]
name = "dhcp-a"
role = "primary"
identifiers = ["00:03:00:01:02:00:00:00:0a:0a", "2001:db8::a"]

[[server]]
name = "dhcp-b"
role = "secondary"
identifiers = ["00030001020000000b0b", "2001:db8::b"]
"#;

#[test]
fn v6_pair_from_a_config_file() {
    let dir = std::env::temp_dir().join(format!("poolshark-dhcp-check-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let config = dir.join("v6.toml");
    std::fs::write(&config, V6_CONFIG).unwrap();
    let cfg = config.to_str().unwrap();
    for plant in [false, true] {
        let file = dir.join(format!("v6-{plant}.pcap"));
        let want = build_v6(&file, plant);
        let j = check(&file, &["--config", cfg]);
        assert_findings(&j, &want);
        let hba = &j["hba"]["dhcpv6"];
        assert_eq!(hba["spec"], "split:128");
        assert_eq!(hba["source"], "config");
        assert_eq!(hba["primary"], "dhcp-a");
        let servers = j["servers"].as_array().unwrap();
        let a = servers.iter().find(|s| s["server"] == "dhcp-a").unwrap();
        assert_eq!(a["role"], "primary");
        assert_eq!(a["buckets"], 128);
        if !plant {
            // Every balanced answer came from the owner: the observed share is the expected one.
            assert_eq!(a["share"], a["expected_share"]);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// DHCPv4: an ISC failover pair, everything inferred (the map from the primary's CONNECT).

const P4: Ipv4Addr = Ipv4Addr::new(10, 0, 0, 1);
const S4: Ipv4Addr = Ipv4Addr::new(10, 0, 0, 2);
const RELAY4: Ipv4Addr = Ipv4Addr::new(10, 9, 0, 1);

fn mac(i: u32) -> [u8; 6] {
    [2, 0xc1, 0, (i >> 16) as u8, (i >> 8) as u8, i as u8]
}

/// The `n`-th client (by chaddr) whose bucket `hba` gives to `want` (0 primary, 1 secondary).
fn client_mac(hba: &Hba, want: usize, n: usize) -> [u8; 6] {
    (0u32..)
        .map(mac)
        .filter(|m| usize::from(hba.owner(bucket(m)) == Role::Secondary) == want)
        .nth(n)
        .unwrap()
}

struct V4 {
    hba: Hba,
    fo: TcpFlow,
    fo_time: u32,
    fo_xid: u32,
}

impl V4 {
    fn failover(&mut self, cap: &mut Capture, from_primary: bool, m: failover::Message) -> u64 {
        let bytes = m.emit().unwrap();
        let mut frames = Vec::new();
        self.fo
            .send(from_primary, &bytes, &mut |f| frames.push(f.to_vec()));
        let mut first = 0;
        for f in frames {
            let n = cap.raw(&f);
            if first == 0 {
                first = n;
            }
        }
        first
    }

    fn msg(&mut self, t: MessageType, opts: Vec<FoOption>) -> failover::Message {
        self.fo_xid += 1;
        failover::Message::new(t, self.fo_time, self.fo_xid, opts)
    }

    fn connect(&mut self, cap: &mut Capture, hba: &Hba) -> u64 {
        let m = self.msg(
            MessageType::Connect,
            vec![FoOption::HashBucketAssignment(hba.bytes().to_vec())],
        );
        self.failover(cap, true, m)
    }

    fn state(&mut self, cap: &mut Capture, from_primary: bool, s: ServerState) -> u64 {
        let since = cap.now().secs as u32;
        let m = self.msg(
            MessageType::State,
            vec![FoOption::ServerState(s), FoOption::StartTimeOfState(since)],
        );
        self.failover(cap, from_primary, m)
    }

    fn contact(&mut self, cap: &mut Capture) {
        let m = self.msg(MessageType::Contact, vec![]);
        self.failover(cap, true, m);
        let m = self.msg(MessageType::Contact, vec![]);
        self.failover(cap, false, m);
    }
}

fn server4(s: usize) -> Ipv4Addr {
    if s == 0 {
        P4
    } else {
        S4
    }
}

/// A client message, broadcast or relayed (the relay sends a copy to each server).
fn send4(cap: &mut Capture, m: &dhcpv4::Message<'_>, relayed: bool) -> u64 {
    let b = m.emit();
    if relayed {
        let first = cap.udp(Ip::v4(RELAY4, P4), 67, 67, &b);
        cap.udp(Ip::v4(RELAY4, S4), 67, 67, &b);
        first
    } else {
        cap.udp(
            Ip::v4(Ipv4Addr::UNSPECIFIED, Ipv4Addr::BROADCAST),
            68,
            67,
            &b,
        )
    }
}

fn answer4(cap: &mut Capture, s: usize, t: u8, xid: u32, m: [u8; 6], relayed: bool) -> u64 {
    let mut r = dhcpv4::Message::reply(t, xid, m)
        .with(Opt4::server_identifier(server4(s)))
        .with_yiaddr(Ipv4Addr::new(10, 0, 1, 100));
    if relayed {
        r = r.with_giaddr(RELAY4);
        let b = r.emit();
        cap.udp(Ip::v4(server4(s), RELAY4), 67, 67, &b)
    } else {
        let b = r.emit();
        cap.udp(Ip::v4(server4(s), Ipv4Addr::BROADCAST), 67, 68, &b)
    }
}

fn discover(xid: u32, m: [u8; 6], secs: u16, relayed: bool) -> dhcpv4::Message<'static> {
    let mut d = dhcpv4::Message::request(v4t::DISCOVER, xid, m).with_secs(secs);
    if relayed {
        d = d.with_giaddr(RELAY4).with_hops(1);
    }
    d
}

/// DISCOVER / OFFER from the owner, SELECTING REQUEST naming it / ACK, then an INIT-REBOOT
/// REQUEST that both servers ACK (ISC never balances REQUEST).
fn clean4(cap: &mut Capture, v: &V4, m: [u8; 6], xid: u32, relayed: bool) {
    let o = usize::from(v.hba.owner(bucket(&m)) == Role::Secondary);
    send4(cap, &discover(xid, m, 0, relayed), relayed);
    answer4(cap, o, v4t::OFFER, xid, m, relayed);
    let mut req = dhcpv4::Message::request(v4t::REQUEST, xid, m)
        .with(Opt4::server_identifier(server4(o)))
        .with(Opt4::requested_address(Ipv4Addr::new(10, 0, 1, 100)));
    if relayed {
        req = req.with_giaddr(RELAY4);
    }
    send4(cap, &req, relayed);
    answer4(cap, o, v4t::ACK, xid, m, relayed);
    let reboot = dhcpv4::Message::request(v4t::REQUEST, xid + 1, m)
        .with(Opt4::client_identifier(1, &m))
        .with(Opt4::requested_address(Ipv4Addr::new(10, 0, 1, 100)));
    send4(cap, &reboot, false);
    answer4(cap, 0, v4t::ACK, xid + 1, m, false);
    answer4(cap, 1, v4t::ACK, xid + 1, m, false);
    cap.wait(5);
}

fn build_v4(path: &Path, plant: bool) -> Vec<Expect> {
    let hba = Hba::split(128).unwrap();
    let (p, s) = ("10.0.0.1", "10.0.0.2");
    let mut cap = Capture::new(path);
    let mut v = V4 {
        hba,
        fo: TcpFlow::new(
            SocketAddr::new(IpAddr::V4(P4), 41000),
            SocketAddr::new(IpAddr::V4(S4), 647),
            [1000, 5000],
        ),
        fo_time: 1_800_000_000,
        fo_xid: 0,
    };
    let mut want = Vec::new();
    let mut hs = Vec::new();
    v.fo.handshake(&mut |f| hs.push(f.to_vec()));
    for f in hs {
        cap.raw(&f);
    }
    v.connect(&mut cap, &hba);
    v.state(&mut cap, false, ServerState::Normal);
    v.state(&mut cap, true, ServerState::Normal);
    let mut xid = 0x1000;
    for i in 0..24usize {
        let m = client_mac(&hba, i % 2, i / 2);
        clean4(&mut cap, &v, m, xid, i % 3 == 0);
        xid += 0x10;
        if i % 4 == 3 {
            v.contact(&mut cap);
        }
    }
    // The primary loses its peer for a while: communications-interrupted, both answer every
    // DISCOVER; this is no violation.
    v.state(&mut cap, true, ServerState::CommunicationsInterrupted);
    for i in 0..4usize {
        let m = client_mac(&hba, i % 2, 50 + i);
        send4(&mut cap, &discover(0x3000 + i as u32, m, 0, false), false);
        answer4(&mut cap, 0, v4t::OFFER, 0x3000 + i as u32, m, false);
        answer4(&mut cap, 1, v4t::OFFER, 0x3000 + i as u32, m, false);
        cap.wait(5);
    }
    v.contact(&mut cap);
    v.state(&mut cap, true, ServerState::Normal);
    if plant {
        // 1. wrong-server: the secondary alone offers to a primary-owned client.
        let m = client_mac(&hba, 0, 40);
        let f_req = send4(&mut cap, &discover(0x2000, m, 0, false), false);
        let f_ans = answer4(&mut cap, 1, v4t::OFFER, 0x2000, m, false);
        want.push(expect(f_ans, "wrong-server", s));
        want.push(expect(f_req, "no-answer", p));
        cap.wait(5);
        // 2. double-answer: both offer to a secondary-owned client, relayed.
        let m = client_mac(&hba, 1, 40);
        send4(&mut cap, &discover(0x2010, m, 0, true), true);
        answer4(&mut cap, 1, v4t::OFFER, 0x2010, m, true);
        let f_ans = answer4(&mut cap, 0, v4t::OFFER, 0x2010, m, true);
        want.push(expect(f_ans, "double-answer", p));
        cap.wait(5);
        // 3. delayed service: secs 10, both offer to a primary-owned client.
        let m = client_mac(&hba, 0, 41);
        send4(&mut cap, &discover(0x2020, m, 10, false), false);
        answer4(&mut cap, 0, v4t::OFFER, 0x2020, m, false);
        let f_ans = answer4(&mut cap, 1, v4t::OFFER, 0x2020, m, false);
        want.push(expect(f_ans, "delayed-service", s));
        cap.wait(5);
        // 4. no-answer: a secondary-owned client is ignored, retries 3 s later (secs 3: still
        //    balanced) and the secondary answers.
        let m = client_mac(&hba, 1, 41);
        let f_req = send4(&mut cap, &discover(0x2030, m, 0, false), false);
        cap.wait(30);
        send4(&mut cap, &discover(0x2030, m, 3, false), false);
        answer4(&mut cap, 1, v4t::OFFER, 0x2030, m, false);
        want.push(expect(f_req, "no-answer", s));
        cap.wait(5);
        // 5. directed-ignored: a SELECTING REQUEST naming the secondary gets no ACK; the client
        //    retries and gets it.
        let m = client_mac(&hba, 1, 42);
        let req = |secs: u16| {
            dhcpv4::Message::request(v4t::REQUEST, 0x2040, m)
                .with_secs(secs)
                .with(Opt4::server_identifier(S4))
                .with(Opt4::requested_address(Ipv4Addr::new(10, 0, 1, 100)))
        };
        let f_req = send4(&mut cap, &req(0), false);
        cap.wait(30);
        send4(&mut cap, &req(3), false);
        answer4(&mut cap, 1, v4t::ACK, 0x2040, m, false);
        want.push(expect(f_req, "directed-ignored", s));
        cap.wait(5);
        // 6. hba-conflict: the primary reconnects with another map.
        let f = v.connect(&mut cap, &Hba::split(100).unwrap());
        want.push(expect(f, "hba-conflict", "10.0.0.1+10.0.0.2/dhcpv4"));
    }
    for i in 0..4usize {
        let m = client_mac(&hba, i % 2, 30 + i);
        clean4(&mut cap, &v, m, 0x4000 + 0x10 * i as u32, false);
        v.contact(&mut cap);
    }
    cap.finish();
    want
}

#[test]
fn v4_isc_pair_inferred() {
    let dir = std::env::temp_dir().join(format!("poolshark-dhcp-check4-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for plant in [false, true] {
        let file = dir.join(format!("v4-{plant}.pcap"));
        let want = build_v4(&file, plant);
        let j = check(&file, &[]);
        assert_findings(&j, &want);
        let hba = &j["hba"]["dhcpv4"];
        assert_eq!(hba["spec"], "split:128");
        assert_eq!(hba["source"], "failover-connect");
        assert_eq!(hba["primary"], "10.0.0.1");
        let pair = &j["dhcp_lb"]["pairs"][0];
        assert_eq!(
            pair["profile"], "isc",
            "INIT-REBOOT REQUESTs answered by both"
        );
        assert_eq!(pair["profile_source"], "inferred");
        assert_eq!(pair["threshold_seconds"], 3);
    }
}

#[test]
fn no_pair_no_findings_and_bad_config_is_a_usage_error() {
    let dir = std::env::temp_dir().join(format!("poolshark-dhcp-check0-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // One server only: nothing to balance.
    let file = dir.join("one.pcap");
    let mut cap = Capture::new(&file);
    let hba = Hba::split(128).unwrap();
    for i in 0..10usize {
        let m = client_mac(&hba, i % 2, i);
        send4(&mut cap, &discover(i as u32, m, 0, false), false);
        answer4(&mut cap, 0, v4t::OFFER, i as u32, m, false);
    }
    cap.finish();
    let j = check(&file, &[]);
    assert!(j["findings"].as_array().unwrap().is_empty());
    assert!(j["dhcp_lb"]["no_pair"][0]["why"]
        .as_str()
        .unwrap()
        .contains("only one server"));
    // A broken config file: exit 2 with a message that says what is wrong.
    let bad = dir.join("bad.toml");
    std::fs::write(&bad, "profile = \"nope\"\n").unwrap();
    let out = common::poolshark()
        .arg("check")
        .arg(&file)
        .arg("--config")
        .arg(&bad)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown DHCP profile"));
    let out = common::poolshark()
        .arg("check")
        .arg(&file)
        .args(["--hba", "split:999"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

// ---------------------------------------------------------------------------------------------
// `hash --profile P` and `check --profile P` read a client's key alike.

/// The bucket and owner `poolshark hash` gives for option 61's payload `key` under `profile`.
fn hash_owner(profile: &str, key: &[u8]) -> (u64, usize) {
    let hex: String = key.iter().map(|b| format!("{b:02x}")).collect();
    let mut args = vec!["hash", &hex, "--profile", profile, "--format", "json"];
    if profile != "kea" {
        args.extend(["--hba", "split:128"]);
    }
    let out = common::poolshark().args(&args).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "hash {args:?}");
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let owner = match j["owner"].as_str() {
        Some("primary") => 0,
        Some("secondary") => 1,
        other => panic!("hash {args:?}: owner {other:?}"),
    };
    (j["bucket"].as_u64().unwrap(), owner)
}

#[test]
fn hash_and_check_give_the_same_bucket_for_keys_of_1_to_64_bytes_under_every_profile() {
    let dir = std::env::temp_dir().join(format!("poolshark-hash-check-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for profile in ["draft", "kea", "isc"] {
        // Every key length from the type byte alone to 64 bytes; every third client answered by
        // the server that does not own the bucket `hash` names: check must flag exactly those.
        // A key over 16 bytes differs from its first 16 bytes in a later byte, so the draft's cut
        // changes its bucket more often than not (the test would fail if hash did not cut).
        let file = dir.join(format!("keys-{profile}.pcap"));
        let mut cap = Capture::new(&file);
        let mut want = Vec::new();
        let mut cut_moved = 0;
        for len in 1..=64usize {
            let id: Vec<u8> = (1..len).map(|i| (i * 37 + len * 11) as u8).collect();
            let key: Vec<u8> = std::iter::once(0xff).chain(id.iter().copied()).collect();
            let (b, owner) = hash_owner(profile, &key);
            if len > 16 && b != u64::from(bucket(&key)) {
                cut_moved += 1;
            }
            let xid = 0x1000 + len as u32;
            let m = mac(len as u32);
            let d = discover(xid, m, 0, false).with(Opt4::client_identifier(0xff, &id));
            send4(&mut cap, &d, false);
            let server = if len % 3 == 0 { 1 - owner } else { owner };
            let f = answer4(&mut cap, server, v4t::OFFER, xid, m, false);
            if server != owner {
                want.push(f);
            }
            cap.wait(2);
        }
        cap.finish();
        if profile == "draft" {
            assert!(cut_moved > 24, "only {cut_moved} of 48 long keys moved");
        } else {
            assert_eq!(cut_moved, 0, "{profile} hashes the whole key");
        }
        let config = dir.join(format!("{profile}.toml"));
        let hba = if profile == "kea" {
            String::new()
        } else {
            "hba = \"split:128\"\n".to_string()
        };
        std::fs::write(
            &config,
            format!(
                "profile = \"{profile}\"\n{hba}delayed_service_threshold = 3\n\n[[server]]\nname = \"a\"\nrole = \"primary\"\n\
                 identifiers = [\"10.0.0.1\"]\n\n[[server]]\nname = \"b\"\nrole = \"secondary\"\n\
                 identifiers = [\"10.0.0.2\"]\n"
            ),
        )
        .unwrap();
        let j = check(&file, &["--config", config.to_str().unwrap()]);
        let wrong: Vec<u64> = j["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["rule"] == "dhcp.lb.wrong-server")
            .map(|f| f["frame"].as_u64().unwrap())
            .collect();
        assert_eq!(
            wrong,
            want,
            "{profile}: {}",
            serde_json::to_string_pretty(&j["findings"]).unwrap()
        );
    }
}

// ---------------------------------------------------------------------------------------------
// DHCPv6: evidence that does not decide between Kea and the draft (issue: a tie in the profile
// inference was silently resolved in favour of the first profile tried).

/// A v6 pair balancing by Kea's map (hash % 2), whose answers score Kea and the draft alike:
/// clean exchanges (both profiles balance them); one SOLICIT answered by the server that does not
/// own its client (every profile flags it); and three that the profiles judge apart, which
/// leave the scores tied: a leasequery by client id answered by the target's owner alone (the
/// draft balances it, Kea does not: +1 for the draft), an INFORMATION-REQUEST answered by both
/// servers (Kea does not balance it, the draft flags the second answer: +1 for Kea, -1 for the
/// draft), and a SOLICIT of a client that has waited 10 s answered by the non-owner alone (the
/// draft's delayed service, a wrong server for Kea: -1 for Kea). Returns the frames of the wrong
/// answer and of the disputed ones (the draft's, Kea's).
fn build_tie(path: &Path) -> (u64, u64, u64) {
    let p = V6Pair {
        hba: Hba::kea(),
        ..V6Pair::new()
    };
    let mut cap = Capture::new(path);
    let mut xid = 0x300;
    // The first client three times, so that its bucket's owner is clear even after the plant.
    for i in 0..30 {
        let duid = client_duid(&p, i % 2, if i < 3 { 0 } else { i / 2 });
        clean_exchange(&mut cap, &p, &duid, xid, Path6::Direct);
        xid += 2;
    }
    let owned_by_a = client_duid(&p, 0, 0);
    send6(&mut cap, &p, solicit(&owned_by_a, xid, 0), Path6::Direct);
    let wrong = answer6(
        &mut cap,
        &p,
        1,
        v6t::ADVERTISE,
        xid,
        Some(&owned_by_a),
        Path6::Direct,
    );
    cap.wait(5);
    let requestor = Duid::en(9, b"lq-requestor").0.into_owned();
    xid += 1;
    let target = client_duid(&p, 1, 4);
    let lq = ClientMessage::new(
        v6t::LEASEQUERY,
        xid,
        vec![
            Opt6::client_id(Duid(requestor.clone().into())),
            Opt6::lq_query(
                dhcpv6::QUERY_BY_CLIENTID,
                Ipv6Addr::UNSPECIFIED,
                vec![Opt6::client_id(Duid(target.into()))],
            ),
        ],
    );
    send6(&mut cap, &p, lq, Path6::Direct);
    let (t, r) = (v6t::LEASEQUERY_REPLY, Some(&requestor[..]));
    answer6(&mut cap, &p, 1, t, xid, r, Path6::Direct);
    cap.wait(5);
    xid += 1;
    let c = client_duid(&p, 0, 5);
    let info = ClientMessage::new(
        v6t::INFORMATION_REQUEST,
        xid,
        vec![
            Opt6::client_id(Duid(c.clone().into())),
            Opt6::elapsed_time(0),
        ],
    );
    send6(&mut cap, &p, info, Path6::Direct);
    answer6(&mut cap, &p, 0, v6t::REPLY, xid, Some(&c), Path6::Direct);
    let disputed = answer6(&mut cap, &p, 1, v6t::REPLY, xid, Some(&c), Path6::Direct);
    cap.wait(5);
    xid += 1;
    let late = client_duid(&p, 0, 6);
    send6(&mut cap, &p, solicit(&late, xid, 1000), Path6::Direct);
    let kea_only = answer6(
        &mut cap,
        &p,
        1,
        v6t::ADVERTISE,
        xid,
        Some(&late),
        Path6::Direct,
    );
    cap.finish();
    (wrong, disputed, kea_only)
}

fn rule_frames(j: &serde_json::Value) -> BTreeSet<(String, u64)> {
    findings(j).into_iter().map(|e| (e.rule, e.frame)).collect()
}

#[test]
fn a_tied_inference_says_undecided_and_flags_only_what_every_tied_profile_flags() {
    let dir = std::env::temp_dir().join(format!("poolshark-dhcp-tie-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("tie.pcap");
    let (wrong, disputed, kea_only) = build_tie(&file);

    let kea = rule_frames(&check(&file, &["--profile", "kea"]));
    let draft = rule_frames(&check(&file, &["--profile", "draft"]));
    // The capture has teeth: the two profiles disagree on the disputed answer, and agree on the
    // wrong one.
    let wrong_server = ("dhcp.lb.wrong-server".to_string(), wrong);
    assert!(
        kea.contains(&wrong_server) && draft.contains(&wrong_server),
        "{kea:?} {draft:?}"
    );
    assert!(
        draft.iter().any(|(_, f)| *f == disputed) && !kea.iter().any(|(_, f)| *f == disputed),
        "kea {kea:?}, draft {draft:?}"
    );
    assert!(
        kea.contains(&("dhcp.lb.wrong-server".to_string(), kea_only))
            && !draft
                .iter()
                .any(|(r, f)| *f == kea_only && r == "dhcp.lb.wrong-server"),
        "kea {kea:?}, draft {draft:?}"
    );

    let j = check(&file, &[]);
    let pair = &j["dhcp_lb"]["pairs"][0];
    let scores: Vec<i64> = pair["profile_scores"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["score"].as_i64().unwrap())
        .collect();
    assert_eq!(scores.len(), 2, "{pair}");
    assert_eq!(scores[0], scores[1], "the capture must tie: {pair}");
    let between: BTreeSet<&str> = pair["undecided"]["between"]
        .as_array()
        .unwrap_or_else(|| panic!("no undecided: {pair}"))
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(between, BTreeSet::from(["kea", "draft"]));
    let agreed: BTreeSet<(String, u64)> = kea.intersection(&draft).cloned().collect();
    assert_eq!(rule_frames(&j), agreed, "only what both profiles flag");
    let deciding: BTreeSet<u64> = pair["undecided"]["deciding_frames"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect();
    let differ: BTreeSet<u64> = kea.symmetric_difference(&draft).map(|k| k.1).collect();
    assert_eq!(deciding, differ, "the answers that would decide are named");
    assert!(deciding.contains(&disputed) && deciding.contains(&kea_only));

    let text = common::poolshark()
        .arg("check")
        .arg(&file)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains("profile undecided between kea and draft")
            && text.contains(&format!(
                "the answers that would decide: frames {disputed}, {kea_only}"
            )),
        "{text}"
    );
    std::fs::remove_dir_all(&dir).ok();
}
