//! Typed access to a workload's `[args]`, with defaults, type errors and
//! unknown-key detection.

use crate::workload::host::WorkloadError;

/// A workload's arguments (the manifest's `[args]` plus `--arg` overrides).
#[derive(Clone, Debug, Default)]
pub struct Args {
    table: toml::Table,
    used: Vec<String>,
}

impl Args {
    /// Wraps a table.
    pub fn new(table: toml::Table) -> Args {
        Args {
            table,
            used: Vec::new(),
        }
    }

    /// Sets `key` from command-line text (`--arg key=value`): integers,
    /// floats, booleans, otherwise a string.
    pub fn set_from_text(&mut self, key: &str, value: &str) {
        let v = if let Ok(i) = value.parse::<i64>() {
            toml::Value::Integer(i)
        } else if let Ok(f) = value.parse::<f64>() {
            toml::Value::Float(f)
        } else if let Ok(b) = value.parse::<bool>() {
            toml::Value::Boolean(b)
        } else {
            toml::Value::String(value.to_string())
        };
        self.table.insert(key.to_string(), v);
    }

    fn int(&mut self, key: &str, default: i64, lo: i64, hi: i64) -> Result<i64, WorkloadError> {
        self.used.push(key.to_string());
        match self.table.get(key) {
            None => Ok(default),
            Some(toml::Value::Integer(i)) if (lo..=hi).contains(i) => Ok(*i),
            Some(toml::Value::Integer(i)) => Err(WorkloadError::Args(format!(
                "`{key}` = {i} is outside {lo}..={hi}"
            ))),
            Some(v) => Err(WorkloadError::Args(format!(
                "`{key}` must be an integer, got {v}"
            ))),
        }
    }

    /// An unsigned 32-bit argument.
    pub fn u32(&mut self, key: &str, default: u32) -> Result<u32, WorkloadError> {
        self.int(key, i64::from(default), 0, i64::from(u32::MAX))
            .map(|v| v as u32)
    }

    /// A positive 32-bit argument (at least 1).
    pub fn count(&mut self, key: &str, default: u32) -> Result<u32, WorkloadError> {
        self.int(key, i64::from(default), 1, i64::from(u32::MAX))
            .map(|v| v as u32)
    }

    /// A 64-bit seed or size.
    pub fn u64(&mut self, key: &str, default: u64) -> Result<u64, WorkloadError> {
        self.int(key, default as i64, 0, i64::MAX).map(|v| v as u64)
    }

    /// A float argument (integers accepted).
    pub fn f64(&mut self, key: &str, default: f64) -> Result<f64, WorkloadError> {
        self.used.push(key.to_string());
        match self.table.get(key) {
            None => Ok(default),
            Some(toml::Value::Float(f)) => Ok(*f),
            Some(toml::Value::Integer(i)) => Ok(*i as f64),
            Some(v) => Err(WorkloadError::Args(format!(
                "`{key}` must be a number, got {v}"
            ))),
        }
    }

    /// True if the table defines `key`.
    pub fn has(&self, key: &str) -> bool {
        self.table.contains_key(key)
    }

    /// Fails if the table has keys no getter asked for (typos).
    pub fn finish(&self) -> Result<(), WorkloadError> {
        let mut unknown: Vec<&String> = self
            .table
            .keys()
            .filter(|k| !self.used.contains(k))
            .collect();
        unknown.sort();
        match unknown.first() {
            None => Ok(()),
            Some(k) => {
                let mut known: Vec<&str> = self.used.iter().map(String::as_str).collect();
                known.sort();
                known.dedup();
                let hint = crate::ptx::suggest::closest(k, known.iter().copied())
                    .map_or(String::new(), |s| format!(" (did you mean `{s}`?)"));
                Err(WorkloadError::Args(format!(
                    "unknown argument `{k}`{hint}; this workload takes: {}",
                    known.join(", ")
                )))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_types_and_typos() {
        let mut a = Args::new(toml::from_str("rows = 10\nsede = 3\nscale = 2").unwrap());
        assert_eq!(a.u32("rows", 5).unwrap(), 10);
        assert_eq!(a.u64("seed", 1).unwrap(), 1);
        assert_eq!(a.f64("scale", 1.0).unwrap(), 2.0);
        let e = a.finish().unwrap_err().to_string();
        assert!(
            e.contains("unknown argument `sede` (did you mean `seed`?)"),
            "{e}"
        );
        let mut b = Args::new(toml::from_str("rows = -1").unwrap());
        assert!(b.u32("rows", 5).is_err());
    }
}
