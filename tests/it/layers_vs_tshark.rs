//! The lower layers' fields (`poolshark::dissect::layers`: Ethernet, 802.1Q, IPv4, IPv6, UDP,
//! TCP, SCTP, ICMP, ARP, GRE, VXLAN, Geneve, MPLS, `frame.protocols`) against tshark's: `read -T
//! fields -e ...` byte for byte over every fixture, every shared capture and the tunnelled
//! rewrites of two captures ([`common::encapsulations`]); then display filters on them keep the
//! frames `tshark -Y` keeps. Where the two differ, the difference is listed below with its reason;
//! any other fails the test.

use crate::common;

use std::collections::BTreeMap;
use std::path::Path;

/// Every field of the layers' trees with a value (the protocols' own lines are left out: tshark
/// writes their header lines with names it resolves from its table of manufacturers).
const FIELDS: &[&str] = &[
    "eth.src",
    "eth.dst",
    "eth.addr",
    "eth.type",
    "vlan.id",
    "vlan.priority",
    "vlan.dei",
    "vlan.etype",
    "ieee8021ad.id",
    "ieee8021ad.priority",
    "ieee8021ad.dei",
    "sll.pkttype",
    "sll.hatype",
    "sll.halen",
    "sll.src.eth",
    "sll.etype",
    "ip.version",
    "ip.hdr_len",
    "ip.dsfield",
    "ip.dsfield.dscp",
    "ip.dsfield.ecn",
    "ip.len",
    "ip.id",
    "ip.flags",
    "ip.flags.rb",
    "ip.flags.df",
    "ip.flags.mf",
    "ip.frag_offset",
    "ip.ttl",
    "ip.proto",
    "ip.checksum",
    "ipv6.version",
    "ipv6.tclass",
    "ipv6.flow",
    "ipv6.plen",
    "ipv6.nxt",
    "ipv6.hlim",
    "udp.length",
    "udp.checksum",
    "tcp.hdr_len",
    "tcp.flags",
    "tcp.flags.syn",
    "tcp.flags.ack",
    "tcp.flags.fin",
    "tcp.flags.reset",
    "tcp.flags.push",
    "tcp.flags.urg",
    "tcp.window_size_value",
    "tcp.checksum",
    "tcp.urgent_pointer",
    "tcp.len",
    "tcp.seq_raw",
    "tcp.ack_raw",
    "sctp.verification_tag",
    "sctp.checksum",
    "sctp.chunk_type",
    "sctp.chunk_flags",
    "sctp.chunk_length",
    "sctp.data_tsn_raw",
    "sctp.data_sid",
    "sctp.data_ssn",
    "sctp.data_payload_proto_id",
    "sctp.data_e_bit",
    "sctp.data_b_bit",
    "sctp.data_u_bit",
    "sctp.data_i_bit",
    "sctp.sack_cumulative_tsn_ack_raw",
    "sctp.sack_a_rwnd",
    "sctp.init_initiate_tag",
    "sctp.init_credit",
    "sctp.init_nr_out_streams",
    "sctp.init_nr_in_streams",
    "sctp.init_initial_tsn",
    "sctp.initack_initiate_tag",
    "sctp.initack_credit",
    "sctp.initack_nr_out_streams",
    "sctp.initack_nr_in_streams",
    "sctp.initack_initial_tsn",
    "icmp.type",
    "icmp.code",
    "icmp.checksum",
    "icmpv6.type",
    "icmpv6.code",
    "icmpv6.checksum",
    "arp.hw.type",
    "arp.proto.type",
    "arp.hw.size",
    "arp.proto.size",
    "arp.opcode",
    "arp.src.hw_mac",
    "arp.src.proto_ipv4",
    "arp.dst.hw_mac",
    "arp.dst.proto_ipv4",
    "gre.flags_and_version",
    "gre.proto",
    "gre.checksum",
    "gre.key",
    "gre.sequence_number",
    "vxlan.flags",
    "vxlan.vni",
    "geneve.version",
    "geneve.proto_type",
    "geneve.vni",
    "mpls.label",
    "mpls.exp",
    "mpls.bottom",
    "mpls.ttl",
    "frame.protocols",
    "frame.section_number",
    "frame.interface_id",
    "frame.interface_name",
    "frame.interface_description",
    "frame.comment",
    "frame.encap_type",
    "frame.p2p_dir",
    "frame.packet_flags",
];

/// The application protocols poolshark decodes, as `frame.protocols` names them.
const OURS: &[&str] = &["asap", "enrp", "dhcp", "dhcpv6", "dhcpfo"];

/// (capture file name, field, why poolshark's column differs from tshark's).
const KNOWN: &[(&str, &str, &str)] = &[
    (
        "rserpool-tcp.pcap",
        "frame.protocols",
        "tshark 4.0 does not decode ENRP over TCP (it has no TCP port for it): its segments are \
         'data' there",
    ),
    (
        "zeek_dhcp.pcap",
        "frame.protocols",
        "tshark decodes option 43's Aruba vendor data as a second DHCP item ('dhcp:dhcp')",
    ),
    (
        "gopacket_gopacket_be_test202.pcapng",
        "frame.interface_name",
        "tshark 4.0 names an interface of a later pcapng section after the first section's \
         interface of the same index: section 2's interface 0 is 'silly ethernet interface 2', \
         tshark says 'eth0'",
    ),
];

/// Fields of the Cisco FabricPath capture's IP packets that tshark leaves out: its FabricPath
/// dissector takes the frame's last 4 bytes for an FCS, which the capture does not have (each
/// packet ends where its IP length says, or in the Ethernet padding): it cuts the UDP, TCP and
/// SCTP headers 4 bytes short and leaves out the fields in those bytes.
const FABRICPATH_FCS: &[&str] = &[
    "udp.length",
    "udp.checksum",
    "tcp.len",
    "tcp.checksum",
    "tcp.urgent_pointer",
    "sctp.verification_tag",
    "sctp.checksum",
];

/// Encapsulations whose frames differ from tshark's, and why.
const KNOWN_ENCAPSULATIONS: &[(&str, &str)] = &[(
    "vxlan-fragmented",
    "tshark reassembles the outer IPv4 fragments and decodes the tunnel in the last one; the \
     layers are decoded one frame at a time, so a fragment's payload is 'data' in every frame",
)];

/// Whether tshark's `frame.protocols` is poolshark's followed by protocols poolshark does not
/// decode (`data`, NetBIOS, CalcApp, ...): a payload poolshark leaves alone.
pub(crate) fn tshark_goes_further(ours: &str, theirs: &str) -> bool {
    theirs
        .strip_prefix(ours)
        .and_then(|rest| rest.strip_prefix(':'))
        .is_some_and(|rest| rest.split(':').all(|p| !OURS.contains(&p)))
}

/// Compares every column of [`FIELDS`]; fails on a difference not known. Returns (frames,
/// fields that agreed on every frame, frames whose payload tshark decodes further).
fn compare(
    capture: &Path,
    file: &str,
    encapsulation: Option<&str>,
    extra: &[&str],
) -> (usize, usize, usize) {
    let args: Vec<&str> = extra
        .iter()
        .copied()
        .chain(FIELDS.iter().flat_map(|f| ["-e", f]))
        .collect();
    let (ours, theirs) = common::tshark::both_fields(capture, &args);
    assert_eq!(ours.len(), theirs.len(), "{file}: lines (one per frame)");
    let mut differ: BTreeMap<&str, (usize, String, String)> = BTreeMap::new();
    let mut further = 0;
    for (a, b) in ours.iter().zip(&theirs) {
        let (a, b): (Vec<&str>, Vec<&str>) = (a.split('\t').collect(), b.split('\t').collect());
        assert_eq!(a.len(), FIELDS.len(), "{file}: poolshark's columns");
        assert_eq!(b.len(), FIELDS.len(), "{file}: tshark's columns");
        for ((name, x), y) in FIELDS.iter().zip(&a).zip(&b) {
            if x == y {
                continue;
            }
            if *name == "frame.protocols" && tshark_goes_further(x, y) {
                further += 1;
                continue;
            }
            let e = differ
                .entry(name)
                .or_insert_with(|| (0, x.to_string(), y.to_string()));
            e.0 += 1;
        }
    }
    let known_encapsulation = encapsulation
        .and_then(|e| KNOWN_ENCAPSULATIONS.iter().find(|(n, _)| *n == e))
        .is_some();
    let unexplained: Vec<String> = differ
        .iter()
        .filter(|(name, _)| {
            let fcs_misread =
                file == "zeek_zeek_cisco-fabric-path.pcap" && FABRICPATH_FCS.contains(name);
            let known = KNOWN.iter().any(|(c, f, _)| *c == file && f == *name);
            !(known_encapsulation || known || fcs_misread)
        })
        .map(|(name, (n, x, y))| format!("{name}: {n} frames, e.g. ours {x:?}, tshark {y:?}"))
        .collect();
    let within = encapsulation.map_or(String::new(), |e| format!(" in {e}"));
    assert!(
        unexplained.is_empty(),
        "{file}{within}: the layers' fields differ from tshark's:\n{}",
        unexplained.join("\n")
    );
    let agreed = FIELDS.len() - differ.len();
    eprintln!(
        "{file}{within}: {} frames, {agreed} of {} layer fields as tshark writes them on every \
         frame ({} known differences; {further} frames whose payload tshark decodes further)",
        ours.len(),
        FIELDS.len(),
        differ.len()
    );
    (ours.len(), agreed, further)
}

#[test]
fn layer_fields_are_tsharks_in_every_capture() {
    if !common::have_tshark() {
        return;
    }
    let mut caps = common::captures_under(&common::fixture(""));
    caps.retain(|p| !p.components().any(|c| c.as_os_str() == "fuzz"));
    let fixtures = caps.len();
    if let Some(shared) = common::shared_dir() {
        caps.extend(common::captures_under(&shared.join("captures")));
    }
    let (mut frames, mut fields) = (0, 0);
    for cap in &caps {
        let (n, agreed, _) = compare(cap, common::file_name(cap), None, &[]);
        frames += n;
        fields += agreed;
    }
    eprintln!(
        "{} captures ({fixtures} fixtures), {frames} frames: {fields} (capture, field) columns \
         as tshark writes them",
        caps.len()
    );
    assert!(caps.len() >= 10, "only {} captures", caps.len());
}

#[test]
fn layer_fields_are_tsharks_in_tunnels() {
    if !common::have_tshark() {
        return;
    }
    let mut caps = vec![
        common::fixture("demo.pcap"),
        common::fixture("rserpool-sctp-chunks.pcap"),
    ];
    if let Some(dhcp) = common::shared_capture("dhcp/tcpdump_dhcp-rfc4388.pcap") {
        caps.push(dhcp);
    }
    for cap in caps {
        for (name, layers, fragment) in common::encapsulations() {
            let t = common::tunnelled(&cap, &layers, fragment, name);
            let (_, agreed, _) = compare(&t, common::file_name(&cap), Some(name), &[]);
            std::fs::remove_file(&t).ok();
            let known = KNOWN_ENCAPSULATIONS.iter().any(|(n, _)| *n == name);
            assert!(
                known || agreed >= 60,
                "{} in {name}: only {agreed} agree",
                common::file_name(&cap)
            );
        }
    }
}

/// VXLAN on Linux's old port 8472 and Geneve on VXLAN's 4789, with the same decode-as rule given
/// to both (tshark's `-d` spelling, which poolshark takes too): every layer field as tshark
/// writes it, the inner layers included.
#[test]
fn layer_fields_are_tsharks_in_tunnels_on_decode_as_ports() {
    if !common::have_tshark() {
        return;
    }
    let mut caps = vec![common::fixture("demo.pcap")];
    if let Some(dhcp) = common::shared_capture("dhcp/tcpdump_dhcp-rfc4388.pcap") {
        caps.push(dhcp);
    }
    for cap in caps {
        for (name, layer, rule) in common::tunnels_on_decode_as_ports() {
            let t = common::tunnelled(&cap, std::slice::from_ref(&layer), None, name);
            let (frames, agreed, _) =
                compare(&t, common::file_name(&cap), Some(name), &["-d", rule]);
            // The inner layers are there: tshark shows the tunnel in every IP frame of the
            // original (the DHCP capture's ARP frames stay as they were).
            let (ours, theirs) =
                common::tshark::both_fields(&t, &["-d", rule, "-e", "frame.protocols"]);
            std::fs::remove_file(&t).ok();
            let (_, original) = common::tshark::both_fields(&cap, &["-e", "frame.protocols"]);
            let ip = original
                .iter()
                .filter(|p| p.contains(":ip:") || p.contains(":ipv6:"))
                .count();
            let tunnel = name.split('-').next().unwrap_or_default();
            let inside = theirs
                .iter()
                .filter(|p| p.contains(&format!(":{tunnel}:eth:")))
                .count();
            assert!(
                ip > 0 && inside == ip,
                "{name}: tshark decodes the tunnel in {inside} frames, the original has {ip} IP \
                 frames; e.g. {:?}",
                theirs.first()
            );
            assert_eq!(ours, theirs, "{name}: frame.protocols");
            assert!(
                agreed >= 60,
                "{} in {name}: only {agreed} of the fields agree on {frames} frames",
                common::file_name(&cap)
            );
        }
    }
}

/// Display filters on the layers' fields: each keeps, in each capture, the frames tshark keeps.
const FILTERS: &[&str] = &[
    "eth.src == 02:00:0a:00:00:01",
    "eth.dst == ff:ff:ff:ff:ff:ff",
    "eth.addr == 02:00:0a:00:00:02 && sctp",
    "eth.type == 0x86dd",
    "eth.src[0:3] == 02:00:0a",
    "eth && !ip",
    "frame.protocols contains \"enrp\"",
    "frame.protocols matches \"sctp:(asap|enrp)$\"",
    "frame.protocols == \"eth:ethertype:ip:sctp\"",
    "ip.ttl < 64",
    "ip.ttl == 64 && udp",
    "ip.flags.df == 1",
    "ip.flags == 0x02",
    "ip.dsfield.dscp == 48",
    "ip.dsfield != 0",
    "ip.len > 300",
    "ip.id == 0",
    "ip.proto in {1, 17}",
    "ip.hdr_len == 20 && ip.len < 60",
    "ipv6.hlim == 255",
    "ipv6.plen < 100",
    "ipv6.nxt == 58",
    "ipv6.flow != 0",
    "udp.length > 300",
    "udp.checksum == 0",
    "tcp.flags.syn == 1",
    "tcp.flags.ack == 1 && tcp.len == 0",
    "tcp.flags == 0x0018",
    "tcp.window_size_value < 1000",
    "tcp.len > 100",
    "tcp.flags.fin == 1 || tcp.flags.reset == 1",
    "sctp.chunk_type == 3",
    "sctp.chunk_type == 0 && sctp.chunk_type == 3",
    "sctp.data_payload_proto_id == 11",
    "sctp.data_payload_proto_id == 12",
    "sctp.data_payload_proto_id in {11, 12}",
    "sctp.chunk_flags == 0x03",
    "sctp.data_b_bit == 1 && sctp.data_e_bit == 0",
    "sctp.verification_tag == 0",
    "sctp.sack_a_rwnd < 100000",
    "sctp.chunk_length > 64",
    "count(sctp.chunk_type) > 2",
    "sctp.data_sid == 1",
    "icmp.type == 3",
    "icmp",
    "icmpv6.type == 135",
    "arp.opcode == 2",
    "arp.src.proto_ipv4 == 192.168.0.0/16",
    "vlan.id == 100",
    "vlan",
    "gre.key == 7",
    "gre.proto == 0x6558",
    "vxlan.vni == 3",
    "mpls.label == 20 && mpls.bottom == 1",
    "mpls.ttl == 64",
    // The joined file's interfaces: one per capture.
    "frame.interface_id in {1, 3} && udp",
    "frame.encap_type == 1 && frame.interface_id > 4 && ip.ttl < 64",
];

#[test]
fn display_filters_on_layer_fields_keep_tsharks_frames() {
    if !common::have_tshark() {
        return;
    }
    let mut caps = vec![
        common::fixture("demo.pcap"),
        common::fixture("rserpool-sctp-chunks.pcap"),
        common::fixture("failover-all-types.pcap"),
    ];
    for rel in [
        "dhcp/tcpdump_dhcp-rfc4388.pcap",
        "dhcp/tcpdump_eapon1.pcap",
        "dhcp/zeek_dhcpv6-freebsd-ntpservers.pcap",
        "rserpool/rsplib-enrp-errors.pcap",
    ] {
        if let Some(c) = common::shared_capture(rel) {
            caps.push(c);
        }
    }
    let mut tunnels = Vec::new();
    for (name, layers, fragment) in common::encapsulations() {
        if matches!(name, "nested4" | "gre-eth-qinq") {
            // Named apart from the other tests' rewrites of the same capture (they run at once).
            let t = common::tunnelled(&common::fixture("demo.pcap"), &layers, fragment, name);
            let own = t.with_extension("filters.pcap");
            std::fs::rename(&t, &own).expect("rename");
            tunnels.push(own);
        }
    }
    caps.extend(tunnels.iter().cloned());
    let unselective = common::tshark::filters_keep_tsharks_frames(
        &caps,
        FILTERS,
        "layers",
        common::tshark::Passes::Two,
    );
    let selective = FILTERS.len() - unselective.len();
    for t in tunnels {
        std::fs::remove_file(t).ok();
    }
    eprintln!(
        "{} display filters on the layers' fields keep tshark's frames in {} captures; {selective} \
         keep some frames but not all of one",
        FILTERS.len(),
        caps.len()
    );
    assert!(
        selective >= 30,
        "only {selective} filters are selective: not {unselective:?}"
    );
}

#[test]
fn verbose_shows_the_layers_before_the_messages() {
    let out = common::poolshark()
        .args(["read", "--no-progress", "-V", "-c", "1"])
        .arg(common::fixture("demo.pcap"))
        .output()
        .expect("poolshark read");
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8_lossy(&out.stdout);
    let at = |s: &str| {
        text.find(s)
            .unwrap_or_else(|| panic!("no {s:?} in\n{text}"))
    };
    let frame = at("    Frame 1: 66 bytes on wire (528 bits), 66 bytes captured (528 bits)\n");
    // As `tshark -n -V` writes it (poolshark resolves no names).
    let eth = at("    Ethernet II, Src: 02:00:0a:00:00:01, Dst: ");
    let ip = at("    Internet Protocol Version 4, Src: 10.0.0.1, Dst: 10.0.0.2\n");
    let sctp =
        at("    Stream Control Transmission Protocol, Src Port: 9901 (9901), Dst Port: 9901");
    assert!(frame < eth && eth < ip && ip < sctp, "{text}");
    at("        [Protocols in frame: eth:ethertype:ip:sctp]\n");
    at("            Chunk type: INIT (1)\n");
}

#[test]
fn names_still_unknown_are_refused_with_what_is_known() {
    let out = common::read_fields()
        .args(["-e", "sctp.forward_tsn_tsn"])
        .arg(common::fixture("demo.pcap"))
        .output()
        .expect("poolshark read");
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("'sctp.forward_tsn_tsn' is not kept")
            && err.contains("sctp.data_tsn_raw, sctp.data_sid"),
        "{err}"
    );
}
