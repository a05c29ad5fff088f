//! Parameter type numbers in each encoding.
//!
//! RFC 5354 numbers the parameters 0x1..0x10 (+ 0x803f for the Handle Resolution Option). The
//! common-parameter drafts of 2005-2007, which both the seed policy draft (its policy parameter is
//! "Param Type = 0x6") and RSPLIB of early 2007 follow, number them 0x1 IPv4, 0x2 IPv6, 0x3 SCTP,
//! 0x4 TCP, 0x5 UDP, 0x6 policy, 0x7 pool handle, 0x8 pool element, 0x9 server information,
//! 0xa operation error, 0xb cookie, 0xc PE identifier, 0xd PE checksum. Parameter 0x6 cannot be the
//! policy in the RFC numbering (there it is the UDP transport), so the seed draft's figures only
//! make sense with the legacy numbering: `Draft01` and `Rsplib2007` share it and differ in the
//! policy numbering (see `policy.rs`) and in the Server Information layout.

use super::Encoding;

/// What a parameter is, independent of its number on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ParamKind {
    Ipv4,
    Ipv6,
    DccpTransport,
    SctpTransport,
    TcpTransport,
    UdpTransport,
    UdpLiteTransport,
    Policy,
    PoolHandle,
    PoolElement,
    ServerInformation,
    OperationError,
    Cookie,
    PeIdentifier,
    PeChecksum,
    OpaqueTransport,
    HandleResolutionOption,
}

const RFC: &[(u16, ParamKind)] = &[
    (0x0001, ParamKind::Ipv4),
    (0x0002, ParamKind::Ipv6),
    (0x0003, ParamKind::DccpTransport),
    (0x0004, ParamKind::SctpTransport),
    (0x0005, ParamKind::TcpTransport),
    (0x0006, ParamKind::UdpTransport),
    (0x0007, ParamKind::UdpLiteTransport),
    (0x0008, ParamKind::Policy),
    (0x0009, ParamKind::PoolHandle),
    (0x000a, ParamKind::PoolElement),
    (0x000b, ParamKind::ServerInformation),
    (0x000c, ParamKind::OperationError),
    (0x000d, ParamKind::Cookie),
    (0x000e, ParamKind::PeIdentifier),
    (0x000f, ParamKind::PeChecksum),
    (0x0010, ParamKind::OpaqueTransport),
    (0x803f, ParamKind::HandleResolutionOption),
];

const LEGACY: &[(u16, ParamKind)] = &[
    (0x0001, ParamKind::Ipv4),
    (0x0002, ParamKind::Ipv6),
    (0x0003, ParamKind::SctpTransport),
    (0x0004, ParamKind::TcpTransport),
    (0x0005, ParamKind::UdpTransport),
    (0x0006, ParamKind::Policy),
    (0x0007, ParamKind::PoolHandle),
    (0x0008, ParamKind::PoolElement),
    (0x0009, ParamKind::ServerInformation),
    (0x000a, ParamKind::OperationError),
    (0x000b, ParamKind::Cookie),
    (0x000c, ParamKind::PeIdentifier),
    (0x000d, ParamKind::PeChecksum),
];

fn table(enc: Encoding) -> &'static [(u16, ParamKind)] {
    match enc {
        Encoding::Rfc => RFC,
        Encoding::Draft01 | Encoding::Rsplib2007 => LEGACY,
    }
}

/// The kind of parameter `code` in `enc`, `None` when the encoding does not define it.
pub fn param_kind(code: u16, enc: Encoding) -> Option<ParamKind> {
    let t = table(enc);
    // Both tables number from 1 without gaps up to their last short code: most codes index
    // straight in (every parameter of every message comes here).
    match usize::from(code).checked_sub(1).and_then(|i| t.get(i)) {
        Some((c, k)) if *c == code => Some(*k),
        _ => t.iter().find(|(c, _)| *c == code).map(|(_, k)| *k),
    }
}

/// The wire number of `kind` in `enc`, `None` when the encoding has no such parameter.
pub fn param_code(kind: ParamKind, enc: Encoding) -> Option<u16> {
    table(enc).iter().find(|(_, k)| *k == kind).map(|(c, _)| *c)
}

/// What a receiver does with a parameter type it does not know (RFC 5354 section 2, the top two
/// bits of the type).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnknownAction {
    /// 00: stop processing the message.
    Stop,
    /// 01: stop and report the parameter.
    StopReport,
    /// 10: skip this parameter and go on.
    Skip,
    /// 11: skip and report.
    SkipReport,
}

impl UnknownAction {
    pub fn of(code: u16) -> Self {
        match code >> 14 {
            0 => UnknownAction::Stop,
            1 => UnknownAction::StopReport,
            2 => UnknownAction::Skip,
            _ => UnknownAction::SkipReport,
        }
    }

    pub fn stops(self) -> bool {
        matches!(self, UnknownAction::Stop | UnknownAction::StopReport)
    }

    pub fn reports(self) -> bool {
        matches!(self, UnknownAction::StopReport | UnknownAction::SkipReport)
    }
}

/// Wireshark's name of a parameter kind (the legacy encodings reuse it for the same kind).
pub fn param_name(kind: ParamKind) -> &'static str {
    match kind {
        ParamKind::Ipv4 => "IPv4 Address Parameter",
        ParamKind::Ipv6 => "IPv6 Address Parameter",
        ParamKind::DccpTransport => "DCCP Transport Address Parameter",
        ParamKind::SctpTransport => "SCTP Transport Address Parameter",
        ParamKind::TcpTransport => "TCP Transport Address Parameter",
        ParamKind::UdpTransport => "UDP Transport Address Parameter",
        ParamKind::UdpLiteTransport => "UDP-Lite Transport Address Parameter",
        ParamKind::Policy => "Pool Member Selection Policy Parameter",
        ParamKind::PoolHandle => "Pool Handle Parameter",
        ParamKind::PoolElement => "Pool Element Parameter",
        ParamKind::ServerInformation => "Server Information Parameter",
        ParamKind::OperationError => "Operation Error Parameter",
        ParamKind::Cookie => "Cookie Parameter",
        ParamKind::PeIdentifier => "Pool Element Identifier Parameter",
        ParamKind::PeChecksum => "PE Checksum Parameter",
        ParamKind::OpaqueTransport => "Opaque Transport Parameter",
        ParamKind::HandleResolutionOption => "Handle Resolution Option Parameter",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_reads_as_the_table_says() {
        for enc in [Encoding::Rfc, Encoding::Draft01, Encoding::Rsplib2007] {
            for code in 0..=u16::MAX {
                let listed = table(enc).iter().find(|(c, _)| *c == code).map(|(_, k)| *k);
                assert_eq!(param_kind(code, enc), listed, "{code:#06x} {enc:?}");
            }
        }
    }

    #[test]
    fn tables_are_inverse_and_distinct() {
        for enc in [Encoding::Rfc, Encoding::Draft01, Encoding::Rsplib2007] {
            for (code, kind) in table(enc) {
                assert_eq!(param_kind(*code, enc), Some(*kind));
                assert_eq!(param_code(*kind, enc), Some(*code));
            }
        }
        assert_eq!(param_kind(0x9, Encoding::Rfc), Some(ParamKind::PoolHandle));
        assert_eq!(
            param_kind(0x9, Encoding::Rsplib2007),
            Some(ParamKind::ServerInformation)
        );
        assert_eq!(
            param_kind(0x7, Encoding::Draft01),
            Some(ParamKind::PoolHandle)
        );
        assert_eq!(
            param_code(ParamKind::DccpTransport, Encoding::Rsplib2007),
            None
        );
        assert_eq!(param_kind(0x803f, Encoding::Draft01), None);
    }

    #[test]
    fn unknown_actions_from_top_bits() {
        assert_eq!(UnknownAction::of(0x0abc), UnknownAction::Stop);
        assert_eq!(UnknownAction::of(0x4abc), UnknownAction::StopReport);
        assert_eq!(UnknownAction::of(0x8abc), UnknownAction::Skip);
        assert_eq!(UnknownAction::of(0xcabc), UnknownAction::SkipReport);
        assert!(UnknownAction::of(0x4abc).stops() && UnknownAction::of(0x4abc).reports());
        assert!(!UnknownAction::of(0x803f).stops());
    }
}
