//! A capture whose body turns into garbage: a few good frames, then megabytes of zeros (or a
//! long run of packet blocks that do not parse). Reading stops after
//! `poolshark::source::file::MAX_BAD_RUN` malformed records in a row with exit 2, naming the
//! file and the byte offset where the damage starts (the end of the good frames, which the
//! file's own structure gives), instead of reading half a million empty "frames".

use crate::common::poolshark;

use std::io::Write;
use std::path::{Path, PathBuf};

use poolshark::source::file::MAX_BAD_RUN;

fn temp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("poolshark-corrupt-{}-{name}", std::process::id()))
}

/// `poolshark generate` of `frames` frames into `path`; its size.
fn generate(path: &Path, frames: u32) -> u64 {
    let o = poolshark()
        .args(["generate", "--frames", &frames.to_string(), "--out"])
        .arg(path)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    std::fs::metadata(path).unwrap().len()
}

fn append(path: &Path, bytes: &[u8]) {
    let mut f = std::fs::OpenOptions::new().append(true).open(path).unwrap();
    f.write_all(bytes).unwrap();
}

/// `poolshark read FILE`: (exit code, frames in the summary, stderr).
fn read(path: &Path) -> (i32, u64, String) {
    let o = poolshark().arg("read").arg(path).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    let frames = err
        .lines()
        .filter_map(|l| l.strip_prefix("poolshark: "))
        .find(|l| l.contains(" frames, "))
        .and_then(|l| l.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no summary: {err}"));
    (o.status.code().unwrap_or(-1), frames, err)
}

const ZEROS: usize = 8 << 20;

#[test]
fn a_pcap_body_of_zeros_stops_after_the_bound_with_its_offset() {
    let f = temp("zeros.pcap");
    let good = generate(&f, 5);
    append(&f, &vec![0u8; ZEROS]);
    let (code, frames, err) = read(&f);
    assert_eq!(code, 2, "{err}");
    // The 5 frames, then the zero records up to the bound (a zero record is a frame of no
    // length until the run is long enough to say the file is corrupt): not 8 MiB / 16.
    assert_eq!(frames, 5 + MAX_BAD_RUN - 1, "{err}");
    let name = f.display().to_string();
    assert!(err.contains(&format!("stopped reading {name}")), "{err}");
    assert!(
        err.contains(&format!(
            "{MAX_BAD_RUN} malformed records in a row from byte {good} on"
        )),
        "{err}"
    );
    let _ = std::fs::remove_file(&f);
}

#[test]
fn a_pcapng_body_of_zeros_stops_at_once_with_its_offset() {
    let f = temp("zeros.pcapng");
    let good = generate(&f, 5);
    append(&f, &vec![0u8; ZEROS]);
    let (code, frames, err) = read(&f);
    assert_eq!(code, 2, "{err}");
    assert_eq!(frames, 5, "{err}");
    // A block of length 0 cannot be stepped over: the first one ends the reading.
    assert!(err.contains(&format!("file byte {}", good + 4)), "{err}");
    assert!(err.contains(&f.display().to_string()), "{err}");
    let _ = std::fs::remove_file(&f);
}

/// An enhanced packet block naming interface 7 of a section that describes one: well framed,
/// so each is skipped on its own, but a file of nothing else is corrupt.
fn epb_of_unknown_interface() -> Vec<u8> {
    let mut b = Vec::new();
    for w in [6u32, 32 + 4, 7, 0, 0, 4, 4] {
        b.extend_from_slice(&w.to_le_bytes());
    }
    b.extend_from_slice(&[1, 2, 3, 4]);
    b.extend_from_slice(&(32u32 + 4).to_le_bytes());
    b
}

#[test]
fn a_long_run_of_pcapng_blocks_that_do_not_parse_stops_after_the_bound() {
    let f = temp("bad-blocks.pcapng");
    let good = generate(&f, 5);
    let block = epb_of_unknown_interface();
    // Fewer than the bound: each is reported and skipped, the good frame after is read.
    append(&f, &block.repeat(MAX_BAD_RUN as usize - 1));
    let tail = temp("one.pcapng");
    generate(&tail, 1);
    // A whole one-frame file after them: a new section, one more frame.
    append(&f, &std::fs::read(&tail).unwrap());
    let (code, frames, err) = read(&f);
    assert_eq!(code, 0, "{err}");
    // The skipped blocks are reported, not counted as frames.
    assert_eq!(frames, 5 + 1, "{err}");
    assert_eq!(
        err.matches("names interface 7").count(),
        MAX_BAD_RUN as usize - 1,
        "{err}"
    );
    // Then as many as the bound: reading stops at the first of them.
    let at = std::fs::metadata(&f).unwrap().len();
    append(&f, &block.repeat(MAX_BAD_RUN as usize + 100));
    let (code, _, err) = read(&f);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(&format!(
            "{MAX_BAD_RUN} malformed records in a row from byte {at} on"
        )),
        "{err}"
    );
    assert!(good > 0);
    for p in [&f, &tail] {
        let _ = std::fs::remove_file(p);
    }
}
