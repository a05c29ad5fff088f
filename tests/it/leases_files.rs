//! The dhcpd.leases reader against the two real lease files of the shared failover capture (counts
//! checked with awk, independently of the reader) and against hand-written fixtures whose values
//! are worked out from dhcpd.leases(5) in their comments.

use crate::common;

use std::collections::BTreeMap;
use std::net::Ipv4Addr;
use std::path::Path;
use std::process::Command;

use poolshark::source::leases::{self, Binding, ByteOrder, Hardware, LeaseTime};

/// Binding state of each address's last block, counted by awk: the oracle for the reader.
fn awk_counts(path: &Path) -> Option<BTreeMap<String, usize>> {
    let out = Command::new("awk")
        .arg(
            r#"/^lease /{a=$2} /^  binding state /{s[a]=$3}
               END{for(a in s){sub(";","",s[a]); c[s[a]]++} for(k in c) print k, c[k]}"#,
        )
        .arg(path)
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8(out.stdout).ok()?;
    Some(
        text.lines()
            .filter_map(|l| l.split_once(' '))
            .map(|(k, v)| (k.to_string(), v.parse().unwrap()))
            .collect(),
    )
}

fn grep_count(path: &Path, pattern: &str) -> usize {
    let out = Command::new("grep")
        .args(["-c", pattern])
        .arg(path)
        .output()
        .expect("grep");
    String::from_utf8(out.stdout)
        .unwrap()
        .trim()
        .parse()
        .unwrap()
}

fn reader_counts(f: &leases::LeaseFile) -> BTreeMap<String, usize> {
    let mut m = BTreeMap::new();
    for e in &f.leases {
        let b = e
            .binding_state
            .expect("every real lease has a binding state");
        *m.entry(b.name().to_string()).or_default() += 1;
    }
    m
}

#[test]
fn the_real_lease_files_read_cleanly_with_awks_counts() {
    let Some(dir) = common::shared_dir() else {
        return;
    };
    let dir = dir.join("captures/dhcp-failover");
    for (name, expected_blocks) in [
        ("primary.dhcpd.leases", 2127),
        ("secondary.dhcpd.leases", 389),
    ] {
        let path = dir.join(name);
        let f = leases::read_path(&path).expect("read");
        assert!(
            f.errors.is_empty(),
            "{name}: {:?}",
            &f.errors[..3.min(f.errors.len())]
        );
        assert_eq!(f.lease_blocks, grep_count(&path, "^lease "), "{name}");
        assert_eq!(f.lease_blocks, expected_blocks, "{name}");
        let awk = awk_counts(&path).expect("awk runs");
        assert_eq!(reader_counts(&f), awk, "{name}");
        // The pool is 192.0.2.100-159 (common.inc): every address appears.
        assert_eq!(f.leases.len(), 60, "{name}");
        assert_eq!(f.leases[0].address, Some(Ipv4Addr::new(192, 0, 2, 100)));
        assert_eq!(f.byte_order, Some(ByteOrder::LittleEndian));
        assert_eq!(f.peers.len(), 1);
        assert_eq!(f.peers[0].name, b"iscfo");
    }
    // What the files say in plain sight, checked here by value: the primary's last state block
    // and the secondary's first uid.
    let p = leases::read_path(&dir.join("primary.dhcpd.leases")).unwrap();
    let awk = awk_counts(&dir.join("primary.dhcpd.leases")).unwrap();
    assert_eq!(
        (awk["free"], awk["backup"], awk["active"], awk["expired"]),
        (20, 36, 3, 1)
    );
    let peer = &p.peers[0];
    assert_eq!(
        peer.my.as_ref().unwrap().state,
        "communications-interrupted"
    );
    let s = leases::read_path(&dir.join("secondary.dhcpd.leases")).unwrap();
    let l103 = s
        .leases
        .iter()
        .find(|e| e.address == Some(Ipv4Addr::new(192, 0, 2, 103)))
        .unwrap();
    // Its last block says uid "\001\002\301\376\012\001\012".
    assert_eq!(
        l103.uid.as_deref(),
        Some(&[1, 2, 0o301, 0o376, 0o12, 1, 0o12][..])
    );
    assert_eq!(s.server_duid.as_ref().map(Vec::len), Some(14));
}

#[test]
fn the_handwritten_fixture_reads_as_documented() {
    let f = leases::read_path(&common::fixture("leases/handwritten.leases")).unwrap();
    assert!(f.errors.is_empty(), "{:?}", f.errors);
    // 2024/03/01 12:00:00 UTC.
    const NOON: i64 = 1_709_294_400;
    assert_eq!(f.byte_order, Some(ByteOrder::BigEndian));
    assert_eq!(
        f.server_duid.as_deref(),
        Some(&[0, 1, 0, 1, 0o55, 1, 2, 3][..])
    );
    assert_eq!(f.peers.len(), 2);
    let a = &f.peers[0];
    assert_eq!(a.name, b"pair-a");
    assert_eq!(a.my.as_ref().unwrap().state, "normal");
    assert_eq!(a.my.as_ref().unwrap().at, Some(LeaseTime::At(NOON)));
    let partner = a.partner.as_ref().unwrap();
    assert_eq!(partner.state, "communications-interrupted");
    assert_eq!(partner.at, Some(LeaseTime::At(NOON + 10)));
    assert_eq!(a.mclt, Some(3600));
    assert_eq!(
        f.peers[1].my.as_ref().unwrap().at,
        Some(LeaseTime::At(NOON - 3600))
    );

    assert_eq!(f.lease_blocks, 8);
    assert_eq!(
        f.skipped,
        [(89, "host".to_string()), (95, "class".to_string())]
    );
    let by: BTreeMap<u8, &leases::LeaseEntry> = f
        .leases
        .iter()
        .map(|e| (e.address.unwrap().octets()[3], e))
        .collect();
    assert_eq!(
        by.keys().copied().collect::<Vec<_>>(),
        [10, 11, 12, 13, 14, 15, 16]
    );

    // .10: the second block (line 42) replaced the first.
    let l = by[&10];
    assert_eq!(l.line, 42);
    assert_eq!(l.starts, Some(LeaseTime::At(NOON - 300)));
    assert_eq!(l.ends, Some(LeaseTime::At(NOON)));
    assert_eq!(l.cltt, Some(LeaseTime::At(NOON - 300)));
    assert_eq!(l.binding_state, Some(Binding::Expired));
    assert_eq!(l.next_binding_state, Some(Binding::Free));
    assert_eq!(l.rewind_binding_state, Some(Binding::Active));
    assert_eq!(
        l.hardware,
        Some(Hardware {
            htype: 6,
            address: vec![0, 0, 0x5e, 0, 0x53, 0x0a]
        })
    );
    assert_eq!(l.uid.as_deref(), Some(&[1, 0, 0, 0x5e, 0, 0x53, 0x0a][..]));
    assert_eq!(l.client_hostname.as_deref(), Some(&b"lab\"host\\1"[..]));
    assert_eq!(
        l.set,
        [
            (
                "ddns-fwd-name".to_string(),
                "\"lab.example.org\"".to_string()
            ),
            (
                "vendor-class-identifier".to_string(),
                "\"poolshark-test\"".to_string()
            )
        ]
    );

    // .11: never used.
    let l = by[&11];
    assert_eq!(l.binding_state, Some(Binding::Free));
    assert_eq!((l.starts, l.ends, l.uid.as_ref()), (None, None, None));

    // .12: every time, and the uid's octal escapes: \001 \000 \000 ^ \000 S \014.
    let l = by[&12];
    assert_eq!(l.starts, Some(LeaseTime::At(NOON - 100)));
    assert_eq!(l.ends, Some(LeaseTime::At(NOON - 60)));
    assert_eq!(l.tstp, Some(LeaseTime::At(NOON - 60)));
    assert_eq!(l.tsfp, Some(LeaseTime::At(NOON - 59)));
    assert_eq!(l.atsfp, Some(LeaseTime::At(NOON - 58)));
    assert_eq!(l.binding_state, Some(Binding::Backup));
    assert_eq!(l.uid.as_deref(), Some(&[1, 0, 0, 0x5e, 0, 0x53, 0x0c][..]));
    assert_eq!(l.hardware.as_ref().unwrap().htype, 1);

    let l = by[&13];
    assert_eq!(l.ends, Some(LeaseTime::Never));
    assert!(l.reserved && !l.dynamic_bootp);
    assert_eq!(l.hardware.as_ref().unwrap().htype, 8);
    let l = by[&14];
    assert_eq!(l.binding_state, Some(Binding::Released));
    assert_eq!(l.ends, Some(LeaseTime::At(NOON - 9000)));
    assert!(l.dynamic_bootp);
    // The old `abandoned;` flag reads as the binding state.
    let l = by[&15];
    assert_eq!(l.binding_state, Some(Binding::Abandoned));
    assert_eq!(
        l.hardware,
        Some(Hardware {
            htype: 99,
            address: vec![10, 11]
        })
    );
    let l = by[&16];
    assert_eq!(l.binding_state, Some(Binding::Reset));
    assert_eq!(l.hardware.as_ref().unwrap().htype, 32);
}

#[test]
fn the_broken_fixture_reports_each_mistake_by_line_and_keeps_the_rest() {
    let f = leases::read_path(&common::fixture("leases/broken.leases")).unwrap();
    let lines: Vec<usize> = f.errors.iter().map(|e| e.line).collect();
    assert_eq!(
        lines,
        [4, 8, 11, 15, 16, 18, 19, 22, 23, 25, 26, 27, 29],
        "{:#?}",
        f.errors
    );
    let say = |line: usize, part: &str| {
        let e = f.errors.iter().find(|e| e.line == line).unwrap();
        assert!(e.what.contains(part), "line {line}: {}", e.what);
    };
    say(4, "not a calendar date");
    say(8, "unknown binding state 'lost'");
    say(11, "not an IPv4 address");
    say(15, "unknown hardware type 'carrier-pigeon'");
    say(18, "unknown lease statement 'frobnicate'");
    say(19, "not ended by ';'");
    say(22, "unknown failover state 'asleep'");
    say(26, "'}' without a block");
    say(29, "not closed");

    let by: BTreeMap<u8, &leases::LeaseEntry> = f
        .leases
        .iter()
        .map(|e| (e.address.unwrap().octets()[3], e))
        .collect();
    assert_eq!(by.keys().copied().collect::<Vec<_>>(), [1, 2, 3, 4]);
    assert_eq!(by[&1].binding_state, Some(Binding::Free));
    assert_eq!(by[&1].starts, None);
    assert_eq!(by[&2].binding_state, None);
    assert!(by[&2].hardware.is_some());
    assert_eq!(by[&3].binding_state, Some(Binding::Backup));
    assert_eq!((by[&3].hardware.as_ref(), by[&3].ends), (None, None));
    assert_eq!(by[&4].binding_state, Some(Binding::Active));
    assert_eq!(f.peers.len(), 1);
    assert_eq!(f.peers[0].mclt, None);
}
