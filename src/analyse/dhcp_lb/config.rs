//! What the replay is told: the `--config` TOML file and the command-line overrides, resolved
//! into [`Settings`]. Anything left unset is inferred from the traffic (see `inference`).
//!
//! ```toml
//! profile = "isc"                    # draft | kea | isc
//! hba = "split:128"                  # split:N | kea | 64 hex digits
//! delayed_service_threshold = 3      # seconds (ISC's `load balance max seconds`)
//! secs_byte_order_check = false      # ISC's check-secs-byte-order
//! answer_window = 5.0                # seconds an answer may take
//! failover_link_timeout = 30.0       # seconds without failover traffic = link down
//!
//! [[server]]
//! name = "dhcp-a"
//! role = "primary"                   # primary | secondary
//! identifiers = ["192.0.2.1", "00:03:00:01:02:00:00:00:01:01"]
//! ```
//!
//! Precedence: command line, then file, then what the capture shows (a failover CONNECT's bucket
//! map, the profile's fixed map), then inference.

use serde::Deserialize;

use super::events::ServerIdent;
use super::profile::Profile;
use crate::proto::lb::{Hba, Role};

/// The file as written.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ConfigFile {
    pub profile: Option<String>,
    pub hba: Option<String>,
    pub delayed_service_threshold: Option<u32>,
    pub secs_byte_order_check: Option<bool>,
    pub answer_window: Option<f64>,
    pub failover_link_timeout: Option<f64>,
    #[serde(default, rename = "server")]
    pub servers: Vec<ServerEntry>,
}

#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ServerEntry {
    pub name: String,
    pub role: Option<String>,
    #[serde(default)]
    pub identifiers: Vec<String>,
}

impl ConfigFile {
    pub fn parse(text: &str) -> Result<ConfigFile, String> {
        toml::from_str(text).map_err(|e| format!("DHCP load-balancing config: {e}"))
    }
}

/// Where a setting came from (reported beside it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    CommandLine,
    ConfigFile,
    /// A failover CONNECT's hash bucket assignment.
    FailoverConnect,
    /// Fixed by the profile (Kea's map).
    Profile,
    Inferred,
    Default,
}

impl Source {
    pub fn name(self) -> &'static str {
        match self {
            Source::CommandLine => "command-line",
            Source::ConfigFile => "config",
            Source::FailoverConnect => "failover-connect",
            Source::Profile => "profile",
            Source::Inferred => "inferred",
            Source::Default => "default",
        }
    }
}

/// A server the user named.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfiguredServer {
    pub name: String,
    pub role: Option<Role>,
    pub identifiers: Vec<ServerIdent>,
}

/// Everything the replay runs with.
#[derive(Clone, Debug)]
pub struct Settings {
    pub profile: Option<(&'static Profile, Source)>,
    pub hba: Option<(Hba, Source)>,
    /// Delayed-service threshold in seconds.
    pub threshold: Option<(u32, Source)>,
    pub byte_swap_check: bool,
    pub servers: Vec<ConfiguredServer>,
    /// How long an answer may take (nanoseconds).
    pub answer_window_ns: u64,
    /// Verdicts wait this long for late evidence (retries, failover STATE messages that say since
    /// when a server was in its state).
    pub lookahead_ns: u64,
    /// Failover link: a silence longer than this is a link down.
    pub link_timeout_ns: u64,
    /// A server is down when it answers nothing for at least this long while at least
    /// `down_min_messages` messages it should have answered arrive.
    pub down_after_ns: u64,
    pub down_min_messages: u32,
    /// Events buffered before the model is inferred (the whole capture when it is smaller).
    pub learn_limit: usize,
    /// Client transmissions awaiting a verdict at once (older ones are judged early).
    pub max_pending: usize,
    /// Open transactions tracked (least recent evicted).
    pub max_transactions: usize,
    pub max_servers: usize,
    /// Balanced answers the inference needs before it calls two servers a load-balancing pair.
    pub min_pair_samples: u64,
}

const SECOND: u64 = 1_000_000_000;

impl Default for Settings {
    fn default() -> Self {
        Settings {
            profile: None,
            hba: None,
            threshold: None,
            byte_swap_check: false,
            servers: Vec::new(),
            answer_window_ns: 5 * SECOND,
            lookahead_ns: 120 * SECOND,
            link_timeout_ns: 30 * SECOND,
            down_after_ns: 10 * SECOND,
            down_min_messages: 3,
            learn_limit: 50_000,
            max_pending: 200_000,
            max_transactions: 100_000,
            max_servers: 64,
            min_pair_samples: 8,
        }
    }
}

/// Command-line values (each overrides the file).
#[derive(Clone, Debug, Default)]
pub struct Overrides {
    pub profile: Option<String>,
    pub hba: Option<String>,
    pub threshold: Option<u32>,
    pub max_transactions: Option<usize>,
    pub max_pending: Option<usize>,
}

fn seconds(v: f64, what: &str) -> Result<u64, String> {
    if !(v.is_finite() && v > 0.0 && v <= 86_400.0) {
        return Err(format!(
            "{what} must be a number of seconds above 0 and at most 86400"
        ));
    }
    Ok((v * 1e9) as u64)
}

fn profile_named(n: &str) -> Result<&'static Profile, String> {
    Profile::by_name(n).ok_or_else(|| format!("unknown DHCP profile {n:?}: use draft, kea or isc"))
}

fn role_named(n: &str) -> Result<Role, String> {
    match n.to_ascii_lowercase().as_str() {
        "primary" => Ok(Role::Primary),
        "secondary" => Ok(Role::Secondary),
        _ => Err(format!(
            "unknown server role {n:?}: use primary or secondary"
        )),
    }
}

impl Settings {
    /// Resolves the file (if any) and the command line.
    pub fn resolve(file: Option<&ConfigFile>, cli: &Overrides) -> Result<Settings, String> {
        let mut s = Settings::default();
        if let Some(f) = file {
            if let Some(p) = &f.profile {
                s.profile = Some((profile_named(p)?, Source::ConfigFile));
            }
            if let Some(h) = &f.hba {
                let hba = h.parse::<Hba>().map_err(|e| format!("config hba: {e}"))?;
                s.hba = Some((hba, Source::ConfigFile));
            }
            if let Some(t) = f.delayed_service_threshold {
                s.threshold = Some((t, Source::ConfigFile));
            }
            s.byte_swap_check = f.secs_byte_order_check.unwrap_or(false);
            if let Some(w) = f.answer_window {
                s.answer_window_ns = seconds(w, "answer_window")?;
            }
            if let Some(w) = f.failover_link_timeout {
                s.link_timeout_ns = seconds(w, "failover_link_timeout")?;
            }
            let mut roles = Vec::new();
            for e in &f.servers {
                let role = e.role.as_deref().map(role_named).transpose()?;
                if let Some(r) = role {
                    if roles.contains(&r) {
                        return Err(format!(
                            "two servers have the role {r}: a pair has one of each"
                        ));
                    }
                    roles.push(r);
                }
                let mut identifiers = Vec::new();
                for i in &e.identifiers {
                    identifiers.push(ServerIdent::parse(i).ok_or_else(|| {
                        format!(
                            "server {:?}: identifier {i:?} is neither an address nor a DUID in hex",
                            e.name
                        )
                    })?);
                }
                if identifiers.is_empty() {
                    return Err(format!(
                        "server {:?} has no identifiers: give its address or DUID",
                        e.name
                    ));
                }
                if s.servers
                    .iter()
                    .any(|c: &ConfiguredServer| c.name == e.name)
                {
                    return Err(format!("two servers are named {:?}", e.name));
                }
                s.servers.push(ConfiguredServer {
                    name: e.name.clone(),
                    role,
                    identifiers,
                });
            }
        }
        if let Some(p) = &cli.profile {
            s.profile = Some((profile_named(p)?, Source::CommandLine));
        }
        if let Some(n) = cli.max_transactions {
            s.max_transactions = n.max(1);
        }
        if let Some(n) = cli.max_pending {
            s.max_pending = n.max(1);
        }
        if let Some(h) = &cli.hba {
            let hba = h.parse::<Hba>().map_err(|e| format!("--hba: {e}"))?;
            s.hba = Some((hba, Source::CommandLine));
        }
        if let Some(t) = cli.threshold {
            s.threshold = Some((t, Source::CommandLine));
        }
        s.lookahead_ns = s
            .lookahead_ns
            .max(s.answer_window_ns)
            .max(s.link_timeout_ns);
        Ok(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const EXAMPLE: &str = r#"
profile = "isc"
hba = "split:128"
delayed_service_threshold = 3
answer_window = 4.5

[[server]]
name = "a"
role = "primary"
identifiers = ["192.0.2.1", "00:03:00:01:02:00:00:00:01:01"]

[[server]]
name = "b"
role = "secondary"
identifiers = ["192.0.2.2"]
"#;

    #[test]
    fn example_file() {
        let f = ConfigFile::parse(EXAMPLE).unwrap();
        let s = Settings::resolve(Some(&f), &Overrides::default()).unwrap();
        assert_eq!(s.profile.map(|p| p.0.name), Some("isc"));
        assert_eq!(s.hba.map(|h| h.0), Some(Hba::split(128).unwrap()));
        assert_eq!(s.threshold, Some((3, Source::ConfigFile)));
        assert_eq!(s.answer_window_ns, 4_500_000_000);
        assert_eq!(s.servers.len(), 2);
        assert_eq!(s.servers[0].role, Some(Role::Primary));
        assert_eq!(s.servers[0].identifiers.len(), 2);
        // The command line wins.
        let cli = Overrides {
            profile: Some("kea".into()),
            hba: Some("kea".into()),
            threshold: Some(7),
            max_transactions: Some(10),
            max_pending: Some(0),
        };
        let s = Settings::resolve(Some(&f), &cli).unwrap();
        assert_eq!(
            (s.max_transactions, s.max_pending),
            (10, 1),
            "bounds of at least one"
        );
        assert_eq!(s.profile.map(|p| p.0.name), Some("kea"));
        assert_eq!(s.hba, Some((Hba::kea(), Source::CommandLine)));
        assert_eq!(s.threshold, Some((7, Source::CommandLine)));
    }

    #[test]
    fn mistakes_are_explained() {
        for (text, says) in [
            ("profile = \"rfc\"", "unknown DHCP profile"),
            ("hba = \"split:300\"", "out of range"),
            ("colour = 1", "unknown field"),
            ("[[server]]\nname = \"a\"\nidentifiers = [\"zz\"]", "neither an address"),
            ("[[server]]\nname = \"a\"\nidentifiers = []", "no identifiers"),
            ("answer_window = -1.0", "above 0"),
            (
                "[[server]]\nname=\"a\"\nrole=\"primary\"\nidentifiers=[\"10.0.0.1\"]\n[[server]]\nname=\"b\"\nrole=\"primary\"\nidentifiers=[\"10.0.0.2\"]",
                "two servers have the role",
            ),
        ] {
            let e = ConfigFile::parse(text)
                .and_then(|f| Settings::resolve(Some(&f), &Overrides::default()))
                .unwrap_err();
            assert!(e.contains(says), "{text}: {e}");
        }
    }
}
