//! The comparison as an SVG scatter plot (`gpusim correlate --svg F`):
//! gpusim cycles (y) against GPGPU-Sim cycles (x) on log-log axes.
//!
//! Written by hand rather than with a plotting crate: the picture is a few
//! dozen elements (a frame, decade ticks, a line, a polygon, one marker
//! per run), a hand-written file is byte-identical on every run and
//! platform by construction (fixed layout, numbers printed with two
//! decimals, no timestamps or generated ids), and it adds no dependency.
//!
//! Layout: a square plot area of [`PLOT_SIZE`] pixels whose top-left
//! corner is at ([`PLOT_LEFT`], [`PLOT_TOP`]); both axes span the same
//! whole decades, from the decade at or below the smallest cycle count to
//! the decade at or above the largest (at least one decade), so `y = x` is
//! the diagonal. A value `v` lies `PLOT_SIZE × (log10 v − lo) / (hi − lo)`
//! pixels right of the left edge (x) or above the bottom edge (y). Above
//! the plot: the title, the reference and machine, one line of summary
//! figures per scheduler and overall (MAE, Pearson's r, runs within ±20 %),
//! and the legend. In the plot: decade grid lines, the shaded band
//! `0.8 x ≤ y ≤ 1.2 x` (clipped to the plot), the dashed line `y = x`, one
//! marker per run (lrr: blue circles, gto: orange squares) with a
//! `<title>` tooltip naming the kernel and its figures, and a small label
//! naming each kernel with runs outside the band (and which schedulers)
//! beside the first such marker.

use std::fmt::Write as _;

use super::reference::Sched;
use super::{BAND, Correlation};

/// Left edge of the plot area (pixels).
pub const PLOT_LEFT: f64 = 90.0;
/// Top edge of the plot area (pixels).
pub const PLOT_TOP: f64 = 130.0;
/// Width and height of the plot area (pixels).
pub const PLOT_SIZE: f64 = 480.0;
/// Width of the whole picture.
pub const WIDTH: f64 = PLOT_LEFT + PLOT_SIZE + 40.0;
/// Height of the whole picture.
pub const HEIGHT: f64 = PLOT_TOP + PLOT_SIZE + 60.0;

const LRR_COLOUR: &str = "#1f77b4";
const GTO_COLOUR: &str = "#e6550d";
const BAND_COLOUR: &str = "#2ca02c";

/// The decades both axes span: `10^lo ..= 10^hi`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decades {
    /// Exponent of the lowest decade.
    pub lo: i32,
    /// Exponent of the highest decade (greater than `lo`).
    pub hi: i32,
}

impl Decades {
    /// The smallest whole-decade range holding every value of `values`
    /// (positive values only; 1 to 10 when there is none).
    pub fn covering(values: impl IntoIterator<Item = f64>) -> Decades {
        let mut range: Option<(f64, f64)> = None;
        for v in values.into_iter().filter(|v| *v > 0.0 && v.is_finite()) {
            range = Some(range.map_or((v, v), |(a, b)| (a.min(v), b.max(v))));
        }
        let Some((min, max)) = range else {
            return Decades { lo: 0, hi: 1 };
        };
        let lo = min.log10().floor() as i32;
        let hi = (max.log10().ceil() as i32).max(lo + 1);
        Decades { lo, hi }
    }

    /// Pixels from the axis origin to value `v` (0 at `10^lo`,
    /// [`PLOT_SIZE`] at `10^hi`).
    pub fn offset(self, v: f64) -> f64 {
        PLOT_SIZE * (v.log10() - f64::from(self.lo)) / f64::from(self.hi - self.lo)
    }

    /// The x pixel of GPGPU-Sim cycles `v`.
    pub fn x(self, v: f64) -> f64 {
        PLOT_LEFT + self.offset(v)
    }

    /// The y pixel of gpusim cycles `v`.
    pub fn y(self, v: f64) -> f64 {
        PLOT_TOP + PLOT_SIZE - self.offset(v)
    }
}

/// `10^k` as an axis label: `1`, `10`, `100`, `1k` … `100G`, else `1e12`.
pub fn decade_label(k: i32) -> String {
    const NAMES: [&str; 4] = ["", "k", "M", "G"];
    if (0..12).contains(&k) {
        format!("{}{}", 10u64.pow((k % 3) as u32), NAMES[(k / 3) as usize])
    } else {
        format!("1e{k}")
    }
}

/// Escapes text for XML content and attribute values.
pub fn escape(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&apos;"),
            c if c.is_control() => {}
            c => o.push(c),
        }
    }
    o
}

/// One marker: kernel, scheduler, GPGPU-Sim cycles, gpusim cycles, ratio.
struct Point<'a> {
    kernel: &'a str,
    sched: Sched,
    reference: u64,
    gpusim: u64,
    ratio: f64,
}

fn points(c: &Correlation) -> Vec<Point<'_>> {
    let mut v = Vec::new();
    for k in &c.kernels {
        for r in &k.runs {
            if let (Some(g), Some(ratio)) = (r.gpusim, r.cycles_ratio)
                && g.cycles > 0
                && r.reference.cycles > 0
            {
                v.push(Point {
                    kernel: &k.name,
                    sched: r.sched,
                    reference: r.reference.cycles,
                    gpusim: g.cycles,
                    ratio,
                });
            }
        }
    }
    v
}

fn summary_line(c: &Correlation, scope: &str) -> Option<String> {
    let s = c.summary(scope)?;
    let mae = s
        .mae
        .map_or("n/a".to_string(), |m| format!("{:.1}%", 100.0 * m));
    let r = s.pearson_r.map_or("n/a".to_string(), |r| format!("{r:.4}"));
    Some(format!(
        "{scope}: MAE {mae}, r {r}, {}/{} within ±20%",
        s.within_20, s.runs
    ))
}

/// The marker of a scheduler at (`x`, `y`), with `body` inside (a title).
fn marker(sched: Sched, x: f64, y: f64, class: &str, body: &str) -> String {
    match sched {
        Sched::Lrr => format!(
            "<circle class=\"{class}\" cx=\"{x:.2}\" cy=\"{y:.2}\" r=\"4.5\" fill=\"{LRR_COLOUR}\" fill-opacity=\"0.85\" stroke=\"white\" stroke-width=\"0.8\">{body}</circle>"
        ),
        Sched::Gto => format!(
            "<rect class=\"{class}\" x=\"{:.2}\" y=\"{:.2}\" width=\"8\" height=\"8\" fill=\"{GTO_COLOUR}\" fill-opacity=\"0.85\" stroke=\"white\" stroke-width=\"0.8\">{body}</rect>",
            x - 4.0,
            y - 4.0
        ),
    }
}

/// The scatter plot of a comparison, as a complete SVG document.
pub fn scatter(c: &Correlation) -> String {
    let pts = points(c);
    let d = Decades::covering(
        pts.iter()
            .flat_map(|p| [p.reference as f64, p.gpusim as f64]),
    );
    let (l, t, s) = (PLOT_LEFT, PLOT_TOP, PLOT_SIZE);
    let (r, b) = (l + s, t + s);
    let mut o = String::new();
    let _ = writeln!(o, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>");
    let _ = writeln!(
        o,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{WIDTH}\" height=\"{HEIGHT}\" viewBox=\"0 0 {WIDTH} {HEIGHT}\" font-family=\"Helvetica, Arial, sans-serif\">"
    );
    let title = format!("gpusim vs {}: cycles", c.provenance.simulator);
    let _ = writeln!(o, "<title>{}</title>", escape(&title));
    let _ = writeln!(
        o,
        "<rect width=\"{WIDTH}\" height=\"{HEIGHT}\" fill=\"white\"/>"
    );
    let _ = writeln!(
        o,
        "<defs><clipPath id=\"plot-area\"><rect x=\"{l}\" y=\"{t}\" width=\"{s}\" height=\"{s}\"/></clipPath></defs>"
    );

    // Title area: title, what was compared, summaries, legend.
    let cx = WIDTH / 2.0;
    let _ = writeln!(
        o,
        "<text class=\"title\" x=\"{cx}\" y=\"24\" text-anchor=\"middle\" font-size=\"15\" font-weight=\"bold\">gpusim vs GPGPU-Sim: cycles per kernel and scheduler</text>"
    );
    // The simulator's name without its parenthesized details, so the line
    // fits the picture's width.
    let simulator = c
        .provenance
        .simulator
        .split(" (")
        .next()
        .unwrap_or_default();
    let what = format!(
        "gpusim config {} · {simulator} figures from {}",
        c.config, c.reference_file
    );
    let _ = writeln!(
        o,
        "<text class=\"subtitle\" x=\"{cx}\" y=\"41\" text-anchor=\"middle\" font-size=\"10\" fill=\"#555\">{}</text>",
        escape(&what)
    );
    let scopes: Vec<&str> = c
        .schedulers
        .iter()
        .map(|s| s.name())
        .chain(std::iter::once("all"))
        .collect();
    for (i, scope) in scopes.iter().enumerate() {
        if let Some(line) = summary_line(c, scope) {
            let _ = writeln!(
                o,
                "<text class=\"summary\" x=\"{cx}\" y=\"{}\" text-anchor=\"middle\" font-size=\"12\">{}</text>",
                59 + 15 * i,
                escape(&line)
            );
        }
    }
    let ly = t - 14.0;
    let _ = writeln!(o, "<g class=\"legend\" font-size=\"11\">");
    let _ = writeln!(
        o,
        "{}",
        marker(Sched::Lrr, l + 6.0, ly, "legend-marker lrr", "")
    );
    let _ = writeln!(o, "<text x=\"{}\" y=\"{}\">lrr</text>", l + 15.0, ly + 4.0);
    let _ = writeln!(
        o,
        "{}",
        marker(Sched::Gto, l + 56.0, ly, "legend-marker gto", "")
    );
    let _ = writeln!(o, "<text x=\"{}\" y=\"{}\">gto</text>", l + 65.0, ly + 4.0);
    let _ = writeln!(
        o,
        "<line x1=\"{}\" y1=\"{ly}\" x2=\"{}\" y2=\"{ly}\" stroke=\"#333\" stroke-width=\"1.2\" stroke-dasharray=\"5 3\"/>",
        l + 102.0,
        l + 126.0
    );
    let _ = writeln!(
        o,
        "<text x=\"{}\" y=\"{}\">y = x</text>",
        l + 131.0,
        ly + 4.0
    );
    let _ = writeln!(
        o,
        "<rect x=\"{}\" y=\"{}\" width=\"24\" height=\"10\" fill=\"{BAND_COLOUR}\" fill-opacity=\"0.18\"/>",
        l + 178.0,
        ly - 5.0
    );
    let _ = writeln!(
        o,
        "<text x=\"{}\" y=\"{}\">within ±{:.0}% of GPGPU-Sim</text>",
        l + 207.0,
        ly + 4.0,
        100.0 * BAND
    );
    let _ = writeln!(o, "</g>");

    // Grid, band, identity line, frame.
    let _ = writeln!(o, "<g class=\"grid\" stroke=\"#ddd\" stroke-width=\"1\">");
    for k in d.lo..=d.hi {
        let v = 10f64.powi(k);
        let (x, y) = (d.x(v), d.y(v));
        let _ = writeln!(
            o,
            "<line x1=\"{x:.2}\" y1=\"{t}\" x2=\"{x:.2}\" y2=\"{b}\"/>"
        );
        let _ = writeln!(
            o,
            "<line x1=\"{l}\" y1=\"{y:.2}\" x2=\"{r}\" y2=\"{y:.2}\"/>"
        );
    }
    let _ = writeln!(o, "</g>");
    let (lo, hi) = (10f64.powi(d.lo), 10f64.powi(d.hi));
    let (up, down) = (1.0 + BAND, 1.0 - BAND);
    let _ = writeln!(
        o,
        "<polygon class=\"band\" clip-path=\"url(#plot-area)\" points=\"{:.2},{:.2} {:.2},{:.2} {:.2},{:.2} {:.2},{:.2}\" fill=\"{BAND_COLOUR}\" fill-opacity=\"0.18\"/>",
        d.x(lo),
        d.y(lo * up),
        d.x(hi),
        d.y(hi * up),
        d.x(hi),
        d.y(hi * down),
        d.x(lo),
        d.y(lo * down)
    );
    let _ = writeln!(
        o,
        "<line class=\"identity\" x1=\"{l}\" y1=\"{b}\" x2=\"{r}\" y2=\"{t}\" stroke=\"#333\" stroke-width=\"1.2\" stroke-dasharray=\"5 3\"/>"
    );
    let _ = writeln!(
        o,
        "<rect class=\"frame\" x=\"{l}\" y=\"{t}\" width=\"{s}\" height=\"{s}\" fill=\"none\" stroke=\"#333\"/>"
    );

    // Decade ticks with labels, minor ticks at 2..9 of each decade.
    let _ = writeln!(o, "<g class=\"ticks\" stroke=\"#333\">");
    for k in d.lo..=d.hi {
        let v = 10f64.powi(k);
        let (x, y) = (d.x(v), d.y(v));
        let _ = writeln!(
            o,
            "<line x1=\"{x:.2}\" y1=\"{b}\" x2=\"{x:.2}\" y2=\"{}\"/>",
            b + 6.0
        );
        let _ = writeln!(
            o,
            "<line x1=\"{}\" y1=\"{y:.2}\" x2=\"{l}\" y2=\"{y:.2}\"/>",
            l - 6.0
        );
        if k < d.hi {
            for m in 2..10 {
                let v = f64::from(m) * v;
                let (x, y) = (d.x(v), d.y(v));
                let _ = writeln!(
                    o,
                    "<line x1=\"{x:.2}\" y1=\"{b}\" x2=\"{x:.2}\" y2=\"{}\"/>",
                    b + 3.0
                );
                let _ = writeln!(
                    o,
                    "<line x1=\"{}\" y1=\"{y:.2}\" x2=\"{l}\" y2=\"{y:.2}\"/>",
                    l - 3.0
                );
            }
        }
    }
    let _ = writeln!(o, "</g>");
    let _ = writeln!(
        o,
        "<g class=\"tick-labels\" font-size=\"11\" fill=\"#333\">"
    );
    for k in d.lo..=d.hi {
        let v = 10f64.powi(k);
        let label = decade_label(k);
        let _ = writeln!(
            o,
            "<text x=\"{:.2}\" y=\"{}\" text-anchor=\"middle\">{label}</text>",
            d.x(v),
            b + 19.0
        );
        let _ = writeln!(
            o,
            "<text x=\"{}\" y=\"{:.2}\" text-anchor=\"end\">{label}</text>",
            l - 9.0,
            d.y(v) + 4.0
        );
    }
    let _ = writeln!(o, "</g>");
    let _ = writeln!(
        o,
        "<text class=\"axis-title\" x=\"{:.2}\" y=\"{}\" text-anchor=\"middle\" font-size=\"12\">GPGPU-Sim cycles</text>",
        l + s / 2.0,
        b + 42.0
    );
    let _ = writeln!(
        o,
        "<text class=\"axis-title\" x=\"{}\" y=\"{:.2}\" text-anchor=\"middle\" font-size=\"12\" transform=\"rotate(-90 {} {:.2})\">gpusim cycles</text>",
        l - 52.0,
        t + s / 2.0,
        l - 52.0,
        t + s / 2.0
    );

    // The runs: lrr first, then gto, each in file order.
    let _ = writeln!(o, "<g class=\"points\">");
    for sched in Sched::ALL {
        for p in pts.iter().filter(|p| p.sched == sched) {
            let tip = format!(
                "<title>{} ({}): gpusim {} cycles, GPGPU-Sim {} cycles, ratio {:.3}</title>",
                escape(p.kernel),
                sched.name(),
                p.gpusim,
                p.reference,
                p.ratio
            );
            let class = format!("point {}", sched.name());
            let (x, y) = (d.x(p.reference as f64), d.y(p.gpusim as f64));
            let _ = writeln!(o, "{}", marker(sched, x, y, &class, &tip));
        }
    }
    let _ = writeln!(o, "</g>");
    // One label per kernel with runs outside the band, beside its first
    // such run, naming the schedulers.
    let _ = writeln!(o, "<g class=\"labels\" font-size=\"9\" fill=\"#444\">");
    let outside: Vec<&Point<'_>> = pts
        .iter()
        .filter(|p| (p.ratio - 1.0).abs() > BAND + 1e-12)
        .collect();
    for (i, p) in outside.iter().enumerate() {
        if outside[..i].iter().any(|q| q.kernel == p.kernel) {
            continue;
        }
        let scheds: Vec<&str> = outside
            .iter()
            .filter(|q| q.kernel == p.kernel)
            .map(|q| q.sched.name())
            .collect();
        let (x, y) = (d.x(p.reference as f64), d.y(p.gpusim as f64));
        let _ = writeln!(
            o,
            "<text class=\"label\" x=\"{:.2}\" y=\"{:.2}\">{} ({})</text>",
            x + 7.0,
            y - 6.0,
            escape(p.kernel),
            scheds.join(", ")
        );
    }
    let _ = writeln!(o, "</g>");
    if pts.is_empty() {
        let _ = writeln!(
            o,
            "<text x=\"{:.2}\" y=\"{:.2}\" text-anchor=\"middle\" font-size=\"13\" fill=\"#900\">no successful run to plot</text>",
            l + s / 2.0,
            t + s / 2.0
        );
    }
    let _ = writeln!(o, "</svg>");
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decades_cover_the_values() {
        assert_eq!(
            Decades::covering([1500.0, 99_000.0]),
            Decades { lo: 3, hi: 5 }
        );
        // An exact power of ten is its own decade boundary.
        assert_eq!(
            Decades::covering([1000.0, 100_000.0]),
            Decades { lo: 3, hi: 5 }
        );
        // One value: at least one decade.
        assert_eq!(Decades::covering([1000.0]), Decades { lo: 3, hi: 4 });
        assert_eq!(Decades::covering([]), Decades { lo: 0, hi: 1 });
    }

    #[test]
    fn decade_labels() {
        let labels: Vec<String> = (0..13).map(decade_label).collect();
        assert_eq!(
            labels,
            [
                "1", "10", "100", "1k", "10k", "100k", "1M", "10M", "100M", "1G", "10G", "100G",
                "1e12"
            ]
        );
        assert_eq!(decade_label(-1), "1e-1");
    }

    #[test]
    fn escape_xml() {
        assert_eq!(escape("a<b & \"c\"'"), "a&lt;b &amp; &quot;c&quot;&apos;");
    }
}
