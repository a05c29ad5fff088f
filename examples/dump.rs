//! Prints poolshark's frame summaries and payloads of a capture (a development aid):
//! `cargo run --example dump FILE` (`-` reads stdin).
use std::io::Write;

use poolshark::dissect::{Dissector, Limits};
use poolshark::source::file::FileSource;
use poolshark::source::FrameSource;

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: dump FILE");
        std::process::exit(2);
    };
    let mut src = match FileSource::open(&path) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{path}: {e}");
            std::process::exit(2);
        }
    };
    let out = std::io::stdout();
    let mut out = std::io::BufWriter::new(out.lock());
    let mut d = Dissector::new(Limits::default());
    let mut lines = Vec::new();
    loop {
        match src.next_frame() {
            Ok(Some(f)) => {
                let n = f.number;
                lines.clear();
                let s = d.dissect(&f, &mut |p| {
                    lines.push(format!(
                        "  payload {:?} {}:{} -> {}:{} len {} ppid {:?} stream {:?} tsn {:?} dup {} off {:?} gap {} from {:?}",
                        p.transport, p.src, p.src_port, p.dst, p.dst_port, p.data.len(), p.ppid, p.stream, p.tsn,
                        p.duplicate, p.frame_offset, p.gap_before, p.reassembled_from
                    ))
                });
                let src = s.src.map(|a| a.to_string()).unwrap_or_default();
                let dst = s.dst.map(|a| a.to_string()).unwrap_or_default();
                lines.push(format!("{n} {src} → {dst} {} {}", s.protocol, s.info));
                for e in &s.errors {
                    lines.push(format!("  error {e}"));
                }
                for l in &lines {
                    if writeln!(out, "{l}").is_err() {
                        return; // a closed pipe: stop quietly
                    }
                }
            }
            Ok(None) => break,
            Err(e) => {
                let _ = writeln!(out, "source error: {e}");
                if e.fatal {
                    break;
                }
            }
        }
    }
    let _ = writeln!(out, "{:?}", d.counters());
}
