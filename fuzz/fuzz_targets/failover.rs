//! ISC DHCP failover: one message through the parser, the display tree and the emitter, then the
//! whole input as a TCP stream through the Framer, cut where the first byte says.
#![no_main]

use libfuzzer_sys::fuzz_target;
use poolshark::proto::failover::{self, Framer};

fuzz_target!(|data: &[u8]| {
    let Some((&cut, stream)) = data.split_first() else {
        return;
    };
    let (m, errors) = failover::parse(stream);
    for e in &errors {
        assert!(
            e.offset <= stream.len(),
            "error offset {} past the end",
            e.offset
        );
    }
    std::hint::black_box(m.fields());
    std::hint::black_box(m.info());
    if errors.is_empty() {
        assert_eq!(m.emit().ok().as_deref(), Some(stream), "round trip");
    }

    // The stream in pieces of `cut + 1` bytes: every byte is framed, dropped or still held.
    let mut f = Framer::new();
    let mut framed = 0u64;
    for piece in stream.chunks(usize::from(cut) + 1) {
        for r in f.feed(piece) {
            if let Ok(msg) = r {
                assert!(msg.bytes.len() >= failover::HEADER_LEN);
                assert!(msg.bytes.len() <= usize::from(failover::ISC_MAX_MESSAGE_LEN));
                framed += msg.bytes.len() as u64;
                std::hint::black_box(failover::parse(&msg.bytes));
            }
        }
        assert!(f.pending() <= usize::from(failover::ISC_MAX_MESSAGE_LEN) + piece.len());
    }
    assert_eq!(
        framed + f.dropped() + f.pending() as u64,
        stream.len() as u64
    );
});
