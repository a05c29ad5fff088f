//! A small DHCPv4 client for the takeover test, built from poolshark's own pieces: messages from
//! the project's emitters, frames from its builders, sent through the probe's AF_PACKET sender
//! and read back through a live capture and the pipeline. It runs on a thread moved into the
//! client host's network namespace (`setns` changes the namespace of the calling thread only).
//!
//! One client after another, each with a new hardware address, does DISCOVER -> OFFER ->
//! REQUEST -> ACK (RFC 2131's SELECTING state, naming the server of the first offer), sending
//! the DISCOVER again after a second without an offer, up to three times with secs counting
//! the seconds since its first, as clients do.

use std::net::Ipv4Addr;
use std::os::fd::AsRawFd;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use poolshark::filter::capture::compiled_expression;
use poolshark::generate::packet::{Ip, Link, Packet};
use poolshark::pipeline::{Decoded, Options, Pipeline, Sink};
use poolshark::probe::link::{interface, FrameSender};
use poolshark::proto::dhcpv4::{self, message_type, Opt, BOOTREPLY};
use poolshark::proto::Message;
use poolshark::source::live::{LiveOptions, LiveSource, Polled};

use super::lab::now;

/// One client's exchange.
#[derive(Clone, Debug)]
pub struct Exchange {
    /// When its first DISCOVER left (Unix seconds).
    pub start: f64,
    pub discovers: u32,
    /// The servers that offered, in order.
    pub offers_from: Vec<Ipv4Addr>,
    /// The server that acknowledged its REQUEST.
    pub acked_by: Option<Ipv4Addr>,
}

/// Clients running until stopped.
pub struct Clients {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<Result<Vec<Exchange>, String>>>,
}

impl Clients {
    /// Starts a client every `every` on `eth0` of the namespace at `netns`.
    pub fn start(netns: PathBuf, every: Duration) -> Clients {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let thread = std::thread::spawn(move || run(&netns, every, &flag));
        Clients {
            stop,
            thread: Some(thread),
        }
    }

    /// Stops after the exchange under way, and returns every exchange.
    pub fn stop(mut self) -> Vec<Exchange> {
        self.stop.store(true, Ordering::SeqCst);
        let t = self.thread.take().expect("running");
        t.join()
            .expect("client thread")
            .unwrap_or_else(|e| panic!("DHCP client: {e}"))
    }
}

impl Drop for Clients {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// A server's answer.
struct Reply {
    xid: u32,
    msg_type: Option<u8>,
    server: Option<Ipv4Addr>,
    yiaddr: Ipv4Addr,
}

#[derive(Default)]
struct Replies(Vec<Reply>);

impl Sink for Replies {
    fn message(&mut self, d: &Decoded<'_>) {
        if let Message::Dhcpv4(m) = d.message {
            if m.op == BOOTREPLY {
                self.0.push(Reply {
                    xid: m.xid(),
                    msg_type: m.message_type(),
                    server: m.server_identifier(),
                    yiaddr: m.yiaddr,
                });
            }
        }
    }
}

struct Link2 {
    sender: FrameSender,
    mac: [u8; 6],
    capture: LiveSource,
    pipeline: Pipeline,
    replies: Replies,
}

impl Link2 {
    fn send(&self, m: &dhcpv4::Message<'_>) -> Result<(), String> {
        let payload = m.emit();
        let mut p = Packet::udp(
            Ip::v4(Ipv4Addr::UNSPECIFIED, Ipv4Addr::BROADCAST),
            68,
            67,
            &payload,
        );
        p.link = Link::Ethernet {
            src: self.mac,
            dst: [0xff; 6],
            vlans: Vec::new(),
        };
        let mut frame = Vec::new();
        p.build(&mut frame);
        self.sender.send(&frame).map_err(|e| format!("send: {e}"))
    }

    /// The replies to `xid` of type `t` that come within `wait`, and within `linger` of the
    /// first (a second server's answer to the same message comes in milliseconds).
    fn await_replies(&mut self, xid: u32, t: u8, wait: Duration, linger: Duration) -> Vec<Reply> {
        let mut got: Vec<Reply> = Vec::new();
        let mut until = Instant::now() + wait;
        while Instant::now() < until {
            match self.capture.poll_frame() {
                Ok(Polled::Frame(f)) => self.pipeline.feed(&f, &mut self.replies),
                Ok(Polled::Idle) => {
                    let _ = self.capture.wait();
                }
                Ok(Polled::End) | Err(_) => break,
            }
            for r in self.replies.0.drain(..) {
                if r.xid == xid && r.msg_type == Some(t) {
                    if got.is_empty() {
                        until = until.min(Instant::now() + linger);
                    }
                    got.push(r);
                }
            }
        }
        got
    }
}

fn enter(netns: &PathBuf) -> Result<(), String> {
    let f = std::fs::File::open(netns).map_err(|e| format!("{}: {e}", netns.display()))?;
    // SAFETY: a namespace file descriptor, for the calling thread only.
    if unsafe { libc::setns(f.as_raw_fd(), libc::CLONE_NEWNET) } != 0 {
        return Err(format!("setns: {}", std::io::Error::last_os_error()));
    }
    Ok(())
}

fn run(netns: &PathBuf, every: Duration, stop: &AtomicBool) -> Result<Vec<Exchange>, String> {
    enter(netns)?;
    let iface = interface("eth0")?;
    let mut opts = LiveOptions::new("eth0");
    opts.filter = compiled_expression("udp dst port 68");
    opts.poll_interval = Duration::from_millis(5);
    let mut link = Link2 {
        sender: FrameSender::open(iface.ifindex).map_err(|e| e.to_string())?,
        mac: iface.source.mac,
        capture: LiveSource::open(&opts).map_err(|e| e.to_string())?,
        pipeline: Pipeline::new(Options::default()),
        replies: Replies::default(),
    };
    let mut out = Vec::new();
    let mut n: u32 = 0;
    while !stop.load(Ordering::SeqCst) {
        n += 1;
        let next = Instant::now() + every;
        let [_, a, b, c] = n.to_be_bytes();
        // Locally administered, "cl": apart from the probe's 02:70:73.
        let mac = [0x02, 0x63, 0x6c, a, b, c];
        out.push(exchange(&mut link, mac, 0x6c00_0000 | n << 4)?);
        std::thread::sleep(next.saturating_duration_since(Instant::now()));
    }
    Ok(out)
}

fn exchange(link: &mut Link2, mac: [u8; 6], xid: u32) -> Result<Exchange, String> {
    let started = Instant::now();
    let mut e = Exchange {
        start: now(),
        discovers: 0,
        offers_from: Vec::new(),
        acked_by: None,
    };
    let params = Opt::parameter_request_list(&[1, 3, 6, 51, 54]);
    let mut offer = None;
    for _ in 0..3 {
        let secs = started.elapsed().as_secs() as u16;
        let discover = dhcpv4::Message::request(message_type::DISCOVER, xid, mac)
            .with_broadcast()
            .with_secs(secs)
            .with(params.clone())
            .padded_to(300);
        link.send(&discover)?;
        e.discovers += 1;
        // A second for the offers; both servers' when both answer.
        let offers = link.await_replies(
            xid,
            message_type::OFFER,
            Duration::from_secs(1),
            Duration::from_millis(200),
        );
        e.offers_from = offers.iter().filter_map(|o| o.server).collect();
        if let Some(first) = offers.into_iter().next() {
            offer = Some(first);
            break;
        }
    }
    let Some(offer) = offer else {
        return Ok(e);
    };
    let Some(server) = offer.server else {
        return Ok(e);
    };
    let request = dhcpv4::Message::request(message_type::REQUEST, xid, mac)
        .with_broadcast()
        .with_secs(started.elapsed().as_secs() as u16)
        .with(Opt::requested_address(offer.yiaddr))
        .with(Opt::server_identifier(server))
        .with(params)
        .padded_to(300);
    link.send(&request)?;
    let acks = link.await_replies(
        xid,
        message_type::ACK,
        Duration::from_secs(1),
        Duration::ZERO,
    );
    e.acked_by = acks.first().and_then(|a| a.server);
    Ok(e)
}
