//! Expanding arguments: directories, globs, stdin, errors.

use std::path::{Path, PathBuf};

use lookalike_io::{Error, Input, expand_inputs};

use crate::common::write;

fn arg(path: &Path) -> String {
    path.display().to_string()
}

fn paths(inputs: &[Input]) -> Vec<PathBuf> {
    inputs
        .iter()
        .map(|i| match i {
            Input::Path(p) => p.clone(),
            Input::Stdin => PathBuf::from("-"),
        })
        .collect()
}

#[test]
fn directory_recursion_keeps_known_extensions_sorted() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    for name in [
        "b.txt",
        "a.html.gz",
        "sub/z.jsonl",
        "sub/deeper/c.MD",
        "sub/y.ndjson.gz",
        "sub/data.json",
        "page.XHTML",
        "x.htm",
        "notes.text",
        "README",
        "LICENSE",
        "sub/.hidden.txt",
        "sub/deeper/blob.gz",
    ] {
        write(root, name, "x");
    }
    std::fs::write(root.join("sub/deeper/binary"), b"\x7fELF\0\0\x01").unwrap();
    // Names it does not know are judged by their content.
    std::fs::write(root.join("image.png"), b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR").unwrap();
    let mut tar = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    std::io::Write::write_all(&mut tar, &[0u8; 512]).unwrap();
    std::fs::write(root.join("archive.tar.gz"), tar.finish().unwrap()).unwrap();
    write(root, "README.Debian", "notes");
    write(root, "changes.log", "notes");
    let got = expand_inputs(&[arg(root)]).unwrap();
    let rel = |ps: Vec<PathBuf>| -> Vec<String> {
        ps.iter().map(|p| p.strip_prefix(root).unwrap().display().to_string()).collect()
    };
    assert_eq!(
        rel(paths(&got.inputs)),
        [
            "LICENSE",
            "README",
            "README.Debian",
            "a.html.gz",
            "b.txt",
            "changes.log",
            "notes.text",
            "page.XHTML",
            "sub/.hidden.txt",
            "sub/deeper/blob.gz",
            "sub/deeper/c.MD",
            "sub/y.ndjson.gz",
            "sub/z.jsonl",
            "x.htm",
        ]
    );
    let ignored: Vec<PathBuf> = got.ignored.iter().map(|s| s.path.clone()).collect();
    assert_eq!(rel(ignored), ["archive.tar.gz", "image.png", "sub/data.json", "sub/deeper/binary"]);
}

#[cfg(unix)]
#[test]
fn symlink_loops_are_not_followed_forever() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    write(root, "d/a.txt", "x");
    std::os::unix::fs::symlink(root.join("d"), root.join("d/loop")).unwrap();
    std::os::unix::fs::symlink(root.join("d/a.txt"), root.join("d/link.txt")).unwrap();
    let got = expand_inputs(&[arg(root)]).unwrap();
    let names: Vec<_> = paths(&got.inputs)
        .iter()
        .map(|p| p.strip_prefix(root).unwrap().display().to_string())
        .collect();
    assert_eq!(names, ["d/a.txt", "d/link.txt"]);
    assert!(got.ignored.is_empty());
    assert_eq!(got.skipped.len(), 1);
    assert_eq!(got.skipped[0].path, root.join("d/loop"));
    assert_eq!(
        got.skipped[0].reason.as_str(),
        format!("symbolic link loop: leads back to {}", root.join("d").display())
    );
    assert_eq!(got.skipped[0].reason.kind(), lookalike_io::SkipKind::NotOpened);
}

/// Regression: symbolic link loops were counted among the files ignored as "not
/// text"; a link to itself is a loop too.
#[cfg(unix)]
#[test]
fn symlink_loops_are_reported_as_loops_not_as_not_text() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    write(root, "a.txt", "x");
    std::os::unix::fs::symlink(root.join("self.txt"), root.join("self.txt")).unwrap();
    std::os::unix::fs::symlink(root.join("pong"), root.join("ping")).unwrap();
    std::os::unix::fs::symlink(root.join("ping"), root.join("pong")).unwrap();
    let got = expand_inputs(&[arg(root)]).unwrap();
    assert_eq!(paths(&got.inputs), [root.join("a.txt")]);
    assert!(got.ignored.is_empty(), "{:?}", got.ignored);
    let skipped: Vec<_> = got.skipped.iter().map(|s| (s.path.clone(), s.reason.as_str())).collect();
    assert_eq!(
        skipped,
        [
            (root.join("ping"), "symbolic link loop"),
            (root.join("pong"), "symbolic link loop"),
            (root.join("self.txt"), "symbolic link loop"),
        ]
    );
}

/// Makes a FIFO with `mkfifo`; false when the command is not available.
#[cfg(unix)]
fn mkfifo(path: &Path) -> bool {
    std::process::Command::new("mkfifo").arg(path).status().is_ok_and(|s| s.success())
}

/// Regression: a directory holding a FIFO hung forever (the walker opened
/// extension-less names to sniff them, the reader opened `.txt` ones). Special files found in a
/// directory or by a glob are skipped with a reason, never opened: without a writer, opening
/// one here would block this test.
#[cfg(unix)]
#[test]
fn fifos_and_sockets_in_a_directory_are_skipped_without_being_opened() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    write(root, "a.txt", "x");
    let fifos = [root.join("pipe"), root.join("pipe.txt"), root.join("pipe.jsonl.gz")];
    for fifo in &fifos {
        if !mkfifo(fifo) {
            eprintln!("skipped: mkfifo is not available");
            return;
        }
    }
    let socket = root.join("sock.txt");
    let _listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
    let fifo_reason =
        "special file: FIFO (named pipe), not opened (name it on the command line to read it)";
    let socket_reason = "special file: socket, not opened (name it on the command line to read it)";
    let expected = [
        (fifos[0].clone(), fifo_reason),
        (fifos[2].clone(), fifo_reason),
        (fifos[1].clone(), fifo_reason),
        (socket.clone(), socket_reason),
    ];
    let got = expand_inputs(&[arg(root)]).unwrap();
    assert_eq!(paths(&got.inputs), [root.join("a.txt")]);
    assert!(got.ignored.is_empty(), "{:?}", got.ignored);
    let skipped: Vec<_> = got.skipped.iter().map(|s| (s.path.clone(), s.reason.as_str())).collect();
    assert_eq!(skipped, expected);
    // A glob chooses by name, not by kind: the same.
    let got = expand_inputs(&[format!("{}/*", root.display())]).unwrap();
    assert_eq!(paths(&got.inputs), [root.join("a.txt")]);
    let skipped: Vec<_> = got.skipped.iter().map(|s| (s.path.clone(), s.reason.as_str())).collect();
    assert_eq!(skipped, expected);
}

/// A FIFO named on the command line is read (`lookalike dedup <(zcat a.gz)` is one).
#[cfg(unix)]
#[test]
fn a_fifo_named_explicitly_is_read() {
    let tmp = tempfile::tempdir().unwrap();
    let fifo = tmp.path().join("named.jsonl");
    if !mkfifo(&fifo) {
        eprintln!("skipped: mkfifo is not available");
        return;
    }
    let got = expand_inputs(&[arg(&fifo)]).unwrap();
    assert_eq!(got.inputs, [Input::Path(fifo.clone())]);
    assert!(got.skipped.is_empty());
    let writer = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::write(fifo, "{\"id\":\"a\",\"text\":\"hi\"}\n"))
    };
    let records = crate::common::read_all(got.inputs, &lookalike_io::ReadOptions::default());
    writer.join().unwrap().unwrap();
    assert_eq!(records.len(), 1);
    assert_eq!(records[0].as_ref().unwrap().bytes, b"{\"id\":\"a\",\"text\":\"hi\"}");
}

#[test]
fn explicit_files_are_kept_whatever_their_extension() {
    let tmp = tempfile::tempdir().unwrap();
    let odd = write(tmp.path(), "data.xml", "x");
    let got = expand_inputs(&[arg(&odd), "-".to_owned()]).unwrap();
    assert_eq!(got.inputs, [Input::Path(odd), Input::Stdin]);
    assert!(got.ignored.is_empty());
}

#[test]
fn globs_expand_sorted_and_recurse_into_directories() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    write(root, "b.jsonl", "x");
    write(root, "a.jsonl", "x");
    write(root, "c.txt", "x");
    write(root, "d1/e.txt", "x");
    write(root, "d1/skip.bin", "\0\0\x01");

    let got = expand_inputs(&[format!("{}/*.jsonl", root.display())]).unwrap();
    assert_eq!(paths(&got.inputs), [root.join("a.jsonl"), root.join("b.jsonl")]);

    let got = expand_inputs(&[format!("{}/[cd]*", root.display())]).unwrap();
    assert_eq!(paths(&got.inputs), [root.join("c.txt"), root.join("d1/e.txt")]);
    let ignored: Vec<&std::path::Path> = got.ignored.iter().map(|s| s.path.as_path()).collect();
    assert_eq!(ignored, [root.join("d1/skip.bin")]);
    let reason = &got.ignored[0].reason;
    assert!(reason.as_str().starts_with("binary file: NUL bytes"), "{:?}", got.ignored);
    assert_eq!(reason.kind(), lookalike_io::SkipKind::NotADocument);

    let got = expand_inputs(&[format!("{}/?.txt", root.display())]).unwrap();
    assert_eq!(paths(&got.inputs), [root.join("c.txt")]);
}

#[test]
fn errors_name_the_argument_and_stop_expansion() {
    let tmp = tempfile::tempdir().unwrap();
    let ok = write(tmp.path(), "a.txt", "x");
    let missing = arg(&tmp.path().join("missing.txt"));
    let err = expand_inputs(&[arg(&ok), missing.clone()]).unwrap_err();
    assert!(matches!(&err, Error::NotFound { arg } if *arg == missing));
    assert_eq!(err.to_string(), format!("{missing}: no such file or directory"));

    let pattern = format!("{}/*.nothing", tmp.path().display());
    let err = expand_inputs(std::slice::from_ref(&pattern)).unwrap_err();
    assert!(matches!(&err, Error::NoMatch { arg } if *arg == pattern));
    assert!(err.to_string().starts_with(&pattern));
}

#[test]
fn empty_directory_gives_no_inputs() {
    let tmp = tempfile::tempdir().unwrap();
    let got = expand_inputs(&[arg(tmp.path())]).unwrap();
    assert!(got.inputs.is_empty() && got.ignored.is_empty());
}
