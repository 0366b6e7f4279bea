//! The stall breakdown as stacked bars (`gpusim plot run.json`): one bar
//! per launch and one for the whole run (or, given several runs, one bar
//! per run), each split into the ten stall categories as a share of its
//! scheduler-cycles; the bar's scheduler-cycles are written above it.

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::run_json::RunJson;
use super::{PlotError, STALL_COLORS, draw_legend, drawing_error, file_stem, stall_names};

/// One bar: a label and the scheduler-cycles of each category.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StallBar {
    /// Shown under the bar.
    pub label: String,
    /// Scheduler-cycles per category, in [`crate::timing::Stall::ALL`] order.
    pub counts: [u64; 10],
}

impl StallBar {
    /// Scheduler-cycles of the bar (the sum of its categories).
    pub fn total(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// Each category's share of the bar (all zero for an empty bar).
    pub fn shares(&self) -> [f64; 10] {
        let total = self.total();
        self.counts.map(|c| {
            if total == 0 {
                0.0
            } else {
                c as f64 / total as f64
            }
        })
    }
}

/// The bars of one run: `launch I: KERNEL` for each launch when there are
/// several, then `total`.
pub fn run_stall_bars(run: &RunJson) -> Vec<StallBar> {
    let mut bars = Vec::new();
    if run.launches.len() > 1 {
        for (i, l) in run.launches.iter().enumerate() {
            bars.push(StallBar {
                label: format!("{i}: {}", l.kernel),
                counts: l.stalls.to_array(),
            });
        }
    }
    bars.push(StallBar {
        label: "total".to_string(),
        counts: run.stalls.to_array(),
    });
    bars
}

/// A run's short name: its file stem, kernels and scheduler
/// (`saxpy_gto.json` of saxpy under gto → `saxpy_gto (saxpy, gto)`).
pub fn run_label(source: &str, run: &RunJson) -> String {
    format!(
        "{} ({}, {})",
        file_stem(source),
        run.kernels().join("+"),
        run.sched
    )
}

/// The bars of several runs, one per run (its total), labelled by
/// [`run_label`].
pub fn runs_stall_bars(runs: &[(String, RunJson)]) -> Vec<StallBar> {
    runs.iter()
        .map(|(src, run)| StallBar {
            label: run_label(src, run),
            counts: run.stalls.to_array(),
        })
        .collect()
}

/// Draws `bars` as 100 % stacked bars with a legend of the categories
/// that occur (in category order, bottom to top).
pub fn render_stalls_svg(title: &str, bars: &[StallBar]) -> Result<String, PlotError> {
    let err = drawing_error("stall chart");
    let names = stall_names();
    let n = bars.len().max(1);
    // Room under each bar for its label (about 6 pixels a character).
    let longest = bars
        .iter()
        .map(|b| b.label.chars().count())
        .max()
        .unwrap_or(0);
    let slot = (longest * 6 + 12).max(90);
    let width = (300 + n * slot).max(560) as u32;
    let height = 440u32;
    let used: Vec<usize> = (0..10)
        .filter(|&c| bars.iter().any(|b| b.counts[c] > 0))
        .collect();
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (width, height)).into_drawing_area();
        root.fill(&WHITE).map_err(&err)?;
        let (plot_area, legend_area) = root.split_horizontally(width - 150);
        let mut ctx = ChartBuilder::on(&plot_area)
            .caption(title, ("sans-serif", 18))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(56)
            .build_cartesian_2d(0f64..n as f64, 0f64..108f64)
            .map_err(&err)?;
        ctx.configure_mesh()
            .disable_x_mesh()
            .x_labels(0)
            .y_desc("% of scheduler-cycles")
            .y_label_formatter(&|v| format!("{v:.0}"))
            .draw()
            .map_err(&err)?;
        for (i, bar) in bars.iter().enumerate() {
            let shares = bar.shares();
            let mut bottom = 0.0;
            let x0 = i as f64 + 0.15;
            let x1 = i as f64 + 0.85;
            let mut rects = Vec::new();
            for &c in &used {
                let top = bottom + shares[c] * 100.0;
                if shares[c] > 0.0 {
                    rects.push(Rectangle::new(
                        [(x0, bottom), (x1, top)],
                        STALL_COLORS[c].filled(),
                    ));
                }
                bottom = top;
            }
            ctx.draw_series(rects).map_err(&err)?;
            let label_style = ("sans-serif", 11)
                .into_font()
                .color(&BLACK)
                .pos(Pos::new(HPos::Center, VPos::Top));
            ctx.draw_series([
                EmptyElement::at((i as f64 + 0.5, 0.0))
                    + Text::new(bar.label.clone(), (0, 8), label_style.clone()),
                EmptyElement::at((i as f64 + 0.5, 100.0))
                    + Text::new(format!("{} cycles", bar.total()), (0, -14), label_style),
            ])
            .map_err(&err)?;
        }
        // Legend: top category first, as stacked.
        let entries: Vec<(&str, RGBColor)> = used
            .iter()
            .rev()
            .map(|&c| (names[c], STALL_COLORS[c]))
            .collect();
        draw_legend(&legend_area, 50, &entries)?;
        root.present().map_err(&err)?;
    }
    Ok(svg)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_sum_to_one() {
        let bar = StallBar {
            label: "x".into(),
            counts: [1, 0, 3, 0, 0, 0, 0, 0, 0, 4],
        };
        assert_eq!(bar.total(), 8);
        let s = bar.shares();
        assert_eq!(s[0], 0.125);
        assert_eq!(s[2], 0.375);
        assert_eq!(s[9], 0.5);
    }
}
