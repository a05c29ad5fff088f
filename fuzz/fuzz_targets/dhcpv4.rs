//! DHCPv4 / BOOTP: the lenient parser, the display tree, the accessors the analysers use, and
//! the round trip: a message that parses without error is emitted back byte for byte.
#![no_main]

use libfuzzer_sys::fuzz_target;
use poolshark::proto::dhcpv4;

fuzz_target!(|data: &[u8]| {
    let (m, errors) = dhcpv4::parse(data);
    for e in &errors {
        assert!(
            e.offset <= data.len(),
            "error offset {} past the end",
            e.offset
        );
    }
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
    let (again, _) = dhcpv4::parse(&emitted);
    std::hint::black_box(again);
});
