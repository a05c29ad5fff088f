//! The typed events the load-balancing replay consumes, derived in one place from decoded DHCPv4,
//! DHCPv6 and failover messages (DESIGN.md: analysers see events, not bytes).
//!
//! * [`Request`]: a client message (the innermost message of a relay chain), with what any
//!   profile's key rule may need (option 61, chaddr and hlen; the client DUID; the DUID inside a
//!   leasequery by client id), the transaction id, secs / elapsed time, the Server Identifier it
//!   names and how many relays carried it.
//! * [`Answer`]: a server message with the identity of the server that sent it (Server Identifier
//!   and, when the packet came from the server itself rather than from a relay, its address).
//! * [`FailoverEvent`]: what the ISC failover protocol says about the pair (CONNECT's hash bucket
//!   assignment, STATE's server state and since when).
//!
//! Events own their bytes (they outlive the frame while answers are awaited); every byte string
//! is bounded by the message it came from, and kept inline when short ([`KeyBytes`]).

use std::net::{IpAddr, Ipv4Addr};

pub use crate::analyse::KeyBytes;
use crate::base::Timestamp;
use crate::pipeline::Decoded;
use crate::proto::dhcpv6::msg_type as v6;
use crate::proto::failover::{self, MessageType, ServerState};
use crate::proto::lb::{Family, Hba};
use crate::proto::{dhcpv4, dhcpv6, Message};

/// How a server names itself: DHCPv4 option 54 (an address), DHCPv6 option 2 (a DUID), or the
/// address it sends from.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ServerIdent {
    Addr(IpAddr),
    Duid(KeyBytes),
}

impl ServerIdent {
    /// The text form used in reports and in the configuration file: an address, or the DUID as
    /// colon-separated hex.
    pub fn text(&self) -> String {
        match self {
            ServerIdent::Addr(a) => a.to_string(),
            ServerIdent::Duid(d) => crate::field::hex_colons(d),
        }
    }

    /// Parses an address or a DUID in hex (colons optional).
    pub fn parse(s: &str) -> Option<ServerIdent> {
        let s = s.trim();
        if let Ok(a) = s.parse::<IpAddr>() {
            return Some(ServerIdent::Addr(a));
        }
        let digits: String = s.chars().filter(|c| *c != ':' && *c != '-').collect();
        if digits.is_empty() || digits.len() % 2 != 0 || digits.len() > 2 * 130 {
            return None;
        }
        let mut out = KeyBytes::with_capacity(digits.len() / 2);
        for pair in digits.as_bytes().chunks_exact(2) {
            let hi = char::from(*pair.first()?).to_digit(16)?;
            let lo = char::from(*pair.get(1)?).to_digit(16)?;
            out.push((hi * 16 + lo) as u8);
        }
        Some(ServerIdent::Duid(out))
    }
}

/// What the key rules of the profiles need to build a client's service transaction id.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ClientKey {
    V4 {
        /// Option 61's payload (type byte first), when present.
        client_id: Option<KeyBytes>,
        chaddr: [u8; 16],
        hlen: u8,
    },
    V6 {
        /// The client DUID (option 1 of the innermost message).
        duid: Option<KeyBytes>,
        /// LEASEQUERY: the query type and, by client id, the DUID it asks about.
        leasequery: Option<(u8, Option<KeyBytes>)>,
    },
}

/// A client message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request {
    pub frame: u64,
    pub time: Timestamp,
    pub family: Family,
    /// DHCPv4 option 53 (`None`: BOOTP); DHCPv6 the innermost message type.
    pub msg_type: Option<u8>,
    pub xid: u32,
    /// The bytes an answer echoes to name its client: chaddr cut to hlen (v4), the client DUID
    /// (v6, empty without one).
    pub match_key: KeyBytes,
    pub key: ClientKey,
    /// `secs` (v4, seconds) or OPTION_ELAPSED_TIME (v6, hundredths of a second).
    pub elapsed: Option<u16>,
    /// The server the message names (v4 option 54, v6 option 2).
    pub server_id: Option<ServerIdent>,
    /// Relay layers (v6) or 1 when giaddr is set (v4).
    pub relay_depth: usize,
    /// v4: ciaddr is set (RENEWING / REBINDING / INFORM).
    pub ciaddr_set: bool,
    pub src: IpAddr,
    pub dst: IpAddr,
}

/// A server message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Answer {
    pub frame: u64,
    pub time: Timestamp,
    pub family: Family,
    pub msg_type: Option<u8>,
    pub xid: u32,
    pub match_key: KeyBytes,
    /// The Server Identifier option.
    pub server_id: Option<ServerIdent>,
    /// The source address when the packet is the server's own (not a relay's copy to the client).
    pub server_addr: Option<IpAddr>,
    pub relay_depth: usize,
}

/// What the failover protocol says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FailoverKind {
    /// CONNECT, with the hash bucket assignment the sender (the primary) uses.
    Connect { hba: Option<Hba> },
    /// STATE (or CONNECTACK with a state): the sender's state and when it entered it (seconds
    /// since the epoch, the sender's clock).
    State {
        state: ServerState,
        since: Option<u32>,
    },
    /// Any other message: proof the link is up.
    Other,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FailoverEvent {
    pub frame: u64,
    pub time: Timestamp,
    pub src: IpAddr,
    pub dst: IpAddr,
    pub kind: FailoverKind,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DhcpEvent {
    Request(Request),
    Answer(Answer),
    Failover(FailoverEvent),
}

impl DhcpEvent {
    pub fn time(&self) -> Timestamp {
        match self {
            DhcpEvent::Request(r) => r.time,
            DhcpEvent::Answer(a) => a.time,
            DhcpEvent::Failover(f) => f.time,
        }
    }

    pub fn frame(&self) -> u64 {
        match self {
            DhcpEvent::Request(r) => r.frame,
            DhcpEvent::Answer(a) => a.frame,
            DhcpEvent::Failover(f) => f.frame,
        }
    }
}

/// The event a decoded message gives, if it concerns load balancing.
pub fn derive(d: &Decoded<'_>) -> Option<DhcpEvent> {
    let (frame, time) = (d.frame.number, d.frame.ts);
    let (src, dst) = (d.payload.src, d.payload.dst);
    match d.message {
        Message::Dhcpv4(m) => from_v4(m, frame, time, src, dst),
        Message::Dhcpv6(m) => from_v6(m, frame, time, src, dst),
        Message::Failover(m) => Some(DhcpEvent::Failover(FailoverEvent {
            frame,
            time,
            src,
            dst,
            kind: from_failover(m),
        })),
        Message::Rserpool(_) => None,
    }
}

fn from_failover(m: &failover::Message) -> FailoverKind {
    match (m.msg_type, m.server_state()) {
        (MessageType::Connect, _) => FailoverKind::Connect {
            hba: m
                .hash_bucket_assignment()
                .and_then(|b| Hba::try_from(b).ok()),
        },
        (MessageType::State | MessageType::ConnectAck, Some(state)) => FailoverKind::State {
            state,
            since: m.start_time_of_state(),
        },
        _ => FailoverKind::Other,
    }
}

fn from_v4(
    m: &dhcpv4::Message<'_>,
    frame: u64,
    time: Timestamp,
    src: IpAddr,
    dst: IpAddr,
) -> Option<DhcpEvent> {
    let msg_type = m.message_type();
    let match_key = KeyBytes::from_slice(m.chaddr.get(..usize::from(m.hlen).min(16))?);
    let server_id = m
        .server_identifier()
        .map(|a| ServerIdent::Addr(IpAddr::V4(a)));
    let relayed = m.giaddr != Ipv4Addr::UNSPECIFIED;
    match m.op {
        dhcpv4::BOOTREQUEST => Some(DhcpEvent::Request(Request {
            frame,
            time,
            family: Family::V4,
            msg_type,
            xid: m.xid,
            match_key,
            key: ClientKey::V4 {
                client_id: m.client_identifier().map(|c| KeyBytes::from_slice(&c)),
                chaddr: m.chaddr,
                hlen: m.hlen,
            },
            elapsed: Some(m.secs),
            server_id,
            relay_depth: usize::from(relayed),
            ciaddr_set: m.ciaddr != Ipv4Addr::UNSPECIFIED,
            src,
            dst,
        })),
        dhcpv4::BOOTREPLY => {
            // A relay's copy to the client comes from the relay: its source says nothing about the
            // server. The server's own packet goes to the relay (giaddr) or, unrelayed, to the
            // client.
            let own = !relayed || dst == IpAddr::V4(m.giaddr);
            Some(DhcpEvent::Answer(Answer {
                frame,
                time,
                family: Family::V4,
                msg_type,
                xid: m.xid,
                match_key,
                server_id,
                server_addr: own.then_some(src),
                relay_depth: usize::from(relayed),
            }))
        }
        _ => None,
    }
}

/// Whether a DHCPv6 message type travels from a client (or relay) to a server.
pub fn v6_is_request(t: u8) -> bool {
    matches!(
        t,
        v6::SOLICIT
            | v6::REQUEST
            | v6::CONFIRM
            | v6::RENEW
            | v6::REBIND
            | v6::RELEASE
            | v6::DECLINE
            | v6::INFORMATION_REQUEST
            | v6::LEASEQUERY
            | v6::RECONFIGURE_REQUEST
            | v6::DHCPV4_QUERY
    )
}

fn from_v6(
    m: &dhcpv6::Message<'_>,
    frame: u64,
    time: Timestamp,
    src: IpAddr,
    dst: IpAddr,
) -> Option<DhcpEvent> {
    let inner = m.innermost()?;
    let duid = inner.client_id().map(|d| KeyBytes::from_slice(d.bytes()));
    let match_key = duid.clone().unwrap_or_default();
    let server_id = inner
        .server_id()
        .map(|d| ServerIdent::Duid(KeyBytes::from_slice(d.bytes())));
    let relay_depth = m.relays.len();
    if v6_is_request(inner.msg_type) {
        let leasequery = inner.lq_query().map(|q| {
            (
                q.query_type,
                q.client_id().map(|d| KeyBytes::from_slice(d.bytes())),
            )
        });
        return Some(DhcpEvent::Request(Request {
            frame,
            time,
            family: Family::V6,
            msg_type: Some(inner.msg_type),
            xid: inner.xid,
            match_key,
            key: ClientKey::V6 { duid, leasequery },
            elapsed: inner.elapsed_time(),
            server_id,
            relay_depth,
            ciaddr_set: false,
            src,
            dst,
        }));
    }
    if dhcpv6::is_relay(inner.msg_type) {
        return None;
    }
    // Only a RELAY-REPL leaves the server itself; an unrelayed answer may be a relay's copy to
    // the client, whose source is the relay's. The registry drops an address that turns out to
    // speak for two servers.
    let server_addr = Some(src);
    Some(DhcpEvent::Answer(Answer {
        frame,
        time,
        family: Family::V6,
        msg_type: Some(inner.msg_type),
        xid: inner.xid,
        match_key,
        server_id,
        server_addr,
        relay_depth,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn server_ident_text_round_trips() {
        let d = ServerIdent::parse("00:03:00:01:02:00:00:00:01:01").unwrap();
        assert_eq!(
            d,
            ServerIdent::Duid(KeyBytes::from_slice(&[0, 3, 0, 1, 2, 0, 0, 0, 1, 1]))
        );
        assert_eq!(d.text(), "00:03:00:01:02:00:00:00:01:01");
        assert_eq!(ServerIdent::parse("00030001020000000101"), Some(d));
        assert_eq!(
            ServerIdent::parse("192.0.2.1"),
            Some(ServerIdent::Addr("192.0.2.1".parse().unwrap()))
        );
        assert_eq!(ServerIdent::parse("zz"), None);
        assert_eq!(ServerIdent::parse("abc"), None);
        assert_eq!(ServerIdent::parse(""), None);
    }
}
