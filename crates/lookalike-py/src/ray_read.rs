//! The Rust side of `lookalike.ray.read`: lookalike's readers as Ray tasks, with the rows
//! `lookalike.read` gives (and so `lookalike dedup`'s texts and ids).
//!
//! Reading runs in parallel, one task per group of input files or per byte range of a large
//! uncompressed JSONL file ([`read_part`]; [`plain_jsonl`] says which files can be cut,
//! [`count_newlines`] counts what the ranges need to number their lines); what needs the whole
//! collection in input order runs on the driver over small columns only:
//!
//! 1. [`read_part`]: a group's (or a range's) records, decoded, each row numbered
//!    `(__part, __row)`: the records of a file's ranges, in order, are the file's. When site
//!    boilerplate removal runs, a page also carries its sites and block keys, its visible text
//!    and how its text was extracted.
//! 2. [`SiteCounts`] (driver): the pages' block keys counted per site in input order, as the
//!    CLI's first pass counts them; gives the frozen template, serialized.
//! 3. [`clean_part`]: each page cleaned of its sites' template (a page with nothing of its own
//!    becomes a skipped row), as the CLI's second pass cleans it.
//! 4. [`UniqueNames`] (driver): ids made unique in input order, as the CLI makes them; gives the
//!    renamed rows, which [`rename_rows`] applies.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use arrow_array::builder::{
    BinaryBuilder, Int32Builder, Int64Builder, ListBuilder, StringBuilder, UInt64Builder,
};
use arrow_array::cast::AsArray;
use arrow_array::types::{Int32Type, Int64Type, UInt64Type};
use arrow_array::{Array, ArrayRef, RecordBatch, RecordBatchReader};
use arrow_pyarrow::{IntoPyArrow, PyArrowType};
use arrow_schema::{ArrowError, DataType, Field, Schema, SchemaRef};
use lookalike::boilerplate::{BlockCounts, BlockHasher, BoilerplateRule, PageBlocks, Template};
use lookalike_io::boilerplate::{First, ONLY_TEMPLATE, clean_text, first};
use lookalike_io::{
    BatchLimits, BoilerplateRemoved, Decoded, DecodedBatches, Input, LineRange, RawRecord, Reader,
    UniqueIds, expand_inputs,
};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use rayon::prelude::*;

use crate::errors::{arrow_err, io_err, value_err};
use crate::input::Batch;
use crate::read::{ReadSettings, Row, error_row, row, rows_batch, schema};

/// The row number columns every stage keeps until the ids are final.
const PART: &str = "__part";
const ROW: &str = "__row";

/// expand_paths(paths)
/// --
///
/// The input files of `paths` (files, directories, globs) in the order `lookalike dedup` reads
/// them. Raises `OSError` when they name nothing readable, `ValueError` for standard input.
#[pyfunction]
pub fn expand_paths(py: Python<'_>, paths: Vec<String>) -> PyResult<Vec<String>> {
    let expanded = py.detach(|| expand_inputs(&paths)).map_err(io_err)?;
    let mut out = Vec::with_capacity(expanded.inputs.len());
    for input in expanded.inputs {
        match input {
            Input::Path(p) => match p.to_str() {
                Some(s) => out.push(s.to_owned()),
                None => {
                    return Err(value_err(format!(
                        "{}: a path that is not UTF-8 cannot be handed to Ray tasks",
                        p.display()
                    )));
                }
            },
            Input::Stdin => {
                return Err(value_err("standard input (-) cannot be read by Ray tasks"));
            }
        }
    }
    if out.is_empty() {
        return Err(io_err(format!("no readable input in {}", paths.join(", "))));
    }
    Ok(out)
}

fn inputs(paths: &[String]) -> Vec<Input> {
    paths.iter().map(|p| Input::Path(PathBuf::from(p))).collect()
}

/// boilerplate_applies(inputs, format=None, boilerplate="auto")
/// --
///
/// Whether site boilerplate removal runs on these (expanded) inputs.
#[pyfunction]
#[pyo3(signature = (paths, format=None, boilerplate="auto"))]
pub fn boilerplate_applies(
    paths: Vec<String>,
    format: Option<&str>,
    boilerplate: &str,
) -> PyResult<bool> {
    let (opts, options) = settings(format, boilerplate, None, None, None)?;
    Ok(options.enabled(&opts, &inputs(&paths)))
}

/// plain_jsonl(paths, format=None)
/// --
///
/// For each of `paths` (expanded input files), whether it is uncompressed JSON Lines, which
/// `read_part` can read in byte ranges: JSONL by `format` or else its name, neither gzip nor
/// binary by its first bytes.
#[pyfunction]
#[pyo3(signature = (paths, format=None))]
pub fn plain_jsonl(
    py: Python<'_>,
    paths: Vec<String>,
    format: Option<&str>,
) -> PyResult<Vec<bool>> {
    let (opts, _) = settings(format, "auto", None, None, None)?;
    Ok(py.detach(|| paths.iter().map(|p| lookalike_io::plain_jsonl(Path::new(p), &opts)).collect()))
}

/// count_newlines(path, ranges)
/// --
///
/// The number of newline bytes in each byte range `(start, end)` of the file at `path`, the
/// ranges counted in parallel. Raises `OSError` when the file cannot be read.
#[pyfunction]
pub fn count_newlines(
    py: Python<'_>,
    path: PathBuf,
    ranges: Vec<(u64, u64)>,
) -> PyResult<Vec<u64>> {
    py.detach(|| {
        ranges
            .par_iter()
            .map(|&(start, end)| lookalike_io::count_newlines(&path, start, end))
            .collect::<std::io::Result<Vec<u64>>>()
    })
    .map_err(|e| io_err(format!("{}: {e}", path.display())))
}

fn settings(
    format: Option<&str>,
    boilerplate: &str,
    site_field: Option<String>,
    min_pages: Option<u32>,
    min_share: Option<f64>,
) -> PyResult<(lookalike_io::ReadOptions, lookalike_io::boilerplate::BoilerplateOptions)> {
    ReadSettings {
        id_field: "id",
        text_field: "text",
        extract: "main",
        format,
        boilerplate,
        site_field,
        boilerplate_min_pages: min_pages,
        boilerplate_min_share: min_share,
    }
    .parse()
}

/// The schema of [`read_part`]'s batches: `read`'s, the row numbers, and with `cleaning` what
/// the template pass needs of each page.
fn part_schema(cleaning: bool) -> SchemaRef {
    let mut fields: Vec<Field> = schema().fields().iter().map(|f| f.as_ref().clone()).collect();
    fields.push(Field::new(PART, DataType::Int32, false));
    fields.push(Field::new(ROW, DataType::Int64, false));
    if cleaning {
        fields.push(Field::new("__extraction", DataType::Utf8, true));
        fields.push(Field::new("__visible", DataType::Utf8, true));
        let item = Field::new("item", DataType::Utf8, true);
        fields.push(Field::new("__sites", DataType::List(Arc::new(item)), true));
        fields.push(Field::new("__blocks", DataType::Binary, true));
        fields.push(Field::new("__identity", DataType::UInt64, true));
    }
    Arc::new(Schema::new(fields))
}

/// One record of a part as the first pass gives it.
struct PartRow {
    row: Row,
    extraction: Option<&'static str>,
    visible: Option<String>,
    page: Option<(Vec<String>, PageBlocks)>,
}

fn part_row(item: Result<First, lookalike_io::InputError>) -> PartRow {
    match item {
        Err(e) => PartRow { row: error_row(e), extraction: None, visible: None, page: None },
        Ok(First { mut decoded, origin, page, .. }) => {
            let (extraction, visible) = match &mut decoded {
                Decoded::Doc { extraction, visible, .. } => (Some(*extraction), visible.take()),
                Decoded::Skip { .. } => (None, None),
            };
            PartRow { row: row(origin, decoded, None), extraction, visible, page }
        }
    }
}

/// How a part's records are held: decoded, with their page's blocks when they are cleaned.
type ToFirst = Box<dyn Fn(&RawRecord, Decoded) -> First + Send + Sync>;

/// The stream of one part's batches.
struct Part {
    batches: DecodedBatches<ToFirst>,
    part: i32,
    next_row: i64,
    cleaning: bool,
    schema: SchemaRef,
}

impl Part {
    fn batch(&mut self, rows: Vec<PartRow>) -> Result<RecordBatch, ArrowError> {
        let mut parts = Int32Builder::new();
        let mut numbers = Int64Builder::new();
        for _ in &rows {
            parts.append_value(self.part);
            numbers.append_value(self.next_row);
            self.next_row += 1;
        }
        let mut extra: Vec<ArrayRef> = vec![Arc::new(parts.finish()), Arc::new(numbers.finish())];
        if self.cleaning {
            let mut extraction = StringBuilder::new();
            let mut visible = StringBuilder::new();
            let mut sites = ListBuilder::new(StringBuilder::new());
            let mut blocks = BinaryBuilder::new();
            let mut identity = UInt64Builder::new();
            for r in &rows {
                extraction.append_option(r.extraction);
                visible.append_option(r.visible.as_deref());
                match &r.page {
                    Some((names, page)) => {
                        for n in names {
                            sites.values().append_value(n);
                        }
                        sites.append(true);
                        let bytes: Vec<u8> =
                            page.blocks.iter().flat_map(|b| b.to_le_bytes()).collect();
                        blocks.append_value(bytes);
                        identity.append_value(page.identity);
                    }
                    None => {
                        sites.append(false);
                        blocks.append_null();
                        identity.append_null();
                    }
                }
            }
            extra.push(Arc::new(extraction.finish()));
            extra.push(Arc::new(visible.finish()));
            extra.push(Arc::new(sites.finish()));
            extra.push(Arc::new(blocks.finish()));
            extra.push(Arc::new(identity.finish()));
        }
        let plain: Vec<Row> = rows.into_iter().map(|r| r.row).collect();
        rows_batch(self.schema.clone(), &plain, extra)
    }
}

impl Iterator for Part {
    type Item = Result<RecordBatch, ArrowError>;

    fn next(&mut self) -> Option<Self::Item> {
        let batch = self.batches.next()?;
        let rows = batch.into_iter().map(part_row).collect();
        Some(self.batch(rows))
    }
}

impl RecordBatchReader for Part {
    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }
}

/// read_part(paths, part, cleaning, id_field="id", text_field="text", extract="main", format=None, batch_size=4096, boilerplate="auto", site_field=None, range=None)
/// --
///
/// The records of `paths` (expanded input files, in order) as `read` gives them, ids not yet
/// made unique, each row numbered (`__part` = `part`, `__row` from 0); with `cleaning` (site
/// boilerplate removal runs on the whole input: `boilerplate_applies`), pages are not cleaned
/// yet and carry what the template pass needs. With `range` (`(start, end, newlines_before)`),
/// `paths` is one uncompressed JSONL file (`plain_jsonl`) and only the lines that start at bytes
/// `start..end` are read, numbered as in the whole file (`newlines_before`: the newline bytes
/// before `start`, `count_newlines`).
#[pyfunction]
#[pyo3(signature = (paths, part, cleaning, id_field="id", text_field="text", extract="main", format=None, batch_size=4096, boilerplate="auto", site_field=None, range=None))]
#[allow(clippy::too_many_arguments)]
pub fn read_part<'py>(
    py: Python<'py>,
    paths: Vec<String>,
    part: i32,
    cleaning: bool,
    id_field: &str,
    text_field: &str,
    extract: &str,
    format: Option<&str>,
    batch_size: usize,
    boilerplate: &str,
    site_field: Option<String>,
    range: Option<(u64, u64, u64)>,
) -> PyResult<Bound<'py, PyAny>> {
    let range =
        range.map(|(start, end, newlines_before)| LineRange { start, end, newlines_before });
    let settings = ReadSettings {
        id_field,
        text_field,
        extract,
        format,
        boilerplate,
        site_field,
        boilerplate_min_pages: None,
        boilerplate_min_share: None,
    };
    let stream = part_stream(&paths, range, part, cleaning, settings, batch_size)?;
    let boxed: Box<dyn RecordBatchReader + Send> = Box::new(stream);
    boxed.into_pyarrow(py)
}

/// [`read_part`]'s stream: of `paths`, or of a range of the one file it names.
fn part_stream(
    paths: &[String],
    range: Option<LineRange>,
    part: i32,
    cleaning: bool,
    settings: ReadSettings<'_>,
    batch_size: usize,
) -> PyResult<Part> {
    let (opts, options) = settings.parse()?;
    let inputs = inputs(paths);
    let opts = if cleaning { options.read_options(opts) } else { opts };
    let mode = options.mode;
    let map: ToFirst = if cleaning {
        Box::new(move |rec, decoded| first(mode, rec, decoded, None))
    } else {
        Box::new(|rec, decoded| First {
            decoded,
            origin: rec.origin(),
            format: rec.format,
            payload: None,
            page: None,
        })
    };
    let limits = BatchLimits { records: batch_size.max(1), ..BatchLimits::default() };
    let reader = match (range, paths) {
        (None, _) => Reader::new(inputs, opts),
        (Some(range), [path]) => Reader::jsonl_range(path, range, opts),
        (Some(_), _) => return Err(value_err("a range is read from one file")),
    };
    let batches = DecodedBatches::from_reader(reader, limits, map).map_err(io_err)?;
    Ok(Part { batches, part, next_row: 0, cleaning, schema: part_schema(cleaning) })
}

/// SiteCounts(boilerplate_min_pages=None, boilerplate_min_share=None)
/// --
///
/// Boilerplate removal's counts, fed the parts' batches in input order (`add`); `template()`
/// gives the frozen template as bytes for `clean_part`.
#[pyclass(module = "lookalike._lookalike")]
#[derive(Debug)]
pub struct SiteCounts {
    counts: Option<BlockCounts>,
    rule: BoilerplateRule,
}

#[pymethods]
impl SiteCounts {
    #[new]
    #[pyo3(signature = (boilerplate_min_pages=None, boilerplate_min_share=None))]
    fn new(
        boilerplate_min_pages: Option<u32>,
        boilerplate_min_share: Option<f64>,
    ) -> PyResult<Self> {
        let (_, options) =
            settings(None, "auto", None, boilerplate_min_pages, boilerplate_min_share)?;
        Ok(SiteCounts { counts: Some(BlockCounts::default()), rule: options.rule })
    }

    /// Counts the pages of a batch (columns `__sites`, `__blocks`, `__identity`), in order.
    fn add(&mut self, py: Python<'_>, batch: Batch) -> PyResult<()> {
        let counts =
            self.counts.as_mut().ok_or_else(|| value_err("template() was already taken"))?;
        py.detach(|| count_batch(counts, &batch.0))
    }

    /// The template, serialized; the counts are spent.
    fn template<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let counts = self.counts.take().ok_or_else(|| value_err("template() was already taken"))?;
        let template = counts.finish(self.rule);
        let bytes = serde_json::to_vec(&template).map_err(|e| value_err(e.to_string()))?;
        Ok(PyBytes::new(py, &bytes))
    }
}

/// A column of a type, or a `ValueError` naming it.
fn typed<'a, T: 'a>(
    batch: &'a RecordBatch,
    name: &str,
    what: &str,
    cast: impl FnOnce(&'a ArrayRef) -> Option<T>,
) -> PyResult<T> {
    cast(column(batch, name)?).ok_or_else(|| value_err(format!("{name}: not {what}")))
}

fn strings<'a>(batch: &'a RecordBatch, name: &str) -> PyResult<&'a arrow_array::StringArray> {
    typed(batch, name, "a string column", |a| a.as_string_opt::<i32>())
}

/// The row numbers of a batch.
fn rows_of(batch: &RecordBatch) -> PyResult<(&arrow_array::Int32Array, &arrow_array::Int64Array)> {
    Ok((
        typed(batch, PART, "int32", |a| a.as_primitive_opt::<Int32Type>())?,
        typed(batch, ROW, "int64", |a| a.as_primitive_opt::<Int64Type>())?,
    ))
}

fn column<'a>(batch: &'a RecordBatch, name: &str) -> PyResult<&'a ArrayRef> {
    batch.column_by_name(name).ok_or_else(|| value_err(format!("the batch has no column {name:?}")))
}

/// The counting of the CLI's first pass ([`lookalike_io::boilerplate::SitePass::hold`]).
fn count_batch(counts: &mut BlockCounts, batch: &RecordBatch) -> PyResult<()> {
    let sites = typed(batch, "__sites", "a list", |a| a.as_list_opt::<i32>())?;
    let blocks = typed(batch, "__blocks", "binary", |a| a.as_binary_opt::<i32>())?;
    let identity = typed(batch, "__identity", "uint64", |a| a.as_primitive_opt::<UInt64Type>())?;
    for i in 0..batch.num_rows() {
        if sites.is_null(i) {
            continue;
        }
        let page = PageBlocks {
            blocks: blocks
                .value(i)
                .chunks_exact(8)
                .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")))
                .collect(),
            identity: identity.value(i),
        };
        let names = sites.value(i);
        let names = names.as_string::<i32>();
        for n in names.iter().flatten() {
            let id = counts.site(n);
            counts.add(id, &page);
        }
    }
    Ok(())
}

/// The last template deserialized, by the hash of its bytes: a worker cleans many blocks with
/// one template.
static TEMPLATE: Mutex<Option<(u128, Arc<Template>)>> = Mutex::new(None);

fn template_of(bytes: &[u8]) -> PyResult<Arc<Template>> {
    let key = xxhash_rust::xxh3::xxh3_128(bytes);
    let mut cached = TEMPLATE.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((k, t)) = &*cached
        && *k == key
    {
        return Ok(t.clone());
    }
    let template: Template =
        serde_json::from_slice(bytes).map_err(|e| value_err(format!("not a template: {e}")))?;
    let template = Arc::new(template);
    *cached = Some((key, template.clone()));
    Ok(template)
}

/// clean_part(batch, template)
/// --
///
/// A part's batch with each page cleaned of its sites' template (`template`: the bytes of
/// `SiteCounts.template()`); the columns of `read` and the row numbers.
#[pyfunction]
pub fn clean_part(
    py: Python<'_>,
    batch: Batch,
    template: &[u8],
) -> PyResult<PyArrowType<RecordBatch>> {
    let template = template_of(template)?;
    let batch = batch.0;
    py.detach(|| clean_batch(&template, &batch)).map(PyArrowType)
}

fn clean_batch(template: &Template, batch: &RecordBatch) -> PyResult<RecordBatch> {
    let strings = |name: &str| strings(batch, name);
    let (text, title, skipped) = (strings("text")?, strings("title")?, strings("skipped")?);
    let (extraction, visible) = (strings("__extraction")?, strings("__visible")?);
    let sites = typed(batch, "__sites", "a list", |a| a.as_list_opt::<i32>())?;
    let n = batch.num_rows();
    let mut texts = StringBuilder::new();
    let mut reasons = StringBuilder::new();
    let mut removed: Vec<Option<BoilerplateRemoved>> = Vec::with_capacity(n);
    let mut hasher = BlockHasher::default();
    for i in 0..n {
        fn get(a: &arrow_array::StringArray, i: usize) -> Option<&str> {
            a.is_valid(i).then(|| a.value(i))
        }
        if sites.is_null(i) || text.is_null(i) {
            texts.append_option(get(text, i));
            reasons.append_option(get(skipped, i));
            removed.push(None);
            continue;
        }
        let names = sites.value(i);
        let ids = names
            .as_string::<i32>()
            .iter()
            .flatten()
            .map(|name| {
                template
                    .site(name)
                    .ok_or_else(|| value_err(format!("site {name:?} was not counted")))
            })
            .collect::<PyResult<Vec<_>>>()?;
        let (out, cleaned) = clean_text(
            template,
            &ids,
            text.value(i),
            extraction.value(i),
            get(visible, i),
            get(title, i),
            &mut hasher,
        );
        match out {
            Some(t) => {
                texts.append_value(t);
                reasons.append_null();
            }
            None => {
                texts.append_null();
                reasons.append_value(ONLY_TEMPLATE);
            }
        }
        removed.push(Some(cleaned.removed));
    }
    let mut source = StringBuilder::new();
    let mut removed_bytes = UInt64Builder::new();
    let mut before_bytes = UInt64Builder::new();
    for r in &removed {
        source.append_option(r.map(|r| r.source));
        removed_bytes.append_option(r.map(|r| r.removed_bytes));
        before_bytes.append_option(r.map(|r| r.before_bytes));
    }
    let texts = texts.finish();
    // A page skipped for having nothing of its own is a skipped record: no title, charset or
    // warning (as `read` gives it).
    let emptied = |name: &str| -> PyResult<ArrayRef> {
        let a = strings(name)?;
        let mut b = StringBuilder::new();
        for (i, r) in removed.iter().enumerate() {
            let only_template = r.is_some() && texts.is_null(i);
            b.append_option((!only_template && a.is_valid(i)).then(|| a.value(i)));
        }
        Ok(Arc::new(b.finish()))
    };
    let replaced: HashMap<&str, ArrayRef> = HashMap::from([
        ("text", Arc::new(texts.clone()) as ArrayRef),
        ("title", emptied("title")?),
        ("charset", emptied("charset")?),
        ("warning", emptied("warning")?),
        ("skipped", Arc::new(reasons.finish()) as ArrayRef),
        ("boilerplate_source", Arc::new(source.finish()) as ArrayRef),
        ("boilerplate_removed_bytes", Arc::new(removed_bytes.finish()) as ArrayRef),
        ("boilerplate_before_bytes", Arc::new(before_bytes.finish()) as ArrayRef),
    ]);
    let out_schema = part_schema(false);
    let columns = out_schema
        .fields()
        .iter()
        .map(|f| match replaced.get(f.name().as_str()) {
            Some(a) => Ok(a.clone()),
            None => column(batch, f.name()).cloned(),
        })
        .collect::<PyResult<Vec<_>>>()?;
    RecordBatch::try_new(out_schema, columns).map_err(arrow_err)
}

/// UniqueNames()
/// --
///
/// Ids made unique in input order as `read` and the CLI make them: `add(batch)` (columns `id`,
/// `origin`, `skipped`, `__part`, `__row`, batches in input order) gives the rows whose id
/// changes (`__part`, `__row`, `id`).
#[pyclass(module = "lookalike._lookalike")]
#[derive(Debug, Default)]
pub struct UniqueNames {
    ids: UniqueIds,
}

#[pymethods]
impl UniqueNames {
    #[new]
    fn new() -> Self {
        UniqueNames::default()
    }

    fn add(&mut self, py: Python<'_>, batch: Batch) -> PyResult<PyArrowType<RecordBatch>> {
        let batch = batch.0;
        py.detach(|| self.renames(&batch)).map(PyArrowType)
    }

    /// How many ids were changed so far.
    fn renamed(&self) -> u64 {
        self.ids.renamed()
    }
}

fn renames_schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new(PART, DataType::Int32, false),
        Field::new(ROW, DataType::Int64, false),
        Field::new("id", DataType::Utf8, false),
    ]))
}

impl UniqueNames {
    fn renames(&mut self, batch: &RecordBatch) -> PyResult<RecordBatch> {
        let strings = |name: &str| strings(batch, name);
        let (id, origin, skipped) = (strings("id")?, strings("origin")?, strings("skipped")?);
        let (part, row) = rows_of(batch)?;
        let (mut parts, mut rows, mut ids) =
            (Int32Builder::new(), Int64Builder::new(), StringBuilder::new());
        for i in 0..batch.num_rows() {
            if skipped.is_valid(i) {
                continue;
            }
            if let Some(new) = self.ids.make_unique(id.value(i), &origin.value(i)) {
                parts.append_value(part.value(i));
                rows.append_value(row.value(i));
                ids.append_value(new);
            }
        }
        RecordBatch::try_new(
            renames_schema(),
            vec![Arc::new(parts.finish()), Arc::new(rows.finish()), Arc::new(ids.finish())],
        )
        .map_err(arrow_err)
    }
}

/// rename_rows(batch, renames)
/// --
///
/// `batch` with the ids of `renames` (`UniqueNames.add`'s rows) put in place, and without the
/// row numbers: `read`'s columns.
#[pyfunction]
pub fn rename_rows(batch: Batch, renames: Batch) -> PyResult<PyArrowType<RecordBatch>> {
    rename_batch(&batch.0, &renames.0).map(PyArrowType)
}

fn rename_batch(batch: &RecordBatch, renames: &RecordBatch) -> PyResult<RecordBatch> {
    let (part, row) = rows_of(renames)?;
    let new = strings(renames, "id")?;
    let by_row: HashMap<(i32, i64), &str> =
        (0..renames.num_rows()).map(|i| ((part.value(i), row.value(i)), new.value(i))).collect();
    let (bpart, brow) = rows_of(batch)?;
    let id = strings(batch, "id")?;
    let mut ids = StringBuilder::new();
    for i in 0..batch.num_rows() {
        match by_row.get(&(bpart.value(i), brow.value(i))) {
            Some(n) => ids.append_value(n),
            None => ids.append_value(id.value(i)),
        }
    }
    let out = schema();
    let columns = out
        .fields()
        .iter()
        .map(|f| {
            if f.name() == "id" {
                Ok(Arc::new(ids.finish()) as ArrayRef)
            } else {
                column(batch, f.name()).cloned()
            }
        })
        .collect::<PyResult<Vec<_>>>()?;
    RecordBatch::try_new(out, columns).map_err(arrow_err)
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use arrow_select::concat::concat_batches;

    use super::*;
    use crate::kernels::testutil::Rng;
    use crate::read::open;

    /// Pages of a few sites (folders), each with its sidebar and footer, some pages copied into
    /// other folders, and JSONL files whose ids repeat across files.
    fn collection(dir: &Path, rng: &mut Rng) {
        const WORDS: &[&str] = &[
            "river", "stone", "light", "paper", "garden", "window", "silver", "market", "winter",
            "engine", "forest", "signal", "harbor", "canvas", "orbit", "meadow", "lantern",
        ];
        let mut words = |n: usize| -> String {
            (0..n).map(|_| WORDS[rng.below(WORDS.len())]).collect::<Vec<_>>().join(" ")
        };
        for site in 0..3 {
            let folder = dir.join(format!("site{site}"));
            std::fs::create_dir_all(folder.join("deep")).unwrap();
            let nav: String = (0..12).map(|_| format!("<li>{}</li>", words(4))).collect();
            let footer = words(8);
            for page in 0..9 {
                let body = words(30);
                let html = format!(
                    "<html><title>P{page}</title><body><nav><ul>{nav}</ul></nav>\
                     <div><h1>Page {page}</h1><p>{body}</p></div><footer>{footer}</footer></body></html>"
                );
                let sub = if page % 3 == 0 { folder.join("deep") } else { folder.clone() };
                std::fs::write(sub.join(format!("p{page}.html")), html).unwrap();
            }
            // A page with nothing of its own (skipped) and a page that is not HTML.
            let bare = format!(
                "<html><body><nav><ul>{nav}</ul></nav><footer>{footer}</footer></body></html>"
            );
            std::fs::write(folder.join("bare.html"), bare).unwrap();
            std::fs::write(folder.join("notes.txt"), words(20)).unwrap();
        }
        for f in 0..3 {
            let lines: String = (0..5)
                .map(|i| format!("{{\"id\":\"d{}\",\"text\":\"{}\"}}\n", i % 3, words(12)))
                .collect();
            std::fs::write(dir.join(format!("f{f}.jsonl")), lines + "not json\n").unwrap();
        }
    }

    fn settings<'a>(boilerplate: &'a str, extract: &'static str) -> ReadSettings<'a> {
        ReadSettings {
            id_field: "id",
            text_field: "text",
            extract,
            format: None,
            boilerplate,
            site_field: None,
            boilerplate_min_pages: None,
            boilerplate_min_share: None,
        }
    }

    fn all(
        batches: impl Iterator<Item = Result<RecordBatch, ArrowError>>,
        schema: SchemaRef,
    ) -> RecordBatch {
        let batches: Vec<RecordBatch> = batches.map(|b| b.unwrap()).collect();
        concat_batches(&schema, &batches).unwrap()
    }

    /// The kernels run as `lookalike.ray.read` runs them, the parts (groups of files, or a
    /// range of one) in order on one thread.
    fn ray_read(
        paths: &[String],
        pieces: &[(Vec<String>, Option<LineRange>)],
        boilerplate: &str,
        extract: &'static str,
    ) -> RecordBatch {
        let (opts, options) = settings(boilerplate, extract).parse().unwrap();
        let cleaning = options.enabled(&opts, &inputs(paths));
        let mut parts = Vec::new();
        for (part, (group, range)) in pieces.iter().enumerate() {
            let settings = settings(boilerplate, extract);
            let stream = part_stream(group, *range, part as i32, cleaning, settings, 3).unwrap();
            parts.push(all(stream, part_schema(cleaning)));
        }
        let mut counts = BlockCounts::default();
        if cleaning {
            for p in &parts {
                count_batch(&mut counts, p).unwrap();
            }
            let template = counts.finish(options.rule);
            let bytes = serde_json::to_vec(&template).unwrap();
            let template = template_of(&bytes).unwrap();
            parts = parts.iter().map(|p| clean_batch(&template, p).unwrap()).collect();
        }
        let mut names = UniqueNames::default();
        let renames: Vec<RecordBatch> = parts.iter().map(|p| names.renames(p).unwrap()).collect();
        let renames = concat_batches(&renames_schema(), &renames).unwrap();
        let out: Vec<RecordBatch> =
            parts.iter().map(|p| rename_batch(p, &renames).unwrap()).collect();
        concat_batches(&schema(), &out).unwrap()
    }

    #[test]
    fn the_parts_in_any_grouping_give_reads_rows() {
        let dir = tempfile::tempdir().unwrap();
        let mut rng = Rng::new(7);
        collection(dir.path(), &mut rng);
        let root = dir.path().display().to_string();
        let paths: Vec<String> = expand_inputs(std::slice::from_ref(&root))
            .unwrap()
            .inputs
            .into_iter()
            .map(|i| match i {
                Input::Path(p) => p.display().to_string(),
                Input::Stdin => unreachable!("no stdin here"),
            })
            .collect();
        assert_eq!(paths.len(), 3 * 11 + 3);
        for (boilerplate, extract) in
            [("auto", "main"), ("auto", "text"), ("off", "text"), ("all", "text")]
        {
            let (opts, options) = settings(boilerplate, extract).parse().unwrap();
            let limits = BatchLimits::records(5);
            let stream =
                open(std::slice::from_ref(&root), opts, &options, limits, dir.path()).unwrap();
            let expected = all(stream, schema());
            assert_eq!(expected.num_rows(), 3 * 11 + 3 * 6);
            for _ in 0..4 {
                // Cut the files into 1 to 6 contiguous groups of random sizes.
                let n = 1 + rng.below(6);
                let mut cuts: Vec<usize> = (0..n - 1).map(|_| rng.below(paths.len() + 1)).collect();
                cuts.push(0);
                cuts.push(paths.len());
                cuts.sort_unstable();
                let groups: Vec<(Vec<String>, Option<LineRange>)> =
                    cuts.windows(2).map(|w| (paths[w[0]..w[1]].to_vec(), None)).collect();
                let got = ray_read(&paths, &groups, boilerplate, extract);
                assert_eq!(got, expected, "{boilerplate} {extract} {cuts:?}");
            }
            if boilerplate != "off" {
                let skipped = expected.column_by_name("skipped").unwrap().as_string::<i32>();
                assert!(
                    skipped.iter().flatten().any(|r| r == ONLY_TEMPLATE),
                    "{boilerplate} {extract}"
                );
            }
        }
    }

    /// A JSONL file cut into byte ranges at random places, between whole files, gives `read`'s
    /// rows: ids from line numbers, repeated ids renamed with the line, skipped lines.
    #[test]
    fn ranges_of_a_jsonl_file_give_reads_rows() {
        let dir = tempfile::tempdir().unwrap();
        let mut rng = Rng::new(11);
        let mut text = String::from("\u{feff}{\"id\":\"d1\",\"text\":\"first\"}\r\n");
        for i in 0..200 {
            let line = match rng.below(8) {
                0 => String::new(),
                1 => "{\"id\":\"x\",\"text\":".to_owned(),
                2 => format!("{{\"id\":\"d{i}\"}}"),
                3 => format!("{{\"text\":\"no id \u{e9}\u{65e5} {i}\"}}"),
                4 => "\u{3b1}\u{3b2} not json".to_owned(),
                _ => format!("{{\"id\":\"d{}\",\"text\":\"text {i} \u{1f600}\"}}", rng.below(20)),
            };
            text.push_str(&line);
            text.push_str(if rng.below(3) == 0 { "\r\n" } else { "\n" });
        }
        text.push_str("{\"text\":\"last, no newline\"}");
        let big = dir.path().join("big.jsonl");
        std::fs::write(&big, &text).unwrap();
        std::fs::write(dir.path().join("a.jsonl"), "{\"id\":\"d3\",\"text\":\"a\"}\n").unwrap();
        std::fs::write(dir.path().join("c.jsonl"), "{\"id\":\"d1\",\"text\":\"c\"}\n").unwrap();
        let paths: Vec<String> = ["a.jsonl", "big.jsonl", "c.jsonl"]
            .map(|n| dir.path().join(n).display().to_string())
            .into();
        let (opts, options) = settings("auto", "main").parse().unwrap();
        let limits = BatchLimits::records(7);
        let expected = all(open(&paths, opts, &options, limits, dir.path()).unwrap(), schema());
        let size = text.len() as u64;
        let big = big.display().to_string();
        for _ in 0..40 {
            let mut cuts: Vec<u64> =
                (0..1 + rng.below(9)).map(|_| rng.below(size as usize + 1) as u64).collect();
            cuts.extend([0, size]);
            cuts.sort_unstable();
            let mut pieces = vec![(paths[..1].to_vec(), None)];
            let mut newlines_before = 0;
            for w in cuts.windows(2) {
                let range = LineRange { start: w[0], end: w[1], newlines_before };
                pieces.push((vec![big.clone()], Some(range)));
                newlines_before +=
                    lookalike_io::count_newlines(Path::new(&big), w[0], w[1]).unwrap();
            }
            pieces.push((paths[2..].to_vec(), None));
            let got = ray_read(&paths, &pieces, "auto", "main");
            assert_eq!(got, expected, "cuts {cuts:?}");
        }
        let ids = expected.column_by_name("id").unwrap().as_string::<i32>();
        assert!(ids.iter().flatten().any(|id| id.starts_with("d1#") && id.contains("big.jsonl:")));
    }
}
