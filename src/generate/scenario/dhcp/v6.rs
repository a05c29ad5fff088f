//! DHCPv6 messages as clients, relay agents, leasequery requestors and the two servers send them.

use std::net::Ipv6Addr;

use crate::proto::dhcpv4;
use crate::proto::dhcpv6::{
    code, msg_type as t, ClientMessage, Duid, Message, Opt, QUERY_BY_ADDRESS, QUERY_BY_CLIENTID,
};

use super::clients::Client;

/// Preferred and valid lifetimes the servers give, seconds.
pub const PREFERRED: u32 = 1800;
pub const VALID: u32 = 3600;

/// The client's IA_NA identifier.
fn iaid(c: &Client) -> u32 {
    c.index as u32 + 1
}

/// A client message; `server` names a server (its DUID), `addr` fills the IA_NA, `elapsed` in
/// hundredths of a second.
pub fn client_message(
    c: &Client,
    ty: u8,
    xid: u32,
    elapsed: u16,
    server: Option<&Duid<'static>>,
    addr: Option<Ipv6Addr>,
    with_client_id: bool,
) -> ClientMessage<'static> {
    let mut opts = Vec::with_capacity(6);
    if with_client_id {
        opts.push(Opt::client_id(c.duid.clone()));
    }
    if let Some(s) = server {
        opts.push(Opt::server_id(s.clone()));
    }
    opts.push(Opt::elapsed_time(elapsed));
    if ty != t::INFORMATION_REQUEST {
        let inner = addr
            .map(|a| vec![Opt::iaaddr(a, 0, 0, Vec::new())])
            .unwrap_or_default();
        opts.push(Opt::ia_na(iaid(c), 0, 0, inner));
    }
    if matches!(
        ty,
        t::SOLICIT | t::REQUEST | t::RENEW | t::REBIND | t::INFORMATION_REQUEST
    ) {
        opts.push(Opt::oro(&[code::DNS_SERVERS, code::DOMAIN_LIST]));
    }
    ClientMessage::new(ty, xid & 0x00ff_ffff, opts)
}

/// A server's ADVERTISE or REPLY to `request`: the lease on `addr` when given, a status when
/// given, the DNS configuration.
pub fn server_reply(
    ty: u8,
    request: &ClientMessage<'_>,
    server: &Duid<'static>,
    addr: Option<(u32, Ipv6Addr)>,
    status: Option<(u16, &str)>,
) -> ClientMessage<'static> {
    let mut opts = vec![Opt::server_id(server.clone())];
    if let Some(cid) = request.client_id() {
        opts.push(Opt::client_id(cid.clone().into_owned()));
    }
    if let Some((iaid, a)) = addr {
        opts.push(Opt::ia_na(
            iaid,
            PREFERRED / 2,
            PREFERRED * 4 / 5,
            vec![Opt::iaaddr(a, PREFERRED, VALID, Vec::new())],
        ));
    }
    if let Some((c, text)) = status {
        opts.push(Opt::status_code(c, text));
    }
    opts.push(Opt::addresses(
        code::DNS_SERVERS,
        &[Ipv6Addr::new(0x2001, 0xdb8, 0, 0, 0, 0, 0, 0x53)],
    ));
    opts.push(Opt::domain_names(code::DOMAIN_LIST, &["pool.example"]));
    ClientMessage::new(ty, request.xid, opts)
}

/// The IAID a reply's IA_NA uses for `c`.
pub fn client_iaid(c: &Client) -> u32 {
    iaid(c)
}

/// Wraps `m` in the relay layers of a client behind `relay` (its link address), and behind
/// `outer` as well for a nested client.
pub fn relayed(
    m: Message<'static>,
    c: &Client,
    relay: Ipv6Addr,
    outer: Option<Ipv6Addr>,
    forward: bool,
) -> Message<'static> {
    let ty = if forward {
        t::RELAY_FORW
    } else {
        t::RELAY_REPL
    };
    let iface = format!("ge-0/0/{}", c.relay.unwrap_or(0)).into_bytes();
    let m = m.relayed(
        ty,
        0,
        relay,
        c.link_local(),
        vec![Opt::interface_id(&iface), Opt::relay_msg()],
    );
    match outer {
        // RFC 8415 section 19.1.2: relaying a relay's message, the link address may be left
        // unspecified; the peer is the inner relay.
        Some(_) => m.relayed(ty, 1, Ipv6Addr::UNSPECIFIED, relay, vec![Opt::relay_msg()]),
        None => m,
    }
}

/// A requestor's LEASEQUERY: by the client's DUID, or by `addr`.
pub fn leasequery(
    xid: u32,
    requestor: &Duid<'static>,
    by_client: Option<&Duid<'static>>,
    addr: Ipv6Addr,
) -> ClientMessage<'static> {
    let query = match by_client {
        Some(d) => Opt::lq_query(
            QUERY_BY_CLIENTID,
            Ipv6Addr::UNSPECIFIED,
            vec![Opt::client_id(d.clone())],
        ),
        None => Opt::lq_query(
            QUERY_BY_ADDRESS,
            Ipv6Addr::UNSPECIFIED,
            vec![Opt::iaaddr(addr, 0, 0, Vec::new())],
        ),
    };
    ClientMessage::new(
        t::LEASEQUERY,
        xid & 0x00ff_ffff,
        vec![Opt::client_id(requestor.clone()), query],
    )
}

/// A server's LEASEQUERY-REPLY with the client's binding.
pub fn leasequery_reply(
    query: &ClientMessage<'_>,
    server: &Duid<'static>,
    c: &Client,
    addr: Ipv6Addr,
) -> ClientMessage<'static> {
    let mut opts = vec![Opt::server_id(server.clone())];
    if let Some(cid) = query.client_id() {
        opts.push(Opt::client_id(cid.clone().into_owned()));
    }
    opts.push(Opt::client_data(vec![
        Opt::client_id(c.duid.clone()),
        Opt::iaaddr(addr, PREFERRED, VALID, Vec::new()),
        Opt::clt_time(600),
    ]));
    ClientMessage::new(t::LEASEQUERY_REPLY, query.xid, opts)
}

/// DHCPV4-QUERY carrying `v4` (flags 0: the response may be multicast).
pub fn dhcpv4_query(v4: dhcpv4::Message<'static>) -> ClientMessage<'static> {
    ClientMessage::new(t::DHCPV4_QUERY, 0, vec![Opt::dhcpv4_msg(v4)])
}

pub fn dhcpv4_response(v4: dhcpv4::Message<'static>) -> ClientMessage<'static> {
    ClientMessage::new(t::DHCPV4_RESPONSE, 0, vec![Opt::dhcpv4_msg(v4)])
}
