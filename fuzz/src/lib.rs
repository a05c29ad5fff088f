//! What the fuzz targets share: the frame-list input of the `dissect` target, and the small
//! bounds some runs use so that eviction paths are reached by small inputs.

use poolshark::dissect::Limits;
use poolshark::source::linktype;

/// The link types a `dissect` record can name (its first byte, modulo the count).
pub const LINKTYPES: [u32; 8] = [
    linktype::ETHERNET,
    linktype::RAW,
    linktype::LINUX_SLL,
    linktype::LINUX_SLL2,
    linktype::NULL,
    linktype::LOOP,
    linktype::IPV4,
    linktype::IPV6,
];

/// One frame of a `dissect` input.
pub struct Record<'a> {
    pub linktype: u32,
    /// Seconds since the previous frame.
    pub dt: u8,
    pub data: &'a [u8],
}

/// Splits a `dissect` input: a mode byte (odd: the small [`tight_limits`]), then records
/// `link u8 | dt u8 | len u16 (big endian) | len bytes`. A last record shorter than its length
/// keeps what is there. `examples/fuzz_seeds.rs` of the main crate writes this format.
pub fn records(data: &[u8]) -> (bool, Vec<Record<'_>>) {
    let Some((&mode, mut rest)) = data.split_first() else {
        return (false, Vec::new());
    };
    let mut out = Vec::new();
    while let [link, dt, hi, lo, tail @ ..] = rest {
        let len = usize::from(u16::from_be_bytes([*hi, *lo])).min(tail.len());
        let (frame, next) = tail.split_at(len);
        out.push(Record {
            linktype: LINKTYPES[usize::from(*link) % LINKTYPES.len()],
            dt: *dt,
            data: frame,
        });
        rest = next;
    }
    (mode & 1 == 1, out)
}

/// Bounds small enough for a fuzz input of a few frames to reach every eviction.
pub fn tight_limits() -> Limits {
    Limits {
        ip_fragment_bytes: 3000,
        ip_fragment_datagrams: 3,
        sctp_reassembly_bytes: 3000,
        sctp_message_bytes: 2000,
        tcp_reassembly_bytes: 3000,
        conversations: 3,
        ip_fragment_timeout_secs: 30,
        tcp_hole_timeout_secs: 3,
        framer_bytes: 3000,
    }
}
