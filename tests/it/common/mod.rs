//! Helpers shared by the integration tests: where the shared captures are, whether tshark is
//! there, and how to skip (or, under `.ci/run`, fail) when they are not.
#![allow(dead_code)]

pub mod tshark;

use std::path::PathBuf;
use std::process::Command;

/// `../shared` beside the checkout, when it is there. Tests that need it call this and return
/// early on `None`; `.ci/run` sets `POOLSHARK_REQUIRE_SHARED=1`, which turns the skip into a failure.
pub fn shared_dir() -> Option<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared");
    if dir.join("captures").is_dir() {
        return Some(dir);
    }
    if std::env::var_os("POOLSHARK_REQUIRE_SHARED").is_some() {
        panic!(
            "POOLSHARK_REQUIRE_SHARED is set but {} has no captures/",
            dir.display()
        );
    }
    eprintln!(
        "skipped: ../shared beside the checkout is absent (the shared captures are not part of this repository)"
    );
    None
}

/// A file under `../shared/captures`, or `None` (skip) when the folder is absent.
pub fn shared_capture(rel: &str) -> Option<PathBuf> {
    let p = shared_dir()?.join("captures").join(rel);
    assert!(p.is_file(), "missing shared capture {}", p.display());
    Some(p)
}

/// Whether tshark can be run. `.ci/run` sets `POOLSHARK_REQUIRE_TSHARK=1`, which turns its absence
/// into a failure.
pub fn have_tshark() -> bool {
    let ok = Command::new("tshark")
        .arg("--version")
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    if !ok {
        if std::env::var_os("POOLSHARK_REQUIRE_TSHARK").is_some() {
            panic!("POOLSHARK_REQUIRE_TSHARK is set but tshark cannot be run");
        }
        eprintln!("skipped: tshark is not installed (apt-get install tshark)");
    }
    ok
}

/// A file in the project's own fixtures.
pub fn fixture(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(rel)
}

/// The built `poolshark` binary.
pub fn poolshark() -> Command {
    Command::new(env!("CARGO_BIN_EXE_poolshark"))
}

/// Feeds one analyser in-process, as `check` does, so that a test can look at its report.
pub struct Feed<A> {
    pub analyser: A,
    pub report: poolshark::analyse::Report,
}

impl<A: poolshark::analyse::Analyser> poolshark::pipeline::Sink for Feed<A> {
    fn message(&mut self, d: &poolshark::pipeline::Decoded<'_>) {
        self.analyser.message(d, &mut self.report);
    }
}
