//! `poolshark completions SHELL` and `poolshark man DIR`: generated from the clap definitions, so
//! the test holds them against what a user sees, `poolshark --help` and `poolshark CMD --help`:
//! every command there has a man page and a completion, every long option of a command's help is
//! in its page and in each shell's script. groff (where installed) renders each page without a
//! warning, and bash (and zsh, fish where installed) parse the scripts.

use crate::common;
use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::{Command, Stdio};

/// The commands `poolshark --help` lists (clap's `help` pseudo-command left out).
fn commands() -> Vec<String> {
    let out = common::poolshark()
        .arg("--help")
        .output()
        .expect("poolshark --help");
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).expect("utf-8");
    let mut in_commands = false;
    let mut cmds = Vec::new();
    for line in text.lines() {
        if line.starts_with("Commands:") {
            in_commands = true;
            continue;
        }
        if in_commands {
            if !line.starts_with("  ") {
                break;
            }
            let name = line.split_whitespace().next().unwrap_or_default();
            if !name.is_empty() && name != "help" {
                cmds.push(name.to_string());
            }
        }
    }
    assert!(cmds.len() >= 10, "too few commands in --help: {cmds:?}");
    cmds
}

/// The long options `poolshark CMD --help` lists, as `--name`.
fn long_options(cmd: &str) -> BTreeSet<String> {
    let out = common::poolshark()
        .args([cmd, "--help"])
        .output()
        .expect("--help");
    assert!(out.status.success(), "{cmd} --help");
    let text = String::from_utf8(out.stdout).expect("utf-8");
    let mut opts = BTreeSet::new();
    for line in text.lines() {
        let t = line.trim_start();
        if !t.starts_with('-') {
            continue;
        }
        // "-r, --read <FILE>" or "--no-progress": the first token that starts with "--".
        if let Some(tok) = t
            .split([' ', ','])
            .find(|w| w.starts_with("--") && w.len() > 2)
        {
            let name: String = tok
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
                .collect();
            opts.insert(name);
        }
    }
    opts
}

fn tempdir() -> PathBuf {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static N: AtomicUsize = AtomicUsize::new(0);
    let d = std::env::temp_dir().join(format!(
        "poolshark-docs-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::SeqCst)
    ));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn have(prog: &str) -> bool {
    Command::new(prog)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok()
}

#[test]
fn man_pages_cover_every_command_and_option_and_render_cleanly() {
    let dir = tempdir();
    let out = common::poolshark()
        .arg("man")
        .arg(&dir)
        .output()
        .expect("poolshark man");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let cmds = commands();
    let mut pages: BTreeSet<String> = std::fs::read_dir(&dir)
        .expect("man dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    assert!(pages.remove("poolshark.1"), "no poolshark.1 in {pages:?}");
    let want: BTreeSet<String> = cmds.iter().map(|c| format!("poolshark-{c}.1")).collect();
    assert_eq!(pages, want, "one page per command of --help");
    let groff = have("groff");
    if !groff {
        eprintln!("skipped: groff is not installed, the pages are not rendered");
    }
    for cmd in &cmds {
        let path = dir.join(format!("poolshark-{cmd}.1"));
        let page = std::fs::read_to_string(&path).expect("page");
        assert!(
            page.starts_with(".ie") || page.contains(".TH"),
            "{cmd}: no .TH"
        );
        // roff escapes '-' as "\-" and sets names in bold: undo both to find the options.
        let plain = page
            .replace("\\-", "-")
            .replace("\\fB", "")
            .replace("\\fR", "");
        for opt in long_options(cmd) {
            assert!(
                plain.contains(&opt),
                "{cmd}: {opt} is in --help, not in the man page"
            );
        }
        if groff {
            let r = Command::new("groff")
                .args(["-man", "-Tutf8", "-ww", "-z"])
                .arg(&path)
                .output()
                .expect("groff");
            let warnings = String::from_utf8_lossy(&r.stderr);
            assert!(
                r.status.success() && warnings.trim().is_empty(),
                "{cmd}: groff: {warnings}"
            );
        }
    }
    // The top page names every command.
    let top = std::fs::read_to_string(dir.join("poolshark.1")).expect("poolshark.1");
    let top = top.replace("\\-", "-");
    for cmd in &cmds {
        assert!(
            top.contains(&format!("poolshark-{cmd}(1)")) || top.contains(cmd.as_str()),
            "{cmd}"
        );
    }
    // A directory that cannot be made is an error, with exit 2.
    let file = dir.join("poolshark.1");
    let bad = common::poolshark()
        .arg("man")
        .arg(file.join("x"))
        .output()
        .expect("man");
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("cannot create"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn completion_scripts_cover_every_command_and_option_and_parse() {
    let cmds = commands();
    for (shell, checker) in [
        ("bash", Some(("bash", vec!["-n"]))),
        ("zsh", Some(("zsh", vec!["-n"]))),
        ("fish", Some(("fish", vec!["--no-execute"]))),
        ("elvish", None),
        ("powershell", None),
    ] {
        let out = common::poolshark()
            .args(["completions", shell])
            .output()
            .expect("completions");
        assert!(out.status.success(), "{shell}");
        let script = String::from_utf8(out.stdout).expect("utf-8");
        for cmd in &cmds {
            assert!(script.contains(cmd.as_str()), "{shell}: no {cmd}");
            for opt in long_options(cmd) {
                // fish writes `-l metrics-file`, the others `--metrics-file`.
                let bare = opt.trim_start_matches('-');
                assert!(
                    script.contains(&opt) || script.contains(&format!("-l {bare}")),
                    "{shell}: {cmd} {opt} is in --help, not in the script"
                );
            }
        }
        if let Some((prog, args)) = checker {
            if !have(prog) {
                eprintln!("skipped: {prog} is not installed, its script is not parsed");
                continue;
            }
            let dir = tempdir();
            std::fs::create_dir_all(&dir).expect("dir");
            let path = dir.join(format!("poolshark.{shell}"));
            std::fs::write(&path, &script).expect("write");
            let r = Command::new(prog)
                .args(&args)
                .arg(&path)
                .output()
                .expect(prog);
            assert!(
                r.status.success(),
                "{prog} does not parse the script: {}",
                String::from_utf8_lossy(&r.stderr)
            );
            let _ = std::fs::remove_dir_all(&dir);
        }
    }
    let bad = common::poolshark()
        .args(["completions", "tcsh"])
        .output()
        .expect("run");
    assert_eq!(
        bad.status.code(),
        Some(2),
        "an unknown shell is a usage error"
    );
}
