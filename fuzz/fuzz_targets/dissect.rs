//! The Dissector over several frames of any link type, so that IP fragment, TCP stream and SCTP
//! message reassembly keep state between them. Every payload handed on must respect the bounds.
//! Each frame's lower layers are decoded into trees too (`read -Y`/`-e`/`-V`'s decoder), whose
//! fields must lie within the frame.
#![no_main]

use libfuzzer_sys::fuzz_target;
use poolshark::dissect::ipfrag::MAX_DATAGRAM_PAYLOAD;
use poolshark::dissect::{Dissector, Limits};
use poolshark::source::{Frame, Timestamp};
use poolshark_fuzz::{records, tight_limits};

fuzz_target!(|data: &[u8]| {
    let (tight, frames) = records(data);
    let limits = if tight {
        tight_limits()
    } else {
        Limits::default()
    };
    let mut d = Dissector::new(limits);
    let mut ts = Timestamp::new(1_700_000_000, 0);
    for (i, r) in frames.iter().enumerate() {
        ts.secs += i64::from(r.dt);
        let frame = Frame {
            number: i as u64 + 1,
            ts,
            ts_digits: 6,
            linktype: r.linktype,
            orig_len: r.data.len() as u32,
            interface: 0,
            data: r.data,
            pcapng: None,
        };
        let summary = d.dissect(&frame, &mut |p| {
            if p.frame_offset.is_none() {
                // Reassembled: bounded by the limits, never by the input.
                assert!(
                    p.data.len() <= limits.sctp_message_bytes.max(MAX_DATAGRAM_PAYLOAD),
                    "reassembled payload of {} bytes",
                    p.data.len()
                );
            }
            if let Some(o) = p.frame_offset {
                assert!(
                    o + p.data.len() <= r.data.len(),
                    "payload outside its frame"
                );
            }
            std::hint::black_box(p.data.iter().map(|&b| u64::from(b)).sum::<u64>());
        });
        for e in &summary.errors {
            assert!(!e.what.is_empty());
        }
        let layers = poolshark::dissect::layers::decode(r.linktype, r.data);
        // What filters and columns decode is the same walk, without the labels.
        let values = poolshark::dissect::layers::decode_values(r.linktype, r.data);
        assert_eq!(values.protocols, layers.protocols);
        assert_eq!(values.trees.len(), layers.trees.len());
        for t in &layers.trees {
            t.walk(&mut |f| {
                assert!(
                    f.offset <= r.data.len(),
                    "{} at byte {} of a {}-byte frame",
                    f.name,
                    f.offset,
                    r.data.len()
                );
            });
        }
        std::hint::black_box(&summary.info);
    }
    std::hint::black_box(d.counters());
});
