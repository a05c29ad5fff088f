//! `--config FILE` (repeatable, one per server) for `check`, `stats`, `tui`, `capture --check`
//! and `leases`: each file read once, its kind told by its content (poolshark's TOML, a
//! dhcpd.conf, a Kea configuration). A server's file with errors is reported on standard error,
//! one `FILE:LINE:COLUMN: what` line per error, and left out: the run goes on with the others.
//! The run stops (exit 2) only when no file given can be used, or when poolshark's own TOML is
//! wrong (as it always has).

use std::path::PathBuf;

use super::anyhow_like::{Error, Result};
use crate::analyse::dhcp_lb::ConfigFile;
use crate::config::{self, Loaded, ServerConfig};

/// The `--config` files that could be read.
#[derive(Clone, Debug, Default)]
pub struct Configs {
    /// poolshark's own TOML.
    pub toml: Option<ConfigFile>,
    /// The servers' configurations, in the order given.
    pub servers: Vec<ServerConfig>,
}

/// Reads every file of `paths`, reporting the errors of those left out.
pub fn load(paths: &[PathBuf]) -> Result<Configs> {
    let mut out = Configs::default();
    let mut refused = 0usize;
    for p in paths {
        match config::read(p) {
            Ok(Loaded::Poolshark(text)) => {
                if out.toml.is_some() {
                    return Err(Error::msg(format!(
                        "--config {}: a second poolshark TOML file: give one (and the servers' own files beside it)",
                        p.display()
                    )));
                }
                let f = ConfigFile::parse(&text)
                    .map_err(|e| Error::msg(format!("--config {}: {e}", p.display())))?;
                out.toml = Some(f);
            }
            Ok(Loaded::Server(s)) => out.servers.push(*s),
            Err(errors) => {
                refused += 1;
                for e in &errors {
                    eprintln!("poolshark: {e}");
                }
                eprintln!(
                    "poolshark: --config {}: not used ({} error{}); going on without it",
                    p.display(),
                    errors.len(),
                    if errors.len() == 1 { "" } else { "s" }
                );
            }
        }
    }
    if refused > 0 && refused == paths.len() {
        return Err(Error::msg(format!(
            "no --config file could be used ({} given, each with errors above)",
            paths.len()
        )));
    }
    Ok(out)
}
