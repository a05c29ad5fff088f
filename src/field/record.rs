//! A decoded message as the user sees it ([`Record`]): where it came from, its one-line summary
//! and its display tree; what the listing, the tree, JSON and `-T fields` write and what the
//! display filters test.

use crate::base::Timestamp;
use crate::error::DecodeError;
use crate::field::Field;

/// One decoded message as the user sees it: where it came from and its display tree.
#[derive(Clone, Debug)]
pub struct Record {
    /// 1-based frame number (the frame that completed the message when it was reassembled).
    pub frame: u64,
    /// `None` for a frame without a time (a pcapng simple packet block): JSON's `"time": null`.
    pub time: Option<Timestamp>,
    pub src: String,
    pub dst: String,
    /// `asap`, `enrp`, `dhcpv4`, `dhcpv6`, `dhcpfo`; for a frame that carried no message of ours but
    /// had a decode error, the deepest layer decoded (`sctp`, `ipv4`, ...).
    pub protocol: &'static str,
    /// A one-line summary, as tshark's info column.
    pub info: String,
    pub fields: Vec<Field>,
    /// The JSON `fields` object already written from the message, with no tree built
    /// (`read --format json|jsonl` without a filter), in place of `fields`.
    pub fields_json: Option<Vec<u8>>,
    /// Offsets are in the frame when the message sits in one frame, else in the reassembled message.
    pub errors: Vec<DecodeError>,
    /// Frames a reassembled message was built from (empty when it sat in one frame).
    pub reassembled_from: Vec<u64>,
    /// The message of a datagram quoted in an ICMP error ([`crate::dissect::Payload::quoted`]):
    /// in `frame.protocols`, `-V` and JSON (`"quoted": true`), not in the listing's columns.
    pub quoted: bool,
}
