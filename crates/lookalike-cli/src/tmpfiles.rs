//! The temporary files of outputs and the run's spill directory: named so that a later run can
//! recognise them, removed when the process is interrupted, and cleaned up (or finished) by the
//! next run writing into the same folder when the process that made them was killed.
//!
//! Names: `.lookalike-tmp-<pid>-<random>` for an output being written (and a run's spill
//! folder), and `.lookalike-tmp-<pid>-<random>.commit` for the journal of a commit in progress
//! (the list of temporary files and the outputs they replace). Each is locked while its run uses
//! it (an advisory lock on an open handle, `flock` on Unix), and the kernel releases the lock
//! when the process ends, however it ends. A run that opens an output in a folder first looks
//! there for names of this pattern whose lock it can take: their run is gone. A journal is rolled
//! forward (the renames it lists that had not happened yet are done, so the killed run's outputs
//! are all replaced, never some of them), then every other such file is removed. The pid in the
//! name is for people only: pids are not unique across containers that share a folder such as
//! `/tmp`, locks are.

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
/// for removal on a signal, and its lock: keep it until the file is renamed or removed.
pub fn create_in(dir: &Path) -> io::Result<(File, Lock, PathBuf)> {
    let mut files = registry();
    let (file, lock, path) = create_unregistered(dir)?;
    files.push(path.clone());
    Ok((file, lock, path))
}

fn create_unregistered(dir: &Path) -> io::Result<(File, Lock, PathBuf)> {
    create_named(dir, |path| {
        let mut o = OpenOptions::new();
        o.write(true).create_new(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut o, 0o666);
        let file = o.open(path)?;
        let handle = file.try_clone()?;
        Ok((file, handle))
    })
}

/// The lock of a temporary file or folder that a run uses: while it is held (until it is
/// dropped, or the process ends), other runs' cleanups leave the file alone.
#[derive(Debug)]
pub struct Lock {
    _handle: File,
}

/// Creates `.lookalike-tmp-<pid>-<random>` in `dir` with `make` (which returns what it made and
/// a handle to lock it by) and locks it, trying another random part when the name is taken or
/// when another run's cleanup took the new name's lock first (it will remove that one). The
/// error is the OS error alone (callers name the folder).
fn create_named<T>(
    dir: &Path,
    make: impl Fn(&Path) -> io::Result<(T, File)>,
) -> io::Result<(T, Lock, PathBuf)> {
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
        let path = dir.join(format!("{PREFIX}{pid}-{:08x}", r as u32));
        match make(&path) {
            Ok((t, handle)) => {
                if lock_new(&handle, &path) {
                    return Ok((t, Lock { _handle: handle }, path));
                }
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last.unwrap_or_else(|| io::Error::other("no free temporary name")))
}

/// Locks `handle`, just created at `path`: false when another run's cleanup holds its lock (it
/// found the new name between its creation and this lock, and will remove it) or removed it
/// already. On a file system without locks the file stays unlocked: other runs cannot lock it
/// either, so they leave it alone.
fn lock_new(handle: &File, path: &Path) -> bool {
    match handle.try_lock() {
        Ok(()) => same_file(handle, path),
        Err(std::fs::TryLockError::WouldBlock) => false,
        Err(std::fs::TryLockError::Error(_)) => true,
    }
}

/// Whether `path` is still the file `handle` was opened on.
#[cfg(unix)]
fn same_file(handle: &File, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (handle.metadata(), std::fs::symlink_metadata(path)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

#[cfg(not(unix))]
fn same_file(_: &File, path: &Path) -> bool {
    path.exists()
}

/// The lock of a leftover whose run is gone: `None` while a run holds it (this one included:
/// a lock taken through another handle conflicts with it), or when it cannot be opened.
fn take_stale(path: &Path) -> Option<File> {
    let handle = File::open(path).ok()?;
    handle.try_lock().ok()?;
    Some(handle)
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

/// A directory of this run's spill files (`.lookalike-tmp-<pid>-<random>` in `parent`), locked
/// while the run lasts; removed with its content when dropped, on a signal, or by a later run
/// once the lock is free (the process ended).
#[derive(Debug)]
pub struct RunDir {
    path: PathBuf,
    _lock: Lock,
}

impl RunDir {
    /// Creates it in `parent`, locked.
    pub fn create_in(parent: &Path) -> io::Result<RunDir> {
        let mut files = registry();
        let ((), lock, dir) = create_named(parent, |path| {
            let mut b = std::fs::DirBuilder::new();
            // Private: the spill files hold the documents' text.
            #[cfg(unix)]
            std::os::unix::fs::DirBuilderExt::mode(&mut b, 0o700);
            b.create(path)?;
            Ok(((), File::open(path)?))
        })?;
        files.push(dir.clone());
        Ok(RunDir { path: dir, _lock: lock })
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
/// wait until the renames are done. The temporary files must be locked by the caller until this
/// returns. Returns the targets that could not be replaced, with why.
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
                    for (j, _lock) in &journals {
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
    for (j, _lock) in &journals {
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
/// file and its target, NUL-separated; synced, then made visible under its final name. Returned
/// with its lock, to hold until it is removed.
fn write_journal(dir: &Path, renames: &[Rename<'_>]) -> io::Result<(PathBuf, Lock)> {
    let (mut file, lock, part) = create_unregistered(dir)?;
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
    result.map(|journal| (journal, lock))
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

/// Whether a process `pid` runs here (it may have another owner: then it runs too).
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
        // No portable check: the lock decides alone.
        let _ = pid;
        false
    }
}

/// Finishes or removes what killed runs left in `dir`: the files (and spill directories) named
/// `.lookalike-tmp-<pid>-…` whose lock can be taken (never a live run's, this one's included,
/// whichever container or host it runs in, as far as the file system's locks reach) and whose
/// pid runs no process here (a version of lookalike that did not lock its files may be using
/// them: such a leftover waits until that pid is gone).
pub fn clean_dir(dir: &Path) -> io::Result<Cleaned> {
    let mut leftovers = Vec::new();
    // Held until the leftovers are gone.
    let mut locks = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let Some(pid) = entry.file_name().to_str().and_then(pid_of) else { continue };
        if alive(pid) {
            continue;
        }
        let path = entry.path();
        if let Some(lock) = take_stale(&path) {
            leftovers.push(path);
            locks.push(lock);
        }
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

    /// Regression: a run's leftovers are told by their lock, not by the pid
    /// in their name alone, which another container may reuse or may not see. A live run's spill
    /// folder and file (locked through another handle) stay under a pid that is gone here; stale
    /// ones under such a pid go; an unlocked one under a live pid stays (a lookalike that did not
    /// lock may be using it).
    #[test]
    fn cleanup_removes_what_it_can_lock_and_never_a_live_runs_folder() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let (dead, mine) = (dead_pid(), std::process::id());
        let live_dir = d.join(format!("{PREFIX}{dead}-11111111"));
        std::fs::create_dir(&live_dir).unwrap();
        std::fs::write(live_dir.join("run-0"), b"spilled").unwrap();
        let live_file = d.join(format!("{PREFIX}{dead}-22222222"));
        std::fs::write(&live_file, b"partial").unwrap();
        let held: Vec<File> = [&live_dir, &live_file]
            .iter()
            .map(|p| {
                let f = File::open(p).unwrap();
                f.try_lock().unwrap();
                f
            })
            .collect();
        let stale_dir = d.join(format!("{PREFIX}{dead}-33333333"));
        std::fs::create_dir(&stale_dir).unwrap();
        std::fs::write(stale_dir.join("run-0"), b"spilled").unwrap();
        std::fs::write(d.join(format!("{PREFIX}{dead}-44444444")), b"partial").unwrap();
        let unlocked_live = d.join(format!("{PREFIX}{mine}-55555555"));
        std::fs::write(&unlocked_live, b"an older run's").unwrap();
        std::fs::write(d.join("pairs.tsv"), b"old").unwrap();
        let ours = RunDir::create_in(d).unwrap();

        let cleaned = clean_dir(d).unwrap();
        assert_eq!(cleaned, Cleaned { finished: 0, removed: 2 });
        let mut left: Vec<PathBuf> =
            std::fs::read_dir(d).unwrap().map(|e| e.unwrap().path()).collect();
        left.sort();
        let mut want = vec![live_dir.clone(), live_file.clone(), d.join("pairs.tsv")];
        want.extend([ours.path().to_path_buf(), unlocked_live]);
        want.sort();
        assert_eq!(left, want);
        assert!(live_dir.join("run-0").exists());

        // Once the live run ends (its lock released), its leftovers go too.
        drop(held);
        assert_eq!(clean_dir(d).unwrap(), Cleaned { finished: 0, removed: 2 });
        drop(ours);
        assert_eq!(std::fs::read_dir(d).unwrap().count(), 2);
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
