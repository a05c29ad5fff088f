//! Traffic poolshark has no business with, so that captures look like a real segment and the
//! dissector's dispatch is exercised: HTTP and bulk TCP transfers (handshake, request, response in
//! MSS-sized segments with acknowledgements, close), DNS, NTP and syslog over UDP. Hosts live in
//! 172.16.0.0/16 (clients) and 203.0.113.0/24 (servers); no port is one poolshark decodes.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};

use super::batch::Batch;
use super::net::{ethernet, udp_frame};
use super::pace::{mean_gap_ns, Dice};
use super::Scenario;
use crate::generate::TcpFlow;

/// A background scenario.
#[derive(Clone, Debug)]
pub struct BackgroundConfig {
    /// Conversations per second.
    pub rate: f64,
    pub clients: u32,
    pub servers: u32,
    /// End after this many conversations (`None`: never).
    pub transactions: Option<u64>,
}

impl Default for BackgroundConfig {
    fn default() -> Self {
        BackgroundConfig {
            rate: 60.0,
            clients: 200,
            servers: 20,
            transactions: None,
        }
    }
}

/// The scenario (see the module documentation).
pub struct BackgroundScenario {
    cfg: BackgroundConfig,
    dice: Dice,
    now: u64,
    mean_gap: u64,
    done: u64,
    buf: Vec<u8>,
    body: Vec<u8>,
}

const HTTP: u16 = 80;
/// A port no dissector of tshark's claims (so bulk bytes stay plain TCP payload).
const BULK: u16 = 9000;
const DNS: u16 = 53;
const NTP: u16 = 123;
const SYSLOG: u16 = 514;

impl BackgroundScenario {
    pub fn new(cfg: BackgroundConfig, seed: u64) -> Self {
        BackgroundScenario {
            mean_gap: mean_gap_ns(cfg.rate),
            cfg,
            dice: Dice::new(seed, "background"),
            now: 0,
            done: 0,
            buf: Vec::with_capacity(1600),
            body: Vec::with_capacity(16 * 1024),
        }
    }

    fn client(&mut self) -> IpAddr {
        let n = self.dice.below(self.cfg.clients.max(1) as usize) as u32;
        IpAddr::V4(Ipv4Addr::new(172, 16, (n / 250) as u8, (n % 250 + 2) as u8))
    }

    fn server(&mut self) -> IpAddr {
        let n = self.dice.below(self.cfg.servers.max(1) as usize) as u32;
        IpAddr::V4(Ipv4Addr::new(203, 0, 113, (n % 250 + 2) as u8))
    }

    fn ephemeral(&mut self) -> u16 {
        49_152 + self.dice.below(16_000) as u16
    }

    fn tcp(&mut self, server_port: u16, out: &mut Batch) {
        let c = SocketAddr::new(self.client(), self.ephemeral());
        let s = SocketAddr::new(self.server(), server_port);
        let mut flow = TcpFlow::new(c, s, [self.dice.u32(), self.dice.u32()]);
        flow.link = ethernet(c.ip(), s.ip());
        let mut push = |f: &[u8]| out.push(f);
        flow.handshake(&mut push);
        let size = 200 + self.dice.below(12_000);
        self.body.clear();
        if server_port == HTTP {
            let req = format!(
                "GET /static/{}.js HTTP/1.1\r\nHost: www.example\r\nUser-Agent: curl/8.0\r\nAccept: */*\r\n\r\n",
                self.dice.u32()
            );
            flow.send(true, req.as_bytes(), &mut push);
            self.body.extend_from_slice(
                format!(
                    "HTTP/1.1 200 OK\r\nContent-Type: text/javascript\r\nContent-Length: {size}\r\n\r\n"
                )
                .as_bytes(),
            );
            self.body
                .extend((0..size).map(|i| b"abcdefghijklmnopqrstuvwxyz;\n "[i % 29]));
        } else {
            flow.send(true, &self.dice.u32().to_be_bytes(), &mut push);
            let seed = self.dice.u32();
            self.body
                .extend((0..size).map(|i| (seed.rotate_left(i as u32 % 32) ^ i as u32) as u8));
        }
        // The response in MSS-sized segments, the client acknowledging every second one.
        let mss = flow.mss.max(1);
        for (k, part) in self.body.chunks(mss).enumerate() {
            flow.send(false, part, &mut push);
            if k % 2 == 1 {
                flow.ack(true, &mut push);
            }
        }
        flow.ack(true, &mut push);
        flow.close(&mut push);
    }

    fn dns(&mut self, out: &mut Batch) {
        let c = SocketAddr::new(self.client(), self.ephemeral());
        let s = SocketAddr::new(IpAddr::V4(Ipv4Addr::new(203, 0, 113, 53)), DNS);
        let id = self.dice.u32() as u16;
        let host = format!("host{}", self.dice.below(500));
        let mut q = Vec::with_capacity(64);
        q.extend_from_slice(&id.to_be_bytes());
        q.extend_from_slice(&[0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0]);
        for label in [host.as_str(), "example", "net"] {
            q.push(label.len() as u8);
            q.extend_from_slice(label.as_bytes());
        }
        q.extend_from_slice(&[0, 0, 1, 0, 1]);
        out.push(udp_frame(&mut self.buf, c, s, &q));
        out.wait(800_000);
        let mut r = q.clone();
        // Response, recursion available, one answer: a pointer to the question's name.
        r[2] = 0x81;
        r[3] = 0x80;
        r[7] = 1;
        r.extend_from_slice(&[0xc0, 0x0c, 0, 1, 0, 1, 0, 0, 0x0e, 0x10, 0, 4]);
        r.extend_from_slice(&[198, 51, 100, (id % 250) as u8 + 2]);
        out.push(udp_frame(&mut self.buf, s, c, &r));
    }

    fn ntp(&mut self, out: &mut Batch) {
        let c = SocketAddr::new(self.client(), NTP);
        let s = SocketAddr::new(IpAddr::V4(Ipv4Addr::new(203, 0, 113, 123)), NTP);
        let mut m = [0u8; 48];
        m[0] = 0x23; // version 4, client
        let t = (out.time() / super::batch::NS + 2_208_988_800) as u32;
        m[40..44].copy_from_slice(&t.to_be_bytes());
        out.push(udp_frame(&mut self.buf, c, s, &m));
        out.wait(500_000);
        m[0] = 0x24; // version 4, server
        m[1] = 2;
        // The client's transmit time becomes the origin timestamp.
        m.copy_within(40..48, 24);
        m[32..36].copy_from_slice(&t.to_be_bytes());
        out.push(udp_frame(&mut self.buf, s, c, &m));
    }

    fn syslog(&mut self, out: &mut Batch) {
        let c = SocketAddr::new(self.client(), self.ephemeral());
        let s = SocketAddr::new(IpAddr::V4(Ipv4Addr::new(203, 0, 113, 14)), SYSLOG);
        let msg = format!(
            "<134>Jan  1 00:00:00 web{} nginx[{}]: GET /health 200",
            self.dice.below(20),
            1000 + self.dice.below(30_000)
        );
        out.push(udp_frame(&mut self.buf, c, s, msg.as_bytes()));
    }
}

impl Scenario for BackgroundScenario {
    fn name(&self) -> &'static str {
        "background"
    }

    fn step(&mut self, out: &mut Batch) -> bool {
        if self.cfg.transactions.is_some_and(|n| self.done >= n) {
            return false;
        }
        // Conversations are independent: the next may start while this one is still going.
        out.begin(self.now);
        match self.dice.weighted(&[30, 10, 40, 10, 10]) {
            0 => self.tcp(HTTP, out),
            1 => self.tcp(BULK, out),
            2 => self.dns(out),
            3 => self.ntp(out),
            _ => self.syslog(out),
        }
        self.done += 1;
        self.now = self
            .now
            .max(out.floor())
            .saturating_add(self.dice.gap(self.mean_gap));
        true
    }
}
