//! `check` and `stats` with several files: each file's report is the one it gets on its own, in
//! the order given, whatever the number of threads; the exit code is the worst of the files'; and
//! the progress bar stays off standard error unless that is a terminal.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Output;

use common::{fixture, poolshark};
use serde_json::Value;

fn run(args: &[&str]) -> Output {
    poolshark().args(args).output().expect("run poolshark")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn path(p: &Path) -> String {
    p.display().to_string()
}

/// Three fixtures of different kinds: RSerPool and DHCP with findings, failover, RSerPool over UDP.
fn three() -> Vec<String> {
    ["demo.pcap", "failover-all-types.pcap", "rserpool-udp.pcap"]
        .iter()
        .map(|f| path(&fixture(f)))
        .collect()
}

fn with(args: &[&str], files: &[String]) -> Vec<String> {
    let mut v: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    v.extend(files.iter().cloned());
    v
}

fn run_owned(args: &[String]) -> Output {
    let a: Vec<&str> = args.iter().map(String::as_str).collect();
    run(&a)
}

#[test]
fn check_json_of_several_files_is_each_files_own_report_in_order() {
    let files = three();
    let together = run_owned(&with(&["check", "--format", "json"], &files));
    let all: Value = serde_json::from_slice(&together.stdout).expect("a JSON array");
    let all = all.as_array().expect("an array");
    assert_eq!(all.len(), files.len());
    let mut worst = 0;
    for (f, got) in files.iter().zip(all) {
        let alone = run(&["check", "--format", "json", f]);
        worst = worst.max(alone.status.code().unwrap_or(-1));
        let mut want: Value = serde_json::from_slice(&alone.stdout).expect("JSON");
        assert!(
            want["findings"].is_array() && want["summary"]["frames"].as_u64() > Some(0),
            "{f}: {want}"
        );
        want["file"] = Value::String(f.clone());
        assert_eq!(got, &want, "{f}");
    }
    assert_eq!(together.status.code(), Some(worst));
    // The demo capture has planted findings: the worst is 1.
    assert_eq!(worst, 1);
}

#[test]
fn check_text_of_several_files_is_each_report_under_its_header() {
    let files = three();
    let together = run_owned(&with(&["check"], &files));
    let mut want = String::new();
    for f in &files {
        want.push_str(&format!("== {f}\n"));
        want.push_str(&stdout(&run(&["check", f])));
    }
    assert_eq!(stdout(&together), want);
    // One summary line per file on stderr, each naming its file, in the order given.
    let err = stderr(&together);
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), files.len(), "{err}");
    for (line, f) in lines.iter().zip(&files) {
        assert!(line.starts_with(&format!("poolshark: {f}: ")), "{line}");
        assert!(line.contains(" frames, "), "{line}");
    }
}

#[test]
fn one_thread_and_two_give_the_same_output() {
    let mut files = three();
    files.push(path(&fixture("dhcpv6-all-types.pcap")));
    for cmd in [
        &["check"][..],
        &["check", "--format", "json"],
        &["stats"],
        &["stats", "--format", "json"],
        &["stats", "--format", "csv"],
    ] {
        let one = run_owned(&with(&[cmd, &["--jobs", "1"]].concat(), &files));
        let two = run_owned(&with(&[cmd, &["--jobs", "2"]].concat(), &files));
        assert!(!one.stdout.is_empty());
        assert_eq!(stdout(&one), stdout(&two), "{cmd:?}");
        assert_eq!(one.status.code(), two.status.code(), "{cmd:?}");
    }
}

/// One file with threads to spare: read and dissected on one thread, its RSerPool replay and its
/// DHCP replays on one thread each; the report is the one a single thread makes (findings of
/// both parts, in frame order, the bound of listed findings over all of them).
#[test]
fn one_file_split_over_two_threads_gives_the_one_thread_report() {
    let mut cases: Vec<Vec<String>> = vec![
        vec![path(&fixture("demo.pcap"))],
        // Listed findings bounded: demo's 4 come from both parts (DHCP's at frames 113, 116 and
        // 118, RSerPool's at 129), so the bound of 3 drops one at the merge.
        vec![
            "--max-findings".into(),
            "3".into(),
            path(&fixture("demo.pcap")),
        ],
        vec![path(&fixture("failover-all-types.pcap"))],
        vec![path(&fixture("rserpool-tcp.pcap"))],
    ];
    if let Some(dir) = common::shared_dir() {
        let c = dir.join("captures");
        let fo = c.join("dhcp-failover");
        cases.push(vec![path(&c.join("rserpool/rsplib-multi-pe.pcap"))]);
        cases.push(vec![path(
            &c.join("dhcp-kea/kea-2.2-ha-load-balancing-v6.pcap"),
        )]);
        cases.push(vec![
            "--leases".into(),
            format!("primary={}", path(&fo.join("primary.dhcpd.leases"))),
            path(&fo.join("isc-dhcpd-4.4.3-failover.pcap")),
        ]);
    }
    for case in &cases {
        for format in ["text", "json"] {
            let one = run_owned(&with(&["check", "--format", format, "--jobs", "1"], case));
            let two = run_owned(&with(&["check", "--format", format, "--jobs", "2"], case));
            assert!(!one.stdout.is_empty(), "{case:?}");
            assert_eq!(stdout(&one), stdout(&two), "{case:?} {format}");
            assert_eq!(one.status.code(), two.status.code(), "{case:?}");
            // The summary line (counts of every protocol) is the whole file's on both.
            assert_eq!(stderr(&one), stderr(&two), "{case:?}");
        }
    }
    // The bound holds over both parts: the three earliest of demo's four findings, the other
    // counted.
    let bounded = run(&[
        "check",
        "--format",
        "json",
        "--max-findings",
        "3",
        &path(&fixture("demo.pcap")),
    ]);
    let v: Value = serde_json::from_slice(&bounded.stdout).expect("JSON");
    let all = run(&["check", "--format", "json", &path(&fixture("demo.pcap"))]);
    let all: Value = serde_json::from_slice(&all.stdout).expect("JSON");
    let frames = |v: &Value| -> Vec<u64> {
        v["findings"]
            .as_array()
            .expect("findings")
            .iter()
            .filter_map(|f| f["frame"].as_u64())
            .collect()
    };
    let every = frames(&all);
    assert!(every.len() > 3, "{every:?}");
    assert_eq!(frames(&v), every[..3].to_vec());
    assert_eq!(v["summary"]["findings"], all["summary"]["findings"]);
    assert_eq!(
        v["summary"]["not_listed"].as_u64(),
        Some(every.len() as u64 - 3)
    );
}

/// Standard input is read once, as a file is: the same report.
#[test]
fn standard_input_is_checked_in_parts_with_the_same_report() {
    let demo = fixture("demo.pcap");
    let from_file = run(&["check", "--format", "json", "--jobs", "2", &path(&demo)]);
    let piped = poolshark()
        .args(["check", "--format", "json", "--jobs", "2", "-"])
        .stdin(std::fs::File::open(&demo).expect("demo"))
        .output()
        .expect("run poolshark");
    assert!(!piped.stdout.is_empty());
    assert_eq!(stdout(&piped), stdout(&from_file));
    assert_eq!(piped.status.code(), from_file.status.code());
}

#[test]
fn stats_of_several_files_is_each_files_own() {
    let files = three();
    // JSON: an array of the single-file objects, each with its file.
    let together = run_owned(&with(&["stats", "--format", "json"], &files));
    assert_eq!(together.status.code(), Some(0));
    let all: Value = serde_json::from_slice(&together.stdout).expect("JSON");
    for (f, got) in files.iter().zip(all.as_array().expect("an array")) {
        let mut want: Value =
            serde_json::from_slice(&run(&["stats", "--format", "json", f]).stdout).expect("JSON");
        want["file"] = Value::String(f.clone());
        assert_eq!(got, &want, "{f}");
    }
    // CSV: one header with a first column `file`, then each file's rows with its name.
    let together = stdout(&run_owned(&with(&["stats", "--format", "csv"], &files)));
    let mut lines = together.lines();
    let mut want = Vec::new();
    for (i, f) in files.iter().enumerate() {
        let alone = stdout(&run(&["stats", "--format", "csv", f]));
        let mut rows = alone.lines();
        let header = rows.next().expect("a header");
        if i == 0 {
            want.push(format!("file,{header}"));
        }
        let rows: Vec<String> = rows.map(|r| format!("{f},{r}")).collect();
        assert!(!rows.is_empty(), "{f}");
        want.extend(rows);
    }
    let got: Vec<String> = lines.by_ref().map(str::to_string).collect();
    assert_eq!(got, want);
    // Text: each table under its header.
    let together = stdout(&run_owned(&with(&["stats"], &files)));
    let mut want = String::new();
    for f in &files {
        want.push_str(&format!("== {f}\n{}", stdout(&run(&["stats", f]))));
    }
    assert_eq!(together, want);
}

#[test]
fn exit_code_is_the_worst_of_the_files() {
    let demo = path(&fixture("demo.pcap"));
    let clean = path(&fixture("rserpool-udp.pcap"));
    let missing = path(&fixture("no-such-capture.pcap"));
    assert_eq!(run(&["check", &clean]).status.code(), Some(0));
    assert_eq!(run(&["check", &demo]).status.code(), Some(1));
    assert_eq!(run(&["check", &clean, &clean]).status.code(), Some(0));
    assert_eq!(run(&["check", &clean, &demo]).status.code(), Some(1));
    assert_eq!(
        run(&["check", "--fail-on", "error", &clean, &demo])
            .status
            .code(),
        run(&["check", "--fail-on", "error", &demo]).status.code()
    );
    // A file that cannot be read: 2, and the others are still reported.
    let o = run(&["check", &demo, &missing, &clean]);
    assert_eq!(o.status.code(), Some(2));
    let out = stdout(&o);
    assert!(out.contains(&format!("== {demo}\n")), "{out}");
    assert!(
        out.contains(&format!("== {missing}\n== {clean}\n")),
        "{out}"
    );
    assert!(
        stderr(&o).contains(&format!("cannot read {missing}")),
        "{}",
        stderr(&o)
    );
    let o = run(&["stats", &missing, &clean]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stdout(&o).contains(&format!("== {clean}\n")));
    // JSON: the unreadable file's element says why.
    let o = run(&["check", "--format", "json", &missing, &clean]);
    let all: Value = serde_json::from_slice(&o.stdout).expect("JSON");
    assert_eq!(all[0]["file"], Value::String(missing.clone()));
    assert!(all[0]["error"]
        .as_str()
        .is_some_and(|e| e.contains("cannot read")));
    assert!(all[1]["findings"].is_array());
    // Standard input can be read once only.
    let o = run(&["check", "-", "-"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("more than once"), "{}", stderr(&o));
}

#[test]
fn one_file_keeps_the_single_file_shapes() {
    let demo = path(&fixture("demo.pcap"));
    let o = run(&["check", "--format", "json", &demo]);
    let v: Value = serde_json::from_slice(&o.stdout).expect("JSON");
    assert!(v.is_object() && v.get("file").is_none(), "{v}");
    let out = stdout(&run(&["check", &demo]));
    assert!(!out.contains("== "), "{out}");
    let err = stderr(&run(&["check", &demo]));
    assert!(
        err.starts_with("poolshark: ") && !err.contains(&demo),
        "{err}"
    );
}

/// A capture larger than the bar's threshold (8 MiB), made once.
fn large_capture() -> PathBuf {
    let p = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("parallel-files-large.pcap");
    if !p.is_file() {
        let tmp = p.with_extension("part");
        let o = run(&[
            "generate",
            "--out",
            &path(&tmp),
            "--frames",
            "45000",
            "--seed",
            "7",
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        std::fs::rename(&tmp, &p).expect("rename");
    }
    assert!(std::fs::metadata(&p).expect("size").len() > 8 << 20);
    p
}

#[test]
fn no_progress_bar_when_stderr_is_not_a_terminal() {
    let big = path(&large_capture());
    for args in [
        vec!["check", big.as_str()],
        vec!["stats", big.as_str()],
        vec!["read", "--format", "jsonl", big.as_str()],
        vec!["check", big.as_str(), big.as_str()],
    ] {
        let o = run(&args);
        let err = stderr(&o);
        assert!(
            !err.contains('\r') && !err.contains('\u{1b}'),
            "{args:?}: {err:?}"
        );
        let files = args.len() - args.iter().position(|a| *a == big).unwrap_or(0);
        assert_eq!(err.lines().count(), files, "{args:?}: {err}");
        assert!(err.lines().all(|l| l.contains(" frames, ")), "{err}");
    }
}

/// The positive side of the test above: on a terminal (a pseudo-terminal made by `script`), the
/// bar is drawn, and `--no-progress` turns it off.
#[test]
fn progress_bar_on_a_terminal() {
    let script = std::process::Command::new("script")
        .arg("--version")
        .output();
    if !script.is_ok_and(|o| o.status.success()) {
        poolshark::test_support::skip("`script` (util-linux) is not installed");
        return;
    }
    let big = path(&large_capture());
    let bin = env!("CARGO_BIN_EXE_poolshark");
    let on_tty = |extra: &str| {
        // stdout to /dev/null so that only stderr reaches the terminal.
        let cmd = format!("{bin} check {extra} {big} >/dev/null");
        let o = std::process::Command::new("script")
            .args(["-qec", &cmd, "/dev/null"])
            .output()
            .expect("run script");
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    // The bar: the file's name, then bytes read of its size ("3.81 MiB/10.39 MiB").
    let bar = |s: &str| s.contains("parallel-files-large.pcap") && s.contains(" MiB/");
    let shown = on_tty("");
    assert!(bar(&shown), "{shown:?}");
    assert!(shown.contains(" frames, "), "{shown:?}");
    let hidden = on_tty("--no-progress");
    assert!(!bar(&hidden), "{hidden:?}");
    assert!(hidden.contains(" frames, "), "{hidden:?}");
}

/// A failover stream whose framing breaks (a message length below the 12-byte header) counts
/// among the frames with errors below the application whether the DHCP part runs on a thread of
/// its own (which alone frames failover streams then, the lower layers dissected on another) or
/// on the one pipeline.
#[test]
fn a_broken_failover_stream_is_counted_alike_on_one_thread_and_two() {
    let file = common::broken_failover_stream("broken-failover", false);
    let one = run(&["check", "--jobs", "1", &path(&file)]);
    let two = run(&["check", "--jobs", "2", &path(&file)]);
    std::fs::remove_file(&file).ok();
    assert!(
        stderr(&one).contains(", 1 frames below the application,"),
        "{}",
        stderr(&one)
    );
    assert_eq!(stderr(&one), stderr(&two));
    assert_eq!(stdout(&one), stdout(&two));
}
