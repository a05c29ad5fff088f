//! The command line: a thin layer over the library. One file per subcommand, each parsing its
//! arguments with clap and handing them to the library (the commands that read captures to
//! [`crate::run`]); the option groups several commands share are in `args.rs`, `input.rs` and
//! `limits.rs`. No command's module imports another's.

pub mod args;
pub mod capture;
pub mod check;
pub mod docs;
pub mod export;
pub mod generate;
pub mod hash;
pub mod input;
pub mod leases;
pub mod limits;
pub mod probe;
pub mod read;
pub mod rules;
pub mod simulate;
pub mod stats;
pub mod tui;

use clap::{Parser, Subcommand};

use crate::run::exit;

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
fn is_broken_pipe(e: &crate::run::anyhow_like::Error) -> bool {
    e.io_kind() == Some(std::io::ErrorKind::BrokenPipe)
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
