//! What a profile says of one client message: balanced on a key (and which bucket), directed at
//! one server by its Server Identifier, not balanced at all, or dropped by every server.

use super::events::{ClientKey, Request, ServerIdent};
use super::profile::{v4_type, v6_type, KeyOutcome, LeaseQueryRule, Profile, ServerIdRule, Stid};
use crate::proto::dhcpv6::QUERY_BY_CLIENTID;
use crate::proto::lb::{Family, Hba, Role};

/// How a message is to be served under a profile.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Class {
    /// Balanced: the bucket's owner answers (a non-owner too once the delay passed).
    Balanced { stid: Stid, bucket: u8 },
    /// Names a server of the pair, and the profile lets the named server answer whatever the
    /// bucket (or the type is not balanced at all).
    Directed(Role),
    /// Names a server outside the pair: neither may answer.
    DirectedElsewhere,
    /// Not balanced: either server may answer.
    Unbalanced,
    /// Dropped by both before balancing (Kea: no client identifier).
    Dropped(&'static str),
}

/// Which pair server an identifier names.
pub type NameLookup<'a> = &'a dyn Fn(&ServerIdent) -> Option<Role>;

/// Classifies `r` under `profile`; `named` maps a Server Identifier to the pair server it names.
pub fn classify(r: &Request, profile: &Profile, named: NameLookup<'_>) -> Option<Class> {
    let names = r.server_id.as_ref().map(named);
    match (&r.key, r.family) {
        (
            ClientKey::V4 {
                client_id,
                chaddr,
                hlen,
            },
            Family::V4,
        ) => {
            let rules = profile.v4.as_ref()?;
            if r.msg_type
                .is_some_and(|t| matches!(t, v4_type::DECLINE | v4_type::RELEASE))
            {
                // No answer is ever sent: nothing to judge.
                return Some(Class::Unbalanced);
            }
            let balanced = rules.balances(r.msg_type);
            if let Some(n) = names {
                if !balanced || rules.server_id_exempt {
                    return Some(n.map_or(Class::DirectedElsewhere, Class::Directed));
                }
            }
            if !balanced {
                return Some(Class::Unbalanced);
            }
            Some(keyed(rules.key.stid(client_id.as_deref(), chaddr, *hlen)))
        }
        (ClientKey::V6 { duid, leasequery }, Family::V6) => {
            let rules = profile.v6.as_ref()?;
            let t = r.msg_type?;
            if t == v6_type::LEASEQUERY {
                return Some(match (rules.leasequery, leasequery) {
                    (LeaseQueryRule::ByClientIdOnly, Some((QUERY_BY_CLIENTID, Some(d)))) => {
                        let mut k = keyed(rules.stid(Some(d)));
                        if let Class::Balanced { stid, .. } = &mut k {
                            stid.source = super::profile::StidSource::LeaseQueryDuid;
                        }
                        k
                    }
                    _ => Class::Unbalanced,
                });
            }
            let balanced = rules.balances(t);
            if let Some(n) = names {
                let exempt = match rules.server_id {
                    ServerIdRule::Ignored => false,
                    ServerIdRule::NotBalanced => true,
                    ServerIdRule::NotBalancedExceptRenew => t != v6_type::RENEW,
                };
                if !balanced || exempt {
                    return Some(n.map_or(Class::DirectedElsewhere, Class::Directed));
                }
            }
            if !balanced {
                return Some(Class::Unbalanced);
            }
            Some(keyed(rules.stid(duid.as_deref())))
        }
        _ => None,
    }
}

fn keyed(k: KeyOutcome) -> Class {
    match k {
        KeyOutcome::Key(stid) => {
            let bucket = stid.bucket();
            Class::Balanced { stid, bucket }
        }
        KeyOutcome::Dropped(why) => Class::Dropped(why),
    }
}

/// The owner of a balanced message's bucket.
pub fn owner(hba: &Hba, bucket: u8) -> Role {
    hba.owner(bucket)
}

/// Whether the non-owner may answer: the client has waited past the threshold (seconds).
pub fn delayed(r: &Request, profile: &Profile, threshold: Option<u32>, swap_check: bool) -> bool {
    let ds = match r.family {
        Family::V4 => profile.v4.as_ref().and_then(|v| v.delayed_service),
        Family::V6 => profile.v6.as_ref().and_then(|v| v.delayed_service),
    };
    match (ds, threshold, r.elapsed) {
        (Some(ds), Some(thr), Some(e)) => ds.nonowner_may_answer(e, thr, swap_check),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::super::profile::{DRAFT, ISC, KEA};
    use super::*;
    use crate::analyse::KeyBytes;
    use crate::base::Timestamp;

    fn v6(t: u8, duid: Option<Vec<u8>>, server: Option<Vec<u8>>) -> Request {
        Request {
            frame: 1,
            time: Timestamp::default(),
            family: Family::V6,
            msg_type: Some(t),
            xid: 1,
            match_key: duid.clone().unwrap_or_default().into(),
            key: ClientKey::V6 {
                duid: duid.map(KeyBytes::from),
                leasequery: None,
            },
            elapsed: Some(0),
            server_id: server.map(|s| ServerIdent::Duid(s.into())),
            relay_depth: 0,
            ciaddr_set: false,
            src: "fe80::1".parse().unwrap(),
            dst: "ff02::1:2".parse().unwrap(),
        }
    }

    fn lookup(id: &ServerIdent) -> Option<Role> {
        match id {
            ServerIdent::Duid(d) if d[..] == [1] => Some(Role::Primary),
            ServerIdent::Duid(d) if d[..] == [2] => Some(Role::Secondary),
            _ => None,
        }
    }

    #[test]
    fn v6_rules() {
        let duid = Some(vec![0, 3, 0, 1, 9, 9]);
        let sol = v6(v6_type::SOLICIT, duid.clone(), None);
        assert!(matches!(
            classify(&sol, &KEA, &lookup),
            Some(Class::Balanced { .. })
        ));
        let ir = v6(v6_type::INFORMATION_REQUEST, None, None);
        assert_eq!(classify(&ir, &KEA, &lookup), Some(Class::Unbalanced));
        assert_eq!(
            classify(&ir, &DRAFT, &lookup),
            Some(Class::Balanced {
                stid: Stid {
                    bytes: Default::default(),
                    source: super::super::profile::StidSource::Empty
                },
                bucket: 0
            })
        );
        // A REQUEST naming the secondary: the draft lets the named server answer; Kea balances.
        let req = v6(v6_type::REQUEST, duid.clone(), Some(vec![2]));
        assert_eq!(
            classify(&req, &DRAFT, &lookup),
            Some(Class::Directed(Role::Secondary))
        );
        assert!(matches!(
            classify(&req, &KEA, &lookup),
            Some(Class::Balanced { .. })
        ));
        let elsewhere = v6(v6_type::REQUEST, duid, Some(vec![3]));
        assert_eq!(
            classify(&elsewhere, &DRAFT, &lookup),
            Some(Class::DirectedElsewhere)
        );
        assert_eq!(classify(&sol, &ISC, &lookup), None, "ISC has no v6 rules");
        let no_duid = v6(v6_type::SOLICIT, None, None);
        assert!(matches!(
            classify(&no_duid, &KEA, &lookup),
            Some(Class::Dropped(_))
        ));
    }

    #[test]
    fn leasequery() {
        let mut lq = v6(v6_type::LEASEQUERY, Some(vec![0, 3, 0, 1, 7]), None);
        let target = vec![0, 3, 0, 1, 1, 2, 3, 4];
        lq.key = ClientKey::V6 {
            duid: Some(vec![0, 3, 0, 1, 7].into()),
            leasequery: Some((QUERY_BY_CLIENTID, Some(target.clone().into()))),
        };
        match classify(&lq, &DRAFT, &lookup) {
            Some(Class::Balanced { stid, .. }) => assert_eq!(stid.bytes[..], target),
            other => panic!("{other:?}"),
        }
        assert_eq!(classify(&lq, &KEA, &lookup), Some(Class::Unbalanced));
        lq.key = ClientKey::V6 {
            duid: Some(vec![0, 3, 0, 1, 7].into()),
            leasequery: Some((1, None)),
        };
        assert_eq!(classify(&lq, &DRAFT, &lookup), Some(Class::Unbalanced));
    }
}
