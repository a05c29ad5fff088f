//! Writes the seed corpora of the fuzz targets (fuzz/) from capture files: what
//! `poolshark::fuzzing::seeds` makes of each, one file per seed in `CORPUS_DIR/TARGET/`.
//!
//! `cargo run --release --example fuzz_seeds [CAPTURES_DIR] [CORPUS_DIR]`; by default the shared
//! captures beside the checkout (`../shared/captures`) and `fuzz/corpus`.

use std::io;
use std::path::PathBuf;

use poolshark::fuzzing::seeds::{capture_files, Seeds};

fn main() -> io::Result<()> {
    let here = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut args = std::env::args_os().skip(1).map(PathBuf::from);
    let from = args
        .next()
        .unwrap_or_else(|| here.join("../shared/captures"));
    let to = args.next().unwrap_or_else(|| here.join("fuzz/corpus"));
    let files = capture_files(&from)?;
    let mut seeds = Seeds::new();
    for (i, path) in files.iter().enumerate() {
        seeds.add_capture(i, path)?;
        for (target, bytes) in seeds.take() {
            let dir = to.join(target);
            std::fs::create_dir_all(&dir)?;
            std::fs::write(dir.join(Seeds::name(&bytes)), bytes)?;
        }
    }
    for (target, n) in seeds.counts() {
        println!("{target}: {n} seeds");
    }
    println!("from {} captures into {}", files.len(), to.display());
    Ok(())
}
