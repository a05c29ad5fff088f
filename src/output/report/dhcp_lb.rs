//! What `check` prints about the DHCP pairs: the servers (role, identifiers, answers, buckets,
//! observed share of the balanced answers against the share their buckets predict for the
//! clients actually seen, deviations), the bucket map and where it came from, the profile.
//!
//! The pair's episodes follow, each with its start and end, frames and shares.
//!
//! JSON: `"servers": [{"server", "family", "role", "identifiers", "answers", "balanced_answers",
//! "buckets", "share", "expected_share", "bucket_share", "deviations", "by_episode": [{"kind",
//! "answers", "share", "expected_share"}]}]`, `"episodes": [{"pair", "kind", "server",
//! "start_frame", "end_frame", "start_time", "end_time", "what"}]`, `"hba": {FAMILY: {"spec",
//! "source", "primary", "secondary", "explains", "of", "candidates": [...]}}` and
//! `"dhcp_lb": {"pairs": [...], "no_pair": [...], "counters": {...}}`.

use serde_json::{json, Map, Value};

use crate::analyse::dhcp_lb::judge::PairStats;
use crate::analyse::dhcp_lb::share::{idx, Shares};
use crate::analyse::dhcp_lb::{DhcpLbAnalyser, Role};
use crate::analyse::episodes::{self, EpisodeKind};
use crate::output::stats::count;
use crate::proto::lb::Family;

/// Each kind of episode the pair went through, with server `r`'s counts in it.
fn by_episode(st: &PairStats, r: Role) -> Value {
    EpisodeKind::ALL
        .iter()
        .filter(|k| st.episodes.episodes.list.iter().any(|e| e.kind == **k))
        .map(|k| {
            let s = &st.episodes.by_kind[k.index()];
            json!({
                "kind": k.name(),
                "answers": s.answers[idx(r)],
                "share": round3(s.share(r)),
                "expected_share": round3(s.expected_share(r)),
            })
        })
        .collect()
}

/// `612 answers: primary 41.7% (exp 41.8%), secondary 58.3% (exp 58.2%)`.
fn shares_text(s: &Shares) -> String {
    let pct = |x: Option<f64>| x.map_or("-".to_string(), |v| format!("{:.1}%", v * 100.0));
    let n = count(s.answered, "answer");
    if s.answered == 0 {
        return n;
    }
    let each: Vec<String> = [Role::Primary, Role::Secondary]
        .iter()
        .map(|&r| {
            format!(
                "{} {} (exp {})",
                r.name(),
                pct(s.share(r)),
                pct(s.expected_share(r))
            )
        })
        .collect();
    format!("{n}: {}", each.join(", "))
}

fn round3(x: Option<f64>) -> Value {
    x.map_or(Value::Null, |v| json!((v * 1000.0).round() / 1000.0))
}

pub fn json(a: &DhcpLbAnalyser, out: &mut Map<String, Value>) {
    let Some(reg) = a.registry() else {
        return;
    };
    let pairs = a.pairs();
    let mut servers = Vec::new();
    for (i, s) in reg.servers().iter().enumerate() {
        let families: Vec<Family> = if s.answers.is_empty() {
            vec![]
        } else {
            s.answers.keys().copied().collect()
        };
        for fam in families
            .iter()
            .copied()
            .map(Some)
            .chain(families.is_empty().then_some(None))
        {
            let in_pair = pairs
                .iter()
                .find(|(p, _)| Some(p.family) == fam && p.role_of(i).is_some());
            let mut m = Map::new();
            m.insert("server".into(), s.name.clone().into());
            m.insert(
                "family".into(),
                fam.map_or(Value::Null, |f| f.name().into()),
            );
            let role = in_pair
                .and_then(|(p, _)| p.role_of(i))
                .map_or("other", |r| r.name());
            m.insert("role".into(), role.into());
            m.insert(
                "identifiers".into(),
                s.identifiers
                    .iter()
                    .map(|x| x.text())
                    .collect::<Vec<_>>()
                    .into(),
            );
            m.insert(
                "answers".into(),
                fam.and_then(|f| s.answers.get(&f))
                    .copied()
                    .unwrap_or(0)
                    .into(),
            );
            if let Some((p, st)) = in_pair {
                let r = p.role_of(i).unwrap_or(Role::Primary);
                let k = idx(r);
                let buckets = match r {
                    Role::Primary => p.hba.primary_buckets(),
                    Role::Secondary => 256 - p.hba.primary_buckets(),
                };
                m.insert("balanced_answers".into(), st.shares.answers[k].into());
                m.insert("buckets".into(), buckets.into());
                m.insert("share".into(), round3(st.shares.share(r)));
                m.insert("expected_share".into(), round3(st.shares.expected_share(r)));
                m.insert(
                    "bucket_share".into(),
                    round3(Some(f64::from(buckets) / 256.0)),
                );
                m.insert("deviations".into(), st.deviations[k].into());
                m.insert("by_episode".into(), by_episode(st, r));
            }
            servers.push(Value::Object(m));
        }
    }
    out.insert("servers".into(), servers.into());
    episodes::extend_json(
        out,
        pairs.iter().flat_map(|(p, st)| {
            st.episodes
                .episodes
                .list
                .iter()
                .map(|e| e.to_json("pair", &p.name))
        }),
    );
    let mut hba = Map::new();
    let mut pair_list = Vec::new();
    for (p, st) in &pairs {
        let rep = a
            .inferred()
            .reports
            .iter()
            .find(|r| r.family == Some(p.family));
        let candidates: Vec<Value> = rep
            .map(|r| {
                r.candidates
                    .iter()
                    .map(|(kind, c)| {
                        json!({"kind": kind, "spec": c.hba.to_string(), "primary": reg.name(c.primary), "explains": c.explains})
                    })
                    .collect()
            })
            .unwrap_or_default();
        let explains = rep.map(|r| {
            r.candidates
                .iter()
                .find(|(_, c)| c.hba == p.hba && c.primary == p.primary)
                .map(|(_, c)| c.explains)
                .or(r
                    .best
                    .as_ref()
                    .filter(|b| b.hba == p.hba)
                    .map(|b| b.explains))
        });
        hba.insert(
            p.family.name().into(),
            json!({
                "spec": p.hba.to_string(),
                "source": p.hba_source.name(),
                "primary": reg.name(p.primary),
                "secondary": reg.name(p.secondary),
                "explains": explains.flatten(),
                "of": rep.map(|r| r.samples),
                "candidates": candidates,
            }),
        );
        pair_list.push(json!({
            "pair": p.name,
            "family": p.family.name(),
            "profile": p.profile.name,
            "profile_source": p.profile_source.name(),
            "profile_scores": rep.map(|r| r.profile_scores.iter().map(|(n, s)| json!({"profile": n, "score": s})).collect::<Vec<_>>()),
            "undecided": st.undecided.as_ref().map(|u| json!({
                "between": u.between(p),
                "held": u.held,
                "deciding_frames": u.deciding,
                "deciding": u.deciding_total,
            })),
            "threshold_seconds": p.threshold,
            "threshold_source": p.threshold_source.name(),
            "threshold_range": rep.and_then(|r| r.threshold_range),
            "balanced_answered": st.shares.answered,
            "episodes_not_listed": st.episodes.episodes.dropped,
        }));
    }
    out.insert("hba".into(), Value::Object(hba));
    let no_pair: Vec<Value> = a
        .inferred()
        .reports
        .iter()
        .filter_map(|r| {
            r.no_pair
                .as_ref()
                .map(|w| json!({"family": r.family.map(|f| f.name()), "why": w}))
        })
        .collect();
    let c = a.counters();
    out.insert(
        "dhcp_lb".into(),
        json!({
            "pairs": pair_list,
            "no_pair": no_pair,
            "counters": {
                "events": a.events(),
                "transmissions": c.transmissions,
                "copies": c.copies,
                "answers": c.answers,
                "duplicate_answers": c.duplicate_answers,
                "unmatched_answers": c.unmatched_answers,
                "transactions_evicted": c.transactions_evicted,
                "judged_early": c.judged_early,
                "answers_dropped": c.answers_dropped,
                "servers_dropped_answers": reg.dropped_answers,
            },
        }),
    );
}

pub fn text(a: &DhcpLbAnalyser, out: &mut String) {
    let Some(reg) = a.registry() else {
        return;
    };
    for r in &a.inferred().reports {
        if let (Some(f), Some(w)) = (r.family, &r.no_pair) {
            out.push_str(&format!("DHCP load balancing ({}): {w}\n", f.name()));
        }
    }
    for (p, st) in a.pairs() {
        let rep = a
            .inferred()
            .reports
            .iter()
            .find(|r| r.family == Some(p.family));
        let scores = rep
            .map(|r| {
                r.profile_scores
                    .iter()
                    .map(|(n, s)| format!("{n} {s}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            })
            .unwrap_or_default();
        let profile = match &st.undecided {
            Some(u) => format!("undecided between {}", and_list(&u.between(p))),
            None => p.profile.name.to_string(),
        };
        out.push_str(&format!(
            "DHCP load balancing ({}): profile {} ({}{}), hba {} ({}), primary {}, secondary {}",
            p.family.name(),
            profile,
            p.profile_source.name(),
            if scores.is_empty() {
                String::new()
            } else {
                format!("; scores {scores}")
            },
            p.hba,
            p.hba_source.name(),
            reg.name(p.primary),
            reg.name(p.secondary),
        ));
        match p.threshold {
            Some(t) => out.push_str(&format!(
                ", delayed service after {t} s ({})\n",
                p.threshold_source.name()
            )),
            None => out.push('\n'),
        }
        if let Some(u) = &st.undecided {
            let more = u.deciding_total.saturating_sub(u.deciding.len() as u64);
            out.push_str(&format!(
                "  judged only by what {} agree on ({} finding{} of one but not all held back); {}\n",
                and_list(&u.between(p)),
                u.held,
                if u.held == 1 { "" } else { "s" },
                if u.deciding.is_empty() {
                    "no message here is judged differently by them".to_string()
                } else {
                    format!(
                        "the answers that would decide: frame{} {}{}",
                        if u.deciding_total == 1 { "" } else { "s" },
                        u.deciding
                            .iter()
                            .map(u64::to_string)
                            .collect::<Vec<_>>()
                            .join(", "),
                        if more > 0 {
                            format!(" and {more} more")
                        } else {
                            String::new()
                        }
                    )
                }
            ));
        }
        if let Some(r) = rep {
            let c: Vec<String> = r
                .candidates
                .iter()
                .map(|(kind, c)| {
                    // Named by kind: the majority map is often the same as the best split
                    // (printed alone, it read as the same candidate twice).
                    let hba = c.hba.describe();
                    let label = match kind.as_str() {
                        "split" => "best split ",
                        "majority" => "each bucket's majority ",
                        _ => "",
                    };
                    format!(
                        "{label}{hba} with {} primary explains {}",
                        reg.name(c.primary),
                        c.explains
                    )
                })
                .collect();
            out.push_str(&format!(
                "  map candidates over {} single answers: {}\n",
                r.samples,
                c.join("; ")
            ));
        }
        // As wide as the longer name (a DUID-LLT is 41 characters), so the columns line up.
        let w = [Role::Primary, Role::Secondary]
            .iter()
            .map(|&r| reg.name(p.server(r)).chars().count())
            .max()
            .unwrap_or(0)
            .max(6);
        out.push_str(&format!(
            "  {:<w$} {:<9} {:>8} {:>7} {:>7} {:>9} {:>10}\n",
            "server", "role", "answers", "buckets", "share", "expected", "deviations"
        ));
        for r in [Role::Primary, Role::Secondary] {
            let k = idx(r);
            let buckets = match r {
                Role::Primary => p.hba.primary_buckets(),
                Role::Secondary => 256 - p.hba.primary_buckets(),
            };
            let pct = |x: Option<f64>| x.map_or("-".to_string(), |v| format!("{:.1}%", v * 100.0));
            out.push_str(&format!(
                "  {:<w$} {:<9} {:>8} {:>7} {:>7} {:>9} {:>10}\n",
                reg.name(p.server(r)),
                r.name(),
                st.shares.answers[k],
                buckets,
                pct(st.shares.share(r)),
                pct(st.shares.expected_share(r)),
                st.deviations[k]
            ));
        }
        let eps = &st.episodes;
        if !eps.episodes.list.is_empty() {
            out.push_str(
                "  episodes (UTC; each server's share of the balanced answers, and the share its episode's reference expects):\n",
            );
            for (e, s) in eps.episodes.list.iter().zip(&eps.shares) {
                out.push_str(&format!("    {}; {}\n", e.text_line(), shares_text(s)));
            }
            if eps.episodes.dropped > 0 {
                out.push_str(&format!(
                    "    ... {} more not listed (the last one listed runs to the end)\n",
                    eps.episodes.dropped
                ));
            }
        }
    }
}

/// "a and b", "a, b and c".
fn and_list(names: &[&str]) -> String {
    match names {
        [] => String::new(),
        [one] => one.to_string(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}
