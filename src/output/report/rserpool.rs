//! What `check` prints of the RSerPool replay besides the findings: a table per registrar and pool
//! (every answer counted, those not checked said), the registrar's events, and under `auto`
//! which profile each registrar follows.

use std::fmt::Write as _;

use serde_json::{json, Map, Value};

use crate::analyse::rserpool::registrar_events::MAX_EVENTS;
use crate::analyse::rserpool::replay::Engine;
use crate::analyse::rserpool::report::{ordered, pool_rows, shown_profile};
use crate::analyse::rserpool::state::RegistrarState;
use crate::analyse::rserpool::{Endpoint, RegistrarId, RserpoolAnalyser};
use crate::analyse::timeline::Window;

/// "registrar 0x11111111 follows rsplib: 0 deviations; rfc5356: 12; draft01: 12 (60 resolutions
/// it cannot model)".
fn follows_sentence(r: &Engine, id: RegistrarId) -> String {
    let name = r.directory().name(id);
    let profiles = r.profiles();
    let resolutions = r.totals(id, 0).resolutions;
    if resolutions == 0 {
        return format!("registrar {name}: no handle resolutions to tell the profiles apart");
    }
    let best = r.best_profile(id);
    let score = |i: usize| {
        let t = r.totals(id, i);
        t.deviations.saturating_add(t.unmodelled)
    };
    let part = |i: usize| {
        let t = r.totals(id, i);
        let mut s = format!("{}", t.deviations);
        if t.unmodelled > 0 {
            s.push_str(&format!(
                " ({} resolution(s) it cannot model)",
                t.unmodelled
            ));
        }
        s
    };
    let mut s = format!(
        "registrar {name} follows {}: {} deviation(s)",
        profiles.get(best).map_or("?", |p| p.name),
        part(best)
    );
    for (i, p) in profiles.iter().enumerate() {
        if i != best {
            s.push_str(&format!("; {}: {}", p.name, part(i)));
        }
    }
    let ties: Vec<&str> = profiles
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != best && score(*i) == score(best))
        .map(|(_, p)| p.name)
        .collect();
    if !ties.is_empty() {
        s.push_str(&format!(
            " ({} fit{} as well: the answers seen do not tell them apart)",
            ties.join(" and "),
            if ties.len() == 1 { "s" } else { "" }
        ));
    }
    s
}

/// The answers' counts per PE, as `stats` gives them per window: first and anywhere, the
/// expected counts, and the shares (of the answers, and of those the reference judged).
fn members_json(w: &Window) -> Map<String, Value> {
    let judged = w.judged();
    w.members
        .iter()
        .map(|(pe, c)| {
            (
                pe.clone(),
                json!({
                    "first": c.first,
                    "any": c.any,
                    "expected_first": c.expected_first,
                    "expected_any": c.expected_any,
                    "unjudged_first": c.unjudged_first,
                    "unjudged_any": c.unjudged_any,
                    "share": c.share(w.answers),
                    "judged_share": c.judged_share(judged),
                    "expected_share": c.expected_share(judged),
                }),
            )
        })
        .collect()
}

/// Events listed in the text per registrar (JSON lists all it keeps).
const EVENTS_IN_TEXT: usize = 20;

/// A registrar's deregistrations, re-registrations and takeovers, a line each with the time
/// (UTC) and frame.
fn events_text(state: &RegistrarState, out: &mut String) {
    let log = &state.events;
    if log.is_empty() {
        return;
    }
    let _ = writeln!(out, "  events:");
    for e in log.list().iter().take(EVENTS_IN_TEXT) {
        let _ = writeln!(
            out,
            "    {} UTC  frame {:>7}  {}",
            e.time.utc(),
            e.frame,
            e.describe()
        );
    }
    let more = (log.list().len().saturating_sub(EVENTS_IN_TEXT)) as u64 + log.dropped;
    if more > 0 {
        let _ = writeln!(
            out,
            "    ... and {more} more (the JSON lists up to {})",
            MAX_EVENTS
        );
    }
}

pub fn text(a: &RserpoolAnalyser, out: &mut String) {
    let r = a.engine();
    let ids = ordered(r);
    if ids.is_empty() && r.counters.events == 0 {
        return;
    }
    let profile_label = if r.is_auto() {
        "auto".to_string()
    } else {
        r.profiles().first().map_or("?", |p| p.name).to_string()
    };
    let _ = writeln!(out, "RSerPool replay (profile {profile_label})");
    for id in &ids {
        let Some(state) = r.registrars().find(|(k, _)| k == id).map(|(_, s)| s) else {
            continue;
        };
        let shown = shown_profile(r, *id);
        let reg = r.directory().get(*id);
        let eps = |list: Option<&Vec<Endpoint>>| {
            list.map(|l| {
                l.iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            })
            .filter(|s| !s.is_empty())
            .unwrap_or_else(|| "-".to_string())
        };
        let _ = writeln!(
            out,
            "registrar {} (ASAP {}; ENRP {}){}",
            r.directory().name(*id),
            eps(reg.map(|g| &g.asap)),
            eps(reg.map(|g| &g.enrp)),
            if r.is_auto() {
                format!(
                    ", counted under {}",
                    r.profiles().get(shown).map_or("?", |p| p.name)
                )
            } else {
                String::new()
            }
        );
        let rows = pool_rows(state, shown);
        let width = rows
            .iter()
            .map(|row| row.handle.to_string().len())
            .max()
            .unwrap_or(4)
            .clamp(4, 40);
        // A private policy's name ("policy 0x80000042") is wider than the standard ones.
        let pwidth = rows
            .iter()
            .map(|row| row.policy.len())
            .max()
            .unwrap_or(0)
            .max(9);
        let _ = writeln!(
            out,
            "  {:<width$}  {:<pwidth$}  {:>9}  {:>11}  {:>10}",
            "pool", "policy", "PEs (max)", "resolutions", "deviations"
        );
        for row in &rows {
            let mut dev = row.deviations.to_string();
            if row.unmodelled > 0 {
                dev.push_str(&format!(" ({} not modelled)", row.unmodelled));
            }
            if row.not_checked > 0 {
                dev.push_str(&format!(" ({} not checked)", row.not_checked));
            }
            let _ = writeln!(
                out,
                "  {:<width$}  {:<pwidth$}  {:>9}  {:>11}  {:>10}",
                row.handle.to_string(),
                row.policy,
                format!("{} ({})", row.pes, row.most_pes),
                row.resolutions,
                dev
            );
        }
        events_text(state, out);
    }
    if r.is_auto() {
        for id in &ids {
            let _ = writeln!(out, "{}", follows_sentence(r, *id));
        }
    }
    let c = &r.counters;
    let d = r.directory();
    let p = r.pending();
    let mut notes = Vec::new();
    if c.responses_without_request > 0 {
        notes.push(format!(
            "{} response(s) without their request",
            c.responses_without_request
        ));
    }
    if c.answers_not_checked > 0 {
        notes.push(format!(
            "{} answer(s) not checked: the registrar was not seen to hold the pool when they \
             came (counted in its table, \"not checked\", with the responses without their \
             request)",
            c.answers_not_checked
        ));
    }
    let (pools_evicted, members_full) = r.pool_bound_counts();
    let dropped = p.dropped
        + p.timed_out
        + d.evicted
        + c.findings_not_held
        + c.pools_refused
        + c.members_refused
        + pools_evicted
        + members_full;
    if dropped > 0 {
        notes.push(format!(
            "bounded state: {} request(s) dropped, {} timed out, {} registrar(s) and {} pool(s) \
             evicted, {} pool(s) and {} member(s) not modelled, {} finding(s) counted but not listed",
            p.dropped,
            p.timed_out,
            d.evicted,
            pools_evicted,
            c.pools_refused,
            c.members_refused + members_full,
            c.findings_not_held
        ));
    }
    if !notes.is_empty() {
        let _ = writeln!(out, "RSerPool replay notes: {}", notes.join("; "));
    }
}

pub fn json(a: &RserpoolAnalyser, out: &mut Map<String, Value>) {
    let r = a.engine();
    // Other analysers write their own sections: a capture without RSerPool adds nothing.
    if r.counters.events == 0 {
        return;
    }
    let ids = ordered(r);
    let profiles = r.profiles();
    let mut pools = Vec::new();
    let mut registrars = Vec::new();
    for id in &ids {
        let Some(state) = r.registrars().find(|(k, _)| k == id).map(|(_, s)| s) else {
            continue;
        };
        let shown = shown_profile(r, *id);
        let name = r.directory().name(*id);
        let mut not_checked = 0;
        for row in pool_rows(state, shown) {
            not_checked += row.not_checked;
            let mut p = json!({
                "registrar": name,
                "handle": row.handle.to_string(),
                "policy": row.policy,
                "pes": row.pes,
                "most_pes": row.most_pes,
                "resolutions": row.resolutions,
                "deviations": row.deviations,
                "profile": profiles.get(shown).map(|p| p.name),
                "not_modelled": row.unmodelled,
                "not_checked": row.not_checked,
                "unjudged": row.answers.unjudged,
                "members": members_json(&row.answers),
            });
            if let Some(why) = row
                .entry
                .and_then(|e| e.profiles.get(shown))
                .and_then(|p| p.unmodelled())
            {
                p["not_modelled_because"] = why.into();
            }
            if r.is_auto() {
                let by: Map<String, Value> = profiles
                    .iter()
                    .enumerate()
                    .map(|(i, pr)| {
                        let n = row.entry.map_or(0, |e| e.deviations(i));
                        (pr.name.to_string(), n.into())
                    })
                    .collect();
                p["deviations_by_profile"] = by.into();
            }
            pools.push(p);
        }
        let reg = r.directory().get(*id);
        let by = |f: &dyn Fn(usize) -> u64| -> Map<String, Value> {
            profiles
                .iter()
                .enumerate()
                .map(|(i, p)| (p.name.to_string(), f(i).into()))
                .collect()
        };
        let mut g = json!({
            "registrar": name,
            "server_id": reg.and_then(|g| g.server_id).map(|s| format!("0x{s:08x}")),
            "asap": reg.map(|g| g.asap.iter().map(ToString::to_string).collect::<Vec<_>>()),
            "enrp": reg.map(|g| g.enrp.iter().map(ToString::to_string).collect::<Vec<_>>()),
            "resolutions": r.totals(*id, 0).resolutions + not_checked,
            "not_checked": not_checked,
            "deviations": by(&|i| r.totals(*id, i).deviations),
            "not_modelled": by(&|i| r.totals(*id, i).unmodelled),
            "profile": profiles.get(shown).map(|p| p.name),
        });
        g["events"] = state
            .events
            .list()
            .iter()
            .map(|e| e.to_json())
            .collect::<Vec<_>>()
            .into();
        g["events_dropped"] = state.events.dropped.into();
        if r.is_auto() {
            g["follows"] = profiles.get(r.best_profile(*id)).map(|p| p.name).into();
            g["summary"] = follows_sentence(r, *id).into();
        }
        registrars.push(g);
    }
    out.insert("pools".into(), pools.into());
    out.insert("registrars".into(), registrars.into());
    let d = r.directory();
    let p = r.pending();
    out.insert(
        "rserpool".into(),
        json!({
            "profile": if r.is_auto() { "auto" } else { profiles.first().map_or("?", |p| p.name) },
            "counters": r.counters,
            "requests_waiting": p.waiting(),
            "requests_dropped": p.dropped,
            "requests_timed_out": p.timed_out,
            "requests_answered_by_error": p.answered_by_error,
            "registrars_evicted": d.evicted,
            "registrar_merges": d.merges,
            "pools_evicted": r.pool_bound_counts().0,
            "registrations_beyond_pool_bound": r.pool_bound_counts().1,
        }),
    );
}
