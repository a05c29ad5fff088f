//! Linux AF_PACKET capture through libc: one socket per capture, a classic BPF program attached
//! before it is bound (so no packet slips through unfiltered), kernel timestamps in nanoseconds
//! through `SO_TIMESTAMPNS`, and `poll` with a short timeout so a stop request, a deadline or a
//! count is noticed promptly.
//!
//! Why `recvmsg` with `SO_TIMESTAMPNS` and not the TPACKET_V3 ring: poolshark's traffic is
//! control-plane traffic (DHCP, RSerPool, failover), thousands of packets a second at most, where
//! one copy per packet costs nothing measurable; the ring needs an mmap of shared memory read
//! with raw pointers, and its block timeout delays delivery, which a live view (the TUI) notices.
//! Kernel drops are still reported, through `PACKET_STATISTICS`.

use std::ffi::CString;
use std::io;
use std::mem;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

use super::bpf::Insn;

/// `PACKET_OUTGOING` (linux/if_packet.h): the packet was sent by this host.
pub const PACKET_OUTGOING: u8 = 4;
const PACKET_STATISTICS: libc::c_int = 6;
const ARPHRD_ETHER: u16 = 1;
pub const ARPHRD_LOOPBACK: u16 = 772;
const ARPHRD_NONE: u16 = 0xfffe;
const ARPHRD_RAWIP: u16 = 519;
/// Receive buffer asked of the kernel: a burst of a few thousand packets waits there.
const RECEIVE_BUFFER: libc::c_int = 4 << 20;

/// How the socket hands packets over.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// SOCK_RAW on an Ethernet-framed device (Ethernet, loopback): the frame as on the wire.
    Ethernet,
    /// SOCK_RAW on a device without a link header (tun, raw IP): the IP packet.
    RawIp,
    /// SOCK_DGRAM (`any`, and devices of other link types): the network packet, with the link
    /// details in the socket address; a Linux cooked v2 header is built from them.
    Cooked,
}

/// What the interface is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Device {
    pub name: String,
    /// 0 for `any`.
    pub ifindex: u32,
    /// The ARPHRD_ type, `None` for `any`.
    pub arphrd: Option<u16>,
    pub mode: Mode,
}

/// Resolves an interface name (or `any`) and decides how to capture on it.
pub fn device(name: &str) -> io::Result<Device> {
    if name == "any" {
        return Ok(Device {
            name: name.to_string(),
            ifindex: 0,
            arphrd: None,
            mode: Mode::Cooked,
        });
    }
    let cname = CString::new(name)
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "interface name with a NUL"))?;
    // SAFETY: cname is a valid NUL-terminated string.
    let ifindex = unsafe { libc::if_nametoindex(cname.as_ptr()) };
    if ifindex == 0 {
        return Err(io::Error::from_raw_os_error(libc::ENODEV));
    }
    let arphrd = hardware_type(name)?;
    let mode = match arphrd {
        ARPHRD_ETHER | ARPHRD_LOOPBACK => Mode::Ethernet,
        ARPHRD_NONE | ARPHRD_RAWIP => Mode::RawIp,
        _ => Mode::Cooked,
    };
    Ok(Device {
        name: name.to_string(),
        ifindex,
        arphrd: Some(arphrd),
        mode,
    })
}

/// The interface's ARPHRD_ type (SIOCGIFHWADDR), asked through a plain UDP socket, which needs
/// no privilege.
fn hardware_type(name: &str) -> io::Result<u16> {
    // SAFETY: socket() has no memory arguments; the result is checked.
    let fd = unsafe { libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: fd is a fresh descriptor owned by nobody else.
    let fd = unsafe { OwnedFd::from_raw_fd(fd) };
    // SAFETY: ifreq is plain old data; all zeroes is a valid value.
    let mut req: libc::ifreq = unsafe { mem::zeroed() };
    let bytes = name.as_bytes();
    if bytes.len() >= req.ifr_name.len() {
        return Err(io::Error::from_raw_os_error(libc::ENODEV));
    }
    for (dst, src) in req.ifr_name.iter_mut().zip(bytes) {
        *dst = *src as libc::c_char;
    }
    // SAFETY: req is a valid ifreq with a NUL-terminated name; the kernel writes into it.
    let r = unsafe { libc::ioctl(fd.as_raw_fd(), libc::SIOCGIFHWADDR, &mut req) };
    if r < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: SIOCGIFHWADDR fills ifru_hwaddr.
    Ok(unsafe { req.ifr_ifru.ifru_hwaddr.sa_family })
}

/// One received packet's details.
#[derive(Clone, Copy, Debug, Default)]
pub struct Received {
    /// Bytes written into the buffer.
    pub caplen: usize,
    /// Length of the packet as the kernel had it.
    pub len: usize,
    pub secs: i64,
    pub nanos: u32,
    /// Whether the kernel gave a timestamp.
    pub stamped: bool,
    pub pkttype: u8,
    pub hatype: u16,
    pub ifindex: u32,
    pub protocol: u16,
    pub addr: [u8; 8],
    pub addr_len: u8,
}

/// An open, filtered, bound AF_PACKET socket.
pub struct Socket {
    fd: OwnedFd,
}

fn check(r: libc::c_int) -> io::Result<()> {
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
    }
}

fn setsockopt<T>(fd: &OwnedFd, level: libc::c_int, name: libc::c_int, value: &T) -> io::Result<()> {
    // SAFETY: value points to a live T of the size given.
    check(unsafe {
        libc::setsockopt(
            fd.as_raw_fd(),
            level,
            name,
            (value as *const T).cast(),
            mem::size_of::<T>() as libc::socklen_t,
        )
    })
}

impl Socket {
    /// Opens the socket, attaches `filter`, binds it to the device.
    pub fn open(dev: &Device, filter: &[Insn]) -> io::Result<Socket> {
        let kind = match dev.mode {
            Mode::Ethernet | Mode::RawIp => libc::SOCK_RAW,
            Mode::Cooked => libc::SOCK_DGRAM,
        };
        // Protocol 0: the socket receives nothing until it is bound, after the filter is on.
        // SAFETY: no memory arguments; the result is checked.
        let fd = unsafe { libc::socket(libc::AF_PACKET, kind | libc::SOCK_CLOEXEC, 0) };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: fd is a fresh descriptor owned by nobody else.
        let fd = unsafe { OwnedFd::from_raw_fd(fd) };
        let one: libc::c_int = 1;
        setsockopt(&fd, libc::SOL_SOCKET, libc::SO_TIMESTAMPNS, &one)?;
        // As root the buffer may exceed rmem_max; otherwise take what the system allows.
        if setsockopt(&fd, libc::SOL_SOCKET, libc::SO_RCVBUFFORCE, &RECEIVE_BUFFER).is_err() {
            let _ = setsockopt(&fd, libc::SOL_SOCKET, libc::SO_RCVBUF, &RECEIVE_BUFFER);
        }
        let prog = libc::sock_fprog {
            len: u16::try_from(filter.len())
                .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "filter too long"))?,
            // The kernel copies the program; it only reads through this pointer.
            filter: filter.as_ptr() as *mut libc::sock_filter,
        };
        setsockopt(&fd, libc::SOL_SOCKET, libc::SO_ATTACH_FILTER, &prog)?;
        // SAFETY: sockaddr_ll is plain old data; all zeroes is a valid value.
        let mut sll: libc::sockaddr_ll = unsafe { mem::zeroed() };
        sll.sll_family = libc::AF_PACKET as u16;
        sll.sll_protocol = (libc::ETH_P_ALL as u16).to_be();
        sll.sll_ifindex = dev.ifindex as libc::c_int;
        // SAFETY: sll is a valid sockaddr_ll and its size is given.
        check(unsafe {
            libc::bind(
                fd.as_raw_fd(),
                (&sll as *const libc::sockaddr_ll).cast(),
                mem::size_of::<libc::sockaddr_ll>() as libc::socklen_t,
            )
        })?;
        let s = Socket { fd };
        // Counters from before the bind mean nothing: reading them resets them.
        let _ = s.statistics();
        Ok(s)
    }

    /// Waits up to `timeout_ms` for a packet; `Ok(false)` when none came (or a signal arrived).
    pub fn wait(&self, timeout_ms: i32) -> io::Result<bool> {
        let mut p = libc::pollfd {
            fd: self.fd.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one valid pollfd.
        let r = unsafe { libc::poll(&mut p, 1, timeout_ms) };
        if r < 0 {
            let e = io::Error::last_os_error();
            if e.kind() == io::ErrorKind::Interrupted {
                return Ok(false);
            }
            return Err(e);
        }
        if r > 0 && p.revents & (libc::POLLERR | libc::POLLNVAL) != 0 {
            return Err(io::Error::other(
                "the capture socket reported an error (the interface may have gone away)",
            ));
        }
        Ok(r > 0)
    }

    /// Reads one waiting packet into `buf` without blocking; `Ok(None)` when there is none.
    pub fn receive(&self, buf: &mut [u8]) -> io::Result<Option<Received>> {
        // SAFETY: sockaddr_ll is plain old data; all zeroes is a valid value.
        let mut sll: libc::sockaddr_ll = unsafe { mem::zeroed() };
        let mut iov = libc::iovec {
            iov_base: buf.as_mut_ptr().cast(),
            iov_len: buf.len(),
        };
        // u64 words keep the control buffer aligned for cmsghdr.
        let mut control = [0u64; 16];
        // SAFETY: msghdr is plain old data; all zeroes is a valid value.
        let mut msg: libc::msghdr = unsafe { mem::zeroed() };
        msg.msg_name = (&mut sll as *mut libc::sockaddr_ll).cast();
        msg.msg_namelen = mem::size_of::<libc::sockaddr_ll>() as libc::socklen_t;
        msg.msg_iov = &mut iov;
        msg.msg_iovlen = 1;
        msg.msg_control = control.as_mut_ptr().cast();
        msg.msg_controllen = mem::size_of_val(&control) as _;
        // MSG_TRUNC: the return value is the packet's whole length even when the buffer is
        // smaller (the snap length).
        // SAFETY: every pointer in msg refers to a live buffer of the length given.
        let n = unsafe {
            libc::recvmsg(
                self.fd.as_raw_fd(),
                &mut msg,
                libc::MSG_TRUNC | libc::MSG_DONTWAIT,
            )
        };
        if n < 0 {
            let e = io::Error::last_os_error();
            return match e.kind() {
                io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted => Ok(None),
                _ => Err(e),
            };
        }
        let len = n as usize;
        let mut r = Received {
            caplen: len.min(buf.len()),
            len,
            pkttype: sll.sll_pkttype,
            hatype: sll.sll_hatype,
            ifindex: u32::try_from(sll.sll_ifindex).unwrap_or(0),
            protocol: u16::from_be(sll.sll_protocol),
            addr_len: sll.sll_halen.min(8),
            addr: sll.sll_addr,
            ..Received::default()
        };
        // SAFETY: msg was filled by recvmsg; the CMSG macros stay within msg_controllen.
        unsafe {
            let mut c = libc::CMSG_FIRSTHDR(&msg);
            while !c.is_null() {
                if (*c).cmsg_level == libc::SOL_SOCKET && (*c).cmsg_type == libc::SCM_TIMESTAMPNS {
                    let ts: libc::timespec = std::ptr::read_unaligned(libc::CMSG_DATA(c).cast());
                    r.secs = ts.tv_sec;
                    r.nanos = u32::try_from(ts.tv_nsec).unwrap_or(0).min(999_999_999);
                    r.stamped = true;
                }
                c = libc::CMSG_NXTHDR(&msg, c);
            }
        }
        Ok(Some(r))
    }

    /// Packets the filter passed and packets the kernel dropped for want of buffer space since
    /// the last call (reading resets the kernel's counters).
    pub fn statistics(&self) -> io::Result<(u64, u64)> {
        let mut st = [0u32; 2];
        let mut len = mem::size_of_val(&st) as libc::socklen_t;
        // SAFETY: st is a live tpacket_stats-sized buffer whose length is given.
        check(unsafe {
            libc::getsockopt(
                self.fd.as_raw_fd(),
                libc::SOL_PACKET,
                PACKET_STATISTICS,
                st.as_mut_ptr().cast(),
                &mut len,
            )
        })?;
        Ok((u64::from(st[0]), u64::from(st[1])))
    }
}

/// Whether a received packet is the outgoing copy of a loopback packet, which the socket sees
/// again as incoming (libpcap drops it the same way).
pub fn is_loopback_echo(r: &Received) -> bool {
    r.pkttype == PACKET_OUTGOING && r.hatype == ARPHRD_LOOPBACK
}
