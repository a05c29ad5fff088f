//! Live capture on a network interface, as a [`FrameSource`]: the pipeline runs on it exactly as
//! on a file.
//!
//! On Linux the default build captures through an AF_PACKET socket (no system library needed),
//! with a classic BPF program compiled here: by default only what poolshark decodes is kept (see
//! [`filter::default_filter`]), or a subset of the tcpdump language with `-f`. The `libpcap`
//! cargo feature adds full filter expressions and other systems.
//!
//! * Frames are numbered from 1 and stamped by the kernel (nanoseconds).
//! * On a loopback device each packet is seen twice (outgoing, then incoming): the outgoing copy
//!   is dropped, as libpcap does.
//! * `next_frame` waits in slices of [`LiveOptions::poll_interval`], so a [`StopHandle`], a
//!   duration or a count ends the capture promptly; it then returns `Ok(None)` like the end of a
//!   file.
//! * A `LiveSource` is `Send`: another thread (a TUI) can own it while keeping a `StopHandle`.

#[cfg(target_os = "linux")]
mod afpacket;
pub mod bpf;
mod error;
pub mod filter;
pub mod interrupt;
#[cfg(feature = "libpcap")]
mod pcap_backend;

pub use error::{LiveError, LiveErrorKind};

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::{linktype, Block, Frame, FrameSource, InterfaceNames, Pcapng, SourceError, Timestamp};
use crate::dissect::dispatch::DecodeAs;

/// libpcap's and tshark's default snap length: whole packets.
pub const DEFAULT_SNAPLEN: u32 = 262_144;
/// Length of the Linux cooked v2 header built for cooked captures.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
const SLL2_LEN: usize = 20;

/// Which packets the kernel keeps.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FilterChoice {
    /// What poolshark decodes: the default ports, SCTP, IPv4 fragments, plus the ports of these
    /// decode-as rules.
    Default(Vec<DecodeAs>),
    /// An expression (the subset of [`filter`], or libpcap's language with the feature).
    Expression(String),
    /// Every packet.
    All,
}

/// Which capture mechanism to use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Backend {
    /// AF_PACKET on Linux; libpcap elsewhere, or on Linux when the filter needs it (with the
    /// `libpcap` feature).
    #[default]
    Auto,
    AfPacket,
    Libpcap,
}

/// How to capture.
#[derive(Clone, Debug)]
pub struct LiveOptions {
    /// Interface name, or `any`.
    pub interface: String,
    pub snaplen: u32,
    pub filter: FilterChoice,
    /// Stop after this many frames.
    pub count: Option<u64>,
    /// Stop this long after the capture opened.
    pub duration: Option<Duration>,
    /// Longest wait before a stop request, the duration or a signal is noticed.
    pub poll_interval: Duration,
    pub backend: Backend,
}

impl LiveOptions {
    pub fn new(interface: &str) -> Self {
        LiveOptions {
            interface: interface.to_string(),
            snaplen: DEFAULT_SNAPLEN,
            filter: FilterChoice::Default(Vec::new()),
            count: None,
            duration: None,
            poll_interval: Duration::from_millis(100),
            backend: Backend::Auto,
        }
    }
}

/// Asks a running capture to stop; clone it freely, use it from any thread or a signal handler.
#[derive(Clone, Debug, Default)]
pub struct StopHandle(Arc<AtomicBool>);

impl StopHandle {
    pub fn new() -> Self {
        StopHandle::default()
    }

    pub fn stop(&self) {
        self.0.store(true, Ordering::SeqCst);
    }

    pub fn is_stopped(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }
}

/// What the capture saw, for the summary.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LiveStats {
    /// Frames handed to the pipeline.
    pub captured: u64,
    /// Packets the kernel's filter passed (loopback echoes included).
    pub kernel_received: u64,
    /// Packets the kernel dropped because poolshark did not read fast enough.
    pub kernel_dropped: u64,
    /// Outgoing copies of loopback packets left out.
    pub loopback_echoes: u64,
}

/// The interface as captured.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InterfaceInfo {
    pub name: String,
    /// LINKTYPE_ of the frames.
    pub linktype: u32,
    pub snaplen: u32,
    /// The filter as the user would write it, or a description of the default.
    pub filter: String,
    /// Which mechanism captures.
    pub backend: &'static str,
}

enum Inner {
    #[cfg(target_os = "linux")]
    AfPacket(Box<afpacket::Socket>, afpacket::Mode),
    #[cfg(feature = "libpcap")]
    Pcap(Box<pcap_backend::PcapCapture>),
}

/// A capture on one interface (or `any`).
pub struct LiveSource {
    inner: Inner,
    info: InterfaceInfo,
    /// The interface's name as a pcapng interface description would give it (a live capture's
    /// frames are numbered and named as tshark's, which writes pcapng, are).
    names: InterfaceNames,
    stop: StopHandle,
    opened: Instant,
    deadline: Option<Instant>,
    count: Option<u64>,
    poll_interval: Duration,
    buf: Vec<u8>,
    stats: LiveStats,
    finished: bool,
}

impl LiveSource {
    /// Opens the interface and starts capturing (packets queue in the kernel until read).
    pub fn open(opts: &LiveOptions) -> Result<LiveSource, LiveError> {
        let snaplen = opts.snaplen.clamp(64, DEFAULT_SNAPLEN);
        let (inner, linktype, filter_text, backend) = open_backend(opts, snaplen)?;
        let opened = Instant::now();
        Ok(LiveSource {
            inner,
            info: InterfaceInfo {
                name: opts.interface.clone(),
                linktype,
                snaplen,
                filter: filter_text,
                backend,
            },
            names: InterfaceNames {
                name: Some(opts.interface.as_str().into()),
                description: None,
            },
            stop: StopHandle::new(),
            opened,
            deadline: opts.duration.map(|d| opened + d),
            count: opts.count,
            poll_interval: opts.poll_interval.max(Duration::from_millis(1)),
            buf: vec![0u8; snaplen as usize],
            stats: LiveStats::default(),
            finished: false,
        })
    }

    /// Uses `stop` instead of the source's own handle (to share one across sources, or with a
    /// signal handler installed before the capture opened).
    pub fn with_stop_handle(mut self, stop: StopHandle) -> Self {
        self.stop = stop;
        self
    }

    pub fn stop_handle(&self) -> StopHandle {
        self.stop.clone()
    }

    pub fn info(&self) -> &InterfaceInfo {
        &self.info
    }

    /// Counters so far (reads the kernel's).
    pub fn stats(&mut self) -> LiveStats {
        self.refresh_kernel_stats();
        self.stats
    }

    /// When the capture opened.
    pub fn opened(&self) -> Instant {
        self.opened
    }

    fn refresh_kernel_stats(&mut self) {
        match &mut self.inner {
            #[cfg(target_os = "linux")]
            Inner::AfPacket(s, _) => {
                if let Ok((received, dropped)) = s.statistics() {
                    self.stats.kernel_received += received;
                    self.stats.kernel_dropped += dropped;
                }
            }
            #[cfg(feature = "libpcap")]
            Inner::Pcap(p) => {
                if let Some((received, dropped)) = p.statistics() {
                    self.stats.kernel_received = received;
                    self.stats.kernel_dropped = dropped;
                }
            }
        }
    }

    /// Whether the capture should end now, and how long the next wait may be.
    fn wait_budget(&self) -> Option<Duration> {
        if self.stop.is_stopped() || interrupt::interrupted() {
            return None;
        }
        if self.count.is_some_and(|c| self.stats.captured >= c) {
            return None;
        }
        match self.deadline {
            Some(d) => {
                let left = d.checked_duration_since(Instant::now())?;
                if left.is_zero() {
                    return None;
                }
                Some(left.min(self.poll_interval))
            }
            None => Some(self.poll_interval),
        }
    }

    fn fatal(&self, what: String) -> SourceError {
        SourceError {
            frame: Some(self.stats.captured + 1),
            offset: None,
            what,
            fatal: true,
        }
    }
}

fn open_backend(
    opts: &LiveOptions,
    snaplen: u32,
) -> Result<(Inner, u32, String, &'static str), LiveError> {
    let use_pcap = match opts.backend {
        Backend::Libpcap => true,
        Backend::AfPacket => false,
        Backend::Auto => {
            !cfg!(target_os = "linux")
                || (cfg!(feature = "libpcap")
                    && matches!(&opts.filter, FilterChoice::Expression(e) if filter::parse(e).is_err()))
        }
    };
    if use_pcap {
        #[cfg(feature = "libpcap")]
        {
            let p = pcap_backend::PcapCapture::open(opts, snaplen)?;
            let linktype = p.linktype();
            let text = describe_filter(&opts.filter);
            return Ok((Inner::Pcap(Box::new(p)), linktype, text, "libpcap"));
        }
        #[cfg(not(feature = "libpcap"))]
        return Err(LiveError::new(
            LiveErrorKind::Unsupported,
            &opts.interface,
            "this poolshark was built without the `libpcap` feature; on this system live \
             capture needs it (cargo build --features libpcap)"
                .to_string(),
        ));
    }
    #[cfg(target_os = "linux")]
    {
        let _ = snaplen;
        let dev = afpacket::device(&opts.interface)
            .map_err(|e| LiveError::from_io(&opts.interface, e))?;
        let framing = match dev.mode {
            afpacket::Mode::Ethernet => filter::Framing::Ethernet,
            afpacket::Mode::RawIp | afpacket::Mode::Cooked => filter::Framing::Network,
        };
        let program = match &opts.filter {
            FilterChoice::All => filter::accept_all(),
            FilterChoice::Default(rules) => {
                filter::compile(&filter::default_filter(rules), framing)
                    .map_err(|e| LiveError::filter(&opts.interface, e))?
            }
            FilterChoice::Expression(text) => {
                let e = filter::parse(text).map_err(|e| LiveError::filter(&opts.interface, e))?;
                filter::compile(&e, framing).map_err(|e| LiveError::filter(&opts.interface, e))?
            }
        };
        // Only loopback devices (and `any`, which includes lo) echo their own packets.
        let program = if dev.arphrd.is_none_or(|t| t == afpacket::ARPHRD_LOOPBACK) {
            filter::without_loopback_echoes(&program)
        } else {
            program
        };
        let socket = afpacket::Socket::open(&dev, &program)
            .map_err(|e| LiveError::from_io(&opts.interface, e))?;
        let linktype = match dev.mode {
            afpacket::Mode::Ethernet => linktype::ETHERNET,
            afpacket::Mode::RawIp => linktype::RAW,
            afpacket::Mode::Cooked => linktype::LINUX_SLL2,
        };
        Ok((
            Inner::AfPacket(Box::new(socket), dev.mode),
            linktype,
            describe_filter(&opts.filter),
            "AF_PACKET",
        ))
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = snaplen;
        Err(LiveError::new(
            LiveErrorKind::Unsupported,
            &opts.interface,
            "AF_PACKET capture exists on Linux only: use the libpcap backend".to_string(),
        ))
    }
}

fn describe_filter(f: &FilterChoice) -> String {
    match f {
        FilterChoice::All => "none (every packet)".into(),
        FilterChoice::Default(rules) if rules.is_empty() => {
            "default (what poolshark decodes)".into()
        }
        FilterChoice::Default(_) => {
            "default (what poolshark decodes, with the decode-as ports)".into()
        }
        FilterChoice::Expression(e) => e.clone(),
    }
}

/// A Linux cooked v2 header from a packet's socket address.
#[cfg(target_os = "linux")]
fn write_sll2(out: &mut [u8], r: &afpacket::Received) {
    let mut h = [0u8; SLL2_LEN];
    h[0..2].copy_from_slice(&r.protocol.to_be_bytes());
    h[4..8].copy_from_slice(&r.ifindex.to_be_bytes());
    h[8..10].copy_from_slice(&r.hatype.to_be_bytes());
    h[10] = r.pkttype;
    h[11] = r.addr_len;
    h[12..20].copy_from_slice(&r.addr);
    if let Some(dst) = out.get_mut(..SLL2_LEN) {
        dst.copy_from_slice(&h);
    }
}

fn now() -> Timestamp {
    let d = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    Timestamp::new(
        i64::try_from(d.as_secs()).unwrap_or(i64::MAX),
        d.subsec_nanos(),
    )
}

/// What [`LiveSource::poll_frame`] found.
#[derive(Debug)]
pub enum Polled<'a> {
    Frame(Frame<'a>),
    /// Nothing waiting now: a moment to flush outputs or redraw, then [`LiveSource::wait`].
    Idle,
    /// Stopped, counted out or past the duration.
    End,
}

/// A received packet, before its frame borrows the buffer.
struct Got {
    ts: Timestamp,
    caplen: usize,
    orig_len: u32,
}

enum Step {
    Got(Got),
    Idle,
    End,
}

impl LiveSource {
    /// A frame's pcapng context: one section, one interface, no packet options.
    fn pcapng(&self) -> Pcapng<'_> {
        Pcapng {
            section: 1,
            block: Block::Packet,
            names: &self.names,
            options: &[],
            big_endian: false,
        }
    }

    /// The next frame if one is waiting, without blocking (with libpcap: waits at most the
    /// poll interval). Once `End` is returned, the source only returns `End`.
    pub fn poll_frame(&mut self) -> Result<Polled<'_>, SourceError> {
        match self.step()? {
            Step::End => Ok(Polled::End),
            Step::Idle => Ok(Polled::Idle),
            Step::Got(g) => Ok(Polled::Frame(Frame {
                number: self.stats.captured,
                ts: g.ts,
                // tshark's live captures show microseconds.
                ts_digits: 6,
                linktype: self.info.linktype,
                orig_len: g.orig_len,
                interface: 0,
                data: self.buf.get(..g.caplen).unwrap_or_default(),
                pcapng: Some(self.pcapng()),
            })),
        }
    }

    /// Blocks until a packet may be waiting, or at most the poll interval (less when the
    /// duration ends sooner); a signal cuts it short.
    pub fn wait(&mut self) -> Result<(), SourceError> {
        let Some(budget) = self.wait_budget() else {
            return Ok(());
        };
        let timeout_ms = i32::try_from(budget.as_millis()).unwrap_or(i32::MAX).max(1);
        match &mut self.inner {
            #[cfg(target_os = "linux")]
            Inner::AfPacket(socket, _) => match socket.wait(timeout_ms) {
                Ok(_) => Ok(()),
                Err(e) => {
                    self.finished = true;
                    Err(self.fatal(format!("capture failed: {e}")))
                }
            },
            // libpcap waits inside its read.
            #[cfg(feature = "libpcap")]
            Inner::Pcap(_) => {
                let _ = timeout_ms;
                Ok(())
            }
        }
    }

    fn step(&mut self) -> Result<Step, SourceError> {
        if self.finished {
            return Ok(Step::End);
        }
        if self.wait_budget().is_none() {
            self.finished = true;
            self.refresh_kernel_stats();
            return Ok(Step::End);
        }
        match &mut self.inner {
            #[cfg(target_os = "linux")]
            Inner::AfPacket(socket, mode) => {
                let cooked = *mode == afpacket::Mode::Cooked;
                let start = if cooked { SLL2_LEN } else { 0 };
                // Loopback echoes are normally dropped by the kernel filter; a few may still
                // come (a filter that was not ours): skip them here without waiting.
                loop {
                    let Some(room) = self.buf.get_mut(start..) else {
                        return Ok(Step::Idle);
                    };
                    let r = match socket.receive(room) {
                        Ok(Some(r)) => r,
                        Ok(None) => return Ok(Step::Idle),
                        Err(e) => {
                            self.finished = true;
                            return Err(self.fatal(format!("capture failed: {e}")));
                        }
                    };
                    if afpacket::is_loopback_echo(&r) {
                        self.stats.loopback_echoes += 1;
                        continue;
                    }
                    if cooked {
                        write_sll2(&mut self.buf, &r);
                    }
                    self.stats.captured += 1;
                    let ts = if r.stamped {
                        Timestamp::new(r.secs, r.nanos)
                    } else {
                        now()
                    };
                    return Ok(Step::Got(Got {
                        ts,
                        caplen: start.saturating_add(r.caplen).min(self.buf.len()),
                        orig_len: u32::try_from(start.saturating_add(r.len)).unwrap_or(u32::MAX),
                    }));
                }
            }
            #[cfg(feature = "libpcap")]
            Inner::Pcap(p) => match p.next(&mut self.buf) {
                Ok(Some((ts, caplen, orig_len))) => {
                    self.stats.captured += 1;
                    Ok(Step::Got(Got {
                        ts,
                        caplen,
                        orig_len,
                    }))
                }
                Ok(None) => Ok(Step::Idle),
                Err(e) => {
                    self.finished = true;
                    Err(self.fatal(format!("capture failed: {e}")))
                }
            },
        }
    }
}

impl FrameSource for LiveSource {
    fn next_frame(&mut self) -> Result<Option<Frame<'_>>, SourceError> {
        loop {
            match self.step()? {
                Step::End => return Ok(None),
                Step::Idle => self.wait()?,
                Step::Got(g) => {
                    return Ok(Some(Frame {
                        number: self.stats.captured,
                        ts: g.ts,
                        ts_digits: 6,
                        linktype: self.info.linktype,
                        orig_len: g.orig_len,
                        interface: 0,
                        data: self.buf.get(..g.caplen).unwrap_or_default(),
                        pcapng: Some(self.pcapng()),
                    }))
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assert_send<T: Send>() {}

    #[test]
    fn a_live_source_can_move_to_another_thread() {
        assert_send::<LiveSource>();
        assert_send::<StopHandle>();
    }
}
