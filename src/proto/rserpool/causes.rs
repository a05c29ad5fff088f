//! Error causes of the Operation Error parameter (RFC 5354 section 3.11).

use super::parameters::{parse_params, Ctx, Parameter};
use super::wire::read_tlv;

/// The cause codes of RFC 5354.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CauseKind {
    Unspecified,
    UnrecognizedParameter,
    UnrecognizedMessage,
    InvalidValues,
    NonUniquePeIdentifier,
    PoolingPolicyInconsistent,
    LackOfResources,
    InconsistentTransportType,
    InconsistentDataControlConfiguration,
    UnknownPoolHandle,
    RejectedForSecurity,
    /// Any other code (RSPLIB sends internal numbers such as 0x10 and 0x11).
    Other(u16),
}

impl CauseKind {
    pub fn of(code: u16) -> CauseKind {
        match code {
            0x0 => CauseKind::Unspecified,
            0x1 => CauseKind::UnrecognizedParameter,
            0x2 => CauseKind::UnrecognizedMessage,
            0x3 => CauseKind::InvalidValues,
            0x4 => CauseKind::NonUniquePeIdentifier,
            0x5 => CauseKind::PoolingPolicyInconsistent,
            0x6 => CauseKind::LackOfResources,
            0x7 => CauseKind::InconsistentTransportType,
            0x8 => CauseKind::InconsistentDataControlConfiguration,
            0x9 => CauseKind::UnknownPoolHandle,
            0xa => CauseKind::RejectedForSecurity,
            c => CauseKind::Other(c),
        }
    }

    /// Wireshark's name; `None` where Wireshark has none (it calls those "Unknown").
    pub fn wireshark_name(self) -> Option<&'static str> {
        Some(match self {
            CauseKind::UnrecognizedParameter => "Unrecognized parameter",
            CauseKind::UnrecognizedMessage => "Unrecognized message",
            CauseKind::InvalidValues => "Invalid values",
            CauseKind::NonUniquePeIdentifier => "Non-unique PE identifier",
            CauseKind::PoolingPolicyInconsistent => "Pooling policy inconsistent",
            CauseKind::LackOfResources => "Lack of resources",
            CauseKind::InconsistentTransportType => "Inconsistent transport type",
            CauseKind::InconsistentDataControlConfiguration => "Inconsistent data/control type",
            CauseKind::UnknownPoolHandle => "Unknown pool handle",
            CauseKind::RejectedForSecurity => "Rejected due to security considerations",
            CauseKind::Unspecified | CauseKind::Other(_) => return None,
        })
    }

    /// Causes whose info is a parameter (the invalid one, the policy, the transport).
    fn carries_parameters(self) -> bool {
        matches!(
            self,
            CauseKind::InvalidValues
                | CauseKind::PoolingPolicyInconsistent
                | CauseKind::InconsistentTransportType
        )
    }
}

/// The information a cause carries.
#[derive(Clone, Debug, PartialEq)]
pub enum CauseInfo {
    /// No information (also RSPLIB's cause 0x5, which omits the policy).
    Empty,
    /// 0x1: the offending parameter, as received (type, length, value, padding).
    UnrecognizedParameter(Vec<u8>),
    /// 0x2: the offending message, as received.
    UnrecognizedMessage(Vec<u8>),
    /// 0x3, 0x5, 0x7: the parameter(s) concerned, decoded.
    Parameters(Vec<Parameter>),
    /// Any other cause's information, raw.
    Raw(Vec<u8>),
}

/// One error cause.
#[derive(Clone, Debug, PartialEq)]
pub struct Cause {
    pub code: u16,
    pub info: CauseInfo,
}

impl Cause {
    pub fn kind(&self) -> CauseKind {
        CauseKind::of(self.code)
    }
}

/// The value of an Operation Error parameter.
#[derive(Clone, Debug, PartialEq)]
pub struct OperationError {
    pub causes: Vec<Cause>,
    /// Bytes after the last cause that could be read (a cut header or a bad length), as received.
    pub rest: Vec<u8>,
}

impl OperationError {
    pub(crate) fn parse(ctx: &mut Ctx<'_>, buf: &[u8], base: usize, depth: usize) -> Self {
        let mut causes = Vec::new();
        let mut off = 0;
        let mut rest = Vec::new();
        while off < buf.len() {
            let here = buf.get(off..).unwrap_or_default();
            let at = base + off;
            let tlv = match read_tlv(here, "error cause", "parameter") {
                Ok(t) => t,
                Err(what) => {
                    ctx.error(at, what);
                    rest = here.to_vec();
                    break;
                }
            };
            let (code, info) = (tlv.code, tlv.value);
            if tlv.dirty_padding {
                ctx.error(
                    at + tlv.len,
                    format!("error cause 0x{code:04x} is followed by non-zero padding"),
                );
            }
            off += tlv.next;
            let cut = super::wire::padded(tlv.len) - tlv.next;
            if cut > 0 {
                ctx.error(
                    base + buf.len(),
                    format!(
                        "the last error cause lacks its {cut} byte(s) of padding: its parameter's length leaves them out"
                    ),
                );
            }
            causes.push(Cause {
                code,
                info: cause_info(ctx, CauseKind::of(code), info, at + 4, depth),
            });
        }
        OperationError { causes, rest }
    }

    pub(crate) fn emit_value(&self, ctx: &super::emit::EmitCtx, out: &mut Vec<u8>) {
        for c in &self.causes {
            c.emit(ctx, out);
        }
        out.extend_from_slice(&self.rest);
    }
}

/// The information of a cause of `kind` (`info`, at `base` in the message): the offending
/// parameter or message as received, the parameters concerned decoded, or raw bytes.
fn cause_info(
    ctx: &mut Ctx<'_>,
    kind: CauseKind,
    info: &[u8],
    base: usize,
    depth: usize,
) -> CauseInfo {
    if info.is_empty() {
        CauseInfo::Empty
    } else if kind == CauseKind::UnrecognizedParameter {
        CauseInfo::UnrecognizedParameter(info.to_vec())
    } else if kind == CauseKind::UnrecognizedMessage {
        CauseInfo::UnrecognizedMessage(info.to_vec())
    } else if kind.carries_parameters() {
        CauseInfo::Parameters(parse_params(ctx, info, base, depth + 1))
    } else {
        CauseInfo::Raw(info.to_vec())
    }
}

impl Cause {
    /// Appends the cause: header, information, padding.
    pub(crate) fn emit(&self, ctx: &super::emit::EmitCtx, out: &mut Vec<u8>) {
        super::wire::push_tlv(out, self.code, |o| match &self.info {
            CauseInfo::Empty => {}
            CauseInfo::UnrecognizedParameter(b)
            | CauseInfo::UnrecognizedMessage(b)
            | CauseInfo::Raw(b) => o.extend_from_slice(b),
            CauseInfo::Parameters(ps) => {
                for p in ps {
                    ctx.emit_param(p, o);
                }
            }
        });
    }
}
