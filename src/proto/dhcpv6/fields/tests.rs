//! Tests of the dhcpv6 display tree (`super`): written straight and as a tree alike.

use super::*;
use crate::output::json::assert_written_as_the_tree;
use crate::proto::dhcpv6::tests::solicit;
use crate::proto::dhcpv6::{msg_type, parse, SubOpt, QUERY_BY_CLIENTID};
use std::net::Ipv6Addr;

/// The tree without its display texts.
fn strip(fields: &mut [Field]) {
    for f in fields {
        f.label = Cow::Borrowed("");
        f.note = None;
        f.shown = None;
        strip(&mut f.children);
    }
}

/// A message of every kind of option the tree shows (and some that do not fit theirs).
fn every_option() -> Message<'static> {
    let a = Ipv6Addr::new(0x2001, 0xdb8, 0, 0, 0, 0, 0, 0x35);
    let v4 = crate::proto::dhcpv4::Message::request(1, 0xdead, [2, 0, 0, 0, 0, 9]);
    Message::client(ClientMessage::new(
        msg_type::REPLY,
        0x10203,
        vec![
            Opt::client_id(Duid::llt(1, 0x1e62770b, &[1, 2, 3, 4, 5, 6])),
            Opt::server_id(Duid::en(4491, b"abc")),
            Opt::client_id(Duid::ll(6, &[1, 2, 3])),
            Opt::server_id(Duid::uuid([7; 16])),
            // A DUID of an unknown type, one too short for a type.
            Opt::raw(code::CLIENTID, &[0, 9, 1, 2]),
            Opt::raw(code::SERVERID, &[1]),
            Opt::ia_na(
                1,
                2,
                3,
                vec![Opt::iaaddr(
                    a,
                    4,
                    5,
                    vec![Opt::status_code(2, "no addresses"), Opt::status_code(0, "")],
                )],
            ),
            Opt::ia_pd(
                9,
                0,
                0,
                vec![Opt::iaprefix(a, 56, 6, 7, vec![Opt::status_code(0, "ok")])],
            ),
            Opt::ia_ta(8, vec![Opt::iaaddr(a, 1, 1, vec![])]),
            Opt::oro(&[23, 24, 999]),
            Opt::preference(255),
            Opt::elapsed_time(65535),
            Opt::unicast(a),
            Opt::new(
                code::AUTH,
                OptValue::Auth {
                    protocol: 3,
                    algorithm: 1,
                    rdm: 0,
                    replay_detection: 9,
                    info: Cow::Borrowed(&[1, 2, 3]),
                },
            ),
            Opt::rapid_commit(),
            Opt::reconf_accept(),
            Opt::user_class(&[b"one", b"two"]),
            Opt::vendor_class(311, &[b"MSFT 5.0", b"x"]),
            Opt::vendor_opts(
                4491,
                vec![SubOpt::new(1, &b"x"[..]), SubOpt::new(2, &[][..])],
            ),
            Opt::vendor_opts(1234, vec![]),
            Opt::interface_id(b"eth0"),
            Opt::new(code::RECONF_MSG, OptValue::ReconfMsg(5)),
            // Numbered DNS servers, other address lists, an empty one.
            Opt::addresses(code::DNS_SERVERS, &[a, a, a]),
            Opt::addresses(code::SIP_SERVER_A, &[a]),
            Opt::addresses(code::DHCP4_O_DHCP6_SERVER, &[]),
            Opt::domain_names(code::DOMAIN_LIST, &["example.com", "home."]),
            Opt::domain_names(code::DOMAIN_LIST, &[]),
            Opt::domain_names(code::AFTR_NAME, &["aftr.example.net"]),
            Opt::domain_names(code::SIP_SERVER_D, &["sip.example.", "lan."]),
            // Client FQDN: a name, a partial name, a top-level domain.
            Opt::raw(code::CLIENT_FQDN, b"\x05\x04host\x07example\x00"),
            Opt::raw(code::CLIENT_FQDN, b"\x01\x04host"),
            Opt::raw(code::CLIENT_FQDN, b"\x00\x04home\x00"),
            Opt::new(
                code::NTP_SERVER,
                OptValue::NtpServer(vec![
                    SubOpt::new(1, a.octets().to_vec()),
                    SubOpt::new(2, a.octets().to_vec()),
                    SubOpt::new(3, b"\x03ntp\x07example\x00".to_vec()),
                    SubOpt::new(1, vec![1, 2]),
                    SubOpt::new(9, vec![3]),
                ]),
            ),
            Opt::lq_query(
                QUERY_BY_CLIENTID,
                a,
                vec![Opt::client_id(Duid::en(9, b"q"))],
            ),
            Opt::client_data(vec![
                Opt::client_id(Duid::en(2495, b"abc")),
                Opt::iaaddr(a, 1, 2, vec![]),
                Opt::clt_time(60),
                Opt::lq_relay_data(
                    a,
                    solicit().relayed(12, 0, a, a, vec![Opt::interface_id(b"lq")]),
                ),
                Opt::lq_relay_data(a, solicit()),
            ]),
            Opt::dhcpv4_msg(v4),
            Opt::mud_url("https://example.com/mud"),
            // A RELAY_MSG outside a relay, unknown options, typed ones of the wrong size.
            Opt::raw(code::RELAY_MSG, &[1, 2, 3]),
            Opt::raw(999, &[1, 2]),
            Opt::raw(998, &[]),
            Opt::raw(code::PREFERENCE, &[1, 2]),
            Opt::raw(code::ELAPSED_TIME, &[1]),
            Opt::raw(code::IA_NA, &[1, 2, 3]),
        ],
    ))
}

#[test]
fn the_json_fields_written_straight_are_those_of_the_tree() {
    let a = Ipv6Addr::new(0x2001, 0xdb8, 0, 1, 0, 0, 0, 1);
    let every = every_option();
    let relayed = every
        .clone()
        .relayed(12, 0, a, a, vec![Opt::interface_id(b"eth0")])
        .relayed(
            13,
            1,
            Ipv6Addr::UNSPECIFIED,
            a,
            vec![Opt::interface_id(b"x"), Opt::relay_msg(), Opt::clt_time(1)],
        );
    let mut deep = solicit();
    for i in 0..40u8 {
        deep = deep.relayed(12, i, a, a, vec![Opt::interface_id(&[i])]);
    }
    let mut wires = vec![every.emit(), relayed.emit(), deep.emit()];
    // The Client FQDN's flag bits in a client's, a server's and a message it is not allowed in.
    for t in [msg_type::SOLICIT, msg_type::ADVERTISE, msg_type::CONFIRM] {
        let fqdn = Opt::raw(code::CLIENT_FQDN, b"\x07\x04host\x00");
        wires.push(Message::client(ClientMessage::new(t, 1, vec![fqdn])).emit());
    }
    // An option cut short.
    wires.push(vec![1, 0, 0, 1, 0, 14, 0x01, 0x2c, 0xaa, 0xbb]);
    // Cut anywhere: truncated headers, options, relays, nothing at all.
    for w in [every.emit(), relayed.emit()] {
        for n in (0..w.len()).step_by(5) {
            wires.push(w[..n].to_vec());
        }
    }
    // A relay without RELAY_MSG.
    let mut lone = vec![msg_type::RELAY_FORW, 0];
    lone.extend_from_slice(&[0; 32]);
    lone.extend_from_slice(&[0, 18, 0, 1, b'e']);
    wires.push(lone);
    let mut messages: Vec<Message<'_>> = wires.iter().map(|w| parse(w).0).collect();
    // Broken chains: a nested layer, or one laid flat past the nesting limit, without
    // RELAY_MSG (what it would carry is not shown).
    let (mut broken, _) = parse(&wires[2]);
    if let Some(r) = broken.relays.get_mut(35) {
        r.options.clear();
    }
    messages.push(broken);
    let (mut broken, _) = parse(&wires[2]);
    if let Some(r) = broken.relays.get_mut(5) {
        r.options
            .retain(|o| !matches!(o.value, OptValue::RelayMsg(_)));
    }
    messages.push(broken);
    messages.push(every);
    messages.push(Message {
        relays: Vec::new(),
        inner: None,
    });

    let mut seen = String::new();
    for m in &messages {
        let tree = m.fields();
        let from_tree = assert_written_as_the_tree(&tree, |o| m.write_tree(o), "");
        // Without texts, the same tree but for its labels, notes and shown texts.
        let mut plain = TreeSink::with_texts(false, false);
        m.write_tree(&mut plain);
        let mut plain = plain.finish();
        let mut tree = tree;
        strip(&mut tree);
        strip(&mut plain);
        assert_eq!(plain, tree);
        seen.push_str(&from_tree);
    }
    // The messages reach what they are meant to.
    for name in [
        "dhcpv6.duidllt.time",
        "dhcpv6.duiden.identifier",
        "dhcpv6.duidll.link_layer_addr",
        "dhcpv6.duiduuid.bytes",
        "dhcpv6.iaprefix.pref_addr",
        "dhcpv6.iata",
        "dhcpv6.auth.info",
        "dhcpv6.status_msg",
        "dhcpv6.vendoropts.enterprise.option_data",
        "dhcpv6.dns_server",
        "dhcpv6.tld",
        "dhcpv6.search_list_entry",
        "dhcpv6.clientfqdn.client.s",
        "dhcpv6.clientfqdn.server.o",
        "dhcpv6.clientfqdn.bad_msgtype",
        "dhcpv6.ntpserver.fqdn",
        "poolshark.dhcpv6.ntpserver.data",
        "dhcpv6.lq_query_link_address",
        "dhcpv6.clt_time",
        "dhcpv6.lq_relay_data_peer_addr",
        "dhcp.hw.mac_addr",
        "dhcpv6.mudurl",
        "poolshark.dhcpv6.relay_message",
        "poolshark.dhcpv6.option.value",
        "dhcpv6.hopcount",
    ] {
        assert!(seen.contains(&format!("\"{name}\"")), "{name}");
    }
}

#[test]
fn utc_text_matches_tshark() {
    // tshark on tcpdump_dhcpv6-mud.pcap: DUID time 0x1e62770b is "Feb 26, 2016 02:38:03".
    assert_eq!(
        utc_text(DUID_EPOCH + 0x1e62770b),
        "Feb 26, 2016 02:38:03.000000000 UTC"
    );
    assert_eq!(utc_text(0), "Jan  1, 1970 00:00:00.000000000 UTC");
}
