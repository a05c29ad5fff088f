//! Where DHCP messages travel: broadcast and unicast on the servers' link, through relay agents
//! (one copy to each server), DHCPv6 multicast and relay layers, and the servers' answers back.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};

use crate::analyse::dhcp_lb::Role;
use crate::dissect::dispatch::port;
use crate::generate::scenario::batch::Batch;
use crate::generate::scenario::net::{udp_frame, udp_frame_with};
use crate::proto::dhcpv6::ClientMessage;
use crate::proto::{dhcpv4, dhcpv6};

use super::decide::role_index;
use super::{v6, DhcpScenario, Path4, Path6, ALL_DHCP};

impl DhcpScenario {
    /// A client message to the servers in `to` (index by role).
    pub(super) fn send4(
        &mut self,
        c: usize,
        m: &dhcpv4::Message<'_>,
        path: Path4,
        to: [bool; 2],
        out: &mut Batch,
    ) {
        self.request_at = out.pushed();
        let bytes = m.emit();
        let client = &self.clients[c];
        match path {
            Path4::Broadcast(src) => {
                let f = udp_frame_with(
                    &mut self.buf,
                    client.mac,
                    SocketAddr::new(IpAddr::V4(src), port::DHCPV4_CLIENT),
                    SocketAddr::new(IpAddr::V4(Ipv4Addr::BROADCAST), port::DHCPV4_SERVER),
                    &bytes,
                );
                out.push(f);
            }
            Path4::Relayed(r) => {
                for s in &self.servers {
                    if to[role_index(s.role)] {
                        let f = udp_frame(
                            &mut self.buf,
                            SocketAddr::new(IpAddr::V4(r.giaddr), port::DHCPV4_SERVER),
                            SocketAddr::new(IpAddr::V4(s.v4), port::DHCPV4_SERVER),
                            &bytes,
                        );
                        out.push(f);
                    }
                }
            }
            Path4::Unicast(src) => {
                for s in &self.servers {
                    if to[role_index(s.role)] {
                        let f = udp_frame_with(
                            &mut self.buf,
                            client.mac,
                            SocketAddr::new(IpAddr::V4(src), port::DHCPV4_CLIENT),
                            SocketAddr::new(IpAddr::V4(s.v4), port::DHCPV4_SERVER),
                            &bytes,
                        );
                        out.push(f);
                    }
                }
            }
        }
    }

    /// A server's answer back along `path`.
    pub(super) fn reply4(
        &mut self,
        role: Role,
        m: &dhcpv4::Message<'_>,
        path: Path4,
        out: &mut Batch,
    ) {
        let bytes = m.emit();
        let s = &self.servers[role_index(role)];
        let from = SocketAddr::new(IpAddr::V4(s.v4), port::DHCPV4_SERVER);
        let to = match path {
            Path4::Relayed(r) => SocketAddr::new(IpAddr::V4(r.giaddr), port::DHCPV4_SERVER),
            Path4::Unicast(a) => SocketAddr::new(IpAddr::V4(a), port::DHCPV4_CLIENT),
            Path4::Broadcast(_) => {
                let dst =
                    if m.broadcast() || (m.yiaddr.is_unspecified() && m.ciaddr.is_unspecified()) {
                        Ipv4Addr::BROADCAST
                    } else if !m.ciaddr.is_unspecified() {
                        m.ciaddr
                    } else {
                        m.yiaddr
                    };
                SocketAddr::new(IpAddr::V4(dst), port::DHCPV4_CLIENT)
            }
        };
        let f = udp_frame(&mut self.buf, from, to, &bytes);
        out.push(f);
    }

    pub(super) fn send6(
        &mut self,
        c: usize,
        inner: ClientMessage<'static>,
        path: Path6,
        to: [bool; 2],
        out: &mut Batch,
    ) {
        self.request_at = out.pushed();
        let client = &self.clients[c];
        match path {
            Path6::Multicast => {
                let bytes = dhcpv6::Message::client(inner).emit();
                let f = udp_frame_with(
                    &mut self.buf,
                    client.mac,
                    SocketAddr::new(IpAddr::V6(client.link_local()), port::DHCPV6_CLIENT),
                    SocketAddr::new(IpAddr::V6(ALL_DHCP), port::DHCPV6_SERVER),
                    &bytes,
                );
                out.push(f);
            }
            Path6::Relayed { relay, outer } => {
                let m = v6::relayed(dhcpv6::Message::client(inner), client, relay, outer, true);
                let bytes = m.emit();
                let src = outer.unwrap_or(relay);
                for s in &self.servers {
                    if to[role_index(s.role)] {
                        let f = udp_frame(
                            &mut self.buf,
                            SocketAddr::new(IpAddr::V6(src), port::DHCPV6_SERVER),
                            SocketAddr::new(IpAddr::V6(s.v6), port::DHCPV6_SERVER),
                            &bytes,
                        );
                        out.push(f);
                    }
                }
            }
        }
    }

    pub(super) fn reply6(
        &mut self,
        c: usize,
        role: Role,
        inner: ClientMessage<'static>,
        path: Path6,
        out: &mut Batch,
    ) {
        let client = &self.clients[c];
        let s = &self.servers[role_index(role)];
        let from = SocketAddr::new(IpAddr::V6(s.v6), port::DHCPV6_SERVER);
        let (bytes, to) = match path {
            Path6::Multicast => (
                dhcpv6::Message::client(inner).emit(),
                SocketAddr::new(IpAddr::V6(client.link_local()), port::DHCPV6_CLIENT),
            ),
            Path6::Relayed { relay, outer } => (
                v6::relayed(dhcpv6::Message::client(inner), client, relay, outer, false).emit(),
                SocketAddr::new(IpAddr::V6(outer.unwrap_or(relay)), port::DHCPV6_SERVER),
            ),
        };
        let f = udp_frame(&mut self.buf, from, to, &bytes);
        out.push(f);
    }
}
