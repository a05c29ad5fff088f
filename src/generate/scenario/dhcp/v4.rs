//! DHCPv4 messages as clients, relay agents and the two servers send them.

use std::borrow::Cow;
use std::net::Ipv4Addr;

use crate::proto::dhcpv4::{code, message_type as t, Message, Opt, OptValue, SubOpt};

use super::clients::Client;

/// Lease time the servers give, seconds.
pub const LEASE_SECS: u32 = 3600;

/// What a relay agent adds to a client's message.
#[derive(Clone, Copy, Debug)]
pub struct RelayInfo {
    pub giaddr: Ipv4Addr,
    pub agent: usize,
}

/// A client message of type `ty`; relayed ones carry the relay's giaddr, hop count and option 82.
pub fn client_message(
    c: &Client,
    ty: u8,
    xid: u32,
    secs: u16,
    relay: Option<RelayInfo>,
    broadcast: bool,
    extra: Vec<Opt<'static>>,
) -> Message<'static> {
    let mut m = Message::request(ty, xid, c.mac).with_secs(secs);
    if broadcast {
        m = m.with_broadcast();
    }
    if let Some(id) = &c.client_id {
        m = m.with(Opt::new(
            code::CLIENT_ID,
            OptValue::ClientId(Cow::Owned(id.clone())),
        ));
    }
    for o in extra {
        m = m.with(o);
    }
    if ty != t::RELEASE && ty != t::DECLINE {
        m = m
            .with(Opt::new(code::MAX_MESSAGE_SIZE, OptValue::U16(1500)))
            .with(Opt::parameter_request_list(&[1, 3, 6, 15, 51, 58, 59]))
            .with(Opt::text(code::HOST_NAME, &format!("host-{}", c.index)));
    }
    if let Some(r) = relay {
        m = m
            .with_giaddr(r.giaddr)
            .with_hops(1)
            .with(Opt::relay_agent_info(vec![
                SubOpt::new(1, format!("eth0/{}", r.agent).into_bytes()),
                SubOpt::new(2, c.mac.to_vec()),
            ]));
    }
    m.padded_to(300)
}

/// OFFER or ACK of `yiaddr` (`None`: the ACK of an INFORM, no lease) from `server`.
pub fn server_reply(
    c: &Client,
    ty: u8,
    request: &Message<'_>,
    server: Ipv4Addr,
    yiaddr: Option<Ipv4Addr>,
) -> Message<'static> {
    let mut m = Message::reply(ty, request.xid, c.mac)
        .with_giaddr(request.giaddr)
        .with_ciaddr(request.ciaddr)
        .with(Opt::server_identifier(server));
    m.flags = request.flags;
    m.hops = request.hops;
    if let Some(a) = yiaddr {
        m = m
            .with_yiaddr(a)
            .with(Opt::lease_time(LEASE_SECS))
            .with(Opt::new(code::RENEWAL_TIME, OptValue::U32(LEASE_SECS / 2)))
            .with(Opt::new(
                code::REBINDING_TIME,
                OptValue::U32(LEASE_SECS * 7 / 8),
            ));
    }
    let router = yiaddr.map_or(server, |a| Ipv4Addr::from(u32::from(a) & 0xffff_ff00 | 1));
    m = m
        .with(Opt::new(
            code::SUBNET_MASK,
            OptValue::Addr(Ipv4Addr::new(255, 255, 255, 0)),
        ))
        .with(Opt::new(code::ROUTER, OptValue::Addrs(vec![router])))
        .with(Opt::new(
            code::DOMAIN_NAME_SERVER,
            OptValue::Addrs(vec![Ipv4Addr::new(192, 0, 2, 53)]),
        ));
    // RFC 6842: the client identifier comes back.
    if let Some(id) = &c.client_id {
        m = m.with(Opt::new(
            code::CLIENT_ID,
            OptValue::ClientId(Cow::Owned(id.clone())),
        ));
    }
    if let Some(o) = request.option(code::RELAY_AGENT_INFO) {
        m = m.with(o.clone().into_owned());
    }
    m.padded_to(300)
}

/// A relay agent's LEASEQUERY for `addr` (RFC 4388 query by IP address).
pub fn leasequery(xid: u32, addr: Ipv4Addr, relay: RelayInfo) -> Message<'static> {
    let mut m = Message::request(t::LEASEQUERY, xid, [0; 6])
        .with_ciaddr(addr)
        .with_giaddr(relay.giaddr)
        .with(Opt::parameter_request_list(&[51, 61, 91]));
    m.htype = 0;
    m.hlen = 0;
    m.padded_to(300)
}

/// A server's LEASEACTIVE for `c`'s lease on `addr`.
pub fn lease_active(
    c: &Client,
    query: &Message<'_>,
    server: Ipv4Addr,
    addr: Ipv4Addr,
    cltt: u32,
) -> Message<'static> {
    let mut m = Message::reply(t::LEASEACTIVE, query.xid, c.mac)
        .with_ciaddr(addr)
        .with_giaddr(query.giaddr)
        .with(Opt::server_identifier(server))
        .with(Opt::lease_time(LEASE_SECS / 2))
        .with(Opt::new(
            code::CLIENT_LAST_TRANSACTION_TIME,
            OptValue::U32(cltt),
        ));
    if let Some(id) = &c.client_id {
        m = m.with(Opt::new(
            code::CLIENT_ID,
            OptValue::ClientId(Cow::Owned(id.clone())),
        ));
    }
    m.padded_to(300)
}
