//! Addresses for generated hosts: Ethernet addresses that follow from IP addresses (so that every
//! host keeps one MAC across flows), multicast and broadcast mapping, and one-shot UDP frames.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

use crate::generate::{Ip, Link, Packet};

/// The Ethernet address of `ip`: the IP multicast mappings (RFC 1112, RFC 2464), all ones for
/// the IPv4 broadcast, else a locally administered address ending in the last four bytes of the
/// IP address.
pub fn mac_of(ip: IpAddr) -> [u8; 6] {
    match ip {
        IpAddr::V4(a) if a == Ipv4Addr::BROADCAST => [0xff; 6],
        IpAddr::V4(a) if a.is_multicast() => {
            let o = a.octets();
            [0x01, 0x00, 0x5e, o[1] & 0x7f, o[2], o[3]]
        }
        IpAddr::V6(a) if a.is_multicast() => {
            let o = a.octets();
            [0x33, 0x33, o[12], o[13], o[14], o[15]]
        }
        IpAddr::V4(a) => {
            let o = a.octets();
            [0x02, 0x00, o[0], o[1], o[2], o[3]]
        }
        IpAddr::V6(a) => {
            let o = a.octets();
            [0x02, 0x06, o[12], o[13], o[14], o[15]]
        }
    }
}

/// Ethernet from `src` to `dst` by their IP addresses.
pub fn ethernet(src: IpAddr, dst: IpAddr) -> Link {
    Link::Ethernet {
        src: mac_of(src),
        dst: mac_of(dst),
        vlans: Vec::new(),
    }
}

/// The IP layer between two addresses of one family (an IPv4 address meets an IPv6 one through
/// its mapped form).
pub fn ip_between(src: IpAddr, dst: IpAddr) -> Ip {
    match (src, dst) {
        (IpAddr::V4(s), IpAddr::V4(d)) => Ip::v4(s, d),
        (s, d) => Ip::v6(to_v6(s), to_v6(d)),
    }
}

fn to_v6(a: IpAddr) -> Ipv6Addr {
    match a {
        IpAddr::V4(v4) => v4.to_ipv6_mapped(),
        IpAddr::V6(v6) => v6,
    }
}

/// A UDP datagram from `src` to `dst` as a whole Ethernet frame, built into `buf`.
pub fn udp_frame<'b>(
    buf: &'b mut Vec<u8>,
    src: SocketAddr,
    dst: SocketAddr,
    payload: &[u8],
) -> &'b [u8] {
    udp_frame_with(buf, mac_of(src.ip()), src, dst, payload)
}

/// A UDP frame whose sender uses `src_mac` (a DHCP client without an address yet sends from
/// 0.0.0.0 with its own hardware address).
pub fn udp_frame_with<'b>(
    buf: &'b mut Vec<u8>,
    src_mac: [u8; 6],
    src: SocketAddr,
    dst: SocketAddr,
    payload: &[u8],
) -> &'b [u8] {
    let p = Packet {
        link: Link::Ethernet {
            src: src_mac,
            dst: mac_of(dst.ip()),
            vlans: Vec::new(),
        },
        ip: ip_between(src.ip(), dst.ip()),
        transport: crate::generate::Transport::Udp {
            sport: src.port(),
            dport: dst.port(),
        },
        payload,
    };
    p.frame(buf)
}

/// `base` plus `n` (wrapping within the address).
pub fn v4_plus(base: Ipv4Addr, n: u32) -> Ipv4Addr {
    Ipv4Addr::from(u32::from(base).wrapping_add(n))
}

/// `base` plus `n` in the last 64 bits.
pub fn v6_plus(base: Ipv6Addr, n: u64) -> Ipv6Addr {
    Ipv6Addr::from(u128::from(base).wrapping_add(u128::from(n)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn multicast_and_broadcast_map_as_the_rfcs_say() {
        // RFC 1112: 239.0.0.50 -> 01:00:5e:00:00:32; RFC 2464: ff02::1:2 -> 33:33:00:01:00:02.
        assert_eq!(
            mac_of("239.0.0.50".parse().unwrap()),
            [0x01, 0x00, 0x5e, 0, 0, 0x32]
        );
        assert_eq!(
            mac_of("239.128.0.1".parse().unwrap()),
            [0x01, 0x00, 0x5e, 0, 0, 1]
        );
        assert_eq!(
            mac_of("ff02::1:2".parse().unwrap()),
            [0x33, 0x33, 0, 1, 0, 2]
        );
        assert_eq!(mac_of("255.255.255.255".parse().unwrap()), [0xff; 6]);
        assert_eq!(mac_of("192.0.2.7".parse().unwrap()), [2, 0, 192, 0, 2, 7]);
    }
}
