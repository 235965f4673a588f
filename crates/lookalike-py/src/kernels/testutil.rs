//! The Ray job run in process over the kernels (every shuffle a partition of the rows by a hash
//! of the key), and the library's answer to compare it with.

use std::sync::Arc;

use arrow_array::builder::BooleanBuilder;
use arrow_array::cast::AsArray;
use arrow_array::types::{Float64Type, Int64Type, UInt8Type, UInt64Type};
use arrow_array::{Array, ArrayRef, Int64Array, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema};
use arrow_select::concat::concat_batches;
use arrow_select::filter::filter_record_batch;
use lookalike::{Dedup, DedupConfig, Document};

use super::buckets::{bucket_batch, sampled_candidates_of, sampled_split_of};
use super::components::Components;
use super::sketch::sketch_batch;
use super::statistics::{merge_of, partial_of, repeats_of};
use super::verify::{pairs_and_requests, payload_rows, routed, routed_payloads, verified_with};
use crate::tables::{documents_batch, pairs_batch};
use lookalike::method::{PartialStatistics, StatisticsPass};

/// The global input index column of the job.
pub const INDEX: &str = "__lookalike_index";

/// A small xorshift generator (tests only).
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1)
    }

    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A number in `0..n`.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// A corpus of near duplicates: texts of words from a small vocabulary, edited copies (a word
/// changed or dropped, a sentence added), exact copies with other spacing or case, byte copies,
/// and texts with no tokens or none at all.
pub fn corpus(rng: &mut Rng, n: usize) -> Vec<String> {
    const WORDS: &[&str] = &[
        "river", "stone", "light", "paper", "garden", "window", "silver", "market", "winter",
        "engine", "forest", "signal", "harbor", "canvas", "orbit", "meadow", "lantern", "copper",
    ];
    let mut out: Vec<String> = Vec::with_capacity(n);
    while out.len() < n {
        let pick = rng.below(10);
        let text = if out.is_empty() || pick < 3 {
            let len = 20 + rng.below(40);
            let words: Vec<&str> = (0..len).map(|_| WORDS[rng.below(WORDS.len())]).collect();
            let mut t = words.join(" ");
            if rng.below(3) == 0 {
                t.push_str(". Another sentence follows here, much longer than the others were.");
            }
            t
        } else {
            let base = out[rng.below(out.len())].clone();
            match pick {
                3 | 4 => {
                    let mut words: Vec<&str> = base.split(' ').collect();
                    let i = rng.below(words.len());
                    words[i] = WORDS[rng.below(WORDS.len())];
                    words.join(" ")
                }
                5 => {
                    let mut words: Vec<&str> = base.split(' ').collect();
                    words.remove(rng.below(words.len()));
                    words.join(" ")
                }
                6 => base.to_uppercase().replace(' ', "  "),
                7 => base,
                8 => format!("{base} and one more line at the end"),
                _ => ["", "   ", "!!! ... ???", "- * -"][rng.below(4)].to_owned(),
            }
        };
        out.push(text);
    }
    out
}

/// The documents table and the pairs table of `lookalike.dedup` (the library's run).
pub fn library(c: &DedupConfig, texts: &[String]) -> (RecordBatch, RecordBatch) {
    let dedup = Dedup::new(c.clone()).expect("valid settings");
    let mut run = dedup.start().expect("a run");
    let docs = texts.iter().enumerate().map(|(i, t)| Document::from_text(format!("d{i}"), t));
    run.add(docs.collect()).expect("added");
    let out = run.finish().expect("finished");
    let documents = documents_batch(&out.ids, &out.statuses, &out.clusters).expect("documents");
    (documents, pairs_batch(&out.ids, &out.pairs).expect("pairs"))
}

/// Input batches of `chunk` documents: `text`, [`INDEX`] and `id`.
pub fn input(texts: &[String], chunk: usize) -> Vec<RecordBatch> {
    let schema = Arc::new(Schema::new(vec![
        Field::new("text", DataType::Utf8, true),
        Field::new(INDEX, DataType::Int64, false),
        Field::new("id", DataType::Utf8, false),
    ]));
    (0..texts.len())
        .step_by(chunk.max(1))
        .map(|start| {
            let range = start..(start + chunk).min(texts.len());
            let columns: Vec<ArrayRef> = vec![
                Arc::new(StringArray::from_iter_values(&texts[range.clone()])),
                Arc::new(Int64Array::from_iter_values(range.clone().map(|i| i as i64))),
                Arc::new(StringArray::from_iter_values(range.map(|i| format!("d{i}")))),
            ];
            RecordBatch::try_new(schema.clone(), columns).expect("a batch")
        })
        .collect()
}

/// `batches` shuffled into `partitions` blocks by the value of `key` (an int64 or uint64
/// column): every row of one key in one block, as Ray's hash repartition puts them.
pub fn shuffle(batches: &[RecordBatch], key: &str, partitions: usize) -> Vec<RecordBatch> {
    let schema = batches[0].schema();
    let all = concat_batches(&schema, batches).expect("concatenated");
    let column = all.column_by_name(key).expect("the key column");
    let keys: Vec<u64> = match column.data_type() {
        DataType::UInt64 => column.as_primitive::<UInt64Type>().values().to_vec(),
        _ => column.as_primitive::<Int64Type>().values().iter().map(|&v| v as u64).collect(),
    };
    (0..partitions as u64)
        .map(|p| {
            let mut keep = BooleanBuilder::new();
            for &k in &keys {
                keep.append_value(
                    (k.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 40) % partitions as u64 == p,
                );
            }
            filter_record_batch(&all, &keep.finish()).expect("filtered")
        })
        .collect()
}

/// Verification of the pairs of `pairs` (batches with int64 `a`, `b`, maybe `kind`) as
/// `lookalike.ray`'s `_verify` runs it below its bound: the pairs and the requests for their
/// documents, the requests split by input batch, each batch's requested payloads routed to their
/// partitions where the texts are, then each partition's pairs and payloads verified.
pub fn verify_join(
    c: &DedupConfig,
    pairs: &[RecordBatch],
    inputs: &[RecordBatch],
    partitions: usize,
    all: bool,
) -> Vec<RecordBatch> {
    verify_join_with(c, None, pairs, inputs, partitions, all)
}

/// Verification step 1 over each block of `pairs`: the pairs bound for their partitions, and
/// the requests for their documents, a batch of each per block.
fn listed(pairs: &[RecordBatch], partitions: usize) -> (Vec<RecordBatch>, Vec<RecordBatch>) {
    pairs.iter().map(|batch| pairs_and_requests(batch, partitions as u64).expect("pairs")).unzip()
}

/// [`verify_join`] with the statistics stage's counts (estimate verification of a method that
/// has one).
pub fn verify_join_with(
    c: &DedupConfig,
    stats: Option<&PartialStatistics>,
    pairs: &[RecordBatch],
    inputs: &[RecordBatch],
    partitions: usize,
    all: bool,
) -> Vec<RecordBatch> {
    let (wanted, requests) = listed(pairs, partitions);
    let requests = concat_batches(&requests[0].schema(), &requests).expect("requests");
    let asked = requests.column_by_name("doc").expect("doc").as_primitive::<Int64Type>().clone();
    // Each input batch gets the requests for its documents (the driver splits them by block).
    let pieces: Vec<Vec<RecordBatch>> = inputs
        .iter()
        .map(|b| {
            let index = b.column_by_name(INDEX).expect("index").as_primitive::<Int64Type>();
            let mut keep = BooleanBuilder::new();
            for d in asked.values() {
                keep.append_value(index.values().contains(d));
            }
            let mine = filter_record_batch(&requests, &keep.finish()).expect("filtered");
            routed_payloads(c, b, &mine, partitions as u64, "text", INDEX).expect("routed")
        })
        .collect();
    (0..partitions)
        .map(|p| {
            let own: Vec<RecordBatch> = wanted
                .iter()
                .map(|w| {
                    let dest = w.column_by_name("dest").expect("dest").as_primitive::<Int64Type>();
                    let mut keep = BooleanBuilder::new();
                    for &d in dest.values() {
                        keep.append_value(d == p as i64);
                    }
                    filter_record_batch(w, &keep.finish()).expect("filtered")
                })
                .chain(pieces.iter().map(|x| x[p].clone()))
                .collect();
            verified_with(c, stats, &own, all).expect("verified")
        })
        .collect()
}

/// Verification as `lookalike.ray`'s `_verify` runs it above its bound, with Ray Data's
/// shuffles: the pairs and the requests for their documents, the payloads
/// (`payloads_for_requests`) routed after a shuffle by document, then verified after a shuffle
/// by `dest`.
pub fn verify_shuffled_with(
    c: &DedupConfig,
    stats: Option<&PartialStatistics>,
    pairs: &[RecordBatch],
    inputs: &[RecordBatch],
    partitions: usize,
    all: bool,
) -> Vec<RecordBatch> {
    let (wanted, requests) = listed(pairs, partitions);
    let payloads = inputs.iter().map(|b| payload_rows(c, b, "text", INDEX).expect("payloads"));
    let requests: Vec<RecordBatch> = payloads.chain(requests).collect();
    let routed: Vec<RecordBatch> =
        shuffle(&requests, "doc", partitions).iter().map(|b| routed(b).expect("routed")).collect();
    let joined: Vec<RecordBatch> = wanted.into_iter().chain(routed).collect();
    shuffle(&joined, "dest", partitions)
        .iter()
        .map(|b| verified_with(c, stats, std::slice::from_ref(b), all).expect("verified"))
        .collect()
}

/// The edges of `batches` (`a`, `b`, `similarity`, `reason`), sorted: what two verifications
/// are compared by.
pub fn edge_list(batches: &[RecordBatch]) -> Vec<(i64, i64, u64, Option<u8>)> {
    let mut out = Vec::new();
    for b in batches {
        let a = b.column_by_name("a").expect("a").as_primitive::<Int64Type>();
        let x = b.column_by_name("b").expect("b").as_primitive::<Int64Type>();
        let s = b.column_by_name("similarity").expect("similarity").as_primitive::<Float64Type>();
        let r = b.column_by_name("reason").expect("reason").as_primitive::<UInt8Type>();
        out.extend((0..b.num_rows()).map(|i| {
            let reason = (!r.is_null(i)).then(|| r.value(i));
            (a.value(i), x.value(i), s.value(i).to_bits(), reason)
        }));
    }
    out.sort_unstable();
    out
}

/// The statistics stage as `lookalike.ray` runs it (`None` for a method without one): each
/// block counted, the repeated texts found and counted again over their documents alone, the
/// counts merged minus those.
pub fn statistics(c: &DedupConfig, inputs: &[RecordBatch]) -> Option<PartialStatistics> {
    StatisticsPass::new(c)?;
    let (partials, fps): (Vec<_>, Vec<_>) =
        inputs.iter().map(|b| partial_of(c, b, "text", INDEX).expect("counted")).unzip();
    let repeats = repeats_of(&fps).expect("repeats");
    let corrections: Vec<Vec<u8>> = inputs
        .iter()
        .zip(&repeats)
        .map(|(b, r)| {
            let docs = r.column(0).as_primitive::<Int64Type>().values().to_vec();
            let index = b.column_by_name(INDEX).expect("index").as_primitive::<Int64Type>();
            let mut keep = BooleanBuilder::new();
            for d in index.values() {
                keep.append_value(docs.contains(d));
            }
            let only = filter_record_batch(b, &keep.finish()).expect("filtered");
            partial_of(c, &only, "text", INDEX).expect("counted").0.to_bytes()
        })
        .collect();
    let partials: Vec<Vec<u8>> = partials.iter().map(PartialStatistics::to_bytes).collect();
    Some(merge_of(&partials, &corrections).expect("merged"))
}

/// The documents table and the pairs table of the Ray job over `texts`, its input in batches of
/// `chunk` documents and every shuffle into `partitions` blocks.
pub fn ray_job(
    c: &DedupConfig,
    texts: &[String],
    chunk: usize,
    partitions: usize,
) -> (RecordBatch, RecordBatch) {
    let inputs = input(texts, chunk);
    let stats = statistics(c, &inputs);
    let rows: Vec<RecordBatch> = inputs
        .iter()
        .map(|b| sketch_batch(c, texts.len(), stats.as_ref(), b, "text", INDEX).expect("sketched"))
        .collect();
    let mut buckets: Vec<RecordBatch> = shuffle(&rows, "key", partitions)
        .iter()
        .map(|b| bucket_batch(c, b).expect("bucketed"))
        .collect();
    let spots = matches!(c.method, lookalike::MethodConfig::SpotSigs(_));
    if spots || lookalike::method::SampleRule::new(c).expect("valid").is_some() {
        // The counting partitions' tasks, as `ray.py` runs them: each has the head rows of
        // every block and its own rows; together they give the one task's candidates.
        let pieces: Vec<Vec<RecordBatch>> =
            buckets.iter().map(|b| sampled_split_of(b, partitions).expect("split")).collect();
        let counted: Vec<RecordBatch> = (0..partitions)
            .map(|p| {
                let mine: Vec<RecordBatch> = pieces
                    .iter()
                    .map(|parts| parts[0].clone())
                    .chain(pieces.iter().map(|parts| parts[1 + p].clone()))
                    .collect();
                sampled_candidates_of(c, &mine).expect("a partition's candidates")
            })
            .collect();
        let whole = sampled_candidates_of(c, &buckets).expect("sampled candidates");
        // A pair may come from a shared sample in one partition and a group in another.
        let mut split = edge_list(&counted);
        split.dedup();
        assert_eq!(split, edge_list(&[whole]), "the counting partitions and one task");
        buckets.extend(counted);
    }
    let near = verify_join_with(c, stats.as_ref(), &buckets, &inputs, partitions, false);
    // The large inputs' path (Ray Data's two shuffles) verifies the same edges.
    let shuffled = verify_shuffled_with(c, stats.as_ref(), &buckets, &inputs, partitions, false);
    assert_eq!(
        edge_list(&near),
        edge_list(&shuffled),
        "near edges: the task join and the shuffles"
    );
    let mut components = Components::with_config(texts.len(), c.clone()).expect("components");
    for batch in buckets.iter().chain(&near) {
        components.add_edge_batch(batch).expect("edges");
    }
    for batch in &inputs {
        components.add_id_batch(batch, "id", INDEX).expect("ids");
    }
    let asked = components.wanted_batch().expect("clustered");
    if asked.num_rows() > 0 {
        for batch in verify_join_with(c, stats.as_ref(), &[asked], &inputs, partitions, true) {
            components.add_similarity_batch(&batch).expect("similarities");
        }
    }
    let (documents, pairs, _) = components.finished().expect("finished");
    (documents, pairs)
}

/// Asserts that the Ray job over `texts` (input in batches of `chunk`, shuffles into
/// `partitions` blocks) gives the library's documents and pairs, `what` naming the case; gives
/// the library's answer.
pub fn assert_ray_job_is_library(
    c: &DedupConfig,
    texts: &[String],
    chunk: usize,
    partitions: usize,
    what: &str,
) -> (RecordBatch, RecordBatch) {
    let expected = library(c, texts);
    assert!(expected.1.num_rows() > 0, "{what}: the corpus has duplicates");
    let got = ray_job(c, texts, chunk, partitions);
    assert_eq!(got.0, expected.0, "{what} at {chunk}/{partitions}: documents");
    assert_eq!(got.1, expected.1, "{what} at {chunk}/{partitions}: pairs");
    expected
}
