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

/// The longest Info column tshark writes (Wireshark's `COL_MAX_INFO_LEN`, 4096 bytes with the
/// terminating NUL): an SCTP packet of ten thousand chunks names the first few hundred.
pub const MAX_INFO: usize = 4095;

/// Cuts `info` to [`MAX_INFO`] bytes (at a character boundary), as tshark cuts its Info column.
pub fn cap_info(info: &mut String) {
    if info.len() > MAX_INFO {
        let mut end = MAX_INFO;
        while !info.is_char_boundary(end) {
            end -= 1;
        }
        info.truncate(end);
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
    /// The IP layers that carried a tunnel, outermost first (empty for a frame without one);
    /// `src` and `dst` are then the innermost packet's, as tshark's columns show.
    pub outer: OuterLayers,
}

/// The outer layers of a tunnelled frame. One word (a `Vec` would grow every summary past the
/// 128 bytes that are moved without a call to `memcpy`: a tenth more instructions to dissect an
/// untunnelled frame), allocated only for a tunnelled frame.
#[derive(Clone, Debug, Default, PartialEq)]
// A boxed Vec on purpose: a thin pointer, where a Vec or a boxed slice takes two or three words.
#[allow(clippy::box_collection)]
pub struct OuterLayers(Option<Box<Vec<OuterLayer>>>);

impl OuterLayers {
    pub fn push(&mut self, layer: OuterLayer) {
        self.0.get_or_insert_with(Default::default).push(layer);
    }

    pub fn as_slice(&self) -> &[OuterLayer] {
        self.0.as_deref().map_or(&[], Vec::as_slice)
    }

    pub fn iter(&self) -> std::slice::Iter<'_, OuterLayer> {
        self.as_slice().iter()
    }

    pub fn len(&self) -> usize {
        self.as_slice().len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_none()
    }
}

impl Drop for OuterLayers {
    /// A test of one word inline (every frame's summary is dropped), the freeing out of line:
    /// the summaries' drop otherwise grew past what the compiler inlines.
    #[inline(always)]
    fn drop(&mut self) {
        #[cold]
        #[inline(never)]
        #[allow(clippy::box_collection)]
        fn free(v: Box<Vec<OuterLayer>>) {
            drop(v);
        }
        if let Some(v) = self.0.take() {
            free(v);
        }
    }
}

/// An IP header that carried a tunnel (IP in IP, GRE, VXLAN, Geneve), with the UDP ports of a
/// VXLAN or Geneve datagram.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OuterLayer {
    pub src: IpAddr,
    pub dst: IpAddr,
    pub udp: Option<(u16, u16)>,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn info_is_cut_as_tshark_cuts_its_column() {
        let mut short = "ABORT ".repeat(10);
        cap_info(&mut short);
        assert_eq!(short.len(), 60);
        let mut long = "ABORT ".repeat(1000);
        cap_info(&mut long);
        assert_eq!(long.len(), MAX_INFO);
        assert!(long.ends_with("ABORT ABO"), "{}", &long[4080..]);
        // Never inside a character: the arrow takes three bytes.
        let mut arrows = format!("{}→→", "x".repeat(MAX_INFO - 4));
        cap_info(&mut arrows);
        assert_eq!(arrows.len(), MAX_INFO - 1);
        assert!(arrows.ends_with('→'));
    }
}
