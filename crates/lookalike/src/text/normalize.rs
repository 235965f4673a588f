//! Text normalization and tokenization. Contract: "give me any Unicode text, I give you one
//! canonical string of lower-case tokens and the byte span of every token in it".
//!
//! The steps, in one pass over the characters:
//!
//! 1. **NFKC** (compatibility composition): full-width forms, ligatures, super/subscripts and
//!    composed/decomposed accents all become one form. Applied only to the pieces of text that
//!    need it: the scanner knows the characters of the common scripts to be stable, asks the NFKC
//!    quick check only about the words around any other character (from the ASCII whitespace
//!    before it to the one after it, which NFKC never combines with anything), and normalizes and
//!    scans again only such a piece when it is not in NFKC. The result is the same as for the
//!    NFKC of the whole text (a property test checks it).
//! 2. **Case folding**: Unicode lower-casing plus the two full-folding differences that matter in
//!    practice (`ß`/`ẞ` → `ss`, final sigma `ς` → `σ`).
//! 3. **Punctuation and whitespace folding**: every character that is neither a letter, a number
//!    nor a combining mark separates tokens and is dropped. Tokens follow Unicode word boundaries
//!    (UAX #29): word-internal punctuation does not split a word but is dropped from it: an
//!    apostrophe, `.` or `:` between two letters (`don't`, `м'ясо`, `e.g`), `.` `,` `;` or an
//!    apostrophe between two digits (`3.14`, `1,000`), and connector punctuation (`foo_bar`)
//!    give `dont`, `мясо`, `eg`, `314`, `1000`, `foobar`. Invisible format characters (soft
//!    hyphen, zero-width joiners) are dropped. One departure from UAX #29: a full stop between
//!    two runs of at least two letters ends a sentence typed without a space after it
//!    (`речення.Наступне`, `end.Next`: two tokens each, as with the space), unless the word goes on
//!    after the second run (`numpy.linalg…`, `www.python.org`) or that run is a common top-level
//!    domain or file extension (`example.com`, `README.md`: see [`KEPT_SUFFIXES`]); `e.g.`,
//!    `U.S.A.` and numbers (`3.14`) stay whole. The rule looks at letters only, never at their
//!    case, so normalization stays case-invariant (an upper-cased copy gives the same tokens). A
//!    property test checks the tokens against the `unicode-segmentation` crate's words, cut by
//!    the same rule, on random text.
//! 4. **Tokens**: runs of letters, digits and marks are tokens, separated by one space in the
//!    output. Scripts written without spaces (Han, Hiragana, Katakana, Thai, Lao, Khmer, Myanmar,
//!    Tibetan) have no word separators to find, so each of their characters (with its combining
//!    marks) is a token of its own, and consecutive such tokens are written without a space: word
//!    shingles over such text are character n-grams, which is what makes them meaningful there.
//!
//! The result is a [`NormalizedText`]: the canonical string (whose fingerprint identifies
//! full-content copies, see [`crate::fingerprint`]) and its token spans (the input of word shingles).

use super::swar::{HIGH_BITS, bytes_in_range, splat};
use unicode_normalization::{IsNormalized, UnicodeNormalization, is_nfkc_quick};
use unicode_properties::{GeneralCategoryGroup, UnicodeGeneralCategory};

/// A normalized text and the byte spans of its tokens. Reuse one value across documents to avoid
/// allocations ([`NormalizedText::clear`] is called by [`normalize_into`]).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct NormalizedText {
    /// The canonical text: tokens separated by a single space (no space between two tokens of a
    /// script written without spaces).
    pub text: String,
    /// `(start, end)` byte offsets of each token in `text`.
    pub tokens: Vec<(u32, u32)>,
}

impl NormalizedText {
    /// Empties the value, keeping its allocations.
    pub fn clear(&mut self) {
        self.text.clear();
        self.tokens.clear();
    }

    /// The tokens as string slices.
    pub fn token_strs(&self) -> impl Iterator<Item = &str> + '_ {
        self.tokens.iter().map(|&(s, e)| &self.text[s as usize..e as usize])
    }

    /// Number of tokens.
    pub fn len(&self) -> usize {
        self.tokens.len()
    }

    /// True when the text has no token at all.
    pub fn is_empty(&self) -> bool {
        self.tokens.is_empty()
    }
}

/// How text in scripts written without spaces (Chinese, Japanese, Thai, ...) is cut into tokens.
#[derive(
    Debug,
    Clone,
    Copy,
    Default,
    PartialEq,
    Eq,
    Hash,
    serde::Serialize,
    serde::Deserialize,
    clap::ValueEnum,
)]
#[serde(rename_all = "kebab-case")]
pub enum Segmentation {
    /// Every character is a token (default): no dictionary, any language, robust to typos.
    #[default]
    Chars,
    /// Words from ICU4X's dictionary segmenter (Chinese, Japanese; Thai, Lao, Khmer, Burmese),
    /// with its compiled-in data: no files, no network.
    Dictionary,
}

/// Normalizes `input` into `out` with the given segmentation of space-less scripts.
pub fn normalize_with(input: &str, out: &mut NormalizedText, segmentation: Segmentation) {
    normalize_into(input, out);
    if segmentation == Segmentation::Dictionary {
        segment_spaceless_runs(out);
    }
}

/// Replaces each run of single-character tokens of space-less scripts (written without spaces
/// between them) by the words the dictionary segmenter finds in it. The text is unchanged.
fn segment_spaceless_runs(out: &mut NormalizedText) {
    use icu_segmenter::WordSegmenter;
    use icu_segmenter::options::WordBreakInvariantOptions;

    let is_spaceless = |&(s, _): &(u32, u32)| {
        out.text[s as usize..].chars().next().is_some_and(is_spaceless_script)
    };
    if !out.tokens.iter().any(is_spaceless) {
        return;
    }
    let segmenter = WordSegmenter::new_dictionary(WordBreakInvariantOptions::default());
    let old = std::mem::take(&mut out.tokens);
    let mut i = 0;
    while i < old.len() {
        if !is_spaceless(&old[i]) {
            out.tokens.push(old[i]);
            i += 1;
            continue;
        }
        // The run: consecutive space-less tokens with nothing between them.
        let mut j = i + 1;
        while j < old.len() && old[j].0 == old[j - 1].1 && is_spaceless(&old[j]) {
            j += 1;
        }
        let (start, end) = (old[i].0 as usize, old[j - 1].1 as usize);
        let run = &out.text[start..end];
        let mut prev = 0usize;
        for b in segmenter.segment_str(run) {
            if b > prev {
                out.tokens.push(((start + prev) as u32, (start + b) as u32));
            }
            prev = b;
        }
        i = j;
    }
}

/// Normalizes `input` into a new [`NormalizedText`].
pub fn normalize(input: &str) -> NormalizedText {
    let mut out = NormalizedText::default();
    normalize_into(input, &mut out);
    out
}

/// Normalizes `input` into `out` (cleared first). See the module docs for the rules.
pub fn normalize_into(input: &str, out: &mut NormalizedText) {
    scan_all(input, out, true);
}

/// [`normalize_into`], with or without the word fast lane.
fn scan_all(input: &str, out: &mut NormalizedText, fast: bool) {
    out.clear();
    // Most text is already in NFKC. The scanner checks that on the fly for the common scripts and
    // asks for the quick check only when it meets a character outside them, and then only for the
    // words around it (between two ASCII whitespace characters, which NFKC never combines with
    // anything: the normal form of the text is the normal forms of such pieces put together). A
    // piece that is not in NFKC is normalized and scanned again; the rest of the text is not.
    let mut scanner = Scanner::new(out, input.len());
    scanner.fast = fast;
    let mut at = 0;
    while let Some(piece) = scanner.scan::<true>(input, at) {
        let composed: String = input[piece.start..piece.end].nfkc().collect();
        scanner.rewind(piece.checkpoint);
        // Lookahead inside the piece ends where the piece ends, as it would at the whitespace
        // that follows it.
        let done = scanner.scan::<false>(&composed, 0);
        debug_assert!(done.is_none(), "NFKC text needs no NFKC");
        at = piece.end;
    }
    scanner.builder.finish();
}

/// A piece of the input that is not in NFKC: bytes `start..end`, from just after the ASCII
/// whitespace before it (or the start of the text) to the ASCII whitespace after it (or the end
/// of the text), and the scanner's state at `start`.
struct NeedsNfkc {
    start: usize,
    end: usize,
    checkpoint: Checkpoint,
}

/// The scanner's state just after an ASCII whitespace character, to go back to.
#[derive(Clone, Copy)]
struct Checkpoint {
    /// Byte offset in the input after the whitespace.
    at: usize,
    buf: usize,
    tokens: usize,
    last: Open,
    prev: char,
}

/// Characters known to be unchanged by NFKC (quick check "Yes"), covering the bulk of Latin,
/// Greek, Cyrillic, CJK and Korean text, so that such text needs no separate check pass. Two
/// ranges are included although some of their characters have compatibility forms, because those
/// are separators before and after NFKC: the no-break space U+00A0 (→ space) and general
/// punctuation U+2000–U+206F (`…` → `...`, `‼` → `!!`, en space → space) and the ideographic
/// space U+3000. Full-width ASCII (U+FF01–U+FF5E) is not stable but is mapped by the scanner
/// itself, see [`fullwidth_to_ascii`].
fn nfkc_stable(c: char) -> bool {
    let u = c as u32;
    // The bulk of non-ASCII text first: basic Cyrillic letters and CJK ideographs.
    if (0x0410..=0x044F).contains(&u) || (0x4E00..=0x9FFF).contains(&u) {
        return true;
    }
    matches!(u,
        0x00A0..=0x00A7 | 0x00A9 | 0x00AB..=0x00AE | 0x00B0 | 0x00B1 | 0x00B6 | 0x00B7 | 0x00BB
        | 0x00BF..=0x00FF
        | 0x0100..=0x0131 | 0x0134..=0x013E | 0x0141..=0x0148 | 0x014A..=0x017E
        | 0x0386 | 0x0388..=0x03CE
        | 0x0400..=0x0482 | 0x048A..=0x04FF
        | 0x05D0..=0x05EA | 0x0620..=0x064A | 0x0660..=0x0669
        | 0x2000..=0x206F
        | 0x2190..=0x21FF | 0x2500..=0x27BF
        | 0x3000..=0x3003 | 0x3008..=0x3011 | 0x3014..=0x301F
        | 0x3041..=0x3096 | 0x30A1..=0x30FA | 0x30FC..=0x30FE
        | 0x3400..=0x4DBF | 0x4E00..=0x9FFF
        | 0xAC00..=0xD7A3
    )
}

/// Token state of the scanner.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Open {
    /// No token is open.
    None,
    /// A word token is open (letters, digits, marks).
    Word,
    /// A single-character token of a script without spaces is open (it may take marks).
    Spaceless,
}

/// Writes the canonical text and records token spans.
struct Builder<'a> {
    buf: String,
    out: &'a mut NormalizedText,
    open: Open,
    start: usize,
    /// Kind of the last closed or open token, to decide whether a space precedes the next one.
    last: Open,
}

impl<'a> Builder<'a> {
    fn new(out: &'a mut NormalizedText, capacity: usize) -> Self {
        let mut buf = std::mem::take(&mut out.text);
        buf.clear();
        buf.reserve(capacity);
        Builder { buf, out, open: Open::None, start: 0, last: Open::None }
    }

    fn close(&mut self) {
        if self.open != Open::None {
            self.out.tokens.push((self.start as u32, self.buf.len() as u32));
            self.last = self.open;
            self.open = Open::None;
        }
    }

    fn open(&mut self, kind: Open) {
        self.close();
        let glue = kind == Open::Spaceless && self.last == Open::Spaceless;
        if self.last != Open::None && !glue {
            self.buf.push(' ');
        }
        self.start = self.buf.len();
        self.open = kind;
    }

    fn push_char(&mut self, c: char) {
        self.buf.push(c);
    }

    fn finish(mut self) {
        self.close();
        self.out.text = self.buf;
    }
}

/// The scanner: one pass over the bytes, ASCII inline, runs of Cyrillic letters and of CJK
/// ideographs and kana decoded inline, other characters decoded one at a time.
struct Scanner<'a> {
    builder: Builder<'a>,
    /// The last character seen (marks and format characters aside), for the joining rules.
    prev: char,
    /// Letters since the last character that is not a letter (marks and format characters
    /// aside).
    run: usize,
    /// State after the last ASCII whitespace character.
    checkpoint: Checkpoint,
    /// Whether the word fast lane ([`fast_words`]) runs after ASCII whitespace and runs of CJK
    /// characters are copied at once (always, but in the test that compares these with the
    /// scanner going one character at a time).
    fast: bool,
}

impl<'a> Scanner<'a> {
    fn new(out: &'a mut NormalizedText, capacity: usize) -> Self {
        Scanner {
            builder: Builder::new(out, capacity),
            prev: ' ',
            run: 0,
            checkpoint: Checkpoint { at: 0, buf: 0, tokens: 0, last: Open::None, prev: ' ' },
            fast: true,
        }
    }

    /// Goes back to the state of `cp`.
    fn rewind(&mut self, cp: Checkpoint) {
        let b = &mut self.builder;
        b.buf.truncate(cp.buf);
        b.out.tokens.truncate(cp.tokens);
        b.open = Open::None;
        b.last = cp.last;
        self.prev = cp.prev;
        self.run = 0;
    }

    /// Scans `input` from byte `from` to its end. With `CHECK`, stops at the first piece of text
    /// that is not in NFKC and returns it (the state then is somewhere inside the piece: the
    /// caller rewinds to the piece's checkpoint).
    fn scan<const CHECK: bool>(&mut self, input: &str, from: usize) -> Option<NeedsNfkc> {
        let bytes = input.as_bytes();
        let n = bytes.len();
        let b = &mut self.builder;
        let (mut prev, mut run) = (self.prev, self.run);
        if CHECK {
            // The scan starts at the text's start or at the whitespace after a piece, which
            // records the next checkpoint before any character is checked.
            debug_assert!(from == 0 || from == n || bytes[from].is_ascii_whitespace());
            self.checkpoint = Checkpoint {
                at: from,
                buf: b.buf.len(),
                tokens: b.out.tokens.len(),
                last: b.last,
                prev,
            };
        }
        // Text before this offset has passed the quick check.
        let mut checked_until = if CHECK { from } else { usize::MAX };
        let mut i = from;
        while i < n {
            let x = bytes[i];
            if x < 0x80 {
                if x.is_ascii_alphanumeric() {
                    if b.open != Open::Word {
                        b.open(Open::Word);
                    }
                    // The whole run of ASCII letters and digits in one pass: lower-cased as it is
                    // copied, remembering its last digit.
                    let mut end = i;
                    let mut digit = None;
                    while let Some(&y) = bytes.get(end) {
                        if !y.is_ascii_alphanumeric() {
                            break;
                        }
                        if y.is_ascii_digit() {
                            digit = Some(end);
                        }
                        b.buf.push(char::from(y.to_ascii_lowercase()));
                        end += 1;
                    }
                    // Letters since the last digit of the run, or the run's letters added to
                    // those before it.
                    run = match digit {
                        Some(d) => end - 1 - d,
                        None => run + (end - i),
                    };
                    prev = char::from(bytes[end - 1]);
                    i = end;
                    continue;
                } else if x == b'_' {
                    // Connector punctuation (UAX #29 ExtendNumLet) joins: `foo_bar` is one word.
                    prev = '_';
                    run = 0;
                    i += 1;
                    continue;
                } else {
                    if !(matches!(x, b'\'' | b'.' | b',' | b':' | b';')
                        && b.open == Open::Word
                        && joins_before(input, i + 1, prev, x as char)
                        && !ends_sentence(input, i + 1, run, x as char))
                    {
                        b.close();
                    }
                    run = 0;
                    if x.is_ascii_whitespace() {
                        // After whitespace, no token is open: the plain words that follow go
                        // through the fast lane, up to the last whitespace before anything else.
                        i += 1;
                        if self.fast
                            && let Some(at) = fast_words(b, input, i)
                        {
                            i = at;
                        }
                        prev = char::from(bytes[i - 1]);
                        if CHECK {
                            self.checkpoint = Checkpoint {
                                at: i,
                                buf: b.buf.len(),
                                tokens: b.out.tokens.len(),
                                last: b.last,
                                prev,
                            };
                        }
                        continue;
                    }
                }
                prev = x as char;
                i += 1;
                continue;
            }
            if matches!(x, 0xD0 | 0xD1) {
                // A run of Cyrillic letters U+0400..=U+045F (Russian, Ukrainian, ...: two bytes
                // each; no joiner, NFKC-stable, letters of class Word), lower-cased as `fold_into`
                // does, without classifying each of them.
                let mut j = i;
                let mut last = 0u32;
                while j + 1 < n && matches!(bytes[j], 0xD0 | 0xD1) {
                    let u = two_byte(bytes[j], bytes[j + 1]);
                    let Some(lower) = basic_cyrillic_lower(u) else { break };
                    if j == i && b.open != Open::Word {
                        b.open(Open::Word);
                    }
                    b.buf.push(char::from_u32(lower).unwrap_or(char::REPLACEMENT_CHARACTER));
                    last = u;
                    j += 2;
                }
                if j > i {
                    run += (j - i) / 2;
                    prev = char::from_u32(last).unwrap_or(char::REPLACEMENT_CHARACTER);
                    i = j;
                    continue;
                }
            }
            if matches!(x, 0xE3..=0xE9) {
                // A run of CJK ideographs and kana (three bytes each; NFKC-stable, without case,
                // each a token of its own, written without spaces): copied as they are, without
                // classifying each of them. The last one stays open, for the marks after it.
                let mut j = i;
                let mut last = 0u32;
                while j + 2 < n && matches!(bytes[j], 0xE3..=0xE9) {
                    let u = (u32::from(bytes[j] & 0x0F) << 12)
                        | (u32::from(bytes[j + 1] & 0x3F) << 6)
                        | u32::from(bytes[j + 2] & 0x3F);
                    if !is_cjk_fast(u) {
                        break;
                    }
                    last = u;
                    j += 3;
                }
                if j > i {
                    if self.fast {
                        // The run is copied at once; each of its characters is a token, glued
                        // to the one before it.
                        b.open(Open::Spaceless);
                        let first = b.buf.len();
                        b.buf.push_str(&input[i..j]);
                        let count = (j - i) / 3;
                        b.out.tokens.extend((0..count - 1).map(|k| {
                            let s = (first + 3 * k) as u32;
                            (s, s + 3)
                        }));
                        if count > 1 {
                            b.start = first + 3 * (count - 1);
                            b.last = Open::Spaceless;
                        }
                    } else {
                        // One character at a time, as the reference for the copy above.
                        for c in input[i..j].chars() {
                            b.open(Open::Spaceless);
                            b.push_char(c);
                        }
                    }
                    run = 0;
                    prev = char::from_u32(last).unwrap_or(char::REPLACEMENT_CHARACTER);
                    i = j;
                    continue;
                }
            }
            let Some(raw) = input[i..].chars().next() else { break };
            let len = raw.len_utf8();
            let c = fullwidth_to_ascii(raw);
            if CHECK && i >= checked_until && c == raw && !nfkc_stable(c) {
                // The piece around this character: from the last ASCII whitespace to the next.
                let start = self.checkpoint.at;
                let end = bytes[i..].iter().position(u8::is_ascii_whitespace).map_or(n, |k| i + k);
                if is_nfkc_quick(input[start..end].chars()) != IsNormalized::Yes {
                    return Some(NeedsNfkc { start, end, checkpoint: self.checkpoint });
                }
                checked_until = end;
            }
            let class = classify(c);
            match class {
                Class::Mark | Class::Ignore => {}
                Class::Word | Class::Silent if is_letter(c) => run += 1,
                // A joiner's decision below needs the run before it.
                Class::Joiner => {}
                _ => run = 0,
            }
            match class {
                Class::Word => {
                    if b.open != Open::Word {
                        b.open(Open::Word);
                    }
                    push_folded(b, c);
                }
                Class::Spaceless => {
                    b.open(Open::Spaceless);
                    push_folded(b, c);
                }
                Class::Mark => {
                    // A combining mark belongs to the open token (a word, or a Thai/Devanagari
                    // syllable); a stray mark with nothing to attach to is dropped.
                    if b.open != Open::None {
                        b.push_char(c);
                    }
                    // Marks are transparent to the joining rules (UAX #29 WB4).
                    i += len;
                    continue;
                }
                Class::Joiner => {
                    if !(b.open == Open::Word
                        && joins_before(input, i + len, prev, c)
                        && !ends_sentence(input, i + len, run, c))
                    {
                        b.close();
                    }
                    run = 0;
                }
                Class::Ignore => {
                    i += len;
                    continue;
                }
                Class::Silent => {}
                Class::Separator => b.close(),
            }
            prev = c;
            i += len;
        }
        self.prev = prev;
        self.run = run;
        None
    }
}

/// Byte classes of the word fast lane: ASCII letters and digits.
const FL_WORD: u8 = 1;
/// ASCII whitespace (where the scanner records a checkpoint).
const FL_SPACE: u8 = 2;
/// Other ASCII that always separates tokens: punctuation, symbols and control characters but
/// the joiners and `_`.
const FL_SEP: u8 = 4;
/// ASCII joiners (`'` `.` `,` `:` `;`): a separator unless a letter, a digit or `_` follows.
const FL_JOIN: u8 = 8;
/// Lead bytes of the Cyrillic letters U+0400–U+047F (0xD0, 0xD1).
const FL_CYR: u8 = 16;

/// The class of every byte for [`fast_words`]; 0 for the bytes it leaves to the scanner (`_` and
/// every byte of non-ASCII text but the two Cyrillic lead bytes).
static FAST_CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut x = 0;
    while x < 128 {
        let c = x as u8;
        t[x] = if c.is_ascii_alphanumeric() {
            FL_WORD
        } else if c.is_ascii_whitespace() {
            FL_SPACE
        } else if matches!(c, b'\'' | b'.' | b',' | b':' | b';') {
            FL_JOIN
        } else if c == b'_' {
            0
        } else {
            FL_SEP
        };
        x += 1;
    }
    t[0xD0] = FL_CYR;
    t[0xD1] = FL_CYR;
    t
};

/// The scanner's word fast lane. From byte `i`, just after ASCII whitespace (no token open, the
/// state the scanner has there), writes the tokens of the text made only of ASCII letters and
/// digits, basic Cyrillic letters (U+0400–U+045F) and ASCII separators (a joiner among them
/// only when a separator or whitespace follows it, so that it cannot join), exactly as the
/// scanner would: the same rules, with none of the cases they decide. It stops at anything else
/// or at the end of the text, keeps what it wrote up to the last ASCII whitespace before that
/// point and returns the offset after that whitespace, or `None` if it kept nothing. The
/// scanner goes on from there in the state it has after whitespace (its checkpoint).
fn fast_words(b: &mut Builder<'_>, input: &str, mut i: usize) -> Option<usize> {
    let bytes = input.as_bytes();
    let entry = i;
    // State after the last whitespace passed: offset, lengths of the output, last token kind.
    let mut commit = (i, b.buf.len(), b.out.tokens.len(), b.last);
    loop {
        // Separators between tokens.
        while let Some(&x) = bytes.get(i) {
            let c = FAST_CLASS[usize::from(x)];
            if c & (FL_SPACE | FL_SEP | FL_JOIN) == 0 {
                break;
            }
            i += 1;
            if c == FL_SPACE {
                commit = (i, b.buf.len(), b.out.tokens.len(), b.last);
            }
        }
        match bytes.get(i) {
            Some(&x) if FAST_CLASS[usize::from(x)] & (FL_WORD | FL_CYR) != 0 => {}
            _ => break,
        }
        // A token: ASCII letters and digits lower-cased, Cyrillic letters lower-cased as the
        // scanner's Cyrillic run does.
        if b.last != Open::None {
            b.buf.push(' ');
        }
        let start = b.buf.len();
        loop {
            // A run of ASCII letters and digits, eight bytes at a time: all eight copied (a copy
            // of known size, without a call), what is not the run's cut off again, capitals
            // lower-cased in place. A copy of each byte on its own cost more than the rest of
            // the lane.
            if bytes.get(i).is_some_and(|&x| FAST_CLASS[usize::from(x)] == FL_WORD) {
                let mut ended = false;
                // `None` too where the eighth byte is inside a character: then byte by byte.
                while let Some(chunk) = input.get(i..i + 8) {
                    let mut eight = [0u8; 8];
                    eight.copy_from_slice(chunk.as_bytes());
                    let (len, capitals) = ascii_word_prefix(u64::from_le_bytes(eight));
                    let at = b.buf.len();
                    b.buf.push_str(chunk);
                    b.buf.truncate(at + len);
                    if capitals {
                        b.buf[at..].make_ascii_lowercase();
                    }
                    i += len;
                    if len < 8 {
                        ended = true;
                        break;
                    }
                }
                // The text's last bytes, one at a time.
                while let Some(&x) =
                    bytes.get(i).filter(|&&x| !ended && FAST_CLASS[usize::from(x)] == FL_WORD)
                {
                    b.buf.push(char::from(x.to_ascii_lowercase()));
                    i += 1;
                }
            }
            // A run of Cyrillic letters, lower-cased as the scanner's Cyrillic run does.
            let from = i;
            while let Some(&x) = bytes.get(i) {
                if x & 0xFE != 0xD0 {
                    break;
                }
                let Some(&y) = bytes.get(i + 1) else { break };
                let Some(lower) = basic_cyrillic_lower(two_byte(x, y)) else { break };
                b.buf.push(char::from_u32(lower).unwrap_or(char::REPLACEMENT_CHARACTER));
                i += 2;
            }
            if i == from {
                break;
            }
        }
        // What follows the token must end it as a separator; anything else (the text's end
        // included) is left to the scanner.
        match bytes.get(i).map(|&x| FAST_CLASS[usize::from(x)]) {
            Some(FL_SPACE | FL_SEP) => {}
            Some(FL_JOIN)
                if bytes.get(i + 1).is_some_and(|&y| {
                    FAST_CLASS[usize::from(y)] & (FL_SPACE | FL_SEP | FL_JOIN) != 0
                }) => {}
            _ => break,
        }
        b.out.tokens.push((start as u32, b.buf.len() as u32));
        b.last = Open::Word;
    }
    let (at, buf, tokens, last) = commit;
    b.buf.truncate(buf);
    b.out.tokens.truncate(tokens);
    b.last = last;
    (at > entry).then_some(at)
}

/// Of eight bytes of text (little-endian: the first byte lowest), how many from the first are
/// ASCII letters and digits (0 to 8), and whether an ASCII capital is among them: the word fast
/// lane's runs, eight bytes at a time. A test checks it against [`u8::is_ascii_alphanumeric`]
/// and [`u8::is_ascii_uppercase`].
#[inline(always)]
fn ascii_word_prefix(w: u64) -> (usize, bool) {
    let ascii = !w & HIGH_BITS;
    let low7 = w & !HIGH_BITS;
    let upper = bytes_in_range(low7, b'A', b'Z') & ascii;
    let alnum =
        (bytes_in_range(low7 | splat(0x20), b'a', b'z') | bytes_in_range(low7, b'0', b'9')) & ascii;
    // The high bit of the first byte that ends the run (none when all eight are in it), and
    // every bit below it.
    let end = !alnum & HIGH_BITS;
    let run = end ^ end.wrapping_sub(1);
    (end.trailing_zeros() as usize / 8, upper & run != 0)
}

/// The characters of the CJK fast path of the scanner (three UTF-8 bytes each): Hiragana,
/// Katakana (but U+30FF, which NFKC expands), CJK extension A and the unified ideographs. All
/// are NFKC-stable, of class [`Class::Spaceless`], letters, and their own lower case (a test
/// checks it).
#[inline]
fn is_cjk_fast(u: u32) -> bool {
    matches!(u, 0x3041..=0x3096 | 0x30A1..=0x30FA | 0x30FC..=0x30FE | 0x3400..=0x4DBF | 0x4E00..=0x9FFF)
}
/// NFKC of full-width ASCII forms (U+FF01–U+FF5E → U+0021–U+007E), frequent in Chinese and
/// Japanese text, done inline so that such text needs no NFKC pass.
fn fullwidth_to_ascii(c: char) -> char {
    match c as u32 {
        u @ 0xFF01..=0xFF5E => char::from_u32(u - 0xFEE0).unwrap_or(c),
        _ => c,
    }
}

/// Whether joiner `c`, between `prev` and the character starting at byte `next_at`, keeps the word
/// whole.
fn joins_before(input: &str, next_at: usize, prev: char, c: char) -> bool {
    // Format characters and marks are transparent (UAX #29 WB4).
    input[next_at..]
        .chars()
        .find(|&n| !matches!(classify(n), Class::Ignore | Class::Mark))
        .is_some_and(|next| {
            joins_word(prev, c, next) && matches!(classify(next), Class::Word | Class::Silent)
        })
}

/// Top-level domains and file extensions: a full stop before one of them (as the word's last
/// run of letters) stays inside the word, as in `example.com` or `README.md`, instead of ending
/// a sentence typed without a space. Compared case-insensitively, ASCII only.
pub const KEPT_SUFFIXES: &[&str] = &[
    "ai", "app", "ar", "at", "au", "be", "bg", "biz", "br", "by", "ca", "cc", "ch", "cn", "co",
    "com", "cpp", "cs", "css", "cz", "de", "dev", "dk", "doc", "docx", "edu", "es", "eu", "exe",
    "fi", "fr", "gif", "go", "gov", "gr", "gz", "hpp", "htm", "html", "hu", "ie", "il", "in",
    "info", "int", "io", "ir", "it", "java", "jp", "jpeg", "jpg", "js", "json", "kr", "kz", "lt",
    "lv", "md", "me", "mil", "mx", "net", "nl", "no", "nz", "org", "pdf", "php", "pl", "png", "ps",
    "pt", "py", "rb", "ro", "rs", "rst", "ru", "se", "sh", "sk", "so", "su", "svg", "tar", "tex",
    "to", "toml", "ts", "tv", "txt", "ua", "uk", "us", "uz", "xml", "yaml", "yml", "za", "zip",
];

/// Whether the full stop `c` (whose word UAX #29 keeps whole: letters on both sides) ends a
/// sentence typed without a space after it: `run` (≥ 2) letters before it, and after it, from
/// byte `next_at`, a last run of at least two letters that ends the word and is not one of
/// [`KEPT_SUFFIXES`]. Marks and format characters are transparent, as in UAX #29.
fn ends_sentence(input: &str, next_at: usize, run: usize, c: char) -> bool {
    // The full stop and the characters NFKC maps to it (one dot leader, small and full-width
    // full stops), so that the fast path and the NFKC path agree.
    if !matches!(c, '.' | '\u{2024}' | '\u{FE52}' | '\u{FF0E}') || run < 2 {
        return false;
    }
    let rest = &input[next_at..];
    let mut letters = 0usize;
    // The run's letters, lower-cased, while they could be one of KEPT_SUFFIXES (short ASCII).
    let (mut suffix, mut maybe_kept) = ([0u8; 8], true);
    let mut last = c;
    for (k, raw) in rest.char_indices() {
        let ch = fullwidth_to_ascii(raw);
        match classify(ch) {
            Class::Mark | Class::Ignore => continue,
            Class::Word | Class::Silent if is_letter(ch) => {
                match suffix.get_mut(letters) {
                    Some(b) if maybe_kept && ch.is_ascii() => *b = ch.to_ascii_lowercase() as u8,
                    _ => maybe_kept = false,
                }
                letters += 1;
            }
            // A digit or connector punctuation (`_`) continues the word: not a sentence end.
            Class::Word | Class::Silent => return false,
            Class::Joiner => {
                // The word goes on after another joiner (`www.python.org`): keep it whole.
                if joins_before(input, next_at + k + raw.len_utf8(), last, ch) {
                    return false;
                }
                break;
            }
            _ => break,
        }
        last = ch;
    }
    letters >= 2
        && !(maybe_kept && KEPT_SUFFIXES.iter().any(|k| k.as_bytes() == &suffix[..letters]))
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    Word,
    Spaceless,
    Mark,
    Joiner,
    /// Invisible format characters inside words (soft hyphen, zero-width (non-)joiner, word
    /// joiner, BOM): dropped without splitting the word, transparent to the joining rules.
    Ignore,
    /// Characters that belong to a word but are not written: connector punctuation (`_`) and the
    /// modifier-letter apostrophe U+02BC.
    Silent,
    Separator,
}

fn classify(c: char) -> Class {
    if c.is_ascii() {
        return if c.is_ascii_alphanumeric() {
            Class::Word
        } else if c == '_' {
            Class::Silent
        } else if is_joiner(c) {
            Class::Joiner
        } else {
            Class::Separator
        };
    }
    // Fast paths for the common scripts (which hold no joiner), before the joiners and the
    // general-category tables.
    match c as u32 {
        0x4E00..=0x9FFF | 0x3041..=0x3096 | 0x30A1..=0x30FA | 0x30FC..=0x30FF => {
            return Class::Spaceless;
        }
        0x0400..=0x0481 | 0x048A..=0x04FF | 0xAC00..=0xD7A3 => return Class::Word,
        0x00C0..=0x00D6 | 0x00D8..=0x00F6 | 0x00F8..=0x024F => return Class::Word,
        _ => {}
    }
    if is_joiner(c) {
        return Class::Joiner;
    }
    match c as u32 {
        0x00AD | 0x200C | 0x200D | 0x2060 | 0xFEFF => return Class::Ignore,
        // The Ukrainian apostrophe is a letter to UAX #29; dropping it keeps `мʼясо` = `мясо`.
        0x02BC => return Class::Silent,
        0x203F | 0x2040 | 0x2054 | 0xFE33 | 0xFE34 | 0xFE4D..=0xFE4F | 0xFF3F => {
            return Class::Silent;
        }
        0x2000..=0x206F | 0x3000..=0x3029 | 0x3030..=0x303F if !is_spaceless_script(c) => {
            return Class::Separator;
        }
        _ => {}
    }
    if is_spaceless_script(c) {
        return if c.general_category_group() == GeneralCategoryGroup::Mark {
            Class::Mark
        } else if c.is_alphanumeric() {
            Class::Spaceless
        } else {
            Class::Separator
        };
    }
    if c.is_alphanumeric() {
        Class::Word
    } else if c.general_category_group() == GeneralCategoryGroup::Mark {
        Class::Mark
    } else {
        Class::Separator
    }
}

/// `c.is_alphabetic()`, answered from ranges for the letters of the common scripts (ASCII,
/// Latin-1 and Latin Extended-A/B, Cyrillic, Hangul syllables) before the Unicode tables, whose
/// binary search cost a fifth of the normalization of Cyrillic text. A test checks every
/// character against `char::is_alphabetic`.
#[inline]
fn is_letter(c: char) -> bool {
    match c as u32 {
        0x41..=0x5A | 0x61..=0x7A => true,
        0x00..=0x7F => false,
        0x00C0..=0x00D6 | 0x00D8..=0x00F6 | 0x00F8..=0x024F => true,
        0x0400..=0x0481 | 0x048A..=0x04FF | 0xAC00..=0xD7A3 => true,
        _ => c.is_alphabetic(),
    }
}

/// `c.is_numeric()`, answered from ranges for the letters of the common scripts (as
/// [`is_letter`]) before the Unicode tables: a comma after each Cyrillic word asked the tables
/// (2% of a run on Russian and Ukrainian text). A test checks every character against
/// `char::is_numeric`.
#[inline]
fn is_number(c: char) -> bool {
    match c as u32 {
        0x30..=0x39 => true,
        0x00..=0x7F => false,
        0x00C0..=0x024F | 0x0400..=0x04FF | 0x3041..=0x30FF | 0x4E00..=0x9FFF | 0xAC00..=0xD7A3 => {
            false
        }
        _ => c.is_numeric(),
    }
}

/// The word-internal punctuation of UAX #29: MidLetter, MidNumLet, Single_Quote and MidNum.
/// After NFKC most of them are ASCII.
fn is_joiner(c: char) -> bool {
    is_mid_letter(c) || is_mid_num_let(c) || is_mid_num(c)
}

fn is_mid_letter(c: char) -> bool {
    matches!(
        c,
        ':' | '\u{B7}'
            | '\u{387}'
            | '\u{55F}'
            | '\u{5F4}'
            | '\u{2027}'
            | '\u{FE13}'
            | '\u{FE55}'
            | '\u{FF1A}'
    )
}

fn is_mid_num_let(c: char) -> bool {
    matches!(
        c,
        '\'' | '.' | '\u{2018}' | '\u{2019}' | '\u{2024}' | '\u{FE52}' | '\u{FF07}' | '\u{FF0E}'
    )
}

fn is_mid_num(c: char) -> bool {
    matches!(
        c,
        ',' | ';'
            | '\u{37E}'
            | '\u{589}'
            | '\u{60C}'
            | '\u{60D}'
            | '\u{66C}'
            | '\u{7F8}'
            | '\u{2044}'
            | '\u{FE10}'
            | '\u{FE14}'
            | '\u{FE50}'
            | '\u{FE54}'
            | '\u{FF0C}'
            | '\u{FF1B}'
    )
}

/// UAX #29 WB6/7 (letter–punctuation–letter) and WB11/12 (digit–punctuation–digit): the joiner
/// `c` keeps the word whole and is dropped.
fn joins_word(prev: char, c: char, next: char) -> bool {
    let letters = is_letter(prev) && is_letter(next);
    let digits = is_number(prev) && is_number(next);
    (letters && (is_mid_letter(c) || is_mid_num_let(c)))
        || (digits && (is_mid_num(c) || is_mid_num_let(c)))
}

/// Scripts written without spaces between words, whose characters are tokens of their own.
pub fn is_spaceless_script(c: char) -> bool {
    matches!(c as u32,
        0x0E00..=0x0EFF      // Thai, Lao
        | 0x0F00..=0x0FFF    // Tibetan
        | 0x1000..=0x109F    // Myanmar
        | 0x1780..=0x17FF    // Khmer
        | 0x19E0..=0x19FF    // Khmer symbols
        | 0x2E80..=0x2FDF    // CJK radicals, Kangxi radicals
        | 0x3005..=0x3007    // 々 〆 〇
        | 0x3021..=0x3029    // Hangzhou numerals
        | 0x3031..=0x3035    // kana repeat marks
        | 0x3038..=0x303C
        | 0x3040..=0x30FF    // Hiragana, Katakana
        | 0x31F0..=0x31FF    // Katakana phonetic extensions
        | 0x3400..=0x4DBF    // CJK extension A
        | 0x4E00..=0x9FFF    // CJK unified ideographs
        | 0xA9E0..=0xA9FF    // Myanmar extended-B
        | 0xAA60..=0xAA7F    // Myanmar extended-A
        | 0xF900..=0xFAFF    // CJK compatibility ideographs
        | 0xFF66..=0xFF9F    // half-width Katakana (NFKC maps most of them away)
        | 0x1B000..=0x1B16F  // Kana supplement and extensions
        | 0x20000..=0x3134F  // CJK extensions B..G, compatibility supplement
    )
}

fn push_folded(b: &mut Builder<'_>, c: char) {
    fold_into(&mut b.buf, c);
}

/// The lower case of a basic Cyrillic letter U+0400..=U+045F (А..Я → а..я, Ѐ..Џ → ѐ..џ, lower
/// case letters as they are); `None` for any other code point. The one copy of the rule, for
/// [`fold_into`], the scanner's Cyrillic run and the word fast lane.
#[inline]
fn basic_cyrillic_lower(u: u32) -> Option<u32> {
    match u {
        0x0430..=0x045F => Some(u),
        0x0410..=0x042F => Some(u + 0x20),
        0x0400..=0x040F => Some(u + 0x50),
        _ => None,
    }
}

/// The code point of the two-byte UTF-8 sequence `lead`, `cont`.
#[inline]
pub(crate) fn two_byte(lead: u8, cont: u8) -> u32 {
    (u32::from(lead & 0x1F) << 6) | u32::from(cont & 0x3F)
}

/// Appends the case fold of `c` to `out`.
fn fold_into(out: &mut String, c: char) {
    let u = c as u32;
    let lower = match u {
        0x00..=0x7F => c.to_ascii_lowercase(),
        0x0400..=0x045F => basic_cyrillic_lower(u).and_then(char::from_u32).unwrap_or(c),
        // Latin-1 capitals À..Þ (but ×) → à..þ.
        0x00C0..=0x00D6 | 0x00D8..=0x00DE => char::from_u32(u + 0x20).unwrap_or(c),
        0x00E0..=0x00FF => c,
        // Scripts without case.
        0x3040..=0x30FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xAC00..=0xD7A3 => c,
        _ => {
            match c {
                'ß' | 'ẞ' => out.push_str("ss"),
                'ς' => out.push('σ'),
                _ => out.extend(c.to_lowercase()),
            }
            return;
        }
    };
    out.push(lower);
}

#[cfg(test)]
mod tests {
    use super::*;
    use unicode_properties::GeneralCategory;

    fn toks(s: &str) -> Vec<String> {
        normalize(s).token_strs().map(str::to_owned).collect()
    }

    #[test]
    fn ascii_folds_case_punctuation_and_whitespace() {
        let n = normalize("  Hello,\tWORLD!! It's  3.14 -- or 1,000 ... end. ");
        assert_eq!(n.text, "hello world its 314 or 1000 end");
        assert_eq!(n.len(), 7);
    }

    #[test]
    fn ascii_and_unicode_joiners_behave_alike() {
        assert_eq!(
            toks("Don't stop: 2.5, 3 'quoted' x.y a,b  end."),
            toks("Don’t stop: 2.5, 3 ‘quoted’ x.y a,b  end.")
        );
        assert_eq!(
            toks("Don't stop: 2.5, 3 'quoted' x.y a,b  end."),
            ["dont", "stop", "25", "3", "quoted", "xy", "a", "b", "end"]
        );
    }

    #[test]
    fn nfkc_and_case_folding() {
        // Full-width letters, the fi ligature, a decomposed é, German sharp s, final sigma.
        assert_eq!(
            normalize("ＡＢＣ ﬁne Cafe\u{301} Straße ΟΔΟΣ").text,
            "abc fine café strasse οδοσ"
        );
        assert_eq!(normalize("Café").text, normalize("CAFE\u{301}").text);
    }

    #[test]
    fn cyrillic_and_apostrophes() {
        assert_eq!(toks("М'ясо — це «ДОБРЕ»!"), ["мясо", "це", "добре"]);
        assert_eq!(toks("Поиск дубликатов в Web"), ["поиск", "дубликатов", "в", "web"]);
    }

    #[test]
    fn cjk_characters_are_tokens_without_spaces_between() {
        let n = normalize("重複文書を検出する。Web ページ");
        assert_eq!(n.text, "重複文書を検出する web ページ");
        assert_eq!(
            n.token_strs().collect::<Vec<_>>(),
            ["重", "複", "文", "書", "を", "検", "出", "す", "る", "web", "ペ", "ー", "ジ"]
        );
    }

    #[test]
    fn dictionary_segmentation_finds_words_in_chinese_and_japanese() {
        let mut n = NormalizedText::default();
        normalize_with(
            "重复文档检测是搜索引擎的问题 and Web ページ",
            &mut n,
            Segmentation::Dictionary,
        );
        let toks: Vec<&str> = n.token_strs().collect();
        assert!(toks.contains(&"搜索") || toks.contains(&"搜索引擎"), "{toks:?}");
        assert!(toks.contains(&"and") && toks.contains(&"web"), "{toks:?}");
        // Fewer, longer tokens than characters; the text itself is unchanged.
        assert!(toks.len() < normalize("重复文档检测是搜索引擎的问题 and Web ページ").len());
        assert_eq!(n.text, normalize("重复文档检测是搜索引擎的问题 and Web ページ").text);
        normalize_with("こんにちは世界", &mut n, Segmentation::Dictionary);
        assert_eq!(n.token_strs().collect::<Vec<_>>(), ["こんにちは", "世界"]);
        // Without space-less text it is the plain tokenization.
        normalize_with("Plain text, no CJK.", &mut n, Segmentation::Dictionary);
        assert_eq!(n, normalize("Plain text, no CJK."));
    }

    #[test]
    fn thai_marks_stay_with_their_consonant() {
        // "ภาษาไทย": consonants and vowels; U+0E32 is a letter, U+0E31 (mai han-akat) a mark.
        let n = normalize("สวัสดี");
        assert_eq!(n.token_strs().collect::<Vec<_>>(), ["ส", "วั", "ส", "ดี"]);
        assert_eq!(n.text, "สวัสดี");
    }

    #[test]
    fn devanagari_marks_stay_in_words() {
        assert_eq!(toks("नमस्ते दुनिया"), ["नमस्ते", "दुनिया"]);
    }

    /// Regression: a sentence typed without a space after its full stop was
    /// one token with the next sentence's first word, so an essay and its copy with the spaces
    /// put back shared few word shingles. Now both tokenize alike, in every script and case;
    /// abbreviations, numbers, host names and file names stay whole.
    #[test]
    fn a_full_stop_without_a_space_ends_a_sentence() {
        for (joined, spaced) in [
            ("Це речення.Наступне речення", "Це речення. Наступне речення"),
            ("Это конец.Начало нового", "Это конец. Начало нового"),
            ("the end.Next one", "the end. Next one"),
            ("the end.next one", "the end. next one"),
            ("THE END.NEXT ONE", "the end. next one"),
            ("τέλος.Αρχή", "τέλος. Αρχή"),
            ("վերջ.Սկիզբ", "վերջ. Սկիզբ"),
            ("a sentence.Речення", "a sentence. Речення"),
        ] {
            assert_eq!(toks(joined), toks(spaced), "{joined}");
        }
        for (whole, token) in [
            ("e.g.", "eg"),
            ("U.S.A.", "usa"),
            ("т.е.", "те"),
            ("3.14", "314"),
            ("example.com", "examplecom"),
            ("EXAMPLE.COM", "examplecom"),
            ("www.python.org", "wwwpythonorg"),
            ("README.md", "readmemd"),
            ("setup.py", "setuppy"),
            ("numpy.linalg.norm", "numpylinalg"),
        ] {
            assert_eq!(toks(whole)[0], token, "{whole}");
        }
        // Word 5-shingles of an essay without spaces after its full stops and of the same essay
        // with them: identical (0.59 Jaccard on a real essay before the full stop split them).
        let spaced = "Я прокинувся рано. Сонце вже світило у вікно. Ми пішли до парку. \
                      Там було тихо і спокійно. Діти гралися біля ставка. Увечері ми повернулися.";
        let joined = spaced.replace(". ", ".");
        let sh = crate::shingles::Shingler::new(crate::shingles::ShingleKind::Words(5), 1);
        assert_eq!(sh.shingle_set(&joined), sh.shingle_set(spaced));
    }

    /// Whether UAX #29 looks through `c` when it looks at a word's neighbours (WB4).
    fn transparent(c: char) -> bool {
        c.general_category() == GeneralCategory::Format
            || c.general_category_group() == GeneralCategoryGroup::Mark
    }

    /// A UAX #29 word cut at its sentence-end full stops, written out on the word's own
    /// characters: at least two letters before the full stop (back to the previous non-letter),
    /// and after it only letters to the end of the word, at least two, not a kept suffix. Marks
    /// right after a cut belong to the full stop (WB4) and go with it.
    fn split_sentences(w: &str) -> Vec<String> {
        let chars: Vec<char> = w.chars().collect();
        let mut parts = vec![String::new()];
        let mut after_cut = false;
        for (k, &c) in chars.iter().enumerate() {
            let before = chars[..k]
                .iter()
                .rev()
                .filter(|&&p| !transparent(p))
                .take_while(|p| p.is_alphabetic())
                .count();
            let after: Vec<char> =
                chars[k + 1..].iter().copied().filter(|&n| !transparent(n)).collect();
            let suffix: String = after
                .iter()
                .map(|x| if x.is_ascii() { x.to_ascii_lowercase() } else { '\u{0}' })
                .collect();
            let cut = c == '.'
                && before >= 2
                && after.len() >= 2
                && after.iter().all(|x| x.is_alphabetic())
                && !KEPT_SUFFIXES.contains(&suffix.as_str());
            if cut {
                parts.push(String::new());
                after_cut = true;
            } else if after_cut && transparent(c) {
                // Marks after the full stop are its own (WB4), dropped with it.
            } else if let Some(last) = parts.last_mut() {
                after_cut = false;
                last.push(c);
            }
        }
        parts
    }

    /// The slow reference: NFKC, UAX #29 words (unicode-segmentation) cut at sentence ends, then
    /// the same folding, keeping only the letters, digits and marks of each word.
    fn reference_tokens(s: &str) -> Vec<String> {
        use unicode_segmentation::UnicodeSegmentation;
        let nfkc: String = s.nfkc().collect();
        nfkc.unicode_words()
            .flat_map(split_sentences)
            .map(|w| {
                w.chars()
                    .filter(|&c| {
                        c != '\u{2BC}'
                            && (c.is_alphanumeric()
                                || c.general_category_group() == GeneralCategoryGroup::Mark)
                    })
                    .flat_map(|c| match c {
                        'ß' => vec!['s', 's'],
                        'ς' => vec!['σ'],
                        _ => c.to_lowercase().collect(),
                    })
                    .collect::<String>()
            })
            .filter(|w| !w.is_empty())
            .collect()
    }

    proptest::proptest! {
        #[test]
        fn tokens_match_unicode_word_boundaries(chars in proptest::collection::vec(proptest::sample::select(vec![
            'a', 'b', 'Z', 'é', 'ж', 'Ж', 'ß', 'ς', 'Σ', '1', '2', '０', 'ﬁ', ' ', ' ', '\n', '\u{A0}',
            '.', ',', '\'', ':', ';', '_', '-', '!', '(', '’', '‘', '\u{AD}', '\u{2BC}', '…', '/',
            '．', '\u{2024}',
        ]), 0..40)) {
            let s: String = chars.into_iter().collect();
            let ours: Vec<String> = normalize(&s).token_strs().map(str::to_owned).collect();
            proptest::prop_assert_eq!(ours, reference_tokens(&s), "input {:?}", s);
        }

        /// Dense in full stops and short runs of letters, to reach sentence ends and kept
        /// suffixes (`co`, `md`, `io` are in the list).
        #[test]
        fn sentence_ends_match_the_reference(chars in proptest::collection::vec(proptest::sample::select(vec![
            'c', 'o', 'M', 'd', 'I', 'ж', 'Ж', '1', '.', '.', '.', '．', '\'', ' ', '/', '\u{AD}', '\u{301}',
        ]), 0..24)) {
            let s: String = chars.into_iter().collect();
            let ours: Vec<String> = normalize(&s).token_strs().map(str::to_owned).collect();
            proptest::prop_assert_eq!(ours, reference_tokens(&s), "input {:?}", s);
        }

        /// Case never changes the tokens beyond folding: an upper-cased or lower-cased copy
        /// normalizes to the same text.
        #[test]
        fn normalization_is_case_invariant(chars in proptest::collection::vec(proptest::sample::select(vec![
            'a', 'b', 'Z', 'ж', 'Ж', 'ǅ', 'σ', 'Σ', '1', '.', '.', '．', '\'', ' ', '_', '\u{301}',
        ]), 0..30)) {
            let s: String = chars.into_iter().collect();
            let text = normalize(&s).text;
            proptest::prop_assert_eq!(normalize(&s.to_uppercase()).text, text.clone(), "upper {:?}", s);
            proptest::prop_assert_eq!(normalize(&s.to_lowercase()).text, text, "lower {:?}", s);
        }
    }

    #[test]
    fn invisible_format_characters_do_not_split_words() {
        assert_eq!(toks("docu\u{AD}ment zero\u{200B}width"), ["document", "zero", "width"]);
        assert_eq!(toks("\u{FEFF}Начало"), ["начало"]);
    }

    #[test]
    fn fast_paths_agree_with_the_generic_unicode_functions() {
        // Every character of the fast-path ranges is classified and lower-cased as the generic
        // tables say, and is NFKC-stable where the scanner assumes so.
        let ranges = [
            0x00A0..0x0250u32,
            0x0370..0x0400,
            0x0400..0x0500,
            0x05D0..0x05EB,
            0x0620..0x066A,
            0x2190..0x2200,
            0x2500..0x27C0,
            0x3000..0x3100,
            0x4E00..0x9FFF,
            0xAC00..0xD7A4,
        ];
        for r in ranges {
            for c in r.filter_map(char::from_u32) {
                let mut fast = String::new();
                fold_into(&mut fast, c);
                let slow: String = match c {
                    'ß' => "ss".into(),
                    'ς' => "σ".into(),
                    _ => c.to_lowercase().collect(),
                };
                assert_eq!(fast, slow, "lower-casing U+{:04X}", c as u32);
                let generic = if c.is_alphanumeric() {
                    if is_spaceless_script(c) { Class::Spaceless } else { Class::Word }
                } else if c.general_category_group() == GeneralCategoryGroup::Mark {
                    Class::Mark
                } else {
                    Class::Separator
                };
                let ignored = matches!(classify(c), Class::Ignore | Class::Silent) || is_joiner(c);
                assert!(classify(c) == generic || ignored, "class of U+{:04X}", c as u32);
                let separator_forms = matches!(c as u32, 0xA0 | 0x2000..=0x206F | 0x3000);
                if nfkc_stable(c) && !separator_forms {
                    assert_eq!(
                        is_nfkc_quick(std::iter::once(c)),
                        IsNormalized::Yes,
                        "U+{:04X} is not NFKC-stable",
                        c as u32
                    );
                }
            }
        }
    }

    #[test]
    fn is_number_is_is_numeric_for_every_character() {
        for c in (0..=0x10FFFFu32).filter_map(char::from_u32) {
            assert_eq!(is_number(c), c.is_numeric(), "U+{:04X}", c as u32);
        }
    }

    #[test]
    fn is_letter_is_is_alphabetic_for_every_character() {
        for c in (0..=0x10FFFFu32).filter_map(char::from_u32) {
            assert_eq!(is_letter(c), c.is_alphabetic(), "U+{:04X}", c as u32);
        }
    }

    #[test]
    fn fullwidth_ascii_is_mapped_like_nfkc() {
        for u in 0xFF01..=0xFF5Eu32 {
            let c = char::from_u32(u).unwrap();
            let nfkc: String = c.to_string().nfkc().collect();
            assert_eq!(fullwidth_to_ascii(c).to_string(), nfkc);
        }
        let s = "重複，ＷＥＢ１，０００ページ。";
        let nfkc: String = s.nfkc().collect();
        assert_eq!(normalize(s), normalize(&nfkc));
        assert_eq!(normalize(s).text, "重複 web1000 ページ");
    }

    #[test]
    fn the_cjk_fast_path_holds_only_stable_caseless_spaceless_letters() {
        for c in (0x3000..0xA000u32).filter(|&u| is_cjk_fast(u)).filter_map(char::from_u32) {
            let u = c as u32;
            assert_eq!(c.len_utf8(), 3, "U+{u:04X}");
            assert!(matches!(c.to_string().as_bytes()[0], 0xE3..=0xE9), "U+{u:04X}");
            assert!(nfkc_stable(c), "U+{u:04X}");
            assert_eq!(is_nfkc_quick(std::iter::once(c)), IsNormalized::Yes, "U+{u:04X}");
            assert!(classify(c) == Class::Spaceless && is_letter(c), "U+{u:04X}");
            let mut folded = String::new();
            fold_into(&mut folded, c);
            assert_eq!(folded, c.to_string(), "U+{u:04X}");
        }
        // Katakana U+30FF (NFKC: コト) is not on the fast path.
        assert!(!is_cjk_fast(0x30FF));
        assert_eq!(normalize("ヿ").text, "コト");
    }

    /// The old way, kept as the reference: NFKC of the whole text, then the scan.
    fn whole_text_nfkc(s: &str) -> NormalizedText {
        let composed: String = s.nfkc().collect();
        let mut out = NormalizedText::default();
        let mut scanner = Scanner::new(&mut out, composed.len());
        assert!(scanner.scan::<false>(&composed, 0).is_none());
        scanner.builder.finish();
        out
    }

    proptest::proptest! {
        /// Pieces normalized one at a time (between ASCII whitespace) give what the NFKC of the
        /// whole text gives, with characters NFKC changes (™ № ½ ² ﬁ, full-width and half-width
        /// forms, a combining acute after a space or a letter, compatibility ideographs), ones
        /// outside the scanner's stable list that NFKC leaves alone (々, Greek with tonos),
        /// joiners and sentence ends next to them, and every kind of whitespace.
        #[test]
        fn nfkc_by_pieces_equals_nfkc_of_the_whole_text(chars in proptest::collection::vec(proptest::sample::select(vec![
            'a', 'B', 'e', 'z', '1', '7', '.', ',', '\'', ':', '_', '-', '(', ' ', ' ', ' ', '\n', '\t', '\r',
            '\u{a0}', '\u{2003}', '\u{3000}', '™', '№', '…', '½', '²', 'ﬁ', 'é', '\u{301}', 'Ａ', '１', '．',
            'ｶ', '\u{ff9e}', '\u{f900}', 'ß', 'Σ', 'ς', 'ά', 'м', 'Я', 'і', '’', 'ʼ', '重', 'を', 'カ',
            '々', 'ヿ', '\u{3099}', '\u{ad}', '\u{200d}', 'ก', '\u{e34}',
        ]), 0..40)) {
            let s: String = chars.into_iter().collect();
            let ours = normalize(&s);
            let reference = whole_text_nfkc(&s);
            proptest::prop_assert_eq!(&ours.text, &reference.text, "input {:?}", s);
            proptest::prop_assert_eq!(&ours.tokens, &reference.tokens, "input {:?}", s);
        }
    }

    /// The scanner alone, without its word fast lane: the reference for the lane.
    fn scanner_only(s: &str) -> NormalizedText {
        let mut out = NormalizedText::default();
        scan_all(s, &mut out, false);
        out
    }

    proptest::proptest! {
        /// The word fast lane and the copy of CJK runs write what the scanner writes one
        /// character at a time, on text of the lane's kind (ASCII and Cyrillic words,
        /// separators, joiners before and after letters, digits and separators) and CJK runs
        /// (with marks after them), mixed with everything the lane leaves to the scanner: `_`,
        /// letters outside basic Cyrillic, marks, format characters, text that needs NFKC,
        /// sentence ends and kept suffixes, whitespace of every kind, the end of the text.
        #[test]
        fn word_fast_lane_equals_the_scanner_alone(words in proptest::collection::vec(proptest::sample::select(vec![
            "the", "Word", "A", "x1", "42", "3.14", "1,000", "don't", "e.g.", "end.Next", "README.md",
            "Eightchr", "INTERNATIONALIZATION", "Zz09Zz09Zz09Zz0", "sixteen7SIXTEEN7", "foo_bar", "дом", "ДОМ", "Ёлка", "Ѐѐ", "ѓ", "ґанок", "м'ясо", "речення.Наступне", "café",
            "naïve", "е\u{301}", "ﬁn", "Ｗ", "™", "重複", "ｶﾞ", "\u{AD}", "\u{200B}", "ß", "Σας",
            "を", "カタカナ", "検出", "\u{3099}", "、", "。", "ヿ", "々", "한국어",
            " ", " ", " ", "  ", "\n", "\t", "\r\n", "\u{0B}", "\u{0C}", "\u{A0}", "\u{3000}",
            ",", ".", "'", ":", ";", "...", "-", "(", ")", "!", "?", "\"", "«", "»", "—", "/", "\u{7F}",
        ]), 0..60)) {
            let s: String = words.concat();
            let fast = normalize(&s);
            let reference = scanner_only(&s);
            proptest::prop_assert_eq!(&fast.text, &reference.text, "input {:?}", s);
            proptest::prop_assert_eq!(&fast.tokens, &reference.tokens, "input {:?}", s);
        }
    }

    #[test]
    fn ascii_word_prefix_agrees_with_the_bytes_one_at_a_time() {
        let check = |eight: [u8; 8]| {
            let (len, capitals) = ascii_word_prefix(u64::from_le_bytes(eight));
            let run = eight.iter().take_while(|x| x.is_ascii_alphanumeric()).count();
            assert_eq!(len, run, "{eight:?}");
            assert_eq!(capitals, eight[..run].iter().any(u8::is_ascii_uppercase), "{eight:?}");
        };
        // Every byte value at every position, among letters of one case and of the other, then
        // random bytes, many of them at the ranges' edges.
        let edges = [
            0x00, 0x2F, 0x30, 0x39, 0x3A, 0x40, 0x41, 0x5A, 0x5B, 0x60, 0x61, 0x7A, 0x7B, 0x7F,
            0x80, 0xC1, 0xD0, 0xFF,
        ];
        super::super::swar::for_each_test_word(&[*b"abcdefgh", *b"aBcDeFgH"], &edges, check);
    }

    #[test]
    fn word_fast_lane_keeps_only_whole_words_before_what_it_leaves() {
        // Each input has the lane stop inside a word: the scanner redoes that word alone.
        for s in [
            "plain words then café and more",
            "Слова и м'ясо, и ещё",
            "a b c foo_bar d",
            "one two end.Next three",
            "x y 3.14 z",
            "trailing joiner.",
            "Ѐ ѐ Ё ё Я я ѓ ґ",
        ] {
            assert_eq!(normalize(s), scanner_only(s), "{s:?}");
        }
        assert_eq!(normalize("Hello, World! Привет, МИР.").text, "hello world привет мир");
    }

    #[test]
    fn only_the_piece_that_needs_nfkc_is_normalized_again() {
        // The text around a piece that needs NFKC is kept as the fast scan made it; the piece is
        // normalized between the whitespace before and after it.
        let s = "Alpha beta.Gamma x™y ДОМ\u{2116}5 重複 ｶﾞ end";
        let n = normalize(s);
        assert_eq!(n, whole_text_nfkc(s));
        assert_eq!(n.text, "alpha beta gamma xtmy домno5 重複ガ end");
        // Long runs without whitespace: one piece from the start to the end.
        let long = "重複文書".repeat(1000) + "™" + &"検出".repeat(1000);
        assert_eq!(normalize(&long), whole_text_nfkc(&long));
    }

    #[test]
    fn text_needing_nfkc_outside_the_fast_ranges_is_normalized() {
        // Full-width Latin and the compatibility ideograph U+F900 appear after stable Cyrillic.
        assert_eq!(normalize("Дом ＷＥＢ").text, "дом web");
        assert_eq!(normalize("Дом \u{F900}").text, normalize("Дом \u{8C48}").text);
    }

    #[test]
    fn empty_and_punctuation_only_texts_have_no_tokens() {
        assert!(normalize("").is_empty());
        assert!(normalize(" ...!!! — «» ").is_empty());
        assert_eq!(normalize(" ...!!! — «» ").text, "");
    }

    #[test]
    fn reuse_clears_previous_content() {
        let mut n = NormalizedText::default();
        normalize_into("one two", &mut n);
        normalize_into("three", &mut n);
        assert_eq!(n.text, "three");
        assert_eq!(n.tokens, vec![(0, 5)]);
    }
}
