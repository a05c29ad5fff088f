//! The ISC DHCP failover protocol (draft-ietf-dhc-failover-12 as ISC DHCP 4.4 speaks it), over
//! TCP port 647: message framing, a typed representation of every message and option that parses
//! leniently and emits byte for byte, and the display tree with Wireshark's `dhcpfo.*` names.
//!
//! * [`Framer`]: one direction of a TCP stream in, whole messages out.
//! * [`parse`] / [`Message::emit`]: one message from and to bytes.
//! * [`Message::fields`], [`Message::info`]: what `read` shows.
//! * Typed accessors on [`Message`] for the pool-balance analyser (binding status, assigned
//!   address, client identifier and chaddr, times, bucket map, addresses transferred, server
//!   state).

mod fields;
pub mod framer;
pub mod message;
pub mod option;
pub mod values;

pub use framer::{Framed, Framer, ISC_MAX_MESSAGE_LEN};
pub use message::{parse, EmitError, Message, HEADER_LEN};
pub use option::{code, FoOption};
pub use values::{BindingStatus, MessageType, ServerState};

/// ISC's default failover port (IANA "dhcp-failover"); 847 ("dhcp-failover2") is also seen.
pub const PORT: u16 = 647;
/// IANA's second failover port.
pub const PORT_ALT: u16 = 847;
