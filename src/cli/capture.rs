//! `poolshark capture -i IFACE [-f FILTER] [-Y FILTER] [-w FILE.pcapng] [--format text|json|jsonl]
//! [--check] [--duration SECONDS] [--count N]`: the `read` pipeline on a live interface
//! ([`crate::run::capture`] runs it).

use std::path::PathBuf;
use std::time::Duration;

use super::args::{DisplayFilterArgs, FieldArgs, TimeArgs};
use super::input::{filter_choice, DecodeArgs};
use crate::analyse::finding::Severity;
use crate::output::Format;
use crate::run::analysis::AnalysisArgs;
use crate::run::anyhow_like::{Error, Result};
use crate::run::capture;
use crate::source::live::{self, Backend, LiveOptions};

#[derive(clap::Args, Debug)]
pub struct LiveArgs {
    /// Interface to capture on (`ip link` lists them), or `any` for all of them (Linux cooked
    /// frames). Repeat it to capture on several at once: each frame keeps its interface (one
    /// interface description each in the -w file) and each interface its counts.
    #[arg(short = 'i', long = "interface", value_name = "IFACE", required = true)]
    pub interface: Vec<String>,

    /// Capture filter. Without it only what poolshark decodes is kept (DHCP, RSerPool, failover
    /// ports, SCTP, IP fragments, tunnels: IP in IP, GRE, VXLAN, Geneve; plus the --decode-as
    /// ports). This build understands ip, ip6,
    /// udp, tcp, sctp, [udp|tcp|sctp] [src|dst] port N, [src|dst] host ADDR, with and, or, not
    /// and parentheses; the `libpcap` feature compiles any libpcap expression. An empty
    /// filter keeps every packet.
    // Its own id: the display filter's (-Y) is `filter`, and two arguments of one id take each
    // other's values.
    #[arg(
        id = "capture_filter",
        short = 'f',
        long = "filter",
        value_name = "FILTER"
    )]
    pub filter: Option<String>,

    #[command(flatten)]
    pub display: DisplayFilterArgs,

    /// Write every captured frame to this pcapng file (the display filter does not apply); `-`
    /// writes it to standard output instead of the listing (not with --check).
    #[arg(short = 'w', long = "write", value_name = "FILE.pcapng")]
    pub write: Option<PathBuf>,

    /// Output format: a line per frame (text), a JSON array, one JSON object per line, or a
    /// line per frame of the fields -e names (fields, as tshark -T fields).
    #[arg(short = 'T', long, value_enum, default_value = "text")]
    pub format: Format,

    #[command(flatten)]
    pub fields: FieldArgs,

    #[command(flatten)]
    pub time: TimeArgs,

    /// Show the whole field tree of every message.
    #[arg(short = 'V', long)]
    pub verbose: bool,

    /// Replay what is captured through the reference algorithms and print the findings at the
    /// end, as `poolshark check` does (text, or JSON with --format json/jsonl).
    #[arg(long)]
    pub check: bool,

    /// With --check: exit 1 when a finding is at or above this severity.
    #[arg(
        long,
        value_name = "info|warning|error",
        default_value = "warning",
        requires = "check"
    )]
    pub fail_on: Severity,

    /// With --check: list every finding in the text report (as `check --all-findings`).
    #[arg(long, requires = "check")]
    pub all_findings: bool,

    /// Serve Prometheus metrics at http://ADDR:PORT/metrics while capturing (the analysers'
    /// with --check; the capture's own always): `ADDR:PORT`, or a port alone for the loopback
    /// address; port 0 picks a free one. The address bound is printed on standard error.
    #[arg(long, value_name = "ADDR:PORT")]
    pub metrics: Option<String>,

    /// Write the metrics to FILE when the capture ends (as `check --metrics-file`).
    #[arg(long, value_name = "FILE")]
    pub metrics_file: Option<PathBuf>,

    /// Stop after this many seconds.
    #[arg(long, value_name = "SECONDS")]
    pub duration: Option<f64>,

    /// Stop after this many frames.
    #[arg(short = 'c', long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub count: Option<u64>,

    /// Bytes kept of each packet.
    #[arg(short = 's', long, default_value_t = live::DEFAULT_SNAPLEN, value_name = "BYTES")]
    pub snaplen: u32,

    /// The kernel's capture buffer of each interface, in MiB (the AF_PACKET ring; libpcap's
    /// buffer).
    #[arg(short = 'B', long = "buffer-size", value_name = "MiB", default_value_t = live::DEFAULT_BUFFER_MIB,
          value_parser = clap::value_parser!(u32).range(1..=4096))]
    pub buffer: u32,

    /// The queue between the capture thread and the analysis, in MiB: when the analysis falls
    /// this far behind, frames are dropped (and counted) instead of the kernel's buffer filling.
    #[arg(long = "queue-size", value_name = "MiB", default_value_t = live::DEFAULT_QUEUE_MIB,
          value_parser = clap::value_parser!(u32).range(1..=65536))]
    pub queue: u32,

    /// Once the capture is open, run as USER (started as root; as tcpdump -Z), with
    /// no-new-privileges and no capability; `-Z root` keeps root. Started with capabilities
    /// only (CAP_NET_RAW), they are all dropped whatever USER is.
    #[arg(short = 'Z', long = "user", value_name = "USER", default_value = crate::privileges::DEFAULT_USER)]
    pub user: String,

    /// Capture mechanism: auto (AF_PACKET on Linux), afpacket, or libpcap (needs the `libpcap`
    /// feature).
    #[arg(long, value_enum, default_value = "auto")]
    pub backend: BackendArg,

    #[command(flatten)]
    pub decode: DecodeArgs,

    /// With --check: the analysers' settings, as for `poolshark check`.
    #[command(flatten)]
    pub analysis: AnalysisArgs,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum BackendArg {
    Auto,
    Afpacket,
    Libpcap,
}

fn live_options(a: &LiveArgs) -> Result<LiveOptions> {
    let mut o = LiveOptions::new("");
    o.interfaces = a.interface.clone();
    o.snaplen = a.snaplen;
    o.buffer = (a.buffer as usize) << 20;
    o.queue = (a.queue as usize) << 20;
    o.count = a.count;
    if let Some(d) = a.duration {
        if !d.is_finite() || d <= 0.0 || d > 1e9 {
            return Err(Error::msg(format!(
                "--duration {d}: give a number of seconds above 0"
            )));
        }
        o.duration = Some(Duration::from_secs_f64(d));
    }
    o.filter = filter_choice(a.filter.as_deref(), &a.decode);
    o.backend = match a.backend {
        BackendArg::Auto => Backend::Auto,
        BackendArg::Afpacket => Backend::AfPacket,
        BackendArg::Libpcap => Backend::Libpcap,
    };
    Ok(o)
}

pub fn run(args: LiveArgs) -> Result<i32> {
    let pipeline = args.decode.options()?;
    let display = args.display.parse()?;
    if let Some(code) = args.fields.refuse_invalid(args.format) {
        return Ok(code);
    }
    let columns = args.fields.columns(args.format)?;
    let live = live_options(&args)?;
    capture::run(capture::Options {
        live,
        pipeline,
        display,
        columns,
        format: args.format,
        time: args.time.column(),
        verbose: args.verbose,
        write: args.write,
        check: args.check,
        fail_on: args.fail_on,
        all_findings: args.all_findings,
        metrics: args.metrics,
        metrics_file: args.metrics_file,
        user: args.user,
        analysis: args.analysis,
    })
}
