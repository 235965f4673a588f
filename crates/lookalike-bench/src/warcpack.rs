//! The `pack-warc` command: contract: "give me folders of saved web pages, I give you a crawl of
//! them: gzipped WARC files of `response` records, as a crawler writes them".
//!
//! Web pages at scale are measured on WARC because that is what crawls are stored as; real pages
//! in quantity are on every Debian machine (`/usr/share/doc`, and `-doc` packages unpacked
//! anywhere). Each HTML file becomes one `response` record (an HTTP/1.1 200 header with
//! `Content-Type: text/html`, then the file's bytes), gzipped per record like Common Crawl's
//! files, so that a reader can resynchronise after a damaged record. A `warcinfo` record opens
//! each file.
//!
//! Output is deterministic: files are sorted by path, record ids are derived from the path
//! (xxh3), and the dates are fixed; the same folders give the same bytes.

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use flate2::Compression;
use flate2::write::GzEncoder;
use xxhash_rust::xxh3::xxh3_128;

/// Command-line arguments of `pack-warc`.
#[derive(Debug, Clone, clap::Args)]
pub struct PackArgs {
    /// Folders (or files) whose `.html` and `.htm` files are packed, searched recursively.
    #[arg(required = true, value_name = "DIR")]
    pub roots: Vec<PathBuf>,
    /// Output folder for the WARC files (`pages-00000.warc.gz`, ...); created if missing.
    #[arg(long)]
    pub out: PathBuf,
    /// Start a new WARC file after this many MB (10^6 bytes) of HTML.
    #[arg(long, default_value_t = 256)]
    pub shard_mb: u64,
    /// Skip HTML files larger than this many MB.
    #[arg(long, default_value_t = 64)]
    pub max_file_mb: u64,
    /// Pack at most this many pages (all when absent).
    #[arg(long)]
    pub limit: Option<usize>,
}

/// What [`pack`] wrote.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Packed {
    /// Pages written.
    pub pages: usize,
    /// Bytes of HTML written (the record payloads without their HTTP headers).
    pub html_bytes: u64,
    /// WARC files written.
    pub files: usize,
    /// HTML files skipped (too large, or unreadable), with the reason.
    pub skipped: Vec<(PathBuf, String)>,
}

/// The fixed date of every record (ISO 8601), so that the output depends on the pages only.
const DATE: &str = "2026-01-01T00:00:00Z";

/// The HTML files under `roots`, sorted by path (symbolic links are not followed, so each file
/// counts once).
pub fn html_files(roots: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for root in roots {
        for entry in walkdir::WalkDir::new(root) {
            let entry = entry.with_context(|| format!("listing {}", root.display()))?;
            let is_html =
                entry.path().extension().and_then(|e| e.to_str()).is_some_and(|e| {
                    e.eq_ignore_ascii_case("html") || e.eq_ignore_ascii_case("htm")
                });
            if entry.file_type().is_file() && is_html {
                files.push(entry.into_path());
            }
        }
    }
    files.sort();
    files.dedup();
    Ok(files)
}

/// The URL a packed page is given: `file://` and its absolute path, percent-encoded where a URL
/// needs it.
pub fn page_url(path: &Path) -> String {
    let abs = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut url = String::from("file://");
    for b in abs.to_string_lossy().bytes() {
        if b.is_ascii_alphanumeric() || b"/-._~".contains(&b) {
            url.push(b as char);
        } else {
            url.push_str(&format!("%{b:02X}"));
        }
    }
    url
}

/// Packs the HTML files under `args.roots` into gzipped WARC files in `args.out`.
pub fn pack(args: &PackArgs) -> Result<Packed> {
    if args.shard_mb == 0 {
        bail!("--shard-mb must be at least 1");
    }
    let mut files = html_files(&args.roots)?;
    if let Some(limit) = args.limit {
        files.truncate(limit);
    }
    if files.is_empty() {
        bail!("no .html or .htm file under the given folders");
    }
    fs_err::create_dir_all(&args.out)?;
    let shard_bytes = args.shard_mb * 1_000_000;
    let max_file = args.max_file_mb * 1_000_000;
    let mut packed = Packed::default();
    let mut writer: Option<(PathBuf, BufWriter<fs_err::File>)> = None;
    let mut in_shard = 0u64;
    for path in &files {
        let body = match fs_err::read(path) {
            Ok(b) if b.len() as u64 > max_file => {
                packed
                    .skipped
                    .push((path.clone(), format!("{} bytes, above --max-file-mb", b.len())));
                continue;
            }
            Ok(b) => b,
            Err(e) => {
                packed.skipped.push((path.clone(), e.to_string()));
                continue;
            }
        };
        if writer.is_none() || in_shard >= shard_bytes {
            if let Some((name, mut w)) = writer.take() {
                w.flush().with_context(|| format!("writing {}", name.display()))?;
            }
            let name = args.out.join(format!("pages-{:05}.warc.gz", packed.files));
            let mut w = BufWriter::with_capacity(1 << 20, fs_err::File::create(&name)?);
            write_record(&mut w, &warcinfo(&name))?;
            writer = Some((name, w));
            packed.files += 1;
            in_shard = 0;
        }
        let (name, w) = writer.as_mut().expect("a shard is open");
        write_record(w, &response(path, &body))
            .with_context(|| format!("writing {}", name.display()))?;
        in_shard += body.len() as u64;
        packed.pages += 1;
        packed.html_bytes += body.len() as u64;
    }
    if let Some((name, mut w)) = writer.take() {
        w.flush().with_context(|| format!("writing {}", name.display()))?;
    }
    Ok(packed)
}

/// One gzip member holding one record.
fn write_record(out: &mut impl Write, record: &[u8]) -> Result<()> {
    let mut gz = GzEncoder::new(out, Compression::fast());
    gz.write_all(record)?;
    gz.finish()?;
    Ok(())
}

fn record_id(key: &str) -> String {
    let h = xxh3_128(key.as_bytes());
    let hex = format!("{h:032x}");
    format!(
        "<urn:uuid:{}-{}-{}-{}-{}>",
        &hex[..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..]
    )
}

fn record(headers: &[(&str, String)], block: &[u8]) -> Vec<u8> {
    let mut r = Vec::with_capacity(block.len() + 512);
    r.extend_from_slice(b"WARC/1.0\r\n");
    for (k, v) in headers {
        r.extend_from_slice(format!("{k}: {v}\r\n").as_bytes());
    }
    r.extend_from_slice(format!("Content-Length: {}\r\n\r\n", block.len()).as_bytes());
    r.extend_from_slice(block);
    r.extend_from_slice(b"\r\n\r\n");
    r
}

fn warcinfo(name: &Path) -> Vec<u8> {
    let file = name.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default();
    let block = b"software: lookalike-bench pack-warc\r\nformat: WARC File Format 1.0\r\n";
    record(
        &[
            ("WARC-Type", "warcinfo".into()),
            ("WARC-Date", DATE.into()),
            ("WARC-Filename", file.clone()),
            ("WARC-Record-ID", record_id(&format!("warcinfo {file}"))),
            ("Content-Type", "application/warc-fields".into()),
        ],
        block,
    )
}

fn response(path: &Path, body: &[u8]) -> Vec<u8> {
    let url = page_url(path);
    let mut block = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    block.extend_from_slice(body);
    record(
        &[
            ("WARC-Type", "response".into()),
            ("WARC-Target-URI", url.clone()),
            ("WARC-Date", DATE.into()),
            ("WARC-Record-ID", record_id(&url)),
            ("Content-Type", "application/http; msgtype=response".into()),
        ],
        &block,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packed_pages_read_back_as_warc_responses_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let src = dir.path().join("site");
        fs_err::create_dir_all(src.join("sub")).unwrap();
        fs_err::write(src.join("b.html"), "<p>second page</p>").unwrap();
        fs_err::write(src.join("a.htm"), "<p>first page</p>").unwrap();
        fs_err::write(src.join("sub/c d.html"), "<p>third page</p>").unwrap();
        fs_err::write(src.join("notes.txt"), "not a page").unwrap();
        let out = dir.path().join("warc");
        let args = PackArgs {
            roots: vec![src.clone()],
            out: out.clone(),
            shard_mb: 1,
            max_file_mb: 1,
            limit: None,
        };
        let packed = pack(&args).unwrap();
        assert_eq!((packed.pages, packed.files), (3, 1));
        assert_eq!(packed.html_bytes, 18 + 17 + 17);
        let opts = lookalike_io::ReadOptions::default();
        let inputs = lookalike_io::expand_inputs(&[out.display().to_string()]).unwrap().inputs;
        let docs: Vec<(String, String)> = lookalike_io::Reader::new(inputs, opts.clone())
            .filter_map(|r| match lookalike_io::decode(&r.unwrap(), &opts) {
                lookalike_io::Decoded::Doc { doc, .. } => Some((doc.id, doc.text)),
                lookalike_io::Decoded::Skip { .. } => None,
            })
            .collect();
        let ids: Vec<&str> = docs.iter().map(|(id, _)| id.as_str()).collect();
        assert!(ids[0].ends_with("/site/a.htm"), "{ids:?}");
        assert!(ids[1].ends_with("/site/b.html"));
        assert!(ids[2].ends_with("/site/sub/c%20d.html"));
        assert_eq!(docs[0].1, "first page");
        // Same input, same bytes.
        let first = fs_err::read(out.join("pages-00000.warc.gz")).unwrap();
        pack(&args).unwrap();
        assert_eq!(first, fs_err::read(out.join("pages-00000.warc.gz")).unwrap());
    }
}
