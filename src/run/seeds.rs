//! `check --leases [primary=|secondary=]FILE`: the ISC DHCP failover servers' lease files the
//! failover replay starts from, read with their statement errors reported by line (as `leases`
//! reports them).

use std::path::{Path, PathBuf};
use std::str::FromStr;

use super::anyhow_like::{Error, Result};
use crate::analyse::dhcp_lb::Role;
use crate::analyse::failover::from_file;
use crate::analyse::failover::seed::LeaseSeed;
use crate::source::leases::{self, LeaseFile};

/// `check --leases [primary=|secondary=]FILE`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeedArg {
    pub role: Option<Role>,
    pub path: PathBuf,
}

impl FromStr for SeedArg {
    type Err = String;

    fn from_str(s: &str) -> std::result::Result<Self, String> {
        let (role, path) = if let Some(p) = s.strip_prefix("primary=") {
            (Some(Role::Primary), p)
        } else if let Some(p) = s.strip_prefix("secondary=") {
            (Some(Role::Secondary), p)
        } else {
            (None, s)
        };
        if path.is_empty() {
            return Err(format!("--leases {s:?}: no file named"));
        }
        Ok(SeedArg {
            role,
            path: PathBuf::from(path),
        })
    }
}

/// Reads `check`'s `--leases` files (errors by line on stderr); at most one per server.
pub fn read_seeds(args: &[SeedArg]) -> Result<Vec<LeaseSeed>> {
    let mut seeds: Vec<LeaseSeed> = Vec::new();
    for a in args {
        let label = a.path.display().to_string();
        let file = read(&a.path, "--leases")?;
        let told = from_file::role_of(&file).told();
        if let (Some(t), Some(g)) = (told, a.role) {
            if t != g {
                eprintln!(
                    "poolshark: {label}: given as the {g}'s, but its failover peer state says {t} \
                     (dhcpd writes mclt there only on the secondary): taken as the {t}'s"
                );
            }
        }
        let seed = LeaseSeed::new(label, a.role, file);
        if seeds.iter().any(|s| s.role == seed.role) {
            let whose = seed
                .role
                .map_or("a server whose role is unknown".to_string(), |r| {
                    format!("the {r}")
                });
            return Err(Error::msg(format!(
                "--leases: two files for {whose}: give one per server, as primary=FILE and secondary=FILE"
            )));
        }
        seeds.push(seed);
    }
    Ok(seeds)
}

/// Prints a lease file's statement errors on stderr, by line, as compilers write them.
pub fn print_errors(path: &Path, errors: &[leases::LeaseError]) {
    for e in errors {
        eprintln!(
            "poolshark: {}:{}:{}: {}",
            path.display(),
            e.line,
            e.col,
            e.what
        );
    }
}

/// Reads a lease file; its statement errors go to stderr, by line. Fails only when the file
/// cannot be read at all.
pub fn read(path: &Path, what: &str) -> Result<LeaseFile> {
    let file = leases::read_path(path)
        .map_err(|e| Error::msg(format!("cannot read {what} {}: {e}", path.display())))?;
    print_errors(path, &file.errors);
    Ok(file)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_arguments() {
        assert_eq!(
            "primary=a.leases".parse::<SeedArg>(),
            Ok(SeedArg {
                role: Some(Role::Primary),
                path: "a.leases".into()
            })
        );
        assert_eq!(
            "secondary=/x=y".parse::<SeedArg>().map(|s| s.role),
            Ok(Some(Role::Secondary))
        );
        assert_eq!(
            "dir/f=g.leases"
                .parse::<SeedArg>()
                .map(|s| (s.role, s.path)),
            Ok((None, PathBuf::from("dir/f=g.leases")))
        );
        assert!("primary=".parse::<SeedArg>().is_err());
    }
}
