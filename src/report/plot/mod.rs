//! Charts as SVG (`gpusim plot`, `gpusim report`): a sweep's grouped bars
//! ([`bars`]), a run's stall breakdown ([`stall_stack`]) and its time
//! series ([`time_series`]), drawn with `plotters`' SVG backend.
//!
//! `plotters` is built without a font feature: its SVG backend writes
//! text as `<text>` elements that the viewer lays out, and its layout
//! estimate (used only to place axis labels) needs no font file. Every
//! coordinate `plotters` writes is an integer, so the same input gives a
//! byte-identical file on every platform.
//!
//! The inputs are read by [`sweep_table`] (the sweep CSV of
//! `gpusim sweep`) and [`run_json`] (the JSON of `gpusim run --json`).

pub mod bars;
pub mod run_json;
pub mod stall_stack;
pub mod sweep_table;
pub mod time_series;

use std::fmt;

use plotters::style::RGBColor;

/// Why a chart could not be made: the message names the input file and
/// the cause (a missing column, a malformed value, a run without samples).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlotError(pub String);

impl fmt::Display for PlotError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for PlotError {}

impl PlotError {
    /// An error whose message is `msg`.
    pub fn new(msg: impl Into<String>) -> Self {
        PlotError(msg.into())
    }
}

/// Turns a `plotters` drawing error into a [`PlotError`] (drawing into a
/// `String` does not fail in practice; this keeps the signatures honest).
pub(crate) fn drawing_error<E: fmt::Debug>(what: &str) -> impl Fn(E) -> PlotError + '_ {
    move |e| PlotError(format!("drawing the {what} failed: {e:?}"))
}

/// Series colours (the "category10" palette), reused cyclically.
pub const SERIES_COLORS: [RGBColor; 10] = [
    RGBColor(0x1f, 0x77, 0xb4),
    RGBColor(0xff, 0x7f, 0x0e),
    RGBColor(0x2c, 0xa0, 0x2c),
    RGBColor(0xd6, 0x27, 0x28),
    RGBColor(0x94, 0x67, 0xbd),
    RGBColor(0x8c, 0x56, 0x4b),
    RGBColor(0xe3, 0x77, 0xc2),
    RGBColor(0x7f, 0x7f, 0x7f),
    RGBColor(0xbc, 0xbd, 0x22),
    RGBColor(0x17, 0xbe, 0xcf),
];

/// The colour of each stall category, in [`crate::timing::Stall::ALL`]
/// order (the colours of `gpusim timeline` where the states match).
pub const STALL_COLORS: [RGBColor; 10] = [
    RGBColor(0x2c, 0xa0, 0x2c), // issued
    RGBColor(0x94, 0x67, 0xbd), // control
    RGBColor(0x1f, 0x77, 0xb4), // data
    RGBColor(0xff, 0x7f, 0x0e), // structural
    RGBColor(0xd6, 0x27, 0x28), // barrier
    RGBColor(0xc7, 0xc7, 0xc7), // exit
    RGBColor(0xc5, 0xb0, 0xd5), // fetch
    RGBColor(0xbc, 0xbd, 0x22), // throttled
    RGBColor(0x17, 0xbe, 0xcf), // sync_wait
    RGBColor(0xee, 0xee, 0xee), // idle
];

/// Draws a legend into `area`: a filled, outlined square and the label
/// per entry, one entry per 20 pixels from `top` down.
pub(crate) fn draw_legend<DB: plotters::prelude::DrawingBackend>(
    area: &plotters::prelude::DrawingArea<DB, plotters::coord::Shift>,
    top: i32,
    entries: &[(&str, RGBColor)],
) -> Result<(), PlotError> {
    use plotters::prelude::*;
    let err = drawing_error("legend");
    let font = ("sans-serif", 12).into_font().color(&BLACK);
    for (row, (label, color)) in entries.iter().enumerate() {
        let y = top + row as i32 * 20;
        area.draw(&Rectangle::new([(8, y), (20, y + 12)], color.filled()))
            .map_err(&err)?;
        area.draw(&Rectangle::new(
            [(8, y), (20, y + 12)],
            BLACK.stroke_width(1),
        ))
        .map_err(&err)?;
        area.draw(&Text::new(*label, (26, y), font.clone()))
            .map_err(&err)?;
    }
    Ok(())
}

/// The ten stall category names, in JSON order.
pub fn stall_names() -> [&'static str; 10] {
    crate::timing::Stall::ALL.map(|s| s.name())
}

/// `path`'s file name without its extension (`kernels/saxpy.ptx` →
/// `saxpy`), or the whole text when it has none.
pub fn file_stem(path: &str) -> &str {
    let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
    match name.rfind('.') {
        Some(dot) if dot > 0 => &name[..dot],
        _ => name,
    }
}

/// `x` with 3 significant decimals, trailing zeros dropped (`1.070` →
/// `1.07`, `2.000` → `2`): the value labels of the charts.
pub fn short_number(x: f64) -> String {
    if !x.is_finite() {
        return "n/a".to_string();
    }
    let digits = if x.abs() >= 100.0 {
        0
    } else if x.abs() >= 10.0 {
        1
    } else {
        3
    };
    let s = format!("{x:.digits$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_stem_strips_directory_and_extension() {
        assert_eq!(file_stem("kernels/saxpy.ptx"), "saxpy");
        assert_eq!(file_stem("saxpy"), "saxpy");
        assert_eq!(file_stem("a/.hidden"), ".hidden");
    }

    #[test]
    fn short_number_trims_zeros() {
        assert_eq!(short_number(1.07), "1.07");
        assert_eq!(short_number(2.0), "2");
        assert_eq!(short_number(0.12345), "0.123");
        assert_eq!(short_number(12.34), "12.3");
        assert_eq!(short_number(1234.4), "1234");
        assert_eq!(short_number(f64::NAN), "n/a");
    }
}
