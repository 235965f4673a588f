//! The handlers and middleware of each endpoint, the service's shared state, the OpenAPI description.

use std::path::Path as FsPath;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::Duration;

use anyhow::Result;
use axum::Json;
use axum::body::{Body, Bytes};
use axum::extract::rejection::{BytesRejection, JsonRejection};
use axum::extract::{Extension, Path, Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use lookalike::Document;
use lookalike_index::{Checked, Index};
use subtle::ConstantTimeEq;
use tokio::sync::oneshot;
use utoipa::OpenApi;

use crate::UsageError;

use super::api::{
    ApiError, CheckRequest, CheckResponse, DocumentBody, DocumentOut, ErrorBody, MatchOut,
    StatsResponse, check_id, document, internal, response, skipped, unprocessable, writer_failed,
};
use super::writer::{Claim, Job, Reply};
use super::{MAX_TARGET_BYTES, MIN_TOKEN_BYTES, TOKEN_ENV};

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
pub(super) struct ApiDoc;

/// The bearer token of writes, in the OpenAPI document.
pub(super) struct BearerAuth;

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
pub(super) fn openapi(max_batch: usize) -> serde_json::Value {
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

#[derive(Default)]
pub(super) struct Metrics {
    pub(super) requests: [AtomicU64; ENDPOINTS.len()],
    errors_4xx: AtomicU64,
    errors_5xx: AtomicU64,
    pub(super) checked: AtomicU64,
    pub(super) inserted: AtomicU64,
    pub(super) removed: AtomicU64,
    pub(super) commits: AtomicU64,
    pub(super) commit_seconds_micros: AtomicU64,
}

pub(super) const ENDPOINTS: [&str; 9] =
    ["check", "check_batch", "put", "delete", "stats", "healthz", "readyz", "metrics", "get"];

/// The bearer token that writes need.
pub(super) struct Token(Vec<u8>);

impl Token {
    /// The token of `--token-file`, or of `LOOKALIKE_TOKEN`; none when neither is given. One too
    /// short, or with characters a header cannot carry, is refused.
    pub(super) fn load(file: Option<&FsPath>) -> Result<Option<Token>> {
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
    pub(super) fn admits(&self, headers: &HeaderMap) -> bool {
        let Some(value) = headers.get(header::AUTHORIZATION) else { return false };
        let value = value.as_bytes();
        let Some(space) = value.iter().position(|&b| b == b' ') else { return false };
        let (scheme, given) = value.split_at(space);
        scheme.eq_ignore_ascii_case(b"bearer") && bool::from(given.trim_ascii().ct_eq(&self.0))
    }
}

pub(super) struct AppState {
    pub(super) index: Arc<Index>,
    pub(super) writer: Mutex<Option<mpsc::Sender<Job>>>,
    pub(super) metrics: Metrics,
    pub(super) max_batch: usize,
    pub(super) timeout: Duration,
    pub(super) token: Option<Token>,
    pub(super) ready: AtomicBool,
    /// The writer thread stopped (a panic): nothing can be committed any more.
    pub(super) writer_failed: AtomicBool,
}

pub(super) type Shared = Arc<AppState>;

impl AppState {
    pub(super) fn count(&self, endpoint: usize) {
        self.metrics.requests[endpoint].fetch_add(1, Ordering::Relaxed);
    }

    /// 401 unless the request carries the token (when there is one).
    pub(super) fn authorize(&self, headers: &HeaderMap) -> Result<(), ApiError> {
        match &self.token {
            Some(t) if !t.admits(headers) => Err(ApiError(
                StatusCode::UNAUTHORIZED,
                "writes need the service's token: Authorization: Bearer TOKEN (missing or wrong)"
                    .into(),
            )),
            _ => Ok(()),
        }
    }

    pub(super) fn sender(&self) -> Result<mpsc::Sender<Job>, ApiError> {
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
    pub(super) async fn write<T>(&self, job: impl FnOnce(Reply<T>) -> Job) -> Result<T, ApiError> {
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
    pub(super) async fn query(
        self: &Arc<Self>,
        docs: Vec<Document>,
    ) -> Result<Vec<Checked>, ApiError> {
        let state = self.clone();
        tokio::task::spawn_blocking(move || state.index.query(&docs))
            .await
            .map_err(internal)?
            .map_err(internal)
    }

    /// Checks (and inserts those asked to) documents, in order: each is checked against the
    /// index as the batch's earlier documents left it, never against a later one.
    pub(super) async fn check(
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
    pub(super) async fn answer_run(
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
pub(super) async fn check(
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
pub(super) async fn check_batch(
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
pub(super) async fn get_document(
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
pub(super) async fn put_document(
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
pub(super) async fn delete_document(
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
pub(super) async fn stats(State(s): State<Shared>) -> Result<Json<StatsResponse>, ApiError> {
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
pub(super) async fn healthz(State(s): State<Shared>) -> &'static str {
    s.count(5);
    "ok\n"
}

/// Readiness: the index is open and the writer takes inserts (503 while starting, stopping, or
/// once the writer has failed).
#[utoipa::path(get, path = "/readyz", responses((status = 200, description = "Ready", body = String), (status = 503, description = "Not ready, and why", body = ErrorBody)))]
pub(super) async fn readyz(State(s): State<Shared>) -> Result<&'static str, ApiError> {
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
pub(super) async fn metrics(State(s): State<Shared>) -> Response {
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

pub(super) async fn openapi_json(State(s): State<Shared>) -> Json<serde_json::Value> {
    Json(openapi(s.max_batch))
}

/// Answers 408 for a request still running after `--timeout`, unless the writer has taken one
/// of its writes: that request is answered with its commit (see [`Claim`]).
pub(super) async fn deadline(State(s): State<Shared>, mut req: Request, next: Next) -> Response {
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
pub(super) async fn errors(State(s): State<Shared>, req: Request, next: Next) -> Response {
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
pub(super) async fn not_found(method: Method, uri: axum::http::Uri) -> ApiError {
    ApiError(
        StatusCode::NOT_FOUND,
        format!("no endpoint {method} {}: /openapi.json lists them", uri.path()),
    )
}
