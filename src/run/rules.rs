//! The run of `poolshark rules [--format text|json]`: every finding rule `check` can report, with the
//! severities it can carry and what it means (docs/findings.md says what to do about each), so
//! that alerting can be set up without a capture that shows each one.

use std::io::Write;

use crate::analyse::rules;
use crate::run::anyhow_like::Result;

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Text,
    Json,
}

/// What `rules` is given: the output format.
pub struct Options {
    pub format: Format,
}

/// Writes every rule, its severities and meaning.
pub fn run(args: Options) -> Result<i32> {
    let all = rules::all();
    let mut out = std::io::stdout().lock();
    match args.format {
        Format::Text => {
            let width = all.iter().map(|r| r.id.len()).max().unwrap_or(0);
            for r in &all {
                let severities: Vec<&str> = r.severities.iter().map(|s| s.name()).collect();
                writeln!(
                    out,
                    "{:width$}  {:15}  {}",
                    r.id,
                    severities.join(","),
                    r.meaning
                )?;
            }
        }
        Format::Json => {
            let v: Vec<serde_json::Value> = all
                .iter()
                .map(|r| {
                    serde_json::json!({
                        "rule": r.id,
                        "severities": r.severities.iter().map(|s| s.name()).collect::<Vec<_>>(),
                        "meaning": r.meaning,
                    })
                })
                .collect();
            writeln!(out, "{}", serde_json::Value::Array(v))?;
        }
    }
    Ok(crate::run::exit::OK)
}
