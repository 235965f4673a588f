//! `lookalike serve`: an index over HTTP (axum). Contract: "send me a page, I tell you what you
//! already have that it near-duplicates, and keep it if you ask".
//!
//! - Checks without insert run on the blocking pool against a snapshot: many at once (redb's
//!   MVCC readers never wait for the writer).
//! - Inserts, replacements and deletions go to one writer thread, which groups what arrives
//!   within `--group-commit-ms` (or 4096 documents) into one transaction: one fsync for the group.
//!   A request is answered only once its transaction is committed, so an answered insert is on
//!   disk (`--durability safe`).
//! - Documents are decoded as `lookalike index add` decodes a `.txt` or `.html` file (`html`:
//!   main content), so the answers are the CLI's.
//! - Bodies above `--max-body` get 413, malformed JSON 400, a wrong content type 415, bad or
//!   missing fields 422 (a batch over `--max-batch` documents too), a request over `--timeout`
//!   408; every error body is `{"error": "..."}`. A document the readers would skip (binary
//!   content, no text) is answered `"status": "skipped"` with the reason, as `index add` reports
//!   it, and the rest of its batch is answered as usual.
//! - SIGINT or SIGTERM: no new connections, requests in flight are answered (their commits done),
//!   the writer drains its queue, the index is flushed and closed.
//! - `/openapi.json` is generated from the handlers' annotations (utoipa).

use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use axum::body::Bytes;
use axum::extract::rejection::JsonRejection;
use axum::extract::{DefaultBodyLimit, Path, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post, put};
use axum::{Json, Router};
use lookalike::Document;
use lookalike_index::{Checked, Durability, Fate, Index};
use lookalike_io::{Decoded, Format, RawRecord, ReadOptions};
use serde::{Deserialize, Serialize};
use tokio::sync::oneshot;
use utoipa::{OpenApi, ToSchema};

use crate::args::{DurabilityArg, ServeArgs};

/// Most documents the writer puts in one transaction.
const MAX_GROUP: usize = 4096;

/// A document to check: its id (needed to insert), its text or HTML, and whether to insert it.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CheckRequest {
    /// The caller's id; needed with `insert` (inserting an id the index holds replaces it).
    #[serde(default, deserialize_with = "present")]
    pub id: Option<String>,
    /// Plain text.
    #[serde(default, deserialize_with = "present")]
    pub text: Option<String>,
    /// An HTML page: its main content is compared.
    #[serde(default, deserialize_with = "present")]
    pub html: Option<String>,
    /// Insert it after the check.
    #[serde(default)]
    pub insert: bool,
}

/// A document for `PUT /v1/documents/{id}`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct DocumentBody {
    /// Plain text.
    #[serde(default, deserialize_with = "present")]
    pub text: Option<String>,
    /// An HTML page: its main content is compared.
    #[serde(default, deserialize_with = "present")]
    pub html: Option<String>,
}

/// An optional field that, when present, is a string (`null` is refused like any other
/// non-string: the OpenAPI document says so).
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    String::deserialize(d).map(Some)
}

/// An indexed document that matched.
#[derive(Debug, Serialize, ToSchema)]
pub struct MatchOut {
    /// Its id.
    pub id: String,
    /// Exact Jaccard similarity of the shingle sets (1.0 for an exact copy).
    pub similarity: f64,
    /// `exact-bytes`, `exact-text` or `near`.
    #[serde(rename = "match")]
    pub kind: String,
}

/// The answer for one document.
#[derive(Debug, Serialize, ToSchema)]
pub struct CheckResponse {
    /// The document's id (`""` when none was given).
    pub id: String,
    /// Whether it near-duplicates anything in the index.
    pub duplicate: bool,
    /// Everything it near-duplicates, most similar first.
    pub matches: Vec<MatchOut>,
    /// Whether it was inserted.
    pub inserted: bool,
    /// Whether inserting it replaced a document with the same id.
    pub replaced: bool,
    /// Its fate as `lookalike dedup --report` says it: `kept`, `duplicate` or `skipped`.
    pub status: String,
    /// `duplicate`: the representative it joins.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub of: Option<String>,
    /// `duplicate`: similarity to the representative.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub similarity: Option<f64>,
    /// `skipped`: why.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// The index's figures.
#[derive(Debug, Serialize, ToSchema)]
pub struct StatsResponse {
    /// Index format version.
    pub format: u32,
    /// Documents held.
    pub documents: u64,
    /// Exact copies among them.
    pub copies: u64,
    /// Rows of the keys table.
    pub keys: u64,
    /// Bytes of the database file.
    pub disk_bytes: u64,
    /// The method and its settings.
    pub method: String,
    /// The frozen settings.
    #[schema(value_type = Object)]
    pub settings: serde_json::Value,
}

/// An error.
#[derive(Debug, Serialize, ToSchema)]
pub struct ErrorBody {
    /// What is wrong.
    pub error: String,
}

#[derive(OpenApi)]
#[openapi(
    info(
        title = "lookalike",
        description = "A persistent near-duplicate index: have I seen this page?"
    ),
    paths(check, check_batch, put_document, delete_document, stats, healthz, readyz, metrics),
    components(schemas(
        CheckRequest,
        DocumentBody,
        CheckResponse,
        MatchOut,
        StatsResponse,
        ErrorBody
    ))
)]
struct ApiDoc;

/// The OpenAPI document of the service: utoipa's, generated from the handlers, with what its
/// derive cannot say added as JSON Schema 2020-12 (OpenAPI 3.1): optional fields are strings when
/// present (not null), a document has exactly one of `text` and `html`, `insert` needs a
/// non-empty `id`, and a batch holds at most `max_batch` documents.
pub fn openapi(max_batch: usize) -> serde_json::Value {
    let mut doc = serde_json::to_value(ApiDoc::openapi()).unwrap_or_default();
    let schemas = &mut doc["components"]["schemas"];
    for (name, fields) in
        [("CheckRequest", &["id", "text", "html"][..]), ("DocumentBody", &["text", "html"][..])]
    {
        let schema = &mut schemas[name];
        for f in fields {
            schema["properties"][f]["type"] = "string".into();
        }
        let one_of = serde_json::json!([{"required": ["text"]}, {"required": ["html"]}]);
        if name == "CheckRequest" {
            schema["allOf"] = serde_json::json!([
                {"oneOf": one_of},
                {"anyOf": [
                    {"not": {"required": ["insert"]}},
                    {"properties": {"insert": {"const": false}}},
                    {"required": ["id"], "properties": {"id": {"minLength": 1}}}
                ]}
            ]);
        } else {
            schema["oneOf"] = one_of;
        }
    }
    let batch = &mut doc["paths"]["/v1/check:batch"]["post"]["requestBody"]["content"]["application/json"]
        ["schema"];
    if batch.is_object() {
        batch["maxItems"] = max_batch.into();
    }
    doc
}

enum Job {
    Add { docs: Vec<Document>, reply: oneshot::Sender<Result<Vec<Checked>, String>> },
    Remove { id: String, reply: oneshot::Sender<Result<bool, String>> },
}

#[derive(Default)]
struct Metrics {
    requests: [AtomicU64; 8],
    errors_4xx: AtomicU64,
    errors_5xx: AtomicU64,
    checked: AtomicU64,
    inserted: AtomicU64,
    removed: AtomicU64,
    commits: AtomicU64,
    commit_seconds_micros: AtomicU64,
}

const ENDPOINTS: [&str; 8] =
    ["check", "check_batch", "put", "delete", "stats", "healthz", "readyz", "metrics"];

struct AppState {
    index: Arc<Index>,
    writer: Mutex<Option<mpsc::Sender<Job>>>,
    metrics: Metrics,
    max_batch: usize,
    ready: AtomicBool,
}

type Shared = Arc<AppState>;

/// An error answer: status and `{"error": ...}`.
struct ApiError(StatusCode, String);

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.0, Json(ErrorBody { error: self.1 })).into_response()
    }
}

impl From<JsonRejection> for ApiError {
    fn from(r: JsonRejection) -> Self {
        ApiError(r.status(), r.body_text())
    }
}

fn unprocessable(msg: impl Into<String>) -> ApiError {
    ApiError(StatusCode::UNPROCESSABLE_ENTITY, msg.into())
}

fn internal(msg: impl std::fmt::Display) -> ApiError {
    ApiError(StatusCode::INTERNAL_SERVER_ERROR, msg.to_string())
}

/// A document from a request, decoded as `index add` decodes a text or HTML file, or the reason
/// the readers would skip it.
fn document(
    id: Option<String>,
    text: Option<String>,
    html: Option<String>,
) -> Result<Result<Document, String>, ApiError> {
    let (format, bytes) = match (text, html) {
        (Some(t), None) => (Format::Text, t.into_bytes()),
        (None, Some(h)) => (Format::Html, h.into_bytes()),
        (Some(_), Some(_)) => {
            return Err(unprocessable("give either \"text\" or \"html\", not both"));
        }
        (None, None) => return Err(unprocessable("missing field: \"text\" or \"html\"")),
    };
    let rec = RawRecord { source: "request".into(), line: None, format, bytes, warc: None };
    match lookalike_io::decode(&rec, &ReadOptions::default()) {
        Decoded::Doc { mut doc, .. } => {
            doc.id = id.unwrap_or_default();
            Ok(Ok(doc))
        }
        Decoded::Skip { reason, .. } => Ok(Err(reason)),
    }
}

fn response(c: Checked) -> CheckResponse {
    let (status, of, similarity, reason) = match &c.fate {
        Fate::Kept => ("kept", None, None, None),
        Fate::Duplicate { of, similarity, .. } => {
            ("duplicate", Some(of.clone()), Some(*similarity), None)
        }
        Fate::Skipped(r) => ("skipped", None, None, Some(r.as_str().to_owned())),
    };
    CheckResponse {
        duplicate: c.duplicate(),
        matches: c
            .matches
            .into_iter()
            .map(|m| MatchOut {
                id: m.id,
                similarity: m.similarity,
                kind: m.kind.as_str().to_owned(),
            })
            .collect(),
        id: c.id,
        inserted: c.inserted,
        replaced: c.replaced,
        status: status.to_owned(),
        of,
        similarity,
        reason,
    }
}

impl AppState {
    fn count(&self, endpoint: usize) {
        self.metrics.requests[endpoint].fetch_add(1, Ordering::Relaxed);
    }

    fn sender(&self) -> Result<mpsc::Sender<Job>, ApiError> {
        self.writer
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
            .ok_or_else(|| ApiError(StatusCode::SERVICE_UNAVAILABLE, "shutting down".into()))
    }

    /// Inserts documents through the writer; answers once committed.
    async fn insert(&self, docs: Vec<Document>) -> Result<Vec<Checked>, ApiError> {
        let (reply, rx) = oneshot::channel();
        self.sender()?
            .send(Job::Add { docs, reply })
            .map_err(|_| ApiError(StatusCode::SERVICE_UNAVAILABLE, "shutting down".into()))?;
        rx.await.map_err(internal)?.map_err(internal)
    }

    /// Checks documents against a snapshot, without inserting.
    async fn query(self: &Arc<Self>, docs: Vec<Document>) -> Result<Vec<Checked>, ApiError> {
        let state = self.clone();
        tokio::task::spawn_blocking(move || state.index.query(&docs))
            .await
            .map_err(internal)?
            .map_err(internal)
    }

    /// Checks (and inserts those asked to) documents, answering in order.
    async fn check(
        self: &Arc<Self>,
        reqs: Vec<CheckRequest>,
    ) -> Result<Vec<CheckResponse>, ApiError> {
        let mut docs = Vec::with_capacity(reqs.len());
        let mut insert = Vec::with_capacity(reqs.len());
        let mut skipped = Vec::new();
        for (i, r) in reqs.into_iter().enumerate() {
            if r.insert && r.id.as_deref().is_none_or(str::is_empty) {
                return Err(unprocessable(format!("document {i}: \"insert\" needs an \"id\"")));
            }
            let id = r.id.clone().unwrap_or_default();
            match document(r.id, r.text, r.html)
                .map_err(|e| ApiError(e.0, format!("document {i}: {}", e.1)))?
            {
                Ok(doc) => {
                    insert.push(r.insert);
                    docs.push((i, doc));
                }
                Err(reason) => skipped.push((i, id, reason)),
            }
        }
        let n = docs.len() + skipped.len();
        self.metrics.checked.fetch_add(n as u64, Ordering::Relaxed);
        let (to_insert, to_query): (Vec<_>, Vec<_>) =
            docs.into_iter().zip(insert.iter().copied()).partition(|(_, ins)| *ins);
        let (ins_at, ins_docs): (Vec<usize>, Vec<Document>) =
            to_insert.into_iter().map(|((i, d), _)| (i, d)).unzip();
        let (q_at, q_docs): (Vec<usize>, Vec<Document>) =
            to_query.into_iter().map(|((i, d), _)| (i, d)).unzip();
        let mut out: Vec<Option<CheckResponse>> = (0..n).map(|_| None).collect();
        for (i, id, reason) in skipped {
            out[i] = Some(CheckResponse {
                id,
                duplicate: false,
                matches: Vec::new(),
                inserted: false,
                replaced: false,
                status: "skipped".to_owned(),
                of: None,
                similarity: None,
                reason: Some(reason),
            });
        }
        if !ins_docs.is_empty() {
            let answers = self.insert(ins_docs).await?;
            self.metrics
                .inserted
                .fetch_add(answers.iter().filter(|c| c.inserted).count() as u64, Ordering::Relaxed);
            for (i, c) in ins_at.into_iter().zip(answers) {
                out[i] = Some(response(c));
            }
        }
        if !q_docs.is_empty() {
            for (i, c) in q_at.into_iter().zip(self.query(q_docs).await?) {
                out[i] = Some(response(c));
            }
        }
        Ok(out.into_iter().map(|c| c.expect("every document answered")).collect())
    }
}

/// Check one document (and insert it with `"insert": true`).
#[utoipa::path(post, path = "/v1/check", request_body = CheckRequest,
    responses(
        (status = 200, description = "The answer", body = CheckResponse),
        (status = 400, description = "Malformed JSON", body = ErrorBody),
        (status = 413, description = "Body too large", body = ErrorBody),
        (status = 415, description = "Not application/json", body = ErrorBody),
        (status = 422, description = "Bad or missing fields", body = ErrorBody),
    ))]
async fn check(
    State(s): State<Shared>,
    body: Result<Json<CheckRequest>, JsonRejection>,
) -> Result<Json<CheckResponse>, ApiError> {
    s.count(0);
    let Json(req) = body?;
    let mut out = s.check(vec![req]).await?;
    Ok(Json(out.remove(0)))
}

/// Check many documents: a JSON array, or NDJSON (`application/x-ndjson`), at most `--max-batch`;
/// answered in order (a JSON array).
#[utoipa::path(post, path = "/v1/check:batch", request_body(content = Vec<CheckRequest>, description = "A JSON array, or one object a line with Content-Type application/x-ndjson"),
    responses(
        (status = 200, description = "The answers, in order", body = Vec<CheckResponse>),
        (status = 400, description = "Malformed JSON", body = ErrorBody),
        (status = 413, description = "Body too large", body = ErrorBody),
        (status = 415, description = "Neither JSON nor NDJSON", body = ErrorBody),
        (status = 422, description = "Bad or missing fields", body = ErrorBody),
    ))]
async fn check_batch(
    State(s): State<Shared>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Json<Vec<CheckResponse>>, ApiError> {
    s.count(1);
    let ctype = headers.get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or("");
    let essence = ctype.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
    let parse_err = |line: Option<usize>, e: serde_json::Error| {
        let at = line.map(|l| format!("line {l}: ")).unwrap_or_default();
        let status =
            if e.is_data() { StatusCode::UNPROCESSABLE_ENTITY } else { StatusCode::BAD_REQUEST };
        ApiError(status, format!("{at}{e}"))
    };
    let reqs: Vec<CheckRequest> = match essence.as_str() {
        "application/json" => serde_json::from_slice(&body).map_err(|e| parse_err(None, e))?,
        "application/x-ndjson" | "application/jsonl" | "application/jsonlines" => {
            let mut v = Vec::new();
            for (i, line) in body.split(|&b| b == b'\n').enumerate() {
                if line.iter().all(u8::is_ascii_whitespace) {
                    continue;
                }
                if v.len() >= s.max_batch {
                    break;
                }
                v.push(serde_json::from_slice(line).map_err(|e| parse_err(Some(i + 1), e))?);
            }
            v
        }
        _ => {
            return Err(ApiError(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                format!(
                    "Content-Type {ctype:?}: send application/json (an array) or application/x-ndjson"
                ),
            ));
        }
    };
    let lines = if essence == "application/json" {
        reqs.len()
    } else {
        body.split(|&b| b == b'\n').filter(|l| !l.iter().all(u8::is_ascii_whitespace)).count()
    };
    if lines > s.max_batch {
        return Err(ApiError(
            StatusCode::UNPROCESSABLE_ENTITY,
            format!("{lines} documents: at most {} a batch", s.max_batch),
        ));
    }
    Ok(Json(s.check(reqs).await?))
}

/// Insert (or replace) the document with this id.
#[utoipa::path(put, path = "/v1/documents/{id}", request_body = DocumentBody,
    params(("id" = String, Path, description = "The caller's id")),
    responses(
        (status = 200, description = "Inserted; the check made first", body = CheckResponse),
        (status = 400, description = "Malformed JSON", body = ErrorBody),
        (status = 415, description = "Not application/json", body = ErrorBody),
        (status = 422, description = "Bad or missing fields", body = ErrorBody),
    ))]
async fn put_document(
    State(s): State<Shared>,
    Path(id): Path<String>,
    body: Result<Json<DocumentBody>, JsonRejection>,
) -> Result<Json<CheckResponse>, ApiError> {
    s.count(2);
    let Json(b) = body?;
    let mut out = s
        .check(vec![CheckRequest { id: Some(id), text: b.text, html: b.html, insert: true }])
        .await?;
    Ok(Json(out.remove(0)))
}

/// Remove the document with this id.
#[utoipa::path(delete, path = "/v1/documents/{id}",
    params(("id" = String, Path, description = "The caller's id")),
    responses(
        (status = 204, description = "Removed"),
        (status = 404, description = "Not in the index", body = ErrorBody),
    ))]
async fn delete_document(
    State(s): State<Shared>,
    Path(id): Path<String>,
) -> Result<StatusCode, ApiError> {
    s.count(3);
    let (reply, rx) = oneshot::channel();
    s.sender()?
        .send(Job::Remove { id: id.clone(), reply })
        .map_err(|_| ApiError(StatusCode::SERVICE_UNAVAILABLE, "shutting down".into()))?;
    if rx.await.map_err(internal)?.map_err(internal)? {
        s.metrics.removed.fetch_add(1, Ordering::Relaxed);
        Ok(StatusCode::NO_CONTENT)
    } else {
        Err(ApiError(StatusCode::NOT_FOUND, format!("no document {id:?} in the index")))
    }
}

/// The index's figures and settings.
#[utoipa::path(get, path = "/v1/index/stats", responses((status = 200, description = "Figures", body = StatsResponse)))]
async fn stats(State(s): State<Shared>) -> Result<Json<StatsResponse>, ApiError> {
    s.count(4);
    let state = s.clone();
    let counts = tokio::task::spawn_blocking(move || state.index.counts())
        .await
        .map_err(internal)?
        .map_err(internal)?;
    Ok(Json(StatsResponse {
        format: counts.format,
        documents: counts.documents,
        copies: counts.copies,
        keys: counts.keys,
        disk_bytes: counts.disk_bytes,
        method: s.index.describe(),
        settings: serde_json::to_value(&counts.settings).map_err(internal)?,
    }))
}

/// Liveness: the process answers.
#[utoipa::path(get, path = "/healthz", responses((status = 200, description = "Alive", body = String)))]
async fn healthz(State(s): State<Shared>) -> &'static str {
    s.count(5);
    "ok\n"
}

/// Readiness: the index is open and the writer takes inserts.
#[utoipa::path(get, path = "/readyz", responses((status = 200, description = "Ready", body = String), (status = 503, description = "Shutting down", body = String)))]
async fn readyz(State(s): State<Shared>) -> (StatusCode, &'static str) {
    s.count(6);
    if s.ready.load(Ordering::Relaxed) && s.sender().is_ok() {
        (StatusCode::OK, "ready\n")
    } else {
        (StatusCode::SERVICE_UNAVAILABLE, "not ready\n")
    }
}

/// Prometheus metrics (text format 0.0.4).
#[utoipa::path(get, path = "/metrics", responses((status = 200, description = "Metrics", body = String)))]
async fn metrics(State(s): State<Shared>) -> Response {
    s.count(7);
    let m = &s.metrics;
    let mut out = String::new();
    out.push_str("# HELP lookalike_requests_total HTTP requests by endpoint.\n# TYPE lookalike_requests_total counter\n");
    for (i, e) in ENDPOINTS.iter().enumerate() {
        out.push_str(&format!(
            "lookalike_requests_total{{endpoint=\"{e}\"}} {}\n",
            m.requests[i].load(Ordering::Relaxed)
        ));
    }
    let counter = |out: &mut String, name: &str, help: &str, v: u64| {
        out.push_str(&format!("# HELP {name} {help}\n# TYPE {name} counter\n{name} {v}\n"));
    };
    out.push_str("# HELP lookalike_responses_errors_total Error responses by class.\n# TYPE lookalike_responses_errors_total counter\n");
    out.push_str(&format!(
        "lookalike_responses_errors_total{{class=\"4xx\"}} {}\n",
        m.errors_4xx.load(Ordering::Relaxed)
    ));
    out.push_str(&format!(
        "lookalike_responses_errors_total{{class=\"5xx\"}} {}\n",
        m.errors_5xx.load(Ordering::Relaxed)
    ));
    counter(
        &mut out,
        "lookalike_documents_checked_total",
        "Documents checked.",
        m.checked.load(Ordering::Relaxed),
    );
    counter(
        &mut out,
        "lookalike_documents_inserted_total",
        "Documents inserted.",
        m.inserted.load(Ordering::Relaxed),
    );
    counter(
        &mut out,
        "lookalike_documents_removed_total",
        "Documents removed.",
        m.removed.load(Ordering::Relaxed),
    );
    counter(
        &mut out,
        "lookalike_commits_total",
        "Transactions committed by the writer.",
        m.commits.load(Ordering::Relaxed),
    );
    out.push_str(&format!(
        "# HELP lookalike_commit_seconds_total Time spent in writer transactions.\n# TYPE lookalike_commit_seconds_total counter\nlookalike_commit_seconds_total {:.6}\n",
        m.commit_seconds_micros.load(Ordering::Relaxed) as f64 / 1e6
    ));
    let docs = s.index.len().unwrap_or(0);
    out.push_str(&format!("# HELP lookalike_index_documents Documents in the index.\n# TYPE lookalike_index_documents gauge\nlookalike_index_documents {docs}\n"));
    ([(header::CONTENT_TYPE, "text/plain; version=0.0.4")], out).into_response()
}

async fn openapi_json(State(s): State<Shared>) -> Json<serde_json::Value> {
    Json(openapi(s.max_batch))
}

/// Counts error answers for `/metrics`.
async fn count_errors(
    State(s): State<Shared>,
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    let resp = next.run(req).await;
    let status = resp.status();
    if status.is_client_error() {
        s.metrics.errors_4xx.fetch_add(1, Ordering::Relaxed);
    } else if status.is_server_error() {
        s.metrics.errors_5xx.fetch_add(1, Ordering::Relaxed);
    }
    resp
}

/// The writer thread: groups jobs arriving within `window` into one transaction each.
fn writer_loop(
    index: Arc<Index>,
    rx: mpsc::Receiver<Job>,
    window: Duration,
    state: std::sync::Weak<AppState>,
) {
    while let Ok(first) = rx.recv() {
        let mut jobs = vec![first];
        let deadline = Instant::now() + window;
        let mut docs = jobs_docs(&jobs);
        while docs < MAX_GROUP {
            let left = deadline.saturating_duration_since(Instant::now());
            match rx.recv_timeout(left) {
                Ok(j) => {
                    jobs.push(j);
                    docs = jobs_docs(&jobs);
                }
                Err(_) => break,
            }
        }
        let started = Instant::now();
        let mut commits = 0;
        let mut jobs = jobs.into_iter().peekable();
        while let Some(job) = jobs.next() {
            match job {
                Job::Add { docs, reply } => {
                    // Every consecutive Add: one transaction.
                    let mut group = vec![(docs.len(), reply)];
                    let mut all = docs;
                    while let Some(Job::Add { .. }) = jobs.peek() {
                        if let Some(Job::Add { docs, reply }) = jobs.next() {
                            group.push((docs.len(), reply));
                            all.extend(docs);
                        }
                    }
                    commits += 1;
                    match index.add(&all) {
                        Ok(answers) => {
                            let mut answers = answers.into_iter();
                            for (n, reply) in group {
                                let _ = reply.send(Ok(answers.by_ref().take(n).collect()));
                            }
                        }
                        Err(e) => {
                            for (_, reply) in group {
                                let _ = reply.send(Err(e.to_string()));
                            }
                        }
                    }
                }
                Job::Remove { id, reply } => {
                    commits += 1;
                    let _ =
                        reply.send(index.remove(&[id]).map(|f| f[0]).map_err(|e| e.to_string()));
                }
            }
        }
        if let Some(s) = state.upgrade() {
            s.metrics.commits.fetch_add(commits, Ordering::Relaxed);
            s.metrics
                .commit_seconds_micros
                .fetch_add(started.elapsed().as_micros() as u64, Ordering::Relaxed);
        }
    }
}

fn jobs_docs(jobs: &[Job]) -> usize {
    jobs.iter()
        .map(|j| match j {
            Job::Add { docs, .. } => docs.len(),
            Job::Remove { .. } => 1,
        })
        .sum()
}

/// Resolves on SIGINT or SIGTERM.
async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = term => {},
    }
}

/// The router over a state (tests build it on an ephemeral port).
fn router(state: Shared, max_body: usize, timeout: Duration) -> Router {
    Router::new()
        .route("/v1/check", post(check))
        .route("/v1/check:batch", post(check_batch))
        .route("/v1/documents/{id}", put(put_document).delete(delete_document))
        .route("/v1/index/stats", get(stats))
        .route("/healthz", get(healthz))
        .route("/readyz", get(readyz))
        .route("/metrics", get(metrics))
        .route("/openapi.json", get(openapi_json))
        .layer(axum::middleware::from_fn_with_state(state.clone(), count_errors))
        .layer(DefaultBodyLimit::max(max_body))
        .layer(tower_http::timeout::TimeoutLayer::with_status_code(
            StatusCode::REQUEST_TIMEOUT,
            timeout,
        ))
        .with_state(state)
}

/// Runs `lookalike serve`.
pub fn run(args: ServeArgs) -> Result<ExitCode> {
    crate::setup::set_threads(args.threads)?;
    let mut index = crate::index::open(&args.dir, &args.expect)?;
    index.set_durability(match args.durability {
        DurabilityArg::Safe => Durability::Immediate,
        DurabilityArg::Fast => Durability::Fast,
    });
    let index = Arc::new(index);
    let (tx, rx) = mpsc::channel();
    let state = Arc::new(AppState {
        index: index.clone(),
        writer: Mutex::new(Some(tx)),
        metrics: Metrics::default(),
        max_batch: args.max_batch,
        ready: AtomicBool::new(false),
    });
    let window = Duration::from_millis(args.group_commit_ms);
    let weak = Arc::downgrade(&state);
    let writer_index = index.clone();
    let writer = std::thread::Builder::new()
        .name("index-writer".into())
        .spawn(move || writer_loop(writer_index, rx, window, weak))
        .context("cannot start the writer thread")?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let app = router(state.clone(), args.max_body, Duration::from_secs(args.timeout));
    let served = runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(args.addr)
            .await
            .with_context(|| format!("cannot listen on {}", args.addr))?;
        let local: SocketAddr = listener.local_addr()?;
        state.ready.store(true, Ordering::Relaxed);
        // The address actually bound (port 0 picks one): tests and scripts read this line.
        eprintln!("lookalike: serving {} on http://{local}", args.dir.display());
        axum::serve(listener, app)
            .with_graceful_shutdown(shutdown_signal())
            .await
            .context("the server failed")
    });
    state.ready.store(false, Ordering::Relaxed);
    // No new writes; the writer drains what was queued (every answered insert is committed).
    state.writer.lock().unwrap_or_else(|e| e.into_inner()).take();
    drop(runtime);
    let _ = writer.join();
    index.flush().map_err(crate::index::index_error)?;
    served?;
    eprintln!("lookalike: stopped; the index is committed");
    Ok(ExitCode::SUCCESS)
}
