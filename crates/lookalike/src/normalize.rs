//! Text normalization and tokenization. Contract: "give me any Unicode text, I give you one
//! canonical string of lower-case tokens and the byte span of every token in it".
//!
//! The steps, in one pass over the characters:
//!
//! 1. **NFKC** (compatibility composition): full-width forms, ligatures, super/subscripts and
//!    composed/decomposed accents all become one form. Skipped when the text is ASCII or already
//!    passes the NFKC quick check, which is almost always.
//! 2. **Case folding**: Unicode lower-casing plus the two full-folding differences that matter in
//!    practice (`ß`/`ẞ` → `ss`, final sigma `ς` → `σ`).
//! 3. **Punctuation and whitespace folding**: every character that is neither a letter, a number
//!    nor a combining mark separates tokens and is dropped. Following the joining rules of Unicode
//!    word boundaries (UAX #29, WB6/7 and WB11/12), an apostrophe between two letters
//!    (`don't`, `м'ясо`) and a `.` or `,` between two digits (`3.14`, `1,000`) do not split the
//!    word; they are dropped and the word is kept whole (`dont`, `мясо`, `314`, `1000`).
//! 4. **Tokens**: runs of letters, digits and marks are tokens, separated by one space in the
//!    output. Scripts written without spaces (Han, Hiragana, Katakana, Thai, Lao, Khmer, Myanmar,
//!    Tibetan) have no word separators to find, so each of their characters (with its combining
//!    marks) is a token of its own, and consecutive such tokens are written without a space: word
//!    shingles over such text are character n-grams, which is what makes them meaningful there.
//!
//! The result is a [`NormalizedText`]: the canonical string (whose fingerprint identifies
//! full-content copies, see [`crate::exact`]) and its token spans (the input of word shingles).

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

/// Normalizes `input` into a new [`NormalizedText`].
pub fn normalize(input: &str) -> NormalizedText {
    let mut out = NormalizedText::default();
    normalize_into(input, &mut out);
    out
}

/// Normalizes `input` into `out` (cleared first). See the module docs for the rules.
pub fn normalize_into(input: &str, out: &mut NormalizedText) {
    out.clear();
    if input.is_ascii() {
        normalize_ascii(input.as_bytes(), out);
        return;
    }
    // Most text is already in NFKC. The scanner checks that on the fly for the common scripts and
    // asks for the full quick check only when it meets a character outside them.
    if normalize_chars(input, out, true).is_err() {
        let composed: String = input.nfkc().collect();
        out.clear();
        let _ = normalize_chars(&composed, out, false);
    }
}

/// The text is not in NFKC and must be normalized first.
struct NeedsNfkc;

/// Characters known to be unchanged by NFKC (quick check "Yes", combining class 0), covering the
/// bulk of Latin, Cyrillic, CJK and Korean text, so that such text needs no separate check pass.
/// General punctuation (U+2000–U+206F) is included although a few of its characters have
/// compatibility forms (`…` → `...`, `‼` → `!!`): they are separators before and after NFKC.
fn nfkc_stable(c: char) -> bool {
    matches!(c as u32,
        0x00C0..=0x00FF
        | 0x0100..=0x0131 | 0x0134..=0x013E | 0x0141..=0x0148 | 0x014A..=0x017E
        | 0x0400..=0x0482 | 0x048A..=0x04FF
        | 0x2000..=0x206F
        | 0x3001..=0x3003 | 0x3008..=0x3011 | 0x3014..=0x301F
        | 0x3041..=0x3096 | 0x30A1..=0x30FA | 0x30FC..=0x30FE
        | 0x3400..=0x4DBF | 0x4E00..=0x9FFF
        | 0xAC00..=0xD7A3
    )
}

/// Token state shared by the ASCII and the Unicode scanners.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Open {
    /// No token is open.
    None,
    /// A word token is open (letters, digits, marks).
    Word,
    /// A single-character token of a script without spaces is open (it may take marks).
    Spaceless,
}

struct Builder<'a> {
    out: &'a mut NormalizedText,
    open: Open,
    start: usize,
    /// Kind of the last closed or open token, to decide whether a space precedes the next one.
    last: Open,
}

impl<'a> Builder<'a> {
    fn new(out: &'a mut NormalizedText) -> Self {
        Builder { out, open: Open::None, start: 0, last: Open::None }
    }

    fn close(&mut self) {
        if self.open != Open::None {
            let end = self.out.text.len();
            self.out.tokens.push((self.start as u32, end as u32));
            self.last = self.open;
            self.open = Open::None;
        }
    }

    fn open(&mut self, kind: Open) {
        self.close();
        let glue = kind == Open::Spaceless && self.last == Open::Spaceless;
        if self.last != Open::None && !glue {
            self.out.text.push(' ');
        }
        self.start = self.out.text.len();
        self.open = kind;
    }
}

fn normalize_ascii(bytes: &[u8], out: &mut NormalizedText) {
    out.text.reserve(bytes.len());
    let mut b = Builder::new(out);
    let n = bytes.len();
    let mut i = 0;
    while i < n {
        let c = bytes[i];
        if c.is_ascii_alphanumeric() {
            if b.open != Open::Word {
                b.open(Open::Word);
            }
            b.out.text.push(c.to_ascii_lowercase() as char);
        } else if b.open == Open::Word
            && i + 1 < n
            && is_ascii_joiner(bytes[i - 1], c, bytes[i + 1])
        {
            // Dropped joiner inside a word: keep the word open.
        } else {
            b.close();
        }
        i += 1;
    }
    b.close();
}

fn is_ascii_joiner(prev: u8, c: u8, next: u8) -> bool {
    match c {
        b'\'' => prev.is_ascii_alphabetic() && next.is_ascii_alphabetic(),
        b'.' | b',' => prev.is_ascii_digit() && next.is_ascii_digit(),
        _ => false,
    }
}

fn normalize_chars(input: &str, out: &mut NormalizedText, check: bool) -> Result<(), NeedsNfkc> {
    out.text.reserve(input.len());
    let mut checked = !check;
    let mut b = Builder::new(out);
    let mut chars = input.chars().peekable();
    let mut prev: char = ' ';
    while let Some(c) = chars.next() {
        if !checked && !c.is_ascii() && !nfkc_stable(c) {
            if is_nfkc_quick(input.chars()) != IsNormalized::Yes {
                return Err(NeedsNfkc);
            }
            checked = true;
        }
        match classify(c) {
            Class::Word => {
                if b.open != Open::Word {
                    b.open(Open::Word);
                }
                push_folded(&mut b.out.text, c);
            }
            Class::Spaceless => {
                b.open(Open::Spaceless);
                push_folded(&mut b.out.text, c);
            }
            Class::Mark => {
                // A combining mark belongs to the open token (a word, or a Thai/Devanagari
                // syllable); a stray mark with nothing to attach to is dropped.
                if b.open != Open::None {
                    b.out.text.push(c);
                }
            }
            Class::Joiner => {
                let next = chars.peek().copied();
                let joins = b.open == Open::Word
                    && next.is_some_and(|n| joins_word(prev, c, n) && classify(n) == Class::Word);
                if !joins {
                    b.close();
                }
            }
            Class::Ignore => continue,
            Class::Separator => b.close(),
        }
        prev = c;
    }
    b.close();
    Ok(())
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    Word,
    Spaceless,
    Mark,
    Joiner,
    /// Invisible format characters inside words (soft hyphen, zero-width (non-)joiner, word
    /// joiner, BOM): dropped without splitting the word.
    Ignore,
    Separator,
}

fn classify(c: char) -> Class {
    if c.is_ascii() {
        return if c.is_ascii_alphanumeric() {
            Class::Word
        } else if matches!(c, '\'' | '.' | ',') {
            Class::Joiner
        } else {
            Class::Separator
        };
    }
    // Fast paths for the common scripts, before the general-category tables.
    match c as u32 {
        0x4E00..=0x9FFF | 0x3041..=0x3096 | 0x30A1..=0x30FA | 0x30FC..=0x30FF => {
            return Class::Spaceless;
        }
        0x0400..=0x0481 | 0x048A..=0x04FF | 0xAC00..=0xD7A3 => return Class::Word,
        0x00C0..=0x00D6 | 0x00D8..=0x00F6 | 0x00F8..=0x024F => return Class::Word,
        0x00AD | 0x200C | 0x200D | 0x2060 | 0xFEFF => return Class::Ignore,
        0x2019 | 0x02BC => return Class::Joiner,
        0x2000..=0x206F | 0x3000..=0x303F if !is_spaceless_script(c) => return Class::Separator,
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

fn joins_word(prev: char, c: char, next: char) -> bool {
    match c {
        '\'' | '\u{2019}' | '\u{02BC}' => prev.is_alphabetic() && next.is_alphabetic(),
        '.' | ',' => prev.is_numeric() && next.is_numeric(),
        _ => false,
    }
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

fn push_folded(out: &mut String, c: char) {
    let u = c as u32;
    let lower = match u {
        0x00..=0x7F => c.to_ascii_lowercase(),
        // Cyrillic capitals: А..Я → а..я, Ѐ..Џ → ѐ..џ; lower case letters as they are.
        0x0410..=0x042F => char::from_u32(u + 0x20).unwrap_or(c),
        0x0400..=0x040F => char::from_u32(u + 0x50).unwrap_or(c),
        0x0430..=0x045F => c,
        // Latin-1 capitals À..Þ (but ×) → à..þ.
        0x00C0..=0x00D6 | 0x00D8..=0x00DE => char::from_u32(u + 0x20).unwrap_or(c),
        0x00E0..=0x00FF if u != 0x00DF => c,
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
    fn unicode_path_agrees_with_ascii_path_on_ascii_text() {
        let s = "Don't stop: 2.5, 3 'quoted' x.y a,b  end.";
        let mut a = NormalizedText::default();
        normalize_ascii(s.as_bytes(), &mut a);
        let mut u = NormalizedText::default();
        assert!(normalize_chars(s, &mut u, true).is_ok());
        assert_eq!(a, u);
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

    #[test]
    fn invisible_format_characters_do_not_split_words() {
        assert_eq!(toks("docu\u{AD}ment zero\u{200B}width"), ["document", "zero", "width"]);
        assert_eq!(toks("\u{FEFF}Начало"), ["начало"]);
    }

    #[test]
    fn fast_paths_agree_with_the_generic_unicode_functions() {
        // Every character of the fast-path ranges is classified and lower-cased as the generic
        // tables say, and is NFKC-stable where the scanner assumes so.
        let ranges =
            [0x00C0..0x0250u32, 0x0400..0x0500, 0x3040..0x3100, 0x4E00..0x9FFF, 0xAC00..0xD7A4];
        for r in ranges {
            for c in r.filter_map(char::from_u32) {
                let mut fast = String::new();
                push_folded(&mut fast, c);
                let slow: String = match c {
                    'ß' => "ss".into(),
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
                assert!(classify(c) == generic, "class of U+{:04X}", c as u32);
                if nfkc_stable(c) && !(0x2000..=0x206F).contains(&(c as u32)) {
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
