//! `poolshark generate --out FILE`'s run: a large mixed capture (RSerPool pools, a DHCP server pair
//! with v4 and v6 clients, an ISC failover pair, unrelated TCP/UDP traffic), deterministic from
//! the seed, streamed to the file as it is made.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::time::Instant;

use crate::generate::scenario::preset::MixOptions;
use crate::generate::scenario::{CaptureFile, CaptureFormat, RunLog};
use crate::run::anyhow_like::{Error, Result};
use crate::run::exit;

/// What `generate` is given, already checked: the mix to build (its frame count included),
/// where to write it and in which format, and where to list the planted faults (with
/// `--faults`).
pub struct Options {
    pub mix: MixOptions,
    pub out: String,
    pub format: CaptureFormat,
    pub faults_path: Option<String>,
}

/// Builds the mix, writes its frames and, with faults planted, their list; says on stderr what
/// was written.
pub fn run(args: Options) -> Result<i32> {
    let opts = args.mix;
    let mut mix = opts.build().map_err(|e| Error::msg(e.to_string()))?;
    let started = Instant::now();
    let log = if args.out == "-" {
        let stdout = io::stdout();
        write(&mut mix, stdout.lock(), args.format, opts.frames)?
    } else {
        let f = File::create(&args.out)
            .map_err(|e| Error::msg(format!("cannot create {}: {e}", args.out)))?;
        write(&mut mix, f, args.format, opts.frames)?
    };
    let secs = started.elapsed().as_secs_f64();
    eprintln!("poolshark: {}", summary(&log, secs));
    if let Some(path) = args.faults_path {
        write_faults(&path, &log)?;
        eprintln!("poolshark: {}", faults_summary(&log, &path));
    }
    Ok(exit::OK)
}

/// OUT.faults.json: the findings `check` must report, one object per planted frame in frame
/// order: `frame` (1-based), `rule` (as `check` names it) and `detail` (what was planted).
fn write_faults(path: &str, log: &RunLog) -> Result<()> {
    let list: Vec<serde_json::Value> = log
        .planted
        .iter()
        .map(|p| serde_json::json!({"frame": p.frame, "rule": p.rule, "detail": p.detail}))
        .collect();
    let mut text = serde_json::to_string_pretty(&list)
        .map_err(|e| Error::msg(format!("cannot write {path}: {e}")))?;
    text.push('\n');
    std::fs::write(path, text).map_err(|e| Error::msg(format!("cannot write {path}: {e}")))
}

/// One line for stderr: the findings planted, and the faults that found no place before the
/// capture ended.
pub fn faults_summary(log: &RunLog, path: &str) -> String {
    let mut by_rule: Vec<(&str, usize)> = Vec::new();
    for p in &log.planted {
        match by_rule.iter_mut().find(|(r, _)| *r == p.rule) {
            Some((_, n)) => *n += 1,
            None => by_rule.push((p.rule, 1)),
        }
    }
    by_rule.sort();
    let rules: Vec<String> = by_rule.iter().map(|(r, n)| format!("{r} {n}")).collect();
    let mut line = format!(
        "planted {} finding(s) for check to report ({}), listed in {path}",
        log.planted.len(),
        rules.join(", ")
    );
    if !log.plants_left.is_empty() {
        let left: Vec<String> = log
            .plants_left
            .iter()
            .map(|(s, n)| format!("{s} {n}"))
            .collect();
        line.push_str(&format!(
            "; the capture ended before {} fault(s) found a place ({}): give more --frames or a \
             lower --rate",
            log.plants_left.iter().map(|(_, n)| n).sum::<usize>(),
            left.join(", ")
        ));
    }
    line
}

fn write<W: Write>(
    mix: &mut crate::generate::scenario::Mix,
    w: W,
    format: CaptureFormat,
    frames: u64,
) -> Result<RunLog> {
    let mut file = CaptureFile::new(BufWriter::with_capacity(1 << 20, w), format)?;
    let log = mix.run(Some(frames), &mut file)?;
    file.flush()?;
    Ok(log)
}

/// One line for stderr: what was written, how fast.
pub fn summary(log: &RunLog, secs: f64) -> String {
    let per: Vec<String> = log
        .per_scenario
        .iter()
        .map(|(n, f)| format!("{n} {f}"))
        .collect();
    let span = match (log.first, log.last) {
        (Some(a), Some(b)) => b.since(a),
        _ => 0.0,
    };
    format!(
        "wrote {} frames ({}), {} bytes, {:.1} s of traffic, in {:.2} s ({:.0} frames/s, at most \
         {} frames held at once)",
        log.frames,
        per.join(", "),
        log.bytes,
        span,
        secs,
        log.frames as f64 / secs.max(1e-9),
        log.max_pending
    )
}
