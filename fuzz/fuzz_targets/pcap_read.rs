//! FileSource over arbitrary bytes: pcap, pcapng, gzip. Every frame is read to its end; a
//! non-fatal error is followed by more reading, a fatal one ends the file.
#![no_main]

use std::io::Cursor;

use libfuzzer_sys::fuzz_target;
use poolshark::source::file::FileSource;
use poolshark::source::FrameSource;

fuzz_target!(|data: &[u8]| {
    let Ok(mut src) = FileSource::from_reader(Cursor::new(data.to_vec())) else {
        return;
    };
    let mut sum = 0u64;
    loop {
        match src.next_frame() {
            Ok(Some(f)) => {
                // The frame borrows the reader's buffer: touch every byte.
                sum = f
                    .data
                    .iter()
                    .fold(sum, |s, &b| s.wrapping_add(u64::from(b)));
                assert!(f.number > 0);
            }
            Ok(None) => break,
            Err(e) if e.fatal => break,
            Err(_) => {}
        }
    }
    std::hint::black_box(sum);
    std::hint::black_box(src.interfaces().len());
});
