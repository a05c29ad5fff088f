//! Giving up privileges once the sockets that needed them are open, as tcpdump's `-Z` does:
//! a process that reads packets from the network should not parse them as root.
//!
//! As root: the supplementary groups are replaced by the user's group (`setgroups`), then the
//! group and the user ids, real, effective and saved (`setresgid`, `setresuid`), become the
//! user's; the capabilities go with root. Not root but with capabilities (`setcap
//! cap_net_raw+ep`): every capability is cleared. Either way `no_new_privs` is set, so no
//! set-user-id program run later gets them back. Sockets already open keep working.
//!
//! Call it before any thread starts: capabilities are per thread (the ids are changed for the
//! whole process by the C library).

use std::fmt;

/// The user tcpdump's `-Z` would pick on a system without a `tcpdump` user.
pub const DEFAULT_USER: &str = "nobody";

/// What was given up.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Dropped {
    /// Root became this user.
    ToUser { user: String, uid: u32, gid: u32 },
    /// Not root: the capabilities the process had were cleared.
    Capabilities,
    /// Root was asked to stay root (`-Z root`); only no_new_privs was set.
    StayedRoot,
}

impl fmt::Display for Dropped {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Dropped::ToUser { user, uid, gid } => {
                write!(f, "running as {user} (uid {uid}, gid {gid})")
            }
            Dropped::Capabilities => f.write_str("capabilities dropped"),
            Dropped::StayedRoot => f.write_str("still running as root, as -Z root asks"),
        }
    }
}

/// Gives up root for `user` (or, not being root, every capability).
#[cfg(target_os = "linux")]
pub fn drop_to(user: &str) -> Result<Dropped, String> {
    // SAFETY: geteuid has no arguments and cannot fail.
    let euid = unsafe { libc::geteuid() };
    let dropped = if euid != 0 {
        clear_capabilities()?;
        Dropped::Capabilities
    } else if user == "root" {
        Dropped::StayedRoot
    } else {
        let (uid, gid) = lookup(user)?;
        let fail = |what: &str| {
            format!(
                "cannot become {user} ({what}: {}); -Z root keeps root",
                std::io::Error::last_os_error()
            )
        };
        // SAFETY: one gid from a live array.
        if unsafe { libc::setgroups(1, &gid) } != 0 {
            return Err(fail("setgroups"));
        }
        // SAFETY: plain ids.
        if unsafe { libc::setresgid(gid, gid, gid) } != 0 {
            return Err(fail("setresgid"));
        }
        // SAFETY: plain ids.
        if unsafe { libc::setresuid(uid, uid, uid) } != 0 {
            return Err(fail("setresuid"));
        }
        // Root must be gone for good: getting it back has to fail.
        // SAFETY: plain id; a success is undone by the error below ending the process's run.
        if uid != 0 && unsafe { libc::setuid(0) } == 0 {
            return Err(format!("became {user}, yet setuid(0) still succeeds"));
        }
        Dropped::ToUser {
            user: user.to_string(),
            uid,
            gid,
        }
    };
    // SAFETY: prctl with integer arguments.
    if unsafe { libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) } != 0 {
        return Err(format!(
            "cannot set no_new_privs: {}",
            std::io::Error::last_os_error()
        ));
    }
    Ok(dropped)
}

#[cfg(not(target_os = "linux"))]
pub fn drop_to(_user: &str) -> Result<Dropped, String> {
    Err("dropping privileges is implemented for Linux only".into())
}

/// The user's uid and primary gid.
#[cfg(target_os = "linux")]
fn lookup(user: &str) -> Result<(u32, u32), String> {
    let name = std::ffi::CString::new(user).map_err(|_| format!("bad user name {user:?}"))?;
    // SAFETY: passwd is plain old data; all zeroes is a valid value.
    let mut pw: libc::passwd = unsafe { std::mem::zeroed() };
    let mut found: *mut libc::passwd = std::ptr::null_mut();
    let mut buf = vec![0 as libc::c_char; 16 * 1024];
    // SAFETY: every pointer refers to a live buffer of the length given.
    let r = unsafe {
        libc::getpwnam_r(
            name.as_ptr(),
            &mut pw,
            buf.as_mut_ptr(),
            buf.len(),
            &mut found,
        )
    };
    if r != 0 || found.is_null() {
        return Err(format!(
            "no user {user:?} to run as (-Z USER names another; -Z root keeps root)"
        ));
    }
    Ok((pw.pw_uid, pw.pw_gid))
}

/// Clears every capability of the calling thread (effective, permitted, inheritable).
#[cfg(target_os = "linux")]
fn clear_capabilities() -> Result<(), String> {
    #[repr(C)]
    struct Header {
        version: u32,
        pid: libc::c_int,
    }
    #[repr(C)]
    #[derive(Clone, Copy)]
    struct Data {
        effective: u32,
        permitted: u32,
        inheritable: u32,
    }
    // _LINUX_CAPABILITY_VERSION_3: two 32-bit words per set.
    let header = Header {
        version: 0x2008_0522,
        pid: 0,
    };
    let data = [Data {
        effective: 0,
        permitted: 0,
        inheritable: 0,
    }; 2];
    // SAFETY: the header and the two data words are live for the call.
    let r = unsafe { libc::syscall(libc::SYS_capset, &header, data.as_ptr()) };
    if r != 0 {
        return Err(format!(
            "cannot drop capabilities: {}",
            std::io::Error::last_os_error()
        ));
    }
    Ok(())
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[test]
    fn users_are_looked_up() {
        // root exists everywhere; its ids are 0.
        assert_eq!(lookup("root").unwrap(), (0, 0));
        let e = lookup("no-such-user-poolshark").unwrap_err();
        assert!(e.contains("no user") && e.contains("-Z root"), "{e}");
        assert!(lookup("a\0b").is_err());
    }

    #[test]
    fn what_was_dropped_is_said() {
        let d = Dropped::ToUser {
            user: "nobody".into(),
            uid: 65534,
            gid: 65534,
        };
        assert_eq!(d.to_string(), "running as nobody (uid 65534, gid 65534)");
    }
}
