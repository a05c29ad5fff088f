//! tshark as an independent oracle: extract fields per frame with `tshark -T fields` and compare
//! them with poolshark's JSON records, value by value.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

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
