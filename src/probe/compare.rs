//! The observed map against the expected one: per bucket, which server(s) answered and whether
//! that is the server the pair's hash bucket assignment gives it.
//!
//! [`Expected`] is what the probe is told: the map, its source, the profile and the pair's
//! servers with their roles. It is made from the same [`Settings`] the `check` replay resolves
//! from `--config`, `--hba` and `--profile`, so an operator's own server configuration (a
//! dhcpd.conf or a Kea configuration read into those settings) is judged by the probe as it is
//! by `check`.
//!
//! Without roles given, the two servers that answered most are taken as the pair, oriented the
//! way that fits the expected map best (and said to be inferred: a pair whose roles are swapped
//! in its own configuration would then look right, which only given roles can catch).

use std::net::IpAddr;

use super::exchange::Run;
use crate::analyse::dhcp_lb::config::{ConfiguredServer, Settings, Source};
use crate::analyse::dhcp_lb::events::ServerIdent;
use crate::analyse::dhcp_lb::{Hba, Profile, Role};

/// What the probe compares the answers with.
#[derive(Clone, Debug, Default)]
pub struct Expected {
    /// The pair's map and where it came from.
    pub hba: Option<(Hba, Source)>,
    pub profile: Option<&'static Profile>,
    /// The servers named, with their roles and identifiers (addresses, DUIDs).
    pub servers: Vec<ConfiguredServer>,
}

impl Expected {
    /// From the settings `check` runs with: the map given, else the one the profile fixes
    /// (Kea's), and the servers named.
    pub fn from_settings(s: &Settings) -> Expected {
        let profile = s.profile.map(|(p, _)| p);
        let hba = s.hba.or_else(|| {
            profile
                .and_then(|p| p.fixed_hba())
                .map(|h| (h, Source::Profile))
        });
        Expected {
            hba,
            profile,
            servers: s.servers.clone(),
        }
    }
}

/// How a server's role was decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RoleSource {
    /// Named in the configuration or with --server.
    Given,
    /// The orientation of the pair that fits the expected map best.
    Inferred,
}

impl RoleSource {
    pub fn name(self) -> &'static str {
        match self {
            RoleSource::Given => "given",
            RoleSource::Inferred => "inferred",
        }
    }
}

/// A server that answered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Server {
    pub ident: ServerIdent,
    /// The addresses its answers came from.
    pub sources: Vec<IpAddr>,
    /// The name the configuration gives it.
    pub name: Option<String>,
    pub role: Option<(Role, RoleSource)>,
    /// Buckets it answered (alone or with another).
    pub buckets: usize,
}

impl Server {
    /// How the output names it: its identifier, and the configuration's name.
    pub fn label(&self) -> String {
        match &self.name {
            Some(n) if *n != self.ident.text() => format!("{} ({n})", self.ident.text()),
            _ => self.ident.text(),
        }
    }
}

/// What a bucket's answers say.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Served by the server the map gives it (or, without a map, by one server).
    Ok,
    /// Served by the other server of the pair only.
    WrongServer,
    /// Served by both servers of the pair.
    Both,
    /// Nobody answered, after every retry.
    NoAnswer,
    /// A server outside the pair answered.
    Outsider,
    /// Not probed, or not to the end: the run was interrupted first.
    NotProbed,
}

impl Verdict {
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Ok => "ok",
            Verdict::WrongServer => "wrong-server",
            Verdict::Both => "both",
            Verdict::NoAnswer => "none",
            Verdict::Outsider => "outside-server",
            Verdict::NotProbed => "not-probed",
        }
    }

    pub fn is_deviation(self) -> bool {
        matches!(
            self,
            Verdict::WrongServer | Verdict::Both | Verdict::NoAnswer | Verdict::Outsider
        )
    }
}

/// One bucket's outcome.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BucketVerdict {
    pub bucket: u8,
    /// Indices into [`Comparison::servers`], in the order they first answered.
    pub answered_by: Vec<usize>,
    /// The role the map gives the bucket.
    pub expected: Option<Role>,
    pub verdict: Verdict,
}

/// The whole comparison.
#[derive(Clone, Debug)]
pub struct Comparison {
    pub servers: Vec<Server>,
    /// The pair: the server index of the primary and of the secondary, when known.
    pub primary: Option<usize>,
    pub secondary: Option<usize>,
    /// In the run's bucket order.
    pub buckets: Vec<BucketVerdict>,
    /// Configured servers that never answered (their names).
    pub silent_configured: Vec<String>,
}

impl Comparison {
    pub fn count(&self, v: Verdict) -> usize {
        self.buckets.iter().filter(|b| b.verdict == v).count()
    }

    pub fn deviations(&self) -> usize {
        self.buckets
            .iter()
            .filter(|b| b.verdict.is_deviation())
            .count()
    }

    /// The server index of a role.
    pub fn of_role(&self, r: Role) -> Option<usize> {
        match r {
            Role::Primary => self.primary,
            Role::Secondary => self.secondary,
        }
    }
}

/// Whether a configured server is this one (by its identifier or an address it answered from).
fn matches(c: &ConfiguredServer, s: &Server) -> bool {
    c.identifiers.iter().any(|i| {
        *i == s.ident
            || match i {
                ServerIdent::Addr(a) => s.sources.contains(a),
                ServerIdent::Duid(_) => false,
            }
    })
}

/// Compares a run's answers with what was expected.
pub fn compare(run: &Run, expected: &Expected) -> Comparison {
    // The servers, in the order they first answered, and which answered each bucket.
    let mut servers: Vec<Server> = Vec::new();
    let mut answered: Vec<Vec<usize>> = Vec::with_capacity(run.buckets.len());
    for b in &run.buckets {
        let mut by: Vec<usize> = Vec::new();
        for a in &b.answers {
            let i = match servers.iter().position(|s| s.ident == a.server) {
                Some(i) => i,
                None => {
                    servers.push(Server {
                        ident: a.server.clone(),
                        sources: Vec::new(),
                        name: None,
                        role: None,
                        buckets: 0,
                    });
                    servers.len() - 1
                }
            };
            if !servers[i].sources.contains(&a.source) {
                servers[i].sources.push(a.source);
            }
            if !by.contains(&i) {
                by.push(i);
                servers[i].buckets += 1;
            }
        }
        answered.push(by);
    }

    // Roles given.
    let mut silent_configured = Vec::new();
    for c in &expected.servers {
        let mut seen = false;
        for s in servers.iter_mut().filter(|s| matches(c, s)) {
            seen = true;
            s.name = Some(c.name.clone());
            if let Some(r) = c.role {
                s.role = Some((r, RoleSource::Given));
            }
        }
        if !seen {
            silent_configured.push(c.name.clone());
        }
    }
    let given = |r: Role| {
        servers
            .iter()
            .position(|s| s.role.is_some_and(|(x, _)| x == r))
    };
    let mut primary = given(Role::Primary);
    let mut secondary = given(Role::Secondary);

    // The roles not given: the servers that answered most, the orientation that fits the map.
    if primary.is_none() || secondary.is_none() {
        let mut free: Vec<usize> = (0..servers.len())
            .filter(|&i| {
                servers[i].role.is_none()
                    && !expected.servers.iter().any(|c| matches(c, &servers[i]))
            })
            .collect();
        // Most buckets first; the sort is stable, so the first to answer wins a tie.
        free.sort_by_key(|&i| std::cmp::Reverse(servers[i].buckets));
        let fit = |i: usize, r: Role| -> usize {
            let Some((hba, _)) = expected.hba else {
                return 0;
            };
            run.buckets
                .iter()
                .zip(&answered)
                .filter(|(b, by)| by.contains(&i) && hba.owner(b.key.bucket) == r)
                .count()
        };
        match (primary, secondary) {
            (None, None) => {
                if let Some(&a) = free.first() {
                    let b = free.get(1).copied();
                    // a as primary (and b secondary) against the other way round.
                    let straight = fit(a, Role::Primary) + b.map_or(0, |b| fit(b, Role::Secondary));
                    let swapped = fit(a, Role::Secondary) + b.map_or(0, |b| fit(b, Role::Primary));
                    let (p, s) = if swapped > straight {
                        (b, Some(a))
                    } else {
                        (Some(a), b)
                    };
                    primary = p;
                    secondary = s;
                }
            }
            (Some(_), None) => secondary = free.first().copied(),
            (None, Some(_)) => primary = free.first().copied(),
            (Some(_), Some(_)) => {}
        }
        // Without a map an orientation means nothing: the pair is known, its roles are not.
        if expected.hba.is_some() {
            for (slot, r) in [(primary, Role::Primary), (secondary, Role::Secondary)] {
                if let Some(i) = slot {
                    if servers[i].role.is_none() {
                        servers[i].role = Some((r, RoleSource::Inferred));
                    }
                }
            }
        }
    }

    let buckets = run
        .buckets
        .iter()
        .zip(answered)
        .map(|(b, by)| {
            let bucket = b.key.bucket;
            let expected_role = expected.hba.map(|(h, _)| h.owner(bucket));
            let in_pair = |i: &usize| Some(*i) == primary || Some(*i) == secondary;
            let verdict = if b.xids.is_empty() || (b.unfinished && by.is_empty()) {
                Verdict::NotProbed
            } else if by.iter().any(|i| !in_pair(i)) {
                Verdict::Outsider
            } else {
                match by.len() {
                    0 => Verdict::NoAnswer,
                    1 => {
                        let role = servers[by[0]].role.map(|(r, _)| r);
                        match (expected_role, role) {
                            (Some(e), Some(r)) if e != r => Verdict::WrongServer,
                            _ => Verdict::Ok,
                        }
                    }
                    _ => Verdict::Both,
                }
            };
            BucketVerdict {
                bucket,
                answered_by: by,
                expected: expected_role,
                verdict,
            }
        })
        .collect();
    Comparison {
        servers,
        primary,
        secondary,
        buckets,
        silent_configured,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::dhcp_lb::profile::KEA;
    use crate::probe::buckets::BucketSet;
    use crate::probe::exchange::tests::{fast, server_addr, FakePair};
    use crate::probe::exchange::{self};
    use crate::probe::keys::{find_keys, KeyKind};
    use crate::probe::packets::LinkSource;

    fn probe(primary: Hba, secondary: Hba, set: &str) -> Run {
        let set: BucketSet = set.parse().unwrap();
        let keys = find_keys(KeyKind::Chaddr, &set, &[&KEA]).unwrap();
        let mut net = FakePair::new(primary, secondary, 0);
        exchange::run(keys, &fast(), &LinkSource::placeholder(), 1, &mut net).unwrap()
    }

    fn expecting(hba: Hba, roles: bool) -> Expected {
        let servers = if roles {
            [Role::Primary, Role::Secondary]
                .into_iter()
                .map(|r| ConfiguredServer {
                    name: r.name().to_string(),
                    role: Some(r),
                    identifiers: vec![ServerIdent::Addr(IpAddr::V4(server_addr(r)))],
                })
                .collect()
        } else {
            Vec::new()
        };
        Expected {
            hba: Some((hba, Source::CommandLine)),
            profile: None,
            servers,
        }
    }

    fn with(c: &Comparison, v: Verdict) -> Vec<u8> {
        c.buckets
            .iter()
            .filter(|b| b.verdict == v)
            .map(|b| b.bucket)
            .collect()
    }

    #[test]
    fn a_pair_that_follows_its_map() {
        let split = Hba::split(128).unwrap();
        let run = probe(split, split, "all");
        for roles in [true, false] {
            let c = compare(&run, &expecting(split, roles));
            assert_eq!(c.deviations(), 0);
            assert_eq!(c.count(Verdict::Ok), 256);
            let p = &c.servers[c.primary.unwrap()];
            assert_eq!(
                p.ident,
                ServerIdent::Addr(IpAddr::V4(server_addr(Role::Primary)))
            );
            assert_eq!(p.buckets, 128);
            let how = if roles {
                RoleSource::Given
            } else {
                RoleSource::Inferred
            };
            assert_eq!(p.role, Some((Role::Primary, how)));
        }
    }

    #[test]
    fn a_wrong_split_is_found_bucket_by_bucket() {
        // The primary was configured with split 100 where 128 was meant.
        let run = probe(Hba::split(100).unwrap(), Hba::split(100).unwrap(), "all");
        let c = compare(&run, &expecting(Hba::split(128).unwrap(), true));
        assert_eq!(
            with(&c, Verdict::WrongServer),
            (100..128).collect::<Vec<u8>>()
        );
        assert_eq!(c.deviations(), 28);
        // Inferred roles still orient the pair the right way round (228 buckets fit that way).
        let c = compare(&run, &expecting(Hba::split(128).unwrap(), false));
        assert_eq!(
            with(&c, Verdict::WrongServer),
            (100..128).collect::<Vec<u8>>()
        );
    }

    #[test]
    fn both_and_none() {
        // The secondary serves nothing: its (odd) buckets go unanswered.
        let run = probe(Hba::kea(), Hba::split(256).unwrap(), "0-7");
        let c = compare(&run, &expecting(Hba::kea(), true));
        assert_eq!(with(&c, Verdict::Ok), [0, 2, 4, 6]);
        assert_eq!(with(&c, Verdict::NoAnswer), [1, 3, 5, 7]);
        let run = probe(Hba::split(256).unwrap(), Hba::split(0).unwrap(), "0-3");
        let c = compare(&run, &expecting(Hba::kea(), true));
        assert_eq!(with(&c, Verdict::Both), [0, 1, 2, 3]);
    }

    #[test]
    fn swapped_roles_are_caught_only_when_given() {
        // The secondary answers every bucket, the primary none.
        let run = probe(Hba::split(0).unwrap(), Hba::split(0).unwrap(), "all");
        let kea = Hba::kea();
        let mut flipped = [0u8; 32];
        for (o, b) in flipped.iter_mut().zip(kea.bytes()) {
            *o = !b;
        }
        // The servers serve each other's buckets.
        let run_flipped = probe(Hba::from_bytes(flipped), Hba::from_bytes(flipped), "all");
        let given = compare(&run_flipped, &expecting(kea, true));
        assert_eq!(given.count(Verdict::WrongServer), 256);
        let inferred = compare(&run_flipped, &expecting(kea, false));
        assert_eq!(inferred.deviations(), 0);
        // A pair where one server answers everything: every bucket of the other is wrong.
        let c = compare(&run, &expecting(Hba::split(128).unwrap(), true));
        assert_eq!(
            with(&c, Verdict::WrongServer),
            (0..128).collect::<Vec<u8>>()
        );
    }

    #[test]
    fn without_a_map_only_both_and_none_are_deviations() {
        let run = probe(Hba::split(100).unwrap(), Hba::split(90).unwrap(), "all");
        let c = compare(&run, &Expected::default());
        // Buckets 90-99 are served by both, every other one by one server.
        assert_eq!(with(&c, Verdict::Both), (90..100).collect::<Vec<u8>>());
        assert_eq!(c.count(Verdict::Ok), 246);
        assert!(c.servers.iter().all(|s| s.role.is_none()));
        assert!(c.primary.is_some() && c.secondary.is_some());
    }

    #[test]
    fn servers_outside_the_pair_and_silent_ones() {
        let run = probe(Hba::kea(), Hba::kea(), "0-3");
        // Only the secondary is named, and a third server that never answered.
        let mut e = expecting(Hba::kea(), true);
        e.servers.remove(0);
        e.servers.push(ConfiguredServer {
            name: "spare".into(),
            role: None,
            identifiers: vec![ServerIdent::Addr("192.0.2.9".parse().unwrap())],
        });
        let c = compare(&run, &e);
        assert_eq!(c.silent_configured, ["spare"]);
        // The primary's role is inferred, the secondary's given.
        let p = &c.servers[c.primary.unwrap()];
        assert_eq!(p.role, Some((Role::Primary, RoleSource::Inferred)));
        assert_eq!(c.deviations(), 0);
    }
}
