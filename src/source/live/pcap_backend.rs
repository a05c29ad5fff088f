//! Capture through libpcap (the `libpcap` cargo feature): full filter expressions compiled by
//! libpcap, and every system libpcap supports. libpcap itself drops the loopback echoes and
//! builds cooked headers; timestamps are asked in nanoseconds.

use pcap::{Active, Capture, Precision};

use super::{FilterChoice, LiveError, LiveErrorKind, LiveOptions};
use crate::base::Timestamp;

pub struct PcapCapture {
    cap: Capture<Active>,
    linktype: u32,
}

fn map_error(interface: &str, e: pcap::Error) -> LiveError {
    let text = e.to_string();
    let lower = text.to_lowercase();
    if lower.contains("permission") || lower.contains("not permitted") {
        return LiveError::new(
            LiveErrorKind::Permission,
            interface,
            format!(
                "permission denied ({text}): live capture needs root or the CAP_NET_RAW \
                 capability (run with sudo, or grant it once: sudo setcap cap_net_raw+ep \
                 /path/to/poolshark)"
            ),
        );
    }
    if lower.contains("no such device") || lower.contains("doesn't exist") {
        return LiveError::new(
            LiveErrorKind::NoSuchInterface,
            interface,
            format!("no such interface ({text})"),
        );
    }
    LiveError::new(LiveErrorKind::Other, interface, text)
}

impl PcapCapture {
    pub fn open(opts: &LiveOptions, iface: &str, snaplen: u32) -> Result<PcapCapture, LiveError> {
        let timeout = i32::try_from(opts.poll_interval.as_millis())
            .unwrap_or(i32::MAX)
            .max(1);
        let mut cap = Capture::from_device(iface)
            .map_err(|e| map_error(iface, e))?
            .snaplen(i32::try_from(snaplen).unwrap_or(i32::MAX))
            .precision(Precision::Nano)
            .immediate_mode(true)
            .timeout(timeout)
            .buffer_size(i32::try_from(opts.buffer).unwrap_or(i32::MAX))
            .open()
            .map_err(|e| map_error(iface, e))?;
        let expression = match &opts.filter {
            FilterChoice::All => None,
            FilterChoice::Compiled(c) => Some(c.expression.clone()),
        };
        if let Some(e) = expression {
            cap.filter(&e, true).map_err(|err| {
                LiveError::new(
                    LiveErrorKind::Filter,
                    iface,
                    format!("libpcap refused the filter {e:?}: {err}"),
                )
            })?;
        }
        let linktype = u32::try_from(cap.get_datalink().0).unwrap_or(0);
        Ok(PcapCapture { cap, linktype })
    }

    pub fn linktype(&self) -> u32 {
        self.linktype
    }

    /// The next packet copied into `buf`: (time, captured bytes, length on the wire); `Ok(None)`
    /// when the read timed out.
    pub fn next(&mut self, buf: &mut [u8]) -> Result<Option<(Timestamp, usize, u32)>, pcap::Error> {
        match self.cap.next_packet() {
            Ok(p) => {
                let n = p.data.len().min(buf.len());
                if let (Some(dst), Some(src)) = (buf.get_mut(..n), p.data.get(..n)) {
                    dst.copy_from_slice(src);
                }
                // With nanosecond precision libpcap puts nanoseconds in tv_usec.
                let nanos = u32::try_from(p.header.ts.tv_usec)
                    .unwrap_or(0)
                    .min(999_999_999);
                // time_t is 32 bits on some systems libpcap runs on.
                #[allow(clippy::useless_conversion)]
                let secs = i64::from(p.header.ts.tv_sec);
                let ts = Timestamp::new(secs, nanos);
                Ok(Some((ts, n, p.header.len)))
            }
            Err(pcap::Error::TimeoutExpired) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// (received, dropped) as libpcap counts them since the capture opened.
    pub fn statistics(&mut self) -> Option<(u64, u64)> {
        self.cap
            .stats()
            .ok()
            .map(|s| (u64::from(s.received), u64::from(s.dropped)))
    }
}
