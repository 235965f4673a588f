//! Parquet input: rows become documents with the chosen id and text columns.

use std::sync::Arc;

use arrow_array::{ArrayRef, Int64Array, RecordBatch, StringArray};
use lookalike_io::{Decoded, Format, Input, ReadOptions, Reader, decode};
use parquet::arrow::ArrowWriter;
use parquet::file::properties::WriterProperties;

fn write_parquet(path: &std::path::Path, rows: usize, row_group: usize) {
    let ids: ArrayRef = Arc::new(Int64Array::from_iter_values(0..rows as i64));
    let texts: ArrayRef =
        Arc::new(StringArray::from_iter(
            (0..rows).map(|i| {
                if i == 3 { None } else { Some(format!("document number {i} says hello")) }
            }),
        ));
    let urls: ArrayRef =
        Arc::new(StringArray::from_iter_values((0..rows).map(|i| format!("http://x/{i}"))));
    let batch =
        RecordBatch::try_from_iter([("row", ids), ("content", texts), ("url", urls)]).unwrap();
    let props = WriterProperties::builder().set_max_row_group_row_count(Some(row_group)).build();
    let file = std::fs::File::create(path).unwrap();
    let mut w = ArrowWriter::try_new(file, batch.schema(), Some(props)).unwrap();
    w.write(&batch).unwrap();
    w.close().unwrap();
}

#[test]
fn rows_of_every_row_group_become_documents_with_the_chosen_columns() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("corpus.parquet");
    write_parquet(&path, 2500, 1000);
    let opts = ReadOptions {
        id_field: "url".into(),
        text_field: "content".into(),
        format: None,
        ..ReadOptions::default()
    };
    let records: Vec<_> = Reader::new(vec![Input::Path(path)], opts.clone()).collect();
    assert_eq!(records.len(), 2500);
    let mut docs = 0;
    for (i, r) in records.iter().enumerate() {
        let rec = r.as_ref().unwrap();
        assert_eq!(rec.format, Format::Parquet);
        assert_eq!(rec.line, Some(i as u64 + 1));
        match decode(rec, &opts) {
            Decoded::Doc { doc, .. } => {
                assert_eq!(doc.id, format!("http://x/{i}"));
                assert_eq!(doc.text, format!("document number {i} says hello"));
                docs += 1;
            }
            Decoded::Skip { id, reason } => {
                assert_eq!(i, 3, "only the null text is skipped");
                assert_eq!(id, "http://x/3");
                assert!(reason.as_str().contains("content"), "{reason}");
                assert_eq!(reason.kind(), lookalike_io::SkipKind::MissingField);
            }
        }
    }
    assert_eq!(docs, 2499);
}

#[test]
fn integer_ids_missing_id_columns_and_missing_text_columns() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("c.pq");
    write_parquet(&path, 5, 2);
    let read = |id: &str, text: &str| -> Vec<_> {
        let opts = ReadOptions {
            id_field: id.into(),
            text_field: text.into(),
            format: None,
            ..ReadOptions::default()
        };
        Reader::new(vec![Input::Path(path.clone())], opts.clone())
            .map(|r| r.map(|rec| decode(&rec, &opts)))
            .collect()
    };
    // A numeric id column prints as the number; an absent one gives file:row.
    let got = read("row", "content");
    assert!(matches!(&got[1], Ok(Decoded::Doc { doc, .. }) if doc.id == "1"));
    let got = read("nope", "content");
    let name = path.display().to_string();
    assert!(matches!(&got[4], Ok(Decoded::Doc { doc, .. }) if doc.id == format!("{name}:5")));
    // A missing text column is one error naming the file and the columns there are.
    let got = read("row", "body");
    assert_eq!(got.len(), 1);
    let err = got[0].as_ref().unwrap_err().to_string();
    assert!(err.contains("c.pq") && err.contains("'body'") && err.contains("content"), "{err}");
}

#[test]
fn a_file_that_is_not_parquet_is_an_error_and_reading_goes_on() {
    let tmp = tempfile::tempdir().unwrap();
    let bad = tmp.path().join("bad.parquet");
    std::fs::write(&bad, b"PAR1 this is not really parquet").unwrap();
    let good = tmp.path().join("good.txt");
    std::fs::write(&good, b"still read").unwrap();
    let got: Vec<_> =
        Reader::new(vec![Input::Path(bad), Input::Path(good)], ReadOptions::default()).collect();
    assert_eq!(got.len(), 2);
    assert!(got[0].as_ref().unwrap_err().to_string().contains("bad.parquet"));
    assert_eq!(got[1].as_ref().unwrap().bytes, b"still read");
}

/// Writes `columns` (name, array) to a Parquet file.
fn write_columns(path: &std::path::Path, columns: Vec<(&str, ArrayRef)>) {
    let batch = RecordBatch::try_from_iter(columns).unwrap();
    let file = std::fs::File::create(path).unwrap();
    let mut w = ArrowWriter::try_new(file, batch.schema(), None).unwrap();
    w.write(&batch).unwrap();
    w.close().unwrap();
}

/// Every row decoded: (id, text) of documents, `skip id: reason` otherwise.
fn decoded_rows(path: &std::path::Path, opts: &ReadOptions) -> Vec<String> {
    Reader::new(vec![Input::Path(path.to_path_buf())], opts.clone())
        .map(|r| match r {
            Err(e) => format!("error: {}", e.message),
            Ok(rec) => match decode(&rec, opts) {
                Decoded::Doc { doc, .. } => format!("{}={}", doc.id, doc.text),
                Decoded::Skip { id, reason } => format!("skip {id}: {reason}"),
            },
        })
        .collect()
}

/// Regression: dictionary-typed columns (a pandas `category`, an Arrow dictionary)
/// were not read: every row was skipped with "no string field 'text'", or the id silently
/// replaced by `file:row`.
#[test]
fn dictionary_columns_are_read_for_the_text_and_the_id() {
    use arrow_array::types::{Int8Type, Int32Type};
    use arrow_array::{DictionaryArray, LargeStringArray, StringViewArray};

    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("category.parquet");
    // pandas `category`: int8 keys over string values; one null text, one null id.
    let texts: DictionaryArray<Int8Type> =
        vec![Some("shared text"), Some("other words"), Some("shared text"), None]
            .into_iter()
            .collect();
    let ids: DictionaryArray<Int32Type> =
        vec![Some("a"), Some("b"), None, Some("d")].into_iter().collect();
    write_columns(&path, vec![("text", Arc::new(texts)), ("id", Arc::new(ids))]);
    // The file says so: its columns come back as dictionaries.
    let builder = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(
        std::fs::File::open(&path).unwrap(),
    )
    .unwrap();
    let types: Vec<String> =
        builder.schema().fields().iter().map(|f| f.data_type().to_string()).collect();
    assert_eq!(types, ["Dictionary(Int8, Utf8)", "Dictionary(Int32, Utf8)"]);
    let opts = ReadOptions::default();
    let name = path.display();
    assert_eq!(
        decoded_rows(&path, &opts),
        [
            "a=shared text".to_owned(),
            "b=other words".to_owned(),
            format!("{name}:3=shared text"),
            "skip d: no string field 'text'".to_owned(),
        ]
    );

    // A dictionary over large strings, and string views, for either column.
    let path = tmp.path().join("views.parquet");
    let values = Arc::new(LargeStringArray::from(vec!["x1", "x2"]));
    let keys = arrow_array::Int16Array::from(vec![1, 0]);
    let ids = DictionaryArray::<arrow_array::types::Int16Type>::try_new(keys, values).unwrap();
    let texts = StringViewArray::from(vec!["first view", "second view"]);
    write_columns(&path, vec![("body", Arc::new(texts)), ("key", Arc::new(ids))]);
    let opts = ReadOptions { id_field: "key".into(), text_field: "body".into(), ..opts };
    assert_eq!(decoded_rows(&path, &opts), ["x2=first view", "x1=second view"]);
}

/// Numbers of any width, floats, booleans and decimals are ids; a column that holds no text,
/// or an id column of a type that cannot be an id, is one error naming the column and its type.
#[test]
fn id_and_text_column_types() {
    use arrow_array::{BooleanArray, Date32Array, Float64Array, Int8Array};

    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("types.parquet");
    let text: ArrayRef = Arc::new(StringArray::from(vec!["one", "two"]));
    write_columns(
        &path,
        vec![
            ("text", text.clone()),
            ("small", Arc::new(Int8Array::from(vec![-3, 4]))),
            ("float", Arc::new(Float64Array::from(vec![1.5, 2.0]))),
            ("flag", Arc::new(BooleanArray::from(vec![true, false]))),
            ("day", Arc::new(Date32Array::from(vec![1, 2]))),
        ],
    );
    let with_id = |id: &str| ReadOptions { id_field: id.into(), ..ReadOptions::default() };
    assert_eq!(decoded_rows(&path, &with_id("small")), ["-3=one", "4=two"]);
    assert_eq!(decoded_rows(&path, &with_id("float")), ["1.5=one", "2.0=two"]);
    assert_eq!(decoded_rows(&path, &with_id("flag")), ["true=one", "false=two"]);
    assert_eq!(
        decoded_rows(&path, &with_id("day")),
        ["error: column 'day' is of type Date32, which cannot be an id; choose the id column \
          with --id-field"]
    );
    let opts = ReadOptions { text_field: "small".into(), ..ReadOptions::default() };
    assert_eq!(
        decoded_rows(&path, &opts),
        [
            "error: column 'small' is of type Int8, not text; choose the text column with --text-field"
        ]
    );
}

/// `Reader::with_all_columns`: each row is the JSON object of the whole row, columns in the
/// file's order (lists, dates, nulls included), and decodes to the same document as when only
/// the id and text columns are read (a binary text column included).
#[test]
fn rows_with_all_columns_are_whole_json_objects_that_decode_the_same() {
    use arrow_array::builder::{Int32Builder, ListBuilder};
    use arrow_array::{BinaryArray, Date32Array, Float64Array};

    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("rows.parquet");
    let mut tags = ListBuilder::new(Int32Builder::new());
    tags.append_value([Some(1), Some(2)]);
    tags.append_null();
    tags.append_value([]);
    write_columns(
        &path,
        vec![
            ("url", Arc::new(StringArray::from(vec![Some("http://a/"), None, Some("http://c/")]))),
            ("score", Arc::new(Float64Array::from(vec![Some(0.5), Some(1.0), None]))),
            ("text", Arc::new(BinaryArray::from(vec![&b"first\ntext"[..], b"second", b"x"]))),
            ("tags", Arc::new(tags.finish())),
            ("day", Arc::new(Date32Array::from(vec![0, 1, 2]))),
        ],
    );
    let opts = ReadOptions { id_field: "url".into(), ..ReadOptions::default() };
    let input = vec![Input::Path(path.clone())];
    let whole: Vec<_> =
        Reader::new(input, opts.clone()).with_all_columns(true).map(|r| r.unwrap()).collect();
    let lines: Vec<String> =
        whole.iter().map(|r| String::from_utf8(r.bytes.clone()).unwrap()).collect();
    assert_eq!(
        lines,
        [
            r#"{"url":"http://a/","score":0.5,"text":"first\ntext","tags":[1,2],"day":"1970-01-01"}"#,
            r#"{"url":null,"score":1.0,"text":"second","tags":null,"day":"1970-01-02"}"#,
            r#"{"url":"http://c/","score":null,"text":"x","tags":[],"day":"1970-01-03"}"#,
        ]
    );
    let decoded: Vec<String> = whole
        .iter()
        .map(|rec| match decode(rec, &opts) {
            Decoded::Doc { doc, .. } => format!("{}={}", doc.id, doc.text),
            Decoded::Skip { id, reason } => format!("skip {id}: {reason}"),
        })
        .collect();
    assert_eq!(decoded, decoded_rows(&path, &opts));
    assert_eq!(whole.iter().map(|r| r.line).collect::<Vec<_>>(), [Some(1), Some(2), Some(3)]);
}

/// A Parquet file of `groups` row groups of `per_group` rows (`id`, `text`: strings, UTF8
/// annotated), written below Arrow so that a text can be invalid UTF-8 (`bad` rows, 0-based),
/// plain-encoded or dictionary-encoded.
fn write_with_bad_utf8(
    path: &std::path::Path,
    groups: usize,
    per_group: usize,
    bad: &[usize],
    dictionary: bool,
) {
    use parquet::data_type::{ByteArray, ByteArrayType};
    use parquet::file::writer::SerializedFileWriter;
    let schema = parquet::schema::parser::parse_message_type(
        "message rows { REQUIRED BYTE_ARRAY id (UTF8); REQUIRED BYTE_ARRAY text (UTF8); }",
    )
    .unwrap();
    let props = WriterProperties::builder().set_dictionary_enabled(dictionary).build();
    let file = std::fs::File::create(path).unwrap();
    let mut w = SerializedFileWriter::new(file, Arc::new(schema), Arc::new(props)).unwrap();
    for g in 0..groups {
        let rows: Vec<usize> = (g * per_group..(g + 1) * per_group).collect();
        let ids: Vec<ByteArray> = rows.iter().map(|i| format!("r{i}").as_bytes().into()).collect();
        let texts: Vec<ByteArray> = rows
            .iter()
            .map(|&i| {
                let mut t = format!("row {i} of the file says hello").into_bytes();
                if bad.contains(&i) {
                    t.extend(b" \xff\xfe");
                }
                ByteArray::from(t)
            })
            .collect();
        let mut group = w.next_row_group().unwrap();
        for values in [&ids, &texts] {
            let mut col = group.next_column().unwrap().unwrap();
            col.typed::<ByteArrayType>().write_batch(values, None, None).unwrap();
            col.close().unwrap();
        }
        group.close().unwrap();
    }
    w.close().unwrap();
}

/// Regression: invalid UTF-8 in row group 10 of 10 lost all 1,000 rows of the
/// file. Plain-encoded, only the bad rows are lost, each reported with its row; dictionary-
/// encoded (the bad value in the row group's dictionary, so no row of it decodes), at most that
/// row group. Every row is accounted for: read, or named by a lost-row error.
#[test]
fn one_bad_value_loses_at_most_its_row_or_its_row_group() {
    let tmp = tempfile::tempdir().unwrap();
    for (dictionary, bad) in
        [(false, vec![999]), (false, vec![0, 250, 251, 998]), (true, vec![999])]
    {
        let path = tmp.path().join("bad.parquet");
        write_with_bad_utf8(&path, 10, 100, &bad, dictionary);
        let opts = ReadOptions::default();
        let mut read = Vec::new();
        let mut lost = Vec::new();
        for r in Reader::new(vec![Input::Path(path.clone())], opts.clone()) {
            match r {
                Ok(rec) => {
                    let Decoded::Doc { doc, .. } = decode(&rec, &opts) else { panic!("{rec:?}") };
                    assert_eq!(doc.id, format!("r{}", rec.line.unwrap() - 1));
                    read.push(rec.line.unwrap());
                }
                Err(e) => {
                    let first = e.row.expect("the error names its row");
                    let lost_id = e.lost.clone().expect("the error names what it lost");
                    let rows = match lost_id.rsplit_once("#rows-") {
                        Some((_, range)) => {
                            let (a, b) = range.split_once('-').unwrap();
                            a.parse::<u64>().unwrap()..b.parse::<u64>().unwrap() + 1
                        }
                        None => first..first + 1,
                    };
                    assert_eq!(rows.start, first, "{e}");
                    assert!(e.to_string().contains("row group 10") || !dictionary, "{e}");
                    lost.extend(rows);
                }
            }
        }
        let bad_rows: Vec<u64> = bad.iter().map(|&i| i as u64 + 1).collect();
        if dictionary {
            assert_eq!(read, (1..=900).collect::<Vec<u64>>());
            assert_eq!(lost, (901..=1000).collect::<Vec<u64>>());
        } else {
            assert_eq!(lost, bad_rows, "dictionary {dictionary}");
            let good: Vec<u64> = (1..=1000).filter(|r| !bad_rows.contains(r)).collect();
            assert_eq!(read, good);
        }
    }
}

/// `Reader::with_all_columns` on the types a user's Parquet has besides strings: the other
/// columns' JSON text is the one Arrow's JSON writer gave (floats with `.0` and exponents,
/// decimals as numbers with their scale, binary as hex, timestamps as ISO 8601 (`Z` for UTC,
/// which Arrow's writer, built without the time zone database, refused),
/// structs and maps as objects, dictionaries as their values), read back from a file.
#[test]
fn rows_with_all_columns_write_every_type_as_arrow_json_did() {
    use arrow_array::builder::{MapBuilder, StringBuilder};
    use arrow_array::types::Int32Type;
    use arrow_array::{
        BinaryArray, BooleanArray, Decimal128Array, DictionaryArray, Float32Array, Float64Array,
        Int32Array, StructArray, TimestampMicrosecondArray, UInt64Array,
    };
    use arrow_schema::{DataType, Field, Fields};

    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("types.parquet");
    let mut map = MapBuilder::new(None, StringBuilder::new(), StringBuilder::new());
    map.keys().append_value("lang");
    map.values().append_value("en");
    map.append(true).unwrap();
    map.append(false).unwrap();
    let point = StructArray::new(
        Fields::from(vec![Field::new("x", DataType::Int32, true)]),
        vec![Arc::new(Int32Array::from(vec![Some(1), None]))],
        None,
    );
    let category: DictionaryArray<Int32Type> = vec![Some("news"), None].into_iter().collect();
    write_columns(
        &path,
        vec![
            ("id", Arc::new(StringArray::from(vec!["a", "b"]))),
            ("text", Arc::new(StringArray::from(vec!["one", "two"]))),
            ("big", Arc::new(UInt64Array::from(vec![u64::MAX, 0]))),
            ("f64", Arc::new(Float64Array::from(vec![1e20, f64::NAN]))),
            ("f32", Arc::new(Float32Array::from(vec![0.1, 2.0]))),
            ("ok", Arc::new(BooleanArray::from(vec![Some(true), None]))),
            ("raw", Arc::new(BinaryArray::from(vec![&b"\x00\xff"[..], b"A"]))),
            (
                "price",
                Arc::new(
                    Decimal128Array::from(vec![Some(1250), Some(-5)])
                        .with_precision_and_scale(10, 2)
                        .unwrap(),
                ),
            ),
            (
                "seen",
                Arc::new(
                    TimestampMicrosecondArray::from(vec![Some(1_706_702_400_000_001), None])
                        .with_timezone("UTC"),
                ),
            ),
            ("meta", Arc::new(map.finish())),
            ("point", Arc::new(point)),
            ("category", Arc::new(category)),
        ],
    );
    let opts = ReadOptions::default();
    let lines: Vec<String> = Reader::new(vec![Input::Path(path)], opts)
        .with_all_columns(true)
        .map(|r| String::from_utf8(r.unwrap().bytes).unwrap())
        .collect();
    assert_eq!(
        lines,
        [
            r#"{"id":"a","text":"one","big":18446744073709551615,"f64":1.0e20,"f32":0.1,"ok":true,"raw":"00ff","price":12.50,"seen":"2024-01-31T12:00:00.000001Z","meta":{"lang":"en"},"point":{"x":1},"category":"news"}"#,
            r#"{"id":"b","text":"two","big":0,"f64":null,"f32":2.0,"ok":null,"raw":"41","price":-0.05,"seen":null,"meta":null,"point":{"x":null},"category":null}"#,
        ]
    );
}

/// A column without a JSON form (a named time zone) is an error naming the file, the column
/// and why, when every column is read; reading only the id and text columns is unaffected.
#[test]
fn a_column_without_a_json_form_is_an_error_naming_the_file_and_column() {
    use arrow_array::TimestampMillisecondArray;

    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("zoned.parquet");
    write_columns(
        &path,
        vec![
            ("text", Arc::new(StringArray::from(vec!["one"]))),
            (
                "at",
                Arc::new(TimestampMillisecondArray::from(vec![0]).with_timezone("Europe/Paris")),
            ),
        ],
    );
    let opts = ReadOptions::default();
    let got: Vec<_> =
        Reader::new(vec![Input::Path(path.clone())], opts.clone()).with_all_columns(true).collect();
    assert_eq!(got.len(), 1);
    let err = got[0].as_ref().unwrap_err().to_string();
    assert!(err.contains("zoned.parquet"), "{err}");
    assert!(
        err.contains(
            "column 'at' of type Timestamp(ms, \"Europe/Paris\") has no JSON form: time zone \
             'Europe/Paris' is not supported"
        ),
        "{err}"
    );
    assert_eq!(decoded_rows(&path, &opts).len(), 1);
    assert!(decoded_rows(&path, &opts)[0].ends_with("=one"));
}
