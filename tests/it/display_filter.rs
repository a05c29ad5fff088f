//! `read -Y`: the frames a display filter keeps are the frames tshark keeps with the same filter,
//! over the fixtures and the shared captures; `-c` stops reading; a filter that does not parse is
//! a usage error that says where.

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

/// The frame numbers tshark keeps with `-Y FILTER`.
fn theirs(capture: &Path, filter: &str) -> Vec<u64> {
    common::tshark::fields(capture, filter, &[], &[])
        .into_keys()
        .collect()
}

fn same_as_tshark(capture: &Path, filters: &[&str]) {
    for filter in filters {
        let (o, t) = (ours(capture, filter), theirs(capture, filter));
        assert_eq!(o, t, "{}: -Y '{filter}'", capture.display());
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
        ],
    );
    // The failover fixture: messages over TCP port 647, and the connections' other segments.
    same_as_tshark(
        &common::fixture("failover-all-types.pcap"),
        &["dhcpfo", "dhcpfo.type in {1..5}", "tcp && !dhcpfo"],
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
        ],
    );
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
    let out = read(&["-Y", "asap.mesage_type == 3"], &demo);
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("the display filter's field 'asap.mesage_type' was in no message"),
        "{stderr}"
    );
}
