//! The sweep CSV of `gpusim sweep` (docs/sweep.md), read by header name:
//! `run`, `kernel`, `config`, a `set:KEY` column per varied `--set`, an
//! `arg:KEY` column per `--arg`, `sched`, `status`, `error`, then the
//! flattened statistics (`cycles`, `ipc`, `stalls.data`, …).

use super::{PlotError, file_stem};

/// A sweep CSV in memory: its header and rows, each row's fields in
/// header order.
#[derive(Clone, Debug, PartialEq)]
pub struct SweepTable {
    /// The file the table came from (for messages).
    pub source: String,
    /// Column names, in file order.
    pub header: Vec<String>,
    /// The rows, in file order.
    pub rows: Vec<SweepRow>,
}

/// One row (one run) of a sweep CSV.
#[derive(Clone, Debug, PartialEq)]
pub struct SweepRow {
    /// 1-based line of the row in the file.
    pub line: u64,
    /// The fields, in header order (missing trailing fields are empty).
    pub fields: Vec<String>,
}

impl SweepTable {
    /// Parses CSV `text` read from `source`. Every row must have as many
    /// fields as the header.
    pub fn parse(source: &str, text: &str) -> Result<SweepTable, PlotError> {
        let mut reader = csv::ReaderBuilder::new()
            .has_headers(true)
            .flexible(false)
            .from_reader(text.as_bytes());
        let header: Vec<String> = reader
            .headers()
            .map_err(|e| PlotError(format!("{source}: cannot read the CSV header: {e}")))?
            .iter()
            .map(str::to_string)
            .collect();
        if header.iter().all(|h| h.is_empty()) {
            return Err(PlotError(format!("{source}: empty file (no CSV header)")));
        }
        let mut rows = Vec::new();
        for record in reader.records() {
            let record = record.map_err(|e| PlotError(format!("{source}: {e}")))?;
            let line = record.position().map_or(0, |p| p.line());
            rows.push(SweepRow {
                line,
                fields: record.iter().map(str::to_string).collect(),
            });
        }
        Ok(SweepTable {
            source: source.to_string(),
            header,
            rows,
        })
    }

    /// The index of column `name`, if the header has it.
    pub fn column(&self, name: &str) -> Option<usize> {
        self.header.iter().position(|h| h == name)
    }

    /// The index of column `name`, or an error naming the file, the
    /// column and the columns the file does have.
    pub fn require(&self, name: &str) -> Result<usize, PlotError> {
        self.column(name).ok_or_else(|| {
            PlotError(format!(
                "{}: no column `{name}` (a `gpusim sweep` CSV has it; this header has: {})",
                self.source,
                self.header.join(", ")
            ))
        })
    }

    /// The columns that say which run a row is: every column before
    /// `status` except `run` (`kernel`, `config`, each `set:KEY` and
    /// `arg:KEY`, `sched`, and any other varied policy column), in file
    /// order. (The statistics after `status` repeat `sched`; that copy is
    /// not a parameter.)
    pub fn parameter_columns(&self) -> Vec<usize> {
        let end = self.column("status").unwrap_or(self.header.len());
        (0..end).filter(|&i| self.header[i] != "run").collect()
    }

    /// Whether column `col` holds more than one distinct value.
    pub fn varies(&self, col: usize) -> bool {
        let mut values = self.rows.iter().map(|r| r.fields[col].as_str());
        match values.next() {
            Some(first) => values.any(|v| v != first),
            None => false,
        }
    }

    /// How `row`'s value in parameter column `col` is shown: a kernel by
    /// its file stem, `set:KEY` / `arg:KEY` as `KEY=VALUE`, `config` and
    /// `sched` as they are, any other column as `NAME=VALUE`.
    pub fn parameter_label(&self, row: &SweepRow, col: usize) -> String {
        let name = self.header[col].as_str();
        let value = row.fields[col].as_str();
        if name == "kernel" {
            file_stem(value).to_string()
        } else if let Some(key) = name.strip_prefix("set:").or(name.strip_prefix("arg:")) {
            format!("{key}={value}")
        } else if matches!(name, "config" | "sched") {
            value.to_string()
        } else {
            format!("{name}={value}")
        }
    }

    /// `row`'s field in column `col` (empty when out of range).
    pub fn field<'a>(&self, row: &'a SweepRow, col: usize) -> &'a str {
        row.fields.get(col).map_or("", String::as_str)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CSV: &str = "run,kernel,config,set:l1d.sets,sched,status,error,sched,cycles,ipc\n\
        0,kernels/saxpy.ptx,gtx480,32,gto,ok,,gto,100,2.5\n\
        1,kernels/saxpy.ptx,gtx480,64,gto,error,\"bad, value\",,,\n";

    #[test]
    fn parses_header_and_rows() {
        let t = SweepTable::parse("r.csv", CSV).unwrap();
        assert_eq!(t.header.len(), 10);
        assert_eq!(t.rows.len(), 2);
        assert_eq!(t.rows[1].fields[6], "bad, value");
        assert_eq!(t.rows[0].line, 2);
        assert_eq!(t.column("ipc"), Some(9));
        assert_eq!(t.column("sched"), Some(4));
        assert_eq!(t.parameter_columns(), vec![1, 2, 3, 4]);
        assert!(t.varies(3));
        assert!(!t.varies(1));
        assert_eq!(t.parameter_label(&t.rows[0], 1), "saxpy");
        assert_eq!(t.parameter_label(&t.rows[1], 3), "l1d.sets=64");
    }

    #[test]
    fn missing_column_names_file_and_column() {
        let t = SweepTable::parse("r.csv", CSV).unwrap();
        let e = t.require("dram.bytes").unwrap_err().0;
        assert!(e.starts_with("r.csv: no column `dram.bytes`"), "{e}");
    }

    #[test]
    fn ragged_row_is_an_error_with_the_file() {
        let e = SweepTable::parse("r.csv", "a,b\n1,2,3\n").unwrap_err().0;
        assert!(e.starts_with("r.csv: "), "{e}");
    }
}
