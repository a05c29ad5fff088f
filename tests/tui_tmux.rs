//! End to end: the real binary's `tui` in a tmux pane of 80x24 on the shared failover capture,
//! driven with keys, its screen read back with `capture-pane`.
//!
//! The capture's one failover pool is split in two (`a` and `b`, as `--failover-pool` allows), so
//! that there are pools to move between and findings to list. Skips when tmux or ../shared is absent
//! (CI installs tmux and has ../shared).

mod common;

use std::process::{Command, Output};
use std::thread;
use std::time::{Duration, Instant};

/// One tmux server of its own (its own socket), killed when dropped.
struct Tmux {
    socket: String,
}

impl Tmux {
    fn new() -> Self {
        Tmux {
            socket: format!("poolshark-tui-test-{}", std::process::id()),
        }
    }

    fn cmd(&self, args: &[&str]) -> Output {
        Command::new("tmux")
            .args(["-u", "-L", &self.socket, "-f", "/dev/null"])
            .args(args)
            .env("LANG", "C.UTF-8")
            .output()
            .expect("tmux runs")
    }

    fn screen(&self) -> String {
        let o = self.cmd(&["capture-pane", "-p", "-t", "t"]);
        String::from_utf8_lossy(&o.stdout).into_owned()
    }

    fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", "t"];
        args.extend_from_slice(keys);
        let o = self.cmd(&args);
        assert!(o.status.success(), "send-keys: {o:?}");
    }

    /// Waits until the screen satisfies `ok`; fails with the last screen after `secs`.
    fn wait_for(&self, what: &str, secs: u64, ok: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + Duration::from_secs(secs);
        loop {
            let s = self.screen();
            if ok(&s) {
                return s;
            }
            if Instant::now() > deadline {
                panic!("timed out waiting for {what}; the screen:\n{s}");
            }
            thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.cmd(&["kill-server"]);
    }
}

fn have_tmux() -> bool {
    let ok = Command::new("tmux")
        .arg("-V")
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    if !ok {
        eprintln!("skipped: tmux is not installed (apt-get install tmux)");
    }
    ok
}

/// The pool list's line of pool `name`, as drawn in the left pane.
fn pool_line<'a>(screen: &'a str, name: &str) -> Option<&'a str> {
    screen.lines().find(|l| {
        l.strip_prefix('║')
            .or_else(|| l.strip_prefix('│'))
            .is_some_and(|rest| {
                rest.trim_start_matches('>')
                    .trim_start()
                    .starts_with(&format!("{name} "))
            })
    })
}

#[test]
fn tui_shows_pools_and_chart_and_obeys_keys() {
    if !have_tmux() {
        return;
    }
    let Some(capture) = common::shared_capture("dhcp-failover/isc-dhcpd-4.4.3-failover.pcap")
    else {
        return;
    };
    let bin = env!("CARGO_BIN_EXE_poolshark");
    // After the UI: the exit code and whether the terminal is back in canonical mode with echo.
    let script = format!(
        "'{bin}' tui '{}' --failover-pool a=192.0.2.100-192.0.2.129 \
         --failover-pool b=192.0.2.130-192.0.2.159 --min-balance 5 --max-balance 30; \
         echo \"exit=$?\"; echo \"modes=$(stty -a | tr ' ;' '\\n\\n' | grep -x -e '-*icanon' -e '-*echo' | tr '\\n' ' ')\"; \
         sleep 60",
        capture.display()
    );
    let tmux = Tmux::new();
    let o = tmux.cmd(&[
        "new-session",
        "-d",
        "-x",
        "80",
        "-y",
        "24",
        "-s",
        "t",
        "sh",
        "-c",
        &script,
    ]);
    assert!(o.status.success(), "tmux new-session: {o:?}");

    // Loaded: both pools listed, with the findings of the first, and its gauge chart.
    let s = tmux.wait_for("the pools and findings", 60, |s| {
        s.contains("Pools (2)") && s.contains("failover.ownership") && s.contains("4347 frames")
    });
    let a = pool_line(&s, "a").unwrap_or_else(|| panic!("no pool a:\n{s}"));
    assert!(a.contains("> a"), "a is selected:\n{s}");
    assert!(pool_line(&s, "b").is_some(), "no pool b:\n{s}");
    assert!(
        s.contains(" a: gauges per 10s, ISC failover pool"),
        "chart title:\n{s}"
    );
    // The chart: the y axis, the time axis, and the free (F) and backup (B) gauges plotted.
    assert!(s.contains('┤') && s.contains('└'), "axes:\n{s}");
    let chart_rows: Vec<&str> = s.lines().skip(2).take(10).collect();
    for g in ['F', 'B'] {
        assert!(
            chart_rows
                .iter()
                .any(|l| l.chars().skip(30).any(|c| c == g)),
            "gauge {g} not plotted:\n{s}"
        );
    }
    assert!(s.contains("Gauges"), "gauge list:\n{s}");

    // j moves the selection to b, and the chart follows.
    tmux.keys(&["j"]);
    let s = tmux.wait_for("pool b selected", 10, |s| {
        s.contains(" b: gauges per 10s") && pool_line(s, "b").is_some_and(|l| l.contains("> b"))
    });
    assert!(pool_line(&s, "a").is_some_and(|l| !l.contains('>')), "{s}");

    // ? opens the help, Esc closes it.
    tmux.keys(&["?"]);
    tmux.wait_for("the help", 10, |s| s.contains("Keys (Esc or ? closes)"));
    tmux.keys(&["Escape"]);
    tmux.wait_for("the help closed", 10, |s| {
        !s.contains("Keys (Esc or ? closes)") && s.contains("Pools (2)")
    });

    // q quits: exit 0, the alternate screen left, canonical mode and echo back.
    tmux.keys(&["q"]);
    let s = tmux.wait_for("the exit", 10, |s| s.contains("modes="));
    assert!(s.contains("exit=0"), "{s}");
    let modes = s
        .lines()
        .find_map(|l| l.strip_prefix("modes="))
        .unwrap_or_default();
    assert_eq!(
        modes.split_whitespace().collect::<Vec<_>>(),
        ["icanon", "echo"],
        "{s}"
    );
    assert!(!s.contains("Pools (2)"), "the UI's screen is gone:\n{s}");
    let alt = tmux.cmd(&["display-message", "-p", "-t", "t", "#{alternate_on}"]);
    assert_eq!(String::from_utf8_lossy(&alt.stdout).trim(), "0");
}

#[test]
fn tui_refuses_without_a_terminal_and_without_live_capture() {
    let o = common::poolshark()
        .args(["tui", "-i", "lo"])
        .output()
        .expect("runs");
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("live capture (-i) is not available"), "{err}");
    let o = common::poolshark()
        .args(["tui", "-"])
        .output()
        .expect("runs");
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("draws on a terminal"), "{err}");
}
