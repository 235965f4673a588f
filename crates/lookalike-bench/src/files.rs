//! File helpers: atomic output files and batched reading of JSONL corpora.

use std::io::{BufRead, BufWriter, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use serde_json::Value;

/// An output file written atomically: data goes to a temporary file next to the destination,
/// renamed over it by [`AtomicFile::commit`]. Dropped without committing, the temporary file is
/// removed and the destination is left untouched.
#[derive(Debug)]
pub struct AtomicFile {
    dest: PathBuf,
    tmp: PathBuf,
    writer: Option<BufWriter<fs_err::File>>,
}

impl AtomicFile {
    /// Starts writing `dest` (its directory must exist).
    pub fn create(dest: &Path) -> Result<AtomicFile> {
        let name = dest.file_name().with_context(|| format!("{} is not a file", dest.display()))?;
        let mut tmp_name = std::ffi::OsString::from(".");
        tmp_name.push(name);
        tmp_name.push(format!(".tmp{}", std::process::id()));
        let tmp = dest.with_file_name(tmp_name);
        let file = fs_err::File::create(&tmp)?;
        Ok(AtomicFile {
            dest: dest.to_owned(),
            tmp,
            writer: Some(BufWriter::with_capacity(1 << 20, file)),
        })
    }

    /// Flushes and renames the temporary file to the destination.
    pub fn commit(mut self) -> Result<()> {
        let writer = self.writer.take().expect("writer present until commit");
        let file = writer.into_inner().map_err(|e| e.into_error())?;
        file.sync_all()?;
        drop(file);
        fs_err::rename(&self.tmp, &self.dest)?;
        Ok(())
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.writer.as_mut().expect("writer present until commit").write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.writer.as_mut().expect("writer present until commit").flush()
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if self.writer.take().is_some() {
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}

/// Names of the JSON fields that hold a record's id and text.
#[derive(Debug, Clone)]
pub struct Fields {
    /// Field with the document id (a string or a number).
    pub id: String,
    /// Field with the document text.
    pub text: String,
}

impl Default for Fields {
    fn default() -> Self {
        Fields { id: "id".into(), text: "text".into() }
    }
}

/// Parses one JSONL record into `(id, text)`. `line_no` (1-based) is only for error messages.
pub fn parse_record(line: &str, fields: &Fields, line_no: u64) -> Result<(String, String)> {
    let mut obj: serde_json::Map<String, Value> =
        serde_json::from_str(line).with_context(|| format!("line {line_no}: not a JSON object"))?;
    let id = match obj.remove(&fields.id) {
        Some(Value::String(s)) => s,
        Some(Value::Number(n)) => n.to_string(),
        _ => bail!("line {line_no}: no string or number field {:?}", fields.id),
    };
    let text = match obj.remove(&fields.text) {
        Some(Value::String(s)) => s,
        _ => bail!("line {line_no}: no string field {:?}", fields.text),
    };
    Ok((id, text))
}

/// Reads the non-empty lines of `path` in batches of `batch` lines and hands each batch, with the
/// 1-based line number of its first line, to `f`.
pub fn for_each_batch(
    path: &Path,
    batch: usize,
    mut f: impl FnMut(&[String], u64) -> Result<()>,
) -> Result<()> {
    let file = fs_err::File::open(path)?;
    let reader = std::io::BufReader::with_capacity(1 << 20, file);
    let mut lines = Vec::with_capacity(batch);
    let mut first = 1u64;
    for (i, line) in reader.lines().enumerate() {
        let line = line.with_context(|| format!("{}: line {}", path.display(), i + 1))?;
        if line.trim().is_empty() {
            continue;
        }
        if lines.is_empty() {
            first = i as u64 + 1;
        }
        lines.push(line);
        if lines.len() == batch {
            f(&lines, first)?;
            lines.clear();
        }
    }
    if !lines.is_empty() {
        f(&lines, first)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_file_commits_or_leaves_nothing() {
        let dir =
            std::env::temp_dir().join(format!("lookalike-bench-files-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let dest = dir.join("out.tsv");
        {
            let mut f = AtomicFile::create(&dest).unwrap();
            f.write_all(b"dropped").unwrap();
        }
        assert!(!dest.exists());
        let mut f = AtomicFile::create(&dest).unwrap();
        f.write_all(b"kept").unwrap();
        f.commit().unwrap();
        assert_eq!(std::fs::read_to_string(&dest).unwrap(), "kept");
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn records_parse_with_custom_fields() {
        let f = Fields { id: "url".into(), text: "body".into() };
        let (id, text) = parse_record(r#"{"url": 7, "body": "a\nb"}"#, &f, 1).unwrap();
        assert_eq!((id.as_str(), text.as_str()), ("7", "a\nb"));
        assert!(parse_record(r#"{"id": "x"}"#, &Fields::default(), 3).is_err());
        assert!(parse_record("not json", &Fields::default(), 4).is_err());
    }
}
