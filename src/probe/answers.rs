//! The servers' answers, as the project's own pipeline decodes them: a [`Sink`] that keeps each
//! DHCPOFFER (DHCPv4) or ADVERTISE (DHCPv6) with its transaction id, the client it names and
//! the server that sent it.

use std::net::IpAddr;

use super::keys::Family;
use crate::analyse::dhcp_lb::events::ServerIdent;
use crate::analyse::KeyBytes;
use crate::base::Timestamp;
use crate::pipeline::{Decoded, Sink};
use crate::proto::dhcpv4::{self, message_type, BOOTREPLY};
use crate::proto::dhcpv6::msg_type;
use crate::proto::Message;

/// One offer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Answer {
    pub xid: u32,
    /// The client the answer names: chaddr cut to hlen (v4), the client DUID (v6).
    pub client: KeyBytes,
    /// The server: its Server Identifier (option 54, or the server DUID), else the address it
    /// answered from.
    pub server: ServerIdent,
    /// The address the answer came from.
    pub source: IpAddr,
    /// The address offered (yiaddr, or the first IAADDR), when there is one.
    pub offered: Option<IpAddr>,
    /// A DHCPv6 status code other than Success at the message's top level (NoAddrsAvail: the
    /// server answers the bucket but has nothing to give).
    pub status: Option<u16>,
    /// When the frame was captured.
    pub time: Timestamp,
}

/// Keeps the answers of one family from every decoded message.
#[derive(Debug)]
pub struct AnswerSink {
    family: Family,
    pub answers: Vec<Answer>,
    /// Messages of the family that were not an answer to a DISCOVER / SOLICIT (another
    /// client's traffic, a REPLY, a relayed message).
    pub other: u64,
    /// Answers with decode errors, left out.
    pub malformed: u64,
}

impl AnswerSink {
    pub fn new(family: Family) -> Self {
        AnswerSink {
            family,
            answers: Vec::new(),
            other: 0,
            malformed: 0,
        }
    }

    /// The answers decoded since the last call.
    pub fn take(&mut self) -> Vec<Answer> {
        std::mem::take(&mut self.answers)
    }

    fn v4(&mut self, m: &dhcpv4::Message<'_>, d: &Decoded<'_>) {
        if m.op != BOOTREPLY || m.message_type() != Some(message_type::OFFER) {
            self.other += 1;
            return;
        }
        let Some(client) = m.chaddr() else {
            self.other += 1;
            return;
        };
        let server = match m.server_identifier() {
            Some(a) => ServerIdent::Addr(IpAddr::V4(a)),
            None => ServerIdent::Addr(d.payload.src),
        };
        self.answers.push(Answer {
            xid: m.xid(),
            client: KeyBytes::from_slice(client),
            server,
            source: d.payload.src,
            offered: Some(IpAddr::V4(m.yiaddr)).filter(|a| !a.is_unspecified()),
            status: None,
            time: d.frame.ts,
        });
    }

    fn v6(&mut self, m: &crate::proto::dhcpv6::Message<'_>, d: &Decoded<'_>) {
        // The probe is on the clients' link: an answer to it is not relayed.
        let inner = match m.innermost() {
            Some(i) if m.relays.is_empty() && i.msg_type == msg_type::ADVERTISE => i,
            _ => {
                self.other += 1;
                return;
            }
        };
        let Some(client) = inner.client_id() else {
            self.other += 1;
            return;
        };
        let server = match inner.server_id() {
            Some(duid) => ServerIdent::Duid(KeyBytes::from_slice(duid.bytes())),
            None => ServerIdent::Addr(d.payload.src),
        };
        self.answers.push(Answer {
            xid: inner.xid,
            client: KeyBytes::from_slice(client.bytes()),
            server,
            source: d.payload.src,
            offered: inner.ia_addresses().first().map(|a| IpAddr::V6(*a)),
            status: inner.status_code().map(|(c, _)| c).filter(|&c| c != 0),
            time: d.frame.ts,
        });
    }
}

impl Sink for AnswerSink {
    fn message(&mut self, d: &Decoded<'_>) {
        if !d.errors.is_empty() {
            self.malformed += 1;
            return;
        }
        match (self.family, d.message) {
            (Family::V4, Message::Dhcpv4(m)) => self.v4(m, d),
            (Family::V6, Message::Dhcpv6(m)) => self.v6(m, d),
            _ => self.other += 1,
        }
    }
}
