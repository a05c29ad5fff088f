//! Every capture of shared/captures/external (public captures from other projects' test
//! suites) against tshark, frame by frame: `read -T fields` and `tshark -T fields` for the lower
//! layers' fields below and for every DHCPv4, DHCPv6 and SCTP field poolshark decodes (the
//! message fields of `poolshark::field::catalogue` and the SCTP fields of the layers' list that
//! tshark knows), every occurrence in order (an ICMP error's quoted packet included). Each
//! remaining difference is listed in [`KNOWN`] or [`explained`] with the reason tshark is wrong
//! on the bytes; any other fails the test. `layers_vs_tshark` compares the rest of the lower
//! layers' fields over every shared capture.

use crate::common;

use std::collections::BTreeMap;

use poolshark::dissect::layers;
use poolshark::field::catalogue;

/// The lower layers' fields the test compares (the frame's length, addresses, ports, protocols).
const LOWER: &[&str] = &[
    "frame.len",
    "eth.type",
    "vlan.id",
    "ip.src",
    "ip.dst",
    "ipv6.src",
    "ipv6.dst",
    "udp.srcport",
    "udp.dstport",
    "sctp.srcport",
    "sctp.dstport",
    "frame.protocols",
];

const FABRICPATH_FCS: &str = "tshark's FabricPath dissector takes the frame's last 4 bytes for \
     an FCS the capture does not have, cutting the IPv6 and SCTP headers short (frame 114's IPv6 \
     header is then 'malformed', frame 66's SCTP header is left out); the packets are whole";
const FQDN_IN_CONFIRM: &str = "tshark 4.0 does not decode a Client FQDN option in a CONFIRM \
     (RFC 4704 section 4.1 does not allow it there), showing only \
     dhcpv6.clientfqdn.bad_msgtype; the option's bytes are well-formed (flags 0x03, name \
     'cm1208-td1.'), which poolshark decodes and also flags with dhcpv6.clientfqdn.bad_msgtype";

/// (capture, field, why tshark's column is wrong on the bytes).
const KNOWN: &[(&str, &str, &str)] = &[
    (
        "zeek_zeek_cisco-fabric-path.pcap",
        "ipv6.dst",
        FABRICPATH_FCS,
    ),
    (
        "zeek_zeek_cisco-fabric-path.pcap",
        "sctp.srcport",
        FABRICPATH_FCS,
    ),
    (
        "zeek_zeek_cisco-fabric-path.pcap",
        "sctp.dstport",
        FABRICPATH_FCS,
    ),
    (
        "zeek_zeek_cisco-fabric-path.pcap",
        "sctp.verification_tag",
        FABRICPATH_FCS,
    ),
    (
        "zeek_zeek_cisco-fabric-path.pcap",
        "sctp.checksum",
        FABRICPATH_FCS,
    ),
    (
        "inverse-inc_packetfence_dhcpv6cap.pcapng",
        "dhcpv6.client_fqdn_flags",
        FQDN_IN_CONFIRM,
    ),
    (
        "inverse-inc_packetfence_dhcpv6cap.pcapng",
        "dhcpv6.tld",
        FQDN_IN_CONFIRM,
    ),
];

/// Why one frame's column may differ from tshark's whatever the capture, or `None`.
fn explained(field: &str, ours: &str, theirs: &str) -> Option<&'static str> {
    match field {
        // tshark lists protocols past poolshark's (HTTP, LLDP, M3UA, data ...): a payload
        // poolshark leaves alone, not a difference of the layers it decodes.
        "frame.protocols" if crate::layers_vs_tshark::tshark_goes_further(ours, theirs) => {
            Some("tshark decodes a payload poolshark leaves alone")
        }
        // The END option: tshark's tree says "(255) End", its dhcp.option.type says 0.
        "dhcp.option.type" if same_but(ours, theirs, "255", "0") => {
            Some("tshark gives END's dhcp.option.type as 0; its tree and the byte say 255")
        }
        // A zero-length option (Rapid Commit, RFC 4039, has no data by definition): tshark
        // writes the placeholder "<MISSING>" as its value, where there is no byte.
        "dhcp.option.value" if same_but(theirs, ours, "<MISSING>,", "") => {
            Some("tshark writes an option without data as the value '<MISSING>'")
        }
        _ => None,
    }
}

/// Whether `a` is `b` with `x` where `b` has `y`, occurrence by occurrence (`,`-separated; a `y`
/// of "" with `x` ending in ',' stands for an occurrence `b` lacks).
fn same_but(a: &str, b: &str, x: &str, y: &str) -> bool {
    if let Some(x) = x.strip_suffix(',') {
        // An occurrence of `a` that `b` does not have.
        let a: Vec<&str> = a.split(',').collect();
        let b: Vec<&str> = b.split(',').collect();
        let mut j = 0;
        for o in &a {
            if b.get(j) == Some(o) {
                j += 1;
            } else if *o != x {
                return false;
            }
        }
        return j == b.len() && y.is_empty();
    }
    let (a, b): (Vec<&str>, Vec<&str>) = (a.split(',').collect(), b.split(',').collect());
    a.len() == b.len()
        && a.iter()
            .zip(&b)
            .all(|(p, q)| p == q || (*p == x && *q == y))
}

/// LOWER, then every DHCPv4, DHCPv6 and SCTP field poolshark decodes that tshark knows.
fn fields() -> Vec<&'static str> {
    let known = common::tshark::registered();
    let mut v: Vec<&'static str> = LOWER.to_vec();
    let ours = catalogue::FIELDS
        .iter()
        .filter(|f| f.starts_with("dhcp.") || f.starts_with("dhcpv6."))
        .chain(layers::FIELDS.iter().filter(|f| f.starts_with("sctp.")));
    for f in ours {
        if known.get(*f).is_some_and(|ty| !ty.is_empty()) && !v.contains(f) {
            v.push(f);
        }
    }
    v
}

#[test]
fn external_captures_agree_with_tshark_field_by_field() {
    if !common::have_tshark() {
        return;
    }
    let Some(shared) = common::shared_dir() else {
        return;
    };
    // Every file but the README: the gzip'd pcapng too (both read it as it is).
    let mut caps: Vec<_> = std::fs::read_dir(shared.join("captures/external"))
        .expect("captures/external")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x != "md"))
        .collect();
    caps.sort();
    assert!(caps.len() >= 50, "only {} external captures", caps.len());
    let fields = fields();
    let args: Vec<&str> = fields.iter().flat_map(|f| ["-e", *f]).collect();
    let (mut frames, mut cells, mut explained_cells) = (0usize, 0usize, 0usize);
    let mut known_cells = 0usize;
    let mut unexplained: BTreeMap<(String, &str), (usize, String, String)> = BTreeMap::new();
    for cap in &caps {
        let file = common::file_name(cap);
        let (ours, theirs) = common::tshark::both_fields(cap, &args);
        assert_eq!(ours.len(), theirs.len(), "{file}: lines (one per frame)");
        for (a, b) in ours.iter().zip(&theirs) {
            frames += 1;
            let (a, b): (Vec<&str>, Vec<&str>) = (a.split('\t').collect(), b.split('\t').collect());
            assert_eq!(a.len(), fields.len(), "{file}: poolshark's columns");
            assert_eq!(b.len(), fields.len(), "{file}: tshark's columns");
            for ((name, x), y) in fields.iter().zip(&a).zip(&b) {
                if x.is_empty() && y.is_empty() {
                    continue;
                }
                cells += 1;
                if x == y {
                    continue;
                }
                if explained(name, x, y).is_some() {
                    explained_cells += 1;
                } else if KNOWN.iter().any(|(c, f, _)| *c == file && f == name) {
                    known_cells += 1;
                } else {
                    unexplained
                        .entry((file.to_string(), name))
                        .or_insert_with(|| (0, x.to_string(), y.to_string()))
                        .0 += 1;
                }
            }
        }
    }
    let list: Vec<String> = unexplained
        .iter()
        .map(|((c, f), (n, x, y))| format!("{c} {f}: {n} frames, e.g. ours {x:?}, tshark {y:?}"))
        .collect();
    assert!(
        list.is_empty(),
        "differences from tshark:\n{}",
        list.join("\n")
    );
    eprintln!(
        "{} captures, {frames} frames, {} fields: {cells} non-empty (frame, field) values, \
         {} as tshark writes them; {explained_cells} where tshark decodes further or writes \
         END as 0 or '<MISSING>', {known_cells} known differences of tshark's on the bytes",
        caps.len(),
        fields.len(),
        cells - explained_cells - known_cells,
    );
    assert!(
        frames > 50_000 && fields.len() > 250,
        "{frames} frames, {} fields",
        fields.len()
    );
}

/// Display filters on an ICMP error's quoted packet keep the frames tshark keeps: its addresses
/// and ports are second occurrences, and a quoted DHCPv6 message is decoded (the forge capture's
/// frames 8, 11, 14 and 17; `ntop_nDPI_iphone.pcap` frame 193).
#[test]
fn quoted_packets_are_filtered_as_tshark_does() {
    if !common::have_tshark() {
        return;
    }
    let Some(shared) = common::shared_dir() else {
        return;
    };
    let ext = shared.join("captures/external");
    let caps = vec![
        ext.join("isc-projects_forge_v6_multipleIA_addresses-noaddravail.pcap"),
        ext.join("ntop_nDPI_iphone.pcap"),
    ];
    let filters = [
        "icmpv6 && udp.srcport == 547",
        "icmpv6 && dhcpv6.msgtype == 2",
        "ipv6.dst == fe80::a00:27ff:fe77:24ad && icmpv6",
        "icmp && udp.port == 53",
        "icmp && ip.src == 192.168.2.1",
        "dhcpv6 && !icmpv6",
    ];
    let unselective = common::tshark::filters_keep_tsharks_frames(
        &caps,
        &filters,
        "quoted",
        common::tshark::Passes::One,
    );
    assert!(
        unselective.is_empty(),
        "keep no frame or all of each: {unselective:?}"
    );
}

/// `secs` written little-endian (high byte set, low byte 0) as tshark shows it: swapped, with
/// the note `dhcp.secs_le`; other values as on the wire. DISCOVERs with `secs` from 0x1a00 (26
/// little-endian, as `seladb_PcapPlusPlus_raw_ip.pcap` frames 67-68 have it) to 0x1a01.
#[test]
fn little_endian_secs_are_shown_as_tshark_shows_them() {
    use crate::dhcp_support::{write_pcap, Kind};
    use poolshark::proto::dhcpv4;
    if !common::have_tshark() {
        return;
    }
    let secs = [0x1a00u16, 0x0100, 0x0001, 0x1a01, 0xff00, 0, 0x0200, 0xffff];
    let msgs: Vec<(Kind, Vec<u8>)> = secs
        .iter()
        .map(|&s| {
            let m = dhcpv4::Message::request(dhcpv4::message_type::DISCOVER, 7, [2, 0, 0, 0, 0, 1])
                .with_secs(s);
            (Kind::V4, m.emit())
        })
        .collect();
    let path = std::env::temp_dir().join(format!("poolshark-secs-le-{}.pcap", std::process::id()));
    write_pcap(&path, &msgs);
    let (ours, theirs) =
        common::tshark::both_fields(&path, &["-e", "dhcp.secs", "-e", "dhcp.secs_le"]);
    let filtered =
        common::tshark::both_fields(&path, &["-Y", "dhcp.secs_le", "-e", "frame.number"]);
    std::fs::remove_file(&path).ok();
    assert_eq!(ours, theirs);
    assert_eq!(theirs[0], "26\t1", "tshark's own reading of 0x1a00");
    assert_eq!(filtered.0, filtered.1);
    assert_eq!(filtered.1.len(), 4, "{:?}", filtered.1);
}
