//! Tests of the rserpool display tree (`super`): written straight and as a tree alike.

use super::super::{
    parse, AsapType, Cause, CauseInfo, EnrpType, Fixed, HandleBytes, Message, OperationError,
    Parameter, Policy, PoolElement, ServerInformation, TransportProtocol, FLAG_MORE, FLAG_REJECT,
    FLAG_REPLY_REQUIRED, FLAG_TAKEOVER_SUGGESTED,
};
use super::*;
use crate::field::Value;
use crate::output::json::assert_written_as_the_tree;
use crate::proto::rserpool::tests::{every_message, transport, ENCODINGS};

fn handle() -> Parameter {
    Parameter::PoolHandle(HandleBytes::from_slice(b"Syn-\\RR\x01"))
}

/// Every policy kind the encoding has, with as many values as the kind has roles.
fn policies(enc: Encoding) -> Vec<Parameter> {
    super::super::policies(enc)
        .into_iter()
        .filter_map(|k| Policy::new(enc, k, &[0x0012_3456, 0x0000_ffff, 0x0080_0000]))
        .map(Parameter::Policy)
        .collect()
}

fn pe(id: u32, params: Vec<Parameter>) -> Parameter {
    let mut all = vec![transport(TransportProtocol::Sctp, 5000, 1)];
    all.extend(params);
    all.push(transport(TransportProtocol::Sctp, 40001, 0));
    Parameter::PoolElement(PoolElement {
        pe_id: id,
        home_server_id: 0x1111_1111,
        registration_life: 30_000,
        params: all,
    })
}

fn op_error(inner: &Message) -> Parameter {
    let cause = |code: u16, info: CauseInfo| Cause { code, info };
    Parameter::OperationError(OperationError {
        causes: vec![
            cause(0x0, CauseInfo::Empty),
            cause(
                0x1,
                CauseInfo::UnrecognizedParameter(vec![0x4a, 0xbc, 0, 7, 1, 2, 3, 0]),
            ),
            cause(0x2, CauseInfo::UnrecognizedMessage(inner.emit())),
            cause(0x3, CauseInfo::Parameters(vec![Parameter::PeIdentifier(7)])),
            cause(0x9, CauseInfo::Empty),
            cause(0x1234, CauseInfo::Raw(b"xyz".to_vec())),
        ],
        rest: vec![0, 1],
    })
}

/// Messages of every type, with every parameter, policy, transport and cause kind, and
/// unknown parameters of every action: the round-trip tests' messages after this test's own.
fn messages(enc: Encoding) -> Vec<Message> {
    let asap = |t: AsapType, flags: u8, fixed: Fixed, params: Vec<Parameter>| {
        Message::new(Protocol::Asap, enc, t as u8, flags, fixed, params)
    };
    let enrp = |t: EnrpType, flags: u8, fixed: Fixed, params: Vec<Parameter>| {
        Message::new(Protocol::Enrp, enc, t as u8, flags, fixed, params)
    };
    let ids = || Fixed::Servers {
        sender: 1,
        receiver: 2,
    };
    let server_info = || {
        Parameter::ServerInformation(ServerInformation {
            server_id: 0x2222_2222,
            flags: (enc == Encoding::Rsplib2007).then_some(3),
            params: vec![transport(TransportProtocol::Sctp, 9901, 0)],
        })
    };
    let deregistration = asap(
        AsapType::Deregistration,
        0,
        Fixed::None,
        vec![handle(), Parameter::PeIdentifier(7)],
    );
    let mut registration_params = vec![handle()];
    for (i, p) in policies(enc).into_iter().enumerate() {
        registration_params.push(pe(i as u32, vec![p]));
    }
    let mut v = vec![
        asap(AsapType::Registration, 0, Fixed::None, registration_params),
        asap(
            AsapType::RegistrationResponse,
            FLAG_REJECT,
            Fixed::None,
            vec![
                handle(),
                Parameter::PeIdentifier(7),
                op_error(&deregistration),
            ],
        ),
        deregistration.clone(),
        asap(
            AsapType::Cookie,
            0,
            Fixed::None,
            vec![
                Parameter::Cookie(b"state-blob-17bytes".to_vec()),
                Parameter::Cookie(Vec::new()),
            ],
        ),
        asap(
            AsapType::Error,
            0,
            Fixed::None,
            vec![op_error(&enrp(EnrpType::ListRequest, 0, ids(), vec![]))],
        ),
        asap(
            AsapType::HandleResolution,
            0,
            Fixed::None,
            vec![
                handle(),
                Parameter::Unknown {
                    code: 0xbf01,
                    value: vec![1, 2, 3],
                },
                Parameter::Unknown {
                    code: 0xff02,
                    value: Vec::new(),
                },
                Parameter::Unknown {
                    code: 0x3f03,
                    value: vec![4],
                },
            ],
        ),
        asap(
            AsapType::HandleResolution,
            0,
            Fixed::None,
            vec![
                handle(),
                Parameter::Unknown {
                    code: 0x7f04,
                    value: vec![5, 6],
                },
                Parameter::PeIdentifier(9),
            ],
        ),
        enrp(
            EnrpType::Presence,
            FLAG_REPLY_REQUIRED,
            ids(),
            vec![Parameter::PeChecksum(0xbeef), server_info()],
        ),
        enrp(EnrpType::HandleTableRequest, 0x01, ids(), vec![]),
        enrp(
            EnrpType::HandleTableResponse,
            FLAG_MORE | FLAG_REJECT,
            ids(),
            vec![handle(), pe(7, policies(enc).into_iter().take(1).collect())],
        ),
        enrp(
            EnrpType::HandleUpdate,
            FLAG_TAKEOVER_SUGGESTED,
            Fixed::Update {
                sender: 1,
                receiver: 2,
                action: 1,
                reserved: 0xab,
            },
            vec![handle()],
        ),
        enrp(
            EnrpType::ListResponse,
            FLAG_REJECT,
            ids(),
            vec![server_info(), server_info()],
        ),
    ];
    if enc == Encoding::Rfc {
        let mut params = vec![
            Parameter::OpaqueTransport(b"opaque-17-bytes!!".to_vec()),
            Parameter::OpaqueTransport(Vec::new()),
        ];
        for protocol in [
            TransportProtocol::Tcp,
            TransportProtocol::Udp,
            TransportProtocol::UdpLite,
            TransportProtocol::Dccp {
                service_code: 0x1234_5678,
            },
        ] {
            params.push(transport(protocol, 5001, 2));
        }
        v.push(asap(
            AsapType::Registration,
            0,
            Fixed::None,
            vec![handle(), pe(9, params)],
        ));
    }
    // Every message type, as the round-trip tests build them (unknown types among them: ASAP's
    // body shown as parameters, ENRP's raw).
    v.extend(every_message(enc));
    v
}

/// The messages, then each read back from its bytes with a byte after it, cut short, and
/// with bytes changed: errors, invalid and unprocessed parameters, trailing bytes.
fn with_malformed(enc: Encoding) -> Vec<Message> {
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut noise = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed >> 24) as u8
    };
    let mut out = Vec::new();
    for m in messages(enc) {
        let good = m.emit();
        let mut longer = good.clone();
        longer.push(0xee);
        let mut variants = vec![longer];
        for cut in (4..good.len()).step_by(3) {
            variants.push(good[..cut].to_vec());
        }
        for _ in 0..40 {
            let mut b = good.clone();
            for _ in 0..3 {
                let i = usize::from(noise()) % b.len();
                b[i] = noise();
            }
            variants.push(b);
        }
        for b in variants {
            out.push(parse(&b, m.protocol, enc).0);
        }
        out.push(m);
    }
    out
}

#[test]
fn the_json_fields_written_straight_are_those_of_the_tree() {
    let mut names: Vec<&'static str> = Vec::new();
    let mut count = 0;
    for enc in ENCODINGS {
        for m in with_malformed(enc) {
            let tree = m.fields();
            assert_written_as_the_tree(&tree, |o| m.write_tree(o), &format!("{m:?}"));
            for f in &tree {
                f.walk(&mut |x| {
                    if !names.contains(&x.name) {
                        names.push(x.name);
                    }
                });
            }
            count += 1;
        }
    }
    assert!(count > 1000, "{count} messages");
    // The set covers what the writer has branches for.
    for name in [
        ASAP.cause_info,
        ASAP.cause_padding,
        ASAP.policy_weight,
        ASAP.policy_priority,
        ASAP.policy_load,
        ASAP.policy_degradation,
        ASAP.policy_weight_dpf,
        ASAP.policy_load_dpf,
        ASAP.policy_distance,
        ASAP.tcp_port,
        ASAP.udp_reserved,
        ASAP.udp_lite_reserved,
        ASAP.dccp_service_code,
        ASAP.hropt_items,
        ASAP.cookie,
        ENRP.pe_checksum,
        ASAP.policy_value,
        ASAP.parameter_value,
        ASAP.parameter_padding,
        ASAP.message_value,
        ENRP.message_value,
        ENRP.server_info_id,
        "asap.h_bit",
        "enrp.m_bit",
        "enrp.w_bit",
        "enrp.t_bit",
        "enrp.update_action",
        "enrp.target_servers_id",
        "poolshark.rserpool.server_flags",
        "poolshark.rserpool.unknown_action",
        "poolshark.rserpool.unprocessed",
        "poolshark.rserpool.trailing",
        "poolshark.rserpool.cause",
    ] {
        assert!(names.contains(&name), "no {name} in {names:?}");
    }
}

/// A message in an Unrecognized Message cause is its own tree moved to where it sits.
#[test]
fn a_nested_message_is_its_own_tree_at_its_offset() {
    for enc in ENCODINGS {
        let m = &messages(enc)[1];
        let Some(Parameter::OperationError(e)) = m.params.get(2) else {
            panic!("an operation error");
        };
        let Some(CauseInfo::UnrecognizedMessage(b)) = e.causes.get(2).map(|c| &c.info) else {
            panic!("an unrecognized message cause");
        };
        let wire = m.emit();
        let at = wire
            .windows(b.len())
            .position(|w| w == &b[..])
            .expect("the nested bytes in the message");
        let (inner, errors) = parse(b, Protocol::Asap, enc);
        assert!(errors.is_empty(), "{errors:?}");
        let mut want = inner.fields().remove(0);
        // The encoding is said once, by the outer message.
        want.children
            .retain(|c| c.name != "poolshark.rserpool.encoding");
        want.shift(at);
        let tree = m.fields();
        let mut nested = Vec::new();
        tree[0].walk(&mut |x| {
            if x.name == "asap" && x.offset > 0 {
                nested.push(x.clone());
            }
        });
        assert_eq!(nested, vec![want]);
        assert_eq!(
            crate::field::find(&nested, "asap.pe_identifier").map(|f| &f.value),
            Some(&Value::Uint(7))
        );
    }
}
