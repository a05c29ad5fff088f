//! `--max-*` options: the bounds on the state a capture can make poolshark keep (see
//! [`Limits`]). Each defaults to the library's value, so the defaults live in one place.

use clap::Args;

use crate::dissect::Limits;

#[derive(Args, Debug, Clone, Default)]
#[command(next_help_heading = "Memory bounds (what is evicted is counted in the summary)")]
pub struct LimitArgs {
    /// Bytes held for IP fragment reassembly, all datagrams together [default: 4 MiB].
    #[arg(long, value_name = "BYTES")]
    pub max_fragment_bytes: Option<usize>,

    /// Incomplete IP datagrams held at once [default: 1024].
    #[arg(long, value_name = "N")]
    pub max_fragment_datagrams: Option<usize>,

    /// Seconds of capture time an incomplete IP datagram is kept [default: 30].
    #[arg(long, value_name = "SECS")]
    pub fragment_timeout: Option<u32>,

    /// Bytes held for SCTP message reassembly, all associations together [default: 16 MiB].
    #[arg(long, value_name = "BYTES")]
    pub max_sctp_bytes: Option<usize>,

    /// Largest SCTP user message reassembled [default: 1 MiB].
    #[arg(long, value_name = "BYTES")]
    pub max_sctp_message: Option<usize>,

    /// Bytes of out-of-order TCP data held, all connections together [default: 16 MiB].
    #[arg(long, value_name = "BYTES")]
    pub max_tcp_bytes: Option<usize>,

    /// Seconds of capture time out-of-order TCP data waits for the bytes missing before it when
    /// the other direction is silent (a one-way capture) [default: 3].
    #[arg(long, value_name = "SECS")]
    pub tcp_hole_timeout: Option<u32>,

    /// Bytes of incomplete messages held by the TCP stream framers, all connections together
    /// [default: 16 MiB].
    #[arg(long, value_name = "BYTES")]
    pub max_framer_bytes: Option<usize>,

    /// Conversations (associations, connections) tracked at once, per transport [default: 65536].
    #[arg(long, value_name = "N")]
    pub max_conversations: Option<usize>,
}

impl LimitArgs {
    /// The library's defaults with the options given on the command line.
    pub fn limits(&self) -> Limits {
        let d = Limits::default();
        Limits {
            ip_fragment_bytes: self.max_fragment_bytes.unwrap_or(d.ip_fragment_bytes),
            ip_fragment_datagrams: self
                .max_fragment_datagrams
                .unwrap_or(d.ip_fragment_datagrams),
            ip_fragment_timeout_secs: self.fragment_timeout.unwrap_or(d.ip_fragment_timeout_secs),
            sctp_reassembly_bytes: self.max_sctp_bytes.unwrap_or(d.sctp_reassembly_bytes),
            sctp_message_bytes: self.max_sctp_message.unwrap_or(d.sctp_message_bytes),
            tcp_reassembly_bytes: self.max_tcp_bytes.unwrap_or(d.tcp_reassembly_bytes),
            tcp_hole_timeout_secs: self.tcp_hole_timeout.unwrap_or(d.tcp_hole_timeout_secs),
            framer_bytes: self.max_framer_bytes.unwrap_or(d.framer_bytes),
            conversations: self.max_conversations.unwrap_or(d.conversations),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_the_library_defaults_and_each_option_sets_its_bound() {
        let d = Limits::default();
        let l = LimitArgs::default().limits();
        assert_eq!(
            (l.ip_fragment_bytes, l.conversations, l.framer_bytes),
            (d.ip_fragment_bytes, d.conversations, d.framer_bytes)
        );
        let l = LimitArgs {
            max_fragment_bytes: Some(1),
            max_fragment_datagrams: Some(2),
            fragment_timeout: Some(3),
            max_sctp_bytes: Some(4),
            max_sctp_message: Some(5),
            max_tcp_bytes: Some(6),
            max_framer_bytes: Some(7),
            max_conversations: Some(8),
            tcp_hole_timeout: Some(9),
        }
        .limits();
        assert_eq!(
            (
                l.ip_fragment_bytes,
                l.ip_fragment_datagrams,
                l.ip_fragment_timeout_secs,
                l.sctp_reassembly_bytes,
                l.sctp_message_bytes,
                l.tcp_reassembly_bytes,
                l.framer_bytes,
                l.conversations,
                l.tcp_hole_timeout_secs
            ),
            (1, 2, 3, 4, 5, 6, 7, 8, 9)
        );
    }
}
