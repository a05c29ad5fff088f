//! ASAP/ENRP parameters (RFC 5354 and the legacy numbering): the TLV walk and the typed values.
//!
//! The walk never trusts a length: a header cut short, a length under 4 or a length running past
//! the parent ends the walk with an error and the rest of the parent kept as
//! [`Parameter::Unprocessed`]. An unknown type is kept raw and handled by its top two bits: 10/11
//! skip it, 00/01 stop there, the rest of the parent kept unprocessed (not an error: the sender
//! asked for it).

use std::borrow::Cow;
use std::net::{Ipv4Addr, Ipv6Addr};

use nom::combinator::{all_consuming, map};
use nom::{IResult, Parser};

use crate::error::DecodeError;
use crate::proto::be::{be_i32, be_u128, be_u16, be_u32};

use super::causes::OperationError;
use super::numbering::{param_kind, ParamKind, UnknownAction};
use super::policy::Policy;
use super::transports::{Transport, TransportProtocol};
use super::wire::{padded, read_tlv, tlv_header};
use super::Encoding;

/// Nesting deeper than this (a parameter in a parameter in ...) is not decoded, so crafted input
/// cannot exhaust the stack. Real messages nest four levels at most (error cause, pool element,
/// transport, address).
pub const MAX_DEPTH: usize = 8;

/// Decoding state: the encoding and the errors found so far.
pub(crate) struct Ctx<'e> {
    pub enc: Encoding,
    pub errors: &'e mut Vec<DecodeError>,
}

impl Ctx<'_> {
    pub fn error(&mut self, offset: usize, what: impl Into<Cow<'static, str>>) {
        self.errors.push(DecodeError::new(offset, what));
    }
}

/// A pool handle's bytes.
pub type HandleBytes = smallvec::SmallVec<[u8; 32]>;

/// One parameter.
#[derive(Clone, Debug, PartialEq)]
pub enum Parameter {
    Ipv4(Ipv4Addr),
    Ipv6(Ipv6Addr),
    Transport(Transport),
    Policy(Policy),
    /// Inline up to 32 bytes (RFC 5354 suggests handles of at most 32).
    PoolHandle(HandleBytes),
    PoolElement(PoolElement),
    ServerInformation(ServerInformation),
    OperationError(OperationError),
    Cookie(Vec<u8>),
    PeIdentifier(u32),
    PeChecksum(u16),
    /// RFC 5354's opaque transport (0x10): a transport address in an application's own format.
    OpaqueTransport(Vec<u8>),
    /// Handle Resolution Option: how many PEs the pool user wants (0xffffffff = all).
    HandleResolutionOption(u32),
    /// A type the encoding does not define, value as received.
    Unknown {
        code: u16,
        value: Vec<u8>,
    },
    /// A known type whose value could not be decoded (an error says why), value as received.
    Invalid {
        code: u16,
        value: Vec<u8>,
    },
    /// The rest of the parent, not processed: after an unknown "stop" parameter, or after a
    /// parameter header that could not be trusted.
    Unprocessed(Vec<u8>),
}

impl Parameter {
    /// The kind of a decoded parameter (`None` for the raw variants).
    pub fn kind(&self) -> Option<ParamKind> {
        Some(match self {
            Parameter::Ipv4(_) => ParamKind::Ipv4,
            Parameter::Ipv6(_) => ParamKind::Ipv6,
            Parameter::Transport(t) => match t.protocol {
                TransportProtocol::Sctp => ParamKind::SctpTransport,
                TransportProtocol::Tcp => ParamKind::TcpTransport,
                TransportProtocol::Udp => ParamKind::UdpTransport,
                TransportProtocol::UdpLite => ParamKind::UdpLiteTransport,
                TransportProtocol::Dccp { .. } => ParamKind::DccpTransport,
            },
            Parameter::Policy(_) => ParamKind::Policy,
            Parameter::PoolHandle(_) => ParamKind::PoolHandle,
            Parameter::PoolElement(_) => ParamKind::PoolElement,
            Parameter::ServerInformation(_) => ParamKind::ServerInformation,
            Parameter::OperationError(_) => ParamKind::OperationError,
            Parameter::Cookie(_) => ParamKind::Cookie,
            Parameter::PeIdentifier(_) => ParamKind::PeIdentifier,
            Parameter::PeChecksum(_) => ParamKind::PeChecksum,
            Parameter::OpaqueTransport(_) => ParamKind::OpaqueTransport,
            Parameter::HandleResolutionOption(_) => ParamKind::HandleResolutionOption,
            Parameter::Unknown { .. } | Parameter::Invalid { .. } | Parameter::Unprocessed(_) => {
                return None
            }
        })
    }
}

/// A Pool Element parameter: the PE's identity and lifetime, then nested parameters (user
/// transport, policy, optional ASAP transport, in wire order).
#[derive(Clone, Debug, PartialEq)]
pub struct PoolElement {
    pub pe_id: u32,
    pub home_server_id: u32,
    /// Milliseconds (RSPLIB and Wireshark); -1 = infinite.
    pub registration_life: i32,
    pub params: Vec<Parameter>,
}

impl PoolElement {
    /// The transports, in wire order.
    pub fn transports(&self) -> impl Iterator<Item = &Transport> {
        self.params.iter().filter_map(|p| match p {
            Parameter::Transport(t) => Some(t),
            _ => None,
        })
    }

    /// The user transport: the first transport parameter before the policy (`None` when the PE
    /// registered an opaque transport instead).
    pub fn user_transport(&self) -> Option<&Transport> {
        self.params
            .iter()
            .take_while(|p| !matches!(p, Parameter::Policy(_)))
            .find_map(|p| match p {
                Parameter::Transport(t) => Some(t),
                _ => None,
            })
    }

    /// The ASAP transport: a transport parameter after the policy.
    pub fn asap_transport(&self) -> Option<&Transport> {
        let policy_at = self
            .params
            .iter()
            .position(|p| matches!(p, Parameter::Policy(_)))?;
        self.params
            .iter()
            .skip(policy_at + 1)
            .find_map(|p| match p {
                Parameter::Transport(t) => Some(t),
                _ => None,
            })
    }

    /// The opaque user transport, when the PE registered one instead of an address.
    pub fn opaque_transport(&self) -> Option<&[u8]> {
        self.params.iter().find_map(|p| match p {
            Parameter::OpaqueTransport(b) => Some(b.as_slice()),
            _ => None,
        })
    }

    pub fn policy(&self) -> Option<&Policy> {
        self.params.iter().find_map(|p| match p {
            Parameter::Policy(x) => Some(x),
            _ => None,
        })
    }
}

/// A Server Information parameter: an ENRP server's identifier and its SCTP transport.
#[derive(Clone, Debug, PartialEq)]
pub struct ServerInformation {
    pub server_id: u32,
    /// RSPLIB 2007 only: a 32-bit flags word after the identifier (`None` in the other encodings).
    pub flags: Option<u32>,
    pub params: Vec<Parameter>,
}

impl ServerInformation {
    pub fn transport(&self) -> Option<&Transport> {
        self.params.iter().find_map(|p| match p {
            Parameter::Transport(t) => Some(t),
            _ => None,
        })
    }
}

/// Walks the parameters nested in a parameter's value (`buf`, at `base` in the message). Inside a
/// parameter every nested parameter is padded and the padding counts in the parent's length; a
/// last parameter whose padding the parent's length leaves out is reported.
pub(crate) fn parse_params(
    ctx: &mut Ctx<'_>,
    buf: &[u8],
    base: usize,
    depth: usize,
) -> Vec<Parameter> {
    let (params, cut) = walk_params(ctx, buf, base, depth);
    if cut > 0 {
        ctx.error(
            base + buf.len(),
            format!(
                "the last nested parameter lacks its {cut} byte(s) of padding: its parent's length leaves them out"
            ),
        );
    }
    params
}

/// Walks a message's parameters (`buf`, at `base`). Returns them and how many bytes of padding
/// the last one lacks: a message length may leave the last parameter's padding out (SCTP's
/// convention) or count it (RSPLIB's), and the message remembers which.
pub(crate) fn walk_params(
    ctx: &mut Ctx<'_>,
    buf: &[u8],
    base: usize,
    depth: usize,
) -> (Vec<Parameter>, u8) {
    let mut cut = 0;
    // One allocation of the size the list will have, not the growing path's.
    let mut out = Vec::with_capacity(tlv_count(buf));
    if depth > MAX_DEPTH {
        ctx.error(
            base,
            format!("parameters nested deeper than {MAX_DEPTH} levels are not decoded"),
        );
        if !buf.is_empty() {
            out.push(Parameter::Unprocessed(buf.to_vec()));
        }
        return (out, 0);
    }
    let mut off = 0;
    while off < buf.len() {
        let rest = buf.get(off..).unwrap_or_default();
        let at = base + off;
        let tlv = match read_tlv(rest, "parameter", "parent") {
            Ok(t) => t,
            Err(what) => {
                ctx.error(at, what);
                out.push(Parameter::Unprocessed(rest.to_vec()));
                break;
            }
        };
        let (code, value) = (tlv.code, tlv.value);
        if tlv.dirty_padding {
            ctx.error(
                at + tlv.len,
                format!("parameter 0x{code:04x} is followed by non-zero padding"),
            );
        }
        off += tlv.next;
        // Only the TLV that ends the buffer can come short of its padding.
        cut = u8::try_from(padded(tlv.len) - tlv.next).unwrap_or(0);
        match param_kind(code, ctx.enc) {
            Some(kind) => out.push(parse_value(ctx, kind, code, value, at + 4, depth)),
            None => {
                out.push(Parameter::Unknown {
                    code,
                    value: value.to_vec(),
                });
                if UnknownAction::of(code).stops() {
                    if let Some(left) = buf.get(off..).filter(|l| !l.is_empty()) {
                        out.push(Parameter::Unprocessed(left.to_vec()));
                    }
                    break;
                }
            }
        }
    }
    (out, cut)
}

/// How many entries walking `buf` can give: its TLVs as their length fields chain, one more for
/// a rest that does not make a TLV (an unprocessed tail). A count, never trusted for more.
fn tlv_count(buf: &[u8]) -> usize {
    let (mut n, mut rest) = (0, buf);
    while !rest.is_empty() {
        n += 1;
        match tlv_header(rest) {
            Ok((_, (_, len))) if len >= 4 => {
                rest = rest.get(padded(usize::from(len))..).unwrap_or_default()
            }
            _ => break,
        }
    }
    n
}

/// IPv4 Address: the address.
fn ipv4(i: &[u8]) -> IResult<&[u8], Ipv4Addr> {
    map(be_u32, Ipv4Addr::from).parse(i)
}

/// IPv6 Address: the address.
fn ipv6(i: &[u8]) -> IResult<&[u8], Ipv6Addr> {
    map(be_u128, Ipv6Addr::from).parse(i)
}

/// PE Identifier: the identifier.
fn pe_identifier(i: &[u8]) -> IResult<&[u8], u32> {
    be_u32(i)
}

/// PE Checksum: the checksum.
fn pe_checksum(i: &[u8]) -> IResult<&[u8], u16> {
    be_u16(i)
}

/// Handle Resolution Option: the number of PEs wanted.
fn handle_resolution_option(i: &[u8]) -> IResult<&[u8], u32> {
    be_u32(i)
}

/// Pool Element before its nested parameters: PE identifier, home ENRP server identifier,
/// registration life.
fn pool_element_fixed(i: &[u8]) -> IResult<&[u8], (u32, u32, i32)> {
    (be_u32, be_u32, be_i32).parse(i)
}

/// Server Information before its nested parameter: the server identifier, then in RSPLIB 2007
/// a flags word.
fn server_information_fixed(i: &[u8], enc: Encoding) -> IResult<&[u8], (u32, Option<u32>)> {
    let (i, server_id) = be_u32(i)?;
    if enc == Encoding::Rsplib2007 {
        let (i, flags) = be_u32(i)?;
        Ok((i, (server_id, Some(flags))))
    } else {
        Ok((i, (server_id, None)))
    }
}

/// What `parser` reads from the whole of `value`; `None` when the value is shorter or longer.
fn exactly<'a, O>(
    value: &'a [u8],
    parser: impl Parser<&'a [u8], Output = O, Error = nom::error::Error<&'a [u8]>>,
) -> Option<O> {
    all_consuming(parser).parse(value).ok().map(|(_, o)| o)
}

/// Decodes the value of a parameter of a known kind; one that does not fit its kind becomes
/// [`Parameter::Invalid`] with an error.
fn parse_value(
    ctx: &mut Ctx<'_>,
    kind: ParamKind,
    code: u16,
    value: &[u8],
    base: usize,
    depth: usize,
) -> Parameter {
    let decoded = match kind {
        ParamKind::Ipv4 => exactly(value, ipv4).map(Parameter::Ipv4),
        ParamKind::Ipv6 => exactly(value, ipv6).map(Parameter::Ipv6),
        ParamKind::DccpTransport
        | ParamKind::SctpTransport
        | ParamKind::TcpTransport
        | ParamKind::UdpTransport
        | ParamKind::UdpLiteTransport => {
            let protocol = match kind {
                ParamKind::DccpTransport => TransportProtocol::Dccp { service_code: 0 },
                ParamKind::SctpTransport => TransportProtocol::Sctp,
                ParamKind::TcpTransport => TransportProtocol::Tcp,
                ParamKind::UdpTransport => TransportProtocol::Udp,
                _ => TransportProtocol::UdpLite,
            };
            Transport::parse(ctx, protocol, value, base, depth).map(Parameter::Transport)
        }
        ParamKind::Policy => Policy::parse(value, ctx.enc, base, ctx.errors).map(Parameter::Policy),
        ParamKind::PoolHandle => Some(Parameter::PoolHandle(HandleBytes::from_slice(value))),
        ParamKind::PoolElement => parse_pool_element(ctx, value, base, depth),
        ParamKind::ServerInformation => parse_server_information(ctx, value, base, depth),
        ParamKind::OperationError => Some(Parameter::OperationError(OperationError::parse(
            ctx, value, base, depth,
        ))),
        ParamKind::Cookie => Some(Parameter::Cookie(value.to_vec())),
        ParamKind::PeIdentifier => exactly(value, pe_identifier).map(Parameter::PeIdentifier),
        ParamKind::PeChecksum => exactly(value, pe_checksum).map(Parameter::PeChecksum),
        ParamKind::OpaqueTransport => Some(Parameter::OpaqueTransport(value.to_vec())),
        ParamKind::HandleResolutionOption => {
            exactly(value, handle_resolution_option).map(Parameter::HandleResolutionOption)
        }
    };
    decoded.unwrap_or_else(|| {
        // Policy and the containers report their own problems; the fixed-size ones here.
        if !matches!(kind, ParamKind::Policy) {
            ctx.error(
                base - 4,
                format!(
                    "{} (0x{code:04x}) has a {}-byte value, {}",
                    super::numbering::param_name(kind),
                    value.len(),
                    expected_size(kind, ctx.enc)
                ),
            );
        }
        Parameter::Invalid {
            code,
            value: value.to_vec(),
        }
    })
}

fn expected_size(kind: ParamKind, enc: Encoding) -> &'static str {
    match kind {
        ParamKind::Ipv4 => "expected 4",
        ParamKind::Ipv6 => "expected 16",
        ParamKind::PeIdentifier | ParamKind::HandleResolutionOption => "expected 4",
        ParamKind::PeChecksum => "expected 2",
        ParamKind::DccpTransport => "expected at least 8",
        ParamKind::PoolElement => "expected at least 12",
        ParamKind::ServerInformation if enc == Encoding::Rsplib2007 => "expected at least 8",
        _ => "expected at least 4",
    }
}

fn parse_pool_element(
    ctx: &mut Ctx<'_>,
    value: &[u8],
    base: usize,
    depth: usize,
) -> Option<Parameter> {
    let (nested, (pe_id, home_server_id, registration_life)) = pool_element_fixed(value).ok()?;
    let params = parse_params(ctx, nested, base + 12, depth + 1);
    Some(Parameter::PoolElement(PoolElement {
        pe_id,
        home_server_id,
        registration_life,
        params,
    }))
}

fn parse_server_information(
    ctx: &mut Ctx<'_>,
    value: &[u8],
    base: usize,
    depth: usize,
) -> Option<Parameter> {
    let (nested, (server_id, flags)) = server_information_fixed(value, ctx.enc).ok()?;
    let fixed = value.len() - nested.len();
    let params = parse_params(ctx, nested, base + fixed, depth + 1);
    Some(Parameter::ServerInformation(ServerInformation {
        server_id,
        flags,
        params,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(bytes: &[u8], enc: Encoding) -> (Vec<Parameter>, Vec<DecodeError>) {
        let mut errors = Vec::new();
        let mut ctx = Ctx {
            enc,
            errors: &mut errors,
        };
        let ps = parse_params(&mut ctx, bytes, 100, 0);
        (ps, errors)
    }

    #[test]
    fn dccp_transport_with_service_code() {
        // From the coverage capture: port 5001, reserved 0, service code 0x12345678, one IPv4.
        let b = [
            0, 3, 0, 20, 0x13, 0x89, 0, 0, 0x12, 0x34, 0x56, 0x78, 0, 1, 0, 8, 192, 0, 2, 10,
        ];
        let (ps, e) = params(&b, Encoding::Rfc);
        assert!(e.is_empty(), "{e:?}");
        let Parameter::Transport(t) = &ps[0] else {
            panic!("{ps:?}")
        };
        assert_eq!(
            t.protocol,
            TransportProtocol::Dccp {
                service_code: 0x1234_5678
            }
        );
        assert_eq!(t.port, 5001);
        assert_eq!(
            t.ip_addresses(),
            vec![std::net::IpAddr::from([192, 0, 2, 10])]
        );
        // The same bytes in the legacy numbering: 0x3 is the SCTP transport there.
        let (ps, _) = params(&b, Encoding::Rsplib2007);
        assert!(matches!(&ps[0], Parameter::Transport(t) if t.protocol == TransportProtocol::Sctp));
    }

    #[test]
    fn transport_without_address_is_an_error_but_kept() {
        let b = [0, 4, 0, 8, 0x0f, 0x17, 0, 1];
        let (ps, e) = params(&b, Encoding::Rfc);
        assert_eq!(e.len(), 1);
        assert_eq!(e[0].offset, 108);
        assert!(
            matches!(&ps[0], Parameter::Transport(t) if t.port == 3863 && t.addresses.is_empty())
        );
    }

    #[test]
    fn server_information_flags_word_only_in_rsplib_2007() {
        // From the 2007 capture's ENRP List Response: id 1, flags 0, SCTP 10001 with 10.255.255.1.
        let b = [
            0, 9, 0, 0x1c, 0, 0, 0, 1, 0, 0, 0, 0, 0, 3, 0, 0x10, 0x27, 0x11, 0, 0, 0, 1, 0, 8, 10,
            255, 255, 1,
        ];
        let (ps, e) = params(&b, Encoding::Rsplib2007);
        assert!(e.is_empty(), "{e:?}");
        let Parameter::ServerInformation(s) = &ps[0] else {
            panic!()
        };
        assert_eq!((s.server_id, s.flags), (1, Some(0)));
        assert_eq!(s.transport().map(|t| t.port), Some(10001));
        // Read as the draft (no flags word), the zero word is a parameter of length 0.
        let (_, e) = params(&b, Encoding::Draft01);
        assert!(e
            .iter()
            .any(|x| x.offset == 108 && x.what.contains("length 0")));
    }

    #[test]
    fn pool_element_accessors_follow_wire_order() {
        let mut b = vec![0, 0xa, 0, 0];
        b.extend_from_slice(&[0, 0, 0, 7, 0, 0, 0, 1, 0xff, 0xff, 0xff, 0xff]);
        b.extend_from_slice(&[0, 0x10, 0, 7, b'a', b'b', b'c', 0]);
        b.extend_from_slice(&[0, 8, 0, 8, 0, 0, 0, 1]);
        b.extend_from_slice(&[0, 4, 0, 16, 0x9c, 0x41, 0, 0, 0, 1, 0, 8, 192, 0, 2, 10]);
        let n = b.len() as u16;
        b[2..4].copy_from_slice(&n.to_be_bytes());
        let (ps, e) = params(&b, Encoding::Rfc);
        assert!(e.is_empty(), "{e:?}");
        let Parameter::PoolElement(pe) = &ps[0] else {
            panic!()
        };
        assert_eq!(pe.registration_life, -1);
        assert_eq!(pe.opaque_transport(), Some(&b"abc"[..]));
        assert!(
            pe.user_transport().is_none(),
            "the opaque transport is the user's"
        );
        assert_eq!(pe.asap_transport().map(|t| t.port), Some(40001));
        assert_eq!(pe.transports().count(), 1);
        assert_eq!(
            pe.policy().map(Policy::kind),
            Some(crate::proto::rserpool::PolicyKind::RoundRobin)
        );
    }

    #[test]
    fn lists_are_allocated_at_their_length() {
        // A PE with an opaque transport, a policy and an SCTP transport of two addresses; then a
        // stop-unknown parameter (0x8000 clear: stop) followed by bytes left unprocessed; then
        // a tail too short for a header.
        let mut pe = vec![0, 0xa, 0, 0, 0, 0, 0, 7, 0, 0, 0, 1, 0xff, 0xff, 0xff, 0xff];
        pe.extend_from_slice(&[0, 0x10, 0, 7, b'a', b'b', b'c', 0]);
        pe.extend_from_slice(&[0, 8, 0, 8, 0, 0, 0, 1]);
        pe.extend_from_slice(&[0, 4, 0, 24, 0x9c, 0x41, 0, 0]);
        pe.extend_from_slice(&[0, 1, 0, 8, 192, 0, 2, 10, 0, 1, 0, 8, 192, 0, 2, 11]);
        let n = pe.len() as u16;
        pe[2..4].copy_from_slice(&n.to_be_bytes());
        let mut stop = pe.clone();
        stop.extend_from_slice(&[0x3f, 0x00, 0, 4, 0, 9, 0, 5, b'x', 0, 0, 0]);
        let mut short = pe.clone();
        short.extend_from_slice(&[0, 9]);
        for (b, len) in [(&pe, 1), (&stop, 3), (&short, 2)] {
            let (ps, _) = params(b, Encoding::Rfc);
            assert_eq!((ps.len(), ps.capacity()), (len, len), "{ps:?}");
            let Parameter::PoolElement(p) = &ps[0] else {
                panic!("{ps:?}")
            };
            assert_eq!((p.params.len(), p.params.capacity()), (3, 3));
            let t = p.transports().next().expect("the SCTP transport");
            assert_eq!((t.addresses.len(), t.addresses.capacity()), (2, 2));
        }
    }

    #[test]
    fn non_zero_padding_is_reported() {
        let b = [0, 9, 0, 5, b'x', 1, 0, 0];
        let (ps, e) = params(&b, Encoding::Rfc);
        assert_eq!(
            ps,
            vec![Parameter::PoolHandle(HandleBytes::from_slice(b"x"))]
        );
        assert_eq!(e.len(), 1);
        assert_eq!(e[0].offset, 105);
    }
}
