//! One RSerPool conversation between two endpoints over the transport the scenario uses: an SCTP
//! association (DATA or I-DATA chunks, SACKs bundled with the next message the way stacks do),
//! a TCP connection (messages back to back on the stream), or UDP datagrams.

use std::net::SocketAddr;

use crate::generate::scenario::batch::Batch;
use crate::generate::scenario::net::{ethernet, udp_frame};
use crate::generate::scenario::pace::Dice;
use crate::generate::{SctpAssociation, SendOptions, TcpFlow};

/// The transport RSerPool messages travel on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Carrier {
    /// SCTP with DATA chunks (the RFCs' transport).
    Sctp,
    /// SCTP with I-DATA chunks (RFC 8260).
    SctpIData,
    /// TCP, messages framed by their own length.
    Tcp,
    /// UDP, one message per datagram.
    Udp,
}

enum Kind {
    Sctp {
        assoc: Box<SctpAssociation>,
        idata: bool,
        opened: bool,
        /// Whether each side has received data it has not acknowledged yet.
        owes_sack: [bool; 2],
    },
    Tcp {
        flow: Box<TcpFlow>,
        opened: bool,
    },
    Udp {
        ends: [SocketAddr; 2],
        buf: Vec<u8>,
    },
}

/// A conversation between side A (the one that opens it) and side B.
pub struct Channel {
    kind: Kind,
    ppid: u32,
}

impl Channel {
    /// A conversation A -> B carrying `ppid` (SCTP), with initial tags, TSNs and sequence
    /// numbers drawn from `dice`; messages longer than `max_fragment` are split over SCTP chunks
    /// or TCP segments.
    pub fn new(
        carrier: Carrier,
        a: SocketAddr,
        b: SocketAddr,
        ppid: u32,
        max_fragment: usize,
        dice: &mut Dice,
    ) -> Self {
        let kind = match carrier {
            Carrier::Sctp | Carrier::SctpIData => {
                let tags = [dice.u32() | 1, dice.u32() | 1];
                let tsns = [dice.u32(), dice.u32()];
                let mut assoc = SctpAssociation::new(a, b, tags, tsns);
                assoc.link = ethernet(a.ip(), b.ip());
                assoc.max_fragment = max_fragment.max(16);
                Kind::Sctp {
                    assoc: Box::new(assoc),
                    idata: carrier == Carrier::SctpIData,
                    opened: false,
                    owes_sack: [false; 2],
                }
            }
            Carrier::Tcp => {
                let mut flow = TcpFlow::new(a, b, [dice.u32(), dice.u32()]);
                flow.link = ethernet(a.ip(), b.ip());
                // The same bound cuts TCP segments, so long messages span several.
                flow.mss = max_fragment.max(16);
                Kind::Tcp {
                    flow: Box::new(flow),
                    opened: false,
                }
            }
            Carrier::Udp => Kind::Udp {
                ends: [a, b],
                buf: Vec::with_capacity(1600),
            },
        };
        Channel { kind, ppid }
    }

    /// Sends `msg` from A (`from_a`) or B; the first message opens the conversation (SCTP and
    /// TCP handshakes).
    pub fn send(&mut self, from_a: bool, msg: &[u8], out: &mut Batch) {
        let ppid = self.ppid;
        let mut push = |f: &[u8]| out.push(f);
        match &mut self.kind {
            Kind::Sctp {
                assoc,
                idata,
                opened,
                owes_sack,
            } => {
                if !*opened {
                    assoc.handshake(&mut push);
                    *opened = true;
                }
                let side = usize::from(!from_a);
                let opts = SendOptions {
                    sack_first: owes_sack[side],
                    idata: *idata,
                    ..SendOptions::default()
                };
                assoc.send_with(from_a, 0, ppid, msg, opts, &mut push);
                owes_sack[side] = false;
                owes_sack[1 - side] = true;
            }
            Kind::Tcp { flow, opened } => {
                if !*opened {
                    flow.handshake(&mut push);
                    *opened = true;
                }
                flow.send(from_a, msg, &mut push);
            }
            Kind::Udp { ends, buf } => {
                let (src, dst) = if from_a {
                    (ends[0], ends[1])
                } else {
                    (ends[1], ends[0])
                };
                push(udp_frame(buf, src, dst, msg));
            }
        }
    }

    /// SACKs (SCTP) or ACKs (TCP) from whichever side has data to acknowledge.
    pub fn acknowledge(&mut self, out: &mut Batch) {
        let mut push = |f: &[u8]| out.push(f);
        match &mut self.kind {
            Kind::Sctp {
                assoc,
                opened: true,
                owes_sack,
                ..
            } => {
                for (side, owes) in owes_sack.iter_mut().enumerate() {
                    if *owes {
                        assoc.sack(side == 0, &mut push);
                        *owes = false;
                    }
                }
            }
            Kind::Tcp { flow, opened: true } => flow.ack(true, &mut push),
            _ => {}
        }
    }
}
