//! DHCPv4 and BOOTP on the wire (RFC 951, RFC 2131, RFC 2132 and the option RFCs: 3004 user class,
//! 3046 relay agent information, 3396 long options, 3442 classless routes, 4388 leasequery, 4702
//! client FQDN, 8520 MUD URL, 8925 IPv6-only preferred).
//!
//! [`parse`] is zero-copy and lenient: it returns the [`Message`] with everything it could decode
//! and the list of problems, each with its byte offset. [`Message::emit`] writes a message back to
//! bytes exactly; [`Message::fields`] gives the display tree with Wireshark's `dhcp.*` names.
//!
//! ```
//! use std::net::Ipv4Addr;
//! use poolshark::proto::dhcpv4::{self, message_type, Opt};
//!
//! let discover = dhcpv4::Message::request(message_type::DISCOVER, 0x3d1d, [2, 0, 0, 0, 0, 1])
//!     .with_broadcast()
//!     .with(Opt::client_identifier(1, &[2, 0, 0, 0, 0, 1]))
//!     .with(Opt::requested_address(Ipv4Addr::new(192, 0, 2, 10)))
//!     .padded_to(300);
//! let bytes = discover.emit();
//! let (m, errors) = dhcpv4::parse(&bytes);
//! assert!(errors.is_empty());
//! assert_eq!(m, discover);
//! assert_eq!(m.message_type(), Some(message_type::DISCOVER));
//! assert_eq!(m.client_identifier().as_deref(), Some(&[1, 2, 0, 0, 0, 0, 1][..]));
//! assert_eq!(m.info(), "DHCP Discover - Transaction ID 0x3d1d");
//! ```

mod emit;
mod fields;
mod message;
pub mod names;
mod options;
mod pos;
mod relay_agent;

pub use message::{
    parse, secs_byte_swapped, Message, BOOTP_HEADER_LEN, BOOTREPLY, BOOTREQUEST, FLAG_BROADCAST,
    MAGIC_COOKIE,
};
pub use options::{code, Opt, OptValue, Route};
pub use pos::Pos;
pub use relay_agent::{subcode, SubOpt};

/// Option 53 values.
pub mod message_type {
    pub const DISCOVER: u8 = 1;
    pub const OFFER: u8 = 2;
    pub const REQUEST: u8 = 3;
    pub const DECLINE: u8 = 4;
    pub const ACK: u8 = 5;
    pub const NAK: u8 = 6;
    pub const RELEASE: u8 = 7;
    pub const INFORM: u8 = 8;
    pub const FORCERENEW: u8 = 9;
    pub const LEASEQUERY: u8 = 10;
    pub const LEASEUNASSIGNED: u8 = 11;
    pub const LEASEUNKNOWN: u8 = 12;
    pub const LEASEACTIVE: u8 = 13;
    pub const BULKLEASEQUERY: u8 = 14;
    pub const LEASEQUERYDONE: u8 = 15;
    pub const ACTIVELEASEQUERY: u8 = 16;
    pub const LEASEQUERYSTATUS: u8 = 17;
    pub const TLS: u8 = 18;
}
