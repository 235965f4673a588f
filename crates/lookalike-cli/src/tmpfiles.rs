//! The temporary files of outputs and the run's spill directory: named so that a later run can
//! recognise them, removed when the process is interrupted, and cleaned up (or finished) by the
//! next run writing into the same folder when the process that made them was killed.
//!
//! Names: `.lookalike-tmp-<pid>-<random>` for an output being written, and
//! `.lookalike-tmp-<pid>-<random>.commit` for the journal of a commit in progress (the list of
//! temporary files and the outputs they replace). A run that opens an output in a folder first
//! looks there for files of this pattern whose process is no longer alive: a journal is rolled
//! forward (the renames it lists that had not happened yet are done, so the killed run's outputs
//! are all replaced, never some of them), then every other such file is removed.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, PoisonError};

/// The start of every temporary file name.
pub const PREFIX: &str = ".lookalike-tmp-";
/// The end of a commit journal's name.
const JOURNAL_SUFFIX: &str = ".commit";

/// Temporary files of this process that exist now: removed on SIGINT, SIGTERM and SIGHUP. The
/// lock is also held while outputs are renamed into place, so that a signal waits for the commit
/// to end instead of cutting it in half.
static REGISTRY: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

fn registry() -> MutexGuard<'static, Vec<PathBuf>> {
    REGISTRY.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Elsewhere than Unix no handler is installed: an interrupted run's temporary files stay, as
/// after a kill (and without a liveness check there, later runs leave them alone).
#[cfg(not(unix))]
pub fn handle_signals() -> io::Result<()> {
    Ok(())
}

/// Starts the thread that, on SIGINT, SIGTERM or SIGHUP, removes this process's temporary files
/// and exits with 128 + the signal number (130, 143, 129). Called once, before any output is
/// opened.
#[cfg(unix)]
pub fn handle_signals() -> io::Result<()> {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP])?;
    std::thread::Builder::new().name("signals".into()).spawn(move || {
        if let Some(sig) = signals.forever().next() {
            let mut files = registry();
            for path in files.drain(..) {
                let _ = remove_any(&path);
            }
            let name = match sig {
                SIGINT => "SIGINT",
                SIGTERM => "SIGTERM",
                _ => "SIGHUP",
            };
            eprintln!("lookalike: interrupted ({name}): temporary files removed");
            std::process::exit(128 + sig);
        }
    })?;
    Ok(())
}

/// A new, empty temporary file in `dir` (mode 0666 less the umask, as any new file), registered
/// for removal on a signal.
pub fn create_in(dir: &Path) -> io::Result<(File, PathBuf)> {
    let mut files = registry();
    let (file, path) = create_unregistered(dir, "")?;
    files.push(path.clone());
    Ok((file, path))
}

fn create_unregistered(dir: &Path, suffix: &str) -> io::Result<(File, PathBuf)> {
    create_named(dir, suffix, |path| {
        let mut o = OpenOptions::new();
        o.write(true).create_new(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut o, 0o666);
        o.open(path)
    })
}

/// Creates `.lookalike-tmp-<pid>-<random><suffix>` in `dir` with `make`, trying another random
/// part when the name is taken. The error is the OS error alone (callers name the folder).
fn create_named<T>(
    dir: &Path,
    suffix: &str,
    make: impl Fn(&Path) -> io::Result<T>,
) -> io::Result<(T, PathBuf)> {
    use std::hash::BuildHasher;
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let pid = std::process::id();
    let mut last = None;
    for _ in 0..64 {
        // A per-process random key (std's hasher seed), the time and a counter.
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let r = std::collections::hash_map::RandomState::new().hash_one((
            std::time::SystemTime::now(),
            n,
            pid,
        ));
        let path = dir.join(format!("{PREFIX}{pid}-{:08x}{suffix}", r as u32));
        match make(&path) {
            Ok(t) => return Ok((t, path)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last.unwrap_or_else(|| io::Error::other("no free temporary name")))
}

/// Removes a temporary file of this process (a failed or abandoned output).
pub fn remove(path: &Path) {
    let mut files = registry();
    files.retain(|p| p != path);
    let _ = std::fs::remove_file(path);
}

/// Removes a temporary file or directory (with what it holds).
fn remove_any(path: &Path) -> io::Result<()> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.is_dir() => std::fs::remove_dir_all(path),
        Ok(_) => std::fs::remove_file(path),
        Err(e) => Err(e),
    }
}

/// A directory of this run's spill files (`.lookalike-tmp-<pid>-<random>` in `parent`), removed
/// with its content when dropped, on a signal, or by the next run after a kill.
#[derive(Debug)]
pub struct RunDir {
    path: PathBuf,
}

impl RunDir {
    /// Creates it in `parent`.
    pub fn create_in(parent: &Path) -> io::Result<RunDir> {
        let mut files = registry();
        let ((), dir) = create_named(parent, "", |path| {
            let mut b = std::fs::DirBuilder::new();
            // Private: the spill files hold the documents' text.
            #[cfg(unix)]
            std::os::unix::fs::DirBuilderExt::mode(&mut b, 0o700);
            b.create(path)
        })?;
        files.push(dir.clone());
        Ok(RunDir { path: dir })
    }

    /// Its path.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for RunDir {
    fn drop(&mut self) {
        let mut files = registry();
        files.retain(|p| p != &self.path);
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

/// One output to move into place: its temporary file and its final path.
pub struct Rename<'a> {
    pub tmp: &'a Path,
    pub target: &'a Path,
}

/// Renames every temporary file to its target, as one commit: a journal listing the renames is
/// written (and synced) first into the folder of each target, so that if the process is killed
/// between two renames the next run writing into one of those folders finishes them. Signals
/// wait until the renames are done. Returns the targets that could not be replaced, with why.
pub fn commit(renames: &[Rename<'_>]) -> Vec<(PathBuf, io::Error)> {
    let mut files = registry();
    let mut dirs: Vec<PathBuf> = Vec::new();
    for r in renames {
        let dir = parent_dir(r.target);
        if !dirs.contains(&dir) {
            dirs.push(dir);
        }
    }
    let mut journals = Vec::new();
    if renames.len() > 1 {
        for dir in &dirs {
            // Without a journal a kill between the renames could leave a mix of old and new
            // outputs; refuse to go on rather than risk it.
            match write_journal(dir, renames) {
                Ok(j) => journals.push(j),
                Err(e) => {
                    for j in &journals {
                        let _ = std::fs::remove_file(j);
                    }
                    let e = io::Error::new(
                        e.kind(),
                        format!("cannot write the commit journal in {}: {e}", dir.display()),
                    );
                    return renames.iter().map(|r| (r.target.to_path_buf(), clone(&e))).collect();
                }
            }
        }
    }
    let mut failed = Vec::new();
    for r in renames {
        match std::fs::rename(r.tmp, r.target) {
            Ok(()) => files.retain(|p| p != r.tmp),
            Err(e) => failed.push((r.target.to_path_buf(), e)),
        }
    }
    for dir in &dirs {
        let _ = sync_dir(dir);
    }
    for j in &journals {
        let _ = std::fs::remove_file(j);
    }
    failed
}

fn clone(e: &io::Error) -> io::Error {
    io::Error::new(e.kind(), e.to_string())
}

/// The folder a path is in (`.` for a bare file name).
pub fn parent_dir(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// Writes `.lookalike-tmp-<pid>-<random>.commit` in `dir`: the absolute paths of each temporary
/// file and its target, NUL-separated; synced, then made visible under its final name.
fn write_journal(dir: &Path, renames: &[Rename<'_>]) -> io::Result<PathBuf> {
    let (mut file, part) = create_unregistered(dir, "")?;
    let result = (|| {
        let mut bytes = Vec::new();
        for r in renames {
            for p in [r.tmp, r.target] {
                bytes.extend_from_slice(&path_bytes(&std::path::absolute(p)?)?);
                bytes.push(0);
            }
        }
        file.write_all(&bytes)?;
        file.sync_all()?;
        let mut done = part.clone().into_os_string();
        done.push(JOURNAL_SUFFIX);
        let done = PathBuf::from(done);
        std::fs::rename(&part, &done)?;
        sync_dir(dir)?;
        Ok(done)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&part);
    }
    result
}

#[cfg(unix)]
fn path_bytes(p: &Path) -> io::Result<Vec<u8>> {
    Ok(std::os::unix::ffi::OsStrExt::as_bytes(p.as_os_str()).to_vec())
}

#[cfg(not(unix))]
fn path_bytes(p: &Path) -> io::Result<Vec<u8>> {
    p.to_str()
        .map(|s| s.as_bytes().to_vec())
        .ok_or_else(|| io::Error::other(format!("{} is not UTF-8", p.display())))
}

#[cfg(unix)]
fn bytes_path(b: &[u8]) -> PathBuf {
    PathBuf::from(<std::ffi::OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(b))
}

#[cfg(not(unix))]
fn bytes_path(b: &[u8]) -> PathBuf {
    PathBuf::from(String::from_utf8_lossy(b).into_owned())
}

/// Makes the renames and creations in `dir` durable.
pub fn sync_dir(dir: &Path) -> io::Result<()> {
    #[cfg(unix)]
    {
        File::open(dir)?.sync_all()
    }
    #[cfg(not(unix))]
    {
        let _ = dir;
        Ok(())
    }
}

/// What [`clean_dir`] did.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Cleaned {
    /// Outputs of a killed run's commit that were moved into place.
    pub finished: usize,
    /// Temporary files removed.
    pub removed: usize,
}

/// The pid in a temporary file's name, when the name has the pattern.
fn pid_of(name: &str) -> Option<u32> {
    let rest = name.strip_prefix(PREFIX)?;
    let (pid, _) = rest.split_once('-')?;
    pid.parse().ok()
}

/// Whether process `pid` still runs (it may have another owner: then it runs too).
fn alive(pid: u32) -> bool {
    #[cfg(unix)]
    {
        let Some(pid) = i32::try_from(pid).ok().and_then(rustix::process::Pid::from_raw) else {
            return false;
        };
        match rustix::process::test_kill_process(pid) {
            Ok(()) => true,
            Err(e) => e != rustix::io::Errno::SRCH,
        }
    }
    #[cfg(not(unix))]
    {
        // No portable check: leave the files of other processes alone.
        let _ = pid;
        true
    }
}

/// Finishes or removes what killed runs left in `dir`: the files (and spill directories) named
/// `.lookalike-tmp-<pid>-…` of processes that are no longer alive (never this process's, never a
/// live one's).
pub fn clean_dir(dir: &Path) -> io::Result<Cleaned> {
    let me = std::process::id();
    let mut leftovers = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(pid_of) else { continue };
        if pid == me || alive(pid) {
            continue;
        }
        leftovers.push(entry.path());
    }
    leftovers.sort();
    let mut cleaned = Cleaned::default();
    // Journals first: their renames are finished before the temporary files go.
    for journal in leftovers.iter().filter(|p| p.to_string_lossy().ends_with(JOURNAL_SUFFIX)) {
        let bytes = std::fs::read(journal)?;
        let paths: Vec<PathBuf> =
            bytes.split(|&b| b == 0).filter(|p| !p.is_empty()).map(bytes_path).collect();
        let mut touched = Vec::new();
        for pair in paths.chunks_exact(2) {
            let (tmp, target) = (&pair[0], &pair[1]);
            if tmp.exists() {
                std::fs::rename(tmp, target)?;
                touched.push(parent_dir(target));
                cleaned.finished += 1;
            }
        }
        for d in touched {
            let _ = sync_dir(&d);
        }
        std::fs::remove_file(journal)?;
    }
    for path in leftovers.iter().filter(|p| !p.to_string_lossy().ends_with(JOURNAL_SUFFIX)) {
        match remove_any(path) {
            Ok(()) => cleaned.removed += 1,
            // Renamed by a journal above, or removed by another run meanwhile.
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
    }
    Ok(cleaned)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_carry_the_pid() {
        assert_eq!(pid_of(".lookalike-tmp-1234-AbCd1234"), Some(1234));
        assert_eq!(pid_of(".lookalike-tmp-1234-AbCd1234.commit"), Some(1234));
        assert_eq!(pid_of(".lookalike-XXXXXX"), None);
        assert_eq!(pid_of("pairs.tsv"), None);
    }

    #[test]
    fn this_process_is_alive() {
        assert!(alive(std::process::id()));
    }

    /// A process that ended: the pid of a child that was waited for.
    fn dead_pid() -> u32 {
        let mut child = std::process::Command::new("true").spawn().expect("true runs");
        let pid = child.id();
        child.wait().expect("true ends");
        pid
    }

    #[test]
    fn leftovers_of_a_dead_process_are_removed_and_live_ones_kept() {
        let dir = tempfile::tempdir().unwrap();
        let dead = dead_pid();
        let mine = std::process::id();
        std::fs::write(dir.path().join(format!("{PREFIX}{dead}-abcdefgh")), b"partial").unwrap();
        std::fs::write(dir.path().join(format!("{PREFIX}{mine}-abcdefgh")), b"mine").unwrap();
        std::fs::write(dir.path().join("pairs.tsv"), b"old").unwrap();
        let cleaned = clean_dir(dir.path()).unwrap();
        assert_eq!(cleaned, Cleaned { finished: 0, removed: 1 });
        let mut left: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        left.sort();
        assert_eq!(left, [format!("{PREFIX}{mine}-abcdefgh"), "pairs.tsv".to_owned()]);
    }

    /// A run killed between two renames of its commit: the journal finishes the commit.
    #[test]
    fn a_commit_journal_of_a_killed_run_is_rolled_forward() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let dead = dead_pid();
        let (a_tmp, b_tmp) = (
            d.join(format!("{PREFIX}{dead}-aaaaaaaa")),
            d.join(format!("{PREFIX}{dead}-bbbbbbbb")),
        );
        let (a, b) = (d.join("a.tsv"), d.join("b.jsonl"));
        std::fs::write(&a, b"old a").unwrap();
        std::fs::write(&b, b"old b").unwrap();
        std::fs::write(&b_tmp, b"new b").unwrap();
        // a was already renamed: its temporary file is gone, a holds the new content.
        std::fs::write(&a, b"new a").unwrap();
        let mut journal = Vec::new();
        for p in [&a_tmp, &a, &b_tmp, &b] {
            journal.extend_from_slice(&path_bytes(p).unwrap());
            journal.push(0);
        }
        std::fs::write(d.join(format!("{PREFIX}{dead}-cccccccc.commit")), journal).unwrap();
        let cleaned = clean_dir(d).unwrap();
        assert_eq!(cleaned, Cleaned { finished: 1, removed: 0 });
        assert_eq!(std::fs::read(&a).unwrap(), b"new a");
        assert_eq!(std::fs::read(&b).unwrap(), b"new b");
        assert_eq!(std::fs::read_dir(d).unwrap().count(), 2);
    }
}
