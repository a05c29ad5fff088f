//! Sinks for decoded messages: the tshark-like listing, the field tree, JSON and JSON lines.

pub mod capture_file;
pub mod chart;
pub mod fields;
pub mod json;
pub mod metrics;
pub mod palette;
pub mod parquet;
pub mod pcap;
pub mod plot;
pub mod report;
pub mod short;
pub mod stats;
pub mod text;
pub mod time;

/// Output formats of `read`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Text,
    Json,
    Jsonl,
    /// A line per frame of the fields `-e` names, as tshark's `-T fields`.
    Fields,
}
