//! A Parquet row's other columns as JSON values (the all-columns mode of `lookalike paragraphs`).
//! Contract: "give me an Arrow array and a row, I append that value's JSON text".
//!
//! The text is the one Arrow's JSON writer (`arrow_json` 60, nulls explicit) gives, which rows
//! were written with before, so that `--output` writes the same bytes:
//!
//! | Arrow type | JSON |
//! |---|---|
//! | null, any null value | `null` |
//! | booleans, integers | `true`, `-3` |
//! | floats (16, 32, 64 bits) | the shortest text that reads back (lexical's: `1.0`, `1.5e-7`, `1.0e20`); `null` for NaN and infinities |
//! | strings (plain, large, view) | a JSON string |
//! | binary (plain, large, view, fixed size) | a string of lowercase hex digits |
//! | decimals (32 to 256 bits) | a number with the column's scale: `12.50` |
//! | dates, times, timestamps | a string: `2024-01-31`, `12:00:01.500`, `2024-01-31T12:00:00` (Date64 too); with a time zone, RFC 3339 (`...Z`, `...+02:00`) |
//! | durations | an ISO 8601 string of seconds: `PT1.5S` |
//! | lists (plain, large, fixed size) | an array |
//! | structs | an object, nulls explicit |
//! | maps with string keys | an object |
//! | dictionaries | the value of each row's key |
//!
//! Time zones are fixed offsets (`+02:00`) or `UTC` (`Etc/UTC`); Arrow's writer, built without
//! the time zone database, wrote no column in `UTC` (the file was not read), and neither writer
//! knows named zones (`Europe/Paris`). Other types (intervals, unions, run-end encoded or
//! list-view arrays, maps with other keys) have no JSON form here either: [`check`] names them,
//! and the file is not read.

use std::io::Write;

use arrow_array::cast::AsArray;
use arrow_array::temporal_conversions::{
    as_datetime, date32_to_datetime, date64_to_datetime, duration_ns_to_duration,
    duration_us_to_duration, time32ms_to_time, time32s_to_time, time64ns_to_time, time64us_to_time,
    try_duration_ms_to_duration, try_duration_s_to_duration,
};
use arrow_array::timezone::Tz;
use arrow_array::types::{
    ArrowTimestampType, Decimal32Type, Decimal64Type, Decimal128Type, Decimal256Type, Float16Type,
    Float32Type, Float64Type, Int8Type, Int16Type, Int32Type, Int64Type, TimestampMicrosecondType,
    TimestampMillisecondType, TimestampNanosecondType, TimestampSecondType, UInt8Type, UInt16Type,
    UInt32Type, UInt64Type,
};
use arrow_array::{Array, ArrayRef, PrimitiveArray};
use arrow_schema::{DataType, TimeUnit};
use chrono::{SecondsFormat, TimeZone, Utc};

/// Whether values of `data_type` have a JSON form; the error says which type has none.
pub(crate) fn check(data_type: &DataType) -> Result<(), String> {
    use DataType as D;
    match data_type {
        D::Null
        | D::Boolean
        | D::Int8
        | D::Int16
        | D::Int32
        | D::Int64
        | D::UInt8
        | D::UInt16
        | D::UInt32
        | D::UInt64
        | D::Float16
        | D::Float32
        | D::Float64
        | D::Utf8
        | D::LargeUtf8
        | D::Utf8View
        | D::Binary
        | D::LargeBinary
        | D::BinaryView
        | D::FixedSizeBinary(_)
        | D::Decimal32(..)
        | D::Decimal64(..)
        | D::Decimal128(..)
        | D::Decimal256(..)
        | D::Date32
        | D::Date64
        | D::Time32(TimeUnit::Second | TimeUnit::Millisecond)
        | D::Time64(TimeUnit::Microsecond | TimeUnit::Nanosecond)
        | D::Timestamp(_, None)
        | D::Duration(_) => Ok(()),
        D::Timestamp(_, Some(tz)) => time_zone(tz).map(|_| ()),
        D::List(item) | D::LargeList(item) | D::FixedSizeList(item, _) => check(item.data_type()),
        D::Struct(fields) => fields.iter().try_for_each(|f| check(f.data_type())),
        D::Dictionary(_, values) => check(values),
        D::Map(entries, _) => {
            let D::Struct(kv) = entries.data_type() else {
                return Err(format!("a map's entries of type {}", entries.data_type()));
            };
            let (Some(key), Some(value)) = (kv.first(), kv.get(1)) else {
                return Err("a map's entries without a key and a value".into());
            };
            if !matches!(key.data_type(), D::Utf8 | D::LargeUtf8 | D::Utf8View) {
                return Err(format!("a map's keys of type {}: only string keys", key.data_type()));
            }
            check(value.data_type())
        }
        _ => Err(format!("type {data_type} is not supported")),
    }
}

/// Appends value `i` of `array` as JSON (`null` for a null).
///
/// # Errors
///
/// A map whose keys or entries hold nulls (no JSON object has them).
pub(crate) fn write_value(array: &dyn Array, i: usize, out: &mut Vec<u8>) -> Result<(), String> {
    if array.data_type() == &DataType::Null || array.is_null(i) {
        out.extend_from_slice(b"null");
        return Ok(());
    }
    write_valid(array, i, out)
}

/// Appends value `i` of `array`, which is not null in `array`'s own null buffer, as JSON.
fn write_valid(array: &dyn Array, i: usize, out: &mut Vec<u8>) -> Result<(), String> {
    use DataType as D;
    macro_rules! int {
        ($t:ty) => {
            write!(out, "{}", array.as_primitive::<$t>().value(i)).map_err(|e| e.to_string())?
        };
    }
    match array.data_type() {
        D::Null => out.extend_from_slice(b"null"),
        D::Boolean => {
            out.extend_from_slice(if array.as_boolean().value(i) { b"true" } else { b"false" })
        }
        D::Int8 => int!(Int8Type),
        D::Int16 => int!(Int16Type),
        D::Int32 => int!(Int32Type),
        D::Int64 => int!(Int64Type),
        D::UInt8 => int!(UInt8Type),
        D::UInt16 => int!(UInt16Type),
        D::UInt32 => int!(UInt32Type),
        D::UInt64 => int!(UInt64Type),
        D::Float16 => write_f32(array.as_primitive::<Float16Type>().value(i).to_f32(), out),
        D::Float32 => write_f32(array.as_primitive::<Float32Type>().value(i), out),
        D::Float64 => write_f64(array.as_primitive::<Float64Type>().value(i), out),
        D::Utf8 => write_str(array.as_string::<i32>().value(i), out),
        D::LargeUtf8 => write_str(array.as_string::<i64>().value(i), out),
        D::Utf8View => write_str(array.as_string_view().value(i), out),
        D::Binary => write_hex(array.as_binary::<i32>().value(i), out),
        D::LargeBinary => write_hex(array.as_binary::<i64>().value(i), out),
        D::BinaryView => write_hex(array.as_binary_view().value(i), out),
        D::FixedSizeBinary(_) => write_hex(array.as_fixed_size_binary().value(i), out),
        D::Decimal32(..) => out
            .extend_from_slice(array.as_primitive::<Decimal32Type>().value_as_string(i).as_bytes()),
        D::Decimal64(..) => out
            .extend_from_slice(array.as_primitive::<Decimal64Type>().value_as_string(i).as_bytes()),
        D::Decimal128(..) => out.extend_from_slice(
            array.as_primitive::<Decimal128Type>().value_as_string(i).as_bytes(),
        ),
        D::Decimal256(..) => out.extend_from_slice(
            array.as_primitive::<Decimal256Type>().value_as_string(i).as_bytes(),
        ),
        D::Date32 => {
            let v = array.as_primitive::<arrow_array::types::Date32Type>().value(i);
            let date = date32_to_datetime(v).map(|d| d.date());
            write_temporal(date.map(|d| format!("{d:?}")), v, array.data_type(), "temporal", out);
        }
        D::Date64 => {
            let v = array.as_primitive::<arrow_array::types::Date64Type>().value(i);
            let date = date64_to_datetime(v);
            write_temporal(date.map(|d| format!("{d:?}")), v, array.data_type(), "temporal", out);
        }
        D::Time32(unit) => {
            let (v, time) = if *unit == TimeUnit::Second {
                let v = array.as_primitive::<arrow_array::types::Time32SecondType>().value(i);
                (v, time32s_to_time(v))
            } else {
                let v = array.as_primitive::<arrow_array::types::Time32MillisecondType>().value(i);
                (v, time32ms_to_time(v))
            };
            write_temporal(time.map(|t| format!("{t:?}")), v, array.data_type(), "temporal", out);
        }
        D::Time64(unit) => {
            let (v, time) = if *unit == TimeUnit::Microsecond {
                let v = array.as_primitive::<arrow_array::types::Time64MicrosecondType>().value(i);
                (v, time64us_to_time(v))
            } else {
                let v = array.as_primitive::<arrow_array::types::Time64NanosecondType>().value(i);
                (v, time64ns_to_time(v))
            };
            write_temporal(time.map(|t| format!("{t:?}")), v, array.data_type(), "temporal", out);
        }
        D::Timestamp(unit, tz) => {
            let tz = match tz {
                Some(tz) => Some(time_zone(tz)?),
                None => None,
            };
            match unit {
                TimeUnit::Second => write_timestamp::<TimestampSecondType>(array, i, tz, out),
                TimeUnit::Millisecond => {
                    write_timestamp::<TimestampMillisecondType>(array, i, tz, out)
                }
                TimeUnit::Microsecond => {
                    write_timestamp::<TimestampMicrosecondType>(array, i, tz, out)
                }
                TimeUnit::Nanosecond => {
                    write_timestamp::<TimestampNanosecondType>(array, i, tz, out)
                }
            }
        }
        D::Duration(unit) => {
            let duration = match unit {
                TimeUnit::Second => try_duration_s_to_duration(
                    array.as_primitive::<arrow_array::types::DurationSecondType>().value(i),
                ),
                TimeUnit::Millisecond => try_duration_ms_to_duration(
                    array.as_primitive::<arrow_array::types::DurationMillisecondType>().value(i),
                ),
                TimeUnit::Microsecond => Some(duration_us_to_duration(
                    array.as_primitive::<arrow_array::types::DurationMicrosecondType>().value(i),
                )),
                TimeUnit::Nanosecond => Some(duration_ns_to_duration(
                    array.as_primitive::<arrow_array::types::DurationNanosecondType>().value(i),
                )),
            };
            match duration {
                Some(d) => write!(out, "\"{d}\"").map_err(|e| e.to_string())?,
                None => out.extend_from_slice(b"\"<invalid>\""),
            }
        }
        D::List(_) => {
            let list = array.as_list::<i32>();
            let range = index(list.value_offsets()[i])..index(list.value_offsets()[i + 1]);
            write_items(list.values(), range, out)?;
        }
        D::LargeList(_) => {
            let list = array.as_list::<i64>();
            let offsets = list.value_offsets();
            let range = index(offsets[i])..index(offsets[i + 1]);
            write_items(list.values(), range, out)?;
        }
        D::FixedSizeList(_, _) => {
            let list = array.as_fixed_size_list();
            let len = index(list.value_length());
            write_items(list.values(), i * len..(i + 1) * len, out)?;
        }
        D::Struct(fields) => {
            let array = array.as_struct();
            out.push(b'{');
            for (c, (field, column)) in fields.iter().zip(array.columns()).enumerate() {
                if c > 0 {
                    out.push(b',');
                }
                write_str(field.name(), out);
                out.push(b':');
                write_value(column.as_ref(), i, out)?;
            }
            out.push(b'}');
        }
        D::Map(..) => {
            let map = array.as_map();
            if map.keys().null_count() > 0 {
                return Err("Invalid argument error: Encountered nulls in MapArray keys".into());
            }
            if map.entries().nulls().is_some_and(|n| n.null_count() != 0) {
                return Err("Invalid argument error: Encountered nulls in MapArray entries".into());
            }
            let offsets = map.value_offsets();
            out.push(b'{');
            for (n, entry) in (index(offsets[i])..index(offsets[i + 1])).enumerate() {
                if n > 0 {
                    out.push(b',');
                }
                write_valid(map.keys().as_ref(), entry, out)?;
                out.push(b':');
                write_value(map.values().as_ref(), entry, out)?;
            }
            out.push(b'}');
        }
        D::Dictionary(..) => {
            let dict = array.as_any_dictionary();
            let key = dictionary_key(dict.keys(), i)?;
            // As Arrow's writer does: the value the key points at, even one null in the values.
            write_valid(dict.values().as_ref(), key, out)?;
        }
        other => return Err(format!("type {other} is not supported")),
    }
    Ok(())
}

/// A timestamp column's time zone: a fixed offset, or UTC by name.
fn time_zone(tz: &str) -> Result<Tz, String> {
    let offset = match tz {
        "UTC" | "Etc/UTC" => "+00:00",
        other => other,
    };
    offset.parse::<Tz>().map_err(|_| {
        format!("time zone '{tz}' is not supported (only UTC and offsets such as +02:00)")
    })
}

/// Key `i` of a dictionary (valid: the row is not null).
fn dictionary_key(keys: &dyn Array, i: usize) -> Result<usize, String> {
    use DataType as D;
    let key = match keys.data_type() {
        D::Int8 => i64::from(keys.as_primitive::<Int8Type>().value(i)),
        D::Int16 => i64::from(keys.as_primitive::<Int16Type>().value(i)),
        D::Int32 => i64::from(keys.as_primitive::<Int32Type>().value(i)),
        D::Int64 => keys.as_primitive::<Int64Type>().value(i),
        D::UInt8 => i64::from(keys.as_primitive::<UInt8Type>().value(i)),
        D::UInt16 => i64::from(keys.as_primitive::<UInt16Type>().value(i)),
        D::UInt32 => i64::from(keys.as_primitive::<UInt32Type>().value(i)),
        D::UInt64 => i64::try_from(keys.as_primitive::<UInt64Type>().value(i)).unwrap_or(-1),
        other => return Err(format!("dictionary keys of type {other}")),
    };
    usize::try_from(key).map_err(|_| format!("dictionary key {key} out of range"))
}

/// An Arrow offset or length as an index (offsets are never negative).
fn index<T: TryInto<usize>>(v: T) -> usize {
    v.try_into().unwrap_or(0)
}

/// `values[range]` as a JSON array.
fn write_items(
    values: &ArrayRef,
    range: std::ops::Range<usize>,
    out: &mut Vec<u8>,
) -> Result<(), String> {
    out.push(b'[');
    for (n, item) in range.enumerate() {
        if n > 0 {
            out.push(b',');
        }
        write_value(values.as_ref(), item, out)?;
    }
    out.push(b']');
    Ok(())
}

fn write_str(s: &str, out: &mut Vec<u8>) {
    // Writing a string into a Vec cannot fail.
    let _ = serde_json::to_writer(&mut *out, s);
}

fn write_hex(bytes: &[u8], out: &mut Vec<u8>) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.push(b'"');
    for b in bytes {
        out.push(HEX[usize::from(b >> 4)]);
        out.push(HEX[usize::from(b & 0xf)]);
    }
    out.push(b'"');
}

fn write_f32(v: f32, out: &mut Vec<u8>) {
    if v.is_finite() {
        let mut buf = [0u8; lexical_core::BUFFER_SIZE];
        out.extend_from_slice(lexical_core::write(v, &mut buf));
    } else {
        out.extend_from_slice(b"null");
    }
}

fn write_f64(v: f64, out: &mut Vec<u8>) {
    if v.is_finite() {
        let mut buf = [0u8; lexical_core::BUFFER_SIZE];
        out.extend_from_slice(lexical_core::write(v, &mut buf));
    } else {
        out.extend_from_slice(b"null");
    }
}

/// A date or time as a JSON string; one out of chrono's range as the error text Arrow's writer
/// gave in its place.
fn write_temporal(
    text: Option<String>,
    value: impl std::fmt::Display,
    data_type: &DataType,
    kind: &str,
    out: &mut Vec<u8>,
) {
    out.push(b'"');
    match text {
        Some(text) => out.extend_from_slice(text.as_bytes()),
        None => {
            let _ = write!(
                out,
                "ERROR: Cast error: Failed to convert {value} to {kind} for {data_type}"
            );
        }
    }
    out.push(b'"');
}

fn write_timestamp<T: ArrowTimestampType>(
    array: &dyn Array,
    i: usize,
    tz: Option<Tz>,
    out: &mut Vec<u8>,
) where
    PrimitiveArray<T>: Array,
{
    let v = array.as_primitive::<T>().value(i);
    let text = as_datetime::<T>(v).map(|naive| match tz {
        Some(tz) => Utc
            .from_utc_datetime(&naive)
            .with_timezone(&tz)
            .to_rfc3339_opts(SecondsFormat::AutoSi, true),
        None => format!("{naive:?}"),
    });
    write_temporal(text, v, array.data_type(), "datetime", out);
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow_array::builder::{
        FixedSizeListBuilder, Int32Builder, LargeListBuilder, ListBuilder, MapBuilder,
        StringBuilder,
    };
    use arrow_array::types::ArrowPrimitiveType;
    use arrow_array::types::Int8Type;
    use arrow_array::*;
    use arrow_schema::{Field, Fields, IntervalUnit};

    use super::*;

    /// Every value of `array` as JSON.
    fn json(array: &dyn Array) -> Vec<String> {
        check(array.data_type()).unwrap();
        (0..array.len())
            .map(|i| {
                let mut out = Vec::new();
                write_value(array, i, &mut out).unwrap();
                String::from_utf8(out).unwrap()
            })
            .collect()
    }

    #[test]
    fn integers_booleans_and_nulls() {
        assert_eq!(
            json(&Int8Array::from(vec![Some(-128), None, Some(127)])),
            ["-128", "null", "127"]
        );
        assert_eq!(json(&UInt64Array::from(vec![u64::MAX, 0])), ["18446744073709551615", "0"]);
        assert_eq!(json(&Int64Array::from(vec![i64::MIN])), ["-9223372036854775808"]);
        assert_eq!(
            json(&BooleanArray::from(vec![Some(true), None, Some(false)])),
            ["true", "null", "false"]
        );
        assert_eq!(json(&NullArray::new(2)), ["null", "null"]);
    }

    /// Floats as lexical writes them: a `.0` on whole numbers, an exponent from 1e10 and below
    /// 1e-5 (`1.0e10`, `1.0e-6`), the shortest digits that read back to the same value (an f32's
    /// own), `null` for what JSON has no number for.
    #[test]
    fn floats() {
        let f64s = Float64Array::from(vec![
            Some(0.5),
            Some(1.0),
            Some(-0.0),
            Some(123456789.0),
            Some(1e9),
            Some(1e10),
            Some(1e20),
            Some(0.0001),
            Some(1e-6),
            Some(1.5e-7),
            Some(0.1 + 0.2),
            Some(f64::NAN),
            Some(f64::INFINITY),
            None,
        ]);
        assert_eq!(
            json(&f64s),
            [
                "0.5",
                "1.0",
                "-0.0",
                "123456789.0",
                "1000000000.0",
                "1.0e10",
                "1.0e20",
                "0.0001",
                "1.0e-6",
                "1.5e-7",
                "0.30000000000000004",
                "null",
                "null",
                "null"
            ]
        );
        let f32s = Float32Array::from(vec![0.1f32, 2.5, f32::NEG_INFINITY]);
        assert_eq!(json(&f32s), ["0.1", "2.5", "null"]);
        let f16 = <Float16Type as ArrowPrimitiveType>::Native::from_f32;
        let f16s = Float16Array::from(vec![f16(0.5), f16(3.0)]);
        assert_eq!(json(&f16s), ["0.5", "3.0"]);
    }

    #[test]
    fn strings_and_binary() {
        let s = vec![Some("a \"quoted\"\nline"), None, Some("é\u{1}")];
        let expected = [r#""a \"quoted\"\nline""#, "null", "\"é\\u0001\""];
        assert_eq!(json(&StringArray::from(s.clone())), expected);
        assert_eq!(json(&LargeStringArray::from(s.clone())), expected);
        assert_eq!(json(&StringViewArray::from(s)), expected);
        let b: Vec<Option<&[u8]>> = vec![Some(b"\x00\xffAz"), None, Some(b"")];
        let expected = [r#""00ff417a""#, "null", r#""""#];
        assert_eq!(json(&BinaryArray::from(b.clone())), expected);
        assert_eq!(json(&LargeBinaryArray::from(b.clone())), expected);
        assert_eq!(json(&BinaryViewArray::from(b)), expected);
        let fixed = FixedSizeBinaryArray::try_from_iter([[1u8, 171], [0, 16]].into_iter()).unwrap();
        assert_eq!(json(&fixed), [r#""01ab""#, r#""0010""#]);
    }

    /// Decimals as numbers with every digit of their scale.
    #[test]
    fn decimals() {
        let d = Decimal128Array::from(vec![Some(1250), Some(-5), None, Some(0)])
            .with_precision_and_scale(10, 2)
            .unwrap();
        assert_eq!(json(&d), ["12.50", "-0.05", "null", "0.00"]);
        let d = Decimal32Array::from(vec![7]).with_precision_and_scale(5, 0).unwrap();
        assert_eq!(json(&d), ["7"]);
        let d = Decimal64Array::from(vec![123456]).with_precision_and_scale(12, 3).unwrap();
        assert_eq!(json(&d), ["123.456"]);
        let i256 = <Decimal256Type as ArrowPrimitiveType>::Native::from_i128;
        let d = Decimal256Array::from(vec![i256(-10_i128.pow(20))])
            .with_precision_and_scale(40, 4)
            .unwrap();
        assert_eq!(json(&d), ["-10000000000000000.0000"]);
    }

    /// Dates, times and timestamps as ISO 8601 strings; fractions of a second as 3, 6 or 9
    /// digits, only where there are any; a time zone as its offset, `Z` for UTC.
    #[test]
    fn dates_times_and_timestamps() {
        assert_eq!(
            json(&Date32Array::from(vec![Some(0), Some(19753), None])),
            [r#""1970-01-01""#, r#""2024-01-31""#, "null"]
        );
        assert_eq!(
            json(&Date64Array::from(vec![86_400_000 + 1500])),
            [r#""1970-01-02T00:00:01.500""#]
        );
        assert_eq!(json(&Time32SecondArray::from(vec![3661])), [r#""01:01:01""#]);
        assert_eq!(json(&Time32MillisecondArray::from(vec![3_661_500])), [r#""01:01:01.500""#]);
        assert_eq!(json(&Time64MicrosecondArray::from(vec![1])), [r#""00:00:00.000001""#]);
        assert_eq!(json(&Time64NanosecondArray::from(vec![1])), [r#""00:00:00.000000001""#]);
        // 2024-01-31T12:00:00 UTC.
        let s = 1_706_702_400_i64;
        assert_eq!(json(&TimestampSecondArray::from(vec![s])), [r#""2024-01-31T12:00:00""#]);
        assert_eq!(
            json(&TimestampMillisecondArray::from(vec![s * 1000 + 250])),
            [r#""2024-01-31T12:00:00.250""#]
        );
        assert_eq!(
            json(&TimestampMicrosecondArray::from(vec![s * 1_000_000 + 7])),
            [r#""2024-01-31T12:00:00.000007""#]
        );
        assert_eq!(
            json(&TimestampNanosecondArray::from(vec![-1])),
            [r#""1969-12-31T23:59:59.999999999""#]
        );
        let utc = TimestampMicrosecondArray::from(vec![s * 1_000_000]).with_timezone("UTC");
        assert_eq!(json(&utc), [r#""2024-01-31T12:00:00Z""#]);
        let plus2 = TimestampMillisecondArray::from(vec![s * 1000 + 5]).with_timezone("+02:00");
        assert_eq!(json(&plus2), [r#""2024-01-31T14:00:00.005+02:00""#]);
    }

    #[test]
    fn durations() {
        assert_eq!(json(&DurationSecondArray::from(vec![90])), [r#""PT90S""#]);
        assert_eq!(json(&DurationMillisecondArray::from(vec![1500])), [r#""PT1.5S""#]);
        assert_eq!(json(&DurationMicrosecondArray::from(vec![-2])), [r#""-PT0.000002S""#]);
        // Seconds only, however many days (chrono's `TimeDelta` display).
        assert_eq!(
            json(&DurationNanosecondArray::from(vec![86_400_000_000_001])),
            [r#""PT86400.000000001S""#]
        );
    }

    /// Lists, structs and maps nest; a null inside is `null`, and a struct's null fields stay.
    #[test]
    fn lists_structs_and_maps() {
        let mut list = ListBuilder::new(Int32Builder::new());
        list.append_value([Some(1), None]);
        list.append_null();
        list.append_value([]);
        assert_eq!(json(&list.finish()), ["[1,null]", "null", "[]"]);
        let mut large = LargeListBuilder::new(StringBuilder::new());
        large.append_value([Some("x")]);
        assert_eq!(json(&large.finish()), [r#"["x"]"#]);
        let mut fixed = FixedSizeListBuilder::new(Int32Builder::new(), 2);
        fixed.values().append_value(3);
        fixed.values().append_value(4);
        fixed.append(true);
        assert_eq!(json(&fixed.finish()), ["[3,4]"]);

        let a: ArrayRef = Arc::new(Int32Array::from(vec![Some(1), None]));
        let b: ArrayRef = Arc::new(StringArray::from(vec!["p", "q"]));
        let fields = Fields::from(vec![
            Field::new("a", DataType::Int32, true),
            Field::new("b \"c\"", DataType::Utf8, false),
        ]);
        let st = StructArray::new(fields, vec![a, b], Some(vec![true, true].into()));
        assert_eq!(json(&st), [r#"{"a":1,"b \"c\"":"p"}"#, r#"{"a":null,"b \"c\"":"q"}"#]);

        let mut map = MapBuilder::new(None, StringBuilder::new(), Int32Builder::new());
        map.keys().append_value("k");
        map.values().append_value(1);
        map.keys().append_value("n");
        map.values().append_null();
        map.append(true).unwrap();
        map.append(false).unwrap();
        assert_eq!(json(&map.finish()), [r#"{"k":1,"n":null}"#, "null"]);
    }

    #[test]
    fn dictionaries_write_their_values() {
        let d: DictionaryArray<Int8Type> =
            vec![Some("b"), None, Some("a"), Some("b")].into_iter().collect();
        assert_eq!(json(&d), [r#""b""#, "null", r#""a""#, r#""b""#]);
    }

    #[test]
    fn types_without_a_json_form_are_named() {
        let e = check(&DataType::Interval(IntervalUnit::DayTime)).unwrap_err();
        assert_eq!(e, "type Interval(DayTime) is not supported");
        let e =
            check(&DataType::Timestamp(TimeUnit::Second, Some("Europe/Paris".into()))).unwrap_err();
        assert_eq!(
            e,
            "time zone 'Europe/Paris' is not supported (only UTC and offsets such as +02:00)"
        );
        let map = DataType::Map(
            Arc::new(Field::new(
                "entries",
                DataType::Struct(Fields::from(vec![
                    Field::new("key", DataType::Int32, false),
                    Field::new("value", DataType::Int32, true),
                ])),
                false,
            )),
            false,
        );
        assert_eq!(check(&map).unwrap_err(), "a map's keys of type Int32: only string keys");
        let nested = DataType::List(Arc::new(Field::new(
            "item",
            DataType::Interval(IntervalUnit::YearMonth),
            true,
        )));
        assert!(check(&nested).unwrap_err().contains("Interval(YearMonth)"));
    }
}
