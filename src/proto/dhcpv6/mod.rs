//! DHCPv6 on the wire (RFC 8415 and the option RFCs: 5007/5460 leasequery, 5908 NTP, 6334 AFTR,
//! 6355 DUID-UUID, 6977 reconfigure, 7341 DHCPv4 over DHCPv6, 8520 MUD URL, ...).
//!
//! [`parse`] is zero-copy and lenient: it returns the [`Message`] (every relay layer and the
//! client/server message they carry) with everything it could decode, and the list of problems,
//! each with its byte offset. [`Message::emit`] writes a message back to bytes exactly;
//! [`Message::fields`] gives the display tree with Wireshark's `dhcpv6.*` names.

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
