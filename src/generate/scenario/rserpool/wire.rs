//! ASAP and ENRP messages as a registrar, a pool element and a pool user send them, in any of the
//! three encodings, built on `proto::rserpool`'s representation (so what is emitted is what the
//! decoder reads back). Layouts follow what RSPLIB sends (`rsplib-multi-pe.pcap`): a Registration
//! carries the PE's user transport and policy, a Handle Update and a Handle Table Response add the
//! home registrar's id and the PE's ASAP transport, a Handle Resolution Response starts with a copy
//! of its first PE's policy.

use std::net::IpAddr;

use crate::analyse::policy::PeSettings;
use crate::proto::rserpool::{
    self as rp, AsapType, Cause, CauseInfo, EnrpType, Fixed, Message, OperationError, Parameter,
    Policy, PoolElement, Protocol, ServerInformation, Transport, TransportProtocol,
    TRANSPORT_USE_DATA_ONLY, TRANSPORT_USE_DATA_PLUS_CONTROL,
};
use crate::proto::rserpool::{Encoding, LEGACY_FULL};

/// A 32-bit load-like value (0xffffffff = 100 %) on the legacy encodings' 24-bit scale, rounded.
fn to_24bit(v: u32) -> u32 {
    let full = u64::from(u32::MAX);
    ((u64::from(v) * u64::from(LEGACY_FULL) + full / 2) / full) as u32
}

/// The policy parameter a PE with `settings` registers in `enc` (`None` when the encoding has no
/// such policy). Legacy encodings carry 24-bit values: loads are rescaled, weights and priorities
/// cut to 24 bits.
pub fn wire_policy(enc: Encoding, s: &PeSettings) -> Option<Policy> {
    let kind = s.policy;
    let legacy = enc != Encoding::Rfc;
    let values: Vec<u32> = kind
        .roles()
        .iter()
        .map(|role| {
            let (v, load_like) = match role {
                rp::Role::Weight => (s.weight, false),
                rp::Role::Priority => (s.priority, false),
                rp::Role::Load => (s.load, true),
                rp::Role::Degradation => (s.load_degradation, true),
                // Not produced for the policies the reference knows.
                _ => (0, false),
            };
            match (legacy, load_like) {
                (false, _) => v,
                (true, true) => to_24bit(v),
                (true, false) => v & LEGACY_FULL,
            }
        })
        .collect();
    Policy::new(enc, kind, &values)
}

/// What a registrar learns from a policy parameter: the reference settings, on RFC 5356's scale,
/// exactly as an analyser reading the wire gets them.
pub fn settings_from_wire(p: &Policy) -> Option<PeSettings> {
    let policy = Some(p.kind()).filter(|k| k.runnable())?;
    let mut s = PeSettings::new(policy);
    if let Some(w) = p.weight() {
        s.weight = w;
    }
    if let Some(v) = p.priority() {
        s.priority = v;
    }
    if let Some(v) = p.load_rfc() {
        s.load = v;
    }
    if let Some(v) = p.degradation_rfc() {
        s.load_degradation = v;
    }
    Some(s)
}

fn address(a: IpAddr) -> Parameter {
    match a {
        IpAddr::V4(v) => Parameter::Ipv4(v),
        IpAddr::V6(v) => Parameter::Ipv6(v),
    }
}

/// A transport parameter with one address.
pub fn transport(protocol: TransportProtocol, port: u16, use_: u16, addr: IpAddr) -> Parameter {
    Parameter::Transport(Transport {
        protocol,
        port,
        transport_use: use_,
        addresses: vec![address(addr)],
    })
}

/// A PE as its parameter: identity, lifetime, user transport, policy and (when the sender is a
/// registrar) the ASAP transport it registered from.
#[derive(Clone, Debug, PartialEq)]
pub struct PeWire {
    pub id: u32,
    pub addr: IpAddr,
    /// The port users reach the PE's service on.
    pub user_port: u16,
    /// The port of the PE's ASAP endpoint.
    pub asap_port: u16,
    pub policy: Policy,
    /// Milliseconds.
    pub life_ms: i32,
}

impl PeWire {
    /// The Pool Element parameter: `home` is 0 in the PE's own Registration (it does not know
    /// yet), the home registrar's id elsewhere; `with_asap` adds the ASAP transport.
    pub fn parameter(&self, home: u32, with_asap: bool) -> Parameter {
        let mut params = vec![
            transport(
                TransportProtocol::Sctp,
                self.user_port,
                TRANSPORT_USE_DATA_PLUS_CONTROL,
                self.addr,
            ),
            Parameter::Policy(self.policy.clone()),
        ];
        if with_asap {
            params.push(transport(
                TransportProtocol::Sctp,
                self.asap_port,
                TRANSPORT_USE_DATA_ONLY,
                self.addr,
            ));
        }
        Parameter::PoolElement(PoolElement {
            pe_id: self.id,
            home_server_id: home,
            registration_life: self.life_ms,
            params,
        })
    }
}

/// Builds the messages of one encoding.
#[derive(Clone, Copy, Debug)]
pub struct Wire {
    pub enc: Encoding,
}

impl Wire {
    pub fn new(enc: Encoding) -> Self {
        Wire { enc }
    }

    fn asap(&self, t: AsapType, flags: u8, fixed: Fixed, params: Vec<Parameter>) -> Message {
        Message::new(Protocol::Asap, self.enc, t as u8, flags, fixed, params)
    }

    fn enrp(&self, t: EnrpType, flags: u8, fixed: Fixed, params: Vec<Parameter>) -> Message {
        Message::new(Protocol::Enrp, self.enc, t as u8, flags, fixed, params)
    }

    fn handle(h: &[u8]) -> Parameter {
        Parameter::PoolHandle(h.into())
    }

    pub fn registration(&self, handle: &[u8], pe: &PeWire) -> Message {
        self.asap(
            AsapType::Registration,
            0,
            Fixed::None,
            vec![Self::handle(handle), pe.parameter(0, false)],
        )
    }

    /// Accepted (`rejection` `None`) or rejected with an Operation Error of one cause.
    pub fn registration_response(
        &self,
        handle: &[u8],
        pe_id: u32,
        rejection: Option<Cause>,
    ) -> Message {
        let mut params = vec![Self::handle(handle), Parameter::PeIdentifier(pe_id)];
        let flags = match rejection {
            Some(c) => {
                params.push(operation_error(c));
                rp::FLAG_REJECT
            }
            None => 0,
        };
        self.asap(AsapType::RegistrationResponse, flags, Fixed::None, params)
    }

    pub fn deregistration(&self, handle: &[u8], pe_id: u32) -> Message {
        self.asap(
            AsapType::Deregistration,
            0,
            Fixed::None,
            vec![Self::handle(handle), Parameter::PeIdentifier(pe_id)],
        )
    }

    pub fn deregistration_response(&self, handle: &[u8], pe_id: u32) -> Message {
        self.asap(
            AsapType::DeregistrationResponse,
            0,
            Fixed::None,
            vec![Self::handle(handle), Parameter::PeIdentifier(pe_id)],
        )
    }

    /// `items`: the Handle Resolution Option (RFC encoding only: the legacy numberings have none).
    pub fn handle_resolution(&self, handle: &[u8], items: Option<u32>) -> Message {
        let mut params = vec![Self::handle(handle)];
        if let (Some(n), Encoding::Rfc) = (items, self.enc) {
            params.push(Parameter::HandleResolutionOption(n));
        }
        self.asap(AsapType::HandleResolution, 0, Fixed::None, params)
    }

    /// The answer: a copy of the first PE's policy, then the PEs in the order chosen.
    pub fn handle_resolution_response(&self, handle: &[u8], pes: &[(&PeWire, u32)]) -> Message {
        let mut params = vec![Self::handle(handle)];
        if let Some((first, _)) = pes.first() {
            params.push(Parameter::Policy(first.policy.clone()));
        }
        for (pe, home) in pes {
            params.push(pe.parameter(*home, false));
        }
        self.asap(AsapType::HandleResolutionResponse, 0, Fixed::None, params)
    }

    /// The negative answer for a pool the registrar does not know (cause 0x9).
    pub fn unknown_pool(&self, handle: &[u8]) -> Message {
        self.asap(
            AsapType::HandleResolutionResponse,
            0,
            Fixed::None,
            vec![
                Self::handle(handle),
                operation_error(Cause {
                    code: 0x9,
                    info: CauseInfo::Empty,
                }),
            ],
        )
    }

    pub fn keep_alive(&self, server: u32, handle: &[u8], pe_id: u32, home: bool) -> Message {
        self.asap(
            AsapType::EndpointKeepAlive,
            if home { rp::FLAG_HOME } else { 0 },
            Fixed::ServerId(server),
            vec![Self::handle(handle), Parameter::PeIdentifier(pe_id)],
        )
    }

    pub fn keep_alive_ack(&self, handle: &[u8], pe_id: u32) -> Message {
        self.asap(
            AsapType::EndpointKeepAliveAck,
            0,
            Fixed::None,
            vec![Self::handle(handle), Parameter::PeIdentifier(pe_id)],
        )
    }

    pub fn unreachable(&self, handle: &[u8], pe_id: u32) -> Message {
        self.asap(
            AsapType::EndpointUnreachable,
            0,
            Fixed::None,
            vec![Self::handle(handle), Parameter::PeIdentifier(pe_id)],
        )
    }

    /// A registrar's announcement of its ASAP endpoint.
    pub fn server_announce(&self, server: u32, addr: IpAddr, port: u16) -> Message {
        self.asap(
            AsapType::ServerAnnounce,
            0,
            Fixed::ServerId(server),
            vec![transport(
                TransportProtocol::Sctp,
                port,
                TRANSPORT_USE_DATA_ONLY,
                addr,
            )],
        )
    }

    /// A registrar's Server Information parameter (RSPLIB 2007 adds a flags word).
    pub fn server_information(&self, server: u32, addr: IpAddr, enrp_port: u16) -> Parameter {
        Parameter::ServerInformation(ServerInformation {
            server_id: server,
            flags: (self.enc == Encoding::Rsplib2007).then_some(0),
            params: vec![transport(
                TransportProtocol::Sctp,
                enrp_port,
                TRANSPORT_USE_DATA_ONLY,
                addr,
            )],
        })
    }

    pub fn presence(
        &self,
        sender: u32,
        receiver: u32,
        reply_required: bool,
        checksum: u16,
        info: Parameter,
    ) -> Message {
        self.enrp(
            EnrpType::Presence,
            if reply_required {
                rp::FLAG_REPLY_REQUIRED
            } else {
                0
            },
            Fixed::Servers { sender, receiver },
            vec![Parameter::PeChecksum(checksum), info],
        )
    }

    pub fn list_request(&self, sender: u32, receiver: u32) -> Message {
        self.enrp(
            EnrpType::ListRequest,
            0,
            Fixed::Servers { sender, receiver },
            Vec::new(),
        )
    }

    pub fn list_response(&self, sender: u32, receiver: u32, infos: Vec<Parameter>) -> Message {
        self.enrp(
            EnrpType::ListResponse,
            0,
            Fixed::Servers { sender, receiver },
            infos,
        )
    }

    pub fn handle_table_request(&self, sender: u32, receiver: u32) -> Message {
        self.enrp(
            EnrpType::HandleTableRequest,
            0,
            Fixed::Servers { sender, receiver },
            Vec::new(),
        )
    }

    /// `entries`: (pool handle, PE parameters) of the pools the sender owns PEs of.
    pub fn handle_table_response(
        &self,
        sender: u32,
        receiver: u32,
        entries: Vec<(Vec<u8>, Vec<Parameter>)>,
    ) -> Message {
        let mut params = Vec::new();
        for (h, pes) in entries {
            params.push(Parameter::PoolHandle(h.into()));
            params.extend(pes);
        }
        self.enrp(
            EnrpType::HandleTableResponse,
            0,
            Fixed::Servers { sender, receiver },
            params,
        )
    }

    /// Add (`add`) or delete a PE at the peers.
    pub fn handle_update(
        &self,
        sender: u32,
        receiver: u32,
        add: bool,
        handle: &[u8],
        pe: Parameter,
    ) -> Message {
        self.enrp(
            EnrpType::HandleUpdate,
            0,
            Fixed::Update {
                sender,
                receiver,
                action: if add { 0 } else { 1 },
                reserved: 0,
            },
            vec![Self::handle(handle), pe],
        )
    }
}

/// An Operation Error parameter of one cause.
pub fn operation_error(c: Cause) -> Parameter {
    Parameter::OperationError(OperationError {
        causes: vec![c],
        rest: Vec::new(),
    })
}

/// A PE checksum in the manner of RFC 5353's: the 16-bit one's complement sum over, for each PE a
/// server is home of, the pool handle (padded to an even length) and the PE identifier,
/// complemented. Nothing reads it back here; what matters is that an empty handlespace gives
/// 0xffff, as RSPLIB announces it, and that it changes with the PEs.
pub fn pe_checksum<'a>(pes: impl IntoIterator<Item = (&'a [u8], u32)>) -> u16 {
    let mut sum: u32 = 0;
    let mut add = |bytes: &[u8]| {
        let mut it = bytes.chunks(2);
        for c in &mut it {
            let hi = u32::from(c.first().copied().unwrap_or(0)) << 8;
            let lo = u32::from(c.get(1).copied().unwrap_or(0));
            sum += hi | lo;
            sum = (sum & 0xffff) + (sum >> 16);
        }
    };
    for (handle, id) in pes {
        add(handle);
        add(&id.to_be_bytes());
    }
    !(sum as u16)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::policy::PolicyKind;

    #[test]
    fn policies_survive_the_wire_in_every_encoding() {
        let s = PeSettings::new(PolicyKind::LeastUsedDegradation)
            .with_load(0x8000_0000)
            .with_load_degradation(0x1000_0000);
        let rfc = wire_policy(Encoding::Rfc, &s).unwrap();
        assert_eq!(rfc.values.as_slice(), [0x8000_0000, 0x1000_0000]);
        assert_eq!(settings_from_wire(&rfc), Some(s));
        let legacy = wire_policy(Encoding::Draft01, &s).unwrap();
        // 50 % on 24 bits is 0x800000 (0x7fffff.8 rounded up).
        assert_eq!(legacy.values.as_slice(), [0x80_0000, 0x10_0000]);
        let back = settings_from_wire(&legacy).unwrap();
        assert_eq!(back.policy, PolicyKind::LeastUsedDegradation);
        // Close to, not equal to, the 32-bit value: what an analyser reading the wire gets.
        assert!(back.load.abs_diff(s.load) < 0x200);
        assert_eq!(
            wire_policy(Encoding::Draft01, &PeSettings::new(PolicyKind::Priority)),
            None
        );
    }

    #[test]
    fn built_messages_decode_without_error() {
        let w = Wire::new(Encoding::Rfc);
        let pe = PeWire {
            id: 7,
            addr: "192.0.2.9".parse().unwrap(),
            user_port: 5000,
            asap_port: 40000,
            policy: wire_policy(Encoding::Rfc, &PeSettings::new(PolicyKind::RoundRobin)).unwrap(),
            life_ms: 30_000,
        };
        let msgs = [
            w.registration(b"P", &pe),
            w.handle_resolution_response(b"P", &[(&pe, 0x1111_1111)]),
            w.handle_update(1, 2, true, b"P", pe.parameter(1, true)),
            w.presence(
                1,
                2,
                true,
                pe_checksum([(&b"P"[..], 7)]),
                w.server_information(1, pe.addr, 9901),
            ),
        ];
        for m in msgs {
            let bytes = m.emit();
            let (back, errors) = rp::parse(&bytes, m.protocol, Encoding::Rfc);
            assert!(errors.is_empty(), "{errors:?}");
            assert_eq!(back, m);
        }
        assert_eq!(pe_checksum([]), 0xffff);
    }
}
