//! Bad input never panics: the first frames of real captures cut at every byte (each cut before
//! the end of the IP datagram must give a decode error), and randomly damaged frames and capture
//! files (a fixed-seed generator, so failures reproduce).

use crate::common::{self, Rng};

use std::io::Cursor;

use poolshark::base::{linktype, Timestamp};
use poolshark::dissect::{Dissector, Limits};
use poolshark::generate::{IfOptions, Ip, Packet, PcapNgWriter, PcapWriter, TsResolution};
use poolshark::source::file::FileSource;
use poolshark::source::{Frame, FrameSource};
use poolshark::wire::sctp::build::{split_data, Chunk, DataFlags};

fn frames_of(path: &std::path::Path, n: usize) -> Vec<(u32, Vec<u8>)> {
    let mut src = FileSource::open(path).unwrap();
    let mut out = Vec::new();
    while let Some(f) = src.next_frame().unwrap() {
        out.push((f.linktype, f.data.to_vec()));
        if out.len() == n {
            break;
        }
    }
    out
}

/// Where the IP datagram of an untagged Ethernet frame ends, read straight from its bytes.
fn ip_end(frame: &[u8]) -> Option<usize> {
    let be16 = |i: usize| {
        Some(usize::from(u16::from_be_bytes([
            *frame.get(i)?,
            *frame.get(i + 1)?,
        ])))
    };
    match be16(12)? {
        0x0800 => Some(14 + be16(16)?),
        0x86dd => Some(14 + 40 + be16(18)?),
        _ => None,
    }
}

#[test]
fn real_frames_cut_at_every_byte_give_errors_not_panics() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    let mut cuts = 0;
    for rel in [
        "rserpool/rsplib-rfc-scenario.pcap",
        "rserpool/asap-enrp-coverage.pcap",
        "dhcp-failover/isc-dhcpd-4.4.3-failover.pcap",
        "dhcp-kea/kea-2.2-ha-load-balancing-v6.pcap",
        "dhcp/zeek_dhcp.pcap",
    ] {
        let path = shared.join("captures").join(rel);
        let mut d = Dissector::new(Limits::default());
        for (n, (lt, data)) in frames_of(&path, 40).into_iter().enumerate() {
            let end = ip_end(&data);
            for k in 0..=data.len() {
                let f = Frame {
                    number: n as u64 + 1,
                    ts: Timestamp::new(n as i64, 0),
                    ts_digits: 6,
                    linktype: lt,
                    orig_len: data.len() as u32,
                    interface: 0,
                    data: &data[..k],
                    pcapng: None,
                };
                let s = d.dissect(&f, &mut |p| {
                    assert!(p.data.len() <= k);
                });
                if end.is_some_and(|e| k < e) {
                    assert!(
                        !s.errors.is_empty(),
                        "{rel} frame {} cut at {k} of {}: no error",
                        n + 1,
                        data.len()
                    );
                    assert!(s.errors.iter().all(|e| e.offset <= data.len()));
                }
                cuts += 1;
            }
        }
    }
    assert!(cuts > 30_000, "{cuts}");
}

fn seed_frames() -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut buf = Vec::new();
    let msg = [0x42u8; 300];
    let a = "192.0.2.1".parse().unwrap();
    let b = "192.0.2.2".parse().unwrap();
    for chunks in [
        split_data(&msg, 100, 1, 0, 0, 11, false),
        vec![Chunk::Data {
            tsn: 9,
            stream: 1,
            ssn: 0,
            ppid: 12,
            flags: DataFlags::WHOLE,
            data: &msg,
        }],
    ] {
        out.push(
            Packet::sctp(Ip::v4(a, b), 1, 2, 3, chunks.clone())
                .frame(&mut buf)
                .to_vec(),
        );
        let v6 = Ip::v6("::1".parse().unwrap(), "::2".parse().unwrap());
        out.push(Packet::sctp(v6, 1, 2, 3, chunks).frame(&mut buf).to_vec());
    }
    out.push(
        Packet::udp(Ip::v4(a, b), 68, 67, &msg)
            .frame(&mut buf)
            .to_vec(),
    );
    let tcp = poolshark::wire::tcp::TcpHeader::new(1, 647, 5, 5, 0x18);
    out.push(
        Packet::tcp(Ip::v4(a, b), tcp, &msg)
            .frame(&mut buf)
            .to_vec(),
    );
    out
}

#[test]
fn randomly_damaged_frames_never_panic() {
    let mut seeds = seed_frames();
    if let Some(shared) = common::shared_dir() {
        for rel in [
            "rserpool/rsplib-multi-pe.pcap",
            "dhcp-kea/kea-2.2-ha-load-balancing-v6.pcap",
        ] {
            seeds.extend(
                frames_of(&shared.join("captures").join(rel), 30)
                    .into_iter()
                    .map(|f| f.1),
            );
        }
    }
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let small = Limits {
        ip_fragment_bytes: 4096,
        ip_fragment_datagrams: 4,
        sctp_reassembly_bytes: 2048,
        sctp_message_bytes: 1024,
        tcp_reassembly_bytes: 2048,
        conversations: 8,
        ip_fragment_timeout_secs: 5,
        tcp_hole_timeout_secs: 1,
        framer_bytes: 4096,
    };
    // Every link type the dissector takes (the `dissect` fuzz target's).
    let linktypes = poolshark::fuzzing::LINKTYPES;
    let mut d = Dissector::new(small);
    let mut payloads = 0usize;
    for i in 0..40_000u64 {
        let mut f = seeds[rng.below(seeds.len())].clone();
        // A few damages: flipped bytes, bytes set to 0 / 0xff (lengths), a cut.
        for _ in 0..=rng.below(6) {
            if f.is_empty() {
                break;
            }
            let at = rng.below(f.len());
            f[at] = match rng.below(3) {
                0 => f[at] ^ (1 << rng.below(8)),
                1 => 0,
                _ => 0xff,
            };
        }
        if rng.below(4) == 0 {
            f.truncate(rng.below(f.len() + 1));
        }
        let lt = if rng.below(8) == 0 {
            linktypes[rng.below(linktypes.len())]
        } else {
            linktype::ETHERNET
        };
        let frame = Frame {
            number: i + 1,
            ts: Timestamp::new((i / 100) as i64, 0),
            ts_digits: 6,
            linktype: lt,
            orig_len: f.len() as u32,
            interface: 0,
            data: &f,
            pcapng: None,
        };
        d.dissect(&frame, &mut |p| {
            payloads += 1;
            assert!(p.data.len() <= 1 << 20);
        });
    }
    assert!(payloads > 1000, "{payloads}");
}

#[test]
fn randomly_damaged_capture_files_never_panic_or_hang() {
    let mut buf = Vec::new();
    let frame = Packet::udp(
        Ip::v4("10.0.0.1".parse().unwrap(), "10.0.0.2".parse().unwrap()),
        1,
        2,
        b"payload",
    )
    .frame(&mut buf)
    .to_vec();
    let mut w = PcapNgWriter::new(Vec::new()).unwrap();
    let i = w
        .add_interface(&IfOptions::new(linktype::ETHERNET).tsresol(9))
        .unwrap();
    let j = w.add_interface(&IfOptions::new(linktype::RAW)).unwrap();
    for k in 0..5 {
        w.write(i, Timestamp::new(k, 0), &frame).unwrap();
        w.write(j, Timestamp::new(k, 0), &frame[14..]).unwrap();
    }
    w.write_simple_packet(&frame, 60).unwrap();
    let ng = w.into_inner();
    let mut p = PcapWriter::new(Vec::new(), 1, TsResolution::Micro).unwrap();
    for k in 0..5 {
        p.write(Timestamp::new(k, 0), &frame).unwrap();
    }
    let legacy = p.into_inner();
    let mut rng = Rng(12345);
    for n in 0..3000 {
        let mut bytes = if n % 2 == 0 {
            ng.clone()
        } else {
            legacy.clone()
        };
        for _ in 0..=rng.below(4) {
            let at = rng.below(bytes.len());
            bytes[at] = rng.next() as u8;
        }
        let Ok(mut src) = FileSource::from_reader(Cursor::new(bytes)) else {
            continue;
        };
        let mut steps = 0;
        loop {
            steps += 1;
            assert!(steps < 1000, "the reader does not come to an end");
            match src.next_frame() {
                Ok(Some(_)) => {}
                Ok(None) => break,
                Err(e) if e.fatal => break,
                Err(_) => {}
            }
        }
    }
}

/// A real capture cut at every byte of its first frames: the frames before the cut come out
/// whole, the cut record is one non-fatal error, and dissecting what was read never panics.
#[test]
fn real_capture_file_cut_at_every_byte() {
    let Some(path) = common::shared_capture("rserpool/rsplib-rfc-scenario.pcap") else {
        return;
    };
    let bytes = std::fs::read(path).unwrap();
    let whole = {
        let mut src = FileSource::from_reader(Cursor::new(bytes.clone())).unwrap();
        let mut v = Vec::new();
        while let Some(f) = src.next_frame().unwrap() {
            v.push(f.data.to_vec());
            if v.len() == 12 {
                break;
            }
        }
        v
    };
    let limit = 24 + whole.iter().map(|f| 16 + f.len()).sum::<usize>();
    for cut in 24..=limit {
        let mut src = FileSource::from_reader(Cursor::new(bytes[..cut].to_vec())).unwrap();
        let mut d = Dissector::new(Limits::default());
        let mut n = 0;
        let mut errors = 0;
        loop {
            match src.next_frame() {
                Ok(Some(f)) => {
                    assert_eq!(f.data, whole[n].as_slice(), "cut {cut}");
                    n += 1;
                    d.dissect(&f, &mut |_| {});
                }
                Ok(None) => break,
                Err(e) => {
                    assert!(!e.fatal && e.frame == Some(n as u64 + 1), "cut {cut}: {e}");
                    errors += 1;
                }
            }
        }
        let at_boundary = (0..=whole.len())
            .any(|k| 24 + whole[..k].iter().map(|f| 16 + f.len()).sum::<usize>() == cut);
        assert_eq!(errors, usize::from(!at_boundary), "cut {cut}");
    }
}
