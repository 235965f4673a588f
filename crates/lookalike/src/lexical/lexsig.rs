//! TF*RIDF and long-sentence signatures. Contract: "give me a document (its term counts and
//! collection statistics, or its original text), I give you one 64-bit signature; documents with
//! equal signatures are near-duplicate candidates".
//!
//! The two signatures Zelenkov & Segalovich propose in "Сравнительный анализ методов определения
//! нечетких дубликатов для Web-документов" (RCDL 2007):
//!
//! - **TF*RIDF**: the `words` (default 6) terms of the document with the highest tf · RIDF,
//!   sorted, hashed. tf is the term's count in the document; RIDF is the residual IDF of the
//!   collection ([`crate::lexical::collection::TermStats::ridf`]), which favours content words that
//!   cluster in few documents over both function words and hapaxes. Any normalization of tf by
//!   a per-document constant (length, maximum tf) leaves the ranking unchanged, so raw counts
//!   are used. Ties are broken by term hash so the choice is deterministic; the terms are sorted
//!   by hash, which identifies the set as well as the paper's alphabetical order.
//! - **Long sentences**: the `sentences` (default 2) longest sentences of the *original* text,
//!   length measured in normalized tokens ([`crate::text::normalize`]; one token per character in
//!   Chinese and Japanese), ties broken by position; each sentence's normalized token sequence
//!   is hashed, and the signature is the hash of those hashes sorted. It needs no collection
//!   statistics.
//!
//! The sentence splitter ([`sentence_spans`]) is a small rule set that works without
//! dictionaries for English, Russian, Ukrainian, Chinese and Japanese:
//!
//! - a sentence ends at a run of `.` `!` `?` `…` `‼` `⁇` `⁈` `⁉` (with any closing quotes and
//!   brackets after them) followed by white space or the end of the text, or directly by a
//!   Chinese or Japanese character;
//! - and at `。` `！` `？` `｡`, spaces or not, unless a closing bracket follows and the text goes
//!   on in hiragana (a particle: `「本当ですか？」と彼は聞いた。` is one sentence);
//! - not at a `.` followed by a letter or digit (`3.14`, `e.g.`, `example.com`), nor at a
//!   terminator followed by white space and a lower-case letter (`т. е. так`, `Ну… я не знаю`),
//!   nor after a single capital letter (initials: `J. K. Rowling`, `Ю. Г. Зеленков`);
//! - a blank line (a paragraph break) or U+2029 ends a sentence too; a single line break does
//!   not, so hard-wrapped text splits as its unwrapped copy does (headings and list items without
//!   final punctuation join the next sentence alike in every copy);
//! - `；` and `;` do not end sentences (they separate clauses).

use std::ops::Range;

use xxhash_rust::xxh3::{Xxh3, xxh3_64_with_seed};

use crate::lexical::collection::{CollectionStats, TermCounts};
use crate::text::normalize::{NormalizedText, normalize_into};

/// Why a document gets no signature: reported, never silently dropped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LexSigError {
    /// TF*RIDF: the document is shorter than `min_tokens`.
    #[error("document of {tokens} tokens, at least {needed} needed")]
    TooShort {
        /// Tokens in the document.
        tokens: usize,
        /// The configured minimum.
        needed: usize,
    },
    /// TF*RIDF: fewer distinct terms than the signature takes.
    #[error("only {found} distinct terms, {needed} needed")]
    TooFewTerms {
        /// Distinct terms in the document.
        found: usize,
        /// The configured number of words.
        needed: usize,
    },
    /// Long sentences: fewer sentences of at least `min_tokens` tokens than the signature takes.
    #[error("only {found} sentences of the minimum length, {needed} needed")]
    TooFewSentences {
        /// Sentences long enough.
        found: usize,
        /// The configured number of sentences.
        needed: usize,
    },
}

/// Why a signature configuration is invalid.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LexSigConfigError {
    /// The number of words is 0 or above [`MAX_WORDS`].
    #[error("ridf-words {0} is not in 1..={MAX_WORDS} (the words of a TF*RIDF signature)")]
    Words(usize),
    /// The number of sentences is 0 or above [`MAX_SENTENCES`].
    #[error(
        "sentences {0} is not in 1..={MAX_SENTENCES} (the sentences of a long-sentence signature)"
    )]
    Sentences(usize),
}

/// Most words a TF*RIDF signature may take.
pub const MAX_WORDS: usize = 256;
/// Most sentences a long-sentence signature may take.
pub const MAX_SENTENCES: usize = 64;

/// Settings of the TF*RIDF signature.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TfRidfConfig {
    /// Terms in the signature. Default 6 (Zelenkov & Segalovich).
    pub words: usize,
    /// Fewest tokens a document needs. Default 12, twice the words: below that the "most
    /// salient" words are most of the document's vocabulary (this crate's choice; the study
    /// gives no minimum).
    pub min_tokens: usize,
}

impl Default for TfRidfConfig {
    fn default() -> Self {
        TfRidfConfig { words: 6, min_tokens: 12 }
    }
}

impl TfRidfConfig {
    /// Checks 1 ≤ words ≤ [`MAX_WORDS`].
    pub fn validate(&self) -> Result<(), LexSigConfigError> {
        if self.words == 0 || self.words > MAX_WORDS {
            return Err(LexSigConfigError::Words(self.words));
        }
        Ok(())
    }
}

/// The `words` terms of highest tf · RIDF, as `(term hash, score)`, best first; ties by
/// increasing hash. Fewer when the document has fewer distinct terms.
pub fn tf_ridf_terms(doc: &TermCounts, stats: &CollectionStats, words: usize) -> Vec<(u64, f64)> {
    let n = stats.docs();
    let mut scored: Vec<(u64, f64)> =
        doc.terms.iter().map(|&(h, tf)| (h, f64::from(tf) * stats.stats(h).ridf(n))).collect();
    let order = |a: &(u64, f64), b: &(u64, f64)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
    if words == 0 {
        return Vec::new();
    }
    if scored.len() > words {
        scored.select_nth_unstable_by(words - 1, order);
        scored.truncate(words);
    }
    scored.sort_unstable_by(order);
    scored
}

/// The TF*RIDF signature: xxh3-64 of the chosen terms' hashes in increasing order.
pub fn tf_ridf_signature(
    doc: &TermCounts,
    stats: &CollectionStats,
    config: &TfRidfConfig,
    seed: u64,
) -> Result<u64, LexSigError> {
    let tokens = doc.len as usize;
    if tokens < config.min_tokens {
        return Err(LexSigError::TooShort { tokens, needed: config.min_tokens });
    }
    let words = config.words.max(1);
    if doc.terms.len() < words {
        return Err(LexSigError::TooFewTerms { found: doc.terms.len(), needed: words });
    }
    let mut chosen: Vec<u64> = tf_ridf_terms(doc, stats, words).iter().map(|t| t.0).collect();
    chosen.sort_unstable();
    let bytes: Vec<u8> = chosen.iter().flat_map(|h| h.to_le_bytes()).collect();
    Ok(xxh3_64_with_seed(&bytes, seed))
}

/// Settings of the long-sentence signature.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct LongSentenceConfig {
    /// Sentences in the signature. Default 2 (Zelenkov & Segalovich).
    pub sentences: usize,
    /// Fewest normalized tokens a sentence needs to be chosen. Default 5 (this crate's choice:
    /// "Yes." or a date line identifies nothing).
    pub min_tokens: usize,
}

impl Default for LongSentenceConfig {
    fn default() -> Self {
        LongSentenceConfig { sentences: 2, min_tokens: 5 }
    }
}

impl LongSentenceConfig {
    /// Checks 1 ≤ sentences ≤ [`MAX_SENTENCES`].
    pub fn validate(&self) -> Result<(), LexSigConfigError> {
        if self.sentences == 0 || self.sentences > MAX_SENTENCES {
            return Err(LexSigConfigError::Sentences(self.sentences));
        }
        Ok(())
    }
}

/// The `count` longest sentences of `text` with at least `min_tokens` normalized tokens, as byte
/// ranges, longest first (ties: earlier first). Fewer when the text has fewer such sentences.
/// `scratch` is overwritten.
pub fn longest_sentences(
    text: &str,
    count: usize,
    min_tokens: usize,
    scratch: &mut NormalizedText,
) -> Vec<Range<usize>> {
    // (tokens, position, span), kept sorted best first; count is small.
    let mut best: Vec<(usize, usize, Range<usize>)> = Vec::with_capacity(count + 1);
    if count == 0 {
        return Vec::new();
    }
    for (pos, span) in sentence_spans(text).enumerate() {
        normalize_into(&text[span.clone()], scratch);
        let tokens = scratch.len();
        if tokens < min_tokens.max(1) {
            continue;
        }
        if best.len() == count && best.last().is_some_and(|w| w.0 >= tokens) {
            continue;
        }
        // Insert after every entry at least as long (those came earlier).
        let at = best.partition_point(|b| b.0 >= tokens);
        best.insert(at, (tokens, pos, span));
        best.truncate(count);
    }
    best.into_iter().map(|b| b.2).collect()
}

/// The long-sentence signature of the original `text`: each of the `sentences` longest
/// sentences is normalized and its token sequence hashed; the signature hashes those hashes in
/// increasing order (so the sentences' order in the text does not matter). `scratch` is
/// overwritten.
pub fn long_sentence_signature(
    text: &str,
    config: &LongSentenceConfig,
    seed: u64,
    scratch: &mut NormalizedText,
) -> Result<u64, LexSigError> {
    let needed = config.sentences.max(1);
    let chosen = longest_sentences(text, needed, config.min_tokens, scratch);
    if chosen.len() < needed {
        return Err(LexSigError::TooFewSentences { found: chosen.len(), needed });
    }
    let mut hashes: Vec<u64> = chosen
        .into_iter()
        .map(|span| {
            normalize_into(&text[span], scratch);
            token_sequence_hash(scratch, seed)
        })
        .collect();
    hashes.sort_unstable();
    let bytes: Vec<u8> = hashes.iter().flat_map(|h| h.to_le_bytes()).collect();
    Ok(xxh3_64_with_seed(&bytes, seed ^ 0x4C53_454E_5453_4947))
}

/// xxh3-64 of a normalized text's tokens, each followed by the byte 0xFF (which UTF-8 never
/// contains), so the hash identifies the token sequence whatever the spacing rules.
fn token_sequence_hash(norm: &NormalizedText, seed: u64) -> u64 {
    let mut h = Xxh3::with_seed(seed);
    for t in norm.token_strs() {
        h.update(t.as_bytes());
        h.update(&[0xFF]);
    }
    h.digest()
}

/// The sentences of `text` as string slices, without surrounding white space. See the module
/// docs for the rules.
pub fn sentences(text: &str) -> impl Iterator<Item = &str> + '_ {
    sentence_spans(text).map(move |r| &text[r])
}

/// The sentences of `text` as byte ranges, without surrounding white space.
pub fn sentence_spans(text: &str) -> SentenceSpans<'_> {
    SentenceSpans { text, pos: 0 }
}

/// Iterator over the sentence ranges of a text, from [`sentence_spans`].
#[derive(Debug, Clone)]
pub struct SentenceSpans<'a> {
    text: &'a str,
    pos: usize,
}

/// Terminators that need white space (or a CJK character, or the end) after them.
fn is_terminator(c: char) -> bool {
    matches!(c, '.' | '!' | '?' | '…' | '‼' | '⁇' | '⁈' | '⁉' | '．') || is_cjk_terminator(c)
}

/// Ideographic terminators: a sentence ends there, spaces or not.
fn is_cjk_terminator(c: char) -> bool {
    matches!(c, '。' | '！' | '？' | '｡')
}

fn is_closer(c: char) -> bool {
    matches!(
        c,
        '"' | '\''
            | '»'
            | '”'
            | '’'
            | '›'
            | ')'
            | ']'
            | '}'
            | '」'
            | '』'
            | '）'
            | '】'
            | '〕'
            | '》'
            | '〉'
            | '〗'
            | '〙'
            | '］'
    )
}

/// Hiragana: after a closing quotation mark, a particle (と, って) continues the sentence.
fn is_hiragana(c: char) -> bool {
    matches!(c as u32, 0x3041..=0x309F)
}

/// Chinese and Japanese characters (Han, kana), which follow a terminator without a space.
fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF | 0xFF66..=0xFF9D
        | 0x20000..=0x2FA1F)
}

fn char_at(text: &str, i: usize) -> Option<char> {
    text.get(i..).and_then(|s| s.chars().next())
}

impl SentenceSpans<'_> {
    /// Whether a terminator run `run_start..run_end` (closers included up to `end`) ends a
    /// sentence.
    fn ends_sentence(&self, run_start: usize, end: usize, cjk: bool, closers: bool) -> bool {
        let text = self.text;
        let following = char_at(text, end);
        if cjk {
            // 「本当ですか？」と…: a quotation the sentence goes on after (with a particle).
            return !(closers && following.is_some_and(is_hiragana));
        }
        let Some(f) = following else { return true };
        if is_cjk(f) {
            return true;
        }
        if !f.is_whitespace() {
            // 3.14, e.g., example.com, "Yahoo!Inc".
            return false;
        }
        // The next letter or digit (past dashes and quotes): lower case continues the sentence
        // (`«Что это?» — спросил он.`).
        // Looking a bounded distance ahead keeps a text of punctuation alone linear.
        let next = text[end..].chars().take(64).find(|c| c.is_alphanumeric());
        if next.is_some_and(char::is_lowercase) {
            return false;
        }
        // An initial: a single capital letter before a lone '.'.
        if text[run_start..].starts_with('.') && !text[run_start + 1..end].contains(is_terminator) {
            let mut before = text[..run_start].chars().rev();
            if let Some(c1) = before.next()
                && c1.is_uppercase()
                && before.next().is_none_or(|c2| !c2.is_alphanumeric())
            {
                return false;
            }
        }
        true
    }
}

impl Iterator for SentenceSpans<'_> {
    type Item = Range<usize>;

    fn next(&mut self) -> Option<Range<usize>> {
        let text = self.text;
        loop {
            let rest = text.get(self.pos..)?;
            let start = self.pos + (rest.len() - rest.trim_start().len());
            if start >= text.len() {
                self.pos = text.len();
                return None;
            }
            let mut i = start;
            let mut cut: Option<(usize, usize)> = None; // (sentence end, next position)
            let bytes = text.as_bytes();
            loop {
                // Skip the ASCII bytes that cannot matter (most of the text) without decoding.
                i += bytes
                    .get(i..)
                    .unwrap_or_default()
                    .iter()
                    .position(|&b| matches!(b, b'.' | b'!' | b'?' | b'\n') || b >= 0x80)
                    .unwrap_or(bytes.len().saturating_sub(i));
                let Some(c) = char_at(text, i) else { break };
                let after = i + c.len_utf8();
                if c == '\u{2029}' {
                    cut = Some((i, after));
                    break;
                }
                if c == '\n' {
                    let gap = text[after..]
                        .find(|x: char| x == '\n' || x == '\u{2029}' || !x.is_whitespace());
                    if gap.is_some_and(|g| char_at(text, after + g) == Some('\n')) {
                        cut = Some((i, after));
                        break;
                    }
                    i = after;
                    continue;
                }
                if is_terminator(c) {
                    let mut end = after;
                    let mut cjk = is_cjk_terminator(c);
                    while let Some(t) = char_at(text, end).filter(|&t| is_terminator(t)) {
                        cjk |= is_cjk_terminator(t);
                        end += t.len_utf8();
                    }
                    let mut closers = false;
                    while let Some(t) = char_at(text, end).filter(|&t| is_closer(t)) {
                        closers = true;
                        end += t.len_utf8();
                    }
                    if self.ends_sentence(i, end, cjk, closers) {
                        cut = Some((end, end));
                        break;
                    }
                    i = end;
                    continue;
                }
                i = after;
            }
            // `next` is past `start`: `start` is not white space, so neither a break nor
            // before a terminator run that includes it.
            let (end, next) = cut.unwrap_or((text.len(), text.len()));
            self.pos = next.max(start + 1);
            let sentence = text.get(start..end).unwrap_or("").trim_end();
            if sentence.is_empty() {
                continue;
            }
            return Some(start..start + sentence.len());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(text: &str) -> Vec<&str> {
        sentences(text).collect()
    }

    #[test]
    fn english() {
        assert_eq!(
            split(
                "The value of pi is about 3.14, not 3. J. K. Rowling wrote it, e.g. in 1997! \
                 Did she?  Yes… she did.\"Quoted.\" Next (see example.com) here. \"Is it?\" he \
                 asked. The end"
            ),
            vec![
                "The value of pi is about 3.14, not 3.",
                "J. K. Rowling wrote it, e.g. in 1997!",
                "Did she?",
                "Yes… she did.\"Quoted.\"",
                "Next (see example.com) here.",
                "\"Is it?\" he asked.",
                "The end",
            ]
        );
        assert_eq!(split("Wait... What?! Really?!"), vec!["Wait...", "What?!", "Really?!"]);
    }

    #[test]
    fn russian_and_ukrainian() {
        assert_eq!(
            split(
                "Он заплатил 3.14 рубля. Потом ушёл! Правда? Да… наверное. Ю. Г. Зеленков и \
                 И. В. Сегалович написали статью, т. е. обзор. «Что это?» — спросил он."
            ),
            vec![
                "Он заплатил 3.14 рубля.",
                "Потом ушёл!",
                "Правда?",
                "Да… наверное.",
                "Ю. Г. Зеленков и И. В. Сегалович написали статью, т. е. обзор.",
                "«Что это?» — спросил он.",
            ]
        );
        assert_eq!(
            split("Це перше речення. Друге має число 2.5 і знак питання? Так!"),
            vec!["Це перше речення.", "Друге має число 2.5 і знак питання?", "Так!"]
        );
    }

    #[test]
    fn chinese_and_japanese() {
        assert_eq!(
            split("我们使用最小哈希。这个方法很快！真的吗？是的，圆周率是3.14。"),
            vec!["我们使用最小哈希。", "这个方法很快！", "真的吗？", "是的，圆周率是3.14。"]
        );
        assert_eq!(
            split(
                "今日は晴れです。「本当ですか？」と彼は聞いた。「はい。」「いいえ。」明日も晴れるでしょう"
            ),
            vec![
                "今日は晴れです。",
                "「本当ですか？」と彼は聞いた。",
                "「はい。」",
                "「いいえ。」",
                "明日も晴れるでしょう",
            ]
        );
        // ASCII punctuation directly followed by Chinese, and a full-width semicolon.
        assert_eq!(split("你好!我很好；谢谢。"), vec!["你好!", "我很好；谢谢。"]);
    }

    #[test]
    fn paragraphs_and_white_space() {
        assert_eq!(
            split("  A heading\n\nFirst line\nwrapped here.\r\n  \r\nLast\u{2029}Other  "),
            vec!["A heading", "First line\nwrapped here.", "Last", "Other"]
        );
        assert!(split("").is_empty());
        assert!(split(" \n\n \t ").is_empty());
        assert_eq!(split("..."), vec!["..."]);
        assert_eq!(split("。。"), vec!["。。"]);
        // Spans point into the text, trimmed.
        let text = " One two. Three ";
        let spans: Vec<Range<usize>> = sentence_spans(text).collect();
        assert_eq!(spans, vec![1..9, 10..15]);
    }

    #[test]
    fn splitter_never_panics_and_covers_the_text() {
        // Every non-space character of the text is in exactly one sentence, in order.
        let alphabet: Vec<char> = "a Z.!?…。！？」「\"'\n\r\u{2029} 3é中ё".chars().collect();
        let mut st = 61u64;
        for _ in 0..3000 {
            let len = (crate::sketch::minhash::splitmix64(&mut st) % 30) as usize;
            let text: String = (0..len)
                .map(|_| {
                    alphabet[(crate::sketch::minhash::splitmix64(&mut st) % alphabet.len() as u64)
                        as usize]
                })
                .collect();
            let spans: Vec<Range<usize>> = sentence_spans(&text).collect();
            let mut last = 0;
            for s in &spans {
                assert!(s.start >= last && s.start < s.end && s.end <= text.len(), "{text:?}");
                assert_eq!(text[s.clone()].trim(), &text[s.clone()]);
                last = s.end;
            }
            let inside: String = spans.iter().map(|s| &text[s.clone()]).collect();
            let strip = |s: &str| s.chars().filter(|c| !c.is_whitespace()).collect::<String>();
            assert_eq!(strip(&inside), strip(&text), "{text:?}");
        }
    }

    fn stats_of(docs: &[TermCounts]) -> CollectionStats {
        let mut b = CollectionStats::builder();
        b.extend(docs);
        b.build()
    }

    /// The top terms by the definition: score every term, sort all, take the first `words`.
    fn brute_force_top(doc: &TermCounts, stats: &CollectionStats, words: usize) -> Vec<u64> {
        let mut all: Vec<(u64, f64)> =
            doc.terms.iter().map(|&(h, tf)| (h, f64::from(tf) * stats.ridf(h))).collect();
        all.sort_by(|a, b| b.1.partial_cmp(&a.1).unwrap().then(a.0.cmp(&b.0)));
        all.into_iter().take(words).map(|t| t.0).collect()
    }

    #[test]
    fn tf_ridf_picks_the_top_terms() {
        let mut st = 71u64;
        let docs: Vec<TermCounts> = (0..200)
            .map(|_| {
                let len = 5 + crate::sketch::minhash::splitmix64(&mut st) % 60;
                let mut h: Vec<u64> = (0..len)
                    .map(|_| {
                        // Skewed: small term ids are frequent.
                        let r = crate::sketch::minhash::splitmix64(&mut st) % 1000;
                        r * r / 5000
                    })
                    .collect();
                h.sort_unstable();
                TermCounts {
                    len: len as u32,
                    terms: h.chunk_by(|a, b| a == b).map(|r| (r[0], r.len() as u32)).collect(),
                }
            })
            .collect();
        let stats = stats_of(&docs);
        let cfg = TfRidfConfig { min_tokens: 0, ..Default::default() };
        for doc in &docs {
            for words in [1, 3, 6, 100] {
                let got: Vec<u64> = tf_ridf_terms(doc, &stats, words).iter().map(|t| t.0).collect();
                assert_eq!(got, brute_force_top(doc, &stats, words));
            }
            match tf_ridf_signature(doc, &stats, &cfg, 1) {
                Ok(sig) => {
                    // Only the top six matter: adding a low-scoring term keeps the signature.
                    let mut more = doc.clone();
                    more.terms.push((u64::MAX, 1));
                    more.len += 1;
                    if !brute_force_top(&more, &stats, 6).contains(&u64::MAX) {
                        assert_eq!(tf_ridf_signature(&more, &stats, &cfg, 1), Ok(sig));
                    }
                }
                Err(e) => {
                    assert!(matches!(e, LexSigError::TooFewTerms { found, needed: 6 } if found < 6))
                }
            }
        }
    }

    #[test]
    fn tf_ridf_by_hand() {
        // 16 documents. Term 10 is bursty (one document, 5 times); 20 is in every document
        // (cf 46); 30..=34 appear once each in document 0.
        let d0 = TermCounts {
            terms: vec![(10, 5), (20, 1), (30, 1), (31, 1), (32, 1), (33, 1), (34, 1)],
            len: 11,
        };
        let mut all = vec![d0.clone()];
        all.extend((0..15).map(|_| TermCounts { terms: vec![(20, 3)], len: 3 }));
        let stats = stats_of(&all);
        let top = tf_ridf_terms(&d0, &stats, 6);
        // ridf(10) = log2(16) + log2(1 − e^(−5/16)) = 2.10..., times tf 5.
        let expect = 5.0 * (4.0 + (1.0 - (-5.0f64 / 16.0).exp()).log2());
        assert!((top[0].1 - expect).abs() < 1e-9 && (expect - 10.51).abs() < 0.01);
        // 30..=34: 4 + log2(1 − e^(−1/16)) = −0.045 each; 20: 0 + log2(1 − e^(−46/16)) = −0.084.
        assert!((top[1].1 - (4.0 + (1.0 - (-1.0f64 / 16.0).exp()).log2())).abs() < 1e-9);
        assert!(stats.ridf(20) < top[5].1);
        // Ties among 30..=34 (same score) resolved by hash; 20 is left out.
        assert_eq!(top.iter().map(|t| t.0).collect::<Vec<_>>(), vec![10, 30, 31, 32, 33, 34]);
        let cfg = TfRidfConfig::default();
        assert_eq!(
            tf_ridf_signature(&TermCounts { len: 3, ..d0.clone() }, &stats, &cfg, 1),
            Err(LexSigError::TooShort { tokens: 3, needed: 12 })
        );
        let sig =
            tf_ridf_signature(&TermCounts { len: 12, ..d0.clone() }, &stats, &cfg, 1).unwrap();
        // Deterministic, and the seed matters.
        assert_eq!(
            tf_ridf_signature(&TermCounts { len: 12, ..d0.clone() }, &stats, &cfg, 1),
            Ok(sig)
        );
        assert_ne!(tf_ridf_signature(&TermCounts { len: 12, ..d0 }, &stats, &cfg, 5), Ok(sig));
        assert!(TfRidfConfig { words: 0, ..cfg }.validate().is_err());
        assert!(cfg.validate().is_ok());
    }

    #[test]
    fn long_sentences_signature() {
        let cfg = LongSentenceConfig::default();
        let mut scratch = NormalizedText::default();
        let a = "Short one. This is the longest sentence of the whole text by far. Tiny. \
                 Here is the second longest sentence in it. End.";
        let spans = longest_sentences(a, 2, 5, &mut scratch);
        let chosen: Vec<&str> = spans.iter().map(|s| &a[s.clone()]).collect();
        assert_eq!(
            chosen,
            vec![
                "This is the longest sentence of the whole text by far.",
                "Here is the second longest sentence in it."
            ]
        );
        let sig = long_sentence_signature(a, &cfg, 1, &mut scratch).unwrap();
        // Case, punctuation, spacing and the short sentences do not matter, nor the order.
        let b = "HERE is the second-longest sentence in it!\n\nTHIS is the longest sentence of \
                 the whole text, by far. Different short bits.";
        assert_eq!(long_sentence_signature(b, &cfg, 1, &mut scratch), Ok(sig));
        // A word changed in a long sentence changes the signature.
        let c = a.replace("by far", "by miles");
        assert_ne!(long_sentence_signature(&c, &cfg, 1, &mut scratch), Ok(sig));
        // Ties by position: the first of equally long sentences wins.
        let t = "One two three four five. Six seven eight nine ten. Eleven twelve thirteen \
                 fourteen fifteen.";
        let spans = longest_sentences(t, 2, 5, &mut scratch);
        assert_eq!(
            spans.iter().map(|s| &t[s.clone()]).collect::<Vec<_>>(),
            vec!["One two three four five.", "Six seven eight nine ten."]
        );
        // Too few long-enough sentences.
        assert_eq!(
            long_sentence_signature("Only one sentence here, long enough.", &cfg, 1, &mut scratch),
            Err(LexSigError::TooFewSentences { found: 1, needed: 2 })
        );
        assert_eq!(
            long_sentence_signature("", &cfg, 1, &mut scratch),
            Err(LexSigError::TooFewSentences { found: 0, needed: 2 })
        );
        assert!(LongSentenceConfig { sentences: 0, ..cfg }.validate().is_err());
    }

    #[test]
    fn long_sentences_in_chinese_count_characters() {
        let cfg = LongSentenceConfig::default();
        let mut scratch = NormalizedText::default();
        let text = "好。我们使用最小哈希和局部敏感哈希。这个方法很快而且可靠。对！";
        let spans = longest_sentences(text, 2, 5, &mut scratch);
        assert_eq!(
            spans.iter().map(|s| &text[s.clone()]).collect::<Vec<_>>(),
            vec!["我们使用最小哈希和局部敏感哈希。", "这个方法很快而且可靠。"]
        );
        let full_width = "好。我们使用最小哈希和局部敏感哈希！这个方法很快而且可靠。";
        assert_eq!(
            long_sentence_signature(text, &cfg, 1, &mut scratch),
            long_sentence_signature(full_width, &cfg, 1, &mut scratch)
        );
    }
}
