//! Output files: staged in a temporary file beside the target and committed together at the end,
//! or written to stdout for `-`. The formats are `lookalike-io`'s sinks, which write into an
//! [`OutputFile`]; a name ending in `.gz` or `.zst` is compressed (gzip, zstd).
//!
//! The commit rule: every output of a run is written to its temporary file
//! (`.lookalike-tmp-<pid>-<random>` in the target's folder) and synced to disk; only when all of
//! them are complete are they renamed into place, one after the other, under a journal that lets
//! the next run finish the renames if the process is killed between two of them. A run that fails
//! or is interrupted (SIGINT, SIGTERM, SIGHUP) removes its temporary files and leaves the old
//! outputs as they were. A new output gets the mode of any new file (0666 less the umask); an
//! output that replaces a file keeps that file's mode.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::tmpfiles;

/// How an output is compressed, from its name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    None,
    Gzip,
    Zstd,
}

impl Compression {
    /// `.gz` → gzip, `.zst` → zstd (any letter case), anything else uncompressed.
    pub fn from_name(name: &str) -> Compression {
        let lower = name.to_ascii_lowercase();
        if lower.ends_with(".gz") {
            Compression::Gzip
        } else if lower.ends_with(".zst") {
            Compression::Zstd
        } else {
            Compression::None
        }
    }
}

/// The stream an output is written through: plain, gzip or zstd over a buffered file.
enum Encoder {
    Plain(BufWriter<Target>),
    Gzip(flate2::write::GzEncoder<BufWriter<Target>>),
    Zstd(zstd::stream::write::Encoder<'static, BufWriter<Target>>),
}

impl Encoder {
    fn new(target: Target, compression: Compression) -> io::Result<Encoder> {
        let w = BufWriter::with_capacity(1 << 16, target);
        Ok(match compression {
            Compression::None => Encoder::Plain(w),
            Compression::Gzip => {
                Encoder::Gzip(flate2::write::GzEncoder::new(w, flate2::Compression::default()))
            }
            Compression::Zstd => Encoder::Zstd(zstd::stream::write::Encoder::new(w, 3)?),
        })
    }

    /// Ends the compressed stream and flushes everything to the file.
    fn finish(self) -> io::Result<Target> {
        let w = match self {
            Encoder::Plain(w) => w,
            Encoder::Gzip(e) => e.finish()?,
            Encoder::Zstd(e) => e.finish()?,
        };
        w.into_inner().map_err(|e| e.into_error())
    }

    fn get_mut(&mut self) -> &mut dyn Write {
        match self {
            Encoder::Plain(w) => w,
            Encoder::Gzip(e) => e,
            Encoder::Zstd(e) => e,
        }
    }
}

/// What an output's bytes go to.
enum Target {
    Stdout(io::Stdout),
    File(File),
}

impl Write for Target {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Target::Stdout(w) => w.write(buf),
            Target::File(f) => f.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Target::Stdout(w) => w.flush(),
            Target::File(f) => f.flush(),
        }
    }
}

/// Where an output ends up.
enum Place {
    Stdout,
    /// A new or regular file: written to a temporary file beside it, renamed at the commit.
    Staged(Staged),
    /// An existing special file (`/dev/null`, a FIFO, a terminal): written in place, since
    /// renaming over it would replace the device with a regular file.
    Special(PathBuf),
}

/// A temporary file and the target it will replace; removed when dropped uncommitted. Its lock
/// keeps other runs' cleanups away until then.
struct Staged {
    tmp: PathBuf,
    path: PathBuf,
    _lock: tmpfiles::Lock,
}

impl Drop for Staged {
    fn drop(&mut self) {
        if !self.tmp.as_os_str().is_empty() {
            tmpfiles::remove(&self.tmp);
        }
    }
}

/// One output of a run.
pub struct OutputFile {
    out: Encoder,
    place: Place,
}

impl OutputFile {
    /// Opens `target` (`-` is stdout). Leftovers of killed runs in the target's folder are
    /// cleaned up first. The file appears only when [`commit_all`] succeeds.
    pub fn open(target: &str) -> Result<OutputFile> {
        if target == "-" {
            let out = Encoder::new(Target::Stdout(io::stdout()), Compression::None)
                .context("cannot write to stdout")?;
            return Ok(OutputFile { out, place: Place::Stdout });
        }
        let path = PathBuf::from(target);
        let compression = Compression::from_name(target);
        let existing = std::fs::metadata(&path).ok();
        if let Some(meta) = &existing
            && !meta.file_type().is_file()
        {
            if meta.is_dir() {
                anyhow::bail!("{} is a directory", path.display());
            }
            let file = std::fs::OpenOptions::new()
                .write(true)
                .open(&path)
                .with_context(|| format!("cannot open {}", path.display()))?;
            let out = Encoder::new(Target::File(file), compression)
                .with_context(|| format!("cannot write {}", path.display()))?;
            return Ok(OutputFile { out, place: Place::Special(path) });
        }
        let dir = tmpfiles::parent_dir(&path);
        clean_once(&dir);
        let (file, lock, tmp) = tmpfiles::create_in(&dir)
            .with_context(|| format!("cannot create a file in {}", dir.display()))?;
        let staged = Staged { tmp, path, _lock: lock };
        if let Some(meta) = existing {
            // The new file replaces the old one: it keeps the old one's mode.
            file.set_permissions(meta.permissions())
                .with_context(|| format!("cannot set the mode of {}", staged.tmp.display()))?;
        }
        let out = Encoder::new(Target::File(file), compression)
            .with_context(|| format!("cannot write {}", staged.path.display()))?;
        Ok(OutputFile { out, place: Place::Staged(staged) })
    }

    /// The output's name for messages.
    pub fn name(&self) -> String {
        match &self.place {
            Place::Stdout => "stdout".into(),
            Place::Staged(s) => s.path.display().to_string(),
            Place::Special(p) => p.display().to_string(),
        }
    }

    /// Commits this output alone (see [`commit_all`]).
    pub fn commit(self) -> Result<()> {
        commit_all(vec![self])
    }
}

/// Every run cleans a folder once, before its first output there.
pub fn clean_once(dir: &Path) {
    static CLEANED: std::sync::Mutex<Vec<PathBuf>> = std::sync::Mutex::new(Vec::new());
    let mut cleaned = CLEANED.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let key = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    if cleaned.contains(&key) {
        return;
    }
    cleaned.push(key);
    match tmpfiles::clean_dir(dir) {
        // A folder that does not exist holds no leftovers; creating the output there will fail
        // with a message of its own.
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Ok(c) => {
            if c.finished > 0 {
                eprintln!(
                    "lookalike: finished the commit of a run killed while renaming its outputs: {} file{} moved into place in {}",
                    c.finished,
                    if c.finished == 1 { "" } else { "s" },
                    dir.display()
                );
            }
            if c.removed > 0 {
                eprintln!(
                    "lookalike: removed {} temporary file{} left in {} by a run that was killed",
                    c.removed,
                    if c.removed == 1 { "" } else { "s" },
                    dir.display()
                );
            }
        }
        Err(e) => eprintln!(
            "lookalike: warning: cannot clean up the temporary files of killed runs in {}: {e}",
            dir.display()
        ),
    }
}

/// Commits a run's outputs together: each is finished (compressed stream ended, flushed, synced
/// to disk); only if every one succeeded are the staged files renamed into place. On an error
/// no output is replaced and every temporary file is removed.
pub fn commit_all(files: Vec<OutputFile>) -> Result<()> {
    let mut staged = Vec::new();
    for f in files {
        let name = f.name();
        let OutputFile { out, place } = f;
        let finished = out.finish().and_then(|target| match target {
            Target::Stdout(mut s) => s.flush(),
            Target::File(file) => match &place {
                Place::Staged(_) => file.sync_all(),
                _ => Ok(()),
            },
        });
        finished.with_context(|| format!("cannot write {name}"))?;
        if let Place::Staged(s) = place {
            staged.push(s);
        }
    }
    let renames: Vec<tmpfiles::Rename<'_>> =
        staged.iter().map(|s| tmpfiles::Rename { tmp: &s.tmp, target: &s.path }).collect();
    let failed = tmpfiles::commit(&renames);
    drop(renames);
    for s in &mut staged {
        // Renamed: nothing left to remove. The ones that failed are removed on drop.
        if !failed.iter().any(|(p, _)| p == &s.path) {
            s.tmp = PathBuf::new();
        }
    }
    if let Some((path, e)) = failed.first() {
        let others: Vec<String> =
            failed.iter().skip(1).map(|(p, _)| p.display().to_string()).collect();
        let mut msg = format!("cannot write {}: {e}", path.display());
        if !others.is_empty() {
            msg.push_str(&format!(" (also not written: {})", others.join(", ")));
        }
        anyhow::bail!(msg);
    }
    Ok(())
}

impl Write for OutputFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.out.get_mut().write(buf)
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.out.get_mut().write_all(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.get_mut().flush()
    }
}
