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
        "image.png",
        "archive.tar.gz",
        "README",
        "LICENSE",
        "sub/.hidden.txt",
        "sub/deeper/blob.gz",
    ] {
        write(root, name, "x");
    }
    std::fs::write(root.join("sub/deeper/binary"), b"\x7fELF\0\0\x01").unwrap();
    let got = expand_inputs(&[arg(root)]).unwrap();
    let rel = |ps: Vec<PathBuf>| -> Vec<String> {
        ps.iter().map(|p| p.strip_prefix(root).unwrap().display().to_string()).collect()
    };
    assert_eq!(
        rel(paths(&got.inputs)),
        [
            "LICENSE",
            "README",
            "a.html.gz",
            "b.txt",
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
    assert_eq!(
        rel(got.ignored),
        ["archive.tar.gz", "image.png", "sub/data.json", "sub/deeper/binary"]
    );
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
    assert_eq!(got.ignored, [root.join("d/loop")]);
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
    write(root, "d1/skip.bin", "x");

    let got = expand_inputs(&[format!("{}/*.jsonl", root.display())]).unwrap();
    assert_eq!(paths(&got.inputs), [root.join("a.jsonl"), root.join("b.jsonl")]);

    let got = expand_inputs(&[format!("{}/[cd]*", root.display())]).unwrap();
    assert_eq!(paths(&got.inputs), [root.join("c.txt"), root.join("d1/e.txt")]);
    assert_eq!(got.ignored, [root.join("d1/skip.bin")]);

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
