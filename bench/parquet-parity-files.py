"""Parquet files covering the Arrow types a user's Parquet has, for bench/parquet-parity.sh.

Usage: python3 bench/parquet-parity-files.py DIR

Each file has an `id` and a `text` column (texts repeat, so `dedup` finds pairs and `paragraphs`
removes lines) and other columns of one family of types, with nulls, extreme values, and
several row groups. Needs pyarrow.
"""

import datetime as dt
import decimal
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

N = 3000


def text(i):
    if i % 97 == 5:
        return None
    shared = "This paragraph is shared by many rows and is removed after its first time.\n"
    return f"row {i % 50} says something about topic {i % 7}.\n" + (shared if i % 3 == 0 else "") + f"unique line {i}"


def base():
    return {
        "id": pa.array([f"doc-{i}" for i in range(N)]),
        "text": pa.array([text(i) for i in range(N)]),
    }


def cycle(values):
    return [values[i % len(values)] for i in range(N)]


def write(path, cols, **kw):
    table = pa.table(cols)
    pq.write_table(table, path, row_group_size=700, **kw)


def main(out):
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    # Integers and booleans.
    c = base()
    for t, lo, hi in [
        (pa.int8(), -128, 127), (pa.int16(), -32768, 32767), (pa.int32(), -2**31, 2**31 - 1),
        (pa.int64(), -2**63, 2**63 - 1), (pa.uint8(), 0, 255), (pa.uint16(), 0, 65535),
        (pa.uint32(), 0, 2**32 - 1), (pa.uint64(), 0, 2**64 - 1),
    ]:
        c[str(t)] = pa.array(cycle([lo, hi, 0, None, 7]), type=t)
    c["bool"] = pa.array(cycle([True, False, None]))
    c["nulls"] = pa.nulls(N)
    write(out / "ints.parquet", c)
    # Floats.
    c = base()
    fl = [0.5, 1.0, -0.0, 123456789.0, 1e9, 1e20, 1e-5, 1e-6, 1.5e-7, 0.1 + 0.2, float("nan"),
          float("inf"), float("-inf"), None, 3.141592653589793, -2.5e-300, 1.7976931348623157e308,
          12345.678, 100.0, 99999999.0]
    c["f64"] = pa.array(cycle(fl), type=pa.float64())
    c["f32"] = pa.array(cycle(fl[:16] + [0.1, 16777217.0]), type=pa.float32())
    c["f16"] = pa.array(cycle([0.5, 3.0, 0.1, 65504.0, 1e-3, None]), type=pa.float32()).cast(pa.float16())
    write(out / "floats.parquet", c)
    # Strings and binary, plain and dictionary.
    c = base()
    strs = ["plain", 'a "quoted"\nline\ttab', "é ü 漢字 🙂", "\x01ctrl\x7f", "", None, "back\\slash /"]
    c["utf8"] = pa.array(cycle(strs))
    c["large"] = pa.array(cycle(strs), type=pa.large_string())
    c["view"] = pa.array(cycle(strs), type=pa.string_view())
    bins = [b"\x00\xffAz", b"", None, "é".encode()]
    c["bin"] = pa.array(cycle(bins))
    c["lbin"] = pa.array(cycle(bins), type=pa.large_binary())
    c["fbin"] = pa.array(cycle([b"\x01\xab\x00", None, b"xyz"]), type=pa.binary(3))
    c["dict"] = pa.array(cycle(strs)).dictionary_encode()
    c["dict_int"] = pa.array(cycle([1, 2, None, 300])).dictionary_encode()
    write(out / "strings.parquet", c)
    write(out / "strings-nodict.parquet", c, use_dictionary=False, compression="zstd")
    # Decimals.
    c = base()
    D = decimal.Decimal
    c["d128"] = pa.array(cycle([D("12.50"), D("-0.05"), None, D("0.00"), D("99999999.99")]),
                         type=pa.decimal128(10, 2))
    c["d128s0"] = pa.array(cycle([D("7"), D("-123456789012345678")]), type=pa.decimal128(18, 0))
    c["d256"] = pa.array(cycle([D("-10000000000000000.00001"), None, D("1.5")]),
                         type=pa.decimal256(45, 5))
    c["d32"] = pa.array(cycle([D("1.23"), None]), type=pa.decimal128(5, 2))
    write(out / "decimals.parquet", c)
    # Dates, times, timestamps, durations.
    c = base()
    days = [dt.date(1970, 1, 1), dt.date(2024, 1, 31), None, dt.date(1, 1, 1), dt.date(9999, 12, 31)]
    c["date32"] = pa.array(cycle(days), type=pa.date32())
    c["date64"] = pa.array(cycle(days), type=pa.date64())
    c["t32s"] = pa.array(cycle([dt.time(1, 1, 1), None, dt.time(23, 59, 59)]), type=pa.time32("s"))
    c["t32ms"] = pa.array(cycle([dt.time(1, 1, 1, 500000), dt.time(0, 0)]), type=pa.time32("ms"))
    c["t64us"] = pa.array(cycle([dt.time(0, 0, 0, 1), dt.time(12, 30)]), type=pa.time64("us"))
    c["t64ns"] = pa.array(cycle([1, 45_000_000_000_123, None]), type=pa.time64("ns"))
    base_ts = 1_706_702_400
    # Time zones in a file of their own: Arrow's JSON writer (built without chrono-tz) refused
    # "UTC", so the old binary does not read that file (a second-unit column is stored in
    # milliseconds, in UTC, whatever its zone).
    utc = base()
    for unit, mul in [("s", 1), ("ms", 1000), ("us", 10**6), ("ns", 10**9)]:
        vals = [base_ts * mul, base_ts * mul + (mul // 4 if mul > 1 else 1), None, -1, 0]
        c[f"ts_{unit}"] = pa.array(cycle(vals), type=pa.timestamp(unit))
        utc[f"ts_{unit}_utc"] = pa.array(cycle(vals), type=pa.timestamp(unit, tz="UTC"))
        (utc if unit == "s" else c)[f"ts_{unit}_plus2"] = pa.array(
            cycle(vals), type=pa.timestamp(unit, tz="+02:00"))
        c[f"dur_{unit}"] = pa.array(cycle([90 * mul, -3, None, 86400 * mul + 1]), type=pa.duration(unit))
    write(out / "temporal.parquet", c)
    write(out / "utc.parquet", utc)
    # A named time zone (Arrow's writer, built without chrono-tz, could not write it).
    c = base()
    c["ts_paris"] = pa.array(cycle([base_ts * 1000, None]), type=pa.timestamp("ms", tz="Europe/Paris"))
    write(out / "named-tz.parquet", c)
    # Nested: lists, structs, maps.
    c = base()
    c["list_int"] = pa.array(cycle([[1, None, 3], None, [], [2**40]]), type=pa.list_(pa.int64()))
    c["large_list"] = pa.array(cycle([["x", None], [], None]), type=pa.large_list(pa.string()))
    c["fixed_list"] = pa.array(cycle([[1.5, 2.0], None, [None, -1.0]]), type=pa.list_(pa.float64(), 2))
    st = pa.struct([("a", pa.int32()), ("b \"q\"", pa.string()), ("inner", pa.struct([("d", pa.date32())]))])
    c["struct"] = pa.array(cycle([{"a": 1, "b \"q\"": "p", "inner": {"d": dt.date(2020, 2, 29)}},
                                  None, {"a": None, "b \"q\"": None, "inner": None}]), type=st)
    c["list_struct"] = pa.array(cycle([[{"k": "v", "n": 1.0}], [None], None]),
                                type=pa.list_(pa.struct([("k", pa.string()), ("n", pa.float64())])))
    c["map"] = pa.array(cycle([[("k", 1), ("n", None)], None, []]), type=pa.map_(pa.string(), pa.int32()))
    c["list_dict"] = pa.array(cycle([["a", "b"], ["a"]])).cast(pa.list_(pa.dictionary(pa.int32(), pa.string())))
    write(out / "nested.parquet", c)
    # A map with integer keys: no JSON object has them.
    c = base()
    c["intmap"] = pa.array(cycle([[(1, "a")], None]), type=pa.map_(pa.int32(), pa.string()))
    write(out / "intmap.parquet", c)
    # Id and text of other layouts: integer ids, large/view/dictionary/binary texts.
    c = base()
    c["id"] = pa.array(list(range(N)), type=pa.int64())
    c["text"] = pa.array([text(i) for i in range(N)], type=pa.large_string())
    c["view_text"] = pa.array([text(i) for i in range(N)], type=pa.string_view())
    write(out / "int-id.parquet", c)
    c = base()
    c["text"] = pa.array([text(i) for i in range(N)]).dictionary_encode()
    c["id"] = pa.array(cycle([1.5, 2.0, None, 1e20]))
    write(out / "dict-text.parquet", c)
    c = base()
    c["text"] = pa.array([None if t is None else t.encode() for t in (text(i) for i in range(N))], type=pa.binary())
    c["id"] = pa.array(cycle([D("1.10"), D("2.00")]), type=pa.decimal128(5, 2))
    write(out / "binary-text.parquet", c)


if __name__ == "__main__":
    main(sys.argv[1])
