//! The one writer thread: groups the inserts and removals that arrive within the window into one transaction.

use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, mpsc};
use std::time::{Duration, Instant};

use anyhow::Result;
use lookalike::Document;
use lookalike_index::{Checked, Index};
use tokio::sync::oneshot;

use super::MAX_GROUP;
#[cfg(debug_assertions)]
use super::PANIC_ID_ENV;

pub(super) type Reply<T> = oneshot::Sender<Result<T, String>>;

pub(super) enum Job {
    Add { docs: Vec<Document>, claim: Claim, reply: Reply<Vec<Checked>> },
    Remove { id: String, claim: Claim, reply: Reply<bool> },
}

/// The writer thread: groups jobs arriving within `window` into one transaction each; a job
/// whose request's deadline has passed ([`Claim`]) is dropped, not applied. `committed` is told
/// each group's commits and time.
pub(super) fn writer_loop(
    index: &Index,
    rx: &mpsc::Receiver<Job>,
    window: Duration,
    committed: impl Fn(u64, Duration),
) {
    while let Ok(first) = rx.recv() {
        let mut jobs = vec![first];
        let deadline = Instant::now() + window;
        let mut docs = jobs_docs(&jobs);
        while docs < MAX_GROUP {
            let left = deadline.saturating_duration_since(Instant::now());
            match rx.recv_timeout(left) {
                Ok(j) => {
                    jobs.push(j);
                    docs = jobs_docs(&jobs);
                }
                Err(_) => break,
            }
        }
        let started = Instant::now();
        let mut commits = 0;
        let mut jobs = jobs.into_iter().peekable();
        while let Some(job) = jobs.next() {
            match job {
                Job::Add { docs, claim, reply } => {
                    // Every consecutive Add still wanted: one transaction.
                    let mut group = Vec::new();
                    let mut all = Vec::new();
                    let mut take = |docs: Vec<Document>, claim: Claim, reply| {
                        if claim.take() {
                            group.push((docs.len(), reply));
                            all.extend(docs);
                        }
                    };
                    take(docs, claim, reply);
                    while let Some(Job::Add { .. }) = jobs.peek() {
                        if let Some(Job::Add { docs, claim, reply }) = jobs.next() {
                            take(docs, claim, reply);
                        }
                    }
                    if group.is_empty() {
                        continue;
                    }
                    #[cfg(debug_assertions)]
                    panic_on_test_id(&all);
                    commits += 1;
                    match index.add(&all) {
                        Ok(answers) => {
                            let mut answers = answers.into_iter();
                            for (n, reply) in group {
                                let _ = reply.send(Ok(answers.by_ref().take(n).collect()));
                            }
                        }
                        Err(e) => {
                            for (_, reply) in group {
                                let _ = reply.send(Err(e.to_string()));
                            }
                        }
                    }
                }
                Job::Remove { id, claim, reply } => {
                    if claim.take() {
                        commits += 1;
                        let _ = reply
                            .send(index.remove(&[id]).map(|f| f[0]).map_err(|e| e.to_string()));
                    }
                }
            }
        }
        committed(commits, started.elapsed());
    }
}

/// The test hook of [`PANIC_ID_ENV`] (debug builds only).
#[cfg(debug_assertions)]
pub(super) fn panic_on_test_id(docs: &[Document]) {
    if let Some(id) = std::env::var_os(PANIC_ID_ENV)
        && docs.iter().any(|d| id.to_str() == Some(d.id.as_str()))
    {
        panic!("{PANIC_ID_ENV}: the writer panics on document {id:?} (a test hook)");
    }
}

pub(super) fn jobs_docs(jobs: &[Job]) -> usize {
    jobs.iter()
        .map(|j| match j {
            Job::Add { docs, .. } => docs.len(),
            Job::Remove { .. } => 1,
        })
        .sum()
}

/// Where a request's writes stand, shared by the jobs its handler gives the writer, the writer
/// and the request's deadline ([`deadline`](super::handlers::deadline)): the writer applies a job only if the deadline has
/// not cancelled the request, and the deadline answers 408 only if the writer has taken none of
/// its jobs. So a 408 means "nothing applied", and a request whose write the writer took is
/// answered with its commit, however long that takes.
#[derive(Debug, Clone, Default)]
pub(super) struct Claim(Arc<AtomicU8>);

pub(super) const OPEN: u8 = 0;
pub(super) const TAKEN: u8 = 1;
pub(super) const CANCELLED: u8 = 2;

impl Claim {
    /// The writer, before applying one of the request's jobs: false when the deadline has
    /// cancelled the request.
    pub(super) fn take(&self) -> bool {
        match self.0.compare_exchange(OPEN, TAKEN, Ordering::AcqRel, Ordering::Acquire) {
            Ok(_) => true,
            Err(now) => now == TAKEN,
        }
    }

    /// The deadline: true when the writer has taken none of the request's jobs (and now never
    /// will).
    pub(super) fn cancel(&self) -> bool {
        match self.0.compare_exchange(OPEN, CANCELLED, Ordering::AcqRel, Ordering::Acquire) {
            Ok(_) => true,
            Err(now) => now == CANCELLED,
        }
    }
}
