//! `read -T fields` reads some fields straight from the parsed message rather than from its
//! display tree (`Message::quick_fields`): for every message of the fixtures, the shared
//! captures and a generated capture, and every catalogued field name, what it answers is what
//! the tree holds (the occurrences, in order, with their values and bases), or it answers that
//! it cannot tell. The tree is the oracle here (it is held against tshark elsewhere:
//! fields_vs_tshark, verbose_vs_tshark).

use crate::common;

use poolshark::field::catalogue;
use poolshark::field::Field;
use poolshark::pipeline::{Decoded, Options, Pipeline, Sink};
use poolshark::source::file::FileSource;

#[derive(Default)]
struct Compare {
    messages: u64,
    /// Answers given without the tree, and of those, the ones with occurrences.
    answered: u64,
    found: u64,
    wrong: Vec<String>,
}

fn occurrences<'a>(fields: &'a [Field], name: &str, out: &mut Vec<&'a Field>) {
    for f in fields {
        f.walk(&mut |x| {
            if x.name == name {
                out.push(x);
            }
        });
    }
}

impl Sink for Compare {
    fn message(&mut self, d: &Decoded<'_>) {
        self.messages += 1;
        let tree = d.message.fields();
        let mut quick = Vec::new();
        for name in catalogue::FIELDS {
            quick.clear();
            if !d.message.quick_fields(name, &mut quick) {
                assert!(
                    quick.is_empty(),
                    "{name}: pushed, then said it could not tell"
                );
                continue;
            }
            self.answered += 1;
            self.found += u64::from(!quick.is_empty());
            let mut want = Vec::new();
            occurrences(&tree, name, &mut want);
            let got: Vec<_> = quick.iter().map(|f| (f.name, &f.value, f.base)).collect();
            let want: Vec<_> = want.iter().map(|f| (f.name, &f.value, f.base)).collect();
            if got != want && self.wrong.len() < 20 {
                self.wrong.push(format!(
                    "frame {} ({:?}) {name}: quick {got:?}, tree {want:?}",
                    d.frame.number, d.protocol
                ));
            }
        }
    }
}

fn compare(capture: &std::path::Path, into: &mut Compare) {
    let Ok(mut source) = FileSource::open(capture) else {
        return;
    };
    let mut p = Pipeline::new(Options::default());
    let _ = p.run(&mut source, into);
}

#[test]
fn fields_read_from_the_message_are_the_trees() {
    let mut caps = common::captures_under(&common::fixture(""));
    if let Some(shared) = common::shared_dir() {
        for dir in ["dhcp", "dhcp-kea", "dhcp-failover", "rserpool", "external"] {
            caps.extend(common::captures_under(&shared.join("captures").join(dir)));
        }
    }
    let generated = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("quick-fields-{}.pcap", std::process::id()));
    let out = common::poolshark()
        .args(["generate", "--frames", "20000", "--seed", "7", "--out"])
        .arg(&generated)
        .output()
        .expect("generate");
    assert!(out.status.success(), "{out:?}");
    caps.push(generated.clone());
    let mut c = Compare::default();
    for cap in &caps {
        compare(cap, &mut c);
    }
    let _ = std::fs::remove_file(&generated);
    assert!(c.wrong.is_empty(), "{}", c.wrong.join("\n"));
    eprintln!(
        "{} captures, {} messages: {} answers without the tree, {} with occurrences",
        caps.len(),
        c.messages,
        c.answered,
        c.found
    );
    // Every protocol's type and transaction id are among them (the generated capture has all).
    assert!(c.messages > 20_000, "{}", c.messages);
    assert!(c.found > 40_000, "{}", c.found);
}
