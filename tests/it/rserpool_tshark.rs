//! The RSerPool decoder against tshark and the shared captures.
//!
//! tshark extracts every ASAP/ENRP message (`-T json -x` gives each message's bytes as
//! `asap_raw`/`enrp_raw`, reassembled where SCTP split it) together with its own decoded fields
//! and their offsets. For each message the test checks that poolshark:
//! * guesses the capture's encoding (or cannot tell) and decodes it without error,
//! * emits the same bytes again,
//! * and shows the same `asap.*`/`enrp.*` fields, with the same values at the same offsets, as
//!   tshark, except where tshark is known to be wrong or to know less (each case explained at
//!   the place it is handled).
use crate::common;

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::process::Command;

use poolshark::field::{Field, Value};
use poolshark::proto::rserpool::{self, CauseInfo, Encoding, Parameter, PolicyKind, Protocol};
use serde_json::Value as J;

/// One message as tshark saw it.
struct Seen {
    frame: u64,
    protocol: Protocol,
    bytes: Vec<u8>,
    /// (field name, normalised value, offset relative to the message).
    fields: Vec<(String, String, usize)>,
    malformed: bool,
}

fn unhex(s: &str) -> Vec<u8> {
    let s: String = s.chars().filter(|c| *c != ':').collect();
    (0..s.len() / 2)
        .map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).expect("hex"))
        .collect()
}

/// Values as both sides can agree on them: integers in decimal, bytes as plain hex, floats to
/// 11 significant digits (tshark prints 15).
fn norm_tshark(name: &str, v: &str) -> String {
    if name.ends_with("_load") || name.ends_with("_degradation") || name.ends_with("_dpf") {
        return format!("{:.10e}", v.parse::<f64>().expect("float"));
    }
    if let Some(h) = v.strip_prefix("0x") {
        return u64::from_str_radix(h, 16).expect("hex int").to_string();
    }
    if v.contains(':') && !v.contains("::") && v.len() % 3 == 2 && !name.ends_with("ipv6_address") {
        return v.replace(':', "");
    }
    v.to_string()
}

fn norm_mine(f: &Field) -> Option<String> {
    Some(match &f.value {
        Value::None => return None,
        Value::Uint(v) => v.to_string(),
        Value::Int(v) => v.to_string(),
        Value::Float(v) => format!("{v:.10e}"),
        Value::Bool(b) => u8::from(*b).to_string(),
        Value::Bytes(b) => poolshark::field::hex(b),
        Value::Str(s) => s.clone(),
        Value::Ipv4(a) => a.to_string(),
        Value::Ipv6(a) => a.to_string(),
        Value::Mac(m) => poolshark::field::mac(m),
    })
}

fn as_list(v: &J) -> Vec<&J> {
    match v {
        J::Array(a) if a.first().is_some_and(|x| x.is_array() || x.is_object()) => {
            a.iter().collect()
        }
        other => vec![other],
    }
}

/// Collects tshark's fields under `obj`, offsets made relative to `base`.
fn collect(obj: &J, base: usize, out: &mut Vec<(String, String, usize)>) {
    let J::Object(map) = obj else { return };
    for (k, v) in map {
        if k.ends_with("_raw") {
            continue;
        }
        let is_field = k.starts_with("asap.") || k.starts_with("enrp.");
        if is_field && !v.is_object() && !v.as_array().is_some_and(|a| a.iter().any(J::is_object)) {
            let values: Vec<&str> = match v {
                J::String(s) => vec![s.as_str()],
                J::Array(a) => a.iter().filter_map(J::as_str).collect(),
                _ => vec![],
            };
            let raws = map
                .get(&format!("{k}_raw"))
                .map(as_list)
                .unwrap_or_default();
            for (i, val) in values.iter().enumerate() {
                let off = raws
                    .get(i)
                    .and_then(|r| r.get(1))
                    .and_then(J::as_u64)
                    .map_or(usize::MAX, |o| (o as usize).wrapping_sub(base));
                out.push((k.clone(), norm_tshark(k, val), off));
            }
        } else {
            for x in as_list(v) {
                collect(x, base, out);
            }
        }
    }
}

fn tshark_messages(pcap: &Path) -> Vec<Seen> {
    let out = Command::new("tshark")
        .arg("-r")
        .arg(pcap)
        .args([
            "-Y",
            "asap || enrp",
            "-T",
            "json",
            "-x",
            "--no-duplicate-keys",
        ])
        .args(["-J", "frame asap enrp _ws.malformed"])
        .output()
        .expect("run tshark");
    assert!(out.status.success(), "tshark failed on {}", pcap.display());
    let packets: Vec<J> = serde_json::from_slice(&out.stdout).expect("tshark json");
    let mut seen = Vec::new();
    for p in &packets {
        let layers = &p["_source"]["layers"];
        let frame: u64 = layers["frame"]["frame.number"]
            .as_str()
            .and_then(|s| s.parse().ok())
            .expect("frame number");
        let malformed = layers.get("_ws.malformed").is_some();
        for (proto, name) in [(Protocol::Asap, "asap"), (Protocol::Enrp, "enrp")] {
            let Some(raw) = layers.get(format!("{name}_raw")) else {
                continue;
            };
            let raws = as_list(raw);
            let trees = layers.get(name).map(as_list).unwrap_or_default();
            for (i, r) in raws.iter().enumerate() {
                let bytes = unhex(r[0].as_str().expect("raw hex"));
                let base = r[1].as_u64().expect("raw offset") as usize;
                let mut fields = Vec::new();
                if let Some(t) = trees.get(i) {
                    collect(t, base, &mut fields);
                }
                seen.push(Seen {
                    frame,
                    protocol: proto,
                    bytes,
                    fields,
                    malformed,
                });
            }
        }
    }
    seen
}

/// RSPLIB policies Wireshark 4.0 shows as a "Policy Value" blob (it decodes only RFC 5356's,
/// WRAND-DPF and LU-DPF).
fn wireshark_decodes(kind: PolicyKind) -> bool {
    !matches!(
        kind,
        PolicyKind::RandomizedPriorityLeastUsed
            | PolicyKind::RandomizedLeastUsedDegradation
            | PolicyKind::PriorityLeastUsedDegradation
            | PolicyKind::RandomizedPriorityLeastUsedDegradation
            | PolicyKind::LeastUsedDegradationDpf
            | PolicyKind::Unknown
    )
}

/// My fields as tshark would show them: the values of the RSPLIB policies Wireshark does not
/// decode become the "Policy Value" bytes it shows instead.
fn mine_as_tshark(f: &Field, wire: &[u8], out: &mut Vec<(String, String, usize)>) {
    let policy_type = f
        .children
        .iter()
        .find(|c| c.name.ends_with(".pool_member_selection_policy_type"));
    if let Some(t) = policy_type {
        let Value::Uint(code) = t.value else {
            unreachable!()
        };
        let kind = rserpool::policy_kind(code as u32, Encoding::Rfc);
        if !wireshark_decodes(kind) {
            let prefix = &t.name[..4];
            out.push((t.name.to_string(), code.to_string(), t.offset));
            let start = t.offset + 4;
            let end = f.offset
                + usize::from(u16::from_be_bytes([wire[f.offset + 2], wire[f.offset + 3]]));
            if end > start {
                let name = format!("{prefix}.pool_member_selection_policy_value");
                out.push((name, poolshark::field::hex(&wire[start..end]), start));
            }
            for c in &f.children {
                if !c.name.contains("pool_member_selection_policy") {
                    push_mine(c, wire, out);
                }
            }
            return;
        }
    }
    push_mine(f, wire, out);
}

fn push_mine(f: &Field, wire: &[u8], out: &mut Vec<(String, String, usize)>) {
    if f.name.starts_with("asap.") || f.name.starts_with("enrp.") {
        if let Some(v) = norm_mine(f) {
            out.push((f.name.to_string(), v, f.offset));
        }
    }
    for c in &f.children {
        mine_as_tshark(c, wire, out);
    }
}

fn multiset(v: &[(String, String, usize)]) -> BTreeMap<&(String, String, usize), usize> {
    let mut m = BTreeMap::new();
    for x in v {
        *m.entry(x).or_insert(0) += 1;
    }
    m
}

/// What one side has that the other lacks (with multiplicity).
fn minus<'a>(
    a: &'a [(String, String, usize)],
    b: &[(String, String, usize)],
) -> Vec<&'a (String, String, usize)> {
    let mut mb = multiset(b);
    let mut out = Vec::new();
    for x in a {
        match mb.get_mut(x) {
            Some(n) if *n > 0 => *n -= 1,
            _ => out.push(x),
        }
    }
    out
}

/// Whether the message has an unknown parameter whose type says "stop" before other bytes:
/// poolshark keeps the rest raw, as RFC 5354 says; Wireshark decodes on.
fn stopped_early(m: &rserpool::Message) -> bool {
    m.params
        .iter()
        .any(|p| matches!(p, Parameter::Unprocessed(_)))
}

/// RSPLIB's cause 0x5 without the policy it should carry: Wireshark reads a parameter from the
/// empty info, throws and marks the frame Malformed, dropping what follows.
fn has_cause5_without_info(m: &rserpool::Message) -> bool {
    m.causes()
        .any(|c| c.code == 5 && matches!(c.info, CauseInfo::Empty))
}

struct Tally {
    messages: usize,
    compared_fields: usize,
    stop_params: usize,
    cause5: usize,
}

fn check_capture(name: &str, expect: Encoding) -> Option<Tally> {
    let path = common::shared_capture(&format!("rserpool/{name}"))?;
    if !common::have_tshark() {
        return None;
    }
    let seen = tshark_messages(&path);
    assert!(!seen.is_empty(), "{name}: tshark found no ASAP/ENRP");
    let mut tally = Tally {
        messages: 0,
        compared_fields: 0,
        stop_params: 0,
        cause5: 0,
    };
    let mut problems = Vec::new();
    for s in &seen {
        tally.messages += 1;
        let guess = rserpool::guess_encoding(&s.bytes, s.protocol);
        if guess.is_some() && guess != Some(expect) {
            problems.push(format!("frame {}: guessed {guess:?}", s.frame));
        }
        let (msg, errors) = rserpool::parse(&s.bytes, s.protocol, expect);
        if !errors.is_empty() {
            problems.push(format!("frame {}: decode errors {errors:?}", s.frame));
            continue;
        }
        if msg.emit() != s.bytes {
            problems.push(format!(
                "frame {}: emit differs\n  got  {}\n  want {}",
                s.frame,
                poolshark::field::hex(&msg.emit()),
                poolshark::field::hex(&s.bytes)
            ));
        }
        if expect != Encoding::Rfc {
            // tshark decodes the legacy encoding as if it were the RFC's: nothing to compare.
            continue;
        }
        let mut mine = Vec::new();
        for f in msg.fields() {
            mine_as_tshark(&f, &s.bytes, &mut mine);
        }
        let only_mine = minus(&mine, &s.fields);
        let only_tshark = minus(&s.fields, &mine);
        if stopped_early(&msg) {
            // Everything poolshark decoded before stopping agrees; tshark has more after.
            tally.stop_params += 1;
            if !only_mine.is_empty() {
                problems.push(format!(
                    "frame {}: after a stop parameter, mine only {only_mine:?}",
                    s.frame
                ));
            }
            continue;
        }
        if s.malformed && has_cause5_without_info(&msg) {
            // tshark stops at the exception: what it shows must all be in mine.
            tally.cause5 += 1;
            if !only_tshark.is_empty() {
                problems.push(format!(
                    "frame {}: cause 0x5, tshark only {only_tshark:?}",
                    s.frame
                ));
            }
            continue;
        }
        if !only_mine.is_empty() || !only_tshark.is_empty() {
            problems.push(format!(
                "frame {}: fields differ\n  mine only   {only_mine:?}\n  tshark only {only_tshark:?}",
                s.frame
            ));
        }
        tally.compared_fields += s.fields.len();
    }
    if !problems.is_empty() {
        let n = problems.len();
        problems.truncate(15);
        panic!("{name}: {n} problem(s):\n{}", problems.join("\n"));
    }
    eprintln!(
        "{name}: {} messages, {} tshark fields matched, {} with a stop parameter, {} with RSPLIB's cause 0x5",
        tally.messages, tally.compared_fields, tally.stop_params, tally.cause5
    );
    Some(tally)
}

#[test]
fn coverage_capture_agrees_with_tshark() {
    let Some(t) = check_capture("asap-enrp-coverage.pcap", Encoding::Rfc) else {
        return;
    };
    // The README: one cause 0x5 without info on purpose.
    assert_eq!(t.cause5, 1);
}

#[test]
fn rfc_scenario_agrees_with_tshark() {
    let Some(t) = check_capture("rsplib-rfc-scenario.pcap", Encoding::Rfc) else {
        return;
    };
    // The README: one registration rejected with cause 0x5 sent without its info.
    assert!(t.cause5 >= 1);
}

#[test]
fn multi_pe_agrees_with_tshark() {
    check_capture("rsplib-multi-pe.pcap", Encoding::Rfc);
}

#[test]
fn enrp_errors_agree_with_tshark() {
    check_capture("rsplib-enrp-errors.pcap", Encoding::Rfc);
}

#[test]
fn legacy_2007_decodes_without_error_and_round_trips() {
    let Some(t) = check_capture("rsplib-2007-legacy-draft.pcap", Encoding::Rsplib2007) else {
        return;
    };
    // The README: 148 ASAP and 545 ENRP messages.
    assert_eq!(t.messages, 148 + 545);
}

#[test]
fn legacy_2007_frame_298_is_a_calcapppool_rr_registration() {
    let Some(path) = common::shared_capture("rserpool/rsplib-2007-legacy-draft.pcap") else {
        return;
    };
    if !common::have_tshark() {
        return;
    }
    let seen = tshark_messages(&path);
    let s = seen.iter().find(|s| s.frame == 298).expect("frame 298");
    assert_eq!(
        rserpool::guess_encoding(&s.bytes, s.protocol),
        Some(Encoding::Rsplib2007)
    );
    let (m, errors) = rserpool::parse(&s.bytes, Protocol::Asap, Encoding::Rsplib2007);
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(m.asap_type(), Some(rserpool::AsapType::Registration));
    assert_eq!(m.pool_handle(), Some(&b"CalcAppPool"[..]));
    let pe = m.pool_elements().next().expect("a pool element");
    let policy = pe.policy().expect("a policy");
    assert_eq!(policy.kind(), PolicyKind::RoundRobin);
    assert!(
        m.info()
            .starts_with("ASAP Registration pool \"CalcAppPool\" PE 0x"),
        "{}",
        m.info()
    );
}

/// A display tree as (depth, label) lines.
type Lines = Vec<(usize, String)>;

/// tshark's trees, one per ASAP/ENRP block, by frame and protocol in frame order.
fn tshark_trees(pcap: &Path) -> HashMap<(u64, Protocol), Vec<Lines>> {
    let out = Command::new("tshark")
        .arg("-r")
        .arg(pcap)
        .args(["-Y", "asap || enrp", "-V", "-O", "asap,enrp"])
        .output()
        .expect("run tshark");
    let text = String::from_utf8_lossy(&out.stdout);
    let mut trees: HashMap<(u64, Protocol), Vec<Lines>> = HashMap::new();
    let mut frame = 0;
    let mut current: Option<(u64, Protocol)> = None;
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("Frame ") {
            frame = rest
                .split(':')
                .next()
                .and_then(|n| n.parse().ok())
                .unwrap_or(0);
            current = None;
            continue;
        }
        let proto = match line {
            "Aggregate Server Access Protocol" => Some(Protocol::Asap),
            "Endpoint Handlespace Redundancy Protocol" => Some(Protocol::Enrp),
            _ => None,
        };
        if let Some(p) = proto {
            trees
                .entry((frame, p))
                .or_default()
                .push(vec![(0, line.to_string())]);
            current = Some((frame, p));
            continue;
        }
        if !line.starts_with(' ') {
            current = None;
            continue;
        }
        let Some(key) = current else { continue };
        let trimmed = line.trim_start();
        if trimmed.starts_with('[') {
            continue;
        }
        let depth = (line.len() - trimmed.len()) / 4;
        // Flag bits: ".... ...1 = R Bit: Rejected".
        let text = trimmed.split_once(" = ").map_or(trimmed, |(_, r)| r);
        let label = text.split_once(": ").map_or(text, |(l, _)| l).to_string();
        if let Some(list) = trees.get_mut(&key).and_then(|v| v.last_mut()) {
            list.push((depth, label));
        }
    }
    trees
}

fn my_tree(f: &Field, depth: usize, out: &mut Lines) {
    if f.name.starts_with("poolshark.") {
        return;
    }
    // Flag bits sit one level below the flags field, as in tshark.
    out.push((depth, f.label.to_string()));
    for c in &f.children {
        my_tree(c, depth + 1, out);
    }
}

/// Wireshark 4.0 knows neither the opaque transport nor RSPLIB's extra policies: it labels
/// them as unknown and shows their bytes, where poolshark decodes them.
fn wireshark_knows_all_of(m: &rserpool::Message) -> bool {
    fn ok(p: &Parameter) -> bool {
        match p {
            Parameter::OpaqueTransport(_) => false,
            Parameter::Policy(x) => wireshark_decodes(x.kind()),
            Parameter::PoolElement(pe) => pe.params.iter().all(ok),
            Parameter::Transport(t) => t.addresses.iter().all(ok),
            Parameter::ServerInformation(s) => s.params.iter().all(ok),
            Parameter::OperationError(e) => e.causes.iter().all(|c| match &c.info {
                CauseInfo::Parameters(ps) => ps.iter().all(ok),
                _ => true,
            }),
            _ => true,
        }
    }
    m.params.iter().all(ok)
}

fn check_tree_shape(name: &str) -> Option<usize> {
    let path = common::shared_capture(&format!("rserpool/{name}"))?;
    if !common::have_tshark() {
        return None;
    }
    let trees = tshark_trees(&path);
    let seen = tshark_messages(&path);
    let mut used: HashMap<(u64, Protocol), usize> = HashMap::new();
    let mut compared = 0;
    let mut problems = Vec::new();
    for s in &seen {
        let key = (s.frame, s.protocol);
        let i = used.entry(key).or_insert(0);
        let theirs = trees
            .get(&key)
            .and_then(|v| v.get(*i))
            .expect("a tshark tree per message");
        *i += 1;
        let (m, _) = rserpool::parse(&s.bytes, s.protocol, Encoding::Rfc);
        if s.malformed || !wireshark_knows_all_of(&m) {
            continue;
        }
        let mut mine = Vec::new();
        for f in m.fields() {
            my_tree(&f, 0, &mut mine);
        }
        if &mine != theirs {
            let at = mine
                .iter()
                .zip(theirs)
                .position(|(a, b)| a != b)
                .unwrap_or(mine.len().min(theirs.len()));
            problems.push(format!(
                "frame {}: trees differ at line {at}: mine {:?}, tshark {:?}",
                s.frame,
                mine.get(at),
                theirs.get(at)
            ));
        }
        compared += 1;
    }
    assert!(
        problems.is_empty(),
        "{name}:\n{}",
        problems[..problems.len().min(10)].join("\n")
    );
    Some(compared)
}

#[test]
fn tree_shape_and_labels_match_tshark() {
    for name in [
        "asap-enrp-coverage.pcap",
        "rsplib-rfc-scenario.pcap",
        "rsplib-enrp-errors.pcap",
    ] {
        let Some(n) = check_tree_shape(name) else {
            return;
        };
        eprintln!("{name}: {n} message trees identical to tshark's");
        assert!(n > 0);
    }
}

/// Throughput of parse, emit and fields over the messages of the largest capture. Run with
/// `cargo test --release --test it -- --ignored --nocapture rserpool_tshark::`.
#[test]
#[ignore]
fn measure_decode_rate() {
    let Some(path) = common::shared_capture("rserpool/rsplib-multi-pe.pcap") else {
        return;
    };
    if !common::have_tshark() {
        return;
    }
    let seen = tshark_messages(&path);
    let bytes: usize = seen.iter().map(|s| s.bytes.len()).sum();
    let rounds = 20;
    let time = |what: &str, f: &dyn Fn(&Seen)| {
        let t = std::time::Instant::now();
        for _ in 0..rounds {
            seen.iter().for_each(f);
        }
        let secs = t.elapsed().as_secs_f64();
        let n = (seen.len() * rounds) as f64;
        eprintln!(
            "{what}: {:.0} messages/s, {:.1} MB/s",
            n / secs,
            (bytes * rounds) as f64 / secs / 1e6
        );
    };
    time("parse", &|s| {
        std::hint::black_box(rserpool::parse(&s.bytes, s.protocol, Encoding::Rfc));
    });
    time("guess+parse", &|s| {
        let e = rserpool::guess_encoding(&s.bytes, s.protocol).unwrap_or(Encoding::Rfc);
        std::hint::black_box(rserpool::parse(&s.bytes, s.protocol, e));
    });
    time("parse+emit", &|s| {
        std::hint::black_box(
            rserpool::parse(&s.bytes, s.protocol, Encoding::Rfc)
                .0
                .emit(),
        );
    });
    time("parse+fields+info", &|s| {
        let m = rserpool::parse(&s.bytes, s.protocol, Encoding::Rfc).0;
        std::hint::black_box((m.fields(), m.info()));
    });
}
