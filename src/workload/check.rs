//! Comparing a kernel's output with its CPU reference.

use std::fmt;

/// At most this many wrong elements are listed in a report.
const SHOWN: usize = 5;

/// A failed comparison: which buffer, how many elements are wrong, the
/// first few with expected and actual values.
#[derive(Clone, Debug, PartialEq)]
pub struct Mismatch {
    /// Buffer name.
    pub buffer: String,
    /// Elements compared.
    pub total: usize,
    /// Elements that differ.
    pub wrong: usize,
    /// `(index, expected, got)` of the first wrong elements.
    pub first: Vec<(usize, String, String)>,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "MISMATCH in `{}`: {} of {} elements differ",
            self.buffer, self.wrong, self.total
        )?;
        for (i, e, g) in &self.first {
            writeln!(f, "  [{i}] expected {e}, got {g}")?;
        }
        Ok(())
    }
}

/// The outcome of a workload's check.
#[derive(Clone, Debug, PartialEq)]
pub enum Check {
    /// Every output matched.
    Pass,
    /// Some output did not.
    Fail(Vec<Mismatch>),
    /// Nothing was checked: the run completed, but the workload has no
    /// expectation to compare with (a `buffers` manifest without any
    /// `expect`). Not a failure: the exit status is 0.
    Skipped,
}

impl Check {
    /// True unless an output mismatched (`Pass` or `Skipped`).
    pub fn passed(&self) -> bool {
        !matches!(self, Check::Fail(_))
    }

    /// The check's state in one lower-case word (`pass`, `fail`,
    /// `skipped`), as the JSON's `check` field gives it.
    pub fn state(&self) -> &'static str {
        match self {
            Check::Pass => "pass",
            Check::Fail(_) => "fail",
            Check::Skipped => "skipped",
        }
    }

    /// Combines checks of several buffers (skipped ones count as passed;
    /// all skipped is skipped).
    pub fn all(checks: impl IntoIterator<Item = Check>) -> Check {
        let mut fails = Vec::new();
        let (mut any, mut skipped) = (false, true);
        for c in checks {
            any = true;
            match c {
                Check::Fail(m) => {
                    skipped = false;
                    fails.extend(m)
                }
                Check::Pass => skipped = false,
                Check::Skipped => {}
            }
        }
        if any && skipped {
            Check::Skipped
        } else if fails.is_empty() {
            Check::Pass
        } else {
            Check::Fail(fails)
        }
    }
}

impl fmt::Display for Check {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Check::Pass => writeln!(f, "PASS"),
            Check::Skipped => writeln!(f, "SKIPPED (no expectation)"),
            Check::Fail(ms) => ms.iter().try_for_each(|m| write!(f, "{m}")),
        }
    }
}

fn compare<E, G>(
    buffer: &str,
    expected: &[E],
    got: &[G],
    same: impl Fn(&E, &G) -> bool,
    show_expected: impl Fn(&E) -> String,
    show_got: impl Fn(&G) -> String,
) -> Check {
    let mut m = Mismatch {
        buffer: buffer.to_string(),
        total: expected.len(),
        wrong: 0,
        first: Vec::new(),
    };
    if expected.len() != got.len() {
        m.wrong = expected.len().abs_diff(got.len());
        m.first.push((
            expected.len().min(got.len()),
            format!("{} elements", expected.len()),
            format!("{} elements", got.len()),
        ));
    }
    for (i, (e, g)) in expected.iter().zip(got).enumerate() {
        if !same(e, g) {
            m.wrong += 1;
            if m.first.len() < SHOWN {
                m.first.push((i, show_expected(e), show_got(g)));
            }
        }
    }
    if m.wrong == 0 {
        Check::Pass
    } else {
        Check::Fail(vec![m])
    }
}

/// Exact comparison of integers (or anything comparable and printable).
pub fn exact<T: PartialEq + fmt::Debug>(buffer: &str, expected: &[T], got: &[T]) -> Check {
    let show = |v: &T| format!("{v:?}");
    compare(buffer, expected, got, |a, b| a == b, show, show)
}

/// f32 comparison: equal, or within `rel` relative or `abs` absolute error.
/// NaN matches NaN.
pub fn close_f32(buffer: &str, expected: &[f32], got: &[f32], rel: f32, abs: f32) -> Check {
    compare(
        buffer,
        expected,
        got,
        |&e, &g| {
            e == g
                || (e.is_nan() && g.is_nan())
                || (e - g).abs() <= abs.max(rel * e.abs().max(g.abs()))
        },
        |v| format!("{v:e}"),
        |v| format!("{v:e}"),
    )
}

/// f64 comparison: equal, or within `rel` relative or `abs` absolute error.
pub fn close_f64(buffer: &str, expected: &[f64], got: &[f64], rel: f64, abs: f64) -> Check {
    compare(
        buffer,
        expected,
        got,
        |&e, &g| {
            e == g
                || (e.is_nan() && g.is_nan())
                || (e - g).abs() <= abs.max(rel * e.abs().max(g.abs()))
        },
        |v| format!("{v:e}"),
        |v| format!("{v:e}"),
    )
}

/// f32 results against an f64 reference within a bound of each element's
/// own: element `i` passes if `|got[i] - expected[i]| <= bound[i]` (so NaN
/// never passes). For float kernels whose error bound depends on the
/// element (the magnitudes that were summed or cancelled), where one
/// relative tolerance would be too loose for some elements and too tight
/// for others.
pub fn within_bounds(buffer: &str, expected: &[f64], bound: &[f64], got: &[f32]) -> Check {
    let expected: Vec<(f64, f64)> = expected
        .iter()
        .copied()
        .zip(bound.iter().copied())
        .collect();
    compare(
        buffer,
        &expected,
        got,
        // False for a NaN `got`.
        |&(e, b), &g| (f64::from(g) - e).abs() <= b,
        |&(e, b)| format!("{e:e} ± {b:.1e}"),
        |g| format!("{g:e}"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_first_wrong_elements() {
        let c = exact("out", &[1u32, 2, 3, 4], &[1, 9, 3, 8]);
        let Check::Fail(m) = c else { panic!() };
        assert_eq!(m[0].wrong, 2);
        assert_eq!(
            m[0].first,
            vec![(1, "2".into(), "9".into()), (3, "4".into(), "8".into())]
        );
        assert!(
            m[0].to_string()
                .contains("MISMATCH in `out`: 2 of 4 elements differ")
        );
    }

    #[test]
    fn skipped_is_not_a_failure_and_says_so() {
        assert!(Check::Skipped.passed());
        assert_eq!(Check::Skipped.to_string(), "SKIPPED (no expectation)\n");
        assert_eq!(Check::all([Check::Skipped, Check::Skipped]), Check::Skipped);
        assert_eq!(Check::all([Check::Skipped, Check::Pass]), Check::Pass);
        assert!(!Check::all([Check::Skipped, exact("b", &[1u8], &[2])]).passed());
        assert_eq!(Check::all([]), Check::Pass);
    }

    #[test]
    fn float_tolerance() {
        assert!(close_f32("x", &[1.0, 100.0], &[1.0 + 1e-7, 100.0001], 1e-5, 0.0).passed());
        assert!(!close_f32("x", &[1.0], &[1.1], 1e-5, 0.0).passed());
        assert!(close_f32("x", &[f32::NAN], &[f32::NAN], 0.0, 0.0).passed());
    }
}
