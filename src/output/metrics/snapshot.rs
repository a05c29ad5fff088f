//! One snapshot of a run as Prometheus metrics: the analysers read through their reporting APIs
//! (the sections of `check`'s JSON, the findings' counts and the timeline's series, which `stats`
//! shows), the pipeline's counts and, live, the kernel's drops. Made on the thread that runs the
//! analysers (they are not shared); the text is handed to the HTTP side ([`super::Published`]).
//!
//! The names are `poolshark_<area>_<what>`; counters end in `_total`. What only grows over a run
//! is a counter; a share, a level, or a count that can go down (an RSerPool registrar's
//! deviations under `--profile auto` follow the profile it fits best so far) is a gauge.

use serde_json::{Map, Value};

use super::exposition::{Exposition, Kind};
use crate::analyse::finding::Subject;
use crate::analyse::{Analyser, Report};
use crate::pipeline::RunStats;
use crate::source::live::LiveStats;

/// One part of a run: analysers and the report they write into (`check` on threads has two).
pub struct Part<'a> {
    pub analysers: &'a [Box<dyn Analyser>],
    pub report: &'a Report,
}

/// What a snapshot reads.
pub struct Sources<'a> {
    pub parts: Vec<Part<'a>>,
    pub stats: &'a RunStats,
    /// The capture's own counts (live only).
    pub live: Option<&'a LiveStats>,
}

type Labels = Vec<(&'static str, String)>;

fn counter(e: &mut Exposition, name: &'static str, help: &'static str, l: Labels, v: f64) {
    e.add(name, help, Kind::Counter, l, v);
}

fn gauge(e: &mut Exposition, name: &'static str, help: &'static str, l: Labels, v: f64) {
    e.add(name, help, Kind::Gauge, l, v);
}

fn text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

fn num(v: &Value) -> Option<f64> {
    v.as_f64()
}

/// The snapshot of `src`.
pub fn snapshot(src: &Sources<'_>) -> Exposition {
    let mut e = Exposition::new();
    pipeline(&mut e, src.stats);
    if let Some(l) = src.live {
        for i in &l.interfaces {
            let iface = || vec![("interface", i.name.clone())];
            counter(
                &mut e,
                "poolshark_capture_kernel_dropped_total",
                "Packets the kernel dropped because its capture buffer was full, by interface.",
                iface(),
                i.kernel_dropped as f64,
            );
            counter(
                &mut e,
                "poolshark_capture_user_dropped_total",
                "Frames poolshark dropped because the analysis fell behind the capture, by \
                 interface.",
                iface(),
                i.user_dropped as f64,
            );
            counter(
                &mut e,
                "poolshark_capture_interface_frames_total",
                "Frames captured and handed to the analysis, by interface.",
                iface(),
                i.captured as f64,
            );
        }
        counter(
            &mut e,
            "poolshark_capture_frames_total",
            "Frames captured and handed to the analysis.",
            vec![],
            l.captured as f64,
        );
    }
    let mut report = Map::new();
    for p in &src.parts {
        for a in p.analysers {
            crate::output::report::json(a.view(), &mut report);
        }
    }
    findings(&mut e, &src.parts);
    dhcp(&mut e, &report, &src.parts);
    rserpool(&mut e, &report, &src.parts);
    failover(&mut e, &report);
    e
}

fn pipeline(e: &mut Exposition, s: &RunStats) {
    counter(
        e,
        "poolshark_frames_total",
        "Frames read.",
        vec![],
        s.frames as f64,
    );
    for (p, n) in &s.messages {
        counter(
            e,
            "poolshark_messages_total",
            "Messages decoded, by protocol.",
            vec![("protocol", p.name().to_string())],
            *n as f64,
        );
    }
    let help = "Decode errors: messages with an error by protocol, frames whose lower layers had \
                one (protocol \"lower-layers\"), errors reading the capture (\"capture\").";
    for (p, n) in &s.messages_with_errors {
        counter(
            e,
            "poolshark_decode_errors_total",
            help,
            vec![("protocol", p.name().to_string())],
            *n as f64,
        );
    }
    for (p, n) in [
        ("lower-layers", s.frames_with_errors),
        ("capture", s.source_errors),
    ] {
        counter(
            e,
            "poolshark_decode_errors_total",
            help,
            vec![("protocol", p.to_string())],
            n as f64,
        );
    }
    if let Some(t) = s.last {
        gauge(
            e,
            "poolshark_last_frame_time_seconds",
            "Time of the last frame read, in Unix seconds.",
            vec![],
            t.as_f64(),
        );
    }
}

fn findings(e: &mut Exposition, parts: &[Part<'_>]) {
    let mut by = std::collections::BTreeMap::new();
    for p in parts {
        for (k, n) in p.report.findings.by_rule_severity() {
            *by.entry(*k).or_insert(0u64) += n;
        }
    }
    for ((rule, severity), n) in by {
        counter(
            e,
            "poolshark_findings_total",
            "Findings reported, by rule and severity.",
            vec![
                ("rule", rule.to_string()),
                ("severity", severity.name().to_string()),
            ],
            n as f64,
        );
    }
}

/// Findings of `rule` about `subject`, over the parts.
fn about(parts: &[Part<'_>], subject: &Subject, rule: &str) -> u64 {
    parts
        .iter()
        .filter_map(|p| p.report.findings.by_subject().get(subject))
        .flat_map(|c| c.iter())
        .filter(|((r, _), _)| *r == rule)
        .map(|(_, n)| n)
        .sum()
}

fn array<'a>(report: &'a Map<String, Value>, key: &str) -> &'a [Value] {
    report
        .get(key)
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

fn dhcp(e: &mut Exposition, report: &Map<String, Value>, parts: &[Part<'_>]) {
    let pairs = report
        .get("dhcp_lb")
        .and_then(|d| d.get("pairs"))
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice);
    // One pair per family: a server entry belongs to the pair of its family.
    let pair_of = |family: &Value| {
        pairs
            .iter()
            .find(|p| p["family"] == *family)
            .map(|p| text(&p["pair"]))
    };
    let mut members: Vec<(String, String)> = Vec::new();
    for s in array(report, "servers") {
        let role = text(&s["role"]);
        if role != "primary" && role != "secondary" {
            continue;
        }
        let Some(pair) = pair_of(&s["family"]) else {
            continue;
        };
        let server = text(&s["server"]);
        members.push((pair.clone(), server.clone()));
        let l = || {
            vec![
                ("pair", pair.clone()),
                ("server", server.clone()),
                ("role", role.clone()),
            ]
        };
        if let Some(n) = num(&s["balanced_answers"]) {
            counter(
                e,
                "poolshark_dhcp_balanced_answers_total",
                "Balanced client messages a server of a DHCP pair answered.",
                l(),
                n,
            );
        }
        if let Some(x) = num(&s["share"]) {
            gauge(
                e,
                "poolshark_dhcp_share",
                "A server's share of its pair's answered balanced messages (0-1), over the run.",
                l(),
                x,
            );
        }
        if let Some(x) = num(&s["expected_share"]) {
            gauge(
                e,
                "poolshark_dhcp_expected_share",
                "The share the references of the pair's episodes expect of a server (0-1).",
                l(),
                x,
            );
        }
        if let Some(n) = num(&s["deviations"]) {
            counter(
                e,
                "poolshark_dhcp_deviations_total",
                "Answers and silences of a server that deviate from its episode's reference.",
                l(),
                n,
            );
        }
        let subject = Subject::Server(server.clone());
        for (name, help, rule) in [
            (
                "poolshark_dhcp_no_answers_total",
                "dhcp.lb.no-answer findings about a server: messages it had to answer and did not.",
                "dhcp.lb.no-answer",
            ),
            (
                "poolshark_dhcp_wrong_server_total",
                "dhcp.lb.wrong-server findings about a server: answers to messages it does not own.",
                "dhcp.lb.wrong-server",
            ),
            (
                "poolshark_dhcp_double_answers_total",
                "dhcp.lb.double-answer findings about a server: answers to messages its owner also answered.",
                "dhcp.lb.double-answer",
            ),
        ] {
            counter(e, name, help, l(), about(parts, &subject, rule) as f64);
        }
    }
    episodes(e, report, pairs, &members);
}

/// The current episode of each pair, as a gauge: 1 for it, 0 for the others the pair could be in.
fn episodes(
    e: &mut Exposition,
    report: &Map<String, Value>,
    pairs: &[Value],
    members: &[(String, String)],
) {
    let list = array(report, "episodes");
    for p in pairs {
        let pair = text(&p["pair"]);
        // Episodes are in time order.
        let Some(current) = list.iter().rev().find(|x| text(&x["pair"]) == pair) else {
            continue;
        };
        let (kind, server) = (text(&current["kind"]), text(&current["server"]));
        let mut series: Vec<(&str, String)> = vec![("normal", String::new())];
        for k in ["peer-silent", "takeover", "recovery"] {
            for (_, s) in members.iter().filter(|(pr, _)| *pr == pair) {
                series.push((k, s.clone()));
            }
        }
        if !series.iter().any(|(k, s)| *k == kind && *s == server) {
            series.push((kind_static(&kind), server.clone()));
        }
        for (k, s) in series {
            let on = k == kind && s == server;
            gauge(
                e,
                "poolshark_dhcp_episode",
                "The episode a DHCP pair is in (1; the others it could be in 0): kind normal, \
                 peer-silent, takeover or recovery, and the server it is about.",
                vec![
                    ("pair", pair.clone()),
                    ("kind", k.to_string()),
                    ("server", s),
                ],
                if on { 1.0 } else { 0.0 },
            );
        }
    }
}

fn kind_static(k: &str) -> &'static str {
    match k {
        "normal" => "normal",
        "peer-silent" => "peer-silent",
        "takeover" => "takeover",
        "recovery" => "recovery",
        _ => "other",
    }
}

fn rserpool(e: &mut Exposition, report: &Map<String, Value>, parts: &[Part<'_>]) {
    for p in array(report, "pools") {
        let l = || {
            vec![
                ("registrar", text(&p["registrar"])),
                ("pool", text(&p["handle"])),
            ]
        };
        if let Some(n) = num(&p["resolutions"]) {
            counter(
                e,
                "poolshark_rserpool_resolutions_total",
                "Handle resolutions a registrar answered for a pool.",
                l(),
                n,
            );
        }
        if let Some(n) = num(&p["deviations"]) {
            gauge(
                e,
                "poolshark_rserpool_deviations",
                "A pool's deviating answers at a registrar, under the profile the registrar \
                 follows (under --profile auto, the one it fits best so far: it can change).",
                l(),
                n,
            );
        }
        if let Some(n) = num(&p["pes"]) {
            gauge(
                e,
                "poolshark_rserpool_members",
                "Pool elements registered in a pool at a registrar.",
                l(),
                n,
            );
        }
    }
    let mut pools = std::collections::BTreeMap::new();
    for part in parts {
        for (subject, counts) in part.report.findings.by_subject() {
            if let Subject::Pool(name) = subject {
                for ((rule, severity), n) in counts {
                    *pools
                        .entry((name.clone(), *rule, severity.name()))
                        .or_insert(0u64) += n;
                }
            }
        }
    }
    for ((pool, rule, severity), n) in pools {
        counter(
            e,
            "poolshark_rserpool_findings_total",
            "Findings reported about a pool, by rule (under --profile auto, a registrar's \
             per-answer findings are reported when the run ends).",
            vec![
                ("pool", pool),
                ("rule", rule.to_string()),
                ("severity", severity.to_string()),
            ],
            n as f64,
        );
    }
    for part in parts {
        for (subject, series) in part.report.timeline.series() {
            let Subject::Pool(pool) = subject else {
                continue;
            };
            // Summed by reference: a snapshot a second must not copy the windows.
            let mut answers = 0u64;
            let mut members: std::collections::BTreeMap<&str, (u64, f64)> =
                std::collections::BTreeMap::new();
            for w in &series.windows {
                answers += w.answers;
                for (m, c) in &w.members {
                    let t = members.entry(m.as_str()).or_default();
                    t.0 += c.first;
                    t.1 += c.expected_first;
                }
            }
            for (pe, (first, expected)) in members {
                let l = || vec![("pool", pool.clone()), ("pe", pe.to_string())];
                counter(
                    e,
                    "poolshark_rserpool_pe_first_total",
                    "Answers (of every registrar of the pool) with this pool element first.",
                    l(),
                    first as f64,
                );
                if answers > 0 {
                    gauge(
                        e,
                        "poolshark_rserpool_pe_share",
                        "A pool element's share of first places in the pool's answers (0-1).",
                        l(),
                        first as f64 / answers as f64,
                    );
                    gauge(
                        e,
                        "poolshark_rserpool_pe_expected_share",
                        "The share of first places the pool's policy expects of a pool element \
                         over the same answers (0-1).",
                        l(),
                        expected / answers as f64,
                    );
                }
            }
        }
    }
}

fn failover(e: &mut Exposition, report: &Map<String, Value>) {
    let Some(pools) = report
        .get("failover")
        .and_then(|f| f.get("pools"))
        .and_then(Value::as_array)
    else {
        return;
    };
    for p in pools {
        let pool = text(&p["pool"]);
        let count = |k: &str| num(&p[k]);
        for state in ["free", "backup", "active"] {
            if let Some(n) = count(state) {
                gauge(
                    e,
                    "poolshark_failover_leases",
                    "Leases of a failover pool by state (free: the primary's, backup: the \
                     secondary's), as the replay holds them.",
                    vec![("pool", pool.clone()), ("state", state.to_string())],
                    n,
                );
            }
        }
        if let (Some(free), Some(backup)) = (count("free"), count("backup")) {
            gauge(
                e,
                "poolshark_failover_lts",
                "A failover pool's leases to send: (free - backup) / 2, as dhcpd computes it.",
                vec![("pool", pool)],
                ((free - backup) / 2.0).trunc(),
            );
        }
    }
}
