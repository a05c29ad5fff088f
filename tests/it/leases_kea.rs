//! `poolshark leases` on Kea's memfile lease files.
//!
//! Oracles: fixtures/kea/README.md, which records what the real kea-dhcp4 that wrote
//! fixtures/kea/kea-leases4.csv was asked to do and what is true of the file at its end (the
//! counts below are worked out from it in the comments), and for DHCPv6 a lease file written
//! here by hand from Kea's documented format.

use crate::common;

use std::process::Output;

use serde_json::Value;

fn run(args: &[&str]) -> Output {
    common::poolshark()
        .arg("leases")
        .args(args)
        .output()
        .expect("run poolshark")
}

fn json(args: &[&str]) -> (Value, Option<i32>) {
    let out = run(&[args, &["--format", "json"]].concat());
    let v = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    (v, out.status.code())
}

fn fixture(name: &str) -> String {
    common::fixture(&format!("kea/{name}"))
        .display()
        .to_string()
}

/// The README's end of the run.
const END: i64 = 1_796_414_991;
/// When the hour-long leases of subnet 1 expire.
const EXPIRE: i64 = 1_796_418_585;

/// (first, max, cur, touch) of every range, in the configuration's order.
fn ranges(j: &Value) -> Vec<(String, u64, u64, u64)> {
    j["usage"]["ranges"]
        .as_array()
        .expect("ranges")
        .iter()
        .map(|r| {
            (
                r["first"].as_str().unwrap().to_string(),
                r["max"].as_u64().unwrap(),
                r["cur"].as_u64().unwrap(),
                r["touch"].as_u64().unwrap(),
            )
        })
        .collect()
}

#[test]
fn a_real_kea_servers_leases_by_pool_and_state() {
    let (conf, csv) = (fixture("kea-dhcp4.conf"), fixture("kea-leases4.csv"));
    let end = END.to_string();
    let (j, code) = json(&["--config", &conf, &csv, "--now", &end]);
    assert_eq!(code, Some(0));
    assert_eq!(j["format"], "kea");
    assert_eq!(j["family"], "dhcpv4");
    // Every line after the header is a row.
    let text = std::fs::read_to_string(&csv).unwrap();
    assert_eq!(j["rows"], text.lines().count() - 1);
    assert_eq!(j["errors"], serde_json::json!([]));
    // 17 leases acknowledged, 2 released and deleted: 15 live, 2 deleted.
    assert_eq!(
        (j["leases"].as_u64(), j["deleted"].as_u64()),
        (Some(15), Some(2))
    );
    // Subnet 1: .13-.23 in use, .12 declined; subnet 2: three reclaimed.
    assert_eq!(
        j["subnets"],
        serde_json::json!([
            {"subnet_id": 1, "states": {"active": 11, "declined": 1}},
            {"subnet_id": 2, "states": {"expired-reclaimed": 3}},
        ])
    );
    // The pools as Kea's configuration lists them (the subnets outside shared networks first,
    // then each shared network's): 10 addresses with the three reclaimed; 20 with 11 in use
    // and the declined one free again; 16 unused.
    assert_eq!(
        ranges(&j),
        [
            ("198.51.100.10".to_string(), 10, 0, 3),
            ("192.0.2.10".to_string(), 20, 11, 1),
            ("203.0.113.0".to_string(), 16, 0, 0),
        ]
    );
    let r = &j["usage"]["ranges"];
    assert_eq!(
        (r[1]["shared_network"].as_str(), r[1]["subnet_id"].as_u64()),
        (Some("lab"), Some(1))
    );
    assert_eq!(r[0]["shared_network"], Value::Null);
    assert_eq!(r[1]["free"], 9);
    let lab = &j["usage"]["shared_networks"][0];
    assert_eq!(
        (
            lab["name"].as_str(),
            lab["max"].as_u64(),
            lab["cur"].as_u64(),
            lab["touch"].as_u64()
        ),
        (Some("lab"), Some(36), Some(11), Some(1))
    );
    let all = &j["usage"]["all"];
    assert_eq!(
        (
            all["max"].as_u64(),
            all["cur"].as_u64(),
            all["touch"].as_u64()
        ),
        (Some(46), Some(11), Some(4))
    );
    assert_eq!(j["usage"]["outside"], 0);
    // Without --now: the latest client transaction the file records, the acknowledgements of
    // the run (before its end), so the same leases are in use.
    let (j2, _) = json(&["--config", &conf, &csv]);
    assert!(j2["now"].as_i64().unwrap() <= END);
    assert_eq!(ranges(&j2), ranges(&j));
}

#[test]
fn leases_past_their_expiry_are_expired_not_in_use() {
    let (conf, csv) = (fixture("kea-dhcp4.conf"), fixture("kea-leases4.csv"));
    let later = (EXPIRE + 1).to_string();
    let (j, _) = json(&["--config", &conf, &csv, "--now", &later]);
    assert_eq!(
        j["subnets"][0]["states"],
        serde_json::json!({"expired": 11, "declined": 1})
    );
    assert_eq!(ranges(&j)[1], ("192.0.2.10".to_string(), 20, 0, 12));
    // At the expiry itself they are over (a lease is in use while its expiry lies ahead).
    let at = EXPIRE.to_string();
    let (j, _) = json(&["--config", &conf, &csv, "--now", &at]);
    assert_eq!(ranges(&j)[1].2, 0);
}

#[test]
fn alarms_and_csv_on_a_kea_file() {
    let (conf, csv) = (fixture("kea-dhcp4.conf"), fixture("kea-leases4.csv"));
    let end = END.to_string();
    // 11 of 20 in use is 55 %: above 50, a warning (exit 1); the network's 11 of 36 is not.
    let (j, code) = json(&["--config", &conf, &csv, "--now", &end, "--warning", "50"]);
    assert_eq!(code, Some(1));
    assert_eq!(j["alarms"]["verdict"], "WARNING");
    assert_eq!(
        j["alarms"]["ranges"],
        serde_json::json!({"critical": 0, "warning": 1, "ok": 2, "ignored": 0})
    );
    assert_eq!(j["usage"]["ranges"][1]["status"], "warning");
    let out = run(&["--config", &conf, &csv, "--now", &end, "--critical", "54"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stdout).contains(
        "alarms: CRITICAL: Ranges - crit: 1 warn: 0 ok: 2; Shared nets - crit: 0 warn: 0 ok: 1"
    ));
    // The CSV holds the JSON's numbers, one row per range and network and one for all.
    let out = run(&["--config", &conf, &csv, "--now", &end, "--format", "csv"]);
    let text = String::from_utf8(out.stdout).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), 3 + 1 + 1);
    for (row, (first, max, cur, touch)) in rows.iter().zip(ranges(&j)) {
        assert_eq!(row[col("kind")], "range");
        assert_eq!(row[col("first")], first);
        assert_eq!(row[col("max")], max.to_string());
        assert_eq!(row[col("cur")], cur.to_string());
        assert_eq!(row[col("touch")], touch.to_string());
    }
    assert_eq!(rows[3][col("kind")], "shared_network");
    assert_eq!(rows[3][col("shared_network")], "lab");
    assert_eq!(rows[4][col("kind")], "all");
    assert_eq!(rows[4][col("cur")], "11");
}

#[test]
fn a_kea_dhcpv6_file_with_addresses_and_prefixes() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("leases-kea6");
    std::fs::create_dir_all(&dir).unwrap();
    let conf = dir.join("kea-dhcp6.conf");
    std::fs::write(
        &conf,
        r#"{ "Dhcp6": { "subnet6": [ { "id": 7, "subnet": "2001:db8:1::/64",
             "pools": [ { "pool": "2001:db8:1::100-2001:db8:1::1ff" } ],
             "pd-pools": [ { "prefix": "2001:db8:8::", "prefix-len": 48, "delegated-len": 56 } ] } ] } }"#,
    )
    .unwrap();
    // Kea's kea-leases6.csv columns (Kea ARM, memfile): two addresses in use until 2000, one
    // expired at 500 and not yet reclaimed, one declined, a prefix in use and one reclaimed;
    // the second address's earlier row is superseded.
    let csv = dir.join("kea-leases6.csv");
    std::fs::write(
        &csv,
        "address,duid,valid_lifetime,expire,subnet_id,pref_lifetime,lease_type,iaid,prefix_len,fqdn_fwd,fqdn_rev,hostname,hwaddr,state,user_context\n\
         2001:db8:1::100,00:03:00:01:02:00:00:00:00:01,1000,2000,7,500,0,1,128,0,0,,,0,\n\
         2001:db8:1::101,00:03:00:01:02:00:00:00:00:02,1000,900,7,500,0,1,128,0,0,,,0,\n\
         2001:db8:1::101,00:03:00:01:02:00:00:00:00:02,1000,2000,7,500,0,1,128,0,0,,,0,\n\
         2001:db8:1::102,00:03:00:01:02:00:00:00:00:03,1000,500,7,500,0,1,128,0,0,,,0,\n\
         2001:db8:1::103,00,86400,90000,7,0,0,1,128,0,0,,,1,\n\
         2001:db8:8::,00:03:00:01:02:00:00:00:00:04,1000,2000,7,500,2,2,56,0,0,,,0,\n\
         2001:db8:8:100::,00:03:00:01:02:00:00:00:00:05,1000,300,7,500,2,2,56,0,0,,,2,\n\
         2001:db8:9::1,00:03:00:01:02:00:00:00:00:06,1000,2000,7,500,0,1,128,0,0,,,0,\n",
    )
    .unwrap();
    let (j, code) = json(&[
        "--config",
        conf.to_str().unwrap(),
        csv.to_str().unwrap(),
        "--now",
        "1000",
    ]);
    assert_eq!(code, Some(0));
    assert_eq!(j["family"], "dhcpv6");
    assert_eq!(
        j["subnets"][0]["states"],
        serde_json::json!({"active": 4, "expired": 1, "declined": 1, "expired-reclaimed": 1})
    );
    let r = &j["usage"]["ranges"];
    // 256 addresses: two in use, the expired and the declined one free again.
    assert_eq!(
        (
            r[0]["max"].as_u64(),
            r[0]["cur"].as_u64(),
            r[0]["touch"].as_u64()
        ),
        (Some(256), Some(2), Some(2))
    );
    // A /48 in /56s: 256 prefixes, one in use, one reclaimed.
    assert_eq!(r[1]["kind"], "prefixes");
    assert_eq!(r[1]["prefix_len"], 56);
    assert_eq!(
        (
            r[1]["max"].as_u64(),
            r[1]["cur"].as_u64(),
            r[1]["touch"].as_u64()
        ),
        (Some(256), Some(1), Some(1))
    );
    // Addresses and prefixes are summed apart; 2001:db8:9::1 lies in no pool.
    assert_eq!(j["usage"]["all"]["cur"], 2);
    assert_eq!(j["usage"]["all_prefixes"]["cur"], 1);
    assert_eq!(j["usage"]["outside"], 1);
}
