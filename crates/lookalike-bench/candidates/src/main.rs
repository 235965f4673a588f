//! `lookalike-bench extraction-bench` with third-party main-content extractors beside
//! lookalike's own: the measurements behind the choice of extractor.
//!
//! ```text
//! cd crates/lookalike-bench/candidates
//! cargo run --release -- --data ../../../../shared/data/article-extraction-benchmark --repeat 5
//! ```
//!
//! Results (2-core machine shared with other builds, load average about 5; MB/s of HTML on one
//! thread, fastest of 5 runs per page, so the speeds are lower bounds and vary by about ±20%
//! between runs; P/R/F1 are exact and were checked against the benchmark's own scoring code):
//!
//! | extractor                       | P     | R     | F1    | MB/s  | verdict |
//! |---------------------------------|-------|-------|-------|-------|---------|
//! | main (= trafilatura, see below) | 0.958 | 0.980 | 0.969 |  27.8 | chosen  |
//! | text (all visible text)         | 0.502 | 0.993 | 0.667 | 252.4 | the fallback |
//! | rs-trafilatura 0.2.2            | 0.924 | 0.990 | 0.956 |  17.8 | below the F1 bar and the speed target |
//! | rs-trafilatura, favor_recall    | 0.924 | 0.990 | 0.956 |  15.0 | same |
//! | rs-trafilatura, favor_precision | 0.926 | 0.968 | 0.946 |  14.2 | same |
//! | trafilatura 0.6.0, default      | 0.939 | 0.975 | 0.957 |  37.1 | below 0.958 |
//! | trafilatura, fallback           | 0.939 | 0.981 | 0.960 |  15.4 | slower, lower than precision |
//! | trafilatura, fallback, recall   | 0.943 | 0.975 | 0.959 |  35.5 | lower F1 |
//! | trafilatura, fallback, precision| 0.958 | 0.980 | 0.969 |  18.5 | the choice (30.0 on a quieter run) |
//! | trafilatura, precision, no fallback | 0.956 | 0.913 | 0.934 | 45.0 | 8 errors, 9 empty pages |
//! | … with all visible text for those   | 0.930 | 0.962 | 0.946 | 43.4 | below the bar |
//! | readex 0.19.2 (trafilatura cascade) | 0.922 | 0.955 | 0.938 | 7.8 | lower F1, slow; pins regex, serde_json, tendril exactly |
//! | readex, readability             | 0.912 | 0.982 | 0.946 |  24.8 | lower F1 |
//! | kawat-core 0.1.5                | 0.138 | 0.992 | 0.243 | 149.9 | keeps scripts and JSON-LD as text; `kawat` itself always pulls reqwest |
//! | dom_smoothie 0.19.0             | 0.913 | 0.982 | 0.946 | 112.6 | fast, lower F1 |
//! | dom_smoothie, TextMode::Formatted | 0.917 | 0.988 | 0.951 | 112.1 | fast, lower F1 |
//! | libreadability 0.3.0            | 0.918 | 0.989 | 0.952 |  82.9 | fast, lower F1 |
//! | readabilityrs 0.1.4             | 0.871 | 0.955 | 0.911 |  17.4 | lower F1, 2 errors |
//! | llm_readability 0.0.17          | 0.851 | 0.809 | 0.829 |  85.9 | 19 empty pages |
//! | readability 0.3.0 (kumabook)    | 0.906 | 0.843 | 0.873 | 106.6 | 9 empty pages; unmaintained |
//!
//! The chosen settings (`main`): `trafilatura` with its readability/jusText fallback, the
//! `FavorPrecision` focus, comments and dates not extracted. No crate panicked on these pages;
//! none downloads anything at build or run time (rs-trafilatura's page classifier is a model
//! compiled into the crate).

use std::io::Write;

use anyhow::Result;
use clap::Parser;
use lookalike_bench::extraction::{self, BenchArgs, ExtractResult, Extractor};

#[derive(Debug, Parser)]
#[command(name = "lookalike-bench-candidates", about = "Compare main-content extractors")]
struct Cli {
    #[command(flatten)]
    bench: BenchArgs,
}

fn err(e: impl std::fmt::Display) -> String {
    e.to_string()
}

fn parse_url(url: Option<&str>) -> Option<url::Url> {
    url.and_then(|u| url::Url::parse(u).ok())
}

fn rs_trafilatura(
    html: &str,
    url: Option<&str>,
    tune: fn(&mut rs_trafilatura::Options),
) -> ExtractResult {
    let mut opts = rs_trafilatura::Options { url: url.map(str::to_owned), ..Default::default() };
    tune(&mut opts);
    rs_trafilatura::extract_with_options(html, &opts).map(|r| r.content_text).map_err(err)
}

fn trafilatura(
    html: &str,
    url: Option<&str>,
    tune: fn(trafilatura::Options) -> trafilatura::Options,
) -> ExtractResult {
    let mut opts = tune(trafilatura::Options::default());
    if let Some(u) = parse_url(url) {
        opts = opts.with_url(u);
    }
    trafilatura::extract(html, &opts).map(|r| r.content_text).map_err(err)
}

fn dom_smoothie(html: &str, url: Option<&str>, mode: dom_smoothie::TextMode) -> ExtractResult {
    let cfg = dom_smoothie::Config { text_mode: mode, ..Default::default() };
    let mut r = dom_smoothie::Readability::new(html, url, Some(cfg)).map_err(err)?;
    r.parse().map(|a| a.text_content.to_string()).map_err(err)
}

fn candidates() -> Vec<Extractor> {
    use trafilatura::ExtractionFocus;
    vec![
        Extractor::new("rs-trafilatura", "rs-trafilatura 0.2.2, default options", |h, u| {
            rs_trafilatura(h, u, |_| {})
        }),
        Extractor::new("rs-trafilatura-recall", "rs-trafilatura 0.2.2, favor_recall", |h, u| {
            rs_trafilatura(h, u, |o| o.favor_recall = true)
        }),
        Extractor::new(
            "rs-trafilatura-precision",
            "rs-trafilatura 0.2.2, favor_precision",
            |h, u| rs_trafilatura(h, u, |o| o.favor_precision = true),
        ),
        Extractor::new(
            "trafilatura",
            "trafilatura 0.6.0 (go-trafilatura port), default",
            |h, u| trafilatura(h, u, |o| o),
        ),
        Extractor::new("trafilatura-fallback", "trafilatura 0.6.0, with_fallback(true)", |h, u| {
            trafilatura(h, u, |o| o.with_fallback(true))
        }),
        Extractor::new(
            "trafilatura-recall",
            "trafilatura 0.6.0, with_fallback(true), FavorRecall",
            |h, u| {
                trafilatura(h, u, |o| {
                    o.with_fallback(true).with_focus(ExtractionFocus::FavorRecall)
                })
            },
        ),
        Extractor::new(
            "trafilatura-precision",
            "trafilatura 0.6.0, with_fallback(true), FavorPrecision",
            |h, u| {
                trafilatura(h, u, |o| {
                    o.with_fallback(true).with_focus(ExtractionFocus::FavorPrecision)
                })
            },
        ),
        Extractor::new(
            "trafilatura-precision-nofb",
            "trafilatura 0.6.0, FavorPrecision, no fallback",
            |h, u| trafilatura(h, u, |o| o.with_focus(ExtractionFocus::FavorPrecision)),
        ),
        Extractor::new(
            "trafilatura-precision-nofb+text",
            "trafilatura 0.6.0, FavorPrecision, no fallback; all visible text when it finds nothing",
            |h, u| match trafilatura(h, u, |o| o.with_focus(ExtractionFocus::FavorPrecision)) {
                Ok(t) if !t.trim().is_empty() => Ok(t),
                _ => Ok(lookalike_io::html_to_text(h.as_bytes())),
            },
        ),
        Extractor::new("readex", "readex 0.19.2 extract (trafilatura cascade)", |h, u| {
            readex::extract(h, u).map(|e| e.text).map_err(err)
        }),
        Extractor::new("readex-readability", "readex 0.19.2 extract_via_readability", |h, u| {
            readex::extract_via_readability(h, u, &readex::Options::default())
                .map(|e| e.text)
                .map_err(err)
        }),
        Extractor::new(
            "kawat",
            "kawat-core 0.1.5 (kawat's extractor without its fetcher)",
            |h, _| kawat_core::extract(h, &kawat_core::ExtractorOptions::default()).map_err(err),
        ),
        Extractor::new("dom_smoothie", "dom_smoothie 0.19.0, TextMode::Raw (default)", |h, u| {
            dom_smoothie(h, u, dom_smoothie::TextMode::Raw)
        }),
        Extractor::new(
            "dom_smoothie-formatted",
            "dom_smoothie 0.19.0, TextMode::Formatted",
            |h, u| dom_smoothie(h, u, dom_smoothie::TextMode::Formatted),
        ),
        Extractor::new("libreadability", "libreadability 0.3.0 (go-readability port)", |h, u| {
            libreadability::extract(h, u).map(|a| a.text_content).map_err(err)
        }),
        Extractor::new("readabilityrs", "readabilityrs 0.1.4 (Readability.js port)", |h, u| {
            let r = readabilityrs::Readability::new(h, u, None).map_err(err)?;
            r.parse().and_then(|a| a.text_content).ok_or_else(|| "not readable".to_owned())
        }),
        Extractor::new("llm_readability", "llm_readability 0.0.17", |h, u| {
            let u = parse_url(u).unwrap_or_else(|| url::Url::parse("http://localhost/").unwrap());
            llm_readability::extractor::extract(&mut h.as_bytes(), &u).map(|p| p.text).map_err(err)
        }),
        Extractor::new("readability", "readability 0.3.0 (kumabook, arc90 port)", |h, u| {
            let u = parse_url(u).unwrap_or_else(|| url::Url::parse("http://localhost/").unwrap());
            readability::extractor::extract(&mut h.as_bytes(), &u).map(|p| p.text).map_err(err)
        }),
    ]
}

fn main() -> Result<()> {
    let cli = Cli::parse();
    let mut all = extraction::builtin_extractors();
    all.extend(candidates());
    let out = extraction::run_cli(&cli.bench, all)?;
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(out.as_bytes())?;
    stdout.flush()?;
    Ok(())
}
