//! `read -T fields -e ...` against `tshark -T fields -e ...`: byte for byte, column by column,
//! for every field of poolshark's records that tshark also knows (`tshark -G fields`) and the
//! frame's own (number, times, lengths, addresses, ports), over the fixtures and the shared
//! captures. Where the two differ, the difference is listed below with its reason; any other
//! fails the test. Then tshark's `-E` options and `-Y` together, and the usage errors.

use crate::common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::OnceLock;

/// Fields of the frame every capture is compared on.
const FRAME_FIELDS: &[&str] = &[
    "frame.number",
    "frame.time_epoch",
    "frame.time_relative",
    "frame.len",
    "frame.cap_len",
    "ip.src",
    "ip.dst",
    "ipv6.src",
    "ipv6.dst",
    "udp.srcport",
    "udp.dstport",
    "tcp.srcport",
    "tcp.dstport",
    "sctp.srcport",
    "sctp.dstport",
];

const END_IS_0: &str =
    "tshark 4.0 gives the End option's dhcp.option.type as 0 (its tree says 255)";
const FO_TIME: &str =
    "tshark gives failover times as dates (FT_ABSOLUTE_TIME); poolshark gives the epoch seconds";
const POLICY_VALUES: &str = "Wireshark 4.0 decodes the parameters of its own list of policies \
     only (LU-DPF, LUD, distance and the like are 'Policy Value' bytes there)";

/// (capture file name, field, why poolshark's column differs from tshark's).
const KNOWN: &[(&str, &str, &str)] = &[
    ("demo.pcap", "dhcp.option.type", END_IS_0),
    (
        "isc-dhcpd-4.4.3-failover.pcap",
        "dhcp.option.type",
        END_IS_0,
    ),
    ("failover-all-types.pcap", "dhcpfo.time", FO_TIME),
    ("isc-dhcpd-4.4.3-failover.pcap", "dhcpfo.time", FO_TIME),
    (
        "failover-all-types.pcap",
        "dhcpfo.messagedigest",
        "tshark shows the digest as text (FT_STRING); poolshark as hex bytes",
    ),
    (
        "failover-all-types.pcap",
        "dhcpfo.vendoroption",
        "tshark 4.0 shows the option's first byte only",
    ),
    (
        "failover-all-types.pcap",
        "dhcpfo.ftddns",
        "tshark 4.0 does not decode the FTDDNS option's name",
    ),
    (
        "kea-2.2-ha-load-balancing-v6.pcap",
        "dhcpv6.duidllt.time",
        "tshark 4.0 reads the DUID-LLT time as signed: from 2068 on (2^31 s after 2000) its \
         dates run from 1931; RFC 8415 section 11.2 makes it unsigned, modulo 2^32",
    ),
    (
        "rserpool-rfc.pcap",
        "asap.pool_member_selection_policy_load",
        POLICY_VALUES,
    ),
    (
        "rserpool-rfc.pcap",
        "asap.pool_member_selection_policy_degradation",
        POLICY_VALUES,
    ),
    (
        "rserpool-rfc.pcap",
        "asap.pool_member_selection_policy_distance",
        POLICY_VALUES,
    ),
    (
        "rserpool-rfc.pcap",
        "asap.pool_member_selection_policy_load_dpf",
        POLICY_VALUES,
    ),
    (
        "rsplib-rfc-scenario.pcap",
        "asap.pool_member_selection_policy_load",
        POLICY_VALUES,
    ),
    (
        "rsplib-rfc-scenario.pcap",
        "asap.pool_member_selection_policy_degradation",
        POLICY_VALUES,
    ),
    (
        "rsplib-rfc-scenario.pcap",
        "asap.pool_member_selection_policy_distance",
        POLICY_VALUES,
    ),
    (
        "rsplib-rfc-scenario.pcap",
        "asap.pool_member_selection_policy_load_dpf",
        POLICY_VALUES,
    ),
    (
        "rsplib-rfc-scenario.pcap",
        "enrp.pool_member_selection_policy_load",
        POLICY_VALUES,
    ),
    (
        "rsplib-rfc-scenario.pcap",
        "enrp.pool_member_selection_policy_degradation",
        POLICY_VALUES,
    ),
    (
        "rsplib-rfc-scenario.pcap",
        "enrp.pool_member_selection_policy_distance",
        POLICY_VALUES,
    ),
    (
        "rsplib-rfc-scenario.pcap",
        "enrp.pool_member_selection_policy_load_dpf",
        POLICY_VALUES,
    ),
];

/// Fields left out of the run: tshark writes their values raw, line breaks and all, so its
/// lines no longer match its frames.
const NOT_RUN: &[(&str, &str)] = &[(
    "dhcpfo.clientidentifier",
    "tshark shows the client identifier as text (FT_STRING), control bytes included",
)];

/// The fields tshark knows.
fn tshark_fields() -> &'static BTreeSet<String> {
    static FIELDS: OnceLock<BTreeSet<String>> = OnceLock::new();
    FIELDS.get_or_init(|| {
        common::tshark::registered()
            .iter()
            .filter(|(_, ty)| !ty.is_empty())
            .map(|(name, _)| name.clone())
            .collect()
    })
}

/// The tree fields of poolshark's records for the capture (the JSON records' keys).
fn record_fields(capture: &Path) -> BTreeSet<String> {
    let out = common::poolshark()
        .args(["read", "--no-progress", "--format", "jsonl"])
        .arg(capture)
        .output()
        .expect("poolshark read");
    assert!(out.status.success(), "{out:?}");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter_map(|r| {
            r["fields"]
                .as_object()
                .map(|o| o.keys().cloned().collect::<Vec<_>>())
        })
        .flatten()
        .collect()
}

/// Compares every column; returns how many agreed. Fails on a difference not in [`KNOWN`].
fn compare(capture: &Path) -> usize {
    compare_as(capture, common::file_name(capture))
}

/// [`compare`], with the differences [`KNOWN`] of the capture named `file`.
fn compare_as(capture: &Path, file: &str) -> usize {
    let known = tshark_fields();
    let mut fields: Vec<String> = FRAME_FIELDS.iter().map(|s| s.to_string()).collect();
    fields.extend(
        record_fields(capture)
            .into_iter()
            .filter(|f| known.contains(f) && !NOT_RUN.iter().any(|(n, _)| n == f)),
    );
    let args: Vec<String> = fields
        .iter()
        .flat_map(|f| ["-e".into(), f.clone()])
        .collect();
    let (ours, theirs) = common::tshark::both_fields(capture, &args);
    assert_eq!(ours.len(), theirs.len(), "{file}: lines (one per frame)");
    assert!(!ours.is_empty(), "{file}: no frames");
    let mut differ: BTreeMap<&str, (usize, String, String)> = BTreeMap::new();
    for (a, b) in ours.iter().zip(&theirs) {
        let (a, b): (Vec<&str>, Vec<&str>) = (a.split('\t').collect(), b.split('\t').collect());
        assert_eq!(a.len(), fields.len(), "{file}: poolshark's columns");
        assert_eq!(b.len(), fields.len(), "{file}: tshark's columns");
        for ((name, x), y) in fields.iter().zip(&a).zip(&b) {
            if x != y {
                let e = differ
                    .entry(name)
                    .or_insert_with(|| (0, x.to_string(), y.to_string()));
                e.0 += 1;
            }
        }
    }
    let unexplained: Vec<String> = differ
        .iter()
        .filter(|(name, _)| !KNOWN.iter().any(|(c, f, _)| *c == file && f == *name))
        .map(|(name, (n, x, y))| format!("{name}: {n} frames, e.g. ours {x:?}, tshark {y:?}"))
        .collect();
    assert!(
        unexplained.is_empty(),
        "{file}: -T fields differs from tshark's:\n{}",
        unexplained.join("\n")
    );
    let agreed = fields.len() - differ.len();
    eprintln!(
        "{file}: {} frames, {agreed} of {} fields as tshark writes them ({} known differences)",
        ours.len(),
        fields.len(),
        differ.len()
    );
    agreed
}

#[test]
fn fixture_fields_are_tsharks() {
    if !common::have_tshark() {
        return;
    }
    for (file, at_least) in [
        ("demo.pcap", 120),
        ("rserpool-rfc.pcap", 70),
        ("rserpool-udp.pcap", 30),
        ("rserpool-sctp-chunks.pcap", 20),
        ("failover-all-types.pcap", 40),
    ] {
        let agreed = compare(&common::fixture(file));
        assert!(agreed >= at_least, "{file}: only {agreed} fields agree");
    }
}

#[test]
fn shared_capture_fields_are_tsharks() {
    if !common::have_tshark() {
        return;
    }
    for (rel, at_least) in [
        ("dhcp-kea/kea-2.2-ha-load-balancing-v6.pcap", 35),
        ("dhcp-failover/isc-dhcpd-4.4.3-failover.pcap", 60),
        ("rserpool/rsplib-multi-pe.pcap", 50),
        ("rserpool/rsplib-rfc-scenario.pcap", 50),
    ] {
        let Some(cap) = common::shared_capture(rel) else {
            return;
        };
        let agreed = compare(&cap);
        assert!(agreed >= at_least, "{rel}: only {agreed} fields agree");
    }
}

/// Tunnelled captures (common::encapsulations): every column as tshark writes it, the addresses
/// and ports of the outer layers too (tshark lists every occurrence, outermost first). Each
/// encapsulation carries one capture, the captures in turn, so that each capture goes through
/// two encapsulations or more: the columns of the messages themselves do not depend on the
/// tunnel (`shared_capture_fields_are_tsharks` compares them bare), and a run of tshark over a
/// capture of thousands of frames takes seconds.
#[test]
fn tunnelled_capture_fields_are_tsharks() {
    if !common::have_tshark() {
        return;
    }
    let mut caps = vec![
        common::fixture("demo.pcap"),
        common::fixture("rserpool-udp.pcap"),
    ];
    if let Some(shared) = common::shared_dir() {
        caps.push(shared.join("captures/dhcp-kea/kea-2.2-ha-load-balancing-v6.pcap"));
        caps.push(shared.join("captures/rserpool/rsplib-rfc-scenario.pcap"));
    }
    let mut tunnelled = Vec::new();
    for (i, (name, layers, fragment)) in common::encapsulations().into_iter().enumerate() {
        let cap = &caps[i % caps.len()];
        let file = common::file_name(cap);
        // Named apart from the other tests' rewrites of the same captures (they run at once).
        let t = common::tunnelled(cap, &layers, fragment, &format!("fields-{name}"));
        let agreed = compare_as(&t, file);
        assert!(agreed >= 20, "{file} in {name}: only {agreed} fields agree");
        tunnelled.push(t);
    }
    // Display filters on the layers: each keeps the frames tshark keeps.
    let filters = [
        "ip.src == 198.51.100.1 && ip.dst == 10.0.0.1",
        "ip.addr == 10.0.0.0/8 || ipv6.addr == 2001:db8:ffff::/48",
        "udp.dstport == 4789 && sctp",
        "udp.port == 6081 || (ip && ipv6)",
        "sctp.port == 9901 && !(udp)",
        "ip.src === 198.51.100.1",
    ];
    let unselective = common::tshark::filters_keep_tsharks_frames(
        &tunnelled,
        &filters,
        "fields",
        common::tshark::Passes::Two,
    );
    for t in &tunnelled {
        std::fs::remove_file(t).ok();
    }
    assert!(
        unselective.is_empty(),
        "keep no frame or all of each: {unselective:?}"
    );
}

#[test]
fn options_and_display_filter_as_tshark() {
    if !common::have_tshark() {
        return;
    }
    let demo = common::fixture("demo.pcap");
    let e = |fields: &[&str], rest: &[&str]| -> Vec<String> {
        fields
            .iter()
            .flat_map(|f| ["-e", f])
            .chain(rest.iter().copied())
            .map(str::to_string)
            .collect()
    };
    let fields = [
        "frame.number",
        "frame.time_relative",
        "ip.src",
        "asap.pool_element_pe_identifier",
        "dhcp.option.request_list_item",
        "dhcpv6.xid",
        "asap.pool_handle_pool_handle",
    ];
    for rest in [
        &["-E", "header=y"][..],
        &["-E", "separator=,", "-E", "quote=d", "-E", "header=y"],
        &["-E", "occurrence=f", "-E", "separator=/s"],
        &["-E", "occurrence=l", "-E", "quote=s"],
        &["-E", "aggregator=/s", "-E", "separator=|"],
        &["-Y", "asap.message_type == 2 || dhcp.option.dhcp == 1"],
        &["-Y", "frame.time_relative > 2.5 && udp", "-E", "header=y"],
    ] {
        let (ours, theirs) = common::tshark::both_fields(&demo, &e(&fields, rest));
        assert!(ours.len() > 1, "{rest:?}: {} lines", ours.len());
        assert_eq!(ours.len(), theirs.len(), "{rest:?}: lines");
        if let Some((a, b)) = ours.iter().zip(&theirs).find(|(a, b)| a != b) {
            panic!("{rest:?}: poolshark wrote\n{a}\nwhere tshark wrote\n{b}");
        }
    }
}

#[test]
fn fields_usage_errors_say_what_is_wrong() {
    let demo = common::fixture("demo.pcap");
    for (args, says) in [
        (&["-T", "fields"][..], "-e NAME"),
        (&["-e", "frame.number"], "go with -T fields"),
        (&["-T", "fields", "-e", "eth.lg"], "not kept"),
        (
            &["-T", "fields", "-e", "frame.number", "-E", "occurrence=x"],
            "occurrence=x",
        ),
    ] {
        let out = common::poolshark()
            .args(["read", "--no-progress"])
            .args(args)
            .arg(&demo)
            .output()
            .expect("poolshark read");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(says), "{args:?}: {err}");
    }
    // A name that is no field is refused with tshark's exit code 1 (`field_catalogue` compares
    // with tshark's own).
    let out = common::read_fields()
        .args(["-e", "frame.number"])
        .args(["-e", "asap.no_such_field"])
        .arg(&demo)
        .output()
        .expect("poolshark read");
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("\tasap.no_such_field"), "{err}");
    // A field no message of the capture has is named at the end; the lines are still written.
    let out = common::read_fields()
        .args(["-e", "frame.number"])
        .args(["-e", "asap.cookie"])
        .arg(&demo)
        .output()
        .expect("poolshark read");
    assert!(out.status.success());
    let frames = crate::dhcp_support::pcap::frames(&std::fs::read(&demo).expect("demo.pcap"));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).lines().count(),
        frames.len()
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("'asap.cookie' (-e) was in no message"),
        "{err}"
    );
}
