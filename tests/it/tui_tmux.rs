//! End to end: the real binary's `tui` in a tmux pane of 80x24 on the shared failover capture,
//! driven with keys, its screen read back with `capture-pane`.
//!
//! The capture's one failover pool is split in two (`a` and `b`, as `--failover-pool` allows), so
//! that there are pools to move between and findings to list. Skips when tmux or ../shared is absent
//! (CI installs tmux and has ../shared).

use crate::common;

use std::net::{Ipv4Addr, SocketAddr};
use std::process::{Command, Output};
use std::thread;
use std::time::{Duration, Instant};

/// One tmux server of its own (its own socket), killed when dropped.
struct Tmux {
    socket: String,
}

/// Tests run in parallel: each gets a tmux server of its own.
static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);

impl Tmux {
    fn new() -> Self {
        Tmux {
            socket: format!(
                "poolshark-tui-test-{}-{}",
                std::process::id(),
                NEXT.fetch_add(1, std::sync::atomic::Ordering::SeqCst)
            ),
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

    /// Waits until the screen satisfies `ok` and has settled (the same on a second look a moment
    /// later: a look taken while the terminal was being written to can show part of one frame over
    /// another); fails with the last screen after `secs`.
    fn wait_for(&self, what: &str, secs: u64, ok: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + Duration::from_secs(secs);
        loop {
            let s = self.screen();
            if ok(&s) {
                thread::sleep(Duration::from_millis(150));
                if self.screen() == s {
                    return s;
                }
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
        poolshark::test_support::skip("tmux is not installed (apt-get install tmux)");
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

    // Loaded: the DHCP server pair (its load balancing is replayed too, its servers' findings
    // listed under it: a server has no entry of its own) and both failover pools listed; one
    // down is pool a, with its findings and its gauge chart.
    tmux.wait_for("the pools", 60, |s| {
        s.contains("Pools (3)") && s.contains("4347 frames") && pool_line(s, "b").is_some()
    });
    // g first: while the file loads the selection stays on the pool it is on, which may be a
    // pool listed before the pair was (seen under load); g goes to the top of the list.
    tmux.keys(&["g", "j"]);
    let s = tmux.wait_for("pool a and its findings", 10, |s| {
        s.contains("failover.ownership") && pool_line(s, "a").is_some_and(|l| l.contains("> a"))
    });
    let a = pool_line(&s, "a").unwrap_or_else(|| panic!("no pool a:\n{s}"));
    assert!(a.contains("> a"), "a is selected:\n{s}");
    assert!(pool_line(&s, "b").is_some(), "no pool b:\n{s}");
    assert!(
        s.contains(" a: lease gauges per 10s, ISC failover pool"),
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
        s.contains(" b: lease gauges per 10s")
            && pool_line(s, "b").is_some_and(|l| l.contains("> b"))
    });
    assert!(pool_line(&s, "a").is_some_and(|l| !l.contains('>')), "{s}");

    // ? opens the help, Esc closes it.
    tmux.keys(&["?"]);
    tmux.wait_for("the help", 10, |s| s.contains("Keys (Esc or ? closes)"));
    tmux.keys(&["Escape"]);
    tmux.wait_for("the help closed", 10, |s| {
        !s.contains("Keys (Esc or ? closes)") && s.contains("Pools (3)")
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
    assert!(!s.contains("Pools (3)"), "the UI's screen is gone:\n{s}");
    let alt = tmux.cmd(&["display-message", "-p", "-t", "t", "#{alternate_on}"]);
    assert_eq!(String::from_utf8_lossy(&alt.stdout).trim(), "0");
}

#[test]
fn tui_refuses_without_a_terminal() {
    for args in [&["tui", "-"][..], &["tui", "-i", "lo"][..]] {
        let o = common::poolshark().args(args).output().expect("runs");
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("draws on a terminal"), "{args:?}: {err}");
    }
}

/// Starts `script` in a new 80x24 session of `tmux`.
fn start(tmux: &Tmux, script: &str) {
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
        script,
    ]);
    assert!(o.status.success(), "tmux new-session: {o:?}");
}

/// The quick-start fixture: its three RSerPool pools and two DHCP server pairs listed with their
/// deviation counts, the chart of the selected pool, and the finding planted in pool Web with
/// the decoded frame behind it.
#[test]
fn tui_on_the_demo_fixture_shows_pools_chart_and_the_planted_finding() {
    if !have_tmux() {
        return;
    }
    let bin = env!("CARGO_BIN_EXE_poolshark");
    let demo = common::fixture("demo.pcap");
    let tmux = Tmux::new();
    start(
        &tmux,
        &format!("'{bin}' tui '{}'; sleep 60", demo.display()),
    );
    // Its frames counted by the tests' own pcap reader.
    let frames = format!(
        "{} frames",
        crate::dhcp_support::pcap::frames(&std::fs::read(&demo).expect("demo.pcap")).len()
    );
    let s = tmux.wait_for("the demo loaded", 30, |s| {
        s.contains(&frames) && s.contains("4 findings") && s.contains("Pools (5)")
    });
    for (pool, deviations) in [("Cache", "0"), ("Db", "0"), ("Web", "1")] {
        let line = pool_line(&s, pool).unwrap_or_else(|| panic!("no pool {pool}:\n{s}"));
        let cell = line.split(['║', '│']).nth(1).unwrap_or_default();
        assert!(cell.trim_end().ends_with(deviations), "{line}");
    }
    assert!(s.contains("Cache: first-place share per 10s"), "{s}");
    assert!(s.contains('┤') && s.contains('└'), "axes:\n{s}");
    // Cache is a WRR pool of two members weighted 2:1, as the members pane says.
    assert!(s.contains("A 0x00030001  67%  67%"), "{s}");
    assert!(s.contains("B 0x00030002  33%  33%"), "{s}");

    // Down to Web, then to the findings pane (Tab three times) and its first finding's frame.
    tmux.keys(&["j", "j"]);
    let s = tmux.wait_for("Web selected", 10, |s| s.contains("Findings Web (1)"));
    assert!(s.contains("129 W rserpool.rr-head-stuck"), "{s}");
    tmux.keys(&["Tab", "Tab", "Tab", "Enter"]);
    let s = tmux.wait_for("the detail of frame 129", 10, |s| {
        s.contains("Frame 129 (decoded)")
    });
    assert!(s.contains("observed: \"0x00010002\""), "{s}");
    assert!(s.contains("ASAP Handle Resolution Response"), "{s}");
    // As tshark -V words it: the bytes in hex, then the text.
    assert!(s.contains("Pool Handle: 576562 (Web)"), "{s}");
    tmux.keys(&["Escape", "q"]);
    tmux.wait_for("the exit", 10, |s| !s.contains("Pools (5)"));
}

/// The Kea pair at 80x24, as a person reads it: the pair's name keeps what tells its servers
/// apart (`…:01:01+…02:02`, not two names cut alike), the chart says it plots each server's share
/// of the balanced answers and labels its time axis between the ends, and the detail of a
/// finding wraps its JSON between values, not inside a DUID.
#[test]
fn tui_on_the_kea_pair_names_it_and_its_chart_and_wraps_the_detail() {
    if !have_tmux() {
        return;
    }
    let Some(capture) = common::shared_capture("dhcp-kea/kea-2.2-ha-load-balancing-v6.pcap") else {
        return;
    };
    let bin = env!("CARGO_BIN_EXE_poolshark");
    let tmux = Tmux::new();
    start(
        &tmux,
        &format!("'{bin}' tui '{}'; sleep 60", capture.display()),
    );
    let s = tmux.wait_for("the Kea capture loaded", 60, |s| {
        s.contains("3115 frames") && s.contains("Pools (1)")
    });
    assert!(
        s.lines()
            .nth(2)
            .is_some_and(|l| l.starts_with("║> 0…:01:01+…02:02 42║")),
        "{s}"
    );
    assert!(
        s.contains("┌ 00…:00:01:01+…02:02: share of balanced answers per 10s…┐"),
        "{s}"
    );
    let axis = s.lines().find(|l| l.contains('└')).unwrap_or_default();
    assert!(
        axis.contains("└0s─────20s────40s────1m─────1m20s──1m40s─────2m20s│"),
        "{s}"
    );
    // The episodes under the chart (README: server2 down, server1's takeover, the resync).
    let strip = s.lines().find(|l| l.contains(" ep.│")).unwrap_or_default();
    assert!(strip.contains("━silent━━take━━━R━"), "{s}");
    // Each server's share and expected share are check's.
    let out = common::poolshark()
        .args(["check", "--format", "json"])
        .arg(&capture)
        .output()
        .expect("poolshark runs");
    let c: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    for (letter, server) in [
        ('A', "00:03:00:01:02:00:00:00:01:01"),
        ('B', "00:03:00:01:02:00:00:00:02:02"),
    ] {
        let chk = c["servers"]
            .as_array()
            .and_then(|v| v.iter().find(|x| x["server"] == server))
            .expect("check's server");
        let pct = |k: &str| format!("{:.0}%", chk[k].as_f64().unwrap_or(-1.0) * 100.0);
        let row = s
            .lines()
            .find(|l| l.starts_with(&format!("│{letter} ")))
            .unwrap_or_default();
        assert!(
            row.contains(&format!(" {}  {} ", pct("share"), pct("expected_share"))),
            "{server}: {row}\n{s}"
        );
    }
    // The findings name their episode.
    assert!(s.contains("1363 W +32 [peer-silent] dhcp.lb.n"), "{s}");
    assert!(s.contains("1468 I [takeover] dhcp.lb.takeover"), "{s}");
    tmux.keys(&["Tab", "Tab", "Tab", "Enter"]);
    let s = tmux.wait_for("the detail of frame 1363", 20, |s| {
        s.contains("Frame 1363 (decoded)")
    });
    assert!(
        s.contains(
            "║expected: {\"answer_from\":[\"00:03:00:01:02:00:00:00:02:02\"],\"bucket\":111,"
        ),
        "{s}"
    );
    assert!(
        s.contains("║  \"episode\":\"peer-silent\",\"hba\":\"kea\",\"profile\":\"kea\","),
        "{s}"
    );
    assert!(
        s.contains("║  \"stid\":\"00020000118b3bf175208898c1b0c09aa508\"}"),
        "{s}"
    );
    tmux.keys(&["Escape", "q"]);
    tmux.wait_for("the exit", 10, |s| !s.contains("Pools (1)"));
}

/// `tui -i lo` as root: the UDP scenario fixture is sent over loopback (each of its addresses
/// mapped into 127.77.0.0/16, its ports kept) and the live view shows its pools as they arrive.
#[test]
fn tui_live_on_loopback_shows_pools_as_traffic_arrives() {
    if !have_tmux() {
        return;
    }
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        if std::env::var_os("POOLSHARK_REQUIRE_LIVE").is_some() {
            panic!("POOLSHARK_REQUIRE_LIVE is set but this test is not running as root");
        }
        poolshark::test_support::skip("live capture needs root");
        return;
    }
    let bin = env!("CARGO_BIN_EXE_poolshark");
    let tmux = Tmux::new();
    start(
        &tmux,
        &format!("'{bin}' tui -i lo --interval 1s; echo exit=$?; sleep 60"),
    );
    let s = tmux.wait_for("the live view", 20, |s| s.contains("lo (live"));
    assert!(s.contains("0 frames"), "{s}");

    let datagrams = udp_datagrams(&common::fixture("rserpool-udp.pcap"));
    assert_eq!(datagrams.len(), 42);
    let mut sockets = std::collections::HashMap::new();
    for (src, dst, payload) in &datagrams {
        let socket = sockets.entry(*src).or_insert_with(|| {
            let s = std::net::UdpSocket::bind(*src).expect("bind on 127.77/16");
            s.set_broadcast(true).ok();
            s
        });
        socket.send_to(payload, dst).expect("send");
        thread::sleep(Duration::from_millis(5));
    }
    let s = tmux.wait_for("the scenario's pools", 20, |s| {
        s.contains("42 frames") && pool_line(s, "Db").is_some() && pool_line(s, "Web").is_some()
    });
    assert!(s.contains("0 findings"), "{s}");
    tmux.keys(&["q"]);
    let s = tmux.wait_for("the exit", 10, |s| s.contains("exit="));
    assert!(s.contains("exit=0"), "{s}");
}

/// The UDP datagrams of an Ethernet/IPv4 capture as (source, destination, payload), every
/// address mapped to 127.77.X.Y (X.Y its last two bytes).
fn udp_datagrams(file: &std::path::Path) -> Vec<(SocketAddr, SocketAddr, Vec<u8>)> {
    use poolshark::source::file::FileSource;
    use poolshark::source::FrameSource;
    let map = |a: [u8; 4], port: u16| SocketAddr::from((Ipv4Addr::new(127, 77, a[2], a[3]), port));
    let mut out = Vec::new();
    let mut src = FileSource::open(file).expect("fixture");
    while let Ok(Some(f)) = src.next_frame() {
        let p = etherparse::SlicedPacket::from_ethernet(f.data).expect("ethernet");
        let (Some(etherparse::NetSlice::Ipv4(ip)), Some(etherparse::TransportSlice::Udp(udp))) =
            (p.net, p.transport)
        else {
            panic!("frame {} is not UDP over IPv4", f.number);
        };
        out.push((
            map(ip.header().source(), udp.source_port()),
            map(ip.header().destination(), udp.destination_port()),
            udp.payload().to_vec(),
        ));
    }
    out
}

/// The chart cells of an 80x24 screen: the plot's rows and columns right of the y axis.
fn chart_cells(screen: &str) -> String {
    screen
        .lines()
        .skip(2)
        .take(10)
        .map(|l| l.chars().skip(29).take(50).collect::<String>())
        .collect::<Vec<_>>()
        .join("\n")
}

/// RR-Pool of the multi-PE capture: five PEs (its README) answered in turn, each first in a fifth
/// of a window's answers. All five are drawn at the same height (they used to cover each other:
/// only the last letter, E, was to be seen there), and the members pane gives each the share of
/// first places that `stats` counts.
#[test]
fn tui_draws_every_member_of_a_round_robin_and_the_shares_stats_counts() {
    if !have_tmux() {
        return;
    }
    let Some(capture) = common::shared_capture("rserpool/rsplib-multi-pe.pcap") else {
        return;
    };
    let cap = capture.to_string_lossy().into_owned();
    let pes = common::MULTI_PE_POOLS
        .iter()
        .find(|(p, _)| *p == "RR-Pool")
        .map_or(0, |(_, n)| *n);
    // What stats counts: each member's first places over the pool's answers, in whole percent.
    let out = common::poolshark()
        .args(["stats", "--format", "json", "--interval", "10s", &cap])
        .output()
        .expect("stats runs");
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let rr = j["series"]
        .as_array()
        .and_then(|s| s.iter().find(|s| s["pool"] == "RR-Pool"))
        .expect("RR-Pool in stats");
    let mut answers = 0u64;
    let mut first: std::collections::BTreeMap<String, u64> = Default::default();
    for w in rr["windows"].as_array().expect("windows") {
        answers += w["answers"].as_u64().unwrap_or(0);
        for (m, c) in w["members"].as_object().expect("members") {
            *first.entry(m.clone()).or_default() += c["first"].as_u64().unwrap_or(0);
        }
    }
    assert_eq!(first.len() as u64, pes, "{rr}");

    let bin = env!("CARGO_BIN_EXE_poolshark");
    let tmux = Tmux::new();
    start(&tmux, &format!("'{bin}' tui '{cap}'; sleep 60"));
    tmux.wait_for("the capture loaded", 60, |s| {
        s.contains("10988 frames") && s.contains("Pools (9)")
    });
    // RR-Pool is the seventh pool in the list.
    for _ in 0..6 {
        tmux.keys(&["j"]);
    }
    let s = tmux.wait_for("RR-Pool selected", 10, |s| {
        s.contains("RR-Pool: first-place share per 10s")
    });
    let chart = chart_cells(&s);
    for (i, (m, n)) in first.iter().enumerate() {
        let letter = char::from(b'A' + i as u8);
        assert!(chart.contains(letter), "{m} ({letter}) is not drawn:\n{s}");
        let share = format!("{:.0}%", *n as f64 * 100.0 / answers as f64);
        let line = s
            .lines()
            .find(|l| l.contains(&format!("│{letter} {m}")))
            .unwrap_or_else(|| panic!("no member line for {m}:\n{s}"));
        assert!(
            line.split_whitespace().nth(2) == Some(share.as_str()),
            "{m}: stats counts {share}:\n{line}"
        );
    }
    tmux.keys(&["q"]);
}

/// A capture cut short inside its last record: the UI shows the frames before it and says, in
/// its bottom line, what was wrong with the file (it said nothing, and the header's count of
/// decode errors was cut off at 80 columns).
#[test]
fn tui_tells_a_capture_cut_short() {
    if !have_tmux() {
        return;
    }
    let whole = std::fs::read(common::fixture("demo.pcap")).expect("demo.pcap");
    let dir = std::env::temp_dir().join(format!("poolshark-tui-cut-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let cut = dir.join("cut.pcap");
    // Ten bytes short: inside the last record.
    std::fs::write(&cut, &whole[..whole.len() - 10]).expect("write");
    let bin = env!("CARGO_BIN_EXE_poolshark");
    let tmux = Tmux::new();
    start(&tmux, &format!("'{bin}' tui '{}'; sleep 60", cut.display()));
    // The frames, counted by the tests' own pcap reader: all but the last are read.
    let n = crate::dhcp_support::pcap::frames(&whole).len();
    let read = format!("{} frames", n - 1);
    let s = tmux.wait_for("the file loaded", 30, |s| s.contains(&read));
    let top = s.lines().next().unwrap_or_default();
    assert!(top.contains("1 decode error"), "{s}");
    let bottom = s.lines().nth(23).unwrap_or_default();
    assert!(
        bottom.starts_with(&format!(" Reading the file: frame {n}"))
            && bottom.contains("truncated"),
        "{s}"
    );
    tmux.keys(&["q"]);
    let _ = std::fs::remove_dir_all(&dir);
}
