//! The arguments of `lookalike index …` and `lookalike serve`.

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::builder::{PossibleValuesParser, TypedValueParser};
use clap::{Args, Subcommand, ValueEnum};
use lookalike::boilerplate::{BoilerplateMode, BoilerplateRule};
use lookalike::{MethodKind, Segmentation, ShingleKind};
use lookalike_io::boilerplate::BoilerplateOptions;

use super::boilerplate::parse_share;
use super::input::InputArgs;
use super::method::{MethodArgs, MethodFlags, MinHashRest, SketchArgs};
use super::parse::{parse_shingle, parse_size};

/// The `--help` examples of `lookalike index`.
pub const INDEX_EXAMPLES: &str = "\
Examples:
  # An index of last month's crawl, then today's pages checked and added against it
  lookalike index create crawl.idx --threshold 0.8
  lookalike index add crawl.idx crawl-2026-10/ > fates.jsonl
  lookalike index add crawl.idx today.warc.gz --report today.jsonl

  # Pages compared without their sites' menus and footers: a template learned from a sample
  lookalike index create site.idx --boilerplate-from crawl-2026-10/
  lookalike index add site.idx crawl-2026-10/ crawl-2026-11/

  # Check without adding; remove documents; figures; everything's pairs and clusters
  lookalike index query crawl.idx page.html
  lookalike index remove crawl.idx https://example.com/old
  lookalike index get crawl.idx https://example.com/new
  lookalike index stats crawl.idx
  lookalike index export crawl.idx --pairs pairs.tsv --clusters clusters.jsonl
  lookalike index verify crawl.idx

Adding an id the index holds replaces that document (it is checked again and becomes the
latest). Each batch (--batch documents) is one transaction: when its report lines are printed,
it is on disk (--durability safe) and a crash never leaves part of it.

Every open checks the checksum of every page of the index file (it reads the whole file once): a
damaged index is refused with a message naming the file, never answered from. query, get,
stats, export and verify open the index read-only (they never change its file, and can run side by
side); add and remove hold it alone, as serve does: while serve runs, inspect the index through
the service (GET /v1/index/stats, POST /v1/check).

Exit codes: 0 done, 1 failure (also: add or query could read no document, verify found damage or
could not open the index, get found an id not in the index), 2 bad usage.";

/// `lookalike index`.
#[derive(Debug, Args)]
pub struct IndexArgs {
    #[command(subcommand)]
    pub command: IndexCommand,
}

/// What to do with an index.
#[derive(Debug, Subcommand)]
pub enum IndexCommand {
    /// Create an index in DIR, freezing the method, threshold, shingles, MinHash values and
    /// bands, seed and normalizer into it (methods: minhash, simhash with tf or no weights,
    /// partitioned).
    Create(Box<IndexCreateArgs>),
    /// Check documents against the index and the batch's earlier documents, then insert them;
    /// print each document's fate (JSONL, as `dedup --report`, with its matches).
    Add(IndexAddArgs),
    /// Check documents against the index without inserting them (the index is opened
    /// read-only).
    Query(IndexAddArgs),
    /// Remove documents by id.
    Remove(IndexRemoveArgs),
    /// Print the documents held under these ids (JSONL: id and text, in the order given); exit 1
    /// when one is not in the index (named on stderr).
    Get(IndexRemoveArgs),
    /// Print the index's figures and settings (JSON; the index is opened read-only).
    Stats(IndexDirArgs),
    /// Write the pairs and clusters of everything in the index: `lookalike dedup`'s answer for
    /// the documents held, in the order they were added.
    Export(IndexExportArgs),
    /// Check the store's checksums and every record and invariant of the index, without
    /// changing it; exit 1 if any fails or the index cannot be opened.
    Verify(IndexDirArgs),
}

/// The methods an index can hold (the registry's), the only values `--method` takes in `index`
/// and `serve` (so that their `--help` lists these, not every method of `dedup`).
fn index_method() -> impl TypedValueParser<Value = MethodKind> {
    let values = lookalike::method::options::index_methods()
        .into_iter()
        .filter_map(|k| k.to_possible_value());
    PossibleValuesParser::new(values).try_map(|name: String| MethodKind::from_str(&name, false))
}

/// `lookalike index create`.
#[derive(Debug, Args)]
pub struct IndexCreateArgs {
    /// The index directory (created; must not hold an index).
    pub dir: PathBuf,
    /// Method: minhash (default), simhash or partitioned (the methods an index can hold).
    #[arg(long, short = 'm', value_parser = index_method(), help_heading = "Method options")]
    pub method: Option<MethodKind>,
    #[command(flatten)]
    pub sketch: SketchArgs,
    /// Shingles compared: words:N or chars:N.
    #[arg(long, default_value = "words:5", value_parser = parse_shingle, help_heading = "Method options")]
    pub shingle: ShingleKind,
    /// Tokens of scripts written without spaces: chars or dictionary.
    #[arg(
        long,
        value_enum,
        default_value = "chars",
        value_name = "MODE",
        help_heading = "Method options"
    )]
    pub cjk: Segmentation,
    /// Seed of all hashes.
    #[arg(long, default_value_t = 1, help_heading = "Method options")]
    pub seed: u64,
    /// `--minhash` and `--max-bucket` (the index records the largest bucket for `export`).
    #[command(flatten)]
    pub minhash: MethodFlags<MinHashRest>,
    #[command(flatten)]
    pub methods: MethodArgs,
    #[command(flatten)]
    pub template: TemplateArgs,
    /// How the sample is read (`--boilerplate-from`).
    #[command(flatten)]
    pub input: InputArgs,
}

/// The site template an index learns at creation (`index create --boilerplate-from`).
#[derive(Debug, Args, Clone)]
pub struct TemplateArgs {
    /// Learn each site's template from these pages (files, directories, globs, WARC, JSONL, ...:
    /// a sample of the collection, or the collection itself) and store it in the index: every
    /// page later added, queried or sent to `serve` is cleaned of it before it is compared, as
    /// `lookalike dedup` cleans a collection (lines that repeat across many pages of one site:
    /// menus, sidebars, footers, notices). A page's site is the host of its URL id, else its
    /// folder (and three above), or --site-field; pages of sites the sample does not have are
    /// compared as they are. Without it, pages are compared with their template.
    #[arg(long = "boilerplate-from", value_name = "INPUT", num_args = 1.., help_heading = "Boilerplate options")]
    pub from: Vec<String>,
    /// Which documents the template cleans: auto (web pages: HTML, WARC, docreader) or all
    /// (plain text and JSONL/Parquet records too, their lines being the blocks).
    #[arg(
        long,
        value_enum,
        default_value = "auto",
        value_name = "MODE",
        requires = "from",
        help_heading = "Boilerplate options"
    )]
    pub boilerplate: BoilerplateMode,
    /// A line is template when it is in at least this many distinct pages of its site in the
    /// sample; sites with fewer distinct pages keep everything.
    #[arg(long, default_value_t = BoilerplateRule::default().min_pages, value_name = "N", requires = "from", help_heading = "Boilerplate options")]
    pub boilerplate_min_pages: u32,
    /// ... and in at least this share of its site's distinct pages.
    #[arg(long, default_value_t = BoilerplateRule::default().min_share, value_name = "SHARE", value_parser = parse_share, requires = "from", help_heading = "Boilerplate options")]
    pub boilerplate_min_share: f64,
    /// JSONL/Parquet field naming each record's site (stored: records added later are named by
    /// the same field).
    #[arg(long, value_name = "FIELD", requires = "from", help_heading = "Boilerplate options")]
    pub site_field: Option<String>,
}

impl TemplateArgs {
    /// The removal options the sample is counted with.
    pub fn options(&self) -> BoilerplateOptions {
        BoilerplateOptions {
            mode: self.boilerplate,
            rule: BoilerplateRule {
                min_pages: self.boilerplate_min_pages,
                min_share: self.boilerplate_min_share,
            },
            site_field: self.site_field.clone(),
        }
    }
}

/// The settings `add`, `query` and `serve` may state; an index created with others is refused,
/// the differences named.
#[derive(Debug, Args, Clone, Default)]
pub struct ExpectArgs {
    /// Refuse the index unless its method is this one (one of the methods an index can hold).
    #[arg(
        long = "method",
        value_parser = index_method(),
        value_name = "METHOD",
        help_heading = "Expected settings"
    )]
    pub method: Option<MethodKind>,
    /// Refuse the index unless its threshold is this one.
    #[arg(long = "threshold", value_name = "T", help_heading = "Expected settings")]
    pub threshold: Option<f64>,
    /// Refuse the index unless its shingles are these.
    #[arg(long = "shingle", value_parser = parse_shingle, help_heading = "Expected settings")]
    pub shingle: Option<ShingleKind>,
    /// Refuse the index unless its seed is this one.
    #[arg(long = "seed", help_heading = "Expected settings")]
    pub seed: Option<u64>,
    /// Refuse the index unless its MinHash has this many values.
    #[arg(long = "num-perm", help_heading = "Expected settings")]
    pub num_perm: Option<usize>,
}

/// How commits reach the disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DurabilityArg {
    /// fsync every batch: an acknowledged batch survives a crash or power loss.
    Safe,
    /// No fsync per batch (one at least every second and at exit): a crash may lose the last
    /// second of batches, never part of one.
    Fast,
}

/// `lookalike index add` and `lookalike index query`.
#[derive(Debug, Args)]
pub struct IndexAddArgs {
    /// The index directory.
    pub dir: PathBuf,
    /// Files, directories, glob patterns, or - for standard input.
    #[arg(required = true, value_name = "INPUT")]
    pub inputs: Vec<String>,
    /// Write each document's fate as JSONL to FILE (default: standard output).
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
    /// Documents per batch: each batch is one transaction (group commit).
    #[arg(long, default_value_t = 4096, value_name = "N")]
    pub batch: usize,
    /// How commits reach the disk: safe (fsync per batch) or fast.
    #[arg(long, value_enum, default_value = "safe")]
    pub durability: DurabilityArg,
    /// No summary on stderr.
    #[arg(long, short = 'q')]
    pub quiet: bool,
    /// Worker threads (default: all cores).
    #[arg(long, short = 'j')]
    pub threads: Option<usize>,
    #[command(flatten)]
    pub expect: ExpectArgs,
    #[command(flatten)]
    pub input: InputArgs,
}

/// `lookalike index remove` and `lookalike index get`.
#[derive(Debug, Args)]
pub struct IndexRemoveArgs {
    /// The index directory.
    pub dir: PathBuf,
    /// Ids of the documents.
    #[arg(required = true, value_name = "ID")]
    pub ids: Vec<String>,
}

/// `lookalike index stats` and `lookalike index verify`.
#[derive(Debug, Args)]
pub struct IndexDirArgs {
    /// The index directory.
    pub dir: PathBuf,
}

/// `lookalike index export`.
#[derive(Debug, Args)]
pub struct IndexExportArgs {
    /// The index directory.
    pub dir: PathBuf,
    /// Write verified pairs as TSV (id1, id2, similarity) to FILE (- for stdout; the default
    /// when --clusters is not given).
    #[arg(long, value_name = "FILE")]
    pub pairs: Option<String>,
    /// Write clusters as JSONL to FILE (- for stdout).
    #[arg(long, value_name = "FILE")]
    pub clusters: Option<String>,
    /// Worker threads (default: all cores).
    #[arg(long, short = 'j')]
    pub threads: Option<usize>,
}

/// The `--help` examples of `lookalike serve`.
pub const SERVE_EXAMPLES: &str = "\
Examples:
  lookalike index create pages.idx
  lookalike serve pages.idx --addr 127.0.0.1:8080
  curl -s localhost:8080/v1/check -H 'content-type: application/json' \\
    -d '{\"id\": \"u1\", \"text\": \"some page text\", \"insert\": true}'
  curl -s localhost:8080/v1/documents/u1
  curl -s localhost:8080/openapi.json

  # Writes only with the token (needed to listen on anything but loopback)
  head -c 32 /dev/urandom | base64 > token; chmod 600 token
  lookalike serve pages.idx --addr 0.0.0.0:8080 --token-file token
  curl -s -X PUT host:8080/v1/documents/u1 -H \"Authorization: Bearer $(cat token)\" \\
    -H 'content-type: application/json' -d '{\"text\": \"...\"}'

Endpoints: POST /v1/check, POST /v1/check:batch (JSON array or NDJSON, answered in order), GET,
PUT and DELETE /v1/documents/{id}, GET /v1/index/stats, /healthz, /readyz, /metrics,
/openapi.json. Every error answer is JSON {\"error\": \"...\"}.

What it protects against: with a token, writes (PUT, DELETE, checks with \"insert\": true) from
anyone without it (401; compared in constant time); ids over 4096 bytes (422), bodies over
--max-body (413); clients that stall (--header-timeout, --write-timeout). What it does not: reads
(checks, GET, stats, metrics) are open to anyone who can connect; no TLS (the token crosses the
network in clear unless a reverse proxy terminates TLS in front of it); no rate limits or
per-client quotas. Without a token it listens on loopback addresses only.

Answers can be trusted: an insert or removal answered 408 (--timeout) was not applied; once the
writer has taken a write, its request waits for the commit and is answered with it.

SIGINT or SIGTERM stop it gracefully: no new connections, requests in flight are answered and
committed within --drain-timeout, then the remaining connections are closed, the writer commits
what it was given and the index is closed. A second signal exits at once (what is acknowledged is
on disk with --durability safe). Exit codes: 0 stopped cleanly, 1 failure (the index writer
failed, a second signal), 2 bad usage.";

/// `lookalike serve`.
#[derive(Debug, Args)]
// Parsed but not read without the `serve` feature (the command then says it is not built in).
#[cfg_attr(not(feature = "serve"), allow(dead_code))]
pub struct ServeArgs {
    /// The index directory (create it with `lookalike index create`).
    pub dir: PathBuf,
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub addr: SocketAddr,
    /// Largest request body (bytes, or with a K, M or G suffix).
    #[arg(long, default_value = "16M", value_parser = parse_size, value_name = "SIZE")]
    pub max_body: usize,
    /// Most documents in one /v1/check:batch request.
    #[arg(long, default_value_t = 1000, value_name = "N")]
    pub max_batch: usize,
    /// Seconds a request may take before it is answered 408; a write answered 408 was not
    /// applied (one the writer has taken is answered once committed, however long that takes).
    #[arg(long, default_value_t = 30, value_name = "SECONDS")]
    pub timeout: u64,
    /// Seconds a client has to send a request's headers; also how long a kept-alive connection
    /// may wait idle for its next request. Then the connection is closed.
    #[arg(long, default_value_t = 10, value_name = "SECONDS", value_parser = clap::value_parser!(u64).range(1..))]
    pub header_timeout: u64,
    /// Seconds a client may leave its answer unread (no byte taken) before the connection is
    /// closed.
    #[arg(long, default_value_t = 30, value_name = "SECONDS", value_parser = clap::value_parser!(u64).range(1..))]
    pub write_timeout: u64,
    /// After SIGINT or SIGTERM, seconds the requests in flight have to be answered before the
    /// remaining connections are closed and the service exits (a second signal exits at once).
    #[arg(long, default_value_t = 30, value_name = "SECONDS")]
    pub drain_timeout: u64,
    /// A file holding the bearer token that writes need (PUT, DELETE, checks with "insert":
    /// true): `Authorization: Bearer TOKEN`; at least 16 visible ASCII characters. Or set
    /// LOOKALIKE_TOKEN. Reads stay open. Needed to listen on anything but a loopback address.
    #[arg(long, value_name = "FILE")]
    pub token_file: Option<PathBuf>,
    /// Longest wait, in milliseconds, to group inserts into one commit.
    #[arg(long, default_value_t = 5, value_name = "MS")]
    pub group_commit_ms: u64,
    /// How commits reach the disk: safe (fsync per commit) or fast.
    #[arg(long, value_enum, default_value = "safe")]
    pub durability: DurabilityArg,
    /// Worker threads for sketching (default: all cores).
    #[arg(long, short = 'j')]
    pub threads: Option<usize>,
    #[command(flatten)]
    pub expect: ExpectArgs,
}

impl IndexCreateArgs {
    /// The same settings as `dedup` arguments (verification exact, clusters center, keep first:
    /// what an index decides with), so that one conversion serves both.
    pub fn as_dedup_args(&self) -> super::DedupArgs {
        super::DedupArgs {
            inputs: Vec::new(),
            strict: false,
            quiet: true,
            method: self.method,
            sketch: self.sketch.clone(),
            shingle: self.shingle,
            cjk: self.cjk,
            seed: self.seed,
            verify: lookalike::Verify::Exact,
            keep: Some(lookalike::Keep::First),
            cluster: lookalike::ClusterMode::Center,
            minhash: self.minhash.clone(),
            max_pairs_per_group: lookalike::candidates::lsh::DEFAULT_MAX_PAIRS_PER_GROUP,
            methods: self.methods.clone(),
            input: InputArgs {
                id_field: None,
                text_field: "text".into(),
                format: None,
                extract: lookalike_io::Extract::Main,
            },
            // An index takes documents one at a time: no collection to learn a template from.
            boilerplate: super::BoilerplateArgs {
                boilerplate: super::BoilerplateMode::Off,
                boilerplate_min_pages: lookalike::boilerplate::BoilerplateRule::default().min_pages,
                boilerplate_min_share: lookalike::boilerplate::BoilerplateRule::default().min_share,
                site_field: None,
            },
            pairs: None,
            clusters: None,
            output: None,
            report: None,
            stats: None,
            html: None,
            html_max_size: 0,
            run_file: None,
            skipped: super::SkippedInOutput::Keep,
            threads: None,
            spill_dir: None,
            spill_memory: lookalike::store::DEFAULT_MEMORY_BUDGET,
        }
    }
}
