//! `poolshark check` over the shared RSerPool captures (../shared/captures/rserpool): RSPLIB's
//! own answers, which its logs confirm (README there), so under the `rsplib` profile every
//! answer must pass, and `auto` must say the registrars follow rsplib.
//!
//! What remains is asserted exactly, with the reason:
//! * `rsplib-2007-legacy-draft.pcap`, frame 1095, `rserpool.unknown-pool` (info): the pool user
//!   asks the registrar at 127.0.0.1:2003, which sends neither keep-alive nor announce; two
//!   registrars (ids 2 and 3) have shown no ASAP endpoint yet, so the replay cannot tell which one
//!   answers, and leaves its answers unchecked until id 2 shows its endpoint by a keep-alive at
//!   120 s (frame 2226). The later answers (10 of 15) are checked and right.
//! * `asap-enrp-coverage.pcap`, frame 38, `rserpool.unknown-pe` (error): a hand-built answer for
//!   Syn-LU lists 0x5e000007, which registered into Syn-LUD (frame 13).
//!
//! tshark is the oracle for the counts: the Handle Resolution Responses per registrar port and
//! pool, and who came first in them.

use crate::common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use poolshark::analyse::finding::Subject;
use poolshark::analyse::rserpool::RserpoolAnalyser;
use poolshark::analyse::{Analyser, Report};
use poolshark::generate::{PcapWriter, TsResolution};
use poolshark::pipeline::{Options, Pipeline};
use poolshark::source::file::FileSource;
use poolshark::source::{Frame, FrameSource};

const CAPTURES: [&str; 5] = [
    "rserpool/rsplib-multi-pe.pcap",
    "rserpool/rsplib-rfc-scenario.pcap",
    "rserpool/rsplib-enrp-errors.pcap",
    "rserpool/rsplib-2007-legacy-draft.pcap",
    "rserpool/asap-enrp-coverage.pcap",
];

struct Run {
    code: i32,
    json: serde_json::Value,
}

fn check(capture: &Path, args: &[&str]) -> Run {
    let out = common::poolshark()
        .arg("check")
        .arg(capture)
        .args(["--format", "json"])
        .args(args)
        .output()
        .expect("run poolshark");
    let json = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&out.stderr)));
    Run {
        code: out.status.code().unwrap_or(-1),
        json,
    }
}

fn findings(run: &Run) -> Vec<(u64, String, String)> {
    run.json["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| {
            (
                f["frame"].as_u64().expect("frame"),
                f["rule"].as_str().expect("rule").to_string(),
                f["severity"].as_str().expect("severity").to_string(),
            )
        })
        .collect()
}

fn expected_under_rsplib(capture: &str) -> Vec<(u64, String, String)> {
    let one = |frame: u64, rule: &str, severity: &str| vec![(frame, rule.into(), severity.into())];
    match capture {
        "rserpool/rsplib-2007-legacy-draft.pcap" => one(1095, "rserpool.unknown-pool", "info"),
        "rserpool/asap-enrp-coverage.pcap" => one(38, "rserpool.unknown-pe", "error"),
        _ => Vec::new(),
    }
}

#[test]
fn rsplib_answers_pass_under_rsplib_and_auto_says_they_follow_it() {
    for name in CAPTURES {
        let Some(capture) = common::shared_capture(name) else {
            return;
        };
        for profile in ["rsplib", "auto"] {
            let run = check(&capture, &["--profile", profile]);
            assert_eq!(
                findings(&run),
                expected_under_rsplib(name),
                "{name} --profile {profile}: {:#}",
                run.json["findings"]
            );
            let fails = name.ends_with("coverage.pcap");
            assert_eq!(run.code, i32::from(fails), "{name} --profile {profile}");
            if profile == "auto" {
                for r in run.json["registrars"].as_array().expect("registrars") {
                    if r["resolutions"].as_u64() > Some(0) {
                        assert_eq!(r["follows"], "rsplib", "{name}: {r}");
                        assert_eq!(r["deviations"]["rsplib"], u64::from(fails), "{name}: {r}");
                    }
                }
            }
        }
    }
}

#[test]
fn auto_tells_rsplib_from_the_texts_where_the_answers_differ() {
    let Some(capture) = common::shared_capture("rserpool/rsplib-multi-pe.pcap") else {
        return;
    };
    let run = check(&capture, &[]);
    let regs = run.json["registrars"].as_array().expect("registrars");
    let by_name = |n: &str| {
        regs.iter()
            .find(|r| r["registrar"] == n)
            .unwrap_or_else(|| panic!("no registrar {n}: {regs:?}"))
    };
    // The first registrar answers at 3863 (tied to its id by its keep-alives), the second at
    // 3873 (tied by elimination: see directory.rs).
    let first = by_name("0x11111111");
    let second = by_name("0x22222222");
    assert_eq!(first["asap"], serde_json::json!(["192.0.2.2:3863"]));
    assert_eq!(second["asap"], serde_json::json!(["192.0.2.2:3873"]));
    // README: 3,020 handle resolutions.
    assert_eq!(
        first["resolutions"].as_u64().unwrap() + second["resolutions"].as_u64().unwrap(),
        3020
    );
    for r in [first, second] {
        assert_eq!(r["follows"], "rsplib");
        assert_eq!(r["deviations"]["rsplib"], 0);
        // LUD and WRR answer differently under the texts.
        assert!(r["deviations"]["rfc5356"].as_u64().unwrap() > 0, "{r}");
        assert!(r["deviations"]["draft01"].as_u64().unwrap() > 0, "{r}");
        let summary = r["summary"].as_str().unwrap();
        assert!(
            summary.starts_with(&format!(
                "registrar {} follows rsplib: 0 deviation(s); rfc5356: ",
                r["registrar"].as_str().unwrap()
            )),
            "{summary}"
        );
    }
    // draft01 has no PRIORITY: PRIO-Pool's 60 answers cannot be modelled.
    assert_eq!(first["not_modelled"]["draft01"], 60);
    let run = check(
        &common::shared_capture("rserpool/rsplib-rfc-scenario.pcap").unwrap(),
        &[],
    );
    let r = run.json["registrars"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["registrar"] == "0x11111111")
        .expect("the registrar the users ask");
    assert_eq!(r["follows"], "rsplib");
    // UdpPool's one WRR answer (frame 1325) lists the weight-2 PE first, as RSPLIB's rule does:
    // the texts fix the ratio and the spreading, not an order, and one answer is less than a
    // round of the list, so they see no deviation in it either.
    assert_eq!(r["deviations"]["rfc5356"], 0);
    assert_eq!(r["deviations"]["draft01"], 0);
}

#[test]
fn the_texts_first_differ_from_rsplib_where_the_policy_replay_says() {
    // tests/it/policy_rsplib_replay.rs (from tshark's decoding): under the texts LUD-Pool first
    // differs at frame 3547, where RSPLIB answers PE 3 and the texts PE 1.
    let Some(capture) = common::shared_capture("rserpool/rsplib-multi-pe.pcap") else {
        return;
    };
    for profile in ["rfc5356", "draft01"] {
        let run = check(&capture, &["--profile", profile]);
        let lud: Vec<&serde_json::Value> = run.json["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["pool"] == "LUD-Pool")
            .collect();
        assert_eq!(lud[0]["frame"], 3547, "{profile}");
        assert_eq!(run.code, 1);
    }
}

fn handle_text(hex: &str) -> String {
    let bytes: Vec<u8> = (0..hex.len())
        .step_by(2)
        .filter_map(|i| hex.get(i..i + 2))
        .map(|b| u8::from_str_radix(b, 16).expect("hex"))
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

#[test]
fn resolutions_per_registrar_and_pool_agree_with_tshark() {
    if !common::have_tshark() {
        return;
    }
    for name in [
        "rserpool/rsplib-multi-pe.pcap",
        "rserpool/rsplib-rfc-scenario.pcap",
    ] {
        let Some(capture) = common::shared_capture(name) else {
            return;
        };
        let theirs = common::tshark::fields(
            &capture,
            "asap.message_type == 6",
            &["sctp.srcport", "asap.pool_handle_pool_handle"],
            &[],
        );
        let mut want: BTreeMap<(u16, String), u64> = BTreeMap::new();
        for f in theirs.values() {
            let port: u16 = f["sctp.srcport"][0].parse().expect("port");
            let pool = handle_text(&f["asap.pool_handle_pool_handle"][0]);
            *want.entry((port, pool)).or_default() += 1;
        }
        let run = check(&capture, &["--profile", "rsplib"]);
        let regs = run.json["registrars"].as_array().unwrap();
        let port_of = |reg: &str| -> u16 {
            let r = regs
                .iter()
                .find(|r| r["registrar"] == reg)
                .expect("registrar");
            let ep = r["asap"][0].as_str().expect("an ASAP endpoint");
            ep.rsplit(':').next().unwrap().parse().unwrap()
        };
        let mut got: BTreeMap<(u16, String), u64> = BTreeMap::new();
        for p in run.json["pools"].as_array().unwrap() {
            let n = p["resolutions"].as_u64().unwrap();
            if n > 0 {
                let key = (
                    port_of(p["registrar"].as_str().unwrap()),
                    p["handle"].as_str().unwrap().to_string(),
                );
                got.insert(key, n);
            }
        }
        assert_eq!(got, want, "{name}");
    }
}

/// Every frame of a capture, owned.
fn frames(capture: &Path) -> Vec<(Frame<'static>, Vec<u8>)> {
    let mut source = FileSource::open(capture).expect("open");
    let mut out = Vec::new();
    while let Ok(Some(f)) = source.next_frame() {
        let meta = Frame {
            data: &[],
            pcapng: None,
            ..f
        };
        out.push((meta, f.data.to_vec()));
    }
    out
}

#[test]
fn mutated_captures_never_upset_the_replay() {
    // Bytes flipped at random in the ASAP/ENRP part of the frames (past the 14 + 20 + 12 + 16
    // bytes of Ethernet, IPv4, SCTP common and DATA chunk headers), so messages arrive truncated,
    // with wrong lengths, ids, policies and counts. The replay must neither panic nor overflow
    // (debug builds check arithmetic) and must still report.
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for name in CAPTURES {
        let Some(capture) = common::shared_capture(name) else {
            return;
        };
        let original = frames(&capture);
        for round in 0..3 {
            let mut feed = common::Feed {
                analyser: RserpoolAnalyser::auto(),
                report: Report::new(100, 1_000_000_000),
            };
            let mut pipeline = Pipeline::new(Options::default());
            for (meta, data) in &original {
                let mut data = data.clone();
                if data.len() > 62 && next() % 4 == 0 {
                    for _ in 0..=round {
                        let span = (data.len() - 62) as u64;
                        let at = 62 + (next() % span) as usize;
                        if let Some(b) = data.get_mut(at) {
                            *b = next() as u8;
                        }
                    }
                }
                let frame = Frame {
                    data: &data,
                    ..*meta
                };
                pipeline.feed(&frame, &mut feed);
            }
            // The damage reached the parsers, and the replay still had events to work on.
            let stats = pipeline.stats();
            assert!(
                stats.total_messages() > 0 && stats.total_errors() > 0,
                "{name}"
            );
            assert!(feed.analyser.counters().events > 0, "{name}");
            feed.analyser.finish(None, &mut feed.report);
            let mut text = String::new();
            poolshark::output::report::text(feed.analyser.view(), &mut text);
            let mut json = serde_json::Map::new();
            poolshark::output::report::json(feed.analyser.view(), &mut json);
            assert!(json.contains_key("pools"), "{name} round {round}");
        }
    }
}

#[test]
fn the_timeline_counts_every_answer_and_its_expectation() {
    let Some(capture) = common::shared_capture("rserpool/rsplib-multi-pe.pcap") else {
        return;
    };
    let mut feed = common::Feed {
        analyser: RserpoolAnalyser::from_profile_name(Some("rsplib")).expect("profile"),
        report: Report::new(1000, 10_000_000_000),
    };
    let mut source = FileSource::open(&capture).expect("open");
    let mut pipeline = Pipeline::new(Options::default());
    pipeline.run(&mut source, &mut feed).expect("read");
    feed.analyser.finish(None, &mut feed.report);
    let series = feed.report.timeline.series();
    let totals = |pool: &str| series[&Subject::Pool(pool.into())].totals();
    // RSPLIB's answers are the reference's: every member was first exactly as often as the
    // reference said it would be.
    for pool in [
        "RR-Pool",
        "WRR-Pool",
        "LU-Pool",
        "LUD-Pool",
        "PLU-Pool",
        "PRIO-Pool",
    ] {
        let t = totals(pool);
        for (pe, c) in &t.members {
            assert!(
                (c.expected_first - c.first as f64).abs() < 1e-9,
                "{pool} {pe}: first {} expected {}",
                c.first,
                c.expected_first
            );
        }
    }
    // Randomised pools: per answer the first-place probabilities sum to 1.
    for pool in ["RAND-Pool", "WRAND-Pool", "RLU-Pool"] {
        let t = totals(pool);
        let sum: f64 = t.members.values().map(|c| c.expected_first).sum();
        assert!(
            (sum - t.answers as f64).abs() < 1e-6,
            "{pool}: {sum} vs {}",
            t.answers
        );
    }
    // Who came first, per RR-Pool member, as tshark reads the answers (both registrars).
    if common::have_tshark() {
        let out = Command::new("tshark")
            .arg("-r")
            .arg(&capture)
            .args([
                "-Y",
                "asap.message_type == 6 && asap.pool_handle_pool_handle == 52:52:2d:50:6f:6f:6c",
                "-T",
                "fields",
                "-E",
                "occurrence=f",
                "-e",
                "asap.pool_element_pe_identifier",
            ])
            .output()
            .expect("tshark");
        let mut want: BTreeMap<String, u64> = BTreeMap::new();
        for line in String::from_utf8_lossy(&out.stdout).lines() {
            *want.entry(line.trim().to_string()).or_default() += 1;
        }
        let t = totals("RR-Pool");
        let got: BTreeMap<String, u64> = t
            .members
            .iter()
            .filter(|(_, c)| c.first > 0)
            .map(|(k, c)| (k.clone(), c.first))
            .collect();
        assert_eq!(got, want);
        assert_eq!(t.answers, 150);
    }
    // The RR-Pool's PEs end at 0: every PE deregistered before the capture ends (tshark counts
    // 32 Deregistrations, one per PE of the README's nine pools); its last window still lists
    // the four left then, and counts them at its start and at most.
    let rr = &series[&Subject::Pool("RR-Pool".into())];
    let last = rr.windows.last().expect("a window");
    assert_eq!(last.level("pes"), Some(0.0));
    assert_eq!(
        last.registered,
        Some(poolshark::analyse::timeline::Registered {
            start: 4,
            end: 0,
            max: 4
        })
    );
    assert_eq!(last.members.len(), 4, "{:?}", last.members);
}

/// The capture's README gives each pool's PEs at the first registrar (RR-Pool 5 PEs, WRR-Pool
/// weights 3/1/2, ...); by the end of the capture they are gone, so the replay's pool table
/// carries the most it held at once beside the count at the end.
#[test]
fn the_most_pes_of_each_pool_are_the_readmes() {
    let Some(cap) = common::shared_capture("rserpool/rsplib-multi-pe.pcap") else {
        return;
    };
    let run = check(&cap, &[]);
    let mut seen = std::collections::BTreeMap::new();
    for p in run.json["pools"].as_array().expect("pools") {
        if p["registrar"] == "0x11111111" {
            seen.insert(
                p["handle"].as_str().unwrap().to_string(),
                p["most_pes"].as_u64().unwrap(),
            );
        }
    }
    let readme = common::MULTI_PE_POOLS
        .into_iter()
        .map(|(h, n)| (h.to_string(), n))
        .collect();
    assert_eq!(seen, readme);
}

/// The text report's pool tables stay columns: the coverage capture holds a pool under a private
/// policy ("policy 0x80000042"), wider than the standard names, which pushed its row's numbers
/// out of line.
#[test]
fn the_pool_table_lines_up() {
    let Some(cap) = common::shared_capture("rserpool/asap-enrp-coverage.pcap") else {
        return;
    };
    let out = common::poolshark()
        .arg("check")
        .arg(&cap)
        .output()
        .expect("run poolshark");
    let text = String::from_utf8_lossy(&out.stdout);
    let mut tables = 0;
    let mut header_at = None;
    for line in text.lines() {
        if line.starts_with("  pool ") && line.contains("PEs (max)") {
            tables += 1;
            header_at = Some((
                line.find("policy").unwrap(),
                line.find("(max)").unwrap() + 5,
            ));
            continue;
        }
        let Some((policy_at, pes_end)) = header_at else {
            continue;
        };
        if !line.starts_with("  ") || line.starts_with("  events:") {
            header_at = None;
            continue;
        }
        // The policy starts under its header, and the PE count's "(N)" ends under "(max)".
        assert_eq!(&line[policy_at - 2..policy_at], "  ", "{line}");
        assert_ne!(line.as_bytes()[policy_at], b' ', "{line}");
        assert_eq!(&line[pes_end - 1..pes_end], ")", "{line}\n{text}");
    }
    assert_eq!(tables, 2, "{text}");
    assert!(text.contains("policy 0x80000042"), "{text}");
}

/// A Handle Resolution Response of RR-Pool in a frame of `rsplib-multi-pe.pcap` (Ethernet,
/// IPv4, SCTP, the response whole in one DATA chunk, as every one of them is): the registrar's
/// ASAP port, the PE ids listed, and where in the frame each id's bytes are.
struct RrAnswer {
    frame: usize,
    port: u16,
    pes: Vec<(u32, usize)>,
}

fn rr_answers(frames: &[(Frame<'static>, Vec<u8>)]) -> Vec<RrAnswer> {
    let be16 = |d: &[u8], at: usize| d.get(at..at + 2).map(|b| u16::from_be_bytes([b[0], b[1]]));
    let be32 = |d: &[u8], at: usize| {
        d.get(at..at + 4)
            .map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    };
    let mut out = Vec::new();
    for (i, (_, d)) in frames.iter().enumerate() {
        // Ethernet, IPv4 (132 = SCTP), the SCTP common header, a DATA chunk with PPID 11.
        if be16(d, 12) != Some(0x0800) || d.get(23) != Some(&132) {
            continue;
        }
        let sctp = 14 + usize::from(d[14] & 0x0f) * 4;
        // The chunks (RSPLIB bundles a SACK before the DATA): the first DATA chunk of ASAP.
        let mut chunk = sctp + 12;
        while let (Some(&t), Some(l)) = (d.get(chunk), be16(d, chunk + 2)) {
            if t == 0 && be32(d, chunk + 12) == Some(11) {
                break;
            }
            chunk += usize::from(l).max(4).div_ceil(4) * 4;
        }
        if d.get(chunk) != Some(&0) {
            continue;
        }
        let asap = chunk + 16;
        if d.get(asap) != Some(&6) {
            continue;
        }
        let Some(end) = be16(d, asap + 2).map(|l| asap + usize::from(l)) else {
            continue;
        };
        let (mut at, mut pool, mut pes) = (asap + 4, false, Vec::new());
        while at + 4 <= end {
            let (Some(t), Some(l)) = (be16(d, at), be16(d, at + 2)) else {
                break;
            };
            let len = usize::from(l);
            if t == 0x9 && d.get(at + 4..at + len) == Some(&b"RR-Pool"[..]) {
                pool = true;
            }
            if t == 0xa {
                pes.extend(be32(d, at + 4).map(|id| (id, at + 4)));
            }
            at += len.max(4).div_ceil(4) * 4;
        }
        if pool {
            let port = be16(d, sctp).unwrap_or(0);
            out.push(RrAnswer {
                frame: i + 1,
                port,
                pes,
            });
        }
    }
    out
}

/// The capture with one PE id of one frame rewritten, its SCTP checksum made right again.
fn edited(capture: &Path, frame: usize, at: usize, pe: u32, name: &str) -> PathBuf {
    let mut frames = frames(capture);
    let (_, d) = &mut frames[frame - 1];
    d[at..at + 4].copy_from_slice(&pe.to_be_bytes());
    let sctp = 14 + usize::from(d[14] & 0x0f) * 4;
    d[sctp + 8..sctp + 12].fill(0);
    let crc = crc32c::crc32c(&d[sctp..]);
    d[sctp + 8..sctp + 12].copy_from_slice(&crc.to_le_bytes());
    let mut w = PcapWriter::new(Vec::new(), 1, TsResolution::Micro).expect("pcap");
    for (meta, data) in &frames {
        w.write(meta.ts, data).expect("write");
    }
    let path = std::env::temp_dir().join(format!("poolshark-{}-{name}", std::process::id()));
    std::fs::write(&path, w.into_inner()).expect("write the copy");
    path
}

#[test]
fn one_edited_round_robin_answer_gives_one_finding() {
    let Some(capture) = common::shared_capture("rserpool/rsplib-multi-pe.pcap") else {
        return;
    };
    let answers = rr_answers(&frames(&capture));
    // The first registrar's single answers, in a row (README: they cycle in registration order).
    let singles: Vec<&RrAnswer> = answers
        .iter()
        .filter(|a| a.port == 3863)
        .take_while(|a| a.pes.len() == 1)
        .collect();
    assert!(singles.len() >= 10, "{} single answers", singles.len());
    let (before, target, after) = (singles[5], singles[6], singles[7]);
    assert_ne!(before.pes[0].0, target.pes[0].0);
    // Two faults, each in a copy of its own: the head repeated (the issue's case), and a PE
    // named that is neither the right one nor the previous head.
    let repeat = before.pes[0].0;
    let other = [after.pes[0].0, singles[8].pes[0].0]
        .into_iter()
        .find(|id| *id != repeat && *id != target.pes[0].0)
        .expect("another PE");
    for (name, pe, rule) in [
        ("rr-repeat.pcap", repeat, "rserpool.rr-head-stuck"),
        ("rr-other.pcap", other, "rserpool.sequence"),
    ] {
        let copy = edited(&capture, target.frame, target.pes[0].1, pe, name);
        // tshark reads the edit as meant: the frame names that PE, its checksum is right.
        if common::have_tshark() {
            let f = common::tshark::fields(
                &copy,
                &format!("frame.number == {}", target.frame),
                &["asap.pool_element_pe_identifier", "sctp.checksum.status"],
                &["-o", "sctp.checksum:CRC-32C"],
            );
            let row = &f[&(target.frame as u64)];
            assert_eq!(row["asap.pool_element_pe_identifier"][0], pe.to_string());
            assert_eq!(row["sctp.checksum.status"][0], "1", "checksum good");
        }
        for profile in ["rsplib", "auto"] {
            let run = check(&copy, &["--profile", profile]);
            assert_eq!(
                findings(&run),
                vec![(target.frame as u64, rule.to_string(), "warning".to_string())],
                "{name} --profile {profile}: {:#}",
                run.json["findings"]
            );
            let message = run.json["findings"][0]["message"].as_str().unwrap_or("");
            assert!(message.contains("resynchronised"), "{message}");
        }
        let _ = std::fs::remove_file(&copy);
    }
}

fn stats_json(capture: &Path) -> serde_json::Value {
    let out = common::poolshark()
        .arg("stats")
        .arg(capture)
        .args(["--format", "json"])
        .output()
        .expect("run poolshark");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON")
}

fn check_text(capture: &Path, args: &[&str]) -> String {
    let out = common::poolshark()
        .arg("check")
        .arg(capture)
        .args(args)
        .output()
        .expect("run poolshark");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Per pool, what `check` counts at every registrar together: answers, and per PE first and
/// anywhere with the expected counts.
type PoolCounts = BTreeMap<String, (u64, BTreeMap<String, (u64, u64, f64, f64)>)>;

fn check_counts(run: &Run) -> PoolCounts {
    let mut out = PoolCounts::new();
    for p in run.json["pools"].as_array().expect("pools") {
        let e = out
            .entry(p["handle"].as_str().unwrap_or_default().to_string())
            .or_default();
        e.0 += p["resolutions"].as_u64().unwrap_or(0);
        for (pe, c) in p["members"].as_object().expect("members") {
            let m = e.1.entry(pe.clone()).or_default();
            m.0 += c["first"].as_u64().unwrap_or(0);
            m.1 += c["any"].as_u64().unwrap_or(0);
            m.2 += c["expected_first"].as_f64().unwrap_or(0.0);
            m.3 += c["expected_any"].as_f64().unwrap_or(0.0);
        }
    }
    out
}

fn stats_counts(j: &serde_json::Value) -> PoolCounts {
    let mut out = PoolCounts::new();
    for s in j["series"].as_array().expect("series") {
        let Some(pool) = s["pool"].as_str() else {
            continue;
        };
        let e = out.entry(pool.to_string()).or_default();
        for w in s["windows"].as_array().expect("windows") {
            e.0 += w["answers"].as_u64().unwrap_or(0);
            for (pe, c) in w["members"].as_object().expect("members") {
                let m = e.1.entry(pe.clone()).or_default();
                m.0 += c["first"].as_u64().unwrap_or(0);
                m.1 += c["any"].as_u64().unwrap_or(0);
                m.2 += c["expected_first"].as_f64().unwrap_or(0.0);
                m.3 += c["expected_any"].as_f64().unwrap_or(0.0);
            }
        }
    }
    out
}

/// `check` and `stats` count every Handle Resolution Response tshark sees, per registrar and
/// pool alike (stats per pool and, in `answers_by`, per registrar), and the same first places,
/// places and expected counts per PE: the expectations of one computation.
#[test]
fn check_and_stats_count_every_answer_alike() {
    for name in CAPTURES {
        let Some(capture) = common::shared_capture(name) else {
            return;
        };
        let run = check(&capture, &[]);
        let mut from_check = check_counts(&run);
        // stats lists PEs never chosen with zero counts where check has no entry for them.
        let mut from_stats = stats_counts(&stats_json(&capture));
        for counts in [&mut from_check, &mut from_stats] {
            for (_, members) in counts.values_mut() {
                members.retain(|_, c| *c != (0, 0, 0.0, 0.0));
            }
            counts.retain(|_, (n, _)| *n > 0);
        }
        assert_eq!(
            from_check.keys().collect::<Vec<_>>(),
            from_stats.keys().collect::<Vec<_>>(),
            "{name}"
        );
        for (pool, (n, members)) in &from_check {
            let (m, theirs) = &from_stats[pool];
            assert_eq!(n, m, "{name} {pool}: answers");
            assert_eq!(
                members.keys().collect::<Vec<_>>(),
                theirs.keys().collect::<Vec<_>>(),
                "{name} {pool}"
            );
            for (pe, c) in members {
                let t = &theirs[pe];
                assert_eq!((c.0, c.1), (t.0, t.1), "{name} {pool} {pe}");
                assert!(
                    (c.2 - t.2).abs() < 1e-6 && (c.3 - t.3).abs() < 1e-6,
                    "{name} {pool} {pe}: expected {c:?} vs {t:?}"
                );
            }
        }
        // Per registrar: stats' answers_by are check's resolutions per registrar and pool.
        let j = stats_json(&capture);
        for s in j["series"].as_array().expect("series") {
            let Some(pool) = s["pool"].as_str() else {
                continue;
            };
            for (reg, n) in s["answers_by"].as_object().expect("answers_by") {
                let theirs = run.json["pools"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|p| p["handle"] == pool && p["registrar"] == reg.as_str())
                    .map_or(0, |p| p["resolutions"].as_u64().unwrap_or(0));
                assert_eq!(n.as_u64(), Some(theirs), "{name} {pool} {reg}");
            }
        }
        // And every answer on the wire, as tshark counts them.
        if common::have_tshark() {
            let wire = common::tshark::fields(&capture, "asap.message_type == 6", &[], &[]);
            let total: u64 = from_check.values().map(|(n, _)| n).sum();
            assert_eq!(total, wire.len() as u64, "{name}");
        }
    }
}

/// The legacy capture (README): 20 Handle Resolution Responses by tshark, all from the
/// registrar at port 2003, which shows its server id (3) only at 120 s. `check` counts the 20 in
/// that registrar's table (5 not checked: they came before the replay knew it held the pool),
/// names it one way, and does not also call the pool one it never saw; `stats` counts 20.
#[test]
fn the_legacy_capture_counts_its_20_answers_alike() {
    let Some(capture) = common::shared_capture("rserpool/rsplib-2007-legacy-draft.pcap") else {
        return;
    };
    let wire: u64 = if common::have_tshark() {
        let f = common::tshark::fields(&capture, "asap.message_type == 6", &["sctp.srcport"], &[]);
        assert!(f.values().all(|r| r["sctp.srcport"][0] == "2003"), "{f:?}");
        f.len() as u64
    } else {
        20
    };
    assert_eq!(wire, 20);
    let run = check(&capture, &[]);
    let reg = run.json["registrars"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["asap"][0] == "127.0.0.1:2003")
        .expect("the registrar at 2003");
    assert_eq!(reg["registrar"], "0x00000003");
    assert_eq!(reg["resolutions"], wire);
    let pool = run.json["pools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["registrar"] == "0x00000003")
        .expect("its pool");
    assert_eq!(pool["handle"], "CalcAppPool");
    assert_eq!(pool["resolutions"], wire);
    assert_eq!(pool["not_checked"], 5);
    // The text: one name, the count in the table, no note that contradicts it.
    let text = check_text(&capture, &[]);
    assert!(!text.contains("registrar at 127.0.0.1:2003"), "{text}");
    assert!(!text.contains("never seen here"), "{text}");
    let row = text
        .lines()
        .skip_while(|l| !l.starts_with("registrar 0x00000003 ("))
        .find(|l| l.trim_start().starts_with("CalcAppPool"))
        .expect("its table's row");
    let cols: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(cols[4], "20", "{row}");
    assert!(row.ends_with("(5 not checked)"), "{row}");
    for f in run.json["findings"].as_array().unwrap() {
        let m = f["message"].as_str().unwrap_or("");
        assert!(m.starts_with("registrar 0x00000003:"), "{m}");
        // The pool it holds later is not called one it never held.
        assert!(!m.contains("never"), "{m}");
    }
    // stats: the same 20 in the pool's series, all the registrar's.
    let j = stats_json(&capture);
    let series = j["series"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["pool"] == "CalcAppPool")
        .expect("the pool's series");
    let answers: u64 = series["windows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["answers"].as_u64().unwrap_or(0))
        .sum();
    assert_eq!(answers, wire);
    assert_eq!(series["answers_by"], serde_json::json!({"0x00000003": 20}));
}

/// Per registrar, its deregistrations, re-registrations and takeovers, on the frames tshark
/// shows them: an accepted Deregistration Response; an accepted Registration Response for a PE
/// already registered at that registrar's port (and not deregistered since); an ENRP Takeover
/// Server from the registrar. `stats` lists the same events per pool.
#[test]
fn registrar_events_are_on_the_frames_tshark_shows() {
    if !common::have_tshark() {
        return;
    }
    for name in [
        "rserpool/rsplib-multi-pe.pcap",
        "rserpool/rsplib-rfc-scenario.pcap",
    ] {
        let Some(capture) = common::shared_capture(name) else {
            return;
        };
        let f = common::tshark::fields(
            &capture,
            "asap.message_type in {3, 4} || enrp.message_type == 9",
            &[
                "asap.message_type",
                "asap.r_bit",
                "asap.cause_code",
                "sctp.srcport",
                "asap.pool_handle_pool_handle",
                "asap.pe_identifier",
                "enrp.message_type",
            ],
            &[],
        );
        let mut want: BTreeMap<&str, Vec<u64>> = BTreeMap::new();
        let mut registered = std::collections::BTreeSet::new();
        for (frame, r) in &f {
            let one = |k: &str| {
                r.get(k)
                    .and_then(|v| v.first())
                    .cloned()
                    .unwrap_or_default()
            };
            if one("enrp.message_type") == "9" {
                want.entry("takeover").or_default().push(*frame);
                continue;
            }
            let key = (
                one("sctp.srcport"),
                one("asap.pool_handle_pool_handle"),
                one("asap.pe_identifier"),
            );
            let refused = one("asap.r_bit") == "1" || !one("asap.cause_code").is_empty();
            match (one("asap.message_type").as_str(), refused) {
                ("3", false) if !registered.insert(key.clone()) => {
                    want.entry("reregistration").or_default().push(*frame);
                }
                ("4", false) => {
                    registered.remove(&key);
                    want.entry("deregistration").or_default().push(*frame);
                }
                _ => {}
            }
        }
        let run = check(&capture, &[]);
        let mut got: BTreeMap<&str, Vec<u64>> = BTreeMap::new();
        for r in run.json["registrars"].as_array().unwrap() {
            for e in r["events"].as_array().expect("events") {
                let kind = match e["kind"].as_str().unwrap_or("") {
                    "takeover" => "takeover",
                    "reregistration" => "reregistration",
                    "deregistration" => "deregistration",
                    k => panic!("kind {k}"),
                };
                got.entry(kind)
                    .or_default()
                    .push(e["frame"].as_u64().unwrap());
            }
        }
        for v in got.values_mut().chain(want.values_mut()) {
            v.sort_unstable();
        }
        assert_eq!(got, want, "{name}");
        // stats lists each event under each of its pools.
        let j = stats_json(&capture);
        let listed: usize = j["series"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["events"].as_array().map_or(0, Vec::len))
            .sum();
        let per_pool: usize = run.json["registrars"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|r| r["events"].as_array().unwrap().iter())
            .map(|e| e["pools"].as_array().map_or(0, Vec::len))
            .sum();
        assert_eq!(listed, per_pool, "{name}");
    }
}

/// One name per registrar in a report: the first registrar of the multi-PE capture answers
/// before its keep-alive names it, and the texts' findings on its early answers carry its server
/// id, as the table does.
#[test]
fn a_registrar_is_named_one_way_in_a_report() {
    let Some(capture) = common::shared_capture("rserpool/rsplib-multi-pe.pcap") else {
        return;
    };
    let text = check_text(&capture, &["--profile", "rfc5356", "--all-findings"]);
    assert!(text.contains("registrar 0x11111111: "), "{text}");
    assert!(!text.contains("registrar at "), "{text}");
    let run = check(&capture, &["--profile", "rfc5356"]);
    for f in run.json["findings"].as_array().unwrap() {
        let m = f["message"].as_str().unwrap_or("");
        assert!(
            m.starts_with("registrar 0x11111111:") || m.starts_with("registrar 0x22222222:"),
            "{m}"
        );
    }
}
