//! The paragraph pool: real text, per language, that base documents are built from.
//!
//! Sources are directories of HTML or plain-text files (optionally gzip-compressed), each tagged
//! with a language. Files are read in sorted path order and paragraphs are filtered and
//! deduplicated in that order, so the pool (and so every corpus built from it) depends only on
//! the files, not on directory listing order or thread count.
//!
//! Filters: a paragraph must be written in its language's script (translations leave many
//! paragraphs in English), have at least `min_words` words, and not repeat an earlier paragraph
//! (after lower-casing and whitespace folding) of any source: manuals repeat navigation lines,
//! figure captions and notes on every page, and such repeats would plant accidental
//! near-duplicates.

use std::collections::HashSet;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use anyhow::{Context, Result, bail};
use rayon::prelude::*;
use unicode_segmentation::UnicodeSegmentation;
use xxhash_rust::xxh3::xxh3_64;

use crate::extract::{fits_language, html_paragraphs, language_from_path, text_paragraphs};
use crate::rng::Rng;

/// A directory of source files in one language.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Source {
    /// Language code (`en`, `ru`, `uk`, `ja`, `zh`, ...).
    pub lang: String,
    /// The directory (searched recursively) or a single file.
    pub path: PathBuf,
}

impl FromStr for Source {
    type Err = anyhow::Error;

    /// Parses `LANG=PATH`, or `PATH` whose language is guessed from its components.
    fn from_str(s: &str) -> Result<Self> {
        if let Some((lang, path)) = s.split_once('=')
            && !lang.is_empty()
            && lang.len() <= 8
            && !lang.contains('/')
        {
            return Ok(Source { lang: lang.to_owned(), path: PathBuf::from(path) });
        }
        let path = PathBuf::from(s);
        match language_from_path(&path) {
            Some(lang) => Ok(Source { lang, path }),
            None => bail!("cannot tell the language of source {s:?}: write it as LANG={s}"),
        }
    }
}

/// The default sources: Debian's documentation packages, where installed. The GIMP manual
/// (`gimp-help-{en,ru,uk,ja,zh-cn}`), the Debian Administrator's Handbook (`debian-handbook`) and
/// the LibreOffice help (`libreoffice-help-{en-us,ru,ja,zh-cn}`) give English, Russian, Japanese
/// and Chinese; Ukrainian is scarce in Debian (the GIMP manual is mostly untranslated), so the
/// Double Commander help (`doublecmd-help-uk`) and the Ubuntu packaging guide
/// (`ubuntu-packaging-guide-html-uk`) add what there is. For more Ukrainian text pass the UA-GEC
/// essays (PyPI package `ua-gec`) as an extra source, as `bench/e2e.sh` does.
pub const DEFAULT_SOURCES: &[(&str, &str)] = &[
    ("en", "/usr/share/gimp/2.0/help/en"),
    ("ru", "/usr/share/gimp/2.0/help/ru"),
    ("uk", "/usr/share/gimp/2.0/help/uk"),
    ("ja", "/usr/share/gimp/2.0/help/ja"),
    ("zh", "/usr/share/gimp/2.0/help/zh_CN"),
    ("en", "/usr/share/doc/debian-handbook/html/en-US"),
    ("ru", "/usr/share/doc/debian-handbook/html/ru-RU"),
    ("ja", "/usr/share/doc/debian-handbook/html/ja-JP"),
    ("zh", "/usr/share/doc/debian-handbook/html/zh-CN"),
    ("en", "/usr/share/libreoffice/help/en-US"),
    ("ru", "/usr/share/libreoffice/help/ru"),
    ("ja", "/usr/share/libreoffice/help/ja"),
    ("zh", "/usr/share/libreoffice/help/zh-CN"),
    ("uk", "/usr/share/doublecmd/doc/uk"),
    ("uk", "/usr/share/doc/ubuntu-packaging-guide-html-uk"),
];

/// Those of [`DEFAULT_SOURCES`] that are installed.
pub fn default_sources() -> Vec<Source> {
    DEFAULT_SOURCES
        .iter()
        .filter(|(_, p)| Path::new(p).is_dir())
        .map(|(l, p)| Source { lang: (*l).to_owned(), path: PathBuf::from(p) })
        .collect()
}

/// Limits applied while building the pool.
#[derive(Debug, Clone, Copy)]
pub struct PoolOptions {
    /// Paragraphs with fewer words are dropped.
    pub min_words: usize,
    /// Longer paragraphs are cut to this many words.
    pub max_words: usize,
}

impl Default for PoolOptions {
    fn default() -> Self {
        PoolOptions { min_words: 8, max_words: 1000 }
    }
}

/// The paragraphs of one language.
#[derive(Debug, Clone, Default)]
pub struct LangPool {
    /// Language code.
    pub lang: String,
    /// Paragraphs in source order.
    pub paragraphs: Vec<String>,
    /// Word count (Unicode word segmentation) of each paragraph.
    pub words: Vec<u32>,
    /// Sum of `words`.
    pub total_words: u64,
}

impl LangPool {
    /// A random word of this language, drawn with its frequency in the pool.
    pub fn random_word(&self, rng: &mut Rng) -> &str {
        let p = rng.index(self.paragraphs.len());
        let k = rng.index(self.words[p].max(1) as usize);
        self.paragraphs[p].unicode_words().nth(k).unwrap_or("")
    }
}

/// Paragraphs of every language, in order of first appearance among the sources.
#[derive(Debug, Clone, Default)]
pub struct Pool {
    /// One entry per language.
    pub langs: Vec<LangPool>,
}

impl Pool {
    /// Reads every source and builds the pool. Languages that end up without paragraphs are
    /// left out; an error if none is left.
    pub fn build(sources: &[Source], opts: PoolOptions) -> Result<Pool> {
        let mut files: Vec<(usize, PathBuf)> = Vec::new();
        for (si, src) in sources.iter().enumerate() {
            if !src.path.exists() {
                bail!("source {} does not exist", src.path.display());
            }
            for entry in walkdir::WalkDir::new(&src.path).sort_by_file_name() {
                let entry = entry.with_context(|| format!("listing {}", src.path.display()))?;
                if entry.file_type().is_file() && file_kind(entry.path()).is_some() {
                    files.push((si, entry.into_path()));
                }
            }
        }
        let extracted: Vec<(usize, Vec<(String, usize)>)> = files
            .par_iter()
            .map(|(si, path)| {
                let lang = &sources[*si].lang;
                let paras = read_paragraphs(path)
                    .unwrap_or_default()
                    .into_iter()
                    .filter(|p| fits_language(p, lang))
                    .filter_map(|p| cut_words(p, opts))
                    .collect();
                (*si, paras)
            })
            .collect();

        let mut pool = Pool::default();
        let mut seen = HashSet::new();
        for (si, paras) in extracted {
            let lang = &sources[si].lang;
            let li = match pool.langs.iter().position(|l| &l.lang == lang) {
                Some(i) => i,
                None => {
                    pool.langs.push(LangPool { lang: lang.clone(), ..LangPool::default() });
                    pool.langs.len() - 1
                }
            };
            let lp = &mut pool.langs[li];
            for (p, words) in paras {
                if seen.insert(paragraph_key(&p)) {
                    lp.paragraphs.push(p);
                    lp.words.push(words as u32);
                    lp.total_words += words as u64;
                }
            }
        }
        pool.langs.retain(|l| !l.paragraphs.is_empty());
        if pool.langs.is_empty() {
            bail!("the sources hold no usable paragraphs");
        }
        Ok(pool)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FileKind {
    Html,
    Text,
}

/// The kind of a source file from its name (`.gz` looked through), or `None` to skip it.
fn file_kind(path: &Path) -> Option<FileKind> {
    let name = path.file_name()?.to_str()?.to_ascii_lowercase();
    let name = name.strip_suffix(".gz").unwrap_or(&name);
    let ext = name.rsplit_once('.').map_or("", |(_, e)| e);
    match ext {
        "html" | "htm" | "xhtml" => Some(FileKind::Html),
        "txt" | "text" | "md" | "rst" => Some(FileKind::Text),
        _ => None,
    }
}

/// Reads one file and splits it into paragraphs; `None` for unreadable or binary files.
fn read_paragraphs(path: &Path) -> Option<Vec<String>> {
    let kind = file_kind(path)?;
    let raw = std::fs::read(path).ok()?;
    let bytes = if path.extension().is_some_and(|e| e == "gz") {
        let mut out = Vec::new();
        flate2::read::MultiGzDecoder::new(&raw[..]).read_to_end(&mut out).ok()?;
        out
    } else {
        raw
    };
    if bytes.iter().take(4096).any(|&b| b == 0) {
        return None;
    }
    let text = String::from_utf8_lossy(&bytes);
    Some(match kind {
        FileKind::Html => html_paragraphs(&text),
        FileKind::Text => text_paragraphs(&text),
    })
}

/// Applies the word limits: `None` when too short, the paragraph cut to `max_words` otherwise,
/// with its word count.
fn cut_words(p: String, opts: PoolOptions) -> Option<(String, usize)> {
    let mut count = 0;
    for (i, _) in p.unicode_word_indices() {
        if count == opts.max_words {
            let cut = p[..i].trim_end().to_owned();
            return Some((cut, count));
        }
        count += 1;
    }
    (count >= opts.min_words.max(1)).then_some((p, count))
}

/// Identity of a paragraph for deduplication: its lower-cased words.
fn paragraph_key(p: &str) -> u64 {
    let mut s = String::with_capacity(p.len());
    for w in p.unicode_words() {
        s.push_str(&w.to_lowercase());
        s.push(' ');
    }
    xxh3_64(s.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sources_parse_with_and_without_language() {
        let s: Source = "uk=/data/ukr".parse().unwrap();
        assert_eq!((s.lang.as_str(), s.path.as_path()), ("uk", Path::new("/data/ukr")));
        let s: Source = "/usr/share/gimp/2.0/help/zh_CN".parse().unwrap();
        assert_eq!(s.lang, "zh");
        assert!("/tmp/whatever".parse::<Source>().is_err());
    }

    #[test]
    fn pool_filters_dedups_and_keeps_order() {
        let dir = std::env::temp_dir().join(format!("lookalike-bench-pool-{}", std::process::id()));
        let en = dir.join("en");
        std::fs::create_dir_all(&en).unwrap();
        std::fs::write(
            en.join("b.html"),
            "<p>one two three four five six seven eight nine</p><p>too short</p>\
             <p>Это абзац на русском языке из восьми слов здесь</p>",
        )
        .unwrap();
        std::fs::write(
            en.join("a.txt"),
            "alpha beta gamma delta epsilon zeta eta theta\n\nOne two three four five six \
             seven eight NINE\n",
        )
        .unwrap();
        std::fs::write(en.join("skip.png"), [0u8, 1, 2]).unwrap();
        let pool = Pool::build(
            &[Source { lang: "en".into(), path: en.clone() }],
            PoolOptions { min_words: 8, max_words: 8 },
        )
        .unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(pool.langs.len(), 1);
        let lp = &pool.langs[0];
        // a.txt comes first (sorted paths); its second paragraph is cut to 8 words. b.html's
        // first paragraph, cut the same way, then repeats it (case aside) and is dropped; its
        // second is too short and its third is not English.
        assert_eq!(
            lp.paragraphs,
            vec![
                "alpha beta gamma delta epsilon zeta eta theta",
                "One two three four five six seven eight"
            ]
        );
        assert_eq!(lp.words, vec![8, 8]);
        assert_eq!(lp.total_words, 16);
    }
}
