//! Reading a `--config` file from disk: its kind told by content ([`super::detect`]), and the
//! files a dhcpd.conf `include`s, found as dhcpd finds them (a relative name from the current
//! directory, where dhcpd was started) or, failing that, beside the file that includes them
//! (where a copy of a server's configuration usually keeps them).

use std::path::{Path, PathBuf};

use super::{detect, dhcpd, kea, ConfigError, Kind, ServerConfig};

/// A configuration file, read.
#[derive(Clone, Debug)]
pub enum Loaded {
    /// poolshark's own TOML, as text (`crate::analyse::dhcp_lb::ConfigFile` reads it).
    Poolshark(String),
    /// A DHCP server's configuration.
    Server(Box<ServerConfig>),
}

/// A file that cannot be read at all is an error without a line.
fn unreadable(file: &str, what: String) -> Vec<ConfigError> {
    vec![ConfigError {
        file: file.to_string(),
        line: 0,
        col: 0,
        what,
    }]
}

/// Reads the configuration file at `path`.
pub fn read(path: &Path) -> Result<Loaded, Vec<ConfigError>> {
    let label = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| unreadable(&label, format!("cannot read: {e}")))?;
    match detect(&bytes) {
        Kind::Poolshark => String::from_utf8(bytes)
            .map(Loaded::Poolshark)
            .map_err(|_| unreadable(&label, "a TOML file must be UTF-8".into())),
        Kind::Kea => kea::parse(&label, &bytes).map(|c| Loaded::Server(Box::new(c))),
        Kind::Dhcpd => {
            let mut include = |name: &str, from: &str| include(name, from);
            dhcpd::parse(&label, &bytes, &mut include).map(|c| Loaded::Server(Box::new(c)))
        }
    }
}

/// The file `name` that the file `from` includes: its label and bytes.
fn include(name: &str, from: &str) -> Result<(String, Vec<u8>), String> {
    let given = PathBuf::from(name);
    let mut tried = vec![given.clone()];
    if given.is_relative() {
        if let Some(dir) = Path::new(from).parent() {
            tried.push(dir.join(&given));
        }
    }
    let mut first_error = None;
    for p in &tried {
        match std::fs::read(p) {
            Ok(b) => return Ok((p.display().to_string(), b)),
            Err(e) => {
                first_error.get_or_insert(e);
            }
        }
    }
    let names: Vec<String> = tried.iter().map(|p| p.display().to_string()).collect();
    Err(format!(
        "cannot read it ({}; tried {})",
        first_error.map_or_else(String::new, |e| e.to_string()),
        names.join(" and ")
    ))
}

/// Convenience for tests and callers that have a server configuration in hand.
impl Loaded {
    pub fn server(self) -> Option<ServerConfig> {
        match self {
            Loaded::Server(s) => Some(*s),
            Loaded::Poolshark(_) => None,
        }
    }
}
