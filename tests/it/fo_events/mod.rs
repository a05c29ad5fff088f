//! The shared failover capture as typed events, read through the project's own pipeline (the
//! same `EventSource` the `check` analyser uses: failover messages with roles learnt from CONNECT,
//! and the servers' DHCPOFFERs with the client of the matching DISCOVER). Also the servers' own
//! logs: each `balancing pool` line with the verdict line that follows it.
#![allow(dead_code)]

use std::path::Path;

use poolshark::analyse::failover::Event;
use poolshark::analyse::failover::EventSource;
use poolshark::pipeline::{Decoded, Options, Pipeline, Sink};
use poolshark::source::file::FileSource;

pub const CAPTURE: &str = "dhcp-failover/isc-dhcpd-4.4.3-failover.pcap";

struct Collect {
    source: EventSource,
    events: Vec<Event>,
}

impl Sink for Collect {
    fn message(&mut self, d: &Decoded<'_>) {
        if let Some(ev) = self.source.event(d) {
            self.events.push(ev);
        }
    }
}

/// Failover events and offers together, in capture order.
pub fn all_events(file: &Path) -> Vec<Event> {
    let mut src = FileSource::open(file).expect("open the capture");
    let mut sink = Collect {
        source: EventSource::default(),
        events: Vec::new(),
    };
    Pipeline::new(Options::default())
        .run(&mut src, &mut sink)
        .expect("read the capture");
    sink.events
}

/// One `balancing pool` line of a server's log and the verdict line after it.
#[derive(Clone, Debug, PartialEq)]
pub struct LoggedRun {
    pub time: f64,
    pub total: u32,
    pub free: u32,
    pub backup: u32,
    pub lts: i64,
    pub max_own: i64,
    pub poolreq: bool,
    pub after_free: u32,
    pub after_backup: u32,
    pub after_lts: i64,
    pub max_misbal: i64,
    pub imbalanced: bool,
}

impl LoggedRun {
    /// Leases the run moved: one per step of lts.
    pub fn moved(&self) -> i64 {
        self.lts - self.after_lts
    }
}

fn number_after(words: &[&str], key: &str) -> i64 {
    let i = words
        .iter()
        .position(|w| *w == key)
        .unwrap_or_else(|| panic!("{key} in {words:?}"));
    let w = words[i + 1].trim_start_matches("(+/-)");
    w.parse().unwrap_or_else(|_| panic!("{key} {w}"))
}

/// Every balance run a log records.
pub fn logged_runs(log: &Path) -> Vec<LoggedRun> {
    let text = std::fs::read_to_string(log).unwrap();
    let mut runs = Vec::new();
    let mut open: Option<LoggedRun> = None;
    for line in text.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.get(1) {
            Some(&"balancing") => {
                open = Some(LoggedRun {
                    time: words[0].parse().unwrap(),
                    total: number_after(&words, "total") as u32,
                    free: number_after(&words, "free") as u32,
                    backup: number_after(&words, "backup") as u32,
                    lts: number_after(&words, "lts"),
                    max_own: number_after(&words, "max-own"),
                    poolreq: line.contains("requesting peer rebalance"),
                    after_free: 0,
                    after_backup: 0,
                    after_lts: 0,
                    max_misbal: 0,
                    imbalanced: false,
                })
            }
            Some(&"balanced") | Some(&"IMBALANCED") => {
                let mut r = open.take().expect("a verdict follows a balancing line");
                r.after_free = number_after(&words, "free") as u32;
                r.after_backup = number_after(&words, "backup") as u32;
                r.after_lts = number_after(&words, "lts");
                r.max_misbal = number_after(&words, "max-misbal");
                r.imbalanced = words[1] == "IMBALANCED";
                runs.push(r);
            }
            _ => {}
        }
    }
    runs
}
