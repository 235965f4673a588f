//! Text generation shared by the stage benchmarks: a fixed pseudo-random mix of English and
//! Russian words with punctuation and numbers, so the benchmarks run anywhere.

#![allow(dead_code)]

pub const WORDS: &[&str] = &[
    "the",
    "of",
    "and",
    "duplicate",
    "document",
    "search",
    "engine",
    "page",
    "Web",
    "crawler",
    "near",
    "similar",
    "shingle",
    "hash",
    "index",
    "query",
    "text,",
    "collection.",
    "поиск",
    "дубликатов",
    "документ",
    "страница",
    "сравнение",
    "1998",
    "3.14",
    "don't",
    "(see",
    "also)",
];

/// About `words` words of the mix, a line break every 17, the same for the same seed.
pub fn text(seed: u64, words: usize) -> String {
    let mut s = seed;
    let mut out = String::new();
    for i in 0..words {
        s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        out.push_str(WORDS[(s >> 33) as usize % WORDS.len()]);
        out.push(if i % 17 == 16 { '\n' } else { ' ' });
    }
    out
}
