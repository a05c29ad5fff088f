//! A Kea DHCPv4 HA pair, and an ISC dhcpd failover pair, each lose a server and get it back while
//! `poolshark capture --check` runs on the clients' link and clients do whole exchanges; `check`
//! then reads the captured file.
//!
//! The scenario ([`takeover`]) returns what the capture and `check` said with the times the test
//! saw (kill, partner-down in the survivor's log, restart, both balancing again), so that an
//! assertion on another part of the report (the episodes of `check --format json`, the metrics
//! of `capture --metrics`, through `capture_args`) is a few lines of a new test.

use std::io::{BufRead, BufReader, Read};
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::client::{Clients, Exchange};
use super::lab::{now, Lab};
use super::servers::{
    isc_pair, kea_pair, kea_wait_balancing, ISC_NORMAL, ISC_PARTNER_DOWN, KEA_BALANCING,
    KEA_PARTNER_DOWN, V,
};

const SURVIVOR: &str = "192.0.2.1";
const VICTIM: &str = "192.0.2.2";
/// How long each calm phase lasts.
const CALM: Duration = Duration::from_secs(6);
/// How long the victim stays down at least.
const OUTAGE: Duration = Duration::from_secs(13);

/// When things happened (Unix seconds, as the capture's times).
#[derive(Clone, Copy, Debug)]
pub struct Times {
    pub clients_started: f64,
    pub killed: f64,
    /// The survivor logged its move to partner-down (seen within 50 ms).
    pub partner_down: f64,
    pub restarted: f64,
    /// Both servers logged their move to load-balancing again.
    pub balancing_again: f64,
    pub clients_stopped: f64,
}

pub struct TakeoverRun {
    pub times: Times,
    pub exchanges: Vec<Exchange>,
    /// `capture --check -w FILE`: exit code, standard output (the report), standard error.
    pub capture: (i32, String, String),
    pub file: PathBuf,
    /// `check FILE --format json`.
    pub check: Value,
}

/// `poolshark capture -i eth0 --check -w FILE CAPTURE_ARGS` on the client host, started and
/// ready (its socket bound) when this returns.
struct Capture {
    child: std::process::Child,
    stderr: mpsc::Receiver<String>,
    seen: Vec<String>,
}

impl Capture {
    fn start(lab: &Lab, file: &PathBuf, args: &[&str]) -> Capture {
        let mut child = lab
            .command("c", env!("CARGO_BIN_EXE_poolshark"))
            .args(["capture", "-i", "eth0", "--check", "-w"])
            .arg(file)
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("capture starts");
        let err = child.stderr.take().expect("stderr");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(err).lines().map_while(Result::ok) {
                let _ = tx.send(line);
            }
        });
        let mut c = Capture {
            child,
            stderr: rx,
            seen: Vec::new(),
        };
        let deadline = Instant::now() + Duration::from_secs(20);
        while !c.seen.iter().any(|l| l.contains("capturing on")) {
            match c
                .stderr
                .recv_timeout(deadline.saturating_duration_since(Instant::now()))
            {
                Ok(l) => c.seen.push(l),
                Err(_) => panic!("capture did not start: {:?}", c.seen),
            }
        }
        c
    }

    /// Ctrl-C, then what it printed.
    fn finish(mut self) -> (i32, String, String) {
        // SAFETY: a signal to our own child, by its id.
        unsafe {
            libc::kill(self.child.id() as libc::pid_t, libc::SIGINT);
        }
        let mut out = String::new();
        let _ = self
            .child
            .stdout
            .take()
            .expect("stdout")
            .read_to_string(&mut out);
        let status = self.child.wait().expect("capture ends");
        while let Ok(l) = self.stderr.recv_timeout(Duration::from_secs(5)) {
            self.seen.push(l);
        }
        (status.code().unwrap_or(-1), out, self.seen.join("\n"))
    }
}

impl Drop for Capture {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Which real pair plays the scenario.
#[derive(Clone, Copy, Debug)]
pub enum Servers {
    /// Kea 2.2 HA load balancing (DHCPv4): partner-down after max-unacked-clients and the
    /// heartbeat; load-balancing again after the restarted server's sync.
    Kea,
    /// ISC dhcpd 4.4.3 failover with `split 128`: communications-interrupted after
    /// max-response-delay, partner-down by `auto-partner-down`; normal again after the restarted
    /// server's RECOVER and MCLT.
    Isc,
}

impl Servers {
    /// The log line of the survivor's move to partner-down, and of both balancing.
    fn lines(self) -> (&'static str, &'static str) {
        match self {
            Servers::Kea => (KEA_PARTNER_DOWN, KEA_BALANCING),
            Servers::Isc => (ISC_PARTNER_DOWN, ISC_NORMAL),
        }
    }

    /// From when the survivor may serve the victim's clients: Kea from partner-down (the log
    /// line, within a second); dhcpd as soon as it sees the connection close, when it moves to
    /// communications-interrupted, where it answers every client from its own free leases
    /// (dhcpd.conf(5)), before `auto-partner-down` moves it on.
    fn serves_all_from(self, t: &Times) -> f64 {
        match self {
            Servers::Kea => t.partner_down - 1.0,
            Servers::Isc => t.killed,
        }
    }

    /// What the report calls the survivor and the victim.
    pub fn names(self) -> (&'static str, &'static str) {
        match self {
            Servers::Kea => ("server1", "server2"),
            Servers::Isc => (SURVIVOR, VICTIM),
        }
    }
}

/// The scenario: balancing, the secondary killed, the primary takes over, the secondary back,
/// balancing.
pub fn kea_v4_takeover(lab: &Lab, capture_args: &[&str]) -> TakeoverRun {
    takeover(lab, Servers::Kea, capture_args)
}

/// [`kea_v4_takeover`] with either pair.
pub fn takeover(lab: &Lab, servers: Servers, capture_args: &[&str]) -> TakeoverRun {
    let (config, mut pair) = match servers {
        Servers::Kea => {
            let mut pair = kea_pair(lab, V::Four, false);
            kea_wait_balancing(&mut pair);
            // What the operator knows of the pair, for capture --check and check alike.
            let config = lab.file("pair.toml");
            std::fs::write(
                &config,
                format!(
                    "profile = \"kea\"\n\
                     [[server]]\nname = \"server1\"\nrole = \"primary\"\nidentifiers = [\"{SURVIVOR}\"]\n\
                     [[server]]\nname = \"server2\"\nrole = \"secondary\"\nidentifiers = [\"{VICTIM}\"]\n"
                ),
            )
            .expect("config written");
            (vec![config.display().to_string()], pair)
        }
        Servers::Isc => {
            let pair = isc_pair(lab, "split 128;");
            // The servers' own dhcpd.conf files.
            let files =
                ["primary.conf", "secondary.conf"].map(|f| lab.file(f).display().to_string());
            (files.to_vec(), pair)
        }
    };
    let (down_line, balancing_line) = servers.lines();
    let file = lab.file("takeover.pcapng");
    let mut args: Vec<&str> = Vec::new();
    for c in &config {
        args.extend(["--config", c.as_str()]);
    }
    args.extend_from_slice(capture_args);
    let capture = Capture::start(lab, &file, &args);
    let clients_started = now();
    let clients = Clients::start(lab.netns_path("c"), Duration::from_millis(200));
    std::thread::sleep(CALM);

    let killed = now();
    pair[1].kill();
    pair[0].wait_for(down_line, 1, Duration::from_secs(30));
    let partner_down = now();
    // Down long enough for the analyser's rule to call it down (10 s and 3 messages it should
    // have answered: README, episodes): dhcpd's survivor sees the connection close and serves
    // every client 2 s after the kill, Kea's after its heartbeats fail.
    std::thread::sleep(CALM.max(Duration::from_secs_f64(
        (killed + OUTAGE.as_secs_f64() - partner_down).max(0.0),
    )));

    let restarted = now();
    let before: Vec<usize> = pair.iter().map(|d| d.count(balancing_line)).collect();
    pair[1].start(lab);
    for (d, n) in pair.iter_mut().zip(before) {
        d.wait_for(balancing_line, n + 1, Duration::from_secs(60));
    }
    let balancing_again = now();
    std::thread::sleep(CALM);

    let exchanges = clients.stop();
    let clients_stopped = now();
    let capture = capture.finish();
    let mut check = std::process::Command::new(env!("CARGO_BIN_EXE_poolshark"));
    check.args(["check", "--format", "json"]);
    for c in &config {
        check.args(["--config", c.as_str()]);
    }
    let out = check.arg(&file).output().expect("check runs");
    let check: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "check wrote no JSON ({e}): {}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    TakeoverRun {
        times: Times {
            clients_started,
            killed,
            partner_down,
            restarted,
            balancing_again,
            clients_stopped,
        },
        exchanges,
        capture,
        file,
        check,
    }
}

impl TakeoverRun {
    /// The findings of `check`, as (rule, severity, time, the whole finding).
    pub fn findings(&self) -> Vec<(&str, &str, f64, &Value)> {
        self.check["findings"]
            .as_array()
            .expect("findings")
            .iter()
            .map(|f| {
                (
                    f["rule"].as_str().unwrap_or_default(),
                    f["severity"].as_str().unwrap_or_default(),
                    f["time"].as_f64().unwrap_or_default(),
                    f,
                )
            })
            .collect()
    }

    /// Whether `t` is in a calm phase: before the kill, or well after both balance again.
    pub fn calm(&self, t: f64) -> bool {
        t < self.times.killed || t > self.times.balancing_again + 2.0
    }
}

#[test]
fn kea_v4_takeover_is_reported_with_its_times() {
    let Some(lab) = Lab::up() else {
        return;
    };
    let metrics = lab.file("last.prom").display().to_string();
    let run = kea_v4_takeover(&lab, &metrics_args(&metrics));
    assert_takeover(&run, Servers::Kea);
    assert_metrics_show_the_takeover(&run, &metrics, Servers::Kea);
}

#[test]
fn isc_takeover_is_reported_with_its_times() {
    let Some(lab) = Lab::up() else {
        return;
    };
    let metrics = lab.file("last.prom").display().to_string();
    let run = takeover(&lab, Servers::Isc, &metrics_args(&metrics));
    assert_takeover(&run, Servers::Isc);
    assert_metrics_show_the_takeover(&run, &metrics, Servers::Isc);
}

/// `capture --metrics` on a free loopback port, and its last page written to `file` at the end.
fn metrics_args(file: &str) -> [&str; 4] {
    ["--metrics", "127.0.0.1:0", "--metrics-file", file]
}

/// The capture's last metrics page (read with the metrics tests' own parser) says what `check`
/// says of the run: one takeover finding, the balanced answers per server, the pair back to
/// normal; and promtool accepts it.
fn assert_metrics_show_the_takeover(run: &TakeoverRun, file: &str, servers: Servers) {
    let (survivor, victim) = servers.names();
    let text = std::fs::read_to_string(file).expect("the capture's last metrics page");
    let page = crate::metrics::Page::parse(&text);
    assert!(
        run.capture
            .2
            .contains("poolshark: metrics at http://127.0.0.1:"),
        "{}",
        run.capture.2
    );
    assert_eq!(
        page.get("poolshark_findings_total", &[("rule", "dhcp.lb.takeover")]),
        Some(1.0),
        "{text}"
    );
    for (name, role) in [(survivor, "survivor"), (victim, "victim")] {
        let answers = page
            .get("poolshark_dhcp_balanced_answers_total", &[("server", name)])
            .unwrap_or_else(|| panic!("no balanced answers of the {role} {name}: {text}"));
        assert!(answers > 0.0, "{role}: {text}");
    }
    let on: Vec<&crate::metrics::Labels> = page
        .all("poolshark_dhcp_episode")
        .iter()
        .filter(|(_, v)| *v == 1.0)
        .map(|(l, _)| l)
        .collect();
    assert_eq!(on.len(), 1, "{text}");
    assert_eq!(
        on[0].get("kind").map(String::as_str),
        Some("normal"),
        "{text}"
    );
    if crate::metrics::have_promtool() {
        crate::metrics::promtool_accepts(&text);
    }
}

/// What the report of either pair's takeover must say.
fn assert_takeover(run: &TakeoverRun, servers: Servers) {
    let (survivor, victim) = servers.names();
    let t = run.times;
    let context = || {
        format!(
            "times {t:?}; findings:\n{}",
            run.findings()
                .iter()
                .map(|(r, s, time, _)| format!("  {time:.3} {s} {r}"))
                .collect::<Vec<_>>()
                .join("\n")
        )
    };

    // The clients were served by both servers while they balanced, by the survivor alone
    // during the takeover, and got nothing from the dead server.
    let acked = |from: f64, to: f64, by: &str| {
        run.exchanges
            .iter()
            .filter(|e| e.start >= from && e.start < to)
            .filter(|e| e.acked_by.is_some_and(|a| a.to_string() == by))
            .count()
    };
    assert!(
        acked(t.clients_started, t.killed, SURVIVOR) > 3,
        "{:?}",
        run.exchanges
    );
    assert!(
        acked(t.clients_started, t.killed, VICTIM) > 3,
        "{:?}",
        run.exchanges
    );
    assert!(acked(t.partner_down + 0.5, t.restarted, SURVIVOR) > 5);
    // (An exchange takes up to about 4 s, three DISCOVERs and a REQUEST: one started in the last
    // seconds before the restart may be acked by the victim back in service, as dhcpd is.)
    assert_eq!(acked(t.killed + 0.5, t.restarted - 5.0, VICTIM), 0);
    assert!(acked(t.balancing_again + 1.0, t.clients_stopped, VICTIM) > 2);

    // capture --check printed the report at Ctrl-C, the takeover in it.
    let (code, out, err) = &run.capture;
    assert!(*code == 0 || *code == 1, "capture exit {code}: {err}");
    assert!(out.contains("dhcp.lb.takeover"), "{out}\n{err}");

    // check on the captured file: the takeover, by the survivor of the victim's buckets, once
    // the survivor declared partner-down and before the victim came back.
    let findings = run.findings();
    let takeovers: Vec<&Value> = findings
        .iter()
        .filter(|f| f.0 == "dhcp.lb.takeover")
        .map(|f| f.3)
        .collect();
    assert_eq!(takeovers.len(), 1, "{}", context());
    let tk = takeovers[0];
    // The servers are named as the configuration names them.
    assert_eq!(tk["server"], victim, "{tk}");
    assert_eq!(tk["observed"]["answer_from"][0], survivor, "{tk}");
    let time = tk["time"].as_f64().unwrap();
    assert!(
        time >= servers.serves_all_from(&t) && time <= t.restarted,
        "takeover at {time}: {}",
        context()
    );
    // The silence it names started at the kill.
    let silent_since = tk["observed"]["silent_since"].as_f64().unwrap();
    assert!(
        silent_since >= t.clients_started && silent_since <= t.killed + 1.0,
        "silent since {silent_since}: {}",
        context()
    );

    // Nothing deviates while the pair balances: no wrong server, no unanswered client, no
    // double answer in the calm phases.
    let calm_warnings: Vec<String> = findings
        .iter()
        .filter(|f| f.1 != "info" && run.calm(f.2))
        .map(|f| format!("{:.3} {} {}", f.2, f.0, f.3["message"]))
        .collect();
    assert!(
        calm_warnings.is_empty(),
        "{calm_warnings:#?}\n{}",
        context()
    );
    assert!(
        findings
            .iter()
            .all(|f| f.0 != "dhcp.lb.wrong-server" || !run.calm(f.2)),
        "{}",
        context()
    );
    // What went unanswered was the victim's, between its death and the takeover (or in the
    // resynchronisation after its return).
    for f in findings.iter().filter(|f| f.0 == "dhcp.lb.no-answer") {
        let during_outage = f.2 >= t.killed && f.2 <= t.partner_down + 1.0;
        let during_resync = f.2 >= t.restarted && f.2 <= t.balancing_again + 2.0;
        assert!(
            during_outage || during_resync,
            "{} at {:.3}: {}",
            f.3["message"],
            f.2,
            context()
        );
    }
    // The pair's episodes follow what the test did: balancing, the victim silent from its
    // death, the survivor serving its buckets from partner-down until the victim is back, its
    // resync, balancing again; each named by the server it is about.
    let episodes: Vec<(&str, Option<&str>, f64, f64)> = run.check["episodes"]
        .as_array()
        .expect("episodes")
        .iter()
        .map(|e| {
            (
                e["kind"].as_str().unwrap_or_default(),
                e["server"].as_str(),
                e["start_time"].as_f64().unwrap_or_default(),
                e["end_time"].as_f64().unwrap_or_default(),
            )
        })
        .collect();
    let listed = || format!("{episodes:#?}\n{}", context());
    let kinds: Vec<&str> = episodes.iter().map(|e| e.0).collect();
    assert_eq!(kinds.first(), Some(&"normal"), "{}", listed());
    assert_eq!(kinds.last(), Some(&"normal"), "{}", listed());
    let one = |kind: &str| {
        let of: Vec<_> = episodes.iter().filter(|e| e.0 == kind).collect();
        assert_eq!(of.len(), 1, "one {kind} episode: {}", listed());
        *of[0]
    };
    // Kea's survivor waits for its heartbeats to fail: the victim's clients go unserved for a
    // while first. dhcpd's serves them from the connection's close: a silence, if any, ends
    // before partner-down.
    let silences: Vec<_> = episodes.iter().filter(|e| e.0 == "peer-silent").collect();
    // Kea's partner-down comes 3 s after its partner stops answering (tests/e2e/conf), but its
    // heartbeat's phase can make it come sooner after the kill: with less than those 3 s the
    // victim's silence may end before the clients gave evidence of it (a run measured partner-
    // down 2.12 s after the kill, and no silence: the takeover started at once), so the silence
    // is required only when the survivor took the full 3 s.
    let silent_for = t.partner_down - t.killed;
    match servers {
        Servers::Kea if silent_for >= 3.0 => assert_eq!(silences.len(), 1, "{}", listed()),
        _ => assert!(silences.len() <= 1, "{}", listed()),
    }
    for silent in silences {
        assert_eq!(silent.1, Some(victim), "{}", listed());
        assert!(
            silent.2 >= t.killed && silent.2 <= t.killed + 3.0 && silent.3 <= t.partner_down + 3.0,
            "peer-silent {:.3}-{:.3}: {}",
            silent.2,
            silent.3,
            listed()
        );
    }
    let takeover = one("takeover");
    assert_eq!(takeover.1, Some(survivor), "{}", listed());
    assert!(
        takeover.2 >= servers.serves_all_from(&t) && takeover.2 <= t.partner_down + 3.0,
        "takeover from {:.3}: {}",
        takeover.2,
        listed()
    );
    assert!(
        takeover.3 >= t.restarted && takeover.3 <= t.balancing_again + 3.0,
        "takeover until {:.3}: {}",
        takeover.3,
        listed()
    );
    for e in episodes.iter().filter(|e| e.0 == "recovery") {
        assert_eq!(e.1, Some(victim), "{}", listed());
        assert!(
            e.2 >= t.restarted && e.3 <= t.balancing_again + 3.0,
            "recovery {:.3}-{:.3}: {}",
            e.2,
            e.3,
            listed()
        );
    }
    let last = episodes.last().expect("episodes");
    assert!(last.2 <= t.balancing_again + 3.0, "{}", listed());
    assert!(run.file.is_file());
}
