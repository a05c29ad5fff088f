//! `check` with threads to spare against `check` on one pipeline, over bytes taken as a capture
//! file: the file dissected once and each part's payloads decoded on a thread of its own
//! (`poolshark::handoff`, the RSerPool part and the DHCP and failover part) must give each part
//! exactly the messages of its protocols one pipeline gives, in the same order, with the same
//! errors, and the same statistics. A difference is a crash. (Default bounds: under bounds small
//! enough to evict conversations, the parts' dispatchers, holding fewer conversations each, may
//! evict less than the one pipeline's, by design.)
#![no_main]

use std::io::Cursor;

use libfuzzer_sys::fuzz_target;
use poolshark::handoff::{self, Part};
use poolshark::pipeline::{Decoded, NullSink, Options, Pipeline, RunStats, Sink};
use poolshark::proto::AppProtocol;
use poolshark::source::file::FileSource;

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

fuzz_target!(|data: &[u8]| {
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
    let (split, _) = handoff::run(&mut source, &Options::default(), &mut NullSink, parts);

    let (want_a, want_b): (Vec<_>, Vec<_>) = whole
        .0
        .into_iter()
        .partition(|(p, _)| rserpool.contains(p));
    assert_eq!(a.0, want_a, "the RSerPool part");
    assert_eq!(b.0, want_b, "the DHCP and failover part");
    assert_eq!(counts(&split), counts(&one), "the statistics");
});
