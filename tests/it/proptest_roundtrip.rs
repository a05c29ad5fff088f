//! Round trips emit -> parse over generated messages of every type of every protocol: ASAP and
//! ENRP in each encoding, DHCPv4, DHCPv6 (with relay chains), ISC failover. A message built in
//! code, written to bytes and read back must come back equal and without a decode error; the
//! bytes emitted again must be the same bytes.

use std::net::{Ipv4Addr, Ipv6Addr};

use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::select;

use poolshark::proto::rserpool::{
    self, param_code, policy_code, AsapType, Cause, CauseInfo, Encoding, EnrpType, Fixed,
    OperationError, ParamKind, Parameter, Policy, PolicyKind, PoolElement, Protocol,
    ServerInformation, Transport, TransportProtocol, ASAP_TYPES, ENRP_TYPES, LEGACY_FULL,
};
use poolshark::proto::{dhcpv4, dhcpv6, failover};

const ENCODINGS: [Encoding; 3] = [Encoding::Rfc, Encoding::Draft01, Encoding::Rsplib2007];

const POLICIES: [PolicyKind; 16] = PolicyKind::KNOWN;

fn bytes(max: usize) -> impl Strategy<Value = Vec<u8>> {
    vec(any::<u8>(), 0..=max)
}

fn address() -> impl Strategy<Value = Parameter> {
    prop_oneof![
        any::<u32>().prop_map(|a| Parameter::Ipv4(Ipv4Addr::from(a))),
        any::<u128>().prop_map(|a| Parameter::Ipv6(Ipv6Addr::from(a))),
    ]
}

fn transport(enc: Encoding) -> impl Strategy<Value = Parameter> {
    let mut protocols = vec![
        TransportProtocol::Sctp,
        TransportProtocol::Tcp,
        TransportProtocol::Udp,
    ];
    if enc == Encoding::Rfc {
        protocols.push(TransportProtocol::UdpLite);
        protocols.push(TransportProtocol::Dccp { service_code: 0 });
    }
    (
        select(protocols),
        any::<u32>(),
        any::<u16>(),
        any::<u16>(),
        vec(address(), 1..=3),
    )
        .prop_map(|(protocol, code, port, transport_use, addresses)| {
            let protocol = match protocol {
                TransportProtocol::Dccp { .. } => TransportProtocol::Dccp { service_code: code },
                p => p,
            };
            Parameter::Transport(Transport {
                protocol,
                port,
                transport_use,
                addresses,
            })
        })
}

fn sctp_transport() -> impl Strategy<Value = Parameter> {
    (any::<u16>(), 0u16..=1, vec(address(), 1..=2)).prop_map(|(port, transport_use, addresses)| {
        Parameter::Transport(Transport {
            protocol: TransportProtocol::Sctp,
            port,
            transport_use,
            addresses,
        })
    })
}

/// A policy this encoding defines, with as many values as its type carries (legacy encodings:
/// the first value shares the type's word, 24 bits).
fn policy(enc: Encoding) -> impl Strategy<Value = Parameter> {
    let kinds: Vec<PolicyKind> = POLICIES
        .into_iter()
        .filter(|k| policy_code(*k, enc).is_some())
        .collect();
    (select(kinds), vec(any::<u32>(), 4)).prop_map(move |(kind, words)| {
        let n = kind.roles().len();
        let mut values: Vec<u32> = words.into_iter().take(n).collect();
        if enc != Encoding::Rfc {
            if let Some(first) = values.first_mut() {
                *first &= LEGACY_FULL;
            }
        }
        match Policy::new(enc, kind, &values) {
            Some(p) => Parameter::Policy(p),
            None => unreachable!("{kind:?} is defined in {enc:?}"),
        }
    })
}

fn pool_element(enc: Encoding) -> impl Strategy<Value = Parameter> {
    (
        any::<u32>(),
        any::<u32>(),
        any::<i32>(),
        transport(enc),
        policy(enc),
        proptest::option::of(sctp_transport()),
    )
        .prop_map(|(pe_id, home, life, user, policy, asap)| {
            let mut params = vec![user, policy];
            params.extend(asap);
            Parameter::PoolElement(PoolElement {
                pe_id,
                home_server_id: home,
                registration_life: life,
                params,
            })
        })
}

fn server_information(enc: Encoding) -> impl Strategy<Value = Parameter> {
    (any::<u32>(), any::<u32>(), sctp_transport()).prop_map(move |(id, flags, t)| {
        Parameter::ServerInformation(ServerInformation {
            server_id: id,
            flags: (enc == Encoding::Rsplib2007).then_some(flags),
            params: vec![t],
        })
    })
}

fn operation_error() -> impl Strategy<Value = Parameter> {
    // Causes without information, and causes whose information is kept raw.
    let cause = prop_oneof![
        select(vec![0x0u16, 0x4, 0x6, 0x8, 0x9, 0xa]).prop_map(|code| Cause {
            code,
            info: CauseInfo::Empty
        }),
        (0x0100u16..0x7fff, bytes(12)).prop_map(|(code, b)| Cause {
            code,
            info: if b.is_empty() {
                CauseInfo::Empty
            } else {
                CauseInfo::Raw(b)
            },
        }),
    ];
    vec(cause, 1..=3).prop_map(|causes| {
        Parameter::OperationError(OperationError {
            causes,
            rest: Vec::new(),
        })
    })
}

/// Any parameter the encoding can carry.
fn parameter(enc: Encoding) -> BoxedStrategy<Parameter> {
    let mut options: Vec<BoxedStrategy<Parameter>> = vec![
        address().boxed(),
        transport(enc).boxed(),
        policy(enc).boxed(),
        // Past 32 bytes too: a handle is inline up to 32 and on the heap beyond.
        vec(any::<u8>(), 1..40)
            .prop_map(|h| Parameter::PoolHandle(h.into()))
            .boxed(),
        pool_element(enc).boxed(),
        server_information(enc).boxed(),
        operation_error().boxed(),
        bytes(24).prop_map(Parameter::Cookie).boxed(),
        any::<u32>().prop_map(Parameter::PeIdentifier).boxed(),
        any::<u16>().prop_map(Parameter::PeChecksum).boxed(),
    ];
    if param_code(ParamKind::HandleResolutionOption, enc).is_some() {
        options.push(
            any::<u32>()
                .prop_map(Parameter::HandleResolutionOption)
                .boxed(),
        );
    }
    if param_code(ParamKind::OpaqueTransport, enc).is_some() {
        options.push(bytes(16).prop_map(Parameter::OpaqueTransport).boxed());
    }
    proptest::strategy::Union::new(options).boxed()
}

/// A message of every ASAP and ENRP type, in every encoding, with the fixed fields of its type.
fn rserpool_message() -> impl Strategy<Value = rserpool::Message> {
    (select(ENCODINGS.to_vec()), any::<bool>()).prop_flat_map(|(enc, asap)| {
        let types: Vec<u8> = if asap {
            ASAP_TYPES.iter().map(|t| *t as u8).collect()
        } else {
            ENRP_TYPES.iter().map(|t| *t as u8).collect()
        };
        (
            select(types),
            any::<u8>(),
            any::<[u32; 3]>(),
            any::<u16>(),
            vec(parameter(enc), 0..=4),
        )
            .prop_map(move |(t, flags, ids, action, params)| {
                let (protocol, fixed, params) = if asap {
                    let fixed = match AsapType::from_u8(t) {
                        Some(a) if a.has_server_id() => Fixed::ServerId(ids[0]),
                        _ => Fixed::None,
                    };
                    (Protocol::Asap, fixed, params)
                } else {
                    let e = EnrpType::from_u8(t);
                    let (sender, receiver) = (ids[0], ids[1]);
                    let fixed = match e {
                        Some(EnrpType::HandleUpdate) => Fixed::Update {
                            sender,
                            receiver,
                            action,
                            reserved: 0,
                        },
                        Some(e) if e.fixed_len() == 12 => Fixed::Takeover {
                            sender,
                            receiver,
                            target: ids[2],
                        },
                        _ => Fixed::Servers { sender, receiver },
                    };
                    let params = if e.is_some_and(|e| e.has_params()) {
                        params
                    } else {
                        Vec::new()
                    };
                    (Protocol::Enrp, fixed, params)
                };
                rserpool::Message::new(protocol, enc, t, flags, fixed, params)
            })
    })
}

fn ipv4() -> impl Strategy<Value = Ipv4Addr> {
    any::<u32>().prop_map(Ipv4Addr::from)
}

fn ipv6() -> impl Strategy<Value = Ipv6Addr> {
    any::<u128>().prop_map(Ipv6Addr::from)
}

fn dhcpv4_option() -> impl Strategy<Value = dhcpv4::Opt<'static>> {
    use dhcpv4::{Opt, SubOpt};
    prop_oneof![
        ipv4().prop_map(Opt::server_identifier),
        ipv4().prop_map(Opt::requested_address),
        any::<u32>().prop_map(Opt::lease_time),
        (any::<u8>(), vec(any::<u8>(), 1..20))
            .prop_map(|(kind, id)| Opt::client_identifier(kind, &id)),
        vec(1u8..=254, 1..20).prop_map(|c| Opt::parameter_request_list(&c)),
        "[a-z0-9.-]{1,30}".prop_map(|s| Opt::text(12, &s)),
        vec((1u8..=254, vec(any::<u8>(), 0..12)), 1..4).prop_map(|subs| {
            Opt::relay_agent_info(
                subs.into_iter()
                    .map(|(c, d)| SubOpt::new(c, d))
                    .collect::<Vec<_>>(),
            )
        }),
        (
            select(vec![224u8, 240, 250, 251, 253]),
            vec(any::<u8>(), 0..40)
        )
            .prop_map(|(code, data)| Opt::raw(code, &data)),
    ]
}

/// A DHCP message of every type (option 53 1..=18) or plain BOOTP, from either side.
fn dhcpv4_message() -> impl Strategy<Value = dhcpv4::Message<'static>> {
    (
        proptest::option::of(1u8..=18),
        any::<bool>(),
        any::<u32>(),
        any::<[u8; 6]>(),
        any::<u16>(),
        ipv4(),
        ipv4(),
        vec(dhcpv4_option(), 0..6),
        0usize..=100,
    )
        .prop_map(
            |(mtype, reply, xid, mac, secs, giaddr, yiaddr, opts, pad)| {
                let mut m = match (mtype, reply) {
                    (Some(t), false) => dhcpv4::Message::request(t, xid, mac),
                    (Some(t), true) => dhcpv4::Message::reply(t, xid, mac),
                    (None, r) => dhcpv4::Message::new(
                        if r {
                            dhcpv4::BOOTREPLY
                        } else {
                            dhcpv4::BOOTREQUEST
                        },
                        xid,
                        mac,
                    ),
                };
                m = m.with_secs(secs).with_giaddr(giaddr).with_yiaddr(yiaddr);
                for o in opts {
                    m = m.with(o);
                }
                let len = m.emit().len() + pad;
                m.padded_to(len)
            },
        )
}

fn duid() -> impl Strategy<Value = dhcpv6::Duid<'static>> {
    use dhcpv6::Duid;
    prop_oneof![
        (any::<u16>(), any::<[u8; 6]>()).prop_map(|(hw, ll)| Duid::ll(hw, &ll)),
        (any::<u16>(), any::<u32>(), any::<[u8; 6]>())
            .prop_map(|(hw, t, ll)| Duid::llt(hw, t, &ll)),
        (any::<u32>(), vec(any::<u8>(), 1..16)).prop_map(|(e, id)| Duid::en(e, &id)),
        any::<[u8; 16]>().prop_map(Duid::uuid),
    ]
}

fn dhcpv6_option() -> impl Strategy<Value = dhcpv6::Opt<'static>> {
    use dhcpv6::Opt;
    let iaaddr =
        (ipv6(), any::<u32>(), any::<u32>()).prop_map(|(a, p, v)| Opt::iaaddr(a, p, v, vec![]));
    prop_oneof![
        duid().prop_map(Opt::client_id),
        duid().prop_map(Opt::server_id),
        any::<u16>().prop_map(Opt::elapsed_time),
        (any::<u32>(), any::<u32>(), any::<u32>(), vec(iaaddr, 0..3))
            .prop_map(|(id, t1, t2, addrs)| Opt::ia_na(id, t1, t2, addrs)),
        vec(1u16..200, 1..6).prop_map(|c| Opt::oro(&c)),
        any::<u8>().prop_map(Opt::preference),
        (0u16..8, "[a-zA-Z ]{0,20}").prop_map(|(c, m)| Opt::status_code(c, &m)),
        Just(Opt::rapid_commit()),
        vec(ipv6(), 1..3).prop_map(|a| Opt::addresses(23, &a)),
        (
            any::<u16>().prop_filter("not a known code", |c| *c > 200),
            vec(any::<u8>(), 0..20)
        )
            .prop_map(|(c, d)| Opt::raw(c, &d)),
    ]
}

/// Every client/server message type, optionally inside 1..=3 relay layers.
fn dhcpv6_message() -> impl Strategy<Value = dhcpv6::Message<'static>> {
    let types: Vec<u8> = (1u8..=21).filter(|t| !dhcpv6::is_relay(*t)).collect();
    (
        select(types),
        0u32..0x100_0000,
        vec(dhcpv6_option(), 0..6),
        vec(
            (
                select(vec![
                    dhcpv6::msg_type::RELAY_FORW,
                    dhcpv6::msg_type::RELAY_REPL,
                ]),
                any::<u8>(),
                ipv6(),
                ipv6(),
                proptest::option::of(vec(any::<u8>(), 1..8)),
            ),
            0..=3,
        ),
    )
        .prop_map(|(t, xid, opts, relays)| {
            let mut m = dhcpv6::Message::client(dhcpv6::ClientMessage::new(t, xid, opts));
            for (rt, hops, link, peer, iface) in relays {
                let opts = iface
                    .map(|i| vec![dhcpv6::Opt::interface_id(&i)])
                    .unwrap_or_default();
                m = m.relayed(rt, hops, link, peer, opts);
            }
            m
        })
}

fn failover_option() -> impl Strategy<Value = failover::FoOption> {
    use failover::{BindingStatus, FoOption, ServerState};
    prop_oneof![
        any::<u32>().prop_map(FoOption::AddressesTransferred),
        ipv4().prop_map(FoOption::AssignedIpAddress),
        (1u8..=7).prop_map(|s| FoOption::BindingStatus(BindingStatus::from_u8(s))),
        vec(any::<u8>(), 1..16).prop_map(FoOption::ClientIdentifier),
        (any::<u8>(), vec(any::<u8>(), 1..16))
            .prop_map(|(htype, address)| FoOption::ClientHardwareAddress { htype, address }),
        any::<u32>().prop_map(FoOption::ClientLastTransactionTime),
        vec(any::<u8>(), 32).prop_map(FoOption::HashBucketAssignment),
        any::<u32>().prop_map(FoOption::LeaseExpirationTime),
        any::<u32>().prop_map(FoOption::Mclt),
        "[ -~]{0,40}".prop_map(|s| FoOption::Message(s.into_bytes())),
        any::<u32>().prop_map(FoOption::PotentialExpirationTime),
        any::<u8>().prop_map(FoOption::ProtocolVersion),
        any::<u8>().prop_map(FoOption::RejectReason),
        "[a-z-]{1,20}".prop_map(|s| FoOption::RelationshipName(s.into_bytes())),
        any::<u8>().prop_map(FoOption::ServerFlags),
        (1u8..=10).prop_map(|s| FoOption::ServerState(ServerState::from_u8(s))),
        any::<u32>().prop_map(FoOption::StartTimeOfState),
        any::<u32>().prop_map(FoOption::ReceiveTimer),
    ]
}

/// Every failover message type (1..=12).
fn failover_message() -> impl Strategy<Value = failover::Message> {
    (
        1u8..=12,
        any::<u32>(),
        any::<u32>(),
        vec(failover_option(), 0..8),
    )
        .prop_map(|(t, time, xid, opts)| {
            failover::Message::new(failover::MessageType::from_u8(t), time, xid, opts)
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn rserpool_emit_then_parse(m in rserpool_message()) {
        let bytes = m.emit();
        let (back, errors) = rserpool::parse(&bytes, m.protocol, m.encoding);
        prop_assert!(errors.is_empty(), "{errors:?} in {bytes:02x?}");
        prop_assert_eq!(&back, &m);
        prop_assert_eq!(&back.emit(), &bytes);
        // The encoding guess never picks an encoding that reads the message with errors.
        if let Some(g) = rserpool::guess_encoding(&bytes, m.protocol) {
            let (_, errs) = rserpool::parse(&bytes, m.protocol, g);
            prop_assert!(g == m.encoding || errs.is_empty(), "{g:?}: {errs:?}");
        }
    }

    #[test]
    fn dhcpv4_emit_then_parse(m in dhcpv4_message()) {
        let bytes = m.emit();
        let (back, errors) = dhcpv4::parse(&bytes);
        prop_assert!(errors.is_empty(), "{errors:?}");
        prop_assert_eq!(&back, &m);
        prop_assert_eq!(&back.emit(), &bytes);
    }

    #[test]
    fn dhcpv6_emit_then_parse(m in dhcpv6_message()) {
        let bytes = m.emit();
        let (back, errors) = dhcpv6::parse(&bytes);
        prop_assert!(errors.is_empty(), "{errors:?}");
        prop_assert_eq!(&back, &m);
        prop_assert_eq!(&back.emit(), &bytes);
    }

    #[test]
    fn failover_emit_then_parse(m in failover_message()) {
        let bytes = m.emit().map_err(|e| TestCaseError::fail(e.to_string()))?;
        let (back, errors) = failover::parse(&bytes);
        prop_assert!(errors.is_empty(), "{errors:?}");
        prop_assert_eq!(&back, &m);
        prop_assert_eq!(back.emit().ok(), Some(bytes));
    }
}
