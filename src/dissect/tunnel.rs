//! Tunnel headers: GRE (RFC 2784 with RFC 2890's key and sequence number), VXLAN (RFC 7348),
//! Geneve (RFC 8926), Teredo (RFC 4380) and MPLS label stacks (RFC 3032). Each parser reads its header at the start
//! of a buffer (errors relative to it) and says where the encapsulated packet starts and what it
//! is; the dissector decodes that packet as it decodes a frame's, to a bounded depth
//! ([`MAX_ENCAPSULATIONS`]).

use crate::error::DecodeError;

/// IP protocol numbers of the encapsulations.
pub const PROTO_IPIP: u8 = 4;
pub const PROTO_IPV6: u8 = 41;
pub const PROTO_GRE: u8 = 47;
/// UDP destination ports (IANA): VXLAN and Geneve.
pub const VXLAN_PORT: u16 = 4789;
pub const GENEVE_PORT: u16 = 6081;
/// Teredo's server and relay port (IANA): its datagrams come from it or go to it.
pub const TEREDO_PORT: u16 = 3544;

/// The tunnels carried over UDP.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UdpTunnel {
    Vxlan,
    Geneve,
    /// IPv6 over UDP (RFC 4380), on its port as source or destination.
    Teredo,
}

impl UdpTunnel {
    /// The name of the protocol, as in tshark's `-d` rules and in errors.
    pub fn name(self) -> &'static str {
        match self {
            UdpTunnel::Vxlan => "vxlan",
            UdpTunnel::Geneve => "geneve",
            UdpTunnel::Teredo => "teredo",
        }
    }

    /// The name to show in messages.
    pub fn title(self) -> &'static str {
        match self {
            UdpTunnel::Vxlan => "VXLAN",
            UdpTunnel::Geneve => "Geneve",
            UdpTunnel::Teredo => "Teredo",
        }
    }

    /// The protocol named `s` (`vxlan`, `geneve`, `teredo`, any case), if it is a UDP tunnel.
    pub fn from_name(s: &str) -> Option<UdpTunnel> {
        match s.to_ascii_lowercase().as_str() {
            "vxlan" => Some(UdpTunnel::Vxlan),
            "geneve" => Some(UdpTunnel::Geneve),
            "teredo" => Some(UdpTunnel::Teredo),
            _ => None,
        }
    }
}

/// Which UDP destination ports carry which tunnel: 4789 VXLAN, 6081 Geneve and 3544 Teredo (as
/// source port too), as tshark decodes them, and those of the user's decode-as rules (which may move a tunnel to another port, such as
/// Linux's old VXLAN port 8472, or give a default port to the other tunnel, as `-d` does in tshark).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TunnelPorts {
    ports: Vec<(u16, UdpTunnel)>,
    /// Bit `port % 64` set for each of `ports`: most datagrams (DHCP's, RSerPool's) are told
    /// apart by one test, without the search.
    mask: u64,
}

impl Default for TunnelPorts {
    fn default() -> Self {
        let mut t = TunnelPorts {
            ports: Vec::with_capacity(2),
            mask: 0,
        };
        t.set(VXLAN_PORT, UdpTunnel::Vxlan);
        t.set(GENEVE_PORT, UdpTunnel::Geneve);
        t.set(TEREDO_PORT, UdpTunnel::Teredo);
        t
    }
}

impl TunnelPorts {
    /// `port` carrying `tunnel` (in place of what it carried).
    pub fn set(&mut self, port: u16, tunnel: UdpTunnel) {
        match self.ports.iter_mut().find(|(p, _)| *p == port) {
            Some(entry) => entry.1 = tunnel,
            None => self.ports.push((port, tunnel)),
        }
        self.mask |= 1 << (port % 64);
    }

    /// `port` carrying no tunnel (a decode-as rule gave it to an application protocol).
    pub fn remove(&mut self, port: u16) {
        self.ports.retain(|&(p, _)| p != port);
        self.mask = self.ports.iter().fold(0, |m, &(p, _)| m | 1 << (p % 64));
    }

    /// The tunnel a datagram to `port` carries.
    #[inline]
    pub fn by_port(&self, port: u16) -> Option<UdpTunnel> {
        if self.mask & (1 << (port % 64)) == 0 {
            return None;
        }
        self.ports.iter().find(|(p, _)| *p == port).map(|&(_, t)| t)
    }

    /// The tunnel a datagram from `sport` to `dport` carries: its destination port's, else Teredo
    /// when it comes from Teredo's port (a server's or relay's answer).
    #[inline]
    pub fn by_ports(&self, sport: u16, dport: u16) -> Option<UdpTunnel> {
        self.by_port(dport)
            .or_else(|| self.by_port(sport).filter(|t| *t == UdpTunnel::Teredo))
    }

    /// Every port that carries a tunnel.
    pub fn ports(&self) -> impl Iterator<Item = u16> + '_ {
        self.ports.iter().map(|&(p, _)| p)
    }
}

/// GRE protocol type / Geneve protocol type of an Ethernet frame (transparent Ethernet bridging).
pub const ETHERTYPE_TEB: u16 = 0x6558;
pub const ETHERTYPE_MPLS: u16 = 0x8847;
pub const ETHERTYPE_MPLS_MULTICAST: u16 = 0x8848;
/// Encapsulations nested beyond this are not decoded (an error says so): real networks nest two
/// or three (VXLAN in GRE in IPsec-less IP-in-IP), a crafted packet could nest a thousand.
pub const MAX_ENCAPSULATIONS: u8 = 4;

/// A decoded GRE header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Gre {
    /// What follows, an EtherType.
    pub protocol: u16,
    pub checksum: Option<u16>,
    pub key: Option<u32>,
    pub sequence: Option<u32>,
    /// Where the encapsulated packet starts.
    pub header_len: usize,
}

/// Decodes a GRE header. Version 1 (PPTP's enhanced GRE) and the source routes of RFC 1701 are
/// refused with an error: what they carry is not decoded further.
pub fn parse_gre(data: &[u8]) -> Result<Gre, DecodeError> {
    let Some(h) = data.get(..4) else {
        return Err(DecodeError::truncated(0, "GRE header", 4, data.len()));
    };
    let (flags, version) = (h[0], h[1] & 0x07);
    let protocol = u16::from_be_bytes([h[2], h[3]]);
    if version != 0 {
        let what = if version == 1 {
            "GRE version 1 (PPTP enhanced GRE) is not decoded further".to_string()
        } else {
            format!("GRE version {version} is not defined (0 expected): not decoded further")
        };
        return Err(DecodeError::new(1, what));
    }
    let (c, r, k, s) = (
        flags & 0x80 != 0,
        flags & 0x40 != 0,
        flags & 0x20 != 0,
        flags & 0x10 != 0,
    );
    if r {
        return Err(DecodeError::new(
            0,
            "GRE routing present (RFC 1701 source routes, deprecated by RFC 2784): not decoded further",
        ));
    }
    let needed = 4 + 4 * (usize::from(c) + usize::from(k) + usize::from(s));
    if data.len() < needed {
        return Err(DecodeError::truncated(0, "GRE header", needed, data.len()));
    }
    let word = |at: usize| {
        data.get(at..at + 4)
            .map_or(0, |w| u32::from_be_bytes([w[0], w[1], w[2], w[3]]))
    };
    let mut at = 4;
    let mut field = |present: bool| {
        present.then(|| {
            let v = word(at);
            at += 4;
            v
        })
    };
    let checksum = field(c).map(|w| (w >> 16) as u16);
    let key = field(k);
    let sequence = field(s);
    Ok(Gre {
        protocol,
        checksum,
        key,
        sequence,
        header_len: needed,
    })
}

/// A decoded VXLAN or Geneve header: the network identifier and where the inner packet starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Overlay {
    /// The 24-bit VNI; `None` when VXLAN's I flag says it is not valid.
    pub vni: Option<u32>,
    /// What follows, an EtherType (VXLAN: always Ethernet).
    pub protocol: u16,
    pub header_len: usize,
}

fn vni(b: &[u8]) -> u32 {
    u32::from(b[0]) << 16 | u32::from(b[1]) << 8 | u32::from(b[2])
}

/// Decodes a VXLAN header (8 bytes; the inner packet is an Ethernet frame). A clear I flag is
/// not fatal (the frame is still decoded, as tshark does): the VNI is then taken as absent.
pub fn parse_vxlan(data: &[u8]) -> Result<Overlay, DecodeError> {
    let Some(h) = data.get(..8) else {
        return Err(DecodeError::truncated(0, "VXLAN header", 8, data.len()));
    };
    Ok(Overlay {
        vni: (h[0] & 0x08 != 0).then(|| vni(&h[4..7])),
        protocol: ETHERTYPE_TEB,
        header_len: 8,
    })
}

/// Decodes a Geneve header (8 bytes and its options).
pub fn parse_geneve(data: &[u8]) -> Result<Overlay, DecodeError> {
    let Some(h) = data.get(..8) else {
        return Err(DecodeError::truncated(0, "Geneve header", 8, data.len()));
    };
    let version = h[0] >> 6;
    if version != 0 {
        return Err(DecodeError::new(
            0,
            format!("Geneve version {version} is not defined (0 expected): not decoded further"),
        ));
    }
    let header_len = 8 + usize::from(h[0] & 0x3f) * 4;
    if data.len() < header_len {
        return Err(DecodeError::truncated(
            0,
            "Geneve header with its options",
            header_len,
            data.len(),
        ));
    }
    Ok(Overlay {
        vni: Some(vni(&h[4..7])),
        protocol: u16::from_be_bytes([h[2], h[3]]),
        header_len,
    })
}

/// Finds the IPv6 packet of a Teredo datagram after its optional headers (RFC 4380 5.1.1: the
/// authentication header, `00 01`, then the origin indication, `00 00`). `None` when no IPv6
/// header (version 6, 40 bytes) follows them: the datagram is not Teredo, whatever its port.
pub fn parse_teredo(data: &[u8]) -> Option<Overlay> {
    let mut at = 0;
    if data.get(..2) == Some(&[0, 1]) {
        // Client identifier and authentication value lengths; the nonce (8) and confirmation (1).
        let (id, au) = (usize::from(*data.get(2)?), usize::from(*data.get(3)?));
        at = 4 + id + au + 9;
    }
    if data.get(at..at + 2) == Some(&[0, 0]) {
        at += 8;
    }
    let ipv6 = data.get(at..at.checked_add(40)?)?;
    (ipv6[0] >> 4 == 6).then_some(Overlay {
        vni: None,
        protocol: crate::dissect::link::ETHERTYPE_IPV6,
        header_len: at,
    })
}

/// Walks an MPLS label stack to its bottom; returns where the payload starts and the labels.
pub fn parse_mpls(data: &[u8]) -> Result<(usize, u32), DecodeError> {
    let mut at = 0;
    let mut labels = 0u32;
    loop {
        let Some(e) = data.get(at..at + 4) else {
            let what = if at == 0 {
                "MPLS label stack entry"
            } else {
                "MPLS label stack entry (no bottom of stack before it)"
            };
            return Err(DecodeError::truncated(
                at,
                what,
                4,
                data.len().saturating_sub(at),
            ));
        };
        labels += 1;
        at += 4;
        if e[2] & 0x01 != 0 {
            return Ok((at, labels));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gre_flags_give_the_header_length() {
        assert_eq!(
            parse_gre(&[0, 0, 0x08, 0x00]).unwrap(),
            Gre {
                protocol: 0x0800,
                checksum: None,
                key: None,
                sequence: None,
                header_len: 4
            }
        );
        let all = [
            0xb0, 0, 0x65, 0x58, 0xab, 0xcd, 0, 0, 0, 0, 0, 7, 0, 0, 1, 0,
        ];
        let g = parse_gre(&all).unwrap();
        assert_eq!(
            (g.protocol, g.checksum, g.key, g.sequence, g.header_len),
            (0x6558, Some(0xabcd), Some(7), Some(256), 16)
        );
        // Key only: the key is the first optional word.
        let g = parse_gre(&[0x20, 0, 0x86, 0xdd, 0, 0, 0, 9]).unwrap();
        assert_eq!((g.key, g.header_len), (Some(9), 8));
    }

    #[test]
    fn gre_truncated_with_the_key_flag_and_other_versions_are_errors() {
        let e = parse_gre(&[0x20, 0, 0x08, 0x00, 0, 0]).unwrap_err();
        assert_eq!(e.offset, 0);
        assert!(e.what.contains("needs 8 bytes, only 6 left"), "{}", e.what);
        assert!(parse_gre(&[0, 0, 8]).unwrap_err().what.contains("needs 4"));
        let e = parse_gre(&[0x30, 0x01, 0x88, 0x0b, 0, 0, 0, 0, 0, 0, 0, 0]).unwrap_err();
        assert_eq!(e.offset, 1);
        assert!(e.what.contains("version 1 (PPTP"), "{}", e.what);
        assert!(parse_gre(&[0, 0x05, 8, 0])
            .unwrap_err()
            .what
            .contains("version 5"));
        assert!(parse_gre(&[0x40, 0, 8, 0, 0, 0, 0, 0])
            .unwrap_err()
            .what
            .contains("routing"));
    }

    #[test]
    fn teredo_headers_before_ipv6() {
        let mut ipv6 = vec![0x60, 0, 0, 0, 0, 0, 59, 21];
        ipv6.extend_from_slice(&[0; 32]);
        assert_eq!(parse_teredo(&ipv6).map(|o| o.header_len), Some(0));
        // Origin indication, then the packet.
        let mut origin = vec![0, 0, 0xf3, 0xfd, 1, 2, 3, 4];
        origin.extend_from_slice(&ipv6);
        assert_eq!(parse_teredo(&origin).map(|o| o.header_len), Some(8));
        // Authentication (client id of 2 bytes, no value), origin indication, the packet.
        let mut auth = vec![0, 1, 2, 0, 9, 9];
        auth.extend_from_slice(&[0; 9]);
        auth.extend_from_slice(&origin);
        let o = parse_teredo(&auth).expect("teredo");
        assert_eq!((o.header_len, o.protocol, o.vni), (23, 0x86dd, None));
        // Not IPv6, or too short to be: not Teredo.
        assert_eq!(parse_teredo(&[0x45; 40]), None);
        assert_eq!(parse_teredo(&ipv6[..39]), None);
        for cut in 0..auth.len() {
            assert!(parse_teredo(&auth[..cut]).is_none_or(|o| o.header_len <= cut));
        }
    }

    #[test]
    fn vxlan_i_flag_and_length() {
        let o = parse_vxlan(&[0x08, 0, 0, 0, 0x12, 0x34, 0x56, 0]).unwrap();
        assert_eq!(
            (o.vni, o.protocol, o.header_len),
            (Some(0x123456), 0x6558, 8)
        );
        assert_eq!(
            parse_vxlan(&[0, 0, 0, 0, 0x12, 0x34, 0x56, 0]).unwrap().vni,
            None
        );
        assert!(parse_vxlan(&[0x08; 7])
            .unwrap_err()
            .what
            .contains("needs 8"));
    }

    #[test]
    fn geneve_options_and_version() {
        let mut h = vec![0x01, 0, 0x08, 0x00, 0, 0, 5, 0, 1, 2, 3, 4];
        let o = parse_geneve(&h).unwrap();
        assert_eq!((o.vni, o.protocol, o.header_len), (Some(5), 0x0800, 12));
        h.pop();
        assert!(parse_geneve(&h).unwrap_err().what.contains("needs 12"));
        assert!(parse_geneve(&[0x40, 0, 8, 0, 0, 0, 0, 0])
            .unwrap_err()
            .what
            .contains("version 1"));
    }

    #[test]
    fn mpls_walks_to_the_bottom_of_the_stack() {
        let two = [0, 0x01, 0x40, 0x40, 0, 0x02, 0x01, 0x40, 0x45];
        assert_eq!(parse_mpls(&two).unwrap(), (8, 2));
        let e = parse_mpls(&two[..6]).unwrap_err();
        assert_eq!(e.offset, 4);
        assert!(e.what.contains("no bottom of stack"), "{}", e.what);
        assert_eq!(parse_mpls(&[]).unwrap_err().offset, 0);
    }

    /// Through the dissector: what each decapsulator makes of broken or deep input.
    mod dissected {
        use super::super::{TunnelPorts, UdpTunnel, GENEVE_PORT, VXLAN_PORT};
        use crate::base::{linktype, Timestamp};
        use crate::dissect::{Address, Dissector, FrameSummary, Limits, OuterLayer, Payload};
        use crate::generate::ip::{fragment_ipv4, pseudo_header_sum, Ipv4Header};
        use crate::generate::link::{ethernet, VlanTag};
        use crate::generate::transport::udp;
        use crate::generate::tunnel::{encapsulate, Layer};
        use crate::source::Frame;
        use std::net::Ipv4Addr;

        const A: Ipv4Addr = Ipv4Addr::new(10, 0, 0, 1);
        const B: Ipv4Addr = Ipv4Addr::new(10, 0, 0, 2);

        fn ipv4(protocol: u8, payload: &[u8]) -> Vec<u8> {
            let mut p = Vec::new();
            let mut h = Ipv4Header::new(A, B, protocol);
            h.id = 0x1234;
            h.emit(&mut p, payload.len());
            p.extend_from_slice(payload);
            p
        }

        fn eth(ip: &[u8]) -> Vec<u8> {
            let mut f = Vec::new();
            ethernet(&mut f, [2; 6], [4; 6], &[], 0x0800);
            f.extend_from_slice(ip);
            f
        }

        fn udp_packet(payload: &[u8]) -> Vec<u8> {
            let mut u = Vec::new();
            let pseudo = pseudo_header_sum(&A.octets(), &B.octets(), 17, 8 + payload.len());
            udp(&mut u, 3863, 3863, payload, pseudo);
            ipv4(17, &u)
        }

        /// Each frame's summary, and every payload as (frame, data, reassembled_from).
        #[allow(clippy::type_complexity)]
        fn run(frames: &[Vec<u8>]) -> (Vec<FrameSummary>, Vec<(u64, Vec<u8>, Vec<u64>)>) {
            run_with(frames, TunnelPorts::default())
        }

        /// [`run`] with VXLAN and Geneve on `tunnels`.
        #[allow(clippy::type_complexity)]
        fn run_with(
            frames: &[Vec<u8>],
            tunnels: TunnelPorts,
        ) -> (Vec<FrameSummary>, Vec<(u64, Vec<u8>, Vec<u64>)>) {
            let mut d = Dissector::new(Limits::default()).with_tunnels(tunnels);
            let mut payloads = Vec::new();
            let summaries = frames
                .iter()
                .enumerate()
                .map(|(i, f)| {
                    let frame = Frame {
                        number: i as u64 + 1,
                        ts: Timestamp::new(0, 0),
                        ts_digits: 6,
                        linktype: linktype::ETHERNET,
                        orig_len: f.len() as u32,
                        interface: 0,
                        data: f,
                        pcapng: None,
                    };
                    d.dissect(&frame, &mut |p: &Payload<'_>| {
                        payloads.push((frame.number, p.data.to_vec(), p.reassembled_from.clone()))
                    })
                })
                .collect();
            (summaries, payloads)
        }

        fn wrapped(layers: &[Layer], packet: &[u8]) -> Vec<u8> {
            let mut frames = encapsulate(linktype::ETHERNET, &eth(packet), layers, None).unwrap();
            assert_eq!(frames.len(), 1);
            frames.remove(0)
        }

        /// Every layer, alone and nested, yields the inner datagram again.
        #[test]
        fn every_layer_decodes_back_to_the_inner_datagram() {
            let gre = |ethernet, v6| Layer::Gre {
                v6,
                key: Some(77),
                sequence: Some(1),
                checksum: true,
                ethernet,
                vlans: vec![VlanTag::dot1q(5)],
            };
            let cases: Vec<Vec<Layer>> = vec![
                vec![Layer::IpInIp { v6: false }],
                vec![Layer::IpInIp { v6: true }],
                vec![gre(false, false)],
                vec![gre(true, true)],
                vec![Layer::Vxlan {
                    v6: false,
                    vni: 42,
                    port: VXLAN_PORT,
                }],
                vec![Layer::Geneve {
                    v6: true,
                    vni: 9,
                    port: GENEVE_PORT,
                }],
                vec![Layer::Mpls {
                    labels: vec![16, 17],
                }],
                vec![
                    Layer::Mpls { labels: vec![16] },
                    gre(false, false),
                    Layer::Vxlan {
                        v6: false,
                        vni: 42,
                        port: VXLAN_PORT,
                    },
                    Layer::IpInIp { v6: true },
                ],
            ];
            for layers in cases {
                let (s, p) = run(&[wrapped(&layers, &udp_packet(b"hello"))]);
                assert!(s[0].errors.is_empty(), "{layers:?}: {:?}", s[0].errors);
                assert_eq!(p.len(), 1, "{layers:?}");
                assert_eq!(p[0].1, b"hello", "{layers:?}");
            }
            // Outer fragments: reassembled before decapsulation.
            let frames = encapsulate(
                linktype::ETHERNET,
                &eth(&udp_packet(b"hello")),
                &[Layer::Vxlan {
                    v6: false,
                    vni: 1,
                    port: VXLAN_PORT,
                }],
                Some(24),
            )
            .unwrap();
            assert!(frames.len() > 2);
            let (_, p) = run(&frames);
            assert_eq!(p.len(), 1);
            assert_eq!(p[0].2, (1..=frames.len() as u64).collect::<Vec<_>>());
        }

        #[test]
        fn four_encapsulations_decode_a_fifth_is_an_error_at_its_header() {
            let four = vec![Layer::IpInIp { v6: false }; 4];
            let (s, p) = run(&[wrapped(&four, &udp_packet(b"x"))]);
            assert!(s[0].errors.is_empty(), "{:?}", s[0].errors);
            assert_eq!(p.len(), 1);
            assert_eq!(s[0].outer.len(), 4);
            let five = vec![Layer::IpInIp { v6: false }; 5];
            let (s, p) = run(&[wrapped(&five, &udp_packet(b"x"))]);
            assert!(p.is_empty());
            assert_eq!(s[0].errors.len(), 1);
            // The fifth tunnel's inner header: Ethernet and four outer IPv4 headers before it.
            assert_eq!(s[0].errors[0].offset, 14 + 4 * 20 + 20);
            assert!(
                s[0].errors[0].what.contains("nested in 4 encapsulations"),
                "{}",
                s[0].errors[0].what
            );
        }

        #[test]
        fn gre_errors_point_into_the_frame() {
            // Key flag set, header cut after 6 bytes.
            let (s, p) = run(&[eth(&ipv4(47, &[0x20, 0, 0x08, 0x00, 0, 0]))]);
            assert!(p.is_empty());
            assert_eq!(s[0].protocol, "GRE");
            assert_eq!(s[0].errors[0].offset, 34);
            assert!(s[0].errors[0].what.contains("needs 8 bytes, only 6"));
            // Version 1: not decoded, said so at the version byte.
            let mut pptp = vec![0x30, 0x81, 0x88, 0x0b, 0, 4, 0, 1, 0, 0, 0, 1];
            pptp.extend_from_slice(&[0xff, 0x03, 0, 0x21]);
            let (s, p) = run(&[eth(&ipv4(47, &pptp))]);
            assert!(p.is_empty());
            assert_eq!(s[0].errors[0].offset, 35);
            assert!(s[0].errors[0].what.contains("PPTP"));
            // An unknown protocol type is not an error.
            let (s, p) = run(&[eth(&ipv4(47, &[0, 0, 0x12, 0x34, 1, 2]))]);
            assert!(p.is_empty() && s[0].errors.is_empty());
            assert_eq!(s[0].info, "GRE protocol type 0x1234 (not decoded)");
        }

        /// A tunnel on a port of its own is decoded only when that port is given to it (as a
        /// decode-as rule does), by the dissector and by the layers' decoder alike; a port given
        /// to the other tunnel is decoded as that one.
        #[test]
        fn tunnels_on_other_ports_are_decoded_where_the_rules_put_them() {
            let vxlan = wrapped(
                &[Layer::Vxlan {
                    v6: false,
                    vni: 9,
                    port: 8472,
                }],
                &udp_packet(b"x"),
            );
            let geneve = wrapped(
                &[Layer::Geneve {
                    v6: false,
                    vni: 9,
                    port: VXLAN_PORT,
                }],
                &udp_packet(b"x"),
            );
            let values = |f: &[u8], t: &TunnelPorts| {
                crate::dissect::layers::decode_values(linktype::ETHERNET, f, t)
                    .protocols
                    .join(":")
            };
            // By default: 8472 is a UDP port like any other, whose payload is handed on whole
            // (the VXLAN header first); 4789 is VXLAN's, and a Geneve header there is not one.
            let (s, p) = run(std::slice::from_ref(&vxlan));
            assert!(s[0].errors.is_empty(), "{:?}", s[0].errors);
            assert_eq!(p.len(), 1);
            assert_eq!(p[0].1[0], 0x08, "the VXLAN flags");
            assert_eq!(s[0].dst_port, Some(8472));
            let defaults = TunnelPorts::default();
            assert_eq!(values(&vxlan, &defaults), "eth:ethertype:ip:udp");
            let (_, p) = run(std::slice::from_ref(&geneve));
            assert!(p.iter().all(|(_, d, _)| d != b"x"));

            let mut ports = TunnelPorts::default();
            ports.set(8472, UdpTunnel::Vxlan);
            ports.set(VXLAN_PORT, UdpTunnel::Geneve);
            for f in [&vxlan, &geneve] {
                let (s, p) = run_with(std::slice::from_ref(f), ports.clone());
                assert!(s[0].errors.is_empty(), "{:?}", s[0].errors);
                assert_eq!(p.len(), 1);
                assert_eq!(p[0].1, b"x");
                assert_eq!(s[0].dst_port, Some(3863), "the inner datagram's");
            }
            assert_eq!(
                values(&vxlan, &ports),
                "eth:ethertype:ip:udp:vxlan:eth:ethertype:ip:udp"
            );
            assert_eq!(
                values(&geneve, &ports),
                "eth:ethertype:ip:udp:geneve:eth:ethertype:ip:udp"
            );
        }

        #[test]
        fn vxlan_without_the_i_flag_is_decoded_with_an_error_and_no_vni() {
            let mut f = wrapped(
                &[Layer::Vxlan {
                    v6: false,
                    vni: 9,
                    port: VXLAN_PORT,
                }],
                &udp_packet(b"x"),
            );
            // Ethernet, IPv4, UDP: the VXLAN flags byte.
            assert_eq!(f[42], 0x08);
            f[42] = 0;
            let (s, p) = run(&[f]);
            assert_eq!(p.len(), 1);
            assert_eq!(s[0].errors.len(), 1);
            assert_eq!(s[0].errors[0].offset, 42);
            assert!(s[0].errors[0].what.contains("I flag"));
        }

        #[test]
        fn the_summary_shows_the_inner_packet_and_keeps_the_outer_layers() {
            let (s, _) = run(&[wrapped(
                &[Layer::Vxlan {
                    v6: false,
                    vni: 9,
                    port: VXLAN_PORT,
                }],
                &udp_packet(b"x"),
            )]);
            let s = &s[0];
            assert_eq!(s.src, Some(Address::Ip(A.into())));
            assert_eq!(
                (s.protocol, s.src_port, s.dst_port),
                ("UDP", Some(3863), Some(3863))
            );
            let o: &OuterLayer = &s.outer.as_slice()[0];
            assert_eq!(o.src, Ipv4Addr::new(198, 51, 100, 1));
            assert_eq!(o.udp.map(|u| u.1), Some(4789));
        }

        /// The same fragment (addresses, protocol, id) in two VNIs belongs to two datagrams: the
        /// second VNI's first fragment does not complete, nor overlap, the first VNI's datagram.
        #[test]
        fn fragments_of_two_vnis_are_two_datagrams() {
            let ones = fragment_ipv4(&udp_packet(&[1; 40]), 24);
            let twos = fragment_ipv4(&udp_packet(&[2; 40]), 24);
            let vxlan = |vni, f: &Vec<u8>| {
                wrapped(
                    &[Layer::Vxlan {
                        v6: false,
                        vni,
                        port: VXLAN_PORT,
                    }],
                    f,
                )
            };
            let frames = [vxlan(1, &ones[0]), vxlan(2, &twos[0]), vxlan(1, &ones[1])];
            let (s, p) = run(&frames);
            assert!(s.iter().all(|s| s.errors.is_empty()), "no overlap");
            assert_eq!(p.len(), 1);
            assert_eq!(
                (p[0].0, &p[0].1[..], p[0].2.clone()),
                (3, &[1u8; 40][..], vec![1, 3])
            );
        }

        /// Inner fragments, each in its own VXLAN frame, are reassembled after decapsulation.
        #[test]
        fn inner_fragments_are_reassembled_after_decapsulation() {
            let whole = udp_packet(&[7; 100]);
            let frames: Vec<Vec<u8>> = fragment_ipv4(&whole, 48)
                .iter()
                .map(|f| {
                    wrapped(
                        &[Layer::Vxlan {
                            v6: false,
                            vni: 3,
                            port: VXLAN_PORT,
                        }],
                        f,
                    )
                })
                .collect();
            assert_eq!(frames.len(), 3);
            let (s, p) = run(&frames);
            assert!(s.iter().all(|s| s.errors.is_empty()));
            assert_eq!(p.len(), 1);
            assert_eq!(
                (p[0].0, p[0].1.len(), p[0].2.clone()),
                (3, 100, vec![1, 2, 3])
            );
        }
    }
}
