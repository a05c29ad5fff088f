//! Running `poolshark probe` on a lab's client host, and reading its report against the map the
//! test configured (each bucket's owner worked out by the test itself from the configuration
//! it wrote, each key hashed with the shared Pearson table: neither from poolshark's code).

use std::collections::BTreeMap;
use std::io::Read;
use std::process::Stdio;
use std::time::Duration;

use super::lab::Lab;
use crate::common::{rfc3074_bucket, rfc3074_table};

/// A finished probe.
pub struct ProbeRun {
    pub code: i32,
    pub report: serde_json::Value,
    pub stderr: String,
    /// The `Uid:` and `NoNewPrivs:` lines of the probe's /proc status, last seen while it ran.
    pub privileges: Vec<String>,
}

/// `poolshark probe -i eth0 --format json ARGS` on the client host, at 100 probes a second
/// (unless ARGS give a rate) with a one-second wait (the servers answer in milliseconds).
pub fn probe(lab: &Lab, args: &[&str]) -> ProbeRun {
    run(lab, args, None)
}

/// The same, with Ctrl-C (SIGINT) after `after`.
pub fn probe_interrupted(lab: &Lab, args: &[&str], after: Duration) -> ProbeRun {
    run(lab, args, Some(after))
}

fn run(lab: &Lab, args: &[&str], interrupt_after: Option<Duration>) -> ProbeRun {
    let started = std::time::Instant::now();
    let mut interrupted = false;
    let mut cmd = lab.command("c", env!("CARGO_BIN_EXE_poolshark"));
    cmd.args(["probe", "-i", "eth0", "--format", "json", "--wait", "1"]);
    if !args.contains(&"--rate") {
        cmd.args(["--rate", "100"]);
    }
    let mut child = cmd
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("probe starts");
    let pid = child.id();
    let mut out = child.stdout.take().expect("stdout");
    let mut err = child.stderr.take().expect("stderr");
    let reader = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = out.read_to_end(&mut s);
        s
    });
    let err_reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = err.read_to_string(&mut s);
        s
    });
    // While it runs, what the kernel says of its ids: it must have given up root.
    let mut privileges = Vec::new();
    while child.try_wait().ok().flatten().is_none() {
        if interrupt_after.is_some_and(|d| started.elapsed() >= d) && !interrupted {
            // SAFETY: a signal to our own child (the probe: `ip netns exec` became it).
            unsafe {
                libc::kill(pid as libc::pid_t, libc::SIGINT);
            }
            interrupted = true;
        }
        if let Ok(status) = std::fs::read_to_string(format!("/proc/{pid}/status")) {
            let lines: Vec<String> = status
                .lines()
                .filter(|l| l.starts_with("Uid:") || l.starts_with("NoNewPrivs:"))
                .map(str::to_string)
                .collect();
            if lines.len() == 2 {
                privileges = lines;
            }
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let status = child.wait().expect("probe ends");
    let stdout = reader.join().expect("stdout read");
    let stderr = err_reader.join().expect("stderr read");
    let report = serde_json::from_slice(&stdout).unwrap_or_else(|e| {
        panic!(
            "probe {args:?} wrote no JSON ({e}), exit {:?}: {stderr}",
            status.code()
        )
    });
    ProbeRun {
        code: status.code().unwrap_or(-1),
        report,
        stderr,
        privileges,
    }
}

impl ProbeRun {
    /// Per bucket, the servers that answered (their identifiers), from the report.
    pub fn answered_by(&self) -> BTreeMap<u8, Vec<String>> {
        self.report["buckets"]
            .as_array()
            .expect("buckets")
            .iter()
            .map(|b| {
                let bucket = b["bucket"].as_u64().expect("bucket") as u8;
                let by = b["answered_by"]
                    .as_array()
                    .expect("answered_by")
                    .iter()
                    .map(|s| s.as_str().expect("server").to_string())
                    .collect();
                (bucket, by)
            })
            .collect()
    }

    /// The buckets the report lists under a deviation (`wrong_server`, `both`, `none`).
    pub fn deviation(&self, kind: &str) -> Vec<u8> {
        self.report["deviations"][kind]
            .as_array()
            .expect("deviations")
            .iter()
            .map(|b| b.as_u64().expect("bucket") as u8)
            .collect()
    }

    /// Checks what every probe must show: all 256 buckets probed, each key hashing to its
    /// bucket under the shared Pearson table, root given up while it ran.
    pub fn check_keys_and_privileges(&self) {
        let buckets = self.report["buckets"].as_array().expect("buckets");
        assert_eq!(buckets.len(), 256, "{}", self.stderr);
        if let Some(table) = rfc3074_table() {
            for (i, b) in buckets.iter().enumerate() {
                let key: Vec<u8> = b["key"]
                    .as_str()
                    .expect("key")
                    .split(':')
                    .map(|x| u8::from_str_radix(x, 16).expect("hex"))
                    .collect();
                assert_eq!(b["bucket"].as_u64(), Some(i as u64));
                assert_eq!(rfc3074_bucket(&table, &key), i as u8, "key {key:02x?}");
            }
        }
        let uid = self.privileges.first().cloned().unwrap_or_default();
        let nobody: Vec<&str> = uid.split_whitespace().skip(1).collect();
        assert!(
            nobody.len() == 4 && nobody.iter().all(|&u| u == nobody[0] && u != "0"),
            "the probe kept root: {:?}",
            self.privileges
        );
        assert_eq!(
            self.privileges.get(1).map(|l| l.split_whitespace().nth(1)),
            Some(Some("1")),
            "no_new_privs: {:?}",
            self.privileges
        );
    }

    /// Asserts that each bucket was answered by exactly the server `owner` names.
    pub fn assert_map(&self, owner: impl Fn(u8) -> String) {
        let by = self.answered_by();
        let wrong: Vec<String> = by
            .iter()
            .filter(|(b, servers)| **servers != [owner(**b)])
            .map(|(b, servers)| format!("bucket {b}: {servers:?}, expected {}", owner(*b)))
            .collect();
        assert!(
            wrong.is_empty(),
            "{} buckets differ:\n{}",
            wrong.len(),
            wrong.join("\n")
        );
    }
}
