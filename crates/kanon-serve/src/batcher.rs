//! Dynamic batching across requests: one thread owns the tagger; requests queue their
//! documents, and the thread takes everything waiting (plus what arrives within
//! `batch_wait_ms`, until `batch_tokens` estimated pieces) into one
//! [`Detector::detect_many`] call, whose windows the tagger batches by padded length. A
//! window's probabilities are the same bits whatever else shares its forward pass
//! (`kanon_tagger::batching`), so a document's spans do not depend on the other requests.

use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use kanon_core::Document;
use kanon_core::spans::SpanRecord;
use kanon_detect::Detector;
use serde::Serialize;
use tokio::sync::oneshot;

use crate::error::{Error, Result};

/// A detector the batcher thread opens for itself (the tagger need not be `Send`).
pub type OpenDetector = Box<dyn FnOnce() -> Result<Box<dyn Detector>> + Send>;

/// The spans of each document of a job, or why the detector failed.
type Reply = std::result::Result<Vec<Vec<SpanRecord>>, String>;

struct Job {
    docs: Vec<Document>,
    tokens: usize,
    reply: oneshot::Sender<Reply>,
}

/// How many batches the thread ran, over how many documents and requests.
#[derive(Debug, Default)]
struct Counters {
    batches: AtomicU64,
    requests: AtomicU64,
    documents: AtomicU64,
    skipped: AtomicU64,
    busy_micros: AtomicU64,
}

/// What the batcher did so far (`GET /v1/stats`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct BatchStats {
    /// `detect_many` calls.
    pub batches: u64,
    /// Requests served by them.
    pub requests: u64,
    /// Documents detected.
    pub documents: u64,
    /// Requests dropped before detection (their client had gone or timed out).
    pub skipped_requests: u64,
    /// Mean requests per batch: above 1, concurrent requests shared forward passes.
    pub requests_per_batch: f64,
    /// Seconds the detector ran.
    pub detector_seconds: f64,
}

/// The handle requests queue work through; cloning it shares the thread.
#[derive(Clone)]
pub struct Batcher {
    queue: mpsc::Sender<Job>,
    counters: Arc<Counters>,
}

impl std::fmt::Debug for Batcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Batcher")
            .field("stats", &self.stats())
            .finish_non_exhaustive()
    }
}

/// A rough count of a text's word pieces, for the batch's budget only (the tagger counts
/// exactly when it cuts forward passes).
pub fn estimated_tokens(text: &str) -> usize {
    text.len() / 4 + 2
}

impl Batcher {
    /// Starts the thread, which opens the detector with `open` and then serves batches: the
    /// first job waiting, all others already queued, and those arriving within `wait`, until
    /// `token_budget` estimated pieces. Returns once the detector is loaded (or failed to).
    pub fn start(open: OpenDetector, wait: Duration, token_budget: usize) -> Result<Batcher> {
        let (queue, jobs) = mpsc::channel::<Job>();
        let (ready_tx, ready) = mpsc::channel::<Result<()>>();
        let counters = Arc::new(Counters::default());
        let thread_counters = Arc::clone(&counters);
        std::thread::Builder::new()
            .name("kanon-batcher".into())
            .spawn(move || {
                let detector = match open() {
                    Ok(detector) => {
                        let _ = ready_tx.send(Ok(()));
                        detector
                    }
                    Err(err) => {
                        let _ = ready_tx.send(Err(err));
                        return;
                    }
                };
                serve(
                    detector.as_ref(),
                    &jobs,
                    wait,
                    token_budget,
                    &thread_counters,
                );
            })
            .map_err(|source| Error::Io {
                what: "starting the detector's thread".into(),
                source,
            })?;
        ready
            .recv()
            .map_err(|_| Error::DetectorGone("it stopped while loading the model".into()))??;
        Ok(Batcher { queue, counters })
    }

    /// The spans of each document, detected in the next batch.
    pub async fn detect(&self, docs: Vec<Document>) -> Result<Vec<Vec<SpanRecord>>> {
        self.enqueue(docs)?
            .await
            .map_err(|_| Error::DetectorGone("it dropped a batch".into()))?
            .map_err(Error::DetectorGone)
    }

    /// [`Batcher::detect`] from a thread outside the runtime.
    pub fn detect_blocking(&self, docs: Vec<Document>) -> Result<Vec<Vec<SpanRecord>>> {
        self.enqueue(docs)?
            .blocking_recv()
            .map_err(|_| Error::DetectorGone("it dropped a batch".into()))?
            .map_err(Error::DetectorGone)
    }

    /// Queues the documents for the tagger's thread; the receiver gets their spans.
    fn enqueue(&self, docs: Vec<Document>) -> Result<oneshot::Receiver<Reply>> {
        let (reply, answer) = oneshot::channel();
        let tokens = docs.iter().map(|d| estimated_tokens(&d.text)).sum();
        self.queue
            .send(Job {
                docs,
                tokens,
                reply,
            })
            .map_err(|_| Error::DetectorGone("it no longer takes work".into()))?;
        Ok(answer)
    }

    /// What the thread did so far.
    pub fn stats(&self) -> BatchStats {
        let c = &self.counters;
        let batches = c.batches.load(Ordering::Relaxed);
        let requests = c.requests.load(Ordering::Relaxed);
        BatchStats {
            batches,
            requests,
            documents: c.documents.load(Ordering::Relaxed),
            skipped_requests: c.skipped.load(Ordering::Relaxed),
            requests_per_batch: if batches == 0 {
                0.0
            } else {
                requests as f64 / batches as f64
            },
            detector_seconds: c.busy_micros.load(Ordering::Relaxed) as f64 / 1e6,
        }
    }
}

/// The thread's loop: until every handle is dropped.
fn serve(
    detector: &dyn Detector,
    jobs: &mpsc::Receiver<Job>,
    wait: Duration,
    token_budget: usize,
    counters: &Counters,
) {
    while let Ok(first) = jobs.recv() {
        let mut tokens = first.tokens;
        let mut batch = vec![first];
        let deadline = Instant::now() + wait;
        while tokens < token_budget {
            let next = match jobs.try_recv() {
                Ok(job) => Some(job),
                Err(mpsc::TryRecvError::Disconnected) => None,
                Err(mpsc::TryRecvError::Empty) => {
                    let left = deadline.saturating_duration_since(Instant::now());
                    if left.is_zero() {
                        None
                    } else {
                        jobs.recv_timeout(left).ok()
                    }
                }
            };
            let Some(job) = next else { break };
            tokens += job.tokens;
            batch.push(job);
        }
        // A client that went away (or timed out) is not detected.
        let (batch, gone): (Vec<Job>, Vec<Job>) =
            batch.into_iter().partition(|job| !job.reply.is_closed());
        counters
            .skipped
            .fetch_add(gone.len() as u64, Ordering::Relaxed);
        if batch.is_empty() {
            continue;
        }
        let docs: Vec<&Document> = batch.iter().flat_map(|job| job.docs.iter()).collect();
        let started = Instant::now();
        let result = std::panic::catch_unwind(AssertUnwindSafe(|| detector.detect_many(&docs)));
        counters.busy_micros.fetch_add(
            u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX),
            Ordering::Relaxed,
        );
        counters.batches.fetch_add(1, Ordering::Relaxed);
        counters
            .requests
            .fetch_add(batch.len() as u64, Ordering::Relaxed);
        counters
            .documents
            .fetch_add(docs.len() as u64, Ordering::Relaxed);
        match result {
            Ok(Ok(spans)) => {
                let mut spans = spans.into_iter();
                for job in batch {
                    let mine: Vec<Vec<SpanRecord>> = spans.by_ref().take(job.docs.len()).collect();
                    let _ = job.reply.send(Ok(mine));
                }
            }
            Ok(Err(err)) => {
                let message = format!("{err}");
                for job in batch {
                    let _ = job.reply.send(Err(message.clone()));
                }
            }
            Err(_) => {
                for job in batch {
                    let _ = job.reply.send(Err("the detector panicked".into()));
                }
            }
        }
    }
}
