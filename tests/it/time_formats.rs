//! The listing's time column (`read -t FORMAT`, `-u hms`), the frame's time fields in `-T fields`
//! (`frame.time`, `frame.time_utc`, `frame.time_delta`, `frame.time_delta_displayed`) and in
//! display filters, against tshark 4.0, under UTC and under zones east and west of it (Asia/Kolkata
//! is 5:30 ahead, New York 5 behind with summer time).
//!
//! Every fixture tshark reads and every shared capture is compared (the first 1,000 frames of
//! each: past them the six longer captures, RSPLIB's, Kea's and ISC's, only repeat their clock,
//! and tshark's time per run grows with the frames), with two crafted captures: nanosecond times, and times that go back (negative
//! differences, a leap day, the last day of a leap year, the epoch). They are joined, in order,
//! into one pcapng by `mergecap -a` (each keeps its interface and its clock's resolution), so
//! that each format is one tshark run; the joins themselves go back and forth in time.

use crate::common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use poolshark::base::Timestamp;
use poolshark::output::pcap::{PcapWriter, TsResolution};

/// The zones compared besides UTC; a test skips (fails under POOLSHARK_REQUIRE_TSHARK) without
/// their tzdata.
const ZONES: [&str; 2] = ["Asia/Kolkata", "America/New_York"];

fn have_zones() -> bool {
    let missing: Vec<&str> = ZONES
        .iter()
        .copied()
        .filter(|z| !Path::new("/usr/share/zoneinfo").join(z).is_file())
        .collect();
    if missing.is_empty() {
        return true;
    }
    let why = format!("tzdata lacks {missing:?} (apt-get install tzdata)");
    if std::env::var_os("POOLSHARK_REQUIRE_TSHARK").is_some() {
        panic!("POOLSHARK_REQUIRE_TSHARK is set but {why}");
    }
    poolshark::test_support::skip(why);
    false
}

/// A raw IPv4/UDP frame (link type 101), numbered `n`.
fn udp_frame(n: u8) -> Vec<u8> {
    let mut f = vec![
        0x45, 0, 0, 32, 0, n, 0, 0, 64, 17, 0, 0, 192, 0, 2, 1, 192, 0, 2, 2,
    ];
    f.extend_from_slice(&[
        0x03,
        0xe8 + n,
        0x07,
        0xd0,
        0,
        12,
        0,
        0,
        b'a',
        b'b',
        b'c',
        b'd',
    ]);
    f
}

/// A pcap of these times at this resolution.
fn crafted(path: &Path, res: TsResolution, times: &[(i64, u32)]) {
    let file = std::fs::File::create(path).expect("create");
    let mut w = PcapWriter::new(file, 101, res).expect("pcap header");
    for (i, &(s, ns)) in times.iter().enumerate() {
        w.write(Timestamp::new(s, ns), &udp_frame(i as u8))
            .expect("write");
    }
}

/// Every capture compared, joined into one pcapng (in a temporary folder the caller removes).
fn joined(name: &str) -> Option<(PathBuf, PathBuf)> {
    if !common::have_tshark() {
        return None;
    }
    let shared = common::shared_dir()?;
    let dir = std::env::temp_dir().join(format!("poolshark-time-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let ns = dir.join("ns.pcap");
    crafted(
        &ns,
        TsResolution::Nano,
        &[
            (1_709_164_799, 999_999_999),
            (1_709_164_800, 0),
            (1_709_164_800, 500),
            (1_709_164_799, 123_456_789),
            (1_709_251_200, 5),
            (1_704_067_199, 999_000_000),
            (1_735_689_599, 1),
        ],
    );
    let us = dir.join("us.pcap");
    crafted(
        &us,
        TsResolution::Micro,
        &[
            (1_709_164_799, 999_999_000),
            (1_709_164_799, 500_000_000),
            (1_709_164_000, 1_000),
            (1_735_603_200, 0),
            (0, 0),
            (951_782_400, 1_000),
            (1_719_792_000, 250_000),
        ],
    );
    let mut inputs: Vec<PathBuf> = poolshark::generate::fixtures::ALL
        .iter()
        .filter(|f| f.tshark)
        .map(|f| common::fixture(f.name))
        .collect();
    for (i, capture) in common::captures_under(&shared.join("captures"))
        .iter()
        .enumerate()
    {
        let first = dir.join(format!("shared-{i}.pcapng"));
        let status = Command::new("editcap")
            .args(["-r", "-F", "pcapng"])
            .arg(capture)
            .arg(&first)
            .arg("1-1000")
            .status()
            .expect("editcap runs (it comes with tshark)");
        assert!(status.success(), "editcap failed on {}", capture.display());
        inputs.push(first);
    }
    inputs.push(ns);
    inputs.push(us);
    let out = dir.join("joined.pcapng");
    common::tshark::join(&inputs, &out);
    Some((dir, out))
}

/// tshark's time column by frame (`_ws.col.Time`).
fn tshark_times(cap: &Path, args: &[&str], tz: &str) -> BTreeMap<u64, String> {
    let out = Command::new("tshark")
        .env("TZ", tz)
        .arg("-r")
        .arg(cap)
        .args(args)
        .args(["-T", "fields", "-e", "frame.number", "-e", "_ws.col.Time"])
        .output()
        .expect("tshark runs");
    assert!(out.status.success(), "tshark {args:?} failed");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| {
            let (n, t) = l.split_once('\t')?;
            Some((n.parse().ok()?, t.to_string()))
        })
        .collect()
}

/// poolshark's time column by frame: the text between the frame number and the source address
/// (right-aligned, so the last word before the arrow; the whole of it when the frame has no
/// address, which leaves the 12 columns blank).
fn our_times(cap: &Path, args: &[&str], tz: &str) -> BTreeMap<u64, String> {
    let out = common::poolshark()
        .env("TZ", tz)
        .args(["read", "-r"])
        .arg(cap)
        .args(args)
        .output()
        .expect("poolshark runs");
    assert!(out.status.success(), "poolshark read {args:?} failed");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| {
            let n = l.get(..5)?.trim().parse().ok()?;
            let before = l.get(6..)?.split(" → ").next()?;
            let time = if before.ends_with(&" ".repeat(13)) {
                before.trim()
            } else {
                before.trim_end().rsplit_once(' ')?.0.trim()
            };
            Some((n, time.to_string()))
        })
        .collect()
}

fn assert_same(what: &str, ours: &BTreeMap<u64, String>, theirs: &BTreeMap<u64, String>) {
    let diff: Vec<String> = theirs
        .keys()
        .chain(ours.keys())
        .filter(|n| ours.get(n) != theirs.get(n))
        .take(10)
        .map(|n| {
            format!(
                "frame {n}: ours {:?}, tshark {:?}",
                ours.get(n),
                theirs.get(n)
            )
        })
        .collect();
    assert!(
        diff.is_empty(),
        "{what}: differs from tshark:\n{}",
        diff.join("\n")
    );
}

/// Some frames (the larger ones, the first three, failover): what `dd` and `frame.time_delta_displayed` count
/// from depends on it.
const SOME: &str = "frame.len > 300 || frame.number < 4 || udp.port == 647";

#[test]
fn listing_time_formats_match_tshark() {
    let Some((dir, cap)) = joined("listing") else {
        return;
    };
    if !have_zones() {
        return;
    }
    let mut runs: Vec<(Vec<&str>, &str)> = Vec::new();
    for t in ["a", "ad", "adoy", "d", "dd", "e", "r", "u", "ud", "udoy"] {
        runs.push((vec!["-t", t], "UTC"));
    }
    for tz in ZONES {
        for t in ["a", "ad", "adoy"] {
            runs.push((vec!["-t", t], tz));
        }
    }
    for t in ["r", "d", "dd"] {
        runs.push((vec!["-t", t, "-u", "hms"], "UTC"));
    }
    runs.push((vec!["-t", "dd", "-Y", SOME], "UTC"));
    runs.push((vec!["-t", "d", "-u", "hms", "-Y", SOME], "UTC"));
    runs.push((vec!["-Y", SOME], "UTC"));
    let mut compared = 0;
    for (args, tz) in &runs {
        let theirs = tshark_times(&cap, args, tz);
        assert_same(
            &format!("{args:?} TZ={tz}"),
            &our_times(&cap, args, tz),
            &theirs,
        );
        compared += theirs.len();
    }
    std::fs::remove_dir_all(&dir).ok();
    assert!(compared > 100_000, "only {compared} times compared");
}

/// `-T fields` of the time fields, byte for byte, with and without -Y; `frame.time_utc`, which
/// tshark 4.0 lacks, against tshark's `frame.time` under TZ=UTC (the same text).
#[test]
fn time_fields_match_tshark() {
    let Some((dir, cap)) = joined("fields") else {
        return;
    };
    if !have_zones() {
        return;
    }
    let fields = [
        "frame.number",
        "frame.time",
        "frame.time_delta",
        "frame.time_delta_displayed",
        "frame.time_relative",
        "frame.time_epoch",
    ];
    let e: Vec<String> = fields
        .iter()
        .flat_map(|f| ["-e".to_string(), f.to_string()])
        .collect();
    let run = |cmd: &mut Command, tz: &str, filter: Option<&str>| -> String {
        cmd.env("TZ", tz).args(["-T", "fields"]).args(&e);
        if let Some(y) = filter {
            cmd.args(["-Y", y]);
        }
        let out = cmd.output().expect("runs");
        assert!(out.status.success(), "{cmd:?} failed");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    for tz in ["UTC", ZONES[0], ZONES[1]] {
        for filter in [None, Some(SOME)] {
            let theirs = run(Command::new("tshark").arg("-r").arg(&cap), tz, filter);
            let ours = run(
                common::poolshark().args(["read", "-r"]).arg(&cap),
                tz,
                filter,
            );
            let diff: Vec<(&str, &str)> = ours
                .lines()
                .zip(theirs.lines())
                .filter(|(a, b)| a != b)
                .take(5)
                .collect();
            assert!(
                diff.is_empty() && ours.lines().count() == theirs.lines().count(),
                "TZ={tz} -Y {filter:?}: {} lines against tshark's {}; first differences: {diff:#?}",
                ours.lines().count(),
                theirs.lines().count()
            );
            assert!(theirs.lines().count() > 1000);
        }
    }
    let utc = |cmd: &mut Command, field: &str| {
        let out = cmd
            .env("TZ", ZONES[1])
            .args(["-T", "fields", "-e", field])
            .output()
            .expect("runs");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let ours = utc(
        common::poolshark().args(["read", "-r"]).arg(&cap),
        "frame.time_utc",
    );
    // poolshark's frame.time_utc under New York's zone is tshark's frame.time under UTC, which
    // is not its frame.time under New York's.
    let theirs_local = utc(Command::new("tshark").arg("-r").arg(&cap), "frame.time");
    let theirs_utc = {
        let out = Command::new("tshark")
            .env("TZ", "UTC")
            .arg("-r")
            .arg(&cap)
            .args(["-T", "fields", "-e", "frame.time"])
            .output()
            .expect("tshark runs");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    assert_ne!(theirs_local, theirs_utc, "New York's times are not UTC's");
    assert_eq!(ours, theirs_utc, "frame.time_utc");
    std::fs::remove_dir_all(&dir).ok();
}

/// The frames a time filter keeps, by number.
/// The frame numbers `poolshark read -Y FILTER` keeps under `TZ=tz`.
fn kept(cap: &Path, filter: &str, tz: &str) -> Vec<u64> {
    let out = common::poolshark()
        .args(["read", "-r"])
        .arg(cap)
        .env("TZ", tz)
        .args(["-Y", filter, "-T", "fields", "-e", "frame.number"])
        .output()
        .expect("runs");
    assert!(
        out.status.success(),
        "{filter}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| l.parse().expect("a frame number"))
        .collect()
}

#[test]
fn time_filters_keep_what_tshark_keeps() {
    let Some((dir, cap)) = joined("filters") else {
        return;
    };
    if !have_zones() {
        return;
    }
    let filters = [
        r#"frame.time > "2024-01-01 00:00:00.5""#,
        r#"frame.time >= "2024-01-01T00:00:00.05Z""#,
        r#"frame.time < "Jan  1, 2024 00:00:00.25" && frame.time > "2023-12-31 23:00""#,
        r#"frame.time == "Feb 29, 2024 00:00:00 UTC""#,
        r#"frame.time <= "2024-02-29T05:30:00.000000500+05:30""#,
        r#"frame.time > "2024-02-28T19:00:00-0500" && frame.time < "2024-03-02""#,
        r#"frame.time in {"1970-01-01 00:00:00 UTC", "2000-02-29 00:00:00.000001 UTC"}"#,
        r#"frame.time != "2024-12-31 00:00:00UTC""#,
        r#"frame.time > "2024-07-01""#,
        "frame.time_delta > 0.5",
        "frame.time_delta < 0",
        "frame.time_delta == 0",
        "frame.time_delta_displayed > 0.02",
        "frame.time_delta_displayed >= 0 && frame.number > 40",
        "frame.number < 3 || frame.time_delta_displayed > 0.025",
        "frame.time_delta_displayed < -1",
        "frame.time_relative < 0 && frame.time_delta > 1",
    ];
    let mut kept_any = 0;
    for tz in ["UTC", ZONES[0], ZONES[1]] {
        // Differences of times read no zone: those filters run under UTC only.
        let filters: Vec<&str> = filters
            .into_iter()
            .filter(|f| tz == "UTC" || f.contains("frame.time "))
            .collect();
        let by_tshark = common::tshark::kept(&cap, &filters, &[("TZ", tz)]);
        for (f, theirs) in filters.iter().zip(by_tshark) {
            let ours = kept(&cap, f, tz);
            kept_any += usize::from(!ours.is_empty());
            assert_eq!(Ok(ours), theirs, "TZ={tz} -Y '{f}'");
        }
    }
    assert!(kept_any > 27, "only {kept_any} filters kept frames");
    eprintln!("{kept_any} runs of the filters kept frames");
    std::fs::remove_dir_all(&dir).ok();
}

fn stderr_of(args: &[&str]) -> (bool, String) {
    let out = common::poolshark().args(args).output().expect("runs");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn usage_errors_say_what_is_wrong() {
    let cap = common::fixture("rserpool-rfc.pcap");
    let cap = cap.to_str().expect("utf-8 path");
    let (ok, err) = stderr_of(&["read", cap, "-t", "x"]);
    assert!(
        !ok && err.contains("invalid value 'x'") && err.contains("ad, adoy"),
        "{err}"
    );
    let (ok, err) = stderr_of(&["read", cap, "-u", "m"]);
    assert!(
        !ok && err.contains("invalid value 'm'") && err.contains("hms"),
        "{err}"
    );
    for (filter, what) in [
        (
            r#"frame.time > "January 1, 2024 00:00:00""#,
            "not a date and time",
        ),
        (
            r#"frame.time > "2024-02-30""#,
            "2024-02-30 is not a day of the calendar",
        ),
        (r#"frame.time > "2024-01-01 25:00""#, "not a time of day"),
        (r#"frame.time > "2024-01-01 00:00.5""#, "need the seconds"),
        (
            r#"frame.time > "2024-01-01 00:00:00 GMT""#,
            "unexpected 'GMT'",
        ),
        (r#"frame.time contains "2024""#, "dates and times"),
        ("frame.time_delta > yesterday", "not a number of seconds"),
    ] {
        let (ok, err) = stderr_of(&["read", cap, "-Y", filter]);
        assert!(!ok, "{filter} was accepted");
        assert!(
            err.contains("display filter at byte") && err.contains(what),
            "{filter}: {err}"
        );
    }
    // -r or FILE, not both, not neither.
    let (ok, err) = stderr_of(&["read", cap, "-r", cap]);
    assert!(!ok && err.contains("cannot be used with"), "{err}");
    let (ok, err) = stderr_of(&["read", "-t", "e"]);
    assert!(!ok && err.contains("required"), "{err}");
}

/// `-r FILE` reads as FILE does; `check` and `stats` take -r (repeatable) with FILEs.
#[test]
fn dash_r_names_the_capture() {
    let cap = common::fixture("rserpool-rfc.pcap");
    let other = common::fixture("dhcpv6-all-types.pcap");
    let out = |args: &[&std::ffi::OsStr]| {
        let o = common::poolshark().args(args).output().expect("runs");
        assert!(
            o.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    let os = |s: &str| std::ffi::OsString::from(s);
    let (c, o) = (cap.as_os_str(), other.as_os_str());
    assert_eq!(out(&[&os("read"), &os("-r"), c]), out(&[&os("read"), c]));
    let both = out(&[&os("stats"), &os("-r"), c, o]);
    assert_eq!(both, out(&[&os("stats"), c, o]));
    assert_eq!(both, out(&[&os("stats"), &os("-r"), c, &os("-r"), o]));
    // `check` exits 1 on findings: its report is compared, whatever the exit status.
    let check = |args: &[&std::ffi::OsStr]| {
        let o = common::poolshark().args(args).output().expect("runs");
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    let report = check(&[&os("check"), &os("-r"), c]);
    assert!(!report.is_empty());
    assert_eq!(report, check(&[&os("check"), c]));
}
