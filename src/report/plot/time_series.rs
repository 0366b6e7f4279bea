//! A run's time series (`gpusim plot run.json --kind time-series`, from
//! `gpusim run --sample N`): four panels over the run's cycles, one step
//! per window: the GPU's IPC, the stall mix (each category's share of the
//! window's scheduler-cycles, summed over SMs, stacked), the L1D miss
//! rate (misses / accesses over all SMs) and DRAM bytes per cycle. A grey
//! vertical line marks where each launch after the first begins.

use std::collections::BTreeMap;

use plotters::prelude::*;

use super::run_json::{RunJson, StallsJson};
use super::{PlotError, STALL_COLORS, draw_legend, drawing_error, short_number, stall_names};

/// One window of the run, GPU-wide.
#[derive(Clone, Debug, PartialEq)]
pub struct Window {
    /// The launch it belongs to.
    pub launch: u64,
    /// First cycle (global).
    pub start: u64,
    /// End cycle, exclusive.
    pub end: u64,
    /// Warp instructions per cycle of the GPU.
    pub ipc: f64,
    /// Scheduler-cycles per stall category, summed over SMs.
    pub stalls: [u64; 10],
    /// L1D accesses, summed over SMs.
    pub l1d_accesses: u64,
    /// L1D misses, summed over SMs.
    pub l1d_misses: u64,
    /// DRAM bytes per cycle.
    pub dram_bytes_per_cycle: f64,
}

impl Window {
    /// L1D misses / accesses, `None` without accesses.
    pub fn l1d_miss_rate(&self) -> Option<f64> {
        (self.l1d_accesses > 0).then(|| self.l1d_misses as f64 / self.l1d_accesses as f64)
    }
}

/// The GPU-wide windows of `run`'s samples, by start cycle; an error
/// naming `source` when the run has none.
pub fn windows(source: &str, run: &RunJson) -> Result<Vec<Window>, PlotError> {
    let samples = match &run.samples {
        Some(s) if !s.gpu.is_empty() || !s.sms.is_empty() => s,
        _ => {
            return Err(PlotError(format!(
                "{source}: no time series (`samples`): rerun with `gpusim run --sample N --json {source}` (N = window in cycles, e.g. 1000)"
            )));
        }
    };
    let mut by_window: BTreeMap<(u64, u64), Window> = BTreeMap::new();
    for g in &samples.gpu {
        by_window.insert(
            (g.start, g.launch),
            Window {
                launch: g.launch,
                start: g.start,
                end: g.end,
                ipc: g.ipc,
                stalls: [0; 10],
                l1d_accesses: 0,
                l1d_misses: 0,
                dram_bytes_per_cycle: g.dram_bytes_per_cycle,
            },
        );
    }
    for s in &samples.sms {
        let w = by_window
            .entry((s.start, s.launch))
            .or_insert_with(|| Window {
                launch: s.launch,
                start: s.start,
                end: s.end,
                ipc: 0.0,
                stalls: [0; 10],
                l1d_accesses: 0,
                l1d_misses: 0,
                dram_bytes_per_cycle: 0.0,
            });
        add_stalls(&mut w.stalls, &s.stalls);
        w.l1d_accesses += s.l1d_accesses;
        w.l1d_misses += s.l1d_misses;
        if samples.gpu.is_empty() {
            let cycles = s.end.saturating_sub(s.start).max(1) as f64;
            w.ipc += s.warp_insts as f64 / cycles;
        }
    }
    Ok(by_window.into_values().collect())
}

fn add_stalls(sum: &mut [u64; 10], s: &StallsJson) {
    for (a, b) in sum.iter_mut().zip(s.to_array()) {
        *a += b;
    }
}

/// Step points of `f` over `windows` (two per window: start and end), for
/// windows where `f` has a value.
fn steps(windows: &[Window], f: impl Fn(&Window) -> Option<f64>) -> Vec<Vec<(f64, f64)>> {
    let mut runs: Vec<Vec<(f64, f64)>> = Vec::new();
    let mut last_end = None;
    for w in windows {
        match f(w) {
            Some(v) => {
                if last_end != Some(w.start) || runs.is_empty() {
                    runs.push(Vec::new());
                }
                let run = runs.last_mut().expect("pushed above");
                run.push((w.start as f64, v));
                run.push((w.end as f64, v));
                last_end = Some(w.end);
            }
            None => last_end = None,
        }
    }
    runs
}

/// Draws the four panels of `windows` under `title`.
pub fn render_time_series_svg(title: &str, windows: &[Window]) -> Result<String, PlotError> {
    let err = drawing_error("time series");
    let (width, height) = (900u32, 820u32);
    let x_max = windows.iter().map(|w| w.end).max().unwrap_or(1).max(1) as f64;
    let launch_starts: Vec<f64> = windows
        .windows(2)
        .filter(|p| p[1].launch != p[0].launch)
        .map(|p| p[1].start as f64)
        .collect();
    let names = stall_names();
    let used: Vec<usize> = (0..10)
        .filter(|&c| windows.iter().any(|w| w.stalls[c] > 0))
        .collect();
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (width, height)).into_drawing_area();
        root.fill(&WHITE).map_err(&err)?;
        let root = root.titled(title, ("sans-serif", 18)).map_err(&err)?;
        let (main, legend) = root.split_horizontally(width - 130);
        let panels = main.split_evenly((4, 1));
        type Value = fn(&Window) -> Option<f64>;
        let lines: [(&str, Value, RGBColor); 3] = [
            (
                "IPC (warp insts / cycle)",
                |w| Some(w.ipc),
                super::SERIES_COLORS[0],
            ),
            (
                "L1D miss rate",
                Window::l1d_miss_rate,
                super::SERIES_COLORS[3],
            ),
            (
                "DRAM bytes / cycle",
                |w| Some(w.dram_bytes_per_cycle),
                super::SERIES_COLORS[4],
            ),
        ];
        for (p, area) in panels.iter().enumerate() {
            let (desc, y_max) = match p {
                1 => ("stall mix (%)", 100.0),
                _ => {
                    let (desc, f, _) = lines[if p == 0 { 0 } else { p - 1 }];
                    let max = windows.iter().filter_map(f).fold(0.0f64, f64::max);
                    (desc, if max > 0.0 { max * 1.15 } else { 1.0 })
                }
            };
            let mut ctx = ChartBuilder::on(area)
                .margin(8)
                .x_label_area_size(if p == 3 { 36 } else { 18 })
                .y_label_area_size(56)
                .build_cartesian_2d(0f64..x_max, 0f64..y_max)
                .map_err(&err)?;
            let mut mesh = ctx.configure_mesh();
            mesh.y_desc(desc)
                .y_labels(4)
                .x_labels(8)
                .y_label_formatter(&|v| short_number(*v))
                .x_label_formatter(&|v| format!("{v:.0}"));
            if p == 3 {
                mesh.x_desc("cycle");
            }
            mesh.draw().map_err(&err)?;
            if p == 1 {
                for w in windows {
                    let total: u64 = w.stalls.iter().sum();
                    if total == 0 {
                        continue;
                    }
                    let mut bottom = 0.0;
                    let mut rects = Vec::new();
                    for &c in &used {
                        let top = bottom + w.stalls[c] as f64 * 100.0 / total as f64;
                        if w.stalls[c] > 0 {
                            rects.push(Rectangle::new(
                                [(w.start as f64, bottom), (w.end as f64, top)],
                                STALL_COLORS[c].filled(),
                            ));
                        }
                        bottom = top;
                    }
                    ctx.draw_series(rects).map_err(&err)?;
                }
            } else {
                let (_, f, color) = lines[if p == 0 { 0 } else { p - 1 }];
                for run in steps(windows, f) {
                    ctx.draw_series(LineSeries::new(run, color.stroke_width(2)))
                        .map_err(&err)?;
                }
            }
            for &x in &launch_starts {
                ctx.draw_series(std::iter::once(PathElement::new(
                    vec![(x, 0.0), (x, y_max)],
                    RGBColor(0x99, 0x99, 0x99).stroke_width(1),
                )))
                .map_err(&err)?;
            }
        }
        let top = (height as i32 - 30) / 4 + 10;
        legend
            .draw(&Text::new(
                "stall mix",
                (8, top),
                ("sans-serif", 12).into_font().color(&BLACK),
            ))
            .map_err(&err)?;
        let entries: Vec<(&str, RGBColor)> = used
            .iter()
            .rev()
            .map(|&c| (names[c], STALL_COLORS[c]))
            .collect();
        draw_legend(&legend, top + 18, &entries)?;
        root.present().map_err(&err)?;
    }
    Ok(svg)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(start: u64, end: u64, v: f64) -> Window {
        Window {
            launch: 0,
            start,
            end,
            ipc: v,
            stalls: [0; 10],
            l1d_accesses: 0,
            l1d_misses: 0,
            dram_bytes_per_cycle: 0.0,
        }
    }

    #[test]
    fn steps_are_contiguous_until_a_gap() {
        let ws = [w(0, 10, 1.0), w(10, 20, 2.0), w(30, 35, 3.0)];
        let s = steps(&ws, |w| Some(w.ipc));
        assert_eq!(
            s,
            vec![
                vec![(0.0, 1.0), (10.0, 1.0), (10.0, 2.0), (20.0, 2.0)],
                vec![(30.0, 3.0), (35.0, 3.0)]
            ]
        );
        let none = steps(&ws, |w| (w.ipc != 2.0).then_some(w.ipc));
        assert_eq!(none.len(), 2);
    }
}
