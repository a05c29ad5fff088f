//! dhcproto 0.15 as an independent oracle: messages it builds must decode with poolshark's
//! parsers to the values it was given, and messages poolshark builds must decode with dhcproto
//! to the values poolshark was given. Only what dhcproto handles reliably is compared (no relayed
//! DHCPv6 messages, no repeated options, hlen <= 16: see the protocol notes).

use std::net::{Ipv4Addr, Ipv6Addr};

use dhcproto::{Decodable, Decoder, Encodable, Encoder};
use poolshark::proto::{dhcpv4, dhcpv6};

fn v4_encode(m: &dhcproto::v4::Message) -> Vec<u8> {
    let mut buf = Vec::new();
    m.encode(&mut Encoder::new(&mut buf))
        .expect("dhcproto encodes");
    buf
}

fn v6_encode(m: &dhcproto::v6::Message) -> Vec<u8> {
    let mut buf = Vec::new();
    m.encode(&mut Encoder::new(&mut buf))
        .expect("dhcproto encodes");
    buf
}

/// Varied but reproducible message contents.
fn case(i: u32) -> ([u8; 6], Vec<u8>, Ipv4Addr) {
    let mac = [2, 0, (i >> 8) as u8, i as u8, 0x5a, (i * 7) as u8];
    let mut cid = vec![if i % 3 == 0 { 0 } else { 1 }];
    cid.extend_from_slice(&mac);
    cid.resize(cid.len() + (i % 5) as usize, b'x');
    (mac, cid, Ipv4Addr::new(192, 0, 2, (i % 250) as u8 + 1))
}

#[test]
fn dhcproto_v4_messages_decode_with_poolshark() {
    use dhcproto::v4::relay::{RelayAgentInformation, RelayInfo};
    use dhcproto::v4::{DhcpOption, Flags, Message, MessageType, OptionCode};
    let types = [
        (MessageType::Discover, 1),
        (MessageType::Request, 3),
        (MessageType::Ack, 5),
        (MessageType::LeaseQuery, 10),
        (MessageType::LeaseActive, 13),
    ];
    for i in 0..300u32 {
        let (mac, cid, addr) = case(i);
        let (mt, mt_code) = types[(i % 5) as usize];
        let giaddr = Ipv4Addr::new(10, 0, 0, (i % 7) as u8);
        let mut m = Message::new_with_id(
            0x1000_0000 + i * 977,
            Ipv4Addr::UNSPECIFIED,
            addr,
            Ipv4Addr::UNSPECIFIED,
            giaddr,
            &mac,
        );
        m.set_secs((i % 11) as u16);
        if i % 2 == 0 {
            m.set_flags(Flags::default().set_broadcast());
        }
        let o = m.opts_mut();
        o.insert(DhcpOption::MessageType(mt));
        o.insert(DhcpOption::ClientIdentifier(cid.clone()));
        o.insert(DhcpOption::RequestedIpAddress(addr));
        o.insert(DhcpOption::ServerIdentifier(Ipv4Addr::new(192, 0, 2, 1)));
        o.insert(DhcpOption::AddressLeaseTime(600 + i));
        o.insert(DhcpOption::ParameterRequestList(vec![
            OptionCode::SubnetMask,
            OptionCode::Router,
            OptionCode::DomainNameServer,
        ]));
        o.insert(DhcpOption::Hostname(format!("host{i}")));
        let mut rai = RelayAgentInformation::default();
        rai.insert(RelayInfo::AgentCircuitId(format!("eth{i}").into_bytes()));
        rai.insert(RelayInfo::AgentRemoteId(vec![i as u8, 1, 2]));
        o.insert(DhcpOption::RelayAgentInformation(rai));
        let bytes = v4_encode(&m);

        let (p, errors) = dhcpv4::parse(&bytes);
        assert!(errors.is_empty(), "case {i}: {errors:?}");
        assert_eq!(p.xid(), 0x1000_0000 + i * 977);
        assert_eq!(p.secs(), (i % 11) as u16);
        assert_eq!(p.broadcast(), i % 2 == 0);
        assert_eq!(p.giaddr(), giaddr);
        assert_eq!(p.yiaddr, addr);
        assert_eq!(p.chaddr(), Some(&mac[..]));
        assert_eq!(p.message_type(), Some(mt_code));
        assert_eq!(p.client_identifier().as_deref(), Some(&cid[..]));
        assert_eq!(p.requested_address(), Some(addr));
        assert_eq!(p.server_identifier(), Some(Ipv4Addr::new(192, 0, 2, 1)));
        assert_eq!(p.lease_time(), Some(600 + i));
        assert_eq!(p.parameter_request_list().as_deref(), Some(&[1, 3, 6][..]));
        let host = p
            .option(dhcpv4::code::HOST_NAME)
            .map(|o| o.data().into_owned());
        assert_eq!(host, Some(format!("host{i}").into_bytes()));
        let rai = p.relay_agent_info();
        assert_eq!(rai.len(), 2);
        assert_eq!(rai[0].code, 1);
        assert_eq!(rai[0].data.as_ref(), format!("eth{i}").as_bytes());
        assert_eq!(rai[1].data.as_ref(), &[i as u8, 1, 2]);
        // poolshark writes back exactly what dhcproto wrote.
        assert_eq!(p.emit(), bytes);
    }
}

#[test]
fn poolshark_v4_messages_decode_with_dhcproto() {
    use dhcproto::v4::relay::{RelayCode, RelayInfo};
    use dhcproto::v4::{DhcpOption, Message, MessageType, OptionCode};
    for i in 0..300u32 {
        let (mac, cid, addr) = case(i);
        let m = dhcpv4::Message::request(dhcpv4::message_type::REQUEST, i * 31, mac)
            .with_secs((i % 9) as u16)
            .with_giaddr(Ipv4Addr::new(10, 1, 0, 1))
            .with(dhcpv4::Opt::client_identifier(cid[0], &cid[1..]))
            .with(dhcpv4::Opt::requested_address(addr))
            .with(dhcpv4::Opt::server_identifier(Ipv4Addr::new(192, 0, 2, 2)))
            .with(dhcpv4::Opt::parameter_request_list(&[1, 3, 15]))
            .with(dhcpv4::Opt::relay_agent_info(vec![
                dhcpv4::SubOpt::new(1, format!("port{i}").into_bytes()),
                dhcpv4::SubOpt::new(2, vec![9, 9]),
            ]))
            .padded_to(300);
        let bytes = m.emit();
        let d = Message::decode(&mut Decoder::new(&bytes)).expect("dhcproto decodes");
        assert_eq!(d.xid(), i * 31);
        assert_eq!(d.secs(), (i % 9) as u16);
        assert_eq!(d.chaddr(), &mac[..]);
        assert_eq!(d.giaddr(), Ipv4Addr::new(10, 1, 0, 1));
        let o = d.opts();
        assert_eq!(
            o.get(OptionCode::MessageType),
            Some(&DhcpOption::MessageType(MessageType::Request))
        );
        assert_eq!(
            o.get(OptionCode::ClientIdentifier),
            Some(&DhcpOption::ClientIdentifier(cid.clone()))
        );
        assert_eq!(
            o.get(OptionCode::RequestedIpAddress),
            Some(&DhcpOption::RequestedIpAddress(addr))
        );
        assert_eq!(
            o.get(OptionCode::ServerIdentifier),
            Some(&DhcpOption::ServerIdentifier(Ipv4Addr::new(192, 0, 2, 2)))
        );
        assert_eq!(
            o.get(OptionCode::ParameterRequestList),
            Some(&DhcpOption::ParameterRequestList(vec![
                OptionCode::SubnetMask,
                OptionCode::Router,
                OptionCode::DomainName
            ]))
        );
        let Some(DhcpOption::RelayAgentInformation(rai)) = o.get(OptionCode::RelayAgentInformation)
        else {
            panic!("case {i}: no option 82 for dhcproto");
        };
        assert_eq!(
            rai.get(RelayCode::AgentCircuitId),
            Some(&RelayInfo::AgentCircuitId(format!("port{i}").into_bytes()))
        );
        assert_eq!(
            rai.get(RelayCode::AgentRemoteId),
            Some(&RelayInfo::AgentRemoteId(vec![9, 9]))
        );
    }
}

#[test]
fn dhcproto_v6_messages_decode_with_poolshark() {
    use dhcproto::v6::{DhcpOption, IAAddr, Message, MessageType, OptionCode, IANA, ORO};
    let types = [
        (MessageType::Solicit, 1),
        (MessageType::Request, 3),
        (MessageType::Renew, 5),
        (MessageType::Reply, 7),
        (MessageType::InformationRequest, 11),
    ];
    for i in 0..300u32 {
        let (mt, code) = types[(i % 5) as usize];
        let duid = dhcpv6::Duid::ll(1, &[2, 0, 0, (i >> 8) as u8, i as u8, 1]);
        let addr = Ipv6Addr::new(0x2001, 0xdb8, 0, 0, 0, 0, 1, i as u16);
        let mut m = Message::new_with_id(mt, [(i >> 16) as u8, (i >> 8) as u8, i as u8]);
        let o = m.opts_mut();
        o.insert(DhcpOption::ClientId(duid.bytes().to_vec()));
        o.insert(DhcpOption::ElapsedTime((i * 3) as u16));
        let mut ia = IANA {
            id: i,
            t1: 100,
            t2: 200,
            opts: Default::default(),
        };
        ia.opts.insert(DhcpOption::IAAddr(IAAddr {
            addr,
            preferred_life: 300,
            valid_life: 400,
            opts: Default::default(),
        }));
        o.insert(DhcpOption::IANA(ia));
        o.insert(DhcpOption::ORO(ORO {
            opts: vec![OptionCode::DomainNameServers, OptionCode::DomainSearchList],
        }));
        let bytes = v6_encode(&m);

        let (p, errors) = dhcpv6::parse(&bytes);
        assert!(errors.is_empty(), "case {i}: {errors:?}");
        assert_eq!(p.msg_type(), Some(code));
        assert_eq!(p.xid(), Some(i));
        assert_eq!(p.client_id(), Some(&duid));
        assert_eq!(p.elapsed_time(), Some((i * 3) as u16));
        let inner = p.innermost().expect("client message");
        assert_eq!(inner.ia_addresses(), vec![addr]);
        let oro = inner.options.iter().find_map(|o| match &o.value {
            dhcpv6::OptValue::Oro(v) => Some(v.clone()),
            _ => None,
        });
        assert_eq!(oro, Some(vec![23, 24]));
        assert_eq!(p.emit(), bytes);
    }
}

#[test]
fn poolshark_v6_messages_decode_with_dhcproto() {
    use dhcproto::v6::{DhcpOption, Message, MessageType, OptionCode};
    for i in 0..300u32 {
        let duid = dhcpv6::Duid::llt(1, 0x2000_0000 + i, &[2, 0, 0, 0, (i >> 8) as u8, i as u8]);
        let addr = Ipv6Addr::new(0x2001, 0xdb8, 0, 0, 0, 0, 2, i as u16);
        let m = dhcpv6::Message::client(dhcpv6::ClientMessage::new(
            dhcpv6::msg_type::SOLICIT,
            i * 4099,
            vec![
                dhcpv6::Opt::client_id(duid.clone()),
                dhcpv6::Opt::elapsed_time(i as u16),
                dhcpv6::Opt::ia_na(i, 0, 0, vec![dhcpv6::Opt::iaaddr(addr, 1, 2, vec![])]),
                dhcpv6::Opt::rapid_commit(),
            ],
        ));
        let bytes = m.emit();
        let d = Message::decode(&mut Decoder::new(&bytes)).expect("dhcproto decodes");
        assert_eq!(d.msg_type(), MessageType::Solicit);
        assert_eq!(d.xid_num(), (i * 4099) & 0xff_ffff);
        let o = d.opts();
        assert_eq!(
            o.get(OptionCode::ClientId),
            Some(&DhcpOption::ClientId(duid.bytes().to_vec()))
        );
        assert_eq!(
            o.get(OptionCode::ElapsedTime),
            Some(&DhcpOption::ElapsedTime(i as u16))
        );
        assert_eq!(
            o.get(OptionCode::RapidCommit),
            Some(&DhcpOption::RapidCommit)
        );
        let Some(DhcpOption::IANA(ia)) = o.get(OptionCode::IANA) else {
            panic!("case {i}: no IA_NA for dhcproto");
        };
        assert_eq!(ia.id, i);
        let Some(DhcpOption::IAAddr(a)) = ia.opts.get(OptionCode::IAAddr) else {
            panic!("case {i}: no IAADDR for dhcproto");
        };
        assert_eq!(a.addr, addr);
        assert_eq!((a.preferred_life, a.valid_life), (1, 2));
    }
}
