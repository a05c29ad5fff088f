//! `read -V` against `tshark -V`, line by line, on the DHCP, DHCPv6 and RSerPool (ASAP, ENRP)
//! frames of every shared capture, and on its SCTP association set-ups and heartbeats: the whole
//! tree of each frame, its Frame section and lower layers included.
//!
//! Each frame's lines are compared after trimming their indentation (poolshark's one-line listing
//! above each tree is left out: tshark's `-V` has none). The lines are aligned by a longest common
//! subsequence per frame; a line agrees when it is in that subsequence, and the agreement is the
//! lines that agree over all the lines either tool prints (|LCS| / (|ours| + |theirs| - |LCS|)),
//! so that a line missing on one side and a line added on the other both count against it.
//!
//! Captures with more than [`PER_CAPTURE`] such frames are compared on that many frames spread
//! evenly over the capture (tshark and poolshark still read every frame before them).
//!
//! Lines left out of the count, with the reason, are in [`excluded`]. tshark runs with `-n`
//! (poolshark resolves no names: it has no manufacturer, host or service tables) and `TZ=UTC`
//! (the arrival time is in the local zone in both; the zone is fixed so that the run does not
//! depend on the machine's).
//!
//! Measured when written: DHCP 98.55 %, DHCPv6 97.56 %, RSerPool 91.26 %, all 96.50 % (from
//! 32.63 %, 53.30 %, 34.23 % and 37.62 % before). The Ethernet header line is written as
//! `tshark -n` writes it (`Src: a, Dst: b`), as poolshark resolves no names. The commonest
//! remaining differences, which the test prints:
//! - the Opaque Transport parameter (RFC 5354), which tshark 4.0 does not know ("Unknown
//!   (0x0010)", its bytes undecoded) where poolshark decodes it: tshark is wrong there;
//! - tshark prints each SCTP DATA chunk just before the message it carries (and the SCTP header
//!   line again before the next chunk), poolshark the whole SCTP tree before the messages;
//! - the text tshark adds after a DHCPv6 Client FQDN's flags byte, tshark's long values cut
//!   with "…", its malformed-packet notes.

use crate::common;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

const FILTER: &str = "dhcp || dhcpv6 || asap || enrp";

/// Frames compared per capture, at most.
const PER_CAPTURE: usize = 40;

/// Lines not counted, on either side, and why.
fn excluded(line: &str) -> bool {
    // tshark's expert information: its own judgement of the frame (e.g. "[Expert Info (Chat/
    // Sequence): ...]", "[Severity level: Chat]", "[Group: Sequence]"), with its wording, where
    // poolshark prints its decoding errors as "[PROTO error at byte N: ...]" lines.
    line.starts_with("[Expert Info")
        || line.starts_with("[Severity level:")
        || line.starts_with("[Group:")
        || (line.starts_with('[') && line.contains(" error at byte "))
}

/// The frames of a `-V` output: each frame's tree lines, trimmed, from its "Frame N:" line (or the
/// "Packet comments" tree before it) on. With `listing`, the line before each tree is poolshark's
/// one-line listing, left out.
fn frames(text: &str, listing: bool) -> Vec<Vec<String>> {
    let lines: Vec<&str> = text.lines().collect();
    let starts = |l: &str| {
        let t = l.trim_start();
        (t.starts_with("Frame ") && t.contains(" bytes on wire"))
            || t == "Packet comments"
            || t.starts_with("PCAPNG Custom Block ")
    };
    let mut out: Vec<Vec<String>> = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        let next_starts = lines.get(i + 1).is_some_and(|n| starts(n));
        if listing {
            let number = l
                .split_whitespace()
                .next()
                .is_some_and(|n| n.parse::<u64>().is_ok());
            if number && next_starts {
                out.push(Vec::new());
                continue;
            }
        } else if starts(l) && !l.starts_with(' ') {
            // A frame's comments come before its Frame line: one frame, not two.
            let after_comments = out.last().is_some_and(|f| {
                f.first().is_some_and(|x| x == "Packet comments")
                    && !f.iter().any(|x| x.starts_with("Frame "))
            });
            if !(after_comments && l.starts_with("Frame ")) {
                out.push(Vec::new());
            }
        }
        let t = l.trim();
        if let (Some(f), false) = (out.last_mut(), t.is_empty()) {
            f.push(t.to_string());
        }
    }
    for f in &mut out {
        f.retain(|l| !excluded(l));
    }
    out
}

/// The longest common subsequence of `a` and `b`: which lines of each are in it.
fn lcs(a: &[String], b: &[String]) -> (Vec<bool>, Vec<bool>) {
    let (n, m) = (a.len(), b.len());
    let mut t = vec![0u32; (n + 1) * (m + 1)];
    let at = |i: usize, j: usize| i * (m + 1) + j;
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            t[at(i, j)] = if a[i] == b[j] {
                t[at(i + 1, j + 1)] + 1
            } else {
                t[at(i + 1, j)].max(t[at(i, j + 1)])
            };
        }
    }
    let (mut in_a, mut in_b) = (vec![false; n], vec![false; m]);
    let (mut i, mut j) = (0, 0);
    while i < n && j < m {
        if a[i] == b[j] {
            in_a[i] = true;
            in_b[j] = true;
            i += 1;
            j += 1;
        } else if t[at(i + 1, j)] >= t[at(i, j + 1)] {
            i += 1;
        } else {
            j += 1;
        }
    }
    (in_a, in_b)
}

#[derive(Default)]
struct Tally {
    frames: usize,
    agree: usize,
    ours: usize,
    theirs: usize,
}

impl Tally {
    fn add(&mut self, agree: usize, ours: usize, theirs: usize) {
        self.frames += 1;
        self.agree += agree;
        self.ours += ours;
        self.theirs += theirs;
    }
    fn union(&self) -> usize {
        self.ours + self.theirs - self.agree
    }
    fn percent(&self) -> f64 {
        100.0 * self.agree as f64 / self.union().max(1) as f64
    }
}

/// Which protocol a frame is counted under, from tshark's "[Protocols in frame: ...]".
fn protocol_of(theirs: &[String]) -> &'static str {
    let protocols = theirs
        .iter()
        .find_map(|l| l.strip_prefix("[Protocols in frame: "))
        .unwrap_or_default();
    let has = |p: &str| protocols.split([':', ']']).any(|x| x == p);
    if has("asap") || has("enrp") {
        "rserpool"
    } else if has("dhcpv6") {
        "dhcpv6"
    } else {
        "dhcp"
    }
}

/// A differing line with its value left out, for the list of the commonest differences: the
/// label up to its first ": " (or its first 40 characters).
fn kind(line: &str) -> String {
    match line.find(": ") {
        Some(i) => line[..i].to_string(),
        None => line.chars().take(40).collect(),
    }
}

/// The frames of `capture` compared, as `-Y` filter: all that `filter` keeps, or
/// [`PER_CAPTURE`] of them spread evenly.
fn selection(capture: &Path, filter: &str) -> Option<String> {
    let out = Command::new("tshark")
        .arg("-r")
        .arg(capture)
        .args(["-Y", filter, "-T", "fields", "-e", "frame.number"])
        .output()
        .expect("tshark runs");
    let numbers: Vec<u64> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.trim().parse().ok())
        .collect();
    if numbers.is_empty() {
        return None;
    }
    if numbers.len() <= PER_CAPTURE {
        return Some(filter.to_string());
    }
    let step = numbers.len() as f64 / PER_CAPTURE as f64;
    let picked: Vec<String> = (0..PER_CAPTURE)
        .map(|k| numbers[(k as f64 * step) as usize].to_string())
        .collect();
    Some(format!(
        "({filter}) && frame.number in {{{}}}",
        picked.join(", ")
    ))
}

/// The per-frame agreement of `read -V` and `tshark -V` on the frames `filter` keeps in every
/// shared capture, tallied by `class` (a frame's protocol) and over all: the tallies, and a report
/// naming the worst captures and the commonest differing lines.
fn compare(
    shared: &Path,
    filter: &str,
    class: fn(&[String]) -> &'static str,
) -> (BTreeMap<&'static str, Tally>, Tally, Vec<String>, String) {
    let mut by_protocol: BTreeMap<&str, Tally> = BTreeMap::new();
    let mut by_capture: Vec<(String, Tally)> = Vec::new();
    let mut missing: BTreeMap<String, (usize, String)> = BTreeMap::new();
    let mut added: BTreeMap<String, (usize, String)> = BTreeMap::new();
    let mut unpaired = Vec::new();
    for capture in common::captures_under(&shared.join("captures")) {
        let Some(filter) = selection(&capture, filter) else {
            continue;
        };
        let theirs = Command::new("tshark")
            .env("TZ", "UTC")
            .arg("-r")
            .arg(&capture)
            .args(["-n", "-Y", &filter, "-V"])
            .output()
            .expect("tshark runs");
        let ours = common::poolshark()
            .args(["read", "--no-progress", "-V", "-Y", &filter])
            .arg(&capture)
            .output()
            .expect("poolshark runs");
        assert!(ours.status.success(), "{}: {ours:?}", capture.display());
        let theirs = frames(&String::from_utf8_lossy(&theirs.stdout), false);
        let ours = frames(&String::from_utf8_lossy(&ours.stdout), true);
        let name = common::file_name(&capture).to_string();
        if ours.len() != theirs.len() {
            unpaired.push(format!(
                "{name}: {} frames, tshark {}",
                ours.len(),
                theirs.len()
            ));
        }
        let mut tally = Tally::default();
        for (o, t) in ours.iter().zip(&theirs) {
            let (in_o, in_t) = lcs(o, t);
            let agree = in_o.iter().filter(|x| **x).count();
            tally.add(agree, o.len(), t.len());
            by_protocol
                .entry(class(t))
                .or_default()
                .add(agree, o.len(), t.len());
            for (l, _) in o.iter().zip(&in_o).filter(|(_, x)| !**x) {
                let e = added.entry(kind(l)).or_insert((0, l.clone()));
                e.0 += 1;
            }
            for (l, _) in t.iter().zip(&in_t).filter(|(_, x)| !**x) {
                let e = missing.entry(kind(l)).or_insert((0, l.clone()));
                e.0 += 1;
            }
        }
        by_capture.push((name, tally));
    }
    let mut all = Tally::default();
    for t in by_protocol.values() {
        all.frames += t.frames;
        all.agree += t.agree;
        all.ours += t.ours;
        all.theirs += t.theirs;
    }
    let mut report = String::new();
    for (p, t) in by_protocol
        .iter()
        .map(|(p, t)| (*p, t))
        .chain([("all", &all)])
    {
        report.push_str(&format!(
            "{p:>9}: {:6.2} % of lines agree ({} of {}; {} frames, {} lines ours, {} tshark's)\n",
            t.percent(),
            t.agree,
            t.union(),
            t.frames,
            t.ours,
            t.theirs
        ));
    }
    by_capture.sort_by(|a, b| a.1.percent().total_cmp(&b.1.percent()));
    report.push_str("worst captures:\n");
    for (n, t) in by_capture.iter().take(10) {
        report.push_str(&format!(
            "  {:6.2} %  {n} ({} frames)\n",
            t.percent(),
            t.frames
        ));
    }
    let mut top = |what: &str, m: &BTreeMap<String, (usize, String)>| {
        let mut v: Vec<_> = m.values().collect();
        v.sort_by_key(|e| std::cmp::Reverse(e.0));
        report.push_str(&format!("commonest lines {what}:\n"));
        for (n, example) in v.into_iter().take(40) {
            report.push_str(&format!("  {n:6}  {example}\n"));
        }
    };
    top("only tshark prints", &missing);
    top("only poolshark prints", &added);
    for u in &unpaired {
        report.push_str(&format!("unpaired: {u}\n"));
    }
    (by_protocol, all, unpaired, report)
}

#[test]
fn verbose_trees_are_tsharks_line_for_line() {
    if !common::have_tshark() {
        return;
    }
    let Some(shared) = common::shared_dir() else {
        return;
    };
    let (by_protocol, all, unpaired, report) = compare(&shared, FILTER, protocol_of);
    eprintln!("{report}");
    assert!(unpaired.is_empty(), "{report}");
    assert!(all.frames > 500, "{report}");
    // The floors measured (see the module's comment); the issue's goal is 95 % overall.
    for (p, floor) in [("dhcp", 98.0), ("dhcpv6", 97.0), ("rserpool", 91.0)] {
        let t = by_protocol
            .get(p)
            .unwrap_or_else(|| panic!("no {p} frames\n{report}"));
        assert!(t.percent() >= floor, "{p} below {floor} %\n{report}");
    }
    // The issue asks for 95 % of all lines; measured 96.49 %.
    assert!(all.percent() >= 96.0, "{report}");
}

/// Which chunk an SCTP control frame is counted under.
fn setup_chunk(theirs: &[String]) -> &'static str {
    let has = |c: &str| theirs.iter().any(|l| l.starts_with(c));
    if has("INIT_ACK chunk") {
        "init_ack"
    } else if has("INIT chunk") {
        "init"
    } else {
        "heartbeat"
    }
}

/// The SCTP association set-up (INIT and INIT_ACK chunks with their optional parameters:
/// addresses, supported address types, state cookie, ECN, Forward TSN, adaptation layer
/// indication) and the heartbeats (HEARTBEAT, HEARTBEAT_ACK and their Heartbeat Info), whole
/// trees, on every shared capture that has them: RSPLIB's runs and the external captures of
/// other projects.
#[test]
fn sctp_init_trees_are_tsharks_line_for_line() {
    if !common::have_tshark() {
        return;
    }
    let Some(shared) = common::shared_dir() else {
        return;
    };
    let filter = "sctp.chunk_type in {1, 2, 4, 5}";
    let (by_chunk, all, unpaired, report) = compare(&shared, filter, setup_chunk);
    eprintln!("{report}");
    assert!(unpaired.is_empty(), "{report}");
    for chunk in ["init", "init_ack", "heartbeat"] {
        let t = by_chunk
            .get(chunk)
            .unwrap_or_else(|| panic!("no {chunk} frames\n{report}"));
        assert!(t.frames >= 20, "{chunk}: {} frames\n{report}", t.frames);
    }
    // Measured when written: INIT 99.82 %, INIT_ACK 100 %, all 99.88 % of 14,621 lines (171
    // frames); the lines left are the text of tshark's expert note on a final parameter's padding
    // ("The padding of this final parameter should be the padding of the chunk."), its own
    // judgement as the excluded "[Expert Info" lines are.
    assert!(all.percent() >= 99.5, "{report}");
}
