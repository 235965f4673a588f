//! Reading and decoding in parallel: contract: "give me inputs and what to make of each
//! decoded record, I give you the results in batches, in input order, reading on one thread and
//! decoding on all of them".

use std::fmt;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::thread::JoinHandle;

use rayon::prelude::*;

use crate::{Decoded, Input, InputError, RawRecord, ReadOptions, Reader, decode};

/// Batches the reader thread may read ahead of the decoding.
const READ_AHEAD: usize = 2;

/// When a batch is full: whichever limit is reached first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BatchLimits {
    /// Records (and input errors) per batch; at least 1.
    pub records: usize,
    /// Bytes of raw records per batch.
    pub bytes: usize,
}

impl Default for BatchLimits {
    /// 4096 records or 8 MiB: large enough to keep every core busy, small enough to start
    /// decoding at once and to keep little in memory.
    fn default() -> Self {
        BatchLimits { records: 4096, bytes: 8 << 20 }
    }
}

impl BatchLimits {
    /// At most `records` records per batch, whatever their size.
    pub fn records(records: usize) -> Self {
        BatchLimits { records, bytes: usize::MAX }
    }
}

type RawBatch = Vec<Result<RawRecord, InputError>>;

/// An iterator over batches of decoded records: one thread runs a [`Reader`] over the inputs
/// and cuts its records into batches ([`BatchLimits`]); each call to `next` decodes one batch in
/// parallel on the current rayon pool, hands every record with its [`Decoded`] form to the
/// mapper (in the same parallel step, so costly per-record work such as language detection runs
/// on every core too), and returns the results in input order. An input error takes a record's
/// place, in order, and reading goes on.
///
/// The reader thread stops when the iterator is dropped; a panic on it is resumed on the thread
/// that calls `next`.
///
/// # Example
///
/// ```
/// use lookalike_io::{BatchLimits, Decoded, DecodedBatches, ReadOptions, expand_inputs};
///
/// let dir = tempfile::tempdir()?;
/// let lines: String = (0..10).map(|i| format!("{{\"id\":\"d{i}\",\"text\":\"text {i}\"}}\n")).collect();
/// std::fs::write(dir.path().join("a.jsonl"), lines)?;
/// let inputs = expand_inputs(&[dir.path().display().to_string()])?.inputs;
///
/// let lengths = |_: &_, decoded: Decoded| match decoded {
///     Decoded::Doc { doc, .. } => Some((doc.id, doc.text.len())),
///     Decoded::Skip { .. } => None,
/// };
/// let batches =
///     DecodedBatches::spawn(inputs, ReadOptions::default(), BatchLimits::records(4), lengths)?;
/// let sizes: Vec<usize> = batches.map(|b| b.len()).collect::<Vec<_>>();
/// assert_eq!(sizes, [4, 4, 2]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct DecodedBatches<F> {
    rx: Receiver<RawBatch>,
    thread: Option<JoinHandle<()>>,
    opts: ReadOptions,
    map: F,
}

impl<F> fmt::Debug for DecodedBatches<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DecodedBatches")
            .field("reading", &self.thread.is_some())
            .field("opts", &self.opts)
            .finish_non_exhaustive()
    }
}

impl<T, F> DecodedBatches<F>
where
    T: Send,
    F: Fn(&RawRecord, Decoded) -> T + Sync,
{
    /// Starts reading `inputs` on a new thread (named `lookalike-reader`). `map` turns each
    /// record and its decoded form into the item returned; it runs on the rayon pool. Fails
    /// only when the thread cannot be started.
    pub fn spawn(
        inputs: Vec<Input>,
        opts: ReadOptions,
        limits: BatchLimits,
        map: F,
    ) -> std::io::Result<Self> {
        Self::from_reader(Reader::new(inputs, opts), limits, map)
    }

    /// [`DecodedBatches::spawn`] over a [`Reader`] set up by the caller (e.g.
    /// [`Reader::with_all_columns`]); records are decoded with the reader's options.
    pub fn from_reader(reader: Reader, limits: BatchLimits, map: F) -> std::io::Result<Self> {
        let (tx, rx) = sync_channel(READ_AHEAD);
        let opts = reader.options().clone();
        let thread = std::thread::Builder::new()
            .name("lookalike-reader".into())
            .spawn(move || read_batches(reader, limits, &tx))?;
        Ok(DecodedBatches { rx, thread: Some(thread), opts, map })
    }
}

/// The reader thread: cuts the records into batches and sends them until the receiver is gone.
fn read_batches(reader: Reader, limits: BatchLimits, tx: &SyncSender<RawBatch>) {
    let records = limits.records.max(1);
    let mut batch = Vec::with_capacity(records.min(4096));
    let mut bytes = 0;
    for item in reader {
        if let Ok(rec) = &item {
            bytes += rec.bytes.len();
        }
        batch.push(item);
        if batch.len() >= records || bytes >= limits.bytes {
            if tx.send(std::mem::take(&mut batch)).is_err() {
                return;
            }
            bytes = 0;
        }
    }
    if !batch.is_empty() {
        let _ = tx.send(batch);
    }
}

impl<T, F> Iterator for DecodedBatches<F>
where
    T: Send,
    F: Fn(&RawRecord, Decoded) -> T + Sync,
{
    type Item = Vec<Result<T, InputError>>;

    fn next(&mut self) -> Option<Self::Item> {
        let Ok(batch) = self.rx.recv() else {
            // The reader is done (or panicked): surface its panic here.
            if let Some(thread) = self.thread.take()
                && let Err(panic) = thread.join()
            {
                std::panic::resume_unwind(panic);
            }
            return None;
        };
        let (opts, map) = (&self.opts, &self.map);
        Some(
            batch
                .into_par_iter()
                .map(|item| item.map(|rec| map(&rec, decode(&rec, opts))))
                .collect(),
        )
    }
}

impl<F> Drop for DecodedBatches<F> {
    fn drop(&mut self) {
        // Dropping the receiver makes the reader's next send fail, so it stops; then wait for it.
        let (_, idle) = sync_channel(0);
        drop(std::mem::replace(&mut self.rx, idle));
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn corpus(n: usize) -> (tempfile::TempDir, Vec<Input>) {
        let dir = tempfile::tempdir().expect("temp dir");
        let mut text = String::new();
        for i in 0..n {
            if i % 7 == 3 {
                text.push_str("{\"id\":\"no text\"}\n");
            } else {
                text.push_str(&format!("{{\"id\":\"d{i}\",\"text\":\"{}\"}}\n", "w ".repeat(i)));
            }
        }
        std::fs::write(dir.path().join("a.jsonl"), text).expect("write");
        let missing = Input::Path(dir.path().join("missing.jsonl"));
        let inputs = vec![Input::Path(dir.path().join("a.jsonl")), missing];
        (dir, inputs)
    }

    fn ids(rec: &RawRecord, d: Decoded) -> String {
        let line = rec.line.unwrap_or(0);
        match d {
            Decoded::Doc { doc, .. } => format!("{line}:{}", doc.id),
            Decoded::Skip { id, .. } => format!("{line}:skip {id}"),
        }
    }

    #[test]
    fn batches_keep_the_input_order_and_the_errors() {
        let (_dir, inputs) = corpus(100);
        let opts = ReadOptions::default();
        let mut expected = Vec::new();
        for item in Reader::new(inputs.clone(), opts.clone()) {
            expected.push(item.map(|rec| ids(&rec, decode(&rec, &opts))));
        }
        assert_eq!(expected.len(), 101);
        assert!(expected.last().is_some_and(Result::is_err));
        for limits in [
            BatchLimits::default(),
            BatchLimits::records(3),
            BatchLimits { records: 1000, bytes: 64 },
        ] {
            let batches: Vec<_> = DecodedBatches::spawn(inputs.clone(), opts.clone(), limits, ids)
                .expect("spawn")
                .collect();
            assert!(batches.iter().all(|b| !b.is_empty() && b.len() <= limits.records));
            let flat: Vec<_> = batches.into_iter().flatten().collect();
            assert_eq!(flat, expected, "{limits:?}");
        }
    }

    #[test]
    fn dropping_early_stops_the_reader() {
        let (_dir, inputs) = corpus(1000);
        let mut batches =
            DecodedBatches::spawn(inputs, ReadOptions::default(), BatchLimits::records(1), ids)
                .expect("spawn");
        assert_eq!(batches.next().map(|b| b.len()), Some(1));
        drop(batches);
    }
}
