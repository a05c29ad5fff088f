//! Application protocols on the wire: pure parsers over borrowed bytes, typed representations that
//! can be emitted back to bytes, and their display trees. No I/O here.

mod be;
mod quick;
pub use quick::may_hold;
pub mod dhcpv4;
pub mod dhcpv6;
pub mod failover;
pub mod lb;
pub mod rserpool;

use std::fmt;
use std::str::FromStr;

use crate::error::DecodeError;
use crate::field::Field;

/// The application protocols poolshark decodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum AppProtocol {
    Asap,
    Enrp,
    Dhcpv4,
    Dhcpv6,
    Failover,
}

impl AppProtocol {
    pub const ALL: [AppProtocol; 5] = [
        AppProtocol::Asap,
        AppProtocol::Enrp,
        AppProtocol::Dhcpv4,
        AppProtocol::Dhcpv6,
        AppProtocol::Failover,
    ];

    /// The name in JSON records and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            AppProtocol::Asap => "asap",
            AppProtocol::Enrp => "enrp",
            AppProtocol::Dhcpv4 => "dhcpv4",
            AppProtocol::Dhcpv6 => "dhcpv6",
            AppProtocol::Failover => "dhcpfo",
        }
    }

    /// The protocol column of the text listing, as tshark writes it.
    pub fn column(self) -> &'static str {
        match self {
            AppProtocol::Asap => "ASAP",
            AppProtocol::Enrp => "ENRP",
            AppProtocol::Dhcpv4 => "DHCP",
            AppProtocol::Dhcpv6 => "DHCPv6",
            AppProtocol::Failover => "DHCPFO",
        }
    }
}

impl fmt::Display for AppProtocol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for AppProtocol {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.to_ascii_lowercase().as_str() {
            "asap" => Ok(AppProtocol::Asap),
            "enrp" => Ok(AppProtocol::Enrp),
            "dhcp" | "dhcpv4" | "bootp" => Ok(AppProtocol::Dhcpv4),
            "dhcpv6" => Ok(AppProtocol::Dhcpv6),
            "dhcpfo" | "failover" => Ok(AppProtocol::Failover),
            _ => Err(format!(
                "unknown protocol {s:?}: use asap, enrp, dhcpv4, dhcpv6 or dhcpfo"
            )),
        }
    }
}

/// One decoded application message. DHCP messages borrow the payload they were read from.
#[derive(Clone, Debug, PartialEq)]
pub enum Message<'a> {
    Rserpool(rserpool::Message),
    Dhcpv4(dhcpv4::Message<'a>),
    Dhcpv6(dhcpv6::Message<'a>),
    Failover(failover::Message),
}

impl<'a> Message<'a> {
    /// Decodes `buf` as `protocol` (RSerPool in the given encoding); lenient, never panics.
    pub fn parse(
        buf: &'a [u8],
        protocol: AppProtocol,
        encoding: rserpool::Encoding,
    ) -> (Message<'a>, Vec<DecodeError>) {
        match protocol {
            AppProtocol::Asap | AppProtocol::Enrp => {
                let p = if protocol == AppProtocol::Asap {
                    rserpool::Protocol::Asap
                } else {
                    rserpool::Protocol::Enrp
                };
                let (m, e) = rserpool::parse(buf, p, encoding);
                (Message::Rserpool(m), e)
            }
            AppProtocol::Dhcpv4 => {
                let (m, e) = dhcpv4::parse(buf);
                (Message::Dhcpv4(m), e)
            }
            AppProtocol::Dhcpv6 => {
                let (m, e) = dhcpv6::parse(buf);
                (Message::Dhcpv6(m), e)
            }
            AppProtocol::Failover => {
                let (m, e) = failover::parse(buf);
                (Message::Failover(m), e)
            }
        }
    }

    pub fn protocol(&self) -> AppProtocol {
        match self {
            Message::Rserpool(m) => match m.protocol {
                rserpool::Protocol::Asap => AppProtocol::Asap,
                rserpool::Protocol::Enrp => AppProtocol::Enrp,
            },
            Message::Dhcpv4(_) => AppProtocol::Dhcpv4,
            Message::Dhcpv6(_) => AppProtocol::Dhcpv6,
            Message::Failover(_) => AppProtocol::Failover,
        }
    }

    /// The message type as people name it ("Registration", "Solicit", "BNDUPD", ...): what the
    /// statistics count by.
    pub fn type_name(&self) -> String {
        self.type_label().into_owned()
    }

    /// [`Message::type_name`] without a new string for the names known in advance.
    pub fn type_label(&self) -> std::borrow::Cow<'static, str> {
        use std::borrow::Cow;
        match self {
            Message::Rserpool(m) => {
                let name = match m.protocol {
                    rserpool::Protocol::Asap => m.asap_type().map(|t| t.name()),
                    rserpool::Protocol::Enrp => m.enrp_type().map(|t| t.name()),
                };
                match name {
                    Some(n) => Cow::Borrowed(n),
                    None => Cow::Owned(format!("Unknown (0x{:02x})", m.msg_type)),
                }
            }
            Message::Dhcpv4(m) => match m.message_type() {
                Some(t) => Cow::Borrowed(dhcpv4::names::message_type_name(t)),
                None => Cow::Owned(format!("BOOTP {}", dhcpv4::names::op_name(m.op))),
            },
            Message::Dhcpv6(m) => match m.msg_type() {
                Some(t) => Cow::Borrowed(dhcpv6::names::message_type_name(t)),
                None => Cow::Borrowed("Empty"),
            },
            Message::Failover(m) => match m.msg_type.abbrev() {
                Some(a) => Cow::Borrowed(a),
                None => Cow::Borrowed(m.msg_type.description()),
            },
        }
    }

    /// The display tree (offsets relative to the message start).
    pub fn fields(&self) -> Vec<Field> {
        match self {
            Message::Rserpool(m) => m.fields(),
            Message::Dhcpv4(m) => m.fields(),
            Message::Dhcpv6(m) => m.fields(),
            Message::Failover(m) => m.fields(),
        }
    }

    /// The display tree into `out` ([`crate::field::out`]), in the order [`Message::fields`]
    /// gives it; no tree is built for a sink that keeps none.
    pub fn write_tree(&self, out: &mut dyn crate::field::out::TreeOut) {
        match self {
            Message::Rserpool(m) => m.write_tree(out),
            Message::Dhcpv4(m) => m.write_tree(out),
            Message::Dhcpv6(m) => m.write_tree(out),
            Message::Failover(m) => m.write_tree(out),
        }
    }

    /// The info column text.
    pub fn info(&self) -> String {
        match self {
            Message::Rserpool(m) => m.info(),
            Message::Dhcpv4(m) => m.info(),
            Message::Dhcpv6(m) => m.info(),
            Message::Failover(m) => m.info(),
        }
    }
}
