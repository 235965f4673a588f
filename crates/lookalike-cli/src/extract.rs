//! `lookalike extract`: show the text that `dedup` compares, document by document.

use std::io::Write;
use std::process::ExitCode;

use anyhow::{Context, Result};
use lookalike_io::{BatchLimits, BoilerplateRemoved, Decoded, RawRecord, UniqueIds};

use crate::UsageError;
use crate::args::ExtractArgs;
use crate::output::OutputFile;

#[derive(serde::Serialize)]
struct Line<'a> {
    id: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    title: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    lang: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    charset: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    extraction: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    text: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    skipped: Option<&'a str>,
    /// What site boilerplate removal took out of the text.
    #[serde(skip_serializing_if = "Option::is_none")]
    boilerplate: Option<BoilerplateRemoved>,
}

/// A decoded record with its language, where it is, and what boilerplate removal took out.
type Extracted = (Decoded, Option<&'static str>, lookalike_io::Origin, Option<BoilerplateRemoved>);

pub fn run(args: &ExtractArgs) -> Result<ExitCode> {
    let expanded =
        lookalike_io::expand_inputs(&args.inputs).map_err(|e| UsageError(e.to_string()))?;
    crate::setup::warn_skipped_paths(&expanded);
    let opts = args.input.read_options();
    let mut out = OutputFile::open(args.output.as_deref().unwrap_or("-"))?;
    let name = out.name();
    let (mut docs, mut skipped, mut errors) = (0u64, 0u64, 0u64);
    // Batches keep the order and let extraction (the costly part) run on every core. Texts that
    // begin alike have their language detected once, as in `dedup`.
    let langs = lookalike::text::lang::DetectCache::default();
    let with_lang = |rec: &RawRecord, d: Decoded| {
        let lang = match &d {
            Decoded::Doc { doc, .. } => langs.detect(&doc.text).map(|l| l.code),
            Decoded::Skip { .. } => None,
        };
        (d, lang, rec.origin(), None)
    };
    // The ids `dedup` gives: a later copy of an id gets `#` and where its record is.
    let mut ids = UniqueIds::default();
    let mut unique =
        |id: String, origin: &lookalike_io::Origin| ids.make_unique(&id, origin).unwrap_or(id);
    let mut print = |decoded: Vec<Result<Extracted, lookalike_io::InputError>>| -> Result<()> {
        for item in decoded {
            match item {
                Err(e) => {
                    errors += 1;
                    eprintln!("lookalike: warning: {e}");
                }
                Ok((Decoded::Skip { id, reason }, _, origin, _)) => {
                    let id = unique(id, &origin);
                    skipped += 1;
                    if args.jsonl {
                        let line = Line {
                            id: &id,
                            title: None,
                            lang: None,
                            charset: None,
                            extraction: None,
                            text: None,
                            skipped: Some(reason.as_str()),
                            boilerplate: None,
                        };
                        serde_json::to_writer(&mut out, &line)?;
                        out.write_all(b"\n")?;
                    } else if !reason.is_warc_record_type() {
                        // WARC records that are not responses are expected: counted, not listed.
                        if id.contains(&origin.to_string()) {
                            eprintln!("lookalike: skipped {id}: {reason}");
                        } else {
                            eprintln!("lookalike: skipped {id} ({origin}): {reason}");
                        }
                    }
                }
                Ok((
                    Decoded::Doc { mut doc, title, charset, extraction, warning, .. },
                    lang,
                    origin,
                    removed,
                )) => {
                    doc.id = unique(std::mem::take(&mut doc.id), &origin);
                    docs += 1;
                    if let Some(w) = warning {
                        eprintln!("lookalike: warning: {}: {w}", doc.id);
                    }
                    if args.jsonl {
                        let line = Line {
                            id: &doc.id,
                            title: title.as_deref(),
                            lang,
                            charset: Some(charset),
                            extraction: Some(extraction),
                            text: Some(&doc.text),
                            skipped: None,
                            boilerplate: removed,
                        };
                        serde_json::to_writer(&mut out, &line)?;
                        out.write_all(b"\n")?;
                    } else {
                        writeln!(out, "==> {} <==", doc.id)?;
                        if let Some(t) = &title {
                            writeln!(out, "title: {t}")?;
                        }
                        writeln!(
                            out,
                            "lang: {}  charset: {charset}  extraction: {extraction}",
                            lang.unwrap_or("?")
                        )?;
                        writeln!(out)?;
                        writeln!(out, "{}", doc.text.trim_end())?;
                        writeln!(out)?;
                    }
                }
            }
        }
        Ok(())
    };
    let each = |batch| print(batch).with_context(|| format!("cannot write {name}"));
    if args.boilerplate.options().enabled(&opts, &expanded.inputs) {
        // As `dedup` does: every page's blocks counted per site first, the texts held in a
        // temporary file, then each page printed without its site's template.
        let temp = std::env::temp_dir();
        let two = crate::read::TwoPasses {
            options: args.boilerplate.options(),
            dir: &temp,
            dir_name: &temp.display().to_string(),
            limits: BatchLimits::records(256),
            batch: 256,
            keep: |_: &RawRecord, _: &Decoded| None,
            cleaned: |s: lookalike_io::boilerplate::Second| {
                let lang = match &s.decoded {
                    Decoded::Doc { doc, .. } => langs.detect(&doc.text).map(|l| l.code),
                    Decoded::Skip { .. } => None,
                };
                (s.decoded, lang, s.origin, s.removed)
            },
        };
        crate::read::cleaned_batches(expanded.inputs, opts, two, |_, _| {}, each)?;
    } else {
        crate::read::batches(expanded.inputs, opts, BatchLimits::records(256), with_lang, each)?;
    }
    out.commit().with_context(|| format!("cannot write {name}"))?;
    eprintln!("lookalike: extracted {docs} documents; skipped {skipped}; input errors {errors}");
    // As `dedup`: a run that could read no document at all fails.
    if docs == 0 && (errors > 0 || skipped > 0) {
        eprintln!("lookalike: error: no document could be read");
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}
