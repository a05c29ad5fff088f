//! DHCP load balancing's vocabulary, shared by the servers' configuration and the analysers: the
//! address family, the RFC 3074 hash that puts a client in one of 256 buckets ([`hash`]), and
//! the hash bucket assignment that says which server of a pair serves each bucket ([`hba`],
//! as a failover CONNECT carries it and as dhcpd and Kea configure it).

pub mod hash;
pub mod hba;

pub use hash::bucket;
pub use hba::{Hba, HbaError, Role};

/// DHCPv4 or DHCPv6.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Family {
    V4,
    V6,
}

impl Family {
    pub fn name(self) -> &'static str {
        match self {
            Family::V4 => "dhcpv4",
            Family::V6 => "dhcpv6",
        }
    }
}
