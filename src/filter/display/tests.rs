//! The display filter's unit tests: parsing, errors, evaluation and columns on hand-built frames.

use std::net::Ipv4Addr;

use super::check::plain_decimal;
use super::columns::escape_controls;
use super::lexer::quoted;
use super::parser::{literal, parse_bytes, parse_int};
use super::*;
use crate::base::Timestamp;
use crate::dissect::Address;
use crate::field::Field;
use crate::field::Value;

fn record(protocol: &'static str, fields: Vec<Field>) -> Record {
    Record {
        frame: 7,
        time: Some(Timestamp::default()),
        src: String::new(),
        dst: String::new(),
        protocol,
        info: String::new(),
        fields,
        fields_json: None,
        errors: Vec::new(),
        reassembled_from: Vec::new(),
        quoted: false,
    }
}

fn summary() -> FrameSummary {
    FrameSummary {
        src: Some(Address::Ip("192.0.2.1".parse().unwrap())),
        dst: Some(Address::Ip("192.0.2.200".parse().unwrap())),
        src_port: Some(547),
        dst_port: Some(546),
        protocol: "UDP",
        ..FrameSummary::default()
    }
}

/// Frame 7, 120 bytes on the wire, 100 captured, at 1700000002.5, 2.5 s after the first:
/// `summary()` and `records`.
fn view<'a>(summary: &'a FrameSummary, records: &'a [Record]) -> FrameView<'a> {
    FrameView {
        number: 7,
        len: 120,
        cap_len: 100,
        time: Timestamp::new(1_700_000_002, 500_000_000),
        first: Timestamp::new(1_700_000_000, 0),
        prev: Timestamp::new(1_700_000_000, 0),
        prev_displayed: Timestamp::new(1_700_000_000, 0),
        has_time: true,
        summary,
        records,
        layers: &[],
    }
}

fn run_on(f: &mut Filter, records: &[Record]) -> bool {
    f.matches(&view(&summary(), records))
}

fn check(filter: &str, records: &[Record]) -> bool {
    let mut f = Filter::parse(filter).unwrap_or_else(|e| panic!("{filter}: {e}"));
    run_on(&mut f, records)
}

fn dhcpv6() -> Vec<Record> {
    vec![record(
        "dhcpv6",
        vec![
            Field::uint("dhcpv6.msgtype", "Message type", 1u8, 0, 1).note("Solicit"),
            Field::uint("dhcpv6.xid", "Transaction ID", 0x26fedd_u32, 1, 3).hex(6),
            Field::node("dhcpv6.option", "Client Identifier", 4, 14).child(Field::bytes(
                "dhcpv6.duid.bytes",
                "DUID",
                &[0, 3, 0, 1, 2, 0, 0, 0, 2, 2],
                8,
            )),
            Field::ipv6(
                "dhcpv6.iaaddr.ip",
                "Address",
                "2001:db8::5".parse().unwrap(),
                40,
            ),
            Field::ipv6(
                "dhcpv6.iaaddr.ip",
                "Address",
                "2001:db8::9".parse().unwrap(),
                70,
            ),
            Field::string("dhcpv6.domain", "Domain", "example.com", 90, 13),
            Field::boolean("dhcpv6.rapid", "Rapid", true, 100, 0),
            Field::bytes("poolshark.handle", "Handle", b"Web", 116),
            Field::new(
                "dhcpv6.duidll.link_layer_addr",
                "Link-layer address",
                Value::Mac([0, 0x1a, 0x2b, 0, 0, 5]),
                110,
                6,
            ),
        ],
    )]
}

/// Each occurrence of a column in the sample frame, as `-T fields` writes them.
fn column(name: &str) -> Vec<String> {
    let (sum, records) = (summary(), dhcpv6());
    let mut out = Vec::new();
    Column::parse(name)
        .unwrap_or_else(|e| panic!("{name}: {e}"))
        .values(&view(&sum, &records), &mut |v| out.push(v));
    out
}

#[test]
fn columns_give_each_occurrence_in_tsharks_form() {
    for (name, want) in [
        ("dhcpv6.xid", &["0x26fedd"][..]),
        ("dhcpv6.msgtype", &["1"]),
        ("dhcpv6.iaaddr.ip", &["2001:db8::5", "2001:db8::9"]),
        ("dhcpv6.duid.bytes", &["00030001020000000202"]),
        ("dhcpv6.rapid", &["1"]),
        ("dhcpv6.domain", &["example.com"]),
        ("dhcpv6.duidll.link_layer_addr", &["00:1a:2b:00:00:05"]),
        // A subtree header has no value of its own.
        ("dhcpv6.option", &[]),
        ("dhcpv6", &["dhcpv6"]),
        ("asap", &[]),
        ("ip", &["ip"]),
        ("udp", &["udp"]),
        ("ipv6", &[]),
        ("ip.src", &["192.0.2.1"]),
        ("ip.addr", &["192.0.2.1", "192.0.2.200"]),
        ("udp.srcport", &["547"]),
        ("udp.port", &["547", "546"]),
        ("tcp.port", &[]),
        ("frame.number", &["7"]),
        ("frame.len", &["120"]),
        ("frame.cap_len", &["100"]),
        ("frame.time_epoch", &["1700000002.500000000"]),
        ("frame.time_relative", &["2.500000000"]),
        ("dhcpv6.nosuchfield", &[]),
    ] {
        assert_eq!(column(name), want, "{name}");
    }
    assert!(Column::parse("eth.lg").is_err());
    assert!(Column::parse("1x").is_err());
    assert!(Column::parse("dhcpv6.xid").is_ok_and(|c| c.is_tree_field()));
    assert!(Column::parse("frame.number").is_ok_and(|c| !c.is_tree_field()));
    // Only a lower layer's protocol is written as its label (its header line).
    for (name, labels) in [
        ("eth", true),
        ("vlan", true),
        ("frame", true),
        ("eth.src", false),
        ("ip.ttl", false),
        ("ip", false),
        ("frame.protocols", false),
        ("dhcpv6", false),
    ] {
        assert_eq!(
            Column::parse(name).map(|c| c.needs_labels()),
            Ok(labels),
            "{name}"
        );
    }
    // The frame's times are there for filters too.
    assert!(check(
        "frame.time_relative > 2 && frame.time_relative < 3",
        &dhcpv6()
    ));
    assert!(check("frame.time_epoch >= 1700000002.5", &dhcpv6()));
    assert!(!check("frame.time_relative > 2.5", &dhcpv6()));
    assert_eq!(
        seconds_between(Timestamp::new(10, 5), Timestamp::new(9, 999_999_999)),
        "-0.000000006"
    );
    assert_eq!(
        escape_controls("a\tb\nc\r\0\u{85}é"),
        "a\\tb\\nc\\r\\x00\\xc2\\x85é"
    );
    assert_eq!(escape_controls("plain é"), "plain é");
}

#[test]
fn protocols_fields_and_values() {
    let r = dhcpv6();
    for (filter, want) in [
        ("dhcpv6", true),
        ("asap", false),
        ("dhcp", false),
        ("!asap", true),
        ("dhcpv6.msgtype == 1", true),
        ("dhcpv6.msgtype eq 1", true),
        ("dhcpv6.msgtype == \"solicit\"", true),
        ("dhcpv6.msgtype == Solicit", true),
        ("dhcpv6.msgtype == 3", false),
        ("dhcpv6.msgtype != 3", true),
        ("dhcpv6.msgtype > 0 && dhcpv6.msgtype <= 1", true),
        ("dhcpv6.xid == 0x26fedd", true),
        ("dhcpv6.xid == 2555613", true),
        ("dhcpv6.xid >= 0x26fede", false),
        ("dhcpv6.duid.bytes == 00:03:00:01:02:00:00:00:02:02", true),
        ("dhcpv6.duid.bytes == 00030001020000000202", true),
        ("dhcpv6.duid.bytes contains 02:00:00", true),
        ("dhcpv6.duid.bytes contains 02:03", false),
        // Text against bytes: its own bytes.
        ("poolshark.handle == \"Web\"", true),
        ("poolshark.handle == 57:65:62", true),
        ("poolshark.handle contains \"eb\"", true),
        ("poolshark.handle contains \"web\"", false),
        (
            "dhcpv6.duidll.link_layer_addr == \"00:1a:2b:00:00:05\"",
            false,
        ),
        // Two occurrences (::5 and ::9): == is "one equals", != (ne, all_ne) "none equals",
        // === (all_eq) "every one equals", !== (~=, any_ne) "one differs".
        ("dhcpv6.iaaddr.ip == 2001:db8::9", true),
        ("dhcpv6.iaaddr.ip any_eq 2001:db8::9", true),
        ("dhcpv6.iaaddr.ip != 2001:db8::9", false),
        ("dhcpv6.iaaddr.ip ne 2001:db8::9", false),
        ("dhcpv6.iaaddr.ip all_ne 2001:db8::9", false),
        ("dhcpv6.iaaddr.ip != 2001:db8::7", true),
        ("dhcpv6.iaaddr.ip === 2001:db8::9", false),
        ("dhcpv6.iaaddr.ip all_eq 2001:db8::/64", true),
        ("dhcpv6.iaaddr.ip !== 2001:db8::9", true),
        ("dhcpv6.iaaddr.ip ~= 2001:db8::9", true),
        ("dhcpv6.iaaddr.ip any_ne 2001:db8::9", true),
        ("dhcpv6.iaaddr.ip !== 2001:db8::/64", false),
        ("dhcpv6.iaaddr.ip != 2001:db8::/64", false),
        ("dhcpv6.iaaddr.ip != 2001:db9::/64", true),
        // Ordered on the bits of the shorter prefix.
        ("dhcpv6.iaaddr.ip > 2001:db8::/64", false),
        ("dhcpv6.iaaddr.ip >= 2001:db8::/64", true),
        ("dhcpv6.iaaddr.ip > 2001:db7::/32", true),
        ("ip.addr > 192.0.2.0/24", false),
        ("ip.addr < 192.0.3.0/24", true),
        ("ip.addr in {192.0.2.0/31 .. 192.0.2.100}", true),
        ("ip.addr in {192.0.2.2 ..192.0.2.100}", false),
        ("dhcpv6.msgtype != Solicit", false),
        ("dhcpv6.msgtype != Reply", true),
        ("dhcpv6.msgtype === solicit", true),
        ("dhcpv6.iaaddr.ip == 2001:db8::/64", true),
        ("dhcpv6.iaaddr.ip == 2001:db9::/32", false),
        ("dhcpv6.domain == \"example.com\"", true),
        ("dhcpv6.domain contains ample", true),
        ("dhcpv6.rapid == true", true),
        ("dhcpv6.rapid == 0", false),
        ("dhcpv6.duidll.link_layer_addr == 00:1a:2b:00:00:05", true),
        ("dhcpv6.duidll.link_layer_addr contains 2b:00", true),
        ("dhcpv6.duidll.link_layer_addr contains 2b:01", false),
        ("dhcpv6.duidll.link_layer_addr > 00:1a:2b:00:00:04", true),
        // A field no message has: absent, so every comparison is false, != and === too
        // (they need the field), and only the negation of == holds.
        ("dhcpv6.nothing", false),
        ("dhcpv6.nothing == 1", false),
        ("dhcpv6.nothing != 1", false),
        ("dhcpv6.nothing === 1", false),
        ("dhcpv6.nothing ~= 1", false),
        ("!(dhcpv6.nothing == 1)", true),
        ("tcp.port != 80", false),
        ("udp.port != 80", true),
        ("udp.port != 546", false),
        ("udp.port ~= 546", true),
        ("udp.port === 546", false),
        // A value the field's type cannot take matches nothing.
        ("dhcpv6.msgtype == 10.0.0.1", false),
        // Frame, addresses and ports.
        (
            "frame.number == 7 && frame.len == 120 && frame.cap_len < 101",
            true,
        ),
        ("ip && udp && !tcp && !ipv6", true),
        ("ip.src == 192.0.2.1", true),
        ("ip.dst == 192.0.2.1", false),
        ("ip.addr == 192.0.2.1 and ip.addr == 192.0.2.200", true),
        ("ip.addr == 192.0.2.0/25", true),
        ("ip.dst == 192.0.2.0/25", false),
        ("udp.port == 546", true),
        ("udp.srcport == 546", false),
        ("tcp.port == 546", false),
        ("ipv6.addr == ::1", false),
        // Precedence: && before ||, ! binds tightest, parentheses.
        ("asap || dhcpv6 && dhcpv6.msgtype == 1", true),
        ("(asap || dhcpv6) && dhcpv6.msgtype == 3", false),
        ("not dhcpv6 or dhcpv6.xid == 0x26fedd", true),
        ("!(dhcpv6.msgtype == 1)", false),
        // Sets: values and ranges, on one occurrence; `not in` is `!(in)`.
        ("dhcpv6.msgtype in {3, 1}", true),
        ("dhcpv6.msgtype in {2..5, 7}", false),
        ("dhcpv6.msgtype in {0..1}", true),
        ("dhcpv6.msgtype not in {2, 3}", true),
        ("dhcpv6.iaaddr.ip in {2001:db8::6..2001:db8::8}", false),
        ("dhcpv6.iaaddr.ip in {2001:db8::6..2001:db8::9}", true),
        ("dhcpv6.nothing not in {1}", true),
        ("ip.src in {192.0.2.1, 192.0.2.2}", true),
        ("arp", false),
        // Field with field: every pair of occurrences.
        ("frame.len == frame.cap_len", false),
        ("frame.len > frame.cap_len", true),
        ("udp.srcport == udp.srcport", true),
        ("udp.port == udp.port", true),
        ("udp.port != udp.port", false),
        ("udp.port ~= udp.port", true),
        ("udp.port === udp.port", false),
        ("udp.port === udp.srcport", false),
        ("udp.srcport === udp.srcport", true),
        ("udp.srcport > udp.dstport", true),
        ("dhcpv6.msgtype < frame.number", true),
        ("dhcpv6.iaaddr.ip == dhcpv6.iaaddr.ip", true),
        ("dhcpv6.iaaddr.ip ~= dhcpv6.iaaddr.ip", true),
        ("dhcpv6.iaaddr.ip === dhcpv6.iaaddr.ip", false),
        ("dhcpv6.domain contains dhcpv6.domain", true),
        ("poolshark.handle contains poolshark.handle", true),
        // Absent on one side: nothing holds.
        ("dhcpv6.nothing != dhcpv6.msgtype", false),
        ("dhcpv6.msgtype != tcp.port", false),
        // Different kinds: never equal (reported at the end).
        ("dhcpv6.msgtype == dhcpv6.domain", false),
    ] {
        assert_eq!(check(filter, &r), want, "{filter}");
    }
}

#[test]
fn errors_say_what_and_where() {
    for (filter, offset, what) in [
        ("", 0, "ends"),
        ("dhcpv6 &&", 9, "ends"),
        ("dhcpv6.msgtype ==", 17, "expected a value after '=='"),
        ("(asap || enrp", 13, "expected ')'"),
        ("asap enrp", 5, "unexpected 'enrp'"),
        ("asap == 1", 5, "is a protocol"),
        (
            "ip.opt.len == 3",
            0,
            "'ip.opt.len' is not kept by poolshark",
        ),
        (
            "udp.time_delta > 3",
            0,
            "'udp.time_delta' is not kept by poolshark",
        ),
        (
            "tcp.analysis.flags",
            0,
            "tcp.stream, tcp.seq, tcp.nxtseq, tcp.ack",
        ),
        ("sctp.forward_tsn_tsn == 3", 0, "sctp.data_tsn_raw"),
        ("1abc", 0, "neither a field nor a protocol"),
        ("dhcpv6.domain == \"x", 17, "closing quote"),
        ("asap $ enrp", 5, "unexpected character '$'"),
        ("&& asap", 0, "expected a field"),
        ("dhcpv6.xid in 1", 14, "expected '{'"),
        ("dhcpv6.xid in {1 2}", 17, "expected ',' or '}'"),
        ("dhcpv6.xid in {1,", 17, "expected a value after ','"),
        ("asap in {1}", 5, "is a protocol"),
        // Names: the first part must be a protocol poolshark knows, in lowercase.
        ("DHCP", 0, "'DHCP' is not a protocol poolshark knows"),
        ("Dhcp.secs", 0, "'Dhcp' is not a protocol"),
        ("dhcpv6 && Dhcpv6.xid == 1", 10, "lowercase ('dhcpv6.xid')"),
        ("icmpv6.mtu == 1280", 0, "'icmpv6.mtu' is not kept"),
        ("igmp.type == 1", 0, "'igmp' is not a protocol"),
        ("arp.isgratuitous", 0, "'arp.isgratuitous' is not kept"),
        (
            "eth.lg == 1",
            0,
            "of eth's fields, filters and columns see eth.dst, eth.src, eth.addr, eth.type",
        ),
        ("poolshark", 0, "poolshark.*"),
        ("dhcpv6 AND asap", 7, "keywords are lowercase: 'and'"),
        ("NOT asap", 0, "keywords are lowercase ('not')"),
        ("dhcpv6.xid EQ 1", 11, "unexpected 'EQ'"),
        // Values the frame's own fields cannot take, at the value's byte.
        ("ip.addr == 192.0.2.300", 11, "not an IPv4 address"),
        ("ip.addr == 192.0.2.1/33", 11, "prefix '/33'"),
        ("ip.addr == fe80::1", 11, "not an IPv4 address"),
        ("ipv6.src == 10.0.0.1", 12, "not an IPv6 address"),
        ("ipv6.addr == fe80::/129", 13, "prefix '/129'"),
        ("ip.dst == \"10.0.0.1\"", 10, "not quoted text"),
        ("udp.port == 70000", 12, "outside udp.port's range 0..65535"),
        ("tcp.srcport == -1", 15, "outside"),
        ("sctp.port in {1..70000}", 17, "outside"),
        ("sctp.port in {1 .. 2, x}", 22, "not a whole number"),
        ("frame.number == 1.5", 16, "not a whole number"),
        ("frame.len > 4294967296", 12, "range 0..4294967295"),
        ("frame.time_relative > 1e2", 22, "not a number of seconds"),
        ("frame.len contains 1", 10, "'contains' does not apply"),
        ("ip.src contains 10.0.0.1", 7, "'contains' does not apply"),
        // Fields compared: what is known of both is checked.
        ("ip.src == udp.port", 10, "cannot be compared"),
        ("frame.time_epoch > frame.len", 19, "cannot be compared"),
        ("dhcpv6.xid == udp", 14, "is a protocol"),
        (
            "dhcpv6.xid contains udp.port",
            11,
            "'contains' does not apply",
        ),
        ("udp.port in {udp.srcport}", 13, "not fields"),
        ("dhcpv6.xid in {..3}", 15, "before '..'"),
        ("dhcpv6.xid in {1 ..}", 19, "expected a value"),
    ] {
        let e = Filter::parse(filter).expect_err(filter);
        assert_eq!(e.offset, offset, "{filter}: {e}");
        assert!(e.what.contains(what), "{filter}: {e}");
    }
}

#[test]
fn unseen_fields_are_reported() {
    let mut f = Filter::parse("dhcpv6.msgtype == 1 || dhcpv6.xdi == 3 || asap").unwrap();
    run_on(&mut f, &dhcpv6());
    assert_eq!(f.unseen_fields(), vec!["dhcpv6.xdi"]);
}

/// What `problems` says after one frame of `dhcpv6()`, joined.
fn problems_after(filter: &str) -> String {
    let mut f = Filter::parse(filter).unwrap_or_else(|e| panic!("{filter}: {e}"));
    run_on(&mut f, &dhcpv6());
    f.problems().join("\n")
}

#[test]
fn values_no_occurrence_could_take_are_reported_with_their_byte() {
    for (filter, want) in [
        (
            "dhcpv6.msgtype == Solicitt",
            "value 'Solicitt' (byte 18) could not be compared with dhcpv6.msgtype",
        ),
        (
            "dhcpv6.msgtype == Solicitt",
            "value names of dhcpv6.msgtype seen ('Solicit')",
        ),
        // A name no message had may be a real one: the report says both.
        (
            "dhcpv6.msgtype != Reply",
            "or a value that no message here had",
        ),
        ("dhcpv6.xid == foo", "'foo' (byte 14)"),
        (
            "dhcpv6.xid == 1.5",
            "dhcpv6.xid holds whole numbers, and it is not one",
        ),
        // Three bytes on the wire.
        ("dhcpv6.xid > 16777216", "outside 0..16777215"),
        ("dhcpv6.xid in {1..16777216}", "'16777216' (byte 18)"),
        ("dhcpv6.msgtype > Solicit", "not ordered"),
        ("dhcpv6.rapid == maybe", "booleans"),
        ("dhcpv6.iaaddr.ip == 10.0.0.1", "IPv6 addresses"),
        ("dhcpv6.iaaddr.ip == 2001:db8::/200", "IPv6 addresses"),
        (
            "dhcpv6.duidll.link_layer_addr == 00:1a",
            "hardware addresses",
        ),
        ("dhcpv6.duid.bytes == xyz", "holds bytes"),
        ("dhcpv6.option == 1", "no value of its own"),
        (
            "dhcpv6.xid contains 1",
            "'contains' does not apply to dhcpv6.xid",
        ),
        (
            "dhcpv6.msgtype == dhcpv6.domain",
            "compares dhcpv6.msgtype with dhcpv6.domain (byte 18)",
        ),
        (
            "udp.port != dhcpv6.iaaddr.ip",
            "udp.port holds whole numbers and",
        ),
    ] {
        let got = problems_after(filter);
        assert!(got.contains(want), "{filter}: {got}");
    }
    // Values that fit, however the comparison comes out; and fields that were not met.
    for filter in [
        "dhcpv6.msgtype == Solicit",
        "dhcpv6.msgtype in {3, Solicit}",
        "dhcpv6.xid == 0x26fedd || dhcpv6.xid > 16777215",
        "dhcpv6.domain > zzz",
        "dhcpv6.rapid == 0",
        "dhcpv6.iaaddr.ip != ::1/0",
        "dhcpv6.duidll.link_layer_addr contains 00:1a",
        "poolshark.handle == \"Web\"",
        "asap.message_type == foo",
        "dhcpv6.xid > dhcpv6.msgtype",
        "frame.number == 7",
    ] {
        assert_eq!(problems_after(filter), "", "{filter}");
    }
}

#[test]
fn arp_is_the_frames_summary_protocol() {
    for (protocol, want) in [("ARP", true), ("RARP", true), ("UDP", false)] {
        let s = FrameSummary {
            protocol,
            ..FrameSummary::default()
        };
        let mut f = Filter::parse("arp").unwrap();
        assert_eq!(f.matches(&view(&s, &[])), want, "{protocol}");
    }
    assert_eq!(column("arp"), Vec::<String>::new());
}

proptest::proptest! {
    /// Whatever is typed parses or fails with an offset inside it, and a filter that parses
    /// evaluates: from any characters, and from the language's own tokens in any order.
    #[test]
    fn any_text_parses_or_errs_within_it(text in "\\PC{0,40}") {
        parse_and_run(&text);
    }

    #[test]
    fn any_token_sequence_parses_or_errs_within_it(
        tokens in proptest::collection::vec(proptest::sample::select(vec![
            "asap", "dhcpv6", "ip", "udp.port", "ip.addr", "frame.number", "dhcpv6.msgtype",
            "dhcpv6.iaaddr.ip", "dhcpv6.duid.bytes", "==", "!=", ">=", "<", "contains", "in",
            "not", "!", "&&", "||", "and", "(", ")", "{", "}", ",", "1", "0x10", "1..3",
            "2001:db8::/64", "10.0.0.0/8", "00:03", "\"Solicit\"", "\"", "..", "-",
            "===", "!==", "~=", "all_ne", "udp.srcport", "frame.len", "arp", "DHCP", "Solicitt",
            "70000", "10.0.0.0/40", "..2", "len(", "count(", "max(", "min(", "string(",
            "upper(", "abs(", "[0:2]", "[-1]", "[1-3]", "[:9223372036854775807]", "[", "]",
            "dhcpv6.domain", "poolshark.handle", "dhcpv6.option", "matches", "~",
            "r\"\\d+\"", "\"\\x90\"", "\"[a-\"", "\"(?-i)EX\"",
        ]), 0..12)
    ) {
        parse_and_run(&tokens.join(" "));
    }
}

fn parse_and_run(text: &str) {
    match Filter::parse(text) {
        Ok(mut f) => {
            run_on(&mut f, &dhcpv6());
        }
        Err(e) => assert!(e.offset <= text.len(), "{text:?}: {e}"),
    }
}

#[test]
fn literals() {
    assert_eq!(parse_int("0x1F"), Some(31));
    assert_eq!(parse_int("-5"), Some(-5));
    assert_eq!(parse_int("12a"), None);
    assert_eq!(parse_bytes("0a-0B"), Some(vec![10, 11]));
    assert_eq!(parse_bytes("0a:b"), None);
    assert_eq!(parse_bytes("abc"), None);
    let l = literal("10.0.0.0/8", false, 0);
    assert_eq!(l.v4, Some((Ipv4Addr::new(10, 0, 0, 0), 8)));
    assert_eq!(literal("10.0.0.0/33", false, 0).v4, None);
    assert_eq!(literal("10.0.0.0/", false, 0).v4, None);
    assert_eq!(literal("10.0.0.1", true, 0).v4, None);
    assert_eq!(literal("inf", false, 0).float, None);
    assert!(plain_decimal("12") && plain_decimal("-0.25") && plain_decimal("1."));
    assert!(!plain_decimal("1e2") && !plain_decimal(".") && !plain_decimal("0x1"));
    assert_eq!(quoted(r#""a\"b" x"#, 0, false), Ok((b"a\"b".to_vec(), 6)));
    assert_eq!(
        quoted(r#""\x62\101\t\\\u00e9\0" x"#, 0, false),
        Ok((b"bA\t\\\xc3\xa9\0".to_vec(), 22))
    );
    assert_eq!(
        quoted(r#""\.\"\d" x"#, 0, true),
        Ok((br#"\.\"\d"#.to_vec(), 8))
    );
    for bad in [r#""\.""#, r#""\x""#, r#""\u12""#, r#""\777""#, r#""\q""#] {
        let e = quoted(bad, 0, false).unwrap_err();
        assert_eq!(e.offset, 1, "{bad}");
        assert!(e.what.contains("is not an escape"), "{bad}: {e}");
    }
}

/// Slices and functions on the sample frame: what each derives, and what is told at the end
/// when nothing could take one.
#[test]
fn slices_and_functions_derive_from_every_occurrence() {
    let records = dhcpv6();
    for (filter, want) in [
        ("dhcpv6.duid.bytes[0:2] == 00:03", true),
        ("dhcpv6.duid.bytes[-2:] == 02:02", true),
        ("dhcpv6.duid.bytes[9:2] == 02", false),
        ("dhcpv6.domain[0:7] == \"example\"", true),
        ("dhcpv6.iaaddr.ip[15] == 09", true),
        ("dhcpv6.iaaddr.ip[15] === 09", false),
        ("dhcpv6.duidll.link_layer_addr[1-2] == 1a:2b", true),
        ("len(dhcpv6.domain) == 11", true),
        ("len(dhcpv6.option) == 14", true),
        ("len(dhcpv6.rapid) == 0", true),
        ("len(dhcpv6.xid) == 3", true),
        ("count(dhcpv6.iaaddr.ip) == 2", true),
        ("count(dhcpv6.nosuch) == 0", false),
        ("count(dhcpv6) == 1 && count(ip) == 1", true),
        ("max(dhcpv6.iaaddr.ip) == 2001:db8::9", true),
        ("min(dhcpv6.iaaddr.ip) == 2001:db8::5", true),
        // Fields of different sizes (tshark: "must have the same type"): nothing.
        ("max(dhcpv6.msgtype, dhcpv6.xid) == 0x26fedd", false),
        ("min(dhcpv6.msgtype, dhcpv6.xid, udp.port) == 1", false),
        ("max(dhcpv6.xid, dhcpv6.xid + 1) == 0x26fede", true),
        ("min(dhcpv6.msgtype, 0) == 0", true),
        ("string(dhcpv6.xid) == \"2555613\"", true),
        ("upper(dhcpv6.domain) == \"EXAMPLE.COM\"", true),
        ("lower(upper(dhcpv6.domain)) == \"example.com\"", false),
        ("string(ip.dst) contains \".200\"", true),
        ("ip.src[0:3] == ip.dst[0:3]", true),
        ("frame.len > max(udp.port)", false),
        ("abs(frame.time_relative) == 2.5", true),
    ] {
        let parsed = Filter::parse(filter);
        if filter.starts_with("lower(upper") {
            assert!(parsed.is_err(), "{filter}");
            continue;
        }
        assert_eq!(check(filter, &records), want, "{filter}");
    }
    // Text with numbers: nothing to take the largest of, and said at the end.
    let mut f = Filter::parse("max(dhcpv6.domain, dhcpv6.xid) > 1").unwrap();
    assert!(!run_on(&mut f, &records));
    let problems = f.problems();
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(
        problems[0].starts_with(
            "the display filter's max(dhcpv6.domain, dhcpv6.xid) (byte 0) applied to no \
             occurrence of dhcpv6.domain, dhcpv6.xid in any message read: dhcpv6.domain, \
             dhcpv6.xid had occurrences of different kinds"
        ),
        "{problems:?}"
    );
    // A slice of a number is told of; one that met some bytes is not.
    let mut f = Filter::parse("dhcpv6.xid[0] == 00 || poolshark.handle[0] == 00").unwrap();
    assert!(!run_on(&mut f, &records));
    assert_eq!(f.problems().len(), 1);
    assert!(f.problems()[0].contains("dhcpv6.xid holds whole numbers"));
}
/// Arithmetic on the frame's numbers (frame 7, 120 bytes, 100 captured, ports 547 and 546,
/// 2.5 s after the first) and on a tree field that occurs twice: tshark's precedence (`&`
/// last), braces, unary minus, no wrapping, no value for a division by zero, a value per
/// occurrence and per pair of occurrences, and arithmetic alone as a test of not zero.
#[test]
fn arithmetic_binds_and_computes_as_tshark_does() {
    let v6 = dhcpv6();
    for (filter, holds) in [
        ("frame.len - 20 == frame.cap_len", true),
        ("frame.len - 20 == frame.cap_len + 1", false),
        ("frame.len & 1 + 7 == 8", true), // 120 & 8
        ("{frame.len & 1} + 7 == 7", true),
        ("frame.len + 2 * 3 == 126", true),
        ("{frame.len + 2} * 3 == 366", true),
        ("frame.len - 10 - 10 == 100", true), // from the left
        ("frame.len / 7 == 17", true),
        ("frame.len % 7 == 1", true),
        ("frame.len / 0 == 0", false),
        ("frame.len / 0 != 0", false),
        ("frame.len - 200 < 0", true),
        ("-frame.len == -120", true),
        ("- frame.len < -119", true),
        ("frame.len & 0x07", false),
        ("frame.len & 0x08", true),
        ("not frame.len & 0x07", true),
        ("frame.number * 2", true),
        ("frame.number - 7", false),
        ("frame.time_relative + 0.5 == 3", true),
        ("frame.time_relative - 3 < 0", true),
        ("udp.port + udp.port == 1093", true), // 547 + 546
        ("udp.port + udp.port == 1094", true), // 547 + 547
        ("udp.port + udp.port == 1095", false),
        ("udp.srcport - udp.dstport == 1", true),
        ("ip.src & 255.255.255.0 == 192.0.2.0", true),
        ("ip.dst & 0.0.0.255 == 0.0.0.200", true),
        ("ip.src & 0.0.0.0", false),
        ("dhcpv6.msgtype + 1 == 2", true),
        ("dhcpv6.iaaddr.ip & ::ff == ::9", true),
        ("dhcpv6.iaaddr.ip & ::ff == ::7", false),
        ("dhcpv6.duid.bytes & 00:ff == 00:03", true),
        ("frame.len > dhcpv6.msgtype + 118", true),
        ("frame.len > dhcpv6.msgtype + 119", false),
    ] {
        assert_eq!(check(filter, &v6), holds, "{filter}");
    }
}

/// `open` 1,000 times, `inner`, `close` as often.
fn nested(open: &str, inner: &str, close: &str) -> String {
    format!("{}{inner}{}", open.repeat(1000), close.repeat(1000))
}

/// What arithmetic cannot take is refused when the filter is read, where the kind is known
/// then, and named at the end where it is a tree field's.
#[test]
fn arithmetic_that_cannot_apply_says_so() {
    for (filter, at, said) in [
        ("ip.src + 1 == 1", 7, "ip.src holds IPv4 addresses"),
        ("frame.time_relative * 2 > 1", 20, "only '+' and '-' apply"),
        ("frame.time + 1 > 2", 11, "take no arithmetic"),
        (
            "frame.len & 1.5",
            12,
            "'1.5' is not one of the whole numbers that frame.len",
        ),
        (
            "frame.time_relative + x > 1",
            22,
            "'x' is not one of the numbers",
        ),
        (
            "1 + 2 == 3",
            0,
            "must be a field or a function, not only values",
        ),
        (
            "{1 + 2} == 3",
            0,
            "must be a field or a function, not only values: {1 + 2}",
        ),
        ("frame.len + 1 contains 3", 14, "not with 'contains'"),
        ("frame.len + 1 in {2}", 14, "not with 'in'"),
        (
            "{frame.len + 1 == 2",
            15,
            "expected '}' for the '{' at byte 0",
        ),
        (
            "frame.len + == 2",
            12,
            "expected a field or a value, found '=='",
        ),
        ("frame.len + udp == 2", 12, "'udp' is a protocol"),
        // Bounds on the stack the parser and the evaluation take.
        (&nested("(", "frame", ")"), 256, "nests deeper than 256"),
        (&nested("{", "frame.len", "}"), 255, "nests deeper than 256"),
        (&nested("not ", "frame", ""), 1024, "nests deeper than 256"),
        (&nested("- ", "frame.len", ""), 510, "nests deeper than 256"),
        (
            &vec!["frame"; 3000].join(" && "),
            18432,
            "longer than 4096 names",
        ),
    ] {
        let shown = &filter[..filter.len().min(60)];
        let e = Filter::parse(filter).expect_err(shown);
        assert!(e.what.contains(said), "{shown}: {e}");
        assert_eq!(e.offset, at, "{shown}: {e}");
    }
    let v6 = dhcpv6();
    let mut f = Filter::parse("dhcpv6.duid.bytes * 2 == 4").unwrap();
    assert!(!run_on(&mut f, &v6));
    let problems = f.problems();
    assert!(
        problems
            .iter()
            .any(|p| p.contains("computes dhcpv6.duid.bytes * 2 (byte 0)")
                && p.contains("holds bytes")),
        "{problems:?}"
    );
}

/// tshark 4.0's functions of arithmetic and constants: `abs`, `max` and `min` take them and
/// `abs`, `max`, `min` of fields (a constant of `max` or `min` is there in every frame), the
/// others take fields only; the left side of a test cannot start with a value.
#[test]
fn functions_take_arithmetic_and_constants_as_tshark_does() {
    let v6 = dhcpv6();
    for (filter, holds) in [
        ("abs(-frame.len) == 120", true),
        ("abs(frame.len - 2000) == 1880", true),
        ("abs({frame.len - 2000}) > 1880", false),
        ("max(frame.len + 1, 3) == 121", true),
        ("max(frame.len, 3) == 120", true),
        ("max(frame.len, 300) == 300", true),
        ("min(frame.len, 3, 4) == 3", true),
        ("max(frame.len - 200, -1) == -1", true),
        ("min(-frame.len, 3) == -120", true),
        ("abs(abs(frame.len)) == 120", true),
        ("max(abs(frame.len), 3) == 120", true),
        ("frame.len == abs(-120)", true),
        ("frame.len == max(120, 3)", true),
        ("frame.len == max(121, 3)", false),
        ("min(frame.time_relative, 1.5) == 1.5", true),
        // A constant is there where the field is not (no TCP here); a field alone is not.
        ("max(tcp.port, 3) == 3", true),
        ("min(tcp.port, 3) == 3", true),
        ("abs(-tcp.port) >= 0", false),
        ("max(tcp.srcport, tcp.dstport) >= 0", false),
        ("max(dhcpv6.msgtype, 0) == 1", true),
        ("max(dhcpv6.xid, dhcpv6.xid + 1) == 0x26fede", true),
        ("count(dhcpv6) == 1", true),
    ] {
        assert_eq!(check(filter, &v6), holds, "{filter}");
    }
    for (filter, at, said) in [
        ("abs(3) == 3", 4, "starts with the value '3'"),
        ("abs(-3) > 0", 4, "starts with the value '-3'"),
        ("max(3, frame.len) > 0", 4, "starts with the value '3'"),
        ("{1 + frame.len} > 0", 1, "starts with the value '1'"),
        ("300 + frame.len > 0", 0, "starts with the value '300'"),
        (
            "len(frame.len + 1) > 0",
            0,
            "len() takes fields, not a slice or a function's value, nor arithmetic",
        ),
        ("count(3) > 0", 0, "count() takes fields"),
        (
            "string(abs(frame.len)) == \"1\"",
            0,
            "string() takes fields",
        ),
        ("upper(\"a\") == \"A\"", 0, "upper() takes fields"),
        ("len(ip.src[0:2]) > 0", 0, "len() takes fields"),
        ("abs(ip.src[0:2]) > 0", 0, "not a slice (ip.src[0:2])"),
        ("max(ip.src[0], 3) > 0", 0, "not a slice (ip.src[0])"),
        ("abs(frame.len, 3) > 0", 0, "abs() takes one field"),
        (
            "max(frame.len, 3.5) > 0",
            15,
            "'3.5' is not one of the whole numbers",
        ),
        (
            "max(frame.len, \"3\") > 0",
            15,
            "is not one of the whole numbers",
        ),
        (
            "max(frame.len, udp.port) > 0",
            0,
            "max() takes fields of one type",
        ),
        (
            "min(frame.len, udp.port + 0) > 0",
            0,
            "min() takes fields of one type",
        ),
        (
            "min(udp.port, 70000) > 0",
            14,
            "'70000' is too big for udp.port, whose values go up to 65535",
        ),
        ("max(foo.bar, 3) > 0", 4, "'foo' is not a protocol"),
        ("abs(frame.len + ) > 0", 16, "expected a field or a value"),
    ] {
        let e = Filter::parse(filter).expect_err(filter);
        assert!(e.what.contains(said), "{filter}: {e}");
        assert_eq!(e.offset, at, "{filter}: {e}");
    }
}

/// A constant in arithmetic, or compared with it, must be one the field the arithmetic takes
/// its type from (its first) can hold, as in tshark ("too big for this field"), by its
/// magnitude when negative; an error where the type is known before reading, else nothing
/// kept and said at the end. A negative value on the right of an unsigned one is its 64-bit
/// two's complement, as in tshark 4.0.
#[test]
fn constants_must_fit_the_type_arithmetic_takes() {
    for (filter, at, said) in [
        (
            "frame.len + 5000000000 > 0",
            12,
            "'5000000000' is too big for frame.len, whose values go up to 4294967295",
        ),
        (
            "udp.port + 65536 > 0",
            11,
            "'65536' is too big for udp.port",
        ),
        (
            "udp.port + -65536 > 0",
            11,
            "'-65536' is too big for udp.port",
        ),
        ("udp.port * 65536 > 0", 11, "'65536' is too big"),
        ("udp.port & 0x10000", 11, "'0x10000' is too big"),
        (
            "{udp.port + 1} - 70000 < 0",
            17,
            "'70000' is too big for udp.port",
        ),
        (
            "-udp.port + 70000 > 0",
            12,
            "'70000' is too big for udp.port",
        ),
        (
            "frame.len > 1 + udp.port * 70000",
            27,
            "'70000' is too big for udp.port",
        ),
        (
            "udp.port + frame.len > 70000",
            23,
            "'70000' is too big for udp.port",
        ),
    ] {
        let e = Filter::parse(filter).expect_err(filter);
        assert!(e.what.contains(said), "{filter}: {e}");
        assert_eq!(e.offset, at, "{filter}: {e}");
    }
    for fits in [
        "udp.port + 65535 > 0",
        "udp.port + -65535 < 0",
        "frame.len + udp.port > 70000",
        "frame.len > 1 + udp.port",
        "frame.len + 4294967295 > 0",
    ] {
        Filter::parse(fits).unwrap_or_else(|e| panic!("{fits}: {e}"));
    }
    let v6 = dhcpv6();
    // Known from the occurrences (dhcpv6.msgtype is one byte on the wire).
    for (filter, said) in [
        ("dhcpv6.msgtype + 256 > 0", "constant '256' (byte 17)"),
        ("dhcpv6.msgtype - -256 > 0", "constant '-256' (byte 17)"),
        (
            "dhcpv6.msgtype + frame.len > 256",
            "constant '256' (byte 29)",
        ),
        ("abs(dhcpv6.msgtype * 300) > 0", "constant '300' (byte 21)"),
        (
            "max(dhcpv6.msgtype, 300) > 0",
            "the constant '300' (byte 20) is too big for dhcpv6.msgtype",
        ),
        (
            "max(dhcpv6.msgtype, dhcpv6.xid) > 0",
            "fields of one type, and dhcpv6.msgtype is 1 bytes on the wire, dhcpv6.xid 3",
        ),
    ] {
        let mut f = Filter::parse(filter).unwrap_or_else(|e| panic!("{filter}: {e}"));
        assert!(!run_on(&mut f, &v6), "{filter}");
        let problems = f.problems();
        assert!(
            problems.iter().any(|p| p.contains(said)),
            "{filter}: {problems:?}"
        );
    }
    for (filter, holds) in [
        ("dhcpv6.msgtype + 255 > 255", true), // 256: no wrapping at 8 bits
        ("dhcpv6.msgtype + frame.len > 255", false),
        ("max(dhcpv6.msgtype, 255) == 255", true),
        // Negative values against unsigned ones, as tshark 4.0 computes them.
        ("frame.len + -1 == 119", false),
        ("frame.len * -1 == -120", false),
        ("frame.len - -1 == 121", false),
        ("frame.len & -1 == 120", true),
        ("frame.len / -1 == 0", true),
        ("frame.len % -1 == 120", true),
        ("-frame.len + -1 == -121", true),
        ("-frame.len * -1 == 120", true),
        ("frame.len - 200 + -1 == -81", true),
        ("frame.len - 100 + -1 == 19", false),
    ] {
        let mut f = Filter::parse(filter).unwrap_or_else(|e| panic!("{filter}: {e}"));
        assert_eq!(run_on(&mut f, &v6), holds, "{filter}");
        assert!(f.problems().is_empty(), "{filter}: {:?}", f.problems());
    }
}
