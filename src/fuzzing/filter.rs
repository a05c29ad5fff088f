//! The display filter target.

use crate::base::Timestamp;
use crate::dissect::{layers, Address, FrameSummary};
use crate::field::Record;
use crate::filter::display::{Column, Filter, FrameView};
use crate::proto::{dhcpv4, dhcpv6};

/// Display filters (`read -Y`) and field columns (`-e`): a filter as a person may type it, run on
/// the messages of the rest of the input. The input is the filter's text, a newline, then a
/// DHCPv6 message, which is also read as DHCPv4 and as an Ethernet frame (the lenient parsers give
/// a tree for any bytes). Parsing must give the filter or an error whose byte lies within the
/// text; evaluating, the problems and the columns must not panic.
pub fn display_filter(data: &[u8]) {
    let cut = data.iter().position(|&b| b == b'\n').unwrap_or(data.len());
    let (text, rest) = data.split_at(cut);
    let Ok(text) = std::str::from_utf8(text) else {
        return;
    };
    let message = rest.get(1..).unwrap_or_default();
    let record = |protocol: &'static str, fields| Record {
        frame: 1,
        time: Some(Timestamp::new(1_700_000_001, 5)),
        src: String::new(),
        dst: String::new(),
        protocol,
        info: String::new(),
        fields,
        fields_json: None,
        errors: Vec::new(),
        reassembled_from: Vec::new(),
        quoted: false,
    };
    let records = [
        record("dhcpv6", dhcpv6::parse(message).0.fields()),
        record("dhcpv4", dhcpv4::parse(message).0.fields()),
    ];
    let summary = FrameSummary {
        src: Some(Address::Ip([192, 0, 2, 1].into())),
        dst: Some(Address::Ip(
            std::net::Ipv6Addr::new(0xfe80, 0, 0, 0, 0, 0, 0, 1).into(),
        )),
        src_port: Some(547),
        dst_port: Some(546),
        protocol: "UDP",
        ..FrameSummary::default()
    };
    let layers = layers::decode(1, message, &crate::wire::tunnel::TunnelPorts::default()).trees;
    let view = FrameView {
        number: 1,
        len: message.len() as u64,
        cap_len: message.len() as u64,
        time: Timestamp::new(1_700_000_001, 5),
        first: Timestamp::new(1_700_000_000, 0),
        prev: Timestamp::new(1_700_000_000, 500_000_000),
        prev_displayed: Timestamp::new(1_700_000_000, 0),
        has_time: true,
        summary: &summary,
        records: &records,
        layers: &layers,
    };
    match Filter::parse(text) {
        Ok(mut f) => {
            std::hint::black_box(f.matches(&view));
            std::hint::black_box(f.matches(&view));
            std::hint::black_box(f.problems());
            std::hint::black_box(f.unseen_fields());
        }
        Err(e) => assert!(
            e.offset <= text.len(),
            "error at byte {} of {} ({})",
            e.offset,
            text.len(),
            e.what
        ),
    }
    if let Ok(c) = Column::parse(text) {
        let mut n = 0usize;
        c.values(&view, &mut |_| n += 1);
        std::hint::black_box((n, c.present(&view)));
    }
}
