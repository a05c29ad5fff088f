//! The committed captures under `fixtures/`: each is rebuilt from its builder
//! (`poolshark::generate::fixtures`) and must be byte for byte the committed file, and
//! `poolshark read --format jsonl` must decode it as its entry says (no decode error unless it is
//! malformed on purpose, every expected message type, parameter and option present).
//!
//! After an intended change to a builder (or to an emitter), rewrite the files with
//!
//! ```text
//! POOLSHARK_REGENERATE_FIXTURES=1 cargo test --test fixtures
//! ```
//!
//! and review the difference with `poolshark read` before committing them.

use crate::common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use poolshark::generate::fixtures::{self, Fixture, ALL};

const REGENERATE: &str = "POOLSHARK_REGENERATE_FIXTURES";

fn read_jsonl(path: &Path, args: &[&str]) -> Vec<serde_json::Value> {
    let out = common::poolshark()
        .args(["read", "--format", "jsonl"])
        .args(args)
        .arg(path)
        .output()
        .expect("poolshark runs");
    assert!(
        out.status.success(),
        "poolshark read {} failed: {}",
        path.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("each line is JSON"))
        .collect()
}

/// Every integer value each field takes anywhere in the records.
fn values(records: &[serde_json::Value]) -> BTreeMap<String, BTreeSet<u64>> {
    let mut out: BTreeMap<String, BTreeSet<u64>> = BTreeMap::new();
    for r in records {
        let Some(fields) = r["fields"].as_object() else {
            continue;
        };
        for (name, v) in fields {
            let set = out.entry(name.clone()).or_default();
            match v {
                serde_json::Value::Array(a) => set.extend(a.iter().filter_map(|x| x.as_u64())),
                other => set.extend(other.as_u64()),
            }
        }
    }
    out
}

fn check(f: &Fixture) {
    let built = (f.build)();
    let path = common::fixture(f.name);
    if std::env::var_os(REGENERATE).is_some() {
        std::fs::create_dir_all(path.parent().expect("fixtures/")).expect("mkdir fixtures");
        std::fs::write(&path, &built.bytes).expect("write fixture");
    }
    let committed = std::fs::read(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e}; build it with {REGENERATE}=1 cargo test --test fixtures",
            path.display()
        )
    });
    assert!(
        committed == built.bytes,
        "fixtures/{} ({} bytes) is not what its builder makes now ({} bytes); if the change is \
         intended, rewrite it with {REGENERATE}=1 cargo test --test fixtures",
        f.name,
        committed.len(),
        built.bytes.len()
    );

    let records = read_jsonl(&path, f.read_args);
    let with_errors: BTreeSet<u64> = records
        .iter()
        .filter(|r| r["errors"].as_array().is_some_and(|e| !e.is_empty()))
        .filter_map(|r| r["frame"].as_u64())
        .collect();
    if f.malformed {
        let expected: BTreeSet<u64> = fixtures::malformed::BROKEN_FRAMES.into_iter().collect();
        assert_eq!(
            with_errors, expected,
            "{}: decode errors on these frames, and only these",
            f.name
        );
    } else {
        let errors: Vec<String> = records
            .iter()
            .filter(|r| r["errors"].as_array().is_some_and(|e| !e.is_empty()))
            .map(|r| format!("frame {}: {}", r["frame"], r["errors"]))
            .collect();
        assert!(
            errors.is_empty(),
            "{}: decode errors\n{}",
            f.name,
            errors.join("\n")
        );
    }
    let seen = values(&records);
    for e in (f.expect)() {
        let got = seen.get(e.field).cloned().unwrap_or_default();
        let missing: Vec<u64> = e
            .values
            .iter()
            .copied()
            .filter(|v| !got.contains(v))
            .collect();
        assert!(
            missing.is_empty(),
            "{}: {} never takes the values {missing:?} (it takes {got:?})",
            f.name,
            e.field
        );
    }
}

#[test]
fn fixtures_are_reproducible_and_decode_as_listed() {
    for f in ALL {
        check(f);
    }
}

#[test]
fn every_capture_in_fixtures_is_listed() {
    let listed: BTreeSet<&str> = ALL.iter().map(|f| f.name).collect();
    let dir = common::fixture("");
    for entry in std::fs::read_dir(&dir).expect("fixtures/") {
        let name = entry
            .expect("entry")
            .file_name()
            .to_string_lossy()
            .to_string();
        if name.ends_with(".pcap") || name.ends_with(".pcapng") {
            assert!(
                listed.contains(name.as_str()),
                "fixtures/{name} has no builder in generate::fixtures::ALL"
            );
        }
    }
    let total: u64 = ALL
        .iter()
        .map(|f| std::fs::metadata(common::fixture(f.name)).map_or(0, |m| m.len()))
        .sum();
    assert!(
        total < 200_000,
        "fixtures take {total} bytes: keep them small"
    );
}

/// The README beside the fixtures names every fixture and, for the demo, every planted frame
/// with the finding it should give (what the quick start tells users to expect).
#[test]
fn the_fixture_readme_names_every_fixture_and_planted_frame() {
    let readme = std::fs::read_to_string(common::fixture("README.md")).expect("fixtures/README.md");
    for f in ALL {
        assert!(
            readme.contains(f.name),
            "fixtures/README.md does not mention {}",
            f.name
        );
        for p in (f.build)().planted {
            let line = format!("| {} | {} |", p.frame, p.rule);
            assert!(
                readme.contains(&line),
                "fixtures/README.md does not list {}'s planted frame as `{line}`",
                f.name
            );
        }
    }
}

/// A merge once left its conflict markers in the README's command table: no document may carry
/// them.
#[test]
fn documents_have_no_merge_conflict_markers() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut docs: Vec<String> = ["README.md", "FUZZING.md", "fixtures/README.md"]
        .map(String::from)
        .to_vec();
    docs.extend(markdown_in(&root.join("docs")));
    for doc in &docs {
        let text = std::fs::read_to_string(root.join(doc)).unwrap_or_else(|e| panic!("{doc}: {e}"));
        for (i, line) in text.lines().enumerate() {
            let marker =
                ["<<<<<<< ", ">>>>>>> "].iter().any(|m| line.starts_with(m)) || line == "=======";
            assert!(!marker, "{doc}:{}: a merge conflict marker: {line}", i + 1);
        }
    }
}

/// The Markdown files under `dir`, as paths relative to the project's root.
fn markdown_in(dir: &std::path::Path) -> Vec<String> {
    let mut out: Vec<String> = std::fs::read_dir(dir)
        .expect("docs/")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .map(|p| format!("docs/{}", common::file_name(&p)))
        .collect();
    out.sort();
    out
}

/// The README is a front page (under 15 KB) that leads to docs/; every relative link of the
/// README and of docs/ names a file that exists, and every page of docs/ is linked from the
/// README or from docs/README.md.
#[test]
fn documents_link_to_files_that_exist() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).expect("README.md");
    assert!(
        readme.len() < 15 * 1024,
        "README.md is {} bytes",
        readme.len()
    );
    let docs = markdown_in(&root.join("docs"));
    assert!(docs.len() >= 10, "{docs:?}");
    let mut linked = std::collections::BTreeSet::new();
    for doc in std::iter::once("README.md".to_string()).chain(docs.iter().cloned()) {
        let path = root.join(&doc);
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{doc}: {e}"));
        let base = path.parent().expect("parent");
        // Markdown links and images: `](target)`.
        for (i, _) in text.match_indices("](") {
            let rest = &text[i + 2..];
            let Some(end) = rest.find(')') else { continue };
            let target = rest[..end].split('#').next().unwrap_or_default();
            if target.is_empty() || target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            let to = base.join(target);
            assert!(to.exists(), "{doc}: the link to {target} names no file");
            if let Ok(rel) = to
                .canonicalize()
                .expect("canonical")
                .strip_prefix(root.canonicalize().expect("root"))
            {
                linked.insert(rel.to_string_lossy().into_owned());
            }
        }
    }
    for doc in &docs {
        if doc != "docs/README.md" {
            assert!(linked.contains(doc), "{doc} is linked from nowhere");
        }
    }
}

/// Every rule id the analysers can report (`poolshark rules`) has its section in
/// docs/findings.md, with an example, what to do and the severities it can carry; every section
/// there names a rule the code has; and no rule id is written in src/analyse outside the
/// analysers' rule enums (a string literal `"rserpool.*"`, `"dhcp.lb.*"`, `"failover.*"` or
/// `"config.*"` that is not a declared id).
#[test]
fn every_finding_rule_is_documented() {
    // The rules as the analysers declare them (each analyser's `rules.rs`), and the sections of
    // docs/findings.md: every rule has a section, every section's rules exist, and the
    // severities a heading lists are those its rules can carry.
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let rules = crate::rules_cli::listed();
    assert!(rules.len() >= 30, "{rules:?}");
    let doc = std::fs::read_to_string(root.join("docs/findings.md")).expect("docs/findings.md");
    let sections: Vec<&str> = doc.split("\n#### ").skip(1).collect();
    let mut documented = std::collections::BTreeSet::new();
    for s in &sections {
        let heading = s.lines().next().unwrap_or_default();
        assert!(s.contains("What to do:"), "{heading}: no 'What to do'");
        assert!(
            s.contains("Example") || s.contains("`frame "),
            "{heading}: no example"
        );
        let ids: Vec<&str> = heading.split('`').skip(1).step_by(2).collect();
        let mut in_code = std::collections::BTreeSet::new();
        for id in &ids {
            documented.insert(id.to_string());
            if let Some((_, severities)) = rules.iter().find(|(r, _)| r == id) {
                in_code.extend(severities.iter().map(String::as_str));
            }
        }
        // "(warning)", "(error, warning)", "(warning; error when ...)": the severity words.
        let listed: std::collections::BTreeSet<&str> = heading
            .rsplit_once('(')
            .map(|(_, s)| s)
            .unwrap_or_default()
            .split(|c: char| !c.is_ascii_alphabetic())
            .filter(|w| ["info", "warning", "error"].contains(w))
            .collect();
        assert_eq!(listed, in_code, "{heading}: severities in the code");
    }
    let in_code: std::collections::BTreeSet<String> =
        rules.iter().map(|(r, _)| r.clone()).collect();
    let mut stack = vec![root.join("src/analyse")];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).expect("src/analyse") {
            let p = e.expect("entry").path();
            if p.is_dir() {
                stack.push(p);
                continue;
            }
            let text = std::fs::read_to_string(&p).expect("source");
            for part in text.split('"').skip(1).step_by(2) {
                let family = ["rserpool.", "dhcp.lb.", "failover.", "config."]
                    .iter()
                    .any(|f| part.starts_with(f));
                let shape = part
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c == '.' || c == '-');
                if family && shape && part.matches('.').count() <= 2 && !part.ends_with('.') {
                    assert!(
                        in_code.contains(part),
                        "{}: rule id {part} is not declared in a rules enum",
                        p.display()
                    );
                }
            }
        }
    }
    let missing: Vec<_> = in_code.difference(&documented).collect();
    assert!(
        missing.is_empty(),
        "rules without a section in docs/findings.md: {missing:?}"
    );
    let unknown: Vec<_> = documented.difference(&in_code).collect();
    assert!(
        unknown.is_empty(),
        "sections for rules the code does not have: {unknown:?}"
    );
}
