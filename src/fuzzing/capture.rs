//! The capture targets: bytes as a capture file, or as frames of any link type.

use std::io::Cursor;

use crate::base::Timestamp;
use crate::dissect::ipfrag::MAX_DATAGRAM_PAYLOAD;
use crate::dissect::{layers, Dissector, Limits};
use crate::handoff::{self as split, Part};
use crate::pipeline::{Decoded, NullSink, Options, Pipeline, RunStats, Sink};
use crate::proto::AppProtocol;
use crate::source::file::FileSource;
use crate::source::{Frame, FrameSource};
use crate::wire::tunnel::{TunnelPorts, UdpTunnel};

use super::{records, tight_limits};

/// The capture reader over any bytes (pcap, pcapng, gzip): every frame is read to its end; a
/// non-fatal error is followed by more reading, a fatal one ends the file.
pub fn pcap_read(data: &[u8]) {
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
}

/// The [`Dissector`] over several frames of any link type ([`records`]), so that IP fragment, TCP
/// stream and SCTP message reassembly keep state between them. Every payload handed on must
/// respect the bounds. Each frame's lower layers are decoded into trees too (`read
/// -Y`/`-e`/`-V`'s decoder), whose fields must lie within the frame.
pub fn dissect(data: &[u8]) {
    let (tight, frames) = records(data);
    let limits = if tight {
        tight_limits()
    } else {
        Limits::default()
    };
    // The default tunnel ports and one a decode-as rule adds (Linux's VXLAN port).
    let mut tunnels = TunnelPorts::default();
    tunnels.set(8472, UdpTunnel::Vxlan);
    let mut d = Dissector::new(limits).with_tunnels(tunnels.clone());
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
        let tree = layers::decode(r.linktype, r.data, &tunnels);
        // What filters and columns decode is the same walk, without the labels.
        let values = layers::decode_values(r.linktype, r.data, &tunnels);
        assert_eq!(values.protocols, tree.protocols);
        assert_eq!(values.trees.len(), tree.trees.len());
        for t in &tree.trees {
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
}

/// Every message, as (protocol, frame, offset in the frame, length, errors, the message).
#[derive(Default)]
struct Recorded(Vec<(AppProtocol, String)>);

impl Sink for Recorded {
    fn message(&mut self, d: &Decoded<'_>) {
        self.0.push((
            d.protocol,
            format!(
                "{} {:?} {} {:?} {:?}",
                d.frame.number, d.frame_offset, d.len, d.errors, d.message
            ),
        ));
    }
}

fn counts(s: &RunStats) -> String {
    format!(
        "{} | {:?} {:?} {:?} {:?} {}",
        s.summary_line(),
        s.first,
        s.last,
        s.dissect,
        s.dispatch,
        s.frames_with_stream_errors_only
    )
}

/// `check` with threads to spare against `check` on one pipeline, over bytes taken as a capture
/// file: the file dissected once and each part's payloads decoded on a thread of its own
/// ([`crate::handoff`], the RSerPool part and the DHCP and failover part) must give each part
/// exactly the messages of its protocols one pipeline gives, in the same order, with the same
/// errors, and the same statistics. (Default bounds: under bounds small enough to evict
/// conversations, the parts' dispatchers, holding fewer conversations each, may evict less than
/// the one pipeline's, by design.)
pub fn handoff(data: &[u8]) {
    let open = || FileSource::from_reader(Cursor::new(data.to_vec()));
    let Ok(mut source) = open() else {
        return;
    };
    let mut whole = Recorded::default();
    let mut pipeline = Pipeline::new(Options::default());
    let _ = pipeline.run(&mut source, &mut whole);
    let one = pipeline.stats();

    let Ok(mut source) = open() else {
        panic!("the same bytes opened once and not twice");
    };
    let rserpool = vec![AppProtocol::Asap, AppProtocol::Enrp];
    let dhcp = vec![
        AppProtocol::Dhcpv4,
        AppProtocol::Dhcpv6,
        AppProtocol::Failover,
    ];
    let (mut a, mut b) = (Recorded::default(), Recorded::default());
    let parts = vec![
        Part {
            protocols: rserpool.clone(),
            sink: &mut a,
        },
        Part {
            protocols: dhcp,
            sink: &mut b,
        },
    ];
    let (stats, _) = split::run(&mut source, &Options::default(), &mut NullSink, parts);

    let (want_a, want_b): (Vec<_>, Vec<_>) =
        whole.0.into_iter().partition(|(p, _)| rserpool.contains(p));
    assert_eq!(a.0, want_a, "the RSerPool part");
    assert_eq!(b.0, want_b, "the DHCP and failover part");
    assert_eq!(counts(&stats), counts(&one), "the statistics");
}
