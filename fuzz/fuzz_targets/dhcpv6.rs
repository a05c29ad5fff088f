//! DHCPv6 with relay chains: the lenient parser, the display tree, the accessors the analysers
//! use, and the round trip: a message that parses without error is emitted back byte for byte.
#![no_main]

use libfuzzer_sys::fuzz_target;
use poolshark::proto::dhcpv6;

fuzz_target!(|data: &[u8]| {
    let (m, errors) = dhcpv6::parse(data);
    for e in &errors {
        assert!(
            e.offset <= data.len(),
            "error offset {} past the end",
            e.offset
        );
    }
    std::hint::black_box(m.fields());
    std::hint::black_box(m.info());
    std::hint::black_box((m.innermost().map(|i| i.msg_type), m.client_id()));
    let emitted = m.emit();
    if errors.is_empty() {
        assert_eq!(emitted, data, "round trip");
    }
    let (again, _) = dhcpv6::parse(&emitted);
    std::hint::black_box(again);
});
