//! A bounded HTTP load generator for `lookalike serve` (`lookalike-bench load`): N keep-alive
//! connections, each sending its share of a fixed number of requests built from a JSONL corpus,
//! one at a time; reports requests/s, documents/s and the latency percentiles. Loopback only is
//! what the bench scripts use.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use clap::{Args, ValueEnum};

/// What each request does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Mode {
    /// `POST /v1/check`, one document, no insert.
    Check,
    /// `POST /v1/check:batch`, `--batch-size` documents, no insert.
    Batch,
    /// `POST /v1/check` with `"insert": true` (ids made unique with `--id-prefix`).
    Insert,
}

/// `lookalike-bench load`.
#[derive(Debug, Args)]
pub struct LoadArgs {
    /// The server.
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub addr: SocketAddr,
    /// JSONL corpus (fields `id` and `text`) the documents are taken from.
    #[arg(long)]
    pub corpus: PathBuf,
    /// Lines of the corpus to skip first.
    #[arg(long, default_value_t = 0)]
    pub skip: usize,
    /// Concurrent connections.
    #[arg(long, default_value_t = 1)]
    pub connections: usize,
    /// Requests in all (the bound).
    #[arg(long, default_value_t = 1000)]
    pub requests: usize,
    /// What each request does.
    #[arg(long, value_enum, default_value = "check")]
    pub mode: Mode,
    /// Documents per request in batch mode.
    #[arg(long, default_value_t = 32)]
    pub batch_size: usize,
    /// Prefix of the ids inserted (insert mode).
    #[arg(long, default_value = "load-")]
    pub id_prefix: String,
}

/// One run's figures.
#[derive(Debug, serde::Serialize)]
pub struct LoadReport {
    /// Mode.
    pub mode: String,
    /// Connections.
    pub connections: usize,
    /// Requests answered 200.
    pub requests: usize,
    /// Documents in them.
    pub documents: usize,
    /// Requests that failed or got another status.
    pub errors: usize,
    /// Wall time.
    pub seconds: f64,
    /// Requests per second.
    pub requests_per_s: f64,
    /// Documents per second.
    pub documents_per_s: f64,
    /// Median latency.
    pub p50_ms: f64,
    /// 99th percentile latency.
    pub p99_ms: f64,
    /// Documents that were duplicates of something in the index.
    pub duplicates: usize,
}

fn read_docs(args: &LoadArgs, n: usize) -> Result<Vec<(String, String)>> {
    let file = fs_err::File::open(&args.corpus)?;
    let mut docs = Vec::with_capacity(n);
    for line in BufReader::new(file).lines().skip(args.skip) {
        if docs.len() >= n {
            break;
        }
        let v: serde_json::Value = serde_json::from_str(&line?).context("corpus line")?;
        let id = v["id"].as_str().unwrap_or_default().to_owned();
        let text = v["text"].as_str().unwrap_or_default().to_owned();
        docs.push((id, text));
    }
    if docs.is_empty() {
        bail!("no documents in {}", args.corpus.display());
    }
    Ok(docs)
}

/// Sends one request on a keep-alive connection and reads the answer; returns status and body.
fn exchange(
    s: &mut BufReader<TcpStream>,
    addr: &SocketAddr,
    path: &str,
    body: &[u8],
) -> Result<(u16, Vec<u8>)> {
    let head = format!(
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    let w = s.get_mut();
    w.write_all(head.as_bytes())?;
    w.write_all(body)?;
    let mut line = String::new();
    s.read_line(&mut line)?;
    let status: u16 = line.split(' ').nth(1).and_then(|c| c.parse().ok()).context("status line")?;
    let mut len = 0usize;
    loop {
        line.clear();
        s.read_line(&mut line)?;
        let l = line.trim_end();
        if l.is_empty() {
            break;
        }
        if let Some((k, v)) = l.split_once(':')
            && k.eq_ignore_ascii_case("content-length")
        {
            len = v.trim().parse().context("content-length")?;
        }
    }
    let mut out = vec![0; len];
    s.read_exact(&mut out)?;
    Ok((status, out))
}

/// Runs the load; one JSON report.
pub fn run(args: &LoadArgs) -> Result<LoadReport> {
    let per = if args.mode == Mode::Batch { args.batch_size.max(1) } else { 1 };
    let docs = read_docs(args, args.requests * per)?;
    let bodies: Vec<(String, usize)> = (0..args.requests)
        .map(|i| {
            let pick = |k: usize| &docs[(i * per + k) % docs.len()];
            match args.mode {
                Mode::Check => (serde_json::json!({"text": pick(0).1}).to_string(), 1),
                Mode::Insert => (
                    serde_json::json!({"id": format!("{}{}", args.id_prefix, pick(0).0), "text": pick(0).1, "insert": true})
                        .to_string(),
                    1,
                ),
                Mode::Batch => {
                    let items: Vec<serde_json::Value> =
                        (0..per).map(|k| serde_json::json!({"text": pick(k).1})).collect();
                    (serde_json::Value::Array(items).to_string(), per)
                }
            }
        })
        .collect();
    let path = if args.mode == Mode::Batch { "/v1/check:batch" } else { "/v1/check" };
    let conns = args.connections.max(1);
    let started = Instant::now();
    let results: Vec<Result<Vec<(Duration, usize, usize)>>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..conns)
            .map(|c| {
                let bodies = &bodies;
                scope.spawn(move || -> Result<Vec<(Duration, usize, usize)>> {
                    let stream = TcpStream::connect(args.addr).context("connect")?;
                    stream.set_nodelay(true)?;
                    let mut s = BufReader::new(stream);
                    let mut out = Vec::new();
                    for (body, n) in bodies.iter().skip(c).step_by(conns) {
                        let t = Instant::now();
                        let (status, resp) = exchange(&mut s, &args.addr, path, body.as_bytes())?;
                        if status != 200 {
                            bail!("status {status}: {}", String::from_utf8_lossy(&resp));
                        }
                        let dups = count_duplicates(&resp);
                        out.push((t.elapsed(), *n, dups));
                    }
                    Ok(out)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|_| bail!("a connection panicked")))
            .collect()
    });
    let seconds = started.elapsed().as_secs_f64();
    let mut lat = Vec::new();
    let (mut documents, mut duplicates, mut errors) = (0, 0, 0);
    for r in results {
        match r {
            Ok(v) => {
                for (d, n, dup) in v {
                    lat.push(d);
                    documents += n;
                    duplicates += dup;
                }
            }
            Err(e) => {
                eprintln!("lookalike-bench load: a connection failed: {e:#}");
                errors += 1;
            }
        }
    }
    lat.sort();
    let pct = |p: f64| {
        lat.get(
            ((lat.len() as f64 * p).ceil() as usize)
                .saturating_sub(1)
                .min(lat.len().saturating_sub(1)),
        )
        .map_or(0.0, |d| d.as_secs_f64() * 1e3)
    };
    Ok(LoadReport {
        mode: format!("{:?}", args.mode).to_lowercase(),
        connections: conns,
        requests: lat.len(),
        documents,
        errors,
        seconds,
        requests_per_s: lat.len() as f64 / seconds,
        documents_per_s: documents as f64 / seconds,
        p50_ms: pct(0.50),
        p99_ms: pct(0.99),
        duplicates,
    })
}

/// `"duplicate":true` occurrences in a response.
fn count_duplicates(body: &[u8]) -> usize {
    memchr::memmem::find_iter(body, b"\"duplicate\":true").count()
}
