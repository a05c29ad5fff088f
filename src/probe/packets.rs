//! The probe's packets: a DHCPDISCOVER or a SOLICIT per key, built with the project's emitters
//! and link, IP and UDP builders, ready for an AF_PACKET socket.
//!
//! What they carry, and why no lease is bound: only the first message of an exchange
//! (DISCOVER / SOLICIT), never a REQUEST, and no Rapid Commit option (RFC 4039 / RFC 8415),
//! so a server can only offer (OFFER / ADVERTISE); `secs` / Elapsed Time 0, so that no server
//! answers a bucket it does not own by delayed service (RFC 3074 section 6), which would blur
//! the map. A DISCOVER asks for a broadcast answer, which reaches the probe whatever its
//! made-up hardware address.

use std::borrow::Cow;
use std::net::{Ipv4Addr, Ipv6Addr};

use super::keys::{Client, ProbeKey};
use crate::generate::packet::{Ip, Link, Packet};
use crate::proto::dhcpv4::{self, message_type};
use crate::proto::dhcpv6::{self, msg_type, ClientMessage, Duid};
use crate::wire::ethernet::{ETHERTYPE_IPV4, ETHERTYPE_IPV6};

/// The DHCPv4 client and server ports.
pub const V4_CLIENT_PORT: u16 = 68;
pub const V4_SERVER_PORT: u16 = 67;
/// The DHCPv6 client and server ports.
pub const V6_CLIENT_PORT: u16 = 546;
pub const V6_SERVER_PORT: u16 = 547;
/// All_DHCP_Relay_Agents_and_Servers (RFC 8415 section 7.1).
pub const ALL_DHCP_SERVERS: Ipv6Addr = Ipv6Addr::new(0xff02, 0, 0, 0, 0, 0, 1, 2);
const BROADCAST_MAC: [u8; 6] = [0xff; 6];
/// The Ethernet address of ff02::1:2 (RFC 2464: 33:33 and the address's last four bytes).
const ALL_DHCP_SERVERS_MAC: [u8; 6] = [0x33, 0x33, 0, 1, 0, 2];
/// What a DISCOVER asks for: subnet mask, router, DNS servers, lease time, server identifier.
const PARAMETERS: [u8; 5] = [1, 3, 6, 51, 54];
/// BOOTP's minimum message size, which some servers and relays insist on.
const BOOTP_MIN_LEN: usize = 300;
/// The IA_NA's IAID in a SOLICIT (one address asked for).
const IAID: u32 = 1;
/// DHCPv6 option codes asked for: DNS servers (23) and the domain search list (24).
const V6_ORO: [u16; 2] = [23, 24];

/// The probe's own end of the link.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LinkSource {
    /// The interface's hardware address (the frames' Ethernet source).
    pub mac: [u8; 6],
    /// The interface's IPv6 link-local address (a SOLICIT's source; DHCPv6 only).
    pub link_local: Option<Ipv6Addr>,
}

impl LinkSource {
    /// For `--dry-run` without an interface: the frames show zeros where the interface's
    /// addresses would be.
    pub fn placeholder() -> Self {
        LinkSource {
            mac: [0; 6],
            link_local: Some(Ipv6Addr::new(0xfe80, 0, 0, 0, 0, 0, 0, 0)),
        }
    }
}

/// The DHCPDISCOVER of a DHCPv4 key.
pub fn discover(chaddr: [u8; 6], client_id: Option<&[u8]>, xid: u32) -> dhcpv4::Message<'static> {
    let mut m = dhcpv4::Message::request(message_type::DISCOVER, xid, chaddr)
        .with_broadcast()
        .with_secs(0);
    if let Some((&kind, id)) = client_id.and_then(|c| c.split_first()) {
        m = m.with(dhcpv4::Opt::client_identifier(kind, id));
    }
    m.with(dhcpv4::Opt::parameter_request_list(&PARAMETERS))
        .padded_to(BOOTP_MIN_LEN)
}

/// The SOLICIT of a DHCPv6 key: its DUID, Elapsed Time 0, one IA_NA, no Rapid Commit.
pub fn solicit(duid: &[u8], xid: u32) -> dhcpv6::Message<'static> {
    dhcpv6::Message::client(ClientMessage::new(
        msg_type::SOLICIT,
        xid & 0x00ff_ffff,
        vec![
            dhcpv6::Opt::client_id(Duid(Cow::Owned(duid.to_vec()))),
            dhcpv6::Opt::elapsed_time(0),
            dhcpv6::Opt::ia_na(IAID, 0, 0, Vec::new()),
            dhcpv6::Opt::oro(&V6_ORO),
        ],
    ))
}

/// The DHCP message of a key, on the wire.
pub fn message(key: &ProbeKey, xid: u32) -> Vec<u8> {
    match &key.client {
        Client::V4 { chaddr, client_id } => discover(*chaddr, client_id.as_deref(), xid).emit(),
        Client::V6 { duid } => solicit(duid, xid).emit(),
    }
}

/// The message's name, as the output says it.
pub fn message_name(key: &ProbeKey) -> &'static str {
    match key.client {
        Client::V4 { .. } => "DHCPDISCOVER",
        Client::V6 { .. } => "SOLICIT",
    }
}

/// The whole Ethernet frame of a key's probe: a DISCOVER broadcast from 0.0.0.0:68 to
/// 255.255.255.255:67, or a SOLICIT from the interface's link-local address to ff02::1:2:547.
pub fn frame(key: &ProbeKey, xid: u32, from: &LinkSource) -> Result<Vec<u8>, String> {
    let payload = message(key, xid);
    let (ip, dst_mac, sport, dport) = match &key.client {
        Client::V4 { .. } => (
            Ip::v4(Ipv4Addr::UNSPECIFIED, Ipv4Addr::BROADCAST),
            BROADCAST_MAC,
            V4_CLIENT_PORT,
            V4_SERVER_PORT,
        ),
        Client::V6 { .. } => {
            let src = from.link_local.ok_or(
                "the interface has no IPv6 link-local address: a SOLICIT is sent from one \
                 (is IPv6 disabled on it?)",
            )?;
            let mut ip = Ip::v6(src, ALL_DHCP_SERVERS);
            if let Ip::V6(h) = &mut ip {
                // Link-scope multicast: one hop, as clients send it.
                h.hop_limit = 1;
            }
            (ip, ALL_DHCP_SERVERS_MAC, V6_CLIENT_PORT, V6_SERVER_PORT)
        }
    };
    let mut packet = Packet::udp(ip, sport, dport, &payload);
    packet.link = Link::Ethernet {
        src: from.mac,
        dst: dst_mac,
        vlans: Vec::new(),
    };
    let mut out = Vec::with_capacity(payload.len() + 64);
    packet.build(&mut out);
    Ok(out)
}

/// The EtherType a key's frames carry.
pub fn ethertype(key: &ProbeKey) -> u16 {
    match key.client {
        Client::V4 { .. } => ETHERTYPE_IPV4,
        Client::V6 { .. } => ETHERTYPE_IPV6,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::dhcp_lb::profile::KEA;
    use crate::probe::buckets::BucketSet;
    use crate::probe::keys::{find_keys, KeyKind};

    fn key(kind: KeyKind, bucket: u8) -> ProbeKey {
        let set: BucketSet = bucket.to_string().parse().unwrap();
        find_keys(kind, &set, &[&KEA]).unwrap().remove(0)
    }

    #[test]
    fn a_discover_only_asks() {
        for kind in [KeyKind::Chaddr, KeyKind::ClientId] {
            let k = key(kind, 42);
            let bytes = message(&k, 0x0102_0304);
            let (m, errors) = dhcpv4::parse(&bytes);
            assert!(errors.is_empty(), "{errors:?}");
            assert_eq!(m.message_type(), Some(message_type::DISCOVER));
            assert_eq!(m.secs(), 0);
            assert!(m.broadcast());
            assert_eq!(m.xid(), 0x0102_0304);
            // No Rapid Commit (RFC 4039, option 80), no requested address or server id.
            for code in [80, 50, 54] {
                assert!(m.option(code).is_none(), "option {code}");
            }
            assert_eq!(m.chaddr(), Some(k.client.echo()));
            let client_id = m.client_identifier().map(|c| c.into_owned());
            match kind {
                KeyKind::Chaddr => assert_eq!(client_id, None),
                _ => assert_eq!(client_id.as_deref(), Some(&k.stid[..])),
            }
            assert_eq!(bytes.len(), BOOTP_MIN_LEN);
        }
    }

    #[test]
    fn a_solicit_only_asks() {
        for kind in [KeyKind::DuidLl, KeyKind::DuidEn] {
            let k = key(kind, 7);
            let bytes = message(&k, 0xab_cdef);
            let (m, errors) = dhcpv6::parse(&bytes);
            assert!(errors.is_empty(), "{errors:?}");
            let inner = m.innermost().unwrap();
            assert_eq!(inner.msg_type, msg_type::SOLICIT);
            assert_eq!(inner.xid, 0xab_cdef);
            assert_eq!(m.elapsed_time(), Some(0));
            assert_eq!(m.client_id().map(|d| d.bytes()), Some(&k.stid[..]));
            // No Rapid Commit (option 14), no Server Identifier.
            assert!(inner.option(dhcpv6::code::RAPID_COMMIT).is_none());
            assert!(m.server_id().is_none());
        }
    }

    #[test]
    fn frames_decode_through_the_pipeline() {
        use crate::base::Timestamp;
        use crate::pipeline::{Decoded, Options, Pipeline, Sink};
        use crate::proto::Message;
        use crate::source::Frame;

        struct Got(Vec<(String, String)>);
        impl Sink for Got {
            fn message(&mut self, d: &Decoded<'_>) {
                let (src, dst) = (d.payload.src.to_string(), d.payload.dst.to_string());
                let what = match d.message {
                    Message::Dhcpv4(m) => format!("v4 {:?} {src}->{dst}", m.message_type()),
                    Message::Dhcpv6(m) => format!("v6 {:?} {src}->{dst}", m.msg_type()),
                    _ => "other".into(),
                };
                self.0.push((what, d.errors.len().to_string()));
            }
        }
        let from = LinkSource {
            mac: [2, 0, 0, 0, 0x0c, 1],
            link_local: Some("fe80::ff:fe00:c01".parse().unwrap()),
        };
        let mut p = Pipeline::new(Options::default());
        let mut got = Got(Vec::new());
        for (i, k) in [key(KeyKind::Chaddr, 1), key(KeyKind::DuidLl, 2)]
            .iter()
            .enumerate()
        {
            let bytes = frame(k, 9, &from).unwrap();
            assert_eq!(&bytes[6..12], &from.mac, "Ethernet source");
            let f = Frame {
                number: i as u64 + 1,
                ts: Timestamp::new(0, 0),
                ts_digits: 6,
                linktype: 1,
                orig_len: bytes.len() as u32,
                interface: 0,
                data: &bytes,
                pcapng: None,
            };
            p.feed(&f, &mut got);
        }
        assert_eq!(
            got.0,
            [
                (
                    "v4 Some(1) 0.0.0.0->255.255.255.255".to_string(),
                    "0".into()
                ),
                (
                    "v6 Some(1) fe80::ff:fe00:c01->ff02::1:2".to_string(),
                    "0".into()
                ),
            ]
        );
        let no_ll = LinkSource {
            link_local: None,
            ..from
        };
        assert!(frame(&key(KeyKind::DuidLl, 2), 9, &no_ll)
            .unwrap_err()
            .contains("link-local"));
    }
}
