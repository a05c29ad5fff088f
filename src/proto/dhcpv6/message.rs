//! A DHCPv6 message (RFC 8415 sections 8 and 9): relay layers (RELAY-FORW / RELAY-REPL, each
//! carrying the next layer in its RELAY_MSG option) down to a client/server message.
//!
//! The relay chain is walked in a loop, not by recursion, so a datagram of nested relays as deep as
//! its size allows (about 1,700 layers in 64 KiB) costs no stack; every layer is kept.

use std::net::Ipv6Addr;

use nom::number::complete::{be_u128, be_u24, be_u8};
use nom::{IResult, Parser};

use super::duid::Duid;
use super::leasequery::LqQuery;
use super::options::{code, parse_options, Opt, OptValue, RelayMsg};
use crate::error::DecodeError;
use crate::proto::dhcpv4;
use crate::proto::dhcpv4::Pos;

/// Message types.
pub mod msg_type {
    pub const SOLICIT: u8 = 1;
    pub const ADVERTISE: u8 = 2;
    pub const REQUEST: u8 = 3;
    pub const CONFIRM: u8 = 4;
    pub const RENEW: u8 = 5;
    pub const REBIND: u8 = 6;
    pub const REPLY: u8 = 7;
    pub const RELEASE: u8 = 8;
    pub const DECLINE: u8 = 9;
    pub const RECONFIGURE: u8 = 10;
    pub const INFORMATION_REQUEST: u8 = 11;
    pub const RELAY_FORW: u8 = 12;
    pub const RELAY_REPL: u8 = 13;
    pub const LEASEQUERY: u8 = 14;
    pub const LEASEQUERY_REPLY: u8 = 15;
    pub const LEASEQUERY_DONE: u8 = 16;
    pub const LEASEQUERY_DATA: u8 = 17;
    pub const RECONFIGURE_REQUEST: u8 = 18;
    pub const RECONFIGURE_REPLY: u8 = 19;
    pub const DHCPV4_QUERY: u8 = 20;
    pub const DHCPV4_RESPONSE: u8 = 21;
}

/// msg-type, hop-count, link-address, peer-address.
pub const RELAY_HEADER_LEN: usize = 34;
/// msg-type, transaction-id.
pub const CLIENT_HEADER_LEN: usize = 4;

/// Whether a message type uses the relay header.
pub fn is_relay(t: u8) -> bool {
    t == msg_type::RELAY_FORW || t == msg_type::RELAY_REPL
}

/// One relay layer.
#[derive(Clone, Debug, PartialEq)]
pub struct Relay<'a> {
    pub msg_type: u8,
    pub hop_count: u8,
    pub link_address: Ipv6Addr,
    pub peer_address: Ipv6Addr,
    /// The relay's options in wire order; its first RELAY_MSG is [`RelayMsg::Next`] when the next
    /// layer was decoded.
    pub options: Vec<Opt<'a>>,
    pub pos: Pos,
}

/// A client/server message (every type but RELAY-FORW and RELAY-REPL).
#[derive(Clone, Debug, PartialEq)]
pub struct ClientMessage<'a> {
    pub msg_type: u8,
    /// 24 bits.
    pub xid: u32,
    pub options: Vec<Opt<'a>>,
    pub pos: Pos,
}

/// A DHCPv6 message: its relay layers, outermost first, and the client/server message they carry.
#[derive(Clone, Debug, PartialEq)]
pub struct Message<'a> {
    pub relays: Vec<Relay<'a>>,
    /// `None` when the message (or its innermost relay) was too broken to reach it.
    pub inner: Option<ClientMessage<'a>>,
}

fn relay_header(i: &[u8]) -> IResult<&[u8], (u8, u8, Ipv6Addr, Ipv6Addr)> {
    let (i, (t, h, l, p)) = (be_u8, be_u8, be_u128, be_u128).parse(i)?;
    Ok((i, (t, h, Ipv6Addr::from(l), Ipv6Addr::from(p))))
}

fn client_header(i: &[u8]) -> IResult<&[u8], (u8, u32)> {
    (be_u8, be_u24).parse(i)
}

/// Decodes one DHCPv6 message. Never fails: problems are returned beside what could be decoded,
/// each with its byte offset in `buf`.
pub fn parse(buf: &[u8]) -> (Message<'_>, Vec<DecodeError>) {
    let mut errors = Vec::new();
    let m = parse_nested(buf, 0, 0, &mut errors);
    (m, errors)
}

/// Decodes a message found at `base` in an enclosing buffer, `depth` encapsulating options deep
/// (OPTION_LQ_RELAY_DATA carries whole messages).
pub(crate) fn parse_nested<'a>(
    buf: &'a [u8],
    base: usize,
    depth: u8,
    errors: &mut Vec<DecodeError>,
) -> Message<'a> {
    let mut relays = Vec::new();
    let mut cur = buf;
    let mut cur_base = base;
    loop {
        let Some(&t) = cur.first() else {
            errors.push(DecodeError::new(cur_base, "empty DHCPv6 message"));
            return Message {
                relays,
                inner: None,
            };
        };
        if !is_relay(t) {
            let inner = match client_header(cur) {
                Ok((rest, (msg_type, xid))) => Some(ClientMessage {
                    msg_type,
                    xid,
                    options: parse_options(rest, cur_base + CLIENT_HEADER_LEN, depth, errors),
                    pos: Pos::new(cur_base, cur.len()),
                }),
                Err(_) => {
                    errors.push(DecodeError::truncated(
                        cur_base,
                        "DHCPv6 header",
                        CLIENT_HEADER_LEN,
                        cur.len(),
                    ));
                    None
                }
            };
            return Message { relays, inner };
        }
        let Ok((rest, (msg_type, hop_count, link_address, peer_address))) = relay_header(cur)
        else {
            errors.push(DecodeError::truncated(
                cur_base,
                "DHCPv6 relay header",
                RELAY_HEADER_LEN,
                cur.len(),
            ));
            return Message {
                relays,
                inner: None,
            };
        };
        let mut options = parse_options(rest, cur_base + RELAY_HEADER_LEN, depth, errors);
        let next = options
            .iter()
            .position(|o| o.code == code::RELAY_MSG && matches!(o.value, OptValue::RelayMsg(_)));
        let mut follow = None;
        match next {
            None => errors.push(DecodeError::new(
                cur_base,
                format!(
                    "{} without a Relay Message option",
                    super::names::message_type_name(msg_type)
                ),
            )),
            Some(i) => {
                let o = &options[i];
                let local = o.pos.offset - cur_base;
                let data = cur.get(local + 4..local + o.pos.len).unwrap_or(&[]);
                let need = match data.first() {
                    Some(&t) if is_relay(t) => RELAY_HEADER_LEN,
                    _ => CLIENT_HEADER_LEN,
                };
                if data.len() >= need {
                    follow = Some((data, o.pos.offset + 4));
                    options[i].value = OptValue::RelayMsg(RelayMsg::Next);
                } else {
                    errors.push(DecodeError::truncated(
                        o.pos.offset + 4,
                        "relayed DHCPv6 message",
                        need,
                        data.len(),
                    ));
                }
            }
        }
        relays.push(Relay {
            msg_type,
            hop_count,
            link_address,
            peer_address,
            options,
            pos: Pos::new(cur_base, cur.len()),
        });
        match follow {
            Some((data, b)) => {
                cur = data;
                cur_base = b;
            }
            None => {
                return Message {
                    relays,
                    inner: None,
                }
            }
        }
    }
}

/// Lookups shared by client messages and relays.
fn find<'o, 'a>(opts: &'o [Opt<'a>], c: u16) -> Option<&'o Opt<'a>> {
    opts.iter().find(|o| o.code == c)
}

impl<'a> Message<'a> {
    /// A message with no relay layer.
    pub fn client(inner: ClientMessage<'a>) -> Self {
        Message {
            relays: Vec::new(),
            inner: Some(inner),
        }
    }

    /// The type of the outermost layer.
    pub fn msg_type(&self) -> Option<u8> {
        match self.relays.first() {
            Some(r) => Some(r.msg_type),
            None => self.inner.as_ref().map(|m| m.msg_type),
        }
    }

    /// The client/server message at the bottom of the relay chain.
    pub fn innermost(&self) -> Option<&ClientMessage<'a>> {
        self.inner.as_ref()
    }

    /// The transaction id of the innermost message.
    pub fn xid(&self) -> Option<u32> {
        self.inner.as_ref().map(|m| m.xid)
    }

    /// The client DUID of the innermost message (whole, type first).
    pub fn client_id(&self) -> Option<&Duid<'a>> {
        self.inner.as_ref().and_then(|m| m.client_id())
    }

    pub fn server_id(&self) -> Option<&Duid<'a>> {
        self.inner.as_ref().and_then(|m| m.server_id())
    }

    /// OPTION_ELAPSED_TIME of the innermost message, in hundredths of a second.
    pub fn elapsed_time(&self) -> Option<u16> {
        self.inner.as_ref().and_then(|m| m.elapsed_time())
    }

    pub fn lq_query(&self) -> Option<&LqQuery<'a>> {
        self.inner.as_ref().and_then(|m| m.lq_query())
    }

    pub fn dhcpv4_msg(&self) -> Option<&dhcpv4::Message<'a>> {
        self.inner.as_ref().and_then(|m| m.dhcpv4_msg())
    }
}

impl<'a> ClientMessage<'a> {
    pub fn new(msg_type: u8, xid: u32, options: Vec<Opt<'a>>) -> Self {
        ClientMessage {
            msg_type,
            xid: xid & 0xff_ffff,
            options,
            pos: Pos::default(),
        }
    }

    pub fn option(&self, c: u16) -> Option<&Opt<'a>> {
        find(&self.options, c)
    }

    pub fn options_with(&self, c: u16) -> impl Iterator<Item = &Opt<'a>> {
        self.options.iter().filter(move |o| o.code == c)
    }

    pub fn client_id(&self) -> Option<&Duid<'a>> {
        self.options.iter().find_map(|o| match &o.value {
            OptValue::ClientId(d) => Some(d),
            _ => None,
        })
    }

    pub fn server_id(&self) -> Option<&Duid<'a>> {
        self.options.iter().find_map(|o| match &o.value {
            OptValue::ServerId(d) => Some(d),
            _ => None,
        })
    }

    pub fn elapsed_time(&self) -> Option<u16> {
        self.options.iter().find_map(|o| match o.value {
            OptValue::ElapsedTime(t) => Some(t),
            _ => None,
        })
    }

    pub fn lq_query(&self) -> Option<&LqQuery<'a>> {
        self.options.iter().find_map(|o| match &o.value {
            OptValue::LqQuery(q) => Some(q),
            _ => None,
        })
    }

    /// The DHCPv4 message of a DHCPV4-QUERY or DHCPV4-RESPONSE (RFC 7341).
    pub fn dhcpv4_msg(&self) -> Option<&dhcpv4::Message<'a>> {
        self.options.iter().find_map(|o| match &o.value {
            OptValue::Dhcpv4Msg(m) => Some(m.as_ref()),
            _ => None,
        })
    }

    /// The top-level status code and its message.
    pub fn status_code(&self) -> Option<(u16, &[u8])> {
        self.options.iter().find_map(|o| match &o.value {
            OptValue::StatusCode { code, message } => Some((*code, message.as_ref())),
            _ => None,
        })
    }

    /// The addresses of every IAADDR in every IA_NA and IA_TA, in order.
    pub fn ia_addresses(&self) -> Vec<Ipv6Addr> {
        let mut out = Vec::new();
        for o in &self.options {
            let inner = match &o.value {
                OptValue::IaNa(ia) => &ia.options,
                OptValue::IaTa(ia) => &ia.options,
                _ => continue,
            };
            for i in inner {
                if let OptValue::IaAddr(a) = &i.value {
                    out.push(a.address);
                }
            }
        }
        out
    }
}

impl<'a> Relay<'a> {
    pub fn new(
        msg_type: u8,
        hop_count: u8,
        link_address: Ipv6Addr,
        peer_address: Ipv6Addr,
        options: Vec<Opt<'a>>,
    ) -> Self {
        Relay {
            msg_type,
            hop_count,
            link_address,
            peer_address,
            options,
            pos: Pos::default(),
        }
    }

    pub fn option(&self, c: u16) -> Option<&Opt<'a>> {
        find(&self.options, c)
    }

    pub fn interface_id(&self) -> Option<&[u8]> {
        self.options.iter().find_map(|o| match &o.value {
            OptValue::InterfaceId(i) => Some(i.as_ref()),
            _ => None,
        })
    }
}
