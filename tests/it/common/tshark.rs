//! tshark as an independent oracle: extract fields per frame with `tshark -T fields` and compare
//! them with poolshark's JSON records, value by value.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Every name tshark registers (`tshark -G fields`), with its type: `FT_UINT8` and the like for a
/// field, "" for a protocol. Asked once per test binary.
pub fn registered() -> &'static BTreeMap<String, String> {
    static NAMES: std::sync::OnceLock<BTreeMap<String, String>> = std::sync::OnceLock::new();
    NAMES.get_or_init(|| {
        let out = Command::new("tshark")
            .args(["-G", "fields"])
            .output()
            .expect("tshark -G fields");
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter_map(|l| {
                let cols: Vec<&str> = l.split('\t').collect();
                match cols.as_slice() {
                    ["F", _, name, ty, ..] => Some((name.to_string(), ty.to_string())),
                    ["P", _, name, ..] => Some((name.to_string(), String::new())),
                    _ => None,
                }
            })
            .collect()
    })
}

/// frame number -> field name -> values in order of occurrence in the frame.
pub type PerFrame = BTreeMap<u64, BTreeMap<String, Vec<String>>>;

/// Runs tshark over `capture` for `fields`, keeping frames that match `filter`.
/// `extra` holds further tshark arguments (e.g. `-d udp.port==2001,asap`).
pub fn fields(capture: &Path, filter: &str, fields: &[&str], extra: &[&str]) -> PerFrame {
    let mut cmd = Command::new("tshark");
    cmd.arg("-n").arg("-r").arg(capture);
    if !filter.is_empty() {
        cmd.arg("-Y").arg(filter);
    }
    cmd.args(extra);
    cmd.args(["-T", "fields", "-E", "occurrence=a", "-E", "aggregator=,"]);
    cmd.args(["-e", "frame.number"]);
    for f in fields {
        cmd.args(["-e", f]);
    }
    let out = cmd.output().expect("tshark runs");
    assert!(
        out.status.success(),
        "tshark failed on {}: {}",
        capture.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let mut map = PerFrame::new();
    for line in text.lines() {
        let cols: Vec<&str> = line.split('\t').collect();
        let Some(frame) = cols.first().and_then(|c| c.parse::<u64>().ok()) else {
            continue;
        };
        let entry = map.entry(frame).or_default();
        for (name, col) in fields.iter().zip(cols.iter().skip(1)) {
            if col.is_empty() {
                continue;
            }
            let vals: Vec<String> = col.split(',').map(normalise).collect();
            entry.insert((*name).to_string(), vals);
        }
    }
    map
}

/// Groups poolshark's JSON records (one per message) into the same per-frame shape, keeping only
/// `fields`.
pub fn from_records(records: &[serde_json::Value], fields: &[&str]) -> PerFrame {
    let mut map = PerFrame::new();
    for r in records {
        let frame = r["frame"].as_u64().expect("frame number");
        let entry = map.entry(frame).or_default();
        for name in fields {
            let v = &r["fields"][*name];
            let vals: Vec<String> = match v {
                serde_json::Value::Null => continue,
                serde_json::Value::Array(a) => a.iter().map(json_scalar).collect(),
                other => vec![json_scalar(other)],
            };
            entry.entry((*name).to_string()).or_default().extend(vals);
        }
    }
    map.retain(|_, m| !m.is_empty());
    map
}

fn json_scalar(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => normalise(s),
        serde_json::Value::Bool(b) => (if *b { "1" } else { "0" }).to_string(),
        other => normalise(&other.to_string()),
    }
}

/// One spelling for a value whichever tool wrote it: integers in decimal (tshark writes some in
/// hex), floats to 6 decimals, booleans as 0/1, the rest lowercased with colons removed from hex
/// byte strings.
pub fn normalise(s: &str) -> String {
    let t = s.trim();
    if let Some(h) = t.strip_prefix("0x") {
        if let Ok(n) = u64::from_str_radix(h, 16) {
            return n.to_string();
        }
    }
    if let Ok(n) = t.parse::<i64>() {
        return n.to_string();
    }
    if t.contains('.') && !t.contains(':') && t.chars().filter(|c| *c == '.').count() == 1 {
        if let Ok(x) = t.parse::<f64>() {
            return format!("{x:.6}");
        }
    }
    match t {
        "True" | "true" => return "1".into(),
        "False" | "false" => return "0".into(),
        _ => {}
    }
    let is_hex_bytes = t.len() >= 2
        && t.split(':')
            .all(|p| p.len() == 2 && p.chars().all(|c| c.is_ascii_hexdigit()));
    if is_hex_bytes {
        return t.replace(':', "").to_ascii_lowercase();
    }
    t.to_string()
}

/// Every difference between the two, as lines a person can read; empty when they agree.
pub fn diff(ours: &PerFrame, theirs: &PerFrame, fields: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    let frames: std::collections::BTreeSet<u64> =
        ours.keys().chain(theirs.keys()).copied().collect();
    let empty = BTreeMap::new();
    for f in frames {
        let a = ours.get(&f).unwrap_or(&empty);
        let b = theirs.get(&f).unwrap_or(&empty);
        for name in fields {
            let va = a.get(*name).map(Vec::as_slice).unwrap_or(&[]);
            let vb = b.get(*name).map(Vec::as_slice).unwrap_or(&[]);
            if va != vb {
                out.push(format!("frame {f} {name}: poolshark {va:?} tshark {vb:?}"));
            }
        }
    }
    out
}

/// The lines `cmd` writes on its standard output; fails the test when it fails or writes other
/// than UTF-8.
pub fn lines(cmd: &mut Command, who: &str) -> Vec<String> {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("{who} does not run: {e}"));
    assert!(out.status.success(), "{who}: {out:?}");
    String::from_utf8(out.stdout)
        .unwrap_or_else(|e| panic!("{who}: not UTF-8: {e}"))
        .lines()
        .map(str::to_string)
        .collect()
}

/// Both tools' `-T fields` lines for `args` (`-e`, `-E`, `-Y` ...): `poolshark read -T fields
/// ARGS CAPTURE` and `tshark -r CAPTURE -T fields ARGS`.
pub fn both_fields<S: AsRef<OsStr>>(capture: &Path, args: &[S]) -> (Vec<String>, Vec<String>) {
    let ours = lines(
        crate::common::read_fields().args(args).arg(capture),
        "poolshark read",
    );
    let theirs = lines(
        Command::new("tshark")
            .arg("-r")
            .arg(capture)
            .args(["-T", "fields"])
            .args(args),
        "tshark",
    );
    (ours, theirs)
}

/// `inputs` joined end to end into the pcapng file `out` by `mergecap -a` (it comes with
/// tshark); each input keeps its own interfaces, so its link type and snap length.
pub fn join(inputs: &[PathBuf], out: &Path) {
    let status = Command::new("mergecap")
        .args(["-a", "-I", "none", "-F", "pcapng", "-w"])
        .arg(out)
        .args(inputs)
        .status()
        .expect("mergecap runs (it comes with tshark)");
    assert!(status.success(), "mergecap failed on {inputs:?}");
}

/// How Wireshark is asked which frames a filter keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Passes {
    /// sharkd, once for all the filters (`kept`): its two passes agree with tshark's one for
    /// every field but those that depend on what a later frame brings.
    Two,
    /// `tshark -Y`, once per filter: for stream state, which sharkd has complete from its first
    /// pass when it filters (SCTP's relative TSN acknowledgements differ in a crafted capture).
    One,
}

/// Each display filter of `filters` keeps the frames `tshark -Y` keeps in every capture of
/// `caps`, asked as `passes` says. The captures are joined into one file (named after `name`), so
/// that poolshark runs once per filter rather than once per filter and capture; stateful fields
/// (streams, sequence numbers) then run on across the captures' ends, the same for both tools. Returns the filters
/// that keep no frame or every frame of each capture (a filter read wrong that way could pass).
pub fn filters_keep_tsharks_frames<'a>(
    caps: &[PathBuf],
    filters: &[&'a str],
    name: &str,
    passes: Passes,
) -> Vec<&'a str> {
    let counts: Vec<usize> = caps
        .iter()
        .map(|c| {
            lines(
                crate::common::read_fields()
                    .args(["-e", "frame.number"])
                    .arg(c),
                "poolshark read",
            )
            .len()
        })
        .collect();
    let joined = std::env::temp_dir().join(format!(
        "poolshark-filters-{name}-{}.pcapng",
        std::process::id()
    ));
    join(caps, &joined);
    // The capture a frame of the joined file comes from, by the first frame number of each.
    let starts: Vec<u64> = counts
        .iter()
        .scan(1u64, |next, n| {
            let start = *next;
            *next += *n as u64;
            Some(start)
        })
        .collect();
    let capture_of = |n: u64| starts.partition_point(|s| *s <= n).saturating_sub(1);
    let mut unselective = Vec::new();
    let by_tshark = match passes {
        Passes::Two => kept(&joined, filters, &[]),
        Passes::One => filters
            .iter()
            .map(|f| Ok(fields(&joined, f, &[], &[]).into_keys().collect()))
            .collect(),
    };
    for (filter, theirs) in filters.iter().zip(by_tshark) {
        let theirs: Vec<String> = theirs
            .unwrap_or_else(|e| panic!("tshark refuses -Y '{filter}': {e}"))
            .iter()
            .map(u64::to_string)
            .collect();
        let ours = lines(
            crate::common::read_fields()
                .args(["-Y", filter, "-e", "frame.number"])
                .arg(&joined),
            "poolshark read",
        );
        if ours != theirs {
            let at = |l: &String| {
                let n: u64 = l.parse().unwrap_or(0);
                let i = capture_of(n);
                format!(
                    "{} frame {}",
                    crate::common::file_name(&caps[i]),
                    n + 1 - starts[i]
                )
            };
            let only = |a: &[String], b: &[String]| -> Vec<String> {
                a.iter()
                    .filter(|l| !b.contains(l))
                    .take(10)
                    .map(at)
                    .collect()
            };
            std::fs::remove_file(&joined).ok();
            panic!(
                "-Y '{filter}': poolshark keeps {} frames, tshark {}; only poolshark keeps {:?}, \
                 only tshark {:?}",
                ours.len(),
                theirs.len(),
                only(&ours, &theirs),
                only(&theirs, &ours)
            );
        }
        let mut kept = vec![0usize; caps.len()];
        for l in &ours {
            let n: u64 = l.parse().expect("a frame number");
            kept[capture_of(n)] += 1;
        }
        if !kept.iter().zip(&counts).any(|(k, n)| *k > 0 && k < n) {
            unselective.push(*filter);
        }
    }
    std::fs::remove_file(&joined).ok();
    unselective
}

/// What Wireshark's display filter engine makes of each of `filters` on `capture`: the frame
/// numbers it keeps, or its message when it refuses the filter. One run of sharkd (Wireshark's
/// analysis daemon, which comes with tshark) loads the file once and applies every filter, where
/// `tshark -Y` pays about 0.3 s of start-up per filter. `env` is set for sharkd (e.g. `TZ`).
///
/// sharkd dissects the file in two passes and tshark -Y in one, so a field that refers to later
/// frames (`sctp.retransmitted`, some expert items) can differ between them; filters on such
/// fields go through tshark (`fields`). `display_filter::sharkd_keeps_what_tshark_keeps` checks
/// that the two agree on filters of every kind the tests use.
pub fn kept(
    capture: &Path,
    filters: &[&str],
    env: &[(&str, &str)],
) -> Vec<Result<Vec<u64>, String>> {
    sharkd(capture, filters, env, |filter| {
        serde_json::json!({"method": "frames", "params": {"filter": filter, "column0": "frame.number:0"}})
    })
    .into_iter()
    .map(|r| {
        r.map(|v| {
            v.as_array()
                .expect("sharkd's frames are a list")
                .iter()
                .map(|f| f["num"].as_u64().expect("a frame number"))
                .collect()
        })
    })
    .collect()
}

/// Wireshark's message for each filter of `filters` it refuses, `None` for one it takes (sharkd's
/// `check`: the filter is compiled, as `tshark -Y` compiles it before reading).
pub fn refusals(filters: &[&str]) -> Vec<Option<String>> {
    sharkd(
        Path::new(""),
        filters,
        &[],
        |filter| serde_json::json!({"method": "check", "params": {"filter": filter}}),
    )
    .into_iter()
    .map(|r| r.err())
    .collect()
}

/// One sharkd session: loads `capture` (unless empty), sends `request(filter)` for each filter,
/// and returns each request's result or error message, in order.
fn sharkd(
    capture: &Path,
    filters: &[&str],
    env: &[(&str, &str)],
    request: impl Fn(&str) -> serde_json::Value,
) -> Vec<Result<serde_json::Value, String>> {
    use std::io::Write;
    use std::process::Stdio;
    // JSON-RPC ids must be positive: the filters are 1..=n, the load n + 1.
    let load_id = filters.len() + 1;
    let mut input = String::new();
    if !capture.as_os_str().is_empty() {
        let file = capture.to_str().expect("a capture path in UTF-8");
        let load = serde_json::json!({"jsonrpc": "2.0", "id": load_id, "method": "load", "params": {"file": file}});
        input.push_str(&format!("{load}\n"));
    }
    for (i, filter) in filters.iter().enumerate() {
        let mut req = request(filter);
        req["jsonrpc"] = "2.0".into();
        req["id"] = (i + 1).into();
        input.push_str(&format!("{req}\n"));
    }
    let mut child = Command::new("sharkd")
        .arg("-")
        .envs(env.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("sharkd runs (it comes with tshark)");
    let mut stdin = child.stdin.take().expect("sharkd's input");
    // Written from a thread: sharkd answers while it reads, and a full pipe either way would
    // stop both.
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child.wait_with_output().expect("sharkd's output");
    writer
        .join()
        .expect("the writer thread")
        .expect("sharkd takes its requests");
    assert!(
        out.status.success(),
        "sharkd on {}: {out:?}",
        capture.display()
    );
    let mut answers: Vec<Option<Result<serde_json::Value, String>>> = vec![None; filters.len()];
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let Ok(mut reply) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        let id = reply["id"].as_u64().and_then(|i| usize::try_from(i).ok());
        let answer = match reply["error"]["message"].as_str() {
            Some(message) => Err(message.to_string()),
            None => Ok(reply["result"].take()),
        };
        if id == Some(load_id) {
            assert!(
                answer.is_ok(),
                "sharkd cannot load {}: {answer:?}",
                capture.display()
            );
        } else if let Some(slot) = id
            .and_then(|i| i.checked_sub(1))
            .and_then(|i| answers.get_mut(i))
        {
            *slot = Some(answer);
        }
    }
    answers
        .into_iter()
        .zip(filters)
        .map(|(a, f)| {
            a.unwrap_or_else(|| panic!("sharkd gave no answer for {f:?} on {}", capture.display()))
        })
        .collect()
}
