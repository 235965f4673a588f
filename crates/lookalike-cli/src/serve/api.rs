//! The service's requests and answers: their JSON types, errors as answers, a request's document decoded.

use anyhow::Result;
use axum::Json;
use axum::extract::rejection::{BytesRejection, JsonRejection};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use lookalike::Document;
use lookalike::boilerplate::SiteTemplate;
use lookalike_index::{Checked, Fate};
use lookalike_io::boilerplate::decode_alone;
use lookalike_io::{Decoded, Format};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::MAX_ID_BYTES;

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
pub(super) fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
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

/// An error answer: status and `{"error": ...}`.
pub(super) struct ApiError(pub(super) StatusCode, pub(super) String);

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

pub(super) fn unprocessable(msg: impl Into<String>) -> ApiError {
    ApiError(StatusCode::UNPROCESSABLE_ENTITY, msg.into())
}

pub(super) fn internal(msg: impl std::fmt::Display) -> ApiError {
    ApiError(StatusCode::INTERNAL_SERVER_ERROR, msg.to_string())
}

/// The answer to writes once the writer thread has failed.
pub(super) fn writer_failed() -> ApiError {
    ApiError(
        StatusCode::SERVICE_UNAVAILABLE,
        "the index writer failed: no write is taken until the service is restarted".into(),
    )
}

/// An id within [`MAX_ID_BYTES`].
pub(super) fn check_id(id: &str) -> Result<(), ApiError> {
    if id.len() > MAX_ID_BYTES {
        return Err(unprocessable(format!("the id is {} bytes: at most {MAX_ID_BYTES}", id.len())));
    }
    Ok(())
}

/// A document from a request, decoded as `index add` decodes a text or HTML file (cleaned of
/// the index's site template, when it has one), or the reason the readers would skip it.
pub(super) fn document(
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

pub(super) fn response(c: Checked) -> CheckResponse {
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
pub(super) fn skipped(id: String, reason: String) -> CheckResponse {
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
