//! `export --parquet DIR`: a capture's messages and its analysers' records as Apache Parquet
//! tables, one file per table per capture, `DIR/TABLE/NAME.parquet`, so that a directory of many
//! captures' exports is one dataset per table for DuckDB, Spark or Trino.
//!
//! The rows are written as they are made ([`table::Table`] keeps one row group in memory): the
//! messages as the pipeline decodes them, the judged DHCP transactions, checked RSerPool
//! resolutions and findings as the analysers report them (through the report's observer,
//! [`crate::analyse::observe`]), the windows of the `stats` series at the end.

pub mod table;
pub mod tables;

use std::path::{Path, PathBuf};

use crate::analyse::finding::{Finding, Severity, Subject};
use crate::analyse::observe::{DhcpTransaction, Observer, Resolution};
use crate::base::Timestamp;
use table::Table;

/// The tables, in the order their folders are listed.
pub const TABLES: [&str; 5] = [
    "messages",
    "dhcp_transactions",
    "rserpool_resolutions",
    "findings",
    "windows",
];

/// The file name of a capture's tables: the capture's own file name, `.parquet` added (`-`,
/// standard input, is `stdin.parquet`).
pub fn output_name(capture: &str) -> String {
    let name = Path::new(capture)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .filter(|n| capture != "-" && !n.is_empty())
        .unwrap_or_else(|| "stdin".into());
    format!("{name}.parquet")
}

/// `DIR/TABLE/NAME`, its folder made.
pub fn table_path(dir: &Path, table: &str, name: &str) -> std::io::Result<PathBuf> {
    let d = dir.join(table);
    std::fs::create_dir_all(&d)?;
    Ok(d.join(name))
}

/// Writes what the analysers report as it is reported: the observer of an export's report.
pub struct Recorder {
    file: String,
    dhcp: Table,
    resolutions: Table,
    findings: Table,
    /// The first write that failed: the rest are not attempted, and [`Observer::close`] says it.
    error: Option<std::io::Error>,
}

impl Recorder {
    pub fn create(dir: &Path, name: &str, file: &str) -> std::io::Result<Recorder> {
        Ok(Recorder {
            file: file.to_string(),
            dhcp: Table::create(
                &table_path(dir, "dhcp_transactions", name)?,
                tables::DHCP_TRANSACTIONS,
            )?,
            resolutions: Table::create(
                &table_path(dir, "rserpool_resolutions", name)?,
                tables::RESOLUTIONS,
            )?,
            findings: Table::create(&table_path(dir, "findings", name)?, tables::FINDINGS)?,
            error: None,
        })
    }

    /// Another front of the same tables, for the records of analysers that run on another
    /// thread ([`Table::another`]).
    pub fn another(&self) -> Recorder {
        Recorder {
            file: self.file.clone(),
            dhcp: self.dhcp.another(),
            resolutions: self.resolutions.another(),
            findings: self.findings.another(),
            error: None,
        }
    }

    fn keep(&mut self, r: std::io::Result<()>) {
        if let (Err(e), None) = (r, &self.error) {
            self.error = Some(e);
        }
    }
}

impl Observer for Recorder {
    fn finding(&mut self, f: &Finding) {
        if self.error.is_none() {
            let r = tables::finding(&mut self.findings, &self.file, f);
            self.keep(r);
        }
    }

    fn unlisted(
        &mut self,
        rule: &'static str,
        severity: Severity,
        subject: &Subject,
        time: Timestamp,
        n: u64,
    ) {
        if self.error.is_none() {
            let r = tables::unlisted(
                &mut self.findings,
                &self.file,
                (rule, severity, subject),
                time,
                n,
            );
            self.keep(r);
        }
    }

    fn dhcp_transaction(&mut self, t: &DhcpTransaction<'_>) {
        if self.error.is_none() {
            let r = tables::dhcp_transaction(&mut self.dhcp, &self.file, t);
            self.keep(r);
        }
    }

    fn resolution(&mut self, r: &Resolution<'_>) {
        if self.error.is_none() {
            let w = tables::resolution(&mut self.resolutions, &self.file, r);
            self.keep(w);
        }
    }

    fn failed(&self) -> bool {
        self.error.is_some()
    }

    fn close(self: Box<Self>) -> std::io::Result<()> {
        let me = *self;
        if let Some(e) = me.error {
            return Err(e);
        }
        me.dhcp.close()?;
        me.resolutions.close()?;
        me.findings.close()?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_are_named_after_the_capture() {
        assert_eq!(
            output_name("/data/2026-12-04/eth0.pcap"),
            "eth0.pcap.parquet"
        );
        assert_eq!(output_name("x.pcapng.gz"), "x.pcapng.gz.parquet");
        assert_eq!(output_name("-"), "stdin.parquet");
    }
}
