//! The report page: its sections, in the order a person reads them, and the size cap.

use std::collections::BTreeMap;
use std::fmt::Write;

use lookalike::curve::{cosine_at_distance, hamming_probability};
use lookalike::sketch::simhash::distance_for_jaccard;
use lookalike::sketch::supershingles::{SuperShingleMode, match_probability};
use serde_json::Value;

use super::data::{ClusterInfo, Rate, RunData, SampledPair};
use super::diff::side_by_side;
use super::svg::{Axis, Plot};
use super::{BAND, HEAD, escape};
use crate::stats::{Curve, RunStats};

/// Rows of a duplicate-rate table.
const TABLE_ROWS: usize = 30;
/// Inputs listed on the run card.
const INPUTS_LISTED: usize = 10;

/// How much of the sample a page shows.
#[derive(Debug, Clone, Copy)]
struct Limits {
    pairs_per_band: usize,
    text_chars: usize,
}

/// The page of `data` and the run's figures `stats`, at most `max_bytes` long when sampling can
/// make it so: pairs per band and text lengths shrink until it fits.
pub fn render(data: &RunData, stats: &RunStats, max_bytes: usize) -> String {
    let mut limits = Limits { pairs_per_band: 4, text_chars: 4000 };
    loop {
        let html = page(data, stats, limits, max_bytes);
        if html.len() <= max_bytes || limits.pairs_per_band == 0 {
            return html;
        }
        if limits.text_chars > 500 {
            limits.text_chars /= 2;
        } else {
            limits.pairs_per_band -= 1;
        }
    }
}

fn pct(part: u64, whole: u64) -> String {
    if whole == 0 {
        "–".to_owned()
    } else {
        format!("{:.1}%", 100.0 * part as f64 / whole as f64)
    }
}

/// A setting as the stats JSON writes it: a string as it is, a number in JSON's form.
fn setting(v: impl Into<Value>) -> String {
    match v.into() {
        Value::String(x) => x,
        Value::Null => "–".to_owned(),
        other => other.to_string(),
    }
}

fn page(d: &RunData, s: &RunStats, limits: Limits, max_bytes: usize) -> String {
    let mut h = String::with_capacity(64 * 1024);
    let title = match d.inputs.first() {
        Some(first) if d.inputs.len() == 1 => format!("lookalike report: {first}"),
        Some(first) => format!("lookalike report: {first} and {} more", d.inputs.len() - 1),
        None => "lookalike report".to_owned(),
    };
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>{}</title>{HEAD}</head><body>\n<header><h1>{}</h1>\
         <nav aria-label=\"sections\"><a href=\"#run\">Run</a><a href=\"#similarity\">Similarity</a>\
         <a href=\"#clusters\">Clusters</a><a href=\"#pairs\">Pairs</a><a href=\"#rates\">Duplicate rates</a></nav></header>\n<main>\n",
        escape(&title),
        escape(&title)
    );
    run_card(&mut h, d, s);
    similarity(&mut h, d, s);
    clusters(&mut h, d, s);
    pairs(&mut h, d, s, limits);
    rates(&mut h, d);
    let _ = write!(
        h,
        "<footer><h2>About this page</h2><p class=\"note\" id=\"sampling\">Sampled to stay under {:.1} MB: \
         up to {} pairs per 0.05 similarity band (drawn by a hash of the ids and the seed), texts cut at {} characters, \
         the {} largest clusters, the {} largest rows of each table. Written by lookalike {}; \
         self-contained (no network), the same bytes for the same run except the measured figures.</p></footer>\n</main></body></html>\n",
        max_bytes as f64 / 1e6,
        limits.pairs_per_band,
        limits.text_chars,
        super::data::CLUSTERS_LISTED,
        TABLE_ROWS,
        escape(&d.version),
    );
    h
}

/// A table row `label | value` whose value cell carries `data-stat` (the JSON path of the
/// figure in `--stats`), so tests and scripts can read the figures back.
fn stat_row(h: &mut String, label: &str, path: &str, value: &str) {
    let _ = write!(
        h,
        "<tr><th scope=\"row\">{}</th><td data-stat=\"{path}\">{}</td></tr>",
        escape(label),
        escape(value)
    );
}

fn run_card(h: &mut String, d: &RunData, s: &RunStats) {
    let c = &s.config.shown;
    let p = &s.pipeline;
    let documents = s.documents;
    let duplicates = p.duplicates;
    // One exact/near split on the whole page: each removed document's match to the document its
    // cluster keeps, as `--report` gives it and as the tables below count it.
    let fates = d.fates();
    h.push_str("<section id=\"run\"><h2>Run</h2>\n<div class=\"cards\">");
    // `data-stat`: the figure's path in `--stats`; `data-fate`: records of that fate in `--report`.
    for (label, value, attr) in [
        ("documents read", documents, "data-stat=\"documents\""),
        ("kept", s.kept, "data-stat=\"kept\""),
        ("removed as exact copies", fates.exact, "data-fate=\"exact\""),
        ("removed as near duplicates", fates.near, "data-fate=\"near\""),
        ("skipped", s.skipped, "data-stat=\"skipped\""),
    ] {
        let _ = write!(
            h,
            "<div class=\"card\"><b {attr}>{value}</b>{label} <span class=\"muted\">{}</span></div>",
            if label == "documents read" { String::new() } else { pct(value, documents) }
        );
    }
    let copies_of_near = p.exact_duplicates.saturating_sub(fates.exact);
    let _ = writeln!(
        h,
        "</div>\n<p id=\"split\">Of the <b data-stat=\"pipeline.duplicates\">{duplicates}</b> documents removed, \
         <b data-fate=\"exact\">{}</b> are exact copies of the document their cluster keeps and \
         <b data-fate=\"near\">{}</b> are near duplicates of it{}. \
         Every table on this page splits them this way, as the <code>match</code> field of <code>--report</code> does.</p>",
        fates.exact,
        fates.near,
        if copies_of_near > 0 {
            format!(
                " (<span data-derived=\"copies-of-near\">{copies_of_near}</span> of these are exact copies of another removed document, which is itself near the one kept)"
            )
        } else {
            String::new()
        },
    );
    h.push_str("<div class=\"wrap\"><table><tbody>");
    let inputs: Vec<String> = d.inputs.iter().take(INPUTS_LISTED).map(|i| escape(i)).collect();
    let more = d.inputs.len().saturating_sub(INPUTS_LISTED);
    let _ = write!(
        h,
        "<tr><th scope=\"row\">inputs</th><td>{}{}</td></tr>",
        inputs.join("<br>"),
        if more > 0 { format!("<br>and {more} more") } else { String::new() }
    );
    if !s.files_ignored.is_empty() {
        let line = crate::summary::ignored_line(&s.files_ignored);
        let value = line.split_once(": ").map_or(line.as_str(), |(_, v)| v);
        stat_row(h, "files ignored (found in folders, not read)", "files_ignored", value);
    }
    let describe = s.method_description.as_str();
    let describe = describe.strip_prefix("method ").unwrap_or(describe);
    let _ = write!(
        h,
        "<tr><th scope=\"row\">method</th><td data-stat=\"config.method\">{}</td></tr>",
        escape(describe)
    );
    for (key, v) in [
        ("threshold", setting(c.threshold)),
        ("shingle", c.shingle.clone()),
        ("measure", c.measure.clone()),
        ("verify", c.verify.clone()),
        ("cluster", c.cluster.clone()),
        ("keep", c.keep.clone()),
        ("seed", setting(c.seed)),
    ] {
        stat_row(h, key, &format!("config.{key}"), &v);
    }
    let _ = write!(
        h,
        "<tr><th scope=\"row\">version</th><td>lookalike {}</td></tr>",
        escape(&d.version)
    );
    stat_row(h, "duplicates removed", "pipeline.duplicates", &duplicates.to_string());
    // The count the summary and `--stats` give, reconciled with the split above.
    let reconciled = if copies_of_near > 0 {
        format!(
            "{} of them removed as exact copies above; {copies_of_near} are copies of a removed near duplicate, counted as near duplicates",
            fates.exact
        )
    } else {
        "all of them removed as exact copies above".to_owned()
    };
    let _ = write!(
        h,
        "<tr><th scope=\"row\">exact copies of an earlier document</th>\
         <td><span data-stat=\"pipeline.exact_duplicates\">{}</span> <span class=\"muted\">({reconciled})</span></td></tr>",
        p.exact_duplicates,
    );
    stat_row(
        h,
        "near-duplicate pairs (distinct texts)",
        "pipeline.near_pairs",
        &p.near_pairs.to_string(),
    );
    stat_row(h, "pairs listed", "pipeline.pairs", &p.pairs.to_string());
    stat_row(h, "clusters", "pipeline.clusters", &p.clusters.to_string());
    stat_row(h, "candidate pairs", "pipeline.candidates.pairs", &p.candidates.pairs.to_string());
    stat_row(h, "input errors", "input_errors", &s.input_errors.to_string());
    h.push_str("</tbody></table></div>\n");
    if !s.skipped_by_reason.is_empty() {
        h.push_str("<h3>Skipped, by reason</h3><div class=\"wrap\"><table><thead><tr><th>reason</th><th class=\"n\">records</th></tr></thead><tbody>");
        for (reason, n) in &s.skipped_by_reason {
            let _ = write!(h, "<tr><td>{}</td><td class=\"n\">{n}</td></tr>", escape(reason));
        }
        h.push_str("</tbody></table></div>\n");
    }
    // The measured figures: the only ones that differ between two runs of the same input.
    h.push_str("<h3>Time and memory (measured)</h3><div class=\"wrap\"><table id=\"measured\"><thead><tr><th>stage</th><th class=\"n\">seconds</th></tr></thead><tbody>");
    let _ = write!(
        h,
        "<tr><td>reading, extraction and sketching</td><td class=\"n\">{:.2}</td></tr>",
        s.read_seconds
    );
    for st in &s.stages {
        let _ = write!(
            h,
            "<tr><td>{}</td><td class=\"n\">{:.2}</td></tr>",
            escape(&st.stage),
            st.seconds
        );
    }
    let _ = writeln!(
        h,
        "<tr><th scope=\"row\">total</th><td class=\"n\">{:.2}</td></tr>\
         <tr><th scope=\"row\">threads</th><td class=\"n\">{}</td></tr>\
         <tr><th scope=\"row\">MB/s</th><td class=\"n\">{:.1}</td></tr>\
         <tr><th scope=\"row\">peak memory (MB)</th><td class=\"n\">{}</td></tr></tbody></table></div>",
        s.seconds,
        s.threads,
        s.mb_per_second,
        s.peak_rss_bytes.map_or("–".to_owned(), |x| format!("{:.0}", x as f64 / 1e6)),
    );
    curve(h, d, s);
    h.push_str("</section>\n");
}

/// The candidate curve of the method: P(a pair becomes a candidate) against its similarity.
fn curve(h: &mut String, d: &RunData, s: &RunStats) {
    let t = d.threshold;
    let grid: Vec<f64> = (0..=100).map(|i| f64::from(i) / 100.0).collect();
    let method = &s.config.shown.method;
    h.push_str("<h3>Candidate curve</h3>");
    if let Some(lookalike::LshParams { bands: b, rows: r }) = s.lsh {
        let p = |x: f64| 1.0 - (1.0 - x.powi(r as i32)).powi(b as i32);
        let mut plot = Plot::new(
            "curve",
            &format!("LSH S-curve: {b} bands × {r} rows"),
            &format!(
                "Probability that two documents become candidates against their Jaccard similarity, for {b} bands of {r} rows; at the threshold {t} it is {:.3}.",
                p(t)
            ),
            Axis::linear("Jaccard similarity", 0.0, 1.0),
            Axis::linear("P(candidate)", 0.0, 1.0),
        );
        let pts: Vec<(f64, f64)> = grid.iter().map(|&x| (x, p(x))).collect();
        plot.curve(&pts, "curve", &format!("{b} × {r}"));
        plot.vline(t, &format!("threshold {t}"));
        h.push_str(&format!("<div class=\"wrap\">{}</div>", plot.end()));
        let _ = writeln!(
            h,
            "<p class=\"note\">A pair at the threshold ({t}) becomes a candidate with probability {:.3}; at {:.2}, {:.3}; at {:.2}, {:.3}.</p>",
            p(t),
            (t - 0.1).max(0.0),
            p((t - 0.1).max(0.0)),
            (t + 0.1).min(1.0),
            p((t + 0.1).min(1.0)),
        );
    } else if let Curve::SuperShingles(cfg) = &method.curve {
        let mode = match cfg.mode {
            SuperShingleMode::Single => "single",
            SuperShingleMode::Pairs => "pairs",
        };
        let p = |x: f64| match_probability(x, cfg);
        let mut plot = Plot::new(
            "curve",
            "Super-shingle match curve",
            &format!(
                "Probability that two documents share a key against their similarity, for {} super-shingles of {} min-hashes ({} mode); at the threshold {t} it is {:.3}.",
                cfg.groups,
                cfg.per_group,
                mode,
                p(t)
            ),
            Axis::linear("Jaccard similarity", 0.0, 1.0),
            Axis::linear("P(candidate)", 0.0, 1.0),
        );
        let pts: Vec<(f64, f64)> = grid.iter().map(|&x| (x, p(x))).collect();
        plot.curve(&pts, "curve", &format!("{} × {}", cfg.groups, cfg.per_group));
        plot.vline(t, &format!("threshold {t}"));
        h.push_str(&format!("<div class=\"wrap\">{}</div>", plot.end()));
    } else if let Curve::SimHash(max_distance) = method.curve {
        let k = max_distance.unwrap_or_else(|| distance_for_jaccard(t));
        let cos_grid: Vec<f64> = (0..=100).map(|i| 0.5 + f64::from(i) / 200.0).collect();
        let mut plot = Plot::new(
            "curve",
            &format!("SimHash: Hamming distance ≤ {k}"),
            &format!(
                "Probability that two 64-bit fingerprints are within Hamming distance {k} against the cosine similarity of the documents; distance {k} is cosine {:.3}.",
                cosine_at_distance(k)
            ),
            Axis::linear("cosine similarity", 0.5, 1.0),
            Axis::linear("P(candidate)", 0.0, 1.0),
        );
        let pts: Vec<(f64, f64)> =
            cos_grid.iter().map(|&c| (c, hamming_probability(c, k))).collect();
        plot.curve(&pts, "curve", &format!("k = {k}"));
        plot.vline(cosine_at_distance(k), &format!("distance {k}"));
        h.push_str(&format!("<div class=\"wrap\">{}</div>", plot.end()));
    } else {
        let _ = writeln!(
            h,
            "<p class=\"note\">Method {}: candidates are documents with an equal signature or a shared sampled feature; it has no candidate curve.</p>",
            escape(&method.name)
        );
    }
}

fn similarity(h: &mut String, d: &RunData, s: &RunStats) {
    let v = &s.pipeline.verification;
    let (verified, rejected) = (v.verified, v.rejected);
    let t = d.threshold;
    h.push_str("<section id=\"similarity\"><h2>Similarity of verified candidates</h2>\n");
    let _ = writeln!(
        h,
        "<p>Verification compared <b data-stat=\"pipeline.verification.verified\">{verified}</b> candidate pairs of distinct texts \
         and rejected <b data-stat=\"pipeline.verification.rejected\">{rejected}</b> ({}) below the threshold {t}; \
         <b data-stat=\"pipeline.near_pairs\">{}</b> were accepted. Exact copies are found by fingerprint before this stage and are not counted here.</p>",
        pct(rejected, verified),
        s.pipeline.near_pairs,
    );
    let hist = &v.histogram;
    if hist.is_empty() {
        h.push_str("<p class=\"note\">No candidate pair was verified.</p></section>\n");
        return;
    }
    let max = hist.iter().copied().max().unwrap_or(1).max(1);
    let mut plot = Plot::new(
        "hist",
        "Similarity of verified candidate pairs",
        &format!(
            "Histogram of the similarity of {verified} verified candidate pairs in bins of 0.01, pairs on a logarithmic scale; {rejected} fall below the threshold {t} (grey bars, left of the dashed line) and were rejected, the others (blue bars, right of it) were accepted. The tallest bin holds {max} pairs."
        ),
        Axis::linear("similarity", 0.0, 1.01),
        Axis::log("pairs (log scale)", 0.5, max as f64 * 1.5),
    );
    for (i, &n) in hist.iter().enumerate() {
        if n == 0 {
            continue;
        }
        let lo = i as f64 / 100.0;
        let class = if lo + 0.01 <= t + 1e-9 { "rej" } else { "acc" };
        let range = if i == 100 { "1".to_owned() } else { format!("{lo:.2}–{:.2}", lo + 0.01) };
        plot.bar(lo, lo + 0.01, n as f64, class, &format!("{range}: {n} pairs"));
    }
    plot.vline(t, &format!("threshold {t}"));
    h.push_str(&format!("<div class=\"wrap\">{}</div>", plot.end()));
    let _ = writeln!(
        h,
        "<p class=\"note\">Grey bars, left of the dashed line: rejected (below {t}); blue bars, right of it: accepted. \
         Hover a bar for its count; the tallest bin holds {max} pairs.</p>"
    );
    h.push_str("</section>\n");
}

fn cluster_table(h: &mut String, list: &[ClusterInfo], t: f64, keep: &str) {
    h.push_str("<div class=\"wrap\"><table class=\"clusters\"><thead><tr><th class=\"n\">cluster</th><th class=\"n\">size</th><th>representative (kept)</th><th>members by match</th><th class=\"n\">lowest similarity to it</th><th>first members</th></tr></thead><tbody>");
    for c in list {
        let kinds: Vec<String> =
            c.kinds.iter().map(|(k, n)| format!("{n} {}", escape(k))).collect();
        let flag = if c.below > 0 {
            format!(" <span class=\"flag\">chained: {} below {t}</span>", c.below)
        } else {
            String::new()
        };
        let members: Vec<String> = c
            .members
            .iter()
            .map(|m| format!("{} ({:.3})", breakable(&link(&m.id)), m.similarity))
            .collect();
        let more = (c.size - 1).saturating_sub(c.members.len());
        let _ = write!(
            h,
            "<tr><td class=\"n\" data-label=\"cluster\">{}</td><td class=\"n\" data-label=\"size\">{}</td>\
             <td class=\"ids\" data-label=\"kept\">{}<br><span class=\"muted\">kept: {keep}</span></td>\
             <td data-label=\"members\">{}</td><td class=\"n\" data-label=\"lowest similarity\">{:.3}{flag}</td>\
             <td class=\"ids\" data-label=\"first members\">{}{}</td></tr>",
            c.number,
            c.size,
            breakable(&link(&c.representative)),
            kinds.join(", "),
            c.min_similarity,
            members.join("<br>"),
            if more > 0 { format!("<br>and {more} more") } else { String::new() },
        );
    }
    h.push_str("</tbody></table></div>\n");
}

fn clusters(h: &mut String, d: &RunData, s: &RunStats) {
    let t = d.threshold;
    let keep = match s.config.shown.keep.as_str() {
        "longest" => "the longest text",
        _ => "first in input order",
    };
    let mode = s.config.shown.cluster.as_str();
    let _ = write!(
        h,
        "<section id=\"clusters\"><h2>Clusters</h2>\n<p><b data-stat=\"pipeline.clusters\">{}</b> clusters of two or more documents (mode <code>{}</code>); the representative of each is kept: {keep}.</p>\n",
        d.clusters,
        escape(mode)
    );
    if d.cluster_sizes.is_empty() {
        h.push_str("<p class=\"note\">No cluster.</p></section>\n");
        return;
    }
    let max_size = *d.cluster_sizes.keys().last().unwrap_or(&2) as f64;
    let max_count = d.cluster_sizes.values().copied().max().unwrap_or(1) as f64;
    let mut plot = Plot::new(
        "sizes",
        "Cluster sizes (log-log)",
        &format!(
            "Number of clusters of each size, both axes logarithmic: {} distinct sizes from 2 to {max_size}; the most common size has {max_count} clusters.",
            d.cluster_sizes.len()
        ),
        Axis::log("cluster size (documents)", 1.0, max_size),
        Axis::log("clusters", 1.0, max_count),
    );
    for (&size, &n) in &d.cluster_sizes {
        plot.point(size as f64, n as f64, "", &format!("{n} clusters of {size} documents"));
    }
    h.push_str(&format!("<div class=\"wrap\">{}</div>", plot.end()));
    let mut sizes = String::from(
        "<details><summary>Cluster sizes as a table</summary><div class=\"wrap\"><table><thead><tr><th class=\"n\" data-sort=\"n\">size</th><th class=\"n\" data-sort=\"n\">clusters</th></tr></thead><tbody>",
    );
    for (size, n) in &d.cluster_sizes {
        let _ = write!(sizes, "<tr><td class=\"n\">{size}</td><td class=\"n\">{n}</td></tr>");
    }
    sizes.push_str("</tbody></table></div></details>\n");
    h.push_str(&sizes);
    h.push_str("<h3>Largest clusters</h3>\n");
    cluster_table(h, &d.largest, t, keep);
    let _ = writeln!(
        h,
        "<h3>Chained clusters</h3><p><b data-flag=\"chained\">{}</b> clusters have a member whose similarity to the representative is below the threshold {t}: it joined through another member (a chain A~B, B~C with A≁C).{}</p>",
        d.chained,
        if mode == "connected" {
            ""
        } else {
            " In this mode every member is verified against its representative, so none should; two members may still be below the threshold to each other (at least 2t − 1 with center clusters)."
        }
    );
    if !d.chained_listed.is_empty() {
        cluster_table(h, &d.chained_listed, t, keep);
    }
    h.push_str("</section>\n");
}

/// An id as a link when it is an http(s) URL, as text otherwise (escaped either way).
fn link(id: &str) -> String {
    if super::data::host(id).is_some() {
        format!("<a href=\"{0}\" rel=\"nofollow noreferrer\">{0}</a>", escape(id))
    } else {
        escape(id)
    }
}

/// HTML of an id (or a link to it) with a line-break opportunity after every `/` of its text
/// (not of its attributes), so that long paths wrap at their folders.
fn breakable(html: &str) -> String {
    let mut out = String::with_capacity(html.len() + html.len() / 8);
    let mut in_tag = false;
    for c in html.chars() {
        out.push(c);
        match c {
            '<' => in_tag = true,
            '>' => in_tag = false,
            '/' if !in_tag => out.push_str("<wbr>"),
            _ => {}
        }
    }
    out
}

/// `text` cut at `max` bytes, at a word boundary; whether it was cut.
fn cut(text: &str, max: usize) -> (&str, bool) {
    if text.len() <= max {
        return (text, false);
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let head = &text[..end];
    let end = head.rfind(char::is_whitespace).filter(|&i| i > max / 2).unwrap_or(end);
    (&text[..end], true)
}

fn pairs(h: &mut String, d: &RunData, s: &RunStats, limits: Limits) {
    let t = d.threshold;
    let shingle = s.config.shown.shingle.as_str();
    let w: usize = match shingle.split_once(':') {
        Some(("words", n)) => n.parse().unwrap_or(5),
        _ => 1,
    };
    let _ = write!(
        h,
        "<section id=\"pairs\"><h2>Pairs around the threshold</h2>\n<p>Sampled pairs from each 0.05 similarity band: \
         below the threshold {t}, candidates that verification rejected; at or above it, pairs it accepted. \
         Read them to choose a threshold: where do the pairs stop being the duplicates you want?</p>\n\
         <p class=\"legend note\">Legend: <del>struck through</del> only in the left document, <ins>underlined</ins> only in the right one, \
         <span class=\"sh\">shaded</span> a shared run of at least {w} word{} (its shingles are shared); plain text is shared but shorter than a shingle. \
         {} pairs of similarity 1 (identical shingle sets or exact copies) are not shown.</p>\n",
        if w == 1 { "" } else { "s" },
        d.identical,
    );
    if let Some(note) = &d.texts_note {
        let _ = writeln!(h, "<p class=\"note\">{}</p>", escape(note));
    }
    let mut bands: Vec<(f64, f64, &super::data::Band, bool)> = Vec::new();
    for (&k, band) in d.rejected.iter().rev() {
        let hi = t - f64::from(k) * BAND;
        bands.push(((hi - BAND).max(0.0), hi, band, false));
    }
    for (&k, band) in &d.bands {
        let lo = t + f64::from(k) * BAND;
        bands.push((lo, (lo + BAND).min(1.0), band, true));
    }
    if bands.is_empty() {
        h.push_str("<p class=\"note\">No pair near the threshold.</p></section>\n");
        return;
    }
    // Rejected pairs are counted by the histogram's 0.01 bins when the bands fall on them.
    let hist = &s.pipeline.verification.histogram;
    let on_bins = ((t * 100.0).round() - t * 100.0).abs() < 1e-6 && !hist.is_empty();
    let rejected_count = |lo: f64, hi: f64| -> u64 {
        let (a, b) = ((lo * 100.0).round() as usize, (hi * 100.0).round() as usize);
        hist[a.min(hist.len())..b.min(hist.len())].iter().sum()
    };
    h.push_str("<div class=\"wrap\"><table><thead><tr><th>band</th><th>decision</th><th class=\"n\">pairs</th><th class=\"n\">shown</th></tr></thead><tbody>");
    for (i, (lo, hi, band, accepted)) in bands.iter().enumerate() {
        let shown = band.pairs().count().min(limits.pairs_per_band);
        let count = match (accepted, on_bins) {
            (true, _) => band.count.to_string(),
            (false, true) => rejected_count(*lo, *hi).to_string(),
            (false, false) => format!("{} sampled", band.count),
        };
        let _ = write!(
            h,
            "<tr><td><a href=\"#band-{i}\">{lo:.2}–{hi:.2}</a></td><td>{}</td><td class=\"n\">{count}</td><td class=\"n\">{shown}</td></tr>",
            if *accepted { "accepted" } else { "rejected" },
        );
    }
    h.push_str("</tbody></table></div>\n<p class=\"note\">Accepted bands count the pairs listed (every copy of each side); rejected bands count the verified candidates (pairs of distinct texts) in the histogram. Rejected pairs are drawn from the pipeline's sample (up to 16 per band).</p>\n");
    for (i, (lo, hi, band, accepted)) in bands.iter().enumerate() {
        let _ = writeln!(
            h,
            "<h3 id=\"band-{i}\">Similarity {lo:.2}–{hi:.2} ({})</h3>",
            if *accepted { "accepted" } else { "rejected" }
        );
        for (j, p) in band.pairs().take(limits.pairs_per_band).enumerate() {
            pair(h, d, p, w, limits, j == 0);
        }
        if limits.pairs_per_band == 0 {
            h.push_str("<p class=\"note\">Pairs left out to stay under the size cap.</p>\n");
        }
    }
    h.push_str("</section>\n");
}

fn pair(h: &mut String, d: &RunData, p: &SampledPair, w: usize, limits: Limits, open: bool) {
    let _ = write!(
        h,
        "<details class=\"pair\"{}><summary><b>{:.3}</b> <span class=\"ids\">{} — {}</span></summary>",
        if open { " open" } else { "" },
        p.similarity,
        link(&p.a),
        link(&p.b),
    );
    match (d.texts.get(&p.a), d.texts.get(&p.b)) {
        (Some(a), Some(b)) => {
            let (ca, cut_a) = cut(a, limits.text_chars);
            let (cb, cut_b) = cut(b, limits.text_chars);
            let diff = side_by_side(ca, cb, w);
            let _ = write!(
                h,
                "<p class=\"note\">{} words shared in runs of at least {w}, {} only left, {} only right{}.</p>\
                 <div class=\"sides\"><div class=\"side\"><h4>{}</h4>{}</div><div class=\"side\"><h4>{}</h4>{}</div></div>",
                diff.shared_words,
                diff.removed_words,
                diff.added_words,
                if cut_a || cut_b {
                    format!(
                        "; texts cut at {} characters (of {} and {})",
                        limits.text_chars,
                        a.len(),
                        b.len()
                    )
                } else {
                    String::new()
                },
                escape(&p.a),
                diff.left,
                escape(&p.b),
                diff.right,
            );
        }
        _ => h.push_str("<p class=\"note\">Text not available (see the note above).</p>"),
    }
    h.push_str("</details>\n");
}

fn rate_table(h: &mut String, title: &str, key: &str, rows: &BTreeMap<String, Rate>) {
    let mut sorted: Vec<(&String, &Rate)> = rows.iter().collect();
    sorted.sort_by(|a, b| b.1.documents.cmp(&a.1.documents).then(a.0.cmp(b.0)));
    let _ = write!(
        h,
        "<h3>{}</h3><div class=\"wrap\"><table class=\"rates\"><thead><tr><th data-sort=\"s\">{}</th><th class=\"n\" data-sort=\"n\">documents</th>\
         <th class=\"n\" data-sort=\"n\">duplicate rate</th><th class=\"n\" data-sort=\"n\">exact</th><th class=\"n\" data-sort=\"n\">near</th>\
         <th class=\"n\" data-sort=\"n\">skipped</th></tr></thead><tbody>",
        escape(title),
        escape(key)
    );
    for (name, r) in sorted.iter().take(TABLE_ROWS) {
        let cell = breakable(&escape(name));
        let _ = write!(
            h,
            "<tr><td class=\"ids\">{cell}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td></tr>",
            r.documents,
            pct(r.exact + r.near, r.documents),
            r.exact,
            r.near,
            r.skipped
        );
    }
    let mut all = Rate::default();
    for (_, r) in &sorted {
        all.add(r);
    }
    let _ = writeln!(
        h,
        "</tbody><tfoot><tr><th scope=\"row\">all ({} {}{})</th><td class=\"n\" data-total=\"documents\">{}</td><td class=\"n\">{}</td>\
         <td class=\"n\" data-total=\"exact\">{}</td><td class=\"n\" data-total=\"near\">{}</td><td class=\"n\" data-total=\"skipped\">{}</td></tr></tfoot></table></div>",
        sorted.len(),
        escape(key),
        if sorted.len() == 1 { "" } else { "s" },
        all.documents,
        pct(all.exact + all.near, all.documents),
        all.exact,
        all.near,
        all.skipped
    );
    if sorted.len() > TABLE_ROWS {
        let _ =
            writeln!(h, "<p class=\"note\">The {TABLE_ROWS} largest of {} rows.</p>", sorted.len());
    }
}

fn rates(h: &mut String, d: &RunData) {
    h.push_str("<section id=\"rates\"><h2>Duplicate rates</h2>\n<p>Documents removed as duplicates of another, as a share of the records read, \
        split as on the run card: <i>exact</i>, removed as an exact copy of the document its cluster keeps; \
        <i>near</i>, removed as a near duplicate of it. The last row of each table adds up all its rows, those left out of the list included.</p>\n");
    if d.by_host.is_empty() {
        h.push_str("<p class=\"note\">By host: no document id is an http(s) URL.</p>\n");
    } else {
        rate_table(h, "By host", "host", &d.by_host);
        if d.without_host > 0 {
            let _ = writeln!(
                h,
                "<p class=\"note\">{} records have an id that is not a URL.</p>",
                d.without_host
            );
        }
    }
    rate_table(h, "By language", "language", &d.by_lang);
    // A folder of files is one document per input: by folder says more than by file.
    let one_each = d.by_source.values().all(|r| r.documents <= 1) && d.by_source.len() > TABLE_ROWS;
    if one_each {
        let mut by_dir: BTreeMap<String, Rate> = BTreeMap::new();
        for (source, r) in &d.by_source {
            let dir = match source.rfind('/') {
                Some(i) => source[..i].to_owned(),
                None => ".".to_owned(),
            };
            by_dir.entry(dir).or_default().add(r);
        }
        rate_table(h, "By folder (one document per input file)", "folder", &by_dir);
    } else {
        rate_table(h, "By input file", "input", &d.by_source);
    }
    h.push_str("</section>\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_break_after_slashes_of_their_text_only() {
        assert_eq!(breakable("a/b"), "a/<wbr>b");
        assert_eq!(
            breakable("<a href=\"http://x/y\">http://x/y</a>"),
            "<a href=\"http://x/y\">http:/<wbr>/<wbr>x/<wbr>y</a>"
        );
    }

    #[test]
    fn cut_stops_at_a_word_and_a_char_boundary() {
        assert_eq!(cut("short", 10), ("short", false));
        assert_eq!(cut("one two three four", 12), ("one two", true));
        let (c, was) = cut("ééééé ééééé", 5);
        assert!(was && c.len() <= 5 && "ééééé ééééé".starts_with(c));
    }
}
