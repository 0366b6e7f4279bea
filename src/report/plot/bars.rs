//! Grouped bars of a sweep (`gpusim plot results.csv`): one group per
//! combination of the parameters that vary (kernel, config, `set:`,
//! `arg:`), one bar per value of the `--by` column (default `sched`),
//! each bar the metric divided by the baseline's metric in the same
//! group, and a last group `hmean`: per series, the harmonic mean of its
//! normalized values over the groups where every series has a value.

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::sweep_table::SweepTable;
use super::{PlotError, SERIES_COLORS, draw_legend, drawing_error, file_stem, short_number};

/// What to plot from a sweep CSV.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BarOptions {
    /// The statistic column to plot (`ipc`, `cycles`, `total.l1d.misses`, …).
    pub metric: String,
    /// The parameter column whose values are the series (bars of a group).
    pub by: String,
    /// The series every group is normalized to (default: the first).
    pub baseline: Option<String>,
    /// Plot the metric itself instead of normalizing it.
    pub raw: bool,
    /// Chart title (default: metric, normalization and kernel).
    pub title: Option<String>,
}

impl Default for BarOptions {
    fn default() -> Self {
        BarOptions {
            metric: "ipc".to_string(),
            by: "sched".to_string(),
            baseline: None,
            raw: false,
            title: None,
        }
    }
}

/// The numbers of a grouped bar chart, before drawing.
#[derive(Clone, Debug, PartialEq)]
pub struct BarChart {
    /// Chart title.
    pub title: String,
    /// Y-axis description (`ipc / ipc of gto`).
    pub y_label: String,
    /// Group labels, in first-appearance order (without `hmean`).
    pub groups: Vec<String>,
    /// Series labels, in first-appearance order.
    pub series: Vec<String>,
    /// The series normalized to, `None` with `raw`.
    pub baseline: Option<String>,
    /// The plotted value of each series in each group (`values[group][series]`),
    /// `None` where the run is missing, failed, or the group has no baseline.
    pub values: Vec<Vec<Option<f64>>>,
    /// Per series: the harmonic mean of its values over complete groups
    /// (`None` when there is none, or a value is not positive).
    pub hmean: Vec<Option<f64>>,
    /// What was left out and why (one line each, naming the run).
    pub warnings: Vec<String>,
}

/// The harmonic mean of `xs`: `n / Σ 1/x`; `None` for an empty slice or
/// when a value is not positive.
pub fn harmonic_mean(xs: &[f64]) -> Option<f64> {
    if xs.is_empty() || xs.iter().any(|&x| x.is_nan() || x <= 0.0) {
        return None;
    }
    Some(xs.len() as f64 / xs.iter().map(|x| 1.0 / x).sum::<f64>())
}

/// Computes the chart of `table` for `opts`: groups, series, normalized
/// values and their harmonic means. Rows whose `status` is not `ok` or
/// whose metric is empty are left out with a warning naming the run.
pub fn bar_chart(table: &SweepTable, opts: &BarOptions) -> Result<BarChart, PlotError> {
    let src = &table.source;
    let run_col = table.require("run")?;
    let status_col = table.require("status")?;
    let metric_col = table.require(&opts.metric)?;
    let by_col = table.require(&opts.by)?;
    let error_col = table.column("error");
    let params = table.parameter_columns();
    if !params.contains(&by_col) {
        return Err(PlotError(format!(
            "{src}: --by `{}` is not a parameter column (kernel, config, set:KEY, arg:KEY or sched)",
            opts.by
        )));
    }
    // Group by every other parameter that varies over the file.
    let group_cols: Vec<usize> = params
        .iter()
        .copied()
        .filter(|&c| c != by_col && table.varies(c))
        .collect();

    let mut warnings = Vec::new();
    let mut groups: Vec<String> = Vec::new();
    let mut series: Vec<String> = Vec::new();
    // (group, series, value, run)
    let mut cells: Vec<(usize, usize, f64, String)> = Vec::new();
    for row in &table.rows {
        let run = table.field(row, run_col).to_string();
        let group_label = if group_cols.is_empty() {
            table
                .column("kernel")
                .map_or_else(|| "all".to_string(), |k| table.parameter_label(row, k))
        } else {
            group_cols
                .iter()
                .map(|&c| table.parameter_label(row, c))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let series_label = table.parameter_label(row, by_col);
        let status = table.field(row, status_col);
        if status != "ok" {
            let why = error_col
                .map(|c| table.field(row, c))
                .filter(|e| !e.is_empty())
                .map_or(String::new(), |e| format!(": {e}"));
            warnings.push(format!(
                "{src}:{}: run {run} ({group_label}, {series_label}) left out: status {status}{why}",
                row.line
            ));
            continue;
        }
        let text = table.field(row, metric_col);
        let value: f64 = match text.parse::<f64>() {
            Ok(v) if v.is_finite() => v,
            _ => {
                warnings.push(format!(
                    "{src}:{}: run {run} ({group_label}, {series_label}) left out: `{}` is `{text}`, not a finite number",
                    row.line, opts.metric
                ));
                continue;
            }
        };
        let g = index_of(&mut groups, group_label);
        let s = index_of(&mut series, series_label);
        if let Some((_, _, _, other)) = cells.iter().find(|c| c.0 == g && c.1 == s) {
            return Err(PlotError(format!(
                "{src}: runs {other} and {run} are both group `{}`, series `{}`: plot one of them, or pick --by",
                groups[g], series[s]
            )));
        }
        cells.push((g, s, value, run));
    }
    if cells.is_empty() {
        return Err(PlotError(format!(
            "{src}: no run with status ok and a `{}` value to plot",
            opts.metric
        )));
    }
    let mut raw_values = vec![vec![None; series.len()]; groups.len()];
    for &(g, s, v, _) in &cells {
        raw_values[g][s] = Some(v);
    }

    let baseline = if opts.raw {
        None
    } else {
        let wanted = opts.baseline.clone().unwrap_or_else(|| series[0].clone());
        if !series.contains(&wanted) {
            return Err(PlotError(format!(
                "{src}: baseline `{wanted}` is not a value of `{}` (values: {})",
                opts.by,
                series.join(", ")
            )));
        }
        Some(wanted)
    };
    let values: Vec<Vec<Option<f64>>> = match &baseline {
        None => raw_values,
        Some(b) => {
            let b = series.iter().position(|s| s == b).unwrap_or(0);
            raw_values
                .iter()
                .enumerate()
                .map(|(g, row)| match row[b] {
                    Some(base) if base != 0.0 => row.iter().map(|v| v.map(|v| v / base)).collect(),
                    _ => {
                        warnings.push(format!(
                            "{src}: group `{}` has no baseline value (`{}` = {}): left out",
                            groups[g], opts.by, series[b]
                        ));
                        vec![None; row.len()]
                    }
                })
                .collect()
        }
    };
    let complete: Vec<usize> = (0..groups.len())
        .filter(|&g| values[g].iter().all(Option::is_some))
        .collect();
    for g in 0..groups.len() {
        if !complete.contains(&g) && values[g].iter().any(Option::is_some) {
            warnings.push(format!(
                "{src}: group `{}` lacks a series: not in the harmonic mean",
                groups[g]
            ));
        }
    }
    let hmean = (0..series.len())
        .map(|s| {
            let xs: Vec<f64> = complete.iter().filter_map(|&g| values[g][s]).collect();
            harmonic_mean(&xs)
        })
        .collect();

    let kernels: Vec<String> = match table.column("kernel") {
        Some(k) => {
            let mut ks: Vec<String> = Vec::new();
            for row in &table.rows {
                let stem = file_stem(table.field(row, k)).to_string();
                if !ks.contains(&stem) {
                    ks.push(stem);
                }
            }
            ks
        }
        None => Vec::new(),
    };
    let y_label = match &baseline {
        Some(b) => format!("{} / {} of {b}", opts.metric, opts.metric),
        None => opts.metric.clone(),
    };
    let title = opts.title.clone().unwrap_or_else(|| {
        let what = match &baseline {
            Some(b) => format!("{} normalized to {} = {b}", opts.metric, opts.by),
            None => format!("{} by {}", opts.metric, opts.by),
        };
        if kernels.len() == 1 {
            format!("{}: {what}", kernels[0])
        } else {
            what
        }
    });
    Ok(BarChart {
        title,
        y_label,
        groups,
        series,
        baseline,
        values,
        hmean,
        warnings,
    })
}

/// A sweep CSV's text (read from `source`) straight to its SVG: parse,
/// [`bar_chart`], [`render_bars_svg`]. Returns the SVG and the chart (its
/// numbers and warnings). One call for a command that has just written
/// the CSV (e.g. a sweep's `--plot`).
pub fn sweep_csv_to_svg(
    source: &str,
    csv_text: &str,
    opts: &BarOptions,
) -> Result<(String, BarChart), PlotError> {
    let table = SweepTable::parse(source, csv_text)?;
    let chart = bar_chart(&table, opts)?;
    Ok((render_bars_svg(&chart)?, chart))
}

impl BarChart {
    /// The chart's numbers as an aligned text table: a row per group and
    /// `hmean`, a column per series (`-` where there is no value).
    pub fn to_text(&self) -> String {
        let mut rows: Vec<Vec<String>> = Vec::new();
        let mut head = vec!["group".to_string()];
        head.extend(self.series.iter().cloned());
        rows.push(head);
        let fmt = |v: &Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.3}"));
        for (g, label) in self.groups.iter().enumerate() {
            let mut r = vec![label.clone()];
            r.extend(self.values[g].iter().map(fmt));
            rows.push(r);
        }
        let mut r = vec!["hmean".to_string()];
        r.extend(self.hmean.iter().map(fmt));
        rows.push(r);
        let cols = rows[0].len();
        let widths: Vec<usize> = (0..cols)
            .map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0))
            .collect();
        let mut out = String::new();
        for r in &rows {
            let mut line = String::new();
            for (c, cell) in r.iter().enumerate() {
                if c == 0 {
                    line.push_str(&format!("{cell:<w$}", w = widths[c]));
                } else {
                    line.push_str(&format!("  {cell:>w$}", w = widths[c]));
                }
            }
            out.push_str(line.trim_end());
            out.push('\n');
        }
        out
    }
}

fn index_of(list: &mut Vec<String>, label: String) -> usize {
    match list.iter().position(|l| *l == label) {
        Some(i) => i,
        None => {
            list.push(label);
            list.len() - 1
        }
    }
}

/// Draws `chart` as an SVG document: the groups left to right, then
/// `hmean`; each bar labelled with its value; a dashed line at 1 when
/// normalized; the series in a legend.
pub fn render_bars_svg(chart: &BarChart) -> Result<String, PlotError> {
    let err = drawing_error("bar chart");
    let ngroups = chart.groups.len() + 1;
    let nseries = chart.series.len().max(1);
    let legend_width = 40
        + 7 * chart
            .series
            .iter()
            .map(|s| s.chars().count())
            .max()
            .unwrap_or(4) as u32;
    let width = (140 + ngroups * (nseries * 28 + 36)).max(560) as u32 + legend_width;
    let height = 440u32;
    let mut rows: Vec<(String, &[Option<f64>])> = chart
        .groups
        .iter()
        .cloned()
        .zip(chart.values.iter().map(Vec::as_slice))
        .collect();
    rows.push(("hmean".to_string(), chart.hmean.as_slice()));
    let max = rows
        .iter()
        .flat_map(|(_, v)| v.iter().flatten())
        .fold(0.0f64, |m, &v| m.max(v));
    let y_max = if max > 0.0 { max * 1.2 } else { 1.0 };

    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (width, height)).into_drawing_area();
        root.fill(&WHITE).map_err(&err)?;
        let (plot_area, legend_area) = root.split_horizontally(width - legend_width);
        let mut ctx = ChartBuilder::on(&plot_area)
            .caption(&chart.title, ("sans-serif", 18))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(56)
            .build_cartesian_2d(0f64..ngroups as f64, 0f64..y_max)
            .map_err(&err)?;
        ctx.configure_mesh()
            .disable_x_mesh()
            .x_labels(0)
            .y_desc(&chart.y_label)
            .y_label_formatter(&|v| short_number(*v))
            .draw()
            .map_err(&err)?;
        let slot = 0.8 / nseries as f64;
        for s in 0..chart.series.len() {
            let color = SERIES_COLORS[s % SERIES_COLORS.len()];
            let bars: Vec<(f64, f64)> = rows
                .iter()
                .enumerate()
                .filter_map(|(g, (_, v))| v[s].map(|v| (g as f64 + 0.1 + slot * s as f64, v)))
                .collect();
            ctx.draw_series(
                bars.iter().map(|&(x, v)| {
                    Rectangle::new([(x, 0.0), (x + slot * 0.92, v)], color.filled())
                }),
            )
            .map_err(&err)?;
            ctx.draw_series(bars.iter().map(|&(x, v)| {
                EmptyElement::at((x + slot * 0.46, v))
                    + Text::new(
                        short_number(v),
                        (0, -12),
                        ("sans-serif", 10)
                            .into_font()
                            .color(&BLACK)
                            .pos(Pos::new(HPos::Center, VPos::Top)),
                    )
            }))
            .map_err(&err)?;
        }
        if chart.baseline.is_some() {
            ctx.draw_series(std::iter::once(PathElement::new(
                vec![(0.0, 1.0), (ngroups as f64, 1.0)],
                BLACK.stroke_width(1),
            )))
            .map_err(&err)?;
        }
        ctx.draw_series(rows.iter().enumerate().map(|(g, (label, _))| {
            EmptyElement::at((g as f64 + 0.5, 0.0))
                + Text::new(
                    label.clone(),
                    (0, 8),
                    ("sans-serif", 12)
                        .into_font()
                        .color(&BLACK)
                        .pos(Pos::new(HPos::Center, VPos::Top)),
                )
        }))
        .map_err(&err)?;
        let entries: Vec<(&str, RGBColor)> = chart
            .series
            .iter()
            .enumerate()
            .map(|(s, name)| (name.as_str(), SERIES_COLORS[s % SERIES_COLORS.len()]))
            .collect();
        draw_legend(&legend_area, 50, &entries)?;
        root.present().map_err(&err)?;
    }
    Ok(svg)
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::report::plot::sweep_table::SweepTable;

    #[test]
    fn non_finite_or_empty_metric_is_left_out_with_a_warning() {
        let csv = "run,kernel,sched,status,error,ipc\n\
                   0,k.ptx,lrr,ok,,1.0\n1,k.ptx,gto,ok,,inf\n2,k.ptx,two-level,ok,,\n";
        let t = SweepTable::parse("s.csv", csv).unwrap();
        let c = bar_chart(&t, &BarOptions::default()).unwrap();
        assert_eq!(c.series, ["lrr"]);
        assert_eq!(c.groups, ["k"]);
        assert_eq!(c.warnings.len(), 2, "{:?}", c.warnings);
        assert!(
            c.warnings[0].starts_with("s.csv:3: run 1 (k, gto)"),
            "{}",
            c.warnings[0]
        );
        assert!(render_bars_svg(&c).unwrap().starts_with("<svg"));
    }

    #[test]
    fn zero_baseline_leaves_the_group_out_and_still_draws() {
        let csv = "run,kernel,sched,status,error,ipc\n0,k.ptx,lrr,ok,,0\n1,k.ptx,gto,ok,,2\n";
        let t = SweepTable::parse("s.csv", csv).unwrap();
        let c = bar_chart(&t, &BarOptions::default()).unwrap();
        assert_eq!(c.values, [[None, None]]);
        assert_eq!(c.hmean, [None, None]);
        assert!(c.warnings[0].contains("no baseline value"));
        assert!(render_bars_svg(&c).unwrap().starts_with("<svg"));
        let only_errors = "run,kernel,sched,status,error,ipc\n0,k.ptx,lrr,error,boom,\n";
        let t = SweepTable::parse("e.csv", only_errors).unwrap();
        let e = bar_chart(&t, &BarOptions::default()).unwrap_err().0;
        assert!(e.starts_with("e.csv: no run with status ok"), "{e}");
    }

    #[test]
    fn harmonic_mean_by_hand() {
        assert_eq!(harmonic_mean(&[1.0, 4.0, 4.0]), Some(2.0));
        assert_eq!(harmonic_mean(&[2.0]), Some(2.0));
        assert_eq!(harmonic_mean(&[]), None);
        assert_eq!(harmonic_mean(&[1.0, 0.0]), None);
    }
}
