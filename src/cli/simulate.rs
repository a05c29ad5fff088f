//! `poolshark simulate` (to be written).

use super::anyhow_like::Result;

#[derive(clap::Args, Debug)]
pub struct SimulateArgs {}

pub fn run(_args: SimulateArgs) -> Result<i32> {
    Err("not yet implemented".into())
}
