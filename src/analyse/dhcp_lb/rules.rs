//! The rules of the DHCP load-balancing replay: ids, severities and meanings (when each fires is
//! decided by [`super::judge`]; docs/findings.md says what to do about each).

use crate::analyse::finding::Severity;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Rule {
    WrongServer,
    DoubleAnswer,
    NoAnswer,
    DelayedService,
    DirectedIgnored,
    Takeover,
    StidTruncated,
    HbaConflict,
}

impl Rule {
    /// Every rule.
    pub const ALL: [Rule; 8] = [
        Rule::WrongServer,
        Rule::DoubleAnswer,
        Rule::NoAnswer,
        Rule::DelayedService,
        Rule::DirectedIgnored,
        Rule::Takeover,
        Rule::StidTruncated,
        Rule::HbaConflict,
    ];

    pub fn id(self) -> &'static str {
        match self {
            Rule::WrongServer => "dhcp.lb.wrong-server",
            Rule::DoubleAnswer => "dhcp.lb.double-answer",
            Rule::NoAnswer => "dhcp.lb.no-answer",
            Rule::DelayedService => "dhcp.lb.delayed-service",
            Rule::DirectedIgnored => "dhcp.lb.directed-ignored",
            Rule::Takeover => "dhcp.lb.takeover",
            Rule::StidTruncated => "dhcp.lb.stid-truncated",
            Rule::HbaConflict => "dhcp.lb.hba-conflict",
        }
    }

    /// Errors: the bucket map itself is contradicted. Warnings: a server answered where it
    /// should not or stayed silent where it should answer. Info: what the servers are meant to
    /// do (answer once the client waited past the threshold, take over a silent peer).
    pub fn severity(self) -> Severity {
        match self {
            Rule::HbaConflict => Severity::Error,
            Rule::WrongServer
            | Rule::DoubleAnswer
            | Rule::NoAnswer
            | Rule::DirectedIgnored
            | Rule::StidTruncated => Severity::Warning,
            Rule::DelayedService | Rule::Takeover => Severity::Info,
        }
    }

    /// The severity as a one-element list (see [`crate::analyse::rules`]).
    pub fn severities(self) -> &'static [Severity] {
        self.severity().alone()
    }

    /// What a finding of the rule says, in a line.
    pub fn meaning(self) -> &'static str {
        match self {
            Rule::WrongServer => {
                "a server answered a balanced message for a bucket it does not own"
            }
            Rule::DoubleAnswer => "both servers answered one balanced message",
            Rule::NoAnswer => {
                "the server that had to answer stayed silent while the client retried"
            }
            Rule::DelayedService => {
                "the other server answered once the client waited past the threshold"
            }
            Rule::DirectedIgnored => {
                "a server did not answer a message carrying its own identifier"
            }
            Rule::Takeover => "a server answered its silent peer's buckets for a while",
            Rule::StidTruncated => {
                "DHCPv6 answers fit a hash of the DUID's first 16 bytes better than of all of it"
            }
            Rule::HbaConflict => "the answers or a failover CONNECT contradict the bucket map",
        }
    }
}
