//! What fuzzing found, kept as tests at the depth where it was fixed.
//!
//! * A record header claiming tens of megabytes in a file of a few bytes made the reader allocate
//!   (and zero) the whole claimed length before finding the file's end: 60 MB of memory and most
//!   of a second for a 60-byte file, and the `pcap_read` and `pipeline` targets ran at a few dozen
//!   inputs per second. The buffer now grows by doubling as the bytes arrive.
//!
//! The saved inputs themselves (`fixtures/fuzz/TARGET/`) run through their targets in
//! `fuzz_inputs.rs`; the first, a message whose length leaves its last parameter's padding out
//! (SCTP's convention) and which came back from the emitter with the padding counted, also has a
//! unit test beside the RSerPool parser.

use std::io::Cursor;

use poolshark::base::{linktype, Timestamp};
use poolshark::generate::{PcapWriter, TsResolution};
use poolshark::source::file::{FileSource, INITIAL_BUFFER};
use poolshark::source::FrameSource;

/// Reads `bytes` to the end: (frames, errors, the reader's buffer size at the end).
fn read_all(bytes: Vec<u8>) -> (Vec<usize>, Vec<String>, usize) {
    let mut src = FileSource::from_reader(Cursor::new(bytes)).unwrap();
    let (mut frames, mut errors) = (Vec::new(), Vec::new());
    loop {
        match src.next_frame() {
            Ok(Some(f)) => frames.push(f.data.len()),
            Ok(None) => break,
            Err(e) => {
                errors.push(e.what.clone());
                if e.fatal {
                    break;
                }
            }
        }
    }
    (frames, errors, src.buffer_capacity())
}

#[test]
fn a_record_claiming_60_mb_in_a_short_pcap_costs_no_60_mb() {
    let mut f = Vec::new();
    // pcap header: magic, version 2.4, zone, sigfigs, snaplen, Ethernet.
    f.extend_from_slice(&0xa1b2_c3d4u32.to_le_bytes());
    f.extend_from_slice(&2u16.to_le_bytes());
    f.extend_from_slice(&4u16.to_le_bytes());
    for w in [0u32, 0, 65535, 1] {
        f.extend_from_slice(&w.to_le_bytes());
    }
    // A record header claiming 60,000,000 captured bytes, then 20 bytes.
    for w in [0u32, 0, 60_000_000, 60_000_000] {
        f.extend_from_slice(&w.to_le_bytes());
    }
    f.extend_from_slice(&[0x55; 20]);
    let (frames, errors, capacity) = read_all(f);
    assert!(frames.is_empty());
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(errors[0].contains("truncated"), "{errors:?}");
    assert!(
        capacity <= 2 * INITIAL_BUFFER,
        "the buffer grew to {capacity} bytes for a 60-byte file"
    );
}

#[test]
fn a_pcapng_block_claiming_60_mb_in_a_short_file_costs_no_60_mb() {
    let mut f = Vec::new();
    // Section header block (28 bytes), then an enhanced packet block claiming 60,000,000 bytes.
    for w in [0x0a0d_0d0au32, 28, 0x1a2b_3c4d] {
        f.extend_from_slice(&w.to_le_bytes());
    }
    f.extend_from_slice(&1u16.to_le_bytes());
    f.extend_from_slice(&0u16.to_le_bytes());
    f.extend_from_slice(&u64::MAX.to_le_bytes());
    f.extend_from_slice(&28u32.to_le_bytes());
    for w in [6u32, 60_000_000, 0, 0, 0] {
        f.extend_from_slice(&w.to_le_bytes());
    }
    let (frames, errors, capacity) = read_all(f);
    assert!(frames.is_empty());
    assert!(errors.iter().any(|e| e.contains("truncated")), "{errors:?}");
    assert!(capacity <= 2 * INITIAL_BUFFER, "{capacity}");
}

#[test]
fn records_larger_than_the_first_buffer_are_still_read_whole() {
    // Frames of 1 MiB and 3 MiB: the buffer doubles until each fits.
    let mut w = PcapWriter::new(Vec::new(), linktype::ETHERNET, TsResolution::Micro).unwrap();
    for len in [100usize, 1 << 20, 3 << 20, 100] {
        w.write(Timestamp::new(1, 0), &vec![0x5a; len]).unwrap();
    }
    w.flush().unwrap();
    let (frames, errors, capacity) = read_all(w.into_inner());
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(frames, [100, 1 << 20, 3 << 20, 100]);
    assert!((3 << 20..=2 * ((3 << 20) + 16 + 8)).contains(&capacity));
}
