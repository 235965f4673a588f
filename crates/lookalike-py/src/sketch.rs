//! datasketch-shaped `MinHash` and `MinHashLSH` over lookalike's own hashing.
//!
//! A `MinHash` is a set of 64-bit element hashes and its signature: `update(b)` adds one element
//! (bytes or str, hashed with seeded xxh3-64, like a token), `update_text(text)` adds a text's
//! shingles exactly as `lookalike dedup` computes them (normalization, `words:5` shingles by
//! default, the same seed), so `MinHash.from_text(t).digest()` is the signature the CLI gives
//! the same text. Signatures are [`MinHasher`]'s: one-permutation hashing with densification by
//! default (`scheme="perm"`: N permutations), 32-bit values. Because densification needs the
//! whole set, a `MinHash` keeps its distinct element hashes (8 bytes each) until it is digested;
//! `digest()` caches the signature.
//!
//! `MinHashLSH` bands signatures as the CLI does ([`band_key`]), with (bands, rows) given or
//! chosen by [`LshParams::optimal`] for the threshold and the (false positive, false negative)
//! weights; keys are any hashable Python objects.
//!
//! datasketch's other entry points: `MinHash.bulk`/`MinHash.generator` (one MinHash per
//! iterable of elements), `hashfunc=` (a Python callable from an element to an int, used
//! instead of xxh3-64 and pickled with the MinHash), `MinHashLSH.insertion_session` (buffered
//! inserts for a `with` block), and `MinHash(hashvalues=...)`: a signature alone, which cannot be
//! updated (the Python `LeanMinHash` subclasses it).

use std::collections::HashMap;
use std::sync::Arc;

use lookalike::candidates::lsh::{ErrorWeights, band_key};
use lookalike::sketch::minhash::estimate_jaccard;
use lookalike::{LshParams, MinHashScheme, MinHasher, Segmentation, ShingleKind, Shingler};
use pyo3::exceptions::{PyKeyError, PyTypeError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBytes, PyDict, PyList, PyModule, PyString, PyTuple};
use rayon::prelude::*;
use xxhash_rust::xxh3::xxh3_64_with_seed;

use crate::config::parse_choice;
use crate::errors::value_err;

/// Largest signature (as the library allows).
const MAX_NUM_PERM: usize = 8192;

/// A MinHash signature of a set of elements (see the module documentation).
///
/// MinHash(num_perm=128, seed=1, scheme="oph", shingle="words:5")
#[pyclass(module = "lookalike._lookalike", subclass, skip_from_py_object)]
#[derive(Debug, Clone)]
pub struct MinHash {
    hasher: MinHasher,
    seed: u64,
    shingle: ShingleKind,
    /// Distinct element hashes (deduplicated when the vector doubles).
    elements: Vec<u64>,
    deduped: usize,
    digest: Option<Vec<u32>>,
    /// datasketch's `hashfunc`: a callable from an element to an int, used by `update` and
    /// `update_batch` instead of xxh3-64 (texts are still shingled and hashed as the CLI does).
    hashfunc: Option<Arc<Py<PyAny>>>,
    /// Built from a signature (`hashvalues=`): its elements are unknown, it cannot change.
    fixed: bool,
}

fn element_hash(ob: &Bound<'_, PyAny>, seed: u64, hashfunc: Option<&Py<PyAny>>) -> PyResult<u64> {
    if let Some(f) = hashfunc {
        let h = f.bind(ob.py()).call1((ob,))?;
        // datasketch's hash functions give 32-bit ints; any int of 64 bits or fewer is taken.
        return h.extract::<u64>().or_else(|_| h.extract::<i64>().map(|v| v as u64)).map_err(
            |_| {
                PyTypeError::new_err(format!(
                    "hashfunc returned {}: it must return an int of at most 64 bits",
                    h.repr().map(|r| r.to_string()).unwrap_or_default()
                ))
            },
        );
    }
    if let Ok(b) = ob.cast::<PyBytes>() {
        return Ok(xxh3_64_with_seed(b.as_bytes(), seed));
    }
    if let Ok(s) = ob.cast::<PyString>() {
        return Ok(xxh3_64_with_seed(s.to_str()?.as_bytes(), seed));
    }
    Err(PyTypeError::new_err(format!(
        "MinHash elements are bytes or str, not {}",
        ob.get_type().name()?
    )))
}

/// numpy's module when it can be imported (looked up once).
static NUMPY: PyOnceLock<Option<Py<PyModule>>> = PyOnceLock::new();

/// A signature as Python gets it: a numpy `uint64` array when numpy can be imported, else a
/// list of ints.
fn values_out(py: Python<'_>, sig: &[u32]) -> PyResult<Py<PyAny>> {
    let numpy = NUMPY.get_or_init(py, || py.import("numpy").ok().map(Bound::unbind));
    let list = PyList::new(py, sig)?;
    match numpy {
        Some(np) => {
            let np = np.bind(py);
            Ok(np.call_method1("array", (list, np.getattr("uint64")?))?.unbind())
        }
        None => Ok(list.into_any().unbind()),
    }
}

/// `hashvalues=`: any iterable of ints in 0..2^32 (a list, a numpy array of any integer dtype).
fn signature_values(ob: &Bound<'_, PyAny>) -> PyResult<Vec<u32>> {
    if ob.is_instance_of::<PyString>() || ob.is_instance_of::<PyBytes>() {
        return Err(PyTypeError::new_err("hashvalues is a sequence of ints, not a string"));
    }
    let mut out = Vec::new();
    for v in ob.try_iter()? {
        let v = v?;
        let x: u64 = v.extract().map_err(|_| {
            PyTypeError::new_err(format!(
                "hashvalues holds {}: it must hold ints in 0..2^32",
                v.repr().map(|r| r.to_string()).unwrap_or_default()
            ))
        })?;
        let x = u32::try_from(x).map_err(|_| {
            value_err(format!(
                "hash value {x} does not fit in 32 bits (lookalike's signatures, like datasketch's, \
                 hold values below 2^32)"
            ))
        })?;
        out.push(x);
    }
    Ok(out)
}

fn scheme_name(scheme: MinHashScheme) -> &'static str {
    match scheme {
        MinHashScheme::OnePermutation => "oph",
        MinHashScheme::Permutations => "perm",
    }
}

impl MinHash {
    fn create(num_perm: usize, seed: u64, scheme: &str, shingle: &str) -> PyResult<MinHash> {
        if num_perm == 0 || num_perm > MAX_NUM_PERM {
            return Err(value_err(format!("num_perm {num_perm} is not in 1..={MAX_NUM_PERM}")));
        }
        let scheme: MinHashScheme = parse_choice("scheme", scheme)?;
        let shingle: ShingleKind = shingle
            .parse()
            .map_err(|e: lookalike::shingles::ParseShingleKindError| value_err(e.to_string()))?;
        Ok(MinHash {
            hasher: MinHasher::new(num_perm, scheme, seed),
            seed,
            shingle,
            elements: Vec::new(),
            deduped: 0,
            digest: None,
            hashfunc: None,
            fixed: false,
        })
    }

    /// An error when the MinHash was built from a signature (its elements are unknown).
    fn check_updatable(&self) -> PyResult<()> {
        if self.fixed {
            return Err(value_err(
                "this MinHash was built from hashvalues: its elements are not known, so it cannot \
                 be updated or merged",
            ));
        }
        Ok(())
    }

    /// The number of distinct elements, deduplicating them.
    fn distinct(&mut self) -> usize {
        self.elements.sort_unstable();
        self.elements.dedup();
        self.deduped = self.elements.len();
        self.elements.len()
    }

    /// A MinHash of each iterable of elements of `b`, all built as `proto` is.
    fn of_elements(&self, elements: &Bound<'_, PyAny>) -> PyResult<MinHash> {
        let mut m = self.clone();
        m.update_batch(elements)?;
        Ok(m)
    }

    fn shingler(&self) -> Shingler {
        Shingler::new(self.shingle, self.seed).with_segmentation(Segmentation::default())
    }

    fn extend(&mut self, hashes: impl IntoIterator<Item = u64>) {
        self.elements.extend(hashes);
        self.digest = None;
        if self.elements.len() > 2 * self.deduped.max(1024) {
            self.elements.sort_unstable();
            self.elements.dedup();
            self.deduped = self.elements.len();
        }
    }

    /// The signature, computed once per change.
    pub fn signature(&mut self) -> &[u32] {
        let hasher = &self.hasher;
        let elements = &self.elements;
        self.digest.get_or_insert_with(|| hasher.sketch(elements))
    }

    fn check_compatible(&self, other: &MinHash) -> PyResult<()> {
        if self.hasher.num_perm() != other.hasher.num_perm()
            || self.seed != other.seed
            || self.hasher.scheme() != other.hasher.scheme()
        {
            return Err(value_err(format!(
                "cannot compare MinHash(num_perm={}, seed={}, scheme={}) with MinHash(num_perm={}, seed={}, scheme={})",
                self.hasher.num_perm(),
                self.seed,
                scheme_name(self.hasher.scheme()),
                other.hasher.num_perm(),
                other.seed,
                scheme_name(other.hasher.scheme())
            )));
        }
        Ok(())
    }
}

#[pymethods]
impl MinHash {
    #[new]
    #[pyo3(signature = (num_perm=128, seed=1, scheme="oph", shingle="words:5", hashfunc=None, hashvalues=None))]
    fn new(
        num_perm: usize,
        seed: u64,
        scheme: &str,
        shingle: &str,
        hashfunc: Option<Py<PyAny>>,
        hashvalues: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<MinHash> {
        let hashvalues = hashvalues.map(signature_values).transpose()?;
        // A signature given: its length is the number of values.
        let n = hashvalues.as_ref().map_or(num_perm, Vec::len);
        let mut m = MinHash::create(n, seed, scheme, shingle)?;
        m.hashfunc = hashfunc.map(Arc::new);
        if let Some(values) = hashvalues {
            m.digest = Some(values);
            m.fixed = true;
        }
        Ok(m)
    }

    /// The signature scheme: `oph` or `perm`.
    #[getter]
    fn scheme(&self) -> &'static str {
        scheme_name(self.hasher.scheme())
    }

    /// MinHashes of many sets at once (datasketch's `MinHash.bulk`): `b` holds one iterable of
    /// elements per MinHash; the other arguments are the constructor's.
    #[staticmethod]
    #[pyo3(signature = (b, num_perm=128, seed=1, scheme="oph", shingle="words:5", hashfunc=None))]
    fn bulk(
        b: &Bound<'_, PyAny>,
        num_perm: usize,
        seed: u64,
        scheme: &str,
        shingle: &str,
        hashfunc: Option<Py<PyAny>>,
    ) -> PyResult<Vec<MinHash>> {
        let proto = MinHash::new(num_perm, seed, scheme, shingle, hashfunc, None)?;
        b.try_iter()?.map(|e| proto.of_elements(&e?)).collect()
    }

    /// As `MinHash.bulk`, one MinHash at a time (datasketch's `MinHash.generator`).
    #[staticmethod]
    #[pyo3(signature = (b, num_perm=128, seed=1, scheme="oph", shingle="words:5", hashfunc=None))]
    fn generator(
        b: &Bound<'_, PyAny>,
        num_perm: usize,
        seed: u64,
        scheme: &str,
        shingle: &str,
        hashfunc: Option<Py<PyAny>>,
    ) -> PyResult<MinHashGenerator> {
        let proto = MinHash::new(num_perm, seed, scheme, shingle, hashfunc, None)?;
        Ok(MinHashGenerator { sets: b.try_iter()?.unbind(), proto })
    }

    /// A MinHash of a text's shingles, as `lookalike dedup` computes them.
    #[staticmethod]
    #[pyo3(signature = (text, num_perm=128, seed=1, scheme="oph", shingle="words:5"))]
    fn from_text(
        py: Python<'_>,
        text: &str,
        num_perm: usize,
        seed: u64,
        scheme: &str,
        shingle: &str,
    ) -> PyResult<MinHash> {
        let mut m = MinHash::create(num_perm, seed, scheme, shingle)?;
        let text = text.to_owned();
        py.detach(|| {
            let set = m.shingler().shingle_set(&text);
            m.extend(set);
            m.signature();
        });
        Ok(m)
    }

    /// MinHashes of many texts, computed in parallel with the GIL released.
    #[staticmethod]
    #[pyo3(signature = (texts, num_perm=128, seed=1, scheme="oph", shingle="words:5"))]
    fn from_texts(
        py: Python<'_>,
        texts: Vec<String>,
        num_perm: usize,
        seed: u64,
        scheme: &str,
        shingle: &str,
    ) -> PyResult<Vec<MinHash>> {
        let proto = MinHash::create(num_perm, seed, scheme, shingle)?;
        Ok(py.detach(|| {
            let shingler = proto.shingler();
            texts
                .par_iter()
                .map(|t| {
                    let mut m = proto.clone();
                    m.extend(shingler.shingle_set(t));
                    m.signature();
                    m
                })
                .collect()
        }))
    }

    /// Adds one element (bytes or str), hashed with seeded xxh3-64.
    fn update(&mut self, element: &Bound<'_, PyAny>) -> PyResult<()> {
        self.check_updatable()?;
        let h = element_hash(element, self.seed, self.hashfunc.as_deref())?;
        self.extend([h]);
        Ok(())
    }

    /// Adds many elements (bytes or str).
    fn update_batch(&mut self, elements: &Bound<'_, PyAny>) -> PyResult<()> {
        self.check_updatable()?;
        let mut hashes = Vec::new();
        for e in elements.try_iter()? {
            hashes.push(element_hash(&e?, self.seed, self.hashfunc.as_deref())?);
        }
        self.extend(hashes);
        Ok(())
    }

    /// Adds the shingles of a text, normalized and shingled as `lookalike dedup` does.
    fn update_text(&mut self, py: Python<'_>, text: &str) -> PyResult<()> {
        self.check_updatable()?;
        let text = text.to_owned();
        let shingler = self.shingler();
        let set = py.detach(|| shingler.shingle_set(&text));
        self.extend(set);
        Ok(())
    }

    /// Estimated Jaccard similarity with another MinHash: the share of equal values.
    fn jaccard(slf: &Bound<'_, Self>, other: &Bound<'_, MinHash>) -> PyResult<f64> {
        if slf.is(other) {
            return Ok(1.0);
        }
        let a = slf.try_borrow_mut()?.signature().to_vec();
        let mut other = other.try_borrow_mut()?;
        slf.try_borrow()?.check_compatible(&other)?;
        Ok(estimate_jaccard(&a, other.signature()))
    }

    /// The signature, `num_perm` unsigned 32-bit values: a numpy array of `uint64` when numpy
    /// can be imported (as datasketch gives it), a list of ints otherwise.
    fn digest(&mut self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        values_out(py, self.signature())
    }

    /// The signature (datasketch's attribute name), as `digest()` gives it.
    #[getter]
    fn hashvalues(&mut self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        values_out(py, self.signature())
    }

    /// The signature as a list of ints, numpy or not.
    fn values(&mut self) -> Vec<u32> {
        self.signature().to_vec()
    }

    /// Number of values in the signature.
    #[getter]
    fn num_perm(&self) -> usize {
        self.hasher.num_perm()
    }

    /// The seed of every hash.
    #[getter]
    fn seed(&self) -> u64 {
        self.seed
    }

    /// True when no element was added.
    fn is_empty(&self) -> bool {
        !self.fixed && self.elements.is_empty()
    }

    /// Number of distinct elements added (`ValueError` for a MinHash built from hashvalues).
    fn count(&mut self) -> PyResult<usize> {
        self.check_updatable()?;
        Ok(self.distinct())
    }

    /// Another MinHash with the same elements.
    fn copy(&self) -> MinHash {
        self.clone()
    }

    /// Adds the elements of other MinHashes (the union of the sets).
    #[pyo3(signature = (*others))]
    fn merge(&mut self, others: &Bound<'_, PyTuple>) -> PyResult<()> {
        self.check_updatable()?;
        for o in others.iter() {
            let o = o.cast::<MinHash>()?.borrow();
            self.check_compatible(&o)?;
            let e = o.elements.clone();
            drop(o);
            self.extend(e);
        }
        Ok(())
    }

    fn __eq__(slf: &Bound<'_, Self>, other: &Bound<'_, PyAny>) -> PyResult<bool> {
        let Ok(other) = other.cast::<MinHash>() else { return Ok(false) };
        if slf.is(other) {
            return Ok(true);
        }
        let a = slf.try_borrow_mut()?.signature().to_vec();
        let mut other = other.try_borrow_mut()?;
        if slf.try_borrow()?.check_compatible(&other).is_err() {
            return Ok(false);
        }
        Ok(a == other.signature())
    }

    fn __repr__(&self) -> String {
        format!(
            "MinHash(num_perm={}, seed={}, scheme={:?}, shingle={:?})",
            self.hasher.num_perm(),
            self.seed,
            scheme_name(self.hasher.scheme()),
            self.shingle.to_string()
        )
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let py = slf.py();
        let mut this = slf.borrow_mut();
        this.distinct();
        let args = (
            this.hasher.num_perm(),
            this.seed,
            scheme_name(this.hasher.scheme()),
            this.shingle.to_string(),
            this.hashfunc.as_deref().map(|f| f.clone_ref(py)),
            this.fixed.then(|| this.digest.clone()).flatten(),
        );
        let bytes: Vec<u8> = this.elements.iter().flat_map(|e| e.to_le_bytes()).collect();
        let state = PyBytes::new(py, &bytes);
        (slf.get_type(), args, state).into_pyobject(py)
    }

    fn __setstate__(&mut self, state: &[u8]) -> PyResult<()> {
        if self.fixed {
            // Built from its signature by the constructor's arguments; no elements to restore.
            return Ok(());
        }
        if !state.len().is_multiple_of(8) {
            return Err(value_err("corrupt MinHash state: not a whole number of 64-bit hashes"));
        }
        let hashes: Vec<u64> = state
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().unwrap_or([0; 8])))
            .collect();
        self.elements.clear();
        self.deduped = 0;
        self.extend(hashes);
        Ok(())
    }
}

/// The MinHashes of `MinHash.generator`, one per iterable of elements.
#[pyclass(module = "lookalike._lookalike")]
#[derive(Debug)]
pub struct MinHashGenerator {
    sets: Py<pyo3::types::PyIterator>,
    proto: MinHash,
}

#[pymethods]
impl MinHashGenerator {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&self, py: Python<'_>) -> PyResult<Option<MinHash>> {
        match self.sets.bind(py).clone().next() {
            None => Ok(None),
            Some(elements) => self.proto.of_elements(&elements?).map(Some),
        }
    }
}

/// Inserts buffered into a [`MinHashLSH`] (datasketch's `insertion_session`): `insert` keeps the
/// keys and signatures, and they enter the index every `buffer_size` inserts and when the `with`
/// block ends (also on an exception, as datasketch does).
#[pyclass(module = "lookalike._lookalike")]
#[derive(Debug)]
pub struct InsertionSession {
    lsh: Py<MinHashLSH>,
    buffer_size: usize,
    buffer: Vec<(Py<PyAny>, Vec<u32>)>,
}

impl InsertionSession {
    fn flush(&mut self, py: Python<'_>) -> PyResult<()> {
        let mut lsh = self.lsh.bind(py).try_borrow_mut()?;
        for (key, sig) in self.buffer.drain(..) {
            lsh.insert_signature(py, key, sig)?;
        }
        Ok(())
    }
}

#[pymethods]
impl InsertionSession {
    /// Buffers a MinHash under a key (checked against the index when the buffer is flushed).
    #[pyo3(signature = (key, minhash, check_duplication=true))]
    fn insert(
        &mut self,
        py: Python<'_>,
        key: Py<PyAny>,
        minhash: &Bound<'_, PyAny>,
        check_duplication: bool,
    ) -> PyResult<()> {
        let _ = check_duplication;
        let sig = self.lsh.bind(py).try_borrow()?.signature_of(minhash)?;
        self.buffer.push((key, sig));
        if self.buffer.len() >= self.buffer_size {
            self.flush(py)?;
        }
        Ok(())
    }

    fn __enter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    #[pyo3(signature = (*_exc))]
    fn __exit__(&mut self, py: Python<'_>, _exc: &Bound<'_, PyTuple>) -> PyResult<bool> {
        self.flush(py)?;
        Ok(false)
    }
}

/// An LSH index of MinHash signatures (see the module documentation).
///
/// MinHashLSH(threshold=0.9, num_perm=128, weights=(0.5, 0.5), params=None)
#[pyclass(module = "lookalike._lookalike", subclass)]
#[derive(Debug)]
pub struct MinHashLSH {
    threshold: f64,
    num_perm: usize,
    weights: (f64, f64),
    params: LshParams,
    /// Key and signature by slot; `None` once removed.
    slots: Vec<Option<(Py<PyAny>, Vec<u32>)>>,
    /// Key → slot.
    keys: Py<PyDict>,
    /// Band key → slots, in insertion order.
    table: HashMap<u64, Vec<u32>>,
    len: usize,
}

/// The signature of `minhash` (a `lookalike.MinHash`), refused unless it has `num_perm` values.
fn signature_of(minhash: &Bound<'_, PyAny>, num_perm: usize) -> PyResult<Vec<u32>> {
    let mut m = minhash
        .cast::<MinHash>()
        .map_err(|_| PyTypeError::new_err("expected a lookalike.MinHash"))?
        .try_borrow_mut()?;
    if m.hasher.num_perm() != num_perm {
        return Err(value_err(format!(
            "a MinHash of num_perm {} in an index of num_perm {}",
            m.hasher.num_perm(),
            num_perm
        )));
    }
    Ok(m.signature().to_vec())
}

/// The band keys of a signature.
fn band_keys(sig: &[u32], params: LshParams) -> Vec<u64> {
    let mut buf = Vec::new();
    (0..params.bands)
        .map(|b| band_key(&sig[b * params.rows..(b + 1) * params.rows], b, &mut buf))
        .collect()
}

impl MinHashLSH {
    fn signature_of(&self, minhash: &Bound<'_, PyAny>) -> PyResult<Vec<u32>> {
        signature_of(minhash, self.num_perm)
    }

    fn insert_signature(&mut self, py: Python<'_>, key: Py<PyAny>, sig: Vec<u32>) -> PyResult<()> {
        let keys = self.keys.bind(py);
        if keys.contains(&key)? {
            return Err(value_err(format!(
                "the key {} is already in the index",
                key.bind(py).repr()?
            )));
        }
        let slot = self.slots.len() as u32;
        for k in band_keys(&sig, self.params) {
            self.table.entry(k).or_default().push(slot);
        }
        keys.set_item(&key, slot)?;
        self.slots.push(Some((key, sig)));
        self.len += 1;
        Ok(())
    }

    /// Slots sharing a band with `sig`, in insertion order.
    fn candidates(&self, sig: &[u32]) -> Vec<u32> {
        let mut out: Vec<u32> = band_keys(sig, self.params)
            .iter()
            .filter_map(|k| self.table.get(k))
            .flatten()
            .copied()
            .filter(|&s| self.slots[s as usize].is_some())
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    fn keys_of(&self, py: Python<'_>, slots: &[u32]) -> Vec<Py<PyAny>> {
        slots
            .iter()
            .filter_map(|&s| self.slots[s as usize].as_ref().map(|(k, _)| k.clone_ref(py)))
            .collect()
    }
}

#[pymethods]
impl MinHashLSH {
    #[new]
    #[pyo3(signature = (threshold=0.9, num_perm=128, weights=(0.5, 0.5), params=None))]
    fn new(
        py: Python<'_>,
        threshold: f64,
        num_perm: usize,
        weights: (f64, f64),
        params: Option<(usize, usize)>,
    ) -> PyResult<MinHashLSH> {
        if !(threshold > 0.0 && threshold <= 1.0) {
            return Err(value_err(format!("threshold {threshold} is not in (0, 1]")));
        }
        if num_perm == 0 || num_perm > MAX_NUM_PERM {
            return Err(value_err(format!("num_perm {num_perm} is not in 1..={MAX_NUM_PERM}")));
        }
        if !(weights.0 >= 0.0 && weights.1 >= 0.0 && weights.0 + weights.1 > 0.0) {
            return Err(value_err(format!("weights {weights:?} must be non-negative, not both 0")));
        }
        let params = match params {
            Some((bands, rows)) => {
                if bands == 0 || rows == 0 || bands * rows > num_perm {
                    return Err(value_err(format!(
                        "params ({bands}, {rows}): bands × rows must be at least 1 and at most num_perm {num_perm}"
                    )));
                }
                LshParams { bands, rows }
            }
            None => LshParams::optimal(
                threshold,
                num_perm,
                ErrorWeights { false_positive: weights.0, false_negative: weights.1 },
            ),
        };
        Ok(MinHashLSH {
            threshold,
            num_perm,
            weights,
            params,
            slots: Vec::new(),
            keys: PyDict::new(py).unbind(),
            table: HashMap::new(),
            len: 0,
        })
    }

    /// (bands, rows) in use.
    #[getter]
    fn params(&self) -> (usize, usize) {
        (self.params.bands, self.params.rows)
    }

    /// The threshold the bands were chosen for.
    #[getter]
    fn threshold(&self) -> f64 {
        self.threshold
    }

    /// Inserts a MinHash under a key; `ValueError` if the key is already there.
    #[pyo3(signature = (key, minhash, check_duplication=true))]
    fn insert(
        &mut self,
        py: Python<'_>,
        key: Py<PyAny>,
        minhash: &Bound<'_, PyAny>,
        check_duplication: bool,
    ) -> PyResult<()> {
        let _ = check_duplication;
        let sig = self.signature_of(minhash)?;
        self.insert_signature(py, key, sig)
    }

    /// Inserts many (key, MinHash) pairs: `insert_many(keys, minhashes)`.
    fn insert_many(
        &mut self,
        py: Python<'_>,
        keys: Vec<Py<PyAny>>,
        minhashes: Vec<Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        if keys.len() != minhashes.len() {
            return Err(value_err(format!(
                "{} keys for {} MinHashes",
                keys.len(),
                minhashes.len()
            )));
        }
        for (key, m) in keys.into_iter().zip(&minhashes) {
            let sig = self.signature_of(m)?;
            self.insert_signature(py, key, sig)?;
        }
        Ok(())
    }

    /// A session that buffers inserts (datasketch's `insertion_session`), for a `with` block.
    #[pyo3(signature = (buffer_size=50000))]
    fn insertion_session(slf: &Bound<'_, Self>, buffer_size: usize) -> PyResult<InsertionSession> {
        if buffer_size == 0 {
            return Err(value_err("buffer_size must be at least 1"));
        }
        Ok(InsertionSession { lsh: slf.clone().unbind(), buffer_size, buffer: Vec::new() })
    }

    /// The keys whose MinHash shares a band with this one (candidates, not verified), in
    /// insertion order.
    fn query(&self, py: Python<'_>, minhash: &Bound<'_, PyAny>) -> PyResult<Vec<Py<PyAny>>> {
        let sig = self.signature_of(minhash)?;
        let slots = py.detach(|| self.candidates(&sig));
        Ok(self.keys_of(py, &slots))
    }

    /// `query` for many MinHashes, in parallel with the GIL released.
    fn query_many(
        &self,
        py: Python<'_>,
        minhashes: Vec<Bound<'_, PyAny>>,
    ) -> PyResult<Vec<Vec<Py<PyAny>>>> {
        let sigs: Vec<Vec<u32>> =
            minhashes.iter().map(|m| self.signature_of(m)).collect::<PyResult<_>>()?;
        let found: Vec<Vec<u32>> =
            py.detach(|| sigs.par_iter().map(|s| self.candidates(s)).collect());
        Ok(found.iter().map(|slots| self.keys_of(py, slots)).collect())
    }

    /// Removes a key; `ValueError` if it is not there.
    fn remove(&mut self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<()> {
        let keys = self.keys.bind(py);
        let Some(slot) = keys.get_item(key)? else {
            return Err(value_err(format!("the key {} is not in the index", key.repr()?)));
        };
        let slot: u32 = slot.extract()?;
        keys.del_item(key)?;
        if let Some((_, sig)) = self.slots[slot as usize].take() {
            for k in band_keys(&sig, self.params) {
                if let Some(v) = self.table.get_mut(&k) {
                    v.retain(|&s| s != slot);
                    if v.is_empty() {
                        self.table.remove(&k);
                    }
                }
            }
        }
        self.len -= 1;
        Ok(())
    }

    /// The signature stored under a key (`KeyError` if absent).
    fn get(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<Vec<u32>> {
        let Some(slot) = self.keys.bind(py).get_item(key)? else {
            return Err(PyKeyError::new_err(key.clone().unbind()));
        };
        let slot: u32 = slot.extract()?;
        Ok(self.slots[slot as usize].as_ref().map(|(_, s)| s.clone()).unwrap_or_default())
    }

    fn __contains__(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<bool> {
        self.keys.bind(py).contains(key)
    }

    fn __len__(&self) -> usize {
        self.len
    }

    /// True when the index holds no key.
    fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The keys, in insertion order.
    fn keys(&self, py: Python<'_>) -> Vec<Py<PyAny>> {
        self.slots.iter().flatten().map(|(k, _)| k.clone_ref(py)).collect()
    }

    fn __repr__(&self) -> String {
        format!(
            "MinHashLSH(threshold={}, num_perm={}, params=({}, {}), keys={})",
            self.threshold, self.num_perm, self.params.bands, self.params.rows, self.len
        )
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let py = slf.py();
        let this = slf.borrow();
        let args =
            (this.threshold, this.num_perm, this.weights, (this.params.bands, this.params.rows));
        let entries = PyList::empty(py);
        for (k, sig) in this.slots.iter().flatten() {
            let bytes: Vec<u8> = sig.iter().flat_map(|v| v.to_le_bytes()).collect();
            entries.append((k.clone_ref(py), PyBytes::new(py, &bytes)))?;
        }
        (slf.get_type(), args, entries).into_pyobject(py)
    }

    fn __setstate__(&mut self, py: Python<'_>, state: Vec<(Py<PyAny>, Vec<u8>)>) -> PyResult<()> {
        for (key, bytes) in state {
            if bytes.len() != 4 * self.num_perm {
                return Err(value_err("corrupt MinHashLSH state: a signature of the wrong length"));
            }
            let sig: Vec<u32> = bytes
                .chunks_exact(4)
                .map(|c| u32::from_le_bytes(c.try_into().unwrap_or([0; 4])))
                .collect();
            self.insert_signature(py, key, sig)?;
        }
        Ok(())
    }
}

// ---- LSH Ensemble (Zhu, Nargesian, Pu & Miller, VLDB 2016): the Python `MinHashLSHEnsemble`
// (python/lookalike/ensemble.py) partitions and queries; these are its numerical parts and its
// tables.

/// The probability that a set of containment `c` (of the query in it) is a candidate of an LSH
/// of `b` bands of `r` rows, when the indexed set's size is `xq` times the query's: its Jaccard
/// similarity is c / (1 + xq - c) (|Q ∩ X| = c|Q|, |Q ∪ X| = |X| + |Q| - c|Q|).
fn containment_candidate(c: f64, xq: f64, b: usize, r: usize) -> f64 {
    let j = (c / (1.0 + xq - c)).clamp(0.0, 1.0);
    1.0 - (1.0 - j.powi(r as i32)).powi(b as i32)
}

/// ∫ f over [lo, hi] by Simpson's rule on 128 intervals (0 when the interval is empty).
fn simpson(lo: f64, hi: f64, f: impl Fn(f64) -> f64) -> f64 {
    if hi <= lo {
        return 0.0;
    }
    const N: usize = 128;
    let h = (hi - lo) / N as f64;
    let mut sum = f(lo) + f(hi);
    for i in 1..N {
        sum += f(lo + i as f64 * h) * if i % 2 == 1 { 4.0 } else { 2.0 };
    }
    sum * h / 3.0
}

/// The (bands, rows) of least weighted error for a containment threshold, an indexed set size
/// `xq` times the query's, rows taken from `rs` and bands × rows at most `num_perm`.
/// False positives: the probability mass of candidates with containment below the threshold
/// (containment cannot exceed `xq`); false negatives: the mass of non-candidates at or above it.
/// Ties go to fewer bands, then to the earlier `rs`.
#[pyfunction]
#[pyo3(signature = (threshold, num_perm, rs, xq, weights=(0.5, 0.5)))]
pub fn containment_params(
    threshold: f64,
    num_perm: usize,
    rs: Vec<usize>,
    xq: f64,
    weights: (f64, f64),
) -> PyResult<(usize, usize)> {
    if !(0.0..=1.0).contains(&threshold)
        || xq.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater)
        || !xq.is_finite()
    {
        return Err(value_err(format!("threshold {threshold} or size ratio {xq} out of range")));
    }
    if rs.iter().any(|&r| r == 0 || r > num_perm) || rs.is_empty() {
        return Err(value_err(format!("rows {rs:?} must be in 1..={num_perm}")));
    }
    let mut best = (f64::INFINITY, (0, 0));
    for b in 1..=num_perm {
        for &r in &rs {
            if b * r > num_perm {
                continue;
            }
            let fp = simpson(0.0, threshold.min(xq), |c| containment_candidate(c, xq, b, r));
            let fneg =
                simpson(threshold, xq.min(1.0), |c| 1.0 - containment_candidate(c, xq, b, r));
            let err = weights.0 * fp + weights.1 * fneg;
            if err < best.0 {
                best = (err, (b, r));
            }
        }
    }
    Ok(best.1)
}

/// The partitions of set sizes that minimize the expected number of false positives when every
/// set of a partition is taken to be as large as its largest (the paper's optimal partitioning:
/// a set of size s in a partition of upper bound u counts (u - s) / u), by dynamic programming
/// over the distinct sizes. `sizes` ascending and distinct, `counts` their frequencies; returns
/// inclusive (lower, upper) bounds, at most `num_part` of them. Ties go to the smaller upper
/// bound of the earlier partition.
#[pyfunction]
pub fn ensemble_partitions(
    py: Python<'_>,
    sizes: Vec<u64>,
    counts: Vec<u64>,
    num_part: usize,
) -> PyResult<Vec<(u64, u64)>> {
    if sizes.is_empty() || sizes.len() != counts.len() {
        return Err(value_err("sizes and counts must be non-empty and of the same length"));
    }
    if sizes.windows(2).any(|w| w[0] >= w[1]) || sizes[0] == 0 {
        return Err(value_err("sizes must be positive, distinct and ascending"));
    }
    let n = sizes.len();
    if num_part < 2 {
        return Ok(vec![(sizes[0], sizes[n - 1])]);
    }
    if num_part >= n {
        return Ok(sizes.iter().map(|&s| (s, s)).collect());
    }
    Ok(py.detach(|| {
        // Prefix sums of counts and of size × count.
        let mut cum_c = vec![0f64; n + 1];
        let mut cum_s = vec![0f64; n + 1];
        for i in 0..n {
            cum_c[i + 1] = cum_c[i] + counts[i] as f64;
            cum_s[i + 1] = cum_s[i] + sizes[i] as f64 * counts[i] as f64;
        }
        // Expected false positives of the partition of sizes[l..=u].
        let nfp = |l: usize, u: usize| {
            (cum_c[u + 1] - cum_c[l]) - (cum_s[u + 1] - cum_s[l]) / sizes[u] as f64
        };
        let less = |a: f64, b: f64| b.is_infinite() || a < b - 1e-9 * b.abs().max(1.0);
        // cost[p][u]: least cost of sizes[0..=u] in p + 1 partitions; from[p][u]: the upper
        // index of the partition before the last.
        let mut cost = vec![(0..n).map(|u| nfp(0, u)).collect::<Vec<f64>>()];
        let mut from = vec![vec![0usize; n]];
        for p in 1..num_part {
            let prev = &cost[p - 1];
            let mut row = vec![f64::INFINITY; n];
            let mut arg = vec![0usize; n];
            for u in p..n {
                for (u1, before) in prev.iter().enumerate().take(u).skip(p - 1) {
                    let c = before + nfp(u1 + 1, u);
                    if less(c, row[u]) {
                        row[u] = c;
                        arg[u] = u1;
                    }
                }
            }
            cost.push(row);
            from.push(arg);
        }
        let mut bounds = Vec::with_capacity(num_part);
        let mut u = n - 1;
        for p in (1..num_part).rev() {
            let u1 = from[p][u];
            bounds.push((sizes[u1 + 1], sizes[u]));
            u = u1;
        }
        bounds.push((sizes[0], sizes[u]));
        bounds.reverse();
        bounds
    }))
}

/// The band tables of one partition of a `MinHashLSHEnsemble`: for each row count r of `rs`,
/// num_perm / r bands of r rows (band keys as `MinHashLSH`'s); a query uses the first b bands
/// of one r. Entries are numbered from 0 in insertion order.
#[pyclass(module = "lookalike._lookalike")]
#[derive(Debug)]
pub struct EnsembleTables {
    num_perm: usize,
    rs: Vec<usize>,
    /// One table per r: band key → entries.
    tables: Vec<HashMap<u64, Vec<u32>>>,
    len: u32,
}

impl EnsembleTables {
    fn signature_of(&self, minhash: &Bound<'_, PyAny>) -> PyResult<Vec<u32>> {
        signature_of(minhash, self.num_perm)
    }
}

#[pymethods]
impl EnsembleTables {
    #[new]
    fn new(num_perm: usize, rs: Vec<usize>) -> PyResult<EnsembleTables> {
        if rs.is_empty() || rs.iter().any(|&r| r == 0 || r > num_perm) {
            return Err(value_err(format!("rows {rs:?} must be in 1..={num_perm}")));
        }
        let tables = rs.iter().map(|_| HashMap::new()).collect();
        Ok(EnsembleTables { num_perm, rs, tables, len: 0 })
    }

    /// Adds MinHashes (entries numbered on from the count so far).
    fn insert_many(&mut self, minhashes: Vec<Bound<'_, PyAny>>) -> PyResult<()> {
        let mut buf = Vec::new();
        for m in &minhashes {
            let sig = self.signature_of(m)?;
            for (table, &r) in self.tables.iter_mut().zip(&self.rs) {
                for band in 0..self.num_perm / r {
                    let key = band_key(&sig[band * r..(band + 1) * r], band, &mut buf);
                    table.entry(key).or_default().push(self.len);
                }
            }
            self.len += 1;
        }
        Ok(())
    }

    /// The entries sharing one of the first `b` bands of `r` rows with `minhash`, ascending.
    fn query(&self, minhash: &Bound<'_, PyAny>, b: usize, r: usize) -> PyResult<Vec<u32>> {
        let sig = self.signature_of(minhash)?;
        let Some(i) = self.rs.iter().position(|&x| x == r) else {
            return Err(value_err(format!("no table of {r} rows (rows {:?})", self.rs)));
        };
        if b == 0 || b * r > self.num_perm {
            return Err(value_err(format!(
                "{b} bands of {r} rows in a signature of {}",
                self.num_perm
            )));
        }
        let mut buf = Vec::new();
        let mut out: Vec<u32> = (0..b)
            .filter_map(|band| {
                self.tables[i].get(&band_key(&sig[band * r..(band + 1) * r], band, &mut buf))
            })
            .flatten()
            .copied()
            .collect();
        out.sort_unstable();
        out.dedup();
        Ok(out)
    }

    fn __len__(&self) -> usize {
        self.len as usize
    }
}
