//! `poolshark simulate`'s run: registers the pool elements given on the command line, in order, and
//! prints the reference answers of a run of handle resolutions.

use std::io::{self, BufWriter, Write};

use crate::analyse::policy::settings::parse_u32;
use crate::analyse::policy::{parse_scaled, PeSettings, PolicyKind, Pool, Profile, Rng};
use crate::run::anyhow_like::{Error, Result};
use crate::run::exit;

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// One line per resolution: the PE ids of the answer separated by spaces.
    Text,
    /// `{"resolutions": [[ids...], ...]}`
    Json,
}

/// One `--pe` argument: the id as written, the id, and the settings.
#[derive(Debug, PartialEq, Eq)]
pub struct PeSpec {
    pub label: String,
    pub id: u32,
    pub settings: PeSettings,
}

/// Parses `ID[:KEY=VALUE,...]`.
pub fn parse_pe(spec: &str, policy: PolicyKind) -> std::result::Result<PeSpec, String> {
    let (id_text, rest) = match spec.split_once(':') {
        Some((i, r)) => (i, Some(r)),
        None => (spec, None),
    };
    let label = id_text.trim().to_string();
    let id = parse_u32(&label).map_err(|_| {
        format!("--pe {spec}: the id `{label}` is not a 32-bit number (decimal or 0x...)")
    })?;
    let mut settings = PeSettings::new(policy);
    let mut given: Vec<&'static str> = Vec::new();
    for pair in rest.into_iter().flat_map(|r| r.split(',')) {
        if pair.trim().is_empty() {
            continue;
        }
        let Some((key, value)) = pair.split_once('=') else {
            return Err(format!("--pe {spec}: `{pair}` is not KEY=VALUE"));
        };
        let value = value.trim();
        let bad = |e: String| format!("--pe {spec}: {}: {e}", key.trim());
        let canonical = match key.trim().to_ascii_lowercase().as_str() {
            "weight" => "weight",
            "priority" => "priority",
            "load" => "load",
            "degradation" | "load-degradation" | "load_degradation" => "degradation",
            _ => "",
        };
        if !canonical.is_empty() {
            if given.contains(&canonical) {
                return Err(format!(
                    "--pe {spec}: {canonical} is given twice (which one was meant?)"
                ));
            }
            given.push(canonical);
        }
        match canonical {
            "weight" => {
                settings.weight = parse_u32(value)
                    .map_err(|_| bad(format!("`{value}` is not a 32-bit number")))?;
            }
            "priority" => {
                settings.priority = parse_u32(value)
                    .map_err(|_| bad(format!("`{value}` is not a 32-bit number")))?;
            }
            "load" => settings.load = parse_scaled(value).map_err(bad)?,
            "degradation" => {
                settings.load_degradation = parse_scaled(value).map_err(bad)?;
            }
            _ => {
                return Err(format!(
                    "--pe {spec}: unknown key `{}`; use weight, priority, load or degradation",
                    key.trim()
                ))
            }
        }
    }
    Ok(PeSpec {
        label,
        id,
        settings,
    })
}

/// The seed when none is given: differs from run to run.
fn clock_seed() -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    // Fold the 128-bit count into 64 bits and mix in the process id.
    (nanos as u64) ^ ((nanos >> 64) as u64) ^ u64::from(std::process::id()).rotate_left(32)
}

/// What `simulate` is given: the policy and the reading of its rules (checked together when the
/// pool is made), the `--pe` specs as written (parsed as they register, in order, after that
/// check), the number of resolutions, items and increments, the seed and the output format.
pub struct Options {
    pub policy: PolicyKind,
    pub pes: Vec<String>,
    pub resolutions: u64,
    pub items: Option<u32>,
    pub max_increment: Option<u32>,
    pub profile: &'static Profile,
    pub seed: Option<u64>,
    pub format: Format,
}

/// Registers the pool elements and writes the answers of `resolutions` handle resolutions.
pub fn run(args: Options) -> Result<i32> {
    let mut pool = Pool::new(args.profile, args.policy).map_err(|e| {
        Error::msg(format!(
            "{e}; pick another --profile (rsplib defines every policy)"
        ))
    })?;
    pool.set_max_increment(args.max_increment);
    let mut labels: Vec<(u32, String)> = Vec::with_capacity(args.pes.len());
    for spec in &args.pes {
        let pe = parse_pe(spec, args.policy)?;
        if labels.iter().any(|(id, _)| *id == pe.id) {
            return Err(Error::msg(format!(
                "--pe {spec}: PE id {} is given twice",
                pe.label
            )));
        }
        pool.register(pe.id, pe.settings)
            .map_err(|e| Error::msg(e.to_string()))?;
        labels.push((pe.id, pe.label));
    }
    let items = pool.items_for(args.items);
    let mut rng = Rng::new(args.seed.unwrap_or_else(clock_seed));
    let label = |id: u32| -> &str {
        labels
            .iter()
            .find(|(i, _)| *i == id)
            .map_or("?", |(_, l)| l.as_str())
    };

    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    if args.format == Format::Json {
        out.write_all(b"{\"resolutions\": [")?;
    }
    for n in 0..args.resolutions {
        let answer = pool.select(items, &mut rng);
        match args.format {
            Format::Text => {
                let words: Vec<&str> = answer.iter().map(|&id| label(id)).collect();
                writeln!(out, "{}", words.join(" "))?;
            }
            Format::Json => {
                if n > 0 {
                    out.write_all(b", ")?;
                }
                serde_json::to_writer(&mut out, &answer)?;
            }
        }
    }
    if args.format == Format::Json {
        out.write_all(b"]}\n")?;
    }
    out.flush()?;
    Ok(exit::OK)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pe_specs_parse_ids_keys_and_scales() {
        let pe = parse_pe(
            "0x10:load=50%,degradation=0x10",
            PolicyKind::LeastUsedDegradation,
        )
        .unwrap();
        assert_eq!(pe.label, "0x10");
        assert_eq!(pe.id, 16);
        assert_eq!(pe.settings.load, 0x8000_0000);
        assert_eq!(pe.settings.load_degradation, 16);
        let pe = parse_pe("7", PolicyKind::WeightedRoundRobin).unwrap();
        assert_eq!(pe.settings.weight, 1);
        let pe = parse_pe("7:weight=3,priority=9", PolicyKind::WeightedRoundRobin).unwrap();
        assert_eq!((pe.settings.weight, pe.settings.priority), (3, 9));
        assert!(parse_pe("x", PolicyKind::RoundRobin).is_err());
        assert!(parse_pe("1:colour=red", PolicyKind::RoundRobin).is_err());
        assert!(parse_pe("1:load", PolicyKind::LeastUsed).is_err());
        assert!(parse_pe("1:load=120%", PolicyKind::LeastUsed).is_err());
        assert!(parse_pe("1:weight=-1", PolicyKind::WeightedRandom).is_err());
        assert_eq!(
            parse_pe("1:weight=5,Weight=6", PolicyKind::WeightedRandom).err(),
            Some("--pe 1:weight=5,Weight=6: weight is given twice (which one was meant?)".into())
        );
        assert!(parse_pe(
            "1:degradation=1%,load_degradation=2%",
            PolicyKind::LeastUsed
        )
        .is_err());
        assert_eq!(
            parse_pe("1:colour=red", PolicyKind::RoundRobin).err(),
            Some(
                "--pe 1:colour=red: unknown key `colour`; use weight, priority, load or degradation"
                    .into()
            )
        );
    }
}
