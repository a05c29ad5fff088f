//! `poolshark read` (to be written).

use super::anyhow_like::Result;

#[derive(clap::Args, Debug)]
pub struct ReadArgs {}

pub fn run(_args: ReadArgs) -> Result<i32> {
    Err("not yet implemented".into())
}
