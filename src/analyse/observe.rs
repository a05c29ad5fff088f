//! What an analyser can tell beyond its findings, record by record, to whoever asks: each
//! judged DHCP transaction and each checked RSerPool resolution, as they are judged, and every
//! finding as it is reported (`poolshark export` writes them to Parquet tables).
//!
//! The hook is a [`Report`](super::Report)'s optional observer: an analyser asks
//! [`Report::observing`](super::Report::observing) before it builds a record, so a run without
//! an observer (`check`, `stats`) does nothing more than test an `Option`. The records borrow
//! the analyser's state: an observer copies what it keeps.

use super::finding::{Finding, Severity, Subject};
use crate::base::Timestamp;

/// A balanced DHCP client message once judged: who owned its bucket, who the episode's
/// reference expected, who answered.
#[derive(Clone, Debug)]
pub struct DhcpTransaction<'a> {
    pub pair: &'a str,
    /// `dhcpv4` or `dhcpv6`.
    pub family: &'static str,
    pub request_frame: u64,
    pub time: Timestamp,
    /// The client message's type (DHCPv4 option 53, DHCPv6 msg-type).
    pub message_type: Option<u8>,
    pub xid: u32,
    /// The bytes hashed for the bucket (the profile's key rule applied).
    pub key: &'a [u8],
    pub bucket: u8,
    /// The server whose bucket it is, and the other one.
    pub owner: &'a str,
    pub other: &'a str,
    /// The server the reference of the episode it fell in expects to answer.
    pub expected: &'a str,
    /// The frames of the owner's and the other server's answers.
    pub owner_answer: Option<u64>,
    pub other_answer: Option<u64>,
    /// `normal`, `peer-silent`, `takeover` or `recovery`.
    pub episode: &'static str,
}

/// A Handle Resolution Response checked against the reference.
#[derive(Clone, Debug)]
pub struct Resolution<'a> {
    pub frame: u64,
    pub time: Timestamp,
    pub registrar: &'a str,
    pub pool: &'a str,
    /// The pool's policy when answered.
    pub policy: &'a str,
    /// The profile whose reference answer is given (under `auto`, the first of the run).
    pub profile: &'static str,
    /// PEs asked for (Handle Resolution Option), if the request said.
    pub items: Option<u32>,
    /// The PEs of the answer, in order.
    pub answer: &'a [u32],
    /// The reference's answer, for policies whose answer is determined (`None` for randomised
    /// ones and pools the profile cannot model).
    pub reference: Option<&'a [u32]>,
}

/// Receives the records of a run (every method does nothing unless implemented).
pub trait Observer: Send {
    /// A finding as it is reported (also past `--max-findings`).
    fn finding(&mut self, _f: &Finding) {}
    /// `n` findings reported as a count only (an analyser kept a tally of them), of one rule,
    /// severity and subject, in the window that starts at `time`.
    fn unlisted(
        &mut self,
        _rule: &'static str,
        _severity: Severity,
        _subject: &Subject,
        _time: Timestamp,
        _n: u64,
    ) {
    }
    fn dhcp_transaction(&mut self, _t: &DhcpTransaction<'_>) {}
    fn resolution(&mut self, _r: &Resolution<'_>) {}
    /// Whether it can take no more (its output failed): the run may stop early.
    fn failed(&self) -> bool {
        false
    }
    /// The run has ended: what it keeps is made whole (or the first error it met is given).
    fn close(self: Box<Self>) -> std::io::Result<()> {
        Ok(())
    }
}
