//! `lookalike.Index`: the persistent index of `lookalike index` from Python.
//!
//! The same directory, format and answers as the CLI's `index` commands and `lookalike serve`:
//! an index created here is read by `lookalike index stats` and the other way round. Documents
//! are decoded as `serve` decodes a request's `text` or `html`.

use std::path::PathBuf;

use lookalike_index::{Checked, Fate, Index as Inner, IndexSettings};
use lookalike_io::{Decoded, Format, RawRecord, ReadOptions};
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use crate::config;

/// An index error as a Python exception: I/O and storage are `OSError`, settings `ValueError`.
fn index_err(e: lookalike_index::Error) -> PyErr {
    use lookalike_index::Error as E;
    match e {
        E::NotAnIndex { .. } | E::Exists { .. } | E::Storage { .. } | E::Io { .. } => {
            PyOSError::new_err(e.to_string())
        }
        E::Corrupt { .. } | E::Damaged { .. } | E::Locked { .. } | E::ReadOnly { .. } => {
            PyOSError::new_err(e.to_string())
        }
        other => PyValueError::new_err(other.to_string()),
    }
}

/// A persistent near-duplicate index on disk (the directory of `lookalike index create`).
///
/// `Index(path)` opens an index; `Index(path, create=True, method=..., threshold=...,
/// **options)` creates one, freezing its settings (options are `lookalike dedup`'s, as in
/// `lookalike.dedup`). `check` asks without inserting, `add` checks and inserts, `get` looks an
/// id up, `remove` deletes by id. Each `add` and `remove` is one committed transaction.
#[pyclass(module = "lookalike._lookalike", name = "Index")]
#[derive(Debug)]
pub struct Index {
    inner: Inner,
}

/// A document from `text` or `html`, decoded as `lookalike serve` decodes a request; `Err`
/// holds the reason the readers skip it (empty text, ...).
fn document(
    id: String,
    text: Option<String>,
    html: Option<String>,
) -> PyResult<Result<lookalike::Document, String>> {
    let (format, bytes) = match (text, html) {
        (Some(t), None) => (Format::Text, t.into_bytes()),
        (None, Some(h)) => (Format::Html, h.into_bytes()),
        (Some(_), Some(_)) => {
            return Err(PyValueError::new_err("give either text or html, not both"));
        }
        (None, None) => return Err(PyValueError::new_err("give text or html")),
    };
    let rec = RawRecord { source: "python".into(), line: None, format, bytes, warc: None };
    Ok(match lookalike_io::decode(&rec, &ReadOptions::default()) {
        Decoded::Doc { mut doc, .. } => {
            doc.id = id;
            Ok(doc)
        }
        Decoded::Skip { reason, .. } => Err(reason.to_string()),
    })
}

/// The answer for one document as a dict: `id`, `duplicate`, `status` (kept, duplicate or
/// skipped), `of`, `similarity`, `reason`, `matches` (dicts of `id`, `similarity`, `match`),
/// `inserted`, `replaced`.
fn answer<'py>(py: Python<'py>, c: &Checked) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("id", &c.id)?;
    d.set_item("duplicate", c.duplicate())?;
    let (status, of, similarity, reason) = match &c.fate {
        Fate::Kept => ("kept", None, None, None),
        Fate::Duplicate { of, similarity, .. } => {
            ("duplicate", Some(of.as_str()), Some(*similarity), None)
        }
        Fate::Skipped(r) => ("skipped", None, None, Some(r.as_str().to_owned())),
    };
    d.set_item("status", status)?;
    d.set_item("of", of)?;
    d.set_item("similarity", similarity)?;
    d.set_item("reason", reason.or_else(|| c.unsigned.clone()))?;
    let matches = PyList::empty(py);
    for m in &c.matches {
        let md = PyDict::new(py);
        md.set_item("id", &m.id)?;
        md.set_item("similarity", m.similarity)?;
        md.set_item("match", m.kind.as_str())?;
        matches.append(md)?;
    }
    d.set_item("matches", matches)?;
    d.set_item("inserted", c.inserted)?;
    d.set_item("replaced", c.replaced)?;
    Ok(d)
}

/// The answer for a document the readers skip (nothing was looked up or inserted).
fn skipped<'py>(py: Python<'py>, id: &str, reason: &str) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("id", id)?;
    d.set_item("duplicate", false)?;
    d.set_item("status", "skipped")?;
    d.set_item("of", py.None())?;
    d.set_item("similarity", py.None())?;
    d.set_item("reason", reason)?;
    d.set_item("matches", PyList::empty(py))?;
    d.set_item("inserted", false)?;
    d.set_item("replaced", false)?;
    Ok(d)
}

impl Index {
    fn run<'py>(
        &self,
        py: Python<'py>,
        id: String,
        text: Option<String>,
        html: Option<String>,
        insert: bool,
    ) -> PyResult<Bound<'py, PyDict>> {
        let doc = match document(id.clone(), text, html)? {
            Ok(doc) => doc,
            Err(reason) => return skipped(py, &id, &reason),
        };
        let inner = &self.inner;
        let checked = py
            .detach(|| if insert { inner.add(&[doc]) } else { inner.query(&[doc]) })
            .map_err(index_err)?;
        match checked.first() {
            Some(c) => answer(py, c),
            None => Err(PyValueError::new_err("the index answered nothing for the document")),
        }
    }
}

#[pymethods]
impl Index {
    /// Opens the index at `path`, or creates it with `create=True` and the given settings.
    #[new]
    #[pyo3(signature = (path, *, create = false, method = None, threshold = 0.8, **options))]
    fn new(
        py: Python<'_>,
        path: PathBuf,
        create: bool,
        method: Option<&str>,
        threshold: f64,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        let inner = if create {
            let config = config::config(method, threshold, Some("first"), Some("center"), options)?;
            let settings = IndexSettings::from_config(&config).map_err(index_err)?;
            py.detach(|| Inner::create(&path, &settings))
        } else {
            if method.is_some() || options.is_some_and(|o| !o.is_empty()) {
                return Err(PyValueError::new_err(
                    "settings are frozen when the index is created: give them with create=True",
                ));
            }
            py.detach(|| Inner::open(&path))
        }
        .map_err(index_err)?;
        Ok(Index { inner })
    }

    /// Checks a document (`text` or `html`) against the index without inserting it.
    #[pyo3(signature = (text = None, *, html = None, id = None))]
    fn check<'py>(
        &self,
        py: Python<'py>,
        text: Option<String>,
        html: Option<String>,
        id: Option<String>,
    ) -> PyResult<Bound<'py, PyDict>> {
        self.run(py, id.unwrap_or_default(), text, html, false)
    }

    /// Checks a document against the index and inserts it under `id` (re-adding an id replaces
    /// that document); committed when this returns.
    #[pyo3(signature = (id, text = None, *, html = None))]
    fn add<'py>(
        &self,
        py: Python<'py>,
        id: String,
        text: Option<String>,
        html: Option<String>,
    ) -> PyResult<Bound<'py, PyDict>> {
        self.run(py, id, text, html, true)
    }

    /// Removes the document with this id; False when the index has none.
    fn remove(&self, py: Python<'_>, id: String) -> PyResult<bool> {
        let inner = &self.inner;
        let removed = py.detach(|| inner.remove(&[id])).map_err(index_err)?;
        Ok(removed.first().copied().unwrap_or(false))
    }

    /// The document held under `id` as a dict (`id`, `text`: the text compared, an HTML page's
    /// main content), or None when the index holds no such id.
    fn get<'py>(&self, py: Python<'py>, id: &str) -> PyResult<Option<Bound<'py, PyDict>>> {
        let inner = &self.inner;
        let Some(doc) = py.detach(|| inner.get(id)).map_err(index_err)? else { return Ok(None) };
        let d = PyDict::new(py);
        d.set_item("id", doc.id)?;
        d.set_item("text", doc.text)?;
        Ok(Some(d))
    }

    /// Number of documents held.
    fn __len__(&self, py: Python<'_>) -> PyResult<usize> {
        let inner = &self.inner;
        let n = py.detach(|| inner.len()).map_err(index_err)?;
        usize::try_from(n).map_err(|e| PyValueError::new_err(e.to_string()))
    }

    /// The figures of `lookalike index stats`, as a JSON string.
    fn stats_json(&self, py: Python<'_>) -> PyResult<String> {
        let inner = &self.inner;
        let stats = py.detach(|| inner.stats()).map_err(index_err)?;
        serde_json::to_string(&stats).map_err(|e| PyValueError::new_err(e.to_string()))
    }

    /// The settings frozen at creation, in words.
    fn describe(&self) -> String {
        self.inner.describe()
    }

    fn __repr__(&self) -> String {
        format!("Index({:?})", self.inner.dir().display().to_string())
    }
}
