//! `check --config` with the servers' own configuration files, on the shared captures.
//!
//! Oracles: the captures' READMEs (../shared/captures/dhcp-failover/README.md gives the pair's
//! `split 128`, `mclt 60`, `load balance max seconds 3` and pool balance statements, and the one
//! pool 192.0.2.100-159; dhcp-kea/README.md names server1 the primary with DUID
//! 00:03:00:01:02:00:00:00:01:01 and server2 the secondary with ...02:02, and says every
//! load-balanced answer came from the server Kea's rule picks), `check` without the files
//! (the verdicts must not change when the files say what inference found), and Kea itself
//! (`kea-dhcp6 -t`, when installed, accepts the configurations written here).

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn tmp(name: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// `poolshark check --format json ARGS` run in `dir`: the report, the exit code, stderr.
fn check(dir: &Path, args: &[&str]) -> (Value, Option<i32>, String) {
    let out: Output = common::poolshark()
        .current_dir(dir)
        .arg("check")
        .args(["--format", "json", "--no-progress"])
        .args(args)
        .output()
        .expect("run poolshark");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let j = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    (j, out.status.code(), stderr)
}

/// (frame, rule, severity, subject) of every finding but the configuration's own.
fn verdicts(j: &Value) -> Vec<(u64, String, String, String)> {
    j["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| {
            !f["rule"]
                .as_str()
                .unwrap_or_default()
                .starts_with("config.")
        })
        .map(|f| {
            (
                f["frame"].as_u64().unwrap_or(0),
                f["rule"].as_str().unwrap_or_default().to_string(),
                f["severity"].as_str().unwrap_or_default().to_string(),
                f["server"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect()
}

/// The number the README gives after `key` (its text writes "`mclt 60`").
fn readme_number(readme: &str, key: &str) -> u64 {
    let at = readme
        .find(&format!("`{key} "))
        .unwrap_or_else(|| panic!("{key}"));
    readme[at + key.len() + 2..]
        .split('`')
        .next()
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("{key}"))
}

/// A folder where `./conf/common.inc`, as the shared configurations include it, resolves as it
/// did for dhcpd: `conf` links to the shared capture's folder.
fn failover_dir() -> Option<PathBuf> {
    let shared = common::shared_dir()?.join("captures/dhcp-failover");
    let dir = tmp("config-check-failover");
    let link = dir.join("conf");
    if !link.exists() {
        std::os::unix::fs::symlink(&shared, &link).expect("symlink");
    }
    Some(dir)
}

const FO_CAPTURE: &str = "conf/isc-dhcpd-4.4.3-failover.pcap";

#[test]
fn the_failover_pairs_files_are_the_reference_with_the_same_verdicts() {
    let Some(dir) = failover_dir() else { return };
    let readme = std::fs::read_to_string(dir.join("conf/README.md")).unwrap();
    let (plain, code_plain, _) = check(&dir, &[FO_CAPTURE]);
    let (j, code, stderr) = check(
        &dir,
        &[
            "--config",
            "conf/primary.conf",
            "--config",
            "conf/secondary.conf",
            FO_CAPTURE,
        ],
    );
    assert_eq!(code, code_plain, "{stderr}");
    assert!(!stderr.contains("not used"), "{stderr}");
    // The map, the threshold and the profile come from the files, as the README gives them.
    let hba = &j["hba"]["dhcpv4"];
    assert_eq!(hba["source"], "config");
    assert_eq!(
        hba["spec"],
        format!("split:{}", readme_number(&readme, "split"))
    );
    assert_eq!(hba["primary"], "192.0.2.1");
    assert_eq!(hba["secondary"], "192.0.2.2");
    let pair = &j["dhcp_lb"]["pairs"][0];
    assert_eq!(
        (pair["profile"].as_str(), pair["profile_source"].as_str()),
        (Some("isc"), Some("config"))
    );
    assert_eq!(
        pair["threshold_seconds"],
        readme_number(&readme, "load balance max seconds")
    );
    assert_eq!(pair["threshold_source"], "config");
    // Without the files the same map and threshold are learnt from the capture.
    assert_eq!(plain["hba"]["dhcpv4"]["spec"], hba["spec"]);
    assert_ne!(plain["hba"]["dhcpv4"]["source"], "config");
    // The balance options are the files' (dhcpd's defaults are 15, 10, 60 and 3600).
    let params = &j["failover"]["params"];
    assert_eq!(params["source"], "config");
    for (json, key) in [
        ("max_lease_misbalance", "max-lease-misbalance"),
        ("max_lease_ownership", "max-lease-ownership"),
        ("min_balance", "min-balance"),
        ("max_balance", "max-balance"),
    ] {
        assert_eq!(params[json], readme_number(&readme, key), "{key}");
    }
    assert_eq!(plain["failover"]["params"]["source"], "default");
    // The one pool, 192.0.2.100-159, is the config's.
    let pools = j["failover"]["pools"].as_array().unwrap();
    assert_eq!(pools.len(), 1);
    assert_eq!(pools[0]["pool"], "192.0.2.0/24");
    let c = &pools[0];
    let total =
        c["free"].as_u64().unwrap() + c["backup"].as_u64().unwrap() + c["active"].as_u64().unwrap();
    assert!(total <= 60, "{c}");
    // The same verdicts as without the files, and the two files agree with each other.
    assert_eq!(verdicts(&j), verdicts(&plain));
    assert!(!verdicts(&j).is_empty());
    assert_eq!(j["config"]["mismatches"], serde_json::json!([]));
    assert_eq!(j["config"]["files"].as_array().map(Vec::len), Some(2));
    // The text report says where each setting came from.
    let out = common::poolshark()
        .current_dir(&dir)
        .args([
            "check",
            "--no-progress",
            "--config",
            "conf/primary.conf",
            FO_CAPTURE,
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("hba split:128 (config)"), "{text}");
    assert!(
        text.contains("delayed service after 3 s (config)"),
        "{text}"
    );
    assert!(text.contains("balance options (config): max-lease-misbalance 15 %, max-lease-ownership 10 %, min-balance 5 s, max-balance 30 s"), "{text}");
}

#[test]
fn two_files_that_disagree_are_a_finding() {
    let Some(dir) = failover_dir() else { return };
    let primary = std::fs::read_to_string(dir.join("conf/primary.conf")).unwrap();
    let secondary = std::fs::read_to_string(dir.join("conf/secondary.conf")).unwrap();
    // Another primary for the same pair, with split 100 and mclt 30; and a secondary whose
    // min-balance differs.
    let other = primary
        .replace("split 128;", "split 100;")
        .replace("mclt 60;", "mclt 30;");
    assert_ne!(other, primary);
    std::fs::write(dir.join("other-primary.conf"), other).unwrap();
    let slow = secondary.replace("min-balance 5;", "min-balance 50;");
    assert_ne!(slow, secondary);
    std::fs::write(dir.join("slow-secondary.conf"), slow).unwrap();
    let (j, code, stderr) = check(
        &dir,
        &[
            "--config",
            "conf/primary.conf",
            "--config",
            "other-primary.conf",
            "--fail-on",
            "error",
            FO_CAPTURE,
        ],
    );
    assert_eq!(code, Some(1), "an error-level finding: {stderr}");
    let found: Vec<(String, String)> = j["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == "config.mismatch")
        .map(|f| {
            (
                f["observed"][0]["value"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string()
                    + " / "
                    + f["observed"][1]["value"].as_str().unwrap_or_default(),
                f["severity"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect();
    assert!(
        found.contains(&("split 128 / split 100".into(), "error".into())),
        "{found:?}"
    );
    assert!(
        found.contains(&("60 / 30".into(), "warning".into())),
        "{found:?}"
    );
    assert!(
        found.contains(&("primary / primary".into(), "error".into())),
        "{found:?}"
    );
    assert_eq!(j["findings"][0]["frame"], 0, "no frame: about the files");
    let (j, _, _) = check(
        &dir,
        &[
            "--config",
            "conf/primary.conf",
            "--config",
            "slow-secondary.conf",
            FO_CAPTURE,
        ],
    );
    let m = &j["config"]["mismatches"];
    assert_eq!(m.as_array().map(Vec::len), Some(1), "{m}");
    assert_eq!(m[0]["setting"], "min-balance");
    assert_eq!(m[0]["values"][1]["value"], "50");
}

#[test]
fn a_file_with_errors_is_left_out_and_the_run_goes_on() {
    let Some(dir) = failover_dir() else { return };
    std::fs::write(
        dir.join("broken.conf"),
        "failover peer \"iscfo\" {\n  primary;\n  split 300;\n}\n",
    )
    .unwrap();
    let (j, code, stderr) = check(
        &dir,
        &[
            "--config",
            "broken.conf",
            "--config",
            "conf/primary.conf",
            FO_CAPTURE,
        ],
    );
    assert!(matches!(code, Some(0 | 1)), "{stderr}");
    assert!(
        stderr.contains("broken.conf:3:3: split must be between 0 and 256, inclusive"),
        "{stderr}"
    );
    assert!(
        stderr.contains("broken.conf:1:1: peer address may not be omitted"),
        "{stderr}"
    );
    assert!(
        stderr.contains("--config broken.conf: not used"),
        "{stderr}"
    );
    assert_eq!(
        j["hba"]["dhcpv4"]["source"], "config",
        "primary.conf was used"
    );
    // Nothing usable: exit 2.
    let (_, code, stderr) = check(&dir, &["--config", "broken.conf", FO_CAPTURE]);
    assert_eq!(code, Some(2), "{stderr}");
}

/// A Kea 2.2 HA configuration for one server of the shared Kea capture's pair: `me` with DUID
/// 00:03:00:01:02:00:00:00:`id`:`id` (DUID-LL, hardware type 1), the peers with their roles.
fn kea_config(me: &str, id: &str, roles: [&str; 2]) -> String {
    format!(
        r#"// {me} of the HA pair of ../shared/captures/dhcp-kea
{{
  "Dhcp6": {{
    "interfaces-config": {{ "interfaces": [ ] }},
    # the DUID the capture shows for {me}
    "server-id": {{ "type": "LL", "htype": 1, "identifier": "02000000{id}{id}", "persist": false }},
    "lease-database": {{ "type": "memfile", "persist": false }},
    "hooks-libraries": [
      {{ "library": "/usr/lib/x86_64-linux-gnu/kea/hooks/libdhcp_lease_cmds.so" }},
      {{ "library": "/usr/lib/x86_64-linux-gnu/kea/hooks/libdhcp_ha.so",
        "parameters": {{ "high-availability": [ {{
          "this-server-name": "{me}",
          "mode": "load-balancing",
          "heartbeat-delay": 10000, "max-response-delay": 20000, "max-ack-delay": 5000,
          "max-unacked-clients": 0,
          "peers": [
            {{ "name": "server1", "url": "http://[2001:db8::1]:8000/", "role": "{}" }},
            {{ "name": "server2", "url": "http://[2001:db8::2]:8000/", "role": "{}" }}
          ] }} ] }} }}
    ],
    "subnet6": [ {{ "id": 1, "subnet": "2001:db8:1::/64",
                   "pools": [ {{ "pool": "2001:db8:1::100 - 2001:db8:1::ffff" }} ] }} ]
  }}
}}
"#,
        roles[0], roles[1]
    )
}

/// Kea's own verdict on a configuration, when kea-dhcp6 and its HA hook are installed.
fn kea_accepts(path: &Path) -> Option<bool> {
    let hook = Path::new("/usr/lib/x86_64-linux-gnu/kea/hooks/libdhcp_ha.so");
    let run = Command::new("kea-dhcp6").arg("-t").arg(path).output();
    match run {
        Ok(out) if hook.is_file() => Some(out.status.success()),
        _ => {
            poolshark::test_support::skip(
                "kea-dhcp6 with libdhcp_ha.so is not installed: Kea is not asked to accept the configurations",
            );
            None
        }
    }
}

#[test]
fn a_kea_pairs_files_give_the_map_and_swapped_roles_are_wrong_server() {
    let Some(cap) = common::shared_capture("dhcp-kea/kea-2.2-ha-load-balancing-v6.pcap") else {
        return;
    };
    let dir = tmp("config-check-kea");
    let cap = cap.display().to_string();
    let write = |name: &str, me: &str, id: &str, roles: [&str; 2]| {
        let p = dir.join(name);
        std::fs::write(&p, kea_config(me, id, roles)).unwrap();
        if let Some(ok) = kea_accepts(&p) {
            assert!(ok, "kea-dhcp6 -t refuses {name}");
        }
        p.display().to_string()
    };
    let s1 = write("server1.conf", "server1", "01", ["primary", "secondary"]);
    let s2 = write("server2.conf", "server2", "02", ["primary", "secondary"]);
    let (plain, _, _) = check(&dir, &[&cap]);
    let (j, _, stderr) = check(&dir, &["--config", &s1, "--config", &s2, &cap]);
    assert!(!stderr.contains("not used"), "{stderr}");
    let hba = &j["hba"]["dhcpv6"];
    assert_eq!(
        (hba["spec"].as_str(), hba["source"].as_str()),
        (Some("kea"), Some("config"))
    );
    assert_eq!(
        (hba["primary"].as_str(), hba["secondary"].as_str()),
        (Some("server1"), Some("server2"))
    );
    assert_eq!(j["dhcp_lb"]["pairs"][0]["profile_source"], "config");
    // The servers are the files' (named as there), known by their DUIDs.
    let ids: Vec<String> = j["servers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| format!("{} {}", s["server"].as_str().unwrap(), s["identifiers"]))
        .collect();
    assert!(
        ids.iter()
            .any(|s| s.starts_with("server1") && s.contains("00:03:00:01:02:00:00:00:01:01")),
        "{ids:?}"
    );
    assert!(
        ids.iter()
            .any(|s| s.starts_with("server2") && s.contains("00:03:00:01:02:00:00:00:02:02")),
        "{ids:?}"
    );
    let wrong = |j: &Value| {
        j["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["rule"] == "dhcp.lb.wrong-server")
            .count()
    };
    // Every balanced answer came from its bucket's owner (README): nothing wrong, as without
    // the files, and the same verdicts but for the servers' names.
    assert_eq!(wrong(&j), 0);
    assert_eq!(verdicts(&j).len(), verdicts(&plain).len());
    // The roles swapped in both files: server2 the primary, so each server answered the other's
    // buckets all along.
    let w1 = write("swapped1.conf", "server1", "01", ["secondary", "primary"]);
    let w2 = write("swapped2.conf", "server2", "02", ["secondary", "primary"]);
    let (sw, _, _) = check(&dir, &["--config", &w1, "--config", &w2, &cap]);
    assert_eq!(sw["hba"]["dhcpv6"]["primary"], "server2");
    let n = wrong(&sw);
    // The answers of the load-balancing phases: far more than the few dozen findings of the
    // right configuration.
    assert!(n > 500, "{n} wrong-server findings");
    for f in sw["findings"].as_array().unwrap() {
        if f["rule"] == "dhcp.lb.wrong-server" {
            let s = f["server"].as_str().unwrap();
            assert!(s == "server1" || s == "server2", "{f}");
        }
    }
    assert_eq!(
        sw["config"]["mismatches"],
        serde_json::json!([]),
        "the two files agree"
    );
}
