//! Linux AF_PACKET capture through libc: one socket per interface, a classic BPF program
//! attached before it is bound (so no packet slips through unfiltered), and a TPACKET_V3
//! memory-mapped receive ring: the kernel writes packets, stamped to the nanosecond, into blocks
//! of shared memory and hands each block over whole, so a burst of thousands of packets costs
//! one wake-up instead of a system call each (tcpdump's and dumpcap's way through libpcap).
//!
//! Everything read from the ring is input: the block and packet headers are read as bytes, and
//! every offset and length in them is checked against the block before use
//! ([`Ring::read_block`]). Kernel drops are read with `PACKET_STATISTICS`.

use std::ffi::CString;
use std::io;
use std::mem;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::sync::atomic::{AtomicU32, Ordering};

use super::bpf::Insn;

/// `PACKET_OUTGOING` (linux/if_packet.h): the packet was sent by this host.
pub const PACKET_OUTGOING: u8 = 4;
const PACKET_STATISTICS: libc::c_int = 6;
const ARPHRD_ETHER: u16 = 1;
pub const ARPHRD_LOOPBACK: u16 = 772;
const ARPHRD_NONE: u16 = 0xfffe;
const ARPHRD_RAWIP: u16 = 519;

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

/// One packet's details, read from its ring header.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Received {
    /// Bytes of the packet in the ring (after its link header when cooked).
    pub caplen: usize,
    /// Length of the packet as the kernel had it.
    pub len: usize,
    pub secs: i64,
    pub nanos: u32,
    pub pkttype: u8,
    pub hatype: u16,
    pub ifindex: u32,
    pub protocol: u16,
    pub addr: [u8; 8],
    pub addr_len: u8,
    /// The VLAN tag the kernel took off the frame (TPID, TCI), to be put back.
    pub vlan: Option<(u16, u16)>,
}

/// An open, filtered, bound AF_PACKET socket with its receive ring.
pub struct Socket {
    fd: OwnedFd,
    ring: Ring,
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

const PACKET_RX_RING: libc::c_int = 5;
const PACKET_VERSION: libc::c_int = 10;
const TPACKET_V3: libc::c_int = 2;
const TP_STATUS_KERNEL: u32 = 0;
const TP_STATUS_USER: u32 = 1;
const TP_STATUS_VLAN_VALID: u32 = 1 << 4;
const TP_STATUS_VLAN_TPID_VALID: u32 = 1 << 6;
/// `struct tpacket_req3` (linux/if_packet.h).
#[repr(C)]
struct TpacketReq3 {
    block_size: u32,
    block_nr: u32,
    frame_size: u32,
    frame_nr: u32,
    retire_blk_tov: u32,
    sizeof_priv: u32,
    feature_req_word: u32,
}
/// Offsets in `struct tpacket_block_desc` (version, offset_to_priv, then `tpacket_hdr_v1`).
const BLOCK_STATUS: usize = 8;
const BLOCK_NUM_PKTS: usize = 12;
const BLOCK_FIRST_PKT: usize = 16;
const BLOCK_LEN: usize = 20;
/// The block descriptor's size: the first packet cannot start before it.
const BLOCK_DESC_LEN: usize = 48;
/// `struct tpacket3_hdr`, TPACKET_ALIGNed: the `sockaddr_ll` follows it.
const PKT_HDR_LEN: usize = 48;
/// `struct sockaddr_ll`.
const SLL_LEN: usize = 20;
/// How long the kernel keeps a block that is not full before handing it over: the longest a
/// packet waits on a quiet link (a live view shows it this late at most).
const BLOCK_TIMEOUT_MS: u32 = 10;
/// The smallest block: large enough that a busy link hands over hundreds of packets at once.
const MIN_BLOCK: usize = 1 << 20;

/// The ring's geometry for a buffer of `bytes` and packets of up to `snaplen` bytes (libpcap's
/// way: a frame holds the headers and a whole snap length, a block a power of two of at least
/// one frame).
pub fn ring_geometry(bytes: usize, snaplen: u32) -> (usize, usize, usize) {
    // Headers, a link header of up to 32 bytes (and a VLAN tag), the snap length; 16-aligned.
    let frame = (PKT_HDR_LEN + SLL_LEN + 32 + snaplen as usize).next_multiple_of(16);
    let block = frame.next_power_of_two().max(MIN_BLOCK);
    let blocks = (bytes / block).max(2);
    (block, blocks, frame)
}

/// The TPACKET_V3 ring, mapped into this process.
struct Ring {
    base: *mut u8,
    len: usize,
    block_size: usize,
    blocks: usize,
    /// The block the kernel fills next, so the one read next.
    next: usize,
}

// SAFETY: the mapping belongs to this Ring alone (the socket is never shared); moving it to
// another thread moves its only user.
unsafe impl Send for Ring {}

impl Drop for Ring {
    fn drop(&mut self) {
        // SAFETY: base and len are the mapping made in Socket::open, unmapped only here.
        unsafe {
            libc::munmap(self.base.cast(), self.len);
        }
    }
}

/// Why a block could not be read whole: the rest of it is skipped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BadBlock;

impl Ring {
    fn status(&self, block: usize) -> &AtomicU32 {
        // SAFETY: block < blocks, so the word lies inside the mapping; it is 4-aligned (blocks
        // are page-aligned) and the kernel writes it as a u32, so an atomic view of it is sound.
        unsafe {
            &*(self
                .base
                .add(block * self.block_size + BLOCK_STATUS)
                .cast::<AtomicU32>())
        }
    }

    /// Whether the next block is the reader's.
    fn ready(&self) -> bool {
        self.status(self.next).load(Ordering::Acquire) & TP_STATUS_USER != 0
    }

    /// Hands each packet of the next block to `each` (its header, and its bytes from the link
    /// or network header on), then gives the block back to the kernel. `None` when the block
    /// is still the kernel's; `Some(Err(BadBlock))` when a header in it does not fit the block
    /// (the packets before were handed over).
    fn read_block(
        &mut self,
        mut each: impl FnMut(&Received, &[u8]),
    ) -> Option<Result<usize, BadBlock>> {
        if !self.ready() {
            return None;
        }
        // SAFETY: the block lies inside the mapping; since its status says TP_STATUS_USER (read
        // with Acquire above) the kernel does not write it until it is given back below, so a
        // shared slice of it is not written while it lives.
        let block = unsafe {
            std::slice::from_raw_parts(self.base.add(self.next * self.block_size), self.block_size)
        };
        let r = walk_block(block, &mut each);
        self.status(self.next)
            .store(TP_STATUS_KERNEL, Ordering::Release);
        self.next = (self.next + 1) % self.blocks;
        Some(r)
    }
}

fn u16_at(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_ne_bytes(b.get(at..at + 2)?.try_into().ok()?))
}

fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_ne_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

/// Reads the packets of one block (its bytes as the kernel wrote them): every offset and length
/// is checked against the block, so a header that is wrong ends the walk instead of reading
/// past it. The number of packets handed over, or `BadBlock`.
pub fn walk_block(
    block: &[u8],
    each: &mut impl FnMut(&Received, &[u8]),
) -> Result<usize, BadBlock> {
    let num = u32_at(block, BLOCK_NUM_PKTS).ok_or(BadBlock)? as usize;
    let first = u32_at(block, BLOCK_FIRST_PKT).ok_or(BadBlock)? as usize;
    let blk_len = u32_at(block, BLOCK_LEN).ok_or(BadBlock)? as usize;
    if num == 0 {
        return Ok(0);
    }
    // The bytes the kernel filled: no packet lies past them.
    let used = block.get(..blk_len.min(block.len())).ok_or(BadBlock)?;
    let mut at = first;
    if at < BLOCK_DESC_LEN {
        return Err(BadBlock);
    }
    for i in 0..num {
        let hdr = used
            .get(at..at.saturating_add(PKT_HDR_LEN + SLL_LEN))
            .ok_or(BadBlock)?;
        let word = |o| u32_at(hdr, o).ok_or(BadBlock);
        let (next, secs, nanos, snaplen, len, status) = (
            word(0)?,
            word(4)?,
            word(8)?,
            word(12)?,
            word(16)?,
            word(20)?,
        );
        let mac = u16_at(hdr, 24).ok_or(BadBlock)? as usize;
        let net = u16_at(hdr, 26).ok_or(BadBlock)? as usize;
        let (tci, tpid) = (word(32)?, u16_at(hdr, 36).ok_or(BadBlock)?);
        let sll = &hdr[PKT_HDR_LEN..];
        // SOCK_RAW: the packet starts at its link header (mac); SOCK_DGRAM: at the network
        // header, mac = net. The smaller one is where the bytes start.
        let start = mac.min(net);
        if start < PKT_HDR_LEN + SLL_LEN {
            return Err(BadBlock);
        }
        let from = at.saturating_add(start);
        let data = used
            .get(from..from.saturating_add(snaplen as usize))
            .ok_or(BadBlock)?;
        let vlan = (status & TP_STATUS_VLAN_VALID != 0).then(|| {
            let tpid = if status & TP_STATUS_VLAN_TPID_VALID != 0 && tpid != 0 {
                tpid
            } else {
                0x8100
            };
            (tpid, (tci & 0xffff) as u16)
        });
        let r = Received {
            caplen: data.len(),
            len: len as usize,
            secs: i64::from(secs),
            nanos: nanos.min(999_999_999),
            pkttype: sll[10],
            hatype: u16_at(sll, 8).ok_or(BadBlock)?,
            ifindex: u32::try_from(i32::from_ne_bytes([sll[4], sll[5], sll[6], sll[7]]))
                .unwrap_or(0),
            protocol: u16::from_be_bytes([sll[2], sll[3]]),
            addr_len: sll[11].min(8),
            addr: sll[12..20].try_into().map_err(|_| BadBlock)?,
            vlan,
        };
        each(&r, data);
        if i + 1 < num {
            if next == 0 {
                return Err(BadBlock);
            }
            at = at.checked_add(next as usize).ok_or(BadBlock)?;
        }
    }
    Ok(num)
}

/// What `PACKET_STATISTICS` says since the last read (reading resets the kernel's counters).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct KernelStats {
    /// Packets the filter passed, dropped ones included.
    pub received: u64,
    /// Packets dropped for want of room in the ring.
    pub dropped: u64,
    /// Times the ring was full (every block the reader's) and the queue froze.
    pub freezes: u64,
}

impl Socket {
    /// Opens the socket, attaches `filter`, maps a receive ring of about `buffer` bytes for
    /// packets of up to `snaplen`, binds it to the device.
    pub fn open(dev: &Device, filter: &[Insn], buffer: usize, snaplen: u32) -> io::Result<Socket> {
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
        setsockopt(&fd, libc::SOL_PACKET, PACKET_VERSION, &TPACKET_V3)?;
        let prog = libc::sock_fprog {
            len: u16::try_from(filter.len())
                .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "filter too long"))?,
            // The kernel copies the program; it only reads through this pointer.
            filter: filter.as_ptr() as *mut libc::sock_filter,
        };
        setsockopt(&fd, libc::SOL_SOCKET, libc::SO_ATTACH_FILTER, &prog)?;
        let (block_size, blocks, frame_size) = ring_geometry(buffer, snaplen);
        let too_big = || io::Error::new(io::ErrorKind::InvalidInput, "capture buffer too large");
        let req = TpacketReq3 {
            block_size: u32::try_from(block_size).map_err(|_| too_big())?,
            block_nr: u32::try_from(blocks).map_err(|_| too_big())?,
            frame_size: u32::try_from(frame_size).map_err(|_| too_big())?,
            frame_nr: u32::try_from(block_size / frame_size * blocks).map_err(|_| too_big())?,
            retire_blk_tov: BLOCK_TIMEOUT_MS,
            sizeof_priv: 0,
            feature_req_word: 0,
        };
        setsockopt(&fd, libc::SOL_PACKET, PACKET_RX_RING, &req)?;
        let len = block_size * blocks;
        // SAFETY: a fresh shared mapping of the socket's ring, of the length the ring has; the
        // result is checked.
        let base = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED | libc::MAP_LOCKED,
                fd.as_raw_fd(),
                0,
            )
        };
        let base = if base == libc::MAP_FAILED {
            // Without the right to lock that much memory: an ordinary mapping.
            // SAFETY: as above.
            let base = unsafe {
                libc::mmap(
                    std::ptr::null_mut(),
                    len,
                    libc::PROT_READ | libc::PROT_WRITE,
                    libc::MAP_SHARED,
                    fd.as_raw_fd(),
                    0,
                )
            };
            if base == libc::MAP_FAILED {
                return Err(io::Error::last_os_error());
            }
            base
        } else {
            base
        };
        let ring = Ring {
            base: base.cast(),
            len,
            block_size,
            blocks,
            next: 0,
        };
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
        let s = Socket { fd, ring };
        // Counters from before the bind mean nothing: reading them resets them.
        let _ = s.statistics();
        Ok(s)
    }

    /// The ring's size in bytes.
    pub fn ring_bytes(&self) -> usize {
        self.ring.len
    }

    pub fn raw_fd(&self) -> libc::c_int {
        self.fd.as_raw_fd()
    }

    /// Reads the next block if the kernel has handed it over (see [`Ring::read_block`]).
    pub fn read_block(
        &mut self,
        each: impl FnMut(&Received, &[u8]),
    ) -> Option<Result<usize, BadBlock>> {
        self.ring.read_block(each)
    }

    /// Counters since the last call (reading resets the kernel's).
    pub fn statistics(&self) -> io::Result<KernelStats> {
        // struct tpacket_stats_v3: packets, drops, freeze_q_cnt.
        let mut st = [0u32; 3];
        let mut len = mem::size_of_val(&st) as libc::socklen_t;
        // SAFETY: st is a live tpacket_stats_v3-sized buffer whose length is given.
        check(unsafe {
            libc::getsockopt(
                self.fd.as_raw_fd(),
                libc::SOL_PACKET,
                PACKET_STATISTICS,
                st.as_mut_ptr().cast(),
                &mut len,
            )
        })?;
        Ok(KernelStats {
            received: u64::from(st[0]),
            dropped: u64::from(st[1]),
            freezes: u64::from(st[2]),
        })
    }
}

/// Waits up to `timeout_ms` for any of `fds` to have a block ready; a signal ends the wait
/// early. An error when one reports an error (its interface went away).
pub fn wait_any(fds: &[libc::c_int], timeout_ms: i32) -> io::Result<()> {
    let mut p: Vec<libc::pollfd> = fds
        .iter()
        .map(|&fd| libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        })
        .collect();
    // SAFETY: p is a live array of p.len() pollfds.
    let r = unsafe { libc::poll(p.as_mut_ptr(), p.len() as libc::nfds_t, timeout_ms) };
    if r < 0 {
        let e = io::Error::last_os_error();
        if e.kind() == io::ErrorKind::Interrupted {
            return Ok(());
        }
        return Err(e);
    }
    if p.iter()
        .any(|p| p.revents & (libc::POLLERR | libc::POLLNVAL) != 0)
    {
        return Err(io::Error::other(
            "the capture socket reported an error (the interface may have gone away)",
        ));
    }
    Ok(())
}

/// Whether a received packet is the outgoing copy of a loopback packet, which the socket sees
/// again as incoming (libpcap drops it the same way).
pub fn is_loopback_echo(r: &Received) -> bool {
    r.pkttype == PACKET_OUTGOING && r.hatype == ARPHRD_LOOPBACK
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A block as the kernel lays it out, with `pkts` (mac offset, data) packets.
    fn block(size: usize, pkts: &[&[u8]]) -> Vec<u8> {
        let mut b = vec![0u8; size];
        let mut at = BLOCK_DESC_LEN;
        b[BLOCK_NUM_PKTS..BLOCK_NUM_PKTS + 4].copy_from_slice(&(pkts.len() as u32).to_ne_bytes());
        b[BLOCK_FIRST_PKT..BLOCK_FIRST_PKT + 4].copy_from_slice(&(at as u32).to_ne_bytes());
        for (i, p) in pkts.iter().enumerate() {
            let start = PKT_HDR_LEN + SLL_LEN + 2;
            let total = (start + p.len()).next_multiple_of(16);
            let next = if i + 1 < pkts.len() { total as u32 } else { 0 };
            b[at..at + 4].copy_from_slice(&next.to_ne_bytes());
            b[at + 4..at + 8].copy_from_slice(&7u32.to_ne_bytes());
            b[at + 8..at + 12].copy_from_slice(&9u32.to_ne_bytes());
            b[at + 12..at + 16].copy_from_slice(&(p.len() as u32).to_ne_bytes());
            b[at + 16..at + 20].copy_from_slice(&(p.len() as u32 + 5).to_ne_bytes());
            b[at + 24..at + 26].copy_from_slice(&(start as u16).to_ne_bytes());
            b[at + 26..at + 28].copy_from_slice(&(start as u16 + 14).to_ne_bytes());
            b[at + PKT_HDR_LEN + 10] = PACKET_OUTGOING;
            b[at + start..at + start + p.len()].copy_from_slice(p);
            at += total;
        }
        b[BLOCK_LEN..BLOCK_LEN + 4].copy_from_slice(&(at as u32).to_ne_bytes());
        b
    }

    fn walk(b: &[u8]) -> (Vec<Vec<u8>>, Result<usize, BadBlock>) {
        let mut got = Vec::new();
        let r = walk_block(b, &mut |h: &Received, d: &[u8]| {
            assert_eq!((h.secs, h.nanos, h.len), (7, 9, d.len() + 5));
            assert_eq!(h.pkttype, PACKET_OUTGOING);
            got.push(d.to_vec())
        });
        (got, r)
    }

    #[test]
    fn a_block_hands_over_its_packets() {
        let b = block(4096, &[b"first packet", b"second", b""]);
        let (got, r) = walk(&b);
        assert_eq!(r, Ok(3));
        assert_eq!(
            got,
            vec![b"first packet".to_vec(), b"second".to_vec(), vec![]]
        );
    }

    #[test]
    fn headers_that_do_not_fit_the_block_end_the_walk() {
        let good = block(4096, &[b"first packet", b"second"]);
        // A snap length past the block.
        let mut b = good.clone();
        b[BLOCK_DESC_LEN + 12..BLOCK_DESC_LEN + 16].copy_from_slice(&100_000u32.to_ne_bytes());
        assert_eq!(walk(&b), (vec![], Err(BadBlock)));
        // A next offset past the block: the first packet is handed over, not the second.
        let mut b = good.clone();
        b[BLOCK_DESC_LEN..BLOCK_DESC_LEN + 4].copy_from_slice(&u32::MAX.to_ne_bytes());
        assert_eq!(walk(&b), (vec![b"first packet".to_vec()], Err(BadBlock)));
        // More packets claimed than there are.
        let mut b = good.clone();
        b[BLOCK_NUM_PKTS..BLOCK_NUM_PKTS + 4].copy_from_slice(&3u32.to_ne_bytes());
        assert_eq!(walk(&b).1, Err(BadBlock));
        // A first packet inside the block descriptor, or past the filled length.
        let mut b = good.clone();
        b[BLOCK_FIRST_PKT..BLOCK_FIRST_PKT + 4].copy_from_slice(&8u32.to_ne_bytes());
        assert_eq!(walk(&b).1, Err(BadBlock));
        let mut b = good.clone();
        b[BLOCK_LEN..BLOCK_LEN + 4].copy_from_slice(&60u32.to_ne_bytes());
        assert_eq!(walk(&b), (vec![], Err(BadBlock)));
        // A data offset inside the headers.
        let mut b = good;
        b[BLOCK_DESC_LEN + 24..BLOCK_DESC_LEN + 28].copy_from_slice(&[4, 0, 4, 0]);
        assert_eq!(walk(&b).1, Err(BadBlock));
        // A block shorter than its descriptor.
        assert_eq!(walk(&[0u8; 10]).1, Err(BadBlock));
    }

    #[test]
    fn the_ring_holds_a_whole_snap_length_per_packet() {
        let (block, blocks, frame) = ring_geometry(32 << 20, 262_144);
        assert!(frame >= 262_144 + PKT_HDR_LEN + SLL_LEN && frame % 16 == 0);
        assert!(block >= frame && block.is_power_of_two());
        assert_eq!(block * blocks, 32 << 20);
        let (block, blocks, _) = ring_geometry(1, 1500);
        assert_eq!((block, blocks), (MIN_BLOCK, 2));
    }
}
