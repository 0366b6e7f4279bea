//! `gpusim merge`: joins the outputs of a sharded sweep (`--shard I/N`)
//! into the file the unsharded sweep writes. CSV shards must share their
//! header; rows are sorted by `run`. JSON-lines shards (`--jsonl`) are
//! joined the same way, by each line's `run`. A `run` present twice is an
//! error; runs missing below the largest are reported (with modulo
//! sharding a missing shard always leaves such gaps unless it had no
//! runs).

use std::collections::BTreeMap;

use crate::study::sweep::csv_writer;

/// A merged file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Merged {
    /// The merged file's bytes.
    pub bytes: Vec<u8>,
    /// Rows (runs) in it.
    pub rows: usize,
    /// Runs absent from every input, below the largest present.
    pub missing: Vec<usize>,
}

/// One input: its name (for messages) and contents.
pub type Input = (String, Vec<u8>);

/// The runs missing from `0..=max` of the sorted keys.
fn gaps<T>(rows: &BTreeMap<usize, T>) -> Vec<usize> {
    let Some(&max) = rows.keys().next_back() else {
        return Vec::new();
    };
    (0..max).filter(|r| !rows.contains_key(r)).collect()
}

/// Inserts row `run` of input number `input` (named `file`), refusing a
/// second row for one run.
fn insert<T>(
    rows: &mut BTreeMap<usize, (usize, String, T)>,
    run: usize,
    (input, file): (usize, &str),
    row: T,
) -> Result<(), String> {
    if let Some((first_input, first, _)) = rows.get(&run) {
        return Err(if *first_input == input {
            format!("{file}: run {run} appears twice")
        } else if first == file {
            format!("{file} is given twice")
        } else {
            format!("run {run} appears in both {first} and {file} (the same shard twice?)")
        });
    }
    rows.insert(run, (input, file.to_string(), row));
    Ok(())
}

/// Merges sweep CSVs: identical headers (the first column `run`), rows
/// sorted by `run`, written as `gpusim sweep` writes them, so merging all
/// shards gives the unsharded sweep's file byte for byte.
pub fn merge_csv(inputs: &[Input]) -> Result<Merged, String> {
    let mut header: Option<(String, csv::StringRecord)> = None;
    let mut rows: BTreeMap<usize, (usize, String, csv::StringRecord)> = BTreeMap::new();
    for (input, (name, bytes)) in inputs.iter().enumerate() {
        let mut reader = csv::ReaderBuilder::new()
            .has_headers(true)
            .from_reader(&bytes[..]);
        let h = reader
            .headers()
            .map_err(|e| format!("{name}: {e}"))?
            .clone();
        if h.is_empty() || h.get(0) != Some("run") {
            return Err(format!(
                "{name}: not a sweep CSV (its first column is not `run`)"
            ));
        }
        match &header {
            None => header = Some((name.clone(), h)),
            Some((first, fh)) if *fh != h => {
                let at = fh
                    .iter()
                    .zip(h.iter())
                    .position(|(a, b)| a != b)
                    .unwrap_or(fh.len().min(h.len()));
                let col = |r: &csv::StringRecord| r.get(at).unwrap_or("(none)").to_string();
                return Err(format!(
                    "{name}: its header differs from {first}'s at column {}: `{}` vs `{}` \
                     (shards of different sweeps?)",
                    at + 1,
                    col(&h),
                    col(fh)
                ));
            }
            Some(_) => {}
        }
        for rec in reader.records() {
            let rec = rec.map_err(|e| format!("{name}: {e}"))?;
            let line = rec.position().map_or(0, |p| p.line());
            let run: usize = rec
                .get(0)
                .and_then(|r| r.parse().ok())
                .ok_or_else(|| format!("{name}:{line}: `run` is not a run number"))?;
            insert(&mut rows, run, (input, name), rec)?;
        }
    }
    let Some((_, header)) = header else {
        return Err("no input files".to_string());
    };
    let missing = gaps(&rows);
    let mut w = csv_writer(Vec::new());
    let write = |w: &mut csv::Writer<Vec<u8>>| -> Result<(), csv::Error> {
        w.write_record(&header)?;
        for (_, _, rec) in rows.values() {
            w.write_record(rec)?;
        }
        w.flush()?;
        Ok(())
    };
    write(&mut w).map_err(|e| format!("cannot write the merged CSV: {e}"))?;
    let bytes = w
        .into_inner()
        .map_err(|e| format!("cannot write the merged CSV: {e}"))?;
    Ok(Merged {
        bytes,
        rows: rows.len(),
        missing,
    })
}

/// Merges sweep JSON-lines files: each line an object with a `run`
/// number; lines sorted by `run`, kept as they are.
pub fn merge_jsonl(inputs: &[Input]) -> Result<Merged, String> {
    let mut rows: BTreeMap<usize, (usize, String, &str)> = BTreeMap::new();
    for (input, (name, bytes)) in inputs.iter().enumerate() {
        let text = std::str::from_utf8(bytes).map_err(|e| format!("{name}: not UTF-8: {e}"))?;
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let v: serde_json::Value = serde_json::from_str(line)
                .map_err(|e| format!("{name}:{}: not a JSON line: {e}", i + 1))?;
            let run = v
                .get("run")
                .and_then(serde_json::Value::as_u64)
                .and_then(|r| usize::try_from(r).ok())
                .ok_or_else(|| format!("{name}:{}: no `run` number", i + 1))?;
            insert(&mut rows, run, (input, name), line)?;
        }
    }
    let missing = gaps(&rows);
    let mut bytes = Vec::new();
    for (_, _, line) in rows.values() {
        bytes.extend_from_slice(line.as_bytes());
        bytes.push(b'\n');
    }
    Ok(Merged {
        bytes,
        rows: rows.len(),
        missing,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(name: &str, text: &str) -> Input {
        (name.to_string(), text.as_bytes().to_vec())
    }

    #[test]
    fn csv_shards_merge_in_run_order() {
        let a = input("a.csv", "run,sched,error\n0,gto,\n2,gto,\"x, y\"\n");
        let b = input("b.csv", "run,sched,error\n1,lrr,\n3,lrr,\n");
        let m = merge_csv(&[b, a]).unwrap();
        assert_eq!(
            String::from_utf8(m.bytes).unwrap(),
            "run,sched,error\n0,gto,\n1,lrr,\n2,gto,\"x, y\"\n3,lrr,\n"
        );
        assert_eq!(m.rows, 4);
        assert!(m.missing.is_empty());
    }

    #[test]
    fn csv_gaps_duplicates_and_headers_are_reported() {
        let a = input("a.csv", "run,sched\n0,gto\n3,gto\n");
        let m = merge_csv(std::slice::from_ref(&a)).unwrap();
        assert_eq!(m.missing, [1, 2]);
        let e = merge_csv(&[a.clone(), a.clone()]).unwrap_err();
        assert_eq!(e, "a.csv is given twice");
        let a2 = input("a2.csv", "run,sched\n3,gto\n");
        let e = merge_csv(&[a.clone(), a2]).unwrap_err();
        assert!(e.contains("run 3 appears in both a.csv and a2.csv"), "{e}");
        let twice = input("t.csv", "run,sched\n1,gto\n1,gto\n");
        assert_eq!(
            merge_csv(&[twice]).unwrap_err(),
            "t.csv: run 1 appears twice"
        );
        let b = input("b.csv", "run,config\n1,tiny\n");
        let e = merge_csv(&[a.clone(), b]).unwrap_err();
        assert!(e.starts_with("b.csv") && e.contains("column 2"), "{e}");
        let c = input("c.csv", "kernel,run\nx,1\n");
        assert!(merge_csv(&[c]).unwrap_err().contains("not a sweep CSV"));
        let d = input("d.csv", "run,sched\nseven,gto\n");
        assert!(merge_csv(&[d]).unwrap_err().contains("d.csv:2"));
        let short = input("e.csv", "run,sched\n1\n");
        assert!(merge_csv(&[short]).unwrap_err().starts_with("e.csv"));
        assert!(merge_csv(&[]).is_err());
    }

    #[test]
    fn jsonl_shards_merge_in_run_order() {
        let a = input("a.jsonl", "{\"run\":2,\"x\":1}\n{\"run\":0}\n");
        let b = input("b.jsonl", "{\"run\":1}\n");
        let m = merge_jsonl(&[a.clone(), b]).unwrap();
        assert_eq!(
            String::from_utf8(m.bytes).unwrap(),
            "{\"run\":0}\n{\"run\":1}\n{\"run\":2,\"x\":1}\n"
        );
        assert!(merge_jsonl(&[a.clone(), a]).is_err());
        let bad = input("c.jsonl", "{\"x\":1}\n");
        assert!(merge_jsonl(&[bad]).unwrap_err().contains("c.jsonl:1"));
    }
}
