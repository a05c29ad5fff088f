//! The structure-aware targets: the fuzzer's bytes, read through `arbitrary`, choose a sequence
//! of valid messages (every message and parameter type of ASAP and ENRP in the three encodings,
//! every DHCPv4 and DHCPv6 message type with relays and options, every failover message type),
//! built in code and written with poolshark's own emitters, between a few hosts, so that pools,
//! clients, transactions and leases recur from message to message. A few messages are then
//! mutated (a bit, a byte, a 16-bit length, a range deleted or copied, the end cut off). Each
//! message goes through its decoder and, as the dispatcher would hand it, through every analyser
//! `check` runs: the RSerPool replay, the DHCP load-balancing replay and the failover model reach
//! the states only a consistent sequence leads to (a pool with members and resolutions, a server
//! pair with its buckets, a failover pair in its states), which byte mutations of a capture
//! rarely do.
//!
//! What must hold: no panic; a message not mutated parses without error and is emitted back
//! byte for byte; and the analysers' own invariants ([`check_reports`]): every share within
//! [0, 1], counts that must add up do (the findings per rule, per severity and as listed plus
//! not listed; a server's balanced answers within its answers; a pool's first choices within its
//! resolutions), and no finding names a frame the run did not have.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use arbitrary::{Arbitrary, Result, Unstructured};

use crate::analyse::Report;
use crate::base::{linktype, Timestamp};
use crate::dissect::{Payload, Transport as Carrier};
use crate::pipeline::{Decoded, Sink};
use crate::proto::failover::{self as fo, BindingStatus, FoOption, MessageType, ServerState};
use crate::proto::rserpool::{
    self as rsp, param_code, policy_code, AsapType, Cause, CauseInfo, Encoding, EnrpType, Fixed,
    OperationError, ParamKind, Parameter, Policy, PolicyKind, PoolElement, Protocol,
    ServerInformation, Transport, TransportProtocol, ASAP_TYPES, ENRP_TYPES, LEGACY_FULL,
};
use crate::proto::{AppProtocol, Message};
use crate::run::analysis::analysers;
use crate::run::check::CheckSink;
use crate::source::Frame;

use super::pipeline::default_args;

mod dhcp;

use dhcp::{dhcpv4_step, dhcpv6_step, lease4, mac, SERVERS4};

/// Messages per input at most: enough for a registration, its resolutions and a failure; a
/// DHCP exchange with its retransmissions; a failover pair's connection and binding updates.
const MAX_STEPS: usize = 64;

/// One of libFuzzer's simpler mutations, applied to a message's bytes after it was emitted.
/// Positions are taken modulo the length.
#[derive(Arbitrary, Debug, Clone, Copy)]
pub enum Mutation {
    FlipBit { at: u16, bit: u8 },
    SetByte { at: u16, value: Special },
    RandomByte { at: u16, value: u8 },
    NudgeU16 { at: u16, delta: i8 },
    Delete { at: u16, len: u8 },
    Copy { from: u16, len: u8, to: u16 },
    Truncate { at: u16 },
}

/// The byte values lengths and counts trip on.
#[derive(Arbitrary, Debug, Clone, Copy)]
pub enum Special {
    Zero,
    One,
    Max,
    High,
    Ff,
}

impl Special {
    fn byte(self) -> u8 {
        match self {
            Special::Zero => 0,
            Special::One => 1,
            Special::Max => 0x7f,
            Special::High => 0x80,
            Special::Ff => 0xff,
        }
    }
}

/// Applies `m` to `v`.
pub fn mutate(v: &mut Vec<u8>, m: Mutation) {
    if v.is_empty() {
        return;
    }
    let pos = |at: u16| usize::from(at) % v.len();
    match m {
        Mutation::FlipBit { at, bit } => {
            let i = pos(at);
            v[i] ^= 1 << (bit % 8);
        }
        Mutation::SetByte { at, value } => {
            let i = pos(at);
            v[i] = value.byte();
        }
        Mutation::RandomByte { at, value } => {
            let i = pos(at);
            v[i] = value;
        }
        Mutation::NudgeU16 { at, delta } => {
            let i = pos(at);
            if i + 1 < v.len() {
                let w = u16::from_be_bytes([v[i], v[i + 1]]).wrapping_add_signed(i16::from(delta));
                v[i..i + 2].copy_from_slice(&w.to_be_bytes());
            }
        }
        Mutation::Delete { at, len } => {
            let i = pos(at);
            let end = (i + 1 + usize::from(len % 32)).min(v.len());
            v.drain(i..end);
        }
        Mutation::Copy { from, len, to } => {
            let i = pos(from);
            let end = (i + 1 + usize::from(len % 32)).min(v.len());
            let piece = v[i..end].to_vec();
            let to = usize::from(to) % (v.len() + 1);
            v.splice(to..to, piece);
        }
        Mutation::Truncate { at } => {
            let i = pos(at);
            v.truncate(i);
        }
    }
}

/// Most messages go as built (so the analysers see consistent sequences); some get one to
/// three mutations.
fn mutations(u: &mut Unstructured<'_>) -> Result<Vec<Mutation>> {
    if u.int_in_range(0u8..=7)? != 7 {
        return Ok(Vec::new());
    }
    let n = u.int_in_range(1u8..=3)?;
    (0..n).map(|_| Mutation::arbitrary(u)).collect()
}

/// Time to the next message: mostly a fraction of a second, sometimes seconds or minutes (DHCP
/// delayed service, registration lifetimes, failover's MCLT).
#[derive(Arbitrary, Debug, Clone, Copy)]
enum Gap {
    Millis(u8),
    Seconds(u8),
    Minutes(u8),
}

impl Gap {
    fn nanos(self) -> i64 {
        match self {
            Gap::Millis(n) => i64::from(n) * 1_000_000,
            Gap::Seconds(n) => i64::from(n % 16) * 1_000_000_000,
            Gap::Minutes(n) => i64::from(n % 8) * 60_000_000_000,
        }
    }
}

/// Where a message goes: the payload fields the dispatcher would fill in.
struct Path {
    carrier: Carrier,
    src: IpAddr,
    src_port: u16,
    dst: IpAddr,
    dst_port: u16,
    ppid: Option<u32>,
}

/// The analysers `check` runs with its default arguments, fed one message at a time as the
/// pipeline would feed them.
struct Feed {
    sink: CheckSink,
    frame: u64,
    nanos: i64,
}

/// 2026-12-01T00:00:00Z, the capture time of the first message.
const START: i64 = 1_796_083_200;

impl Feed {
    fn new() -> Self {
        let Ok(found) = analysers(&default_args().analysis) else {
            panic!("default analysers rejected");
        };
        Feed {
            sink: CheckSink::new(
                found,
                Report::new(default_args().analysis.max_findings, 60_000_000_000),
            ),
            frame: 0,
            nanos: 0,
        }
    }

    fn ts(&self) -> Timestamp {
        Timestamp::new(
            START + self.nanos.div_euclid(1_000_000_000),
            self.nanos.rem_euclid(1_000_000_000) as u32,
        )
    }

    /// Seconds since the epoch now (for the failover messages' times).
    fn now(&self) -> u32 {
        u32::try_from(self.ts().secs).unwrap_or(u32::MAX)
    }

    /// Mutates `built` (when asked), decodes it, checks the round trip of an unmutated message
    /// and hands it to the analysers.
    fn send(
        &mut self,
        gap: Gap,
        path: &Path,
        protocol: AppProtocol,
        encoding: Encoding,
        built: Vec<u8>,
        muts: &[Mutation],
    ) {
        self.nanos += gap.nanos();
        self.frame += 1;
        let mut bytes = built;
        for m in muts {
            mutate(&mut bytes, *m);
        }
        let (msg, errors) = Message::parse(&bytes, protocol, encoding);
        for e in &errors {
            assert!(
                e.offset <= bytes.len(),
                "error offset {} past the end",
                e.offset
            );
        }
        if muts.is_empty() {
            assert!(
                errors.is_empty(),
                "{protocol:?} message as built reads with errors: {errors:?} in {bytes:02x?}"
            );
            let back = match &msg {
                Message::Rserpool(m) => Some(m.emit()),
                Message::Dhcpv4(m) => Some(m.emit()),
                Message::Dhcpv6(m) => Some(m.emit()),
                Message::Failover(m) => m.emit().ok(),
            };
            assert_eq!(back.as_deref(), Some(&bytes[..]), "{protocol:?} round trip");
        }
        let ts = self.ts();
        let frame = Frame {
            number: self.frame,
            ts,
            ts_digits: 6,
            linktype: linktype::RAW,
            orig_len: u32::try_from(bytes.len()).unwrap_or(u32::MAX),
            interface: 0,
            data: &bytes,
            pcapng: None,
        };
        let mut payload = Payload::new(
            path.carrier,
            path.src,
            path.src_port,
            path.dst,
            path.dst_port,
            &bytes,
        );
        payload.ppid = path.ppid;
        payload.frame_offset = Some(0);
        if path.carrier == Carrier::Sctp {
            payload.stream = Some(0);
            payload.tsn = u32::try_from(self.frame).ok();
        }
        let d = Decoded {
            frame: &frame,
            payload: &payload,
            protocol,
            message: &msg,
            errors: &errors,
            frame_offset: Some(0),
            len: bytes.len(),
        };
        self.sink.report.timeline.start(ts);
        self.sink.message(&d);
    }

    /// Ends the run, writes every report, and checks the analysers' invariants.
    fn finish(mut self) {
        let last = (self.frame > 0).then(|| self.ts());
        self.sink.finish(last);
        let mut text = String::new();
        let mut json = serde_json::Map::new();
        for a in &self.sink.analysers {
            crate::output::report::text(a.view(), &mut text);
            crate::output::report::json(a.view(), &mut json);
        }
        check_reports(&self.sink.report, &json, self.frame);
        self.sink.report.findings.sort();
        for f in self.sink.report.findings.list() {
            std::hint::black_box(f.to_json());
        }
        text.push_str(&self.sink.report.findings.listing(false));
        std::hint::black_box(text);
    }
}

/// What the analysers' reports must satisfy whatever the traffic: the findings' counts add up
/// and name frames the run had; in the JSON reports, every share lies within [0, 1], a server's
/// balanced answers are within its answers, a hash bucket assignment explains at most the
/// answers it was tried on, a pool member is first in at most as many responses as it is in
/// at all, and a pool's members' shares add up to at most 1.
pub fn check_reports(
    report: &Report,
    json: &serde_json::Map<String, serde_json::Value>,
    frames: u64,
) {
    let f = &report.findings;
    let total = f.total();
    assert_eq!(
        f.list().len() as u64 + f.dropped(),
        total,
        "findings listed plus not listed"
    );
    assert_eq!(f.by_rule().values().sum::<u64>(), total, "findings by rule");
    assert_eq!(
        f.by_rule_severity().values().sum::<u64>(),
        total,
        "findings by rule and severity"
    );
    for x in f.list() {
        assert!(
            x.frame <= frames,
            "finding names frame {} of {frames}",
            x.frame
        );
    }
    for (k, v) in json {
        walk(k, v);
    }
}

fn number(v: Option<&serde_json::Value>) -> Option<f64> {
    v.and_then(serde_json::Value::as_f64)
}

fn walk(key: &str, v: &serde_json::Value) {
    use serde_json::Value;
    match v {
        Value::Object(o) => {
            for (k, x) in o {
                if k.ends_with("share") {
                    if let Some(s) = x.as_f64() {
                        assert!(
                            (0.0..=1.0 + 1e-9).contains(&s),
                            "{key}.{k} = {s} outside [0, 1]"
                        );
                    }
                }
                walk(k, x);
            }
            let pairs = [
                ("balanced_answers", "answers"),
                ("explains", "of"),
                ("first", "any"),
            ];
            for (part, whole) in pairs {
                if let (Some(p), Some(w)) = (number(o.get(part)), number(o.get(whole))) {
                    assert!(p <= w, "{key}: {part} {p} > {whole} {w}");
                }
            }
            if key == "members" {
                let sum: f64 = o.values().filter_map(|m| number(m.get("share"))).sum();
                assert!(sum <= 1.0 + 1e-6, "pool members' shares add up to {sum}");
            }
        }
        Value::Array(a) => {
            for x in a {
                walk(key, x);
            }
        }
        _ => {}
    }
}

// ---------------------------------------------------------------------------------------------
// RSerPool

const ENCODINGS: [Encoding; 3] = [Encoding::Rfc, Encoding::Draft01, Encoding::Rsplib2007];

const POLICIES: [PolicyKind; 16] = PolicyKind::KNOWN;

/// The pool handles a sequence uses (or, rarely, any other).
const HANDLES: [&[u8]; 3] = [b"RR-Pool", b"LU-Pool", b"WRAND-Pool"];
/// Registrars (ENRP servers) by address and server identifier.
const REGISTRARS: [([u8; 4], u32); 2] =
    [([10, 0, 0, 1], 0x1111_1111), ([10, 0, 0, 2], 0x2222_2222)];
/// Pool elements (and pool users) by address.
const ELEMENTS: [[u8; 4]; 4] = [[10, 0, 1, 1], [10, 0, 1, 2], [10, 0, 1, 3], [10, 0, 1, 4]];
const USERS: [[u8; 4]; 2] = [[10, 0, 2, 1], [10, 0, 2, 2]];
const ASAP_PORT: u16 = 3863;
const ENRP_PORT: u16 = 9901;

fn ipv4(u: &mut Unstructured<'_>) -> Result<Ipv4Addr> {
    Ok(Ipv4Addr::from(u32::arbitrary(u)?))
}

fn ipv6(u: &mut Unstructured<'_>) -> Result<Ipv6Addr> {
    Ok(Ipv6Addr::from(u128::arbitrary(u)?))
}

fn bytes(u: &mut Unstructured<'_>, min: usize, max: usize) -> Result<Vec<u8>> {
    let n = u.int_in_range(min..=max)?;
    Ok(u.bytes(n)
        .map(<[u8]>::to_vec)
        .unwrap_or_else(|_| vec![0; n]))
}

/// A pool handle: one of the sequence's few, or any (past 32 bytes too).
fn handle(u: &mut Unstructured<'_>) -> Result<Parameter> {
    let h = if u.ratio(7u8, 8)? {
        u.choose(&HANDLES)?.to_vec()
    } else {
        bytes(u, 1, 40)?
    };
    Ok(Parameter::PoolHandle(h.into()))
}

/// A PE identifier: one of a few, or any.
fn pe_id(u: &mut Unstructured<'_>) -> Result<u32> {
    if u.ratio(7u8, 8)? {
        Ok(0x0001_0000 + u32::from(u.int_in_range(1u8..=6)?))
    } else {
        u32::arbitrary(u)
    }
}

fn address(u: &mut Unstructured<'_>) -> Result<Parameter> {
    Ok(if u.ratio(3u8, 4)? {
        Parameter::Ipv4(if u.arbitrary()? {
            Ipv4Addr::from(*u.choose(&ELEMENTS)?)
        } else {
            ipv4(u)?
        })
    } else {
        Parameter::Ipv6(ipv6(u)?)
    })
}

fn addresses(u: &mut Unstructured<'_>, max: u8) -> Result<Vec<Parameter>> {
    (0..u.int_in_range(1..=max)?).map(|_| address(u)).collect()
}

fn transport(u: &mut Unstructured<'_>, enc: Encoding) -> Result<Parameter> {
    let mut protocols = vec![
        TransportProtocol::Sctp,
        TransportProtocol::Tcp,
        TransportProtocol::Udp,
    ];
    if enc == Encoding::Rfc {
        protocols.push(TransportProtocol::UdpLite);
        protocols.push(TransportProtocol::Dccp { service_code: 0 });
    }
    let protocol = match *u.choose(&protocols)? {
        TransportProtocol::Dccp { .. } => TransportProtocol::Dccp {
            service_code: u.arbitrary()?,
        },
        p => p,
    };
    Ok(Parameter::Transport(Transport {
        protocol,
        port: u.arbitrary()?,
        transport_use: u.arbitrary()?,
        addresses: addresses(u, 3)?,
    }))
}

fn sctp_transport(u: &mut Unstructured<'_>) -> Result<Parameter> {
    Ok(Parameter::Transport(Transport {
        protocol: TransportProtocol::Sctp,
        port: u.arbitrary()?,
        transport_use: u.int_in_range(0u16..=1)?,
        addresses: addresses(u, 2)?,
    }))
}

/// A policy this encoding defines, with as many values as its type carries (legacy encodings:
/// the first value shares the type's word, 24 bits). Loads and weights mostly small.
fn policy(u: &mut Unstructured<'_>, enc: Encoding) -> Result<Parameter> {
    let kinds: Vec<PolicyKind> = POLICIES
        .into_iter()
        .filter(|k| policy_code(*k, enc).is_some())
        .collect();
    let kind = *u.choose(&kinds)?;
    let mut values = Vec::new();
    for _ in 0..kind.roles().len() {
        values.push(if u.arbitrary()? {
            u32::from(u.int_in_range(0u8..=10)?) * 0x0019_9999
        } else {
            u.arbitrary()?
        });
    }
    if enc != Encoding::Rfc {
        if let Some(first) = values.first_mut() {
            *first &= LEGACY_FULL;
        }
    }
    match Policy::new(enc, kind, &values) {
        Some(p) => Ok(Parameter::Policy(p)),
        None => panic!("{kind:?} is defined in {enc:?}"),
    }
}

fn pool_element(u: &mut Unstructured<'_>, enc: Encoding) -> Result<Parameter> {
    let mut params = vec![transport(u, enc)?, policy(u, enc)?];
    if u.arbitrary()? {
        params.push(sctp_transport(u)?);
    }
    Ok(Parameter::PoolElement(PoolElement {
        pe_id: pe_id(u)?,
        home_server_id: if u.ratio(3u8, 4)? {
            u.choose(&REGISTRARS)?.1
        } else {
            u.arbitrary()?
        },
        registration_life: if u.arbitrary()? {
            i32::from(u.int_in_range(0u16..=300)?) * 1000
        } else {
            u.arbitrary()?
        },
        params,
    }))
}

fn server_information(u: &mut Unstructured<'_>, enc: Encoding) -> Result<Parameter> {
    Ok(Parameter::ServerInformation(ServerInformation {
        server_id: u.choose(&REGISTRARS)?.1,
        flags: if enc == Encoding::Rsplib2007 {
            Some(u.arbitrary()?)
        } else {
            None
        },
        params: vec![sctp_transport(u)?],
    }))
}

fn operation_error(u: &mut Unstructured<'_>) -> Result<Parameter> {
    let mut causes = Vec::new();
    for _ in 0..u.int_in_range(1u8..=3)? {
        causes.push(if u.arbitrary()? {
            Cause {
                code: *u.choose(&[0x0u16, 0x4, 0x6, 0x8, 0x9, 0xa])?,
                info: CauseInfo::Empty,
            }
        } else {
            let b = bytes(u, 0, 12)?;
            Cause {
                code: u.int_in_range(0x0100u16..=0x7ffe)?,
                info: if b.is_empty() {
                    CauseInfo::Empty
                } else {
                    CauseInfo::Raw(b)
                },
            }
        });
    }
    Ok(Parameter::OperationError(OperationError {
        causes,
        rest: Vec::new(),
    }))
}

/// Any parameter the encoding can carry.
fn parameter(u: &mut Unstructured<'_>, enc: Encoding) -> Result<Parameter> {
    let hro = param_code(ParamKind::HandleResolutionOption, enc).is_some();
    let opaque = param_code(ParamKind::OpaqueTransport, enc).is_some();
    Ok(match u.int_in_range(0u8..=11)? {
        0 => address(u)?,
        1 => transport(u, enc)?,
        2 => policy(u, enc)?,
        3 => handle(u)?,
        4 => pool_element(u, enc)?,
        5 => server_information(u, enc)?,
        6 => operation_error(u)?,
        7 => Parameter::Cookie(bytes(u, 0, 24)?),
        8 => Parameter::PeIdentifier(pe_id(u)?),
        9 => Parameter::PeChecksum(u.arbitrary()?),
        10 if hro => Parameter::HandleResolutionOption(u.arbitrary()?),
        11 if opaque => Parameter::OpaqueTransport(bytes(u, 0, 16)?),
        _ => handle(u)?,
    })
}

/// The parameters a message of this type carries (RFC 5352 / 5353), then, sometimes, any.
fn asap_params(u: &mut Unstructured<'_>, t: AsapType, enc: Encoding) -> Result<Vec<Parameter>> {
    use AsapType::*;
    let mut p = Vec::new();
    match t {
        Registration => p.extend([handle(u)?, pool_element(u, enc)?]),
        Deregistration | EndpointKeepAliveAck | EndpointUnreachable => {
            p.extend([handle(u)?, Parameter::PeIdentifier(pe_id(u)?)]);
        }
        RegistrationResponse | DeregistrationResponse => {
            p.extend([handle(u)?, Parameter::PeIdentifier(pe_id(u)?)]);
            if u.ratio(1u8, 4)? {
                p.push(operation_error(u)?);
            }
        }
        HandleResolution => {
            p.push(handle(u)?);
            if u.arbitrary()? && param_code(ParamKind::HandleResolutionOption, enc).is_some() {
                p.push(Parameter::HandleResolutionOption(u.int_in_range(0..=4)?));
            }
        }
        HandleResolutionResponse | BusinessCard => {
            p.push(handle(u)?);
            if u.ratio(1u8, 8)? {
                p.push(operation_error(u)?);
            } else {
                if u.arbitrary()? {
                    p.push(policy(u, enc)?);
                }
                for _ in 0..u.int_in_range(0u8..=4)? {
                    p.push(pool_element(u, enc)?);
                }
            }
        }
        EndpointKeepAlive => p.extend([handle(u)?, Parameter::PeIdentifier(pe_id(u)?)]),
        ServerAnnounce => p.push(sctp_transport(u)?),
        Cookie | CookieEcho => p.push(Parameter::Cookie(bytes(u, 0, 24)?)),
        Error => p.push(operation_error(u)?),
    }
    extra(u, enc, &mut p)?;
    Ok(p)
}

fn enrp_params(u: &mut Unstructured<'_>, t: EnrpType, enc: Encoding) -> Result<Vec<Parameter>> {
    let mut p = Vec::new();
    match t {
        EnrpType::HandleUpdate => p.extend([handle(u)?, pool_element(u, enc)?]),
        EnrpType::HandleTableResponse => {
            for _ in 0..u.int_in_range(0u8..=2)? {
                p.push(handle(u)?);
                for _ in 0..u.int_in_range(1u8..=3)? {
                    p.push(pool_element(u, enc)?);
                }
            }
        }
        EnrpType::ListResponse | EnrpType::Presence => {
            for _ in 0..u.int_in_range(0u8..=2)? {
                p.push(server_information(u, enc)?);
            }
        }
        EnrpType::Error => p.push(operation_error(u)?),
        _ => {}
    }
    extra(u, enc, &mut p)?;
    Ok(p)
}

/// Rarely, a few more parameters of any kind.
fn extra(u: &mut Unstructured<'_>, enc: Encoding, p: &mut Vec<Parameter>) -> Result<()> {
    if u.ratio(1u8, 8)? {
        for _ in 0..u.int_in_range(1u8..=3)? {
            p.push(parameter(u, enc)?);
        }
    }
    Ok(())
}

/// A registrar's server identifier, or any.
fn server_id(u: &mut Unstructured<'_>) -> Result<u32> {
    if u.ratio(7u8, 8)? {
        Ok(u.choose(&REGISTRARS)?.1)
    } else {
        u.arbitrary()
    }
}

/// One ASAP or ENRP message with its path: ASAP between a pool element or user and a
/// registrar (either way), ENRP between the two registrars.
fn rserpool_step(u: &mut Unstructured<'_>, enc: Encoding) -> Result<(Path, AppProtocol, Vec<u8>)> {
    let asap = u.ratio(3u8, 4)?;
    let flags = if u.ratio(3u8, 4)? { 0 } else { u.arbitrary()? };
    let registrar = *u.choose(&REGISTRARS)?;
    let (m, path) = if asap {
        let t = *u.choose(&ASAP_TYPES)?;
        let fixed = if t.has_server_id() {
            Fixed::ServerId(server_id(u)?)
        } else {
            Fixed::None
        };
        let params = asap_params(u, t, enc)?;
        let peer = if matches!(
            t,
            AsapType::HandleResolution | AsapType::HandleResolutionResponse
        ) && u.ratio(3u8, 4)?
        {
            *u.choose(&USERS)?
        } else {
            *u.choose(&ELEMENTS)?
        };
        let peer_port = 10_000 + u16::from(peer[3]);
        // Requests go to the registrar, responses and keep-alives come from it.
        let to_registrar = matches!(
            t,
            AsapType::Registration
                | AsapType::Deregistration
                | AsapType::HandleResolution
                | AsapType::EndpointKeepAliveAck
                | AsapType::EndpointUnreachable
        ) ^ u.ratio(1u8, 16)?;
        let (src, sport, dst, dport) = if to_registrar {
            (peer, peer_port, registrar.0, ASAP_PORT)
        } else {
            (registrar.0, ASAP_PORT, peer, peer_port)
        };
        let m = rsp::Message::new(Protocol::Asap, enc, t as u8, flags, fixed, params);
        let path = Path {
            carrier: Carrier::Sctp,
            src: IpAddr::from(src),
            src_port: sport,
            dst: IpAddr::from(dst),
            dst_port: dport,
            ppid: Some(11),
        };
        (m, path)
    } else {
        let t = *u.choose(&ENRP_TYPES)?;
        let other = REGISTRARS[usize::from(registrar.1 == REGISTRARS[0].1)];
        let (sender, receiver) = (registrar.1, other.1);
        let fixed = match t {
            EnrpType::HandleUpdate => Fixed::Update {
                sender,
                receiver,
                action: u.int_in_range(0u16..=2)?,
                reserved: 0,
            },
            e if e.fixed_len() == 12 => Fixed::Takeover {
                sender,
                receiver,
                target: server_id(u)?,
            },
            _ => Fixed::Servers { sender, receiver },
        };
        let params = if t.has_params() {
            enrp_params(u, t, enc)?
        } else {
            Vec::new()
        };
        let m = rsp::Message::new(Protocol::Enrp, enc, t as u8, flags, fixed, params);
        let path = Path {
            carrier: Carrier::Sctp,
            src: IpAddr::from(registrar.0),
            src_port: ENRP_PORT,
            dst: IpAddr::from(other.0),
            dst_port: ENRP_PORT,
            ppid: Some(12),
        };
        (m, path)
    };
    let protocol = if asap {
        AppProtocol::Asap
    } else {
        AppProtocol::Enrp
    };
    Ok((path, protocol, m.emit()))
}

/// Structure-aware: sequences of ASAP and ENRP messages in one encoding (the input's first
/// choice) between two registrars, four pool elements and two users, over a few pools,
/// through the RSerPool decoder and replay (and every other analyser of `check`).
pub fn rserpool_sequence(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let mut feed = Feed::new();
    let _ = (|| -> Result<()> {
        let enc = *u.choose(&ENCODINGS)?;
        for _ in 0..MAX_STEPS {
            if u.is_empty() {
                break;
            }
            let gap = Gap::arbitrary(&mut u)?;
            let (path, protocol, bytes) = rserpool_step(&mut u, enc)?;
            let muts = mutations(&mut u)?;
            feed.send(gap, &path, protocol, enc, bytes, &muts);
        }
        Ok(())
    })();
    feed.finish();
}

// ---------------------------------------------------------------------------------------------
// DHCP (the messages are built in `sequences/dhcp.rs`)

/// Structure-aware: DHCP exchanges (DHCPv4 and DHCPv6 mixed) between a few clients, a relay and
/// the two servers of a pair, through the DHCP decoders and the DHCP load-balancing replay (and
/// every other analyser of `check`).
pub fn dhcp_sequence(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let mut feed = Feed::new();
    let _ = (|| -> Result<()> {
        // Mostly one family per input, as a pair serves one.
        let mix = u.int_in_range(0u8..=3)?;
        for _ in 0..MAX_STEPS {
            if u.is_empty() {
                break;
            }
            let gap = Gap::arbitrary(&mut u)?;
            let six = match mix {
                0 => false,
                1 => true,
                _ => u.arbitrary()?,
            };
            let (path, bytes) = if six {
                dhcpv6_step(&mut u)?
            } else {
                dhcpv4_step(&mut u)?
            };
            let protocol = if six {
                AppProtocol::Dhcpv6
            } else {
                AppProtocol::Dhcpv4
            };
            let muts = mutations(&mut u)?;
            feed.send(gap, &path, protocol, Encoding::Rfc, bytes, &muts);
        }
        Ok(())
    })();
    feed.finish();
}

// ---------------------------------------------------------------------------------------------
// Failover

/// A time near `now`: a little before or after (seconds), or any.
fn time_near(u: &mut Unstructured<'_>, now: u32) -> Result<u32> {
    if u.ratio(7u8, 8)? {
        Ok(now.wrapping_add_signed(i32::from(u.int_in_range(-600i16..=3600)?)))
    } else {
        u.arbitrary()
    }
}

/// Any failover option, values mostly consistent with the sequence (its pool, clients, times).
fn failover_option(u: &mut Unstructured<'_>, now: u32) -> Result<FoOption> {
    Ok(match u.int_in_range(0u8..=17)? {
        0 => FoOption::AddressesTransferred(u.arbitrary()?),
        1 => FoOption::AssignedIpAddress(lease4(u)?),
        2 => FoOption::BindingStatus(BindingStatus::from_u8(u.int_in_range(1u8..=7)?)),
        3 => FoOption::ClientIdentifier(bytes(u, 1, 15)?),
        4 => FoOption::ClientHardwareAddress {
            htype: 1,
            address: mac(u)?.to_vec(),
        },
        5 => FoOption::ClientLastTransactionTime(time_near(u, now)?),
        6 => FoOption::HashBucketAssignment(bytes(u, 32, 32)?),
        7 => FoOption::LeaseExpirationTime(time_near(u, now)?),
        8 => FoOption::Mclt(u.arbitrary()?),
        9 => {
            let n = u.int_in_range(0usize..=40)?;
            FoOption::Message(
                (0..n)
                    .map(|_| u.int_in_range(b' '..=b'~'))
                    .collect::<Result<_>>()?,
            )
        }
        10 => FoOption::PotentialExpirationTime(time_near(u, now)?),
        11 => FoOption::ProtocolVersion(u.arbitrary()?),
        12 => FoOption::RejectReason(u.arbitrary()?),
        13 => FoOption::RelationshipName(b"dhcp-failover".to_vec()),
        14 => FoOption::ServerFlags(u.arbitrary()?),
        15 => FoOption::ServerState(ServerState::from_u8(u.int_in_range(1u8..=10)?)),
        16 => FoOption::StartTimeOfState(time_near(u, now)?),
        _ => FoOption::ReceiveTimer(u.arbitrary()?),
    })
}

/// The options a failover message of this type carries (draft-ietf-dhc-failover-12, ISC DHCP).
fn failover_options(u: &mut Unstructured<'_>, t: MessageType, now: u32) -> Result<Vec<FoOption>> {
    use MessageType::*;
    let mut o = Vec::new();
    match t {
        Connect => {
            o.push(FoOption::RelationshipName(b"dhcp-failover".to_vec()));
            o.push(FoOption::MaxUnackedBndupd(10));
            o.push(FoOption::ReceiveTimer(u.int_in_range(1u32..=30)?));
            o.push(FoOption::ProtocolVersion(1));
            o.push(FoOption::Mclt(u.int_in_range(0u32..=3600)?));
            let mut hba = vec![0u8; 32];
            let split = usize::from(u.int_in_range(0u8..=32)?);
            hba[..split].fill(0xff);
            if u.ratio(1u8, 4)? {
                hba = bytes(u, 32, 32)?;
            }
            o.push(FoOption::HashBucketAssignment(hba));
        }
        ConnectAck => {
            o.push(FoOption::RelationshipName(b"dhcp-failover".to_vec()));
            o.push(FoOption::MaxUnackedBndupd(10));
            o.push(FoOption::ReceiveTimer(u.int_in_range(1u32..=30)?));
            o.push(FoOption::ProtocolVersion(1));
            if u.ratio(1u8, 8)? {
                o.push(FoOption::RejectReason(u.int_in_range(1u8..=20)?));
            }
        }
        State => {
            o.push(FoOption::ServerState(ServerState::from_u8(
                u.int_in_range(1u8..=10)?,
            )));
            o.push(FoOption::ServerFlags(u.int_in_range(0u8..=1)?));
            o.push(FoOption::StartTimeOfState(time_near(u, now)?));
        }
        BndUpd | BndAck => {
            o.push(FoOption::AssignedIpAddress(lease4(u)?));
            o.push(FoOption::BindingStatus(BindingStatus::from_u8(
                u.int_in_range(1u8..=7)?,
            )));
            let m = mac(u)?;
            o.push(FoOption::ClientIdentifier([&[1u8][..], &m].concat()));
            o.push(FoOption::ClientHardwareAddress {
                htype: 1,
                address: m.to_vec(),
            });
            o.push(FoOption::LeaseExpirationTime(time_near(u, now)?));
            o.push(FoOption::PotentialExpirationTime(time_near(u, now)?));
            o.push(FoOption::StartTimeOfState(time_near(u, now)?));
            o.push(FoOption::ClientLastTransactionTime(time_near(u, now)?));
            if t == BndAck && u.ratio(1u8, 8)? {
                o.push(FoOption::RejectReason(u.int_in_range(1u8..=20)?));
            }
        }
        PoolResp => o.push(FoOption::AddressesTransferred(u32::from(
            u.int_in_range(0u8..=16)?,
        ))),
        Disconnect => {
            o.push(FoOption::RejectReason(u.int_in_range(0u8..=20)?));
            o.push(FoOption::Message(b"shutting down".to_vec()));
        }
        _ => {}
    }
    if u.ratio(1u8, 8)? {
        for _ in 0..u.int_in_range(1u8..=3)? {
            o.push(failover_option(u, now)?);
        }
    }
    Ok(o)
}

/// Structure-aware: a failover pair's messages (CONNECT, STATE, BNDUPD, BNDACK, POOLREQ, ...)
/// between the primary and the secondary, with DHCPv4 traffic to and from them in between,
/// through the failover decoder and model (and every other analyser of `check`).
pub fn failover_sequence(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let mut feed = Feed::new();
    let _ = (|| -> Result<()> {
        for _ in 0..MAX_STEPS {
            if u.is_empty() {
                break;
            }
            let gap = Gap::arbitrary(&mut u)?;
            if u.ratio(1u8, 3)? {
                let (path, bytes) = dhcpv4_step(&mut u)?;
                let muts = mutations(&mut u)?;
                feed.send(gap, &path, AppProtocol::Dhcpv4, Encoding::Rfc, bytes, &muts);
                continue;
            }
            let t = MessageType::from_u8(u.int_in_range(1u8..=12)?);
            let now = feed.now();
            let time = time_near(&mut u, now)?;
            let xid = u32::from(u.int_in_range(0u8..=31)?);
            let options = failover_options(&mut u, t, now)?;
            let m = fo::Message::new(t, time, xid, options);
            let Ok(bytes) = m.emit() else {
                continue;
            };
            // The primary connects to the secondary's port 647.
            let from_primary: bool = u.arbitrary()?;
            let (src, sport, dst, dport) = if from_primary {
                (SERVERS4[0], 40_000, SERVERS4[1], fo::PORT)
            } else {
                (SERVERS4[1], fo::PORT, SERVERS4[0], 40_000)
            };
            let path = Path {
                carrier: Carrier::Tcp,
                src: IpAddr::from(src),
                src_port: sport,
                dst: IpAddr::from(dst),
                dst_port: dport,
                ppid: None,
            };
            let muts = mutations(&mut u)?;
            feed.send(
                gap,
                &path,
                AppProtocol::Failover,
                Encoding::Rfc,
                bytes,
                &muts,
            );
        }
        Ok(())
    })();
    feed.finish();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mutations_stay_within_the_bytes() {
        let base: Vec<u8> = (0..40).collect();
        let all = [
            Mutation::FlipBit { at: 41, bit: 9 },
            Mutation::SetByte {
                at: 3,
                value: Special::Ff,
            },
            Mutation::NudgeU16 { at: 39, delta: 5 },
            Mutation::Delete { at: 38, len: 200 },
            Mutation::Copy {
                from: 0,
                len: 3,
                to: 500,
            },
            Mutation::Truncate { at: 0 },
        ];
        let mut v = base.clone();
        mutate(&mut v, all[0]);
        assert_eq!(v[1], 1 ^ 2);
        let mut v = base.clone();
        mutate(&mut v, all[1]);
        assert_eq!(v[3], 0xff);
        let mut v = base.clone();
        // The last byte has no second one: unchanged.
        mutate(&mut v, all[2]);
        assert_eq!(v, base);
        let mut v = base.clone();
        mutate(&mut v, all[3]);
        assert_eq!(v, base[..38]);
        let mut v = base.clone();
        mutate(&mut v, all[4]);
        assert_eq!(v.len(), 44);
        let mut v = base.clone();
        mutate(&mut v, all[5]);
        assert!(v.is_empty());
        mutate(&mut v, all[1]);
        assert!(v.is_empty());
    }
}
