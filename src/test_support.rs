//! For the test suites (the unit tests and `tests/it`), not for users of the library.

use std::io::Write;

/// Tells the person running the tests that the running test skipped, and why: "skipped
/// <test>: <why>" on standard error. Written to the stream directly because libtest captures what
/// a passing test prints with `eprintln!`, and a skipped test would show only as "ok".
pub fn skip(why: impl std::fmt::Display) {
    let current = std::thread::current();
    let test = current.name().unwrap_or("a test");
    let _ = writeln!(std::io::stderr().lock(), "skipped {test}: {why}");
}
