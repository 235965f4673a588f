//! The bad-input corpus: every kind of damaged, misnamed, special or ambiguous input
//! a new user meets, generated here (nothing is copied from elsewhere), each case in its own
//! folder with one good document beside the bad ones. For each case `lookalike dedup` runs
//! under a time limit (a hang fails the test), and the test checks:
//! - the exit code (0; 1 with `--strict` when something was lost or skipped);
//! - that nothing panicked;
//! - that every record that was started is in `--report` exactly once, with its fate, its reason
//!   and where it is (source and line, row or WARC record), and nothing else is;
//! - that the messages on stderr name the file and the record.
//!
//! `corpus()` is the generator; a case is a folder of files, the arguments, maybe stdin, and
//! what the report and stderr must say.

use std::io::Write;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use crate::common::*;

/// Where a report line says its record is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pos {
    Whole,
    Line(u64),
    Row(u64),
    Record(u64),
}

/// One report line the case must produce.
#[derive(Debug, Clone)]
struct Fate {
    id: String,
    /// `kept`, `duplicate` or `skipped`.
    status: &'static str,
    /// A part of the skip reason (empty: no reason expected).
    reason: &'static str,
    source: String,
    pos: Pos,
}

fn fate(id: impl Into<String>, status: &'static str, source: &str, pos: Pos) -> Fate {
    Fate { id: id.into(), status, reason: "", source: source.to_owned(), pos }
}

fn kept(id: impl Into<String>, source: &str, pos: Pos) -> Fate {
    fate(id, "kept", source, pos)
}

fn skipped(id: impl Into<String>, reason: &'static str, source: &str, pos: Pos) -> Fate {
    Fate { reason, ..fate(id, "skipped", source, pos) }
}

/// Something the case writes before the run that cannot be a plain file.
enum Special {
    Fifo(&'static str),
    Symlink {
        link: &'static str,
        target: &'static str,
    },
    /// A FIFO named on the command line, written by a thread while the run reads it.
    FedFifo {
        name: &'static str,
        content: Vec<u8>,
    },
}

struct Case {
    name: &'static str,
    files: Vec<(String, Vec<u8>)>,
    special: Vec<Special>,
    args: Vec<String>,
    stdin: Option<Vec<u8>>,
    report: Vec<Fate>,
    /// Each must appear in stderr (file and record named).
    stderr: Vec<String>,
    /// Whether `--strict` must fail (records lost or skipped, input errors).
    problems: bool,
}

impl Case {
    fn new(name: &'static str) -> Case {
        Case {
            name,
            files: vec![("good.txt".to_owned(), good_text(name).into_bytes())],
            special: vec![],
            args: vec!["good.txt".to_owned()],
            stdin: None,
            report: vec![kept("good.txt", "good.txt", Pos::Whole)],
            stderr: vec![],
            problems: true,
        }
    }

    fn file(mut self, name: &str, bytes: impl Into<Vec<u8>>) -> Case {
        self.files.push((name.to_owned(), bytes.into()));
        self
    }

    fn arg(mut self, arg: &str) -> Case {
        self.args.push(arg.to_owned());
        self
    }

    fn fates(mut self, fates: impl IntoIterator<Item = Fate>) -> Case {
        self.report.extend(fates);
        self
    }

    fn says(mut self, text: impl Into<String>) -> Case {
        self.stderr.push(text.into());
        self
    }

    fn no_problems(mut self) -> Case {
        self.problems = false;
        self
    }
}

/// A text of its own for every case's good document (so that no two cases' documents match).
fn good_text(seed: &str) -> String {
    let seed = seed.bytes().fold(7u64, |h, b| h.wrapping_mul(31).wrapping_add(u64::from(b)));
    words(seed, 60)
}

fn jsonl(lines: &[(&str, &str)]) -> Vec<u8> {
    lines
        .iter()
        .map(|(id, text)| serde_json::json!({"id": id, "text": text}).to_string() + "\n")
        .collect::<String>()
        .into_bytes()
}

/// A WARC response record (plain text payload) with a Content-Length that may lie.
fn response_with_length(uri: &str, body: &str, extra: usize, shorter: usize) -> Vec<u8> {
    let block = format!("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\n{body}");
    let length = block.len() + extra - shorter;
    format!(
        "WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: {uri}\r\nContent-Length: \
         {length}\r\n\r\n{block}\r\n\r\n"
    )
    .into_bytes()
}

fn response(uri: &str, body: &str) -> Vec<u8> {
    response_with_length(uri, body, 0, 0)
}

fn response_chunked(uri: &str, chunked_body: &str) -> Vec<u8> {
    let block = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n\
         {chunked_body}"
    );
    format!(
        "WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: {uri}\r\nContent-Length: {}\r\n\r\n\
         {block}\r\n\r\n",
        block.len()
    )
    .into_bytes()
}

/// A small PNG: signature and an IHDR chunk.
fn png() -> Vec<u8> {
    let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x10\0\0\0\x10\x08\x06\0\0\0".to_vec();
    png.extend((0..300u32).map(|i| (i * 37 % 256) as u8));
    png
}

fn utf16le(text: &str) -> Vec<u8> {
    text.encode_utf16().flat_map(u16::to_le_bytes).collect()
}

fn utf16be(text: &str) -> Vec<u8> {
    text.encode_utf16().flat_map(u16::to_be_bytes).collect()
}

/// A Parquet file of dictionary-encoded (pandas `category`-like) text and id columns.
fn dictionary_parquet() -> Vec<u8> {
    use arrow_array::types::{Int8Type, Int32Type};
    use arrow_array::{ArrayRef, DictionaryArray, RecordBatch};
    let (a, b) = (words(90, 40), words(91, 40));
    let texts: DictionaryArray<Int8Type> =
        [Some(a.as_str()), Some(b.as_str()), None].into_iter().collect();
    let ids: DictionaryArray<Int32Type> =
        [Some("p1"), Some("p2"), Some("p3")].into_iter().collect();
    let batch = RecordBatch::try_from_iter([
        ("text", Arc::new(texts) as ArrayRef),
        ("id", Arc::new(ids) as ArrayRef),
    ])
    .unwrap();
    let mut out = Vec::new();
    let mut w = parquet::arrow::ArrowWriter::try_new(&mut out, batch.schema(), None).unwrap();
    w.write(&batch).unwrap();
    w.close().unwrap();
    out
}

/// A Parquet file of `id` and `text` string columns, row groups of `per_group` rows, plain-encoded,
/// written below Arrow so that the texts of the `bad` rows (0-based) hold invalid UTF-8.
fn parquet_with_bad_utf8(ids: &[String], per_group: usize, bad: &[usize]) -> Vec<u8> {
    use parquet::data_type::{ByteArray, ByteArrayType};
    use parquet::file::properties::WriterProperties;
    use parquet::file::writer::SerializedFileWriter;
    let schema = parquet::schema::parser::parse_message_type(
        "message rows { REQUIRED BYTE_ARRAY id (UTF8); REQUIRED BYTE_ARRAY text (UTF8); }",
    )
    .unwrap();
    let props = WriterProperties::builder().set_dictionary_enabled(false).build();
    let mut out = Vec::new();
    let mut w = SerializedFileWriter::new(&mut out, Arc::new(schema), Arc::new(props)).unwrap();
    for (g, group_ids) in ids.chunks(per_group).enumerate() {
        let texts: Vec<ByteArray> = (0..group_ids.len())
            .map(|k| {
                let i = g * per_group + k;
                let mut text = words(hash(&group_ids[k]), 40).into_bytes();
                if bad.contains(&i) {
                    text.extend(b" \xff\xfe");
                }
                ByteArray::from(text)
            })
            .collect();
        let id_values: Vec<ByteArray> = group_ids.iter().map(|id| id.as_bytes().into()).collect();
        let mut group = w.next_row_group().unwrap();
        for values in [&id_values, &texts] {
            let mut col = group.next_column().unwrap().unwrap();
            col.typed::<ByteArrayType>().write_batch(values, None, None).unwrap();
            col.close().unwrap();
        }
        group.close().unwrap();
    }
    w.close().unwrap();
    out
}

/// The members of a `.jsonl.gz` written ten lines per gzip member, and its lines.
fn jsonl_members(prefix: &str, members: usize) -> (Vec<Vec<u8>>, Vec<String>) {
    let ids: Vec<String> = (1..=members * 10).map(|i| format!("{prefix}{i}")).collect();
    let gz = ids
        .chunks(10)
        .map(|chunk| {
            let lines: Vec<(&str, String)> = chunk
                .iter()
                .map(|id| (id.as_str(), words(id.len() as u64 * 1000 + hash(id), 30)))
                .collect();
            let lines: Vec<(&str, &str)> = lines.iter().map(|(i, t)| (*i, t.as_str())).collect();
            gzip(&jsonl(&lines))
        })
        .collect();
    (gz, ids)
}

fn hash(s: &str) -> u64 {
    s.bytes().fold(1469598103934665603u64, |h, b| (h ^ u64::from(b)).wrapping_mul(1099511628211))
}

/// Records of a per-record `.warc.gz`, each its own gzip member.
fn warc_members(host: &str, n: usize) -> Vec<Vec<u8>> {
    (1..=n)
        .map(|i| gzip(&response(&format!("http://{host}/{i}"), &words(hash(host) + i as u64, 50))))
        .collect()
}

/// Every case of the corpus.
fn corpus() -> Vec<Case> {
    let mut cases = Vec::new();

    // Special files found in a directory are skipped without being opened.
    let mut c = Case::new("fifo_in_a_directory");
    c.files[0].0 = "d/good.txt".to_owned();
    c.args = vec!["d".to_owned()];
    c.report = vec![kept("d/good.txt", "d/good.txt", Pos::Whole)];
    c.special = vec![Special::Fifo("d/pipe"), Special::Fifo("d/pipe.txt")];
    cases.push(
        c.fates([
            skipped("d/pipe", "special file: FIFO (named pipe), not opened", "d/pipe", Pos::Whole),
            skipped("d/pipe.txt", "special file: FIFO", "d/pipe.txt", Pos::Whole),
        ])
        .says("d/pipe: special file: FIFO (named pipe), not opened"),
    );

    // A FIFO named explicitly is read (a process substitution, a pipe of a decompressor).
    let fed = jsonl(&[("f1", &words(20, 40)), ("f2", &words(21, 40))]);
    let mut c = Case::new("fifo_named_explicitly").arg("fed.jsonl").no_problems();
    c.special = vec![Special::FedFifo { name: "fed.jsonl", content: fed }];
    cases.push(
        c.fates([kept("f1", "fed.jsonl", Pos::Line(1)), kept("f2", "fed.jsonl", Pos::Line(2))]),
    );

    // Symbolic link loops: reported as loops.
    let mut c = Case::new("symlink_loops");
    c.files[0].0 = "d/good.txt".to_owned();
    c.args = vec!["d".to_owned()];
    c.report = vec![kept("d/good.txt", "d/good.txt", Pos::Whole)];
    c.special = vec![
        Special::Symlink { link: "d/loop", target: "." },
        Special::Symlink { link: "d/self.txt", target: "self.txt" },
    ];
    cases.push(
        c.fates([
            skipped("d/loop", "symbolic link loop: leads back to d", "d/loop", Pos::Whole),
            skipped("d/self.txt", "symbolic link loop", "d/self.txt", Pos::Whole),
        ])
        .says("d/loop: symbolic link loop"),
    );

    // A broken link in a directory is an input that cannot be opened.
    let mut c = Case::new("broken_symlink");
    c.files[0].0 = "d/good.txt".to_owned();
    c.args = vec!["d".to_owned()];
    c.report = vec![kept("d/good.txt", "d/good.txt", Pos::Whole)];
    c.special = vec![Special::Symlink { link: "d/gone.txt", target: "nowhere.txt" }];
    cases.push(
        c.fates([skipped("d/gone.txt", "cannot open: ", "d/gone.txt", Pos::Whole)])
            .says("d/gone.txt: cannot open: "),
    );

    // One corrupt member of a concatenated .jsonl.gz loses only its own lines (not started:
    // its member gives nothing), reported with the offset and size skipped.
    let (mut members, ids) = jsonl_members("z", 12);
    for b in &mut members[4][10..16] {
        *b = 0xff;
    }
    let start: usize = members[..4].iter().map(Vec::len).sum();
    let lost: Vec<&String> = ids[40..50].iter().collect();
    assert_eq!(lost.len(), 10);
    let mut c =
        Case::new("corrupt_member_jsonl_gz").file("m.jsonl.gz", members.concat()).arg("m.jsonl.gz");
    // The lost bytes have a report row of their own.
    let gap = format!("m.jsonl.gz#gzip-bytes-{start}-{}", start + members[4].len());
    c = c.fates([skipped(gap, "corrupt gzip member at byte", "m.jsonl.gz", Pos::Line(41))]);
    for (i, id) in ids.iter().enumerate() {
        if i < 40 {
            c = c.fates([kept(id.clone(), "m.jsonl.gz", Pos::Line(i as u64 + 1))]);
        } else if i >= 50 {
            // Line numbers after the gap count the lines read.
            c = c.fates([kept(id.clone(), "m.jsonl.gz", Pos::Line(i as u64 - 9))]);
        }
    }
    cases.push(c.says(format!(
        "m.jsonl.gz:41: corrupt gzip member at byte {start} (corrupt deflate stream); skipped {} \
         bytes to the next member",
        members[4].len()
    )));

    // A .jsonl.gz cut inside its last member's header, and one with trailing garbage.
    let (members, ids) = jsonl_members("t", 3);
    let mut cut = members[..2].concat();
    cut.extend(&members[2][..12]);
    let cut_at = members[0].len() + members[1].len();
    let lost = format!("cut.jsonl.gz#gzip-bytes-{cut_at}-{}", cut_at + 12);
    let mut c = Case::new("truncated_jsonl_gz")
        .file("cut.jsonl.gz", cut)
        .arg("cut.jsonl.gz")
        .fates([skipped(lost, "truncated gzip data", "cut.jsonl.gz", Pos::Line(21))]);
    for (i, id) in ids[..20].iter().enumerate() {
        c = c.fates([kept(id.clone(), "cut.jsonl.gz", Pos::Line(i as u64 + 1))]);
    }
    cases.push(c.says(format!(
        "cut.jsonl.gz:21: truncated gzip data: the input ends inside the member at byte {}",
        members[0].len() + members[1].len()
    )));
    let (members, ids) = jsonl_members("g", 2);
    let mut padded = members.concat();
    padded.extend([0u8; 512]);
    let end = members[0].len() + members[1].len();
    let lost = format!("pad.jsonl.gz#gzip-bytes-{end}-{}", end + 512);
    let mut c = Case::new("trailing_garbage_jsonl_gz")
        .file("pad.jsonl.gz", padded.clone())
        .arg("pad.jsonl.gz")
        .fates([skipped(lost, "are not gzip data", "pad.jsonl.gz", Pos::Line(21))]);
    for (i, id) in ids.iter().enumerate() {
        c = c.fates([kept(id.clone(), "pad.jsonl.gz", Pos::Line(i as u64 + 1))]);
    }
    cases.push(c.says(format!(
        "pad.jsonl.gz:21: 512 bytes at byte {} are not gzip data",
        padded.len() - 512
    )));

    // Per-record .warc.gz: a member whose checksum fails loses its record (reported under its
    // URI); a member that fails at once loses a record never started (reported as skipped bytes).
    let members = warc_members("crc.example", 6);
    let start: usize = members[..2].iter().map(Vec::len).sum();
    let mut bytes = members.concat();
    bytes[start + members[2].len() - 8] ^= 1;
    let mut c =
        Case::new("checksum_mismatch_warc_gz").file("crc.warc.gz", bytes).arg("crc.warc.gz");
    for i in [1u64, 2, 4, 5, 6] {
        c = c.fates([kept(format!("http://crc.example/{i}"), "crc.warc.gz", Pos::Record(i))]);
    }
    cases.push(c.fates([skipped(
        "http://crc.example/3",
        "corrupt gzip data in the record: corrupt gzip member at byte",
        "crc.warc.gz",
        Pos::Record(3),
    )]));
    let members = warc_members("bad.example", 6);
    let start: usize = members[..2].iter().map(Vec::len).sum();
    let mut bytes = members.concat();
    for b in &mut bytes[start + 10..start + 16] {
        *b = 0xff;
    }
    let mut c = Case::new("corrupt_member_warc_gz").file("bad.warc.gz", bytes).arg("bad.warc.gz");
    for (record, i) in [(1u64, 1), (2, 2), (3, 4), (4, 5), (5, 6)] {
        c = c.fates([kept(format!("http://bad.example/{i}"), "bad.warc.gz", Pos::Record(record))]);
    }
    cases.push(c.says(format!(
        "bad.warc.gz: after record 2: corrupt gzip member at byte {start} (corrupt deflate \
         stream); skipped {} bytes to the next member",
        members[2].len()
    )));

    // Lying WARC Content-Lengths.
    let mut bytes = response("http://len.example/1", &words(31, 40));
    bytes.extend(response_with_length("http://len.example/2", &words(32, 40), 0, 25));
    bytes.extend(response("http://len.example/3", &words(33, 40)));
    bytes.extend(response_with_length("http://len.example/4", &words(34, 40), 60, 0));
    bytes.extend(response("http://len.example/5", &words(35, 40)));
    bytes.extend(response_with_length("http://len.example/6", &words(36, 40), 5000, 0));
    cases.push(Case::new("lying_content_lengths").file("len.warc", bytes).arg("len.warc").fates([
        kept("http://len.example/1", "len.warc", Pos::Record(1)),
        skipped(
            "http://len.example/2",
            "wrong WARC Content-Length: the ",
            "len.warc",
            Pos::Record(2),
        ),
        kept("http://len.example/3", "len.warc", Pos::Record(3)),
        skipped(
            "http://len.example/4",
            "is too long: the next record starts ",
            "len.warc",
            Pos::Record(4),
        ),
        kept("http://len.example/5", "len.warc", Pos::Record(5)),
        skipped(
            "http://len.example/6",
            "truncated WARC record: the Content-Length is ",
            "len.warc",
            Pos::Record(6),
        ),
    ]));

    // Garbage before the first record, a header without a length, a header cut short.
    let mut bytes = b"this is not a WARC record\n".to_vec();
    bytes.extend(response("http://hdr.example/1", &words(41, 40)));
    bytes.extend(b"WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: http://hdr.example/2\r\nContent-Length: many\r\n\r\nbody\r\n\r\n");
    bytes.extend(response("http://hdr.example/3", &words(43, 40)));
    bytes.extend(
        b"WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: http://hdr.example/4\r\nContent-Le",
    );
    cases.push(
        Case::new("broken_warc_headers")
            .file("hdr.warc", bytes)
            .arg("hdr.warc")
            .fates([
                kept("http://hdr.example/1", "hdr.warc", Pos::Record(1)),
                skipped(
                    "http://hdr.example/2",
                    "bad WARC header: no valid Content-Length",
                    "hdr.warc",
                    Pos::Record(2),
                ),
                kept("http://hdr.example/3", "hdr.warc", Pos::Record(3)),
                skipped(
                    "http://hdr.example/4",
                    "truncated WARC record: the input ends inside its header",
                    "hdr.warc",
                    Pos::Record(4),
                ),
            ])
            .says("hdr.warc: 26 bytes at offset 0 (before the first record) are not a WARC record"),
    );

    // Junk before the first record and junk without a newline between two
    // records: every record is read, the junk is said with its offset.
    let mut bytes = b"xx junk".to_vec();
    for i in 1..=2 {
        bytes.extend(response(&format!("http://junk.example/{i}"), &words(60 + i, 40)));
    }
    bytes.extend(b"garbage without newline");
    for i in 3..=4 {
        bytes.extend(response(&format!("http://junk.example/{i}"), &words(60 + i, 40)));
    }
    cases.push(
        Case::new("junk_between_warc_records")
            .file("junk.warc", bytes)
            .arg("junk.warc")
            .fates(
                (1..=4)
                    .map(|i| kept(format!("http://junk.example/{i}"), "junk.warc", Pos::Record(i))),
            )
            .says("junk.warc: 7 bytes at offset 0 (before the first record) are not a WARC record")
            .says("junk.warc: 23 bytes at offset ")
            .says("(after record 2) are not a WARC record"),
    );

    // A NUL byte on line 2 of a JSON Lines file loses that line only.
    let mut lines = jsonl(&[("n1", &words(71, 40))]);
    lines.extend(b"{\"id\": \"n2\", \"text\": \"a \x00 b\"}\n");
    lines.extend(jsonl(&[("n3", &words(73, 40))]));
    cases.push(
        Case::new("nul_byte_in_jsonl")
            .file("nul.jsonl", lines)
            .arg("nul.jsonl")
            .fates([
                kept("n1", "nul.jsonl", Pos::Line(1)),
                skipped(
                    "nul.jsonl:2",
                    "invalid JSON: control character",
                    "nul.jsonl",
                    Pos::Line(2),
                ),
                kept("n3", "nul.jsonl", Pos::Line(3)),
            ])
            .says("nul.jsonl:2: invalid JSON: control character"),
    );

    // A chunked payload with a bad chunk size: kept, with a warning naming the record.
    let bytes =
        response_chunked("http://chunk.example/", &format!("1g\r\n{}\r\n0\r\n\r\n", words(50, 40)));
    cases.push(
        Case::new("bad_chunk_size")
            .file("chunk.warc", bytes)
            .arg("chunk.warc")
            .fates([kept("http://chunk.example/", "chunk.warc", Pos::Record(1))])
            .says("http://chunk.example/ (chunk.warc#record-1): bad chunk size \"1g\"")
            .no_problems(),
    );

    // Binary files under text names, a binary JSONL, a gzip of a binary.
    let ints: Vec<u8> = (0u32..400).flat_map(|i| (i * 7919).to_le_bytes()).collect();
    cases.push(
        Case::new("binary_with_text_names")
            .file("image.html", png())
            .file("image.txt.gz", gzip(&png()))
            .file("numbers.txt", ints)
            .file("table.txt", b"PAR1\x15\x04\x15\x10\x15\x14L\x15\x02\x15\0\0\0PAR1".to_vec())
            .file("image.jsonl", png())
            .arg("image.html")
            .arg("image.txt.gz")
            .arg("numbers.txt")
            .arg("table.txt")
            .arg("image.jsonl")
            .fates([
                skipped("image.html", "binary file: image/png", "image.html", Pos::Whole),
                skipped("image.txt.gz", "binary file: image/png", "image.txt.gz", Pos::Whole),
                skipped("numbers.txt", "binary file: NUL bytes", "numbers.txt", Pos::Whole),
                skipped(
                    "table.txt",
                    "binary file: application/vnd.apache.parquet",
                    "table.txt",
                    Pos::Whole,
                ),
                skipped(
                    "image.jsonl",
                    "binary data (image/png), not JSON Lines",
                    "image.jsonl",
                    Pos::Whole,
                ),
            ])
            .says("image.jsonl: binary data (image/png), not JSON Lines; not read")
            .says("image.html: binary file: image/png"),
    );

    // UTF-16 without a byte order mark: read as UTF-16, with a warning.
    cases.push(
        Case::new("utf16_without_bom")
            .file("le.txt", utf16le(&words(60, 50)))
            .file("be.txt", utf16be(&words(61, 50)))
            .arg("le.txt")
            .arg("be.txt")
            .fates([kept("le.txt", "le.txt", Pos::Whole), kept("be.txt", "be.txt", Pos::Whole)])
            .says("le.txt: charset detected: UTF-16LE (no byte order mark)")
            .no_problems(),
    );

    // Duplicate ids in JSONL, the same URL in two WARC files.
    let same = words(70, 40);
    cases.push(
        Case::new("duplicate_ids")
            .file("a.jsonl", jsonl(&[("same", &same), ("x", &words(71, 40))]))
            .file("b.jsonl", jsonl(&[("same", &words(72, 40)), ("same", &same)]))
            .file("crawl-1.warc", response("http://dup.example/", &words(73, 40)))
            .file("crawl-2.warc", response("http://dup.example/", &words(74, 40)))
            .arg("a.jsonl")
            .arg("b.jsonl")
            .arg("crawl-1.warc")
            .arg("crawl-2.warc")
            .fates([
                kept("same", "a.jsonl", Pos::Line(1)),
                kept("x", "a.jsonl", Pos::Line(2)),
                kept("same#b.jsonl:1", "b.jsonl", Pos::Line(1)),
                fate("same#b.jsonl:2", "duplicate", "b.jsonl", Pos::Line(2)),
                kept("http://dup.example/", "crawl-1.warc", Pos::Record(1)),
                kept("http://dup.example/#crawl-2.warc#record-1", "crawl-2.warc", Pos::Record(1)),
            ])
            .says("warning: duplicate id: 3")
            .no_problems(),
    );

    // Empty files of every kind: an empty text is a skipped document; the others hold no record.
    cases.push(
        Case::new("empty_files")
            .file("empty.txt", b"".to_vec())
            .file("empty.jsonl", b"".to_vec())
            .file("empty.jsonl.gz", gzip(b""))
            .file("empty.warc", b"".to_vec())
            .file("blank.jsonl", b"\n\n  \n".to_vec())
            .arg("empty.txt")
            .arg("empty.jsonl")
            .arg("empty.jsonl.gz")
            .arg("empty.warc")
            .arg("blank.jsonl")
            .fates([skipped("empty.txt", "empty text", "empty.txt", Pos::Whole)]),
    );

    // JSONL records of every bad kind, and a lone surrogate (kept, with a warning).
    let lines = format!(
        "{}\n{{\"id\":\"nt\"}}\n{{broken\n[1,2]\n{}\n{}\n",
        serde_json::json!({"id": "ok", "text": words(80, 40)}),
        r#"{"id":"sur","text":"half an emoji \ud83d here and more words to read"}"#,
        serde_json::json!({"id": "num", "text": 42}),
    );
    cases.push(
        Case::new("bad_jsonl_records")
            .file("recs.jsonl", lines)
            .arg("recs.jsonl")
            .fates([
                kept("ok", "recs.jsonl", Pos::Line(1)),
                skipped("nt", "no string field 'text'", "recs.jsonl", Pos::Line(2)),
                skipped("recs.jsonl:3", "invalid JSON: ", "recs.jsonl", Pos::Line(3)),
                skipped("recs.jsonl:4", "not a JSON object", "recs.jsonl", Pos::Line(4)),
                kept("sur", "recs.jsonl", Pos::Line(5)),
                skipped("num", "no string field 'text'", "recs.jsonl", Pos::Line(6)),
            ])
            .says("nt (recs.jsonl:2): no string field 'text'")
            .says("sur (recs.jsonl:5): lone surrogate escapes in JSON strings replaced with U+FFFD: 1"),
    );

    // A huge single line (about 6 MB of text in one JSONL record): read, not choked on.
    let huge = jsonl(&[("huge", &words(85, 1_000_000))]);
    assert!(huge.len() > 5 << 20);
    cases.push(
        Case::new("huge_single_line")
            .file("huge.jsonl", huge)
            .arg("huge.jsonl")
            .fates([kept("huge", "huge.jsonl", Pos::Line(1))])
            .no_problems(),
    );

    // Parquet: dictionary columns (pandas `category`) read for the text and the id.
    if cfg!(feature = "parquet") {
        cases.extend(parquet_cases());
    }

    // A folder of text files under names the reader does not know, and binary files (the text
    // ones were ignored silently): the text is read, the rest listed.
    let mut c = Case::new("unknown_names_in_a_folder").no_problems();
    c.files[0].0 = "doc/README.Debian".to_owned();
    c.args = vec!["doc".to_owned()];
    c.report = vec![kept("doc/README.Debian", "doc/README.Debian", Pos::Whole)];
    let ignored = |path: &str, reason: &'static str| Fate {
        reason,
        ..fate(path, "ignored", path, Pos::Whole)
    };
    cases.push(
        c.file("doc/changelog.Debian.gz", gzip(words(95, 60).as_bytes()))
            .file("doc/logo.png", png())
            .file("doc/docs.tar.gz", gzip(&[0u8; 1024]))
            .fates([
                kept("doc/changelog.Debian.gz", "doc/changelog.Debian.gz", Pos::Whole),
                ignored("doc/docs.tar.gz", "binary file: NUL bytes"),
                ignored("doc/logo.png", "binary file: image/png"),
            ])
            .says("files ignored (found in folders, not read): 2"),
    );

    // Parquet on stdin: one error, the input reported.
    let mut c = Case::new("parquet_on_stdin").arg("-");
    c.stdin = Some(dictionary_parquet());
    cases.push(
        c.fates([skipped("-", "Parquet data: Parquet needs a seekable file", "-", Pos::Whole)])
            .says("-: Parquet data: Parquet needs a seekable file; save it and give its path"),
    );

    cases
}

/// The Parquet cases (with the `parquet` feature).
fn parquet_cases() -> Vec<Case> {
    let mut cases = Vec::new();
    cases.push(
        Case::new("dictionary_parquet")
            .file("cat.parquet", dictionary_parquet())
            .arg("cat.parquet")
            .fates([
                kept("p1", "cat.parquet", Pos::Row(1)),
                kept("p2", "cat.parquet", Pos::Row(2)),
                skipped("p3", "no string field 'text'", "cat.parquet", Pos::Row(3)),
            ]),
    );

    // Parquet with invalid UTF-8 in one text (it lost the whole file): that
    // row alone is lost, reported with its row; every other row is read.
    let ids: Vec<String> = (1..=6).map(|i| format!("q{i}")).collect();
    cases.push(
        Case::new("parquet_bad_utf8")
            .file("bad.parquet", parquet_with_bad_utf8(&ids, 3, &[4]))
            .arg("bad.parquet")
            .fates(
                [1, 2, 3, 4, 6]
                    .map(|i| kept(format!("q{i}"), "bad.parquet", Pos::Row(i)))
                    .into_iter()
                    .chain([skipped(
                        "bad.parquet:5",
                        "row group 2: cannot read the row",
                        "bad.parquet",
                        Pos::Row(5),
                    )]),
            )
            .says("bad.parquet:5: row group 2: cannot read the row: corrupt Parquet data"),
    );
    cases
}

/// Runs one case in a folder of its own; the problems found, as messages.
fn check(case: &Case, root: &Path) -> Vec<String> {
    let dir = root.join(case.name);
    std::fs::create_dir_all(&dir).unwrap();
    for (name, bytes) in &case.files {
        write(&dir, name, bytes);
    }
    let mut feeders = Vec::new();
    for special in &case.special {
        match special {
            Special::Fifo(name) => mkfifo(&dir.join(name)),
            Special::Symlink { link, target } => {
                std::os::unix::fs::symlink(target, dir.join(link)).unwrap()
            }
            Special::FedFifo { name, content } => {
                let path = dir.join(name);
                mkfifo(&path);
                let content = content.clone();
                // Blocks until the run opens the FIFO; a run that never does fails the case.
                feeders.push(std::thread::spawn(move || {
                    std::fs::OpenOptions::new().write(true).open(path)?.write_all(&content)
                }));
            }
        }
    }
    let mut args: Vec<&str> = vec!["dedup"];
    args.extend(case.args.iter().map(String::as_str));
    args.extend(["--report", "report.jsonl", "--pairs", "pairs.tsv"]);
    let limit = Duration::from_secs(240);
    let o = run_within(&args, case.stdin.as_deref(), &dir, limit);
    for feeder in feeders {
        feeder.join().unwrap().unwrap();
    }
    let err = stderr(&o);
    let mut problems = Vec::new();
    if o.status.code() != Some(0) {
        problems.push(format!("exit code {:?}", o.status.code()));
    }
    if err.contains("panicked") {
        problems.push("a panic".to_owned());
    }
    for needle in &case.stderr {
        if !err.contains(needle.as_str()) {
            problems.push(format!("stderr lacks {needle:?}"));
        }
    }
    let report = std::fs::read_to_string(dir.join("report.jsonl")).unwrap_or_default();
    let lines: Vec<Value> = report.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    // Every record exactly once: as many lines as expected, each expected id once.
    if lines.len() != case.report.len() {
        problems.push(format!("{} report lines, expected {}", lines.len(), case.report.len()));
    }
    for want in &case.report {
        let got: Vec<&Value> = lines.iter().filter(|l| l["id"] == want.id.as_str()).collect();
        let [line] = got[..] else {
            problems.push(format!("{} report lines for {:?}", got.len(), want.id));
            continue;
        };
        let pos = match (line["line"].as_u64(), line["row"].as_u64(), line["record"].as_u64()) {
            (Some(n), None, None) => Pos::Line(n),
            (None, Some(n), None) => Pos::Row(n),
            (None, None, Some(n)) => Pos::Record(n),
            _ => Pos::Whole,
        };
        let reason = line["reason"].as_str().unwrap_or("");
        let ok = line["status"] == want.status
            && line["source"] == want.source.as_str()
            && pos == want.pos
            && reason.contains(want.reason)
            && (want.reason.is_empty() == reason.is_empty());
        if !ok {
            problems.push(format!("report line {line} is not {want:?}"));
        }
    }
    // --strict fails exactly when records were lost or skipped.
    let mut strict = args.clone();
    strict.push("--strict");
    let feed_again = case.special.iter().any(|s| matches!(s, Special::FedFifo { .. }));
    if !feed_again {
        let o = run_within(&strict, case.stdin.as_deref(), &dir, limit);
        let expected = if case.problems { 1 } else { 0 };
        if o.status.code() != Some(expected) {
            problems.push(format!("--strict exit code {:?}, expected {expected}", o.status.code()));
        }
    }
    if !problems.is_empty() {
        problems.insert(0, format!("stderr:\n{err}\nreport:\n{report}"));
    }
    problems
}

fn mkfifo(path: &Path) {
    let made = std::process::Command::new("mkfifo").arg(path).status();
    assert!(made.is_ok_and(|s| s.success()), "mkfifo {}", path.display());
}

/// The whole corpus: each case's exit code, no panic, every record in the report exactly once
/// with its fate and place, and messages that name the file and record.
#[cfg(unix)]
#[test]
fn bad_input_corpus() {
    let tmp = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    for case in corpus() {
        let problems = check(&case, tmp.path());
        if !problems.is_empty() {
            failures.push(format!("== {}: {}", case.name, problems.join("\n")));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
