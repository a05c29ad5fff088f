//! The probe's send and receive loop: one DISCOVER / SOLICIT per key at the chosen rate, the
//! answers collected for a window after each, and a key sent again (a new transaction id, still
//! `secs` 0) when nobody answered it in its window, up to the retries allowed.
//!
//! A key whose window saw one answer is not sent again, but its window stays open to its end:
//! a second server answering the same bucket is what the probe looks for. Answers arriving
//! after the window still count (they are real answers, merely slow).
//!
//! The network is a trait, so the loop runs as well over a simulated server pair (the tests)
//! as over the AF_PACKET sockets of [`super::link`].

use std::collections::{HashMap, VecDeque};
use std::time::{Duration, Instant};

use super::answers::Answer;
use super::keys::{Family, ProbeKey};
use super::packets::{self, LinkSource};

/// What the loop sends and receives through.
pub trait Network {
    /// Sends one Ethernet frame.
    fn send(&mut self, frame: &[u8]) -> Result<(), String>;
    /// Waits at most until `until` (less when something arrives) and appends the answers
    /// decoded meanwhile to `into`.
    fn receive(&mut self, until: Instant, into: &mut Vec<Answer>) -> Result<(), String>;
    /// The user asked to stop (Ctrl-C).
    fn interrupted(&self) -> bool {
        false
    }
}

/// How fast and how patiently the probe asks.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pace {
    /// Probes sent per second (retries included).
    pub rate: f64,
    /// How long the answers to one probe are awaited.
    pub wait: Duration,
    /// How many times a key nobody answered is sent again.
    pub retries: u32,
}

/// One bucket's probe and what came back.
#[derive(Clone, Debug)]
pub struct BucketRun {
    pub key: ProbeKey,
    /// The transaction id of each attempt, in order.
    pub xids: Vec<u32>,
    /// The answers to any of them, in arrival order.
    pub answers: Vec<Answer>,
    /// The run was interrupted while this bucket still awaited answers or a retry.
    pub unfinished: bool,
}

/// What a whole run gave.
#[derive(Clone, Debug)]
pub struct Run {
    /// In the keys' order; the buckets not reached before an interruption have no attempt.
    pub buckets: Vec<BucketRun>,
    /// Answers to a transaction id the probe did not send (other clients on the link).
    pub foreign_answers: u64,
    /// Answers to a probe's transaction id naming another client (ignored).
    pub mismatched_answers: u64,
    /// Answers beyond what a bucket keeps (repeats of a server already heard).
    pub answers_not_kept: u64,
    /// Ctrl-C ended the run before every key had its answer or its last attempt.
    pub interrupted: bool,
    pub elapsed: Duration,
}

/// Answers kept per bucket: its servers' first answers and a few repeats (retries answered).
const MAX_ANSWERS_KEPT: usize = 8;

/// The `n`th transaction id of a run: consecutive from `base`, 24 bits in DHCPv6.
pub fn xid_of(family: Family, base: u32, n: u32) -> u32 {
    let x = base.wrapping_add(n);
    match family {
        Family::V4 => x,
        Family::V6 => x & 0x00ff_ffff,
    }
}

/// Sends every key's probe and collects the answers.
pub fn run(
    keys: Vec<ProbeKey>,
    pace: &Pace,
    from: &LinkSource,
    xid_base: u32,
    net: &mut dyn Network,
) -> Result<Run, String> {
    let started = Instant::now();
    let family = keys.first().map_or(Family::V4, |k| k.kind.family());
    // A rate of at least one probe a day; the caller bounds it from above.
    let interval = Duration::from_secs_f64(1.0 / pace.rate.max(1e-5));
    let mut buckets: Vec<BucketRun> = keys
        .into_iter()
        .map(|key| BucketRun {
            key,
            xids: Vec::new(),
            answers: Vec::new(),
            unfinished: false,
        })
        .collect();
    let mut queue: VecDeque<usize> = (0..buckets.len()).collect();
    // Each attempt's window: when it closes, and its bucket.
    let mut open: Vec<(Instant, usize)> = Vec::new();
    let mut by_xid: HashMap<u32, usize> = HashMap::new();
    let mut sent: u32 = 0;
    let mut next_send = started;
    let mut got: Vec<Answer> = Vec::new();
    let mut run = Run {
        buckets: Vec::new(),
        foreign_answers: 0,
        mismatched_answers: 0,
        answers_not_kept: 0,
        interrupted: false,
        elapsed: Duration::ZERO,
    };
    loop {
        if net.interrupted() {
            run.interrupted = true;
            for i in queue.iter().copied().chain(open.iter().map(|&(_, i)| i)) {
                buckets[i].unfinished = true;
            }
            break;
        }
        let now = Instant::now();
        if now >= next_send {
            if let Some(i) = queue.pop_front() {
                let xid = xid_of(family, xid_base, sent);
                sent = sent.wrapping_add(1);
                let b = &mut buckets[i];
                let frame = packets::frame(&b.key, xid, from)?;
                net.send(&frame)?;
                b.xids.push(xid);
                by_xid.insert(xid, i);
                open.push((now + pace.wait, i));
                // Evenly spaced from now: a late start never turns into a burst.
                next_send = now + interval;
                continue;
            }
        }
        // Windows that closed: a bucket nobody answered is asked again (a bucket has one
        // window open at a time: it is queued again only once its window closed).
        open.retain(|&(end, i)| {
            if end > now {
                return true;
            }
            let b = &buckets[i];
            let retried = b.xids.len().saturating_sub(1);
            if b.answers.is_empty() && retried < pace.retries as usize {
                queue.push_back(i);
            }
            false
        });
        if queue.is_empty() && open.is_empty() {
            break;
        }
        let mut until = open.iter().map(|&(end, _)| end).min();
        if !queue.is_empty() {
            until = Some(until.map_or(next_send, |u| u.min(next_send)));
        }
        let until = until.unwrap_or(now);
        net.receive(until, &mut got)?;
        for a in got.drain(..) {
            match by_xid.get(&a.xid) {
                Some(&i) if buckets[i].key.client.echo() == &a.client[..] => {
                    let b = &mut buckets[i];
                    // Repeats of a server already heard add little: a few are kept, then only
                    // servers not heard yet, up to a bound, so that a link replaying answers
                    // cannot grow the run without end.
                    let new_server = !b.answers.iter().any(|x| x.server == a.server);
                    let room = if new_server {
                        2 * MAX_ANSWERS_KEPT
                    } else {
                        MAX_ANSWERS_KEPT
                    };
                    if b.answers.len() < room {
                        b.answers.push(a);
                    } else {
                        run.answers_not_kept += 1;
                    }
                }
                Some(_) => run.mismatched_answers += 1,
                None => run.foreign_answers += 1,
            }
        }
    }
    run.buckets = buckets;
    run.elapsed = started.elapsed();
    Ok(run)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::analyse::dhcp_lb::events::ServerIdent;
    use crate::analyse::dhcp_lb::profile::KEA;
    use crate::analyse::dhcp_lb::{Hba, Role};
    use crate::analyse::KeyBytes;
    use crate::base::Timestamp;
    use crate::pipeline::{Options, Pipeline};
    use crate::probe::buckets::BucketSet;
    use crate::probe::keys::{find_keys, KeyKind};
    use crate::proto::dhcpv4;
    use crate::source::Frame;
    use std::net::{IpAddr, Ipv4Addr};

    /// A simulated DHCPv4 pair: each server answers the buckets a map gives it (its own copy,
    /// so the two can disagree), after dropping the first `lose_first` probes it receives.
    pub(crate) struct FakePair {
        pub maps: [Hba; 2],
        pub lose_first: usize,
        pub received: usize,
        pub sent_frames: Vec<Vec<u8>>,
        pending: Vec<Answer>,
    }

    impl FakePair {
        pub(crate) fn new(primary: Hba, secondary: Hba, lose_first: usize) -> Self {
            FakePair {
                maps: [primary, secondary],
                lose_first,
                received: 0,
                sent_frames: Vec::new(),
                pending: Vec::new(),
            }
        }
    }

    pub(crate) fn server_addr(role: Role) -> Ipv4Addr {
        match role {
            Role::Primary => Ipv4Addr::new(192, 0, 2, 1),
            Role::Secondary => Ipv4Addr::new(192, 0, 2, 2),
        }
    }

    impl Network for FakePair {
        fn send(&mut self, frame: &[u8]) -> Result<(), String> {
            self.sent_frames.push(frame.to_vec());
            self.received += 1;
            if self.received <= self.lose_first {
                return Ok(());
            }
            // Decode the probe as a server would: through the pipeline.
            let f = Frame {
                number: 1,
                ts: Timestamp::new(0, 0),
                ts_digits: 6,
                linktype: 1,
                orig_len: frame.len() as u32,
                interface: 0,
                data: frame,
                pcapng: None,
            };
            struct Grab(Option<(u32, Vec<u8>)>);
            impl crate::pipeline::Sink for Grab {
                fn message(&mut self, d: &crate::pipeline::Decoded<'_>) {
                    if let crate::proto::Message::Dhcpv4(m) = d.message {
                        assert_eq!(m.secs(), 0);
                        assert_eq!(m.message_type(), Some(dhcpv4::message_type::DISCOVER));
                        self.0 = Some((m.xid(), m.chaddr().unwrap().to_vec()));
                    }
                }
            }
            let mut g = Grab(None);
            Pipeline::new(Options::default()).feed(&f, &mut g);
            let (xid, chaddr) = g.0.expect("a DISCOVER");
            let bucket = crate::analyse::dhcp_lb::bucket(&chaddr);
            for (map, role) in self.maps.iter().zip([Role::Primary, Role::Secondary]) {
                if map.owner(bucket) == role {
                    let a = server_addr(role);
                    self.pending.push(Answer {
                        xid,
                        client: KeyBytes::from_slice(&chaddr),
                        server: ServerIdent::Addr(IpAddr::V4(a)),
                        source: IpAddr::V4(a),
                        offered: None,
                        status: None,
                        time: Timestamp::new(0, 0),
                    });
                }
            }
            Ok(())
        }

        fn receive(&mut self, until: Instant, into: &mut Vec<Answer>) -> Result<(), String> {
            if self.pending.is_empty() {
                std::thread::sleep(until.saturating_duration_since(Instant::now()));
            }
            into.append(&mut self.pending);
            Ok(())
        }
    }

    pub(crate) fn fast() -> Pace {
        Pace {
            rate: 5000.0,
            wait: Duration::from_millis(20),
            retries: 2,
        }
    }

    fn keys(set: &str) -> Vec<ProbeKey> {
        let set: BucketSet = set.parse().unwrap();
        find_keys(KeyKind::Chaddr, &set, &[&KEA]).unwrap()
    }

    #[test]
    fn every_bucket_is_asked_once_when_answered() {
        let mut net = FakePair::new(Hba::kea(), Hba::kea(), 0);
        let run = super::run(
            keys("all"),
            &fast(),
            &LinkSource::placeholder(),
            7,
            &mut net,
        )
        .unwrap();
        assert_eq!(net.sent_frames.len(), 256);
        for b in &run.buckets {
            assert_eq!(b.xids.len(), 1);
            assert_eq!(b.answers.len(), 1, "bucket {}", b.key.bucket);
            let owner = Hba::kea().owner(b.key.bucket);
            assert_eq!(b.answers[0].source, IpAddr::V4(server_addr(owner)));
        }
        assert_eq!((run.foreign_answers, run.mismatched_answers), (0, 0));
        // Consecutive transaction ids from the base.
        assert_eq!(run.buckets[0].xids, [7]);
        assert_eq!(run.buckets[255].xids, [7 + 255]);
    }

    #[test]
    fn lost_probes_are_sent_again_and_silence_is_given_up() {
        // The first three probes are lost: their buckets are asked again, later.
        let mut net = FakePair::new(Hba::kea(), Hba::kea(), 3);
        let run = super::run(
            keys("0-9"),
            &fast(),
            &LinkSource::placeholder(),
            1,
            &mut net,
        )
        .unwrap();
        assert_eq!(net.sent_frames.len(), 13);
        for (i, b) in run.buckets.iter().enumerate() {
            assert_eq!(b.xids.len(), if i < 3 { 2 } else { 1 }, "bucket {i}");
            assert_eq!(b.answers.len(), 1);
        }
        // A bucket nobody serves: asked 1 + retries times, then given up.
        let mut net = FakePair::new(Hba::split(0).unwrap(), Hba::split(256).unwrap(), 0);
        let run = super::run(keys("5"), &fast(), &LinkSource::placeholder(), 1, &mut net).unwrap();
        assert_eq!(run.buckets[0].xids.len(), 3);
        assert!(run.buckets[0].answers.is_empty());
    }

    #[test]
    fn both_answers_of_a_bucket_are_kept() {
        // Both servers believe they own everything.
        let mut net = FakePair::new(Hba::split(256).unwrap(), Hba::split(0).unwrap(), 0);
        let run = super::run(
            keys("0-3"),
            &fast(),
            &LinkSource::placeholder(),
            1,
            &mut net,
        )
        .unwrap();
        for b in &run.buckets {
            assert_eq!(b.answers.len(), 2);
            assert_eq!(b.xids.len(), 1, "answered: not sent again");
        }
    }

    /// Interrupted after `after` probes were sent.
    struct Interrupted {
        inner: FakePair,
        after: usize,
    }

    impl Network for Interrupted {
        fn send(&mut self, frame: &[u8]) -> Result<(), String> {
            self.inner.send(frame)
        }
        fn receive(&mut self, until: Instant, into: &mut Vec<Answer>) -> Result<(), String> {
            self.inner.receive(until, into)
        }
        fn interrupted(&self) -> bool {
            self.inner.sent_frames.len() >= self.after
        }
    }

    #[test]
    fn an_interrupted_run_says_what_it_did_not_finish() {
        // The first probe is lost; Ctrl-C comes after the fourth is sent.
        let mut net = Interrupted {
            inner: FakePair::new(Hba::kea(), Hba::kea(), 1),
            after: 4,
        };
        let run = super::run(
            keys("0-9"),
            &fast(),
            &LinkSource::placeholder(),
            1,
            &mut net,
        )
        .unwrap();
        assert!(run.interrupted);
        let state: Vec<(usize, bool)> = run
            .buckets
            .iter()
            .map(|b| (b.xids.len(), b.unfinished))
            .collect();
        // Bucket 0 lost and waiting for its retry, 1-3 sent (their answers may not have been
        // read yet), 4-9 never sent.
        assert_eq!(state[0], (1, true));
        for s in &state[4..] {
            assert_eq!(*s, (0, true));
        }
    }

    /// Every answer of the pair arrives `copies` times.
    struct Echoing {
        inner: FakePair,
        copies: usize,
    }

    impl Network for Echoing {
        fn send(&mut self, frame: &[u8]) -> Result<(), String> {
            self.inner.send(frame)
        }
        fn receive(&mut self, until: Instant, into: &mut Vec<Answer>) -> Result<(), String> {
            let mut got = Vec::new();
            self.inner.receive(until, &mut got)?;
            for a in got {
                into.extend(std::iter::repeat_n(a, self.copies));
            }
            Ok(())
        }
    }

    #[test]
    fn repeated_answers_are_bounded() {
        let mut net = Echoing {
            inner: FakePair::new(Hba::kea(), Hba::kea(), 0),
            copies: 50,
        };
        let run = super::run(
            keys("0-3"),
            &fast(),
            &LinkSource::placeholder(),
            1,
            &mut net,
        )
        .unwrap();
        for b in &run.buckets {
            assert_eq!(b.answers.len(), MAX_ANSWERS_KEPT);
        }
        assert_eq!(run.answers_not_kept, 4 * (50 - MAX_ANSWERS_KEPT as u64));
    }

    #[test]
    fn the_rate_is_kept() {
        let mut net = FakePair::new(Hba::kea(), Hba::kea(), 0);
        let pace = Pace {
            rate: 200.0,
            wait: Duration::from_millis(5),
            retries: 0,
        };
        let run = super::run(keys("0-19"), &pace, &LinkSource::placeholder(), 1, &mut net).unwrap();
        // 20 probes 5 ms apart: at least 95 ms from the first to the last.
        assert!(
            run.elapsed >= Duration::from_millis(95),
            "{:?}",
            run.elapsed
        );
    }
}
