//! Why a capture could not start, in words that tell the user what to do.

use std::fmt;
use std::io;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LiveErrorKind {
    /// Capturing needs root or CAP_NET_RAW.
    Permission,
    NoSuchInterface,
    /// The capture filter was refused.
    Filter,
    /// This build or system cannot capture this way.
    Unsupported,
    Other,
}

/// A capture that could not be opened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LiveError {
    pub kind: LiveErrorKind,
    pub interface: String,
    pub what: String,
}

impl LiveError {
    pub fn new(kind: LiveErrorKind, interface: &str, what: String) -> Self {
        LiveError {
            kind,
            interface: interface.to_string(),
            what,
        }
    }

    /// Maps a system error from opening a capture to a message naming the remedy.
    pub fn from_io(interface: &str, e: io::Error) -> Self {
        let errno = e.raw_os_error();
        let (kind, what) = match (e.kind(), errno) {
            (io::ErrorKind::PermissionDenied, _) => (
                LiveErrorKind::Permission,
                "permission denied: live capture needs root or the CAP_NET_RAW capability \
                 (run with sudo, or grant it once: sudo setcap cap_net_raw+ep /path/to/poolshark)"
                    .to_string(),
            ),
            #[cfg(target_os = "linux")]
            (_, Some(libc::ENODEV | libc::ENXIO)) => (
                LiveErrorKind::NoSuchInterface,
                "no such interface (`ip link` lists them; `any` captures on all)".to_string(),
            ),
            #[cfg(target_os = "linux")]
            (_, Some(libc::EAFNOSUPPORT | libc::EPROTONOSUPPORT)) => (
                LiveErrorKind::Unsupported,
                format!("this kernel does not offer AF_PACKET sockets ({e})"),
            ),
            _ => (LiveErrorKind::Other, e.to_string()),
        };
        LiveError::new(kind, interface, what)
    }

    pub fn filter(interface: &str, e: &str) -> Self {
        LiveError::new(
            LiveErrorKind::Filter,
            interface,
            format!("bad capture filter {e}"),
        )
    }
}

impl fmt::Display for LiveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cannot capture on {}: {}", self.interface, self.what)
    }
}

impl std::error::Error for LiveError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn permission_errors_name_root_and_the_capability() {
        for errno in [1, 13] {
            // EPERM (socket() without CAP_NET_RAW) and EACCES.
            let e = LiveError::from_io("lo", io::Error::from_raw_os_error(errno));
            assert_eq!(e.kind, LiveErrorKind::Permission);
            let s = e.to_string();
            assert!(s.starts_with("cannot capture on lo: "), "{s}");
            assert!(s.contains("CAP_NET_RAW") && s.contains("root"), "{s}");
        }
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn unknown_interfaces_say_so() {
        let e = LiveError::from_io("nope0", io::Error::from_raw_os_error(libc::ENODEV));
        assert_eq!(e.kind, LiveErrorKind::NoSuchInterface);
        assert!(e.to_string().contains("no such interface"));
    }
}
