//! Parquet input. Contract: "give me a `.parquet` file and the id and text column names, I give
//! you one record per row, reading one batch of one row group at a time".
//!
//! Only the two columns are decoded (a projection), one row group at a time, in batches of
//! [`BATCH_ROWS`] rows, so a file of any size is streamed. Each row becomes a one-line JSON record
//! `{id_field: .., text_field: ..}` handed to the JSONL decoder: ids, missing texts and `--output`
//! then behave exactly as for JSON Lines. A row's position is its 1-based row number in the file.
//!
//! A batch that cannot be decoded (invalid UTF-8 in a string column, a corrupt page) loses as
//! little as can be found (one bad value lost all 1,000 rows of a file): the rest of
//! its row group is read again in halves, each half that fails split again, down to the single
//! rows that fail, each reported as an [`InputError`] losing that row. After [`MAX_BAD_ROWS`]
//! such rows in one row group (the whole row group unreadable: a corrupt dictionary or page
//! header), the ranges that fail are lost whole, adjacent ones reported as one, so a damaged
//! file costs a bounded number of reads. Every other row is read.
//!
//! A reader asked for every column ([`crate::Reader::with_all_columns`]) reads them all and makes
//! each row the JSON object of the whole row, columns in the file's order: the id and text
//! columns as above, the others as [`super::json`] writes them (as Arrow's JSON writer did), nulls
//! as `null`. Rows are then written back whole (`lookalike paragraphs`).
//!
//! The text column holds strings: Arrow `Utf8`, `LargeUtf8`, `Utf8View`, or binary that is
//! UTF-8, plain or dictionary-encoded (a pandas `category`, an Arrow dictionary). The id column
//! may also hold integers, floats, booleans or decimals. A column of another type is an error
//! for the file, naming the column and its type.

use std::fs::File;
use std::ops::Range;
use std::path::Path;
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Decimal128Type, Float32Type, Float64Type, Int8Type, Int16Type, Int32Type, Int64Type, UInt8Type,
    UInt16Type, UInt32Type, UInt64Type,
};
use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_schema::{DataType, SchemaRef};
use parquet::arrow::ProjectionMask;
use parquet::arrow::arrow_reader::{
    ArrowReaderMetadata, ArrowReaderOptions, ParquetRecordBatchReader,
    ParquetRecordBatchReaderBuilder, RowSelection, RowSelector,
};

use crate::error::InputError;
use crate::format::Format;
use crate::formats::jsonl::id_text;
use crate::options::ReadOptions;
use crate::record::RawRecord;

/// Rows decoded at a time.
pub const BATCH_ROWS: usize = 1024;

/// Rows of one row group that fail alone before a failing range of it is lost whole.
pub const MAX_BAD_ROWS: usize = 16;

/// Rows of a Parquet file as JSONL records.
pub(crate) struct ParquetRows {
    source: Arc<str>,
    file: File,
    metadata: ArrowReaderMetadata,
    mask: ProjectionMask,
    id_field: String,
    text_field: String,
    /// Position of the id and text columns in the projected batches.
    id_col: Option<usize>,
    text_col: usize,
    /// The row group being read: its index, the file's row number of its first row (0-based),
    /// its rows, and those still to read (the next range last); then the next row group.
    group: usize,
    group_start: u64,
    group_rows: usize,
    pending: Vec<Range<usize>>,
    next_group: usize,
    /// Rows of the current row group that failed alone.
    bad_rows: usize,
    /// Rows lost whole, not reported yet (an adjacent range may join them), with the cause.
    lost_block: Option<(Range<usize>, String)>,
    /// The range being read, its reader, and its next row (in the row group).
    reading: Option<(ParquetRecordBatchReader, Range<usize>)>,
    next_row: usize,
    batch: Option<Batch>,
    next_in_batch: usize,
    /// Every column is read, and each row is written whole ([`Rows`]).
    all_columns: Option<SchemaRef>,
}

impl std::fmt::Debug for ParquetRows {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ParquetRows")
            .field("source", &self.source)
            .field("group", &self.group)
            .field("next_row", &self.next_row)
            .finish()
    }
}

impl ParquetRows {
    /// Opens `path`; fails (naming the file) when it is not Parquet or lacks the text column.
    /// With `all_columns`, every column is read and each record is the whole row; a column
    /// without a JSON form is an error too.
    pub(crate) fn open(
        path: &Path,
        source: Arc<str>,
        opts: &ReadOptions,
        all_columns: bool,
    ) -> Result<Self, InputError> {
        let err = |message: String| InputError::new(&source, None, message).losing_input();
        let file = File::open(path).map_err(|e| err(format!("cannot open: {e}")))?;
        let metadata = ArrowReaderMetadata::load(&file, ArrowReaderOptions::new())
            .map_err(|e| err(format!("not a readable Parquet file: {e}")))?;
        let fields: Vec<String> =
            metadata.schema().fields().iter().map(|f| f.name().clone()).collect();
        let find = |name: &str| fields.iter().position(|f| f == name);
        let Some(text_root) = find(&opts.text_field) else {
            return Err(err(format!(
                "no column '{}' (columns: {}); choose one with --text-field",
                opts.text_field,
                fields.join(", ")
            )));
        };
        let id_root = find(&opts.id_field);
        let schema = metadata.schema();
        let text_type = schema.field(text_root).data_type();
        if !is_text(value_type(text_type)) {
            return Err(err(format!(
                "column '{}' is of type {text_type}, not text; choose the text column with \
                 --text-field",
                opts.text_field
            )));
        }
        if let Some(id_root) = id_root {
            let id_type = schema.field(id_root).data_type();
            if !is_id(value_type(id_type)) {
                return Err(err(format!(
                    "column '{}' is of type {id_type}, which cannot be an id; choose the id \
                     column with --id-field",
                    opts.id_field
                )));
            }
        }
        let mut roots = vec![text_root];
        roots.extend(id_root);
        if all_columns {
            roots = (0..fields.len()).collect();
            for field in schema.fields() {
                if let Err(e) = super::json::check(field.data_type()) {
                    return Err(err(format!(
                        "column '{}' of type {} has no JSON form: {e}",
                        field.name(),
                        field.data_type()
                    )));
                }
            }
        }
        let all_columns = all_columns.then(|| schema.clone());
        roots.sort_unstable();
        let mask = ProjectionMask::roots(metadata.parquet_schema(), roots.iter().copied());
        // In the projected batch, columns keep their file order.
        let pos = |root: usize| roots.iter().position(|&r| r == root).unwrap_or(0);
        Ok(ParquetRows {
            source,
            file,
            metadata,
            mask,
            id_field: opts.id_field.clone(),
            text_field: opts.text_field.clone(),
            id_col: id_root.map(pos),
            text_col: pos(text_root),
            group: 0,
            group_start: 0,
            group_rows: 0,
            pending: Vec::new(),
            next_group: 0,
            bad_rows: 0,
            lost_block: None,
            reading: None,
            next_row: 0,
            batch: None,
            next_in_batch: 0,
            all_columns,
        })
    }

    /// The rows of the current row group in `rows`, one batch at a time.
    fn read_range(&self, rows: &Range<usize>) -> parquet::errors::Result<ParquetRecordBatchReader> {
        let selection = RowSelection::from(vec![
            RowSelector::skip(rows.start),
            RowSelector::select(rows.len()),
        ]);
        ParquetRecordBatchReaderBuilder::new_with_metadata(
            self.file.try_clone()?,
            self.metadata.clone(),
        )
        .with_projection(self.mask.clone())
        .with_row_groups(vec![self.group])
        .with_row_selection(selection)
        .with_batch_size(BATCH_ROWS)
        .build()
    }

    /// The 1-based row number in the file of row `i` of the current row group.
    fn row_number(&self, i: usize) -> u64 {
        self.group_start + i as u64 + 1
    }

    /// Rows `rows` of the current row group could not be read (`e`): split to be read again;
    /// a single row is lost and reported; once the row group had [`MAX_BAD_ROWS`] of them, the
    /// range is lost whole, reported with the adjacent ranges that fail after it
    /// ([`ParquetRows::take_lost_block`]).
    fn failed(&mut self, rows: Range<usize>, e: String) -> Option<InputError> {
        if rows.len() == 1 && self.bad_rows < MAX_BAD_ROWS {
            self.bad_rows += 1;
            let (row, group) = (self.row_number(rows.start), self.group + 1);
            let message = format!("row group {group}: cannot read the row: {e}; the row is lost");
            let lost = format!("{}:{row}", self.source);
            return Some(InputError::new(&self.source, None, message).at_row(row).losing(lost));
        }
        if self.bad_rows < MAX_BAD_ROWS {
            let mid = rows.start + rows.len() / 2;
            self.pending.push(mid..rows.end);
            self.pending.push(rows.start..mid);
            return None;
        }
        match &mut self.lost_block {
            Some((block, _)) if block.end == rows.start => {
                block.end = rows.end;
                None
            }
            _ => {
                let before = self.take_lost_block();
                self.lost_block = Some((rows, e));
                before
            }
        }
    }

    /// The rows lost whole and not reported yet, as one error.
    fn take_lost_block(&mut self) -> Option<InputError> {
        let (rows, e) = self.lost_block.take()?;
        let (first, last) = (self.row_number(rows.start), self.row_number(rows.end - 1));
        let message = format!(
            "row group {}: cannot read rows {first}-{last}: {e}; these {} rows are lost",
            self.group + 1,
            rows.len()
        );
        let lost = format!("{}#rows-{first}-{last}", self.source);
        Some(InputError::new(&self.source, None, message).at_row(first).losing(lost))
    }

    fn record(&self, batch: &Batch, i: usize) -> RawRecord {
        let row = self.row_number(self.next_row - 1);
        if let Some(rows) = &batch.rows_json {
            return RawRecord {
                source: self.source.clone(),
                line: Some(row),
                format: Format::Parquet,
                bytes: rows.row(i).to_vec(),
                warc: None,
            };
        }
        let text = batch.text.cell(i);
        let id = batch.id.as_ref().and_then(|c| c.cell(i));
        let mut obj = serde_json::Map::new();
        if let Some(id) = id {
            obj.insert(self.id_field.clone(), id);
        }
        obj.insert(self.text_field.clone(), text.unwrap_or(serde_json::Value::Null));
        RawRecord {
            source: self.source.clone(),
            line: Some(row),
            format: Format::Parquet,
            bytes: serde_json::to_vec(&serde_json::Value::Object(obj)).unwrap_or_default(),
            warc: None,
        }
    }
}

/// The two columns of one record batch, ready to read cell by cell; with every column read,
/// the rows as JSON.
struct Batch {
    rows: usize,
    text: Column,
    id: Option<Column>,
    rows_json: Option<Rows>,
}

impl Batch {
    fn new(batch: &RecordBatch, text_col: usize, id_col: Option<usize>) -> Batch {
        Batch {
            rows: batch.num_rows(),
            text: Column::new(batch.column(text_col)),
            id: id_col.map(|c| Column::new(batch.column(c))),
            rows_json: None,
        }
    }
}

/// Every row of a batch as a JSON object, one after the other.
struct Rows {
    json: Vec<u8>,
    /// Row `i` is `json[ends[i - 1]..ends[i]]` (from 0 for the first).
    ends: Vec<usize>,
}

impl Rows {
    /// The rows of `batch`, whose columns are those of `schema`: the id and text columns as
    /// [`cell`] gives them (the same values as when only they are read), the others as
    /// [`super::json`] writes them.
    fn new(
        schema: &SchemaRef,
        batch: &RecordBatch,
        own: &Batch,
        text_col: usize,
        id_col: Option<usize>,
    ) -> Result<Rows, String> {
        let names: Vec<Vec<u8>> = schema
            .fields()
            .iter()
            .map(|f| serde_json::to_vec(f.name()).unwrap_or_default())
            .collect();
        let mut rows = Rows { json: Vec::new(), ends: Vec::with_capacity(batch.num_rows()) };
        for i in 0..batch.num_rows() {
            rows.json.push(b'{');
            for (c, name) in names.iter().enumerate() {
                if c > 0 {
                    rows.json.push(b',');
                }
                rows.json.extend_from_slice(name);
                rows.json.push(b':');
                let own_cell = |col: Option<&Column>| col.and_then(|col| col.cell(i));
                if c == text_col || Some(c) == id_col {
                    let value = if c == text_col {
                        own_cell(Some(&own.text))
                    } else {
                        own_cell(own.id.as_ref())
                    };
                    serde_json::to_writer(&mut rows.json, &value).map_err(|e| e.to_string())?;
                } else {
                    super::json::write_value(batch.column(c).as_ref(), i, &mut rows.json)?;
                }
            }
            rows.json.push(b'}');
            rows.ends.push(rows.json.len());
        }
        Ok(rows)
    }

    fn row(&self, i: usize) -> &[u8] {
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        &self.json[start..self.ends[i]]
    }
}

/// A column, plain or dictionary-encoded (its keys resolved once per batch).
enum Column {
    Plain(ArrayRef),
    Dictionary {
        /// The dictionary array itself, for its nulls.
        array: ArrayRef,
        /// Each row's index into `values`.
        keys: Vec<usize>,
        values: ArrayRef,
    },
}

impl Column {
    fn new(array: &ArrayRef) -> Column {
        match array.as_any_dictionary_opt() {
            Some(dict) => Column::Dictionary {
                array: array.clone(),
                keys: dict.normalized_keys(),
                values: dict.values().clone(),
            },
            None => Column::Plain(array.clone()),
        }
    }

    /// Row `i` as JSON; `None` for a null.
    fn cell(&self, i: usize) -> Option<serde_json::Value> {
        match self {
            Column::Plain(array) => cell(array, i),
            Column::Dictionary { array, keys, values } => {
                if array.is_null(i) {
                    return None;
                }
                cell(values, keys[i])
            }
        }
    }
}

/// Every value of an Arrow id column as the readers make it an id (the CLI's ids for the same
/// values in a Parquet column or a JSONL field): a string as it is, an integer, float, boolean
/// or decimal as its JSON text (`7`, `2.5`, `true`); `None` for a null (and for binary that is
/// not UTF-8). Plain or dictionary-encoded.
///
/// # Errors
///
/// A column of another type (a list, a struct, a date): the message says its type.
pub fn arrow_ids(array: &ArrayRef) -> Result<Vec<Option<String>>, String> {
    if !is_id(value_type(array.data_type())) {
        return Err(format!("holds {}, which cannot be an id", array.data_type()));
    }
    let column = Column::new(array);
    Ok((0..array.len()).map(|i| column.cell(i).as_ref().and_then(id_text)).collect())
}

/// The type of a column's values: a dictionary's value type, or the type itself.
fn value_type(data_type: &DataType) -> &DataType {
    match data_type {
        DataType::Dictionary(_, values) => values,
        other => other,
    }
}

fn is_text(data_type: &DataType) -> bool {
    matches!(
        data_type,
        DataType::Utf8
            | DataType::LargeUtf8
            | DataType::Utf8View
            | DataType::Binary
            | DataType::LargeBinary
            | DataType::BinaryView
    )
}

fn is_id(data_type: &DataType) -> bool {
    is_text(data_type)
        || data_type.is_integer()
        || matches!(
            data_type,
            DataType::Float32 | DataType::Float64 | DataType::Boolean | DataType::Decimal128(..)
        )
}

/// One cell as JSON: strings (any Arrow string or binary layout; binary decoded as UTF-8 when it
/// is), integers, floats, booleans and decimals; `None` for nulls, other types and binary that is
/// not UTF-8.
fn cell(col: &ArrayRef, i: usize) -> Option<serde_json::Value> {
    if col.is_null(i) {
        return None;
    }
    let s = |v: &str| Some(serde_json::Value::String(v.to_owned()));
    let utf8 = |b: &[u8]| std::str::from_utf8(b).ok().and_then(s);
    match col.data_type() {
        DataType::Utf8 => s(col.as_string::<i32>().value(i)),
        DataType::LargeUtf8 => s(col.as_string::<i64>().value(i)),
        DataType::Utf8View => s(col.as_string_view().value(i)),
        DataType::Binary => utf8(col.as_binary::<i32>().value(i)),
        DataType::LargeBinary => utf8(col.as_binary::<i64>().value(i)),
        DataType::BinaryView => utf8(col.as_binary_view().value(i)),
        DataType::Int8 => Some(col.as_primitive::<Int8Type>().value(i).into()),
        DataType::Int16 => Some(col.as_primitive::<Int16Type>().value(i).into()),
        DataType::Int32 => Some(col.as_primitive::<Int32Type>().value(i).into()),
        DataType::Int64 => Some(col.as_primitive::<Int64Type>().value(i).into()),
        DataType::UInt8 => Some(col.as_primitive::<UInt8Type>().value(i).into()),
        DataType::UInt16 => Some(col.as_primitive::<UInt16Type>().value(i).into()),
        DataType::UInt32 => Some(col.as_primitive::<UInt32Type>().value(i).into()),
        DataType::UInt64 => Some(col.as_primitive::<UInt64Type>().value(i).into()),
        DataType::Float32 => {
            serde_json::Number::from_f64(f64::from(col.as_primitive::<Float32Type>().value(i)))
                .map(serde_json::Value::Number)
        }
        DataType::Float64 => {
            serde_json::Number::from_f64(col.as_primitive::<Float64Type>().value(i))
                .map(serde_json::Value::Number)
        }
        DataType::Boolean => Some(col.as_boolean().value(i).into()),
        DataType::Decimal128(..) => s(&col.as_primitive::<Decimal128Type>().value_as_string(i)),
        _ => None,
    }
}

impl Iterator for ParquetRows {
    type Item = Result<RawRecord, InputError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(batch) = &self.batch
                && self.next_in_batch < batch.rows
            {
                let i = self.next_in_batch;
                self.next_in_batch += 1;
                self.next_row += 1;
                return Some(Ok(self.record(batch, i)));
            }
            self.batch = None;
            if let Some((reader, rows)) = &mut self.reading {
                let failure = match reader.next() {
                    None => {
                        self.reading = None;
                        continue;
                    }
                    Some(Ok(batch)) => {
                        let mut own = Batch::new(&batch, self.text_col, self.id_col);
                        match &self.all_columns {
                            None => Ok(own),
                            Some(schema) => {
                                Rows::new(schema, &batch, &own, self.text_col, self.id_col)
                                    .map(|rows| {
                                        own.rows_json = Some(rows);
                                        own
                                    })
                                    .map_err(|e| format!("cannot write the rows as JSON: {e}"))
                            }
                        }
                    }
                    Some(Err(e)) => Err(format!("corrupt Parquet data: {e}")),
                };
                match failure {
                    Ok(own) => {
                        self.batch = Some(own);
                        self.next_in_batch = 0;
                        // Rows lost before these are reported before them.
                        if let Some(lost) = self.take_lost_block() {
                            return Some(Err(lost));
                        }
                    }
                    Err(e) => {
                        // This batch and the rest of the range are read again, in parts.
                        let rest = self.next_row..rows.end;
                        self.reading = None;
                        if let Some(lost) = self.failed(rest, e) {
                            return Some(Err(lost));
                        }
                    }
                }
                continue;
            }
            if let Some(rows) = self.pending.pop() {
                self.next_row = rows.start;
                match self.read_range(&rows) {
                    Ok(reader) => self.reading = Some((reader, rows)),
                    Err(e) => {
                        if let Some(lost) = self.failed(rows, format!("corrupt Parquet data: {e}"))
                        {
                            return Some(Err(lost));
                        }
                    }
                }
                continue;
            }
            if let Some(lost) = self.take_lost_block() {
                return Some(Err(lost));
            }
            // The next row group, whole.
            let rows = self.metadata.metadata().row_groups().get(self.next_group)?.num_rows();
            self.group_start += self.group_rows as u64;
            self.group = self.next_group;
            self.group_rows = usize::try_from(rows).unwrap_or(0);
            self.next_group += 1;
            self.bad_rows = 0;
            self.pending.push(0..self.group_rows);
        }
    }
}
