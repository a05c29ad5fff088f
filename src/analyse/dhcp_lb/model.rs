//! The pair being checked, as the configuration or the inference fixed it: which two servers,
//! which is primary, under which profile, with which bucket map and delayed-service threshold.

use std::net::IpAddr;

use smallvec::SmallVec;

use super::config::Source;
use super::events::ServerIdent;
use super::profile::Profile;
use super::servers::Registry;
use crate::proto::lb::{Family, Hba, Role};

#[derive(Clone, Debug)]
pub struct Pair {
    pub family: Family,
    /// Registry indices of the primary and the secondary.
    pub primary: usize,
    pub secondary: usize,
    pub profile: &'static Profile,
    pub profile_source: Source,
    pub hba: Hba,
    pub hba_source: Source,
    /// Delayed-service threshold in seconds (`None`: the profile has no delayed service).
    pub threshold: Option<u32>,
    pub threshold_source: Source,
    /// The pair's subject name in findings and the timeline: "primary+secondary/dhcpv4".
    pub name: String,
}

impl Pair {
    pub fn server(&self, r: Role) -> usize {
        match r {
            Role::Primary => self.primary,
            Role::Secondary => self.secondary,
        }
    }

    pub fn role_of(&self, server: usize) -> Option<Role> {
        if server == self.primary {
            Some(Role::Primary)
        } else if server == self.secondary {
            Some(Role::Secondary)
        } else {
            None
        }
    }

    pub fn subject_name(
        reg: &Registry,
        family: Family,
        primary: usize,
        secondary: usize,
    ) -> String {
        format!(
            "{}+{}/{}",
            reg.name(primary),
            reg.name(secondary),
            family.name()
        )
    }

    /// The addresses a server is known by (its failover endpoint is one of them). Inline for the
    /// usual few: it is asked for every judged transmission.
    pub fn addresses(reg: &Registry, server: usize) -> SmallVec<[IpAddr; 4]> {
        reg.get(server)
            .map(|s| {
                s.identifiers
                    .iter()
                    .filter_map(|i| match i {
                        ServerIdent::Addr(a) => Some(*a),
                        ServerIdent::Duid(_) => None,
                    })
                    .collect()
            })
            .unwrap_or_default()
    }
}
