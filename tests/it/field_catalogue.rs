//! The catalogue of the messages' field names (`poolshark::field::catalogue`), which display
//! filters and `-T fields` columns resolve names against: every name in it is one of tshark's
//! (`tshark -G fields`) or poolshark's own `poolshark.*`; every name the messages of the shared
//! captures hold is in it; and a name outside it is refused as tshark refuses a name it does not
//! know (exit 2 for `-Y`, 1 for `-e`, "... is neither a field nor a protocol name").

use crate::common;

use std::collections::BTreeSet;
use std::process::Command;

use poolshark::field::catalogue;

#[test]
fn every_catalogued_name_is_a_tshark_field_or_poolsharks_own() {
    if !common::have_tshark() {
        return;
    }
    let known = common::tshark::registered();
    let strangers: Vec<&str> = catalogue::FIELDS
        .iter()
        .copied()
        .filter(|n| !n.starts_with("poolshark.") && !known.contains_key(*n))
        .collect();
    assert!(
        strangers.is_empty(),
        "not in tshark -G fields: {strangers:?}"
    );
    // The fields without a value are FT_NONE in Wireshark (tshark's -T fields writes them as 1).
    for n in catalogue::FIELDS.iter().filter(|n| catalogue::no_value(n)) {
        assert_eq!(known.get(*n).map(String::as_str), Some("FT_NONE"), "{n}");
    }
    assert!(catalogue::FIELDS.len() > 350, "{}", catalogue::FIELDS.len());
}

/// The names of every message's tree in the JSON records of `capture`.
fn record_names(capture: &std::path::Path, into: &mut BTreeSet<String>) {
    let out = common::poolshark()
        .args(["read", "--no-progress", "--format", "jsonl"])
        .arg(capture)
        .output()
        .expect("poolshark read");
    assert!(out.status.success(), "{}: {out:?}", capture.display());
    for l in String::from_utf8_lossy(&out.stdout).lines() {
        let Ok(r) = serde_json::from_str::<serde_json::Value>(l) else {
            continue;
        };
        if let Some(o) = r["fields"].as_object() {
            into.extend(o.keys().cloned());
        }
    }
}

#[test]
fn every_field_of_the_shared_captures_messages_is_catalogued() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    let mut caps = common::captures_under(&common::fixture(""));
    caps.retain(|p| !p.components().any(|c| c.as_os_str() == "fuzz"));
    for dir in ["dhcp", "dhcp-kea", "dhcp-failover", "rserpool", "external"] {
        caps.extend(common::captures_under(&shared.join("captures").join(dir)));
    }
    let mut names = BTreeSet::new();
    for cap in &caps {
        record_names(cap, &mut names);
    }
    let missing: Vec<&String> = names
        .iter()
        .filter(|n| catalogue::catalogued_protocol(n) && !catalogue::contains(n))
        .collect();
    assert!(missing.is_empty(), "not in the catalogue: {missing:?}");
    let used = names.iter().filter(|n| catalogue::contains(n)).count();
    eprintln!(
        "{} captures: {used} of the catalogue's {} names in their messages",
        caps.len(),
        catalogue::FIELDS.len()
    );
    assert!(used > 250, "only {used} names seen");
}

/// Exit code and standard error of poolshark's and tshark's `read`/`-r` with `args`.
fn both(args: &[&str]) -> ((Option<i32>, String), (Option<i32>, String)) {
    let demo = common::fixture("demo.pcap");
    let ours = common::poolshark()
        .args(["read", "--no-progress"])
        .args(args)
        .arg(&demo)
        .output()
        .expect("poolshark read");
    let theirs = Command::new("tshark")
        .arg("-r")
        .arg(&demo)
        .args(args)
        .output()
        .expect("tshark");
    let err = |o: &std::process::Output| String::from_utf8_lossy(&o.stderr).into_owned();
    (
        (ours.status.code(), err(&ours)),
        (theirs.status.code(), err(&theirs)),
    )
}

#[test]
fn names_that_are_no_field_are_refused_as_tshark_refuses_them() {
    if !common::have_tshark() {
        return;
    }
    for (args, code, says) in [
        (
            &["-Y", "dhcp.nosuch"][..],
            2,
            "neither a field nor a protocol name",
        ),
        (
            &["-Y", "asap.no_such_field == 1"],
            2,
            "neither a field nor a protocol name",
        ),
        (
            &["-T", "fields", "-e", "dhcp.nosuch"],
            1,
            "fields aren't valid",
        ),
        (
            &["-T", "fields", "-e", "frame.number", "-e", "nosuchproto.x"],
            1,
            "fields aren't valid",
        ),
        (
            &["-T", "fields", "-e", "dhcpv6.nosuch", "-Y", "dhcp"],
            1,
            "fields aren't valid",
        ),
    ] {
        let ((ours, err), (theirs, terr)) = both(args);
        assert_eq!(theirs, Some(code), "tshark {args:?}: {terr}");
        assert_eq!(ours, Some(code), "poolshark {args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
        let name = args
            .iter()
            .rev()
            .find(|a| a.contains("nosuch") || a.contains("no_such"));
        let name = name
            .and_then(|n| n.split_whitespace().next())
            .unwrap_or_default();
        assert!(err.contains(name), "{args:?} names {name}: {err}");
    }
    // Names of the catalogue are taken, whether a frame has them or not, as tshark takes them.
    for args in [
        &["-Y", "dhcp.option.vi.enterprise == 3561 || dhcp.secs_le"][..],
        &[
            "-T",
            "fields",
            "-e",
            "dhcpv6.clientfqdn.server.o",
            "-e",
            "dhcp.option.value",
        ],
    ] {
        let ((ours, err), (theirs, terr)) = both(args);
        assert_eq!(theirs, Some(0), "tshark {args:?}: {terr}");
        assert_eq!(ours, Some(0), "poolshark {args:?}: {err}");
    }
}
