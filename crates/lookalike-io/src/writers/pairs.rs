//! `--pairs`: contract: "push me verified pairs, I write `id1<TAB>id2<TAB>similarity` lines".

use std::io::Write;

use lookalike::{Contained, ScoredPair, Sink};

use super::SinkError;

/// Ids in TSV: tabs and line breaks would break the format, so they are escaped.
fn tsv_escape(id: &str) -> std::borrow::Cow<'_, str> {
    // Every byte looked at, without an early exit, so the test is vectorized: ids are long URLs
    // and paths, two per pair and over a million pairs on a documentation collection, and a
    // search for four chars goes one char at a time, several times slower.
    let special = id.bytes().fold(false, |any, b| any | matches!(b, b'\t' | b'\n' | b'\r' | b'\\'));
    if special {
        id.replace('\\', "\\\\")
            .replace('\t', "\\t")
            .replace('\n', "\\n")
            .replace('\r', "\\r")
            .into()
    } else {
        id.into()
    }
}

/// `x` as `{:.6}` writes it. Exact copies, most pairs of a crawl or a manual collection, are 1,
/// for which the formatter's exact-precision path falls back to its slower big-number algorithm:
/// written here as the formatter would.
fn write_fixed6(out: &mut impl Write, x: f64) -> std::io::Result<()> {
    if x == 1.0 { out.write_all(b"1.000000") } else { write!(out, "{x:.6}") }
}

/// `id1<TAB>id2<TAB>similarity`, one line per verified pair. Containment pairs are written
/// contained-first: `A<TAB>B<TAB>c(A,B)` means A ⊂ B with containment c(A, B) = |A∩B|/|A|.
/// SimHash pairs get two more columns: the Hamming distance h and the cosine estimate cos(π·h/64).
#[derive(Debug)]
pub struct PairsTsv<W> {
    out: W,
}

impl<W: Write> PairsTsv<W> {
    /// A sink writing to `out`.
    pub fn new(out: W) -> Self {
        PairsTsv { out }
    }

    /// The writer back.
    pub fn into_inner(self) -> W {
        self.out
    }
}

impl<W: Write> Sink for PairsTsv<W> {
    type Error = SinkError;

    fn pair(&mut self, ids: &[String], p: &ScoredPair) -> Result<bool, SinkError> {
        let (first, second) = match p.contained {
            Some(Contained::BInA) => (p.b, p.a),
            Some(Contained::AInB) | None => (p.a, p.b),
        };
        let out = &mut self.out;
        out.write_all(tsv_escape(&ids[first.index()]).as_bytes())?;
        out.write_all(b"\t")?;
        out.write_all(tsv_escape(&ids[second.index()]).as_bytes())?;
        out.write_all(b"\t")?;
        write_fixed6(out, p.similarity)?;
        if let Some(h) = p.hamming {
            write!(out, "\t{h}\t{:.6}", lookalike::sketch::simhash::cosine_estimate(h))?;
        }
        out.write_all(b"\n")?;
        Ok(true)
    }

    fn finish(&mut self) -> Result<(), SinkError> {
        Ok(self.out.flush()?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tsv_ids_are_escaped() {
        assert_eq!(tsv_escape("a\tb\nc\\d\r"), "a\\tb\\nc\\\\d\\r");
        assert_eq!(tsv_escape("plain"), "plain");
        for special in ['\t', '\n', '\r', '\\'] {
            for at in [0, 1, 40, 79] {
                let mut id = "x".repeat(80);
                id.replace_range(at..at + 1, &special.to_string());
                assert_ne!(tsv_escape(&id), id, "{special:?} at {at}");
                assert!(!tsv_escape(&id).contains(special) || special == '\\');
            }
        }
        for x in [1.0, 0.0, 0.5, 0.8, 0.904918, 1.0 / 3.0, 0.9999995, 0.8000005, 1.0 - 1e-12] {
            let mut buf = Vec::new();
            write_fixed6(&mut buf, x).unwrap();
            assert_eq!(String::from_utf8(buf).unwrap(), format!("{x:.6}"));
        }
    }
}
