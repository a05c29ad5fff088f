//! `poolshark hash` as users run it: the real binary, its output and exit codes.

use crate::common;

use std::process::Output;

fn run(args: &[&str]) -> Output {
    common::poolshark()
        .arg("hash")
        .args(args)
        .output()
        .expect("run poolshark")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn bucket_alone() {
    // ISC's unit-test key: chaddr 0e, hlen 1 -> bucket 232.
    let o = run(&["0e"]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(stdout(&o), "232\n");
    // The empty key is bucket 0.
    let o = run(&[""]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(stdout(&o), "0\n");
}

#[test]
fn capture_readme_keys_with_owners() {
    // zeek_dhcp_discover_param_req_and_client_id.pcap (README): option 61 hashes to 92, chaddr
    // to 23.
    let o = run(&["01:00:0b:82:01:fc:42", "--hba", "split:128"]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(stdout(&o), "92 primary\n");
    let o = run(&["000b8201fc42", "--hba", "split:128"]);
    assert_eq!(stdout(&o), "23 primary\n");
    let o = run(&["000b8201fc42", "--hba", "kea"]);
    assert_eq!(stdout(&o), "23 secondary\n");
    let o = run(&["01000b8201fc42", "--hba", "split:92"]);
    assert_eq!(
        stdout(&o),
        "92 secondary\n",
        "split:92 gives the primary 0-91 only"
    );
    let o = run(&["01000b8201fc42", "--hba", "split:93"]);
    assert_eq!(stdout(&o), "92 primary\n");
    // The same map spelled out: bucket 92 is byte 11, bit 0x10.
    let mut map = vec!["00"; 32];
    map[11] = "10";
    let o = run(&["01000b8201fc42", "--hba", &map.join(":")]);
    assert_eq!(stdout(&o), "92 primary\n");
    let o = run(&["01000b8201fc42", "--hba", &map.concat()]);
    assert_eq!(stdout(&o), "92 primary\n");
    map[11] = "ef";
    let o = run(&["01000b8201fc42", "--hba", &map.concat()]);
    assert_eq!(stdout(&o), "92 secondary\n");
}

#[test]
fn json_output() {
    let o = run(&["01:00:0B:82:01:FC:42", "--hba", "kea", "--format", "json"]);
    assert_eq!(o.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("one JSON object");
    assert_eq!(v["key"], "01000b8201fc42");
    assert_eq!(v["bucket"], 92);
    assert_eq!(v["owner"], "primary");
    assert_eq!(v["hba"], "kea");

    let o = run(&["", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("one JSON object");
    assert_eq!(v["key"], "");
    assert_eq!(v["bucket"], 0);
    assert!(v["owner"].is_null());

    // The map is echoed in its shortest form.
    let o = run(&["0e", "--hba", &"ff".repeat(32), "--format", "json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("one JSON object");
    assert_eq!(v["hba"], "split:256");
    assert_eq!(v["owner"], "primary");
}

#[test]
fn bad_input_exits_2_with_a_message() {
    for args in [
        vec!["0"],
        vec!["zz"],
        vec!["01:2"],
        vec!["0e", "--hba", "split:257"],
        vec!["0e", "--hba", "ff"],
        vec!["0e", "--hba", "half"],
        vec!["0e", "--format", "xml"],
        vec![],
    ] {
        let o = run(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(o.stdout.is_empty(), "{args:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!err.trim().is_empty(), "{args:?}: no message");
    }
    let o = run(&["0e", "--hba", "split:300"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("--hba") && err.contains("256"), "{err}");
    let o = run(&["xyz"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("key 'xyz'"), "{err}");
}
