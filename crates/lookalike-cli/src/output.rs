//! Output files: written atomically (a temporary file beside the target, renamed at the end), or
//! to stdout for `-`. Every format is a function that takes the outcome and a writer.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use lookalike::{Contained, DedupOutcome, DocStatus};

/// Where one output goes.
pub enum Sink {
    Stdout(BufWriter<io::Stdout>),
    /// A new or regular file: written to a temporary file beside it, renamed at the end.
    File {
        tmp: BufWriter<tempfile::NamedTempFile>,
        path: PathBuf,
    },
    /// An existing special file (`/dev/null`, a FIFO, a terminal): written in place, since
    /// renaming over it would replace the device with a regular file.
    Special {
        file: BufWriter<File>,
        path: PathBuf,
    },
}

impl Sink {
    /// Opens `target` (`-` is stdout). The file appears only when [`Sink::commit`] succeeds.
    pub fn open(target: &str) -> Result<Sink> {
        if target == "-" {
            return Ok(Sink::Stdout(BufWriter::with_capacity(1 << 16, io::stdout())));
        }
        let path = PathBuf::from(target);
        if let Ok(meta) = std::fs::metadata(&path)
            && !meta.file_type().is_file()
        {
            if meta.is_dir() {
                anyhow::bail!("{} is a directory", path.display());
            }
            let file = std::fs::OpenOptions::new()
                .write(true)
                .open(&path)
                .with_context(|| format!("cannot open {}", path.display()))?;
            return Ok(Sink::Special { file: BufWriter::with_capacity(1 << 16, file), path });
        }
        let dir = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let tmp = tempfile::Builder::new()
            .prefix(".lookalike-")
            .tempfile_in(&dir)
            .with_context(|| format!("cannot create a file in {}", dir.display()))?;
        Ok(Sink::File { tmp: BufWriter::with_capacity(1 << 16, tmp), path })
    }

    /// Flushes and, for a file, renames it into place.
    pub fn commit(self) -> Result<()> {
        match self {
            Sink::Stdout(mut w) => w.flush().context("cannot write to stdout"),
            Sink::Special { mut file, path } => {
                file.flush().with_context(|| format!("cannot write {}", path.display()))
            }
            Sink::File { tmp, path } => {
                let tmp = tmp
                    .into_inner()
                    .map_err(|e| e.into_error())
                    .with_context(|| format!("cannot write {}", path.display()))?;
                tmp.persist(&path).with_context(|| format!("cannot write {}", path.display()))?;
                Ok(())
            }
        }
    }

    pub fn name(&self) -> String {
        match self {
            Sink::Stdout(_) => "stdout".into(),
            Sink::File { path, .. } | Sink::Special { path, .. } => path.display().to_string(),
        }
    }
}

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Sink::Stdout(w) => w.write(buf),
            Sink::File { tmp, .. } => tmp.write(buf),
            Sink::Special { file, .. } => file.write(buf),
        }
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        match self {
            Sink::Stdout(w) => w.write_all(buf),
            Sink::File { tmp, .. } => tmp.write_all(buf),
            Sink::Special { file, .. } => file.write_all(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Sink::Stdout(w) => w.flush(),
            Sink::File { tmp, .. } => tmp.flush(),
            Sink::Special { file, .. } => file.flush(),
        }
    }
}

/// Ids in TSV: tabs and line breaks would break the format, so they are escaped.
fn tsv_escape(id: &str) -> std::borrow::Cow<'_, str> {
    if id.contains(['\t', '\n', '\r', '\\']) {
        id.replace('\\', "\\\\")
            .replace('\t', "\\t")
            .replace('\n', "\\n")
            .replace('\r', "\\r")
            .into()
    } else {
        id.into()
    }
}

/// `id1<TAB>id2<TAB>similarity`, one line per verified pair. Containment pairs are written
/// contained-first: `A<TAB>B<TAB>c(A,B)` means A ⊂ B with containment c(A, B) = |A∩B|/|A|.
pub fn write_pairs(out: &mut impl Write, outcome: &DedupOutcome) -> io::Result<()> {
    for p in &outcome.pairs {
        let (first, second) = match p.contained {
            Some(Contained::BInA) => (p.b, p.a),
            _ => (p.a, p.b),
        };
        write!(
            out,
            "{}\t{}\t{:.6}",
            tsv_escape(&outcome.ids[first as usize]),
            tsv_escape(&outcome.ids[second as usize]),
            p.similarity
        )?;
        // SimHash: the Hamming distance and the cosine estimate cos(π·h/64) as two more columns.
        if let Some(h) = p.hamming {
            write!(out, "\t{h}\t{:.6}", lookalike::sketch::simhash::cosine_estimate(h))?;
        }
        writeln!(out)?;
    }
    Ok(())
}

#[derive(serde::Serialize)]
struct ClusterLine<'a> {
    cluster: usize,
    size: usize,
    representative: &'a str,
    members: Vec<MemberLine<'a>>,
}

#[derive(serde::Serialize)]
struct MemberLine<'a> {
    id: &'a str,
    similarity: f64,
    #[serde(rename = "match")]
    kind: &'static str,
}

/// One JSON line per cluster: the representative, then every other member with its similarity to
/// the representative.
pub fn write_clusters(out: &mut impl Write, outcome: &DedupOutcome) -> io::Result<()> {
    for (n, c) in outcome.clusters.iter().enumerate() {
        let line = ClusterLine {
            cluster: n,
            size: c.members.len() + 1,
            representative: &outcome.ids[c.representative as usize],
            members: c
                .members
                .iter()
                .map(|m| MemberLine {
                    id: &outcome.ids[m.doc as usize],
                    similarity: round6(m.similarity),
                    kind: m.kind.as_str(),
                })
                .collect(),
        };
        serde_json::to_writer(&mut *out, &line)?;
        out.write_all(b"\n")?;
    }
    Ok(())
}

fn round6(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}

/// One entry of the report, in input order.
pub enum Entry {
    /// A document that reached the pipeline, by its pipeline index, with its language.
    Doc { index: u32, lang: Option<&'static str> },
    /// A record the reader could not turn into a document.
    Skipped { id: String, reason: String },
}

#[derive(serde::Serialize)]
struct ReportLine<'a> {
    id: &'a str,
    status: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    lang: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    of: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    similarity: Option<f64>,
    #[serde(rename = "match", skip_serializing_if = "Option::is_none")]
    kind: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<&'a str>,
    /// Lexical methods: why the document has no signature.
    #[serde(skip_serializing_if = "Option::is_none")]
    unsigned: Option<&'a str>,
}

/// One JSON line per input document, in input order.
pub fn write_report(
    out: &mut impl Write,
    entries: &[Entry],
    outcome: &DedupOutcome,
) -> io::Result<()> {
    let unsigned: std::collections::HashMap<u32, &str> =
        outcome.unsigned.iter().map(|(d, r)| (*d, r.as_str())).collect();
    for e in entries {
        let skipped = |id, reason, lang| ReportLine {
            id,
            status: "skipped",
            lang,
            of: None,
            similarity: None,
            kind: None,
            reason: Some(reason),
            unsigned: None,
        };
        let line = match e {
            Entry::Skipped { id, reason } => skipped(id, reason, None),
            Entry::Doc { index, lang } => {
                let (i, lang) = (*index, *lang);
                let id = &outcome.ids[i as usize];
                match &outcome.statuses[i as usize] {
                    DocStatus::Kept => ReportLine {
                        id,
                        status: "kept",
                        lang,
                        of: None,
                        similarity: None,
                        kind: None,
                        reason: None,
                        unsigned: unsigned.get(&i).copied(),
                    },
                    DocStatus::Duplicate { of, similarity, kind } => ReportLine {
                        id,
                        status: "duplicate",
                        lang,
                        of: Some(&outcome.ids[*of as usize]),
                        similarity: Some(round6(*similarity)),
                        kind: Some(kind.as_str()),
                        reason: None,
                        unsigned: unsigned.get(&i).copied(),
                    },
                    DocStatus::Skipped { reason } => skipped(id, reason.as_str(), lang),
                }
            }
        };
        serde_json::to_writer(&mut *out, &line)?;
        out.write_all(b"\n")?;
    }
    Ok(())
}

/// The JSON line written to `--output` for each kept document, kept on disk until the end.
pub struct PayloadStore {
    writer: Option<BufWriter<File>>,
    file: Option<File>,
    offsets: Vec<u64>,
}

impl PayloadStore {
    pub fn new(dir: Option<&Path>) -> Result<Self> {
        let file = match dir {
            Some(d) => tempfile::tempfile_in(d),
            None => tempfile::tempfile(),
        }
        .context("cannot create a temporary file for --output")?;
        Ok(PayloadStore {
            writer: Some(BufWriter::with_capacity(1 << 20, file)),
            file: None,
            offsets: vec![0],
        })
    }

    /// Appends the payload of the next pipeline document.
    pub fn push(&mut self, payload: &[u8]) -> Result<()> {
        let w = self.writer.as_mut().context("payload store is sealed")?;
        w.write_all(payload).context("cannot write the temporary file for --output")?;
        let last = *self.offsets.last().unwrap_or(&0);
        self.offsets.push(last + payload.len() as u64);
        Ok(())
    }

    /// Writes the payloads of the kept documents, in input order, one per line.
    pub fn write_kept(&mut self, out: &mut impl Write, outcome: &DedupOutcome) -> Result<u64> {
        if let Some(w) = self.writer.take() {
            self.file = Some(w.into_inner().map_err(|e| e.into_error())?);
        }
        let file = self.file.as_ref().context("payload store is not sealed")?;
        let mut buf = Vec::new();
        let mut kept = 0;
        for (i, status) in outcome.statuses.iter().enumerate() {
            if *status != DocStatus::Kept {
                continue;
            }
            let (lo, hi) = (self.offsets[i], self.offsets[i + 1]);
            buf.resize((hi - lo) as usize, 0);
            read_exact_at(file, &mut buf, lo)?;
            out.write_all(&buf)?;
            out.write_all(b"\n")?;
            kept += 1;
        }
        Ok(kept)
    }
}

/// Reads exactly `buf.len()` bytes of `file` at `offset` (a positioned read: the file's cursor is
/// not used).
#[cfg(unix)]
fn read_exact_at(file: &File, buf: &mut [u8], offset: u64) -> io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, buf, offset)
}

/// Reads exactly `buf.len()` bytes of `file` at `offset`.
#[cfg(not(unix))]
fn read_exact_at(file: &File, buf: &mut [u8], offset: u64) -> io::Result<()> {
    seek_read_exact_at(file, buf, offset)
}

/// [`read_exact_at`] without positioned reads: a seek, then a read. It moves the file's cursor,
/// which is harmless where it is used: [`PayloadStore::write_kept`] has the file to itself
/// (`&mut self`) and sets the position before every read.
#[cfg_attr(unix, allow(dead_code))]
fn seek_read_exact_at(mut file: &File, buf: &mut [u8], offset: u64) -> io::Result<()> {
    use std::io::{Read, Seek, SeekFrom};
    file.seek(SeekFrom::Start(offset))?;
    file.read_exact(buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positioned_reads_agree_with_seek_and_read() -> Result<()> {
        let mut file = tempfile::tempfile()?;
        file.write_all(b"0123456789abcdef")?;
        for (offset, len) in [(0, 4), (10, 6), (3, 0), (15, 1), (2, 9)] {
            let (mut a, mut b) = (vec![0; len], vec![0; len]);
            read_exact_at(&file, &mut a, offset)?;
            seek_read_exact_at(&file, &mut b, offset)?;
            assert_eq!(a, b);
            assert_eq!(a, &b"0123456789abcdef"[offset as usize..offset as usize + len]);
        }
        let mut past_the_end = [0; 4];
        assert!(read_exact_at(&file, &mut past_the_end, 14).is_err());
        assert!(seek_read_exact_at(&file, &mut past_the_end, 14).is_err());
        Ok(())
    }
}
