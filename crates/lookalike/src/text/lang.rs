//! Languages. Contract: "give me a text, I tell you its language; give me a language, I give you
//! its stopwords" — the one place where language-specific behaviour lives.
//!
//! Detection looks at the first [`DETECT_PREFIX`] bytes of the text, which is enough for a
//! reliable guess and keeps the cost independent of document length. One cheap pass answers the
//! clear-cut cases (Latin text by its stopwords, Ukrainian and Russian by their own letters,
//! Chinese and Japanese by the share of kana); whatlang's trigram and script model
//! (70 languages) answers the rest. Codes are ISO 639-1 where the language has one (`en`, `ru`,
//! `uk`, `zh`, `ja`), ISO 639-3 otherwise.
//!
//! Stopword lists come from the Stopwords ISO collection (the `stop-words` crate), normalized
//! with [`crate::text::normalize`] so that they compare equal to document tokens. Methods that need
//! stopwords (SpotSigs antecedents, I-Match lexicons) ask [`stopwords`].

use std::collections::HashSet;
use std::sync::OnceLock;

use crate::text::normalize::normalize;

mod quick;

/// Bytes of text looked at by [`detect`].
pub const DETECT_PREFIX: usize = 2048;

/// A detected language.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Detected {
    /// ISO 639-1 code where one exists, else ISO 639-3 (`"en"`, `"uk"`, `"zh"`, `"yid"`).
    pub code: &'static str,
    /// Confidence in [0, 1]: whatlang's, or for the quick pass's Latin answers one minus the
    /// runner-up's share of the winner's stopword score.
    pub confidence: f64,
    /// whatlang's judgement of whether the guess is reliable; for the quick pass's answers, true
    /// unless its lean rule gave the answer (prose among code, few stopwords).
    pub reliable: bool,
}

/// Detects the language of `text` from its first [`DETECT_PREFIX`] bytes; `None` when the text has
/// too little to go on.
///
/// Clear-cut texts (Latin text whose stopwords name one language, also when they are few among
/// code and names, Ukrainian or Russian by their own letters, Chinese or Japanese by the share
/// of kana) are answered by one cheap pass over the prefix; everything else by whatlang
/// ([`detect_whatlang`]). See `bench/lang.sh` for how
/// often the two answers differ and which is right.
pub fn detect(text: &str) -> Option<Detected> {
    let prefix = prefix(text);
    quick::detect(prefix).or_else(|| detect_whatlang(prefix))
}

/// [`detect`] with a memory of the prefixes it has seen. Detection looks only at a text's first
/// [`DETECT_PREFIX`] bytes, so texts that begin alike (copies in a crawl, pages of one template
/// whose first 2 KiB are its menu) get their answer once: from the second on, a hash of the
/// prefix and a lookup. The answers are [`detect`]'s exactly. Shared by threads (a lock held for
/// the lookup only); it remembers at most [`DetectCache::CAPACITY`] prefixes, then answers the
/// others without remembering them.
#[derive(Debug, Default)]
pub struct DetectCache {
    seen: std::sync::Mutex<std::collections::HashMap<u128, Option<Detected>>>,
}

impl DetectCache {
    /// Most prefixes remembered (about 50 MB).
    pub const CAPACITY: usize = 1 << 20;

    /// [`detect`]'s answer for `text`.
    pub fn detect(&self, text: &str) -> Option<Detected> {
        let prefix = prefix(text);
        let key = xxhash_rust::xxh3::xxh3_128(prefix.as_bytes());
        let lock = || self.seen.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(&known) = lock().get(&key) {
            return known;
        }
        let found = detect(prefix);
        let mut seen = lock();
        if seen.len() < Self::CAPACITY {
            seen.insert(key, found);
        }
        found
    }

    /// Prefixes remembered.
    pub fn len(&self) -> usize {
        self.seen.lock().unwrap_or_else(std::sync::PoisonError::into_inner).len()
    }

    /// True when no prefix is remembered.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The quick pass of [`detect`] alone: `None` whenever it would leave the text to whatlang
/// (benchmarks measure how often it answers).
pub fn detect_quick(text: &str) -> Option<Detected> {
    quick::detect(prefix(text))
}

/// whatlang's answer alone on the first [`DETECT_PREFIX`] bytes: what [`detect`] falls back to
/// when its quick pass is not sure (benchmarks compare the two).
pub fn detect_whatlang(text: &str) -> Option<Detected> {
    let info = whatlang::detect(prefix(text))?;
    Some(Detected {
        code: iso639_1(info.lang()),
        confidence: info.confidence(),
        reliable: info.is_reliable(),
    })
}

/// The first [`DETECT_PREFIX`] bytes of `text`, cut at a character boundary.
fn prefix(text: &str) -> &str {
    let mut end = text.len().min(DETECT_PREFIX);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// The ISO 639-1 code of a whatlang language where one exists, else its ISO 639-3 code.
fn iso639_1(lang: whatlang::Lang) -> &'static str {
    let three = lang.code();
    match three {
        "epo" => "eo",
        "eng" => "en",
        "rus" => "ru",
        "cmn" => "zh",
        "spa" => "es",
        "por" => "pt",
        "ita" => "it",
        "ben" => "bn",
        "fra" => "fr",
        "deu" => "de",
        "ukr" => "uk",
        "kat" => "ka",
        "ara" => "ar",
        "hin" => "hi",
        "jpn" => "ja",
        "heb" => "he",
        "yid" => "yi",
        "pol" => "pl",
        "amh" => "am",
        "jav" => "jv",
        "kor" => "ko",
        "nob" => "nb",
        "dan" => "da",
        "swe" => "sv",
        "fin" => "fi",
        "tur" => "tr",
        "nld" => "nl",
        "hun" => "hu",
        "ces" => "cs",
        "ell" => "el",
        "bul" => "bg",
        "bel" => "be",
        "mar" => "mr",
        "kan" => "kn",
        "ron" => "ro",
        "slv" => "sl",
        "hrv" => "hr",
        "srp" => "sr",
        "mkd" => "mk",
        "lit" => "lt",
        "lav" => "lv",
        "est" => "et",
        "tam" => "ta",
        "vie" => "vi",
        "urd" => "ur",
        "tha" => "th",
        "guj" => "gu",
        "uzb" => "uz",
        "pan" => "pa",
        "aze" => "az",
        "ind" => "id",
        "tel" => "te",
        "pes" => "fa",
        "mal" => "ml",
        "ori" => "or",
        "mya" => "my",
        "nep" => "ne",
        "sin" => "si",
        "khm" => "km",
        "aka" => "ak",
        "zul" => "zu",
        "sna" => "sn",
        "afr" => "af",
        "lat" => "la",
        "slk" => "sk",
        "cat" => "ca",
        "tgl" => "tl",
        "hye" => "hy",
        "cym" => "cy",
        other => other,
    }
}

/// A language's stopwords, as normalized tokens.
#[derive(Debug)]
pub struct Stopwords {
    code: &'static str,
    words: HashSet<String>,
}

impl Stopwords {
    /// The language code.
    pub fn code(&self) -> &'static str {
        self.code
    }

    /// Whether a normalized token is a stopword.
    pub fn contains(&self, token: &str) -> bool {
        self.words.contains(token)
    }

    /// Number of stopwords.
    pub fn len(&self) -> usize {
        self.words.len()
    }

    /// True for an empty list.
    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }
}

/// Languages whose stopword lists are guaranteed.
pub const STOPWORD_LANGUAGES: &[&str] =
    &["en", "ru", "uk", "de", "fr", "es", "it", "pt", "pl", "zh", "ja"];

/// The stopwords of a language by ISO 639-1 code (built once, then shared); `None` when the
/// Stopwords ISO collection has no list for it.
pub fn stopwords(code: &str) -> Option<&'static Stopwords> {
    static CACHE: OnceLock<std::sync::Mutex<Vec<&'static Stopwords>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    let mut cache = cache.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some(s) = cache.iter().find(|s| s.code == code) {
        return Some(s);
    }
    let list = stop_words::lookup(code)?;
    let code: &'static str = stop_words::available_languages().iter().find(|&&c| c == code)?;
    let mut words = HashSet::with_capacity(list.len());
    for w in list {
        // A stopword that normalizes to several tokens ("aren't" → "arent" is one; "d'un" → "dun")
        // is kept token by token only when it is a single token; multi-token phrases are skipped.
        let n = normalize(w);
        if n.len() == 1 {
            words.insert(n.text);
        }
    }
    // Leaked once per language: stopword lists live for the whole process.
    let s: &'static Stopwords = Box::leak(Box::new(Stopwords { code, words }));
    cache.push(s);
    Some(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The cache answers as `detect` does, once per prefix: copies and texts that differ only
    /// past the prefix share an entry, texts that differ inside it do not.
    #[test]
    fn the_cache_answers_as_detect_once_per_prefix() {
        let english = "The quick brown fox jumps over the lazy dog while the farmer watches. ";
        let long = english.repeat(40);
        let texts = [
            long.clone(),
            format!("{long} Один абзац після префікса."),
            long.clone(),
            "Пошук нечітких дублікатів веб-документів є важливим завданням.".to_owned(),
            "Поиск нечетких дубликатов веб-документов является важной задачей.".to_owned(),
            "boost::proto::extends<Expr, Derived, Domain>".to_owned(),
            String::new(),
            format!("Kein Text {long}"),
        ];
        let cache = DetectCache::default();
        for round in 0..2 {
            for text in &texts {
                assert_eq!(cache.detect(text), detect(text), "round {round}: {text:.40}");
            }
        }
        // Eight texts, three of them with one prefix (a copy, and one that differs past 2 KiB).
        assert!(long.len() > DETECT_PREFIX);
        assert_eq!(cache.len(), 6);
    }

    #[test]
    fn detects_the_languages_of_the_seeds_and_common_ones() {
        let cases = [
            (
                "The quick brown fox jumps over the lazy dog while the farmer watches from the porch.",
                "en",
            ),
            (
                "Поиск нечетких дубликатов веб-документов является важной задачей для поисковых систем.",
                "ru",
            ),
            (
                "Пошук нечітких дублікатів веб-документів є важливим завданням для пошукових систем.",
                "uk",
            ),
            ("重复文档检测是搜索引擎中的一个重要问题，我们使用最小哈希。", "zh"),
            ("重複文書の検出は検索エンジンにとって重要な問題です。", "ja"),
            ("Die Erkennung von Duplikaten ist eine wichtige Aufgabe für Suchmaschinen.", "de"),
        ];
        for (text, code) in cases {
            assert_eq!(detect(text).map(|d| d.code), Some(code), "{text}");
        }
        assert_eq!(detect(""), None);
    }

    #[test]
    fn detection_looks_at_a_prefix_only_and_respects_char_boundaries() {
        let long = "Ж".repeat(DETECT_PREFIX); // 2 bytes each: the cut falls inside a character
        let _ = detect(&long);
        let mixed = format!(
            "{} {}",
            "This is plainly English text. ".repeat(100),
            "Это русский текст. ".repeat(1000)
        );
        assert_eq!(detect(&mixed).map(|d| d.code), Some("en"));
    }

    #[test]
    fn stopword_lists_exist_for_the_required_languages_and_match_tokens() {
        for code in STOPWORD_LANGUAGES {
            let s = stopwords(code).unwrap_or_else(|| panic!("no stopwords for {code}"));
            assert!(s.len() > 20, "{code}: only {} stopwords", s.len());
        }
        assert!(stopwords("en").unwrap().contains("the"));
        assert!(stopwords("ru").unwrap().contains("и"));
        assert!(stopwords("uk").unwrap().contains("що"));
        assert!(stopwords("de").unwrap().contains("und"));
        // Normalized like document tokens: upper case in the list would never match otherwise.
        let en = stopwords("en").unwrap();
        assert!(en.words.iter().all(|w| normalize(w).text == *w));
        assert!(stopwords("xx").is_none());
        // The same list object is returned every time.
        assert!(std::ptr::eq(stopwords("en").unwrap(), en));
    }
}
