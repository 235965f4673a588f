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
                assert!(reason.contains("content"), "{reason}");
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
