//! The probe on a real interface (Linux): what the interface is (its hardware address, its IPv6
//! link-local address), an AF_PACKET socket that sends the built frames, and a live capture
//! ([`LiveSource`], the same as `poolshark capture`'s) whose frames go through the project's
//! pipeline to an [`AnswerSink`].
//!
//! AF_PACKET is what a DHCPv4 client without an address needs to broadcast from 0.0.0.0 and to
//! see broadcast answers addressed to another hardware address; it takes CAP_NET_RAW. For
//! DHCPv6 the probe also binds UDP port 546 when it can, so that the kernel does not answer the
//! servers' ADVERTISEs with ICMPv6 port unreachable (the datagrams themselves are read from the
//! capture).

use std::ffi::CString;
use std::io;
use std::mem;
use std::net::{Ipv6Addr, UdpSocket};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::time::{Duration, Instant};

use super::answers::{Answer, AnswerSink};
use super::exchange::Network;
use super::keys::Family;
use super::packets::{LinkSource, V4_CLIENT_PORT, V6_CLIENT_PORT};
use crate::filter::capture::compiled_expression;
use crate::pipeline::{Options, Pipeline};
use crate::source::live::{interrupt, LiveOptions, LiveSource, Polled};

const ARPHRD_ETHER: u16 = 1;
const ARPHRD_LOOPBACK: u16 = 772;
/// How often the capture is looked at while waiting: the probe's timing is within this.
const POLL: Duration = Duration::from_millis(5);

/// What the probe needs to know of its interface.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Interface {
    pub name: String,
    pub ifindex: u32,
    pub source: LinkSource,
}

/// Why the probe cannot use the interface, in words that say what to do.
pub fn permission_hint(e: &io::Error) -> Option<&'static str> {
    match e.raw_os_error() {
        Some(libc::EPERM | libc::EACCES) => Some(
            "permission denied: the probe sends DHCP broadcasts from 0.0.0.0 and reads the \
             answers through AF_PACKET sockets, which need root or the CAP_NET_RAW capability \
             (run with sudo, or grant it once: sudo setcap cap_net_raw+ep /path/to/poolshark); \
             --dry-run shows the packets without sending them",
        ),
        _ => None,
    }
}

fn interface_error(name: &str, e: io::Error) -> String {
    match e.raw_os_error() {
        Some(libc::ENODEV | libc::ENXIO) => {
            format!("no interface {name} (`ip link` lists them)")
        }
        _ => match permission_hint(&e) {
            Some(h) => format!("cannot probe on {name}: {h}"),
            None => format!("cannot probe on {name}: {e}"),
        },
    }
}

/// Looks the interface up: it must be Ethernet (or the loopback device, Ethernet-framed).
pub fn interface(name: &str) -> Result<Interface, String> {
    let cname = CString::new(name).map_err(|_| format!("bad interface name {name:?}"))?;
    // SAFETY: cname is a valid NUL-terminated string.
    let ifindex = unsafe { libc::if_nametoindex(cname.as_ptr()) };
    if ifindex == 0 {
        return Err(interface_error(name, io::Error::last_os_error()));
    }
    let (hatype, mac) = hardware_address(name).map_err(|e| interface_error(name, e))?;
    if hatype != ARPHRD_ETHER && hatype != ARPHRD_LOOPBACK {
        return Err(format!(
            "{name} is not an Ethernet interface (hardware type {hatype}): DHCP clients \
             broadcast on Ethernet links"
        ));
    }
    Ok(Interface {
        name: name.to_string(),
        ifindex,
        source: LinkSource {
            mac,
            link_local: link_local(name),
        },
    })
}

/// The interface's ARPHRD_ type and hardware address (SIOCGIFHWADDR, no privilege needed).
fn hardware_address(name: &str) -> io::Result<(u16, [u8; 6])> {
    // SAFETY: no memory arguments; the result is checked.
    let fd = unsafe { libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: fd is a fresh descriptor owned by nobody else.
    let fd = unsafe { OwnedFd::from_raw_fd(fd) };
    // SAFETY: ifreq is plain old data; all zeroes is a valid value.
    let mut req: libc::ifreq = unsafe { mem::zeroed() };
    if name.len() >= req.ifr_name.len() {
        return Err(io::Error::from_raw_os_error(libc::ENODEV));
    }
    for (dst, src) in req.ifr_name.iter_mut().zip(name.as_bytes()) {
        *dst = *src as libc::c_char;
    }
    // SAFETY: req is a valid ifreq with a NUL-terminated name; the kernel writes into it.
    if unsafe { libc::ioctl(fd.as_raw_fd(), libc::SIOCGIFHWADDR, &mut req) } < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: SIOCGIFHWADDR fills ifru_hwaddr.
    let hw = unsafe { req.ifr_ifru.ifru_hwaddr };
    let mut mac = [0u8; 6];
    for (m, d) in mac.iter_mut().zip(hw.sa_data.iter()) {
        *m = *d as u8;
    }
    Ok((hw.sa_family, mac))
}

/// The interface's IPv6 link-local address, if it has one.
fn link_local(name: &str) -> Option<Ipv6Addr> {
    let mut list: *mut libc::ifaddrs = std::ptr::null_mut();
    // SAFETY: getifaddrs writes a list head into `list`, freed below.
    if unsafe { libc::getifaddrs(&mut list) } != 0 {
        return None;
    }
    let mut found = None;
    let mut p = list;
    while !p.is_null() {
        // SAFETY: p is a node of the list getifaddrs returned, not yet freed.
        let node = unsafe { &*p };
        p = node.ifa_next;
        if node.ifa_addr.is_null() || node.ifa_name.is_null() {
            continue;
        }
        // SAFETY: ifa_name is a NUL-terminated string of the live list.
        let n = unsafe { std::ffi::CStr::from_ptr(node.ifa_name) };
        // SAFETY: ifa_addr points to a sockaddr of the live list.
        let family = unsafe { (*node.ifa_addr).sa_family };
        if n.to_bytes() != name.as_bytes() || i32::from(family) != libc::AF_INET6 {
            continue;
        }
        // SAFETY: an AF_INET6 address is a sockaddr_in6.
        let sin6 = unsafe { &*(node.ifa_addr as *const libc::sockaddr_in6) };
        let a = Ipv6Addr::from(sin6.sin6_addr.s6_addr);
        if a.segments()[0] & 0xffc0 == 0xfe80 {
            found = Some(a);
            break;
        }
    }
    // SAFETY: list came from getifaddrs and is freed once.
    unsafe { libc::freeifaddrs(list) };
    found
}

/// An AF_PACKET socket that only sends Ethernet frames (protocol 0: it receives nothing).
pub struct FrameSender {
    fd: OwnedFd,
    ifindex: u32,
}

impl FrameSender {
    pub fn open(ifindex: u32) -> io::Result<FrameSender> {
        // SAFETY: no memory arguments; the result is checked.
        let fd = unsafe { libc::socket(libc::AF_PACKET, libc::SOCK_RAW | libc::SOCK_CLOEXEC, 0) };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: fd is a fresh descriptor owned by nobody else.
        let fd = unsafe { OwnedFd::from_raw_fd(fd) };
        Ok(FrameSender { fd, ifindex })
    }

    /// Sends a whole frame, its destination read from its Ethernet header.
    pub fn send(&self, frame: &[u8]) -> io::Result<()> {
        let (Some(dst), Some(ethertype)) = (frame.get(..6), frame.get(12..14)) else {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "a frame shorter than its Ethernet header",
            ));
        };
        // SAFETY: sockaddr_ll is plain old data; all zeroes is a valid value.
        let mut sll: libc::sockaddr_ll = unsafe { mem::zeroed() };
        sll.sll_family = libc::AF_PACKET as u16;
        sll.sll_protocol = u16::from_ne_bytes([ethertype[0], ethertype[1]]);
        sll.sll_ifindex = self.ifindex as libc::c_int;
        sll.sll_halen = 6;
        sll.sll_addr[..6].copy_from_slice(dst);
        // SAFETY: frame and sll are live for the call, their lengths given.
        let n = unsafe {
            libc::sendto(
                self.fd.as_raw_fd(),
                frame.as_ptr().cast(),
                frame.len(),
                0,
                (&sll as *const libc::sockaddr_ll).cast(),
                mem::size_of::<libc::sockaddr_ll>() as libc::socklen_t,
            )
        };
        if n < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }
}

/// The probe's sockets on one interface.
pub struct LiveNetwork {
    name: String,
    sender: FrameSender,
    capture: LiveSource,
    pipeline: Pipeline,
    answers: AnswerSink,
    /// DHCPv6: UDP port 546 held so the kernel keeps quiet about the answers.
    _client_port: Option<UdpSocket>,
}

impl LiveNetwork {
    /// Opens the capture (first, so no answer is missed) and the sending socket.
    pub fn open(iface: &Interface, family: Family) -> Result<LiveNetwork, String> {
        let port = match family {
            Family::V4 => V4_CLIENT_PORT,
            Family::V6 => V6_CLIENT_PORT,
        };
        let mut opts = LiveOptions::new(&iface.name);
        opts.filter = compiled_expression(&format!("udp dst port {port}"));
        opts.poll_interval = POLL;
        let capture = LiveSource::open(&opts).map_err(|e| {
            if e.kind == crate::source::live::LiveErrorKind::Permission {
                format!(
                    "cannot probe on {}: {}",
                    iface.name,
                    permission_hint(&io::Error::from_raw_os_error(libc::EPERM)).unwrap_or_default()
                )
            } else {
                e.to_string()
            }
        })?;
        let sender =
            FrameSender::open(iface.ifindex).map_err(|e| interface_error(&iface.name, e))?;
        let client_port = match family {
            Family::V6 => UdpSocket::bind(("::", V6_CLIENT_PORT)).ok(),
            Family::V4 => None,
        };
        Ok(LiveNetwork {
            name: iface.name.clone(),
            sender,
            capture,
            pipeline: Pipeline::new(Options::default()),
            answers: AnswerSink::new(family),
            _client_port: client_port,
        })
    }

    /// Frames the capture passed, and the kernel's drops.
    pub fn capture_stats(&mut self) -> (u64, u64) {
        let s = self.capture.stats();
        (s.captured, s.kernel_dropped)
    }
}

impl Network for LiveNetwork {
    fn send(&mut self, frame: &[u8]) -> Result<(), String> {
        self.sender
            .send(frame)
            .map_err(|e| match permission_hint(&e) {
                Some(h) => format!("cannot send on {}: {h}", self.name),
                None => format!("cannot send on {}: {e}", self.name),
            })
    }

    fn receive(&mut self, until: Instant, into: &mut Vec<Answer>) -> Result<(), String> {
        loop {
            match self.capture.poll_frame() {
                Ok(Polled::Frame(f)) => {
                    self.pipeline.feed(&f, &mut self.answers);
                    // A busy link must not hold the loop past its next send.
                    if !self.answers.answers.is_empty() || Instant::now() >= until {
                        break;
                    }
                }
                Ok(Polled::Idle) => {
                    if !self.answers.answers.is_empty() || Instant::now() >= until {
                        break;
                    }
                    self.capture.wait().map_err(|e| e.to_string())?;
                }
                Ok(Polled::End) => break,
                Err(e) if e.fatal => return Err(format!("capture on {}: {e}", self.name)),
                Err(_) => {}
            }
        }
        into.append(&mut self.answers.take());
        Ok(())
    }

    fn interrupted(&self) -> bool {
        interrupt::interrupted()
    }
}
