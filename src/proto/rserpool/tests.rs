//! Message-level tests: every type in every encoding round trips, every malformed length is an
//! error at the right offset, unknown parameters follow their type bits, the encoding guess.

use std::net::{Ipv4Addr, Ipv6Addr};

use super::*;
use crate::field::{find, find_all, Value};

pub(super) const ENCODINGS: [Encoding; 3] =
    [Encoding::Rfc, Encoding::Draft01, Encoding::Rsplib2007];

/// A transport parameter with an IPv4 and an IPv6 address.
pub(super) fn transport(protocol: TransportProtocol, port: u16, use_: u16) -> Parameter {
    Parameter::Transport(Transport {
        protocol,
        port,
        transport_use: use_,
        addresses: vec![
            Parameter::Ipv4(Ipv4Addr::new(192, 0, 2, 10)),
            Parameter::Ipv6(Ipv6Addr::new(0x2001, 0xdb8, 0, 0, 0, 0, 0, 0x10)),
        ],
    })
}

fn sctp(port: u16, use_: u16) -> Parameter {
    transport(TransportProtocol::Sctp, port, use_)
}

fn policy(enc: Encoding) -> Parameter {
    let kind = PolicyKind::LeastUsedDegradation;
    let full = if enc == Encoding::Rfc {
        u32::MAX
    } else {
        LEGACY_FULL
    };
    Parameter::Policy(Policy::new(enc, kind, &[full / 2, full / 10]).expect("LUD everywhere"))
}

fn pe(enc: Encoding, id: u32) -> Parameter {
    Parameter::PoolElement(PoolElement {
        pe_id: id,
        home_server_id: 0x1111_1111,
        registration_life: 30_000,
        params: vec![sctp(5000, 1), policy(enc), sctp(40001, 0)],
    })
}

fn server_info(enc: Encoding) -> Parameter {
    Parameter::ServerInformation(ServerInformation {
        server_id: 0x2222_2222,
        flags: (enc == Encoding::Rsplib2007).then_some(0),
        params: vec![sctp(9901, 0)],
    })
}

fn op_error() -> Parameter {
    Parameter::OperationError(OperationError {
        causes: vec![
            Cause {
                code: 0x9,
                info: CauseInfo::Empty,
            },
            Cause {
                code: 0x1,
                info: CauseInfo::UnrecognizedParameter(vec![0x4a, 0xbc, 0, 7, 1, 2, 3, 0]),
            },
            Cause {
                code: 0x1234,
                info: CauseInfo::Raw(b"xyz".to_vec()),
            },
        ],
        rest: Vec::new(),
    })
}

fn handle() -> Parameter {
    Parameter::PoolHandle(HandleBytes::from_slice(b"Syn-RR"))
}

/// A plausible message of every type, in `enc` (also the display tree's tests' messages).
pub(super) fn every_message(enc: Encoding) -> Vec<Message> {
    let asap = |t: AsapType, flags: u8, fixed: Fixed, params: Vec<Parameter>| {
        Message::new(Protocol::Asap, enc, t as u8, flags, fixed, params)
    };
    let enrp = |t: EnrpType, flags: u8, fixed: Fixed, params: Vec<Parameter>| {
        Message::new(Protocol::Enrp, enc, t as u8, flags, fixed, params)
    };
    let ids = Fixed::Servers {
        sender: 1,
        receiver: 2,
    };
    let takeover = Fixed::Takeover {
        sender: 1,
        receiver: 2,
        target: 3,
    };
    let mut v = vec![
        asap(
            AsapType::Registration,
            0,
            Fixed::None,
            vec![handle(), pe(enc, 7)],
        ),
        asap(
            AsapType::Deregistration,
            0,
            Fixed::None,
            vec![handle(), Parameter::PeIdentifier(7)],
        ),
        asap(
            AsapType::RegistrationResponse,
            FLAG_REJECT,
            Fixed::None,
            vec![handle(), Parameter::PeIdentifier(7), op_error()],
        ),
        asap(
            AsapType::DeregistrationResponse,
            0,
            Fixed::None,
            vec![handle(), Parameter::PeIdentifier(7)],
        ),
        asap(AsapType::HandleResolution, 0, Fixed::None, vec![handle()]),
        asap(
            AsapType::HandleResolutionResponse,
            0,
            Fixed::None,
            vec![handle(), policy(enc), pe(enc, 7), pe(enc, 8)],
        ),
        asap(
            AsapType::EndpointKeepAlive,
            FLAG_HOME,
            Fixed::ServerId(0x1111_1111),
            vec![handle(), Parameter::PeIdentifier(7)],
        ),
        asap(
            AsapType::EndpointKeepAliveAck,
            0,
            Fixed::None,
            vec![handle(), Parameter::PeIdentifier(7)],
        ),
        asap(
            AsapType::EndpointUnreachable,
            0,
            Fixed::None,
            vec![handle(), Parameter::PeIdentifier(7)],
        ),
        asap(
            AsapType::ServerAnnounce,
            0,
            Fixed::ServerId(0x1111_1111),
            vec![sctp(3863, 0)],
        ),
        asap(
            AsapType::Cookie,
            0,
            Fixed::None,
            vec![Parameter::Cookie(b"state-blob-17bytes".to_vec())],
        ),
        asap(
            AsapType::CookieEcho,
            0,
            Fixed::None,
            vec![Parameter::Cookie(b"state".to_vec())],
        ),
        asap(
            AsapType::BusinessCard,
            0,
            Fixed::None,
            vec![handle(), pe(enc, 7)],
        ),
        asap(AsapType::Error, 0, Fixed::None, vec![op_error()]),
        enrp(
            EnrpType::Presence,
            FLAG_REPLY_REQUIRED,
            ids.clone(),
            vec![Parameter::PeChecksum(0xbeef), server_info(enc)],
        ),
        enrp(
            EnrpType::HandleTableRequest,
            FLAG_OWN_CHILDREN_ONLY,
            ids.clone(),
            vec![],
        ),
        enrp(
            EnrpType::HandleTableResponse,
            FLAG_MORE,
            ids.clone(),
            vec![handle(), pe(enc, 7)],
        ),
        enrp(
            EnrpType::HandleUpdate,
            FLAG_TAKEOVER_SUGGESTED,
            Fixed::Update {
                sender: 1,
                receiver: 2,
                action: 1,
                reserved: 0,
            },
            vec![handle(), pe(enc, 7)],
        ),
        enrp(EnrpType::ListRequest, 0, ids.clone(), vec![]),
        enrp(
            EnrpType::ListResponse,
            0,
            ids.clone(),
            vec![server_info(enc), server_info(enc)],
        ),
        enrp(EnrpType::InitTakeover, 0, takeover.clone(), vec![]),
        enrp(EnrpType::InitTakeoverAck, 0, takeover.clone(), vec![]),
        enrp(EnrpType::TakeoverServer, 0, takeover, vec![]),
        enrp(EnrpType::Error, 0, ids, vec![op_error()]),
        // Unknown types keep their body raw.
        Message::new(
            Protocol::Asap,
            enc,
            0x4f,
            0,
            Fixed::Raw(vec![0, 9, 0, 5, b'x', 0, 0, 0]),
            vec![],
        ),
        Message::new(
            Protocol::Enrp,
            enc,
            0x4f,
            0,
            Fixed::Raw(vec![1, 2, 3, 4, 5, 6, 7, 8]),
            vec![],
        ),
    ];
    if enc == Encoding::Rfc {
        // Parameters only the RFC numbering has.
        v.push(asap(
            AsapType::HandleResolution,
            0,
            Fixed::None,
            vec![handle(), Parameter::HandleResolutionOption(u32::MAX)],
        ));
        let mut pe = PoolElement {
            pe_id: 9,
            home_server_id: 0,
            registration_life: -1,
            params: vec![
                Parameter::OpaqueTransport(b"opaque-17-bytes!!".to_vec()),
                policy(enc),
            ],
        };
        for protocol in [
            TransportProtocol::Tcp,
            TransportProtocol::Udp,
            TransportProtocol::UdpLite,
            TransportProtocol::Dccp {
                service_code: 0x1234_5678,
            },
        ] {
            pe.params.push(Parameter::Transport(Transport {
                protocol,
                port: 5001,
                transport_use: 0,
                addresses: vec![Parameter::Ipv4(Ipv4Addr::new(192, 0, 2, 10))],
            }));
        }
        v.push(asap(
            AsapType::Registration,
            0,
            Fixed::None,
            vec![handle(), Parameter::PoolElement(pe)],
        ));
    }
    v
}

#[test]
fn every_message_type_round_trips_in_every_encoding() {
    for enc in ENCODINGS {
        let all = every_message(enc);
        assert_eq!(all.len(), if enc == Encoding::Rfc { 28 } else { 26 });
        for m in all {
            let bytes = m.emit();
            let (back, errors) = parse(&bytes, m.protocol, enc);
            assert!(errors.is_empty(), "{enc:?} {}: {errors:?}", m.type_name());
            assert_eq!(back, m, "{enc:?} {}", m.type_name());
            assert_eq!(back.emit(), bytes);
            // The length field counts everything, padding included, and is a multiple of 4.
            assert_eq!(
                usize::from(u16::from_be_bytes([bytes[2], bytes[3]])),
                bytes.len()
            );
            // The guess finds the encoding whenever the message has parameters. Between the
            // legacy encodings only a server information or a policy can tell.
            if let Some(g) = guess_encoding(&bytes, m.protocol) {
                let legacy = |e: Encoding| e != Encoding::Rfc;
                assert!(
                    g == enc || (legacy(g) && legacy(enc)),
                    "{enc:?} {}: guessed {g:?}",
                    m.type_name()
                );
            } else {
                // No parameters, or only transports and addresses: RFC's SCTP transport (0x4)
                // reads as a legacy TCP transport with the same layout.
                let only_addresses = m
                    .params
                    .iter()
                    .all(|p| matches!(p, Parameter::Transport(_)));
                assert!(only_addresses, "{enc:?} {}: no guess", m.type_name());
            }
        }
    }
}

#[test]
fn guess_tells_the_legacy_encodings_apart_where_the_bytes_can() {
    // A server information: RSPLIB 2007 has a flags word, the draft has not.
    for enc in [Encoding::Draft01, Encoding::Rsplib2007] {
        let m = Message::new(
            Protocol::Enrp,
            enc,
            EnrpType::Presence as u8,
            0,
            Fixed::Servers {
                sender: 1,
                receiver: 2,
            },
            vec![Parameter::PeChecksum(1), server_info(enc)],
        );
        assert_eq!(guess_encoding(&m.emit(), Protocol::Enrp), Some(enc));
    }
    // PLU: 7 in the draft (with a degradation word), 9 in RSPLIB 2007.
    for enc in [Encoding::Draft01, Encoding::Rsplib2007] {
        let plu = Policy::new(enc, PolicyKind::PriorityLeastUsed, &[5, 6]).expect("PLU");
        let m = Message::new(
            Protocol::Asap,
            enc,
            AsapType::Registration as u8,
            0,
            Fixed::None,
            vec![
                handle(),
                Parameter::PoolElement(PoolElement {
                    pe_id: 1,
                    home_server_id: 0,
                    registration_life: 1,
                    params: vec![sctp(1, 0), Parameter::Policy(plu)],
                }),
            ],
        );
        assert_eq!(
            guess_encoding(&m.emit(), Protocol::Asap),
            Some(enc),
            "{enc:?}"
        );
    }
    // Nothing to tell: RR is 1 everywhere, and the legacy default is RSPLIB 2007.
    let m = &every_message(Encoding::Draft01)[0];
    assert_eq!(
        guess_encoding(&m.emit(), Protocol::Asap),
        Some(Encoding::Rsplib2007)
    );
    // Too short to tell anything.
    assert_eq!(guess_encoding(&[1, 0], Protocol::Asap), None);
    assert_eq!(guess_encoding(&[], Protocol::Enrp), None);
}

fn registration_bytes() -> Vec<u8> {
    every_message(Encoding::Rfc)[0].emit()
}

#[test]
fn message_length_problems_are_errors_at_byte_2() {
    let good = registration_bytes();
    // Longer than the buffer.
    let mut b = good.clone();
    b[3] = b[3].wrapping_add(8);
    let (m, e) = parse(&b, Protocol::Asap, Encoding::Rfc);
    assert_eq!(e.len(), 1, "{e:?}");
    assert_eq!(e[0].offset, 2);
    assert!(e[0].what.contains("runs past"));
    assert_eq!(m.pool_handle(), Some(&b"Syn-RR"[..]), "decoding went on");
    // Shorter than the header.
    let mut b = good.clone();
    b[2] = 0;
    b[3] = 3;
    let (m, e) = parse(&b, Protocol::Asap, Encoding::Rfc);
    assert_eq!(e[0].offset, 2);
    assert_eq!(m.pool_elements().count(), 1);
    // Bytes after the declared length.
    let mut b = good.clone();
    b.extend_from_slice(&[0, 0, 0, 0, 1]);
    let (m, e) = parse(&b, Protocol::Asap, Encoding::Rfc);
    assert_eq!(e.len(), 1);
    assert_eq!(e[0].offset, good.len());
    assert_eq!(m.trailing, vec![0, 0, 0, 0, 1]);
    assert_eq!(m.emit(), b, "kept, not lost");
    // Up to three zero bytes of padding are normal.
    let mut b = good.clone();
    b.extend_from_slice(&[0, 0]);
    let (_, e) = parse(&b, Protocol::Asap, Encoding::Rfc);
    assert!(e.is_empty());
    // A header cut short.
    for n in 0..4 {
        let (m, e) = parse(&good[..n], Protocol::Asap, Encoding::Rfc);
        assert_eq!(e.len(), 1);
        assert_eq!(e[0].offset, 0);
        assert_eq!(
            m.msg_type,
            good.first().copied().filter(|_| n > 0).unwrap_or(0)
        );
    }
}

#[test]
fn parameter_length_problems_keep_the_rest_raw() {
    let good = registration_bytes();
    // The pool handle parameter is at byte 4: its length field at 6.
    for (len, what) in [
        (0u16, "shorter than its 4-byte header"),
        (3, "shorter"),
        (0x400, "only"),
    ] {
        let mut b = good.clone();
        b[6..8].copy_from_slice(&len.to_be_bytes());
        let (m, e) = parse(&b, Protocol::Asap, Encoding::Rfc);
        assert_eq!(e.len(), 1, "{len}: {e:?}");
        assert_eq!(e[0].offset, 4);
        assert!(e[0].what.contains(what), "{}", e[0].what);
        assert_eq!(m.params.len(), 1);
        assert!(matches!(&m.params[0], Parameter::Unprocessed(r) if r.len() == good.len() - 4));
        assert_eq!(m.emit()[4..], b[4..], "the rest is kept as it was");
    }
    // A nested parameter running past its parent (the PE's first transport, at 16 + 12).
    let mut b = good.clone();
    let pe_at = 16;
    let nested = pe_at + 16;
    b[nested + 2..nested + 4].copy_from_slice(&0x200u16.to_be_bytes());
    let (m, e) = parse(&b, Protocol::Asap, Encoding::Rfc);
    assert_eq!(e.len(), 1, "{e:?}");
    assert_eq!(e[0].offset, nested);
    let pe = m.pool_elements().next().expect("the PE is still there");
    assert_eq!(pe.pe_id, 7);
    assert!(matches!(pe.params[0], Parameter::Unprocessed(_)));
    // Three bytes left where a parameter header was expected.
    let mut b = good.clone();
    b.extend_from_slice(&[0, 9, 0]);
    let n = b.len() as u16;
    b[2..4].copy_from_slice(&n.to_be_bytes());
    let (_, e) = parse(&b, Protocol::Asap, Encoding::Rfc);
    assert_eq!(e.len(), 1);
    assert_eq!(e[0].offset, good.len());
}

#[test]
fn fixed_size_parameters_of_the_wrong_size_are_invalid() {
    let cases: [(u16, &[u8]); 5] = [
        (0x1, &[1, 2, 3]),
        (0x2, &[0; 4]),
        (0xe, &[1, 2]),
        (0xf, &[1, 2, 3, 4]),
        (0x803f, &[1]),
    ];
    for (code, value) in cases {
        let mut b = vec![5, 0, 0, 0];
        crate::proto::rserpool::wire::push_tlv(&mut b, code, |o| o.extend_from_slice(value));
        let n = b.len() as u16;
        b[2..4].copy_from_slice(&n.to_be_bytes());
        let (m, e) = parse(&b, Protocol::Asap, Encoding::Rfc);
        assert_eq!(e.len(), 1, "0x{code:x}");
        assert_eq!(e[0].offset, 4);
        assert_eq!(
            m.params,
            vec![Parameter::Invalid {
                code,
                value: value.to_vec()
            }]
        );
        assert_eq!(m.emit(), b);
    }
    // Containers whose fixed part is cut short.
    for (code, n) in [(0xau16, 11usize), (0x4, 3), (0x3, 7), (0xb, 3)] {
        let mut b = vec![1, 0, 0, 0];
        crate::proto::rserpool::wire::push_tlv(&mut b, code, |o| {
            o.extend(std::iter::repeat_n(0, n))
        });
        let len = b.len() as u16;
        b[2..4].copy_from_slice(&len.to_be_bytes());
        let (m, e) = parse(&b, Protocol::Asap, Encoding::Rfc);
        assert_eq!(e.len(), 1, "0x{code:x}: {e:?}");
        assert!(matches!(m.params[0], Parameter::Invalid { .. }));
    }
}

#[test]
fn unknown_parameters_follow_their_top_two_bits() {
    let build = |code: u16| {
        let mut b = vec![1, 0, 0, 0];
        crate::proto::rserpool::wire::push_tlv(&mut b, code, |o| o.extend_from_slice(&[1, 2, 3]));
        crate::proto::rserpool::wire::push_tlv(&mut b, 0x9, |o| o.extend_from_slice(b"pool"));
        let n = b.len() as u16;
        b[2..4].copy_from_slice(&n.to_be_bytes());
        b
    };
    for code in [0x0abc, 0x4abc] {
        let b = build(code);
        let (m, e) = parse(&b, Protocol::Asap, Encoding::Rfc);
        assert!(
            e.is_empty(),
            "a stop is what the sender asked for, not an error"
        );
        assert_eq!(m.params.len(), 2);
        assert_eq!(
            m.params[0],
            Parameter::Unknown {
                code,
                value: vec![1, 2, 3]
            }
        );
        assert!(matches!(&m.params[1], Parameter::Unprocessed(r) if r.len() == 8));
        assert_eq!(m.pool_handle(), None, "not processed");
        assert_eq!(m.emit(), b);
        let fields = m.fields();
        assert!(find(&fields, "poolshark.rserpool.unprocessed").is_some());
    }
    for code in [0x8abc, 0xcabc] {
        let b = build(code);
        let (m, e) = parse(&b, Protocol::Asap, Encoding::Rfc);
        assert!(e.is_empty());
        assert_eq!(m.pool_handle(), Some(&b"pool"[..]), "skipped, then went on");
        assert_eq!(m.emit(), b);
    }
}

#[test]
fn enrp_fixed_fields_and_short_bodies() {
    let m = &every_message(Encoding::Rfc)[17];
    assert_eq!(m.enrp_type(), Some(EnrpType::HandleUpdate));
    let b = m.emit();
    let (m, e) = parse(&b, Protocol::Enrp, Encoding::Rfc);
    assert!(e.is_empty());
    assert_eq!(m.sender_server_id(), Some(1));
    assert_eq!(m.receiver_server_id(), Some(2));
    assert_eq!(m.update_action(), Some(UpdateAction::DeletePe));
    assert_eq!(m.pool_elements().count(), 1);
    // A Handle Update whose body stops inside the fixed fields.
    let short = [4, 0, 0, 10, 0, 0, 0, 1, 0, 0];
    let (m, e) = parse(&short, Protocol::Enrp, Encoding::Rfc);
    assert_eq!(e.len(), 1);
    assert_eq!(e[0].offset, 4);
    assert_eq!(m.fixed, Fixed::Raw(vec![0, 0, 0, 1, 0, 0]));
    assert_eq!(m.emit(), short);
    // A Keep-Alive without its server identifier.
    let (_, e) = parse(&[7, 0, 0, 6, 0, 0], Protocol::Asap, Encoding::Rfc);
    assert_eq!(e.len(), 1);
}

#[test]
fn error_causes_are_typed_and_bad_cause_lengths_are_errors() {
    let m = &every_message(Encoding::Rfc)[2];
    let (m, _) = parse(&m.emit(), Protocol::Asap, Encoding::Rfc);
    assert!(m.rejected());
    let causes: Vec<_> = m.causes().collect();
    assert_eq!(causes.len(), 3);
    assert_eq!(causes[0].kind(), CauseKind::UnknownPoolHandle);
    assert!(matches!(&causes[1].info, CauseInfo::UnrecognizedParameter(b) if b.len() == 8));
    assert_eq!(causes[2].kind(), CauseKind::Other(0x1234));
    // Cause length 2 inside an operation error at byte 4.
    let b = [0x0e, 0, 0, 12, 0, 0xc, 0, 8, 0, 9, 0, 2];
    let (m, e) = parse(&b, Protocol::Asap, Encoding::Rfc);
    assert_eq!(e.len(), 1);
    assert_eq!(e[0].offset, 8);
    assert_eq!(m.emit(), b);
    // A cause running past its parameter.
    let b = [0x0e, 0, 0, 12, 0, 0xc, 0, 8, 0, 9, 0, 9];
    let (_, e) = parse(&b, Protocol::Asap, Encoding::Rfc);
    assert!(e[0].what.contains("only 4"), "{}", e[0].what);
    // RSPLIB's cause 0x5 without the policy it should carry is not an error.
    let b = [0x0e, 0, 0, 12, 0, 0xc, 0, 8, 0, 5, 0, 4];
    let (m, e) = parse(&b, Protocol::Asap, Encoding::Rfc);
    assert!(e.is_empty());
    assert_eq!(m.causes().next().map(|c| &c.info), Some(&CauseInfo::Empty));
}

#[test]
fn deep_nesting_is_bounded() {
    // Operation errors in "invalid values" causes, nested far beyond MAX_DEPTH.
    let mut inner: Vec<u8> = Vec::new();
    for _ in 0..200 {
        let mut cause = Vec::new();
        crate::proto::rserpool::wire::push_tlv(&mut cause, 0x3, |o| o.extend_from_slice(&inner));
        let mut param = Vec::new();
        crate::proto::rserpool::wire::push_tlv(&mut param, 0xc, |o| o.extend_from_slice(&cause));
        inner = param;
    }
    let mut b = vec![0x0e, 0, 0, 0];
    b.extend_from_slice(&inner);
    let n = b.len() as u16;
    b[2..4].copy_from_slice(&n.to_be_bytes());
    let (m, e) = parse(&b, Protocol::Asap, Encoding::Rfc);
    assert!(e.iter().any(|x| x.what.contains("nested deeper")));
    assert_eq!(m.emit(), b);
    let _ = m.fields();
    let _ = m.info();
}

/// Deterministic pseudo-random bytes (xorshift), so the test needs no dependency.
fn noise(seed: &mut u64) -> u8 {
    *seed ^= *seed << 13;
    *seed ^= *seed >> 7;
    *seed ^= *seed << 17;
    (*seed >> 24) as u8
}

#[test]
fn mangled_messages_never_panic() {
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    for enc in ENCODINGS {
        for m in every_message(enc) {
            let good = m.emit();
            for cut in 0..good.len() {
                for proto in [Protocol::Asap, Protocol::Enrp] {
                    let (m, _) = parse(&good[..cut], proto, enc);
                    let _ = (m.fields(), m.info(), m.emit());
                    let _ = guess_encoding(&good[..cut], proto);
                }
            }
            for _ in 0..200 {
                let mut b = good.clone();
                for _ in 0..3 {
                    let i = usize::from(noise(&mut seed)) % b.len();
                    b[i] = noise(&mut seed);
                }
                let (m, _) = parse(&b, m.protocol, enc);
                let _ = (m.fields(), m.info(), m.emit());
                let _ = guess_encoding(&b, m.protocol);
            }
        }
    }
}

#[test]
fn fields_use_wireshark_names_and_message_offsets() {
    let m = &every_message(Encoding::Rfc)[0];
    let f = m.fields();
    assert_eq!(f.len(), 1);
    assert_eq!(f[0].name, "asap");
    assert_eq!(f[0].label, "Aggregate Server Access Protocol");
    let t = find(&f, "asap.message_type").expect("type");
    assert_eq!(t.value, Value::Uint(1));
    assert_eq!(t.note.as_deref(), Some("ASAP Registration"));
    let h = find(&f, "asap.pool_handle_pool_handle").expect("handle");
    assert_eq!((h.offset, h.len), (8, 6));
    assert_eq!(h.note.as_deref(), Some("Syn-RR"));
    assert_eq!(h.shown.as_deref(), Some("53796e2d5252 (Syn-RR)"));
    let id = find(&f, "asap.pool_element_pe_identifier").expect("pe id");
    assert_eq!((id.offset, id.value.clone()), (20, Value::Uint(7)));
    let load = find(&f, "asap.pool_member_selection_policy_load").expect("load");
    let Value::Float(pct) = load.value else {
        panic!()
    };
    assert!((pct - 100.0 * f64::from(u32::MAX / 2) / f64::from(u32::MAX)).abs() < 1e-12);
    assert_eq!(
        find(&f, "poolshark.policy").map(|x| x.value.clone()),
        Some(Value::Str("LUD".into()))
    );
    assert_eq!(
        find(&f, "poolshark.rserpool.encoding").map(|x| x.value.clone()),
        Some(Value::Str("rfc".into()))
    );
    // ENRP messages use the enrp prefix for the same parameters.
    let m = &every_message(Encoding::Rfc)[16];
    let f = m.fields();
    assert_eq!(f[0].name, "enrp");
    assert_eq!(find_all(&f, "enrp.pool_element_pe_identifier").len(), 1);
    assert!(find(&f, "asap.pool_element_pe_identifier").is_none());
    assert!(find(&f, "enrp.m_bit").is_some());
}

#[test]
fn legacy_fields_scale_24_bit_values() {
    let m = &every_message(Encoding::Rsplib2007)[0];
    let f = m.fields();
    let t = find(&f, "asap.pool_member_selection_policy_type").expect("type");
    assert_eq!(t.value, Value::Uint(6), "LUD is 6 in RSPLIB 2007");
    assert_eq!(t.len, 1);
    let d = find(&f, "asap.pool_member_selection_policy_degradation").expect("deg");
    let Value::Float(pct) = d.value else { panic!() };
    assert!((pct - 100.0 * f64::from(LEGACY_FULL / 10) / f64::from(LEGACY_FULL)).abs() < 1e-12);
    assert!(find(&f, "poolshark.rserpool.server_flags").is_none());
    let m = &every_message(Encoding::Rsplib2007)[14];
    assert!(find(&m.fields(), "poolshark.rserpool.server_flags").is_some());
}

#[test]
fn info_lines() {
    let all = every_message(Encoding::Rfc);
    assert_eq!(
        all[0].info(),
        "ASAP Registration pool \"Syn-RR\" PE 0x00000007 LUD load 50.00%"
    );
    assert_eq!(
        all[2].info(),
        "ASAP Registration Response pool \"Syn-RR\" PE 0x00000007 rejected cause 0x9,0x1,0x1234"
    );
    assert_eq!(
        all[26].info(),
        "ASAP Handle Resolution pool \"Syn-RR\" items all"
    );
    assert_eq!(
        all[17].info(),
        "ENRP Handle Update pool \"Syn-RR\" PE 0x00000007 LUD load 50.00% 0x00000001 -> 0x00000002 delete pool element"
    );
    assert_eq!(all[24].info(), "Unknown ASAP type");
}

#[test]
fn accessors_for_the_analysers() {
    let all = every_message(Encoding::Rfc);
    let hr = &all[5];
    assert_eq!(
        hr.policy().map(Policy::kind),
        Some(PolicyKind::LeastUsedDegradation)
    );
    let pes: Vec<_> = hr.pool_elements().collect();
    assert_eq!(pes.len(), 2);
    let pe = pes[0];
    assert_eq!(pe.user_transport().map(|t| t.port), Some(5000));
    assert_eq!(pe.asap_transport().map(|t| t.port), Some(40001));
    assert_eq!(pe.user_transport().map(|t| t.ip_addresses().len()), Some(2));
    let p = pe.policy().expect("policy");
    assert_eq!(p.load_rfc(), Some(u32::MAX / 2));
    assert_eq!(p.degradation_rfc(), Some(u32::MAX / 10));
    assert!(all[6].home_server_bit());
    assert_eq!(all[6].server_id(), Some(0x1111_1111));
    assert!(all[16].more_to_send());
    assert_eq!(all[20].target_server_id(), Some(3));
    assert_eq!(all[14].pe_checksum(), Some(0xbeef));
    assert_eq!(all[19].server_informations().count(), 2);
    assert_eq!(all[10].cookie(), Some(&b"state-blob-17bytes"[..]));
    assert_eq!(all[26].hropt_items(), Some(u32::MAX));
    assert!(!all[0].rejected());
}

#[test]
fn a_length_that_leaves_the_last_padding_out_round_trips_and_nested_ones_are_reported() {
    // A Handle Resolution whose pool handle "abcde" needs 3 bytes of padding.
    let canonical = Message::new(
        Protocol::Asap,
        Encoding::Rfc,
        AsapType::HandleResolution as u8,
        0,
        Fixed::None,
        vec![Parameter::PoolHandle(HandleBytes::from_slice(b"abcde"))],
    )
    .emit();
    assert_eq!(canonical.len(), 16);
    assert_eq!(
        canonical[2..4],
        [0, 16],
        "RSPLIB's way: the length counts the padding"
    );
    // SCTP's way: the length (13) leaves the padding out; the padding may follow or not.
    let mut sctp_way = canonical.clone();
    sctp_way[3] = 13;
    for b in [&sctp_way[..], &sctp_way[..13]] {
        let (m, e) = parse(b, Protocol::Asap, Encoding::Rfc);
        assert!(e.is_empty(), "{e:?}");
        assert_eq!(m.uncounted_padding, 3);
        assert_eq!(m.pool_handle(), Some(&b"abcde"[..]));
        assert_eq!(m.emit(), b, "byte for byte");
    }
    let (m, _) = parse(&canonical, Protocol::Asap, Encoding::Rfc);
    assert_eq!(m.uncounted_padding, 0);

    // Inside a parameter every nested parameter is padded: a PE whose length leaves its last
    // nested parameter's padding out is reported at the end of the PE.
    let msg = Message::new(
        Protocol::Asap,
        Encoding::Rfc,
        AsapType::Registration as u8,
        0,
        Fixed::None,
        vec![
            handle(),
            Parameter::PoolElement(PoolElement {
                pe_id: 7,
                home_server_id: 0,
                registration_life: 1,
                params: vec![Parameter::Cookie(b"xyz".to_vec())],
            }),
        ],
    );
    let mut b = msg.emit();
    let pe_at = b.len() - 24; // PE header 4 + fixed 12 + cookie 4 + 3 + 1 padding
    assert_eq!(b[pe_at + 2..pe_at + 4], [0, 24]);
    b[pe_at + 3] = 23;
    b[3] -= 1;
    b.pop();
    let (m, e) = parse(&b, Protocol::Asap, Encoding::Rfc);
    assert_eq!(e.len(), 1, "{e:?}");
    assert_eq!(e[0].offset, pe_at + 23);
    assert!(
        e[0].what.contains("lacks its 1 byte(s) of padding"),
        "{}",
        e[0].what
    );
    assert_eq!(m.pool_elements().count(), 1, "decoded all the same");
}
