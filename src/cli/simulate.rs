//! `poolshark simulate`: its arguments and their value parsers, for [`crate::run::simulate`].

use crate::analyse::policy::settings::parse_u32;
use crate::analyse::policy::{PolicyKind, Profile, PROFILES};
use crate::run::anyhow_like::Result;
use crate::run::simulate::{self, Format};

#[derive(clap::Args, Debug)]
#[command(
    after_help = "Example:\n  poolshark simulate --policy plu --pe 1:load=50%,degradation=10% \\\n      --pe 2:load=50%,degradation=50% --resolutions 3 --items 1\n\n\
PE ids are 32-bit numbers (decimal or 0x...); they are printed as written.\n\
Keys: weight, priority (u32), load, degradation (a percentage such as 12.5%, or a raw 32-bit\n\
value where 0xffffffff is 100 %). Keys the policy does not read are accepted and ignored."
)]
pub struct SimulateArgs {
    /// The selection policy: rr, wrr, rand, wrand, priority, lu, lud, plu, rlu; under the rsplib
    /// profile also RSPLIB's rplu, rlud, plud, rplud.
    #[arg(long, value_parser = parse_policy)]
    pub policy: PolicyKind,

    /// A pool element, ID[:KEY=VALUE,...]; repeat for each, in registration order.
    #[arg(long = "pe", value_name = "ID[:KEY=VALUE,...]", required = true)]
    pub pes: Vec<String>,

    /// How many handle resolutions to run.
    #[arg(long, default_value_t = 10)]
    pub resolutions: u64,

    /// Items asked for per resolution (a number, or `all`); without it, or 0 (as a Handle
    /// Resolution Option asking for 0 is read), the profile's default (3). Answers never exceed
    /// the pool size or 128.
    #[arg(long, value_parser = parse_items)]
    pub items: Option<u32>,

    /// How many of each answer's first PEs advance their state; without it, or 0, the
    /// profile's default (1).
    #[arg(long)]
    pub max_increment: Option<u32>,

    /// Which reading of the rules: rfc5356, draft01 or rsplib.
    #[arg(long, default_value = "rsplib", value_parser = parse_profile)]
    pub profile: &'static Profile,

    /// Seed of the randomised policies (the same seed gives the same answers); default: from
    /// the clock.
    #[arg(long)]
    pub seed: Option<u64>,

    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

fn parse_policy(s: &str) -> std::result::Result<PolicyKind, String> {
    PolicyKind::from_cli_name(s).ok_or_else(|| {
        let names: Vec<&str> = PolicyKind::RUNNABLE.iter().map(|k| k.cli_name()).collect();
        format!("unknown policy `{s}`; use one of {}", names.join(", "))
    })
}

fn parse_profile(s: &str) -> std::result::Result<&'static Profile, String> {
    Profile::by_name(s).ok_or_else(|| {
        let names: Vec<&str> = PROFILES.iter().map(|p| p.name).collect();
        format!("unknown profile `{s}`; use one of {}", names.join(", "))
    })
}

fn parse_items(s: &str) -> std::result::Result<u32, String> {
    if s.eq_ignore_ascii_case("all") {
        return Ok(u32::MAX);
    }
    parse_u32(s).map_err(|_| format!("`{s}` is not a number of items (or `all`)"))
}

pub fn run(args: SimulateArgs) -> Result<i32> {
    simulate::run(simulate::Options {
        policy: args.policy,
        pes: args.pes,
        resolutions: args.resolutions,
        items: args.items,
        max_increment: args.max_increment,
        profile: args.profile,
        seed: args.seed,
        format: args.format,
    })
}
