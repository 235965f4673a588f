//! Expanding command-line arguments into inputs: contract: "give me `-`, paths, directories and
//! glob patterns, I give you the list of inputs to read, in a deterministic order".

use std::io;
use std::path::{Path, PathBuf};

use walkdir::WalkDir;

use crate::{Error, Format};

/// One source of bytes to read.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Input {
    /// Standard input (the argument `-`); its format is detected from its content.
    Stdin,
    /// A file (or anything that opens like one: a FIFO, `/dev/fd/N`).
    Path(PathBuf),
}

impl Input {
    /// The name records and errors of this input carry: the path as given, or `-` for stdin.
    pub fn name(&self) -> String {
        match self {
            Input::Stdin => "-".to_owned(),
            Input::Path(p) => p.display().to_string(),
        }
    }
}

/// What [`expand_inputs`] found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Expanded {
    /// The inputs to read, in argument order; a directory's files sorted by name, depth first.
    pub inputs: Vec<Input>,
    /// Files found in directories that are not of a known extension: not read; the caller
    /// reports how many.
    pub ignored: Vec<PathBuf>,
    /// Entries found in directories (or matched by a glob) that were not opened, each with the
    /// reason: special files (FIFOs, sockets, devices), which could block the run forever or
    /// never end, and symbolic link loops. The caller reports each one.
    pub skipped: Vec<SkippedPath>,
}

/// An entry [`expand_inputs`] found but did not open, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkippedPath {
    /// The entry, as found under its argument.
    pub path: PathBuf,
    /// Why it is not read, e.g. `special file: FIFO (named pipe), not opened (name it on the
    /// command line to read it)` or `symbolic link loop: leads back to d`.
    pub reason: String,
}

/// Expands command-line arguments into inputs.
///
/// - `-` is [`Input::Stdin`];
/// - an existing file (any extension; the reader detects its format) is that file, and so is
///   a special file named explicitly (a FIFO such as `<(zcat x.gz)`, `/dev/stdin`): it is read;
/// - an existing directory is every file under it, recursively, following symbolic links,
///   sorted by file name; files whose extension (after stripping `.gz`) is not one of
///   `txt text md html htm xhtml jsonl ndjson warc` go to [`Expanded::ignored`], except files
///   without any extension (`README`, `LICENSE`, `copyright`, `changelog.gz`) whose first KiB
///   has no NUL byte, which are read as text (or as WARC, when they start with `WARC/`); `.json` files are ignored too (
///   in a directory they are almost always single JSON documents such as package metadata, not
///   JSON Lines; name one explicitly, or use a glob, to read it as JSONL);
/// - special files found in a directory or matched by a glob (FIFOs, sockets, block and
///   character devices) are never opened (a FIFO without a writer would block the run forever,
///   a device may never end): they go to [`Expanded::skipped`] with the reason, and so do
///   symbolic links that loop (back to an ancestor directory, or to themselves);
/// - otherwise an argument with a glob metacharacter (`*`, `?`, `[`) is expanded with the `glob`
///   crate, sorted; every matching file is kept whatever its extension (the pattern chose it),
///   matching directories are expanded as above.
///
/// Entries that exist but cannot be walked (an unreadable subdirectory, a broken link) are kept
/// as inputs, so that the [`crate::Reader`] reports them as [`crate::InputError`]s instead of
/// the whole run failing here.
///
/// # Errors
///
/// An argument that names nothing (a missing path, a pattern without matches or an invalid
/// pattern) is an [`Error`] naming the argument.
pub fn expand_inputs(args: &[String]) -> Result<Expanded, Error> {
    let mut out = Expanded::default();
    for arg in args {
        expand_one(arg, &mut out)?;
    }
    Ok(out)
}

fn expand_one(arg: &str, out: &mut Expanded) -> Result<(), Error> {
    if arg == "-" {
        out.inputs.push(Input::Stdin);
        return Ok(());
    }
    let path = Path::new(arg);
    // std::fs rather than fs-err: the Error names the argument already.
    match std::fs::metadata(path) {
        Ok(meta) if meta.is_dir() => {
            walk_dir(path, out);
            Ok(())
        }
        Ok(_) => {
            out.inputs.push(Input::Path(path.to_path_buf()));
            Ok(())
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            if arg.contains(['*', '?', '[']) {
                expand_glob(arg, out)
            } else {
                Err(Error::NotFound { arg: arg.to_owned() })
            }
        }
        Err(error) => Err(Error::Io { arg: arg.to_owned(), error }),
    }
}

fn expand_glob(arg: &str, out: &mut Expanded) -> Result<(), Error> {
    let paths = glob::glob(arg).map_err(|error| Error::Pattern { arg: arg.to_owned(), error })?;
    let mut matches: Vec<PathBuf> = paths
        .map(|m| match m {
            Ok(path) => path,
            // Matched but unreadable: the reader will say why.
            Err(e) => e.path().to_path_buf(),
        })
        .collect();
    if matches.is_empty() {
        return Err(Error::NoMatch { arg: arg.to_owned() });
    }
    matches.sort();
    matches.dedup();
    for path in matches {
        match std::fs::metadata(&path) {
            Ok(meta) if meta.is_dir() => walk_dir(&path, out),
            Ok(meta) if !meta.is_file() => {
                let reason = special_file_reason(&meta.file_type());
                out.skipped.push(SkippedPath { path, reason });
            }
            Err(e) if is_loop_error(&e) => {
                out.skipped.push(SkippedPath { path, reason: LINK_LOOP.to_owned() });
            }
            // A regular file, or one that cannot be inspected: the reader says why.
            _ => out.inputs.push(Input::Path(path)),
        }
    }
    Ok(())
}

/// Whether a file found in a directory is one to read.
fn is_known_file(path: &Path) -> bool {
    let Some(name) = path.file_name().map(|n| n.to_string_lossy().to_ascii_lowercase()) else {
        return false;
    };
    let is_json = name.ends_with(".json") || name.ends_with(".json.gz");
    if is_json {
        return false;
    }
    if Format::from_path(path).is_some() {
        return true;
    }
    // Files without an extension (README, LICENSE, copyright, changelog.gz) are read as text
    // when their first bytes look like text.
    let stem = name.strip_suffix(".gz").unwrap_or(&name);
    !stem.contains('.') && looks_like_text(path)
}

/// No NUL byte in the first KiB (after gzip decompression): the usual test for text files.
fn looks_like_text(path: &Path) -> bool {
    use std::io::Read;
    let Ok(file) = std::fs::File::open(path) else {
        // Let the reader report why it cannot be opened.
        return true;
    };
    let mut head = Vec::with_capacity(1024);
    let mut raw = std::io::BufReader::new(file);
    let mut magic = [0u8; 2];
    let n = raw.read(&mut magic).unwrap_or(0);
    let chained = std::io::Read::chain(&magic[..n], raw);
    let ok = if crate::sniff::is_gzip(&magic[..n]) {
        flate2::read::MultiGzDecoder::new(chained).take(1024).read_to_end(&mut head).is_ok()
    } else {
        chained.take(1024).read_to_end(&mut head).is_ok()
    };
    ok && !head.is_empty() && !head.contains(&0)
}

fn walk_dir(root: &Path, out: &mut Expanded) {
    let walk = WalkDir::new(root).follow_links(true).sort_by_file_name();
    for entry in walk {
        match entry {
            Ok(entry) => {
                // With links followed, the type is the target's.
                let file_type = entry.file_type();
                if file_type.is_dir() {
                    continue;
                }
                let path = entry.into_path();
                if !file_type.is_file() {
                    // Never opened: a FIFO blocks until a writer comes, a device may not end.
                    let reason = special_file_reason(&file_type);
                    out.skipped.push(SkippedPath { path, reason });
                } else if is_known_file(&path) {
                    out.inputs.push(Input::Path(path));
                } else {
                    out.ignored.push(path);
                }
            }
            Err(e) => {
                let Some(path) = e.path() else { continue };
                let path = path.to_path_buf();
                if let Some(ancestor) = e.loop_ancestor() {
                    // Its files are read through the real directory.
                    let reason = format!("{LINK_LOOP}: leads back to {}", ancestor.display());
                    out.skipped.push(SkippedPath { path, reason });
                } else if e.io_error().is_some_and(is_loop_error) {
                    out.skipped.push(SkippedPath { path, reason: LINK_LOOP.to_owned() });
                } else {
                    // Unreadable directory or broken link: opening it reports the cause.
                    out.inputs.push(Input::Path(path));
                }
            }
        }
    }
}

/// The reason given for a symbolic link loop (the class of the message in the summary).
const LINK_LOOP: &str = "symbolic link loop";

/// Why a file that is neither a regular file nor a directory is not opened.
fn special_file_reason(file_type: &std::fs::FileType) -> String {
    let what = special_file_kind(file_type);
    format!("special file: {what}, not opened (name it on the command line to read it)")
}

#[cfg(unix)]
fn special_file_kind(file_type: &std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if file_type.is_fifo() {
        "FIFO (named pipe)"
    } else if file_type.is_socket() {
        "socket"
    } else if file_type.is_block_device() {
        "block device"
    } else if file_type.is_char_device() {
        "character device"
    } else {
        "not a regular file"
    }
}

#[cfg(not(unix))]
fn special_file_kind(_: &std::fs::FileType) -> &'static str {
    "not a regular file"
}

/// Whether an error is ELOOP, "too many levels of symbolic links" (a link that leads to
/// itself); `io::ErrorKind::FilesystemLoop` is not stable yet, hence the raw number.
fn is_loop_error(e: &io::Error) -> bool {
    #[cfg(unix)]
    return e.raw_os_error() == Some(rustix::io::Errno::LOOP.raw_os_error());
    #[cfg(not(unix))]
    return {
        let _ = e;
        false
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dash_is_stdin_and_missing_path_is_an_error_naming_it() {
        let got = expand_inputs(&["-".to_owned()]).unwrap();
        assert_eq!(got.inputs, vec![Input::Stdin]);
        let err = expand_inputs(&["/no/such/lookalike/file.txt".to_owned()]).unwrap_err();
        assert!(matches!(err, Error::NotFound { .. }));
        assert_eq!(err.to_string(), "/no/such/lookalike/file.txt: no such file or directory");
    }

    #[test]
    fn glob_without_match_and_bad_pattern() {
        let err = expand_inputs(&["/no/such/lookalike/*.txt".to_owned()]).unwrap_err();
        assert!(matches!(err, Error::NoMatch { .. }), "{err}");
        let err = expand_inputs(&["/no/such/lookalike/[".to_owned()]).unwrap_err();
        assert!(matches!(err, Error::Pattern { .. }), "{err}");
        assert_eq!(err.arg(), "/no/such/lookalike/[");
    }

    #[test]
    fn input_names() {
        assert_eq!(Input::Stdin.name(), "-");
        assert_eq!(Input::Path("a/b.txt".into()).name(), "a/b.txt");
    }
}
