//! A lease file as the state a capture's replay starts from (`check --leases`).
//!
//! Sound only when the file records the state at the start of the capture or before it: a file
//! saved just before the capture began, say. A file written later holds what the capture itself
//! went on to change (the shared ISC capture's two files were saved at its end, after 78 balance
//! runs and two restarts): seeding the start with it would judge the first runs against the end
//! state. So a file is admitted when the latest time it shows as past
//! ([`from_file::latest_past_time`]: a lease's `starts` or `cltt`, a peer state's `at`) is not
//! after the time of the capture's first decoded message; a file without any such time cannot be
//! placed in time and is admitted as it is.
//!
//! Leases the capture never mentions keep the file's state; those it updates take the update, as
//! they would on the server.

use super::from_file::{self, Loaded};
use crate::analyse::dhcp_lb::Role;
use crate::source::leases::LeaseFile;

/// A lease file given to seed a replay.
#[derive(Clone, Debug)]
pub struct LeaseSeed {
    /// How the user named it (its path).
    pub label: String,
    /// The server that wrote it: told by the file (see [`from_file::role_of`]), else given;
    /// `None` when neither says, and then both servers' memory of the clients is taken from it.
    pub role: Option<Role>,
    pub file: LeaseFile,
}

impl LeaseSeed {
    /// A seed whose role is what the file tells, else `given`.
    pub fn new(label: String, given: Option<Role>, file: LeaseFile) -> LeaseSeed {
        let role = from_file::role_of(&file).told().or(given);
        LeaseSeed { label, role, file }
    }
}

/// What became of a seed.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// Loaded before the first message, as the state at `capture_start`.
    Loaded {
        loaded: Loaded,
        /// The file's latest past time, if it has one.
        latest: Option<i64>,
        capture_start: f64,
    },
    /// Not loaded: the file shows a time after the capture's start.
    TooLate { latest: i64, capture_start: f64 },
    /// Not loaded: the capture had no message to start from.
    NoTraffic,
}

/// Whether `file` may stand for the state at `capture_start` (seconds): `Ok` with the file's
/// latest past time, or `Err` with that time when it lies after the start.
pub fn admit(file: &LeaseFile, capture_start: f64) -> Result<Option<i64>, i64> {
    match from_file::latest_past_time(file) {
        // Lease files keep whole seconds: a file saved during the capture's first second shows
        // that second, which is still not after the start.
        Some(t) if t as f64 > capture_start.floor() => Err(t),
        latest => Ok(latest),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::leases;

    #[test]
    fn a_file_from_before_the_capture_is_admitted_a_later_one_is_not() {
        let f = leases::parse(
            b"lease 10.0.0.1 { starts epoch 100; ends epoch 900; binding state backup; }\n\
              lease 10.0.0.2 { starts epoch 150; cltt epoch 200; ends epoch 900; tstp epoch 950; binding state active; }\n",
        );
        // Ends and tstp may lie ahead of the writing; starts and cltt happened.
        assert_eq!(from_file::latest_past_time(&f), Some(200));
        assert_eq!(admit(&f, 200.9), Ok(Some(200)));
        assert_eq!(admit(&f, 1000.0), Ok(Some(200)));
        assert_eq!(admit(&f, 199.5), Err(200));
        let never_used = leases::parse(b"lease 10.0.0.1 { binding state free; }\n");
        assert_eq!(admit(&never_used, 0.0), Ok(None));
    }

    #[test]
    fn the_role_comes_from_the_file_else_from_the_option() {
        let secondary =
            leases::parse(b"failover peer \"p\" state { my state normal at epoch 5; mclt 60; }\n");
        let s = LeaseSeed::new("s".into(), None, secondary.clone());
        assert_eq!(s.role, Some(Role::Secondary));
        let s = LeaseSeed::new("s".into(), Some(Role::Primary), secondary);
        assert_eq!(s.role, Some(Role::Secondary), "the file's word wins");
        let silent = LeaseSeed::new("x".into(), None, leases::parse(b""));
        assert_eq!(silent.role, None);
        let given = LeaseSeed::new("x".into(), Some(Role::Primary), leases::parse(b""));
        assert_eq!(given.role, Some(Role::Primary));
    }
}
