//! Output files: written atomically (a temporary file beside the target, renamed at the end), or
//! to stdout for `-`. The formats are `lookalike-io`'s sinks, which write into an [`OutputFile`].

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::PathBuf;

use anyhow::{Context, Result};

/// Where one output goes.
pub enum OutputFile {
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

impl OutputFile {
    /// Opens `target` (`-` is stdout). The file appears only when [`OutputFile::commit`] succeeds.
    pub fn open(target: &str) -> Result<OutputFile> {
        if target == "-" {
            return Ok(OutputFile::Stdout(BufWriter::with_capacity(1 << 16, io::stdout())));
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
            return Ok(OutputFile::Special { file: BufWriter::with_capacity(1 << 16, file), path });
        }
        let dir = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let tmp = tempfile::Builder::new()
            .prefix(".lookalike-")
            .tempfile_in(&dir)
            .with_context(|| format!("cannot create a file in {}", dir.display()))?;
        Ok(OutputFile::File { tmp: BufWriter::with_capacity(1 << 16, tmp), path })
    }

    /// Flushes and, for a file, renames it into place.
    pub fn commit(self) -> Result<()> {
        match self {
            OutputFile::Stdout(mut w) => w.flush().context("cannot write to stdout"),
            OutputFile::Special { mut file, path } => {
                file.flush().with_context(|| format!("cannot write {}", path.display()))
            }
            OutputFile::File { tmp, path } => {
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
            OutputFile::Stdout(_) => "stdout".into(),
            OutputFile::File { path, .. } | OutputFile::Special { path, .. } => {
                path.display().to_string()
            }
        }
    }
}

impl Write for OutputFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            OutputFile::Stdout(w) => w.write(buf),
            OutputFile::File { tmp, .. } => tmp.write(buf),
            OutputFile::Special { file, .. } => file.write(buf),
        }
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        match self {
            OutputFile::Stdout(w) => w.write_all(buf),
            OutputFile::File { tmp, .. } => tmp.write_all(buf),
            OutputFile::Special { file, .. } => file.write_all(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            OutputFile::Stdout(w) => w.flush(),
            OutputFile::File { tmp, .. } => tmp.flush(),
            OutputFile::Special { file, .. } => file.flush(),
        }
    }
}
