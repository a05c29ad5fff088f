//! The bodies of the cargo-fuzz targets (`fuzz/fuzz_targets/`), one function per target: each
//! takes the fuzzer's bytes and panics where an invariant breaks. They live in the crate, not in
//! the fuzz crate, so that `cargo test` runs the saved regression inputs (`fixtures/fuzz/TARGET/`),
//! the seed corpus ([`seeds`]) and mutants of it through exactly the code libFuzzer runs
//! (`tests/it/fuzz_inputs.rs`), without cargo-fuzz or an instrumented build; `fuzz/` only hands
//! libFuzzer's bytes to [`TARGETS`]. FUZZING.md says what each target checks.

mod capture;
#[cfg(feature = "fuzz-oracle")]
mod differential;
mod filter;
mod messages;
mod pipeline;
pub mod seeds;
mod sequences;

pub use capture::{dissect, handoff, pcap_read};
#[cfg(feature = "fuzz-oracle")]
pub use differential::dhcp_differential;
pub use filter::display_filter;
pub use messages::{dhcpv4, dhcpv6, failover, rserpool};
pub use pipeline::pipeline;
pub use sequences::{
    check_reports, dhcp_sequence, failover_sequence, mutate, rserpool_sequence, Mutation,
};

use crate::base::linktype;
use crate::dissect::Limits;

/// A fuzz target's body: panics where an invariant breaks.
pub type Target = fn(&[u8]);

/// Every fuzz target, by the name `fuzz/Cargo.toml` gives its binary.
pub const TARGETS: [(&str, Target); 12] = [
    ("pcap_read", pcap_read),
    ("dissect", dissect),
    ("rserpool", rserpool),
    ("dhcpv4", dhcpv4),
    ("dhcpv6", dhcpv6),
    ("failover", failover),
    ("pipeline", pipeline),
    ("handoff", handoff),
    ("display_filter", display_filter),
    ("rserpool_sequence", rserpool_sequence),
    ("dhcp_sequence", dhcp_sequence),
    ("failover_sequence", failover_sequence),
];

/// The targets that need feature `fuzz-oracle` (an independent implementation to compare with):
/// the fuzz crate and the tests turn it on.
#[cfg(feature = "fuzz-oracle")]
pub const ORACLE_TARGETS: [(&str, Target); 1] = [("dhcp_differential", dhcp_differential)];
#[cfg(not(feature = "fuzz-oracle"))]
pub const ORACLE_TARGETS: [(&str, Target); 0] = [];

/// Every target this build has: [`TARGETS`] and [`ORACLE_TARGETS`].
pub fn all_targets() -> impl Iterator<Item = (&'static str, Target)> {
    TARGETS.into_iter().chain(ORACLE_TARGETS)
}

/// The target of that name.
pub fn target(name: &str) -> Option<Target> {
    all_targets().find(|(n, _)| *n == name).map(|(_, f)| f)
}

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
/// keeps what is there. [`seeds`] writes this format.
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dissect_input_splits_into_its_records() {
        // Odd mode byte, one whole record on IPv4 (index 6), then one cut short.
        let input = [1, 6, 3, 0, 2, 0xaa, 0xbb, 0, 0, 0, 9, 0xcc];
        let (tight, frames) = records(&input);
        assert!(tight);
        assert_eq!(frames.len(), 2);
        assert_eq!(frames[0].linktype, linktype::IPV4);
        assert_eq!((frames[0].dt, frames[0].data), (3, &[0xaa, 0xbb][..]));
        assert_eq!(frames[1].linktype, linktype::ETHERNET);
        assert_eq!(frames[1].data, &[0xcc][..]);
        assert_eq!(records(&[]).1.len(), 0);
    }
}
