//! DHCPv6 on the wire (RFC 8415 and the option RFCs: 5007/5460 leasequery, 5908 NTP, 6334 AFTR,
//! 6355 DUID-UUID, 6977 reconfigure, 7341 DHCPv4 over DHCPv6, 8520 MUD URL, ...).
//!
//! [`parse`] is zero-copy and lenient: it returns the [`Message`] (every relay layer and the
//! client/server message they carry) with everything it could decode, and the list of problems,
//! each with its byte offset. [`Message::emit`] writes a message back to bytes exactly;
//! [`Message::fields`] gives the display tree with Wireshark's `dhcpv6.*` names.
//!
//! ```
//! use std::net::Ipv6Addr;
//! use poolshark::proto::dhcpv6::{self, msg_type, ClientMessage, Duid, Message, Opt};
//!
//! let duid = Duid::ll(1, &[2, 0, 0, 0, 0, 1]);
//! let link: Ipv6Addr = "2001:db8::1".parse().unwrap();
//! let solicit = Message::client(ClientMessage::new(
//!     msg_type::SOLICIT,
//!     0x78244b,
//!     vec![Opt::client_id(duid.clone()), Opt::elapsed_time(0), Opt::ia_na(1, 0, 0, vec![])],
//! ))
//! .relayed(msg_type::RELAY_FORW, 0, link, "fe80::1".parse().unwrap(), vec![]);
//! let bytes = solicit.emit();
//! let (m, errors) = dhcpv6::parse(&bytes);
//! assert!(errors.is_empty());
//! assert_eq!(m, solicit);
//! assert_eq!(m.relays.len(), 1);
//! assert_eq!(m.innermost().map(|i| i.msg_type), Some(msg_type::SOLICIT));
//! assert_eq!(m.client_id(), Some(&duid));
//! assert_eq!(
//!     m.info(),
//!     "Relay-forw L: 2001:db8::1 Solicit XID: 0x78244b CID: 00030001020000000001"
//! );
//! ```

mod domain;
mod duid;
mod emit;
mod fields;
mod ia;
mod leasequery;
mod message;
pub mod names;
mod options;

pub use crate::proto::dhcpv4::Pos;
pub use domain::Names;
pub use duid::{Duid, DuidKind, DUID_EN, DUID_LL, DUID_LLT, DUID_UUID};
pub use fields::MAX_TREE_NESTING;
pub use ia::{Ia, IaAddr, IaPrefix, IaTa};
pub use leasequery::{
    LqQuery, LqRelayData, QUERY_BY_ADDRESS, QUERY_BY_CLIENTID, QUERY_BY_LINK_ADDRESS,
    QUERY_BY_RELAYID, QUERY_BY_REMOTEID,
};
pub use message::{
    is_relay, msg_type, parse, ClientMessage, Message, Relay, CLIENT_HEADER_LEN, RELAY_HEADER_LEN,
};
pub use options::{code, Opt, OptValue, RelayMsg, SubOpt, MAX_NESTING};

#[cfg(test)]
mod tests;
