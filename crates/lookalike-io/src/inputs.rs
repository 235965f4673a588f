//! Expanding command-line arguments into inputs: contract: "give me `-`, paths, directories and
//! glob patterns, I give you the list of inputs to read, in a deterministic order".

use std::io;
use std::path::{Path, PathBuf};

use walkdir::WalkDir;

use crate::skip::SkipReason;
use crate::sniff::{self, SNIFF_LEN};
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
    /// Files found in directories that are not read, each with the reason: binary content
    /// (images, executables, archives, compressed binary data), empty files of an unknown
    /// extension, `.json` documents. The caller reports them.
    pub ignored: Vec<SkippedPath>,
    /// Entries found in directories (or matched by a glob) that were not opened, each with the
    /// reason: special files (FIFOs, sockets, devices), which could block the run forever or
    /// never end, and symbolic link loops. The caller reports each one.
    pub skipped: Vec<SkippedPath>,
}

/// An entry [`expand_inputs`] found but did not open or read, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkippedPath {
    /// The entry, as found under its argument.
    pub path: PathBuf,
    /// Why it is not read, e.g. `binary file: image/png` ([`SkipKind::NotADocument`]), `empty
    /// file` ([`SkipKind::Empty`]), `special file: FIFO (named pipe), not opened (name it on the
    /// command line to read it)` or `symbolic link loop: leads back to d`
    /// ([`SkipKind::NotOpened`]).
    ///
    /// [`SkipKind::NotADocument`]: crate::SkipKind::NotADocument
    /// [`SkipKind::Empty`]: crate::SkipKind::Empty
    /// [`SkipKind::NotOpened`]: crate::SkipKind::NotOpened
    pub reason: SkipReason,
}

/// Expands command-line arguments into inputs.
///
/// - `-` is [`Input::Stdin`];
/// - an existing file (any extension; the reader detects its format) is that file, and so is
///   a special file named explicitly (a FIFO such as `<(zcat x.gz)`, `/dev/stdin`): it is read;
/// - an existing directory is every file under it, recursively, following symbolic links,
///   sorted by file name. A file of a known extension (after stripping `.gz`: `txt text md html
///   htm xhtml jsonl ndjson warc parquet pq`) is read; any other is read when its content is text
///   (`README`, `README.Debian`, `changelog.Debian.gz`, `NEWS.md.orig`: read as text, or as WARC
///   or docreader records when they start like them), and goes to [`Expanded::ignored`] with
///   the reason when it is not: binary by its first bytes (after gzip decompression: images,
///   executables, archives, PDF, NUL or control bytes that are not UTF-16 text), or empty.
///   `.json` files are ignored too (in a directory they are almost always single JSON documents
///   such as package metadata, not JSON Lines; name one explicitly, or use a glob, to read it as
///   JSONL);
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
                out.skipped.push(SkippedPath { path, reason: SkipReason::not_opened(LINK_LOOP) });
            }
            // A regular file, or one that cannot be inspected: the reader says why.
            _ => out.inputs.push(Input::Path(path)),
        }
    }
    Ok(())
}

/// Why a file found in a directory is not read, or `None` to read it: by its name for known
/// extensions and `.json`, else by its content ([`content_not_text`]).
fn ignore_reason(path: &Path) -> Option<SkipReason> {
    let name = path.file_name()?.to_string_lossy().to_ascii_lowercase();
    if name.ends_with(".json") || name.ends_with(".json.gz") {
        return Some(SkipReason::not_a_document(JSON_DOCUMENT));
    }
    let bare = name.strip_suffix(".gz").unwrap_or(&name);
    if let Some(ext) = WEB_ASSETS.iter().find(|e| bare.ends_with(*e)) {
        return Some(SkipReason::not_a_document(format!("{WEB_ASSET} ({ext})")));
    }
    if Format::from_path(path).is_some() {
        return None;
    }
    content_not_text(path)
}

/// Text files a folder of web pages holds beside the pages, not documents: scripts, styles,
/// source maps, vector images. Measured on `/usr/share/doc`: read by their content alone, about
/// 77,000 of them (SVG 31k, source maps 28k, JavaScript 18k) joined the documents.
const WEB_ASSETS: [&str; 5] = [".js", ".mjs", ".css", ".map", ".svg"];

/// The reason given for [`WEB_ASSETS`] found in directories.
const WEB_ASSET: &str = "web page asset, not a document (name it to read it)";

/// The reason given for `.json` files found in directories.
const JSON_DOCUMENT: &str = "JSON document (name it, or use a glob, to read it as JSON Lines)";

/// Why a file's content is not text, judged from its first [`SNIFF_LEN`] bytes (decompressed when
/// it is gzip): empty, binary by its magic bytes (`binary file: image/png`), or NUL or control
/// bytes that are not UTF-16 text. `None` for text, and for a file that cannot be read (the
/// reader reports why).
fn content_not_text(path: &Path) -> Option<SkipReason> {
    use std::io::Read;
    let file = std::fs::File::open(path).ok()?;
    let mut raw = Vec::with_capacity(SNIFF_LEN);
    file.take(SNIFF_LEN as u64).read_to_end(&mut raw).ok()?;
    if raw.is_empty() {
        return Some(SkipReason::empty("empty file"));
    }
    if !sniff::is_gzip(&raw) {
        return sniff::binary_reason(&raw).map(SkipReason::not_a_document);
    }
    let file = std::fs::File::open(path).ok()?;
    let mut head = Vec::with_capacity(SNIFF_LEN);
    let decoder = flate2::read::MultiGzDecoder::new(std::io::BufReader::new(file));
    // A gzip stream that is corrupt from the start is read, for the reader to report.
    decoder.take(SNIFF_LEN as u64).read_to_end(&mut head).ok()?;
    if head.is_empty() {
        return Some(SkipReason::empty("empty file (gzip)"));
    }
    sniff::binary_reason(&head)
        .map(|reason| SkipReason::not_a_document(format!("{reason} (gzip-compressed)")))
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
                } else if let Some(reason) = ignore_reason(&path) {
                    out.ignored.push(SkippedPath { path, reason });
                } else {
                    out.inputs.push(Input::Path(path));
                }
            }
            Err(e) => {
                let Some(path) = e.path() else { continue };
                let path = path.to_path_buf();
                if let Some(ancestor) = e.loop_ancestor() {
                    // Its files are read through the real directory.
                    let reason = SkipReason::not_opened(format!(
                        "{LINK_LOOP}: leads back to {}",
                        ancestor.display()
                    ));
                    out.skipped.push(SkippedPath { path, reason });
                } else if e.io_error().is_some_and(is_loop_error) {
                    out.skipped
                        .push(SkippedPath { path, reason: SkipReason::not_opened(LINK_LOOP) });
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
fn special_file_reason(file_type: &std::fs::FileType) -> SkipReason {
    let what = special_file_kind(file_type);
    SkipReason::not_opened(format!(
        "special file: {what}, not opened (name it on the command line to read it)"
    ))
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
    use crate::skip::SkipKind;

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

    fn gzip(bytes: &[u8]) -> Vec<u8> {
        use std::io::Write;
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        enc.write_all(bytes).unwrap();
        enc.finish().unwrap()
    }

    /// Regression: a folder argument read `README` and `copyright` but
    /// silently ignored `README.Debian` and `changelog.Debian.gz` (text files of names it did not
    /// know). Files of unknown names are judged by their content; those not read are listed,
    /// each with its reason.
    #[test]
    fn folder_files_are_read_by_content_and_the_others_listed_with_why() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let text = b"procps for Debian\n\nThis package has some notes.\n";
        let utf16: Vec<u8> =
            "A note in UTF-16.\n".encode_utf16().flat_map(u16::to_le_bytes).collect();
        let mut tar = b"doc/notes.txt".to_vec();
        tar.resize(512, 0);
        let files: [(&str, Vec<u8>); 14] = [
            ("README.Debian", text.to_vec()),
            ("changelog.Debian.gz", gzip(text)),
            ("copyright", text.to_vec()),
            ("notes.txt", text.to_vec()),
            ("utf16.log", utf16),
            ("logo.png", b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec()),
            ("prog", b"\x7fELF\x02\x01\x01\0\0\0".to_vec()),
            ("docs.tar.gz", gzip(&tar)),
            ("data.bin", b"\x01\x02\x03\x04\x05\x06\x07\x08 ab".to_vec()),
            ("empty.conf", Vec::new()),
            ("package.json", b"{\"name\": \"x\"}".to_vec()),
            ("x.gz", gzip(b"")),
            ("search.js", b"var index = {};".to_vec()),
            ("logo.svg.gz", gzip(b"<svg xmlns='http://www.w3.org/2000/svg'/>")),
        ];
        for (name, bytes) in &files {
            std::fs::write(d.join(name), bytes).unwrap();
        }
        let got = expand_inputs(&[d.display().to_string()]).unwrap();
        let names = |paths: Vec<&Path>| -> Vec<String> {
            paths.iter().map(|p| p.file_name().unwrap().to_string_lossy().into_owned()).collect()
        };
        let read: Vec<&Path> = got
            .inputs
            .iter()
            .map(|i| match i {
                Input::Path(p) => p.as_path(),
                Input::Stdin => unreachable!(),
            })
            .collect();
        assert_eq!(
            names(read),
            ["README.Debian", "changelog.Debian.gz", "copyright", "notes.txt", "utf16.log"]
        );
        let ignored: Vec<(String, &str)> = got
            .ignored
            .iter()
            .map(|s| (names(vec![s.path.as_path()]).remove(0), s.reason.as_str()))
            .collect();
        assert_eq!(
            ignored,
            [
                ("data.bin".to_owned(), "binary file: control bytes"),
                (
                    "docs.tar.gz".to_owned(),
                    "binary file: NUL bytes (not text, and not UTF-16) (gzip-compressed)"
                ),
                ("empty.conf".to_owned(), "empty file"),
                ("logo.png".to_owned(), "binary file: image/png"),
                ("logo.svg.gz".to_owned(), &format!("{WEB_ASSET} (.svg)")),
                ("package.json".to_owned(), JSON_DOCUMENT),
                ("prog".to_owned(), "binary file: application/x-executable"),
                ("search.js".to_owned(), &format!("{WEB_ASSET} (.js)")),
                ("x.gz".to_owned(), "empty file (gzip)"),
            ]
        );
        let kinds: Vec<SkipKind> = got.ignored.iter().map(|s| s.reason.kind()).collect();
        let not_a_doc = SkipKind::NotADocument;
        let mut want = vec![not_a_doc; 9];
        (want[2], want[8]) = (SkipKind::Empty, SkipKind::Empty);
        assert_eq!(kinds, want, "empty files are Empty, the others not documents");
    }

    #[test]
    fn input_names() {
        assert_eq!(Input::Stdin.name(), "-");
        assert_eq!(Input::Path("a/b.txt".into()).name(), "a/b.txt");
    }
}
