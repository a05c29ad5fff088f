//! The frames a scenario has said and the mixer has not written yet, in time order, with the
//! marks of planted deviations.
//!
//! A scenario starts each exchange with [`Batch::begin`] (never earlier than the exchange before)
//! and writes through [`Batch::push`] (usually as the `out` callback of a flow helper): the batch
//! stamps each frame with its cursor and moves the cursor on by a small gap, and the scenario only
//! says when an exchange starts and how long its pauses are. An exchange may reach into the future
//! (a client's retry seconds later) while the next one starts now: frames are kept in time order,
//! and those before the start of the latest exchange are final (no later exchange can come before
//! them), which is what the mixer takes.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::base::Timestamp;

/// Nanoseconds per second.
pub const NS: u64 = 1_000_000_000;

/// Frames [`Batch::mark_pushed`] can still reach.
const RECENT: usize = 8;

/// A planted deviation, attached to the frame that shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mark {
    /// The finding a correct analyser is expected to report there (e.g. `rserpool.order`).
    pub rule: &'static str,
    /// What was planted, in words.
    pub detail: String,
}

struct Slot {
    data: Vec<u8>,
    mark: Option<Mark>,
}

/// Timed frames of one scenario. Frame buffers are recycled: memory stays at what the frames
/// waiting at once need.
pub struct Batch {
    /// (time, order of pushing, slot): the earliest first, ties in the order pushed.
    queue: BinaryHeap<Reverse<(u64, u64, usize)>>,
    slots: Vec<Option<Slot>>,
    free_slots: Vec<usize>,
    spare: Vec<Vec<u8>>,
    /// The frame handed out last (kept so that its bytes can be borrowed).
    current: Option<Slot>,
    pushed: u64,
    last_slot: Option<usize>,
    /// The slots of the frames pushed last, with their push numbers (newest last).
    recent: std::collections::VecDeque<(u64, usize)>,
    cursor_ns: u64,
    floor_ns: u64,
    closed: bool,
    /// Time between two frames pushed back to back.
    pub frame_gap_ns: u64,
}

impl Default for Batch {
    fn default() -> Self {
        Batch::new(0)
    }
}

/// One frame taken from a batch.
pub struct TimedFrame<'a> {
    pub ts: Timestamp,
    pub data: &'a [u8],
    pub mark: Option<&'a Mark>,
}

impl Batch {
    /// An empty batch whose frames go out at `start_ns` (nanoseconds since the epoch) at the
    /// earliest.
    pub fn new(start_ns: u64) -> Self {
        Batch {
            queue: BinaryHeap::new(),
            slots: Vec::new(),
            free_slots: Vec::new(),
            spare: Vec::new(),
            current: None,
            pushed: 0,
            last_slot: None,
            recent: std::collections::VecDeque::with_capacity(RECENT),
            cursor_ns: start_ns,
            floor_ns: start_ns,
            closed: false,
            frame_gap_ns: 40_000,
        }
    }

    /// Starts an exchange at `ns`: the cursor goes there, and nothing later will be pushed before
    /// it. A time before the previous exchange's start is taken as that start.
    pub fn begin(&mut self, ns: u64) {
        self.floor_ns = self.floor_ns.max(ns);
        self.cursor_ns = self.floor_ns;
    }

    /// Starts an exchange that must follow the previous one (its frames after all of the previous
    /// exchange's): at `ns`, or when the previous exchange ended if that is later.
    pub fn begin_after(&mut self, ns: u64) {
        self.begin(ns.max(self.cursor_ns));
    }

    /// The scenario has nothing more to say: every frame waiting is final.
    pub fn close(&mut self) {
        self.closed = true;
    }

    /// The time the next frame gets.
    pub fn time(&self) -> u64 {
        self.cursor_ns
    }

    /// The start of the latest exchange.
    pub fn floor(&self) -> u64 {
        self.floor_ns
    }

    /// Moves the cursor on by `ns` (a server's think time, a client's retry timer).
    pub fn wait(&mut self, ns: u64) {
        self.cursor_ns = self.cursor_ns.saturating_add(ns);
    }

    /// Appends a frame at the cursor and moves the cursor on by `frame_gap_ns`.
    pub fn push(&mut self, frame: &[u8]) {
        let mut data = self.spare.pop().unwrap_or_default();
        data.clear();
        data.extend_from_slice(frame);
        let slot = Slot { data, mark: None };
        let i = match self.free_slots.pop() {
            Some(i) => {
                self.slots[i] = Some(slot);
                i
            }
            None => {
                self.slots.push(Some(slot));
                self.slots.len() - 1
            }
        };
        self.queue.push(Reverse((self.cursor_ns, self.pushed, i)));
        if self.recent.len() == RECENT {
            self.recent.pop_front();
        }
        self.recent.push_back((self.pushed, i));
        self.pushed += 1;
        self.last_slot = Some(i);
        self.cursor_ns = self.cursor_ns.saturating_add(self.frame_gap_ns);
    }

    /// Marks the frame pushed last as showing a planted deviation.
    pub fn mark_last(&mut self, rule: &'static str, detail: impl Into<String>) {
        if let Some(Some(s)) = self.last_slot.and_then(|i| self.slots.get_mut(i)) {
            s.mark = Some(Mark {
                rule,
                detail: detail.into(),
            });
        }
    }

    /// Marks the frame pushed as number `n` ([`Self::pushed`] before it was pushed), one of the
    /// last few of the exchange under way: the first copy of a request a relay sent to each
    /// server, say, which is the frame an analyser reports the request at.
    pub fn mark_pushed(&mut self, n: u64, rule: &'static str, detail: impl Into<String>) {
        let slot = self.recent.iter().find(|(k, _)| *k == n).map(|(_, i)| *i);
        if let Some(Some(s)) = slot.and_then(|i| self.slots.get_mut(i)) {
            s.mark = Some(Mark {
                rule,
                detail: detail.into(),
            });
        }
    }

    /// Frames waiting.
    pub fn len(&self) -> usize {
        self.queue.len()
    }

    pub fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }

    /// Frames pushed since the batch was made.
    pub fn pushed(&self) -> u64 {
        self.pushed
    }

    /// The time of the earliest waiting frame, if no exchange still to come can precede it.
    pub fn ready_time(&self) -> Option<u64> {
        let Reverse((t, _, _)) = *self.queue.peek()?;
        (self.closed || t <= self.floor_ns).then_some(t)
    }

    /// Takes the earliest waiting frame.
    pub fn take(&mut self) -> Option<TimedFrame<'_>> {
        let Reverse((t, _, i)) = self.queue.pop()?;
        let slot = self.slots.get_mut(i).and_then(Option::take)?;
        self.free_slots.push(i);
        if let Some(old) = self.current.replace(slot) {
            self.spare.push(old.data);
        }
        let cur = self.current.as_ref()?;
        Some(TimedFrame {
            ts: to_timestamp(t),
            data: &cur.data,
            mark: cur.mark.as_ref(),
        })
    }
}

/// Nanoseconds since the epoch as a capture timestamp.
pub fn to_timestamp(ns: u64) -> Timestamp {
    Timestamp::new((ns / NS) as i64, (ns % NS) as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_come_out_in_time_order_with_their_marks() {
        let mut b = Batch::new(5 * NS);
        b.begin(0); // never before the start
        b.push(&[1, 2]);
        b.wait(2 * NS);
        b.push(&[9]); // a retry, far ahead
        b.mark_last("rule.x", "planted");
        b.begin(5 * NS + 1000); // the next exchange starts meanwhile
        b.push(&[3]);
        // Only what precedes the latest start is final.
        assert_eq!(b.ready_time(), Some(5 * NS));
        let f = b.take().unwrap();
        assert_eq!((f.ts, f.data.to_vec()), (Timestamp::new(5, 0), vec![1, 2]));
        assert_eq!(b.ready_time(), Some(5 * NS + 1000));
        assert_eq!(b.take().unwrap().data, &[3]);
        assert_eq!(b.ready_time(), None, "the retry may still be preceded");
        b.close();
        let f = b.take().unwrap();
        assert_eq!(f.ts, Timestamp::new(7, 40_000));
        assert_eq!(f.mark.map(|m| m.rule), Some("rule.x"));
        assert!(b.is_empty());
        assert_eq!(b.pushed(), 3);
    }
}
