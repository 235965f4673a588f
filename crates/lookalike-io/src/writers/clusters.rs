//! `--clusters`: contract: "push me clusters, I write one JSON line per cluster".

use std::io::{self, Write};

use lookalike::{Cluster, Sink};

use super::{SinkError, round6};

#[derive(serde::Serialize)]
struct ClusterLine<'a> {
    cluster: usize,
    size: usize,
    representative: &'a str,
    members: Vec<MemberLine<'a>>,
}

#[derive(serde::Serialize)]
struct MemberLine<'a> {
    id: &'a str,
    similarity: f64,
    #[serde(rename = "match")]
    kind: &'static str,
}

/// One JSON line per cluster, numbered from 0: the representative, then every other member with
/// its similarity to the representative and how it matched (`exact-bytes`, `exact-text`, `near`).
#[derive(Debug)]
pub struct ClustersJsonl<W> {
    out: W,
    next: usize,
}

impl<W: Write> ClustersJsonl<W> {
    /// A sink writing to `out`.
    pub fn new(out: W) -> Self {
        ClustersJsonl { out, next: 0 }
    }

    /// The writer back.
    pub fn into_inner(self) -> W {
        self.out
    }
}

impl<W: Write> Sink for ClustersJsonl<W> {
    type Error = SinkError;

    fn cluster(&mut self, ids: &[String], c: &Cluster) -> Result<bool, SinkError> {
        let line = ClusterLine {
            cluster: self.next,
            size: c.members.len() + 1,
            representative: &ids[c.representative.index()],
            members: c
                .members
                .iter()
                .map(|m| MemberLine {
                    id: &ids[m.doc.index()],
                    similarity: round6(m.similarity),
                    kind: m.kind.as_str(),
                })
                .collect(),
        };
        self.next += 1;
        serde_json::to_writer(&mut self.out, &line).map_err(io::Error::from)?;
        self.out.write_all(b"\n")?;
        Ok(true)
    }

    fn finish(&mut self) -> Result<(), SinkError> {
        Ok(self.out.flush()?)
    }
}
