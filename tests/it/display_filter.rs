//! `read -Y`: the frames a display filter keeps are the frames tshark 4.0 keeps with the same
//! filter, over the fixtures and the shared captures (tshark 4.0's `!=` "all not equal", `~=`/`!==`
//! "any not equal", `===` "all equal", fields compared with fields); `-c` stops reading; a filter
//! that does not parse or a value the frame's fields cannot take is a usage error that says where;
//! a value no occurrence of a tree field could be compared with is named at the end.

use crate::common;

use std::path::Path;
use std::process::Output;

/// `poolshark read --no-progress ARGS... CAPTURE`.
fn read(args: &[&str], capture: &Path) -> Output {
    common::poolshark()
        .args(["read", "--no-progress"])
        .args(args)
        .arg(capture)
        .output()
        .expect("run poolshark")
}

/// The frame numbers of a listing (its first column).
fn listed(out: &Output) -> Vec<u64> {
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().next()?.parse().ok())
        .collect()
}

/// The frame numbers of `read -Y FILTER`.
fn ours(capture: &Path, filter: &str) -> Vec<u64> {
    let out = read(&["-Y", filter], capture);
    assert!(out.status.success(), "{filter}: {out:?}");
    listed(&out)
}

/// The frame numbers Wireshark keeps with each of `filters` (one sharkd run: tshark's engine,
/// without its start-up per filter); fails the test when it refuses one.
fn theirs(capture: &Path, filters: &[&str]) -> Vec<Vec<u64>> {
    common::tshark::kept(capture, filters, &[])
        .into_iter()
        .zip(filters)
        .map(|(kept, f)| kept.unwrap_or_else(|e| panic!("tshark refuses -Y '{f}': {e}")))
        .collect()
}

fn same_as_tshark(capture: &Path, filters: &[&str]) {
    for (filter, t) in filters.iter().zip(theirs(capture, filters)) {
        assert_eq!(
            ours(capture, filter),
            t,
            "{}: -Y '{filter}'",
            capture.display()
        );
    }
}

/// The filter tests ask sharkd, tshark's engine in one process, rather than `tshark -Y` once per
/// filter (`common::tshark::kept`); here the two are compared on filters of each kind those tests
/// use: protocols, quantifiers, fields against fields, slices, functions, arithmetic, sets,
/// several messages in a TCP segment or an SCTP packet, and the frame's times. Refusals too.
#[test]
fn sharkd_keeps_what_tshark_keeps() {
    if !common::have_tshark() {
        return;
    }
    let mut cases = vec![(
        common::fixture("demo.pcap"),
        vec![
            "asap || dhcpv6",
            "asap.pool_handle_pool_handle[1:] == \"eb\"",
            "max(asap.pool_element_pe_identifier) == 0x00010003",
            "frame.len - ip.len == 14 && udp",
            "ip.src in {10.0.0.1, 10.1.0.0/16} && !sctp",
            "frame.time_delta_displayed < 0.001",
            "frame.time_relative > 1 && frame.time_delta > 0.005",
        ],
    )];
    if let Some(shared) = common::shared_dir() {
        let c = shared.join("captures");
        cases.push((
            c.join("dhcp-failover/isc-dhcpd-4.4.3-failover.pcap"),
            vec![
                "dhcpfo.type !== 3",
                "dhcpfo.type > dhcpfo.type",
                "tcp.stream == 1",
            ],
        ));
        cases.push((
            c.join("rserpool/rsplib-multi-pe.pcap"),
            vec![
                "asap.pool_element_pe_identifier ~= 0x00010003",
                "_ws.malformed",
            ],
        ));
        cases.push((
            c.join("dhcp-kea/kea-2.2-ha-load-balancing-v6.pcap"),
            vec!["dhcpv6.msgtype != 1 && ipv6.src < fe80::ff:fe00:102"],
        ));
    }
    for (capture, filters) in &cases {
        let sharkd = common::tshark::kept(capture, filters, &[]);
        for (filter, by_sharkd) in filters.iter().zip(sharkd) {
            let by_tshark: Vec<u64> = common::tshark::fields(capture, filter, &[], &[])
                .into_keys()
                .collect();
            assert!(
                !by_tshark.is_empty(),
                "{filter} keeps nothing: not a comparison"
            );
            assert_eq!(
                by_sharkd,
                Ok(by_tshark),
                "{}: -Y '{filter}'",
                capture.display()
            );
        }
    }
    let filters = [
        "ip.ttl > 3",
        "ip.ttl + 300 > 3",
        "max(frame.len, udp.port) > 0",
        "ip.ttl ==",
    ];
    for (filter, refusal) in filters.iter().zip(common::tshark::refusals(&filters)) {
        let out = std::process::Command::new("tshark")
            .args(["-n", "-c", "1", "-r"])
            .arg(common::fixture("demo.pcap"))
            .args(["-Y", filter])
            .output()
            .expect("run tshark");
        assert_eq!(
            refusal.is_some(),
            !out.status.success(),
            "-Y '{filter}': {refusal:?}"
        );
    }
}

#[test]
fn fixture_frames_filtered_as_tshark_does() {
    if !common::have_tshark() {
        return;
    }
    let demo = common::fixture("demo.pcap");
    same_as_tshark(
        &demo,
        &[
            "asap",
            "enrp",
            "dhcp",
            "dhcpv6",
            "sctp",
            "udp",
            "ip",
            "ipv6",
            "!asap && !enrp",
            "not (asap or enrp) and sctp",
            "asap.message_type == 3",
            "asap.message_type != 3 && asap",
            "asap.message_type eq 3 or enrp.message_type ge 5",
            "asap.message_type in {1..3, 12} && ip.dst in {10.0.0.1, 10.0.0.2}",
            "asap.pool_element_pe_identifier == 0x00010002",
            "asap.pool_handle_pool_handle contains 57:65:62",
            "asap.pool_handle_pool_handle == \"Web\"",
            "asap.pool_handle_pool_handle contains \"eb\" && !asap.pool_handle_pool_handle contains \"Db\"",
            "enrp.sender_servers_id == 0x11111111",
            "dhcp.hw.mac_addr == 02:c1:00:00:00:5a",
            "dhcp.ip.your == 10.32.0.0/16",
            "dhcp.option.dhcp == 5 || dhcpv6.msgtype == 7",
            "dhcp.option.dhcp in {1, 3}",
            "dhcp.option.dhcp not in {1, 3}",
            "dhcpv6.msgtype == \"Solicit\"",
            "dhcpv6.msgtype in {Solicit, 7}",
            "ip.src == 10.0.0.1",
            "ip.src == 0.0.0.0/0",
            "ip.dst > 10.1.0.3",
            "dhcp.hw.mac_addr contains c1:00",
            "ip.addr == 10.1.0.0/16 && asap",
            "udp.port == 547",
            "udp.dstport == 67",
            "frame.number > 100 && frame.number <= 150",
            "frame.len >= 300",
            // tshark 4.0's operators: != (ne) needs the field and no occurrence equal.
            "asap.message_type != 3",
            "asap.message_type ne 3",
            "asap.message_type ~= 3",
            "asap.message_type === 3",
            "asap.message_type !== 3",
            "ip.addr != 10.1.0.0/16",
            "ip.addr ~= 10.1.0.0/16",
            "udp.port != 547",
            "ip.dst in {10.0.0.0/31 .. 10.1.0.2}",
            // Fields with fields.
            "frame.len == frame.cap_len",
            "udp.srcport == udp.srcport",
            "sctp.srcport > sctp.dstport",
            "asap.pool_element_pe_identifier != asap.pool_element_pe_identifier",
            "asap.pool_element_pe_identifier ~= asap.pool_element_pe_identifier",
            "dhcp.ip.your == ip.dst",
        ],
    );
    // The failover fixture: messages over TCP port 647, and the connections' other segments.
    same_as_tshark(
        &common::fixture("failover-all-types.pcap"),
        &[
            "dhcpfo",
            "dhcpfo.type in {1..5}",
            "tcp && !dhcpfo",
            "dhcpfo.type != 3",
            "dhcpfo.type === 3",
            "dhcpfo.type == dhcpfo.type",
        ],
    );
}

#[test]
fn shared_frames_filtered_as_tshark_does() {
    let Some(kea) = common::shared_capture("dhcp-kea/kea-2.2-ha-load-balancing-v6.pcap") else {
        return;
    };
    if !common::have_tshark() {
        return;
    }
    same_as_tshark(
        &kea,
        &[
            "dhcpv6.msgtype == 1",
            "dhcpv6.msgtype == 7 && ipv6.src == fe80::ff:fe00:101",
            "dhcpv6.msgtype == Reply && dhcpv6.iaaddr.ip",
            "dhcpv6.duid.bytes == 00:02:00:00:09:bf:88:29:1a:09",
            "ipv6.addr == fe80::/10 && udp.srcport == 546",
            "ipv6.dst == ::/0 && ipv6.src < fe80::ff:fe00:102",
            "dhcpv6.xid >= 0x800000",
            // tshark 4.0: 1532 frames, the DHCPv6 ones (poolshark kept 2576 when != was !(==)).
            "dhcpv6.msgtype != 1",
            "dhcpv6.msgtype ne 1",
            "dhcpv6.msgtype all_ne 1",
            "dhcpv6.msgtype ~= 1",
            "dhcpv6.msgtype any_ne 1",
            "dhcpv6.msgtype === 1",
            "dhcpv6.msgtype all_eq 1",
            "dhcpv6.msgtype !== 1",
            "dhcpv6.msgtype != Solicit",
            "!(dhcpv6.msgtype == 1)",
            "dhcpv6.msgtype in {Solicit, Request} && ipv6.src != fe80::ff:fe00:101",
            "ipv6.addr != fe80::/10",
            "ipv6.addr ~= ff02::1:2",
            "ipv6.addr === fe80::/10",
            "ipv6.src > ipv6.dst",
            "udp.srcport != udp.dstport",
            "dhcpv6.iaaddr.ip != dhcpv6.iaaddr.ip",
            "frame.len > 100 && frame.len != 118",
            "frame.number >= frame.len",
        ],
    );
    let fo = common::shared_capture("dhcp-failover/isc-dhcpd-4.4.3-failover.pcap")
        .expect("the shared failover capture");
    same_as_tshark(
        &fo,
        &[
            "dhcpfo.type == 3",
            "dhcpfo.bindingstatus == 2 && dhcpfo.assignedipaddress == 192.0.2.110",
            "dhcpfo && tcp.port == 647",
            "tcp && !dhcpfo",
            "dhcp.option.dhcp == 2 && ip.src == 192.0.2.1",
            "dhcp.hw.mac_addr contains 00:00",
            // Several failover messages in a segment: the quantifiers differ (787, 183, 564, 406
            // frames).
            "dhcpfo.type == 3",
            "dhcpfo.type != 3",
            "dhcpfo.type ~= 3",
            "dhcpfo.type === 3",
            "dhcpfo.type !== 3",
            "!(dhcpfo.type == 3)",
            "dhcpfo.type not in {3, 4}",
            "ip.addr != 192.0.2.1",
            "ip.addr ~= 192.0.2.1",
            "ip.addr === 192.0.2.0/30",
            "ip.addr !== 192.0.2.0/30",
            "ip.addr > 192.0.2.0/24",
            "ip.addr in {192.0.2.0/31 .. 192.0.2.2}",
            "tcp.port != 647",
            "dhcp.secs != 0",
            "dhcp.option.dhcp != Request",
            "dhcp.option.type ~= 53",
            "dhcp.option.type === 53",
            "dhcpfo.assignedipaddress ~= 192.0.2.110",
            // Fields with fields: every pair of occurrences.
            "dhcpfo.type == dhcpfo.type",
            "dhcpfo.type != dhcpfo.type",
            "dhcpfo.type ~= dhcpfo.type",
            "dhcpfo.type === dhcpfo.type",
            "dhcpfo.type > dhcpfo.type",
            "dhcpfo.type < frame.number",
            "tcp.port === tcp.port",
            "tcp.port !== tcp.port",
            "tcp.srcport > tcp.dstport",
            "ip.addr < ip.addr",
            "dhcp.ip.your != dhcp.ip.client",
            "dhcp.ip.your == ip.dst",
            "frame.len == frame.cap_len",
            "udp.srcport == udp.srcport",
            // ARP, which the listing shows (223 frames).
            "arp",
            "arp || dhcpfo.type == 3",
            "!arp && !tcp && !udp",
        ],
    );
    let multi =
        common::shared_capture("rserpool/rsplib-multi-pe.pcap").expect("the shared RSPLIB capture");
    same_as_tshark(
        &multi,
        &[
            "enrp.message_type == 6 || asap.message_type == 2",
            "asap.pool_handle_pool_handle contains 52:52",
            "asap.pool_member_selection_policy_type == 0x00000002",
            "sctp && !asap && !enrp",
            // Handle resolution responses list several PEs.
            "asap.pool_element_pe_identifier != 0x00010003",
            "asap.pool_element_pe_identifier ~= 0x00010003",
            "asap.pool_element_pe_identifier === 0x00010003",
            "asap.pool_element_pe_identifier !== 0x00010003",
            "asap.pool_element_pe_identifier ~= asap.pool_element_pe_identifier",
            "asap.pool_element_pe_identifier > asap.pool_element_pe_identifier",
            "asap.pool_handle_pool_handle != \"RR-Pool\"",
            "sctp.srcport < sctp.dstport",
            "sctp.port != 3863",
            "enrp.sender_servers_id != enrp.receiver_servers_id",
        ],
    );
    for relay in [
        "dhcp/tcpdump_dhcpv6-mud.pcap",
        "dhcp/tcpdump_dhcpv6-vendor-specific-information.pcap",
    ] {
        // RELAY-FORW (12) around the client's message: two message types in a frame.
        let relay = common::shared_capture(relay).expect("a shared DHCPv6 relay capture");
        same_as_tshark(
            &relay,
            &[
                "dhcpv6.msgtype == 12",
                "dhcpv6.msgtype != 12",
                "dhcpv6.msgtype ~= 12",
                "dhcpv6.msgtype === 12",
                "dhcpv6.msgtype !== 12",
                "dhcpv6.msgtype ~= dhcpv6.msgtype",
            ],
        );
    }
}

#[test]
fn count_stops_reading_and_filter_json_keeps_whole_frames() {
    let demo = common::fixture("demo.pcap");
    let out = read(&["-c", "25", "-Y", "asap || enrp"], &demo);
    assert!(out.status.success());
    let frames = listed(&out);
    assert!(
        !frames.is_empty() && frames.iter().all(|&n| n <= 25),
        "{frames:?}"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("poolshark: 25 frames"), "{stderr}");
    // JSON: every message of each kept frame, none of the others.
    let out = read(&["--format", "jsonl", "-Y", "dhcp.option.dhcp == 2"], &demo);
    let records: Vec<serde_json::Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(!records.is_empty());
    for r in &records {
        assert_eq!(r["protocol"], "dhcpv4", "{r}");
        assert_eq!(r["fields"]["dhcp.option.dhcp"], 2, "{r}");
    }
}

#[test]
fn bad_filters_are_usage_errors_and_unknown_fields_are_named() {
    let demo = common::fixture("demo.pcap");
    let out = read(&["-Y", "asap.message_type == 3 && (enrp"], &demo);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("display filter at byte 31: expected ')' for the '(' at byte 26"),
        "{stderr}"
    );
    // Values the frame's own fields cannot take, and names that start with no protocol
    // poolshark knows (tshark refuses them too, and is case-sensitive).
    for (filter, error) in [
        (
            "ip.addr == 192.0.2.300",
            "display filter at byte 11: '192.0.2.300' is not an IPv4 address",
        ),
        ("ip.addr == 192.0.2.1/33", "at byte 11: the prefix '/33'"),
        (
            "ip.addr == fe80::1",
            "at byte 11: 'fe80::1' is not an IPv4 address",
        ),
        (
            "udp.port == 70000",
            "at byte 12: '70000' is outside udp.port's range",
        ),
        (
            "frame.number == 1.5",
            "at byte 16: '1.5' is not a whole number",
        ),
        (
            "frame.len == ip.src",
            "at byte 13: frame.len and ip.src cannot be compared",
        ),
        (
            "DHCP",
            "at byte 0: 'DHCP' is not a protocol poolshark knows",
        ),
        (
            "Dhcp.secs > 3",
            "at byte 0: 'Dhcp.secs' is neither a field nor a protocol",
        ),
        ("asap AND enrp", "at byte 5: unexpected 'AND'"),
    ] {
        poolshark_refuses(&demo, filter, error);
    }
    // A name no decoder gives is refused before reading, as tshark refuses it (exit 2).
    poolshark_refuses(
        &demo,
        "asap.mesage_type == 3",
        "at byte 0: 'asap.mesage_type' is neither a field nor a protocol name",
    );
    // A field of the catalogue that no message of the capture has is named at the end.
    let out = read(&["-Y", "asap.cookie == 3"], &demo);
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("the display filter's field 'asap.cookie' was in no message"),
        "{stderr}"
    );
}

/// A value that no occurrence of its tree field could be compared with (tshark refuses these
/// from its table of field types) is named at the end, with its byte and the field; the run
/// still ends with 0.
#[test]
fn values_that_cannot_apply_are_named_at_the_end() {
    let demo = common::fixture("demo.pcap");
    for (filter, said) in [
        (
            "dhcp.secs == foo",
            "the display filter's value 'foo' (byte 13) could not be compared with dhcp.secs",
        ),
        (
            "dhcp.secs == 1.5",
            "dhcp.secs holds whole numbers, and it is not one",
        ),
        ("dhcp.secs > 65536", "'65536' (byte 12)"),
        ("dhcp.secs > 65536", "outside 0..65535"),
        (
            "dhcp.option.dhcp == DHCPREQUEST",
            "'DHCPREQUEST' (byte 20) could not be compared with dhcp.option.dhcp",
        ),
        ("dhcp.option.dhcp == DHCPREQUEST", "'Request'"),
        ("dhcpv6.msgtype == Solicitt", "'Solicitt' (byte 18)"),
        ("dhcpv6.msgtype == Solicitt", "'Solicit'"),
        (
            "asap.pool_element_pe_identifier == ip.src",
            "compares asap.pool_element_pe_identifier with ip.src (byte 35)",
        ),
    ] {
        let out = read(&["-Y", filter], &demo);
        assert_eq!(out.status.code(), Some(0), "{filter}");
        assert!(out.stdout.is_empty(), "{filter}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(said), "{filter}: {stderr}");
    }
    // A filter that fits says nothing of the kind.
    let out = read(
        &[
            "-Y",
            "dhcp.option.dhcp == Request || dhcpv6.msgtype in {Solicit, 7}",
        ],
        &demo,
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!listed(&out).is_empty());
    assert!(!stderr.contains("could not be compared"), "{stderr}");
}

/// `-T fields -e F -Y ...`: a field in frames the filter dropped was still there; only a field
/// in no frame read is named.
#[test]
fn fields_notice_counts_frames_not_kept() {
    let Some(cov) = common::shared_capture("rserpool/asap-enrp-coverage.pcap") else {
        return;
    };
    let fields = |field: &str| {
        common::poolshark()
            .args(["read", "--no-progress", "-T", "fields", "-e", field])
            .args(["-Y", "frame.number < 5"])
            .arg(&cov)
            .output()
            .expect("run poolshark")
    };
    // Frames 53 and 55 carry it.
    let out = fields("enrp.pool_element_pe_identifier");
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), 4);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("was in no message"), "{stderr}");
    // A name no decoder gives is refused before reading, with tshark's exit code 1.
    let out = fields("enrp.pool_element_pe_identifierx");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("\tenrp.pool_element_pe_identifierx"),
        "{stderr}"
    );
}

/// `same_as_tshark`, and each filter keeps some frames but not every frame (so that a slice or
/// function read wrong cannot pass by keeping all or none).
fn same_as_tshark_and_selective(capture: &Path, filters: &[&str]) {
    let all = ours(capture, "frame.number").len();
    for (filter, t) in filters.iter().zip(theirs(capture, filters)) {
        let o = ours(capture, filter);
        assert_eq!(o, t, "{}: -Y '{filter}'", capture.display());
        assert!(
            !o.is_empty() && o.len() < all,
            "{}: -Y '{filter}' keeps {} of {all} frames",
            capture.display(),
            o.len()
        );
    }
}

/// tshark 4.0's slices (`f[i:j]`, `f[i-j]`, `f[i]`, `f[:j]`, `f[i:]`, negative offsets, lists)
/// and functions (`len`, `count`, `string`, `upper`, `lower`, `abs`, `max`, `min`) keep the
/// frames tshark keeps, on byte strings, text, hardware and IP addresses, numbers and the
/// frame's own fields; a slice past a field's end holds nothing, and so does a function of a
/// field the frame lacks (`count(f) == 0`).
#[test]
fn slices_and_functions_filter_as_tshark_does() {
    if !common::have_tshark() {
        return;
    }
    let demo = common::fixture("demo.pcap");
    same_as_tshark_and_selective(
        &demo,
        &[
            "len(asap.pool_handle_pool_handle) == 3",
            "count(asap.pool_element_pe_identifier) >= 2",
            "asap.pool_handle_pool_handle[0:1] == 57",
            "asap.pool_handle_pool_handle[-1] == \"b\"",
            "asap.pool_handle_pool_handle[1:] == \"eb\"",
            "asap.pool_handle_pool_handle[0:1,2] == \"Wb\"",
            "asap.pool_handle_pool_handle[-3--2] == 57:65",
            "asap.pool_handle_pool_handle[1-2] == 65:62",
            "asap.pool_handle_pool_handle[:2] contains 65",
            "string(asap.pool_element_pe_identifier) == \"65538\"",
            "max(asap.pool_element_pe_identifier) == 0x00010003",
            "min(asap.pool_element_pe_identifier) == 0x00010001",
            "abs(asap.message_type) == 3",
            "ip.src[0:2] == 0a:00",
            "ip.dst[-1] == 01",
            "ip.addr[0] == 0a",
            "dhcp.hw.mac_addr[-2:] == 00:5a",
            "len(asap.message_type) == 1",
            "len(frame.number) == 4 and len(udp.srcport) == 2",
            "string(ip.src) == \"10.0.0.1\"",
            "string(sctp.srcport) == \"3863\"",
            "string(asap.message_type) contains \"3\"",
            "string(dhcp.hw.mac_addr) contains \"02:c1\"",
            "count(asap) == 1",
            "abs(frame.time_relative) > 1",
            "count(asap.pool_element_pe_identifier) == count(asap.pool_element_pe_identifier)",
            "asap.pool_handle_pool_handle[0:2] == asap.pool_handle_pool_handle[0:2]",
        ],
    );
    // Nothing, in both (the bytes 10 are not the number 10; past the end; absent), or every
    // frame (the largest of one value).
    same_as_tshark(
        &demo,
        &[
            "ip.src[0] == 10",
            "asap.pool_handle_pool_handle[0:10] == 57:65:62",
            "asap.pool_handle_pool_handle[-5:] == 57:65:62",
            "count(asap.pool_element_pe_identifier) == 0",
            "frame.len == max(frame.len)",
        ],
    );
    let Some(zeek) = common::shared_capture("dhcp/zeek_dhcp.pcap") else {
        return;
    };
    same_as_tshark_and_selective(
        &zeek,
        &[
            "upper(dhcp.option.hostname) == \"BTEST.IS.COOL\"",
            "lower(dhcp.option.domain_name) == \"cmu.edu\"",
            "upper(dhcp.option.domain_name) contains \"CMU\"",
            "dhcp.option.hostname[0:5] == \"btest\"",
            "dhcp.option.hostname[-4:] == \"cool\"",
            "len(dhcp.option.hostname) == 13",
            "string(dhcp.option.router) == \"128.2.6.1\"",
            "max(dhcp.option.length) == 13",
            "count(dhcp.option.type) > 10",
            "max(dhcp.option.domain_name_server) == 128.2.1.11",
            "string(dhcp.id) == \"1984\"",
            "len(dhcp.option.domain_name_server) == 4",
        ],
    );
    // Booleans: no size of their own in tshark (and no string(): below).
    same_as_tshark(&zeek, &["len(dhcp.flags.bc) == 0", "len(dhcp.flags) == 2"]);
    let kea = common::shared_capture("dhcp-kea/kea-2.2-ha-load-balancing-v6.pcap")
        .expect("the shared folder is there");
    same_as_tshark_and_selective(
        &kea,
        &[
            "ipv6.dst[-1] == 02",
            "dhcpv6.duid.bytes[0:2] == 00:01",
            "len(dhcpv6.duid.bytes) > 8",
            "abs(dhcpv6.iaid.t1) > 0",
            "count(dhcpv6) == 1",
            "min(ipv6.addr) < fe80::ff:fe00:102",
        ],
    );
    let multi = common::shared_capture("rserpool/rsplib-multi-pe.pcap").expect("shared");
    same_as_tshark_and_selective(
        &multi,
        &[
            "asap.pool_handle_pool_handle[0:3] == \"RR-\"",
            "asap.pool_handle_pool_handle[-4:] == \"Pool\"",
            "len(asap.pool_handle_pool_handle) == 7",
            "min(asap.pool_element_pe_identifier) < 0x10000000",
            "string(asap.message_type) == \"5\"",
            "max(asap.pool_element_pe_identifier) == asap.pool_element_pe_identifier",
        ],
    );
    same_as_tshark_and_selective(
        &demo,
        &[
            // Arithmetic, constants and abs/max/min as arguments of abs, max and min; a
            // constant of max or min is there where the field is not.
            "abs(-frame.len) == 66",
            "abs(frame.len - 2000) == 1934",
            "abs({frame.len - 100}) == 34",
            "max(frame.len + 1, 3) == 67",
            "max(frame.len, 100) == 100",
            "min(frame.len, 60) == 60",
            "max(frame.len, 3, 4) == 66",
            "max(frame.len, frame.len + 1) == 67",
            "max(abs(frame.len), 100) > 100",
            "abs(abs(frame.len)) == 66",
            "max(udp.port, 3) == 3",
            "min(udp.port, 70) == 70",
            "max(udp.srcport, 3862) == 3862",
            "abs(-udp.port) > 0",
            "max(ip.ttl, -1) == -1",
            "min(ip.ttl - 100, 3) == -36",
            "max(frame.len - 100, -1) == -1",
            "min(-frame.len, 3) == -66",
            "min(frame.time_relative, 1.5) < 1",
            "max(asap.message_type, 3) == 3",
            "min(asap.message_type + 1, 3) == 3",
            "frame.len == abs(-66)",
            "frame.len == max(66, 3)",
            "frame.len > 1 + ip.ttl",
            // A negative value on the right of an unsigned one: its 64-bit two's complement.
            "frame.len & -1 == 66",
            "frame.len - 100 + -1 == -35",
            "-frame.len + -1 == -67",
            "-frame.len * -1 == 66",
        ],
    );
    // Kept by neither: an unsigned field and a negative value overflow in tshark 4.0.
    same_as_tshark(
        &demo,
        &[
            "ip.ttl + -1 == 63",
            "frame.len * -1 == -66",
            "ip.ttl - -1 == 65",
            "frame.len % -1 == 0",
            "abs(frame.len * -1) == 66",
        ],
    );
    let dhcpv4 = common::fixture("dhcpv4-all-types.pcap");
    same_as_tshark_and_selective(
        &dhcpv4,
        &[
            "dhcp.option.time_offset * -1 > 0",
            "dhcp.option.time_offset + -1 == -3601",
            "abs(dhcp.option.time_offset) == 3600",
            "max(dhcp.option.time_offset, -5000) == -3600",
            "min(dhcp.option.time_offset, 5) == 5",
        ],
    );
}

/// Fails the test unless Wireshark refuses every filter of `cases` (`tshark -Y` refuses a filter
/// before reading, so the capture does not matter).
fn tshark_refuses_all<C>(cases: &[(C, &str, &str)]) {
    let filters: Vec<&str> = cases.iter().map(|(_, f, _)| *f).collect();
    for (filter, refusal) in filters.iter().zip(common::tshark::refusals(&filters)) {
        assert!(refusal.is_some(), "tshark takes -Y '{filter}'");
    }
}

/// Fails the test unless `read -Y FILTER` refuses the filter on `capture` as a usage error (exit
/// 2, nothing listed) whose message contains `error`.
fn poolshark_refuses(capture: &Path, filter: &str, error: &str) {
    let out = read(&["-Y", filter], capture);
    assert_eq!(out.status.code(), Some(2), "{filter}");
    assert!(out.stdout.is_empty(), "{filter}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains(error), "{filter}: {stderr}");
}

/// What tshark 4.0 refuses in functions and arithmetic poolshark refuses too: a usage error at the
/// byte where the type is known before reading (the frame's numbers, ports, the lower layers' whole
/// numbers), else nothing kept and the reason said at the end (the messages' fields, whose types
/// poolshark learns from their bytes on the wire). Constants too big for the field whose type the
/// arithmetic or the function takes, a left side that starts with a value, arguments that are not
/// fields for len/count/string/upper/lower, slices in abs/max/min, and fields of different types in
/// max/min.
#[test]
fn refused_in_functions_and_arithmetic_as_tshark_refuses() {
    let demo = common::fixture("demo.pcap");
    let dhcpv4 = common::fixture("dhcpv4-all-types.pcap");
    let tshark = common::have_tshark();
    let refused_at_once = [
        (
            &demo,
            "frame.len + 5000000000 > 0",
            "at byte 12: '5000000000' is too big for frame.len",
        ),
        (
            &demo,
            "ip.ttl + 300 > 0",
            "at byte 9: '300' is too big for ip.ttl",
        ),
        (
            &demo,
            "ip.ttl * 256 > 0",
            "at byte 9: '256' is too big for ip.ttl",
        ),
        (
            &demo,
            "ip.ttl - 256 < 0",
            "at byte 9: '256' is too big for ip.ttl",
        ),
        (
            &demo,
            "ip.ttl & 256 == 0",
            "at byte 9: '256' is too big for ip.ttl",
        ),
        (
            &demo,
            "ip.ttl + -256 < 0",
            "at byte 9: '-256' is too big for ip.ttl",
        ),
        (
            &demo,
            "-ip.ttl + 300 > 0",
            "at byte 10: '300' is too big for ip.ttl",
        ),
        (
            &demo,
            "ip.ttl + frame.len > 300",
            "at byte 21: '300' is too big for ip.ttl",
        ),
        (
            &demo,
            "{ip.ttl + 1} + 300 > 0",
            "at byte 15: '300' is too big for ip.ttl",
        ),
        (
            &demo,
            "frame.len == ip.ttl + 300",
            "at byte 22: '300' is too big for ip.ttl",
        ),
        (
            &demo,
            "ip.ttl < 300 + ip.ttl",
            "at byte 9: '300' is too big for ip.ttl",
        ),
        (
            &demo,
            "udp.port < 70000 + ip.ttl",
            "at byte 11: '70000' is too big for udp.port",
        ),
        (
            &demo,
            "frame.len < 1 + ip.ttl + 5000000000",
            "at byte 25: '5000000000' is too big for frame.len",
        ),
        (
            &demo,
            "frame.len < 1 + {ip.ttl + 300}",
            "at byte 26: '300' is too big for ip.ttl",
        ),
        (
            &demo,
            "abs(ip.ttl + 300) > 0",
            "at byte 13: '300' is too big for ip.ttl",
        ),
        (
            &demo,
            "max(ip.ttl, 300) > 0",
            "at byte 12: '300' is too big for ip.ttl",
        ),
        (
            &demo,
            "max(frame.len, ip.ttl) > 0",
            "at byte 0: max() takes fields of one type",
        ),
        (
            &demo,
            "udp.port + 65536 > 0",
            "at byte 11: '65536' is too big for udp.port",
        ),
        (
            &demo,
            "udp.port + -65536 > 0",
            "at byte 11: '-65536' is too big",
        ),
        (
            &demo,
            "frame.len > udp.srcport * 70000",
            "at byte 26: '70000' is too big",
        ),
        (
            &demo,
            "udp.port + frame.len > 70000",
            "at byte 23: '70000' is too big",
        ),
        (
            &demo,
            "min(udp.port, 70000) > 0",
            "at byte 14: '70000' is too big",
        ),
        (
            &demo,
            "max(frame.len, 5000000000) > 0",
            "at byte 15: '5000000000' is too big",
        ),
        (
            &demo,
            "max(frame.len, 3.5) > 0",
            "at byte 15: '3.5' is not one of the whole numbers",
        ),
        (
            &demo,
            "max(frame.len, \"3\") > 0",
            "at byte 15: '3' is not one of the whole numbers",
        ),
        (
            &demo,
            "300 + ip.ttl > 0",
            "at byte 0: the left side of a test starts with the value '300'",
        ),
        (
            &demo,
            "{1 + ip.ttl} + frame.len > 0",
            "at byte 1: the left side of a test starts",
        ),
        (
            &demo,
            "abs(-3) > 0",
            "at byte 4: the left side of a test starts with the value '-3'",
        ),
        (
            &demo,
            "abs(3) == 3",
            "at byte 4: the left side of a test starts",
        ),
        (
            &demo,
            "max(3, frame.len) > 0",
            "at byte 4: the left side of a test starts",
        ),
        (
            &demo,
            "len(ip.src[0:2]) > 0",
            "at byte 0: len() takes fields, not a slice",
        ),
        (
            &demo,
            "len(frame.len + 1) > 0",
            "at byte 0: len() takes fields",
        ),
        (&demo, "count(3) > 0", "at byte 0: count() takes fields"),
        (
            &demo,
            "string(abs(frame.len)) == \"66\"",
            "at byte 0: string() takes fields",
        ),
        (
            &demo,
            "upper(string(ip.ttl)) == \"64\"",
            "at byte 0: upper() takes fields",
        ),
        (
            &demo,
            "upper(\"a\") == \"A\"",
            "at byte 0: upper() takes fields",
        ),
        (
            &demo,
            "abs(ip.src[0:2]) > 0",
            "at byte 0: abs() takes fields, arithmetic",
        ),
        (&demo, "max(ip.ttl[0], 3) > 0", "not a slice (ip.ttl[0])"),
        (
            &demo,
            "abs(-frame.len, 3) > 0",
            "at byte 0: abs() takes one field",
        ),
        (
            &demo,
            "max(frame.len, udp.port) > 0",
            "at byte 0: max() takes fields of one type",
        ),
        (
            &demo,
            "max(frame.len, udp.port + 0) > 0",
            "max() takes fields of one type",
        ),
    ];
    if tshark {
        tshark_refuses_all(&refused_at_once);
    }
    for (capture, filter, error) in refused_at_once {
        poolshark_refuses(capture, filter, error);
    }
    let refused_when_read = [
        (
            &demo,
            "dhcp.secs + 65536 > 0",
            "the constant '65536' (byte 12)",
        ),
        (
            &dhcpv4,
            "dhcp.option.time_offset + 3000000000 > 0",
            "the constant '3000000000' (byte 26)",
        ),
        (
            &dhcpv4,
            "dhcp.option.time_offset + -3000000000 < 0",
            "the constant '-3000000000' (byte 26)",
        ),
        // A constant first on the right takes the left side's type, here a message's field.
        (
            &dhcpv4,
            "dhcp.hops < 256 + ip.ttl",
            "the constant '256' (byte 12)",
        ),
        (
            &dhcpv4,
            "dhcp.secs > 70000 + ip.ttl",
            "the constant '70000' (byte 12)",
        ),
    ];
    if tshark {
        tshark_refuses_all(&refused_when_read);
    }
    for (capture, filter, said) in refused_when_read {
        let out = read(&["-Y", filter], capture);
        assert_eq!(out.status.code(), Some(0), "{filter}");
        assert!(out.stdout.is_empty(), "{filter}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(said), "{filter}: {stderr}");
    }
}

/// A slice or function that cannot apply to the frame's own fields, or that is not written as
/// one, is a usage error at its byte; one that no occurrence of a tree field could take is
/// named at the end.
#[test]
fn slices_and_functions_that_cannot_apply_say_so() {
    let demo = common::fixture("demo.pcap");
    for (filter, error) in [
        ("ip.src[0:x] == 1", "at byte 7: '0:x' is not a range"),
        (
            "ip.src[3-1] == 1",
            "at byte 7: '3-1' is not a range (it ends before it starts)",
        ),
        ("ip.src[0:2 == 1", "at byte 6: a '[' without its ']'"),
        ("ip.src[0] == zz", "at byte 13: 'zz' is not bytes"),
        (
            "udp[0:2] == 00:43",
            "'udp' is a protocol: a slice takes a field",
        ),
        ("len(dhcp) == 3", "does not keep a protocol's length"),
        ("upper(ip.src) == \"A\"", "ip.src holds IPv4 addresses"),
        ("frame.number[0] == 00", "frame.number holds whole numbers"),
        (
            "len(frame.time_relative) > 1",
            "frame.time_relative holds numbers",
        ),
        ("len(dhcp.id, dhcp.secs) == 1", "len() takes one field"),
        (
            "len(len(dhcp.id)) == 1",
            "takes fields, not a slice or a function's value",
        ),
        (
            "len(dhcp.id + 1) == 1",
            "takes fields, not a slice or a function's value, nor arithmetic",
        ),
        (
            "len(dhcp.id == 1",
            "at byte 12: expected ',' or ')' in len()",
        ),
        (
            "len() == 1",
            "at byte 4: expected a field in len(), found ')'",
        ),
        (
            "len(dhcp.id) == \"x\"",
            "at byte 16: 'x' is not a whole number",
        ),
        (
            "max(frame.len, ip.src) > 1",
            "max() takes fields of one kind",
        ),
        (
            // tshark checks every argument, not only the first and the last.
            "min(frame.len, ip.src, frame.number) > 1",
            "min() takes fields of one kind: frame.len holds whole numbers, ip.src IPv4",
        ),
        ("foo(dhcp.id) == 1", "'foo' is not a function"),
    ] {
        poolshark_refuses(&demo, filter, error);
    }
    for (filter, said) in [
        (
            "asap.message_type[0] == 03",
            "the display filter's asap.message_type[0] (byte 0) applied to no occurrence of \
             asap.message_type in any message read: asap.message_type holds whole numbers",
        ),
        (
            "upper(asap.pool_handle_pool_handle) == \"WEB\"",
            "holds bytes",
        ),
        ("max(asap.pool_handle_pool_handle) > 1", "holds bytes"),
        (
            "string(dhcp.flags.bc) == \"0\"",
            "dhcp.flags.bc holds booleans",
        ),
    ] {
        let out = read(&["-Y", filter], &demo);
        assert_eq!(out.status.code(), Some(0), "{filter}");
        assert!(out.stdout.is_empty(), "{filter}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(said), "{filter}: {stderr}");
    }
}

/// `matches` (`~`): a regular expression, in any case unless `(?-i)`, on text, byte strings and
/// hardware addresses (their bytes: `\x90` in the string is the byte), with the string escapes
/// and raw strings tshark 4.0 has; frames kept as tshark keeps them.
#[test]
fn matches_filters_as_tshark_does() {
    if !common::have_tshark() {
        return;
    }
    let demo = common::fixture("demo.pcap");
    same_as_tshark_and_selective(
        &demo,
        &[
            "asap.pool_handle_pool_handle matches \"^w\"",
            "asap.pool_handle_pool_handle matches \"(?-i)^W\"",
            "dhcp.hw.mac_addr matches \"\\x02\\xc1\"",
            "asap.pool_handle_pool_handle[1:] matches r\"^E\"",
        ],
    );
    same_as_tshark(&demo, &["asap.pool_handle_pool_handle matches \"(?-i)^w\""]);
    let Some(zeek) = common::shared_capture("dhcp/zeek_dhcp.pcap") else {
        return;
    };
    same_as_tshark_and_selective(
        &zeek,
        &[
            "dhcp.option.hostname matches \"^btest\"",
            "dhcp.option.hostname matches \"\\\\.IS\\\\.\"",
            "dhcp.option.hostname matches r\"\\.is\\.\"",
            "dhcp.option.hostname ~ \"cool$\"",
            "dhcp.option.domain_name matches \"edu$|^xyz\"",
            "dhcp.option.hostname matches \"\\x62test\"",
            "dhcp.option.hostname == \"\\x62test.is.cool\"",
            "upper(dhcp.option.hostname) matches \"^B.*L$\"",
            "dhcp.option.hostname[0:2] matches \"bt\"",
            "not dhcp.option.hostname matches \"^btest\"",
        ],
    );
    same_as_tshark(
        &zeek,
        &[
            "dhcp.hw.mac_addr matches \"90\"",
            "dhcp.hw.mac_addr matches \"\\x90\\xb1\"",
        ],
    );
    for (filter, error) in [
        (
            "dhcp.option.hostname matches \"[\"",
            "at byte 29: not a regular expression",
        ),
        (
            "dhcp.option.hostname matches 1",
            "at byte 29: 'matches' takes a regular expression",
        ),
        (
            "dhcp.option.hostname matches \"\\.\"",
            "at byte 30: '\\.' is not an escape",
        ),
        (
            "ip.src matches \"1\"",
            "at byte 7: 'matches' does not apply to ip.src",
        ),
    ] {
        poolshark_refuses(&zeek, filter, error);
    }
    let out = read(&["-Y", "dhcp.id matches \"1\""], &zeek);
    assert_eq!(out.status.code(), Some(0));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("'matches' does not apply to dhcp.id, which holds whole numbers"),
        "{stderr}"
    );
}

/// tshark 4.0's arithmetic (`+ - * / %`, `&`, unary minus, braces) on either side of a
/// comparison, and alone as a test of not zero, keeps the frames tshark keeps: on the frame's
/// numbers and times, addresses, hardware addresses, ports, the lower layers' and the messages'
/// fields, and fields that occur several times. (tshark 4.0's `&` on IPv6 addresses holds for
/// any address, a fault of its own that poolshark does not copy: not compared here.)
#[test]
fn arithmetic_filters_as_tshark_does() {
    if !common::have_tshark() {
        return;
    }
    let demo = common::fixture("demo.pcap");
    same_as_tshark_and_selective(
        &demo,
        &[
            "asap.message_type & 0x01",
            "asap.message_type + 1 == 4",
            "asap.message_type * 2 > 5",
            "frame.len - ip.len == 14",
            "ip.src & 255.255.255.0 == 10.1.0.0",
            "udp.srcport % 2 == 1",
            "-frame.len < -200",
            "frame.len / 100 == 1",
            "{frame.len & 0xf} + 1 == 5",
            "frame.len & 1 + 1 == 2",
            "ip.ttl - 1 > 62 && frame.len & 1",
            "eth.dst & 01:00:00:00:00:00",
            "udp.length - 8 > 100",
            "udp.srcport - udp.dstport == 1",
            "frame.number % 10 == 0",
            "not frame.number & 3",
            "frame.len > ip.len + 13 + frame.number / 100",
            "len(ip.src) * 8 == 32",
            "frame.time_relative + 1 > 3",
            // On the right, a constant first is read in the left side's type (frame.len's 32
            // bits, not ip.ttl's 8), and so are the constants after it; the result is not cut
            // to ip.ttl's 8 bits either.
            "frame.len < 300 + ip.ttl",
            "frame.len != 300 + ip.ttl",
            "frame.len < 300 + ip.ttl + 1000 - 1300",
            "frame.len == {300 + ip.ttl} - 22",
            "ip.len > 200 + 2 * ip.ttl",
            "frame.len < 2 + 300 * ip.ttl - 19000",
        ],
    );
    let (Some(failover), Some(kea)) = (
        common::shared_capture("dhcp-failover/isc-dhcpd-4.4.3-failover.pcap"),
        common::shared_capture("dhcp-kea/kea-2.2-ha-load-balancing-v6.pcap"),
    ) else {
        return;
    };
    same_as_tshark_and_selective(
        &failover,
        &[
            "tcp.flags & 0x02",
            "tcp.flags & 0x12 == 0x12",
            "tcp.flags & 0x12 == 0x10",
            "tcp.flags & tcp.flags",
            "tcp.srcport - tcp.dstport > 0",
            "udp.port + udp.port == 135",
            "dhcp.option.type + 0 == 53",
            "dhcp.option.type == 50 + 3",
            "ip.src & 255.255.255.254 == 192.0.2.0",
            "frame.len / 2 * 2 == frame.len",
            "frame.len - 74",
            // A constant first on the right read in the type of a message's field (16 bits),
            // not in ip.ttl's.
            "dhcp.secs < 300 + ip.ttl",
            "dhcp.secs + 1 < 65000 + ip.ttl",
        ],
    );
    same_as_tshark_and_selective(
        &kea,
        &[
            "dhcpv6.msgtype & 1",
            "dhcpv6.msgtype - 1 == 0",
            "frame.time_delta + frame.time_delta > 1",
            "-frame.time_relative < -10",
            "frame.time_relative - frame.time_delta > 10",
            "frame.len / 100 == 1",
        ],
    );
}

/// The lower layers' whole-number fields have the types Wireshark gives them: a value beyond a
/// field's type is a usage error at its byte before reading, as tshark refuses it ("too big for
/// this field"), and one within it is taken, even where it is beyond the bits on the wire
/// (`mpls.ttl` is a 32-bit field, `vlan.id` a 16-bit one).
#[test]
fn lower_layer_values_beyond_their_type_are_refused_before_reading() {
    let demo = common::fixture("demo.pcap");
    let refused = [
        (
            &demo,
            "ip.ttl == 256",
            "at byte 10: '256' is too big for ip.ttl",
        ),
        (
            &demo,
            "ip.ttl > 300",
            "at byte 9: '300' is too big for ip.ttl",
        ),
        (&demo, "ip.ttl == 0x100", "at byte 10: '0x100' is too big"),
        (&demo, "ip.ttl == -256", "at byte 10: '-256' is too big"),
        (&demo, "ip.ttl in {1..300}", "'300' is too big for ip.ttl"),
        (
            &demo,
            "tcp.seq == 4294967296",
            "at byte 11: '4294967296' is too big for tcp.seq",
        ),
        (
            &demo,
            "udp.length >= 65536",
            "'65536' is too big for udp.length",
        ),
        (
            &demo,
            "vxlan.vni == 16777216",
            "'16777216' is too big for vxlan.vni",
        ),
        (
            &demo,
            "ip.dsfield.dscp == 300",
            "'300' is too big for ip.dsfield.dscp",
        ),
    ];
    let taken = [
        "ip.ttl == 255",
        "ip.ttl == -1",
        "vlan.id == 5000",
        "mpls.ttl == 300",
        "tcp.flags.syn == 2",
        "vxlan.vni == 16777215",
        "ip.dsfield.dscp == 100",
    ];
    if common::have_tshark() {
        tshark_refuses_all(&refused);
        for (filter, refusal) in taken.iter().zip(common::tshark::refusals(&taken)) {
            assert_eq!(refusal, None, "-Y '{filter}'");
        }
    }
    for (capture, filter, error) in refused {
        poolshark_refuses(capture, filter, error);
    }
    for filter in taken {
        let out = read(&["-Y", filter], &demo);
        assert_eq!(out.status.code(), Some(0), "{filter}: {out:?}");
    }
}

/// The types the lower layers' whole-number fields are checked with before reading
/// (`layers::largest`) are Wireshark's, field by field (`tshark -G fields`): every unsigned
/// integer of 8, 16, 24 or 32 bits among the fields the trees hold, and nothing else.
#[test]
fn the_lower_layers_whole_number_types_are_wiresharks() {
    if !common::have_tshark() {
        return;
    }
    let types = common::tshark::registered();
    let mut checked = 0;
    for name in poolshark::dissect::layers::FIELDS {
        let ty = types.get(*name).map_or("(not a field)", |t| t.as_str());
        let want = match ty {
            "FT_UINT8" => Some(u64::from(u8::MAX)),
            "FT_UINT16" => Some(u64::from(u16::MAX)),
            "FT_UINT24" => Some((1 << 24) - 1),
            "FT_UINT32" => Some(u64::from(u32::MAX)),
            _ => None,
        };
        checked += usize::from(want.is_some());
        assert_eq!(
            poolshark::dissect::layers::largest(name),
            want,
            "{name}: {ty}"
        );
    }
    assert!(checked > 90, "{checked} whole-number fields");
}
