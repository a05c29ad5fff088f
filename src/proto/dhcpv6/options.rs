//! DHCPv6 options (RFC 8415 section 21 and the option RFCs): `code u16 | length u16 | data`.
//! Options keep their order, repeats and positions; the ones the analysers and the display need
//! are typed, encapsulated options are decoded to a bounded depth, the rest kept raw.

use std::borrow::Cow;
use std::net::Ipv6Addr;

use nom::number::complete::{be_u16, be_u32, be_u64, be_u8};
use nom::{IResult, Parser};

use super::domain::Names;
use super::duid::Duid;
use super::ia::{
    ia_fixed, iaaddr_fixed, iaprefix_fixed, Ia, IaAddr, IaPrefix, IaTa, IAADDR_FIXED,
    IAPREFIX_FIXED, IA_FIXED, IA_TA_FIXED,
};
use super::leasequery::{
    lq_query_fixed, LqQuery, LqRelayData, LQ_QUERY_FIXED, LQ_RELAY_DATA_FIXED,
};
use super::message::parse_nested;
use crate::error::DecodeError;
use crate::proto::dhcpv4;
use crate::proto::dhcpv4::Pos;

/// Option codes poolshark gives a meaning to.
pub mod code {
    pub const CLIENTID: u16 = 1;
    pub const SERVERID: u16 = 2;
    pub const IA_NA: u16 = 3;
    pub const IA_TA: u16 = 4;
    pub const IAADDR: u16 = 5;
    pub const ORO: u16 = 6;
    pub const PREFERENCE: u16 = 7;
    pub const ELAPSED_TIME: u16 = 8;
    pub const RELAY_MSG: u16 = 9;
    pub const AUTH: u16 = 11;
    pub const UNICAST: u16 = 12;
    pub const STATUS_CODE: u16 = 13;
    pub const RAPID_COMMIT: u16 = 14;
    pub const USER_CLASS: u16 = 15;
    pub const VENDOR_CLASS: u16 = 16;
    pub const VENDOR_OPTS: u16 = 17;
    pub const INTERFACE_ID: u16 = 18;
    pub const RECONF_MSG: u16 = 19;
    pub const RECONF_ACCEPT: u16 = 20;
    pub const SIP_SERVER_D: u16 = 21;
    pub const SIP_SERVER_A: u16 = 22;
    pub const DNS_SERVERS: u16 = 23;
    pub const DOMAIN_LIST: u16 = 24;
    pub const IA_PD: u16 = 25;
    pub const IAPREFIX: u16 = 26;
    pub const SNTP_SERVERS: u16 = 31;
    pub const CLIENT_FQDN: u16 = 39;
    pub const LQ_QUERY: u16 = 44;
    pub const CLIENT_DATA: u16 = 45;
    pub const CLT_TIME: u16 = 46;
    pub const LQ_RELAY_DATA: u16 = 47;
    pub const LQ_CLIENT_LINK: u16 = 48;
    pub const NTP_SERVER: u16 = 56;
    pub const AFTR_NAME: u16 = 64;
    pub const DHCPV4_MSG: u16 = 87;
    pub const DHCP4_O_DHCP6_SERVER: u16 = 88;
    pub const MUD_URL: u16 = 112;
}

/// Encapsulated options deeper than this are kept raw: a crafted message of options inside
/// options must not exhaust the stack.
pub const MAX_NESTING: u8 = 16;

/// One option as it sat on the wire.
#[derive(Clone, Debug, PartialEq)]
pub struct Opt<'a> {
    pub code: u16,
    pub value: OptValue<'a>,
    pub pos: Pos,
    /// The length field, when it claims more bytes than the message holds (the option is cut
    /// short: `value` is the bytes there are, kept raw).
    pub claimed_len: Option<u16>,
}

/// The data of OPTION_RELAY_MSG.
#[derive(Clone, Debug, PartialEq)]
pub enum RelayMsg<'a> {
    /// The relayed message is the next layer of the [`Message`](super::Message): the next
    /// relay, or the client/server message at the bottom. Only a relay's first RELAY_MSG is.
    Next,
    /// Not decoded (too short for a header, a second RELAY_MSG, or outside a relay message).
    Raw(Cow<'a, [u8]>),
}

/// A vendor-specific sub-option of OPTION_VENDOR_OPTS, or a sub-option of OPTION_NTP_SERVER.
#[derive(Clone, Debug, PartialEq)]
pub struct SubOpt<'a> {
    pub code: u16,
    pub data: Cow<'a, [u8]>,
}

/// An option's value.
#[derive(Clone, Debug, PartialEq)]
pub enum OptValue<'a> {
    ClientId(Duid<'a>),
    ServerId(Duid<'a>),
    IaNa(Ia<'a>),
    IaTa(IaTa<'a>),
    IaPd(Ia<'a>),
    IaAddr(IaAddr<'a>),
    IaPrefix(IaPrefix<'a>),
    /// The requested option codes.
    Oro(Vec<u16>),
    Preference(u8),
    /// Hundredths of a second.
    ElapsedTime(u16),
    RelayMsg(RelayMsg<'a>),
    Auth {
        protocol: u8,
        algorithm: u8,
        rdm: u8,
        replay_detection: u64,
        info: Cow<'a, [u8]>,
    },
    Unicast(Ipv6Addr),
    StatusCode {
        code: u16,
        /// UTF-8 as sent (not checked).
        message: Cow<'a, [u8]>,
    },
    /// Options that are present or absent (RAPID_COMMIT, RECONF_ACCEPT).
    Empty,
    UserClass(Vec<Cow<'a, [u8]>>),
    VendorClass {
        enterprise: u32,
        data: Vec<Cow<'a, [u8]>>,
    },
    VendorOpts {
        enterprise: u32,
        options: Vec<SubOpt<'a>>,
    },
    InterfaceId(Cow<'a, [u8]>),
    ReconfMsg(u8),
    /// Lists of IPv6 addresses: SIP servers, DNS servers, SNTP servers, LQ client links, DHCPv4
    /// over DHCPv6 servers, ...
    Addresses(Vec<Ipv6Addr>),
    /// Lists of domain names: SIP server names, domain search list, AFTR name, ...
    DomainNames(Names<'a>),
    /// OPTION_CLIENT_FQDN (RFC 4704).
    ClientFqdn {
        flags: u8,
        name: Names<'a>,
    },
    NtpServer(Vec<SubOpt<'a>>),
    LqQuery(LqQuery<'a>),
    ClientData(Vec<Opt<'a>>),
    /// Seconds since the server last talked to the client.
    CltTime(u32),
    LqRelayData(LqRelayData<'a>),
    /// OPTION_DHCPV4_MSG (RFC 7341): a whole DHCPv4 message.
    Dhcpv4Msg(Box<dhcpv4::Message<'a>>),
    /// Text as sent (MUD URL).
    Text(Cow<'a, [u8]>),
    /// Anything else, and typed options whose data did not fit their format.
    Raw(Cow<'a, [u8]>),
}

impl<'a> Opt<'a> {
    pub fn new(code: u16, value: OptValue<'a>) -> Self {
        Opt {
            code,
            value,
            pos: Pos::default(),
            claimed_len: None,
        }
    }

    /// Where the option's data starts (after code and length).
    pub fn data_offset(&self) -> usize {
        self.pos.offset.saturating_add(4)
    }
}

/// How many options `parse_options` finds in `buf` (a last one cut short included), walking the
/// length fields only: the capacity of its list, allocated once. At most one per 4 bytes,
/// whatever the lengths say.
fn option_count(buf: &[u8]) -> usize {
    let (mut n, mut at) = (0usize, 0usize);
    while at < buf.len() {
        n += 1;
        match buf.get(at + 2..at + 4) {
            Some(&[hi, lo]) => at += 4 + usize::from(u16::from_be_bytes([hi, lo])),
            _ => break,
        }
    }
    n
}

/// Parses the options in `buf`, which starts at `base` in the message. `depth` counts the
/// encapsulating options around `buf`.
pub(crate) fn parse_options<'a>(
    buf: &'a [u8],
    base: usize,
    depth: u8,
    errors: &mut Vec<DecodeError>,
) -> Vec<Opt<'a>> {
    let mut out = Vec::with_capacity(option_count(buf));
    let mut rest = buf;
    while !rest.is_empty() {
        let at = base.saturating_add(buf.len() - rest.len());
        let Ok((data, (c, len))) = header(rest) else {
            errors.push(DecodeError::new(
                at,
                format!(
                    "{} bytes after the last option are too few for an option header (4 bytes)",
                    rest.len()
                ),
            ));
            break;
        };
        let len = usize::from(len);
        let (data, next) = if len > data.len() {
            errors.push(DecodeError::new(
                at,
                format!(
                    "option {c} ({}) says it has {len} bytes of data, only {} are left",
                    super::names::option_name(c),
                    data.len()
                ),
            ));
            (data, &[][..])
        } else {
            data.split_at(len)
        };
        let value = if len > data.len() {
            // A relayed message cut short is still followed: most of it may be there.
            if c == code::RELAY_MSG {
                OptValue::RelayMsg(RelayMsg::Raw(Cow::Borrowed(data)))
            } else {
                OptValue::Raw(Cow::Borrowed(data))
            }
        } else {
            decode_value(c, data, at.saturating_add(4), depth, errors)
        };
        out.push(Opt {
            code: c,
            value,
            pos: Pos::new(at, 4 + data.len()),
            claimed_len: (len > data.len()).then_some(len as u16),
        });
        rest = next;
    }
    out
}

fn header(i: &[u8]) -> IResult<&[u8], (u16, u16)> {
    (be_u16, be_u16).parse(i)
}

/// Types one option's data found at `at`; data that does not fit stays raw and becomes an error.
pub(crate) fn decode_value<'a>(
    c: u16,
    data: &'a [u8],
    at: usize,
    depth: u8,
    errors: &mut Vec<DecodeError>,
) -> OptValue<'a> {
    let raw = || OptValue::Raw(Cow::Borrowed(data));
    let nested = depth.saturating_add(1);
    if is_encapsulating(c) && nested > MAX_NESTING {
        errors.push(DecodeError::new(
            at.saturating_sub(4),
            format!("options nested deeper than {MAX_NESTING} levels are not decoded"),
        ));
        return raw();
    }
    let bad = |errors: &mut Vec<DecodeError>, what: &str| {
        errors.push(DecodeError::new(
            at.saturating_sub(4),
            format!(
                "option {c} ({}): {} bytes of data do not fit its format ({what})",
                super::names::option_name(c),
                data.len()
            ),
        ));
        OptValue::Raw(Cow::Borrowed(data))
    };
    match c {
        code::CLIENTID | code::SERVERID => {
            let d = Duid(Cow::Borrowed(data));
            if let Some(e) = d.check() {
                errors.push(e.shifted(at));
            }
            if c == code::CLIENTID {
                OptValue::ClientId(d)
            } else {
                OptValue::ServerId(d)
            }
        }
        code::IA_NA | code::IA_PD => match ia_fixed(data) {
            Ok((rest, (iaid, t1, t2))) => {
                let options = parse_options(rest, at + IA_FIXED, nested, errors);
                let ia = Ia {
                    iaid,
                    t1,
                    t2,
                    options,
                };
                if c == code::IA_NA {
                    OptValue::IaNa(ia)
                } else {
                    OptValue::IaPd(ia)
                }
            }
            Err(_) => bad(errors, "IAID, T1, T2: at least 12 bytes"),
        },
        code::IA_TA => match be_u32::<_, nom::error::Error<&[u8]>>(data) {
            Ok((rest, iaid)) => OptValue::IaTa(IaTa {
                iaid,
                options: parse_options(rest, at + IA_TA_FIXED, nested, errors),
            }),
            Err(_) => bad(errors, "IAID: at least 4 bytes"),
        },
        code::IAADDR => match iaaddr_fixed(data) {
            Ok((rest, (address, p, v))) => OptValue::IaAddr(IaAddr {
                address,
                preferred_lifetime: p,
                valid_lifetime: v,
                options: parse_options(rest, at + IAADDR_FIXED, nested, errors),
            }),
            Err(_) => bad(errors, "address and lifetimes: at least 24 bytes"),
        },
        code::IAPREFIX => match iaprefix_fixed(data) {
            Ok((rest, (p, v, prefix_len, prefix))) => OptValue::IaPrefix(IaPrefix {
                preferred_lifetime: p,
                valid_lifetime: v,
                prefix_len,
                prefix,
                options: parse_options(rest, at + IAPREFIX_FIXED, nested, errors),
            }),
            Err(_) => bad(
                errors,
                "lifetimes, prefix length and prefix: at least 25 bytes",
            ),
        },
        code::ORO => {
            if data.len() % 2 != 0 {
                return bad(errors, "a list of 2-byte option codes");
            }
            OptValue::Oro(
                data.chunks_exact(2)
                    .map(|c| u16::from_be_bytes([c[0], c[1]]))
                    .collect(),
            )
        }
        code::PREFERENCE => match data {
            [p] => OptValue::Preference(*p),
            _ => bad(errors, "1 byte"),
        },
        code::ELAPSED_TIME => match data {
            [a, b] => OptValue::ElapsedTime(u16::from_be_bytes([*a, *b])),
            _ => bad(errors, "2 bytes"),
        },
        code::RELAY_MSG => OptValue::RelayMsg(RelayMsg::Raw(Cow::Borrowed(data))),
        code::AUTH => match auth(data) {
            Ok((info, (protocol, algorithm, rdm, replay_detection))) => OptValue::Auth {
                protocol,
                algorithm,
                rdm,
                replay_detection,
                info: Cow::Borrowed(info),
            },
            Err(_) => bad(
                errors,
                "protocol, algorithm, RDM, replay detection: at least 11 bytes",
            ),
        },
        code::UNICAST => match <[u8; 16]>::try_from(data) {
            Ok(a) => OptValue::Unicast(Ipv6Addr::from(a)),
            Err(_) => bad(errors, "16 bytes"),
        },
        code::STATUS_CODE => match data {
            [a, b, msg @ ..] => OptValue::StatusCode {
                code: u16::from_be_bytes([*a, *b]),
                message: Cow::Borrowed(msg),
            },
            _ => bad(errors, "a 2-byte code and a message"),
        },
        code::RAPID_COMMIT | code::RECONF_ACCEPT => {
            if data.is_empty() {
                OptValue::Empty
            } else {
                bad(errors, "no data")
            }
        }
        code::USER_CLASS => match length_prefixed(data) {
            Some(v) => OptValue::UserClass(v),
            None => bad(errors, "2-byte-length-prefixed class data"),
        },
        code::VENDOR_CLASS => {
            match enterprise(data).and_then(|(rest, e)| length_prefixed(rest).map(|v| (e, v))) {
                Some((enterprise, data)) => OptValue::VendorClass { enterprise, data },
                None => bad(
                    errors,
                    "enterprise number and 2-byte-length-prefixed class data",
                ),
            }
        }
        code::VENDOR_OPTS => {
            match enterprise(data).and_then(|(rest, e)| suboptions(rest).map(|v| (e, v))) {
                Some((enterprise, options)) => OptValue::VendorOpts {
                    enterprise,
                    options,
                },
                None => bad(errors, "enterprise number and code/length/data sub-options"),
            }
        }
        code::INTERFACE_ID => OptValue::InterfaceId(Cow::Borrowed(data)),
        code::RECONF_MSG => match data {
            [t] => OptValue::ReconfMsg(*t),
            _ => bad(errors, "1 byte"),
        },
        code::SIP_SERVER_A
        | code::DNS_SERVERS
        | 27
        | 28
        | code::SNTP_SERVERS
        | 34
        | 40
        | 52
        | code::LQ_CLIENT_LINK
        | code::DHCP4_O_DHCP6_SERVER => {
            if data.len() % 16 != 0 {
                return bad(errors, "a list of 16-byte IPv6 addresses");
            }
            OptValue::Addresses(
                data.chunks_exact(16)
                    .filter_map(|c| <[u8; 16]>::try_from(c).ok().map(Ipv6Addr::from))
                    .collect(),
            )
        }
        code::SIP_SERVER_D | code::DOMAIN_LIST | 29 | 30 | 33 | code::AFTR_NAME => {
            let n = Names(Cow::Borrowed(data));
            if let Some((off, what)) = n.error() {
                errors.push(DecodeError::new(at.saturating_add(off), what));
            }
            OptValue::DomainNames(n)
        }
        code::CLIENT_FQDN => match data.split_first() {
            Some((&flags, name)) => {
                let n = Names(Cow::Borrowed(name));
                if let Some((off, what)) = n.error() {
                    errors.push(DecodeError::new(at.saturating_add(1 + off), what));
                }
                OptValue::ClientFqdn { flags, name: n }
            }
            None => bad(errors, "flags and a name"),
        },
        code::NTP_SERVER => match suboptions(data) {
            Some(v) => {
                let mut sub_at = at;
                for s in &v {
                    if matches!(s.code, 1 | 2) && s.data.len() != 16 {
                        errors.push(DecodeError::new(
                            sub_at,
                            format!(
                                "NTP server sub-option {} should hold 16 bytes, has {}",
                                s.code,
                                s.data.len()
                            ),
                        ));
                    }
                    sub_at = sub_at.saturating_add(4 + s.data.len());
                }
                OptValue::NtpServer(v)
            }
            None => bad(errors, "code/length/data sub-options"),
        },
        code::LQ_QUERY => match lq_query_fixed(data) {
            Ok((rest, (query_type, link_address))) => OptValue::LqQuery(LqQuery {
                query_type,
                link_address,
                options: parse_options(rest, at + LQ_QUERY_FIXED, nested, errors),
            }),
            Err(_) => bad(errors, "query type and link address: at least 17 bytes"),
        },
        code::CLIENT_DATA => OptValue::ClientData(parse_options(data, at, nested, errors)),
        code::CLT_TIME => match data {
            [a, b, c, d] => OptValue::CltTime(u32::from_be_bytes([*a, *b, *c, *d])),
            _ => bad(errors, "4 bytes"),
        },
        code::LQ_RELAY_DATA => match data.split_first_chunk::<16>() {
            Some((peer, msg)) => OptValue::LqRelayData(LqRelayData {
                peer_address: Ipv6Addr::from(*peer),
                message: Box::new(parse_nested(msg, at + LQ_RELAY_DATA_FIXED, nested, errors)),
            }),
            None => bad(
                errors,
                "peer address and a relay message: at least 16 bytes",
            ),
        },
        code::DHCPV4_MSG => {
            let (m, e) = dhcpv4::parse(data);
            errors.extend(e.into_iter().map(|e| e.shifted(at)));
            OptValue::Dhcpv4Msg(Box::new(m))
        }
        code::MUD_URL => OptValue::Text(Cow::Borrowed(data)),
        _ => raw(),
    }
}

fn is_encapsulating(c: u16) -> bool {
    matches!(
        c,
        code::IA_NA
            | code::IA_TA
            | code::IA_PD
            | code::IAADDR
            | code::IAPREFIX
            | code::LQ_QUERY
            | code::CLIENT_DATA
            | code::LQ_RELAY_DATA
    )
}

fn auth(i: &[u8]) -> IResult<&[u8], (u8, u8, u8, u64)> {
    (be_u8, be_u8, be_u8, be_u64).parse(i)
}

fn enterprise(data: &[u8]) -> Option<(&[u8], u32)> {
    be_u32::<_, nom::error::Error<&[u8]>>(data).ok()
}

/// `length u16 | data` items filling `data` exactly.
fn length_prefixed(data: &[u8]) -> Option<Vec<Cow<'_, [u8]>>> {
    let mut out = Vec::new();
    let mut rest = data;
    while !rest.is_empty() {
        let (r, n) = be_u16::<_, nom::error::Error<&[u8]>>(rest).ok()?;
        let n = usize::from(n);
        if n > r.len() {
            return None;
        }
        let (item, r) = r.split_at(n);
        out.push(Cow::Borrowed(item));
        rest = r;
    }
    Some(out)
}

/// `code u16 | length u16 | data` items filling `data` exactly.
fn suboptions(data: &[u8]) -> Option<Vec<SubOpt<'_>>> {
    let mut out = Vec::new();
    let mut rest = data;
    while !rest.is_empty() {
        let (r, (c, n)) = header(rest).ok()?;
        let n = usize::from(n);
        if n > r.len() {
            return None;
        }
        let (item, r) = r.split_at(n);
        out.push(SubOpt {
            code: c,
            data: Cow::Borrowed(item),
        });
        rest = r;
    }
    Some(out)
}

impl<'a> SubOpt<'a> {
    pub fn new(code: u16, data: impl Into<Cow<'a, [u8]>>) -> Self {
        SubOpt {
            code,
            data: data.into(),
        }
    }

    /// The address of an NTP server or multicast sub-option.
    pub fn address(&self) -> Option<Ipv6Addr> {
        <[u8; 16]>::try_from(self.data.as_ref())
            .ok()
            .map(Ipv6Addr::from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_capacity_is_the_number_of_options_found() {
        let cases: [&[u8]; 4] = [
            // Client id of 2 bytes, preference, elapsed time of 0 bytes (kept raw).
            &[0, 1, 0, 2, 7, 7, 0, 7, 0, 1, 5, 0, 8, 0, 0],
            // An option longer than what is left, kept raw.
            &[0, 1, 0, 2, 7, 7, 0, 2, 0, 12, 1, 2],
            &[],
            &[0, 6, 0, 0],
        ];
        for b in cases {
            let mut e = Vec::new();
            assert_eq!(
                option_count(b),
                parse_options(b, 4, 0, &mut e).len(),
                "{b:?}"
            );
        }
        // Bytes too few for a header: counted, though the parser reports them and stops.
        assert_eq!(option_count(&[0, 1, 0, 0, 0, 1]), 2);
    }

    #[test]
    fn bounded_by_the_buffer_whatever_the_lengths_say() {
        // Options of length 0 are 4 bytes each.
        assert_eq!(option_count(&[0u8; 64]), 16);
        assert_eq!(option_count(&[0xffu8; 64]), 1);
    }
}
