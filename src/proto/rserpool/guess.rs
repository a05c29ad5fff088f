//! Telling the encodings apart from the bytes of one message.
//!
//! The message is decoded in each encoding and the readings are ranked: fewest decode errors
//! first, then fewest parameters the encoding does not know (unknown types, unknown policy
//! numbers, values that do not fit their type), then most of the parameters the message type is
//! expected to carry. The RFC and legacy numberings put different things under the same numbers
//! (0x9 is the pool handle in one, the server information in the other), so a wrong reading
//! nearly always breaks somewhere.
//!
//! `None` when the message cannot tell: no parameters at all (ENRP List Request, Takeover), or an
//! RFC reading and a legacy reading that rank equal (an ASAP Server Announce with only an SCTP
//! transport: RFC's SCTP transport 0x4 reads as a legacy TCP transport of the same layout). Between the two legacy encodings, which
//! share the parameter numbering, the bytes decide only through the Server Information layout
//! (RSPLIB 2007's flags word) and the policies (numbers and value counts); when nothing
//! separates them the answer is `Rsplib2007`, the one legacy encoding known to have shipped.

use super::causes::CauseInfo;
use super::header::{AsapType, EnrpType};
use super::message::{parse_message, Message};
use super::numbering::ParamKind;
use super::parameters::Parameter;
use super::policy::PolicyKind;
use super::{Encoding, Protocol};

/// The encodings in the order ties are broken.
const CANDIDATES: [Encoding; 3] = [Encoding::Rfc, Encoding::Rsplib2007, Encoding::Draft01];

pub fn guess_encoding(buf: &[u8], protocol: Protocol) -> Option<Encoding> {
    if buf.len() <= header_and_fixed_len(buf, protocol) {
        return None;
    }
    let mut ranked: Vec<(Encoding, (usize, usize, usize))> = CANDIDATES
        .iter()
        .map(|&enc| {
            let mut errors = Vec::new();
            let msg = parse_message(buf, protocol, enc, &mut errors, 0);
            let mut odd = 0;
            for p in &msg.params {
                count_odd(p, &mut odd);
            }
            let missing = expected(&msg)
                .iter()
                .filter(|k| !msg.params.iter().any(|p| p.kind() == Some(**k)))
                .count();
            (enc, (errors.len(), odd, missing))
        })
        .collect();
    // Stable: equal ranks keep the candidate order.
    ranked.sort_by_key(|(_, rank)| *rank);
    let (best, _) = *ranked.first()?;
    let rfc_rank = ranked
        .iter()
        .find(|(e, _)| *e == Encoding::Rfc)
        .map(|(_, r)| *r)?;
    let best_legacy_rank = ranked
        .iter()
        .find(|(e, _)| *e != Encoding::Rfc)
        .map(|(_, r)| *r)?;
    if rfc_rank == best_legacy_rank {
        return None;
    }
    Some(best)
}

/// Bytes before the first parameter, for the types that have parameters.
fn header_and_fixed_len(buf: &[u8], protocol: Protocol) -> usize {
    let t = buf.first().copied().unwrap_or(0);
    4 + match protocol {
        Protocol::Asap => match AsapType::from_u8(t) {
            Some(a) if a.has_server_id() => 4,
            _ => 0,
        },
        Protocol::Enrp => EnrpType::from_u8(t).map_or(8, EnrpType::fixed_len),
    }
}

/// Counts parameters this reading could not make sense of, at every depth.
fn count_odd(p: &Parameter, n: &mut usize) {
    match p {
        Parameter::Unknown { .. } | Parameter::Invalid { .. } | Parameter::Unprocessed(_) => {
            *n += 1
        }
        Parameter::Policy(x) if x.kind() == PolicyKind::Unknown => *n += 1,
        Parameter::Transport(t) => t.addresses.iter().for_each(|q| count_odd(q, n)),
        Parameter::PoolElement(pe) => pe.params.iter().for_each(|q| count_odd(q, n)),
        Parameter::ServerInformation(s) => s.params.iter().for_each(|q| count_odd(q, n)),
        Parameter::OperationError(e) => {
            for c in &e.causes {
                if let CauseInfo::Parameters(ps) = &c.info {
                    ps.iter().for_each(|q| count_odd(q, n));
                }
            }
        }
        _ => {}
    }
}

/// The parameters a message of this type normally carries.
fn expected(msg: &Message) -> &'static [ParamKind] {
    use ParamKind::*;
    if let Some(t) = msg.asap_type() {
        return match t {
            AsapType::Registration | AsapType::BusinessCard => &[PoolHandle, PoolElement],
            AsapType::Deregistration
            | AsapType::RegistrationResponse
            | AsapType::DeregistrationResponse
            | AsapType::EndpointKeepAlive
            | AsapType::EndpointKeepAliveAck
            | AsapType::EndpointUnreachable => &[PoolHandle, PeIdentifier],
            AsapType::HandleResolution | AsapType::HandleResolutionResponse => &[PoolHandle],
            AsapType::ServerAnnounce => &[],
            AsapType::Cookie | AsapType::CookieEcho => &[Cookie],
            AsapType::Error => &[OperationError],
        };
    }
    match msg.enrp_type() {
        Some(EnrpType::Presence) => &[PeChecksum, ServerInformation],
        Some(EnrpType::HandleTableResponse | EnrpType::HandleUpdate) => &[PoolHandle, PoolElement],
        Some(EnrpType::ListResponse) => &[ServerInformation],
        Some(EnrpType::Error) => &[OperationError],
        _ => &[],
    }
}
