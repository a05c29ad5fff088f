//! Prometheus metrics: `check --metrics-file` on shared captures says what `check --format json`
//! says of the same run (frames, messages, findings by rule and severity, a DHCP pair's answers
//! and findings per server, its current episode, RSerPool resolutions per registrar and pool,
//! failover leases), and `promtool check metrics` (Prometheus' own linter and parser) accepts the
//! text. The live endpoint is tested in `live_capture`.
//!
//! promtool comes with Debian's `prometheus` package; without it the promtool checks skip, saying
//! so, and `POOLSHARK_REQUIRE_PROMTOOL=1` (which `.ci/run` sets) turns the skip into a failure.

use crate::common::{self, poolshark};

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::Value;

/// One sample: its labels, its value.
pub type Labels = BTreeMap<String, String>;

/// A metrics page read back, independently of poolshark's writer: per family name, its samples;
/// and the `# TYPE` of each family.
#[derive(Debug, Default)]
pub struct Page {
    pub samples: BTreeMap<String, Vec<(Labels, f64)>>,
    pub types: BTreeMap<String, String>,
}

impl Page {
    /// Parses the text format 0.0.4 (as the tests need it: no timestamps, no histograms).
    pub fn parse(text: &str) -> Page {
        let mut page = Page::default();
        for line in text.lines() {
            if let Some(rest) = line.strip_prefix("# TYPE ") {
                let (name, kind) = rest.split_once(' ').expect("TYPE line");
                page.types.insert(name.into(), kind.into());
                continue;
            }
            if line.starts_with('#') || line.is_empty() {
                continue;
            }
            let (series, value) = line.rsplit_once(' ').expect("sample line");
            let value: f64 = match value {
                "+Inf" => f64::INFINITY,
                "-Inf" => f64::NEG_INFINITY,
                v => v.parse().unwrap_or_else(|_| panic!("value in {line:?}")),
            };
            let (name, labels) = match series.split_once('{') {
                None => (series.to_string(), Labels::new()),
                Some((name, rest)) => (name.to_string(), parse_labels(rest, line)),
            };
            page.samples.entry(name).or_default().push((labels, value));
        }
        page
    }

    /// The value of the sample of `name` whose labels include `want`.
    pub fn get(&self, name: &str, want: &[(&str, &str)]) -> Option<f64> {
        let found: Vec<f64> = self
            .samples
            .get(name)?
            .iter()
            .filter(|(l, _)| {
                want.iter()
                    .all(|(k, v)| l.get(*k).map(String::as_str) == Some(*v))
            })
            .map(|(_, v)| *v)
            .collect();
        assert!(found.len() <= 1, "{name} {want:?}: {found:?}");
        found.first().copied()
    }

    /// The samples of `name`, or none.
    pub fn all(&self, name: &str) -> &[(Labels, f64)] {
        self.samples.get(name).map_or(&[], Vec::as_slice)
    }

    /// The sum of `name`'s samples grouped by the value of label `by`.
    pub fn sum_by(&self, name: &str, by: &str) -> BTreeMap<String, f64> {
        let mut out = BTreeMap::new();
        for (l, v) in self.all(name) {
            *out.entry(l.get(by).cloned().unwrap_or_default())
                .or_insert(0.0) += v;
        }
        out
    }
}

/// `a="x",b="y\"z"}` to its labels, escapes undone.
fn parse_labels(s: &str, line: &str) -> Labels {
    let mut labels = Labels::new();
    let mut chars = s.chars().peekable();
    loop {
        match chars.peek() {
            Some('}') => break,
            Some(',') => {
                chars.next();
                continue;
            }
            None => panic!("unterminated labels in {line:?}"),
            _ => {}
        }
        let key: String = chars.by_ref().take_while(|c| *c != '=').collect();
        assert_eq!(chars.next(), Some('"'), "{line:?}");
        let mut value = String::new();
        loop {
            match chars.next() {
                Some('\\') => match chars.next() {
                    Some('n') => value.push('\n'),
                    Some(c @ ('\\' | '"')) => value.push(c),
                    other => panic!("bad escape {other:?} in {line:?}"),
                },
                Some('"') => break,
                Some(c) => value.push(c),
                None => panic!("unterminated value in {line:?}"),
            }
        }
        assert!(
            labels.insert(key.clone(), value).is_none(),
            "label {key} twice in {line:?}"
        );
    }
    labels
}

/// Whether promtool can be run; skips (or fails, under `POOLSHARK_REQUIRE_PROMTOOL`) otherwise.
pub fn have_promtool() -> bool {
    let ok = Command::new("promtool")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        if std::env::var_os("POOLSHARK_REQUIRE_PROMTOOL").is_some() {
            panic!("POOLSHARK_REQUIRE_PROMTOOL is set but promtool cannot be run");
        }
        poolshark::test_support::skip(
            "promtool is not installed (apt-get install prometheus: it comes with it)",
        );
    }
    ok
}

/// `promtool check metrics` on `text`: it parses the page and lints it (names, suffixes, HELP);
/// panics with what it said unless it found nothing.
pub fn promtool_accepts(text: &str) {
    let mut child = Command::new("promtool")
        .args(["check", "metrics"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("promtool");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    let o = child.wait_with_output().unwrap();
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(
        o.status.success() && said.trim().is_empty(),
        "promtool: {said}\n{text}"
    );
}

fn temp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("poolshark-metrics-{}-{name}", std::process::id()))
}

/// `check --format json --metrics-file` on `files`: (the JSON, the metrics page's text).
fn check_with_metrics(files: &[&Path], name: &str) -> (Value, String) {
    let prom = temp(name);
    let o = poolshark()
        .args([
            "check",
            "--no-progress",
            "--format",
            "json",
            "--metrics-file",
        ])
        .arg(&prom)
        .args(files)
        .output()
        .unwrap();
    assert!(
        matches!(o.status.code(), Some(0 | 1)),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let json: Value = serde_json::from_slice(&o.stdout).unwrap();
    let text = std::fs::read_to_string(&prom).unwrap();
    let _ = std::fs::remove_file(&prom);
    (json, text)
}

/// Checks `page` (of one file, or of one `file` label among several) against that file's report.
pub fn agrees_with_report(page: &Page, report: &Value, file: Option<&str>) {
    let with = |mut l: Vec<(&'static str, String)>| {
        if let Some(f) = file {
            l.push(("file", f.to_string()));
        }
        l
    };
    let get = |name: &str, l: Vec<(&'static str, String)>| {
        let l = with(l);
        let want: Vec<(&str, &str)> = l.iter().map(|(k, v)| (*k, v.as_str())).collect();
        page.get(name, &want)
    };
    let summary = &report["summary"];
    assert_eq!(
        get("poolshark_frames_total", vec![]),
        summary["frames"].as_f64()
    );
    let of_file = |name: &str| -> Vec<(Labels, f64)> {
        page.all(name)
            .iter()
            .filter(|(l, _)| file.is_none_or(|f| l.get("file").map(String::as_str) == Some(f)))
            .cloned()
            .collect()
    };
    let messages: f64 = of_file("poolshark_messages_total")
        .iter()
        .map(|s| s.1)
        .sum();
    assert_eq!(Some(messages), summary["messages"].as_f64());
    // Findings: by rule (over severities) and by severity (over rules).
    let mut by_rule = BTreeMap::new();
    let mut by_severity = BTreeMap::new();
    for (l, v) in of_file("poolshark_findings_total") {
        *by_rule.entry(l["rule"].clone()).or_insert(0.0) += v;
        *by_severity.entry(l["severity"].clone()).or_insert(0.0) += v;
    }
    let json_by_rule: BTreeMap<String, f64> = summary["by_rule"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.clone(), v.as_f64().unwrap()))
        .collect();
    assert_eq!(by_rule, json_by_rule);
    for (severity, key) in [
        ("error", "errors"),
        ("warning", "warnings"),
        ("info", "infos"),
    ] {
        assert_eq!(
            by_severity.get(severity).copied().unwrap_or(0.0),
            summary[key].as_f64().unwrap(),
            "{severity}"
        );
    }
    // A DHCP pair's servers: answers, shares, and their findings counted from the listed ones.
    let listed = summary["not_listed"].as_u64() == Some(0);
    let pairs = report["dhcp_lb"]["pairs"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    for s in report["servers"].as_array().into_iter().flatten() {
        let Some(pair) = pairs.iter().find(|p| p["family"] == s["family"]) else {
            continue;
        };
        if !matches!(s["role"].as_str(), Some("primary" | "secondary")) {
            continue;
        }
        let l = || {
            vec![
                ("pair", pair["pair"].as_str().unwrap().to_string()),
                ("server", s["server"].as_str().unwrap().to_string()),
            ]
        };
        assert_eq!(
            get("poolshark_dhcp_balanced_answers_total", l()),
            s["balanced_answers"].as_f64(),
            "{s}"
        );
        assert_eq!(get("poolshark_dhcp_share", l()), s["share"].as_f64());
        assert_eq!(
            get("poolshark_dhcp_expected_share", l()),
            s["expected_share"].as_f64()
        );
        if listed {
            for (name, rule) in [
                ("poolshark_dhcp_no_answers_total", "dhcp.lb.no-answer"),
                ("poolshark_dhcp_wrong_server_total", "dhcp.lb.wrong-server"),
                (
                    "poolshark_dhcp_double_answers_total",
                    "dhcp.lb.double-answer",
                ),
            ] {
                let n = report["findings"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .filter(|f| f["rule"] == rule && f["server"] == s["server"])
                    .count();
                assert_eq!(get(name, l()), Some(n as f64), "{name} {s}");
            }
        }
    }
    // The current episode: the last one listed, and only it at 1.
    for p in &pairs {
        let pair = p["pair"].as_str().unwrap();
        let last = report["episodes"]
            .as_array()
            .unwrap()
            .iter()
            .rfind(|e| e["pair"] == pair)
            .expect("a pair has an episode");
        let on: Vec<Labels> = of_file("poolshark_dhcp_episode")
            .into_iter()
            .filter(|(l, v)| l["pair"] == pair && *v == 1.0)
            .map(|(l, _)| l)
            .collect();
        assert_eq!(on.len(), 1, "{pair}: {on:?}");
        assert_eq!(on[0]["kind"], last["kind"].as_str().unwrap());
        assert_eq!(on[0]["server"], last["server"].as_str().unwrap_or(""));
    }
    // RSerPool: each registrar's pools.
    for p in report["pools"].as_array().into_iter().flatten() {
        let l = || {
            vec![
                ("registrar", p["registrar"].as_str().unwrap().to_string()),
                ("pool", p["handle"].as_str().unwrap().to_string()),
            ]
        };
        assert_eq!(
            get("poolshark_rserpool_resolutions_total", l()),
            p["resolutions"].as_f64(),
            "{p}"
        );
        assert_eq!(get("poolshark_rserpool_members", l()), p["pes"].as_f64());
        assert_eq!(
            get("poolshark_rserpool_deviations", l()),
            p["deviations"].as_f64()
        );
    }
    // Failover pools' leases.
    for p in report["failover"]["pools"].as_array().into_iter().flatten() {
        let pool = p["pool"].as_str().unwrap().to_string();
        for state in ["free", "backup", "active"] {
            assert_eq!(
                get(
                    "poolshark_failover_leases",
                    vec![("pool", pool.clone()), ("state", state.into())]
                ),
                p[state].as_f64(),
                "{pool} {state}"
            );
        }
    }
}

/// Every counter's name ends in `_total` and every family has its TYPE.
pub fn names_follow_the_conventions(page: &Page) {
    for name in page.samples.keys() {
        assert!(name.starts_with("poolshark_"), "{name}");
        let kind = page
            .types
            .get(name)
            .unwrap_or_else(|| panic!("{name}: no TYPE"));
        assert_eq!(
            kind == "counter",
            name.ends_with("_total"),
            "{name}: {kind}"
        );
    }
}

const CAPTURES: [&str; 4] = [
    "dhcp-failover/isc-dhcpd-4.4.3-failover.pcap",
    "dhcp-kea/kea-2.2-ha-load-balancing-v6.pcap",
    "rserpool/rsplib-multi-pe.pcap",
    "rserpool/asap-enrp-coverage.pcap",
];

#[test]
fn check_metrics_file_says_what_check_json_says() {
    let promtool = have_promtool();
    for rel in CAPTURES {
        let Some(capture) = common::shared_capture(rel) else {
            return;
        };
        let (report, text) = check_with_metrics(&[&capture], common::file_name(&capture));
        let page = Page::parse(&text);
        names_follow_the_conventions(&page);
        agrees_with_report(&page, &report, None);
        if promtool {
            promtool_accepts(&text);
        }
    }
}

#[test]
fn the_failover_capture_has_its_pair_its_pool_and_its_takeovers() {
    // What the capture's README says is in it, through the metrics: one dhcpd pair, one pool,
    // takeovers (the secondary was stopped twice).
    let Some(capture) = common::shared_capture("dhcp-failover/isc-dhcpd-4.4.3-failover.pcap")
    else {
        return;
    };
    let (_, text) = check_with_metrics(&[&capture], "fo");
    let page = Page::parse(&text);
    let answers = page.sum_by("poolshark_dhcp_balanced_answers_total", "server");
    assert_eq!(
        answers.keys().collect::<Vec<_>>(),
        ["192.0.2.1", "192.0.2.2"]
    );
    assert!(answers.values().all(|n| *n > 0.0), "{answers:?}");
    assert!(page
        .get(
            "poolshark_failover_leases",
            &[("pool", "192.0.2.0/24"), ("state", "free")]
        )
        .is_some());
    assert!(
        page.get(
            "poolshark_findings_total",
            &[("rule", "dhcp.lb.takeover"), ("severity", "info")]
        )
        .is_some_and(|n| n > 0.0),
        "{text}"
    );
}

#[test]
fn several_files_make_one_page_labelled_by_file() {
    let mut files = Vec::new();
    for rel in [CAPTURES[0], CAPTURES[2]] {
        let Some(c) = common::shared_capture(rel) else {
            return;
        };
        files.push(c);
    }
    let refs: Vec<&Path> = files.iter().map(PathBuf::as_path).collect();
    let (reports, text) = check_with_metrics(&refs, "several");
    let page = Page::parse(&text);
    names_follow_the_conventions(&page);
    for (f, report) in files.iter().zip(reports.as_array().unwrap()) {
        let name = f.to_str().unwrap();
        assert_eq!(report["file"], name);
        agrees_with_report(&page, report, Some(name));
    }
    // Each family once, its samples together.
    assert_eq!(
        text.matches("# TYPE poolshark_frames_total ").count(),
        1,
        "{text}"
    );
    if have_promtool() {
        promtool_accepts(&text);
    }
}

#[test]
fn an_unwritable_metrics_file_is_a_clear_error() {
    let Some(capture) = common::shared_capture(CAPTURES[3]) else {
        return;
    };
    let o = poolshark()
        .args([
            "check",
            "--no-progress",
            "--metrics-file",
            "/nonexistent-dir/m.prom",
        ])
        .arg(&capture)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("/nonexistent-dir/m.prom"), "{err}");
}
