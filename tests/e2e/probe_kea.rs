//! `poolshark probe` against Kea 2.2 HA load-balancing pairs. Kea's rule (its documentation,
//! NOTES.md section 2): a client's bucket is the RFC 3074 hash of its client identifier or
//! hardware address (v4) or whole DUID (v6); even buckets go to the primary, odd ones to the
//! secondary.

use std::time::Duration;

use super::lab::Lab;
use super::probe_run::{probe, probe_interrupted};
use super::servers::{kea_pair, kea_server_duid, kea_wait_balancing, V};

const SERVER1: &str = "192.0.2.1";
const SERVER2: &str = "192.0.2.2";

#[test]
fn kea_v4_pair_serves_even_buckets_on_the_primary() {
    let Some(lab) = Lab::up() else {
        return;
    };
    let mut pair = kea_pair(&lab, V::Four, false);
    kea_wait_balancing(&mut pair);
    let run = probe(
        &lab,
        &[
            "--dhcpv4",
            "--profile",
            "kea",
            "--server",
            "primary=192.0.2.1",
        ],
    );
    run.check_keys_and_privileges();
    run.assert_map(|b| if b % 2 == 0 { SERVER1 } else { SERVER2 }.to_string());
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.report["summary"]["deviations"], 0);
    // Option 61 keys land in the same buckets.
    let run = probe(
        &lab,
        &[
            "--dhcpv4",
            "--key",
            "client-id",
            "--hba",
            "kea",
            "--server",
            "secondary=192.0.2.2",
        ],
    );
    run.check_keys_and_privileges();
    run.assert_map(|b| if b % 2 == 0 { SERVER1 } else { SERVER2 }.to_string());
    assert_eq!(run.code, 0, "{}", run.stderr);
    // Ctrl-C a second into a probe at 20/s: the report says what was probed, the buckets not
    // reached are "not probed", not "served by nobody", and the exit code is 2.
    let run = probe_interrupted(
        &lab,
        &["--dhcpv4", "--profile", "kea", "--rate", "20"],
        Duration::from_secs(1),
    );
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert_eq!(run.report["interrupted"], true);
    let probed = run.report["summary"]["probed"].as_u64().unwrap();
    assert!(probed > 5 && probed < 100, "{probed} probed");
    assert_eq!(run.deviation("none"), Vec::<u8>::new());
    let not_probed = run.report["buckets"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|b| b["verdict"] == "not-probed")
        .count();
    assert_eq!(not_probed as u64, 256 - probed);
}

#[test]
fn kea_v6_pair_serves_even_buckets_on_the_primary() {
    let Some(lab) = Lab::up() else {
        return;
    };
    let mut pair = kea_pair(&lab, V::Six, false);
    kea_wait_balancing(&mut pair);
    let primary = kea_server_duid(1);
    for key in ["duid-ll", "duid-en"] {
        let run = probe(
            &lab,
            &[
                "--dhcpv6",
                "--key",
                key,
                "--profile",
                "kea",
                "--server",
                &format!("primary={primary}"),
            ],
        );
        run.check_keys_and_privileges();
        run.assert_map(|b| kea_server_duid(if b % 2 == 0 { 1 } else { 2 }));
        assert_eq!(run.code, 0, "{key}: {}", run.stderr);
        let roles: Vec<(&str, &str)> = run.report["servers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| (s["id"].as_str().unwrap(), s["role"].as_str().unwrap()))
            .collect();
        assert_eq!(
            roles.iter().find(|(id, _)| *id == primary).map(|r| r.1),
            Some("primary")
        );
    }
}

/// server2's own configuration names itself the primary (and server1 the secondary): both
/// servers then serve the even buckets and nobody the odd ones, and the probe says so bucket
/// by bucket.
#[test]
fn kea_pair_with_roles_swapped_on_one_server_is_caught() {
    let Some(lab) = Lab::up() else {
        return;
    };
    let mut pair = kea_pair(&lab, V::Four, true);
    kea_wait_balancing(&mut pair);
    let run = probe(
        &lab,
        &[
            "--dhcpv4",
            "--profile",
            "kea",
            "--server",
            "primary=192.0.2.1",
            "--server",
            "secondary=192.0.2.2",
            "--retries",
            "1",
        ],
    );
    run.check_keys_and_privileges();
    let even: Vec<u8> = (0..=255).filter(|b| b % 2 == 0).collect();
    let odd: Vec<u8> = (0..=255).filter(|b| b % 2 == 1).collect();
    assert_eq!(run.deviation("both"), even, "{}", run.stderr);
    assert_eq!(run.deviation("none"), odd);
    assert_eq!(run.deviation("wrong_server"), Vec::<u8>::new());
    assert_eq!(run.code, 1);
    for (b, mut servers) in run.answered_by() {
        servers.sort();
        let expected: Vec<&str> = if b % 2 == 0 {
            vec![SERVER1, SERVER2]
        } else {
            vec![]
        };
        assert_eq!(servers, expected, "bucket {b}");
    }
}
