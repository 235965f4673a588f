//! `lookalike serve`: an index over HTTP (axum handlers, served by hyper on its own accept loop).
//! Contract: "send me a page, I tell you what you already have that it near-duplicates, and keep
//! it if you ask".
//!
//! - Checks without insert run on the blocking pool against a snapshot: many at once (redb's
//!   MVCC readers never wait for the writer).
//! - Inserts, replacements and deletions go to one writer thread, which groups what arrives
//!   within `--group-commit-ms` (or 4096 documents) into one transaction: one fsync for the group.
//!   A request is answered only once its transaction is committed, so an answered insert is on
//!   disk (`--durability safe`).
//! - Answers can be trusted: a request still running after `--timeout` is answered 408 only if
//!   the writer has taken none of its writes (and then never will: see [`Claim`]); once one is
//!   taken, the request is answered when it is committed. A batch is answered in order: its
//!   documents are checked (and inserted) as if one after the other.
//! - Writes need the bearer token when one is given (`--token-file` or `LOOKALIKE_TOKEN`,
//!   compared in constant time); without one the service listens on loopback addresses only.
//!   Reads stay open. Ids are at most [`MAX_ID_BYTES`].
//! - Documents are decoded as `lookalike index add` decodes a `.txt` or `.html` file (`html`:
//!   main content), and cleaned of the index's site template when it has one (`index create
//!   --boilerplate-from`; a page's site is the host of its URL id, or its path's folders), so
//!   the answers are the CLI's.
//! - Bodies above `--max-body` get 413, malformed JSON 400, a wrong content type 415, bad or
//!   missing fields 422 (a batch over `--max-batch` documents too), a request over `--timeout`
//!   408; every error body is `{"error": "..."}` (the [`errors`] middleware makes it so for the
//!   answers of axum's own rejections and fallbacks). A document the readers would skip (binary
//!   content, no text) is answered `"status": "skipped"` with the reason, as `index add` reports
//!   it, and the rest of its batch is answered as usual.
//! - Connections are bounded: a client has `--header-timeout` to send a request's headers (and a
//!   kept-alive connection may idle that long), and `--write-timeout` to take a byte of its
//!   answer ([`WriteTimeout`]).
//! - SIGINT or SIGTERM: no new connections, requests in flight get `--drain-timeout` to be
//!   answered (their commits done), then the remaining connections are closed, the writer commits
//!   what it was given, the index is flushed and closed. A second signal exits at once.
//! - The writer thread failing (a panic) makes `/readyz` answer 503, writes 503, and the exit
//!   code 1.
//! - `/openapi.json` is generated from the handlers' annotations (utoipa).

use std::net::SocketAddr;
use std::path::Path as FsPath;
use std::pin::Pin;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak, mpsc};
use std::task::{Context as TaskContext, Poll};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow};
use axum::body::{Body, Bytes};
use axum::extract::rejection::{BytesRejection, JsonRejection};
use axum::extract::{DefaultBodyLimit, Extension, Path, Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::{Next, from_fn_with_state};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use lookalike::Document;
use lookalike::boilerplate::SiteTemplate;
use lookalike_index::{Checked, Durability, Fate, Index};
use lookalike_io::boilerplate::decode_alone;
use lookalike_io::{Decoded, Format};
use serde::{Deserialize, Serialize};
use subtle::ConstantTimeEq;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::oneshot;
use utoipa::{OpenApi, ToSchema};

use crate::UsageError;
use crate::args::{DurabilityArg, ServeArgs};

/// Longest id, in bytes (a request's `id` or the `{id}` of `/v1/documents/{id}`): 422 beyond.
pub const MAX_ID_BYTES: usize = 4096;

/// Longest request target (path and query), in bytes: 414 beyond. Room for a percent-encoded id
/// of [`MAX_ID_BYTES`].
const MAX_TARGET_BYTES: usize = 16 << 10;

/// The environment variable that may hold the token (instead of `--token-file`).
const TOKEN_ENV: &str = "LOOKALIKE_TOKEN";

/// Shortest token accepted, in bytes.
const MIN_TOKEN_BYTES: usize = 16;

/// Debug builds only: the writer panics when given a document with this id, so that the tests
/// can see what a failed writer does (readiness, answers, exit code). Release builds have no
/// such hook: a hidden flag would be part of the shipped binary's behaviour.
#[cfg(debug_assertions)]
const PANIC_ID_ENV: &str = "LOOKALIKE_TEST_WRITER_PANIC_ID";

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

/// A document the index holds.
#[derive(Debug, Serialize, ToSchema)]
pub struct DocumentOut {
    /// Its id.
    pub id: String,
    /// Its text, as compared (an HTML page's main content).
    pub text: String,
}

#[derive(OpenApi)]
#[openapi(
    info(
        title = "lookalike",
        description = "A persistent near-duplicate index: have I seen this page?"
    ),
    paths(
        check,
        check_batch,
        get_document,
        put_document,
        delete_document,
        stats,
        healthz,
        readyz,
        metrics
    ),
    components(schemas(
        CheckRequest,
        DocumentBody,
        CheckResponse,
        DocumentOut,
        MatchOut,
        StatsResponse,
        ErrorBody
    )),
    modifiers(&BearerAuth)
)]
struct ApiDoc;

/// The bearer token of writes, in the OpenAPI document.
struct BearerAuth;

impl utoipa::Modify for BearerAuth {
    fn modify(&self, doc: &mut utoipa::openapi::OpenApi) {
        use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
        let components = doc.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "token",
            SecurityScheme::Http(HttpBuilder::new().scheme(HttpAuthScheme::Bearer).build()),
        );
    }
}

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

/// Where a request's writes stand, shared by the jobs its handler gives the writer, the writer
/// and the request's deadline ([`deadline`]): the writer applies a job only if the deadline has
/// not cancelled the request, and the deadline answers 408 only if the writer has taken none of
/// its jobs. So a 408 means "nothing applied", and a request whose write the writer took is
/// answered with its commit, however long that takes.
#[derive(Debug, Clone, Default)]
struct Claim(Arc<AtomicU8>);

const OPEN: u8 = 0;
const TAKEN: u8 = 1;
const CANCELLED: u8 = 2;

impl Claim {
    /// The writer, before applying one of the request's jobs: false when the deadline has
    /// cancelled the request.
    fn take(&self) -> bool {
        match self.0.compare_exchange(OPEN, TAKEN, Ordering::AcqRel, Ordering::Acquire) {
            Ok(_) => true,
            Err(now) => now == TAKEN,
        }
    }

    /// The deadline: true when the writer has taken none of the request's jobs (and now never
    /// will).
    fn cancel(&self) -> bool {
        match self.0.compare_exchange(OPEN, CANCELLED, Ordering::AcqRel, Ordering::Acquire) {
            Ok(_) => true,
            Err(now) => now == CANCELLED,
        }
    }
}

type Reply<T> = oneshot::Sender<Result<T, String>>;

enum Job {
    Add { docs: Vec<Document>, claim: Claim, reply: Reply<Vec<Checked>> },
    Remove { id: String, claim: Claim, reply: Reply<bool> },
}

#[derive(Default)]
struct Metrics {
    requests: [AtomicU64; ENDPOINTS.len()],
    errors_4xx: AtomicU64,
    errors_5xx: AtomicU64,
    checked: AtomicU64,
    inserted: AtomicU64,
    removed: AtomicU64,
    commits: AtomicU64,
    commit_seconds_micros: AtomicU64,
}

const ENDPOINTS: [&str; 9] =
    ["check", "check_batch", "put", "delete", "stats", "healthz", "readyz", "metrics", "get"];

/// The bearer token that writes need.
struct Token(Vec<u8>);

impl Token {
    /// The token of `--token-file`, or of `LOOKALIKE_TOKEN`; none when neither is given. One too
    /// short, or with characters a header cannot carry, is refused.
    fn load(file: Option<&FsPath>) -> Result<Option<Token>> {
        let env = std::env::var_os(TOKEN_ENV).filter(|v| !v.is_empty());
        let (raw, from) = match (file, env) {
            (Some(_), Some(_)) => {
                return Err(UsageError(format!(
                    "the token is given twice (--token-file and {TOKEN_ENV}): give it one way"
                ))
                .into());
            }
            (Some(f), None) => (fs_err::read_to_string(f)?, f.display().to_string()),
            (None, Some(v)) => (
                v.into_string().map_err(|_| UsageError(format!("{TOKEN_ENV} is not UTF-8")))?,
                TOKEN_ENV.to_owned(),
            ),
            (None, None) => return Ok(None),
        };
        let token = raw.trim();
        if token.len() < MIN_TOKEN_BYTES || !token.bytes().all(|b| b.is_ascii_graphic()) {
            return Err(UsageError(format!(
                "{from}: the token must be at least {MIN_TOKEN_BYTES} visible ASCII characters \
                 without spaces (e.g. head -c 32 /dev/urandom | base64)"
            ))
            .into());
        }
        Ok(Some(Token(token.as_bytes().to_vec())))
    }

    /// Whether the request carries it (`Authorization: Bearer TOKEN`), compared in constant time.
    fn admits(&self, headers: &HeaderMap) -> bool {
        let Some(value) = headers.get(header::AUTHORIZATION) else { return false };
        let value = value.as_bytes();
        let Some(space) = value.iter().position(|&b| b == b' ') else { return false };
        let (scheme, given) = value.split_at(space);
        scheme.eq_ignore_ascii_case(b"bearer") && bool::from(given.trim_ascii().ct_eq(&self.0))
    }
}

struct AppState {
    index: Arc<Index>,
    writer: Mutex<Option<mpsc::Sender<Job>>>,
    metrics: Metrics,
    max_batch: usize,
    timeout: Duration,
    token: Option<Token>,
    ready: AtomicBool,
    /// The writer thread stopped (a panic): nothing can be committed any more.
    writer_failed: AtomicBool,
}

type Shared = Arc<AppState>;

/// An error answer: status and `{"error": ...}`.
struct ApiError(StatusCode, String);

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut resp = (self.0, Json(ErrorBody { error: self.1 })).into_response();
        if self.0 == StatusCode::UNAUTHORIZED {
            resp.headers_mut().insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        }
        resp
    }
}

impl From<JsonRejection> for ApiError {
    fn from(r: JsonRejection) -> Self {
        ApiError(r.status(), r.body_text())
    }
}

impl From<BytesRejection> for ApiError {
    fn from(r: BytesRejection) -> Self {
        ApiError(r.status(), r.body_text())
    }
}

fn unprocessable(msg: impl Into<String>) -> ApiError {
    ApiError(StatusCode::UNPROCESSABLE_ENTITY, msg.into())
}

fn internal(msg: impl std::fmt::Display) -> ApiError {
    ApiError(StatusCode::INTERNAL_SERVER_ERROR, msg.to_string())
}

/// The answer to writes once the writer thread has failed.
fn writer_failed() -> ApiError {
    ApiError(
        StatusCode::SERVICE_UNAVAILABLE,
        "the index writer failed: no write is taken until the service is restarted".into(),
    )
}

/// An id within [`MAX_ID_BYTES`].
fn check_id(id: &str) -> Result<(), ApiError> {
    if id.len() > MAX_ID_BYTES {
        return Err(unprocessable(format!("the id is {} bytes: at most {MAX_ID_BYTES}", id.len())));
    }
    Ok(())
}

/// A document from a request, decoded as `index add` decodes a text or HTML file (cleaned of
/// the index's site template, when it has one), or the reason the readers would skip it.
fn document(
    id: Option<String>,
    text: Option<String>,
    html: Option<String>,
    template: Option<&SiteTemplate>,
) -> Result<Result<Document, String>, ApiError> {
    let (format, bytes) = match (text, html) {
        (Some(t), None) => (Format::Text, t.into_bytes()),
        (None, Some(h)) => (Format::Html, h.into_bytes()),
        (Some(_), Some(_)) => {
            return Err(unprocessable("give either \"text\" or \"html\", not both"));
        }
        (None, None) => return Err(unprocessable("missing field: \"text\" or \"html\"")),
    };
    let id = id.unwrap_or_default();
    match decode_alone("request", id, format, bytes, template) {
        Decoded::Doc { doc, .. } => Ok(Ok(doc)),
        Decoded::Skip { reason, .. } => Ok(Err(reason.to_string())),
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

/// The answer for a document the readers skip (nothing looked up or inserted).
fn skipped(id: String, reason: String) -> CheckResponse {
    CheckResponse {
        id,
        duplicate: false,
        matches: Vec::new(),
        inserted: false,
        replaced: false,
        status: "skipped".to_owned(),
        of: None,
        similarity: None,
        reason: Some(reason),
    }
}

impl AppState {
    fn count(&self, endpoint: usize) {
        self.metrics.requests[endpoint].fetch_add(1, Ordering::Relaxed);
    }

    /// 401 unless the request carries the token (when there is one).
    fn authorize(&self, headers: &HeaderMap) -> Result<(), ApiError> {
        match &self.token {
            Some(t) if !t.admits(headers) => Err(ApiError(
                StatusCode::UNAUTHORIZED,
                "writes need the service's token: Authorization: Bearer TOKEN (missing or wrong)"
                    .into(),
            )),
            _ => Ok(()),
        }
    }

    fn sender(&self) -> Result<mpsc::Sender<Job>, ApiError> {
        if self.writer_failed.load(Ordering::SeqCst) {
            return Err(writer_failed());
        }
        self.writer
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
            .ok_or_else(|| ApiError(StatusCode::SERVICE_UNAVAILABLE, "shutting down".into()))
    }

    /// Hands a job to the writer and waits for its answer: the write is committed when this
    /// returns `Ok`.
    async fn write<T>(&self, job: impl FnOnce(Reply<T>) -> Job) -> Result<T, ApiError> {
        let (reply, rx) = oneshot::channel();
        if self.sender()?.send(job(reply)).is_err() {
            self.writer_failed.store(true, Ordering::SeqCst);
            return Err(writer_failed());
        }
        match rx.await {
            Ok(answer) => answer.map_err(internal),
            // The writer dropped the job without answering: it failed (a taken job is answered).
            Err(_) => {
                self.writer_failed.store(true, Ordering::SeqCst);
                Err(internal("the index writer failed before committing this write: not applied"))
            }
        }
    }

    /// Checks documents against a snapshot, without inserting.
    async fn query(self: &Arc<Self>, docs: Vec<Document>) -> Result<Vec<Checked>, ApiError> {
        let state = self.clone();
        tokio::task::spawn_blocking(move || state.index.query(&docs))
            .await
            .map_err(internal)?
            .map_err(internal)
    }

    /// Checks (and inserts those asked to) documents, in order: each is checked against the
    /// index as the batch's earlier documents left it, never against a later one.
    async fn check(
        self: &Arc<Self>,
        reqs: Vec<CheckRequest>,
        headers: &HeaderMap,
        claim: &Claim,
    ) -> Result<Vec<CheckResponse>, ApiError> {
        if reqs.iter().any(|r| r.insert) {
            self.authorize(headers)?;
        }
        // Every document is decoded (and refused) before anything is written.
        let mut items = Vec::with_capacity(reqs.len());
        for (i, r) in reqs.into_iter().enumerate() {
            let at = |e: ApiError| ApiError(e.0, format!("document {i}: {}", e.1));
            if r.insert && r.id.as_deref().is_none_or(str::is_empty) {
                return Err(at(unprocessable("\"insert\" needs an \"id\"")));
            }
            let id = r.id.clone().unwrap_or_default();
            check_id(&id).map_err(at)?;
            items.push(
                match document(r.id, r.text, r.html, self.index.template()).map_err(at)? {
                    Ok(doc) => Ok((doc, r.insert)),
                    Err(reason) => Err(skipped(id, reason)),
                },
            );
        }
        self.metrics.checked.fetch_add(items.len() as u64, Ordering::Relaxed);
        // Runs of consecutive documents that are all inserted or all only checked, one after
        // the other.
        let mut out: Vec<Option<CheckResponse>> = Vec::with_capacity(items.len());
        let mut run: Vec<(usize, Document)> = Vec::new();
        let mut inserting = false;
        for (i, item) in items.into_iter().enumerate() {
            match item {
                Err(answer) => out.push(Some(answer)),
                Ok((doc, insert)) => {
                    if insert != inserting && !run.is_empty() {
                        self.answer_run(std::mem::take(&mut run), inserting, claim, &mut out)
                            .await?;
                    }
                    inserting = insert;
                    run.push((i, doc));
                    out.push(None);
                }
            }
        }
        if !run.is_empty() {
            self.answer_run(run, inserting, claim, &mut out).await?;
        }
        Ok(out.into_iter().map(|c| c.expect("every document answered")).collect())
    }

    /// Answers a run of documents that are all inserted (through the writer) or all only
    /// checked, at their places in `out`.
    async fn answer_run(
        self: &Arc<Self>,
        run: Vec<(usize, Document)>,
        insert: bool,
        claim: &Claim,
        out: &mut [Option<CheckResponse>],
    ) -> Result<(), ApiError> {
        let (at, docs): (Vec<usize>, Vec<Document>) = run.into_iter().unzip();
        let answers = if insert {
            let claim = claim.clone();
            let answers = self.write(|reply| Job::Add { docs, claim, reply }).await?;
            self.metrics
                .inserted
                .fetch_add(answers.iter().filter(|c| c.inserted).count() as u64, Ordering::Relaxed);
            answers
        } else {
            self.query(docs).await?
        };
        for (i, c) in at.into_iter().zip(answers) {
            out[i] = Some(response(c));
        }
        Ok(())
    }
}

/// Check one document (and insert it with `"insert": true`: that needs the token, when the
/// service has one).
#[utoipa::path(post, path = "/v1/check", request_body = CheckRequest,
    security((), ("token" = [])),
    responses(
        (status = 200, description = "The answer", body = CheckResponse),
        (status = 400, description = "Malformed JSON", body = ErrorBody),
        (status = 401, description = "An insert without the token", body = ErrorBody),
        (status = 408, description = "Not answered within --timeout: nothing was written", body = ErrorBody),
        (status = 413, description = "Body too large", body = ErrorBody),
        (status = 415, description = "Not application/json", body = ErrorBody),
        (status = 422, description = "Bad or missing fields", body = ErrorBody),
    ))]
async fn check(
    State(s): State<Shared>,
    headers: HeaderMap,
    Extension(claim): Extension<Claim>,
    body: Result<Json<CheckRequest>, JsonRejection>,
) -> Result<Json<CheckResponse>, ApiError> {
    s.count(0);
    let Json(req) = body?;
    let mut out = s.check(vec![req], &headers, &claim).await?;
    Ok(Json(out.remove(0)))
}

/// Check many documents: a JSON array, or NDJSON (`application/x-ndjson`), at most `--max-batch`;
/// answered in order (a JSON array): each document is checked against the index as the batch's
/// earlier documents left it.
#[utoipa::path(post, path = "/v1/check:batch", request_body(content = Vec<CheckRequest>, description = "A JSON array, or one object a line with Content-Type application/x-ndjson"),
    security((), ("token" = [])),
    responses(
        (status = 200, description = "The answers, in order", body = Vec<CheckResponse>),
        (status = 400, description = "Malformed JSON", body = ErrorBody),
        (status = 401, description = "An insert without the token", body = ErrorBody),
        (status = 408, description = "Not answered within --timeout: nothing was written", body = ErrorBody),
        (status = 413, description = "Body too large", body = ErrorBody),
        (status = 415, description = "Neither JSON nor NDJSON", body = ErrorBody),
        (status = 422, description = "Bad or missing fields", body = ErrorBody),
    ))]
async fn check_batch(
    State(s): State<Shared>,
    headers: HeaderMap,
    Extension(claim): Extension<Claim>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<Vec<CheckResponse>>, ApiError> {
    s.count(1);
    let body = body?;
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
    Ok(Json(s.check(reqs, &headers, &claim).await?))
}

/// The document held under this id.
#[utoipa::path(get, path = "/v1/documents/{id}",
    params(("id" = String, Path, description = "The caller's id")),
    responses(
        (status = 200, description = "The document", body = DocumentOut),
        (status = 404, description = "Not in the index", body = ErrorBody),
        (status = 422, description = "An id over 4096 bytes", body = ErrorBody),
    ))]
async fn get_document(
    State(s): State<Shared>,
    Path(id): Path<String>,
) -> Result<Json<DocumentOut>, ApiError> {
    s.count(8);
    check_id(&id)?;
    let state = s.clone();
    let lookup = id.clone();
    match tokio::task::spawn_blocking(move || state.index.get(&lookup))
        .await
        .map_err(internal)?
        .map_err(internal)?
    {
        Some(doc) => Ok(Json(DocumentOut { id: doc.id, text: doc.text })),
        None => Err(ApiError(StatusCode::NOT_FOUND, format!("no document {id:?} in the index"))),
    }
}

/// Insert (or replace) the document with this id.
#[utoipa::path(put, path = "/v1/documents/{id}", request_body = DocumentBody,
    params(("id" = String, Path, description = "The caller's id")),
    security(("token" = [])),
    responses(
        (status = 200, description = "Inserted; the check made first", body = CheckResponse),
        (status = 400, description = "Malformed JSON", body = ErrorBody),
        (status = 401, description = "Without the token", body = ErrorBody),
        (status = 408, description = "Not answered within --timeout: nothing was written", body = ErrorBody),
        (status = 415, description = "Not application/json", body = ErrorBody),
        (status = 422, description = "Bad or missing fields", body = ErrorBody),
    ))]
async fn put_document(
    State(s): State<Shared>,
    headers: HeaderMap,
    Extension(claim): Extension<Claim>,
    Path(id): Path<String>,
    body: Result<Json<DocumentBody>, JsonRejection>,
) -> Result<Json<CheckResponse>, ApiError> {
    s.count(2);
    s.authorize(&headers)?;
    let Json(b) = body?;
    let req = CheckRequest { id: Some(id), text: b.text, html: b.html, insert: true };
    let mut out = s.check(vec![req], &headers, &claim).await?;
    Ok(Json(out.remove(0)))
}

/// Remove the document with this id.
#[utoipa::path(delete, path = "/v1/documents/{id}",
    params(("id" = String, Path, description = "The caller's id")),
    security(("token" = [])),
    responses(
        (status = 204, description = "Removed"),
        (status = 401, description = "Without the token", body = ErrorBody),
        (status = 404, description = "Not in the index", body = ErrorBody),
        (status = 408, description = "Not answered within --timeout: nothing was removed", body = ErrorBody),
    ))]
async fn delete_document(
    State(s): State<Shared>,
    headers: HeaderMap,
    Extension(claim): Extension<Claim>,
    Path(id): Path<String>,
) -> Result<StatusCode, ApiError> {
    s.count(3);
    s.authorize(&headers)?;
    check_id(&id)?;
    let target = id.clone();
    if s.write(|reply| Job::Remove { id: target, claim, reply }).await? {
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

/// Readiness: the index is open and the writer takes inserts (503 while starting, stopping, or
/// once the writer has failed).
#[utoipa::path(get, path = "/readyz", responses((status = 200, description = "Ready", body = String), (status = 503, description = "Not ready, and why", body = ErrorBody)))]
async fn readyz(State(s): State<Shared>) -> Result<&'static str, ApiError> {
    s.count(6);
    let not_ready = |e: ApiError| ApiError(e.0, format!("not ready: {}", e.1));
    s.sender().map_err(not_ready)?;
    if !s.ready.load(Ordering::SeqCst) {
        return Err(not_ready(ApiError(StatusCode::SERVICE_UNAVAILABLE, "shutting down".into())));
    }
    Ok("ready\n")
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

/// Answers 408 for a request still running after `--timeout`, unless the writer has taken one
/// of its writes: that request is answered with its commit (see [`Claim`]).
async fn deadline(State(s): State<Shared>, mut req: Request, next: Next) -> Response {
    let claim = Claim::default();
    req.extensions_mut().insert(claim.clone());
    let answer = next.run(req);
    tokio::pin!(answer);
    tokio::select! {
        resp = &mut answer => resp,
        () = tokio::time::sleep(s.timeout) => {
            if claim.cancel() {
                ApiError(
                    StatusCode::REQUEST_TIMEOUT,
                    format!(
                        "not answered within --timeout {} s: nothing was written",
                        s.timeout.as_secs()
                    ),
                )
                .into_response()
            } else {
                answer.await
            }
        }
    }
}

/// Counts error answers for `/metrics`, refuses request targets over [`MAX_TARGET_BYTES`], and
/// gives the error answers that axum makes itself (unknown path 404, wrong method 405, body
/// rejections) the `{"error": ...}` body every other error has.
async fn errors(State(s): State<Shared>, req: Request, next: Next) -> Response {
    let target = req.uri().path_and_query().map_or(0, |p| p.as_str().len());
    let method = req.method().clone();
    let path = req.uri().path().to_owned();
    let resp = if target > MAX_TARGET_BYTES {
        ApiError(
            StatusCode::URI_TOO_LONG,
            format!("the request target is {target} bytes: at most {MAX_TARGET_BYTES}"),
        )
        .into_response()
    } else {
        next.run(req).await
    };
    let status = resp.status();
    if status.is_client_error() {
        s.metrics.errors_4xx.fetch_add(1, Ordering::Relaxed);
    } else if status.is_server_error() {
        s.metrics.errors_5xx.fetch_add(1, Ordering::Relaxed);
    } else {
        return resp;
    }
    let json = resp
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"application/json"));
    if json {
        return resp;
    }
    let (mut parts, body) = resp.into_parts();
    let text = axum::body::to_bytes(body, 64 << 10)
        .await
        .map(|b| String::from_utf8_lossy(&b).trim().to_owned())
        .unwrap_or_default();
    let error = if !text.is_empty() {
        text
    } else if status == StatusCode::METHOD_NOT_ALLOWED {
        // (axum adds the Allow header after this layer.)
        format!("method {method} not allowed for {path}: /openapi.json lists the endpoints")
    } else {
        status.canonical_reason().unwrap_or("error").to_owned()
    };
    let body = serde_json::to_vec(&ErrorBody { error }).unwrap_or_default();
    parts.headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    parts.headers.remove(header::CONTENT_LENGTH);
    Response::from_parts(parts, Body::from(body))
}

/// Unknown paths.
async fn not_found(method: Method, uri: axum::http::Uri) -> ApiError {
    ApiError(
        StatusCode::NOT_FOUND,
        format!("no endpoint {method} {}: /openapi.json lists them", uri.path()),
    )
}

/// The writer thread: groups jobs arriving within `window` into one transaction each; a job
/// whose request's deadline has passed ([`Claim`]) is dropped, not applied.
fn writer_loop(index: &Index, rx: &mpsc::Receiver<Job>, window: Duration, state: &Weak<AppState>) {
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
                Job::Add { docs, claim, reply } => {
                    // Every consecutive Add still wanted: one transaction.
                    let mut group = Vec::new();
                    let mut all = Vec::new();
                    let mut take = |docs: Vec<Document>, claim: Claim, reply| {
                        if claim.take() {
                            group.push((docs.len(), reply));
                            all.extend(docs);
                        }
                    };
                    take(docs, claim, reply);
                    while let Some(Job::Add { .. }) = jobs.peek() {
                        if let Some(Job::Add { docs, claim, reply }) = jobs.next() {
                            take(docs, claim, reply);
                        }
                    }
                    if group.is_empty() {
                        continue;
                    }
                    #[cfg(debug_assertions)]
                    panic_on_test_id(&all);
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
                Job::Remove { id, claim, reply } => {
                    if claim.take() {
                        commits += 1;
                        let _ = reply
                            .send(index.remove(&[id]).map(|f| f[0]).map_err(|e| e.to_string()));
                    }
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

/// The test hook of [`PANIC_ID_ENV`] (debug builds only).
#[cfg(debug_assertions)]
fn panic_on_test_id(docs: &[Document]) {
    if let Some(id) = std::env::var_os(PANIC_ID_ENV)
        && docs.iter().any(|d| id.to_str() == Some(d.id.as_str()))
    {
        panic!("{PANIC_ID_ENV}: the writer panics on document {id:?} (a test hook)");
    }
}

/// Marks the writer failed when its thread unwinds: readiness and the write endpoints say so.
struct WriterGuard(Weak<AppState>);

impl Drop for WriterGuard {
    fn drop(&mut self) {
        if std::thread::panicking()
            && let Some(s) = self.0.upgrade()
        {
            s.writer_failed.store(true, Ordering::SeqCst);
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

/// A TCP connection whose writes fail once the client has taken no byte of its answer for
/// `limit`: a client that never reads would otherwise hold its connection, and a graceful stop,
/// forever. (Reads need no such bound: hyper bounds the headers, `--timeout` the rest.)
struct WriteTimeout {
    stream: TcpStream,
    limit: Duration,
    /// Since when a write has been waiting, when one is.
    stalled: Option<Pin<Box<tokio::time::Sleep>>>,
}

impl WriteTimeout {
    fn new(stream: TcpStream, limit: Duration) -> WriteTimeout {
        WriteTimeout { stream, limit, stalled: None }
    }

    /// The outcome of a write attempt: progress resets the clock, waiting past `limit` fails.
    fn bound<T>(
        &mut self,
        attempt: Poll<std::io::Result<T>>,
        cx: &mut TaskContext<'_>,
    ) -> Poll<std::io::Result<T>> {
        if attempt.is_ready() {
            self.stalled = None;
            return attempt;
        }
        let limit = self.limit;
        let stalled = self.stalled.get_or_insert_with(|| Box::pin(tokio::time::sleep(limit)));
        match stalled.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Err(std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                "the client took no byte of its answer within --write-timeout",
            ))),
            Poll::Pending => Poll::Pending,
        }
    }
}

impl AsyncRead for WriteTimeout {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut TaskContext<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_read(cx, buf)
    }
}

impl AsyncWrite for WriteTimeout {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut TaskContext<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        let this = self.get_mut();
        let attempt = Pin::new(&mut this.stream).poll_write(cx, buf);
        this.bound(attempt, cx)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut TaskContext<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        let this = self.get_mut();
        let attempt = Pin::new(&mut this.stream).poll_write_vectored(cx, bufs);
        this.bound(attempt, cx)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<std::io::Result<()>> {
        let this = self.get_mut();
        let attempt = Pin::new(&mut this.stream).poll_flush(cx);
        this.bound(attempt, cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<std::io::Result<()>> {
        let this = self.get_mut();
        let attempt = Pin::new(&mut this.stream).poll_shutdown(cx);
        this.bound(attempt, cx)
    }
}

/// SIGINT and SIGTERM, every delivery seen (a second one exits at once).
struct Signals {
    #[cfg(unix)]
    interrupt: tokio::signal::unix::Signal,
    #[cfg(unix)]
    terminate: tokio::signal::unix::Signal,
}

impl Signals {
    fn new() -> std::io::Result<Signals> {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            Ok(Signals {
                interrupt: signal(SignalKind::interrupt())?,
                terminate: signal(SignalKind::terminate())?,
            })
        }
        #[cfg(not(unix))]
        Ok(Signals {})
    }

    /// The next SIGINT or SIGTERM.
    async fn recv(&mut self) {
        #[cfg(unix)]
        tokio::select! {
            _ = self.interrupt.recv() => {},
            _ = self.terminate.recv() => {},
        }
        #[cfg(not(unix))]
        let _ = tokio::signal::ctrl_c().await;
    }
}

/// How long connections may take.
struct Limits {
    header: Duration,
    write: Duration,
    drain: Duration,
}

/// How serving ended.
enum Stop {
    /// Every connection finished within the drain bound.
    Drained,
    /// Connections still open at the drain bound (closed when the runtime stops).
    Cut,
    /// A second signal.
    Forced,
}

/// Serves `app` until SIGINT or SIGTERM, then lets the requests in flight finish within
/// `limits.drain` (a second signal ends the wait).
async fn serve(
    listener: TcpListener,
    app: Router,
    limits: &Limits,
    signals: &mut Signals,
    state: &AppState,
) -> Stop {
    let graceful = GracefulShutdown::new();
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new()).header_read_timeout(limits.header);
    loop {
        tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => {
                    let io = TokioIo::new(WriteTimeout::new(stream, limits.write));
                    let conn = http.serve_connection(io, TowerToHyperService::new(app.clone()));
                    let conn = graceful.watch(conn);
                    tokio::spawn(async move {
                        let _ = conn.await;
                    });
                }
                // Out of file descriptors and the like: wait rather than spin.
                Err(_) => tokio::time::sleep(Duration::from_millis(100)).await,
            },
            () = signals.recv() => break,
        }
    }
    state.ready.store(false, Ordering::SeqCst);
    drop(listener);
    eprintln!(
        "lookalike: stopping: answering the requests in flight (at most --drain-timeout {} s; \
         a second signal exits at once)",
        limits.drain.as_secs()
    );
    tokio::select! {
        () = graceful.shutdown() => Stop::Drained,
        () = tokio::time::sleep(limits.drain) => Stop::Cut,
        () = signals.recv() => Stop::Forced,
    }
}

/// The router over a state.
fn router(state: Shared, max_body: usize) -> Router {
    Router::new()
        .route("/v1/check", post(check))
        .route("/v1/check:batch", post(check_batch))
        .route("/v1/documents/{id}", get(get_document).put(put_document).delete(delete_document))
        .route("/v1/index/stats", get(stats))
        .route("/healthz", get(healthz))
        .route("/readyz", get(readyz))
        .route("/metrics", get(metrics))
        .route("/openapi.json", get(openapi_json))
        .fallback(not_found)
        .layer(from_fn_with_state(state.clone(), deadline))
        .layer(from_fn_with_state(state.clone(), errors))
        .layer(DefaultBodyLimit::max(max_body))
        .with_state(state)
}

/// The message of a panic's payload.
fn panic_message(payload: &(dyn std::any::Any + Send)) -> &str {
    payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("a panic")
}

/// Runs `lookalike serve`.
pub fn run(args: ServeArgs) -> Result<ExitCode> {
    let token = Token::load(args.token_file.as_deref())?;
    if token.is_none() && !args.addr.ip().is_loopback() {
        return Err(UsageError(format!(
            "--addr {}: not a loopback address, and no token: anyone who can connect could \
             write. Give --token-file FILE (or {TOKEN_ENV}), or listen on 127.0.0.1 behind a \
             reverse proxy",
            args.addr
        ))
        .into());
    }
    crate::setup::set_threads(args.threads)?;
    let mut index = crate::index::open(&args.dir, &args.expect)?;
    index.set_durability(match args.durability {
        DurabilityArg::Safe => Durability::Immediate,
        DurabilityArg::Fast => Durability::Fast,
    });
    let index = Arc::new(index);
    let (tx, rx) = mpsc::channel();
    let writes_need_token = token.is_some();
    let state = Arc::new(AppState {
        index: index.clone(),
        writer: Mutex::new(Some(tx)),
        metrics: Metrics::default(),
        max_batch: args.max_batch,
        timeout: Duration::from_secs(args.timeout),
        token,
        ready: AtomicBool::new(false),
        writer_failed: AtomicBool::new(false),
    });
    let window = Duration::from_millis(args.group_commit_ms);
    let weak = Arc::downgrade(&state);
    let writer_index = index.clone();
    let writer = std::thread::Builder::new()
        .name("index-writer".into())
        .spawn(move || {
            let _guard = WriterGuard(weak.clone());
            writer_loop(&writer_index, &rx, window, &weak);
        })
        .context("cannot start the writer thread")?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let limits = Limits {
        header: Duration::from_secs(args.header_timeout),
        write: Duration::from_secs(args.write_timeout),
        drain: Duration::from_secs(args.drain_timeout),
    };
    let app = router(state.clone(), args.max_body);
    let served: Result<Option<(Stop, std::thread::Result<()>)>> = runtime.block_on(async {
        let mut signals = Signals::new().context("cannot handle SIGINT and SIGTERM")?;
        let listener = TcpListener::bind(args.addr)
            .await
            .with_context(|| format!("cannot listen on {}", args.addr))?;
        let local: SocketAddr = listener.local_addr()?;
        state.ready.store(true, Ordering::SeqCst);
        // The address actually bound (port 0 picks one): tests and scripts read this line.
        eprintln!("lookalike: serving {} on http://{local}", args.dir.display());
        if writes_need_token {
            eprintln!("lookalike: writes need the token; reads are open");
        }
        let stop = serve(listener, app, &limits, &mut signals, &state).await;
        // No new writes; the writer commits what it was given, then stops.
        state.writer.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Stop::Forced = stop {
            return Ok(None);
        }
        let joined = tokio::task::spawn_blocking(move || writer.join());
        tokio::select! {
            joined = joined => Ok(Some((stop, joined?))),
            () = signals.recv() => Ok(None),
        }
    });
    let Some((stop, joined)) = served? else {
        eprintln!(
            "lookalike: second signal: exiting now; every acknowledged write is committed (with \
             --durability fast, those of the last second may be lost); writes not answered yet \
             may or may not be"
        );
        std::process::exit(1);
    };
    // Connections still open after the drain bound are closed here.
    runtime.shutdown_timeout(Duration::from_secs(1));
    let flushed = index.flush().map_err(crate::index::index_error);
    if let Err(panic) = joined {
        return Err(anyhow!(
            "the index writer failed ({}): every acknowledged write is committed; the writes \
             answered 500 or 503 were not applied",
            panic_message(panic.as_ref())
        ));
    }
    flushed?;
    if let Stop::Cut = stop {
        eprintln!(
            "lookalike: warning: connections still open after --drain-timeout {} s were closed \
             (their requests unanswered)",
            args.drain_timeout
        );
    }
    eprintln!("lookalike: stopped; the index is committed");
    Ok(ExitCode::SUCCESS)
}
