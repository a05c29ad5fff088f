//! Every shared capture read by `FileSource` gives the frames tshark gives: same count, numbers,
//! timestamps, lengths and captured lengths.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use poolshark::source::file::FileSource;
use poolshark::source::FrameSource;

/// Every capture file under `dir`, recursively, sorted.
pub fn captures_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).expect("read_dir").flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "pcap" || x == "pcapng") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

fn tshark_frames(path: &Path) -> Vec<String> {
    let out = Command::new("tshark")
        .args(["-n", "-r"])
        .arg(path)
        .args([
            "-T",
            "fields",
            "-e",
            "frame.number",
            "-e",
            "frame.time_epoch",
            "-e",
            "frame.len",
            "-e",
            "frame.cap_len",
        ])
        .output()
        .expect("run tshark");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn shared_captures_match_tshark() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    if !common::have_tshark() {
        return;
    }
    let files = captures_under(&shared.join("captures"));
    assert!(
        files.len() > 40,
        "expected the shared captures, found {}",
        files.len()
    );
    for f in files {
        let expected = tshark_frames(&f);
        let mut src = FileSource::open(&f).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        let mut got = Vec::new();
        loop {
            match src.next_frame() {
                Ok(Some(fr)) => got.push(format!(
                    "{}\t{}\t{}\t{}",
                    fr.number,
                    fr.ts,
                    fr.orig_len,
                    fr.data.len()
                )),
                Ok(None) => break,
                Err(e) => panic!("{}: source error {e}", f.display()),
            }
        }
        assert_eq!(got, expected, "{}", f.display());
    }
}
