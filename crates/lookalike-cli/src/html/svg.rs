//! Plots as hand-written inline SVG: a frame with labelled axes, and the marks of the report's
//! four plots (curves, a histogram, points on log-log axes, labelled points). Every plot has a
//! `<title>` and a `<desc>` that says in words what it shows, and every mark that colour tells
//! apart is also named in text (a legend, a label beside the mark), so nothing is read from
//! colour alone. Numbers are formatted with fixed precision: the same data gives the same bytes.

use std::fmt::Write;

use super::escape;

const WIDTH: f64 = 640.0;
const HEIGHT: f64 = 300.0;
const LEFT: f64 = 72.0;
const RIGHT: f64 = 20.0;
const TOP: f64 = 16.0;
const BOTTOM: f64 = 48.0;

/// One axis: its label, its range and whether it is logarithmic (base 10).
#[derive(Debug, Clone)]
pub struct Axis {
    pub label: String,
    pub min: f64,
    pub max: f64,
    pub log: bool,
}

impl Axis {
    pub fn linear(label: &str, min: f64, max: f64) -> Axis {
        Axis {
            label: label.to_owned(),
            min,
            max: if max > min { max } else { min + 1.0 },
            log: false,
        }
    }

    /// A logarithmic axis from `min` (> 0; below 1 lets a count of 1 show above the axis)
    /// to `max`; ticks are the powers of ten from 1.
    pub fn log(label: &str, min: f64, max: f64) -> Axis {
        let min = min.max(1e-3);
        Axis { label: label.to_owned(), min, max: max.max(min * 10.0), log: true }
    }

    /// Position of `v` on [0, 1] along the axis.
    fn frac(&self, v: f64) -> f64 {
        let f = if self.log {
            (v.max(self.min).log10() - self.min.log10()) / (self.max.log10() - self.min.log10())
        } else {
            (v - self.min) / (self.max - self.min)
        };
        f.clamp(0.0, 1.0)
    }

    /// Tick values: powers of ten on a log axis, five to ten round steps on a linear one.
    fn ticks(&self) -> Vec<f64> {
        if self.log {
            let mut t = Vec::new();
            let mut v = 10f64.powf(self.min.log10().floor());
            while v <= self.max * 1.0001 {
                if v >= self.min * 0.9999 && v >= 1.0 {
                    t.push(v);
                }
                v *= 10.0;
            }
            return t;
        }
        let span = self.max - self.min;
        let raw = span / 5.0;
        let mag = 10f64.powf(raw.log10().floor());
        let step = [1.0, 2.0, 2.5, 5.0, 10.0]
            .iter()
            .map(|m| m * mag)
            .find(|s| span / s <= 6.0)
            .unwrap_or(mag * 10.0);
        let mut t = Vec::new();
        let mut k = (self.min / step).ceil();
        while k * step <= self.max + step * 1e-9 {
            // 3 × 0.1 is 0.30000000000000004: ticks are rounded to the step's precision.
            t.push((k * step * 1e9).round() / 1e9);
            k += 1.0;
        }
        t
    }
}

/// A number as a tick label: thousands and millions of round numbers as `10k`, `2M` (short
/// enough for the left margin on a phone), other integers without decimals, the rest with up to
/// two.
pub fn tick_label(v: f64) -> String {
    if v.abs() >= 1e6 && (v / 1e6).fract() == 0.0 {
        format!("{:.0}M", v / 1e6)
    } else if v.abs() >= 1e3 && (v / 1e3).fract() == 0.0 {
        format!("{:.0}k", v / 1e3)
    } else if v.fract() == 0.0 {
        format!("{v:.0}")
    } else {
        let s = format!("{v:.2}");
        s.trim_end_matches('0').to_owned()
    }
}

/// A plot being drawn: the frame and axes are written at creation, marks are added, [`Plot::end`]
/// closes it.
pub struct Plot {
    svg: String,
    x: Axis,
    y: Axis,
}

impl Plot {
    /// A plot titled `title`, described in words by `desc`.
    pub fn new(id: &str, title: &str, desc: &str, x: Axis, y: Axis) -> Plot {
        let mut svg = String::new();
        let _ = write!(
            svg,
            "<svg class=\"plot\" viewBox=\"0 0 {WIDTH} {HEIGHT}\" role=\"img\" aria-labelledby=\"{id}-t {id}-d\" xmlns=\"http://www.w3.org/2000/svg\">\
             <title id=\"{id}-t\">{}</title><desc id=\"{id}-d\">{}</desc>",
            escape(title),
            escape(desc)
        );
        let plot = Plot { svg, x, y };
        plot.frame()
    }

    fn px(&self, v: f64) -> f64 {
        LEFT + self.x.frac(v) * (WIDTH - LEFT - RIGHT)
    }

    fn py(&self, v: f64) -> f64 {
        HEIGHT - BOTTOM - self.y.frac(v) * (HEIGHT - TOP - BOTTOM)
    }

    fn frame(mut self) -> Plot {
        let (x0, x1, y0, y1) = (LEFT, WIDTH - RIGHT, TOP, HEIGHT - BOTTOM);
        let mut s = String::new();
        for v in self.x.ticks() {
            let x = self.px(v);
            let _ = write!(
                s,
                "<line class=\"grid\" x1=\"{x:.1}\" y1=\"{y0:.1}\" x2=\"{x:.1}\" y2=\"{y1:.1}\"/>\
                 <text class=\"tick\" x=\"{x:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>",
                y1 + 16.0,
                tick_label(v)
            );
        }
        for v in self.y.ticks() {
            let y = self.py(v);
            let _ = write!(
                s,
                "<line class=\"grid\" x1=\"{x0:.1}\" y1=\"{y:.1}\" x2=\"{x1:.1}\" y2=\"{y:.1}\"/>\
                 <text class=\"tick\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
                x0 - 6.0,
                y + 4.0,
                tick_label(v)
            );
        }
        let _ = write!(
            s,
            "<rect class=\"frame\" x=\"{x0:.1}\" y=\"{y0:.1}\" width=\"{:.1}\" height=\"{:.1}\"/>\
             <text class=\"axis\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>\
             <text class=\"axis\" transform=\"translate(14 {:.1}) rotate(-90)\" text-anchor=\"middle\">{}</text>",
            x1 - x0,
            y1 - y0,
            (x0 + x1) / 2.0,
            HEIGHT - 8.0,
            escape(&self.x.label),
            (y0 + y1) / 2.0,
            escape(&self.y.label),
        );
        self.svg.push_str(&s);
        self
    }

    /// A curve through `points`, with `class` for its stroke and `label` written at its end.
    pub fn curve(&mut self, points: &[(f64, f64)], class: &str, label: &str) {
        if points.is_empty() {
            return;
        }
        let d: Vec<String> =
            points.iter().map(|&(x, y)| format!("{:.1},{:.1}", self.px(x), self.py(y))).collect();
        let _ = write!(self.svg, "<polyline class=\"{class}\" points=\"{}\"/>", d.join(" "));
        if !label.is_empty() {
            // Written where the curve crosses one half (or at its middle).
            let (x, y) =
                points.iter().copied().find(|&(_, y)| y >= 0.5).unwrap_or(points[points.len() / 2]);
            let _ = write!(
                self.svg,
                "<text class=\"label\" x=\"{:.1}\" y=\"{:.1}\">{}</text>",
                self.px(x) + 6.0,
                self.py(y) - 6.0,
                escape(label)
            );
        }
    }

    /// A vertical line at `x` labelled `label` (the threshold).
    pub fn vline(&mut self, x: f64, label: &str) {
        let px = self.px(x);
        let _ = write!(
            self.svg,
            "<line class=\"mark\" x1=\"{px:.1}\" y1=\"{TOP:.1}\" x2=\"{px:.1}\" y2=\"{:.1}\"/>\
             <text class=\"label\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
            HEIGHT - BOTTOM,
            px - 4.0,
            TOP + 12.0,
            escape(label)
        );
    }

    /// A bar over `[x0, x1)` of height `y`, with a tooltip.
    pub fn bar(&mut self, x0: f64, x1: f64, y: f64, class: &str, tip: &str) {
        let (a, b) = (self.px(x0), self.px(x1));
        let (top, base) = (self.py(y), HEIGHT - BOTTOM);
        let _ = write!(
            self.svg,
            "<rect class=\"{class}\" x=\"{a:.1}\" y=\"{top:.1}\" width=\"{:.1}\" height=\"{:.1}\"><title>{}</title></rect>",
            (b - a - 0.5).max(0.5),
            (base - top).max(0.0),
            escape(tip)
        );
    }

    /// A point with a tooltip, and a text label beside it when `label` is not empty.
    pub fn point(&mut self, x: f64, y: f64, label: &str, tip: &str) {
        let (px, py) = (self.px(x), self.py(y));
        let _ = write!(
            self.svg,
            "<circle class=\"pt\" cx=\"{px:.1}\" cy=\"{py:.1}\" r=\"4\"><title>{}</title></circle>",
            escape(tip)
        );
        if !label.is_empty() {
            let _ = write!(
                self.svg,
                "<text class=\"label\" x=\"{:.1}\" y=\"{:.1}\">{}</text>",
                px + 6.0,
                py - 4.0,
                escape(label)
            );
        }
    }

    pub fn end(mut self) -> String {
        self.svg.push_str("</svg>");
        self.svg
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_axis_ticks_are_powers_of_ten() {
        let a = Axis::log("size", 2.0, 5000.0);
        assert_eq!(a.ticks(), vec![10.0, 100.0, 1000.0]);
        assert_eq!(Axis::log("size", 1.0, 100.0).ticks(), vec![1.0, 10.0, 100.0]);
        assert_eq!(Axis::log("pairs", 0.5, 100.0).ticks(), vec![1.0, 10.0, 100.0]);
    }

    #[test]
    fn linear_axis_ticks_are_round() {
        assert_eq!(Axis::linear("s", 0.0, 1.0).ticks(), vec![0.0, 0.2, 0.4, 0.6, 0.8, 1.0]);
        assert_eq!(tick_label(0.2), "0.2");
        assert_eq!(tick_label(250.0), "250");
        assert_eq!(tick_label(100_000.0), "100k");
        assert_eq!(tick_label(3_000_000.0), "3M");
        assert_eq!(tick_label(2500.0), "2500");
    }

    #[test]
    fn labels_are_escaped() {
        let mut p =
            Plot::new("p", "a<b", "c&d", Axis::linear("x<", 0.0, 1.0), Axis::linear("y", 0.0, 1.0));
        p.point(0.5, 0.5, "<script>", "t>");
        let svg = p.end();
        assert!(
            svg.contains("a&lt;b") && svg.contains("c&amp;d") && svg.contains("&lt;script&gt;")
        );
        assert!(!svg.contains("<script>"));
    }
}
