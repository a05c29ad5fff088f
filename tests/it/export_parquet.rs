//! `export --parquet`: three shared captures exported in one run (two at once), read back with
//! DuckDB (an independent Parquet reader, through Python) and with the `parquet` crate's Arrow
//! reader, give the counts `check --format json` gives of the same captures: findings by rule,
//! balanced answers per DHCP server, resolutions per RSerPool pool, messages. The README's DuckDB
//! example (which server answered outside its buckets, per day) is run as written, and its answer
//! on the Kea capture checked against what that capture's README says happened.
//!
//! DuckDB comes from PyPI (`pip install duckdb`); without python3 or the package the DuckDB
//! checks skip, saying so, and `POOLSHARK_REQUIRE_DUCKDB=1` (which `.ci/run` sets) turns the skip
//! into a failure.

use crate::common::{self, poolshark};

use std::collections::BTreeMap;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::Command;

use arrow_array::{Array, RecordBatch, StringArray, UInt64Array};
use arrow_schema::{DataType, TimeUnit};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use serde_json::{json, Value};

const CAPTURES: [&str; 3] = [
    "dhcp-failover/isc-dhcpd-4.4.3-failover.pcap",
    "dhcp-kea/kea-2.2-ha-load-balancing-v6.pcap",
    "rserpool/rsplib-multi-pe.pcap",
];

/// The example of docs/parquet.md, `DIR` replaced by the export's directory.
const OUTSIDE_BUCKETS: &str = "SET TimeZone = 'UTC';
SELECT CAST(date_trunc('day', time) AS DATE) AS day, other AS server,
       count(*) AS answers, min(time) AS first, max(time) AS last
FROM read_parquet('DIR/dhcp_transactions/*.parquet')
WHERE other_answer_frame IS NOT NULL
GROUP BY ALL ORDER BY ALL;";

/// Runs `query` (statements; the last one's rows are printed) with DuckDB: the rows as JSON
/// arrays of strings, or `None` (skipped) without python3 and duckdb.
fn duckdb(query: &str) -> Option<Vec<Vec<String>>> {
    const SCRIPT: &str = "import duckdb, json, sys\n\
        c = duckdb.connect()\n\
        stmts = [s for s in sys.argv[1].split(';') if s.strip()]\n\
        for s in stmts[:-1]: c.execute(s)\n\
        rows = c.execute(stmts[-1]).fetchall()\n\
        print(json.dumps([[str(v) for v in r] for r in rows]))\n";
    let o = Command::new("python3").args(["-c", SCRIPT, query]).output();
    match o {
        Ok(o) if o.status.success() => Some(serde_json::from_slice(&o.stdout).unwrap()),
        other => {
            let why = match &other {
                Ok(o) => String::from_utf8_lossy(&o.stderr).into_owned(),
                Err(e) => e.to_string(),
            };
            // A query of ours that DuckDB refuses is a failure, not a skip.
            assert!(
                !why.contains("Error:") || why.contains("ModuleNotFoundError"),
                "duckdb: {why}"
            );
            if std::env::var_os("POOLSHARK_REQUIRE_DUCKDB").is_some() {
                panic!("POOLSHARK_REQUIRE_DUCKDB is set but python3 with duckdb cannot run: {why}");
            }
            poolshark::test_support::skip(format_args!(
                "python3 with the duckdb package is not available (pip install duckdb): {why}"
            ));
            None
        }
    }
}

/// `SELECT a, b, n ...` rows into `{(a, b): n}`.
fn counts(rows: &[Vec<String>]) -> BTreeMap<(String, String), u64> {
    rows.iter()
        .map(|r| ((r[0].clone(), r[1].clone()), r[2].parse().unwrap()))
        .collect()
}

/// What check --format json says of each file, as the same keys.
struct Expected {
    findings: BTreeMap<(String, String), u64>,
    answers: BTreeMap<(String, String), u64>,
    resolutions: BTreeMap<(String, String), u64>,
    messages: BTreeMap<(String, String), u64>,
}

fn expected(files: &[PathBuf]) -> Expected {
    let o = poolshark()
        .args(["check", "--no-progress", "--format", "json"])
        .args(files)
        .output()
        .unwrap();
    let mut reports: Value = serde_json::from_slice(&o.stdout).unwrap();
    // One file: its report alone, without its name.
    if let (Value::Object(r), [file]) = (&mut reports, files) {
        r.insert("file".into(), file.to_str().unwrap().into());
        reports = json!([reports]);
    }
    let mut e = Expected {
        findings: BTreeMap::new(),
        answers: BTreeMap::new(),
        resolutions: BTreeMap::new(),
        messages: BTreeMap::new(),
    };
    for r in reports.as_array().unwrap() {
        let file = r["file"].as_str().unwrap().to_string();
        for (rule, n) in r["summary"]["by_rule"].as_object().unwrap() {
            e.findings
                .insert((file.clone(), rule.clone()), n.as_u64().unwrap());
        }
        for s in r["servers"].as_array().into_iter().flatten() {
            let n = s["balanced_answers"].as_u64().unwrap_or(0);
            if n > 0 {
                e.answers
                    .insert((file.clone(), s["server"].as_str().unwrap().into()), n);
            }
        }
        for p in r["pools"].as_array().into_iter().flatten() {
            let n = p["resolutions"].as_u64().unwrap();
            if n > 0 {
                *e.resolutions
                    .entry((file.clone(), p["handle"].as_str().unwrap().into()))
                    .or_default() += n;
            }
        }
        e.messages.insert(
            (file.clone(), String::new()),
            r["summary"]["messages"].as_u64().unwrap(),
        );
    }
    e
}

fn export(files: &[PathBuf], dir: &Path) {
    let o = poolshark()
        .args(["export", "--no-progress", "--jobs", "2", "--parquet"])
        .arg(dir)
        .args(files)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// Every record batch of a table's file for `capture`.
fn batches(dir: &Path, table: &str, capture: &Path) -> Vec<RecordBatch> {
    let name = format!("{}.parquet", common::file_name(capture));
    let f = File::open(dir.join(table).join(name)).unwrap();
    ParquetRecordBatchReaderBuilder::try_new(f)
        .unwrap()
        .build()
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

fn column<'a, T: 'static>(b: &'a RecordBatch, name: &str) -> &'a T {
    b.column_by_name(name)
        .unwrap_or_else(|| panic!("no column {name}"))
        .as_any()
        .downcast_ref::<T>()
        .unwrap_or_else(|| {
            panic!(
                "{name}: {:?}",
                b.column_by_name(name).map(|c| c.data_type().clone())
            )
        })
}

#[test]
fn exported_tables_count_what_check_counts() {
    let mut files = Vec::new();
    for rel in CAPTURES {
        let Some(c) = common::shared_capture(rel) else {
            return;
        };
        files.push(c);
    }
    let dir = std::env::temp_dir().join(format!("poolshark-export-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    export(&files, &dir);
    let want = expected(&files);

    // The parquet crate's reader: typed columns, and the findings by rule.
    let mut findings = BTreeMap::new();
    let mut messages = BTreeMap::new();
    for f in &files {
        for b in batches(&dir, "findings", f) {
            let (file, rule, count) = (
                column::<StringArray>(&b, "file"),
                column::<StringArray>(&b, "rule"),
                column::<UInt64Array>(&b, "count"),
            );
            for i in 0..b.num_rows() {
                *findings
                    .entry((file.value(i).to_string(), rule.value(i).to_string()))
                    .or_insert(0) += count.value(i);
            }
        }
        let m = batches(&dir, "messages", f);
        let schema = m[0].schema();
        assert_eq!(
            schema.field_with_name("time").unwrap().data_type(),
            &DataType::Timestamp(TimeUnit::Nanosecond, Some("UTC".into()))
        );
        assert_eq!(
            schema.field_with_name("frame").unwrap().data_type(),
            &DataType::UInt64
        );
        messages.insert(
            (f.to_str().unwrap().to_string(), String::new()),
            m.iter().map(|b| b.num_rows() as u64).sum::<u64>(),
        );
    }
    assert_eq!(findings, want.findings);
    assert_eq!(messages, want.messages);

    // DuckDB over each table's whole directory: one dataset of the three captures.
    let table = |t: &str| format!("read_parquet('{}/{t}/*.parquet')", dir.display());
    let Some(rows) = duckdb(&format!(
        "SELECT file, rule, sum(count) FROM {} GROUP BY ALL",
        table("findings")
    )) else {
        let _ = std::fs::remove_dir_all(&dir);
        return;
    };
    assert_eq!(counts(&rows), want.findings);
    let rows = duckdb(&format!(
        "SELECT file, server, count(*) FROM (
           SELECT file, owner AS server FROM {t} WHERE owner_answer_frame IS NOT NULL
           UNION ALL
           SELECT file, other FROM {t} WHERE other_answer_frame IS NOT NULL)
         GROUP BY ALL",
        t = table("dhcp_transactions")
    ))
    .unwrap();
    assert_eq!(counts(&rows), want.answers);
    let rows = duckdb(&format!(
        "SELECT file, pool, count(*) FROM {} GROUP BY ALL",
        table("rserpool_resolutions")
    ))
    .unwrap();
    assert_eq!(counts(&rows), want.resolutions);
    let rows = duckdb(&format!(
        "SELECT file, '', count(*) FROM {} GROUP BY ALL",
        table("messages")
    ))
    .unwrap();
    assert_eq!(counts(&rows), want.messages);
    // The windows table has the series stats shows: some per capture.
    let rows = duckdb(&format!(
        "SELECT file, subject_kind, count(*) FROM {} GROUP BY ALL",
        table("windows")
    ))
    .unwrap();
    for f in &files {
        assert!(rows.iter().any(|r| r[0] == f.to_str().unwrap()), "{rows:?}");
    }

    // The documented example is this query, word for word.
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/parquet.md"))
        .expect("docs/parquet.md");
    assert!(
        doc.contains(OUTSIDE_BUCKETS),
        "docs/parquet.md gives another query"
    );
    // The example. On the Kea capture, per its README: the servers answered only their
    // own buckets while load-balancing; server1 answered server2's clients from partner-down
    // (04:08:23.775) until both were load-balancing again (04:08:50.39), all on 2026-11-30.
    let kea = files[1].to_str().unwrap();
    let query = OUTSIDE_BUCKETS
        .replace("DIR", &dir.display().to_string())
        .replace(
            "WHERE other_answer_frame IS NOT NULL",
            &format!("WHERE other_answer_frame IS NOT NULL AND file = '{kea}'"),
        );
    let rows = duckdb(&query).unwrap();
    assert_eq!(rows.len(), 1, "{rows:?}");
    let r = &rows[0];
    assert_eq!(
        json!([r[0], r[1]]),
        json!(["2026-11-30", "00:03:00:01:02:00:00:00:01:01"])
    );
    assert!(r[2].parse::<u64>().unwrap() > 0);
    assert!(
        r[3].as_str() >= "2026-11-30 04:08:23.775" && r[4].as_str() <= "2026-11-30 04:08:51",
        "{r:?}"
    );
    // And as written (all three captures), it runs.
    duckdb(&OUTSIDE_BUCKETS.replace("DIR", &dir.display().to_string())).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn two_captures_with_one_name_are_refused_before_anything_is_written() {
    let Some(c) = common::shared_capture(CAPTURES[2]) else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("poolshark-export-same-{}", std::process::id()));
    let o = poolshark()
        .args(["export", "--no-progress", "--parquet"])
        .arg(&dir)
        .arg(&c)
        .arg(&c)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("the same file name"), "{err}");
    assert!(!dir.exists());
}

/// One capture alone gets two threads, and its analysers run in check's two parts (RSerPool's,
/// the DHCP family's), each making its own rows: on a generated capture of every protocol, the
/// tables still count what `check --format json` counts (findings by rule, balanced answers per
/// server, resolutions per pool, messages), and hold the same rows as the export on one thread
/// (DuckDB, `EXCEPT ALL` both ways, every table).
#[test]
fn one_capture_on_two_threads_counts_what_check_counts() {
    let base = std::env::temp_dir().join(format!("poolshark-export-parts-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&base);
    std::fs::create_dir_all(&base).unwrap();
    let capture = base.join("mixed.pcap");
    let o = poolshark()
        .args(["generate", "--frames", "40000", "--seed", "7", "--out"])
        .arg(&capture)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let files = vec![capture.clone()];
    let (two, one) = (base.join("two"), base.join("one"));
    export(&files, &two);
    let o = poolshark()
        .args(["export", "--no-progress", "--jobs", "1", "--parquet"])
        .arg(&one)
        .arg(&capture)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let want = expected(&files);
    assert!(
        !want.answers.is_empty() && !want.resolutions.is_empty(),
        "the capture has DHCP and RSerPool"
    );

    // The parquet crate's reader: findings by rule and messages.
    let mut findings = BTreeMap::new();
    for b in batches(&two, "findings", &capture) {
        let (file, rule, count) = (
            column::<StringArray>(&b, "file"),
            column::<StringArray>(&b, "rule"),
            column::<UInt64Array>(&b, "count"),
        );
        for i in 0..b.num_rows() {
            *findings
                .entry((file.value(i).to_string(), rule.value(i).to_string()))
                .or_insert(0) += count.value(i);
        }
    }
    assert_eq!(findings, want.findings);
    let messages: u64 = batches(&two, "messages", &capture)
        .iter()
        .map(|b| b.num_rows() as u64)
        .sum();
    let key = (capture.to_str().unwrap().to_string(), String::new());
    assert_eq!(Some(&messages), want.messages.get(&key));

    // DuckDB: answers per server, resolutions per pool; then every table against one thread's.
    let table = |dir: &Path, t: &str| format!("read_parquet('{}/{t}/*.parquet')", dir.display());
    let Some(rows) = duckdb(&format!(
        "SELECT file, server, count(*) FROM (
           SELECT file, owner AS server FROM {t} WHERE owner_answer_frame IS NOT NULL
           UNION ALL
           SELECT file, other FROM {t} WHERE other_answer_frame IS NOT NULL)
         GROUP BY ALL",
        t = table(&two, "dhcp_transactions")
    )) else {
        let _ = std::fs::remove_dir_all(&base);
        return;
    };
    assert_eq!(counts(&rows), want.answers);
    let rows = duckdb(&format!(
        "SELECT file, pool, count(*) FROM {} GROUP BY ALL",
        table(&two, "rserpool_resolutions")
    ))
    .unwrap();
    assert_eq!(counts(&rows), want.resolutions);
    for t in parquet_tables() {
        let (a, b) = (table(&two, t), table(&one, t));
        let rows = duckdb(&format!(
            "SELECT (SELECT count(*) FROM {a}), (SELECT count(*) FROM {b}),
                    (SELECT count(*) FROM (SELECT * FROM {a} EXCEPT ALL SELECT * FROM {b})),
                    (SELECT count(*) FROM (SELECT * FROM {b} EXCEPT ALL SELECT * FROM {a}))"
        ))
        .unwrap();
        let r = &rows[0];
        assert_eq!(r[0], r[1], "{t}: rows on two threads and on one");
        assert_eq!([r[2].as_str(), r[3].as_str()], ["0", "0"], "{t}: {r:?}");
    }
    let _ = std::fs::remove_dir_all(&base);
}

fn parquet_tables() -> [&'static str; 5] {
    poolshark::output::parquet::TABLES
}
