//! DHCPv6 leases as `dhcpd -6` writes them (dhcpd.leases(5)): an identity association block
//! (`ia-na`, `ia-ta`, `ia-pd` with its IAID and DUID as a string) holding `iaaddr ADDRESS { ... }`
//! or `iaprefix PREFIX/LENGTH { ... }` blocks, each with its `binding state`, `ends`,
//! `preferred-life` and `max-life`. As for DHCPv4, dhcpd appends a new block at each change:
//! the last one read for an address (or prefix) wins.

use std::collections::BTreeMap;
use std::net::Ipv6Addr;

use super::syntax::Statement;
use super::{binding_after, err, time_statement, Binding, LeaseError, LeaseTime};

/// The kind of identity association.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Ia {
    /// Non-temporary addresses (`ia-na`).
    Na,
    /// Temporary addresses (`ia-ta`).
    Ta,
    /// Delegated prefixes (`ia-pd`).
    Pd,
}

impl Ia {
    pub fn name(self) -> &'static str {
        match self {
            Ia::Na => "ia-na",
            Ia::Ta => "ia-ta",
            Ia::Pd => "ia-pd",
        }
    }
}

/// One `iaaddr` or `iaprefix`: the last block read for it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lease6Entry {
    pub ia: Ia,
    pub address: Ipv6Addr,
    /// The prefix length of an `iaprefix`.
    pub prefix_len: Option<u8>,
    pub binding_state: Option<Binding>,
    pub ends: Option<LeaseTime>,
    /// The identity association's `cltt`.
    pub cltt: Option<LeaseTime>,
    /// Line of the `iaaddr` / `iaprefix`.
    pub line: usize,
}

/// Reads an `ia-na` / `ia-ta` / `ia-pd` declaration into `out`, keyed by address and prefix
/// length.
pub(super) fn ia(
    st: &Statement,
    kind: Ia,
    errors: &mut Vec<LeaseError>,
    out: &mut BTreeMap<(Ipv6Addr, u8), Lease6Entry>,
) {
    let Some(body) = &st.block else {
        errors.push(err(
            st,
            format!("{}: expected a '{{ ... }}' block", kind.name()),
        ));
        return;
    };
    let mut cltt = None;
    let mut entries = Vec::new();
    for s in body {
        match s.keyword() {
            Some("cltt") => match time_statement(s, "cltt") {
                Ok(t) => cltt = Some(t),
                Err(e) => errors.push(err(s, e)),
            },
            Some(k @ ("iaaddr" | "iaprefix")) => entries.extend(entry(s, k, kind, errors)),
            // Statements that say nothing of the binding (`set`, `on`, ...).
            _ => {}
        }
    }
    for mut e in entries {
        e.cltt = cltt;
        out.insert((e.address, e.prefix_len.unwrap_or(128)), e);
    }
}

fn entry(s: &Statement, k: &str, kind: Ia, errors: &mut Vec<LeaseError>) -> Option<Lease6Entry> {
    let (Some(word), 2) = (s.word(1), s.words.len()) else {
        errors.push(err(s, format!("{k}: expected one address before '{{'")));
        return None;
    };
    let (address, prefix_len) = if k == "iaprefix" {
        let parsed = word.split_once('/').and_then(|(a, l)| {
            Some((
                a.parse::<Ipv6Addr>().ok()?,
                l.parse::<u8>().ok().filter(|l| *l <= 128)?,
            ))
        });
        let Some((a, l)) = parsed else {
            errors.push(err(s, format!("iaprefix: '{word}' is not an IPv6 prefix")));
            return None;
        };
        (a, Some(l))
    } else {
        let Ok(a) = word.parse::<Ipv6Addr>() else {
            errors.push(err(s, format!("iaaddr: '{word}' is not an IPv6 address")));
            return None;
        };
        (a, None)
    };
    let Some(body) = &s.block else {
        errors.push(err(s, format!("{k} {word}: expected a '{{ ... }}' block")));
        return None;
    };
    let mut e = Lease6Entry {
        ia: kind,
        address,
        prefix_len,
        binding_state: None,
        ends: None,
        cltt: None,
        line: s.line,
    };
    for b in body {
        let r = match b.keyword() {
            Some("binding") if b.word(1) == Some("state") => {
                binding_after(b, 2, "binding state").map(|x| e.binding_state = Some(x))
            }
            Some("ends") => time_statement(b, "ends").map(|t| e.ends = Some(t)),
            _ => Ok(()),
        };
        if let Err(what) = r {
            errors.push(err(b, what));
        }
    }
    Some(e)
}

#[cfg(test)]
mod tests {
    use crate::source::leases::{parse, Binding, Ia, LeaseTime};

    #[test]
    fn identity_associations_as_dhcpd_6_writes_them() {
        let f = parse(
            b"server-duid \"\\000\\001\\000\\001\";\n\
              ia-na \"\\001\\000\\000\\000\\000\\003\" {\n  cltt 4 2013/11/07 06:39:47;\n  \
              iaaddr 2001:db8::ab {\n    binding state active;\n    preferred-life 375;\n    \
              max-life 600;\n    ends 4 2013/11/07 06:49:47;\n  }\n}\n\
              ia-pd \"x\" {\n  iaprefix 2001:db8:1::/56 {\n    binding state expired;\n  }\n}\n\
              ia-na \"y\" {\n  iaaddr 2001:db8::ab {\n    binding state released;\n  }\n}\n\
              ia-ta \"z\" {\n  iaaddr 2001:db8::1:0:1 { binding state frob; }\n}\n",
        );
        assert_eq!(f.ia_blocks, 4);
        assert_eq!(f.leases6.len(), 3);
        // The later block for 2001:db8::ab wins; the IA's cltt goes with it.
        let ab = &f.leases6[0];
        assert_eq!(
            ab.address,
            "2001:db8::ab".parse::<std::net::Ipv6Addr>().unwrap()
        );
        assert_eq!((ab.ia, ab.binding_state), (Ia::Na, Some(Binding::Released)));
        assert_eq!((ab.line, ab.cltt), (17, None));
        assert_eq!(f.leases6[1].binding_state, None);
        let pd = &f.leases6[2];
        assert_eq!((pd.ia, pd.prefix_len), (Ia::Pd, Some(56)));
        assert_eq!(pd.binding_state, Some(Binding::Expired));
        // The unknown binding state is an error at its line; the rest is read.
        assert_eq!(f.errors.len(), 1, "{:?}", f.errors);
        assert_eq!(f.errors[0].line, 22);
        let first = parse(
            b"ia-na \"a\" {\n cltt epoch 100;\n iaaddr 2001:db8::1 { binding state active; ends epoch 200; }\n}\n",
        );
        assert_eq!(first.leases6[0].cltt, Some(LeaseTime::At(100)));
        assert_eq!(first.leases6[0].ends, Some(LeaseTime::At(200)));
    }
}
