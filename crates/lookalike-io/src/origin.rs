//! Where records come from, and ids that stay unique across inputs: contract: "give me a
//! record, I tell you its input and its place in it; give me every record's id in input order, I
//! give each later copy of an id a suffix naming that place".

use std::collections::HashSet;
use std::fmt;
use std::sync::Arc;

use lookalike::fingerprint::raw_fingerprint;

use crate::{Format, InputError, RawRecord};

/// Where a record is: its input, and its place in it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Origin {
    /// The input's name: its path as given, `-` for stdin.
    pub source: Arc<str>,
    /// The record's place in the input.
    pub position: Position,
}

/// A record's place in its input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Position {
    /// The whole input (a text or HTML file, or an input that could not be read).
    Whole,
    /// A JSONL line, from 1.
    Line(u64),
    /// A Parquet row, from 1.
    Row(u64),
    /// A WARC or docreader record, numbered from 1 in its input.
    Record(u64),
}

impl Position {
    /// The position as the report's three optional fields: `(line, row, record)`.
    pub fn fields(self) -> (Option<u64>, Option<u64>, Option<u64>) {
        match self {
            Position::Whole => (None, None, None),
            Position::Line(n) => (Some(n), None, None),
            Position::Row(n) => (None, Some(n), None),
            Position::Record(n) => (None, None, Some(n)),
        }
    }
}

impl Origin {
    /// The whole input `source`.
    pub fn whole(source: impl Into<Arc<str>>) -> Origin {
        Origin { source: source.into(), position: Position::Whole }
    }
}

/// `source` for a whole input, `source:N` for a JSONL line or a Parquet row (the ids records
/// without one of their own get), `source#record-N` for a WARC record (as the WARC reader names
/// records without a URI).
impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.position {
            Position::Whole => write!(f, "{}", self.source),
            Position::Line(n) | Position::Row(n) => write!(f, "{}:{n}", self.source),
            Position::Record(n) => write!(f, "{}#record-{n}", self.source),
        }
    }
}

impl RawRecord {
    /// Where the record is: a WARC or docreader record by its number, a JSONL line, a Parquet
    /// row, or the whole file.
    pub fn origin(&self) -> Origin {
        let position = match (&self.warc, self.line, self.format) {
            (Some(header), _, _) => Position::Record(header.number),
            (None, Some(row), Format::Parquet) => Position::Row(row),
            (None, Some(number), Format::Docreader) => Position::Record(number),
            (None, Some(line), _) => Position::Line(line),
            (None, None, _) => Position::Whole,
        };
        Origin { source: self.source.clone(), position }
    }
}

impl InputError {
    /// Where the error is: its record, its line, or the whole input.
    pub fn origin(&self) -> Origin {
        let position = match (self.record, self.row, self.line) {
            (Some(number), _, _) => Position::Record(number),
            (None, Some(row), _) => Position::Row(row),
            (None, None, Some(line)) => Position::Line(line),
            (None, None, None) => Position::Whole,
        };
        Origin { source: self.source.as_str().into(), position }
    }
}

/// Makes ids unique over a whole run, in input order: the first record with an id keeps it; a
/// later one gets the suffix `#` and its [`Origin`] (`same#b.jsonl:7`,
/// `http://a.example/#crawl-2.warc.gz#record-5`, `a.txt#a.txt` for a file named twice), and,
/// should that be taken too, `#2`, `#3`, ... Unique ids never change, and a renamed id says
/// where its record is. Only fingerprints of the ids are kept (16 bytes each).
///
/// ```
/// use lookalike_io::{Origin, Position, UniqueIds};
///
/// let mut ids = UniqueIds::default();
/// let at = |source: &str, line| Origin { source: source.into(), position: Position::Line(line) };
/// assert_eq!(ids.make_unique("a", &at("x.jsonl", 1)), None);
/// assert_eq!(ids.make_unique("b", &at("x.jsonl", 2)), None);
/// assert_eq!(ids.make_unique("a", &at("y.jsonl", 9)).as_deref(), Some("a#y.jsonl:9"));
/// assert_eq!(ids.renamed(), 1);
/// ```
#[derive(Debug, Default)]
pub struct UniqueIds {
    seen: HashSet<u128>,
    renamed: u64,
}

impl UniqueIds {
    /// Registers the id of the next record, found at `origin`: `None` when it is unique so far
    /// (it is kept), else the new id, unique, to use instead.
    pub fn make_unique(&mut self, id: &str, origin: &impl fmt::Display) -> Option<String> {
        if self.seen.insert(raw_fingerprint(id.as_bytes())) {
            return None;
        }
        self.renamed += 1;
        let base = format!("{id}#{origin}");
        let mut candidate = base.clone();
        let mut n = 1u64;
        while !self.seen.insert(raw_fingerprint(candidate.as_bytes())) {
            n += 1;
            candidate = format!("{base}#{n}");
        }
        Some(candidate)
    }

    /// How many ids were changed so far.
    pub fn renamed(&self) -> u64 {
        self.renamed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(source: &str, position: Position) -> Origin {
        Origin { source: source.into(), position }
    }

    #[test]
    fn origins_display_as_record_names() {
        assert_eq!(at("a.txt", Position::Whole).to_string(), "a.txt");
        assert_eq!(at("a.jsonl", Position::Line(7)).to_string(), "a.jsonl:7");
        assert_eq!(at("p.parquet", Position::Row(3)).to_string(), "p.parquet:3");
        assert_eq!(at("c.warc.gz", Position::Record(5)).to_string(), "c.warc.gz#record-5");
    }

    #[test]
    fn later_copies_get_the_origin_then_a_counter() {
        let mut ids = UniqueIds::default();
        assert_eq!(ids.make_unique("same", &at("a.jsonl", Position::Line(1))), None);
        assert_eq!(
            ids.make_unique("same", &at("a.jsonl", Position::Line(2))).as_deref(),
            Some("same#a.jsonl:2")
        );
        // The same file read twice: the origin repeats, a counter follows.
        assert_eq!(
            ids.make_unique("same", &at("a.jsonl", Position::Line(2))).as_deref(),
            Some("same#a.jsonl:2#2")
        );
        assert_eq!(
            ids.make_unique("same", &at("a.jsonl", Position::Line(2))).as_deref(),
            Some("same#a.jsonl:2#3")
        );
        // An id that happens to equal a renamed one is renamed in its turn.
        assert_eq!(
            ids.make_unique("same#a.jsonl:2", &at("b.jsonl", Position::Line(4))).as_deref(),
            Some("same#a.jsonl:2#b.jsonl:4")
        );
        assert_eq!(ids.make_unique("other", &at("b.jsonl", Position::Line(5))), None);
        assert_eq!(ids.renamed(), 4);
    }
}
