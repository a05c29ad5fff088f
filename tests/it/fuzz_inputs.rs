//! The fuzz targets' bodies (`poolshark::fuzzing`, to which `fuzz/` hands libFuzzer's bytes) run
//! on every saved regression input (`fixtures/fuzz/TARGET/`), on every seed of the corpus that
//! `examples/fuzz_seeds.rs` writes, made from the fixtures and the shared captures, and on a fixed
//! set of mutants of each seed: the same inputs on every run, so that a failure reproduces, in the
//! tests' own build, without cargo-fuzz. The fuzzing itself (coverage-guided, for minutes to
//! hours) is done by hand with `fuzz/run-target` (FUZZING.md). A failing input is written to
//! `fuzz/artifacts/TARGET/` as libFuzzer would leave it, for `cargo fuzz run TARGET FILE`.

use std::collections::BTreeSet;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use poolshark::fuzzing::seeds::{capture_files, Seeds};
use poolshark::fuzzing::{all_targets, target};

use crate::common::{fixture, shared_dir, Rng};

/// An input for a target: (target, where it came from, the bytes).
type Input = (&'static str, String, Vec<u8>);

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Runs each (target, name, input); returns a line per input that made its target panic, after
/// writing the input to `fuzz/artifacts/TARGET/NAME`.
fn failures(inputs: &[Input]) -> Vec<String> {
    let mut out = Vec::new();
    for (name, label, bytes) in inputs {
        let Some(run) = target(name) else {
            out.push(format!("{label}: no fuzz target {name}"));
            continue;
        };
        if catch_unwind(AssertUnwindSafe(|| run(bytes))).is_err() {
            let dir = root().join("fuzz/artifacts").join(name);
            let file = dir.join(Seeds::name(bytes));
            let kept = std::fs::create_dir_all(&dir).and_then(|()| std::fs::write(&file, bytes));
            out.push(format!(
                "{name} panicked on {label} ({} bytes{})",
                bytes.len(),
                match kept {
                    Ok(()) => format!(", kept as {}", file.display()),
                    Err(e) => format!(", not kept: {e}"),
                }
            ));
        }
    }
    out
}

/// The `[[bin]]` names of `fuzz/Cargo.toml`.
fn fuzz_binaries() -> BTreeSet<String> {
    let toml = std::fs::read_to_string(root().join("fuzz/Cargo.toml")).expect("fuzz/Cargo.toml");
    let mut names = BTreeSet::new();
    let mut in_bin = false;
    for line in toml.lines().map(str::trim) {
        if line.starts_with('[') {
            in_bin = line == "[[bin]]";
        } else if let Some(v) = line.strip_prefix("name = ").filter(|_| in_bin) {
            names.insert(v.trim_matches('"').to_string());
        }
    }
    names
}

#[test]
fn the_fuzz_crate_has_a_binary_for_every_target_and_each_calls_its_body() {
    let ours: BTreeSet<String> = all_targets().map(|(n, _)| n.to_string()).collect();
    assert_eq!(
        fuzz_binaries(),
        ours,
        "fuzz/Cargo.toml against poolshark::fuzzing::all_targets()"
    );
    for name in &ours {
        let path = root().join(format!("fuzz/fuzz_targets/{name}.rs"));
        let src = std::fs::read_to_string(&path).expect("the target's source");
        assert!(
            src.contains(&format!("poolshark::fuzzing::{name}(data)")),
            "{} does not hand its bytes to poolshark::fuzzing::{name}",
            path.display()
        );
    }
}

#[test]
fn every_saved_input_passes_its_target() {
    let dir = fixture("fuzz");
    let mut inputs = Vec::new();
    for entry in std::fs::read_dir(&dir).expect("fixtures/fuzz") {
        let sub = entry.expect("an entry").path();
        let name = sub.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        let name = all_targets()
            .map(|(n, _)| n)
            .find(|n| *n == name)
            .unwrap_or_else(|| panic!("{} names no fuzz target", sub.display()));
        for file in std::fs::read_dir(&sub).expect("a target's inputs") {
            let path = file.expect("an input").path();
            let bytes = std::fs::read(&path).expect("the input");
            inputs.push((name, path.display().to_string(), bytes));
        }
    }
    assert!(
        !inputs.is_empty(),
        "no saved inputs under {}",
        dir.display()
    );
    let failed = failures(&inputs);
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}

/// A mutant of `seed`: one to three of libFuzzer's simpler mutations (a bit flipped, a byte set
/// to a value lengths and counts trip on, a random byte, a 16-bit length nudged by a few, a range
/// deleted, a range copied in elsewhere, the input cut short).
fn mutant(seed: &[u8], rng: &mut Rng) -> Vec<u8> {
    let mut v = seed.to_vec();
    for _ in 0..=rng.below(3) {
        if v.is_empty() {
            v.push(rng.next() as u8);
            continue;
        }
        let at = rng.below(v.len());
        match rng.below(7) {
            0 => v[at] ^= 1 << rng.below(8),
            1 => v[at] = [0, 1, 0x7f, 0x80, 0xff][rng.below(5)],
            2 => v[at] = rng.next() as u8,
            3 if at + 1 < v.len() => {
                let word = u16::from_be_bytes([v[at], v[at + 1]]);
                let delta = 1 + rng.below(4) as u16;
                let word = if rng.below(2) == 0 {
                    word.wrapping_add(delta)
                } else {
                    word.wrapping_sub(delta)
                };
                v[at..at + 2].copy_from_slice(&word.to_be_bytes());
            }
            4 => {
                let end = (at + 1 + rng.below(16)).min(v.len());
                v.drain(at..end);
            }
            5 => {
                let from = rng.below(v.len());
                let end = (from + 1 + rng.below(16)).min(v.len());
                let piece = v[from..end].to_vec();
                let to = rng.below(v.len() + 1);
                v.splice(to..to, piece);
            }
            _ => v.truncate(at),
        }
    }
    v
}

/// Mutants per seed: fewer for the targets that run a whole capture through the pipeline.
fn mutants_per_seed(target: &str) -> usize {
    match target {
        "pipeline" | "handoff" => 48,
        "pcap_read" | "dissect" => 96,
        // Each input a sequence of up to 64 messages through every analyser.
        "rserpool_sequence" | "dhcp_sequence" | "failover_sequence" => 16,
        _ => 192,
    }
}

/// The seeds of the capture files under `dir` and `mutants_per_seed` mutants of each.
fn seeds_and_mutants(dir: &Path) -> (Vec<Input>, Seeds) {
    let mut seeds = Seeds::new();
    let mut inputs = Vec::new();
    let files = capture_files(dir).expect("the captures");
    assert!(!files.is_empty(), "no captures under {}", dir.display());
    for (i, path) in files.iter().enumerate() {
        seeds.add_capture(i, path).expect("a capture's seeds");
        for (target, bytes) in seeds.take() {
            let label = format!("a seed of {}", path.display());
            let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ (inputs.len() as u64 + 1));
            for m in 0..mutants_per_seed(target) {
                let bytes = mutant(&bytes, &mut rng);
                inputs.push((target, format!("mutant {m} of {label}"), bytes));
            }
            inputs.push((target, label, bytes));
        }
    }
    (inputs, seeds)
}

fn every_target_passes_the_seeds_of(dir: &Path) {
    let (inputs, seeds) = seeds_and_mutants(dir);
    for (name, _) in all_targets() {
        assert!(
            seeds.counts().get(name).copied().unwrap_or(0) > 0,
            "no seed for {name} from {}: {:?}",
            dir.display(),
            seeds.counts()
        );
    }
    let failed = failures(&inputs);
    assert!(
        failed.is_empty(),
        "{} of {} inputs failed:\n{}",
        failed.len(),
        inputs.len(),
        failed.join("\n")
    );
}

#[test]
fn the_fixtures_seeds_and_their_mutants_pass_every_target() {
    every_target_passes_the_seeds_of(&fixture(""));
}

#[test]
fn the_shared_captures_seeds_and_their_mutants_pass_every_target() {
    let Some(shared) = shared_dir() else {
        return;
    };
    every_target_passes_the_seeds_of(&shared.join("captures"));
}

#[test]
fn a_mutant_differs_from_its_seed_and_is_the_same_on_every_run() {
    let seed: Vec<u8> = (0..64).collect();
    let (mut a, mut b) = (Rng(7), Rng(7));
    let first: Vec<_> = (0..50).map(|_| mutant(&seed, &mut a)).collect();
    let again: Vec<_> = (0..50).map(|_| mutant(&seed, &mut b)).collect();
    assert_eq!(first, again);
    assert!(first.iter().filter(|m| **m != seed).count() >= 45);
    assert!(first.iter().any(|m| m.len() < seed.len()));
    assert!(first.iter().any(|m| m.len() > seed.len()));
}
