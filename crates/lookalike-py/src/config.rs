//! Keyword options into the library's one configuration type, [`DedupConfig`].
//!
//! The options are the CLI's (`lookalike dedup --help`), spelled with `_` instead of `-`
//! (`num_perm=64` is `--num-perm 64`), with the same defaults and meanings. The shared ones fill
//! [`DedupConfig`] here; the options of particular methods are the library's method registry
//! ([`lookalike::method::options`]), which the CLI's flags come from too, and the method's
//! settings are built by [`MethodConfig::from_options`]. Names of choices (`method`, `keep`,
//! `cluster`, `verify`, `minhash`, ...) are parsed by the library's own `clap::ValueEnum`
//! derives, so they cannot drift from the CLI's. The library validates the result
//! ([`Dedup::new`]); an unknown option, a value of the wrong type or a setting out of range is a
//! `ValueError`.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use clap::ValueEnum;
use lookalike::lexical::collection::{Lexicon, lexicon_settings};
use lookalike::method::options::{self, OptionValues};
use lookalike::{
    ClusterMode, Dedup, DedupConfig, Keep, Measure, MethodConfig, MethodKind, Segmentation,
    ShingleKind, Verify,
};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::errors::{lib_err, value_err};

/// The options every method shares (besides `method`, `threshold`, `keep` and `cluster`); the
/// options of particular methods come from the library's method registry
/// ([`lookalike::method::options`]).
const SHARED_OPTIONS: &[&str] = &[
    "shingle",
    "cjk",
    "seed",
    "verify",
    "measure",
    "max_pairs_per_group",
    "spill_dir",
    "spill_memory",
];

/// Every option name accepted: the shared ones, then every method's.
pub fn option_names() -> Vec<&'static str> {
    let mut names = SHARED_OPTIONS.to_vec();
    names.extend(options::all_options().iter().map(|o| o.name));
    names
}

/// The options given, taken one at a time; what is left at the end is unknown.
struct Options<'py> {
    map: BTreeMap<String, Bound<'py, PyAny>>,
}

impl<'py> Options<'py> {
    fn new(options: Option<&Bound<'py, PyDict>>) -> PyResult<Self> {
        let mut map = BTreeMap::new();
        if let Some(options) = options {
            for (k, v) in options.iter() {
                let name: String = k.extract()?;
                if !v.is_none() {
                    map.insert(name, v);
                }
            }
        }
        Ok(Options { map })
    }

    fn take<T>(&mut self, name: &str, what: &str) -> PyResult<Option<T>>
    where
        T: for<'a> FromPyObject<'a, 'py>,
    {
        match self.map.remove(name) {
            None => Ok(None),
            Some(v) => v.extract::<T>().map(Some).map_err(|_| {
                value_err(format!(
                    "option {name}={}: expected {what}",
                    v.repr().map(|r| r.to_string()).unwrap_or_default()
                ))
            }),
        }
    }

    fn string(&mut self, name: &str) -> PyResult<Option<String>> {
        self.take::<String>(name, "a string")
    }

    /// A choice named as on the command line (`value_enum`).
    fn choice<E: ValueEnum>(&mut self, name: &str) -> PyResult<Option<E>> {
        match self.string(name)? {
            None => Ok(None),
            Some(s) => parse_choice(name, &s).map(Some),
        }
    }

    fn parsed<T>(
        &mut self,
        name: &str,
        parse: impl Fn(&str) -> Result<T, String>,
    ) -> PyResult<Option<T>> {
        match self.map.remove(name) {
            None => Ok(None),
            Some(v) => {
                let s: String = match v.extract::<String>() {
                    Ok(s) => s,
                    Err(_) => v.str()?.to_string(),
                };
                parse(&s).map(Some).map_err(|e| value_err(format!("option {name}: {e}")))
            }
        }
    }
}

/// A value of a `clap::ValueEnum`, by name or alias, as the CLI accepts it.
pub fn parse_choice<E: ValueEnum>(name: &str, s: &str) -> PyResult<E> {
    E::from_str(s, true).map_err(|_| {
        let names: Vec<String> = E::value_variants()
            .iter()
            .filter_map(ValueEnum::to_possible_value)
            .filter(|v| !v.is_hide_set())
            .map(|v| v.get_name().to_owned())
            .collect();
        value_err(format!("{name}={s:?} is not one of: {}", names.join(", ")))
    })
}

/// The configuration of a run from the named arguments and the keyword options, validated by
/// building the detector. `method`, `keep` and `cluster` are names as on the command line;
/// `None` takes the library's default (which depends on `measure` for the first two).
pub fn build(
    method: Option<&str>,
    threshold: f64,
    keep: Option<&str>,
    cluster: Option<&str>,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<Dedup> {
    let config = config(method, threshold, keep, cluster, options)?;
    Dedup::new(config).map_err(lib_err)
}

/// The configuration, not yet validated (see [`build`]).
pub fn config(
    method: Option<&str>,
    threshold: f64,
    keep: Option<&str>,
    cluster: Option<&str>,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<DedupConfig> {
    let mut o = Options::new(options)?;
    let d = DedupConfig::default();
    let measure: Measure = o.choice("measure")?.unwrap_or(d.measure);
    let kind: MethodKind = match method {
        Some(m) => parse_choice("method", m)?,
        None => measure.default_method(),
    };
    let keep: Keep = match keep {
        Some(k) => parse_choice("keep", k)?,
        None => measure.default_keep(),
    };
    let cluster: ClusterMode = match cluster {
        Some(c) => parse_choice("cluster", c)?,
        None => d.cluster,
    };
    let shingle: ShingleKind = o
        .parsed("shingle", |s| {
            s.parse().map_err(|e: lookalike::shingles::ParseShingleKindError| e.to_string())
        })?
        .unwrap_or(d.shingle);
    let segmentation: Segmentation = o.choice("cjk")?.unwrap_or(d.segmentation);
    let seed = o.take::<u64>("seed", "a non-negative integer")?.unwrap_or(d.seed);
    let verify: Verify = o.choice("verify")?.unwrap_or(d.verify);
    let max_pairs_per_group = o
        .take::<u64>("max_pairs_per_group", "a non-negative integer")?
        .unwrap_or(d.max_pairs_per_group);
    let spill_dir = o.string("spill_dir")?.map(PathBuf::from);
    let memory = o.parsed("spill_memory", lookalike::config::parse_size)?.unwrap_or(d.memory);

    // The options of particular methods, read as the registry says (as text, as the CLI reads
    // them); the options of methods other than this run's are accepted and have no effect.
    let mut values = OptionValues::default();
    for (name, v) in std::mem::take(&mut o.map) {
        let Some(option) = options::option(&name) else {
            o.map.insert(name, v);
            continue;
        };
        let text: String = match v.extract::<String>() {
            Ok(s) => s,
            Err(_) => v.str()?.to_string(),
        };
        values.set(option, &text).map_err(|e| {
            value_err(format!(
                "option {name}={}: expected {} ({e})",
                v.repr().map(|r| r.to_string()).unwrap_or_default(),
                option.expected
            ))
        })?;
    }
    if !o.map.is_empty() {
        let unknown: Vec<&str> = o.map.keys().map(String::as_str).collect();
        return Err(value_err(format!(
            "unknown option(s): {}; the options are method, threshold, keep, cluster and {}",
            unknown.join(", "),
            option_names().join(", ")
        )));
    }
    if let Some(path) = values.get::<PathBuf>("lexicon") {
        // A file that cannot be opened is an I/O error; one of another run, a bad setting.
        std::fs::File::open(&path)
            .map_err(|e| crate::errors::io_err(format!("lexicon file {}: {e}", path.display())))?;
        let settings = lexicon_settings(seed, segmentation);
        let lexicon = Lexicon::load_matching(&path, seed, &settings)
            .map_err(|e| value_err(format!("{e} (build it with the same seed and cjk)")))?;
        values.set_lexicon(Arc::new(lexicon));
    }
    let method = MethodConfig::from_options(kind, &values).map_err(value_err)?;
    Ok(DedupConfig {
        method,
        shingle,
        segmentation,
        seed,
        threshold,
        verify,
        keep,
        cluster,
        measure,
        spill_dir,
        memory,
        max_pairs_per_group,
    })
}

/// describe(method=None, threshold=0.8, keep=None, cluster=None, **options) -> str
/// --
///
/// The run the options configure, in one line (as the CLI's summary prints it); raises
/// `ValueError` for an unknown option or a setting out of range.
#[pyfunction]
#[pyo3(signature = (method=None, threshold=0.8, keep=None, cluster=None, **options))]
pub fn describe(
    method: Option<&str>,
    threshold: f64,
    keep: Option<&str>,
    cluster: Option<&str>,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<String> {
    Ok(build(method, threshold, keep, cluster, options)?.describe())
}
