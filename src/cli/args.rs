//! Options and value parsers several commands share: the display filter (`-Y`), the listing's
//! time column (`-t`, `-u`) and the fields of `-T fields` (`-e`, `-E`) of `read` and `capture`;
//! the `--plot` file names of `check` and `stats`, and the durations of `--interval`.

use crate::field::catalogue;
use crate::filter::display::{Filter, PROTOCOLS};
use crate::output::fields::{Columns, FieldsOptions};
use crate::output::time::{SecondsFormat, TimeColumn, TimeFormat};
use crate::output::Format;
use crate::run::anyhow_like::Result;
use crate::run::exit;

/// `-Y`: which frames to show (`read`, `capture`).
#[derive(clap::Args, Debug, Default)]
pub struct DisplayFilterArgs {
    /// Show only the frames that pass this display filter, in Wireshark's syntax: protocols
    /// (`asap`, `enrp`, `dhcp`, `dhcpv6`, `dhcpfo`, `eth`, `vlan`, `ip`, `ipv6`, `udp`, `tcp`,
    /// `sctp`, `gre`, `vxlan`, ...), the fields of `read -V` and the JSON records compared to
    /// values (`==`, `!=`, `>`, `<`, `>=`, `<=`, `contains`, `matches`), `frame.number`,
    /// `frame.time > "2026-12-02 14:21:51"`, `frame.time_delta > 0.5`, `ip.addr`, `udp.port`,
    /// the lower layers' fields (`eth.src`, `vlan.id`, `ip.ttl`, `tcp.flags.syn`,
    /// `sctp.data_payload_proto_id`, `gre.key`, `vxlan.vni`, `mpls.label`, `frame.protocols`,
    /// ...), arithmetic (`frame.len - 14 > ip.len`, `tcp.flags & 0x12 == 0x12`, braces to
    /// group), with `&&`, `||`, `!` and parentheses, e.g.
    /// `-Y 'asap.message_type == 3 && ip.src == 192.0.2.0/24'`.
    // A filter may start with a minus (`-frame.len < 0`): it is the value, not an option.
    #[arg(
        short = 'Y',
        long = "display-filter",
        value_name = "FILTER",
        allow_hyphen_values = true
    )]
    pub filter: Option<String>,
}

/// `-t` and `-u`: the listing's time column (`read`, `capture`), as tshark's.
#[derive(clap::Args, Debug, Default)]
pub struct TimeArgs {
    /// The listing's time column, as tshark's -t: r seconds since the first frame (the default),
    /// d since the frame read before, dd since the frame shown before (which -Y decides), e since
    /// the epoch; a local time of day, ad with the date, adoy with the year's day (in the time
    /// zone of TZ, else the system's; UTC off Linux); u, ud, udoy the same in UTC. Decimals as
    /// the capture's clock gives (6 for microseconds, 9 for nanoseconds).
    #[arg(short = 't', long = "time-format", value_enum, value_name = "FORMAT")]
    pub time_format: Option<TimeFormat>,

    /// How -t r, d and dd show seconds, as tshark's -u: s (`3725.000000`) or hms
    /// (`1h  2m  5.000000s`).
    #[arg(short = 'u', long = "seconds-format", value_enum, value_name = "s|hms")]
    pub seconds_format: Option<SecondsFormat>,
}

impl TimeArgs {
    pub fn column(&self) -> TimeColumn {
        TimeColumn {
            format: self.time_format.unwrap_or_default(),
            seconds: self.seconds_format.unwrap_or_default(),
        }
    }
}

/// `-e` and `-E`: the fields of `-T fields` (`read`, `capture`).
#[derive(clap::Args, Debug, Default)]
pub struct FieldArgs {
    /// With -T fields: a field to show, by the name a display filter uses (`read -V` and the
    /// JSON records show them; also frame.number, frame.time, frame.time_utc, frame.time_epoch,
    /// frame.time_relative, frame.time_delta, frame.time_delta_displayed, frame.len, ip.src,
    /// udp.srcport, and the lower layers' fields: frame.protocols, eth.src, vlan.id, ip.ttl,
    /// tcp.flags, sctp.data_payload_proto_id, vxlan.vni, ...), repeatable, in the order given.
    #[arg(short = 'e', long = "field", value_name = "NAME")]
    pub fields: Vec<String>,

    /// With -T fields, tshark's options: header=y|n, separator=/t|/s|C, occurrence=f|l|a|N,
    /// aggregator=,|/s|C, quote=d|s|n (repeatable).
    #[arg(short = 'E', long = "field-option", value_name = "OPTION=VALUE")]
    pub options: Vec<String>,
}

impl FieldArgs {
    /// The columns of `-T fields`; `-e` or `-E` with another format is a usage error.
    pub fn columns(&self, format: Format) -> Result<Option<Columns>> {
        if format != Format::Fields {
            if self.fields.is_empty() && self.options.is_empty() {
                return Ok(None);
            }
            return Err("-e and -E go with -T fields".into());
        }
        let options = FieldsOptions::parse(&self.options).map_err(|e| e.to_string())?;
        Ok(Some(
            Columns::new(&self.fields, options).map_err(|e| e.to_string())?,
        ))
    }
}

impl FieldArgs {
    /// With -T fields, the `-e` names that are neither a field nor a protocol name (of a
    /// protocol poolshark does not know, or not in [`catalogue`]): refused as tshark refuses
    /// them, its words on standard error and its exit code; `None` when every name is one.
    pub fn refuse_invalid(&self, format: Format) -> Option<i32> {
        if format != Format::Fields {
            return None;
        }
        let invalid = |n: &&String| {
            let proto = n.split('.').next().unwrap_or(n);
            catalogue::unknown(n) || !PROTOCOLS.contains(&proto)
        };
        let names: Vec<&String> = self.fields.iter().filter(invalid).collect();
        if names.is_empty() {
            return None;
        }
        eprintln!(
            "poolshark: some fields aren't valid (neither a field nor a protocol name poolshark \
             knows; `read -V` and the JSON records show the names):"
        );
        for n in names {
            eprintln!("\t{n}");
        }
        Some(exit::INVALID_FIELD)
    }
}

impl DisplayFilterArgs {
    /// The parsed filter; an error names what is wrong and where.
    pub fn parse(&self) -> Result<Option<Filter>> {
        match &self.filter {
            None => Ok(None),
            Some(text) => Filter::parse(text)
                .map(Some)
                .map_err(|e| format!("display filter {e}").into()),
        }
    }
}

/// A `--plot` file name: one whose extension names its format.
pub fn plot_file(s: &str) -> std::result::Result<String, String> {
    crate::output::plot::Format::of(s).map(|_| s.to_string())
}

/// A duration in nanoseconds from `500ms`, `10s`, `2m`, `1h`, `1.5s` or a plain number of seconds.
pub fn parse_duration_ns(s: &str) -> std::result::Result<u64, String> {
    let t = s.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let n: f64 = num
        .parse()
        .map_err(|_| format!("bad duration {s:?}: expected e.g. 10s, 1m, 500ms"))?;
    let scale = match unit.trim() {
        "" | "s" => 1e9,
        "ms" => 1e6,
        "us" => 1e3,
        "m" | "min" => 60e9,
        "h" => 3600e9,
        u => {
            return Err(format!(
                "bad duration {s:?}: unknown unit {u:?} (us, ms, s, m or min, h)"
            ))
        }
    };
    let ns = n * scale;
    if !(1e3..1e19).contains(&ns) {
        return Err(format!(
            "bad duration {s:?}: must be at least 1us and under 300 years"
        ));
    }
    Ok(ns as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration_ns("10s"), Ok(10_000_000_000));
        assert_eq!(parse_duration_ns("500ms"), Ok(500_000_000));
        assert_eq!(parse_duration_ns("2m"), Ok(120_000_000_000));
        assert_eq!(parse_duration_ns("1.5"), Ok(1_500_000_000));
        assert_eq!(parse_duration_ns("1h"), Ok(3_600_000_000_000));
        assert!(parse_duration_ns("0s").is_err());
        assert!(parse_duration_ns("ten").is_err());
        assert!(parse_duration_ns("5 parsecs").is_err());
        assert_eq!(parse_duration_ns("5us"), Ok(5_000));
        // Every unit the error names is taken; nanoseconds are not offered.
        let e = parse_duration_ns("1ns").unwrap_err();
        assert!(
            e.ends_with("unknown unit \"ns\" (us, ms, s, m or min, h)"),
            "{e}"
        );
        for u in ["us", "ms", "s", "m", "min", "h"] {
            assert!(parse_duration_ns(&format!("1{u}")).is_ok(), "{u}");
        }
        assert!(parse_duration_ns("0.5us")
            .unwrap_err()
            .contains("at least 1us"));
    }
}
