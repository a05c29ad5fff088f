//! The command line: a thin layer over the library. One file per subcommand.

pub mod capture;
pub mod check;
pub mod configs;
pub mod docs;
pub mod export;
pub mod files;
pub mod generate;
pub mod hash;
pub mod input;
pub mod leases;
pub mod leases_kea;
pub mod leases_usage;
pub mod limits;
pub mod probe;
pub mod progress;
pub mod read;
pub mod rules;
pub mod simulate;
pub mod stats;
pub mod tui;

use clap::{Parser, Subcommand};

/// Exit codes shared by every subcommand.
pub mod exit {
    /// Success (and, for `check`, no finding at or above `--fail-on`).
    pub const OK: i32 = 0;
    /// `check`: a finding at or above `--fail-on`.
    pub const FINDINGS: i32 = 1;
    /// Usage error, or an input that cannot be read.
    pub const USAGE: i32 = 2;
    /// `-T fields`: an `-e` name that is neither a field nor a protocol (tshark's exit code for
    /// it; a display filter naming one is a usage error, as in tshark).
    pub const INVALID_FIELD: i32 = 1;
}

#[derive(Parser, Debug)]
#[command(
    name = "poolshark",
    version,
    about = "Dissect RSerPool and DHCP captures and check how servers balance their pools",
    long_about = None
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Decode a capture: one line per frame, or the whole tree (-V), or JSON.
    Read(read::ReadArgs),
    /// Capture on a network interface and decode as `read` does (optionally --check, -w).
    Capture(capture::LiveArgs),
    /// Replay a capture through the reference algorithms and report every deviation.
    Check(check::CheckArgs),
    /// Write a capture's messages, DHCP transactions, RSerPool resolutions, findings and
    /// windows as Parquet tables (one file per table per capture).
    Export(export::ExportArgs),
    /// Per-pool balance over time and message statistics.
    #[command(mut_arg("jobs", |a| a.help(stats::JOBS_HELP)))]
    Stats(stats::StatsArgs),
    /// The balance of every pool over time, the findings and their frames, in the terminal.
    Tui(tui::TuiArgs),
    /// Run a reference selection policy over a pool given on the command line.
    Simulate(simulate::SimulateArgs),
    /// Show the RFC 3074 hash bucket of a client key and which server owns it.
    Hash(hash::HashArgs),
    /// An ISC DHCP failover server's dhcpd.leases: leases per pool, lts, and the balancer's
    /// verdict (what a run would move, whether a POOLREQ is due).
    Leases(leases::LeasesArgs),
    /// Write a large mixed capture (RSerPool, DHCP, failover, background), from a seed.
    Generate(generate::GenerateArgs),
    /// Ask a live DHCP server pair which server serves each hash bucket (a DISCOVER or a
    /// SOLICIT per bucket, never a REQUEST) and compare with the expected map.
    Probe(probe::ProbeArgs),
    /// List every finding rule `check` can report: its id, severities and meaning.
    Rules(rules::RulesArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    Completions(docs::CompletionsArgs),
    /// Write the man pages: poolshark.1 and one per command.
    Man(docs::ManArgs),
}

/// Parses the command line and runs it; returns the process exit code.
pub fn main() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() {
                exit::USAGE
            } else {
                exit::OK
            };
            let _ = e.print();
            return code;
        }
    };
    let r = match cli.command {
        Command::Read(a) => read::run(a),
        Command::Capture(a) => capture::run(a),
        Command::Check(a) => check::run(a),
        Command::Stats(a) => stats::run(a),
        Command::Export(a) => export::run(a),
        Command::Tui(a) => tui::run(a),
        Command::Simulate(a) => simulate::run(a),
        Command::Hash(a) => hash::run(a),
        Command::Leases(a) => leases::run(a),
        Command::Generate(a) => generate::run(a),
        Command::Probe(a) => probe::run(a),
        Command::Rules(a) => rules::run(a),
        Command::Completions(a) => docs::completions(a),
        Command::Man(a) => docs::man(a),
    };
    match r {
        Ok(code) => code,
        Err(e) => {
            if is_broken_pipe(&e) {
                return exit::OK;
            }
            eprintln!("poolshark: {e}");
            exit::USAGE
        }
    }
}

/// A CLI piped into `head` must stop quietly.
fn is_broken_pipe(e: &anyhow_like::Error) -> bool {
    e.io_kind() == Some(std::io::ErrorKind::BrokenPipe)
}

/// A small error type for the command line: a message, and the I/O error kind behind it if any.
pub mod anyhow_like {
    use std::fmt;

    #[derive(Debug)]
    pub struct Error {
        msg: String,
        io: Option<std::io::ErrorKind>,
    }

    impl Error {
        pub fn msg(m: impl Into<String>) -> Self {
            Error {
                msg: m.into(),
                io: None,
            }
        }

        pub fn io_kind(&self) -> Option<std::io::ErrorKind> {
            self.io
        }
    }

    impl fmt::Display for Error {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str(&self.msg)
        }
    }

    impl From<std::io::Error> for Error {
        fn from(e: std::io::Error) -> Self {
            Error {
                msg: e.to_string(),
                io: Some(e.kind()),
            }
        }
    }

    impl From<String> for Error {
        fn from(m: String) -> Self {
            Error::msg(m)
        }
    }

    impl From<&str> for Error {
        fn from(m: &str) -> Self {
            Error::msg(m)
        }
    }

    impl From<serde_json::Error> for Error {
        fn from(e: serde_json::Error) -> Self {
            let io = e.io_error_kind();
            Error {
                msg: e.to_string(),
                io,
            }
        }
    }

    pub type Result<T> = std::result::Result<T, Error>;
}

#[cfg(test)]
mod tests {
    use super::Cli;
    use clap::CommandFactory;

    /// clap's own checks of the command line (unique argument ids, valid `requires` and
    /// `conflicts_with` names ...). clap makes them only where it is built with debug
    /// assertions (debug builds and the `tests` profile, the README's test command), at the
    /// first parse; a release build misreads the arguments instead.
    #[test]
    fn the_command_line_is_consistent() {
        // clap is built with the profile's debug assertions, as this crate is.
        if !cfg!(debug_assertions) {
            crate::test_support::skip("clap checks only with debug assertions (--profile tests)");
            return;
        }
        Cli::command().debug_assert();
    }
}
