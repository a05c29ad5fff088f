//! The servers of a lab: Kea 2.2 HA pairs and ISC dhcpd failover pairs from the templates in
//! `tests/e2e/conf`, each a [`Daemon`] that is stopped when dropped, with its log in the lab's
//! folder and waits on what the log says.

use std::fs::{File, OpenOptions};
use std::path::PathBuf;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use super::lab::{conf_dir, kea_hooks, Lab};

/// A server process (the program itself: `ip netns exec` replaces itself with it).
pub struct Daemon {
    pub name: String,
    pub log: PathBuf,
    host: String,
    program: String,
    args: Vec<String>,
    env: Vec<(String, String)>,
    child: Option<Child>,
}

impl Daemon {
    fn spawn(
        lab: &Lab,
        host: &str,
        name: &str,
        program: &str,
        args: Vec<String>,
        env: Vec<(String, String)>,
    ) -> Daemon {
        let mut d = Daemon {
            name: name.to_string(),
            log: lab.file(&format!("{name}.log")),
            host: host.to_string(),
            program: program.to_string(),
            args,
            env,
            child: None,
        };
        d.start(lab);
        d
    }

    /// Starts the process (again), its output appended to its log.
    pub fn start(&mut self, lab: &Lab) {
        assert!(self.child.is_none(), "{} is running", self.name);
        let log = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.log)
            .expect("log file");
        let err = log.try_clone().expect("log file");
        let mut cmd = lab.command(&self.host, &self.program);
        cmd.args(&self.args)
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .stdout(log)
            .stderr(err);
        self.child = Some(
            cmd.spawn()
                .unwrap_or_else(|e| panic!("{} does not start: {e}", self.name)),
        );
    }

    /// Ends the process at once (SIGKILL), as a crash would.
    pub fn kill(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }

    /// Asks the process to end (SIGTERM), then kills it if it has not within 5 s.
    pub fn stop(&mut self) {
        let Some(mut c) = self.child.take() else {
            return;
        };
        // SAFETY: a signal to our own child, by its id.
        unsafe {
            libc::kill(c.id() as libc::pid_t, libc::SIGTERM);
        }
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = c.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = c.kill();
        let _ = c.wait();
    }

    /// The process's log so far.
    pub fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// How many lines of the log contain `pattern`.
    pub fn count(&self, pattern: &str) -> usize {
        self.log_text()
            .lines()
            .filter(|l| l.contains(pattern))
            .count()
    }

    /// Waits until at least `n` lines of the log contain `pattern`; fails the test (with the
    /// log's end) after `timeout`, or when the process died.
    pub fn wait_for(&mut self, pattern: &str, n: usize, timeout: Duration) {
        let deadline = Instant::now() + timeout;
        loop {
            if self.count(pattern) >= n {
                return;
            }
            let dead = self
                .child
                .as_mut()
                .is_none_or(|c| c.try_wait().ok().flatten().is_some());
            if dead || Instant::now() >= deadline {
                let log = self.log_text();
                let tail: Vec<&str> = log.lines().rev().take(15).collect();
                panic!(
                    "{}: {} waiting for {pattern:?} (x{n}); its log ends:\n{}",
                    self.name,
                    if dead { "died" } else { "timed out" },
                    tail.into_iter().rev().collect::<Vec<_>>().join("\n")
                );
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        self.stop();
    }
}

/// A template of `tests/e2e/conf` with its `@NAMES@` replaced, written to the lab's folder.
fn render(lab: &Lab, template: &str, out: &str, vars: &[(&str, String)]) -> PathBuf {
    let mut text = std::fs::read_to_string(conf_dir().join(template))
        .unwrap_or_else(|e| panic!("template {template}: {e}"));
    for (k, v) in vars {
        text = text.replace(&format!("@{k}@"), v);
    }
    assert!(
        !text.contains('@'),
        "{out}: a placeholder is left: {}",
        text.lines().find(|l| l.contains('@')).unwrap_or_default()
    );
    let path = lab.file(out);
    std::fs::write(&path, text).expect("config written");
    path
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum V {
    Four,
    Six,
}

/// The DUID of a Kea DHCPv6 server of the lab: a DUID-LL of its interface's address.
pub fn kea_server_duid(server: u8) -> String {
    format!("00:03:00:01:02:00:00:00:0f:{server:02x}")
}

/// The line Kea logs when it starts balancing.
pub const KEA_BALANCING: &str = "to LOAD-BALANCING state";
/// The line Kea logs when it takes over its partner's clients.
pub const KEA_PARTNER_DOWN: &str = "to PARTNER-DOWN state";

/// Starts a Kea HA load-balancing pair (server1 on s1, primary; server2 on s2, secondary),
/// without waiting. With `server2_thinks_primary`, server2's own configuration gives the roles
/// the other way round (a broken pair).
pub fn kea_pair(lab: &Lab, v: V, server2_thinks_primary: bool) -> [Daemon; 2] {
    let hooks = kea_hooks().expect("checked by Lab::up");
    let (template, program) = match v {
        V::Four => ("kea-dhcp4.json", "kea-dhcp4"),
        V::Six => ("kea-dhcp6.json", "kea-dhcp6"),
    };
    let env = vec![
        ("KEA_PIDFILE_DIR".to_string(), lab.dir.display().to_string()),
        (
            "KEA_LOCKFILE_DIR".to_string(),
            lab.dir.display().to_string(),
        ),
    ];
    let mut out = Vec::new();
    for n in [1u8, 2] {
        let name = format!("server{n}");
        let swapped = n == 2 && server2_thinks_primary;
        let (r1, r2) = if swapped {
            ("secondary", "primary")
        } else {
            ("primary", "secondary")
        };
        let conf = render(
            lab,
            template,
            &format!("{name}-{program}.json"),
            &[
                ("DIR", lab.dir.display().to_string()),
                ("NAME", name.clone()),
                ("HOOKS", hooks.display().to_string()),
                ("ROLE1", r1.into()),
                ("ROLE2", r2.into()),
                ("SERVERID", format!("020000000f{n:02x}")),
            ],
        );
        out.push(Daemon::spawn(
            lab,
            &format!("s{n}"),
            &name,
            program,
            vec!["-c".into(), conf.display().to_string()],
            env.clone(),
        ));
    }
    let [a, b]: [Daemon; 2] = out.try_into().ok().expect("two servers");
    [a, b]
}

/// Waits until both servers of a Kea pair balance.
pub fn kea_wait_balancing(pair: &mut [Daemon; 2]) {
    for d in pair.iter_mut() {
        d.wait_for(KEA_BALANCING, 1, Duration::from_secs(30));
    }
}

/// The line dhcpd logs when both servers of the pair are in the NORMAL state.
pub const ISC_NORMAL: &str = "Both servers normal";
/// The line dhcpd logs when it takes over its partner's clients (`auto-partner-down`).
pub const ISC_PARTNER_DOWN: &str = "I move from communications-interrupted to partner-down";

/// Starts an ISC dhcpd failover pair (primary on s1 with `balance`, a `split N;` or `hba
/// ...;` statement; secondary on s2), and waits until both are normal.
pub fn isc_pair(lab: &Lab, balance: &str) -> [Daemon; 2] {
    let dir = lab.dir.display().to_string();
    render(lab, "dhcpd-common.conf", "dhcpd-common.conf", &[]);
    let mut out = Vec::new();
    for (host, name, template) in [
        ("s1", "primary", "dhcpd-primary.conf"),
        ("s2", "secondary", "dhcpd-secondary.conf"),
    ] {
        let conf = render(
            lab,
            template,
            &format!("{name}.conf"),
            &[("DIR", dir.clone()), ("BALANCE", balance.to_string())],
        );
        let leases = lab.file(&format!("{name}.leases"));
        File::create(&leases).expect("lease file");
        out.push(Daemon::spawn(
            lab,
            host,
            name,
            "dhcpd",
            vec![
                "-4".into(),
                "-f".into(),
                "-d".into(),
                "-cf".into(),
                conf.display().to_string(),
                "-lf".into(),
                leases.display().to_string(),
                "-pf".into(),
                lab.file(&format!("{name}.pid")).display().to_string(),
                "eth0".into(),
            ],
            Vec::new(),
        ));
    }
    let [mut a, mut b]: [Daemon; 2] = out.try_into().ok().expect("two servers");
    a.wait_for(ISC_NORMAL, 1, Duration::from_secs(30));
    b.wait_for(ISC_NORMAL, 1, Duration::from_secs(30));
    [a, b]
}
