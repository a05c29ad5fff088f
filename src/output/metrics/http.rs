//! A small HTTP/1.1 server for `/metrics`, on std::net: what a Prometheus scrape needs and no
//! more (a GET, a response, the connection closed).
//!
//! One thread accepts; each connection is served on a thread of its own, at most
//! [`Limits::connections`] at once (a connection past that gets a 503 without blocking the
//! accepting thread, and is closed). Each connection has read and write timeouts, and a request
//! larger than [`Limits::request_bytes`] is refused: a client that connects and never sends,
//! or never reads, costs one thread until its timeout, and never blocks the capture, which only
//! swaps the page ([`super::Published`]).
//!
//! `GET /metrics` (a query string is ignored) answers the page, in the text format 0.0.4; any
//! other path is 404, any other method 405.

use std::io::{self, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use super::Published;

/// The bounds of the server.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Connections served at once.
    pub connections: usize,
    /// Longest wait for a request's bytes, and for a client to take the response's.
    pub timeout: Duration,
    /// Largest request (line and headers) read.
    pub request_bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            connections: 16,
            timeout: Duration::from_secs(10),
            request_bytes: 8192,
        }
    }
}

/// `ADDR:PORT`, `[V6ADDR]:PORT`, `HOST:PORT`, or a port alone (`9464`, `:9464`: loopback).
pub fn parse_address(s: &str) -> Result<SocketAddr, String> {
    let port_only = s.strip_prefix(':').unwrap_or(s);
    if let Ok(port) = port_only.parse::<u16>() {
        return Ok(SocketAddr::from(([127, 0, 0, 1], port)));
    }
    if let Ok(a) = s.parse::<SocketAddr>() {
        return Ok(a);
    }
    let bad = |why: String| {
        format!("--metrics {s:?}: {why}; give ADDR:PORT (e.g. 127.0.0.1:9464, [::1]:9464, 0.0.0.0:9464) or a port")
    };
    match s.to_socket_addrs() {
        Ok(mut addrs) => addrs
            .next()
            .ok_or_else(|| bad("the name has no address".into())),
        Err(e) => Err(bad(e.to_string())),
    }
}

/// The running server; dropping it stops the accepting thread (connections being served end by
/// their timeouts).
pub struct Server {
    addr: SocketAddr,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Server {
    /// Binds `addr` and serves `page` from a thread of its own.
    pub fn start(addr: SocketAddr, page: Published, limits: Limits) -> io::Result<Server> {
        Server::bind(addr)?.serve(page, limits)
    }

    /// Binds `addr` without serving yet (a capture binds before it gives up its privileges and
    /// starts the serving thread after, so that thread never has them).
    pub fn bind(addr: SocketAddr) -> io::Result<Bound> {
        let listener = TcpListener::bind(addr)?;
        let addr = listener.local_addr()?;
        Ok(Bound { listener, addr })
    }
}

/// A bound listener that [`Bound::serve`] serves.
pub struct Bound {
    listener: TcpListener,
    addr: SocketAddr,
}

impl Bound {
    /// Where it listens (the port chosen, when 0 was asked).
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// Serves `page` from a thread of its own.
    pub fn serve(self, page: Published, limits: Limits) -> io::Result<Server> {
        let Bound { listener, addr } = self;
        let stop = Arc::new(AtomicBool::new(false));
        let stopping = stop.clone();
        let thread = std::thread::Builder::new()
            .name("metrics-http".into())
            .spawn(move || accept_loop(listener, page, limits, stopping))?;
        Ok(Server {
            addr,
            stop,
            thread: Some(thread),
        })
    }
}

impl Server {
    /// Where it listens (the port chosen, when 0 was asked).
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wakes the accepting thread, which then sees the flag.
        let wake = match self.addr {
            SocketAddr::V4(a) if a.ip().is_unspecified() => {
                SocketAddr::from(([127, 0, 0, 1], a.port()))
            }
            SocketAddr::V6(a) if a.ip().is_unspecified() => {
                SocketAddr::from((std::net::Ipv6Addr::LOCALHOST, a.port()))
            }
            a => a,
        };
        let _ = TcpStream::connect_timeout(&wake, Duration::from_secs(1));
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn accept_loop(listener: TcpListener, page: Published, limits: Limits, stop: Arc<AtomicBool>) {
    let busy = Arc::new(AtomicUsize::new(0));
    for conn in listener.incoming() {
        if stop.load(Ordering::SeqCst) {
            break;
        }
        let Ok(stream) = conn else {
            // A connection reset before it was accepted, or out of descriptors: go on.
            std::thread::sleep(Duration::from_millis(10));
            continue;
        };
        if busy.fetch_add(1, Ordering::SeqCst) >= limits.connections {
            busy.fetch_sub(1, Ordering::SeqCst);
            refuse(stream);
            continue;
        }
        let (page, busy2) = (page.clone(), busy.clone());
        let spawned = std::thread::Builder::new()
            .name("metrics-conn".into())
            .spawn(move || {
                let _ = serve(stream, &page, limits);
                busy2.fetch_sub(1, Ordering::SeqCst);
            });
        if spawned.is_err() {
            busy.fetch_sub(1, Ordering::SeqCst);
        }
    }
}

/// Past the connection bound: a 503 if the socket takes it at once, then closed.
fn refuse(mut stream: TcpStream) {
    let _ = stream.set_nonblocking(true);
    let _ = stream.write_all(&response(
        "503 Service Unavailable",
        &[("Retry-After", "1")],
        "too many connections\n",
    ));
    let _ = stream.shutdown(Shutdown::Both);
}

fn response(status: &str, headers: &[(&str, &str)], body: &str) -> Vec<u8> {
    let mut r = format!("HTTP/1.1 {status}\r\n");
    for (k, v) in headers {
        r.push_str(&format!("{k}: {v}\r\n"));
    }
    if !headers.iter().any(|(k, _)| *k == "Content-Type") {
        r.push_str("Content-Type: text/plain; charset=utf-8\r\n");
    }
    r.push_str(&format!(
        "Content-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    ));
    let mut bytes = r.into_bytes();
    bytes.extend_from_slice(body.as_bytes());
    bytes
}

/// What a request asks, from its first line.
#[derive(Debug, PartialEq, Eq)]
pub enum Route {
    Metrics,
    NotFound,
    MethodNotAllowed,
    BadRequest,
}

/// Routes a request line (`GET /metrics HTTP/1.1`).
pub fn route(line: &str) -> Route {
    let mut parts = line.split(' ');
    let (Some(method), Some(target), Some(version), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Route::BadRequest;
    };
    if !version.starts_with("HTTP/1.") || target.is_empty() {
        return Route::BadRequest;
    }
    let path = target.split('?').next().unwrap_or(target);
    if method != "GET" {
        return Route::MethodNotAllowed;
    }
    if path == "/metrics" {
        Route::Metrics
    } else {
        Route::NotFound
    }
}

/// Reads the request up to the end of its headers (within the bounds), answers, closes.
fn serve(mut stream: TcpStream, page: &Published, limits: Limits) -> io::Result<()> {
    stream.set_write_timeout(Some(limits.timeout))?;
    // The whole request within the timeout: a client sending a byte now and then does not keep
    // its thread longer.
    let deadline = std::time::Instant::now() + limits.timeout;
    let mut buf = Vec::with_capacity(1024);
    let mut chunk = [0u8; 1024];
    let complete = loop {
        if buf.windows(4).any(|w| w == b"\r\n\r\n") || buf.windows(2).any(|w| w == b"\n\n") {
            break true;
        }
        if buf.len() >= limits.request_bytes {
            break false;
        }
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        if left.is_zero() {
            return Err(io::ErrorKind::TimedOut.into());
        }
        stream.set_read_timeout(Some(left))?;
        let n = stream.read(&mut chunk)?;
        if n == 0 {
            // The client closed before its request was whole.
            return Ok(());
        }
        buf.extend_from_slice(&chunk[..n]);
    };
    let reply = if !complete {
        response(
            "431 Request Header Fields Too Large",
            &[],
            "request too large\n",
        )
    } else {
        let line = buf
            .split(|b| *b == b'\n')
            .next()
            .map(|l| {
                String::from_utf8_lossy(l)
                    .trim_end_matches('\r')
                    .to_string()
            })
            .unwrap_or_default();
        match route(&line) {
            Route::Metrics => {
                let text = page.current();
                response(
                    "200 OK",
                    &[("Content-Type", "text/plain; version=0.0.4; charset=utf-8")],
                    &text,
                )
            }
            Route::NotFound => response("404 Not Found", &[], "not found: try /metrics\n"),
            Route::MethodNotAllowed => response(
                "405 Method Not Allowed",
                &[("Allow", "GET")],
                "only GET /metrics\n",
            ),
            Route::BadRequest => response("400 Bad Request", &[], "bad request\n"),
        }
    };
    stream.write_all(&reply)?;
    stream.flush()?;
    let _ = stream.shutdown(Shutdown::Write);
    if !complete {
        // What the client still sends is read and dropped for a moment: closed with unread
        // bytes, the socket would be reset and the client might lose the answer.
        stream.set_read_timeout(Some(Duration::from_millis(200)))?;
        let mut left = 1 << 16;
        while left > 0 {
            match stream.read(&mut chunk) {
                Ok(0) | Err(_) => break,
                Ok(n) => left -= n.min(left),
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Instant;

    #[test]
    fn addresses() {
        assert_eq!(parse_address("9464"), Ok("127.0.0.1:9464".parse().unwrap()));
        assert_eq!(parse_address(":0"), Ok("127.0.0.1:0".parse().unwrap()));
        assert_eq!(
            parse_address("0.0.0.0:9464"),
            Ok("0.0.0.0:9464".parse().unwrap())
        );
        assert_eq!(parse_address("[::1]:80"), Ok("[::1]:80".parse().unwrap()));
        assert!(parse_address("localhost:9464").is_ok_and(|a| a.ip().is_loopback()));
        let e = parse_address("no port").unwrap_err();
        assert!(e.contains("ADDR:PORT"), "{e}");
        assert!(parse_address("127.0.0.1:99999").is_err());
    }

    #[test]
    fn routes() {
        assert_eq!(route("GET /metrics HTTP/1.1"), Route::Metrics);
        assert_eq!(route("GET /metrics?x=1 HTTP/1.0"), Route::Metrics);
        assert_eq!(route("GET / HTTP/1.1"), Route::NotFound);
        assert_eq!(route("GET /metrics/ HTTP/1.1"), Route::NotFound);
        assert_eq!(route("POST /metrics HTTP/1.1"), Route::MethodNotAllowed);
        assert_eq!(route("HEAD /metrics HTTP/1.1"), Route::MethodNotAllowed);
        assert_eq!(route("GET /metrics"), Route::BadRequest);
        assert_eq!(route("garbage"), Route::BadRequest);
    }

    fn get(addr: SocketAddr, request: &[u8]) -> String {
        let mut s = TcpStream::connect(addr).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        s.write_all(request).unwrap();
        let mut out = String::new();
        s.read_to_string(&mut out).unwrap();
        out
    }

    #[test]
    fn serves_the_page_and_refuses_the_rest() {
        let page = Published::new();
        page.publish("poolshark_frames_total 7\n".into());
        let server =
            Server::start("127.0.0.1:0".parse().unwrap(), page, Limits::default()).unwrap();
        let a = server.local_addr();
        assert_ne!(a.port(), 0);
        let ok = get(a, b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n");
        assert!(ok.starts_with("HTTP/1.1 200 OK\r\n"), "{ok}");
        assert!(
            ok.contains("Content-Type: text/plain; version=0.0.4"),
            "{ok}"
        );
        assert!(ok.ends_with("\r\n\r\npoolshark_frames_total 7\n"), "{ok}");
        assert!(get(a, b"GET /other HTTP/1.1\r\n\r\n").starts_with("HTTP/1.1 404 "));
        let post = get(a, b"POST /metrics HTTP/1.1\r\nContent-Length: 0\r\n\r\n");
        assert!(post.starts_with("HTTP/1.1 405 ") && post.contains("Allow: GET"));
        let big = format!("GET /metrics HTTP/1.1\r\nX: {}\r\n\r\n", "a".repeat(9000));
        assert!(get(a, big.as_bytes()).starts_with("HTTP/1.1 431 "));
    }

    #[test]
    fn silent_and_slow_clients_block_nobody_and_time_out() {
        let page = Published::new();
        // A page larger than the socket buffers, for the client that never reads.
        page.publish("x 1\n".repeat(2_000_000));
        let limits = Limits {
            connections: 4,
            timeout: Duration::from_millis(500),
            request_bytes: 8192,
        };
        let server = Server::start("127.0.0.1:0".parse().unwrap(), page.clone(), limits).unwrap();
        let a = server.local_addr();
        // One never sends, one sends and never reads.
        let silent = TcpStream::connect(a).unwrap();
        let mut deaf = TcpStream::connect(a).unwrap();
        deaf.write_all(b"GET /metrics HTTP/1.1\r\n\r\n").unwrap();
        // Meanwhile the page is swapped and others are served at once.
        page.publish("x 2\n".into());
        let t = Instant::now();
        for _ in 0..2 {
            assert!(get(a, b"GET /metrics HTTP/1.1\r\n\r\n").ends_with("x 2\n"));
        }
        assert!(
            t.elapsed() < Duration::from_millis(400),
            "{:?}",
            t.elapsed()
        );
        // Past their timeouts their threads are gone: four connections at once are served.
        std::thread::sleep(Duration::from_millis(1500));
        let clients: Vec<_> = (0..4)
            .map(|_| std::thread::spawn(move || get(a, b"GET /metrics HTTP/1.1\r\n\r\n")))
            .collect();
        for c in clients {
            assert!(c.join().unwrap().starts_with("HTTP/1.1 200 OK"));
        }
        drop((silent, deaf));
    }

    #[test]
    fn past_the_connection_bound_a_client_gets_503_at_once() {
        let limits = Limits {
            connections: 1,
            timeout: Duration::from_secs(5),
            request_bytes: 8192,
        };
        let server =
            Server::start("127.0.0.1:0".parse().unwrap(), Published::new(), limits).unwrap();
        let a = server.local_addr();
        let _hog = TcpStream::connect(a).unwrap();
        // The hog's thread is the one allowed; give the accepting thread time to take it.
        std::thread::sleep(Duration::from_millis(200));
        let t = Instant::now();
        let r = get(a, b"GET /metrics HTTP/1.1\r\n\r\n");
        assert!(r.starts_with("HTTP/1.1 503 "), "{r}");
        assert!(t.elapsed() < Duration::from_secs(2));
    }

    #[test]
    fn dropping_the_server_stops_it() {
        let server = Server::start(
            "127.0.0.1:0".parse().unwrap(),
            Published::new(),
            Limits::default(),
        )
        .unwrap();
        let a = server.local_addr();
        drop(server);
        assert!(TcpStream::connect_timeout(&a, Duration::from_secs(1)).is_err());
    }
}
