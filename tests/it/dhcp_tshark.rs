//! Differential test of the DHCPv4 and DHCPv6 decoders against tshark over every DHCP capture in
//! the shared set: for each DHCP frame, the values of the fields below (in order, repeats kept)
//! must be the ones tshark reports, and the info text must be tshark's. Every known disagreement
//! is listed in `explain` with its reason.

use crate::common;
use crate::dhcp_support;

use std::path::{Path, PathBuf};

use dhcp_support::{decode, kind, pcap, tshark_fields, values, Kind};

const FIELDS: &[&str] = &[
    // DHCPv6 headers.
    "dhcpv6.msgtype",
    "dhcpv6.xid",
    "dhcpv6.hopcount",
    "dhcpv6.linkaddr",
    "dhcpv6.peeraddr",
    "dhcpv6.option.type",
    "dhcpv6.option.length",
    // DUIDs.
    "dhcpv6.duid.bytes",
    "dhcpv6.duid.type",
    "dhcpv6.duidllt.hwtype",
    "dhcpv6.duidllt.time",
    "dhcpv6.duidllt.link_layer_addr",
    "dhcpv6.duiden.enterprise",
    "dhcpv6.duiden.identifier",
    "dhcpv6.duidll.hwtype",
    "dhcpv6.duidll.link_layer_addr",
    "dhcpv6.duiduuid.bytes",
    // Options.
    "dhcpv6.elapsed_time",
    "dhcpv6.iaid",
    "dhcpv6.iaid.t1",
    "dhcpv6.iaid.t2",
    "dhcpv6.iata",
    "dhcpv6.iaaddr.ip",
    "dhcpv6.iaaddr.pref_lifetime",
    "dhcpv6.iaaddr.valid_lifetime",
    "dhcpv6.iaprefix.pref_len",
    "dhcpv6.iaprefix.pref_addr",
    "dhcpv6.status_code",
    "dhcpv6.requested_option_code",
    "dhcpv6.option_preference",
    "dhcpv6.interface_id",
    "dhcpv6.vendorclass.enterprise",
    "dhcpv6.vendoropts.enterprise",
    "dhcpv6.vendoropts.enterprise.option_code",
    "dhcpv6.dns_server",
    "dhcpv6.search_list_entry",
    "dhcpv6.sip_server_domain_search_fqdn",
    "dhcpv6.aftr_name",
    "dhcpv6.ntpserver.option.type",
    "dhcpv6.ntpserver.addr",
    "dhcpv6.unicast",
    "dhcpv6.reconf_msg",
    "dhcpv6.mudurl",
    "dhcpv6.lq_query",
    "dhcpv6.lq_query_link_address",
    "dhcpv6.clt_time",
    "dhcpv6.lq_relay_data_peer_addr",
    "dhcpv6.lq_client_link",
    // DHCPv4 header.
    "dhcp.type",
    "dhcp.hw.type",
    "dhcp.hw.len",
    "dhcp.hops",
    "dhcp.id",
    "dhcp.secs",
    "dhcp.flags",
    "dhcp.ip.client",
    "dhcp.ip.your",
    "dhcp.ip.server",
    "dhcp.ip.relay",
    "dhcp.hw.mac_addr",
    "dhcp.cookie",
    // DHCPv4 options.
    "dhcp.option.type",
    "dhcp.option.length",
    "dhcp.option.dhcp",
    "dhcp.option.dhcp_server_id",
    "dhcp.option.requested_ip_address",
    "dhcp.option.ip_address_lease_time",
    "dhcp.option.request_list_item",
    "dhcp.option.subnet_mask",
    "dhcp.option.router",
    "dhcp.option.domain_name_server",
    "dhcp.option.hostname",
    "dhcp.client_id.type",
    "dhcp.client_id.iaid",
    "dhcp.client_id.duid_type",
    "dhcp.option.agent_information_option.suboption",
    "dhcp.option.agent_information_option.agent_circuit_id",
    "dhcp.option.agent_information_option.agent_remote_id",
    "dhcp.option.agent_information_option.subscriber_id",
    "dhcp.option.client_last_transaction_time",
    "dhcp.option.associated_ip_option",
    "dhcp.option.mudurl",
];

fn captures(shared: &Path) -> Vec<PathBuf> {
    let mut v = Vec::new();
    for dir in ["dhcp", "dhcp-kea", "dhcp-failover"] {
        let d = shared.join("captures").join(dir);
        let mut files: Vec<PathBuf> = std::fs::read_dir(&d)
            .unwrap_or_else(|e| panic!("{}: {e}", d.display()))
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                let n = p.to_string_lossy();
                n.ends_with(".pcap") || n.ends_with(".pcapng")
            })
            .collect();
        files.sort();
        v.extend(files);
    }
    v
}

/// Why a value may differ from tshark's, or `None` when it may not. Each rule is as narrow as
/// the difference it explains.
fn explain(file: &str, field: &str, tshark: &str, ours: &str) -> Option<&'static str> {
    // tshark 4.0 records END's `dhcp.option.type` as 0 although its tree titles it "(255) End";
    // poolshark gives the option code. Everything before END must agree.
    if field == "dhcp.option.type" {
        if let (Some(t), Some(o)) = (tshark.strip_suffix("0"), ours.strip_suffix("255")) {
            if t == o
                || t.split('|')
                    .zip(o.split('|'))
                    .all(|(a, b)| a == b || (a == "0" && b == "255"))
            {
                return Some("END is 0 in tshark's dhcp.option.type");
            }
        }
    }
    // The info column of a malformed BOOTP frame: tshark adds the OUI-resolved name of the MAC
    // and "[Malformed Packet]"; the rest must agree.
    if field == "info" && tshark.ends_with("[Malformed Packet]") {
        if let Some((head, _)) = tshark.split_once(" (") {
            if head == ours {
                return Some("tshark's name resolution and malformed marker");
            }
        }
    }
    // tcpdump's ASAN captures are cut by the snap length: tshark marks the info column and, for
    // the two BOOTP ones (11 and 48 bytes of a 236-byte header), throws before adding any header
    // field; poolshark decodes the bytes that are there and reports the truncation as an error.
    if file.contains("_asan") {
        if field == "info" {
            if let Some(t) = tshark.strip_suffix("[Packet size limited during capture]") {
                if t.trim_end() == ours {
                    return Some("tshark marks a frame cut by the snap length");
                }
            }
        }
        if file.starts_with("tcpdump_bootp_asan") && field.starts_with("dhcp.") && tshark.is_empty()
        {
            return Some("header fields of a cut BOOTP header");
        }
    }
    // DUID-LLT times count seconds from 2000 in 32 bits, so they reach 2136; tshark 4.0 adds the
    // epoch in 32-bit arithmetic and times past 2106 wrap round to 1970 (2^32 s = 136 years
    // earlier). The Kea capture's generated DUIDs have such times.
    if field == "dhcpv6.duidllt.time" {
        let year = |s: &str| {
            s.split_whitespace()
                .nth(2)
                .and_then(|y| y.parse::<i32>().ok())
        };
        let pairs: Vec<_> = tshark.split('|').zip(ours.split('|')).collect();
        if pairs.iter().all(|(t, o)| {
            t == o || matches!((year(t), year(o)), (Some(a), Some(b)) if b >= 2106 && (b - a == 136 || b - a == 137))
        }) {
            return Some("tshark wraps DUID-LLT times past 2106");
        }
    }
    // Enterprise 4491 (CableLabs): tshark decodes the vendor sub-options with its own
    // `dhcpv6.cablelabs.*` / packetcable fields; poolshark keeps the generic ones.
    if file == "tcpdump_dhcpv6-vendor-specific-information.pcap"
        && field == "dhcpv6.vendoropts.enterprise.option_code"
        && tshark.is_empty()
    {
        return Some("CableLabs sub-options under tshark's own fields");
    }
    // A trailing option whose length (18369) runs past the end of the datagram (89 bytes are
    // left): tshark drops it, poolshark keeps the bytes that are there, shows the length the
    // option claims and reports the error.
    if file == "tcpdump_ip6-snmp-oid-unsigned.pcap" {
        let extra = match field {
            "dhcpv6.option.type" => "|1028",
            "dhcpv6.option.length" => "|18369",
            _ => return None,
        };
        if ours.strip_suffix(extra) == Some(tshark) {
            return Some("truncated last option kept with an error");
        }
    }
    None
}

/// Frames that give decode errors although tshark does not mark them malformed.
fn errors_expected(file: &str, frame: u64) -> bool {
    match (file, frame) {
        // 11 and 48 bytes of a 236-byte BOOTP header (cut by the snap length): tshark reports
        // the cut capture, not a malformed message.
        ("tcpdump_bootp_asan.pcap" | "tcpdump_bootp_asan-2.pcap", 1) => true,
        // The last option's length runs past the datagram: tshark drops it silently.
        ("tcpdump_ip6-snmp-oid-unsigned.pcap", 1) => true,
        _ => false,
    }
}

/// What the comparisons found.
#[derive(Default)]
struct Tally {
    compared: usize,
    explained: std::collections::BTreeMap<&'static str, usize>,
    problems: Vec<String>,
}

impl Tally {
    fn check(&mut self, file: &str, frame: u64, field: &str, tshark: &str, ours: &str) {
        self.compared += 1;
        if tshark == ours {
            return;
        }
        match explain(file, field, tshark, ours) {
            Some(why) => *self.explained.entry(why).or_default() += 1,
            None => self.problems.push(format!(
                "{file} frame {frame} {field}:\n   tshark {tshark:?}\n   ours   {ours:?}"
            )),
        }
    }

    fn finish(mut self, at_least: usize) {
        eprintln!(
            "{} values compared; known differences: {:#?}",
            self.compared, self.explained
        );
        if !self.problems.is_empty() {
            let n = self.problems.len();
            self.problems.truncate(400);
            panic!(
                "{n} disagreements with tshark:\n{}",
                self.problems.join("\n")
            );
        }
        assert!(
            self.compared >= at_least,
            "only {} values compared",
            self.compared
        );
    }
}

/// Compares every DHCP frame of one capture with tshark.
fn compare_capture(path: &Path, tally: &mut Tally) {
    let file = path.file_name().unwrap().to_string_lossy().into_owned();
    // One run of tshark: the fields, then the info column and the malformed mark.
    let asked: Vec<&str> = FIELDS
        .iter()
        .copied()
        .chain(["_ws.col.Info", "_ws.malformed"])
        .collect();
    let theirs = tshark_fields(path, "dhcp || dhcpv6", &asked);
    let bytes = std::fs::read(path).unwrap();
    let mut seen = Vec::new();
    for d in pcap::udp_datagrams(&bytes) {
        let Some(k) = kind(d.sport, d.dport) else {
            continue;
        };
        seen.push(d.frame);
        let (tree, info, errors) = decode(k, &d.payload);
        let Some(t) = theirs.get(&d.frame) else {
            tally
                .problems
                .push(format!("{file} frame {}: tshark shows no DHCP", d.frame));
            continue;
        };
        for (i, name) in FIELDS.iter().enumerate() {
            let tv = t.get(i).map(String::as_str).unwrap_or("");
            tally.check(&file, d.frame, name, tv, &values(&tree, name));
        }
        let ti = t.get(FIELDS.len()).map(String::as_str).unwrap_or("");
        tally.check(&file, d.frame, "info", ti.trim_end(), &info);
        // Every frame tshark finds malformed must give decode errors, and every frame that gives
        // errors must be malformed for tshark too, or be a known exception.
        let malformed = t.get(FIELDS.len() + 1).is_some_and(|m| !m.is_empty());
        match (malformed, errors > 0) {
            (true, false) => tally.problems.push(format!(
                "{file} frame {}: malformed for tshark, no decode error",
                d.frame
            )),
            (false, true) if !errors_expected(&file, d.frame) => tally.problems.push(format!(
                "{file} frame {}: {errors} decode errors, tshark sees nothing wrong",
                d.frame
            )),
            _ => {}
        }
    }
    for n in theirs.keys() {
        if !seen.contains(n) {
            tally.problems.push(format!(
                "{file} frame {n}: tshark shows DHCP, we found none"
            ));
        }
    }
}

#[test]
fn dhcp_fields_agree_with_tshark() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    if !common::have_tshark() {
        return;
    }
    let mut tally = Tally::default();
    for path in captures(&shared) {
        compare_capture(&path, &mut tally);
    }
    tally.finish(100_000);
}

/// What poolshark's emitter writes, tshark must decode to the same values as poolshark's parser:
/// the builders' messages (every typed option, PAD runs, relays, leasequery, DHCPv4 over DHCPv6)
/// written to a capture and read by both.
#[test]
fn emitted_messages_agree_with_tshark() {
    if !common::have_tshark() {
        return;
    }
    let (v4, mut v6) = kitchen_sink_messages();
    // tshark 4.0 does not dissect the messages inside OPTION_LQ_RELAY_DATA (47) and
    // OPTION_DHCPV4_MSG (87): leave those two out of the comparison.
    if let Some(inner) = v6.inner.as_mut() {
        inner.options.retain(|o| o.code != 47 && o.code != 87);
    }
    let mut payloads = vec![(Kind::V4, v4.emit()), (Kind::V6, v6.emit())];
    for m in extra_messages() {
        payloads.push(m);
    }
    let dir = std::env::temp_dir().join(format!("poolshark-dhcp-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("poolshark-emitted.pcap");
    dhcp_support::write_pcap(&path, &payloads);
    let mut tally = Tally::default();
    compare_capture(&path, &mut tally);
    if std::env::var_os("KEEP").is_none() {
        let _ = std::fs::remove_dir_all(&dir);
    }
    tally.finish(FIELDS.len() * payloads.len());
}

/// Small messages for the emitted-capture comparison: PAD runs, a relay chain, leasequery.
fn extra_messages() -> Vec<(Kind, Vec<u8>)> {
    use poolshark::proto::{dhcpv4, dhcpv6};
    use std::net::Ipv6Addr;
    let link = Ipv6Addr::new(0x2001, 0xdb8, 1, 0, 0, 0, 0, 1);
    let pads = dhcpv4::Message::request(dhcpv4::message_type::DISCOVER, 0x1234, [2, 0, 0, 0, 0, 7])
        .with(dhcpv4::Opt::pad(3))
        .with(dhcpv4::Opt::text(12, "a"))
        .with(dhcpv4::Opt::pad(1))
        .padded_to(300);
    let solicit = dhcpv6::Message::client(dhcpv6::ClientMessage::new(
        dhcpv6::msg_type::SOLICIT,
        0xabcdef,
        vec![
            dhcpv6::Opt::client_id(dhcpv6::Duid::en(2495, b"client")),
            dhcpv6::Opt::elapsed_time(150),
        ],
    ));
    let relayed = solicit
        .clone()
        .relayed(12, 0, link, link, vec![dhcpv6::Opt::interface_id(b"eth0")])
        .relayed(12, 1, Ipv6Addr::UNSPECIFIED, link, vec![]);
    let lq = dhcpv6::Message::client(dhcpv6::ClientMessage::new(
        dhcpv6::msg_type::LEASEQUERY,
        0x10203,
        vec![
            dhcpv6::Opt::client_id(dhcpv6::Duid::uuid([7; 16])),
            dhcpv6::Opt::lq_query(
                dhcpv6::QUERY_BY_CLIENTID,
                link,
                vec![dhcpv6::Opt::client_id(dhcpv6::Duid::en(2495, b"client"))],
            ),
        ],
    ));
    vec![
        (Kind::V4, pads.emit()),
        (Kind::V6, solicit.emit()),
        (Kind::V6, relayed.emit()),
        (Kind::V6, lq.emit()),
    ]
}

/// Messages that between them use every typed option poolshark decodes.
fn kitchen_sink_messages() -> (
    poolshark::proto::dhcpv4::Message<'static>,
    poolshark::proto::dhcpv6::Message<'static>,
) {
    use poolshark::proto::{dhcpv4, dhcpv6};
    use std::net::{Ipv4Addr, Ipv6Addr};
    let a6 = Ipv6Addr::new(0x2001, 0xdb8, 0, 0, 0, 0, 0, 1);
    let a4 = Ipv4Addr::new(192, 0, 2, 1);
    let v4 = dhcpv4::Message::reply(dhcpv4::message_type::ACK, 7, [2, 0, 0, 0, 0, 1])
        .with(dhcpv4::Opt::server_identifier(a4))
        .with(dhcpv4::Opt::requested_address(a4))
        .with(dhcpv4::Opt::lease_time(3600))
        .with(dhcpv4::Opt::new(1, dhcpv4::OptValue::Addr(a4)))
        .with(dhcpv4::Opt::new(3, dhcpv4::OptValue::Addrs(vec![a4, a4])))
        .with(dhcpv4::Opt::new(2, dhcpv4::OptValue::I32(-3600)))
        .with(dhcpv4::Opt::new(19, dhcpv4::OptValue::U8(1)))
        .with(dhcpv4::Opt::new(57, dhcpv4::OptValue::U16(1500)))
        .with(dhcpv4::Opt::new(108, dhcpv4::OptValue::U32(900)))
        .with(dhcpv4::Opt::text(12, "host"))
        .with(dhcpv4::Opt::text(161, "https://example.com/mud"))
        .with(dhcpv4::Opt::parameter_request_list(&[1, 3]))
        .with(dhcpv4::Opt::client_identifier(1, &[2, 0, 0, 0, 0, 1]))
        .with(dhcpv4::Opt::client_identifier(0, b"text"))
        .with(dhcpv4::Opt::client_identifier(
            255,
            &[0, 0, 0, 1, 0, 3, 0, 1, 2, 0, 0, 0, 0, 1],
        ))
        .with(dhcpv4::Opt::client_identifier(
            255,
            &[0, 0, 0, 1, 0, 1, 0, 1, 0, 0, 0, 9, 2, 0, 0, 0, 0, 1],
        ))
        .with(dhcpv4::Opt::client_identifier(
            255,
            &[0, 0, 0, 1, 0, 2, 0, 0, 0, 9, 1],
        ))
        .with(dhcpv4::Opt::client_identifier(6, &[1, 2]))
        .with(dhcpv4::Opt::new(
            77,
            dhcpv4::OptValue::UserClass(vec![std::borrow::Cow::Borrowed(&b"abc"[..])]),
        ))
        .with(dhcpv4::Opt::new(
            81,
            dhcpv4::OptValue::ClientFqdn {
                flags: 1,
                rcode1: 0,
                rcode2: 0,
                name: std::borrow::Cow::Borrowed(&b"h.example."[..]),
            },
        ))
        .with(dhcpv4::Opt::relay_agent_info(
            [1u8, 2, 5, 6, 11, 12, 99]
                .iter()
                .map(|&c| dhcpv4::SubOpt::new(c, vec![10, 0, 0, 1]))
                .collect(),
        ))
        .with(dhcpv4::Opt::classless_routes(vec![dhcpv4::Route {
            width: 24,
            destination: a4,
            router: a4,
        }]))
        .with(dhcpv4::Opt::raw(200, &[1]))
        .padded_to(400);
    let v6 = dhcpv6::Message::client(dhcpv6::ClientMessage::new(
        dhcpv6::msg_type::REPLY,
        1,
        vec![
            dhcpv6::Opt::client_id(dhcpv6::Duid::llt(1, 1, &[2, 0, 0, 0, 0, 1])),
            dhcpv6::Opt::server_id(dhcpv6::Duid::en(9, b"id")),
            dhcpv6::Opt::client_id(dhcpv6::Duid::ll(1, &[2, 0, 0, 0, 0, 1])),
            dhcpv6::Opt::client_id(dhcpv6::Duid::uuid([1; 16])),
            dhcpv6::Opt::ia_na(
                1,
                2,
                3,
                vec![dhcpv6::Opt::iaaddr(
                    a6,
                    1,
                    2,
                    vec![dhcpv6::Opt::status_code(0, "ok")],
                )],
            ),
            dhcpv6::Opt::ia_ta(1, vec![]),
            dhcpv6::Opt::ia_pd(1, 2, 3, vec![dhcpv6::Opt::iaprefix(a6, 48, 1, 2, vec![])]),
            dhcpv6::Opt::oro(&[23]),
            dhcpv6::Opt::preference(1),
            dhcpv6::Opt::elapsed_time(1),
            dhcpv6::Opt::unicast(a6),
            dhcpv6::Opt::rapid_commit(),
            dhcpv6::Opt::user_class(&[b"u"]),
            dhcpv6::Opt::vendor_class(9, &[b"v"]),
            dhcpv6::Opt::vendor_opts(9, vec![dhcpv6::SubOpt::new(1, &b"x"[..])]),
            dhcpv6::Opt::interface_id(b"eth0"),
            dhcpv6::Opt::new(dhcpv6::code::RECONF_MSG, dhcpv6::OptValue::ReconfMsg(5)),
            dhcpv6::Opt::new(
                dhcpv6::code::AUTH,
                dhcpv6::OptValue::Auth {
                    protocol: 3,
                    algorithm: 1,
                    rdm: 0,
                    replay_detection: 1,
                    info: std::borrow::Cow::Borrowed(&[1][..]),
                },
            ),
            dhcpv6::Opt::addresses(dhcpv6::code::DNS_SERVERS, &[a6]),
            dhcpv6::Opt::addresses(dhcpv6::code::SIP_SERVER_A, &[a6]),
            dhcpv6::Opt::addresses(dhcpv6::code::SNTP_SERVERS, &[a6]),
            dhcpv6::Opt::addresses(dhcpv6::code::LQ_CLIENT_LINK, &[a6]),
            dhcpv6::Opt::domain_names(dhcpv6::code::DOMAIN_LIST, &["example.com", "home"]),
            dhcpv6::Opt::domain_names(dhcpv6::code::SIP_SERVER_D, &["sip.example.com"]),
            dhcpv6::Opt::domain_names(dhcpv6::code::AFTR_NAME, &["aftr.example.com"]),
            dhcpv6::Opt::new(
                dhcpv6::code::NTP_SERVER,
                dhcpv6::OptValue::NtpServer(vec![
                    dhcpv6::SubOpt::new(1, a6.octets().to_vec()),
                    dhcpv6::SubOpt::new(2, a6.octets().to_vec()),
                    dhcpv6::SubOpt::new(3, dhcpv6::Names::from_strs(&["ntp.example"]).0),
                ]),
            ),
            dhcpv6::Opt::lq_query(2, a6, vec![]),
            dhcpv6::Opt::client_data(vec![dhcpv6::Opt::clt_time(5)]),
            dhcpv6::Opt::lq_relay_data(
                a6,
                dhcpv6::Message::client(dhcpv6::ClientMessage::new(1, 1, vec![])),
            ),
            dhcpv6::Opt::mud_url("https://example.com/mud"),
            dhcpv6::Opt::new(
                dhcpv6::code::CLIENT_FQDN,
                dhcpv6::OptValue::ClientFqdn {
                    flags: 0,
                    name: dhcpv6::Names::from_strs(&["h.example"]),
                },
            ),
            dhcpv6::Opt::dhcpv4_msg(v4.clone()),
            dhcpv6::Opt::raw(999, &[1]),
        ],
    ))
    .relayed(12, 0, a6, a6, vec![]);
    (v4, v6)
}

/// The display trees of the kitchen-sink messages, parsed back from their bytes.
fn kitchen_sink() -> Vec<Vec<poolshark::field::Field>> {
    use poolshark::proto::{dhcpv4, dhcpv6};
    let (v4, v6) = kitchen_sink_messages();
    let (b4, b6) = (v4.emit(), v6.emit());
    let (v4p, e4) = dhcpv4::parse(&b4);
    let (v6p, e6) = dhcpv6::parse(&b6);
    assert!(e4.is_empty() && e6.is_empty(), "{e4:?} {e6:?}");
    vec![v4p.fields(), v6p.fields()]
}

#[test]
fn every_field_name_is_wiresharks_or_poolsharks() {
    if !common::have_tshark() {
        return;
    }
    let known = common::tshark::registered();
    assert!(known.contains_key("dhcpv6.msgtype") && known.contains_key("dhcp.option.type"));
    let mut trees = kitchen_sink();
    if let Some(shared) = common::shared_dir() {
        for path in captures(&shared) {
            let bytes = std::fs::read(&path).unwrap();
            for d in pcap::udp_datagrams(&bytes) {
                if let Some(k) = kind(d.sport, d.dport) {
                    trees.push(decode(k, &d.payload).0);
                }
            }
        }
    }
    let mut names = std::collections::BTreeSet::new();
    for t in &trees {
        for f in t {
            f.walk(&mut |x| {
                names.insert(x.name);
            });
        }
    }
    let unknown: Vec<_> = names
        .iter()
        .filter(|n| !n.is_empty() && !n.starts_with("poolshark.") && !known.contains_key(**n))
        .collect();
    let ours: Vec<_> = names
        .iter()
        .filter(|n| n.starts_with("poolshark."))
        .collect();
    eprintln!("{} field names, poolshark-only: {ours:?}", names.len());
    assert!(unknown.is_empty(), "not in tshark -G fields: {unknown:?}");
    assert!(names.len() > 120, "only {} names used", names.len());
}
