//! The events the replay consumes, derived in this one place from decoded ASAP and ENRP messages.
//! The replay never looks at a message or a byte: only at these.
//!
//! A message missing what its event needs (a registration without a pool element, a response
//! without a pool handle) gives no event; the decode errors are reported by the pipeline already.

use std::fmt;
use std::net::IpAddr;

use super::handle::PoolHandle;
use crate::analyse::policy::PeSettings;
use crate::base::Timestamp;
use crate::dissect::{ConversationKey, Transport as Carrier};
use crate::pipeline::Decoded;
use crate::proto::rserpool::{
    AsapType, EnrpType, Message, Policy, PolicyKind, PoolElement, Role, TransportProtocol,
    UpdateAction,
};
use crate::proto::Message as AppMessage;

/// Where a message came from or went to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Endpoint {
    pub addr: IpAddr,
    pub port: u16,
}

impl Endpoint {
    pub fn new(addr: IpAddr, port: u16) -> Self {
        Endpoint { addr, port }
    }
}

impl fmt::Display for Endpoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.addr {
            IpAddr::V4(a) => write!(f, "{a}:{}", self.port),
            IpAddr::V6(a) => write!(f, "[{a}]:{}", self.port),
        }
    }
}

/// What every event carries: the frame it was read in and the two ends of the message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Meta {
    pub frame: u64,
    pub time: Timestamp,
    pub src: Endpoint,
    pub dst: Endpoint,
    /// The association (or connection, or UDP port pair) the message travelled on.
    pub association: ConversationKey,
    /// Whether it travelled over SCTP (UDP-borne ENRP and ASAP go to multicast groups, whose
    /// destination says nothing of the receiver).
    pub sctp: bool,
}

/// A pool element's selection policy as a message gives it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PolicyInfo {
    /// The policy in the message's own encoding, normalised.
    pub wire: PolicyKind,
    /// The policy type number as on the wire (tells unknown policies apart).
    pub code: u32,
    /// The settings on RFC 5356's scale, when poolshark's reference policies can run this policy.
    pub settings: Option<PeSettings>,
}

impl PolicyInfo {
    pub fn from_policy(p: &Policy) -> Self {
        let wire = p.kind();
        PolicyInfo {
            wire,
            code: p.code,
            settings: settings(p, wire),
        }
    }

    /// Whether two registrations use the same policy (the consistency a registrar enforces per
    /// pool). Unknown policies are the same only with the same type number.
    pub fn same_policy(&self, other: &PolicyInfo) -> bool {
        if self.wire == PolicyKind::Unknown || other.wire == PolicyKind::Unknown {
            return self.wire == other.wire && self.code == other.code;
        }
        self.wire == other.wire
    }

    /// The short name (`LU`), or the type number for an unknown policy.
    pub fn name(&self) -> String {
        match self.wire {
            PolicyKind::Unknown => format!("policy 0x{:x}", self.code),
            w => w.short_name().to_string(),
        }
    }
}

/// A policy parameter's settings on RFC 5356's scale (the legacy 24-bit values scaled up), `wire`
/// its kind. A word the parameter lacks (a decode error says so) counts as 0.
fn settings(p: &Policy, wire: PolicyKind) -> Option<PeSettings> {
    let kind = Some(wire).filter(|k| k.runnable())?;
    let uses = kind.uses();
    let mut s = PeSettings::new(kind);
    if uses.weight {
        // `PeSettings::new` starts at weight 1; a missing weight word counts as 0 like the rest.
        s.weight = 0;
    }
    // The words in one pass (each role once in a layout), not a search of the layout per role.
    for (role, v) in p.words(wire) {
        match role {
            Role::Weight if uses.weight => s.weight = v,
            Role::Priority if uses.priority => s.priority = v,
            Role::Load if uses.load => s.load = p.to_rfc_scale(v),
            Role::Degradation if uses.load_degradation => s.load_degradation = p.to_rfc_scale(v),
            _ => {}
        }
    }
    Some(s)
}

/// A pool element as a registration, an update or an answer describes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PeInfo {
    pub pe_id: u32,
    pub home_server_id: u32,
    /// Milliseconds; negative means infinite.
    pub registration_life_ms: i32,
    pub policy: Option<PolicyInfo>,
}

impl PeInfo {
    fn of(pe: &PoolElement) -> Self {
        PeInfo {
            pe_id: pe.pe_id,
            home_server_id: pe.home_server_id,
            registration_life_ms: pe.registration_life,
            policy: pe.policy().map(PolicyInfo::from_policy),
        }
    }
}

/// What the replay sees.
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    /// ASAP Registration, PE to registrar.
    Registration { pool: PoolHandle, pe: PeInfo },
    /// ASAP Registration Response, registrar to PE.
    RegistrationResponse {
        pool: PoolHandle,
        pe_id: Option<u32>,
        rejected: bool,
        causes: Vec<u16>,
    },
    /// ASAP Deregistration, PE to registrar.
    Deregistration { pool: PoolHandle, pe_id: u32 },
    /// ASAP Deregistration Response; `refused` when it carries an error cause.
    DeregistrationResponse {
        pool: PoolHandle,
        pe_id: u32,
        refused: bool,
    },
    /// ASAP Handle Resolution, pool user to registrar.
    HandleResolution {
        pool: PoolHandle,
        /// The Handle Resolution Option's items (0xffffffff = all), if present.
        items: Option<u32>,
    },
    /// ASAP Handle Resolution Response: the PEs in wire order, or the causes of a negative one.
    HandleResolutionResponse {
        pool: PoolHandle,
        pes: Vec<PeInfo>,
        causes: Vec<u16>,
    },
    /// ASAP Endpoint Keep-Alive, registrar to PE.
    KeepAlive {
        server_id: u32,
        home: bool,
        pool: Option<PoolHandle>,
        pe_id: Option<u32>,
    },
    /// ASAP Endpoint Keep-Alive Acknowledgement, PE to registrar.
    KeepAliveAck { pool: PoolHandle, pe_id: u32 },
    /// ASAP Endpoint Unreachable, pool user to registrar.
    EndpointUnreachable { pool: PoolHandle, pe_id: u32 },
    /// ASAP Server Announce: a registrar's id and the ASAP endpoints it names (none: its source).
    ServerAnnounce {
        server_id: u32,
        endpoints: Vec<Endpoint>,
    },
    /// ASAP Error (the answer to a request the registrar could not handle).
    AsapError { causes: Vec<u16> },
    /// ENRP Handle Update.
    HandleUpdate {
        sender: u32,
        receiver: u32,
        action: UpdateAction,
        pool: PoolHandle,
        pe: PeInfo,
    },
    /// ENRP Handle Table Response: pools with their elements, in wire order.
    HandleTableResponse {
        sender: u32,
        receiver: u32,
        rejected: bool,
        pools: Vec<(PoolHandle, Vec<PeInfo>)>,
    },
    /// ENRP Takeover Server: `sender` now owns the PEs whose home was `target`.
    TakeoverServer {
        sender: u32,
        receiver: u32,
        target: u32,
    },
    /// Any other ENRP message (Presence, requests, lists, errors): who speaks, and the ENRP
    /// endpoints of the servers it names.
    Enrp {
        sender: u32,
        receiver: u32,
        servers: Vec<(u32, Vec<Endpoint>)>,
    },
}

/// The event of a decoded message, if it is ASAP or ENRP and carries what its event needs.
pub fn from_decoded(d: &Decoded<'_>) -> Option<(Meta, Event)> {
    let AppMessage::Rserpool(m) = d.message else {
        return None;
    };
    let p = d.payload;
    let meta = Meta {
        frame: d.frame.number,
        time: d.frame.ts,
        src: Endpoint::new(p.src, p.src_port),
        dst: Endpoint::new(p.dst, p.dst_port),
        association: p.conversation(),
        sctp: p.transport == Carrier::Sctp,
    };
    let event = match (m.asap_type(), m.enrp_type()) {
        (Some(t), _) => asap_event(t, m)?,
        (_, Some(t)) => enrp_event(t, m)?,
        _ => return None,
    };
    Some((meta, event))
}

fn handle(m: &Message) -> Option<PoolHandle> {
    m.pool_handle().map(PoolHandle::new)
}

fn causes(m: &Message) -> Vec<u16> {
    m.causes().map(|c| c.code).collect()
}

fn asap_event(t: AsapType, m: &Message) -> Option<Event> {
    Some(match t {
        AsapType::Registration => Event::Registration {
            pool: handle(m)?,
            pe: PeInfo::of(m.pool_elements().next()?),
        },
        AsapType::RegistrationResponse => Event::RegistrationResponse {
            pool: handle(m)?,
            pe_id: m.pe_identifiers().next(),
            rejected: m.rejected(),
            causes: causes(m),
        },
        AsapType::Deregistration => Event::Deregistration {
            pool: handle(m)?,
            pe_id: m.pe_identifiers().next()?,
        },
        AsapType::DeregistrationResponse => Event::DeregistrationResponse {
            pool: handle(m)?,
            pe_id: m.pe_identifiers().next()?,
            refused: m.causes().next().is_some(),
        },
        AsapType::HandleResolution => Event::HandleResolution {
            pool: handle(m)?,
            items: m.hropt_items(),
        },
        AsapType::HandleResolutionResponse => Event::HandleResolutionResponse {
            pool: handle(m)?,
            pes: m.pool_elements().map(PeInfo::of).collect(),
            causes: causes(m),
        },
        AsapType::EndpointKeepAlive => Event::KeepAlive {
            server_id: m.server_id()?,
            home: m.home_server_bit(),
            pool: handle(m),
            pe_id: m.pe_identifiers().next(),
        },
        AsapType::EndpointKeepAliveAck => Event::KeepAliveAck {
            pool: handle(m)?,
            pe_id: m.pe_identifiers().next()?,
        },
        AsapType::EndpointUnreachable => Event::EndpointUnreachable {
            pool: handle(m)?,
            pe_id: m.pe_identifiers().next()?,
        },
        AsapType::ServerAnnounce => Event::ServerAnnounce {
            server_id: m.server_id()?,
            endpoints: m
                .transports()
                .filter(|t| matches!(t.protocol, TransportProtocol::Sctp | TransportProtocol::Tcp))
                .flat_map(|t| {
                    t.ip_addresses()
                        .into_iter()
                        .map(move |a| Endpoint::new(a, t.port))
                })
                .collect(),
        },
        AsapType::Error => Event::AsapError { causes: causes(m) },
        _ => return None,
    })
}

fn enrp_event(t: EnrpType, m: &Message) -> Option<Event> {
    let sender = m.sender_server_id()?;
    let receiver = m.receiver_server_id().unwrap_or(0);
    Some(match t {
        EnrpType::HandleUpdate => Event::HandleUpdate {
            sender,
            receiver,
            action: m.update_action()?,
            pool: handle(m)?,
            pe: PeInfo::of(m.pool_elements().next()?),
        },
        EnrpType::HandleTableResponse => Event::HandleTableResponse {
            sender,
            receiver,
            rejected: m.rejected(),
            pools: table(m),
        },
        EnrpType::TakeoverServer => Event::TakeoverServer {
            sender,
            receiver,
            target: m.target_server_id()?,
        },
        _ => Event::Enrp {
            sender,
            receiver,
            servers: m
                .server_informations()
                .map(|s| {
                    let eps = s
                        .transport()
                        .map(|t| {
                            t.ip_addresses()
                                .into_iter()
                                .map(|a| Endpoint::new(a, t.port))
                                .collect()
                        })
                        .unwrap_or_default();
                    (s.server_id, eps)
                })
                .collect(),
        },
    })
}

/// A Handle Table Response's entries: each pool handle followed by its pool elements.
fn table(m: &Message) -> Vec<(PoolHandle, Vec<PeInfo>)> {
    use crate::proto::rserpool::Parameter;
    let mut out: Vec<(PoolHandle, Vec<PeInfo>)> = Vec::new();
    for p in &m.params {
        match p {
            Parameter::PoolHandle(h) => out.push((PoolHandle::new(h), Vec::new())),
            Parameter::PoolElement(pe) => {
                if let Some((_, pes)) = out.last_mut() {
                    pes.push(PeInfo::of(pe));
                }
            }
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proto::rserpool::{Encoding, Fixed, Parameter, Protocol};

    fn policy(kind: PolicyKind, values: &[u32], enc: Encoding) -> Policy {
        Policy::new(enc, kind, values).expect("policy")
    }

    #[test]
    fn settings_are_on_the_rfc_scale_whatever_the_encoding() {
        let lu = PolicyInfo::from_policy(&policy(
            PolicyKind::LeastUsed,
            &[0x8000_0000],
            Encoding::Rfc,
        ));
        assert_eq!(lu.settings.map(|s| s.load), Some(0x8000_0000));
        // Legacy 24-bit: 0xffffff is 100 %.
        let legacy = PolicyInfo::from_policy(&policy(
            PolicyKind::LeastUsedDegradation,
            &[0x00ff_ffff, 0x0000_0000],
            Encoding::Draft01,
        ));
        let s = legacy.settings.expect("modelled");
        assert_eq!((s.load, s.load_degradation), (u32::MAX, 0));
        let wrr =
            PolicyInfo::from_policy(&policy(PolicyKind::WeightedRoundRobin, &[3], Encoding::Rfc));
        assert_eq!(wrr.settings.map(|s| s.weight), Some(3));
        let dpf =
            PolicyInfo::from_policy(&policy(PolicyKind::LeastUsedDpf, &[1, 2, 3], Encoding::Rfc));
        assert_eq!(dpf.settings, None);
        assert!(dpf.same_policy(&dpf.clone()));
        assert!(!dpf.same_policy(&lu));
    }

    #[test]
    fn handle_table_groups_elements_under_their_pool() {
        let pe = |id| {
            Parameter::PoolElement(PoolElement {
                pe_id: id,
                home_server_id: 1,
                registration_life: 1000,
                params: vec![Parameter::Policy(policy(
                    PolicyKind::RoundRobin,
                    &[],
                    Encoding::Rfc,
                ))],
            })
        };
        let m = Message::new(
            Protocol::Enrp,
            Encoding::Rfc,
            EnrpType::HandleTableResponse as u8,
            0,
            Fixed::Servers {
                sender: 1,
                receiver: 2,
            },
            vec![
                pe(9), // before any handle: belongs to no pool
                Parameter::PoolHandle(b"A"[..].into()),
                pe(1),
                pe(2),
                Parameter::PoolHandle(b"B"[..].into()),
                pe(3),
            ],
        );
        let Some(Event::HandleTableResponse { pools, .. }) =
            enrp_event(EnrpType::HandleTableResponse, &m)
        else {
            panic!("not a table");
        };
        let ids: Vec<(String, Vec<u32>)> = pools
            .iter()
            .map(|(h, pes)| (h.to_string(), pes.iter().map(|p| p.pe_id).collect()))
            .collect();
        assert_eq!(
            ids,
            vec![("A".to_string(), vec![1, 2]), ("B".to_string(), vec![3])]
        );
    }

    #[test]
    fn messages_without_what_their_event_needs_give_none() {
        let m = Message::new(
            Protocol::Asap,
            Encoding::Rfc,
            AsapType::Registration as u8,
            0,
            Fixed::None,
            vec![Parameter::PoolHandle(b"A"[..].into())],
        );
        assert_eq!(asap_event(AsapType::Registration, &m), None);
        let m = Message::new(
            Protocol::Asap,
            Encoding::Rfc,
            AsapType::HandleResolution as u8,
            0,
            Fixed::None,
            vec![Parameter::PoolHandle(b"A"[..].into())],
        );
        assert_eq!(
            asap_event(AsapType::HandleResolution, &m),
            Some(Event::HandleResolution {
                pool: PoolHandle::new(b"A"),
                items: None
            })
        );
    }
}
