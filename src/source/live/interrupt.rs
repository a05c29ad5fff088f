//! Ctrl-C and SIGTERM end a capture cleanly: the handler only sets a flag, which every
//! [`super::LiveSource`] checks between waits; the pipeline then sees the end of the capture,
//! the outputs flush and the summary prints. The handler resets itself (SA_RESETHAND), so a
//! second Ctrl-C kills a process that does not stop.

use std::sync::atomic::{AtomicBool, Ordering};

static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Whether SIGINT or SIGTERM arrived since [`install`].
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}

#[cfg(target_os = "linux")]
extern "C" fn on_signal(_signal: libc::c_int) {
    // Only an atomic store: async-signal-safe.
    INTERRUPTED.store(true, Ordering::SeqCst);
}

/// Installs the handler for SIGINT and SIGTERM.
#[cfg(target_os = "linux")]
pub fn install() -> std::io::Result<()> {
    for signal in [libc::SIGINT, libc::SIGTERM] {
        // SAFETY: sigaction is plain old data; all zeroes is a valid value (empty mask).
        let mut sa: libc::sigaction = unsafe { std::mem::zeroed() };
        sa.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
        // No SA_RESTART: a blocking poll returns EINTR at once.
        sa.sa_flags = libc::SA_RESETHAND;
        // SAFETY: sa is initialised; the old action is not wanted.
        let r = unsafe { libc::sigaction(signal, &sa, std::ptr::null_mut()) };
        if r < 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(())
}

/// Without libc on this system the default handlers stay (Ctrl-C ends the process unflushed).
#[cfg(not(target_os = "linux"))]
pub fn install() -> std::io::Result<()> {
    Ok(())
}
