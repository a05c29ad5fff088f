//! ASAP and ENRP in each of the three encodings, the encoding guess, the display tree, and the
//! round trip: a message that parses without error is emitted back byte for byte.
#![no_main]

use libfuzzer_sys::fuzz_target;
use poolshark::proto::rserpool::{self, Encoding, Protocol};

fuzz_target!(|data: &[u8]| {
    // The first byte picks the protocol; the rest is one message.
    let Some((&which, buf)) = data.split_first() else {
        return;
    };
    let protocol = if which & 1 == 0 {
        Protocol::Asap
    } else {
        Protocol::Enrp
    };
    for enc in [Encoding::Rfc, Encoding::Draft01, Encoding::Rsplib2007] {
        let (m, errors) = rserpool::parse(buf, protocol, enc);
        for e in &errors {
            assert!(
                e.offset <= buf.len(),
                "error offset {} past the end",
                e.offset
            );
        }
        std::hint::black_box(m.fields());
        std::hint::black_box(m.info());
        std::hint::black_box((m.pool_handle(), m.policy(), m.hropt_items(), m.rejected()));
        std::hint::black_box(m.pool_elements().count() + m.transports().count());
        if errors.is_empty() {
            assert_eq!(m.emit(), buf, "{enc:?} round trip");
        }
    }
    std::hint::black_box(rserpool::guess_encoding(buf, protocol));
});
