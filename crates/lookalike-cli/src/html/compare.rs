//! `lookalike compare --html`: the method table (precision, recall, F1, speed, memory) and a
//! precision-recall scatter with every method named beside its point.

use std::fmt::Write;

use lookalike_metrics::compare::MethodResult;

use super::svg::{Axis, Plot};
use super::{HEAD, escape};

fn opt(v: Option<f64>) -> String {
    v.map_or("–".to_owned(), |x| format!("{x:.3}"))
}

/// The page comparing `rows`, with the corpus and settings line and what quality is measured
/// against.
pub fn render(settings: &str, reference: &str, rows: &[MethodResult]) -> String {
    let mut h = String::new();
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>lookalike compare</title>{HEAD}</head><body>\n<header><h1>lookalike compare</h1></header>\n<main>\n\
         <p>{}</p><p>{}</p>\n",
        escape(settings),
        escape(reference)
    );
    h.push_str("<section id=\"methods\"><h2>Methods</h2><div class=\"wrap\"><table id=\"method-table\"><thead><tr>\
        <th data-sort=\"s\">method</th><th class=\"n\" data-sort=\"n\">precision</th><th class=\"n\" data-sort=\"n\">recall</th>\
        <th class=\"n\" data-sort=\"n\">F1</th><th class=\"n\" data-sort=\"n\">pairs</th><th class=\"n\" data-sort=\"n\">docs/s</th>\
        <th class=\"n\" data-sort=\"n\">MB/s</th><th class=\"n\" data-sort=\"n\">peak MB</th><th class=\"n\" data-sort=\"n\">seconds</th></tr></thead><tbody>");
    for r in rows {
        let _ = write!(
            h,
            "<tr><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td>\
             <td class=\"n\">{:.0}</td><td class=\"n\">{:.1}</td><td class=\"n\">{}</td><td class=\"n\">{:.2}</td></tr>",
            escape(&r.label),
            opt(r.score.precision),
            opt(r.score.recall),
            opt(r.score.f1),
            r.pairs,
            r.docs_per_second,
            r.mb_per_second,
            r.peak_rss_bytes.map_or("–".to_owned(), |b| format!("{:.0}", b as f64 / 1e6)),
            r.wall_seconds,
        );
    }
    h.push_str(
        "</tbody></table></div></section>\n<section id=\"pr\"><h2>Precision and recall</h2>\n",
    );
    let scored: Vec<&MethodResult> =
        rows.iter().filter(|r| r.score.precision.is_some() && r.score.recall.is_some()).collect();
    if scored.is_empty() {
        h.push_str("<p class=\"note\">No method has both a precision and a recall.</p>");
    } else {
        let names: Vec<String> = scored
            .iter()
            .map(|r| {
                format!(
                    "{} (precision {}, recall {})",
                    r.label,
                    opt(r.score.precision),
                    opt(r.score.recall)
                )
            })
            .collect();
        let mut plot = Plot::new(
            "pr",
            "Precision against recall, one point per method",
            &format!("Each method is a point named beside it: {}.", names.join("; ")),
            Axis::linear("recall", 0.0, 1.0),
            Axis::linear("precision", 0.0, 1.0),
        );
        for (r, tip) in scored.iter().zip(&names) {
            let (p, rc) = (r.score.precision.unwrap_or(0.0), r.score.recall.unwrap_or(0.0));
            plot.point(rc, p, &r.label, tip);
        }
        h.push_str(&plot.end());
        h.push_str("<p class=\"note\">Methods whose points overlap are listed with their figures in the table above.</p>");
    }
    h.push_str("</section>\n</main></body></html>\n");
    h
}
