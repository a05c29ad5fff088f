//! Tests of the dhcpv4 display tree (`super`): written straight and as a tree alike.

use super::*;

/// A DHCP message of `options` (code, length, data, as on the wire), after END `after`.
fn with_options(options: &[u8], after: &[u8]) -> Vec<u8> {
    let mut b = Message::new(1, 0x3d1d, [0, 0x0b, 0x82, 1, 0xfc, 0x42]).emit();
    b.pop(); // END
    b.extend_from_slice(options);
    b.push(255);
    b.extend_from_slice(after);
    b
}

/// Messages with every kind of option, suboption and header the tree has a shape for, well
/// and badly formed.
fn every_kind() -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    // Every code, with data of a few sizes: the typed shapes, and the wrong sizes that stay
    // raw (an address list of 9 bytes, a u16 of 4, ...).
    for data in [
        &b"\x01\x02\x03\x04"[..],
        b"\x00\x01",
        b"\x05",
        b"\x01abcdefgh",
        b"",
    ] {
        let mut opts = Vec::new();
        for c in 1..=254u8 {
            opts.push(c);
            opts.push(data.len() as u8);
            opts.extend_from_slice(data);
        }
        out.push(with_options(&opts, &[0, 0, 0]));
    }
    let mac = [1, 2, 3, 4, 5, 6];
    let mut opts = vec![53, 1, 3, 0, 0, 0];
    // Option 61: an Ethernet address; RFC 4361's IAID and DUID-LLT, -EN, -LL and another
    // DUID type; type 0 (text), another type, and nothing.
    opts.extend_from_slice(&[61, 7, 1]);
    opts.extend_from_slice(&mac);
    let duids: [&[u8]; 5] = [
        &[0, 1, 0, 1, 0, 0, 0, 9, 1, 2, 3, 4, 5, 6],
        &[0, 2, 0, 0, 0, 9, 0xaa, 0xbb],
        &[0, 3, 0, 1, 1, 2, 3, 4, 5, 6],
        &[0, 9, 1, 2],
        &[0, 1, 0, 1],
    ];
    for duid in duids {
        opts.extend_from_slice(&[61, (5 + duid.len()) as u8, 255, 0, 0, 0, 7]);
        opts.extend_from_slice(duid);
    }
    opts.extend_from_slice(&[61, 4, 0, b'a', b'b', b'c', 61, 3, 7, 1, 2, 61, 0]);
    // Option 82: each suboption kind, one empty, one cut short.
    opts.extend_from_slice(&[82, 37]);
    opts.extend_from_slice(&[1, 3, b'e', b't', b'h', 2, 2, 0xde, 0xad, 5, 4, 10, 0, 0, 1]);
    opts.extend_from_slice(&[11, 4, 10, 0, 0, 2, 6, 3, b's', b'u', 0, 12, 1, 9]);
    opts.extend_from_slice(&[99, 1, 7, 1, 0, 150, 5, 1]);
    // Option 125: the Broadband Forum's suboptions, another enterprise's, one past the end.
    let mut vi = vec![0, 0, 0x0d, 0xe9, 0];
    let mut subs = Vec::new();
    for c in 1..=7u8 {
        subs.extend_from_slice(&[c, 2, b'x', 0]);
    }
    subs.extend_from_slice(&[8, 9, 1]);
    vi[4] = subs.len() as u8;
    vi.extend_from_slice(&subs);
    vi.extend_from_slice(&[0, 0, 0, 9, 4, 1, 2, 0xab, 0xcd, 0, 0, 0, 9, 40, 1]);
    opts.extend_from_slice(&[125, vi.len() as u8]);
    opts.extend_from_slice(&vi);
    // Forcerenew nonce algorithms, user classes (RFC 3004 and plain text), client FQDNs
    // (DNS-encoded and text), classless routes.
    opts.extend_from_slice(&[145, 2, 1, 2]);
    opts.extend_from_slice(&[
        77, 7, 3, b'a', b'b', b'c', 2, b'x', b'y', 77, 3, b'a', b'b', b'c',
    ]);
    opts.extend_from_slice(&[81, 8, 5, 0, 0, 3, b'w', b'w', b'w', 0]);
    opts.extend_from_slice(&[81, 6, 0, 255, 255, b'h', b'o', b'!']);
    opts.extend_from_slice(&[121, 13, 24, 192, 0, 2, 10, 0, 0, 1, 0, 10, 0, 0, 1]);
    opts.extend_from_slice(&[
        55, 4, 1, 3, 6, 200, 51, 4, 0, 0, 0x0e, 0x10, 58, 4, 255, 255, 255, 255,
    ]);
    out.push(with_options(&opts, &[]));
    // Options overloaded into sname and file (option 52), with a secs written
    // little-endian and the broadcast flag.
    let mut b = with_options(&[53, 1, 5, 52, 1, 3], &[]);
    b[8..10].copy_from_slice(&[0x1a, 0]);
    b[10] = 0x80;
    b[44..50].copy_from_slice(&[15, 3, b'a', b'b', b'c', 255]);
    b[108..114].copy_from_slice(&[56, 2, b'h', b'i', 0, 255]);
    out.push(b);
    // An sname and a file given as text, other hardware: a longer address, none at all.
    let mut b = with_options(&[53, 1, 2], &[]);
    b[44..47].copy_from_slice(b"srv");
    b[108..113].copy_from_slice(b"pxelx");
    b[1] = 6;
    b[2] = 16;
    out.push(b.clone());
    b[2] = 0;
    out.push(b.clone());
    b[2] = 200;
    out.push(b);
    // An option cut short, one whose length runs past the end, no END, a cookie that is not
    // DHCP's (BOOTP vendor bytes), no cookie, headers cut short.
    let mut b = with_options(&[53, 1, 1, 12, 10, b'a', b'b'], &[]);
    b.pop();
    out.push(b.clone());
    b.truncate(243);
    out.push(b);
    let mut b = with_options(&[53, 1, 1], &[1, 2, 3]);
    b[236] = 1;
    out.push(b.clone());
    for n in [236, 239, 200, 120, 50, 44, 12, 10, 3, 1, 0] {
        out.push(b[..n].to_vec());
    }
    out
}

#[test]
fn the_json_fields_written_straight_are_those_of_the_tree() {
    use crate::output::json::assert_written_as_the_tree;
    let mut names = std::collections::BTreeSet::new();
    for b in every_kind() {
        let (m, _) = super::super::message::parse(&b);
        let tree = m.fields();
        for f in &tree {
            f.walk(&mut |x| {
                names.insert(x.name);
            });
        }
        assert_written_as_the_tree(&tree, |o| m.write_tree(o), "");
        // The tree moved, as DHCPv4-over-DHCPv6 carries it: every field, offsets only.
        let mut moved = TreeSink::default();
        m.write_tree_at(100, &mut moved);
        let mut shifted = tree.clone();
        for f in &mut shifted {
            f.shift(100);
        }
        assert_eq!(moved.finish(), shifted);
    }
    // The messages reach every shape of the writer.
    for name in [
        "dhcp.secs_le",
        "dhcp.flags.bc",
        "dhcp.hw.addr",
        "dhcp.hw.addr_padding",
        "dhcp.server",
        "dhcp.file",
        "dhcp.server_name_overloaded_by_dhcp",
        "dhcp.boot_filename_overloaded_by_dhcp",
        "dhcp.option.domain_name",
        "dhcp.option.message",
        "dhcp.cookie",
        "poolshark.dhcp.bad_cookie",
        "dhcp.vendor_specific_options",
        "dhcp.option.padding",
        "dhcp.option.end",
        "dhcp.option.value",
        "dhcp.option.value.string",
        "dhcp.option.router",
        "dhcp.option.time_offset",
        "dhcp.option.ip_forwarding",
        "dhcp.option.ip_address_lease_time",
        "poolshark.dhcp.option.partial_value",
        "dhcp.option.request_list_item",
        "dhcp.hw.mac_addr",
        "dhcp.client_id.iaid",
        "dhcp.client_id.duid_llt_hw_type",
        "dhcp.client_id.enterprise_num",
        "dhcp.client_id.duid_ll_hw_type",
        "dhcp.client_id",
        "dhcp.client_id.undef",
        "poolshark.dhcp.client_id.data",
        "dhcp.option.agent_information_option.agent_circuit_id",
        "dhcp.option.agent_information_option.agent_remote_id",
        "dhcp.option.agent_information_option.link_selection",
        "dhcp.option.agent_information_option.server_id_override",
        "dhcp.option.agent_information_option.subscriber_id",
        "dhcp.option.agent_information_option.relay_agent_id",
        "dhcp.option.agent_information_option.value",
        "dhcp.option.vi.enterprise",
        "dhcp.option.vi.tr111.suboption",
        "dhcp.option.vi.tr111.device_serial_number",
        "dhcp.option.vi.tr111.gateway_product_class",
        "dhcp.option.vi.value.uint",
        "dhcp.option.vi.value",
        "dhcp.option.forcerenew_nonce.algorithm",
        "dhcp.option.user_class.data",
        "dhcp.fqdn.name",
        "dhcp.option.classless_static_route",
    ] {
        assert!(names.contains(name), "no {name} in {names:?}");
    }
}

#[test]
fn durations_as_wireshark_writes_them() {
    // tshark on zeek_dhcp_ack_subscriber_id_and_agent_remote_id.pcap: "(1800s) 30 minutes",
    // "(3118s) 51 minutes, 58 seconds", "(3600s) 1 hour".
    assert_eq!(duration_text(1800), "30 minutes");
    assert_eq!(duration_text(3118), "51 minutes, 58 seconds");
    assert_eq!(duration_text(3600), "1 hour");
    assert_eq!(duration_text(0), "0 seconds");
    assert_eq!(duration_text(u32::MAX), "infinity");
}
