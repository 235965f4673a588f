//! Candidates for the fallback of lookalike's language detection (issue 36, part 5).
//!
//! lookalike's `detect` answers most texts with a quick stopword/script pass and calls whatlang
//! on the rest; whatlang costs 70-230 µs a call whatever the text's length. This program runs,
//! on corpora whose documents carry their language (`{"lang", "text"}` JSONL lines, the sets
//! `bench/lang.sh --keep DIR` writes), every candidate in the same run:
//!
//! - alone, on the same prefix `detect` looks at (2 KiB): how often it is right, µs per call;
//! - as the fallback behind the quick pass (`detect_quick(text).or_else(|| X(prefix))`): how
//!   often the combination is right, and µs per fallback call, timed on the documents the quick
//!   pass leaves (the calls `--report` pays for).
//!
//! Candidates: whatlang (the baseline) on 2048, 1024, 256 and 64 bytes, the `cld2` crate (Google's
//! CLD2, C++), `whichlang` (16 languages) and, with `--features lingua`, lingua in its low-accuracy
//! mode. A corpus without `lang` fields (documentation pages) gets timings and how often each
//! candidate agrees with whatlang instead.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::BufRead;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context, Result};
use clap::Parser;
use lookalike::text::lang;

/// Command-line arguments.
#[derive(Parser)]
struct Args {
    /// JSONL corpora with `text` and (for accuracy) `lang` fields.
    #[arg(required = true)]
    corpora: Vec<PathBuf>,
    /// Read at most this many documents of each corpus.
    #[arg(long)]
    limit: Option<usize>,
    /// Timing rounds (the fastest is reported).
    #[arg(long, default_value_t = 3)]
    rounds: usize,
    /// Print (to stderr) up to this many documents where cld2's fallback answer differs from
    /// whatlang's, with the label.
    #[arg(long, default_value_t = 0)]
    show: usize,
    /// Ignore the corpora's `lang` fields (`lookalike extract --jsonl` writes lookalike's own
    /// answer there, not a label): timings and agreement with whatlang only.
    #[arg(long)]
    unlabelled: bool,
}

/// A detector: a text prefix in, a language code (ISO 639-1 where one exists) out.
type Detector = fn(&str) -> Option<&'static str>;

fn whatlang_at(text: &str, bytes: usize) -> Option<&'static str> {
    lang::detect_whatlang(head(text, bytes)).map(|d| d.code)
}

fn whatlang_2048(t: &str) -> Option<&'static str> {
    whatlang_at(t, 2048)
}
fn whatlang_1024(t: &str) -> Option<&'static str> {
    whatlang_at(t, 1024)
}
fn whatlang_256(t: &str) -> Option<&'static str> {
    whatlang_at(t, 256)
}
fn whatlang_64(t: &str) -> Option<&'static str> {
    whatlang_at(t, 64)
}

/// whatlang with one of its methods alone (the default, `Combined`, runs both), on 2 KiB.
fn whatlang_method(t: &str, method: whatlang::dev::Method) -> Option<&'static str> {
    // lookalike's mapping of whatlang's ISO 639-3 codes (crates/lookalike/src/text/lang.rs).
    const ISO: &[(&str, &str)] = &[
        ("epo", "eo"),
        ("eng", "en"),
        ("rus", "ru"),
        ("cmn", "zh"),
        ("spa", "es"),
        ("por", "pt"),
        ("ita", "it"),
        ("ben", "bn"),
        ("fra", "fr"),
        ("deu", "de"),
        ("ukr", "uk"),
        ("kat", "ka"),
        ("ara", "ar"),
        ("hin", "hi"),
        ("jpn", "ja"),
        ("heb", "he"),
        ("yid", "yi"),
        ("pol", "pl"),
        ("amh", "am"),
        ("jav", "jv"),
        ("kor", "ko"),
        ("nob", "nb"),
        ("dan", "da"),
        ("swe", "sv"),
        ("fin", "fi"),
        ("tur", "tr"),
        ("nld", "nl"),
        ("hun", "hu"),
        ("ces", "cs"),
        ("ell", "el"),
        ("bul", "bg"),
        ("bel", "be"),
        ("mar", "mr"),
        ("kan", "kn"),
        ("ron", "ro"),
        ("slv", "sl"),
        ("hrv", "hr"),
        ("srp", "sr"),
        ("mkd", "mk"),
        ("lit", "lt"),
        ("lav", "lv"),
        ("est", "et"),
        ("tam", "ta"),
        ("vie", "vi"),
        ("urd", "ur"),
        ("tha", "th"),
        ("guj", "gu"),
        ("uzb", "uz"),
        ("pan", "pa"),
        ("aze", "az"),
        ("ind", "id"),
        ("tel", "te"),
        ("pes", "fa"),
        ("mal", "ml"),
        ("ori", "or"),
        ("mya", "my"),
        ("nep", "ne"),
        ("sin", "si"),
        ("khm", "km"),
        ("aka", "ak"),
        ("zul", "zu"),
        ("sna", "sn"),
        ("afr", "af"),
        ("lat", "la"),
        ("slk", "sk"),
        ("cat", "ca"),
        ("tgl", "tl"),
        ("hye", "hy"),
        ("cym", "cy"),
    ];
    let opts = whatlang::dev::Options::new().set_method(method);
    let code = whatlang::dev::detect_with_options(head(t, 2048), &opts)?.lang().code();
    Some(ISO.iter().find(|(three, _)| *three == code).map_or(code, |(_, two)| two))
}
fn whatlang_trigram(t: &str) -> Option<&'static str> {
    whatlang_method(t, whatlang::dev::Method::Trigram)
}
fn whatlang_alphabet(t: &str) -> Option<&'static str> {
    whatlang_method(t, whatlang::dev::Method::Alphabet)
}

/// CLD2's answer; its codes are ISO 639-1 with a few old ones (`iw`, `in`, `jw`, `no`) and
/// script suffixes (`zh-Hant`); `un` (unknown) is no answer.
fn cld2(t: &str) -> Option<&'static str> {
    let (lang, _) = cld2::detect_language(head(t, 2048), cld2::Format::Text);
    let code = lang?.0;
    let base = code.split('-').next().unwrap_or(code);
    Some(match base {
        "un" | "xxx" => return None,
        "iw" => "he",
        "in" => "id",
        "jw" => "jv",
        "no" => "nb",
        "fil" => "tl",
        _ => base,
    })
}

/// lingua's ISO 639-1 code as a `&'static str` (`other` when not in the table).
#[cfg_attr(not(feature = "lingua"), allow(dead_code))]
fn static_code(code: &str) -> Option<&'static str> {
    const CODES: &[&str] = &[
        "af", "am", "ar", "az", "be", "bg", "bn", "bs", "ca", "cs", "cy", "da", "de", "el", "en",
        "eo", "es", "et", "eu", "fa", "fi", "fr", "ga", "gl", "gu", "he", "hi", "hr", "hu", "hy",
        "id", "is", "it", "ja", "ka", "kk", "km", "kn", "ko", "ky", "la", "lo", "lt", "lv", "mk",
        "ml", "mn", "mr", "ms", "mt", "my", "nb", "ne", "nl", "nn", "or", "pa", "pl", "ps", "pt",
        "ro", "ru", "si", "sk", "sl", "so", "sq", "sr", "sv", "sw", "ta", "te", "tg", "th", "tl",
        "tr", "uk", "ur", "uz", "vi", "yi", "zh", "zu", "lb", "fy", "gd", "ht", "haw", "lg", "mg",
        "mi", "ny", "rw", "sn", "st", "su", "xh", "yo", "ig", "ha", "ceb", "hmn", "co", "sm", "fo",
        "ku", "oc", "br", "ia", "ie", "ln", "om", "qu", "rm", "sa", "sd", "ti", "tk", "tt", "ug",
        "war", "jv",
    ];
    Some(CODES.iter().find(|&&c| c == code).copied().unwrap_or("other"))
}

/// whichlang's answer (16 languages; it always answers).
fn whichlang(t: &str) -> Option<&'static str> {
    use whichlang::Lang::*;
    Some(match whichlang::detect_language(head(t, 2048)) {
        Ara => "ar",
        Cmn => "zh",
        Deu => "de",
        Eng => "en",
        Fra => "fr",
        Hin => "hi",
        Ita => "it",
        Jpn => "ja",
        Kor => "ko",
        Nld => "nl",
        Por => "pt",
        Rus => "ru",
        Spa => "es",
        Swe => "sv",
        Tur => "tr",
        Vie => "vi",
    })
}

#[cfg(feature = "lingua")]
fn lingua(t: &str) -> Option<&'static str> {
    use std::sync::OnceLock;
    static DETECTOR: OnceLock<lingua::LanguageDetector> = OnceLock::new();
    let det = DETECTOR.get_or_init(|| {
        lingua::LanguageDetectorBuilder::from_all_languages()
            .with_low_accuracy_mode()
            .with_preloaded_language_models()
            .build()
    });
    let l = det.detect_language_of(head(t, 2048))?;
    static_code(&l.iso_code_639_1().to_string())
}

/// The candidates, the baseline (whatlang on 2 KiB) first.
fn candidates() -> Vec<(&'static str, Detector)> {
    #[allow(unused_mut)]
    let mut v: Vec<(&'static str, Detector)> = vec![
        ("whatlang, 2048 B (today)", whatlang_2048),
        ("whatlang, 1024 B", whatlang_1024),
        ("whatlang, 256 B", whatlang_256),
        ("whatlang, 64 B", whatlang_64),
        ("whatlang trigrams only, 2048 B", whatlang_trigram),
        ("whatlang alphabets only, 2048 B", whatlang_alphabet),
        ("cld2 1.0.2", cld2),
        ("whichlang 0.1.1", whichlang),
    ];
    #[cfg(feature = "lingua")]
    v.push(("lingua 1.8.0, low accuracy", lingua));
    v
}

/// The first `bytes` bytes of `text`, cut at a character boundary.
fn head(text: &str, bytes: usize) -> &str {
    let mut end = text.len().min(bytes);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// `gen-corpus` labels: `zh-cn`, `pt_BR` → `zh`, `pt`.
fn base_code(label: &str) -> &str {
    label.split(['-', '_']).next().unwrap_or(label)
}

struct Doc {
    /// The label; `None` for an unlabelled corpus.
    lang: Option<String>,
    text: String,
}

fn read(path: &PathBuf, limit: Option<usize>, unlabelled: bool) -> Result<Vec<Doc>> {
    let reader = std::io::BufReader::new(
        std::fs::File::open(path).with_context(|| path.display().to_string())?,
    );
    let mut docs = Vec::new();
    for (n, line) in reader.lines().enumerate() {
        if limit.is_some_and(|l| n >= l) {
            break;
        }
        let line = line?;
        let v: serde_json::Value = serde_json::from_str(&line)
            .with_context(|| format!("{}: line {}", path.display(), n + 1))?;
        let Some(text) = v["text"].as_str() else { continue };
        docs.push(Doc {
            lang: v["lang"].as_str().filter(|_| !unlabelled).map(|l| base_code(l).to_owned()),
            // Only the prefix is ever looked at.
            text: head(text, lang::DETECT_PREFIX).to_owned(),
        });
    }
    Ok(docs)
}

/// The fastest of `rounds` passes of `f` over `texts`, in seconds.
fn time(rounds: usize, texts: &[&str], f: Detector) -> f64 {
    (0..rounds.max(1))
        .map(|_| {
            let start = Instant::now();
            let mut found = 0usize;
            for t in texts {
                found += usize::from(f(t).is_some());
            }
            std::hint::black_box(found);
            start.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min)
}

fn report(name: &str, docs: &[Doc], args: &Args) -> String {
    let cands = candidates();
    let all: Vec<&str> = docs.iter().map(|d| d.text.as_str()).collect();
    let quick: Vec<Option<&'static str>> =
        docs.iter().map(|d| lang::detect_quick(&d.text).map(|q| q.code)).collect();
    let unsure: Vec<&str> = docs
        .iter()
        .zip(&quick)
        .filter(|(_, q)| q.is_none())
        .map(|(d, _)| d.text.as_str())
        .collect();
    let labelled = docs.iter().all(|d| d.lang.is_some());
    // Answers of each candidate on every document.
    let answers: Vec<Vec<Option<&'static str>>> =
        cands.iter().map(|(_, f)| all.iter().map(|t| f(t)).collect()).collect();
    // Timings in turns: every candidate on all documents, then on the unsure ones.
    let t_all: Vec<f64> = cands.iter().map(|(_, f)| time(args.rounds, &all, *f)).collect();
    let t_unsure: Vec<f64> = cands.iter().map(|(_, f)| time(args.rounds, &unsure, *f)).collect();

    let n = docs.len().max(1) as f64;
    let nu = unsure.len().max(1) as f64;
    let mut out = String::new();
    let _ = writeln!(out, "## {name}\n");
    // `dedup --report` asks once per distinct prefix (lookalike's DetectCache).
    let distinct = all.iter().collect::<std::collections::HashSet<_>>().len();
    let distinct_unsure = unsure.iter().collect::<std::collections::HashSet<_>>().len();
    let _ = writeln!(
        out,
        "{} documents ({distinct} distinct prefixes); the quick pass leaves {} ({:.1}%) to the \
         fallback ({distinct_unsure} distinct prefixes).\n",
        docs.len(),
        unsure.len(),
        100.0 * unsure.len() as f64 / n
    );
    if labelled {
        let _ = writeln!(
            out,
            "| candidate | alone: right | alone: µs per call | ÷ whatlang | quick pass + it: right | fallback: µs per call | ÷ whatlang |\n|---|---|---|---|---|---|---|"
        );
    } else {
        let _ = writeln!(
            out,
            "| candidate | alone: same as whatlang | alone: µs per call | ÷ whatlang | fallback: same as whatlang's | fallback: µs per call | ÷ whatlang |\n|---|---|---|---|---|---|---|"
        );
    }
    let right = |a: Option<&str>, d: &Doc| a.is_some() && a == d.lang.as_deref();
    for (k, (cname, _)) in cands.iter().enumerate() {
        let combined = |i: usize| quick[i].or(answers[k][i]);
        let (alone, with_quick) = if labelled {
            (
                (0..docs.len()).filter(|&i| right(answers[k][i], &docs[i])).count(),
                (0..docs.len()).filter(|&i| right(combined(i), &docs[i])).count(),
            )
        } else {
            (
                (0..docs.len()).filter(|&i| answers[k][i] == answers[0][i]).count(),
                (0..docs.len())
                    .filter(|&i| quick[i].is_none() && answers[k][i] == answers[0][i])
                    .count(),
            )
        };
        let with_quick_pct =
            if labelled { 100.0 * with_quick as f64 / n } else { 100.0 * with_quick as f64 / nu };
        let _ = writeln!(
            out,
            "| {cname} | {:.2}% | {:.2} | {:.3} | {with_quick_pct:.2}% | {:.2} | {:.3} |",
            100.0 * alone as f64 / n,
            t_all[k] * 1e6 / n,
            t_all[k] / t_all[0],
            t_unsure[k] * 1e6 / nu,
            t_unsure[k] / t_unsure[0],
        );
    }
    if !labelled {
        // What the candidates say where the quick pass is unsure, against whatlang.
        for (k, (cname, _)) in cands.iter().enumerate().skip(1) {
            let mut m: BTreeMap<String, usize> = BTreeMap::new();
            for i in 0..docs.len() {
                if quick[i].is_none() && answers[k][i] != answers[0][i] {
                    *m.entry(format!(
                        "{}→{}",
                        answers[0][i].unwrap_or("none"),
                        answers[k][i].unwrap_or("none")
                    ))
                    .or_default() += 1;
                }
            }
            let mut v: Vec<_> = m.into_iter().collect();
            v.sort_by_key(|e| std::cmp::Reverse(e.1));
            let top: Vec<String> = v.iter().take(12).map(|(k, c)| format!("{k} {c}")).collect();
            let _ =
                writeln!(out, "\n{cname}, fallback answers unlike whatlang's: {}", top.join(", "));
        }
        return out;
    }
    // Per language: the combination's right share for each candidate, and alone for the two
    // main ones.
    let mut langs: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (i, d) in docs.iter().enumerate() {
        langs.entry(d.lang.as_deref().unwrap_or("?")).or_default().push(i);
    }
    let _ = write!(
        out,
        "\nQuick pass + candidate, right per language (alone in brackets):\n\n| language | docs | quick answered |"
    );
    for (cname, _) in &cands {
        let _ = write!(out, " {cname} |");
    }
    let _ = write!(out, "\n|---|---|---|");
    for _ in &cands {
        let _ = write!(out, "---|");
    }
    let _ = writeln!(out);
    for (code, idx) in &langs {
        let m = idx.len() as f64;
        let _ = write!(
            out,
            "| {code} | {} | {:.1}% |",
            idx.len(),
            100.0 * idx.iter().filter(|&&i| quick[i].is_some()).count() as f64 / m
        );
        for ans in &answers {
            let c = idx.iter().filter(|&&i| right(quick[i].or(ans[i]), &docs[i])).count();
            let a = idx.iter().filter(|&&i| right(ans[i], &docs[i])).count();
            let _ = write!(out, " {:.1}% ({:.1}%) |", 100.0 * c as f64 / m, 100.0 * a as f64 / m);
        }
        let _ = writeln!(out);
    }
    // Where cld2 and whatlang part as fallbacks: which was right.
    let k = cands.iter().position(|(n, _)| n.starts_with("cld2")).unwrap_or(0);
    let (mut w_only, mut c_only, mut neither) = (0, 0, 0);
    let mut shown = 0;
    for (i, d) in docs.iter().enumerate() {
        if quick[i].is_some() || answers[k][i] == answers[0][i] {
            continue;
        }
        match (right(answers[0][i], d), right(answers[k][i], d)) {
            (true, _) => w_only += 1,
            (_, true) => c_only += 1,
            _ => neither += 1,
        }
        if shown < args.show {
            shown += 1;
            eprintln!(
                "== label {:?} whatlang {:?} cld2 {:?}\n{}\n",
                d.lang,
                answers[0][i],
                answers[k][i],
                head(&d.text, 300)
            );
        }
    }
    let _ = writeln!(
        out,
        "\nFallback answers where cld2 and whatlang differ: whatlang right {w_only}, cld2 right {c_only}, neither {neither}."
    );
    out
}

fn main() -> Result<()> {
    let args = Args::parse();
    let mut out = String::new();
    for path in &args.corpora {
        let docs = read(path, args.limit, args.unlabelled)?;
        // Warm up every candidate (lingua loads its models, cld2 its tables).
        for (_, f) in candidates() {
            let _ = f("warm up");
        }
        let name = path.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default();
        out.push_str(&report(&name, &docs, &args));
        out.push('\n');
        eprintln!("done: {name}");
    }
    print!("{out}");
    Ok(())
}
