//! Python bindings of lookalike: the native module `lookalike._lookalike` of the `lookalike`
//! wheel (pyo3, abi3; built with maturin from `crates/lookalike-py/pyproject.toml`).
//!
//! Three layers, each a module here, wrapped by the pure-Python package in `python/lookalike`:
//!
//! - [`sketch`]: datasketch-shaped `MinHash` and `MinHashLSH`, with lookalike's own shingling,
//!   hashing and banding ([`lookalike::Shingler`], [`lookalike::MinHasher`],
//!   [`lookalike::candidates::lsh::band_key`]), picklable;
//! - [`dedup`]: one call over a list of strings or anything with `__arrow_c_stream__`, the
//!   library's pipeline ([`lookalike::Dedup`]) configured by [`config`] into the one
//!   [`lookalike::DedupConfig`], results as Arrow tables ([`tables`]);
//! - [`paragraphs`]: paragraph-level dedup over a list of strings or an Arrow stream, the
//!   table returned with its text column cleaned and every other column kept;
//! - [`read`]: the readers of `lookalike-io` as a stream of Arrow batches;
//! - [`kernels`]: what `lookalike.ray.dedup` runs inside Ray tasks (sketch a batch into band
//!   keys, turn a bucket into candidate pairs, verify them by a join with the texts, cluster the
//!   streamed edges).
//!
//! Every call that does work releases the GIL (`Python::detach`) and runs rayon inside. Errors
//! become Python exceptions carrying the Rust message: bad settings `ValueError`, I/O `OSError`
//! ([`errors`]).

pub mod config;
pub mod dedup;
pub mod errors;
pub mod index;
pub mod input;
pub mod kernels;
pub mod paragraphs;
pub mod ray_read;
pub mod read;
pub mod sketch;
pub mod tables;

use pyo3::prelude::*;

/// The native module.
#[pymodule]
fn _lookalike(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_class::<sketch::MinHash>()?;
    m.add_class::<sketch::MinHashLSH>()?;
    m.add_class::<sketch::MinHashGenerator>()?;
    m.add_class::<sketch::InsertionSession>()?;
    m.add_class::<sketch::EnsembleTables>()?;
    m.add_function(wrap_pyfunction!(sketch::containment_params, m)?)?;
    m.add_function(wrap_pyfunction!(sketch::ensemble_partitions, m)?)?;
    m.add_function(wrap_pyfunction!(dedup::dedup_texts, m)?)?;
    m.add_function(wrap_pyfunction!(dedup::dedup_arrow, m)?)?;
    m.add_function(wrap_pyfunction!(paragraphs::paragraphs_texts, m)?)?;
    m.add_function(wrap_pyfunction!(paragraphs::paragraphs_arrow, m)?)?;
    m.add_function(wrap_pyfunction!(read::read, m)?)?;
    m.add_function(wrap_pyfunction!(ray_read::expand_paths, m)?)?;
    m.add_function(wrap_pyfunction!(ray_read::boilerplate_applies, m)?)?;
    m.add_function(wrap_pyfunction!(ray_read::plain_jsonl, m)?)?;
    m.add_function(wrap_pyfunction!(ray_read::count_newlines, m)?)?;
    m.add_function(wrap_pyfunction!(ray_read::read_part, m)?)?;
    m.add_function(wrap_pyfunction!(ray_read::clean_part, m)?)?;
    m.add_function(wrap_pyfunction!(ray_read::rename_rows, m)?)?;
    m.add_class::<ray_read::SiteCounts>()?;
    m.add_class::<ray_read::UniqueNames>()?;
    m.add_function(wrap_pyfunction!(config::describe, m)?)?;
    m.add_function(wrap_pyfunction!(kernels::needs_statistics, m)?)?;
    m.add_function(wrap_pyfunction!(kernels::keys_need_count, m)?)?;
    m.add_function(wrap_pyfunction!(kernels::statistics_partial, m)?)?;
    m.add_function(wrap_pyfunction!(kernels::statistics_repeats, m)?)?;
    m.add_function(wrap_pyfunction!(kernels::statistics_merge, m)?)?;
    m.add_function(wrap_pyfunction!(kernels::sketch_keys, m)?)?;
    m.add_function(wrap_pyfunction!(kernels::bucket_edges, m)?)?;
    m.add_function(wrap_pyfunction!(kernels::sampled_candidates, m)?)?;
    m.add_function(wrap_pyfunction!(kernels::sampled_split, m)?)?;
    m.add_function(wrap_pyfunction!(kernels::is_sampled, m)?)?;
    m.add_function(wrap_pyfunction!(kernels::candidate_pairs, m)?)?;
    m.add_function(wrap_pyfunction!(kernels::texts_for_requests, m)?)?;
    m.add_function(wrap_pyfunction!(kernels::route_texts, m)?)?;
    m.add_function(wrap_pyfunction!(kernels::payloads_for_requests, m)?)?;
    m.add_function(wrap_pyfunction!(kernels::route_payloads, m)?)?;
    m.add_function(wrap_pyfunction!(kernels::verify_pairs, m)?)?;
    m.add_function(wrap_pyfunction!(kernels::connected_step, m)?)?;
    m.add_class::<kernels::Components>()?;
    m.add_class::<index::Index>()?;
    Ok(())
}
