//! Measures the transport layers: building and writing a capture with the traffic builder, reading
//! it back, and dissecting it. `cargo run --release --example throughput [packets] [file]`.

use std::io::BufWriter;
use std::time::Instant;

use poolshark::base::{linktype, Timestamp};
use poolshark::dissect::{Dissector, Limits};
use poolshark::generate::{Ip, Packet, PcapWriter, TsResolution};
use poolshark::source::file::FileSource;
use poolshark::source::FrameSource;
use poolshark::wire::sctp::build::{Chunk, DataFlags};

fn main() {
    let n: u64 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(1_000_000);
    let path = std::env::args().nth(2).unwrap_or_else(|| {
        std::env::temp_dir()
            .join("poolshark-throughput.pcap")
            .display()
            .to_string()
    });

    let t = Instant::now();
    let file = std::fs::File::create(&path).expect("create");
    let mut w = PcapWriter::new(
        BufWriter::with_capacity(1 << 20, file),
        linktype::ETHERNET,
        TsResolution::Micro,
    )
    .expect("writer");
    let mut buf = Vec::with_capacity(2048);
    let msg = [0x5au8; 120];
    for i in 0..n {
        let src = std::net::Ipv4Addr::from(0x0a00_0000 + (i % 500) as u32);
        let dst = std::net::Ipv4Addr::new(192, 0, 2, 1);
        buf.clear();
        if i % 4 == 3 {
            Packet::udp(Ip::v4(src, dst), 68, 67, &msg).build(&mut buf);
        } else {
            let chunk = Chunk::Data {
                tsn: (i / 500) as u32,
                stream: 0,
                ssn: 0,
                ppid: 11,
                flags: DataFlags::WHOLE,
                data: &msg,
            };
            Packet::sctp(Ip::v4(src, dst), 40000, 3863, 1, vec![chunk]).build(&mut buf);
        }
        w.write(Timestamp::new(1_700_000_000 + (i / 1000) as i64, 0), &buf)
            .expect("write");
    }
    w.flush().expect("flush");
    let build = t.elapsed().as_secs_f64();

    let t = Instant::now();
    let mut src = FileSource::open(&path).expect("open");
    let mut frames = 0u64;
    let mut bytes = 0usize;
    while let Some(f) = src.next_frame().expect("read") {
        frames += 1;
        bytes += f.data.len();
    }
    let read = t.elapsed().as_secs_f64();

    let t = Instant::now();
    let mut src = FileSource::open(&path).expect("open");
    let mut d = Dissector::new(Limits::default());
    let mut payloads = 0u64;
    while let Some(f) = src.next_frame().expect("read") {
        d.dissect(&f, &mut |_p| payloads += 1);
    }
    let dissect = t.elapsed().as_secs_f64();
    println!("{n} packets, {bytes} bytes, {payloads} payloads");
    println!("build+write: {:.2} M packets/s", n as f64 / build / 1e6);
    println!("read only:   {:.2} M frames/s", frames as f64 / read / 1e6);
    println!(
        "read+dissect: {:.2} M frames/s",
        frames as f64 / dissect / 1e6
    );
    let _ = std::fs::remove_file(&path);
}
