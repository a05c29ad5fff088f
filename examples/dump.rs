//! Prints poolshark's frame summaries and payloads of a capture (a development aid).
use poolshark::dissect::{Dissector, Limits};
use poolshark::source::file::FileSource;
use poolshark::source::FrameSource;

fn main() {
    let path = std::env::args().nth(1).expect("capture path");
    let mut src = FileSource::open(&path).expect("open");
    let mut d = Dissector::new(Limits::default());
    loop {
        match src.next_frame() {
            Ok(Some(f)) => {
                let n = f.number;
                let s = d.dissect(&f, &mut |p| {
                    println!(
                        "  payload {:?} {}:{} -> {}:{} len {} ppid {:?} stream {:?} tsn {:?} dup {} off {:?} gap {} from {:?}",
                        p.transport, p.src, p.src_port, p.dst, p.dst_port, p.data.len(), p.ppid, p.stream, p.tsn,
                        p.duplicate, p.frame_offset, p.gap_before, p.reassembled_from
                    )
                });
                let src = s.src.map(|a| a.to_string()).unwrap_or_default();
                let dst = s.dst.map(|a| a.to_string()).unwrap_or_default();
                println!("{n} {src} → {dst} {} {}", s.protocol, s.info);
                for e in &s.errors {
                    println!("  error {e}");
                }
            }
            Ok(None) => break,
            Err(e) => {
                println!("source error: {e}");
                if e.fatal {
                    break;
                }
            }
        }
    }
    println!("{:?}", d.counters());
}
