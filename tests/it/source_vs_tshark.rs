//! Every shared capture read by `FileSource` gives the frames tshark gives: same count, numbers,
//! timestamps, lengths and captured lengths.

use crate::common;

use std::path::Path;
use std::process::Command;

use poolshark::source::file::FileSource;
use poolshark::source::FrameSource;

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
    let files = common::captures_under(&shared.join("captures"));
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
                // A frame without a time (a pcapng simple packet or custom block): tshark
                // writes no frame.time_epoch.
                Ok(Some(fr)) => got.push(format!(
                    "{}\t{}\t{}\t{}",
                    fr.number,
                    if fr.has_time() {
                        fr.ts.to_string()
                    } else {
                        String::new()
                    },
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

/// The crate's own writers judged by tshark: a pcapng with interfaces of different link types,
/// resolutions and offsets, in both byte orders, and a nanosecond big-endian pcap.
#[test]
fn writers_are_read_by_tshark_as_by_us() {
    use poolshark::base::{linktype, Timestamp};
    use poolshark::generate::{IfOptions, PcapNgWriter, PcapWriter, TsResolution};
    if !common::have_tshark() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("poolshark-writers-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let frame = [0x45u8; 64];
    for big_endian in [false, true] {
        let mut w = PcapNgWriter::with_byte_order(Vec::new(), big_endian).unwrap();
        let a = w
            .add_interface(&IfOptions::new(linktype::ETHERNET))
            .unwrap();
        let b = w
            .add_interface(&IfOptions::new(linktype::RAW).tsresol(9).tsoffset(3600))
            .unwrap();
        w.write_packet(a, Timestamp::new(1_600_000_000, 1_000), &frame, 80)
            .unwrap();
        w.write_packet(
            b,
            Timestamp::new(1_600_000_001, 999_999_999),
            &frame[..20],
            20,
        )
        .unwrap();
        let path = dir.join(format!("two-interfaces-{big_endian}.pcapng"));
        std::fs::write(&path, w.into_inner()).unwrap();
        let mut src = FileSource::open(&path).unwrap();
        let mut ours = Vec::new();
        while let Some(f) = src.next_frame().unwrap() {
            ours.push(format!(
                "{}\t{}\t{}\t{}",
                f.number,
                f.ts,
                f.orig_len,
                f.data.len()
            ));
        }
        assert_eq!(ours.len(), 2);
        assert_eq!(ours, tshark_frames(&path), "{}", path.display());
    }
    let mut w = PcapWriter::with_byte_order(Vec::new(), 1, TsResolution::Nano, true).unwrap();
    w.write(Timestamp::new(1_600_000_000, 123_456_789), &frame)
        .unwrap();
    let path = dir.join("nano-be.pcap");
    std::fs::write(&path, w.into_inner()).unwrap();
    assert_eq!(
        tshark_frames(&path),
        vec!["1\t1600000000.123456789\t64\t64".to_string()]
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// tshark's `-t ud` time column: the frame's epoch time and its UTC date and time.
fn tshark_utc(path: &Path) -> Vec<(String, String)> {
    let out = Command::new("tshark")
        .args(["-n", "-t", "ud", "-r"])
        .arg(path)
        .args([
            "-T",
            "fields",
            "-e",
            "frame.time_epoch",
            "-e",
            "_ws.col.Time",
        ])
        .output()
        .expect("run tshark");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| {
            let (epoch, utc) = l.split_once('\t')?;
            Some((epoch.to_string(), utc.to_string()))
        })
        .collect()
}

/// A time's fraction padded to nine digits: tshark gives the file's resolution (six digits for a
/// microsecond pcap), poolshark six digits unless the time has nanoseconds.
fn nine_digits(t: &str) -> String {
    match t.split_once('.') {
        Some((whole, frac)) => format!("{whole}.{frac:0<9}"),
        None => format!("{t}.000000000"),
    }
}

/// The UTC dates in findings (`Timestamp::utc`) are tshark's (`-t ud`) for every frame of the
/// fixtures and of the shared captures (frames dated 1970 to 2026).
#[test]
fn utc_times_match_tshark() {
    if !common::have_tshark() {
        return;
    }
    let fixtures = common::fixture("");
    let mut files: Vec<_> = common::captures_under(&fixtures)
        .into_iter()
        .filter(|f| f.parent() == Some(fixtures.as_path()))
        .collect();
    match common::shared_dir() {
        Some(shared) => files.extend(common::captures_under(&shared.join("captures"))),
        None => poolshark::test_support::skip("utc_times_match_tshark: fixtures only"),
    }
    let mut frames = 0;
    let mut years = std::collections::BTreeSet::new();
    for f in &files {
        let expected = tshark_utc(f);
        let mut src = FileSource::open(f).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        let mut got = Vec::new();
        while let Ok(Some(fr)) = src.next_frame() {
            // A frame without a time: tshark writes no epoch and an empty time column.
            got.push(if fr.has_time() {
                (fr.ts.to_string(), fr.ts.utc().to_string())
            } else {
                (String::new(), String::new())
            });
        }
        assert_eq!(got.len(), expected.len(), "{}", f.display());
        for ((ours_epoch, ours), (epoch, theirs)) in got.iter().zip(&expected) {
            assert_eq!(ours_epoch, epoch, "{}", f.display());
            if epoch.is_empty() {
                assert_eq!(ours, theirs, "{}: a frame without a time", f.display());
                continue;
            }
            assert_eq!(
                nine_digits(ours),
                nine_digits(theirs),
                "{} at {epoch}",
                f.display()
            );
            years.insert(ours[..4].to_string());
            frames += 1;
        }
    }
    assert!(frames > 1000, "only {frames} frames compared");
    eprintln!(
        "utc_times_match_tshark: {frames} frames in {} files, years {years:?}",
        files.len()
    );
}
