//! What a one-line-per-frame listing needs, and the counters of bounded-state events.

use std::fmt;
use std::net::IpAddr;

use crate::error::DecodeError;
use crate::field::mac;

/// A frame's source or destination: its IP address, else its MAC address.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Address {
    Ip(IpAddr),
    Mac([u8; 6]),
}

impl fmt::Display for Address {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Address::Ip(a) => write!(f, "{a}"),
            Address::Mac(m) => f.write_str(&mac(m)),
        }
    }
}

/// The lower layers of one frame, as tshark's one-line listing shows them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FrameSummary {
    pub src: Option<Address>,
    pub dst: Option<Address>,
    /// Transport ports, when the frame has them.
    pub src_port: Option<u16>,
    pub dst_port: Option<u16>,
    /// The deepest protocol decoded: "SCTP", "UDP", "TCP", "IPv4", "IPv6", "ARP", "ICMPv6", ...
    pub protocol: &'static str,
    /// What tshark's Info column says for the lower layers, e.g. `SACK (Ack=1, Arwnd=655262)` or
    /// `36235 → 647 [SYN] Seq=0 Win=64240 Len=0`.
    pub info: String,
    /// Every decode error of the lower layers, offsets in the frame.
    pub errors: Vec<DecodeError>,
    /// Application payloads handed to the callback for this frame.
    pub payloads: usize,
}

/// Events of the bounded state, counted over the whole capture.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    pub frames: u64,
    /// Frames with at least one decode error in the lower layers.
    pub frames_with_errors: u64,
    pub ip_fragments: u64,
    pub ip_datagrams_reassembled: u64,
    /// Incomplete IP datagrams dropped: timed out, or pushed out by the bounds.
    pub ip_datagrams_evicted: u64,
    /// Fragments not kept (beyond 64 KiB, larger than the whole bound, inconsistent).
    pub ip_fragments_dropped: u64,
    /// Fragments that overlapped bytes already received (the first copy is kept).
    pub ip_fragment_overlaps: u64,
    pub tcp_segments: u64,
    /// Bytes given up for lost when the out-of-order bound was hit or a connection ended.
    pub tcp_bytes_skipped: u64,
    /// Segments wholly retransmitted (already delivered bytes), dropped.
    pub tcp_retransmissions: u64,
    /// Out-of-order TCP bytes held when the counters were taken, waiting for the bytes missing
    /// before them: at the end of a run, bytes never decoded.
    pub tcp_bytes_held: u64,
    pub tcp_connections_evicted: u64,
    pub sctp_packets: u64,
    pub sctp_bad_checksums: u64,
    pub sctp_messages_reassembled: u64,
    /// Incomplete SCTP messages dropped by the bounds, or when their association was evicted.
    pub sctp_messages_evicted: u64,
    /// DATA / I-DATA chunks whose TSN had been seen before.
    pub sctp_duplicate_chunks: u64,
    pub sctp_associations_evicted: u64,
}
