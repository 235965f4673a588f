//! `lookalike.Index`: the persistent index of `lookalike index` from Python.
//!
//! The same directory, format and answers as the CLI's `index` commands and `lookalike serve`:
//! an index created here is read by `lookalike index stats` and the other way round. Documents
//! are decoded as `serve` decodes a request's `text` or `html`.

use std::path::PathBuf;

use lookalike::boilerplate::{BoilerplateMode, SiteTemplate};
use lookalike_index::{Checked, Durability, Fate, Index as Inner, IndexSettings};
use lookalike_io::boilerplate::{decode_alone, learn as learn_template};
use lookalike_io::{BatchLimits, Decoded, Format, expand_inputs};
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use crate::config;
use crate::errors::io_err;
use crate::read::ReadSettings;

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
/// `lookalike.dedup`). With `boilerplate_from=[paths]` it learns each site's template from those
/// pages (as `lookalike index create --boilerplate-from`; `boilerplate`, `site_field`,
/// `boilerplate_min_pages`, `boilerplate_min_share` as in `lookalike.read`, the sample read with
/// `id_field`, `text_field`, `format`) and cleans every page checked or added of it. `check` asks without inserting, `add` checks and inserts, `get` looks an
/// id up, `remove` deletes by id. Each `add` and `remove` is one committed transaction.
#[pyclass(module = "lookalike._lookalike", name = "Index")]
#[derive(Debug)]
pub struct Index {
    inner: Inner,
}

/// A document from `text` or `html`, decoded as `lookalike serve` decodes a request (cleaned of
/// the index's site template, when it has one); `Err` holds the reason the readers skip it
/// (empty text, ...).
fn document(
    id: String,
    text: Option<String>,
    html: Option<String>,
    template: Option<&SiteTemplate>,
) -> PyResult<Result<lookalike::Document, String>> {
    let (format, bytes) = match (text, html) {
        (Some(t), None) => (Format::Text, t.into_bytes()),
        (None, Some(h)) => (Format::Html, h.into_bytes()),
        (Some(_), Some(_)) => {
            return Err(PyValueError::new_err("give either text or html, not both"));
        }
        (None, None) => return Err(PyValueError::new_err("give text or html")),
    };
    Ok(match decode_alone("python", id, format, bytes, template) {
        Decoded::Doc { doc, .. } => Ok(doc),
        Decoded::Skip { reason, .. } => Err(reason.to_string()),
    })
}

/// The site template of the pages at `paths`, read with `settings` (`Index(...,
/// boilerplate_from=...)`).
fn learn(py: Python<'_>, paths: &[String], settings: ReadSettings<'_>) -> PyResult<SiteTemplate> {
    let (opts, options) = settings.parse()?;
    if options.mode == BoilerplateMode::Off {
        return Err(PyValueError::new_err(
            "boilerplate=\"off\" with boilerplate_from: nothing would be learned",
        ));
    }
    let expanded = expand_inputs(paths).map_err(io_err)?;
    if expanded.inputs.is_empty() {
        return Err(io_err(format!("no readable input in {}", paths.join(", "))));
    }
    let mut warnings = Vec::new();
    let learned = py
        .detach(|| {
            learn_template(expanded.inputs, opts, &options, BatchLimits::default(), |e| {
                warnings.push(e.to_string())
            })
        })
        .map_err(io_err)?;
    let category = py.get_type::<pyo3::exceptions::PyUserWarning>();
    for w in warnings {
        PyErr::warn(py, &category, &std::ffi::CString::new(w).unwrap_or_default(), 1)?;
    }
    if learned.pages == 0 {
        return Err(PyValueError::new_err(format!(
            "boilerplate_from: none of its {} records is a page to learn a template from \
             (boilerplate=\"auto\" counts web pages: HTML, WARC, docreader; \"all\" counts \
             text and JSONL records too)",
            learned.records
        )));
    }
    Ok(learned.template)
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

/// One document of a request: its id, and its text or its HTML.
type Given = (String, Option<String>, Option<String>);

impl Index {
    /// Decodes `given` (in parallel, cleaned of the index's template), checks the documents the
    /// readers do not skip as one batch (`add`: inserted in one transaction, each checked against
    /// the index and the batch's earlier documents; else each against the index alone), and
    /// answers each, in order.
    fn run_many<'py>(
        &self,
        py: Python<'py>,
        given: Vec<Given>,
        insert: bool,
    ) -> PyResult<Vec<Bound<'py, PyDict>>> {
        use rayon::prelude::*;
        let inner = &self.inner;
        let template = inner.template();
        let decoded: Vec<(String, PyResult<Result<lookalike::Document, String>>)> =
            py.detach(|| {
                given
                    .into_par_iter()
                    .map(|(id, text, html)| (id.clone(), document(id, text, html, template)))
                    .collect()
            });
        let mut docs = Vec::new();
        let mut reasons = Vec::with_capacity(decoded.len());
        for (id, d) in decoded {
            match d? {
                Ok(doc) => {
                    docs.push(doc);
                    reasons.push((id, None));
                }
                Err(reason) => reasons.push((id, Some(reason))),
            }
        }
        let checked = py
            .detach(|| if insert { inner.add(&docs) } else { inner.query(&docs) })
            .map_err(index_err)?;
        let mut answers = checked.iter();
        reasons
            .iter()
            .map(|(id, reason)| match reason {
                Some(r) => skipped(py, id, r),
                None => match answers.next() {
                    Some(c) => answer(py, c),
                    None => {
                        Err(PyValueError::new_err("the index answered fewer documents than asked"))
                    }
                },
            })
            .collect()
    }

    fn run<'py>(
        &self,
        py: Python<'py>,
        id: String,
        text: Option<String>,
        html: Option<String>,
        insert: bool,
    ) -> PyResult<Bound<'py, PyDict>> {
        let mut answers = self.run_many(py, vec![(id, text, html)], insert)?;
        answers.pop().ok_or_else(|| PyValueError::new_err("the index answered nothing"))
    }
}

/// The documents of a batch call: `ids` with `texts` or `htmls` (one of the two per document).
fn batch(
    ids: Vec<String>,
    texts: Option<Vec<Option<String>>>,
    htmls: Option<Vec<Option<String>>>,
) -> PyResult<Vec<Given>> {
    let n = ids.len();
    let column = |c: Option<Vec<Option<String>>>, name: &str| match c {
        Some(c) if c.len() != n => {
            Err(PyValueError::new_err(format!("{name} has {} items, ids {n}", c.len())))
        }
        Some(c) => Ok(c),
        None => Ok(vec![None; n]),
    };
    let only_html = texts.is_none() && htmls.is_some();
    let (texts, htmls) = (column(texts, "texts")?, column(htmls, "htmls")?);
    Ok(ids
        .into_iter()
        .zip(texts.into_iter().zip(htmls))
        .map(|(id, (t, h))| match (t, h) {
            // A missing value is an empty document (the readers skip it, saying why).
            (None, None) if only_html => (id, None, Some(String::new())),
            (None, None) => (id, Some(String::new()), None),
            (t, h) => (id, t, h),
        })
        .collect())
}

#[pymethods]
impl Index {
    /// Opens the index at `path`, or creates it with `create=True` and the given settings.
    #[new]
    #[pyo3(signature = (
        path, *, create = false, method = None, threshold = 0.8, boilerplate_from = None,
        boilerplate = "auto", site_field = None, boilerplate_min_pages = None,
        boilerplate_min_share = None, id_field = "id", text_field = "text", format = None,
        durability = "safe", **options
    ))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        path: PathBuf,
        create: bool,
        method: Option<&str>,
        threshold: f64,
        boilerplate_from: Option<Vec<String>>,
        boilerplate: &str,
        site_field: Option<String>,
        boilerplate_min_pages: Option<u32>,
        boilerplate_min_share: Option<f64>,
        id_field: &str,
        text_field: &str,
        format: Option<&str>,
        durability: &str,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        let durability = match durability {
            "safe" => Durability::Immediate,
            "fast" => Durability::Fast,
            other => {
                return Err(PyValueError::new_err(format!(
                    "durability={other:?}: expected \"safe\" (fsync at every commit) or \"fast\" \
                     (at most once a second, and at flush and close)"
                )));
            }
        };
        let sample_options = site_field.is_some()
            || boilerplate != "auto"
            || boilerplate_min_pages.is_some()
            || boilerplate_min_share.is_some();
        if boilerplate_from.is_none() && sample_options {
            return Err(PyValueError::new_err(
                "boilerplate, site_field, boilerplate_min_pages and boilerplate_min_share \
                 describe the template learned from boilerplate_from: give it too",
            ));
        }
        let inner = if create {
            let config = config::config(method, threshold, Some("first"), Some("center"), options)?;
            let settings = IndexSettings::from_config(&config).map_err(index_err)?;
            if path.join(lookalike_index::index::DB_FILE).exists() {
                return Err(index_err(lookalike_index::Error::Exists { path }));
            }
            match boilerplate_from {
                Some(paths) => {
                    let read = ReadSettings {
                        id_field,
                        text_field,
                        extract: "main",
                        format,
                        boilerplate,
                        site_field,
                        boilerplate_min_pages,
                        boilerplate_min_share,
                    };
                    let template = learn(py, &paths, read)?;
                    py.detach(|| Inner::create_with_template(&path, &settings, &template))
                }
                None => py.detach(|| Inner::create(&path, &settings)),
            }
        } else {
            if boilerplate_from.is_some() {
                return Err(PyValueError::new_err(
                    "the site template is learned when the index is created: give \
                     boilerplate_from with create=True",
                ));
            }
            if method.is_some() || options.is_some_and(|o| !o.is_empty()) {
                return Err(PyValueError::new_err(
                    "settings are frozen when the index is created: give them with create=True",
                ));
            }
            py.detach(|| Inner::open(&path))
        }
        .map_err(index_err)?;
        let mut inner = inner;
        inner.set_durability(durability);
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

    /// Checks documents against the index and inserts them in one transaction, in order, each
    /// against the index and the batch's earlier documents (as `lookalike index add` does with a
    /// batch); `ids` with `texts` or `htmls` (a document has one of the two; None is an empty
    /// document, answered as skipped). One answer per document, in order.
    #[pyo3(signature = (ids, texts = None, *, htmls = None))]
    fn add_batch<'py>(
        &self,
        py: Python<'py>,
        ids: Vec<String>,
        texts: Option<Vec<Option<String>>>,
        htmls: Option<Vec<Option<String>>>,
    ) -> PyResult<Vec<Bound<'py, PyDict>>> {
        self.run_many(py, batch(ids, texts, htmls)?, true)
    }

    /// Checks documents against the index without inserting them, each against the index alone
    /// (`lookalike index query`); `texts` or `htmls`, and their `ids` if they have any.
    #[pyo3(signature = (texts = None, *, htmls = None, ids = None))]
    fn check_batch<'py>(
        &self,
        py: Python<'py>,
        texts: Option<Vec<Option<String>>>,
        htmls: Option<Vec<Option<String>>>,
        ids: Option<Vec<String>>,
    ) -> PyResult<Vec<Bound<'py, PyDict>>> {
        let n = texts.as_ref().or(htmls.as_ref()).map_or(0, Vec::len);
        let ids = ids.unwrap_or_else(|| vec![String::new(); n]);
        self.run_many(py, batch(ids, texts, htmls)?, false)
    }

    /// Writes what `durability="fast"` has not written to disk yet (done at close too).
    fn flush(&self, py: Python<'_>) -> PyResult<()> {
        let inner = &self.inner;
        py.detach(|| inner.flush()).map_err(index_err)
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
