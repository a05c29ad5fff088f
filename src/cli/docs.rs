//! `poolshark completions SHELL` and `poolshark man DIR`: the shell completion script and the man
//! pages, both generated from the clap definitions that parse the command line.

use crate::run::anyhow_like::Error;
use crate::run::exit;
use clap::{Args, CommandFactory};
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct CompletionsArgs {
    /// The shell to complete for; the script goes to standard output. bash:
    /// `poolshark completions bash > ~/.local/share/bash-completion/completions/poolshark`;
    /// zsh: into a directory of `$fpath` as `_poolshark`; fish:
    /// `~/.config/fish/completions/poolshark.fish`.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

#[derive(Args, Debug)]
pub struct ManArgs {
    /// Directory to write the pages into (created if missing): poolshark.1 and one
    /// poolshark-COMMAND.1 per command. Install with, e.g., `poolshark man
    /// ~/.local/share/man/man1`.
    pub dir: PathBuf,
}

pub fn completions(a: CompletionsArgs) -> Result<i32, Error> {
    let mut cmd = super::Cli::command();
    let mut out = std::io::stdout().lock();
    clap_complete::generate(a.shell, &mut cmd, "poolshark", &mut out);
    Ok(exit::OK)
}

pub fn man(a: ManArgs) -> Result<i32, Error> {
    std::fs::create_dir_all(&a.dir).map_err(|e| {
        Error::msg(format!(
            "{}: cannot create the directory: {e}",
            a.dir.display()
        ))
    })?;
    let mut cmd = super::Cli::command().disable_help_subcommand(true);
    cmd.build();
    let mut written = 0usize;
    let mut pages = vec![cmd.clone()];
    pages.extend(cmd.get_subcommands().filter(|s| !s.is_hide_set()).cloned());
    for page in pages {
        let path = clap_mangen::Man::new(page)
            .generate_to(&a.dir)
            .map_err(|e| {
                Error::msg(format!("{}: cannot write a man page: {e}", a.dir.display()))
            })?;
        eprintln!("{}", path.display());
        written += 1;
    }
    eprintln!("{written} man pages in {}", a.dir.display());
    Ok(exit::OK)
}
