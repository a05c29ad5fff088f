//! `poolshark probe`: an active audit of a live DHCP server pair. For each hash bucket asked, a
//! made-up client whose RFC 3074 hash falls in it sends a DHCPDISCOVER (DHCPv4) or a SOLICIT
//! (DHCPv6); the servers' offers say which server serves the bucket; the map observed is
//! compared with the expected one, bucket by bucket.
//!
//! The flow, one file each: [`buckets`] (which buckets) -> [`keys`] (a client per bucket, by
//! search under the profile's key rule) -> [`packets`] (the frames, from the project's
//! emitters) -> [`exchange`] (send at a rate, await, retry) over [`link`] (AF_PACKET and a live
//! capture through the pipeline) with [`answers`] (offers decoded by the project's decoders) ->
//! [`compare`] (observed against expected) -> [`report`] (text, JSON).

pub mod answers;
pub mod buckets;
pub mod compare;
pub mod exchange;
pub mod keys;
#[cfg(target_os = "linux")]
pub mod link;
pub mod packets;
pub mod report;

pub use buckets::BucketSet;
pub use compare::{compare, Comparison, Expected, Verdict};
pub use exchange::{Network, Pace, Run};
pub use keys::{find_keys, Family, KeyKind, ProbeKey};
