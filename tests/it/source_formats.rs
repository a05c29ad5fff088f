//! Capture formats written with the crate's own writers (whose layout follows the pcap and pcapng
//! specifications byte by byte) and read back: byte orders, resolutions, interfaces, block kinds,
//! gzip, truncation, garbage.

use std::io::Write;

use poolshark::base::{linktype, Timestamp};
use poolshark::generate::{IfOptions, PcapNgWriter, PcapWriter, TsResolution};
use poolshark::source::file::FileSource;
use poolshark::source::{FrameSource, SourceError};

#[derive(Debug, PartialEq)]
struct Got {
    number: u64,
    ts: Timestamp,
    linktype: u32,
    orig_len: u32,
    interface: u32,
    data: Vec<u8>,
}

fn read_all(bytes: Vec<u8>) -> (Vec<Got>, Vec<SourceError>) {
    let mut src = match FileSource::from_reader(std::io::Cursor::new(bytes)) {
        Ok(s) => s,
        Err(e) => return (Vec::new(), vec![e]),
    };
    let mut frames = Vec::new();
    let mut errors = Vec::new();
    for _ in 0..100_000 {
        match src.next_frame() {
            Ok(Some(f)) => frames.push(Got {
                number: f.number,
                ts: f.ts,
                linktype: f.linktype,
                orig_len: f.orig_len,
                interface: f.interface,
                data: f.data.to_vec(),
            }),
            Ok(None) => break,
            Err(e) => {
                let fatal = e.fatal;
                errors.push(e);
                if fatal {
                    break;
                }
            }
        }
    }
    (frames, errors)
}

fn packets() -> Vec<(Timestamp, Vec<u8>)> {
    vec![
        (Timestamp::new(1_700_000_000, 123_456_789), vec![1u8; 60]),
        (Timestamp::new(1_700_000_001, 0), (0..=255u8).collect()),
        (Timestamp::new(1_700_000_002, 999_999_999), vec![7u8; 1]),
    ]
}

fn pcap_bytes(res: TsResolution, big_endian: bool) -> Vec<u8> {
    let mut w =
        PcapWriter::with_byte_order(Vec::new(), linktype::ETHERNET, res, big_endian).unwrap();
    for (ts, d) in packets() {
        w.write(ts, &d).unwrap();
    }
    w.into_inner()
}

#[test]
fn legacy_pcap_every_byte_order_and_resolution() {
    for big_endian in [false, true] {
        for res in [TsResolution::Micro, TsResolution::Nano] {
            let (frames, errors) = read_all(pcap_bytes(res, big_endian));
            assert!(errors.is_empty(), "{errors:?}");
            assert_eq!(frames.len(), 3);
            for (i, (f, (ts, d))) in frames.iter().zip(packets()).enumerate() {
                assert_eq!(f.number, i as u64 + 1);
                let nanos = match res {
                    TsResolution::Micro => ts.nanos / 1000 * 1000,
                    TsResolution::Nano => ts.nanos,
                };
                assert_eq!(f.ts, Timestamp::new(ts.secs, nanos), "{big_endian} {res:?}");
                assert_eq!(f.data, d);
                assert_eq!(f.orig_len as usize, d.len());
                assert_eq!(f.linktype, linktype::ETHERNET);
            }
        }
    }
}

#[test]
fn legacy_pcap_header_bytes_are_the_specified_ones() {
    let b = pcap_bytes(TsResolution::Nano, true);
    assert_eq!(&b[..4], &[0xa1, 0xb2, 0x3c, 0x4d]);
    let b = pcap_bytes(TsResolution::Micro, false);
    assert_eq!(&b[..8], &[0xd4, 0xc3, 0xb2, 0xa1, 2, 0, 4, 0]);
    // First record: ts 1_700_000_000 = 0x6553f100, usec 123456 = 0x0001e240.
    assert_eq!(
        &b[24..32],
        &[0x00, 0xf1, 0x53, 0x65, 0x40, 0xe2, 0x01, 0x00]
    );
}

#[test]
fn modified_pcap_records_have_24_byte_headers() {
    // Kuznetsov's format (libpcap reads it): the file header as usual with its own magic, each
    // record header 8 bytes longer (interface index, protocol, packet type, padding).
    let mut b = vec![0x34, 0xcd, 0xb2, 0xa1, 2, 0, 4, 0];
    b.extend_from_slice(&[0; 8]);
    b.extend_from_slice(&65535u32.to_le_bytes());
    b.extend_from_slice(&1u32.to_le_bytes());
    let records: [(u32, u32, &[u8], u32); 2] =
        [(7, 250_000, b"abcdef", 60), (8, 999_999, b"xy", 2)];
    for (secs, usecs, data, orig) in records {
        for w in [secs, usecs, data.len() as u32, orig, 3] {
            b.extend_from_slice(&w.to_le_bytes());
        }
        b.extend_from_slice(&[0x08, 0x00, 4, 0]);
        b.extend_from_slice(data);
    }
    let (frames, errors) = read_all(b);
    assert!(errors.is_empty(), "{errors:?}");
    let got: Vec<_> = frames
        .iter()
        .map(|f| (f.number, f.ts, f.orig_len, f.linktype, f.data.as_slice()))
        .collect();
    assert_eq!(
        got,
        [
            (1, Timestamp::new(7, 250_000_000), 60, 1, &b"abcdef"[..]),
            (2, Timestamp::new(8, 999_999_000), 2, 1, &b"xy"[..]),
        ]
    );
}

fn pcapng_two_interfaces(big_endian: bool) -> Vec<u8> {
    let mut w = PcapNgWriter::with_byte_order(Vec::new(), big_endian).unwrap();
    let eth = w
        .add_interface(&IfOptions::new(linktype::ETHERNET).name("eth0"))
        .unwrap();
    let raw = w
        .add_interface(&IfOptions::new(linktype::RAW).tsresol(9).tsoffset(1_000_000))
        .unwrap();
    let bin = w
        .add_interface(&IfOptions::new(linktype::LINUX_SLL).tsresol(0x80 | 20))
        .unwrap();
    let p = packets();
    w.write_packet(eth, p[0].0, &p[0].1, 100).unwrap();
    w.write_raw_block(0x0bad_0bad, &[1, 2, 3, 4, 5]).unwrap();
    w.write_packet(raw, p[1].0, &p[1].1, p[1].1.len() as u32)
        .unwrap();
    w.write_simple_packet(&p[2].1, p[2].1.len() as u32).unwrap();
    w.write_obsolete_packet(1, p[0].0, &p[0].1, 60).unwrap();
    w.write_packet(bin, p[2].0, &p[2].1, 1).unwrap();
    // A second section of the other byte order: interfaces start again.
    w.new_section(!big_endian).unwrap();
    let only = w
        .add_interface(&IfOptions::new(linktype::IPV6).tsresol(3))
        .unwrap();
    w.write_packet(only, p[1].0, &p[1].1, 300).unwrap();
    w.into_inner()
}

#[test]
fn pcapng_interfaces_resolutions_offsets_blocks_and_sections() {
    for big_endian in [false, true] {
        let (frames, errors) = read_all(pcapng_two_interfaces(big_endian));
        assert!(errors.is_empty(), "{errors:?}");
        let p = packets();
        let summary: Vec<(u64, u32, u32, u32, usize)> = frames
            .iter()
            .map(|f| (f.number, f.linktype, f.interface, f.orig_len, f.data.len()))
            .collect();
        assert_eq!(
            summary,
            vec![
                (1, linktype::ETHERNET, 0, 100, 60),
                (2, linktype::RAW, 1, 256, 256),
                (3, linktype::ETHERNET, 0, 1, 1),
                (4, linktype::RAW, 1, 60, 60),
                (5, linktype::LINUX_SLL, 2, 1, 1),
                (6, linktype::IPV6, 0, 300, 256),
            ]
        );
        // Microseconds on interface 0.
        assert_eq!(frames[0].ts, Timestamp::new(p[0].0.secs, 123_456_000));
        // Nanoseconds with an offset of 10^6 s on interface 1.
        assert_eq!(frames[1].ts, p[1].0);
        assert_eq!(frames[3].ts, p[0].0);
        // A simple packet block has no time.
        assert_eq!(frames[2].ts, Timestamp::default());
        // 2^-20 s units: 999_999_999 ns is 1_048_575 units = 999_999_046 ns.
        assert_eq!(frames[4].ts, Timestamp::new(p[2].0.secs, 999_999_046));
        // Milliseconds in the second section.
        assert_eq!(frames[5].ts, Timestamp::new(p[1].0.secs, 0));
        assert_eq!(frames[1].data, p[1].1);
    }
}

#[test]
fn gzip_is_recognised_by_magic_with_several_members() {
    let plain = pcapng_two_interfaces(false);
    let (half_a, half_b) = plain.split_at(plain.len() / 2);
    let mut gz = Vec::new();
    for part in [half_a, half_b] {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        e.write_all(part).unwrap();
        gz.extend(e.finish().unwrap());
    }
    let (frames, errors) = read_all(gz.clone());
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(frames.len(), 6);
    // Whatever the file is called.
    let dir = std::env::temp_dir().join(format!("poolshark-gz-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("not-compressed-by-its-name.pcap");
    std::fs::write(&path, &gz).unwrap();
    let mut src = FileSource::open(&path).unwrap();
    let mut n = 0;
    while let Some(_f) = src.next_frame().unwrap() {
        n += 1;
    }
    assert_eq!(n, 6);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn garbage_empty_and_short_headers_are_clear_fatal_errors() {
    let (_, e) = read_all(b"GET / HTTP/1.1\r\n\r\n".to_vec());
    assert!(
        e[0].fatal && e[0].what.contains("not a pcap or pcapng file"),
        "{e:?}"
    );
    let (_, e) = read_all(Vec::new());
    assert!(e[0].fatal && e[0].what.contains("empty"), "{e:?}");
    let pcap = pcap_bytes(TsResolution::Micro, false);
    let (_, e) = read_all(pcap[..10].to_vec());
    assert!(
        e[0].fatal && e[0].what.contains("pcap file header (10 of 24"),
        "{e:?}"
    );
    let ng = pcapng_two_interfaces(false);
    let (_, e) = read_all(ng[..20].to_vec());
    assert!(
        e[0].fatal && e[0].what.contains("section header block"),
        "{e:?}"
    );
}

/// Cutting a file at every byte: whole records before the cut are read, a cut inside a record is
/// one non-fatal error naming the next frame number and the record's file offset.
#[test]
fn truncation_at_every_byte() {
    for (bytes, first_record) in [
        (pcap_bytes(TsResolution::Micro, false), 24usize),
        (pcap_bytes(TsResolution::Nano, true), 24),
        (pcapng_two_interfaces(false), 28),
        (pcapng_two_interfaces(true), 28),
    ] {
        let (all, _) = read_all(bytes.clone());
        for cut in 0..bytes.len() {
            let (frames, errors) = read_all(bytes[..cut].to_vec());
            assert!(frames.len() <= all.len());
            for (a, b) in frames.iter().zip(&all) {
                assert_eq!(a, b);
            }
            if cut < first_record {
                assert!(
                    errors.len() == 1 && errors[0].fatal,
                    "cut {cut}: {errors:?}"
                );
                continue;
            }
            match errors.as_slice() {
                [] => {}
                [e] => {
                    assert!(!e.fatal, "cut {cut}: {e}");
                    assert_eq!(e.frame, Some(frames.len() as u64 + 1), "cut {cut}: {e}");
                    assert!(e.what.contains("truncated"), "{e}");
                    assert!(e.offset.is_some_and(|o| o < cut as u64));
                }
                more => panic!("cut {cut}: {more:?}"),
            }
        }
    }
}

#[test]
fn records_larger_than_the_buffer_and_absurd_lengths() {
    let big = vec![0x5au8; 3 << 20];
    let mut w = PcapWriter::new(Vec::new(), linktype::ETHERNET, TsResolution::Micro).unwrap();
    w.write(Timestamp::new(1, 0), &big).unwrap();
    w.write(Timestamp::new(2, 0), &[1, 2, 3]).unwrap();
    let (frames, errors) = read_all(w.into_inner());
    assert!(errors.is_empty());
    assert_eq!(frames.len(), 2);
    assert_eq!(frames[0].data.len(), big.len());

    let mut bytes = pcap_bytes(TsResolution::Micro, false);
    // The second record's captured length becomes 0xfffffff0.
    let second = 24 + 16 + 60;
    bytes[second + 8..second + 12].copy_from_slice(&0xffff_fff0u32.to_le_bytes());
    let (frames, errors) = read_all(bytes.clone());
    assert_eq!(frames.len(), 1);
    assert!(
        errors[0].fatal && errors[0].what.contains("corrupt"),
        "{errors:?}"
    );
    assert_eq!(errors[0].offset, Some(second as u64));

    // The commands say it once, as the reason they stopped, after the frame before it.
    let file = std::env::temp_dir().join(format!("poolshark-absurd-{}.pcap", std::process::id()));
    std::fs::write(&file, &bytes).unwrap();
    for cmd in ["read", "check", "stats"] {
        let out = crate::common::poolshark()
            .arg(cmd)
            .arg(&file)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        let told: Vec<&str> = stderr.lines().filter(|l| l.contains("corrupt")).collect();
        assert_eq!(told.len(), 1, "{cmd}: {stderr}");
        assert!(
            told[0].starts_with("poolshark: stopped reading ")
                && told[0].contains(": frame 2 (file byte 100): "),
            "{cmd}: {}",
            told[0]
        );
        assert_eq!(out.status.code(), Some(2), "{cmd}");
    }
    std::fs::remove_file(&file).ok();
}

#[test]
fn malformed_pcapng_blocks_are_skipped_with_an_error() {
    let mut w = PcapNgWriter::new(Vec::new()).unwrap();
    let i = w
        .add_interface(&IfOptions::new(linktype::ETHERNET))
        .unwrap();
    w.write_packet(i, Timestamp::new(5, 0), &[1; 16], 16)
        .unwrap();
    let bad_at = w.into_inner().len();
    let mut w = PcapNgWriter::new(Vec::new()).unwrap();
    let i = w
        .add_interface(&IfOptions::new(linktype::ETHERNET))
        .unwrap();
    w.write_packet(i, Timestamp::new(5, 0), &[1; 16], 16)
        .unwrap();
    w.write_packet(i, Timestamp::new(6, 0), &[2; 16], 16)
        .unwrap();
    w.write_packet(7, Timestamp::new(7, 0), &[3; 16], 16)
        .unwrap_err();
    w.write_packet(i, Timestamp::new(8, 0), &[4; 16], 16)
        .unwrap();
    let good = w.into_inner();
    // The second EPB claims 200 captured bytes in a block that holds 16.
    let mut bytes = good.clone();
    bytes[bad_at + 20..bad_at + 24].copy_from_slice(&200u32.to_le_bytes());
    let (frames, errors) = read_all(bytes);
    assert_eq!(
        frames.iter().map(|f| f.data[0]).collect::<Vec<_>>(),
        vec![1, 4]
    );
    // The block skipped keeps its number: the last frame is the file's third, as it was.
    assert_eq!(frames.iter().map(|f| f.number).collect::<Vec<_>>(), [1, 3]);
    assert_eq!(errors.len(), 1);
    assert!(!errors[0].fatal);
    assert_eq!(errors[0].offset, Some(bad_at as u64));
    assert_eq!(errors[0].frame, Some(2));
    assert_eq!(
        errors[0].what,
        "enhanced packet block of 48 bytes holds at most 16 bytes of packet data, but its captured length is 200: skipped"
    );

    // The second EPB's trailing length differs from its leading one: the block is skipped by
    // the leading one (the next block is found there).
    let mut bytes = good.clone();
    let end = bad_at + 48;
    bytes[end - 4..end].copy_from_slice(&52u32.to_le_bytes());
    let (frames, errors) = read_all(bytes);
    assert_eq!(frames.iter().map(|f| f.number).collect::<Vec<_>>(), [1, 3]);
    assert_eq!(
        errors.iter().map(|e| e.what.as_str()).collect::<Vec<_>>(),
        ["pcapng block lengths differ (first 48, second 52): skipped"]
    );

    // An EPB too short for its fixed fields (a 20-byte block of type 6).
    let mut bytes = good;
    bytes[bad_at + 4..bad_at + 8].copy_from_slice(&20u32.to_le_bytes());
    bytes[bad_at + 16..bad_at + 20].copy_from_slice(&20u32.to_le_bytes());
    let (_, errors) = read_all(bytes);
    assert_eq!(
        errors.first().map(|e| (e.frame, e.what.as_str())),
        Some((
            Some(2),
            "enhanced packet block of 20 bytes is shorter than its 32-byte minimum: skipped"
        ))
    );
}
