//! The error statistics of a correlation: relative error, mean absolute
//! relative error, Pearson's r, and the IPC order of two schedulers.

use std::cmp::Ordering;

use serde::Serialize;

/// `ours / theirs - 1`: +0.10 means 10 % more than the reference. `None`
/// when `theirs` is 0.
pub fn relative_error(ours: u64, theirs: u64) -> Option<f64> {
    (theirs != 0).then(|| ours as f64 / theirs as f64 - 1.0)
}

/// Mean of `|e|` over relative errors `errors`; `None` when empty.
pub fn mean_abs_error(errors: &[f64]) -> Option<f64> {
    if errors.is_empty() {
        return None;
    }
    Some(errors.iter().map(|e| e.abs()).sum::<f64>() / errors.len() as f64)
}

/// Index of the error of largest magnitude (the first of equals); `None`
/// when empty.
pub fn max_abs_error(errors: &[f64]) -> Option<usize> {
    let mut best: Option<usize> = None;
    for (i, e) in errors.iter().enumerate() {
        if best.is_none_or(|b| e.abs() > errors[b].abs()) {
            best = Some(i);
        }
    }
    best
}

/// How many errors lie within `±band` (inclusive; `band` = 0.2 for
/// ±20 %).
pub fn within(errors: &[f64], band: f64) -> usize {
    // A tiny tolerance so that 120/100 - 1 counts as within ±20 %.
    errors.iter().filter(|e| e.abs() <= band + 1e-12).count()
}

/// Pearson's correlation coefficient of the pairs `(x, y)`: covariance
/// over the product of the standard deviations. `None` with fewer than two
/// pairs or when either side is constant (the coefficient is undefined).
pub fn pearson(pairs: &[(f64, f64)]) -> Option<f64> {
    let n = pairs.len();
    if n < 2 {
        return None;
    }
    let nf = n as f64;
    let mx = pairs.iter().map(|p| p.0).sum::<f64>() / nf;
    let my = pairs.iter().map(|p| p.1).sum::<f64>() / nf;
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for &(x, y) in pairs {
        let (dx, dy) = (x - mx, y - my);
        sxy += dx * dy;
        sxx += dx * dx;
        syy += dy * dy;
    }
    if sxx == 0.0 || syy == 0.0 {
        return None;
    }
    Some(sxy / (sxx.sqrt() * syy.sqrt()))
}

/// Which of two schedulers had the higher IPC.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Faster {
    /// The first (lrr) had the higher IPC.
    First,
    /// The second (gto) had the higher IPC.
    Second,
    /// Exactly the same IPC.
    Tie,
}

impl Faster {
    /// Compares IPC `a` (first scheduler) with IPC `b` (second).
    pub fn of(a: f64, b: f64) -> Faster {
        match a.partial_cmp(&b) {
            Some(Ordering::Greater) => Faster::First,
            Some(Ordering::Less) => Faster::Second,
            _ => Faster::Tie,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_error_is_signed() {
        assert_eq!(relative_error(110, 100), Some(0.10000000000000009));
        assert_eq!(relative_error(50, 100), Some(-0.5));
        assert_eq!(relative_error(5, 0), None);
    }

    #[test]
    fn max_abs_error_takes_the_first_of_equals() {
        assert_eq!(max_abs_error(&[0.1, -0.3, 0.3]), Some(1));
        assert_eq!(max_abs_error(&[]), None);
    }

    #[test]
    fn pearson_of_constant_side_is_undefined() {
        assert_eq!(pearson(&[(1.0, 2.0), (2.0, 2.0)]), None);
        assert_eq!(pearson(&[(1.0, 2.0)]), None);
    }

    #[test]
    fn faster_compares_ipc() {
        assert_eq!(Faster::of(2.0, 1.0), Faster::First);
        assert_eq!(Faster::of(1.0, 2.0), Faster::Second);
        assert_eq!(Faster::of(1.5, 1.5), Faster::Tie);
    }
}
