//! Through the dissector: what each decapsulator ([`crate::wire::gre`], [`crate::wire::vxlan`],
//! ...) makes of broken or deep input.

use crate::base::{linktype, Timestamp};
use crate::dissect::{Address, Dissector, FrameSummary, Limits, OuterLayer, Payload};
use crate::generate::ip::fragment_ipv4;
use crate::generate::tunnel::{encapsulate, Layer};
use crate::source::Frame;
use crate::wire::ethernet::emit as ethernet;
use crate::wire::ip::pseudo_header_sum;
use crate::wire::ipv4::Ipv4Header;
use crate::wire::tunnel::{TunnelPorts, UdpTunnel, GENEVE_PORT, VXLAN_PORT};
use crate::wire::udp::emit as udp;
use crate::wire::vlan::VlanTag;
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
