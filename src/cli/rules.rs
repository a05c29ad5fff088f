//! `poolshark rules [--format text|json]`: its arguments, for [`crate::run::rules`].

use crate::run::anyhow_like::Result;
use crate::run::rules::{self, Format};

#[derive(clap::Args, Debug)]
pub struct RulesArgs {
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

pub fn run(args: RulesArgs) -> Result<i32> {
    rules::run(rules::Options {
        format: args.format,
    })
}
