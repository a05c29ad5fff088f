//! Unit tests of the DHCPv6 parser and emitter: messages built by hand from the RFC layouts.

use std::borrow::Cow;
use std::net::Ipv6Addr;

use super::*;

/// A Solicit as a client sends it (also the display tree's tests' message).
pub(super) fn solicit() -> Message<'static> {
    Message::client(ClientMessage::new(
        msg_type::SOLICIT,
        0x78244b,
        vec![
            Opt::client_id(Duid::llt(
                1,
                0x1e62770b,
                &[0xb8, 0x27, 0xeb, 0xb8, 0x53, 0xc8],
            )),
            Opt::elapsed_time(96),
            Opt::rapid_commit(),
            Opt::ia_na(0xebb853c8, 0, 0, vec![]),
            Opt::oro(&[23, 24]),
        ],
    ))
}

#[test]
fn solicit_layout_by_hand() {
    let b = solicit().emit();
    // RFC 8415 section 8: msg-type, 3-byte transaction-id; then options code/len/data.
    let mut want = vec![1, 0x78, 0x24, 0x4b];
    want.extend_from_slice(&[0, 1, 0, 14, 0, 1, 0, 1, 0x1e, 0x62, 0x77, 0x0b]);
    want.extend_from_slice(&[0xb8, 0x27, 0xeb, 0xb8, 0x53, 0xc8]);
    want.extend_from_slice(&[0, 8, 0, 2, 0, 96]);
    want.extend_from_slice(&[0, 14, 0, 0]);
    want.extend_from_slice(&[0, 3, 0, 12, 0xeb, 0xb8, 0x53, 0xc8, 0, 0, 0, 0, 0, 0, 0, 0]);
    want.extend_from_slice(&[0, 6, 0, 4, 0, 23, 0, 24]);
    assert_eq!(b, want);
    let (m, e) = parse(&b);
    assert!(e.is_empty(), "{e:?}");
    assert_eq!(m, solicit());
    assert_eq!(m.msg_type(), Some(1));
    assert_eq!(m.xid(), Some(0x78244b));
    assert_eq!(m.elapsed_time(), Some(96));
    assert_eq!(m.client_id().map(|d| d.bytes().len()), Some(14));
    let inner = m.innermost().map(|i| &i.options[1]);
    assert_eq!(inner.map(|o| o.pos.offset), Some(22));
}

#[test]
fn relay_chain_keeps_every_layer() {
    let link = Ipv6Addr::new(0x2001, 0xdb8, 0, 1, 0, 0, 0, 1);
    let peer = Ipv6Addr::new(0xfe80, 0, 0, 0, 0, 0, 0, 2);
    let m = solicit()
        .relayed(12, 0, link, peer, vec![Opt::interface_id(b"eth0")])
        .relayed(
            12,
            1,
            Ipv6Addr::UNSPECIFIED,
            link,
            vec![Opt::relay_msg(), Opt::interface_id(b"x")],
        );
    let b = m.emit();
    let (p, e) = parse(&b);
    assert!(e.is_empty(), "{e:?}");
    assert_eq!(p, m);
    assert_eq!(p.relays.len(), 2);
    assert_eq!(p.relays[0].hop_count, 1);
    assert_eq!(p.relays[1].interface_id(), Some(&b"eth0"[..]));
    assert_eq!(p.msg_type(), Some(12));
    assert_eq!(p.innermost().map(|i| i.msg_type), Some(1));
    assert_eq!(p.xid(), Some(0x78244b));
    // Outer RELAY_MSG is the first option of the outer relay: its length covers the inner relay.
    assert_eq!(&b[34..36], &[0, 9]);
    let inner_len = usize::from(u16::from_be_bytes([b[36], b[37]]));
    assert_eq!(38 + inner_len + 4 + 1, b.len());
    // The inner message's offset is absolute in the buffer.
    assert_eq!(p.relays[1].pos.offset, 38);
    assert_eq!(p.emit(), b);
}

#[test]
fn deep_relay_nesting_is_iterative() {
    let mut m = solicit();
    let layers = 1700;
    for _ in 0..layers {
        m = m.relayed(12, 0, Ipv6Addr::UNSPECIFIED, Ipv6Addr::UNSPECIFIED, vec![]);
    }
    let b = m.emit();
    assert!(b.len() < 65536);
    // Run in a thread with a small stack: parse, emit, fields and drop must not recurse per layer.
    let h = std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(move || {
            let (p, e) = parse(&b);
            assert!(e.is_empty());
            assert_eq!(p.relays.len(), layers);
            assert_eq!(p.xid(), Some(0x78244b));
            assert_eq!(p.emit(), b);
            let f = p.fields();
            assert_eq!(f.len(), 1);
            p.info()
        })
        .unwrap();
    let info = h.join().unwrap();
    assert!(info.starts_with("Relay-forw L: :: "), "{info}");
}

#[test]
fn truncations_are_errors() {
    let b = solicit().emit();
    for n in 0..b.len() {
        let (m, e) = parse(&b[..n]);
        if n == 4 || n == 22 || n == 28 || n == 32 || n == 48 {
            // Cut between options: a valid, shorter message.
            assert!(e.is_empty(), "{n}: {e:?}");
        } else {
            assert!(!e.is_empty(), "cut at {n} gave no error");
        }
        for err in &e {
            assert!(err.offset <= n, "{n}: {err:?}");
        }
        let _ = m.fields();
        let _ = m.info();
    }
    // A relay whose RELAY_MSG is cut short: the inner message is still followed.
    let r = solicit()
        .relayed(12, 0, Ipv6Addr::UNSPECIFIED, Ipv6Addr::UNSPECIFIED, vec![])
        .emit();
    let (m, e) = parse(&r[..r.len() - 3]);
    assert_eq!(e.len(), 2, "{e:?}");
    assert_eq!(e[0].offset, 34);
    assert_eq!(m.xid(), Some(0x78244b));
    // A RELAY_MSG too short for a header.
    let mut short = r[..34].to_vec();
    short.extend_from_slice(&[0, 9, 0, 2, 1, 0]);
    let (m, e) = parse(&short);
    assert!(m.inner.is_none());
    assert_eq!(m.relays.len(), 1);
    assert_eq!(e.len(), 1);
    assert_eq!(e[0].offset, 38);
    // A relay without RELAY_MSG.
    let (m, e) = parse(&r[..34]);
    assert!(m.inner.is_none());
    assert_eq!(e.len(), 1);
}

#[test]
fn an_option_cut_short_shows_the_length_it_claims() {
    // Rapid Commit claiming 300 bytes, 2 of them there.
    let b = [1, 0, 0, 1, 0, 14, 0x01, 0x2c, 0xaa, 0xbb];
    let (m, e) = parse(&b);
    assert_eq!(e.len(), 1, "{e:?}");
    assert_eq!(
        e[0].what,
        "option 14 (Rapid Commit) says it has 300 bytes of data, only 2 are left"
    );
    let fields = m.fields();
    let len = crate::field::find(&fields, "dhcpv6.option.length").expect("length");
    assert_eq!(
        len.display_value(),
        "300",
        "the wire's value, not the bytes left"
    );
    assert_eq!((len.offset, len.len), (6, 2));
    let mut errors = Vec::new();
    let opts = options::parse_options(&b[4..], 4, 0, &mut errors);
    assert_eq!((opts[0].claimed_len, opts[0].pos.len), (Some(300), 6));
    // Whole, it claims nothing beyond itself.
    let opts = options::parse_options(&[0, 14, 0, 0], 4, 0, &mut errors);
    assert_eq!(opts[0].claimed_len, None);
    assert_eq!(errors.len(), 1);
}

#[test]
fn zero_length_duid_and_bad_sizes() {
    let b = [
        1, 0, 0, 1, 0, 1, 0, 0, 0, 8, 0, 1, 5, 0, 3, 0, 4, 1, 2, 3, 4,
    ];
    let (m, e) = parse(&b);
    assert_eq!(e.len(), 3, "{e:?}");
    assert_eq!(e[0].offset, 8);
    assert!(e[0].what.contains("DUID"));
    assert_eq!(e[1].offset, 8);
    assert_eq!(e[2].offset, 13);
    let i = m.innermost().unwrap();
    assert_eq!(i.client_id().map(|d| d.bytes().len()), Some(0));
    assert!(matches!(i.options[1].value, OptValue::Raw(_)));
    assert!(matches!(i.options[2].value, OptValue::Raw(_)));
    assert_eq!(m.emit(), b);
}

#[test]
fn ia_with_addresses_and_status() {
    let a = Ipv6Addr::new(0x2001, 0xdb8, 0, 0, 0, 0, 0, 5);
    let m = Message::client(ClientMessage::new(
        msg_type::REPLY,
        7,
        vec![
            Opt::server_id(Duid::ll(1, &[2, 0, 0, 0, 1, 1])),
            Opt::ia_na(
                1,
                100,
                200,
                vec![Opt::iaaddr(a, 300, 400, vec![Opt::status_code(0, "ok")])],
            ),
            Opt::ia_pd(2, 0, 0, vec![Opt::iaprefix(a, 56, 1, 2, vec![])]),
            Opt::ia_ta(3, vec![]),
            Opt::status_code(2, "NoAddrAvail"),
        ],
    ));
    let b = m.emit();
    let (p, e) = parse(&b);
    assert!(e.is_empty(), "{e:?}");
    assert_eq!(p, m);
    let inner = p.innermost().unwrap();
    assert_eq!(inner.ia_addresses(), vec![a]);
    assert_eq!(inner.status_code(), Some((2, &b"NoAddrAvail"[..])));
    let OptValue::IaNa(ia) = &inner.options[1].value else {
        panic!()
    };
    assert_eq!(ia.t2, 200);
    let OptValue::IaAddr(addr) = &ia.options[0].value else {
        panic!()
    };
    assert_eq!(addr.valid_lifetime, 400);
    // Offsets: server id 4+10, IA_NA at 18, its IAADDR at 18+4+12.
    assert_eq!(inner.options[1].pos.offset, 18);
    assert_eq!(ia.options[0].pos.offset, 34);
}

#[test]
fn leasequery_and_dhcpv4_over_dhcpv6() {
    let cid = Duid::en(2495, b"abc");
    let link = Ipv6Addr::new(0x2001, 0xdb8, 1, 0, 0, 0, 0, 1);
    let lq = Message::client(ClientMessage::new(
        msg_type::LEASEQUERY,
        0x10203,
        vec![
            Opt::client_id(Duid::uuid([1; 16])),
            Opt::lq_query(QUERY_BY_CLIENTID, link, vec![Opt::client_id(cid.clone())]),
        ],
    ));
    let b = lq.emit();
    let (p, e) = parse(&b);
    assert!(e.is_empty(), "{e:?}");
    assert_eq!(p, lq);
    let q = p.lq_query().unwrap();
    assert_eq!(q.query_type, 2);
    assert_eq!(q.link_address, link);
    assert_eq!(q.client_id(), Some(&cid));

    let reply = Message::client(ClientMessage::new(
        msg_type::LEASEQUERY_REPLY,
        0x10203,
        vec![Opt::client_data(vec![
            Opt::client_id(cid.clone()),
            Opt::iaaddr(link, 1, 2, vec![]),
            Opt::clt_time(60),
            Opt::lq_relay_data(link, solicit().relayed(12, 0, link, link, vec![])),
        ])],
    ))
    .relayed(13, 0, link, link, vec![]);
    let b = reply.emit();
    let (p, e) = parse(&b);
    assert!(e.is_empty(), "{e:?}");
    assert_eq!(p, reply);

    let v4 = crate::proto::dhcpv4::Message::request(1, 0xdead, [2, 0, 0, 0, 0, 9]);
    let q4 = Message::client(ClientMessage::new(
        msg_type::DHCPV4_QUERY,
        5,
        vec![Opt::raw(86, &[0, 0, 0, 0]), Opt::dhcpv4_msg(v4.clone())],
    ));
    let b = q4.emit();
    let (p, e) = parse(&b);
    assert!(e.is_empty(), "{e:?}");
    assert_eq!(p.dhcpv4_msg(), Some(&v4));
    assert_eq!(p.dhcpv4_msg().and_then(|m| m.message_type()), Some(1));
    // An error inside the DHCPv4 message is reported at its offset in the DHCPv6 buffer.
    let mut bad = b.clone();
    let v4_start = 4 + 8 + 4;
    bad[v4_start + 236] = 0;
    let (_, e) = parse(&bad);
    assert_eq!(e.len(), 1);
    assert_eq!(e[0].offset, v4_start + 236);
}

#[test]
fn nesting_limit_keeps_raw() {
    // IA_NA inside IA_NA ... deeper than the limit.
    let mut o = Opt::ia_na(1, 0, 0, vec![]);
    for _ in 0..40 {
        o = Opt::ia_na(1, 0, 0, vec![o]);
    }
    let m = Message::client(ClientMessage::new(1, 1, vec![o]));
    let b = m.emit();
    let (p, e) = parse(&b);
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(e[0].what.contains("nested"));
    assert_eq!(p.emit(), b);
}

#[test]
fn typed_options_round_trip() {
    let a = Ipv6Addr::new(0x2001, 0xdb8, 0, 0, 0, 0, 0, 0x35);
    let m = Message::client(ClientMessage::new(
        msg_type::REPLY,
        1,
        vec![
            Opt::preference(255),
            Opt::unicast(a),
            Opt::addresses(code::DNS_SERVERS, &[a, a]),
            Opt::domain_names(code::DOMAIN_LIST, &["example.com", "example.org"]),
            Opt::domain_names(code::AFTR_NAME, &["aftr.example.net"]),
            Opt::user_class(&[b"one", b"two"]),
            Opt::vendor_class(40712, &[b"dhcpcd"]),
            Opt::vendor_opts(4491, vec![SubOpt::new(1, &b"x"[..])]),
            Opt::new(
                code::NTP_SERVER,
                OptValue::NtpServer(vec![SubOpt::new(1, a.octets().to_vec())]),
            ),
            Opt::mud_url("https://example.com/mud"),
            Opt::reconf_accept(),
            Opt::new(code::RECONF_MSG, OptValue::ReconfMsg(5)),
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
            Opt::addresses(code::DHCP4_O_DHCP6_SERVER, &[]),
            Opt::raw(999, &[1, 2]),
        ],
    ));
    let b = m.emit();
    let (p, e) = parse(&b);
    assert!(e.is_empty(), "{e:?}");
    assert_eq!(p, m);
    let f = p.fields();
    let names = crate::field::find_all(&f, "dhcpv6.search_list_entry");
    assert_eq!(names.len(), 2);
}
