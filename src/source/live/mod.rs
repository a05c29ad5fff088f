//! Live capture on network interfaces, as a [`FrameSource`]: the pipeline runs on it exactly as
//! on a file.
//!
//! On Linux the default build captures through AF_PACKET sockets (no system library needed),
//! each with a TPACKET_V3 memory-mapped ring of [`LiveOptions::buffer`] bytes and a classic BPF
//! program its caller compiled ([`FilterChoice`]; `filter::capture` compiles the default, only
//! what poolshark decodes, and a subset of the tcpdump language with `-f`). The `libpcap` cargo
//! feature adds full filter expressions and other systems (one interface at a time).
//!
//! * A capture thread of its own only empties the rings into a queue bounded to
//!   [`LiveOptions::queue`] bytes; the thread that reads the source (dissection, analysis,
//!   output) takes the frames from there. When the queue is full, the block just read is
//!   dropped and counted ([`InterfaceStats::user_dropped`]) rather than left in the ring, which
//!   would make the kernel drop instead, unseen until its counters are read.
//! * The thread starts with the first read (or [`LiveSource::start`]), so privileges can be
//!   given up between opening the sockets and starting it: it then runs with what is left.
//! * Several interfaces at once: each frame carries the index of its interface (as a pcapng
//!   packet block does) and each interface has its counters.
//! * Frames are numbered from 1 and stamped by the kernel (nanoseconds).
//! * On a loopback device each packet is seen twice (outgoing, then incoming): the outgoing copy
//!   is dropped, as libpcap does.
//! * A stop request, a signal or the duration ends the capture: what is already captured (the
//!   queue, and the blocks the kernel has filled) is still handed over, then `next_frame`
//!   returns `Ok(None)` like the end of a file. A count ends it at once.
//! * A `LiveSource` is `Send`: another thread (a TUI) can own it while keeping a `StopHandle`.

#[cfg(target_os = "linux")]
mod afpacket;
pub mod bpf;
mod error;
pub mod interrupt;
#[cfg(feature = "libpcap")]
mod pcap_backend;

pub use error::{LiveError, LiveErrorKind};

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
#[cfg(target_os = "linux")]
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::{Block, Frame, FrameSource, InterfaceNames, Pcapng, SourceError};
use crate::base::{linktype, Timestamp};

/// libpcap's and tshark's default snap length: whole packets.
pub const DEFAULT_SNAPLEN: u32 = 262_144;
/// Length of the Linux cooked v2 header built for cooked captures.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
const SLL2_LEN: usize = 20;

/// Which packets the kernel keeps.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FilterChoice {
    /// A filter its caller compiled (`filter::capture::compiled_default`, what poolshark
    /// decodes, and `compiled_expression`, a `-f` expression).
    Compiled(CompiledFilter),
    /// Every packet.
    All,
}

/// A capture filter ready for either backend.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompiledFilter {
    /// The program for devices whose frames begin with an Ethernet header (Ethernet, loopback),
    /// or why poolshark could not compile one (the message of a refused expression).
    pub ethernet: Result<Vec<bpf::Insn>, String>,
    /// The program for devices whose frames begin at the network header (cooked sockets, `any`,
    /// tun devices), or why there is none.
    pub network: Result<Vec<bpf::Insn>, String>,
    /// Whether the expression is beyond what poolshark compiles: [`Backend::Auto`] then takes
    /// libpcap, when built with it.
    pub beyond_subset: bool,
    /// The same filter in libpcap's language.
    pub expression: String,
    /// The filter as the user wrote it, or a description of the default
    /// ([`InterfaceInfo::filter`]).
    pub description: String,
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

/// The ring's size when `-B` does not say: at 300,000 packets a second of 500 bytes, a
/// quarter of a second of traffic waits there while the capture thread is not scheduled.
pub const DEFAULT_BUFFER_MIB: u32 = 64;
/// The queue between the capture thread and the analysis: a backlog of this many bytes of
/// frames (a few seconds at the analysis's slowest rate) before frames are dropped.
pub const DEFAULT_QUEUE_MIB: u32 = 512;

/// How to capture.
#[derive(Clone, Debug)]
pub struct LiveOptions {
    /// Interface names (`any` for all of them, cooked); at least one.
    pub interfaces: Vec<String>,
    pub snaplen: u32,
    /// Every packet ([`LiveOptions::new`]) unless the caller sets a compiled filter.
    pub filter: FilterChoice,
    /// Stop after this many frames.
    pub count: Option<u64>,
    /// Stop this long after the capture opened.
    pub duration: Option<Duration>,
    /// Longest wait before a stop request, the duration or a signal is noticed.
    pub poll_interval: Duration,
    pub backend: Backend,
    /// The kernel's buffer (each ring), bytes.
    pub buffer: usize,
    /// The queue between the capture thread and the analysis, bytes.
    pub queue: usize,
}

impl LiveOptions {
    pub fn new(interface: &str) -> Self {
        LiveOptions {
            interfaces: vec![interface.to_string()],
            snaplen: DEFAULT_SNAPLEN,
            filter: FilterChoice::All,
            count: None,
            duration: None,
            poll_interval: Duration::from_millis(100),
            backend: Backend::Auto,
            buffer: (DEFAULT_BUFFER_MIB as usize) << 20,
            queue: (DEFAULT_QUEUE_MIB as usize) << 20,
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

/// One interface's counts.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct InterfaceStats {
    pub name: String,
    /// Frames handed to the pipeline.
    pub captured: u64,
    /// Packets the kernel's filter passed (loopback echoes and drops included).
    pub kernel_received: u64,
    /// Packets the kernel dropped because its buffer was full (`tp_drops`).
    pub kernel_dropped: u64,
    /// Times the kernel found the ring full and froze its queue (`tp_freeze_q_cnt`).
    pub kernel_freezes: u64,
    /// Frames the capture thread dropped because the queue to the analysis was full.
    pub user_dropped: u64,
    /// Outgoing copies of loopback packets left out.
    pub loopback_echoes: u64,
    /// Ring blocks whose headers did not fit the block (their remaining packets are lost).
    pub bad_blocks: u64,
}

/// What the capture saw, for the summary: the totals, and each interface's.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LiveStats {
    /// Frames handed to the pipeline.
    pub captured: u64,
    /// Packets the kernel's filter passed (loopback echoes included).
    pub kernel_received: u64,
    /// Packets the kernel dropped because poolshark did not read fast enough.
    pub kernel_dropped: u64,
    /// Frames dropped in poolshark because the analysis did not keep up.
    pub user_dropped: u64,
    /// Outgoing copies of loopback packets left out.
    pub loopback_echoes: u64,
    pub interfaces: Vec<InterfaceStats>,
}

/// An interface as captured.
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
    /// The kernel's buffer for it, bytes (0 when not known).
    pub buffer: usize,
}

/// One interface's counters, written by the capture thread.
#[derive(Default)]
struct Counters {
    kernel_received: AtomicU64,
    kernel_dropped: AtomicU64,
    kernel_freezes: AtomicU64,
    user_dropped: AtomicU64,
    loopback_echoes: AtomicU64,
    bad_blocks: AtomicU64,
}

/// What the capture thread and the reader share.
struct Shared {
    /// Asks the capture thread to hand over what the kernel holds and end.
    stop: AtomicBool,
    counters: Vec<Counters>,
    /// Bytes of the batches sent and not yet read through.
    queued: AtomicUsize,
    /// Why the capture thread ended early.
    error: Mutex<Option<String>>,
}

/// Where a frame lies in its batch.
struct Meta {
    ts: Timestamp,
    start: usize,
    len: usize,
    orig_len: u32,
}

/// The frames of one ring block, copied out of it.
struct Batch {
    interface: u32,
    data: Vec<u8>,
    frames: Vec<Meta>,
}

impl Batch {
    fn bytes(&self) -> usize {
        self.data.capacity() + self.frames.capacity() * std::mem::size_of::<Meta>()
    }
}

#[cfg(target_os = "linux")]
struct RingCapture {
    /// The sockets until the capture thread takes them.
    sockets: Option<Vec<(afpacket::Socket, afpacket::Mode)>>,
    thread: Option<std::thread::JoinHandle<()>>,
    rx: Option<mpsc::Receiver<Batch>>,
    queue_limit: usize,
    shared: Arc<Shared>,
    current: Option<Batch>,
    /// The next frame of `current`.
    pos: usize,
}

#[cfg(feature = "libpcap")]
struct PcapInner {
    cap: Box<pcap_backend::PcapCapture>,
    buf: Vec<u8>,
    received: u64,
    dropped: u64,
}

enum Inner {
    #[cfg(target_os = "linux")]
    Ring(RingCapture),
    #[cfg(feature = "libpcap")]
    Pcap(PcapInner),
}

/// A capture on one or more interfaces (or `any`).
pub struct LiveSource {
    inner: Inner,
    interfaces: Vec<InterfaceInfo>,
    /// The interfaces' names as a pcapng interface description would give them (a live
    /// capture's frames are numbered and named as tshark's, which writes pcapng, are).
    names: Vec<InterfaceNames>,
    stop: StopHandle,
    opened: Instant,
    deadline: Option<Instant>,
    count: Option<u64>,
    poll_interval: Duration,
    captured: u64,
    /// Frames handed over, by interface.
    captured_by: Vec<u64>,
    finished: bool,
}

impl LiveSource {
    /// Opens the interfaces and starts capturing (packets queue in the kernel until the
    /// capture thread starts, at the first read).
    pub fn open(opts: &LiveOptions) -> Result<LiveSource, LiveError> {
        let Some(first) = opts.interfaces.first() else {
            return Err(LiveError::new(
                LiveErrorKind::NoSuchInterface,
                "",
                "no interface to capture on".into(),
            ));
        };
        for (i, name) in opts.interfaces.iter().enumerate() {
            if opts.interfaces[..i].contains(name) {
                return Err(LiveError::new(
                    LiveErrorKind::Other,
                    name,
                    "named twice: each packet would be captured twice".into(),
                ));
            }
        }
        let snaplen = opts.snaplen.clamp(64, DEFAULT_SNAPLEN);
        let (inner, interfaces) = open_backend(opts, first, snaplen)?;
        let opened = Instant::now();
        let names = interfaces
            .iter()
            .map(|i| InterfaceNames {
                name: Some(i.name.as_str().into()),
                description: None,
            })
            .collect();
        Ok(LiveSource {
            inner,
            captured_by: vec![0; interfaces.len()],
            interfaces,
            names,
            stop: StopHandle::new(),
            opened,
            deadline: opts.duration.map(|d| opened + d),
            count: opts.count,
            poll_interval: opts.poll_interval.max(Duration::from_millis(1)),
            captured: 0,
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

    /// The first interface.
    pub fn info(&self) -> &InterfaceInfo {
        // open() refuses an empty list.
        &self.interfaces[0]
    }

    /// Every interface, by the index its frames carry.
    pub fn interfaces(&self) -> &[InterfaceInfo] {
        &self.interfaces
    }

    /// Starts the capture thread if it has not started (the first read does it otherwise).
    pub fn start(&mut self) -> Result<(), SourceError> {
        match &mut self.inner {
            #[cfg(target_os = "linux")]
            Inner::Ring(r) => r.start().map_err(|e| self.fatal_now(e)),
            #[cfg(feature = "libpcap")]
            Inner::Pcap(_) => Ok(()),
        }
    }

    fn fatal_now(&self, what: String) -> SourceError {
        SourceError {
            frame: Some(self.captured + 1),
            offset: None,
            what,
            fatal: true,
        }
    }

    /// Counters so far.
    pub fn stats(&mut self) -> LiveStats {
        let mut per: Vec<InterfaceStats> = self
            .interfaces
            .iter()
            .zip(&self.captured_by)
            .map(|(i, &c)| InterfaceStats {
                name: i.name.clone(),
                captured: c,
                ..InterfaceStats::default()
            })
            .collect();
        match &mut self.inner {
            #[cfg(target_os = "linux")]
            Inner::Ring(r) => {
                if r.thread.is_none() {
                    // Before the thread runs (and after it ended) the counters are read here.
                    r.read_kernel_stats();
                }
                for (s, c) in per.iter_mut().zip(&r.shared.counters) {
                    s.kernel_received = c.kernel_received.load(Ordering::Relaxed);
                    s.kernel_dropped = c.kernel_dropped.load(Ordering::Relaxed);
                    s.kernel_freezes = c.kernel_freezes.load(Ordering::Relaxed);
                    s.user_dropped = c.user_dropped.load(Ordering::Relaxed);
                    s.loopback_echoes = c.loopback_echoes.load(Ordering::Relaxed);
                    s.bad_blocks = c.bad_blocks.load(Ordering::Relaxed);
                }
            }
            #[cfg(feature = "libpcap")]
            Inner::Pcap(p) => {
                if let Some((received, dropped)) = p.cap.statistics() {
                    p.received = received;
                    p.dropped = dropped;
                }
                if let Some(s) = per.first_mut() {
                    s.kernel_received = p.received;
                    s.kernel_dropped = p.dropped;
                }
            }
        }
        LiveStats {
            captured: self.captured,
            kernel_received: per.iter().map(|s| s.kernel_received).sum(),
            kernel_dropped: per.iter().map(|s| s.kernel_dropped).sum(),
            user_dropped: per.iter().map(|s| s.user_dropped).sum(),
            loopback_echoes: per.iter().map(|s| s.loopback_echoes).sum(),
            interfaces: per,
        }
    }

    /// When the capture opened.
    pub fn opened(&self) -> Instant {
        self.opened
    }

    /// Whether a stop was asked for (a stop request, a signal, the duration).
    fn stop_asked(&self) -> bool {
        self.stop.is_stopped()
            || interrupt::interrupted()
            || self.deadline.is_some_and(|d| Instant::now() >= d)
    }

    fn counted_out(&self) -> bool {
        self.count.is_some_and(|c| self.captured >= c)
    }

    /// How long the next wait may be.
    fn wait_budget(&self) -> Duration {
        match self.deadline {
            Some(d) => d
                .saturating_duration_since(Instant::now())
                .min(self.poll_interval)
                .max(Duration::from_millis(1)),
            None => self.poll_interval,
        }
    }
}

#[cfg(target_os = "linux")]
impl RingCapture {
    fn start(&mut self) -> Result<(), String> {
        let Some(sockets) = self.sockets.take() else {
            return Ok(());
        };
        let (tx, rx) = mpsc::channel();
        let shared = self.shared.clone();
        let limit = self.queue_limit;
        let thread = std::thread::Builder::new()
            .name("capture".into())
            .spawn(move || capture_thread(sockets, &shared, &tx, limit))
            .map_err(|e| format!("cannot start the capture thread: {e}"))?;
        self.thread = Some(thread);
        self.rx = Some(rx);
        Ok(())
    }

    /// The kernel's counters, read here while no thread owns the sockets.
    fn read_kernel_stats(&mut self) {
        if let Some(sockets) = &self.sockets {
            for ((s, _), c) in sockets.iter().zip(&self.shared.counters) {
                if let Ok(k) = s.statistics() {
                    c.add_kernel(&k);
                }
            }
        }
    }

    /// Gives the current batch's bytes back to the queue's budget.
    fn release_current(&mut self) {
        if let Some(b) = self.current.take() {
            self.shared.queued.fetch_sub(b.bytes(), Ordering::AcqRel);
        }
        self.pos = 0;
    }
}

#[cfg(target_os = "linux")]
impl Drop for RingCapture {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::SeqCst);
        // Dropping the receiver makes the thread's next send fail; it ends within a wait.
        self.rx = None;
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

#[cfg(target_os = "linux")]
impl Counters {
    fn add_kernel(&self, k: &afpacket::KernelStats) {
        self.kernel_received
            .fetch_add(k.received, Ordering::Relaxed);
        self.kernel_dropped.fetch_add(k.dropped, Ordering::Relaxed);
        self.kernel_freezes.fetch_add(k.freezes, Ordering::Relaxed);
    }
}

/// How often the capture thread reads the kernel's counters.
#[cfg(target_os = "linux")]
const STATS_EVERY: Duration = Duration::from_millis(250);
/// The capture thread's longest wait for a block before it looks at the stop flag again.
#[cfg(target_os = "linux")]
const CAPTURE_WAIT_MS: i32 = 50;

/// The capture thread: empties the rings block by block into the queue, and nothing else.
#[cfg(target_os = "linux")]
fn capture_thread(
    mut sockets: Vec<(afpacket::Socket, afpacket::Mode)>,
    shared: &Shared,
    tx: &mpsc::Sender<Batch>,
    limit: usize,
) {
    let fds: Vec<libc::c_int> = sockets.iter().map(|(s, _)| s.raw_fd()).collect();
    let mut last_stats = Instant::now();
    // After a stop request: one more wait for the blocks the kernel is about to hand over
    // (its block timeout), one more sweep, then the end.
    let mut last_sweep = false;
    loop {
        let stopping = shared.stop.load(Ordering::Acquire);
        let mut any = false;
        for (i, ((socket, mode), counters)) in sockets.iter_mut().zip(&shared.counters).enumerate()
        {
            let interface = u32::try_from(i).unwrap_or(u32::MAX);
            // At most a ring's worth of blocks per interface before the next one's turn.
            loop {
                let mut batch = Batch {
                    interface,
                    data: Vec::new(),
                    frames: Vec::new(),
                };
                let mut echoes = 0;
                let Some(r) = socket.read_block(|h, d| {
                    if afpacket::is_loopback_echo(h) {
                        echoes += 1;
                    } else {
                        push_frame(&mut batch, h, d, *mode);
                    }
                }) else {
                    break;
                };
                any = true;
                if r.is_err() {
                    counters.bad_blocks.fetch_add(1, Ordering::Relaxed);
                }
                if echoes > 0 {
                    counters
                        .loopback_echoes
                        .fetch_add(echoes, Ordering::Relaxed);
                }
                if batch.frames.is_empty() {
                    continue;
                }
                batch.data.shrink_to_fit();
                let bytes = batch.bytes();
                if shared.queued.load(Ordering::Acquire).saturating_add(bytes) > limit {
                    counters
                        .user_dropped
                        .fetch_add(batch.frames.len() as u64, Ordering::Relaxed);
                    continue;
                }
                shared.queued.fetch_add(bytes, Ordering::AcqRel);
                if tx.send(batch).is_err() {
                    // The reader is gone.
                    return;
                }
            }
        }
        if stopping || last_stats.elapsed() >= STATS_EVERY {
            for ((s, _), c) in sockets.iter().zip(&shared.counters) {
                if let Ok(k) = s.statistics() {
                    c.add_kernel(&k);
                }
            }
            last_stats = Instant::now();
        }
        if stopping {
            if last_sweep {
                return;
            }
            last_sweep = true;
        }
        if !any || stopping {
            let wait = if stopping { 25 } else { CAPTURE_WAIT_MS };
            if let Err(e) = afpacket::wait_any(&fds, wait) {
                if let Ok(mut slot) = shared.error.lock() {
                    *slot = Some(format!("capture failed: {e}"));
                }
                return;
            }
        }
    }
}

/// Copies one packet into the batch as the frame poolshark reads: a Linux cooked v2 header
/// first when cooked, the VLAN tag the kernel took off put back when Ethernet.
#[cfg(target_os = "linux")]
fn push_frame(batch: &mut Batch, h: &afpacket::Received, data: &[u8], mode: afpacket::Mode) {
    let start = batch.data.len();
    let mut extra = 0usize;
    match mode {
        afpacket::Mode::Cooked => {
            batch.data.extend_from_slice(&sll2(h));
            batch.data.extend_from_slice(data);
            extra = SLL2_LEN;
        }
        afpacket::Mode::Ethernet if h.vlan.is_some() && data.len() >= 12 => {
            let (tpid, tci) = h.vlan.unwrap_or_default();
            batch.data.extend_from_slice(&data[..12]);
            batch.data.extend_from_slice(&tpid.to_be_bytes());
            batch.data.extend_from_slice(&tci.to_be_bytes());
            batch.data.extend_from_slice(&data[12..]);
            extra = 4;
        }
        _ => batch.data.extend_from_slice(data),
    }
    batch.frames.push(Meta {
        ts: Timestamp::new(h.secs, h.nanos),
        start,
        len: batch.data.len() - start,
        orig_len: u32::try_from(h.len.saturating_add(extra)).unwrap_or(u32::MAX),
    });
}

fn open_backend(
    opts: &LiveOptions,
    first: &str,
    snaplen: u32,
) -> Result<(Inner, Vec<InterfaceInfo>), LiveError> {
    let use_pcap = match opts.backend {
        Backend::Libpcap => true,
        Backend::AfPacket => false,
        Backend::Auto => {
            !cfg!(target_os = "linux")
                || (cfg!(feature = "libpcap")
                    && matches!(&opts.filter, FilterChoice::Compiled(c) if c.beyond_subset))
        }
    };
    if use_pcap {
        if opts.interfaces.len() > 1 {
            return Err(LiveError::new(
                LiveErrorKind::Unsupported,
                first,
                "the libpcap backend captures on one interface at a time: use the AF_PACKET \
                 backend (the default on Linux) for several"
                    .to_string(),
            ));
        }
        #[cfg(feature = "libpcap")]
        {
            let p = pcap_backend::PcapCapture::open(opts, first, snaplen)?;
            let info = InterfaceInfo {
                name: first.to_string(),
                linktype: p.linktype(),
                snaplen,
                filter: describe_filter(&opts.filter),
                backend: "libpcap",
                buffer: opts.buffer,
            };
            let inner = Inner::Pcap(PcapInner {
                cap: Box::new(p),
                buf: vec![0u8; snaplen as usize],
                received: 0,
                dropped: 0,
            });
            return Ok((inner, vec![info]));
        }
        #[cfg(not(feature = "libpcap"))]
        return Err(LiveError::new(
            LiveErrorKind::Unsupported,
            first,
            "this poolshark was built without the `libpcap` feature; on this system live \
             capture needs it (cargo build --features libpcap)"
                .to_string(),
        ));
    }
    #[cfg(target_os = "linux")]
    {
        let mut sockets = Vec::new();
        let mut infos = Vec::new();
        for name in &opts.interfaces {
            let (socket, mode, linktype) = open_afpacket(opts, name, snaplen)?;
            infos.push(InterfaceInfo {
                name: name.clone(),
                linktype,
                snaplen,
                filter: describe_filter(&opts.filter),
                backend: "AF_PACKET",
                buffer: socket.ring_bytes(),
            });
            sockets.push((socket, mode));
        }
        let shared = Arc::new(Shared {
            stop: AtomicBool::new(false),
            counters: sockets.iter().map(|_| Counters::default()).collect(),
            queued: AtomicUsize::new(0),
            error: Mutex::new(None),
        });
        let inner = Inner::Ring(RingCapture {
            sockets: Some(sockets),
            thread: None,
            rx: None,
            queue_limit: opts.queue,
            shared,
            current: None,
            pos: 0,
        });
        Ok((inner, infos))
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = snaplen;
        Err(LiveError::new(
            LiveErrorKind::Unsupported,
            first,
            "AF_PACKET capture exists on Linux only: use the libpcap backend".to_string(),
        ))
    }
}

/// One interface's AF_PACKET socket: (socket, how it frames packets, LINKTYPE_).
#[cfg(target_os = "linux")]
fn open_afpacket(
    opts: &LiveOptions,
    name: &str,
    snaplen: u32,
) -> Result<(afpacket::Socket, afpacket::Mode, u32), LiveError> {
    let dev = afpacket::device(name).map_err(|e| LiveError::from_io(name, e))?;
    let program = match &opts.filter {
        FilterChoice::All => bpf::accept_all(),
        FilterChoice::Compiled(c) => match dev.mode {
            afpacket::Mode::Ethernet => &c.ethernet,
            afpacket::Mode::RawIp | afpacket::Mode::Cooked => &c.network,
        }
        .clone()
        .map_err(|e| LiveError::filter(name, &e))?,
    };
    // Only loopback devices (and `any`, which includes lo) echo their own packets.
    let program = if dev.arphrd.is_none_or(|t| t == afpacket::ARPHRD_LOOPBACK) {
        bpf::without_loopback_echoes(&program)
    } else {
        program
    };
    let socket = afpacket::Socket::open(&dev, &program, opts.buffer, snaplen)
        .map_err(|e| LiveError::from_io(name, e))?;
    let linktype = match dev.mode {
        afpacket::Mode::Ethernet => linktype::ETHERNET,
        afpacket::Mode::RawIp => linktype::RAW,
        afpacket::Mode::Cooked => linktype::LINUX_SLL2,
    };
    Ok((socket, dev.mode, linktype))
}

fn describe_filter(f: &FilterChoice) -> String {
    match f {
        FilterChoice::All => "none (every packet)".into(),
        FilterChoice::Compiled(c) => c.description.clone(),
    }
}

/// A Linux cooked v2 header from a packet's socket address.
#[cfg(target_os = "linux")]
fn sll2(r: &afpacket::Received) -> [u8; SLL2_LEN] {
    let mut h = [0u8; SLL2_LEN];
    h[0..2].copy_from_slice(&r.protocol.to_be_bytes());
    h[4..8].copy_from_slice(&r.ifindex.to_be_bytes());
    h[8..10].copy_from_slice(&r.hatype.to_be_bytes());
    h[10] = r.pkttype;
    h[11] = r.addr_len;
    h[12..20].copy_from_slice(&r.addr);
    h
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

/// Where the next frame is.
enum Step {
    #[cfg(target_os = "linux")]
    Ring,
    #[cfg(feature = "libpcap")]
    Pcap(Timestamp, usize, u32),
    Idle,
    End,
}

impl LiveSource {
    /// The next frame if one is waiting, without blocking (with libpcap: waits at most the
    /// poll interval). Once `End` is returned, the source only returns `End`.
    pub fn poll_frame(&mut self) -> Result<Polled<'_>, SourceError> {
        match self.step()? {
            Step::End => Ok(Polled::End),
            Step::Idle => Ok(Polled::Idle),
            s => Ok(Polled::Frame(self.frame(s))),
        }
    }

    /// The frame `s` found (which is neither idle nor the end).
    fn frame(&self, s: Step) -> Frame<'_> {
        let (ts, data, orig_len, interface): (Timestamp, &[u8], u32, u32) = match (&self.inner, s) {
            #[cfg(target_os = "linux")]
            (Inner::Ring(r), Step::Ring) => match &r.current {
                Some(b) => {
                    let m = r.pos.checked_sub(1).and_then(|i| b.frames.get(i));
                    match m {
                        Some(m) => (
                            m.ts,
                            b.data.get(m.start..m.start + m.len).unwrap_or_default(),
                            m.orig_len,
                            b.interface,
                        ),
                        None => (Timestamp::default(), &[], 0, 0),
                    }
                }
                None => (Timestamp::default(), &[], 0, 0),
            },
            #[cfg(feature = "libpcap")]
            (Inner::Pcap(p), Step::Pcap(ts, caplen, orig_len)) => {
                (ts, p.buf.get(..caplen).unwrap_or_default(), orig_len, 0)
            }
            #[allow(unreachable_patterns)]
            _ => (Timestamp::default(), &[], 0, 0),
        };
        let i = interface as usize;
        Frame {
            number: self.captured,
            ts,
            // tshark's live captures show microseconds.
            ts_digits: 6,
            linktype: self.interfaces.get(i).map_or(0, |i| i.linktype),
            orig_len,
            interface,
            data,
            pcapng: Some(Pcapng {
                section: 1,
                block: Block::Packet,
                names: self.names.get(i).unwrap_or(&NO_NAMES),
                options: &[],
                big_endian: false,
            }),
        }
    }

    /// Blocks until a frame may be waiting, or at most the poll interval (less when the
    /// duration ends sooner); a signal cuts it short.
    pub fn wait(&mut self) -> Result<(), SourceError> {
        if self.finished {
            return Ok(());
        }
        let budget = self.wait_budget();
        if let Err(e) = self.start() {
            self.finished = true;
            return Err(e);
        }
        match &mut self.inner {
            #[cfg(target_os = "linux")]
            Inner::Ring(r) => {
                if r.current.as_ref().is_some_and(|b| r.pos < b.frames.len()) {
                    return Ok(());
                }
                r.release_current();
                if let Some(rx) = &r.rx {
                    if let Ok(b) = rx.recv_timeout(budget) {
                        r.current = Some(b);
                    }
                }
                Ok(())
            }
            // libpcap waits inside its read.
            #[cfg(feature = "libpcap")]
            Inner::Pcap(_) => {
                let _ = budget;
                Ok(())
            }
        }
    }

    fn step(&mut self) -> Result<Step, SourceError> {
        if self.finished {
            return Ok(Step::End);
        }
        if self.counted_out() {
            self.finished = true;
            return Ok(Step::End);
        }
        self.start()?;
        let stopping = self.stop_asked();
        let captured = self.captured + 1;
        let fatal = |what: String| SourceError {
            frame: Some(captured),
            offset: None,
            what,
            fatal: true,
        };
        match &mut self.inner {
            #[cfg(target_os = "linux")]
            Inner::Ring(r) => {
                if stopping {
                    r.shared.stop.store(true, Ordering::SeqCst);
                }
                loop {
                    if let Some(b) = &r.current {
                        if let Some(m) = b.frames.get(r.pos) {
                            let _ = m;
                            r.pos += 1;
                            let i = b.interface as usize;
                            self.captured += 1;
                            if let Some(c) = self.captured_by.get_mut(i) {
                                *c += 1;
                            }
                            return Ok(Step::Ring);
                        }
                    }
                    r.release_current();
                    let Some(rx) = &r.rx else {
                        return Ok(Step::Idle);
                    };
                    match rx.try_recv() {
                        Ok(b) => r.current = Some(b),
                        Err(mpsc::TryRecvError::Empty) => return Ok(Step::Idle),
                        Err(mpsc::TryRecvError::Disconnected) => {
                            // The thread ended: asked to, or on an error.
                            self.finished = true;
                            r.rx = None;
                            if let Some(t) = r.thread.take() {
                                let _ = t.join();
                            }
                            let error = r.shared.error.lock().ok().and_then(|mut e| e.take());
                            return match error {
                                Some(e) => Err(fatal(e)),
                                None => Ok(Step::End),
                            };
                        }
                    }
                }
            }
            #[cfg(feature = "libpcap")]
            Inner::Pcap(p) => {
                if stopping {
                    self.finished = true;
                    return Ok(Step::End);
                }
                match p.cap.next(&mut p.buf) {
                    Ok(Some((ts, caplen, orig_len))) => {
                        self.captured += 1;
                        if let Some(c) = self.captured_by.first_mut() {
                            *c += 1;
                        }
                        Ok(Step::Pcap(ts, caplen, orig_len))
                    }
                    Ok(None) => Ok(Step::Idle),
                    Err(e) => {
                        self.finished = true;
                        Err(fatal(format!("capture failed: {e}")))
                    }
                }
            }
        }
    }
}

/// The names of an interface beyond the list (none).
static NO_NAMES: InterfaceNames = InterfaceNames {
    name: None,
    description: None,
};

impl FrameSource for LiveSource {
    fn next_frame(&mut self) -> Result<Option<Frame<'_>>, SourceError> {
        loop {
            match self.step()? {
                Step::End => return Ok(None),
                Step::Idle => self.wait()?,
                s => return Ok(Some(self.frame(s))),
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
