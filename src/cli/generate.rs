//! `poolshark generate`: its arguments, their value parsers and the checks that refuse them,
//! for [`crate::run::generate`].

use crate::analyse::dhcp_lb::{self, Hba};
use crate::analyse::policy;
use crate::generate::scenario::batch::NS;
use crate::generate::scenario::pace::DEFAULT_START_SECS;
use crate::generate::scenario::preset::{MixOptions, PartList};
use crate::generate::scenario::rserpool::Carrier;
use crate::generate::scenario::CaptureFormat;
use crate::proto::rserpool::Encoding;
use crate::run::anyhow_like::{Error, Result};
use crate::run::generate;

#[derive(clap::Args, Debug)]
#[command(
    after_help = "Examples:\n  poolshark generate --out big.pcap --frames 1000000 --seed 7\n  \
poolshark generate --out f.pcap --frames 5000000 --faults 3   # and f.pcap.faults.json\n\n\
The same seed and options give the same file, byte for byte."
)]
pub struct GenerateArgs {
    /// Capture file to write (`-` for standard output).
    #[arg(long, value_name = "FILE")]
    pub out: String,

    /// Frames to write.
    #[arg(long, default_value_t = 100_000)]
    pub frames: u64,

    /// Seed of every random choice.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,

    /// Scenarios and their shares of the frames, e.g. `rserpool,dhcp:2` (default weights
    /// rserpool 4, dhcp 3, failover 1, background 2).
    #[arg(long, default_value = "rserpool,dhcp,failover,background")]
    pub mix: PartList,

    /// pcap or pcapng (default: pcapng when the file name ends in .pcapng, else pcap).
    #[arg(long, value_name = "pcap|pcapng")]
    pub format: Option<CaptureFormat>,

    /// Frames per second of capture time.
    #[arg(long, default_value_t = 2000.0)]
    pub rate: f64,

    /// Time of the first frame, seconds since the epoch.
    #[arg(long, default_value_t = DEFAULT_START_SECS)]
    pub start: u64,

    /// RSerPool: the selection rules registrars follow (rfc5356, draft01, rsplib).
    #[arg(long, default_value = "rsplib", value_parser = parse_policy_profile)]
    pub profile: &'static policy::Profile,

    /// RSerPool: wire encoding (rfc, draft01, rsplib2007).
    #[arg(long, default_value = "rfc", value_parser = parse_encoding)]
    pub encoding: Encoding,

    /// RSerPool: transport (sctp, sctp-idata, tcp, udp).
    #[arg(long, default_value = "sctp", value_parser = parse_carrier)]
    pub carrier: Carrier,

    /// RSerPool: registrars (1 to 15).
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u8).range(1..=15))]
    pub registrars: u8,

    /// RSerPool: pool elements per pool (one pool per policy the profile and encoding define).
    #[arg(long, default_value_t = 4)]
    pub pes: usize,

    /// RSerPool: pool users.
    #[arg(long, default_value_t = 16)]
    pub users: usize,

    /// DHCP: whose load-balancing rules the pair follows (draft, kea, isc).
    #[arg(long, default_value = "kea", value_parser = parse_dhcp_profile)]
    pub dhcp_profile: &'static dhcp_lb::Profile,

    /// DHCP and failover: the hash bucket assignment (split:N, kea, or 64 hex digits; default:
    /// the profile's own, else split:128).
    #[arg(long, value_name = "SPEC")]
    pub hba: Option<Hba>,

    /// DHCP: clients.
    #[arg(long, default_value_t = 500)]
    pub clients: usize,

    /// DHCP: relay agents.
    #[arg(long, default_value_t = 2)]
    pub relays: usize,

    /// Plant K faults of each kind the analysers detect (RSerPool: duplicate PE, unknown PE, LU
    /// order, round-robin head stuck; DHCP: wrong server, double answer, no answer; failover:
    /// affinity, overbalance), each where exactly one finding must follow, and list the
    /// findings `check` must report in OUT.faults.json.
    #[arg(long, value_name = "K", default_value_t = 0)]
    pub faults: u32,
}

fn parse_policy_profile(s: &str) -> std::result::Result<&'static policy::Profile, String> {
    policy::Profile::by_name(s)
        .ok_or_else(|| format!("unknown profile {s:?}: use rfc5356, draft01 or rsplib"))
}

fn parse_dhcp_profile(s: &str) -> std::result::Result<&'static dhcp_lb::Profile, String> {
    dhcp_lb::Profile::by_name(s)
        .ok_or_else(|| format!("unknown DHCP profile {s:?}: use draft, kea or isc"))
}

fn parse_encoding(s: &str) -> std::result::Result<Encoding, String> {
    Encoding::from_name(s)
        .ok_or_else(|| format!("unknown encoding {s:?}: use rfc, draft01 or rsplib2007"))
}

fn parse_carrier(s: &str) -> std::result::Result<Carrier, String> {
    match s.to_ascii_lowercase().as_str() {
        "sctp" => Ok(Carrier::Sctp),
        "sctp-idata" | "idata" => Ok(Carrier::SctpIData),
        "tcp" => Ok(Carrier::Tcp),
        "udp" => Ok(Carrier::Udp),
        _ => Err(format!(
            "unknown carrier {s:?}: use sctp, sctp-idata, tcp or udp"
        )),
    }
}

impl GenerateArgs {
    pub fn options(&self) -> Result<MixOptions> {
        if !(self.rate.is_finite() && self.rate > 0.0) {
            return Err(Error::msg(
                "--rate must be a positive number of frames per second",
            ));
        }
        let start_ns = self
            .start
            .checked_mul(NS)
            .ok_or_else(|| Error::msg("--start is too far in the future"))?;
        Ok(MixOptions {
            seed: self.seed,
            start_ns,
            rate: self.rate,
            parts: self.mix.clone(),
            rserpool_profile: self.profile,
            encoding: self.encoding,
            carrier: self.carrier,
            registrars: usize::from(self.registrars),
            pes_per_pool: self.pes.max(1),
            pool_users: self.users.max(1),
            dhcp_profile: self.dhcp_profile,
            hba: self.hba,
            clients: self.clients.max(1),
            relays: self.relays,
            faults: self.faults,
            frames: self.frames,
        })
    }

    /// Where the list of planted faults goes: OUT.faults.json.
    fn faults_path(&self) -> Option<String> {
        (self.faults > 0).then(|| format!("{}.faults.json", self.out))
    }

    fn format(&self) -> CaptureFormat {
        self.format.unwrap_or(if self.out.ends_with(".pcapng") {
            CaptureFormat::PcapNg
        } else {
            CaptureFormat::Pcap
        })
    }
}

pub fn run(args: GenerateArgs) -> Result<i32> {
    let opts = args.options()?;
    if args.faults > 0 && args.out == "-" {
        return Err(Error::msg(
            "--faults lists the planted faults in OUT.faults.json: give --out a file name",
        ));
    }
    let format = args.format();
    let faults_path = args.faults_path();
    generate::run(generate::Options {
        mix: opts,
        out: args.out,
        format,
        faults_path,
    })
}
