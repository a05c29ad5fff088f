//! DHCPv6 messages back to bytes, and constructors that make building them (for fixtures and the
//! traffic generator) short.
//!
//! `emit` writes exactly what a parsed, well-formed message held, so `emit(parse(b)) == b`, and a
//! message built here parses back to itself. Relay layers are written in one forward pass with
//! their RELAY_MSG lengths patched on the way back: no recursion, whatever the depth.

use std::borrow::Cow;
use std::net::Ipv6Addr;

use super::domain::Names;
use super::duid::Duid;
use super::ia::{Ia, IaAddr, IaPrefix, IaTa};
use super::leasequery::{LqQuery, LqRelayData};
use super::message::{ClientMessage, Message, Relay};
use super::options::{code, Opt, OptValue, RelayMsg, SubOpt};
use crate::proto::dhcpv4;

impl Message<'_> {
    /// The message on the wire.
    pub fn emit(&self) -> Vec<u8> {
        let mut out = Vec::new();
        self.emit_into(&mut out);
        out
    }

    /// Appends the message to `out`.
    pub fn emit_into(&self, out: &mut Vec<u8>) {
        // For each relay written: where its RELAY_MSG length goes and the options after it.
        let mut open: Vec<(usize, &[Opt<'_>])> = Vec::new();
        let mut chain_intact = true;
        for r in &self.relays {
            out.push(r.msg_type);
            out.push(r.hop_count);
            out.extend_from_slice(&r.link_address.octets());
            out.extend_from_slice(&r.peer_address.octets());
            let next = r
                .options
                .iter()
                .position(|o| matches!(o.value, OptValue::RelayMsg(RelayMsg::Next)));
            let Some(k) = next else {
                write_options(out, &r.options);
                chain_intact = false;
                break;
            };
            write_options(out, &r.options[..k]);
            out.extend_from_slice(&r.options[k].code.to_be_bytes());
            let at = out.len();
            out.extend_from_slice(&[0, 0]);
            open.push((at, &r.options[k + 1..]));
        }
        if chain_intact {
            if let Some(m) = &self.inner {
                m.emit_into(out);
            }
        }
        while let Some((at, rest)) = open.pop() {
            patch_len(out, at);
            write_options(out, rest);
        }
    }
}

impl<'a> Message<'a> {
    /// Wraps this message in a relay layer (outermost): `options` get a RELAY_MSG carrying this
    /// message, appended unless they already place one.
    pub fn relayed(
        mut self,
        msg_type: u8,
        hop_count: u8,
        link_address: Ipv6Addr,
        peer_address: Ipv6Addr,
        mut options: Vec<Opt<'a>>,
    ) -> Message<'a> {
        if !options
            .iter()
            .any(|o| matches!(o.value, OptValue::RelayMsg(RelayMsg::Next)))
        {
            options.push(Opt::relay_msg());
        }
        self.relays.insert(
            0,
            Relay::new(msg_type, hop_count, link_address, peer_address, options),
        );
        self
    }
}

impl ClientMessage<'_> {
    pub fn emit(&self) -> Vec<u8> {
        let mut out = Vec::new();
        self.emit_into(&mut out);
        out
    }

    pub fn emit_into(&self, out: &mut Vec<u8>) {
        out.push(self.msg_type);
        out.extend_from_slice(&self.xid.to_be_bytes()[1..]);
        write_options(out, &self.options);
    }
}

/// Writes the 2-byte length of what follows `at + 2`; more than 65535 bytes cannot be expressed
/// and is written as 65535.
fn patch_len(out: &mut [u8], at: usize) {
    let n = out.len().saturating_sub(at + 2);
    let n = u16::try_from(n).unwrap_or(u16::MAX).to_be_bytes();
    if let Some(dst) = out.get_mut(at..at + 2) {
        dst.copy_from_slice(&n);
    }
}

pub(crate) fn write_options(out: &mut Vec<u8>, opts: &[Opt<'_>]) {
    for o in opts {
        o.write(out);
    }
}

fn put_u16(out: &mut Vec<u8>, v: u16) {
    out.extend_from_slice(&v.to_be_bytes());
}

fn put_u32(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_be_bytes());
}

/// `length u16 | data`, the length capped as the format requires.
fn put_prefixed(out: &mut Vec<u8>, b: &[u8]) {
    let n = b.len().min(usize::from(u16::MAX));
    put_u16(out, n as u16);
    out.extend_from_slice(&b[..n]);
}

impl Opt<'_> {
    pub(crate) fn write(&self, out: &mut Vec<u8>) {
        put_u16(out, self.code);
        let at = out.len();
        out.extend_from_slice(&[0, 0]);
        self.value.write_data(out);
        patch_len(out, at);
    }
}

impl OptValue<'_> {
    /// Appends the option's data (without code and length). A RELAY_MSG that is the next layer
    /// of a message is written by [`Message::emit`]; on its own it has no data.
    pub fn write_data(&self, out: &mut Vec<u8>) {
        match self {
            OptValue::ClientId(d) | OptValue::ServerId(d) => out.extend_from_slice(d.bytes()),
            OptValue::IaNa(ia) | OptValue::IaPd(ia) => {
                put_u32(out, ia.iaid);
                put_u32(out, ia.t1);
                put_u32(out, ia.t2);
                write_options(out, &ia.options);
            }
            OptValue::IaTa(ia) => {
                put_u32(out, ia.iaid);
                write_options(out, &ia.options);
            }
            OptValue::IaAddr(a) => {
                out.extend_from_slice(&a.address.octets());
                put_u32(out, a.preferred_lifetime);
                put_u32(out, a.valid_lifetime);
                write_options(out, &a.options);
            }
            OptValue::IaPrefix(p) => {
                put_u32(out, p.preferred_lifetime);
                put_u32(out, p.valid_lifetime);
                out.push(p.prefix_len);
                out.extend_from_slice(&p.prefix.octets());
                write_options(out, &p.options);
            }
            OptValue::Oro(codes) => codes.iter().for_each(|c| put_u16(out, *c)),
            OptValue::Preference(v) | OptValue::ReconfMsg(v) => out.push(*v),
            OptValue::ElapsedTime(t) => put_u16(out, *t),
            OptValue::RelayMsg(RelayMsg::Next) => {}
            OptValue::RelayMsg(RelayMsg::Raw(b))
            | OptValue::InterfaceId(b)
            | OptValue::Text(b)
            | OptValue::Raw(b) => out.extend_from_slice(b),
            OptValue::Auth {
                protocol,
                algorithm,
                rdm,
                replay_detection,
                info,
            } => {
                out.extend_from_slice(&[*protocol, *algorithm, *rdm]);
                out.extend_from_slice(&replay_detection.to_be_bytes());
                out.extend_from_slice(info);
            }
            OptValue::Unicast(a) => out.extend_from_slice(&a.octets()),
            OptValue::StatusCode { code, message } => {
                put_u16(out, *code);
                out.extend_from_slice(message);
            }
            OptValue::Empty => {}
            OptValue::UserClass(items) => items.iter().for_each(|i| put_prefixed(out, i)),
            OptValue::VendorClass { enterprise, data } => {
                put_u32(out, *enterprise);
                data.iter().for_each(|i| put_prefixed(out, i));
            }
            OptValue::VendorOpts {
                enterprise,
                options,
            } => {
                put_u32(out, *enterprise);
                write_suboptions(out, options);
            }
            OptValue::NtpServer(subs) => write_suboptions(out, subs),
            OptValue::Addresses(v) => v.iter().for_each(|a| out.extend_from_slice(&a.octets())),
            OptValue::DomainNames(n) => out.extend_from_slice(&n.0),
            OptValue::ClientFqdn { flags, name } => {
                out.push(*flags);
                out.extend_from_slice(&name.0);
            }
            OptValue::LqQuery(q) => {
                out.push(q.query_type);
                out.extend_from_slice(&q.link_address.octets());
                write_options(out, &q.options);
            }
            OptValue::ClientData(opts) => write_options(out, opts),
            OptValue::CltTime(t) => put_u32(out, *t),
            OptValue::LqRelayData(d) => {
                out.extend_from_slice(&d.peer_address.octets());
                d.message.emit_into(out);
            }
            OptValue::Dhcpv4Msg(m) => m.emit_into(out),
        }
    }
}

fn write_suboptions(out: &mut Vec<u8>, subs: &[SubOpt<'_>]) {
    for s in subs {
        put_u16(out, s.code);
        put_prefixed(out, &s.data);
    }
}

/// Constructors for the options the generator and fixtures use.
impl<'a> Opt<'a> {
    pub fn client_id(d: Duid<'a>) -> Self {
        Opt::new(code::CLIENTID, OptValue::ClientId(d))
    }

    pub fn server_id(d: Duid<'a>) -> Self {
        Opt::new(code::SERVERID, OptValue::ServerId(d))
    }

    /// `t` in hundredths of a second.
    pub fn elapsed_time(t: u16) -> Self {
        Opt::new(code::ELAPSED_TIME, OptValue::ElapsedTime(t))
    }

    pub fn ia_na(iaid: u32, t1: u32, t2: u32, options: Vec<Opt<'a>>) -> Self {
        Opt::new(code::IA_NA, OptValue::IaNa(Ia::new(iaid, t1, t2, options)))
    }

    pub fn ia_pd(iaid: u32, t1: u32, t2: u32, options: Vec<Opt<'a>>) -> Self {
        Opt::new(code::IA_PD, OptValue::IaPd(Ia::new(iaid, t1, t2, options)))
    }

    pub fn ia_ta(iaid: u32, options: Vec<Opt<'a>>) -> Self {
        Opt::new(code::IA_TA, OptValue::IaTa(IaTa { iaid, options }))
    }

    pub fn iaaddr(address: Ipv6Addr, preferred: u32, valid: u32, options: Vec<Opt<'a>>) -> Self {
        Opt::new(
            code::IAADDR,
            OptValue::IaAddr(IaAddr::new(address, preferred, valid, options)),
        )
    }

    pub fn iaprefix(
        prefix: Ipv6Addr,
        prefix_len: u8,
        preferred: u32,
        valid: u32,
        options: Vec<Opt<'a>>,
    ) -> Self {
        Opt::new(
            code::IAPREFIX,
            OptValue::IaPrefix(IaPrefix {
                preferred_lifetime: preferred,
                valid_lifetime: valid,
                prefix_len,
                prefix,
                options,
            }),
        )
    }

    pub fn oro(codes: &[u16]) -> Self {
        Opt::new(code::ORO, OptValue::Oro(codes.to_vec()))
    }

    pub fn preference(p: u8) -> Self {
        Opt::new(code::PREFERENCE, OptValue::Preference(p))
    }

    pub fn status_code(c: u16, message: &str) -> Self {
        Opt::new(
            code::STATUS_CODE,
            OptValue::StatusCode {
                code: c,
                message: Cow::Owned(message.as_bytes().to_vec()),
            },
        )
    }

    pub fn rapid_commit() -> Self {
        Opt::new(code::RAPID_COMMIT, OptValue::Empty)
    }

    pub fn reconf_accept() -> Self {
        Opt::new(code::RECONF_ACCEPT, OptValue::Empty)
    }

    /// The RELAY_MSG of a relay layer that carries the next layer of its message.
    pub fn relay_msg() -> Self {
        Opt::new(code::RELAY_MSG, OptValue::RelayMsg(RelayMsg::Next))
    }

    pub fn interface_id(id: &[u8]) -> Self {
        Opt::new(
            code::INTERFACE_ID,
            OptValue::InterfaceId(Cow::Owned(id.to_vec())),
        )
    }

    pub fn unicast(a: Ipv6Addr) -> Self {
        Opt::new(code::UNICAST, OptValue::Unicast(a))
    }

    /// An address list option (DNS servers 23, SIP servers 22, LQ client links 48, 4o6 servers
    /// 88, ...).
    pub fn addresses(code: u16, addrs: &[Ipv6Addr]) -> Self {
        Opt::new(code, OptValue::Addresses(addrs.to_vec()))
    }

    /// A domain name list option (domain search list 24, SIP server names 21, AFTR name 64).
    pub fn domain_names(code: u16, names: &[&str]) -> Self {
        Opt::new(code, OptValue::DomainNames(Names::from_strs(names)))
    }

    pub fn user_class(items: &[&[u8]]) -> Self {
        Opt::new(
            code::USER_CLASS,
            OptValue::UserClass(items.iter().map(|i| Cow::Owned(i.to_vec())).collect()),
        )
    }

    pub fn vendor_class(enterprise: u32, items: &[&[u8]]) -> Self {
        Opt::new(
            code::VENDOR_CLASS,
            OptValue::VendorClass {
                enterprise,
                data: items.iter().map(|i| Cow::Owned(i.to_vec())).collect(),
            },
        )
    }

    pub fn vendor_opts(enterprise: u32, options: Vec<SubOpt<'a>>) -> Self {
        Opt::new(
            code::VENDOR_OPTS,
            OptValue::VendorOpts {
                enterprise,
                options,
            },
        )
    }

    pub fn lq_query(query_type: u8, link_address: Ipv6Addr, options: Vec<Opt<'a>>) -> Self {
        Opt::new(
            code::LQ_QUERY,
            OptValue::LqQuery(LqQuery {
                query_type,
                link_address,
                options,
            }),
        )
    }

    pub fn client_data(options: Vec<Opt<'a>>) -> Self {
        Opt::new(code::CLIENT_DATA, OptValue::ClientData(options))
    }

    pub fn clt_time(secs: u32) -> Self {
        Opt::new(code::CLT_TIME, OptValue::CltTime(secs))
    }

    pub fn lq_relay_data(peer_address: Ipv6Addr, message: Message<'a>) -> Self {
        Opt::new(
            code::LQ_RELAY_DATA,
            OptValue::LqRelayData(LqRelayData {
                peer_address,
                message: Box::new(message),
            }),
        )
    }

    pub fn dhcpv4_msg(m: dhcpv4::Message<'a>) -> Self {
        Opt::new(code::DHCPV4_MSG, OptValue::Dhcpv4Msg(Box::new(m)))
    }

    pub fn mud_url(url: &str) -> Self {
        Opt::new(
            code::MUD_URL,
            OptValue::Text(Cow::Owned(url.as_bytes().to_vec())),
        )
    }

    pub fn raw(code: u16, data: &[u8]) -> Self {
        Opt::new(code, OptValue::Raw(Cow::Owned(data.to_vec())))
    }
}
