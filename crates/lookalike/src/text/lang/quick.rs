//! The quick path of language detection: one pass over the prefix that answers the common,
//! clear-cut cases itself and leaves everything else to whatlang.
//!
//! whatlang counts a Latin text's trigrams, then looks 300 trigrams of each of 37 Latin profiles
//! up, which even the shortest text pays: more than the rest of the text path costs per document
//! (`lookalike-bench lang-bench --prefix-sweep`; bench/results/lang-2026-11-27.md). Most
//! documents are not hard cases: the pass below reads a sample of the prefix (the first
//! [`WINDOW`] bytes of each of its [`PARTS`] parts), counts its letters by script, looks its Latin
//! words up in one table of stopwords, and answers only when
//! - the text is written in Han and kana: Japanese or Chinese by whatlang's own rule (the
//!   share of kana), except near that rule's cut-offs;
//! - the text is Cyrillic with letters only Ukrainian uses (`ї є ґ і`, 2% or more) and none
//!   only other languages use (`ы э ё ъ ў ђ ј ...`), or with `ы э ё` (1% or more), at most half
//!   as many `ъ` and none of the letters of Ukrainian, Belarusian, Serbian or Macedonian: Ukrainian or
//!   Russian (Bulgarian, Belarusian, Serbian and Macedonian text always goes to whatlang);
//! - the text is Latin and one language's stopwords (Stopwords ISO, weighted by how many
//!   languages share the word) clearly outscore every other's: at least [`MIN_WORDS`] words,
//!   the winner's stopwords are at least 35% of them, its score at least twice the runner-up's,
//!   no other language clearly outscores it in any part of the prefix (text in two
//!   languages is mixed, not clear-cut), and, for languages written without accents (English,
//!   Indonesian, Tagalog), at most 5% of the words have a letter outside ASCII;
//! - or, by the lean rule, the text is Latin prose among code and names (API references,
//!   option lists: most words are identifiers, few are stopwords) and one language's stopwords
//!   still stand far ahead: at least [`LEAN_MIN_WORDS`] words, at least [`LEAN_MIN_HITS`] and
//!   10% of them the winner's stopwords, its score at least three times the runner-up's (twice
//!   for English without a single accented word), no part of the prefix won by another
//!   language, and no accented word at all for English, Indonesian and Tagalog. On such text
//!   whatlang's trigrams see the identifiers as much as the prose and often name Danish, Latin
//!   or French for an English API page (`bench/lang.sh` and the results of 2026-11-27). These
//!   answers are `reliable: false`.
//!
//! Anything else (mixed scripts, few letters, close scores, scripts not counted here) returns
//! `None` and whatlang decides. `bench/lang.sh` measures how often the two disagree.

use std::sync::OnceLock;

use super::Detected;
use crate::text::normalize::two_byte;
use crate::text::swar;

/// Fewest Latin words the stopword score is trusted on.
pub(super) const MIN_WORDS: u32 = 12;

/// Fewest Latin words the lean rule answers on (few of them stopwords: more words needed).
const LEAN_MIN_WORDS: u32 = 24;

/// Fewest stopwords of the winner for the lean rule.
const LEAN_MIN_HITS: u32 = 3;

/// The prefix is read in this many parts, scored separately (a language that wins the whole
/// but loses a part is mixed text, whatlang's to judge).
const PARTS: usize = 4;

/// Bytes read from the start of each part: a sample of the prefix, spread over all of it,
/// since reading every byte was the pass's whole cost.
const WINDOW: usize = 256;

/// At most this many Latin words are scored in a part.
const WORDS_PER_PART: u32 = 32;

/// Latin-script languages with a Stopwords ISO list, as ISO 639-1 codes (the codes [`super`]
/// reports), with the list's code where it differs (`nb` is listed as `no`).
const LATIN: &[(&str, &str)] = &[
    ("af", "af"),
    ("ca", "ca"),
    ("cs", "cs"),
    ("da", "da"),
    ("de", "de"),
    ("en", "en"),
    ("eo", "eo"),
    ("es", "es"),
    ("et", "et"),
    ("fi", "fi"),
    ("fr", "fr"),
    ("hr", "hr"),
    ("hu", "hu"),
    ("id", "id"),
    ("it", "it"),
    ("la", "la"),
    ("lt", "lt"),
    ("lv", "lv"),
    ("nb", "no"),
    ("nl", "nl"),
    ("pl", "pl"),
    ("pt", "pt"),
    ("ro", "ro"),
    ("sk", "sk"),
    ("sl", "sl"),
    ("sv", "sv"),
    ("tl", "tl"),
    ("tr", "tr"),
    ("vi", "vi"),
    ("zu", "zu"),
];

/// Lower-cased stopword (its xxh3 hash) → bit set of the [`LATIN`] languages that list it, in
/// an open-addressing table of 8-byte slots: the hash's low [`FINGERPRINT_BITS`] bits beside
/// the language bits, at the slot its top bits name (linear probing; 0 is an empty slot). The
/// 11,151 stopwords fill 128 KiB. A `HashMap` of `(hash, (languages, weight))` took twice that,
/// plus its control bytes, and its lookups, one per Latin word, missed the cache: most of the
/// pass's cost on English text.
struct Table {
    slots: Box<[u64]>,
    /// `64 - log2(slots.len())`: the top bits of a hash are its first slot.
    shift: u32,
}

/// Bits of a slot that hold the language set (one per [`LATIN`] language).
const LANG_BITS: u32 = 30;
const _: () = assert!(LATIN.len() <= LANG_BITS as usize);

const LANG_MASK: u64 = (1 << LANG_BITS) - 1;

/// Bits of a slot that hold the hash's fingerprint. A word that is not a stopword matches one
/// by chance once in 2^34 probes or so; 64-bit keys were as exposed to xxh3 collisions.
const FINGERPRINT_BITS: u32 = 64 - LANG_BITS;

impl Table {
    fn fingerprint(hash: u64) -> u64 {
        hash & ((1 << FINGERPRINT_BITS) - 1)
    }

    /// The slot of the word with `hash`: the one holding its fingerprint, or the empty slot
    /// where it would go.
    #[inline]
    fn probe(&self, hash: u64) -> usize {
        let fp = Self::fingerprint(hash);
        let mask = self.slots.len() - 1;
        let mut at = (hash >> self.shift) as usize;
        while self.slots[at] != 0 && self.slots[at] >> LANG_BITS != fp {
            at = (at + 1) & mask;
        }
        at
    }

    /// A table of `2^bits` slots, room for fewer than that many words.
    fn with_bits(bits: u32) -> Self {
        Table { slots: vec![0; 1 << bits].into_boxed_slice(), shift: 64 - bits }
    }

    /// Adds `langs` to the languages of the word with `hash`.
    fn add(&mut self, hash: u64, langs: u32) {
        let at = self.probe(hash);
        self.slots[at] |= Self::fingerprint(hash) << LANG_BITS | u64::from(langs);
    }

    /// The languages that list the word with `hash`, if any.
    #[inline]
    fn get(&self, hash: u64) -> Option<u32> {
        let slot = self.slots[self.probe(hash)];
        (slot != 0).then_some((slot & LANG_MASK) as u32)
    }

    /// Words in the table.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.slots.iter().filter(|&&s| s != 0).count()
    }
}

/// The weight a stopword gives each language that lists it: one over their number (a word of
/// many lists says little), by that number.
static WEIGHTS: [f32; LATIN.len() + 1] = {
    let mut w = [0.0f32; LATIN.len() + 1];
    let mut k = 1;
    while k <= LATIN.len() {
        w[k] = 1.0 / k as f32;
        k += 1;
    }
    w
};

/// The stopwords of every [`LATIN`] language: each word's hash with its language's bit (a word
/// of several lists comes once per list).
fn stopwords() -> Vec<(u64, u32)> {
    let mut words = Vec::new();
    let mut buf = WordBuf::default();
    for (i, (_, list)) in LATIN.iter().enumerate() {
        for word in stop_words::lookup(list).unwrap_or_default() {
            buf.clear();
            let whole = word.chars().all(|c| c.is_alphabetic() && buf.push(c));
            if whole && !buf.is_empty() {
                words.push((buf.hash(), 1 << i));
            }
        }
    }
    words
}

fn table() -> &'static Table {
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut table = Table::with_bits(14);
        for (hash, langs) in stopwords() {
            table.add(hash, langs);
        }
        table
    })
}

/// A lower-cased word of at most [`WordBuf::CAP`] bytes.
#[derive(Default)]
struct WordBuf {
    bytes: [u8; Self::CAP],
    len: usize,
    too_long: bool,
}

impl WordBuf {
    const CAP: usize = 32;

    fn clear(&mut self) {
        self.len = 0;
        self.too_long = false;
    }

    fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Appends an ASCII letter lower-cased (the word is dropped once it no longer fits).
    fn push_ascii(&mut self, b: u8) {
        if self.len < Self::CAP {
            self.bytes[self.len] = b.to_ascii_lowercase();
            self.len += 1;
        } else {
            self.too_long = true;
        }
    }

    /// Appends `c` lower-cased; false (and the word is dropped) once it no longer fits.
    fn push(&mut self, c: char) -> bool {
        if c.is_ascii() {
            if self.len < Self::CAP {
                self.bytes[self.len] = c.to_ascii_lowercase() as u8;
                self.len += 1;
                return true;
            }
        } else {
            for lower in c.to_lowercase() {
                let n = lower.len_utf8();
                if self.len + n > Self::CAP {
                    self.too_long = true;
                    return false;
                }
                lower.encode_utf8(&mut self.bytes[self.len..]);
                self.len += n;
            }
            return true;
        }
        self.too_long = true;
        false
    }

    fn hash(&self) -> u64 {
        word_hash(&self.bytes[..self.len])
    }
}

/// The stopword table's hash of a lower-cased word: [`short_word_hash`] of its bytes when they
/// fit in eight, xxh3 of them otherwise.
fn word_hash(bytes: &[u8]) -> u64 {
    if bytes.len() <= 8 {
        let mut eight = [0u8; 8];
        eight[..bytes.len()].copy_from_slice(bytes);
        short_word_hash(u64::from_le_bytes(eight))
    } else {
        xxhash_rust::xxh3::xxh3_64(bytes)
    }
}

/// The length and [`word_hash`] of the word of ASCII letters at `bytes[at..]` when it has fewer
/// than [`WordBuf::CAP`] letters, and ends before `end` at ASCII that is not
/// a letter: what the letter-by-letter path scores for it. `None` otherwise (that path takes it).
#[inline]
fn long_ascii_word(bytes: &[u8], at: usize, end: usize) -> Option<(usize, u64)> {
    let mut lower = [0u8; WordBuf::CAP + 8];
    let mut len = 0;
    loop {
        let eight = bytes.get(at + len..at + len + 8)?;
        let eight = u64::from_le_bytes(eight.try_into().expect("eight bytes"));
        let run = swar::leading_run(swar::ascii_letters(eight));
        lower[len..len + 8].copy_from_slice(&(eight | swar::splat(0x20)).to_le_bytes());
        len += run;
        if run < 8 {
            break;
        }
        if len >= WordBuf::CAP {
            return None;
        }
    }
    (at + len < end && bytes[at + len].is_ascii()).then(|| (len, word_hash(&lower[..len])))
}

/// The hash of a word of at most eight bytes, given as a little-endian `u64` padded with zeros
/// (words have no zero bytes, so each word has its own value): two folded multiplications, the
/// high half of each product XORed into the low one, which spreads every input bit over the
/// top bits (the first slot) and the low bits (the fingerprint). Most stopwords and most words
/// of Latin text are this short; the detection loop's ASCII lane hashes them without a call.
#[inline(always)]
fn short_word_hash(packed: u64) -> u64 {
    let fold = |a: u64, b: u64| {
        let product = u128::from(a) * u128::from(b);
        (product as u64) ^ (product >> 64) as u64
    };
    fold(fold(packed ^ 0x243F_6A88_85A3_08D3, 0x9E37_79B9_7F4A_7C15), 0xD6E8_FEB8_6659_FD93)
}

/// Letters counted by script, and the Cyrillic letters that tell languages apart.
#[derive(Default, Debug, Clone, Copy, PartialEq)]
struct Counts {
    latin: u32,
    cyrillic: u32,
    han: u32,
    hiragana: u32,
    katakana: u32,
    /// Letters of any other script (Greek, Arabic, Hangul, ...): whatlang's business.
    other: u32,
    /// `ї є ґ і`: Ukrainian (і also Belarusian).
    ukrainian: u32,
    /// `ы э ё`: Russian or Belarusian.
    russian: u32,
    /// `ъ`: frequent in Bulgarian, rare in Russian, absent from Ukrainian.
    hard_sign: u32,
    /// `ў ђ ј љ њ ћ џ ѓ ѕ ќ`: Belarusian, Serbian, Macedonian.
    others_cyrillic: u32,
}

impl Counts {
    /// Counts a Cyrillic letter of `kind`, without branches: most letters are common, and a
    /// jump per letter cost more than the four additions.
    #[inline(always)]
    fn add_cyrillic(&mut self, kind: Cyrillic) {
        self.cyrillic += 1;
        self.ukrainian += u32::from(kind == Cyrillic::Ukrainian);
        self.russian += u32::from(kind == Cyrillic::Russian);
        self.hard_sign += u32::from(kind == Cyrillic::HardSign);
        self.others_cyrillic += u32::from(kind == Cyrillic::Other);
    }

    /// Adds the Cyrillic counts packed by [`packed_cyrillic`] (summed over a run of letters).
    #[inline(always)]
    fn add_packed(&mut self, packed: u64) {
        let field = |k: u32| ((packed >> (k * PACKED_BITS)) & PACKED_MASK) as u32;
        self.cyrillic += field(0);
        self.ukrainian += field(1);
        self.russian += field(2);
        self.hard_sign += field(3);
        self.others_cyrillic += field(4);
    }
}

/// Bytes taken per step by the detection loop's Cyrillic run: 2 from a lead byte of
/// U+0400..=U+047F, 1 from ASCII that is not a letter, 0 from anything else (the run ends).
static CYRILLIC_RUN_STEP: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut x = 0;
    while x < 128 {
        if !(x as u8).is_ascii_alphabetic() {
            table[x] = 1;
        }
        x += 1;
    }
    table[0xD0] = 2;
    table[0xD1] = 2;
    table
};

/// What the Cyrillic run's lane does with each byte: [`CYRILLIC_RUN_STEP`]'s 2 for a first
/// byte of U+0400..=U+047F, 1 for ASCII that is not a letter and also for second bytes (0x80 to
/// 0xBF: the lane visits every byte), 0 for anything else (the run ends).
static CYRILLIC_RUN_BYTE: [u8; 256] = {
    let mut table = CYRILLIC_RUN_STEP;
    let mut x = 0x80;
    while x < 0xC0 {
        table[x] = 1;
        x += 1;
    }
    table
};

/// The counts of the first eight of `nine` bytes inside a Cyrillic run, as five byte lanes
/// (letters, Ukrainian, Russian, hard sign, other: 1 in the byte where such a letter starts;
/// [`pack_lanes`] packs their sums as [`CYRILLIC_PACKED`] does), when none of them ends it: all
/// eight are ASCII that is not a letter or bytes of letters of U+0400..=U+047F. `None` when one of them ends the run. The ninth byte is the
/// second byte of a letter that starts at the eighth.
///
/// A letter's kind follows from its index in U+0400..=U+047F (its first byte's low bit, then its
/// second byte's low six bits): by row (the index's bits 4 to 6) and column (bits 0 to 3),
/// - rows 0x00 and 0x50 (`Ѐ Ё Ђ ... Џ`, `ѐ ё ђ ... џ`): column 1 Russian (`ё`); 4, 6 and 7
///   Ukrainian (`є і ї`); 0 and 0xD common (`ѐ ѝ`); any other column another language's letter;
/// - rows 0x20 and 0x40 (`Р ... Я`, `р ... я`): column 0xA the hard sign (`ъ`), 0xB and 0xD
///   Russian (`ы э`), any other column common;
/// - any other row common.
#[inline(always)]
fn cyrillic_lanes(nine: &[u8]) -> Option<[u64; 5]> {
    use swar::{HIGH_BITS, splat};
    let word = |at: usize| u64::from_le_bytes(nine[at..at + 8].try_into().expect("eight bytes"));
    let (w, next) = (word(0), word(1));
    // The high bit of each byte that is zero (`zero7`: of bytes below 0x80).
    let zero = |y: u64| !(((y & !HIGH_BITS) + !HIGH_BITS) | y) & HIGH_BITS;
    let zero7 = |y: u64| !(y + !HIGH_BITS) & HIGH_BITS;
    let first = zero((w & splat(0xFE)) ^ splat(0xD0));
    // ASCII letters and first bytes of other characters (0xC0 and above) end the run.
    if swar::ascii_letters(w) | (w & (w << 1) & HIGH_BITS & !first) != 0 {
        return None;
    }
    // Each letter's index in U+0400..=U+047F (0 to 0x7F), in its first byte's place.
    let index = ((w & splat(0x01)) << 6) | (next & splat(0x3F));
    let (row, column) = (index & splat(0x70), index & splat(0x0F));
    let column_is = |c: u8| zero7(column ^ splat(c));
    let rows_0_5 = (zero7(row) | zero7(row ^ splat(0x50))) & first;
    let rows_2_4 = (zero7(row ^ splat(0x20)) | zero7(row ^ splat(0x40))) & first;
    let ukrainian = rows_0_5 & (column_is(4) | column_is(6) | column_is(7));
    let russian = (rows_0_5 & column_is(1)) | (rows_2_4 & (column_is(0xB) | column_is(0xD)));
    let hard_sign = rows_2_4 & column_is(0xA);
    let other = rows_0_5 & !(ukrainian | column_is(1) | column_is(0) | column_is(0xD));
    Some([first, ukrainian, russian, hard_sign, other].map(|mask| mask >> 7))
}

/// The packed counts ([`CYRILLIC_PACKED`], summed) of the byte lanes [`cyrillic_lanes`] gave,
/// summed over at most [`WINDOW`] bytes: each lane's bytes summed into the top byte by one
/// multiplication (`count_ones` has no instruction of its own on the baseline x86-64). Summing
/// lanes step by step and counting once per run saved a multiplication per field and step.
#[inline(always)]
fn pack_lanes(lanes: [u64; 5]) -> u64 {
    let count = |lane: u64| lane.wrapping_mul(swar::splat(1)) >> 56;
    (0..5).map(|k| count(lanes[k]) << (k as u32 * PACKED_BITS)).sum()
}

// A lane's eight bytes count letters (two bytes each) of at most a window: their sum fits the
// top byte.
const _: () = assert!(WINDOW / 2 < 256);

/// [`cyrillic_lanes`] packed: the counts of eight bytes alone (for tests).
#[cfg(test)]
fn cyrillic_counts(nine: &[u8]) -> Option<u64> {
    cyrillic_lanes(nine).map(pack_lanes)
}

/// Width of one count in a packed sum of [`CYRILLIC_PACKED`] values: enough for every letter
/// of a prefix ([`super::DETECT_PREFIX`] bytes, two per letter), so no field overflows into the
/// next.
const PACKED_BITS: u32 = 12;
const PACKED_MASK: u64 = (1 << PACKED_BITS) - 1;
const _: () = assert!(super::DETECT_PREFIX / 2 < 1 << PACKED_BITS);

/// The counts one Cyrillic letter of `kind` adds ([`Counts::add_cyrillic`]), packed in
/// [`PACKED_BITS`]-bit fields (letters, Ukrainian, Russian, hard sign, other): a run of letters
/// is counted with one addition per letter.
const fn packed_cyrillic(kind: Cyrillic) -> u64 {
    let field = match kind {
        Cyrillic::Common => return 1,
        Cyrillic::Ukrainian => 1,
        Cyrillic::Russian => 2,
        Cyrillic::HardSign => 3,
        Cyrillic::Other => 4,
    };
    1 | 1 << (field * PACKED_BITS)
}

/// Index of [`CYRILLIC_PACKED`]'s entry for a character that adds nothing.
const NOT_COUNTED: usize = 0x80;

/// [`packed_cyrillic`] of each character U+0400..=U+047F (lead bytes 0xD0 and 0xD1), then
/// nothing ([`NOT_COUNTED`]).
static CYRILLIC_PACKED: [u64; NOT_COUNTED + 1] = {
    let mut table = [0u64; NOT_COUNTED + 1];
    let mut i = 0;
    while i < 0x80 {
        table[i] = packed_cyrillic(CYRILLIC[i]);
        i += 1;
    }
    table
};

/// Stopword scores of the Latin words seen so far.
#[derive(Debug, PartialEq)]
struct Scores {
    /// Per part of the prefix, per language: the weighted stopword score.
    parts: [[f32; LATIN.len()]; PARTS],
    /// Per language: how many words are its stopwords.
    hits: [u32; LATIN.len()],
    /// Latin words in all.
    words: u32,
    /// Latin words with a letter outside ASCII (é, ş, ą, ...).
    accented: u32,
}

impl Scores {
    fn new() -> Self {
        Scores { parts: [[0.0; LATIN.len()]; PARTS], hits: [0; LATIN.len()], words: 0, accented: 0 }
    }

    /// Scores a finished word of `part` of the prefix.
    fn word(&mut self, table: &Table, word: &mut WordBuf, part: usize) {
        if !word.is_empty() && !word.too_long {
            let accented = !word.bytes[..word.len].is_ascii();
            self.score(table, word.hash(), accented, part);
        }
        word.clear();
    }

    /// Scores a word of `part` by its [`word_hash`].
    #[inline(always)]
    fn score(&mut self, table: &Table, hash: u64, accented: bool, part: usize) {
        self.words += 1;
        self.accented += u32::from(accented);
        if let Some(langs) = table.get(hash) {
            let weight = WEIGHTS[langs.count_ones() as usize];
            let mut rest = langs;
            while rest != 0 {
                let i = rest.trailing_zeros() as usize;
                self.parts[part][i] += weight;
                self.hits[i] += 1;
                rest &= rest - 1;
            }
        }
    }

    /// The language whose stopwords dominate, if one does (see the module's rules), with the
    /// answer's confidence and whether the strict rule gave it (`false`: the lean rule).
    fn winner(&self) -> Option<(usize, f64, bool)> {
        if self.words < MIN_WORDS {
            return None;
        }
        let total: [f32; LATIN.len()] =
            std::array::from_fn(|i| self.parts.iter().map(|h| h[i]).sum());
        let (best, runner_up) = top_two(&total);
        // Two languages one after the other (an English paragraph, then a Turkish one): in one
        // part another language outscores the winner. Mixed text is whatlang's to judge.
        for part in &self.parts {
            let (top, _) = top_two(part);
            if part[top] > 1.5 * part[best] + 1.0 {
                return None;
            }
        }
        let (hits, words, accented) = (self.hits[best], self.words, self.accented);
        let ratio = |r: f32| total[best] >= r * total[runner_up];
        // English, Indonesian and Tagalog are written without accents: many accented words
        // beside their stopwords are another language's text mixed in.
        let unaccented = matches!(LATIN[best].0, "en" | "id" | "tl");
        let strict = hits * 20 >= words * 7 && ratio(2.0) && !(unaccented && accented * 20 > words);
        // Prose among code and names (API references, option lists): few of the words are
        // stopwords, but those few name one language far ahead of the rest. For a language
        // written without accents, one accented word is already another language's text.
        let lean = words >= LEAN_MIN_WORDS
            && hits >= LEAN_MIN_HITS
            && hits * 10 >= words
            && (ratio(3.0) || (LATIN[best].0 == "en" && accented == 0 && ratio(2.0)))
            && !(unaccented && accented > 0);
        if !strict && !lean {
            return None;
        }
        Some((best, f64::from(1.0 - total[runner_up] / total[best]), strict))
    }
}

/// Indexes of the highest and second-highest scores (the lower index first on ties).
fn top_two(scores: &[f32; LATIN.len()]) -> (usize, usize) {
    let (mut best, mut runner_up) = if scores[1] > scores[0] { (1, 0) } else { (0, 1) };
    for (i, &score) in scores.iter().enumerate().skip(2) {
        if score > scores[best] {
            (best, runner_up) = (i, best);
        } else if score > scores[runner_up] {
            runner_up = i;
        }
    }
    (best, runner_up)
}

/// The quick answer for `prefix`, or `None` when whatlang must decide.
pub(super) fn detect(prefix: &str) -> Option<Detected> {
    detect_or_left(prefix).ok()
}

/// What the quick pass saw of a text it left to whatlang: what a folder's language may answer
/// for it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Left {
    /// The sample is clearly Latin text: Latin letters at least four times as many as those of
    /// any other script (as [`decide`] weighs scripts).
    pub latin: bool,
    /// The language whose stopwords score highest in the sample, if any scored.
    pub best: Option<&'static str>,
    /// Some word of the sample has a letter outside ASCII.
    pub accented: bool,
}

/// The quick answer for `prefix`, or what the pass saw of it when it has none.
pub(super) fn detect_or_left(prefix: &str) -> Result<Detected, Left> {
    let (counts, scores) = sample::<true>(prefix);
    if let Some(found) = decide(&counts, &scores) {
        return Ok(found);
    }
    let Counts { latin, cyrillic, han, hiragana, katakana, other, .. } = counts;
    let rest = cyrillic.max(han + hiragana + katakana).max(other);
    let total: [f32; LATIN.len()] =
        std::array::from_fn(|i| scores.parts.iter().map(|h| h[i]).sum());
    let (top, _) = top_two(&total);
    let best = (total[top] > 0.0).then_some(LATIN[top].0);
    Err(Left { latin: latin >= 20 && rest * 4 < latin, best, accented: scores.accented > 0 })
}

/// Whether `code` is one of the Latin-script languages the quick pass scores.
pub(super) fn is_latin_language(code: &str) -> bool {
    LATIN.iter().any(|&(c, _)| c == code)
}

/// Whether `code` is a language written without accents (English, Indonesian, Tagalog): an
/// accented word in a text of it is another language's.
pub(super) fn is_unaccented_language(code: &str) -> bool {
    matches!(code, "en" | "id" | "tl")
}

/// Reads the sample of `prefix`: its letters counted by script, its Latin words scored. With
/// `LANES`, ASCII words and Cyrillic runs take their fast lanes; without, every character is
/// taken one at a time (tests check that the two agree).
#[inline(always)]
fn sample<const LANES: bool>(prefix: &str) -> (Counts, Scores) {
    let mut counts = Counts::default();
    let mut scores = Scores::new();
    let table = table();
    let mut word = WordBuf::default();
    let bytes = prefix.as_bytes();
    let cut = |n: usize| {
        let mut at = prefix.len() * n / PARTS;
        while !prefix.is_char_boundary(at) {
            at -= 1;
        }
        at
    };
    for part in 0..PARTS {
        // Each part is read from its start for at most WINDOW bytes and WORDS_PER_PART Latin
        // words.
        let (mut at, end) = (cut(part), cut(part + 1));
        let end = end.min(at + WINDOW);
        let scored = scores.words + WORDS_PER_PART;
        while at < end && scores.words < scored {
            let b = bytes[at];
            if b.is_ascii() {
                if b.is_ascii_alphabetic() {
                    // The ASCII lane: a word of fewer than eight ASCII letters that starts here
                    // and ends, in the window, at ASCII that is not a letter (most words of
                    // Latin text), is counted and scored at once, its terminator with it. Longer
                    // words, words going on with accented letters and words cut by the window
                    // take the letter-by-letter path below.
                    if LANES
                        && word.is_empty()
                        && !word.too_long
                        && let Some(eight) = bytes.get(at..at + 8)
                    {
                        let eight = u64::from_le_bytes(eight.try_into().expect("eight bytes"));
                        let run = swar::leading_run(swar::ascii_letters(eight));
                        if run < 8 && at + run < end && bytes[at + run].is_ascii() {
                            let lower = (eight | swar::splat(0x20)) & ((1 << (8 * run)) - 1);
                            counts.latin += run as u32;
                            scores.score(table, short_word_hash(lower), false, part);
                            at += run + 1;
                            continue;
                        }
                        // Longer words (a quarter of English ones), up to the word buffer's
                        // size, eight letters at a time: taken letter by letter, each was a
                        // turn of this loop.
                        if run == 8
                            && let Some((len, hash)) = long_ascii_word(bytes, at, end)
                        {
                            counts.latin += len as u32;
                            scores.score(table, hash, false, part);
                            at += len + 1;
                            continue;
                        }
                    }
                    at += 1;
                    counts.latin += 1;
                    word.push_ascii(b);
                    continue;
                }
                at += 1;
            } else {
                // Basic Cyrillic (U+0400..=U+047F, lead bytes 0xD0 and 0xD1), most of the
                // non-ASCII text, straight to its table: what `classify` says of them (a test
                // checks it), without decoding and range tests.
                let (script, c) = if b & 0xFE == 0xD0 {
                    // The whole run of such letters at once, unless a Latin word is pending: it
                    // is scored after the first letter, which may end the part. With no word
                    // pending, ASCII that is not a letter (spaces, punctuation, digits) changes
                    // nothing and the run goes on over it: a jump per word, predicted wrong at
                    // every word's end, was most of the cost of Cyrillic text.
                    let run_end = if word.is_empty() && !word.too_long { end } else { at + 1 };
                    // One addition per character, of its counts packed in one word.
                    let mut run = 0u64;
                    if LANES {
                        // Byte by byte rather than character by character: the next position
                        // does not wait for this byte's step to be looked up, so the bytes are
                        // taken as fast as they load (stepping by characters was a chain of two
                        // dependent loads per character). Second bytes of letters pass.
                        // Eight bytes at once, unless the run ends in them.
                        let mut i = at;
                        let mut lanes = [0u64; 5];
                        'run: while i < run_end {
                            if i + 8 <= run_end
                                && let Some(nine) = bytes.get(i..i + 9)
                                && let Some(step) = cyrillic_lanes(nine)
                            {
                                for k in 0..5 {
                                    lanes[k] += step[k];
                                }
                                i += 8;
                                continue;
                            }
                            for _ in 0..8 {
                                if i == run_end {
                                    break 'run;
                                }
                                let x = bytes[i];
                                let kind = CYRILLIC_RUN_BYTE[usize::from(x)];
                                if kind == 0 {
                                    break 'run;
                                }
                                let cont = bytes.get(i + 1).copied().unwrap_or(0x80);
                                let letter = two_byte(x, cont) as usize & 0x7F;
                                run +=
                                    CYRILLIC_PACKED[if kind == 2 { letter } else { NOT_COUNTED }];
                                i += 1;
                            }
                        }
                        run += pack_lanes(lanes);
                        // A letter whose first byte was the run's last: its second byte too.
                        if i == run_end && bytes.get(i).is_some_and(|&x| x & 0xC0 == 0x80) {
                            i += 1;
                        }
                        at = i;
                    } else {
                        while at < run_end {
                            let x = bytes[at];
                            let step = CYRILLIC_RUN_STEP[usize::from(x)];
                            if step == 0 {
                                break;
                            }
                            let cont = bytes.get(at + 1).copied().unwrap_or(0x80);
                            let letter = two_byte(x, cont) as usize & 0x7F;
                            run += CYRILLIC_PACKED[if step == 2 { letter } else { NOT_COUNTED }];
                            at += usize::from(step);
                        }
                    }
                    counts.add_packed(run);
                    // The character itself is needed by Latin letters only.
                    (Script::None, char::REPLACEMENT_CHARACTER)
                } else if LANES && let first @ 1..=3 = cjk_class(bytes, at) {
                    // Han and kana, counted without a jump per character (Japanese switches
                    // between the three all the time), the whole run at once as for Cyrillic,
                    // in one packed local kept in a register.
                    let run_end = if word.is_empty() && !word.too_long { end } else { at + 1 };
                    let mut run = 0u64;
                    let mut class = first;
                    loop {
                        at += 3;
                        run += CJK_PACKED[class];
                        if at >= run_end {
                            break;
                        }
                        class = cjk_class(bytes, at);
                        if class == NOT_CJK {
                            break;
                        }
                    }
                    counts.han += (run & 0xFFFF) as u32;
                    counts.hiragana += ((run >> 16) & 0xFFFF) as u32;
                    counts.katakana += (run >> 32) as u32;
                    (Script::None, char::REPLACEMENT_CHARACTER)
                } else {
                    let (c, len) = decode(bytes, at);
                    at += len;
                    (classify(c), c)
                };
                // Counted here, in locals the compiler keeps in registers, rather than through
                // a reference: a count kept in memory made each character wait for the store of
                // the one before it.
                match script {
                    Script::Latin => {
                        counts.latin += 1;
                        word.push(c);
                        continue;
                    }
                    Script::Cyrillic(kind) => counts.add_cyrillic(kind),
                    Script::Han => counts.han += 1,
                    Script::Hiragana => counts.hiragana += 1,
                    Script::Katakana => counts.katakana += 1,
                    Script::Other => counts.other += 1,
                    Script::None => {}
                }
            }
            if !word.is_empty() || word.too_long {
                scores.word(table, &mut word, part);
            }
        }
        // A word cut by the end of the window is scored only when it ends the prefix.
        if at == prefix.len() {
            scores.word(table, &mut word, part);
        }
        word.clear();
    }

    (counts, scores)
}

/// The answer for a sample's counts and scores, or `None` when whatlang must decide.
fn decide(counts: &Counts, scores: &Scores) -> Option<Detected> {
    let Counts { latin, cyrillic, han, hiragana, katakana, other, .. } = *counts;
    let cjk_top = han.max(hiragana).max(katakana);
    let cjk = han + hiragana + katakana;
    let top = latin.max(cyrillic).max(cjk).max(other);
    let letters = latin + cyrillic + cjk + other;
    // Too little text, or letters of scripts this pass does not know.
    if letters < 20 || other * 10 >= top {
        return None;
    }
    // Text in two scripts (Japanese with English commands, Russian with English options) is
    // whatlang's to judge: this pass counts a sample, and the scripts' shares decide.
    let second = {
        let mut s = [latin, cyrillic, cjk];
        s.sort_unstable();
        s[1]
    };
    if second * 4 >= top {
        return None;
    }
    // whatlang takes the script with most letters as the text's, counting Han, hiragana and
    // katakana apart: Han and kana side by side are one case below, but Latin letters close
    // to the largest of them would be whatlang's main script.
    if top == cjk && latin.max(cyrillic) * 5 >= cjk_top * 4 {
        return None;
    }
    let answer = |code, confidence| Some(Detected { code, confidence, reliable: true });
    if top == cjk {
        // whatlang: text mostly in kana is Japanese; text mostly in Han is Japanese from 5% kana
        // on (confidence 1 above 20%), Chinese below (confidence 0.5 from 2%). Near the cut-offs
        // (where this count and whatlang's could fall on different sides) whatlang decides.
        let kana = f64::from(hiragana + katakana);
        let share = kana / (kana + f64::from(han));
        let near = |cut: f64| (share - cut).abs() < 0.01;
        if share > 0.21 {
            return answer("ja", 1.0);
        }
        if han <= hiragana.max(katakana) || near(0.2) || near(0.05) || near(0.02) {
            return None;
        }
        return match share {
            s if s > 0.05 => answer("ja", 0.5),
            s if s > 0.02 => answer("zh", 0.5),
            _ => answer("zh", 1.0),
        };
    }
    if top == cyrillic {
        let c = counts;
        if c.cyrillic < 50 || c.others_cyrillic > 0 {
            return None;
        }
        if c.ukrainian * 50 >= c.cyrillic && c.russian == 0 && c.hard_sign == 0 {
            return answer("uk", 1.0);
        }
        // Russian has ы/э at about 2.5% of its letters; Bulgarian has no ы/э but ъ at about 2%.
        // ъ is rare in Russian prose (0.04%) but not in its technical writing (`объект`,
        // `подъём`: up to 1.5% of a manual's letters), so it is weighed against ы/э/ё rather
        // than against all letters.
        if c.russian * 100 >= c.cyrillic && c.ukrainian == 0 && c.hard_sign * 2 <= c.russian {
            return answer("ru", 1.0);
        }
        return None;
    }
    // Latin.
    let (best, confidence, strict) = scores.winner()?;
    Some(Detected { code: LATIN[best].0, confidence, reliable: strict })
}

/// What [`cjk_class`] returns for a character that is not Han, kana or CJK punctuation (or not a
/// three-byte character of their blocks).
const NOT_CJK: usize = 0;

/// [`cjk_class`]'s class of CJK punctuation (U+3000..=U+303F): inside a run of Han and kana
/// with no Latin word pending it counts for no script and ends no word, as in the detection
/// loop's general path (a test checks it), so the run goes on over it. Chinese and Japanese
/// put punctuation every few characters, and each one sent the loop through its general path.
const CJK_NEUTRAL: usize = 4;

/// The class of each 16-character block of U+3000..=U+9FFF (the code points of lead bytes 0xE3
/// to 0xE9), by [`cjk_class`]'s numbering: 1 Han, 2 hiragana, 3 katakana, [`CJK_NEUTRAL`]
/// punctuation, [`NOT_CJK`] anything else. Every edge of these ranges falls on a multiple of
/// 16, so a block is all one class.
static CJK_BLOCKS: [u8; 0x700] = {
    let mut table = [NOT_CJK as u8; 0x700];
    let mut block = 0;
    while block < 0x700 {
        let u = 0x3000 + block * 16;
        table[block] = match u {
            0x3400..=0x4DBF | 0x4E00..=0x9FFF => 1,
            0x3040..=0x309F => 2,
            0x30A0..=0x30FF | 0x31F0..=0x31FF => 3,
            0x3000..=0x303F => CJK_NEUTRAL as u8,
            _ => NOT_CJK as u8,
        };
        block += 1;
    }
    table
};

/// The counts one character of each [`cjk_class`] adds, packed in 16-bit fields (Han,
/// hiragana, katakana): a run of Han and kana is counted with one addition per character and a
/// table lookup instead of a jump on its script (Japanese switches scripts all the time, and
/// those jumps are mispredicted). A run stays within a window, far fewer than 2^16 letters.
static CJK_PACKED: [u64; 5] = [0, 1, 1 << 16, 1 << 32, 0];

/// Whether the character at `bytes[at]` is Han (1), hiragana (2), katakana (3) or CJK
/// punctuation ([`CJK_NEUTRAL`]), when it is a three-byte character of one of their blocks;
/// [`NOT_CJK`] for anything else. What [`classify`] says of these characters (a test checks
/// it), for the detection loop's shortcut.
#[inline(always)]
fn cjk_class(bytes: &[u8], at: usize) -> usize {
    let Some(&lead) = bytes.get(at) else { return NOT_CJK };
    if !(0xE3..=0xE9).contains(&lead) {
        return NOT_CJK;
    }
    let cont = |i: usize| usize::from(bytes.get(at + i).copied().unwrap_or(0x80) & 0x3F);
    // The code point's bits 4 to 15, less 0x300: the lead's low nibble is 3 to 9.
    let block = ((usize::from(lead & 0x0F) << 8) | (cont(1) << 2) | (cont(2) >> 4)) - 0x300;
    usize::from(CJK_BLOCKS[block])
}

/// The character whose UTF-8 encoding starts at `bytes[at]` (a non-ASCII lead byte of valid
/// UTF-8), and its length; decoded by hand because this loop is the whole cost of the pass.
fn decode(bytes: &[u8], at: usize) -> (char, usize) {
    let cont = |i: usize| u32::from(bytes.get(at + i).copied().unwrap_or(0x80) & 0x3F);
    let lead = u32::from(bytes[at]);
    let (code, len) = match lead {
        0xC0..=0xDF => (((lead & 0x1F) << 6) | cont(1), 2),
        0xE0..=0xEF => (((lead & 0x0F) << 12) | (cont(1) << 6) | cont(2), 3),
        _ => (((lead & 0x07) << 18) | (cont(1) << 12) | (cont(2) << 6) | cont(3), 4),
    };
    (char::from_u32(code).unwrap_or(char::REPLACEMENT_CHARACTER), len)
}

/// What a Cyrillic letter says about the language, for [`Counts`].
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Cyrillic {
    /// Shared by the languages told apart here, or not counted.
    Common,
    /// `ї є ґ і` and their capitals.
    Ukrainian,
    /// `ы э ё` and their capitals.
    Russian,
    /// `ъ`, `Ъ`.
    HardSign,
    /// `ў ђ ј љ њ ћ џ ѓ ѕ ќ` and their capitals.
    Other,
}

/// [`Cyrillic`] of each character U+0400..=U+052F, looked up instead of comparing the
/// character with each letter in turn (most of a Cyrillic text's characters go through here).
static CYRILLIC: [Cyrillic; 0x130] = {
    const fn mark(
        mut table: [Cyrillic; 0x130],
        letters: &str,
        kind: Cyrillic,
    ) -> [Cyrillic; 0x130] {
        let b = letters.as_bytes();
        let mut i = 0;
        // Two-byte UTF-8 letters only (all of U+0400..=U+052F are).
        while i + 1 < b.len() {
            let u = (((b[i] & 0x1F) as usize) << 6) | (b[i + 1] & 0x3F) as usize;
            table[u - 0x400] = kind;
            i += 2;
        }
        table
    }
    let table = [Cyrillic::Common; 0x130];
    let table = mark(table, "їєґіЇЄҐІ", Cyrillic::Ukrainian);
    let table = mark(table, "ыэёЫЭЁ", Cyrillic::Russian);
    let table = mark(table, "ъЪ", Cyrillic::HardSign);
    mark(table, "ўђјљњћџѓѕќЎЂЈЉЊЋЏЃЅЌ", Cyrillic::Other)
};

/// The script of a non-ASCII letter, as [`Counts`] counts it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Script {
    /// A Latin letter (part of a word the stopword table scores).
    Latin,
    Cyrillic(Cyrillic),
    Han,
    Hiragana,
    Katakana,
    /// A letter of another script (Greek, Arabic, Hangul, ...): whatlang's business.
    Other,
    /// Not a letter, or a CJK symbol or full-width form (counted either way).
    None,
}

/// The script of a non-ASCII character.
#[inline]
fn classify(c: char) -> Script {
    match u32::from(c) {
        0xC0..=0x24F if c != '×' && c != '÷' => Script::Latin,
        0x1E00..=0x1EFF => Script::Latin,
        u @ 0x400..=0x52F => Script::Cyrillic(CYRILLIC[(u - 0x400) as usize]),
        0x3040..=0x309F => Script::Hiragana,
        0x30A0..=0x30FF | 0x31F0..=0x31FF | 0xFF66..=0xFF9F => Script::Katakana,
        // CJK symbols (々, 〆) and full-width forms: not counted either way.
        0x3000..=0x303F | 0xFF00..=0xFFEF => Script::None,
        0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF | 0x20000..=0x2FA1F => Script::Han,
        _ if c.is_alphabetic() => Script::Other,
        _ => Script::None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::lang::detect_whatlang;

    /// What `classify` says of a character, as the packed counts of the detection loop's
    /// Cyrillic run would add it (letters, Ukrainian, Russian, hard sign, other Cyrillic);
    /// `None` for a letter of any other script, which the run must not take.
    fn expected_counts(c: char) -> Option<[u32; 5]> {
        let script = if c.is_ascii() {
            if c.is_ascii_alphabetic() { Script::Latin } else { Script::None }
        } else {
            classify(c)
        };
        let mut f = [0; 5];
        match script {
            Script::Cyrillic(k) => {
                f[0] = 1;
                match k {
                    Cyrillic::Common => {}
                    Cyrillic::Ukrainian => f[1] = 1,
                    Cyrillic::Russian => f[2] = 1,
                    Cyrillic::HardSign => f[3] = 1,
                    Cyrillic::Other => f[4] = 1,
                }
            }
            Script::None => {}
            _ => return None,
        }
        Some(f)
    }

    /// The detection loop's Cyrillic run (lead bytes 0xD0, 0xD1, and ASCII but letters) counts
    /// what `classify` says of every character it takes, and takes no letter of another script.
    #[test]
    fn cyrillic_run_agrees_with_classify() {
        for u in (0..0x80).chain(0x400..=0x47F_u32) {
            let c = char::from_u32(u).unwrap();
            let mut utf8 = [0u8; 4];
            let bytes = c.encode_utf8(&mut utf8).as_bytes();
            let step = CYRILLIC_RUN_STEP[usize::from(bytes[0])];
            assert_eq!(usize::from(step), if c.is_ascii_alphabetic() { 0 } else { bytes.len() });
            let index =
                if step == 2 { two_byte(bytes[0], bytes[1]) as usize - 0x400 } else { NOT_COUNTED };
            let mut counts = Counts::default();
            counts.add_packed(CYRILLIC_PACKED[index]);
            let got = [
                counts.cyrillic,
                counts.ukrainian,
                counts.russian,
                counts.hard_sign,
                counts.others_cyrillic,
            ];
            if step != 0 {
                assert_eq!(Some(got), expected_counts(c), "{c:?} U+{u:04X}");
            }
        }
        // Every other lead byte ends the run.
        for x in 0x80..=0xFF_u8 {
            assert_eq!(CYRILLIC_RUN_STEP[usize::from(x)] != 0, x & 0xFE == 0xD0, "{x:#04X}");
        }
    }

    /// The detection loop's shortcut for Han and kana says what `classify` says of every
    /// three-byte character, and takes none of the others.
    #[test]
    fn cjk_shortcut_agrees_with_classify() {
        for u in 0x800..=0xFFFF_u32 {
            let Some(c) = char::from_u32(u) else { continue };
            let mut utf8 = [0u8; 4];
            let bytes = c.encode_utf8(&mut utf8).as_bytes();
            let expected = match classify(c) {
                Script::Han => 1,
                Script::Hiragana => 2,
                Script::Katakana => 3,
                Script::None if (0x3000..=0x303F).contains(&u) => CJK_NEUTRAL,
                _ => NOT_CJK,
            };
            // Half-width katakana (U+FF66..) and compatibility ideographs (U+F900..) are left
            // to classify: the shortcut takes lead bytes 0xE3..=0xE9 only.
            let expected = if (0xE3..=0xE9).contains(&bytes[0]) { expected } else { NOT_CJK };
            assert_eq!(cjk_class(bytes, 0), expected, "{c} U+{u:04X}");
        }
    }

    /// The stopword table against a map of the same words: every word's languages, nothing for
    /// words that are not in it, and room to spare.
    #[test]
    fn stopword_table_agrees_with_a_map() {
        let mut map = std::collections::HashMap::<u64, u32>::new();
        for (hash, langs) in stopwords() {
            *map.entry(hash).or_default() |= langs;
        }
        let table = table();
        assert_eq!(table.len(), map.len());
        assert!(map.len() * 4 < table.slots.len() * 3, "{} words", map.len());
        for (&hash, &langs) in &map {
            assert_eq!(table.get(hash), Some(langs), "{hash:x}");
        }
        let mut word = WordBuf::default();
        for w in ["the", "and", "der", "und", "les", "och"] {
            word.clear();
            w.bytes().for_each(|b| word.push_ascii(b));
            assert!(table.get(word.hash()).is_some(), "{w}");
        }
        for n in 0..200_000u64 {
            let hash = xxhash_rust::xxh3::xxh3_64(&n.to_le_bytes());
            if !map.contains_key(&hash) {
                assert_eq!(table.get(hash), None, "{hash:x}");
            }
        }
    }

    /// The lookup table against the letters it was written from.
    #[test]
    fn cyrillic_table_holds_exactly_the_listed_letters() {
        let kind = |c: char| match c {
            'ї' | 'є' | 'ґ' | 'і' | 'Ї' | 'Є' | 'Ґ' | 'І' => Cyrillic::Ukrainian,
            'ы' | 'э' | 'ё' | 'Ы' | 'Э' | 'Ё' => Cyrillic::Russian,
            'ъ' | 'Ъ' => Cyrillic::HardSign,
            'ў' | 'ђ' | 'ј' | 'љ' | 'њ' | 'ћ' | 'џ' | 'ѓ' | 'ѕ' | 'ќ' | 'Ў' | 'Ђ' | 'Ј' | 'Љ'
            | 'Њ' | 'Ћ' | 'Џ' | 'Ѓ' | 'Ѕ' | 'Ќ' => Cyrillic::Other,
            _ => Cyrillic::Common,
        };
        for u in 0x400..=0x52F_u32 {
            let c = char::from_u32(u).unwrap();
            assert_eq!(CYRILLIC[(u - 0x400) as usize], kind(c), "{c} U+{u:04X}");
        }
    }

    /// Sentences written for these tests, a few per language.
    const POOL: &[(&str, &[&str])] = &[
        (
            "en",
            &[
                "The archive keeps every page that the crawler has fetched since the spring.",
                "When two copies of a manual differ only in their footer, they are counted as one.",
                "Most of the work is done before the results are written to the disk.",
                "She said that the report would be ready by the end of the week.",
                "There is no reason to read the whole file again after it has been indexed.",
            ],
        ),
        (
            "de",
            &[
                "Das Archiv enthält jede Seite, die der Crawler seit dem Frühjahr geladen hat.",
                "Wenn sich zwei Kopien eines Handbuchs nur in der Fußzeile unterscheiden, zählen sie als eine.",
                "Die meiste Arbeit wird erledigt, bevor die Ergebnisse auf die Platte geschrieben werden.",
                "Sie sagte, dass der Bericht bis zum Ende der Woche fertig sein würde.",
                "Es gibt keinen Grund, die ganze Datei noch einmal zu lesen, nachdem sie indiziert wurde.",
            ],
        ),
        (
            "fr",
            &[
                "L'archive conserve chaque page que le robot a téléchargée depuis le printemps.",
                "Quand deux copies d'un manuel ne diffèrent que par leur pied de page, elles comptent pour une.",
                "La plus grande partie du travail est faite avant que les résultats soient écrits sur le disque.",
                "Elle a dit que le rapport serait prêt pour la fin de la semaine.",
                "Il n'y a aucune raison de relire tout le fichier après qu'il a été indexé.",
            ],
        ),
        (
            "es",
            &[
                "El archivo guarda cada página que el rastreador ha descargado desde la primavera.",
                "Cuando dos copias de un manual solo se diferencian en el pie de página, se cuentan como una.",
                "La mayor parte del trabajo se hace antes de que los resultados se escriban en el disco.",
                "Ella dijo que el informe estaría listo para el final de la semana.",
                "No hay ninguna razón para volver a leer todo el archivo después de que ha sido indexado.",
            ],
        ),
        (
            "ru",
            &[
                "Архив хранит каждую страницу, которую робот загрузил с весны.",
                "Если две копии руководства отличаются только нижним колонтитулом, их считают одной.",
                "Большая часть работы выполняется до того, как результаты будут записаны на диск.",
                "Она сказала, что отчёт будет готов к концу этой недели.",
                "Нет никакой причины снова читать весь файл после того, как он был проиндексирован.",
            ],
        ),
        (
            "uk",
            &[
                "Архів зберігає кожну сторінку, яку робот завантажив від весни.",
                "Якщо дві копії посібника відрізняються лише нижнім колонтитулом, їх вважають однією.",
                "Більша частина роботи виконується до того, як результати буде записано на диск.",
                "Вона сказала, що звіт буде готовий до кінця тижня.",
                "Немає жодної причини знову читати весь файл після того, як його було проіндексовано.",
            ],
        ),
        (
            "zh",
            &[
                "档案保存了爬虫自春天以来抓取的每一个页面。",
                "如果一本手册的两个副本只在页脚上不同，就把它们算作一个。",
                "大部分工作在结果写入磁盘之前就已经完成了。",
                "她说这份报告将在本周末之前准备好。",
            ],
        ),
        (
            "ja",
            &[
                "アーカイブには、クローラーが春から取得したすべてのページが保存されています。",
                "マニュアルの二つのコピーがフッターだけ違う場合は、一つとして数えます。",
                "ほとんどの作業は、結果がディスクに書き込まれる前に終わります。",
                "彼女は報告書が週末までに準備できると言いました。",
            ],
        ),
    ];

    /// A small deterministic generator (xorshift64*).
    struct Rng(u64);

    impl Rng {
        fn below(&mut self, n: usize) -> usize {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) as usize % n
        }
    }

    #[test]
    fn quick_answers_agree_with_whatlang_on_random_single_language_texts() {
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        let (mut answered, mut total) = (0, 0);
        for _ in 0..400 {
            let (code, sentences) = POOL[rng.below(POOL.len())];
            let n = 4 + rng.below(20);
            let text: Vec<&str> = (0..n).map(|_| sentences[rng.below(sentences.len())]).collect();
            let text = text.join(" ");
            let slow = detect_whatlang(&text).map(|d| d.code);
            assert_eq!(slow, Some(code), "whatlang on {text}");
            total += 1;
            if let Some(quick) = detect(prefix_of(&text)) {
                answered += 1;
                assert_eq!(quick.code, code, "{text}");
            }
        }
        // The point of the quick pass: most single-language texts never reach whatlang.
        assert!(answered * 10 >= total * 9, "quick pass answered {answered} of {total}");
    }

    fn prefix_of(text: &str) -> &str {
        super::super::prefix(text)
    }

    /// The lanes (ASCII words, Cyrillic runs) against characters taken one at a time, on random
    /// texts of the pool's words with long words, accented words, digits, capitals and
    /// punctuation between them, so that words and runs end at every point of the windows and
    /// of the prefix: the same counts, the same scores.
    #[test]
    fn the_lanes_count_and_score_what_one_character_at_a_time_does() {
        let mut rng = Rng(0xD1B5_4A32_D192_ED03);
        let extra = [
            "Internationalization",
            // Words of 8, 16, 32 and 33 letters, and longer: each edge of the long-word lane.
            "document",
            "Constantinopolis",
            "Supercalifragilisticexpialidocio",
            "Supercalifragilisticexpialidociou",
            "Pneumonoultramicroscopicsilicovolcanoconiosis",
            "réseau",
            "naïve",
            "Straße",
            "x86_64",
            "HTTP/2",
            "e.g.",
            "über",
            "ÉTÉ",
            "a",
            "I",
            "it's",
            "--verbose",
            "2048",
            "ab\u{301}c",
            "Çok",
            "żółw",
            "THE",
            "「引用」",
            "〜",
            "，",
            "3。",
            "ї",
            "ґанок",
            "Ёлка",
            "объект",
            "ђак",
            "Љубав",
            "ў",
            "Ω",
            "ӘБ",
            "中文",
            "かな",
            "Р",
        ];
        let mut words: Vec<&str> = extra.to_vec();
        for (_, sentences) in POOL {
            words.extend(sentences.iter().flat_map(|s| s.split(' ')));
        }
        let mut answered = 0;
        for round in 0..4000 {
            // Texts of one language's words mostly, so that many are answered.
            let (_, sentences) = POOL[round % POOL.len()];
            let n = 5 + rng.below(400);
            let mut text = String::new();
            for _ in 0..n {
                let word = if rng.below(4) == 0 {
                    words[rng.below(words.len())]
                } else {
                    let s = sentences[rng.below(sentences.len())];
                    let w: Vec<&str> = s.split(' ').collect();
                    w[rng.below(w.len())]
                };
                text.push_str(word);
                text.push_str([" ", " ", " ", ", ", "\n", "  ", ""][rng.below(7)]);
            }
            let prefix = prefix_of(&text);
            let (lanes, one_by_one) = (sample::<true>(prefix), sample::<false>(prefix));
            assert_eq!(lanes, one_by_one, "{prefix}");
            answered += usize::from(decide(&lanes.0, &lanes.1).is_some());
        }
        assert!(answered > 1500, "only {answered} answered: the lanes are barely tested");
    }

    /// The eight-byte Cyrillic step against the bytes one at a time, on random runs of every
    /// letter of U+0400..=U+047F, ASCII and other characters, at every character boundary.
    #[test]
    fn cyrillic_counts_agree_with_the_bytes_one_at_a_time() {
        let mut pieces: Vec<String> =
            (0x400..0x480u32).map(|u| char::from_u32(u).unwrap().to_string()).collect();
        pieces.extend(
            [" ", ", ", "1", "-", "\n", "a", "Z", "é", "«", "—", "ґ", "中"].map(String::from),
        );
        let mut rng = Rng(0x6A09_E667_F3BC_C909);
        let (mut some, mut none) = (0, 0);
        for _ in 0..20_000 {
            let mut text = String::new();
            while text.len() < 40 {
                // Mostly letters and spaces, as in running text.
                let piece = match rng.below(10) {
                    0..=7 => &pieces[rng.below(0x80)],
                    8 => &pieces[0x80],
                    _ => &pieces[rng.below(pieces.len())],
                };
                text.push_str(piece);
            }
            let bytes = text.as_bytes();
            for at in (0..bytes.len() - 9).filter(|&at| text.is_char_boundary(at)) {
                let nine = &bytes[at..at + 9];
                let (mut ends, mut packed) = (false, 0);
                for k in 0..8 {
                    match CYRILLIC_RUN_BYTE[usize::from(nine[k])] {
                        0 => ends = true,
                        2 => {
                            packed +=
                                CYRILLIC_PACKED[two_byte(nine[k], nine[k + 1]) as usize & 0x7F]
                        }
                        _ => {}
                    }
                }
                assert_eq!(cyrillic_counts(nine), (!ends).then_some(packed), "{nine:x?}");
                if ends {
                    none += 1;
                } else {
                    some += 1;
                }
            }
        }
        assert!(some > 100_000 && none > 5_000, "{some} {none}");
    }

    /// Short words that are no language's stopword are not found by [`short_word_hash`].
    #[test]
    fn short_words_that_are_not_stopwords_are_not_found() {
        let mut listed = std::collections::HashSet::new();
        for (_, list) in LATIN {
            for word in stop_words::lookup(list).unwrap_or_default() {
                listed.insert(word.to_lowercase());
            }
        }
        let mut rng = Rng(0x8CB9_2BA7_2F3D_8DD7);
        let table = table();
        let mut tried = 0;
        for _ in 0..300_000 {
            let len = 1 + rng.below(8);
            let word: String = (0..len).map(|_| char::from(b'a' + rng.below(26) as u8)).collect();
            if listed.contains(&word) {
                assert!(table.get(word_hash(word.as_bytes())).is_some(), "{word}");
            } else {
                tried += 1;
                assert_eq!(table.get(word_hash(word.as_bytes())), None, "{word}");
            }
        }
        assert!(tried > 200_000, "{tried}");
    }

    #[test]
    fn two_languages_one_after_the_other_are_left_to_whatlang() {
        let en = POOL[0].1.join(" ");
        let tr = "Dağıtım, gelişmiş teknolojilere erişimi basitleştirmeyi amaçlamaktadır ve \
                  olağan yazılımın yanı sıra belirli grafik kullanıcı arayüzleri sağlar. Bu \
                  görüntüler normal Debian aynalarında bulunabilir ve her şey indirilir.";
        assert_eq!(detect(&format!("{en} {tr}")), None);
        let de = POOL[1].1.join(" ");
        assert_eq!(detect(&format!("{en} {de}")), None);
        // Russian and Ukrainian in one text: neither language's letters alone.
        let (ru, uk) = (POOL[4].1.join(" "), POOL[5].1.join(" "));
        assert_eq!(detect(&format!("{ru} {uk}")), None);
    }

    /// An API reference page written for this test: English prose between declarations, too few
    /// stopwords for the strict rule (35%), far ahead of any other language's.
    const API_PAGE: &str = "graphInitFunction () void * graphInitFunction (graphContextPtr \
        ctxt, const xmlChar * URI, graphNodePtr node) Called when a graph module starts. ctxt: \
        graphContextPtr URI: xmlChar node: graphNodePtr graphShutdownFunction () void \
        graphShutdownFunction (graphContextPtr ctxt, const xmlChar * URI, void * data) Called \
        at the end of the run. ctxt: graphContextPtr data: void graphRegisterAll () void \
        graphRegisterAll (void) Registers all the modules. graphRegisterModule () int \
        graphRegisterModule (const xmlChar * URI, graphInitFunction initFunc, \
        graphShutdownFunction shutdownFunc) Registers one module with its functions. URI: \
        xmlChar initFunc: graphInitFunction shutdownFunc: graphShutdownFunction Returns: int \
        graphCheckPrefix () int graphCheckPrefix (graphStylePtr style, const xmlChar * URI) \
        Checks the prefix. style: graphStylePtr URI: xmlChar Returns: int graphFreeModules () \
        void graphFreeModules (graphStylePtr style) Frees all the modules of the style. style: \
        graphStylePtr graphLookupModule () graphModulePtr graphLookupModule (const xmlChar * \
        URI) Looks the module up by its URI. URI: xmlChar Returns: graphModulePtr";

    #[test]
    fn english_prose_among_code_is_answered_by_the_lean_rule() {
        let (_, scores) = sample::<true>(prefix_of(API_PAGE));
        let (best, _, strict) = scores.winner().expect("an answer");
        assert_eq!(LATIN[best].0, "en");
        assert!(!strict, "the strict rule would have answered: {scores:?}");
        let quick = detect(prefix_of(API_PAGE)).expect("answered");
        assert_eq!((quick.code, quick.reliable), ("en", false));
    }

    #[test]
    fn the_lean_rule_leaves_code_with_a_few_words_of_another_language_to_whatlang() {
        // One accented word among the identifiers: not English, whatever its stopwords say.
        let mixed = API_PAGE.replacen("Called when", "Appelée quand", 1);
        let (_, scores) = sample::<true>(prefix_of(&mixed));
        assert!(scores.accented > 0 && scores.words >= LEAN_MIN_WORDS, "{scores:?}");
        assert_eq!(detect(prefix_of(&mixed)), None);
        // Too few words for the lean rule, though its stopwords would do: whatlang's.
        let short = "graphInitFunction () void graphInitFunction (graphContextPtr ctxt, const \
                     xmlChar URI) Called when a module starts. graphRegisterAll () void \
                     graphRegisterAll (void) Registers all the modules.";
        let (_, scores) = sample::<true>(short);
        let en = LATIN.iter().position(|l| l.0 == "en").expect("English");
        assert!((MIN_WORDS..LEAN_MIN_WORDS).contains(&scores.words), "{scores:?}");
        assert!(scores.hits[en] >= LEAN_MIN_HITS && scores.hits[en] * 20 < scores.words * 7);
        assert_eq!(detect(short), None);
    }

    #[test]
    fn cyrillic_languages_without_their_own_rule_are_left_to_whatlang() {
        // Bulgarian (ъ), Belarusian (ў, і beside ы), Serbian (ј, љ).
        let bg = "Архивът пази всяка страница, която роботът е изтеглил от пролетта насам, и \
                  никой не я чете отново, след като е била индексирана в базата.";
        let be = "Архіў захоўвае кожную старонку, якую робат загрузіў з вясны, і ніхто не чытае \
                  яе зноў пасля таго, як яна была праіндэксавана.";
        let sr = "Архив чува сваку страницу коју је робот преузео од пролећа, и нико је не чита \
                  поново након што је индексирана у бази података.";
        for text in [bg, be, sr] {
            assert_eq!(detect(text), None, "{text}");
        }
    }

    /// Regression: Russian manuals write `объект` and `подъём` often enough that ъ passed the old
    /// limit (0.5% of all letters), and every such page went to whatlang.
    #[test]
    fn technical_russian_with_hard_signs_is_answered_without_whatlang() {
        let ru = "Выбранный объект сначала преобразуется в контур, а затем в трёхмерный объект. \
                  Чтобы открыть этот диалог, выберите пункт меню Вид, затем щёлкните по кнопке \
                  Свойства. Если выделено несколько объектов, новые параметры будут применены \
                  ко всем выделенным объектам сразу. Вы можете отменить любое действие, нажав \
                  клавиши быстрого доступа, или выбрать другой стиль в списке выше. Размеры \
                  страницы задаются в миллиметрах; поля страницы вычисляются автоматически.";
        let quick = detect(ru).map(|d| d.code);
        assert_eq!(quick, Some("ru"));
        assert_eq!(quick, detect_whatlang(ru).map(|d| d.code));
        // Bulgarian keeps going to whatlang, also with a Russian word in it.
        let bg = "Архивът пази всяка страница, която роботът е изтеглил от пролетта насам, и                   никой не я чете отново (по руски: мы), след като е била индексирана в базата.";
        assert_eq!(detect(bg), None);
    }

    #[test]
    fn japanese_with_as_much_kana_as_han_is_answered_without_whatlang() {
        let ja = POOL[7].1.join("");
        let quick = detect(&ja).map(|d| d.code);
        assert_eq!(quick, Some("ja"));
        assert_eq!(quick, detect_whatlang(&ja).map(|d| d.code));
    }

    #[test]
    fn short_or_unknown_script_text_is_left_to_whatlang() {
        assert_eq!(detect("the end"), None);
        assert_eq!(detect(""), None);
        // Greek, Korean and Arabic are whatlang's.
        assert_eq!(
            detect("Το αρχείο κρατά κάθε σελίδα που κατέβασε ο ανιχνευτής από την άνοιξη."),
            None
        );
        assert_eq!(detect("아카이브는 크롤러가 봄부터 가져온 모든 페이지를 보관합니다."), None);
    }
}
