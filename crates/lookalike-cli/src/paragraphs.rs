//! `lookalike paragraphs`: every document with the paragraphs seen earlier in the collection
//! removed ([`lookalike::paragraphs`]), written back with its other fields.
//!
//! Per batch of records: decoding and the hashing of every line run on the rayon pool
//! ([`DecodedBatches`]); the decisions are made in input order on this thread; the output and
//! report lines are built in parallel again and written in input order. The output does not
//! depend on the thread count.
//!
//! A JSONL line (or a Parquet row, read with all its columns as a JSON object) keeps its bytes:
//! only the text field's value is replaced, so field order, number formats and escapes stay as
//! they were.

use std::io::Write;
use std::ops::Range;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, Result};
use lookalike::paragraphs::{
    BloomConfig, DocOutcome, Paragraph, ParagraphConfig, ParagraphDedup, ParagraphHasher,
};
use lookalike_io::{
    BatchLimits, Decoded, DecodedBatches, Format, InputError, Origin, RawRecord, Reader,
    SkipReason, UniqueIds,
};
use rayon::prelude::*;

use crate::UsageError;
use crate::args::{ParagraphsArgs, SkippedInOutput};
use crate::output::{self, OutputFile};

/// Skipped records and warnings printed one by one before the rest are only counted.
const SHOWN: u64 = 5;

/// A record as the workers leave it.
struct Item {
    decoded: Decoded,
    paragraphs: Vec<Paragraph>,
    origin: Origin,
    format: Format,
    /// The record's bytes, for the formats written back as they were (JSONL, Parquet).
    raw: Option<Vec<u8>>,
    lang: Option<&'static str>,
    bytes: u64,
}

/// One input record, decided, to be written.
enum Entry {
    Doc {
        id: String,
        origin: Origin,
        text: String,
        title: Option<String>,
        lang: Option<&'static str>,
        raw: Option<Vec<u8>>,
        outcome: DocOutcome,
    },
    Skipped {
        id: String,
        reason: SkipReason,
        origin: Origin,
        /// The line --output writes in its place, if any.
        payload: Option<Vec<u8>>,
    },
}

/// The lines an entry becomes.
struct Rendered {
    output: Option<Vec<u8>>,
    report: Option<Vec<u8>>,
}

#[derive(Default)]
struct Counts {
    records: u64,
    bytes: u64,
    skipped: u64,
    warc_other: u64,
    warnings: u64,
    errors: u64,
}

pub fn run(args: &ParagraphsArgs) -> Result<ExitCode> {
    let started = Instant::now();
    crate::setup::set_threads(args.threads)?;
    if let Some(report) = &args.report
        && (report == &args.output && report != "-" || report == "-" && args.output == "-")
    {
        return Err(UsageError(format!(
            "--output and --report both name {}: give them different files",
            if report == "-" { "stdout" } else { report }
        ))
        .into());
    }
    if args.bloom.is_some_and(|b| b < 8) {
        return Err(UsageError("--bloom must be at least 8 bytes (e.g. 512M, 4G)".into()).into());
    }
    if args.bloom_items == Some(0) {
        return Err(UsageError("--bloom-items must be at least 1".into()).into());
    }
    let config = ParagraphConfig {
        min_chars: args.min_chars,
        bloom: args.bloom.map(|bytes| BloomConfig { bytes, expected_items: args.bloom_items }),
    };
    let mut dedup = ParagraphDedup::new(&config)?;
    let expanded = crate::setup::expand_nonempty(&args.inputs)?;
    // Open the outputs before the work, so a bad path fails at once.
    let mut out = OutputFile::open(&args.output)?;
    let mut report = args.report.as_deref().map(OutputFile::open).transpose()?;
    let opts = args.input.read_options();
    let text_field = opts.text_field.clone();
    let keep_skipped = args.skipped == SkippedInOutput::Keep;

    let mut counts = Counts::default();
    let mut ids = UniqueIds::default();
    // Document number → id, for the report's `first_seen`.
    let mut doc_ids: Vec<String> = Vec::new();
    let want_report = report.is_some();
    // Special files and link loops found in directories: not opened, each reported.
    let mut entries: Vec<Entry> = Vec::new();
    for skipped in &expanded.skipped {
        let id = skipped.path.display().to_string();
        let origin = Origin::whole(id.as_str());
        let id = ids.make_unique(&id, &origin).unwrap_or(id);
        report_skip(&mut counts, &id, skipped.reason.as_str(), args.quiet);
        let reason = skipped.reason.clone();
        entries.push(Entry::Skipped { id, reason, origin, payload: None });
    }
    write_entries(&mut entries, &doc_ids, &text_field, &mut out, report.as_mut())?;

    let min_chars = args.min_chars;
    let langs = lookalike::text::lang::DetectCache::default();
    let per_record = |rec: &RawRecord, decoded: Decoded| {
        let record_format = is_record_format(rec.format);
        let (mut paragraphs, mut lang) = (Vec::new(), None);
        if let Decoded::Doc { doc, .. } = &decoded {
            paragraphs = ParagraphHasher::new(min_chars).paragraphs(&doc.text);
            if !record_format {
                lang = langs.detect(&doc.text).map(|d| d.code);
            }
        }
        let raw = (record_format && (keep_skipped || matches!(decoded, Decoded::Doc { .. })))
            .then(|| rec.bytes.clone());
        Item {
            decoded,
            paragraphs,
            origin: rec.origin(),
            format: rec.format,
            raw,
            lang,
            bytes: rec.bytes.len() as u64,
        }
    };
    // Parquet rows are read with every column, to be written back whole.
    let reader = Reader::new(expanded.inputs, opts).with_all_columns(true);
    let batches = DecodedBatches::from_reader(reader, BatchLimits::default(), per_record)
        .context("cannot start the reader thread")?;
    for batch in batches {
        for item in batch {
            match item {
                Err(e) => {
                    counts.errors += 1;
                    eprintln!("lookalike: warning: {e}");
                    // A record (or a whole input) lost with the error is in the report too.
                    if let Some(id) = &e.lost {
                        let origin = e.origin();
                        let id = ids.make_unique(id, &origin).unwrap_or_else(|| id.clone());
                        entries.push(lost_entry(id, &e, origin));
                    }
                }
                Ok(Item {
                    decoded: Decoded::Skip { id, reason },
                    origin,
                    format,
                    raw,
                    bytes,
                    ..
                }) => {
                    counts.bytes += bytes;
                    let id = ids.make_unique(&id, &origin).unwrap_or(id);
                    let warc_other = reason.is_warc_record_type();
                    if warc_other {
                        counts.warc_other += 1;
                    } else {
                        report_skip(&mut counts, &id, reason.as_str(), args.quiet);
                    }
                    let payload = (keep_skipped && !warc_other)
                        .then(|| skipped_payload(format, raw.as_deref(), &id, reason.as_str()));
                    entries.push(Entry::Skipped { id, reason, origin, payload });
                }
                Ok(Item {
                    decoded: Decoded::Doc { doc, title, warning, .. },
                    paragraphs,
                    origin,
                    raw,
                    lang,
                    bytes,
                    ..
                }) => {
                    counts.records += 1;
                    counts.bytes += bytes;
                    let id = ids.make_unique(&doc.id, &origin).unwrap_or(doc.id);
                    if let Some(w) = warning {
                        counts.warnings += 1;
                        if counts.warnings <= SHOWN && !args.quiet {
                            eprintln!("lookalike: warning: {id}: {w}");
                        }
                    }
                    let outcome = dedup.add(doc.text.len(), &paragraphs);
                    if want_report {
                        doc_ids.push(id.clone());
                    }
                    entries.push(Entry::Doc {
                        id,
                        origin,
                        text: doc.text,
                        title,
                        lang,
                        raw,
                        outcome,
                    });
                }
            }
        }
        write_entries(&mut entries, &doc_ids, &text_field, &mut out, report.as_mut())?;
    }

    let failure = (counts.records == 0 && (counts.errors > 0 || counts.skipped > 0)).then(|| {
        format!(
            "no document could be read ({} input errors, {} records skipped); no output was \
             written",
            counts.errors, counts.skipped
        )
    });
    if failure.is_none() {
        let mut files = vec![out];
        files.extend(report);
        output::commit_all(files)?;
    }
    if !args.quiet {
        eprint!("{}", summary(&counts, &dedup, started.elapsed().as_secs_f64()));
    }
    if let Some(msg) = failure {
        eprintln!("lookalike: error: {msg}");
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}

/// Counts a skipped record, printing the first few.
fn report_skip(counts: &mut Counts, id: &str, reason: &str, quiet: bool) {
    counts.skipped += 1;
    if counts.skipped <= SHOWN && !quiet {
        eprintln!("lookalike: skipped {id}: {reason}");
    } else if counts.skipped == SHOWN + 1 && !quiet {
        eprintln!("lookalike: more records skipped: see the summary (--report lists them all)");
    }
}

/// The entry of a record an input error lost.
fn lost_entry(id: String, e: &InputError, origin: Origin) -> Entry {
    Entry::Skipped { id, reason: SkipReason::unreadable(e.message.clone()), origin, payload: None }
}

/// Whether `--output` writes a record of this format back as it was read (else as
/// `{id, title, lang, text}`).
fn is_record_format(format: Format) -> bool {
    matches!(format, Format::Jsonl | Format::Parquet)
}

/// Builds the lines of `entries` in parallel, writes them in order, and empties `entries`.
fn write_entries(
    entries: &mut Vec<Entry>,
    doc_ids: &[String],
    text_field: &str,
    out: &mut OutputFile,
    mut report: Option<&mut OutputFile>,
) -> Result<()> {
    let want_report = report.is_some();
    let rendered: Vec<Rendered> =
        entries.par_iter().map(|e| render(e, doc_ids, text_field, want_report)).collect();
    let name = out.name();
    for r in rendered {
        if let Some(line) = r.output {
            out.write_all(&line).with_context(|| format!("cannot write {name}"))?;
        }
        if let (Some(rep), Some(line)) = (report.as_deref_mut(), r.report) {
            rep.write_all(&line).with_context(|| format!("cannot write {}", rep.name()))?;
        }
    }
    entries.clear();
    Ok(())
}

#[derive(serde::Serialize)]
struct ReportLine<'a> {
    id: &'a str,
    status: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    paragraphs: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    removed: Option<Vec<RemovedSpan<'a>>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<&'a str>,
    source: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    line: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    row: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    record: Option<u64>,
}

#[derive(serde::Serialize)]
struct RemovedSpan<'a> {
    start: usize,
    end: usize,
    first_seen: Option<&'a str>,
}

impl<'a> ReportLine<'a> {
    fn new(id: &'a str, status: &'static str, origin: &'a Origin) -> Self {
        let (line, row, record) = origin.position.fields();
        ReportLine {
            id,
            status,
            paragraphs: None,
            removed: None,
            reason: None,
            source: &origin.source,
            line,
            row,
            record,
        }
    }
}

/// `value` as one JSON line.
fn json_line<T: serde::Serialize>(value: &T) -> Vec<u8> {
    let mut v = serde_json::to_vec(value).unwrap_or_default();
    v.push(b'\n');
    v
}

fn render(entry: &Entry, doc_ids: &[String], text_field: &str, want_report: bool) -> Rendered {
    match entry {
        Entry::Skipped { id, reason, origin, payload } => Rendered {
            output: payload.clone().map(|mut p| {
                p.push(b'\n');
                p
            }),
            report: want_report.then(|| {
                let r = ReportLine {
                    reason: Some(reason.as_str()),
                    ..ReportLine::new(id, "skipped", origin)
                };
                json_line(&r)
            }),
        },
        Entry::Doc { id, origin, text, title, lang, raw, outcome } => {
            let kept = outcome.kept_text(text);
            let mut output = match (raw, outcome.removed.is_empty()) {
                (Some(raw), true) => raw.clone(),
                (Some(raw), false) => replace_text(raw, text_field, &kept),
                (None, _) => {
                    let v =
                        serde_json::json!({"id": id, "title": title, "lang": lang, "text": kept});
                    serde_json::to_vec(&v).unwrap_or_default()
                }
            };
            output.push(b'\n');
            let report = want_report.then(|| {
                let removed = outcome
                    .removed
                    .iter()
                    .map(|r| RemovedSpan {
                        start: r.start,
                        end: r.end,
                        first_seen: r
                            .first_seen
                            .and_then(|d| doc_ids.get(d as usize))
                            .map(String::as_str),
                    })
                    .collect();
                let status = if outcome.removed.is_empty() { "unchanged" } else { "cleaned" };
                let r = ReportLine {
                    paragraphs: Some(outcome.paragraphs),
                    removed: Some(removed),
                    ..ReportLine::new(id, status, origin)
                };
                json_line(&r)
            });
            Rendered { output: Some(output), report }
        }
    }
}

/// The JSON record `raw` with the value of its text field `field` replaced by `text`: the bytes
/// before and after the value are kept. Should the record not be read that way (it is not, when
/// the decoder had to repair it), it is parsed and written again, fields in their order.
fn replace_text(raw: &[u8], field: &str, text: &str) -> Vec<u8> {
    if let Some(span) = field_value(raw, field).filter(|s| raw[s.start] == b'"') {
        let mut out = Vec::with_capacity(raw.len());
        out.extend_from_slice(&raw[..span.start]);
        serde_json::to_writer(&mut out, text).unwrap_or_default();
        out.extend_from_slice(&raw[span.end..]);
        return out;
    }
    let repaired = String::from_utf8_lossy(raw);
    match serde_json::from_str::<serde_json::Value>(&repaired) {
        Ok(serde_json::Value::Object(mut map)) => {
            map.insert(field.to_owned(), serde_json::Value::String(text.to_owned()));
            serde_json::to_vec(&map).unwrap_or_default()
        }
        _ => serde_json::to_vec(&serde_json::json!({ field: text })).unwrap_or_default(),
    }
}

/// The byte range of the value of the last top-level `field` of the JSON object `json` (the
/// one the decoder reads: with duplicate keys the last wins); `None` when there is none or the
/// bytes are not an object. Values are skipped by their structure, not checked.
fn field_value(json: &[u8], field: &str) -> Option<Range<usize>> {
    let ws = |mut i: usize| {
        while json.get(i).is_some_and(|b| b.is_ascii_whitespace()) {
            i += 1;
        }
        i
    };
    let mut i = ws(0);
    if json.get(i) != Some(&b'{') {
        return None;
    }
    i += 1;
    let mut found = None;
    loop {
        i = ws(i);
        match json.get(i)? {
            b'}' => return found,
            b',' => {
                i += 1;
                continue;
            }
            b'"' => {}
            _ => return None,
        }
        let key_end = string_end(json, i)?;
        let key = &json[i..key_end];
        i = ws(key_end);
        if json.get(i) != Some(&b':') {
            return None;
        }
        i = ws(i + 1);
        let end = value_end(json, i)?;
        if key_is(key, field) {
            found = Some(i..end);
        }
        i = end;
    }
}

/// The index after the string starting at `json[start]` (a `"`).
fn string_end(json: &[u8], start: usize) -> Option<usize> {
    let mut i = start + 1;
    loop {
        i += memchr::memchr2(b'"', b'\\', json.get(i..)?)?;
        if json[i] == b'\\' {
            i += 2;
        } else {
            return Some(i + 1);
        }
    }
}

/// The index after the value starting at `json[start]`.
fn value_end(json: &[u8], start: usize) -> Option<usize> {
    match json.get(start)? {
        b'"' => string_end(json, start),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut i = start;
            loop {
                match json.get(i)? {
                    b'"' => {
                        i = string_end(json, i)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(i + 1);
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
        }
        _ => {
            let rest = &json[start..];
            let len = rest
                .iter()
                .position(|b| matches!(b, b',' | b'}' | b']') || b.is_ascii_whitespace())
                .unwrap_or(rest.len());
            (len > 0).then_some(start + len)
        }
    }
}

/// Whether the JSON string `raw` (with its quotes) is `field`.
fn key_is(raw: &[u8], field: &str) -> bool {
    let inner = &raw[1..raw.len() - 1];
    if !inner.contains(&b'\\') {
        return inner == field.as_bytes();
    }
    serde_json::from_slice::<String>(raw).is_ok_and(|k| k == field)
}

/// The `--output` line of a record without a text, as `dedup --output` writes it: the record as
/// read when it is JSON (a JSONL line, a Parquet row); otherwise `{id, skipped}`, with the line
/// itself as `raw` for a JSONL line that is not JSON.
fn skipped_payload(format: Format, raw: Option<&[u8]>, id: &str, reason: &str) -> Vec<u8> {
    let raw = raw.unwrap_or_default();
    let json = is_record_format(format);
    if json && serde_json::from_slice::<serde::de::IgnoredAny>(raw).is_ok() {
        return raw.to_vec();
    }
    let line = if json {
        serde_json::json!({"id": id, "skipped": reason, "raw": String::from_utf8_lossy(raw)})
    } else {
        serde_json::json!({"id": id, "skipped": reason})
    };
    serde_json::to_vec(&line).unwrap_or_default()
}

/// The summary printed on stderr.
fn summary(counts: &Counts, dedup: &ParagraphDedup, secs: f64) -> String {
    let st = dedup.stats();
    let secs = secs.max(1e-9);
    let mb = counts.bytes as f64 / 1e6;
    let share = |a: u64, b: u64| if b == 0 { 0.0 } else { 100.0 * a as f64 / b as f64 };
    let mut s = format!(
        "lookalike: {} documents ({mb:.1} MB) in {secs:.2} s: {:.1} MB/s, {} thread{}\n",
        counts.records,
        mb / secs,
        rayon::current_num_threads(),
        if rayon::current_num_threads() == 1 { "" } else { "s" },
    );
    s += &format!(
        "lookalike: {} paragraphs seen, {} removed ({:.1}%) from {} of {} documents: {:.1} MB of \
         {:.1} MB of text ({:.1}%)\n",
        st.paragraphs,
        st.removed,
        share(st.removed, st.paragraphs),
        st.documents_changed,
        st.documents,
        st.removed_bytes as f64 / 1e6,
        st.bytes as f64 / 1e6,
        share(st.removed_bytes, st.bytes),
    );
    match dedup.bloom() {
        None => {
            s += &format!(
                "lookalike: exact: {} distinct paragraphs remembered (min chars {})\n",
                st.distinct,
                dedup.config().min_chars
            )
        }
        Some(f) => {
            s += &format!(
                "lookalike: bloom filter: {} bytes ({} bits, k = {}), {} paragraphs inserted, \
                 {:.1}% of bits set; estimated false-positive rate (1 - e^(-kn/m))^k = {:.3e}\n",
                f.bits() / 8,
                f.bits(),
                f.hashes(),
                f.items(),
                100.0 * f.fill(),
                f.false_positive_rate(),
            )
        }
    }
    if counts.skipped > 0 || counts.errors > 0 || counts.warnings > 0 || counts.warc_other > 0 {
        s += &format!(
            "lookalike: {} records skipped, {} input errors, {} warnings, {} WARC records that \
             are not responses\n",
            counts.skipped, counts.errors, counts.warnings, counts.warc_other
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_text_value_is_found_at_the_top_level_and_the_last_one_wins() {
        fn at<'a>(json: &'a str, field: &str) -> Option<&'a str> {
            field_value(json.as_bytes(), field).map(|r| &json[r])
        }
        assert_eq!(at(r#"{"id":1,"text":"a\"b"}"#, "text"), Some(r#""a\"b""#));
        assert_eq!(
            at(r#" { "meta" : {"text":"no"} , "text" : "yes" } "#, "text"),
            Some(r#""yes""#)
        );
        assert_eq!(at(r#"{"a":[1,{"text":"x"}],"text":"y","text":"z"}"#, "text"), Some(r#""z""#));
        assert_eq!(at(r#"{"te\u0078t":"escaped key","b":true}"#, "text"), Some(r#""escaped key""#));
        assert_eq!(at(r#"{"n":-1.5e3,"text":null}"#, "text"), Some("null"));
        assert_eq!(at(r#"{"body":"x"}"#, "text"), None);
        assert_eq!(at(r#"["text","x"]"#, "text"), None);
        assert_eq!(at(r#"{"text":"unterminated"#, "text"), None);
    }

    #[test]
    fn replacing_the_text_keeps_every_other_byte() {
        let raw = br#"{"z":1.50,"text":"a\nb\n","meta":{"k":"\u00e9"}}"#;
        let out = replace_text(raw, "text", "b\n");
        assert_eq!(out, br#"{"z":1.50,"text":"b\n","meta":{"k":"\u00e9"}}"#);
    }
}
