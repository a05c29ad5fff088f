//! DHCPv4 options (RFC 2132 and successors): `code u8 | length u8 | data`, PAD (0) and END (255)
//! without a length. Options keep their order, repeats and positions; the values the analysers
//! and the display need are typed by the shape the option's RFC gives them.

use std::borrow::Cow;
use std::net::Ipv4Addr;

use nom::bytes::complete::take;
use nom::number::complete::{be_i32, be_u16, be_u32, be_u8};
use nom::{IResult, Parser};

use super::pos::Pos;
use super::relay_agent::{parse_suboptions, SubOpt};
use crate::error::DecodeError;

/// Option codes poolshark gives a meaning to.
pub mod code {
    pub const PAD: u8 = 0;
    pub const SUBNET_MASK: u8 = 1;
    pub const ROUTER: u8 = 3;
    pub const DOMAIN_NAME_SERVER: u8 = 6;
    pub const HOST_NAME: u8 = 12;
    pub const DOMAIN_NAME: u8 = 15;
    pub const REQUESTED_IP: u8 = 50;
    pub const LEASE_TIME: u8 = 51;
    pub const OVERLOAD: u8 = 52;
    pub const MESSAGE_TYPE: u8 = 53;
    pub const SERVER_ID: u8 = 54;
    pub const PARAMETER_REQUEST_LIST: u8 = 55;
    pub const MESSAGE: u8 = 56;
    pub const MAX_MESSAGE_SIZE: u8 = 57;
    pub const RENEWAL_TIME: u8 = 58;
    pub const REBINDING_TIME: u8 = 59;
    pub const VENDOR_CLASS_ID: u8 = 60;
    pub const CLIENT_ID: u8 = 61;
    pub const USER_CLASS: u8 = 77;
    pub const CLIENT_FQDN: u8 = 81;
    pub const VI_VENDOR_SPECIFIC: u8 = 125;
    pub const FORCERENEW_NONCE_CAPABLE: u8 = 145;
    pub const RELAY_AGENT_INFO: u8 = 82;
    pub const CLIENT_LAST_TRANSACTION_TIME: u8 = 91;
    pub const ASSOCIATED_IP: u8 = 92;
    pub const IPV6_ONLY_PREFERRED: u8 = 108;
    pub const CAPTIVE_PORTAL: u8 = 114;
    pub const CLASSLESS_STATIC_ROUTE: u8 = 121;
    pub const V_I_VENDOR_CLASS: u8 = 124;
    pub const MUD_URL: u8 = 161;
    pub const END: u8 = 255;
}

/// One option as it sat on the wire.
#[derive(Clone, Debug, PartialEq)]
pub struct Opt<'a> {
    /// The option code (0 for a run of PAD bytes, 255 for END).
    pub code: u8,
    pub value: OptValue<'a>,
    pub pos: Pos,
    /// The length field, when it claims more bytes than the message holds (the option is cut
    /// short: `value` is the bytes there are, kept raw).
    pub claimed_len: Option<u8>,
}

/// An option's value, typed by its shape.
#[derive(Clone, Debug, PartialEq)]
pub enum OptValue<'a> {
    /// A run of this many PAD bytes.
    Pad(usize),
    End,
    /// Option 53.
    MessageType(u8),
    /// One IPv4 address (options 1, 16, 28, 32, 50, 54, 118).
    Addr(Ipv4Addr),
    /// A list of IPv4 addresses (routers, servers, option 92, ...).
    Addrs(Vec<Ipv4Addr>),
    U8(u8),
    U16(u16),
    U32(u32),
    I32(i32),
    /// Text as sent (not always valid UTF-8, sometimes NUL-terminated).
    Text(Cow<'a, [u8]>),
    /// Option 55: the requested option codes.
    ParameterRequestList(Cow<'a, [u8]>),
    /// Option 61: the whole payload, type byte first (what RFC 3074 hashes).
    ClientId(Cow<'a, [u8]>),
    /// Option 77 in RFC 3004 form: length-prefixed instances.
    UserClass(Vec<Cow<'a, [u8]>>),
    /// Option 81 (RFC 4702).
    ClientFqdn {
        flags: u8,
        rcode1: u8,
        rcode2: u8,
        name: Cow<'a, [u8]>,
    },
    /// Option 82 (RFC 3046) and its sub-options.
    RelayAgentInfo(Vec<SubOpt<'a>>),
    /// Option 121 (RFC 3442).
    ClasslessRoutes(Vec<Route>),
    /// Anything else, and typed options whose data did not fit their shape.
    Raw(Cow<'a, [u8]>),
}

/// One route of option 121: the destination keeps only its significant octets on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Route {
    /// Prefix length, 0..=32.
    pub width: u8,
    pub destination: Ipv4Addr,
    pub router: Ipv4Addr,
}

impl Route {
    /// Octets of the destination written on the wire.
    pub fn significant_octets(&self) -> usize {
        usize::from(self.width).div_ceil(8).min(4)
    }
}

/// The shape the RFCs give an option's data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Shape {
    MessageType,
    Addr,
    Addrs,
    U8,
    U16,
    U32,
    I32,
    Text,
    ParameterList,
    ClientId,
    UserClass,
    Fqdn,
    RelayAgent,
    Classless,
    Raw,
}

fn shape(code: u8) -> Shape {
    match code {
        53 => Shape::MessageType,
        1 | 16 | 28 | 32 | 50 | 54 | 118 => Shape::Addr,
        3..=11 | 41 | 42 | 44 | 45 | 48 | 49 | 65 | 68..=76 | 92 | 150 => Shape::Addrs,
        19 | 20 | 23 | 27 | 29..=31 | 34 | 36 | 37 | 39 | 46 | 52 | 116 => Shape::U8,
        13 | 22 | 26 | 57 => Shape::U16,
        24 | 35 | 38 | 51 | 58 | 59 | 91 | 108 => Shape::U32,
        2 => Shape::I32,
        12 | 14 | 15 | 17 | 18 | 40 | 47 | 56 | 60 | 62 | 64 | 66 | 67 | 86 | 87 | 100 | 101
        | 114 | 161 => Shape::Text,
        55 => Shape::ParameterList,
        61 => Shape::ClientId,
        77 => Shape::UserClass,
        81 => Shape::Fqdn,
        82 => Shape::RelayAgent,
        121 => Shape::Classless,
        _ => Shape::Raw,
    }
}

impl<'a> Opt<'a> {
    /// Position of the option's data (after code and length).
    pub fn data_offset(&self) -> usize {
        self.pos.offset.saturating_add(2)
    }

    /// The option's data as it is (or would be) on the wire, without code and length.
    pub fn data(&self) -> Cow<'_, [u8]> {
        self.value.encode()
    }

    /// Drops the borrow on the parsed buffer.
    pub fn into_owned(self) -> Opt<'static> {
        Opt {
            code: self.code,
            value: self.value.into_owned(),
            pos: self.pos,
            claimed_len: self.claimed_len,
        }
    }
}

fn own(c: Cow<'_, [u8]>) -> Cow<'static, [u8]> {
    Cow::Owned(c.into_owned())
}

impl OptValue<'_> {
    pub fn into_owned(self) -> OptValue<'static> {
        match self {
            OptValue::Pad(n) => OptValue::Pad(n),
            OptValue::End => OptValue::End,
            OptValue::MessageType(t) => OptValue::MessageType(t),
            OptValue::Addr(a) => OptValue::Addr(a),
            OptValue::Addrs(a) => OptValue::Addrs(a),
            OptValue::U8(v) => OptValue::U8(v),
            OptValue::U16(v) => OptValue::U16(v),
            OptValue::U32(v) => OptValue::U32(v),
            OptValue::I32(v) => OptValue::I32(v),
            OptValue::Text(t) => OptValue::Text(own(t)),
            OptValue::ParameterRequestList(l) => OptValue::ParameterRequestList(own(l)),
            OptValue::ClientId(c) => OptValue::ClientId(own(c)),
            OptValue::UserClass(v) => OptValue::UserClass(v.into_iter().map(own).collect()),
            OptValue::ClientFqdn {
                flags,
                rcode1,
                rcode2,
                name,
            } => OptValue::ClientFqdn {
                flags,
                rcode1,
                rcode2,
                name: own(name),
            },
            OptValue::RelayAgentInfo(s) => {
                OptValue::RelayAgentInfo(s.into_iter().map(SubOpt::into_owned).collect())
            }
            OptValue::ClasslessRoutes(r) => OptValue::ClasslessRoutes(r),
            OptValue::Raw(r) => OptValue::Raw(own(r)),
        }
    }
}

/// What one pass over an option area (the options field, or an overloaded `file` or `sname`)
/// found.
#[derive(Debug)]
pub(crate) struct Area<'a> {
    pub options: Vec<Opt<'a>>,
    /// Whether an END option closed the area.
    pub ended: bool,
    /// Where the bytes after END (padding, or whatever follows) start in the area.
    pub rest_start: usize,
}

/// How many options `parse_area` finds in `buf` (a run of pads is one; END is the last), walking
/// the length bytes only: the capacity of its list, allocated once.
fn option_count(buf: &[u8]) -> usize {
    let (mut n, mut at) = (0usize, 0usize);
    while let Some(&c) = buf.get(at) {
        n += 1;
        match c {
            code::PAD => {
                at += buf
                    .get(at..)
                    .map_or(1, |r| r.iter().take_while(|&&b| b == 0).count());
            }
            code::END => break,
            _ => match buf.get(at + 1) {
                Some(&len) => at += 2 + usize::from(len),
                None => break,
            },
        }
    }
    n
}

/// Parses one option area. `base` is where `buf` starts in the message; errors are pushed with
/// message offsets.
pub(crate) fn parse_area<'a>(
    buf: &'a [u8],
    base: usize,
    errors: &mut Vec<DecodeError>,
) -> Area<'a> {
    let mut options = Vec::with_capacity(option_count(buf));
    let mut at = 0usize;
    while let Some(&c) = buf.get(at) {
        let offset = base.saturating_add(at);
        match c {
            code::PAD => {
                let run = buf[at..].iter().take_while(|&&b| b == 0).count();
                options.push(Opt {
                    code: c,
                    value: OptValue::Pad(run),
                    pos: Pos::new(offset, run),
                    claimed_len: None,
                });
                at += run;
            }
            code::END => {
                options.push(Opt {
                    code: c,
                    value: OptValue::End,
                    pos: Pos::new(offset, 1),
                    claimed_len: None,
                });
                return Area {
                    options,
                    ended: true,
                    rest_start: at + 1,
                };
            }
            _ => {
                let Some(&len) = buf.get(at + 1) else {
                    errors.push(DecodeError::new(
                        offset,
                        format!("option {c} has no length byte: the options end after its code"),
                    ));
                    return Area {
                        options,
                        ended: false,
                        rest_start: at,
                    };
                };
                let len = usize::from(len);
                let start = at + 2;
                let avail = buf.len() - start;
                let data = if len > avail {
                    errors.push(DecodeError::new(
                        offset,
                        format!(
                            "option {c} says it has {len} bytes of data, only {avail} are left"
                        ),
                    ));
                    &buf[start..]
                } else {
                    &buf[start..start + len]
                };
                let value = if len > avail {
                    OptValue::Raw(Cow::Borrowed(data))
                } else {
                    decode_value(c, data, offset.saturating_add(2), errors)
                };
                options.push(Opt {
                    code: c,
                    value,
                    pos: Pos::new(offset, 2 + data.len()),
                    claimed_len: (len > avail).then_some(len as u8),
                });
                at = start + data.len();
            }
        }
    }
    Area {
        options,
        ended: false,
        rest_start: buf.len(),
    }
}

/// Types one option's data; data that does not fit the shape stays raw and becomes an error.
pub(crate) fn decode_value<'a>(
    c: u8,
    data: &'a [u8],
    offset: usize,
    errors: &mut Vec<DecodeError>,
) -> OptValue<'a> {
    let sh = shape(c);
    let typed = match sh {
        Shape::MessageType => exact(data, 1, be_u8).map(OptValue::MessageType),
        Shape::Addr => exact(data, 4, be_u32).map(|v| OptValue::Addr(v.into())),
        Shape::U8 => exact(data, 1, be_u8).map(OptValue::U8),
        Shape::U16 => exact(data, 2, be_u16).map(OptValue::U16),
        Shape::U32 => exact(data, 4, be_u32).map(OptValue::U32),
        Shape::I32 => exact(data, 4, be_i32).map(OptValue::I32),
        Shape::Addrs => addrs(data).map(OptValue::Addrs),
        Shape::Text => Some(OptValue::Text(Cow::Borrowed(data))),
        Shape::ParameterList => Some(OptValue::ParameterRequestList(Cow::Borrowed(data))),
        Shape::ClientId => Some(OptValue::ClientId(Cow::Borrowed(data))),
        Shape::UserClass => user_class(data).map(OptValue::UserClass),
        Shape::Fqdn => fqdn(data).ok().map(|(_, v)| v),
        Shape::RelayAgent => {
            let subs = parse_suboptions(data, offset, errors);
            Some(OptValue::RelayAgentInfo(subs))
        }
        Shape::Classless => classless(data).map(OptValue::ClasslessRoutes),
        Shape::Raw => Some(OptValue::Raw(Cow::Borrowed(data))),
    };
    match typed {
        Some(v) => v,
        None => {
            // RFC 3004 user classes are often sent as plain text (Windows): not worth an error.
            if sh != Shape::UserClass {
                errors.push(DecodeError::new(
                    offset.saturating_sub(2),
                    format!(
                        "option {c} ({}): {} bytes of data do not fit its format ({})",
                        super::names::option_name(c),
                        data.len(),
                        shape_text(sh)
                    ),
                ));
            }
            OptValue::Raw(Cow::Borrowed(data))
        }
    }
}

fn shape_text(sh: Shape) -> &'static str {
    match sh {
        Shape::MessageType | Shape::U8 => "1 byte",
        Shape::U16 => "2 bytes",
        Shape::Addr | Shape::U32 | Shape::I32 => "4 bytes",
        Shape::Addrs => "a non-empty multiple of 4 bytes",
        Shape::Fqdn => "flags, two rcodes and a name: at least 3 bytes",
        Shape::Classless => "width, significant destination octets, router; width at most 32",
        _ => "free form",
    }
}

fn exact<'a, T>(
    data: &'a [u8],
    n: usize,
    f: impl Fn(&'a [u8]) -> IResult<&'a [u8], T>,
) -> Option<T> {
    if data.len() != n {
        return None;
    }
    f(data).ok().map(|(_, v)| v)
}

fn addrs(data: &[u8]) -> Option<Vec<Ipv4Addr>> {
    if data.is_empty() || data.len() % 4 != 0 {
        return None;
    }
    Some(
        data.chunks_exact(4)
            .map(|c| Ipv4Addr::new(c[0], c[1], c[2], c[3]))
            .collect(),
    )
}

fn user_class(data: &[u8]) -> Option<Vec<Cow<'_, [u8]>>> {
    let mut out = Vec::new();
    let mut rest = data;
    while !rest.is_empty() {
        let (r, len) = be_u8::<_, nom::error::Error<&[u8]>>(rest).ok()?;
        // RFC 3004: every instance has at least one byte.
        if len == 0 {
            return None;
        }
        let (r, item) = take::<_, _, nom::error::Error<&[u8]>>(len).parse(r).ok()?;
        out.push(Cow::Borrowed(item));
        rest = r;
    }
    if out.is_empty() {
        None
    } else {
        Some(out)
    }
}

fn fqdn(data: &[u8]) -> IResult<&[u8], OptValue<'_>> {
    let (name, (flags, rcode1, rcode2)) = (be_u8, be_u8, be_u8).parse(data)?;
    Ok((
        &[][..],
        OptValue::ClientFqdn {
            flags,
            rcode1,
            rcode2,
            name: Cow::Borrowed(name),
        },
    ))
}

fn classless(data: &[u8]) -> Option<Vec<Route>> {
    let mut out = Vec::new();
    let mut rest = data;
    while let Some((&width, r)) = rest.split_first() {
        if width > 32 {
            return None;
        }
        let n = usize::from(width).div_ceil(8);
        if r.len() < n + 4 {
            return None;
        }
        let mut dest = [0u8; 4];
        dest[..n].copy_from_slice(&r[..n]);
        let g = &r[n..n + 4];
        out.push(Route {
            width,
            destination: Ipv4Addr::from(dest),
            router: Ipv4Addr::new(g[0], g[1], g[2], g[3]),
        });
        rest = &r[n + 4..];
    }
    if out.is_empty() {
        None
    } else {
        Some(out)
    }
}

impl OptValue<'_> {
    /// The data bytes of this value on the wire (without code and length). PAD and END have none.
    pub fn encode(&self) -> Cow<'_, [u8]> {
        match self {
            OptValue::Pad(_) | OptValue::End => Cow::Borrowed(&[]),
            OptValue::MessageType(v) | OptValue::U8(v) => Cow::Owned(vec![*v]),
            OptValue::Addr(a) => Cow::Owned(a.octets().to_vec()),
            OptValue::Addrs(v) => Cow::Owned(v.iter().flat_map(|a| a.octets()).collect()),
            OptValue::U16(v) => Cow::Owned(v.to_be_bytes().to_vec()),
            OptValue::U32(v) => Cow::Owned(v.to_be_bytes().to_vec()),
            OptValue::I32(v) => Cow::Owned(v.to_be_bytes().to_vec()),
            OptValue::Text(b)
            | OptValue::ParameterRequestList(b)
            | OptValue::ClientId(b)
            | OptValue::Raw(b) => Cow::Borrowed(b),
            OptValue::UserClass(items) => {
                let mut out = Vec::new();
                for i in items {
                    out.push(u8::try_from(i.len()).unwrap_or(u8::MAX));
                    out.extend_from_slice(&i[..i.len().min(255)]);
                }
                Cow::Owned(out)
            }
            OptValue::ClientFqdn {
                flags,
                rcode1,
                rcode2,
                name,
            } => {
                let mut out = vec![*flags, *rcode1, *rcode2];
                out.extend_from_slice(name);
                Cow::Owned(out)
            }
            OptValue::RelayAgentInfo(subs) => {
                let mut out = Vec::new();
                for s in subs {
                    s.write(&mut out);
                }
                Cow::Owned(out)
            }
            OptValue::ClasslessRoutes(routes) => {
                let mut out = Vec::new();
                for r in routes {
                    out.push(r.width.min(32));
                    out.extend_from_slice(&r.destination.octets()[..r.significant_octets()]);
                    out.extend_from_slice(&r.router.octets());
                }
                Cow::Owned(out)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn area(b: &[u8]) -> (Area<'_>, Vec<DecodeError>) {
        let mut e = Vec::new();
        let a = parse_area(b, 240, &mut e);
        (a, e)
    }

    #[test]
    fn the_capacity_is_the_number_of_options_found() {
        let cases: [&[u8]; 5] = [
            // A pad run, an option, a pad, END, then bytes past END.
            &[0, 0, 53, 1, 1, 0, 255, 9, 9],
            &[53, 1, 1, 61, 3, 1, 2, 3],
            // An option longer than what is left, kept raw.
            &[53, 1, 1, 12, 10, b'a', b'b'],
            &[],
            &[0, 0, 0],
        ];
        for b in cases {
            let (a, _) = area(b);
            assert_eq!(option_count(b), a.options.len(), "{b:?}");
        }
        // A code without its length byte: counted, though the parser reports it and stops.
        assert_eq!(option_count(&[53, 1, 1, 12]), 2);
    }

    #[test]
    fn an_option_cut_short_keeps_the_length_it_claims() {
        let (a, e) = area(&[53, 1, 1, 12, 10, b'a', b'b']);
        assert_eq!(
            e.iter()
                .map(|e| (e.offset, e.what.as_ref()))
                .collect::<Vec<_>>(),
            [(
                243,
                "option 12 says it has 10 bytes of data, only 2 are left"
            )]
        );
        let cut = &a.options[1];
        assert_eq!(cut.value, OptValue::Raw(Cow::Borrowed(&b"ab"[..])));
        assert_eq!((cut.claimed_len, cut.pos.len), (Some(10), 4));
        assert_eq!(a.options[0].claimed_len, None);
        // What -V and the fields show: the length on the wire.
        let f = super::super::fields::option_field(cut);
        let len = f.find("dhcp.option.length").expect("length");
        assert_eq!(len.display_value(), "10");
        assert_eq!((len.offset, len.len), (244, 1));
    }

    #[test]
    fn pad_runs_end_and_rest() {
        let (a, e) = area(&[0, 0, 0, 53, 1, 3, 255, 0, 0]);
        assert!(e.is_empty());
        assert!(a.ended);
        assert_eq!(a.rest_start, 7);
        assert_eq!(a.options.len(), 3);
        assert_eq!(a.options[0].value, OptValue::Pad(3));
        assert_eq!(a.options[1].value, OptValue::MessageType(3));
        assert_eq!(a.options[1].pos.offset, 243);
        assert_eq!(a.options[1].pos.len, 3);
        assert_eq!(a.options[2].value, OptValue::End);
    }

    #[test]
    fn typed_shapes() {
        let (a, e) = area(&[
            54, 4, 10, 0, 0, 1, 3, 8, 1, 2, 3, 4, 5, 6, 7, 8, 51, 4, 0, 0, 0x0e, 0x10, 2, 4, 0xff,
            0xff, 0xff, 0xf0, 61, 3, 0, b'a', b'b',
        ]);
        assert!(e.is_empty(), "{e:?}");
        let v: Vec<_> = a.options.iter().map(|o| o.value.clone()).collect();
        assert_eq!(v[0], OptValue::Addr(Ipv4Addr::new(10, 0, 0, 1)));
        assert_eq!(
            v[1],
            OptValue::Addrs(vec![Ipv4Addr::new(1, 2, 3, 4), Ipv4Addr::new(5, 6, 7, 8)])
        );
        assert_eq!(v[2], OptValue::U32(3600));
        assert_eq!(v[3], OptValue::I32(-16));
        assert_eq!(
            v[4],
            OptValue::ClientId(Cow::Borrowed(&[0, b'a', b'b'][..]))
        );
        assert!(!a.ended);
    }

    #[test]
    fn wrong_sizes_stay_raw_with_an_error() {
        let (a, e) = area(&[54, 3, 10, 0, 0, 255]);
        assert_eq!(
            a.options[0].value,
            OptValue::Raw(Cow::Borrowed(&[10, 0, 0][..]))
        );
        assert_eq!(e.len(), 1);
        assert_eq!(e[0].offset, 240);
        assert!(e[0].what.contains("Server Identifier"), "{}", e[0].what);
    }

    #[test]
    fn lengths_past_the_end() {
        let (a, e) = area(&[12, 10, b'h', b'o']);
        assert_eq!(e.len(), 1);
        assert_eq!(e[0].offset, 240);
        assert_eq!(a.options[0].value, OptValue::Raw(Cow::Borrowed(&b"ho"[..])));
        let (a, e) = area(&[1, 4, 255, 255, 255, 0, 12]);
        assert_eq!(e.len(), 1);
        assert_eq!(e[0].offset, 246);
        assert_eq!(a.options.len(), 1);
        assert_eq!(a.rest_start, 6);
    }

    #[test]
    fn classless_routes_rfc3442_example() {
        // RFC 3442 section 5 examples: 0/0 via 10.0.0.1 (5 bytes) and 10.17.0.0/16 via
        // 10.229.0.128 (7 bytes), 10.27.129.0/24 via 10.229.0.128 (8 bytes).
        let data = [
            0, 10, 0, 0, 1, 16, 10, 17, 10, 229, 0, 128, 24, 10, 27, 129, 10, 229, 0, 128,
        ];
        let mut e = Vec::new();
        let v = decode_value(121, &data, 2, &mut e);
        let OptValue::ClasslessRoutes(r) = &v else {
            panic!("{v:?}")
        };
        assert_eq!(r.len(), 3);
        assert_eq!(r[1].destination, Ipv4Addr::new(10, 17, 0, 0));
        assert_eq!(r[2].width, 24);
        assert_eq!(v.encode().as_ref(), &data[..]);
        let bad = decode_value(121, &[33, 1, 2, 3, 4, 5, 6, 7, 8], 2, &mut e);
        assert!(matches!(bad, OptValue::Raw(_)));
        assert_eq!(e.len(), 1);
    }

    #[test]
    fn user_class_rfc3004_or_plain_text() {
        let mut e = Vec::new();
        let v = decode_value(77, b"\x03abc\x01d", 2, &mut e);
        assert_eq!(
            v,
            OptValue::UserClass(vec![Cow::Borrowed(&b"abc"[..]), Cow::Borrowed(&b"d"[..])])
        );
        let v = decode_value(77, b"MSFT 5.0", 2, &mut e);
        assert_eq!(v, OptValue::Raw(Cow::Borrowed(&b"MSFT 5.0"[..])));
        assert!(e.is_empty());
    }
}
