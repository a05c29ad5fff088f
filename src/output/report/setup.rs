//! What `check` prints of the configuration files besides the findings: a line per file, the
//! notes of what the replays could not use.
//!
//! JSON: `"config": {"files": [{"file", "product", "family", "summary"}], "notes": [...],
//! "mismatches": [{"pair", "setting", "values": [{"file", "value"}], "severity", "why"}]}`.

use serde_json::{json, Map, Value};

use crate::analyse::setup::report::values_json;
use crate::analyse::setup::{Rule, SetupAnalyser};

pub fn text(a: &SetupAnalyser, out: &mut String) {
    for c in a.configs() {
        out.push_str(&format!("config {}: {}\n", c.file, c.summary()));
    }
    for n in a.notes() {
        out.push_str(&format!("config: {n}\n"));
    }
}

pub fn json(a: &SetupAnalyser, out: &mut Map<String, Value>) {
    let files: Vec<Value> = a
        .configs()
        .iter()
        .map(|c| {
            json!({
                "file": c.file,
                "product": c.product.name(),
                "family": c.family.name(),
                "summary": c.summary(),
            })
        })
        .collect();
    let mismatches: Vec<Value> = a
        .mismatches()
        .iter()
        .map(|d| {
            json!({
                "pair": d.pair,
                "setting": d.setting,
                "values": values_json(d),
                "severity": Rule::severity_of(d.impact).name(),
                "why": d.why,
            })
        })
        .collect();
    out.insert(
        "config".into(),
        json!({ "files": files, "notes": a.notes(), "mismatches": mismatches }),
    );
}
