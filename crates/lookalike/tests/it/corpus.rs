//! Random collections with planted near-duplicates, and the brute-force reference.

use lookalike::verify::jaccard;
use lookalike::{Document, Shingler};

pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed ^ 0x2545_F491_4F6C_DD1D)
    }
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    pub fn chance(&mut self, p: f64) -> bool {
        ((self.next() >> 11) as f64 / (1u64 << 53) as f64) < p
    }
}

/// A word from a Zipf-like vocabulary (frequent words repeat, as in real text).
fn word(rng: &mut Rng) -> String {
    let r = rng.below(1000);
    let idx = (r * r) / 200; // skewed towards small indices
    format!("w{idx}")
}

/// `bases` random documents and `variants` edited copies of random earlier documents, with edit
/// rates spread so that true Jaccards cover the whole range.
pub fn random_collection(seed: u64, bases: usize, variants: usize) -> Vec<Document> {
    let mut rng = Rng::new(seed);
    let mut texts: Vec<Vec<String>> = Vec::new();
    for _ in 0..bases {
        let len = 20 + rng.below(300);
        texts.push((0..len).map(|_| word(&mut rng)).collect());
    }
    for _ in 0..variants {
        let src = texts[rng.below(texts.len())].clone();
        let rate = [0.0, 0.005, 0.01, 0.02, 0.04, 0.08, 0.15][rng.below(7)];
        let mut out = Vec::with_capacity(src.len());
        for w in src {
            if rng.chance(rate) {
                match rng.below(3) {
                    0 => {}
                    1 => out.push(word(&mut rng)),
                    _ => {
                        out.push(w);
                        out.push(word(&mut rng));
                    }
                }
            } else {
                out.push(w);
            }
        }
        if out.is_empty() {
            out.push(word(&mut rng));
        }
        texts.push(out);
    }
    shuffled_documents(texts, &mut rng)
}

/// Shuffles the texts (so that copies are not always after their sources) and names them d0, d1…
fn shuffled_documents(mut texts: Vec<Vec<String>>, rng: &mut Rng) -> Vec<Document> {
    for i in (1..texts.len()).rev() {
        let j = rng.below(i + 1);
        texts.swap(i, j);
    }
    texts
        .into_iter()
        .enumerate()
        .map(|(i, t)| Document::from_text(format!("d{i}"), t.join(" ")))
        .collect()
}

/// [`random_collection`] made prose-like for the lexical methods (random words have neither
/// sentences nor stopwords): a full stop after about one word in nine and the next word
/// capitalized, and "the" before about one word in five, both decided by a hash of the word so
/// that the variants' edits keep them.
pub fn prose_collection(seed: u64, bases: usize, variants: usize) -> Vec<Document> {
    random_collection(seed, bases, variants)
        .into_iter()
        .map(|d| {
            let mut text: Vec<String> = Vec::new();
            let mut capital = true;
            for w in d.text.split(' ') {
                let h = w.bytes().fold(7u32, |h, b| h.wrapping_mul(31).wrapping_add(u32::from(b)));
                let w = if capital { w.to_uppercase() } else { w.to_owned() };
                capital = h % 9 == 0;
                if h % 5 == 1 {
                    text.push("the".to_owned());
                }
                text.push(if capital { format!("{w}.") } else { w });
            }
            Document::from_text(d.id, text.join(" "))
        })
        .collect()
}

/// Every pair (i < j) with exact Jaccard ≥ `min`, by brute force.
pub fn brute_force_pairs(docs: &[Document], shingler: &Shingler, min: f64) -> Vec<(u32, u32, f64)> {
    let sets: Vec<Vec<u64>> = docs.iter().map(|d| shingler.shingle_set(&d.text)).collect();
    let mut out = Vec::new();
    for i in 0..sets.len() {
        for j in i + 1..sets.len() {
            let s = jaccard(&sets[i], &sets[j]);
            if s >= min {
                out.push((i as u32, j as u32, s));
            }
        }
    }
    out
}

/// `bases` random documents, then `excerpts` documents that are a contiguous slice (30–90%) of a
/// random earlier document with a few edits, and `hosts` documents that quote a random earlier
/// document inside new text of about the same length: containment pairs of low resemblance.
pub fn containment_collection(
    seed: u64,
    bases: usize,
    excerpts: usize,
    hosts: usize,
) -> Vec<Document> {
    let mut rng = Rng::new(seed);
    let mut texts: Vec<Vec<String>> = Vec::new();
    for _ in 0..bases {
        let len = 60 + rng.below(300);
        texts.push((0..len).map(|_| word(&mut rng)).collect());
    }
    for _ in 0..excerpts {
        let src = texts[rng.below(bases)].clone();
        let share = 0.3 + 0.6 * (rng.below(1000) as f64 / 1000.0);
        let len = ((src.len() as f64 * share) as usize).max(10);
        let start = rng.below(src.len() - len + 1);
        let mut out: Vec<String> = src[start..start + len].to_vec();
        for w in out.iter_mut() {
            if rng.chance(0.01) {
                *w = word(&mut rng);
            }
        }
        texts.push(out);
    }
    for _ in 0..hosts {
        let quoted = texts[rng.below(bases)].clone();
        let extra = quoted.len() / 2 + rng.below(quoted.len() + 1);
        let mut out: Vec<String> = (0..extra / 2).map(|_| word(&mut rng)).collect();
        out.extend(quoted);
        out.extend((0..extra - extra / 2).map(|_| word(&mut rng)));
        texts.push(out);
    }
    shuffled_documents(texts, &mut rng)
}

/// Every pair (i < j) whose larger containment max(c(i,j), c(j,i)) is ≥ `min`, by brute force,
/// as `(i, j, containment, i_in_j, jaccard)`.
pub fn brute_force_containment(
    docs: &[Document],
    shingler: &Shingler,
    min: f64,
) -> Vec<(u32, u32, f64, bool, f64)> {
    let sets: Vec<Vec<u64>> = docs.iter().map(|d| shingler.shingle_set(&d.text)).collect();
    let mut out = Vec::new();
    for i in 0..sets.len() {
        for j in i + 1..sets.len() {
            let inter = lookalike::verify::intersection_size(&sets[i], &sets[j]) as f64;
            let ci = inter / sets[i].len() as f64;
            let cj = inter / sets[j].len() as f64;
            let c = ci.max(cj);
            if c >= min {
                out.push((i as u32, j as u32, c, ci >= cj, jaccard(&sets[i], &sets[j])));
            }
        }
    }
    out
}

/// Pages sharing one large template, as API references and manuals do: `pages` documents made of
/// the same 400 template words with 0–6 random words replaced and 0–10 words of their own
/// appended (true Jaccards from about 0.75 to 1 inside the group), `copies` exact copies of random
/// pages, and `others` unrelated random documents, shuffled.
pub fn template_collection(seed: u64, pages: usize, copies: usize, others: usize) -> Vec<Document> {
    let mut rng = Rng::new(seed);
    let template: Vec<String> = (0..400).map(|_| word(&mut rng)).collect();
    let mut texts: Vec<Vec<String>> = Vec::new();
    for p in 0..pages {
        let mut t = template.clone();
        for _ in 0..rng.below(7) {
            let at = rng.below(t.len());
            t[at] = format!("v{p}x{}", rng.below(1_000_000));
        }
        for i in 0..rng.below(11) {
            t.push(format!("own{p}x{i}"));
        }
        texts.push(t);
    }
    for _ in 0..copies {
        let of = rng.below(pages);
        texts.push(texts[of].clone());
    }
    for _ in 0..others {
        let len = 50 + rng.below(200);
        texts.push((0..len).map(|_| word(&mut rng)).collect());
    }
    shuffled_documents(texts, &mut rng)
}
