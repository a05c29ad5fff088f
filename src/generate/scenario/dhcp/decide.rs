//! Which server of the pair answers a client message, by the rules of a load-balancing profile
//! (`analyse::dhcp_lb::Profile`: which message types are balanced, the key, the delayed-service
//! exception) and each server's bucket map. The servers here are correct unless configured to
//! disagree on the map or to cut long DUIDs.

use crate::analyse::dhcp_lb::profile::{LeaseQueryRule, ServerIdRule};
use crate::analyse::dhcp_lb::{bucket, Hba, KeyOutcome, Profile, Role};

/// What the servers do with one client message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decision {
    /// Whether the primary, the secondary answer (index by [`role_index`]).
    pub answers: [bool; 2],
    /// Whether load balancing decided it (else: directed, or not a balanced type).
    pub balanced: bool,
    /// The bucket of the client's key, when balanced.
    pub bucket: Option<u8>,
    /// The owner under the primary's map, when balanced.
    pub owner: Option<Role>,
    /// A non-owner answers because the client waited past the threshold.
    pub delayed: bool,
    /// Which servers received the message.
    pub seen_by: [bool; 2],
}

pub fn role_index(r: Role) -> usize {
    match r {
        Role::Primary => 0,
        Role::Secondary => 1,
    }
}

pub const ROLES: [Role; 2] = [Role::Primary, Role::Secondary];

/// How the pair behaves.
#[derive(Clone, Copy, Debug)]
pub struct Pair {
    pub profile: &'static Profile,
    /// Each server's bucket map (equal in a correct pair).
    pub maps: [Hba; 2],
    /// Delayed-service threshold, seconds.
    pub threshold_secs: u32,
    /// Servers that hash only this many bytes of a DHCPv6 key (a deviation from the draft).
    pub stid_max_len: Option<usize>,
}

/// A client message as the rules look at it.
#[derive(Clone, Copy, Debug)]
pub struct Query<'a> {
    /// DHCPv4: option 53 (`None`: BOOTP); DHCPv6: the innermost message type.
    pub msg_type: Option<u8>,
    pub v6: bool,
    /// The key material: v4 option 61 payload, else chaddr/hlen; v6 the client DUID, or for a
    /// leasequery by client id the DUID inside the query.
    pub client_id: Option<&'a [u8]>,
    pub chaddr: &'a [u8],
    pub hlen: u8,
    /// v4 `secs` (seconds) or v6 elapsed time (hundredths of a second).
    pub elapsed: u16,
    /// The server the message names (v4 option 54, v6 Server Identifier).
    pub named: Option<Role>,
    /// Which servers receive it (a unicast goes to one).
    pub seen_by: [bool; 2],
    /// v6 LEASEQUERY: by client id (true) or by address.
    pub leasequery_by_client: bool,
}

impl Pair {
    /// Who answers `q`.
    pub fn decide(&self, q: &Query<'_>) -> Decision {
        let mut d = Decision {
            answers: q.seen_by,
            balanced: false,
            bucket: None,
            owner: None,
            delayed: false,
            seen_by: q.seen_by,
        };
        let key = match self.key(q) {
            // Not balanced: whoever receives it answers, unless it names the other server.
            None => {
                if let Some(n) = q.named {
                    d.answers = [false; 2];
                    d.answers[role_index(n)] = q.seen_by[role_index(n)];
                }
                return d;
            }
            Some(KeyOutcome::Dropped(_)) => {
                d.answers = [false; 2];
                d.balanced = true;
                return d;
            }
            Some(KeyOutcome::Key(stid)) => stid.bytes,
        };
        let mut hashed: &[u8] = &key;
        if q.v6 {
            if let Some(n) = self.stid_max_len {
                hashed = hashed.get(..n).unwrap_or(hashed);
            }
        }
        let b = bucket(hashed);
        d.balanced = true;
        d.bucket = Some(bucket(&key));
        d.owner = Some(self.maps[0].owner(bucket(&key)));
        let late = self.delayed_service(q);
        for r in ROLES {
            let i = role_index(r);
            let owns = self.maps[i].owner(b) == r;
            let named_other = q.named.is_some_and(|n| n != r);
            d.answers[i] = q.seen_by[i] && !named_other && (owns || late);
            if d.answers[i] && !owns {
                d.delayed = true;
            }
        }
        d
    }

    /// The key when `q` is balanced (`None`: not balanced).
    fn key(&self, q: &Query<'_>) -> Option<KeyOutcome> {
        // The scenario keeps the pair in the state where balancing applies (ISC's NORMAL, Kea's
        // load-balancing), so the profile's state gate never switches it off here.
        if q.v6 {
            let rules = self.profile.v6?;
            let t = q.msg_type?;
            if t == crate::analyse::dhcp_lb::profile::v6_type::LEASEQUERY {
                return match rules.leasequery {
                    LeaseQueryRule::ByClientIdOnly if q.leasequery_by_client => {
                        Some(rules.stid(q.client_id))
                    }
                    _ => None,
                };
            }
            if !rules.balances(t) {
                return None;
            }
            if q.named.is_some() {
                match rules.server_id {
                    ServerIdRule::Ignored => {}
                    ServerIdRule::NotBalanced | ServerIdRule::NotBalancedExceptRenew => {
                        return None
                    }
                }
            }
            Some(rules.stid(q.client_id))
        } else {
            let rules = self.profile.v4?;
            if !rules.balances(q.msg_type) {
                return None;
            }
            if q.named.is_some() && rules.server_id_exempt {
                return None;
            }
            Some(rules.key.stid(q.client_id, q.chaddr, q.hlen))
        }
    }

    fn delayed_service(&self, q: &Query<'_>) -> bool {
        let ds = if q.v6 {
            self.profile.v6.and_then(|r| r.delayed_service)
        } else {
            self.profile.v4.and_then(|r| r.delayed_service)
        };
        ds.is_some_and(|d| d.nonowner_may_answer(q.elapsed, self.threshold_secs, false))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::dhcp_lb::profile::{v4_type, v6_type, ISC, KEA};

    fn q(msg_type: u8, v6: bool, id: &[u8]) -> Query<'_> {
        Query {
            msg_type: Some(msg_type),
            v6,
            client_id: Some(id),
            chaddr: &[],
            hlen: 0,
            elapsed: 0,
            named: None,
            seen_by: [true, true],
            leasequery_by_client: false,
        }
    }

    #[test]
    fn owner_answers_balanced_types_both_answer_the_rest() {
        let kea = Pair {
            profile: &KEA,
            maps: [Hba::kea(); 2],
            threshold_secs: 0,
            stid_max_len: None,
        };
        // Bucket of the key [1]: T[1 ^ T[1]]... checked through the hash module's own tests;
        // here only that exactly the owner answers.
        let d = kea.decide(&q(v6_type::SOLICIT, true, &[0, 3, 0, 1, 2, 0, 0, 0, 0, 9]));
        assert!(d.balanced);
        let owner = d.owner.unwrap();
        assert_eq!(
            d.answers,
            [owner == Role::Primary, owner == Role::Secondary]
        );
        // Kea does not balance INFORMATION-REQUEST: both answer.
        let d = kea.decide(&q(v6_type::INFORMATION_REQUEST, true, &[0, 3]));
        assert_eq!(d.answers, [true, true]);
        assert!(!d.balanced);
        // A SELECTING REQUEST names its server: only that one answers (ISC never balances it).
        let isc = Pair {
            profile: &ISC,
            maps: [Hba::split(128).unwrap(); 2],
            threshold_secs: 3,
            stid_max_len: None,
        };
        let mut r = q(v4_type::REQUEST, false, &[1, 2, 3]);
        r.named = Some(Role::Secondary);
        assert_eq!(isc.decide(&r).answers, [false, true]);
        // ISC: DISCOVER with secs above the threshold is answered by both.
        let mut late = q(v4_type::DISCOVER, false, &[1, 2, 3]);
        late.elapsed = 4;
        let d = isc.decide(&late);
        assert_eq!(d.answers, [true, true]);
        assert!(d.delayed);
        late.elapsed = 3;
        assert_eq!(isc.decide(&late).answers.iter().filter(|a| **a).count(), 1);
    }
}
