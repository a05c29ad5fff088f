//! The runs of the commands, from options the command line (or a test, a fuzz target) makes,
//! already parsed. One file per command: for those that read captures (`read`, `check`, `stats`,
//! `export`, `capture`) its sinks (what the pipeline feeds) and the wiring of a run (sources,
//! pipelines, threads, reports, exit code); `tui` wires the TUI; `leases`, `hash`, `simulate`,
//! `generate`, `probe` and `rules` read, compute and write what their command says. `files.rs`
//! runs files through their pipelines (several at once, in order), `analysis.rs` sets up the
//! analysers `check`, `stats`, `export`, `capture --check` and the TUI share, `progress.rs` draws
//! the progress bars.

pub mod analysis;
pub mod capture;
pub mod check;
pub mod configs;
pub mod export;
pub mod files;
pub mod generate;
pub mod hash;
pub mod leases;
pub mod probe;
pub mod progress;
pub mod read;
pub mod rules;
pub mod seeds;
pub mod simulate;
pub mod stats;
pub mod tui;

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
