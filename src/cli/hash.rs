//! `poolshark hash` (to be written).

use super::anyhow_like::Result;

#[derive(clap::Args, Debug)]
pub struct HashArgs {}

pub fn run(_args: HashArgs) -> Result<i32> {
    Err("not yet implemented".into())
}
