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
/// prefix and a lookup. The answers are [`detect`]'s exactly, unless the cache was made
/// [`DetectCache::with_folder_votes`]. Shared by threads (a lock held for the lookup only); it
/// remembers at most [`DetectCache::CAPACITY`] prefixes, then answers the others without
/// remembering them.
#[derive(Debug, Default)]
pub struct DetectCache {
    seen: std::sync::Mutex<std::collections::HashMap<u128, Seen>>,
    votes: Option<FolderVotes>,
}

/// What the cache knows of a prefix.
#[derive(Debug, Clone, Copy)]
enum Seen {
    /// The quick pass's answer.
    Quick(Detected),
    /// The quick pass left it to whatlang, having seen `left` of it; `fallback`: whatlang's
    /// answer once asked (a folder's language may have answered instead).
    Left { left: quick::Left, fallback: Option<Option<Detected>> },
}

impl DetectCache {
    /// Most prefixes remembered (about 50 MB).
    pub const CAPACITY: usize = 1 << 20;

    /// A cache whose [`DetectCache::detect_in`] answers a text the quick pass leaves to whatlang
    /// with the language of its folder or of a folder above it, when the quick pass's answers
    /// on the texts under that folder in earlier rounds name one Latin-script language clearly
    /// and the text is clearly Latin text whose stopwords, if any, score that language highest
    /// (and, for English, Indonesian and Tagalog, without an accented word; see
    /// [`FolderVotes`]). Such answers are not
    /// `reliable`. Rounds end at [`DetectCache::seal`]: what is answered within a round does
    /// not depend on the order the threads take the texts in.
    pub fn with_folder_votes() -> Self {
        DetectCache { votes: Some(FolderVotes::default()), ..Self::default() }
    }

    /// [`detect`]'s answer for `text`.
    pub fn detect(&self, text: &str) -> Option<Detected> {
        self.detect_in(text, None)
    }

    /// The answer for `text` found in `folder` (see [`folder_of`]): [`detect`]'s, but with
    /// folder votes (only then is `folder` looked at) a text the quick pass leaves to whatlang
    /// gets its folders' language when earlier rounds settled it, and each quick answer is a
    /// vote for its folders' language in the next round.
    pub fn detect_in(&self, text: &str, folder: Option<&str>) -> Option<Detected> {
        let prefix = prefix(text);
        let key = xxhash_rust::xxh3::xxh3_128(prefix.as_bytes());
        let lock = || self.seen.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let remember = |seen: Seen| {
            let mut map = lock();
            if map.len() < Self::CAPACITY || map.contains_key(&key) {
                map.insert(key, seen);
            }
        };
        let folder = self.votes.as_ref().zip(folder);
        let known = lock().get(&key).copied();
        let seen = known.unwrap_or_else(|| {
            let seen = match quick::detect_or_left(prefix) {
                Ok(found) => Seen::Quick(found),
                Err(left) => Seen::Left { left, fallback: None },
            };
            remember(seen);
            seen
        });
        let (left, fallback) = match seen {
            Seen::Quick(found) => {
                if let Some((votes, folder)) = folder {
                    votes.vote(folder, found.code);
                }
                return Some(found);
            }
            Seen::Left { left, fallback } => (left, fallback),
        };
        // Only clearly Latin text whose own few stopwords, if any, point the same way, and for
        // a language written without accents no accented word: a translated or partly
        // translated page among untranslated ones keeps whatlang's answer.
        if left.latin
            && let Some((votes, folder)) = folder
            && let Some(found) = votes.settled(folder)
            && quick::is_latin_language(found.code)
            && left.best.is_none_or(|best| best == found.code)
            && !(left.accented && quick::is_unaccented_language(found.code))
        {
            return Some(found);
        }
        if let Some(found) = fallback {
            return found;
        }
        let found = detect_whatlang(prefix);
        remember(Seen::Left { left, fallback: Some(found) });
        found
    }

    /// Ends a round of folder votes: the votes cast since the last call count from now on.
    /// Without folder votes, nothing.
    pub fn seal(&self) {
        if let Some(votes) = &self.votes {
            votes.seal();
        }
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

/// The folder of a document id (a path or URL): everything up to its last `/`, query and
/// fragment left out; `None` for an id without one (`d000123`) or a bare site (`https://a.org`).
///
/// ```
/// use lookalike::text::lang::folder_of;
/// assert_eq!(folder_of("https://a.org/doc/api/x.html?v=2"), Some("https://a.org/doc/api/"));
/// assert_eq!(folder_of("/usr/share/man/de/man1/ls.1.gz#3"), Some("/usr/share/man/de/man1/"));
/// assert_eq!(folder_of("https://a.org"), None);
/// assert_eq!(folder_of("d000123"), None);
/// ```
pub fn folder_of(id: &str) -> Option<&str> {
    let path = id.split(['?', '#']).next().unwrap_or(id);
    let folder = &path[..=path.rfind('/')?];
    (!folder.ends_with("//")).then_some(folder)
}

/// `folder` (as [`folder_of`] gives it), then each folder above it up to the site
/// (`https://a.org/`) or the top folder of a path (`file:///usr/`, `/usr/`).
///
/// ```
/// use lookalike::text::lang::ancestors;
/// let up: Vec<&str> = ancestors("https://a.org/doc/api/").collect();
/// assert_eq!(up, ["https://a.org/doc/api/", "https://a.org/doc/", "https://a.org/"]);
/// let up: Vec<&str> = ancestors("file:///usr/share/").collect();
/// assert_eq!(up, ["file:///usr/share/", "file:///usr/"]);
/// ```
pub fn ancestors(folder: &str) -> impl Iterator<Item = &str> {
    let named = |f: &&str| f.len() > 1 && !f.ends_with("//");
    std::iter::successors(Some(folder).filter(named), move |f| {
        let inner = &f[..f.len() - 1];
        Some(&inner[..=inner.rfind('/')?]).filter(named)
    })
}

/// The quick pass's answers counted per folder, in rounds: a folder's language is settled when
/// at least [`FolderVotes::MIN_VOTES`] of the texts in it or below it were answered by the
/// quick pass in earlier rounds and at least [`FolderVotes::MIN_SHARE_PERCENT`] percent of those
/// answers name one language. Pages the quick pass leaves to whatlang are mostly code and names among the
/// folder's prose pages (API references beside their guide); whatlang's trigrams read such
/// text as much by its identifiers as by its words. Counts are sums, so a round's outcome does
/// not depend on the order its votes came in.
#[derive(Debug, Default)]
pub struct FolderVotes {
    /// Votes of the rounds sealed, and the folders settled by them.
    sealed: std::sync::RwLock<Sealed>,
    /// Votes of the current round, by folder hash.
    fresh: std::sync::Mutex<std::collections::HashMap<u64, Tally>>,
}

#[derive(Debug, Default)]
struct Sealed {
    tallies: std::collections::HashMap<u64, Tally>,
    settled: std::collections::HashMap<u64, Detected>,
}

/// Votes per language code.
#[derive(Debug, Default, Clone)]
struct Tally(Vec<(&'static str, u32)>);

impl Tally {
    fn add(&mut self, code: &'static str, n: u32) {
        match self.0.iter_mut().find(|(c, _)| *c == code) {
            Some((_, count)) => *count += n,
            None => self.0.push((code, n)),
        }
    }

    /// The language named by enough of the votes, with its share of them.
    fn winner(&self) -> Option<Detected> {
        let total: u32 = self.0.iter().map(|(_, n)| n).sum();
        let &(code, top) = self.0.iter().max_by_key(|(c, n)| (*n, std::cmp::Reverse(*c)))?;
        let clear =
            total >= FolderVotes::MIN_VOTES && top * 100 >= total * FolderVotes::MIN_SHARE_PERCENT;
        clear.then(|| Detected {
            code,
            confidence: f64::from(top) / f64::from(total),
            reliable: false,
        })
    }
}

impl FolderVotes {
    /// Fewest quick answers that settle a folder's language.
    pub const MIN_VOTES: u32 = 8;
    /// Least share, in percent, of the quick answers the folder's language must have.
    pub const MIN_SHARE_PERCENT: u32 = 90;
    /// Most folders counted; the votes of others are not counted.
    pub const CAPACITY: usize = 1 << 20;

    fn key(folder: &str) -> u64 {
        xxhash_rust::xxh3::xxh3_64(folder.as_bytes())
    }

    /// A vote of the current round for `code` as the language of `folder` and of each folder
    /// above it ([`ancestors`]).
    pub fn vote(&self, folder: &str, code: &'static str) {
        let keys: Vec<u64> = ancestors(folder).map(Self::key).collect();
        let mut fresh = self.fresh.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        for key in keys {
            if fresh.len() < Self::CAPACITY || fresh.contains_key(&key) {
                fresh.entry(key).or_default().add(code, 1);
            }
        }
    }

    /// The language the sealed rounds settled for `folder`, or else for the nearest folder
    /// above it that has one.
    pub fn settled(&self, folder: &str) -> Option<Detected> {
        let sealed = self.sealed.read().unwrap_or_else(std::sync::PoisonError::into_inner);
        ancestors(folder).find_map(|f| sealed.settled.get(&Self::key(f)).copied())
    }

    /// Ends the current round: its votes join the sealed ones.
    pub fn seal(&self) {
        let fresh = std::mem::take(
            &mut *self.fresh.lock().unwrap_or_else(std::sync::PoisonError::into_inner),
        );
        let mut sealed = self.sealed.write().unwrap_or_else(std::sync::PoisonError::into_inner);
        let Sealed { tallies, settled } = &mut *sealed;
        for (key, tally) in fresh {
            if tallies.len() >= Self::CAPACITY && !tallies.contains_key(&key) {
                continue;
            }
            let total = tallies.entry(key).or_default();
            for (code, n) in tally.0 {
                total.add(code, n);
            }
            match total.winner() {
                Some(found) => settled.insert(key, found),
                None => settled.remove(&key),
            };
        }
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

    /// English guide pages of one folder, each answered by the quick pass.
    const GUIDE: [&str; 9] = [
        "This chapter explains how the library reads its configuration file and what happens when a value is missing.",
        "Before you install the package, make sure that the compiler and the headers of the system are in place.",
        "The following example shows how to open a connection to the server and how to close it again when you are done.",
        "If the build fails with an error about a missing symbol, check that all of the libraries have been linked in the right order.",
        "You can change the default behaviour of the tool by setting one of the environment variables that are listed below.",
        "Each of the functions in this module returns an error when the file cannot be opened or when it is not readable.",
        "The documentation is generated from the comments in the source code, so it is always in step with the current release.",
        "When a request takes longer than the time that was given, the client gives up and reports the failure to the caller.",
        "Most of the options have sensible defaults, and the ones that do not are described in the section that follows.",
    ];

    /// An API reference line: identifiers, no prose; the quick pass leaves it to whatlang,
    /// whose trigrams do not call it English.
    const API: &str = "const MSG_CMSG_CLOEXEC = $40000000; MSG_DONTWAIT = $40; MSG_ERRQUEUE = $2000; \
        MSG_NOSIGNAL = $4000; MSG_OOB = $01; MSG_PEEK = $02; MSG_TRUNC = $20; MSG_WAITALL = $100; \
        fpaccept fpbind fpconnect fpgetpeername fpgetsockname fpgetsockopt fplisten fprecv";

    #[test]
    fn folder_votes_answer_what_the_quick_pass_leaves_from_earlier_rounds_only() {
        assert!(detect_quick(API).is_none());
        let whatlang = detect(API);
        assert_ne!(whatlang.map(|d| d.code), Some("en"), "the case must be one whatlang misreads");
        let folder = Some("file:///usr/share/doc/fp-docs/rtl/sockets/");
        let cache = DetectCache::with_folder_votes();
        for text in GUIDE {
            let found = cache.detect_in(text, folder).expect("answered");
            assert_eq!((found.code, found.reliable), ("en", true), "{text}");
        }
        // The votes of the current round do not count yet.
        assert_eq!(cache.detect_in(API, folder), whatlang);
        cache.seal();
        let voted = cache.detect_in(API, folder).expect("answered by the folder");
        assert_eq!((voted.code, voted.reliable), ("en", false));
        assert!(voted.confidence == 1.0);
        // A folder beside it: the folder above both is settled too.
        let beside = cache.detect_in(API, Some("file:///usr/share/doc/fp-docs/rtl/unix/"));
        assert_eq!(beside.map(|d| (d.code, d.reliable)), Some(("en", false)));
        // Text that is not clearly Latin keeps whatlang's answer.
        let greek = "Η τεκμηρίωση περιγράφει πώς διαβάζει η βιβλιοθήκη το αρχείο ρυθμίσεων της.";
        assert!(detect_quick(greek).is_none());
        assert_eq!(detect(greek).map(|d| d.code), Some("el"));
        assert_eq!(cache.detect_in(greek, folder), detect(greek));
        // A translated page among English ones: its own stopwords are Croatian.
        let croatian = "Tijekom 2003, Nat Makarévitch je kontaktirao Raphaël jer je htio izdati knjigu o Debian-u u kolekciji Cahier de l'Admin (Admin's Handbook) knjiga, koje je obrađivao za Eyrolles, vodeće francuske izdavačke kuće za knjige tehničkog sadržaja. Raphaël je odmah sam prihvatio ponudu. Prvo izdanje je izašlo 14.10.2004, te je polučilo ogroman uspjeh - kompletno je rasprodano tijekom slijedeća 4 mjeseca.\nOd tada izdali smo 7 drugih izdanja na francuskom jeziku, po jedno za svaku verziju Debian sustava ( osim za Debian 9 ). Roland, koji je počeo raditi na knjizi kao korektor, kasnije je postao njen ko-autor.";
        assert!(detect_quick(croatian).is_none());
        assert_eq!(detect(croatian).map(|d| d.code), Some("hr"));
        assert_eq!(cache.detect_in(croatian, folder), detect(croatian));
        // A partly translated page: English first, then Spanish with its accents.
        let partly = "Many Linux distributions are derivatives of Debian and reuse Debian's package management tools. They all have their own interesting properties, and it is possible one of them will fulfill your needs better than Debian itself.\nA.1. Censo y cooperación\nEl Proyecto Debian reconoce plenamente la importancia de distribuciones derivadas y respalda activamente la colaboración entre todas las partes involucradas. Usualmente esto involucra integrar mejoras desarrolladas inicialmente por una distribución derivada de tal manera que cualquiera pueda beneficiarse y se reduzca el trabajo de mantenimiento a largo plazo.";
        assert!(detect_quick(partly).is_none());
        assert_eq!(detect(partly).map(|d| d.code), Some("es"));
        assert_eq!(cache.detect_in(partly, folder), detect(partly));
        // Another site, no folder, or a plain cache: whatlang's answer, as before.
        assert_eq!(cache.detect_in(API, Some("https://b.org/doc/")), whatlang);
        assert_eq!(cache.detect_in(API, None), whatlang);
        assert_eq!(cache.detect(API), whatlang);
        assert_eq!(DetectCache::default().detect_in(API, folder), whatlang);
        // Texts the quick pass answers keep their own answer whatever the folder says.
        let german = "Die Erkennung von Duplikaten ist eine wichtige Aufgabe für Suchmaschinen, und sie wird in diesem Kapitel beschrieben.";
        assert_eq!(cache.detect_in(german, folder), detect(german));
    }

    #[test]
    fn a_folder_of_too_few_or_mixed_answers_is_not_settled() {
        let german = [
            "Die Erkennung von Duplikaten ist eine wichtige Aufgabe für Suchmaschinen, und sie wird hier beschrieben.",
            "Wenn die Datei nicht gelesen werden kann, gibt die Funktion einen Fehler zurück, den der Aufrufer prüfen muss.",
        ];
        let whatlang = detect(API);
        let (few, mixed) = (Some("https://a.org/few/"), Some("https://b.org/mixed/"));
        let cache = DetectCache::with_folder_votes();
        // Seven English answers: one short of the votes needed.
        for text in &GUIDE[..7] {
            cache.detect_in(text, few);
        }
        // Seven English and two German answers: English has 78% of them, below 90%.
        for text in GUIDE[..7].iter().chain(&german) {
            assert!(cache.detect_in(text, mixed).is_some_and(|d| d.reliable));
        }
        cache.seal();
        assert_eq!(cache.detect_in(API, few), whatlang);
        assert_eq!(cache.detect_in(API, mixed), whatlang);
        // Two more English answers in a later round settle the first folder; the second has
        // nine English answers of eleven now, still below 90%.
        for text in &GUIDE[7..] {
            cache.detect_in(text, few);
            cache.detect_in(text, mixed);
        }
        cache.seal();
        assert_eq!(cache.detect_in(API, few).map(|d| (d.code, d.reliable)), Some(("en", false)));
        assert_eq!(cache.detect_in(API, mixed), whatlang);
    }

    #[test]
    fn the_folder_of_an_id_is_its_path_up_to_the_last_slash() {
        assert_eq!(
            folder_of("file:///usr/share/doc/x/html/a.html"),
            Some("file:///usr/share/doc/x/html/")
        );
        assert_eq!(folder_of("https://a.org/"), Some("https://a.org/"));
        assert_eq!(folder_of("https://a.org/a.html#top"), Some("https://a.org/"));
        assert_eq!(folder_of("https://a.org/q?path=/x/y"), Some("https://a.org/"));
        assert_eq!(folder_of("https://a.org"), None);
        assert_eq!(folder_of("d000001"), None);
        assert_eq!(folder_of(""), None);
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
