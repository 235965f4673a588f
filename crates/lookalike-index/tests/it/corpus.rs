//! A seeded corpus with planted near duplicates, exact copies and empty documents.

use lookalike::Document;
use lookalike::fingerprint::raw_fingerprint;

/// splitmix64: a small seeded generator (the tests' only randomness).
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn word(rng: &mut Rng) -> String {
    // A Zipf-ish vocabulary: a few frequent words, many rare ones.
    let rank = (rng.below(1000) * rng.below(1000)) / 400;
    let syllables = ["ka", "lo", "mi", "tu", "re", "sa", "no", "vi", "de", "po"];
    let mut w = String::new();
    let mut r = rank + 1;
    while r > 0 {
        w.push_str(syllables[(r % 10) as usize]);
        r /= 10;
    }
    w
}

/// `n` documents: originals, then near copies of earlier documents (a few words replaced,
/// inserted or deleted, so their resemblance spreads over 0.4-0.97), exact copies (same bytes,
/// or same text with other case and punctuation), and a few empty or token-less documents; ids
/// `d0`, `d1`, ... in order.
pub fn corpus(n: usize, seed: u64) -> Vec<Document> {
    let mut rng = Rng(seed);
    let mut texts: Vec<String> = Vec::new();
    for i in 0..n {
        let roll = rng.below(100);
        let text = if texts.is_empty() || roll < 45 {
            let len = 30 + rng.below(150) as usize;
            (0..len).map(|_| word(&mut rng)).collect::<Vec<_>>().join(" ")
        } else if roll < 85 {
            let base = &texts[rng.below(texts.len() as u64) as usize];
            let mut words: Vec<String> = base.split(' ').map(str::to_owned).collect();
            let edits = 1 + rng.below(1 + words.len() as u64 / 12);
            for _ in 0..edits {
                let at = rng.below(words.len() as u64) as usize;
                match rng.below(3) {
                    0 => words[at] = word(&mut rng),
                    1 => words.insert(at, word(&mut rng)),
                    _ if words.len() > 2 => {
                        words.remove(at);
                    }
                    _ => {}
                }
            }
            words.join(" ")
        } else if roll < 93 {
            texts[rng.below(texts.len() as u64) as usize].clone()
        } else if roll < 98 {
            let base = &texts[rng.below(texts.len() as u64) as usize];
            format!("{}!", base.to_uppercase())
        } else if i % 2 == 0 {
            String::new()
        } else {
            "— … —".to_owned()
        };
        texts.push(text);
    }
    texts
        .into_iter()
        .enumerate()
        .map(|(i, text)| Document {
            id: format!("d{i}"),
            raw_fingerprint: Some(raw_fingerprint(text.as_bytes())),
            raw_len: text.len() as u64,
            text,
        })
        .collect()
}
