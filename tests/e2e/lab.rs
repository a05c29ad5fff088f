//! A lab: the namespaces of `tests/e2e/lab` (hosts `s1`, `s2`, `c` on a bridge), a folder for
//! the servers' files, and the guard that removes both.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

/// Lab names: `pse2e-PID-N`, so that a later run can tell the labs of a dead process.
const PREFIX: &str = "pse2e";

static NEXT: AtomicU32 = AtomicU32::new(1);

fn script() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/e2e/lab")
}

/// The folder of the servers' configuration templates.
pub fn conf_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/e2e/conf")
}

/// Seconds since the epoch, as the captures' times are.
pub fn now() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default()
        .as_secs_f64()
}

fn on_path(tool: &str) -> bool {
    std::env::var_os("PATH").is_some_and(|p| {
        std::env::split_paths(&p).any(|d| d.join(tool).is_file())
            || ["/usr/sbin", "/sbin"]
                .iter()
                .any(|d| Path::new(d).join(tool).is_file())
    })
}

/// Where Kea's hook libraries are (the HA hook comes with kea-common).
pub fn kea_hooks() -> Option<PathBuf> {
    let mut dirs: Vec<PathBuf> = vec![
        "/usr/lib/kea/hooks".into(),
        "/usr/local/lib/kea/hooks".into(),
    ];
    if let Ok(rd) = std::fs::read_dir("/usr/lib") {
        for e in rd.flatten() {
            dirs.push(e.path().join("kea/hooks"));
        }
    }
    dirs.into_iter().find(|d| d.join("libdhcp_ha.so").is_file())
}

/// Why the end-to-end tests cannot run here, if they cannot.
fn missing() -> Option<String> {
    // SAFETY: geteuid has no arguments and cannot fail.
    if unsafe { libc::geteuid() } != 0 {
        return Some("not root (network namespaces and AF_PACKET need it)".into());
    }
    let tools: Vec<&str> = ["ip", "kea-dhcp4", "kea-dhcp6", "dhcpd"]
        .into_iter()
        .filter(|t| !on_path(t))
        .collect();
    if !tools.is_empty() {
        return Some(format!(
            "{} not installed (apt-get install iproute2 kea-dhcp4-server kea-dhcp6-server \
             isc-dhcp-server)",
            tools.join(", ")
        ));
    }
    if kea_hooks().is_none() {
        return Some("Kea's HA hook (libdhcp_ha.so, in kea-common) not found".into());
    }
    None
}

/// Whether the tests can run; skips (or, with POOLSHARK_REQUIRE_E2E, fails) when not.
pub fn available() -> bool {
    match missing() {
        None => true,
        Some(why) => {
            if std::env::var_os("POOLSHARK_REQUIRE_E2E").is_some() {
                panic!("POOLSHARK_REQUIRE_E2E is set but the end-to-end tests cannot run: {why}");
            }
            poolshark::test_support::skip(format_args!("end-to-end tests: {why}"));
            false
        }
    }
}

/// A lab's namespaces and folder, removed when dropped (the folder kept when the test failed,
/// and named on stderr).
pub struct Lab {
    pub name: String,
    pub dir: PathBuf,
}

impl Lab {
    /// A new lab, or `None` when the tests cannot run here (skipped).
    pub fn up() -> Option<Lab> {
        if !available() {
            return None;
        }
        // Labs of test processes that died without cleaning up.
        let _ = Command::new(script()).args(["reap", PREFIX]).status();
        let name = format!(
            "{PREFIX}-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::SeqCst)
        );
        let dir = std::env::temp_dir().join(format!("poolshark-{name}"));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("lab folder");
        // The servers run as root but the probe drops to nobody: nothing here is secret.
        let lab = Lab { name, dir };
        let out = Command::new(script())
            .args(["up", &lab.name])
            .output()
            .expect("tests/e2e/lab runs");
        assert!(
            out.status.success(),
            "tests/e2e/lab up {}: {}",
            lab.name,
            String::from_utf8_lossy(&out.stderr)
        );
        Some(lab)
    }

    /// `COMMAND ARGS` on a host of the lab (`s1`, `s2`, `c`).
    pub fn command(&self, host: &str, program: impl AsRef<std::ffi::OsStr>) -> Command {
        let mut c = Command::new("ip");
        c.args(["netns", "exec", &format!("{}-{host}", self.name)])
            .arg(program);
        c
    }

    /// The path of a host's namespace (for setns).
    pub fn netns_path(&self, host: &str) -> PathBuf {
        PathBuf::from(format!("/run/netns/{}-{host}", self.name))
    }

    pub fn file(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }
}

impl Drop for Lab {
    fn drop(&mut self) {
        let _ = Command::new(script()).args(["down", &self.name]).output();
        if std::thread::panicking() {
            eprintln!(
                "end-to-end lab {}: the servers' files are kept in {}",
                self.name,
                self.dir.display()
            );
        } else {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}
