//! The message targets: one message through its parser, display tree and emitter.

use crate::proto::failover::{self as fo, Framer};
use crate::proto::rserpool::{self as rsp, Encoding, Protocol};
use crate::proto::{dhcpv4 as v4, dhcpv6 as v6};

/// Every error's byte lies within the message.
fn errors_within(errors: &[crate::error::DecodeError], len: usize) {
    for e in errors {
        assert!(e.offset <= len, "error offset {} past the end", e.offset);
    }
}

/// ASAP and ENRP in each of the three encodings, the encoding guess, the display tree, and the
/// round trip: a message that parses without error is emitted back byte for byte. The first
/// byte picks the protocol (even: ASAP); the rest is one message.
pub fn rserpool(data: &[u8]) {
    let Some((&which, buf)) = data.split_first() else {
        return;
    };
    let protocol = if which & 1 == 0 {
        Protocol::Asap
    } else {
        Protocol::Enrp
    };
    for enc in [Encoding::Rfc, Encoding::Draft01, Encoding::Rsplib2007] {
        let (m, errors) = rsp::parse(buf, protocol, enc);
        errors_within(&errors, buf.len());
        std::hint::black_box(m.fields());
        std::hint::black_box(m.info());
        std::hint::black_box((m.pool_handle(), m.policy(), m.hropt_items(), m.rejected()));
        std::hint::black_box(m.pool_elements().count() + m.transports().count());
        if errors.is_empty() {
            assert_eq!(m.emit(), buf, "{enc:?} round trip");
        }
    }
    std::hint::black_box(rsp::guess_encoding(buf, protocol));
}

/// DHCPv4 / BOOTP: the lenient parser, the display tree, the accessors the analysers use, and
/// the round trip: a message that parses without error is emitted back byte for byte.
pub fn dhcpv4(data: &[u8]) {
    let (m, errors) = v4::parse(data);
    errors_within(&errors, data.len());
    std::hint::black_box(m.fields());
    std::hint::black_box(m.info());
    std::hint::black_box((
        m.message_type(),
        m.chaddr(),
        m.mac(),
        m.client_identifier(),
        m.server_identifier(),
        m.requested_address(),
        m.lease_time(),
        m.parameter_request_list(),
    ));
    std::hint::black_box(m.relay_agent_info().len());
    let emitted = m.emit();
    if errors.is_empty() {
        assert_eq!(emitted, data, "round trip");
    }
    // Whatever was decoded must survive its own emission.
    std::hint::black_box(v4::parse(&emitted));
}

/// DHCPv6 with relay chains: the lenient parser, the display tree, the accessors the analysers
/// use, and the round trip: a message that parses without error is emitted back byte for byte.
pub fn dhcpv6(data: &[u8]) {
    let (m, errors) = v6::parse(data);
    errors_within(&errors, data.len());
    std::hint::black_box(m.fields());
    std::hint::black_box(m.info());
    std::hint::black_box((m.innermost().map(|i| i.msg_type), m.client_id()));
    let emitted = m.emit();
    if errors.is_empty() {
        assert_eq!(emitted, data, "round trip");
    }
    std::hint::black_box(v6::parse(&emitted));
}

/// ISC DHCP failover: one message through the parser, the display tree and the emitter, then the
/// whole input as a TCP stream through the [`Framer`], in pieces of the first byte plus one:
/// every byte is framed, dropped or still held, and the framer holds no more than a message.
pub fn failover(data: &[u8]) {
    let Some((&cut, stream)) = data.split_first() else {
        return;
    };
    let (m, errors) = fo::parse(stream);
    errors_within(&errors, stream.len());
    std::hint::black_box(m.fields());
    std::hint::black_box(m.info());
    if errors.is_empty() {
        assert_eq!(m.emit().ok().as_deref(), Some(stream), "round trip");
    }

    let mut f = Framer::new();
    let mut framed = 0u64;
    for piece in stream.chunks(usize::from(cut) + 1) {
        for msg in f.feed(piece).into_iter().flatten() {
            assert!(msg.bytes.len() >= fo::HEADER_LEN);
            assert!(msg.bytes.len() <= usize::from(fo::ISC_MAX_MESSAGE_LEN));
            framed += msg.bytes.len() as u64;
            std::hint::black_box(fo::parse(&msg.bytes));
        }
        assert!(f.pending() <= usize::from(fo::ISC_MAX_MESSAGE_LEN) + piece.len());
    }
    assert_eq!(
        framed + f.dropped() + f.pending() as u64,
        stream.len() as u64,
        "bytes framed, dropped and held"
    );
}
