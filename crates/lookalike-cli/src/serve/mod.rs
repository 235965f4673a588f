//! `lookalike serve`: an index over HTTP (axum handlers, served by hyper on its own accept loop).
//! Contract: "send me a page, I tell you what you already have that it near-duplicates, and keep
//! it if you ask".
//!
//! - Checks without insert run on the blocking pool against a snapshot: many at once (redb's
//!   MVCC readers never wait for the writer).
//! - Inserts, replacements and deletions go to one writer thread, which groups what arrives
//!   within `--group-commit-ms` (or 4096 documents) into one transaction: one fsync for the group.
//!   A request is answered only once its transaction is committed, so an answered insert is on
//!   disk (`--durability safe`).
//! - Answers can be trusted: a request still running after `--timeout` is answered 408 only if
//!   the writer has taken none of its writes (and then never will: see [`writer::Claim`]); once one is
//!   taken, the request is answered when it is committed. A batch is answered in order: its
//!   documents are checked (and inserted) as if one after the other.
//! - Writes need the bearer token when one is given (`--token-file` or `LOOKALIKE_TOKEN`,
//!   compared in constant time); without one the service listens on loopback addresses only.
//!   Reads stay open. Ids are at most [`MAX_ID_BYTES`].
//! - Documents are decoded as `lookalike index add` decodes a `.txt` or `.html` file (`html`:
//!   main content), and cleaned of the index's site template when it has one (`index create
//!   --boilerplate-from`; a page's site is the host of its URL id, or its path's folders), so
//!   the answers are the CLI's.
//! - Bodies above `--max-body` get 413, malformed JSON 400, a wrong content type 415, bad or
//!   missing fields 422 (a batch over `--max-batch` documents too), a request over `--timeout`
//!   408; every error body is `{"error": "..."}` (the [`errors`] middleware makes it so for the
//!   answers of axum's own rejections and fallbacks). A document the readers would skip (binary
//!   content, no text) is answered `"status": "skipped"` with the reason, as `index add` reports
//!   it, and the rest of its batch is answered as usual.
//! - Connections are bounded: a client has `--header-timeout` to send a request's headers (and a
//!   kept-alive connection may idle that long), and `--write-timeout` to take a byte of its
//!   answer ([`WriteTimeout`]).
//! - SIGINT or SIGTERM: no new connections, requests in flight get `--drain-timeout` to be
//!   answered (their commits done), then the remaining connections are closed, the writer commits
//!   what it was given, the index is flushed and closed. A second signal exits at once.
//! - The writer thread failing (a panic) makes `/readyz` answer 503, writes 503, and the exit
//!   code 1.
//! - `/openapi.json` is generated from the handlers' annotations (utoipa).
//!
//! Its files: `api.rs`, the requests and answers (JSON types, errors, a request's document);
//! `handlers.rs`, each endpoint's handler, the middleware, the shared state and the OpenAPI
//! description; `writer.rs`, the writer thread; this one, the accept loop, the connections'
//! bounds, the signals and `run`.

use std::net::SocketAddr;
use std::pin::Pin;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, Weak, mpsc};
use std::task::{Context as TaskContext, Poll};
use std::time::Duration;

use anyhow::{Context, Result, anyhow};
use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::middleware::from_fn_with_state;
use axum::routing::{get, post};
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use lookalike_index::Durability;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};

use crate::UsageError;
use crate::args::{DurabilityArg, ServeArgs};

/// Longest id, in bytes (a request's `id` or the `{id}` of `/v1/documents/{id}`): 422 beyond.
pub const MAX_ID_BYTES: usize = 4096;

/// Longest request target (path and query), in bytes: 414 beyond. Room for a percent-encoded id
/// of [`MAX_ID_BYTES`].
const MAX_TARGET_BYTES: usize = 16 << 10;

/// The environment variable that may hold the token (instead of `--token-file`).
const TOKEN_ENV: &str = "LOOKALIKE_TOKEN";

/// Shortest token accepted, in bytes.
const MIN_TOKEN_BYTES: usize = 16;

/// Debug builds only: the writer panics when given a document with this id, so that the tests
/// can see what a failed writer does (readiness, answers, exit code). Release builds have no
/// such hook: a hidden flag would be part of the shipped binary's behaviour.
#[cfg(debug_assertions)]
const PANIC_ID_ENV: &str = "LOOKALIKE_TEST_WRITER_PANIC_ID";

/// Most documents the writer puts in one transaction.
const MAX_GROUP: usize = 4096;

mod api;
mod handlers;
mod writer;

use handlers::{
    AppState, Metrics, Shared, Token, check, check_batch, deadline, delete_document, errors,
    get_document, healthz, metrics, not_found, openapi_json, put_document, readyz, stats,
};
use writer::writer_loop;

/// A TCP connection whose writes fail once the client has taken no byte of its answer for
/// `limit`: a client that never reads would otherwise hold its connection, and a graceful stop,
/// forever. (Reads need no such bound: hyper bounds the headers, `--timeout` the rest.)
struct WriteTimeout {
    stream: TcpStream,
    limit: Duration,
    /// Since when a write has been waiting, when one is.
    stalled: Option<Pin<Box<tokio::time::Sleep>>>,
}

impl WriteTimeout {
    fn new(stream: TcpStream, limit: Duration) -> WriteTimeout {
        WriteTimeout { stream, limit, stalled: None }
    }

    /// The outcome of a write attempt: progress resets the clock, waiting past `limit` fails.
    fn bound<T>(
        &mut self,
        attempt: Poll<std::io::Result<T>>,
        cx: &mut TaskContext<'_>,
    ) -> Poll<std::io::Result<T>> {
        if attempt.is_ready() {
            self.stalled = None;
            return attempt;
        }
        let limit = self.limit;
        let stalled = self.stalled.get_or_insert_with(|| Box::pin(tokio::time::sleep(limit)));
        match stalled.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Err(std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                "the client took no byte of its answer within --write-timeout",
            ))),
            Poll::Pending => Poll::Pending,
        }
    }
}

impl AsyncRead for WriteTimeout {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut TaskContext<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_read(cx, buf)
    }
}

impl AsyncWrite for WriteTimeout {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut TaskContext<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        let this = self.get_mut();
        let attempt = Pin::new(&mut this.stream).poll_write(cx, buf);
        this.bound(attempt, cx)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut TaskContext<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        let this = self.get_mut();
        let attempt = Pin::new(&mut this.stream).poll_write_vectored(cx, bufs);
        this.bound(attempt, cx)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<std::io::Result<()>> {
        let this = self.get_mut();
        let attempt = Pin::new(&mut this.stream).poll_flush(cx);
        this.bound(attempt, cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<std::io::Result<()>> {
        let this = self.get_mut();
        let attempt = Pin::new(&mut this.stream).poll_shutdown(cx);
        this.bound(attempt, cx)
    }
}

/// SIGINT and SIGTERM, every delivery seen (a second one exits at once).
struct Signals {
    #[cfg(unix)]
    interrupt: tokio::signal::unix::Signal,
    #[cfg(unix)]
    terminate: tokio::signal::unix::Signal,
}

impl Signals {
    fn new() -> std::io::Result<Signals> {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            Ok(Signals {
                interrupt: signal(SignalKind::interrupt())?,
                terminate: signal(SignalKind::terminate())?,
            })
        }
        #[cfg(not(unix))]
        Ok(Signals {})
    }

    /// The next SIGINT or SIGTERM.
    async fn recv(&mut self) {
        #[cfg(unix)]
        tokio::select! {
            _ = self.interrupt.recv() => {},
            _ = self.terminate.recv() => {},
        }
        #[cfg(not(unix))]
        let _ = tokio::signal::ctrl_c().await;
    }
}

/// How long connections may take.
struct Limits {
    header: Duration,
    write: Duration,
    drain: Duration,
}

/// How serving ended.
enum Stop {
    /// Every connection finished within the drain bound.
    Drained,
    /// Connections still open at the drain bound (closed when the runtime stops).
    Cut,
    /// A second signal.
    Forced,
}

/// Serves `app` until SIGINT or SIGTERM, then lets the requests in flight finish within
/// `limits.drain` (a second signal ends the wait).
async fn serve(
    listener: TcpListener,
    app: Router,
    limits: &Limits,
    signals: &mut Signals,
    state: &AppState,
) -> Stop {
    let graceful = GracefulShutdown::new();
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new()).header_read_timeout(limits.header);
    loop {
        tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => {
                    let io = TokioIo::new(WriteTimeout::new(stream, limits.write));
                    let conn = http.serve_connection(io, TowerToHyperService::new(app.clone()));
                    let conn = graceful.watch(conn);
                    tokio::spawn(async move {
                        let _ = conn.await;
                    });
                }
                // Out of file descriptors and the like: wait rather than spin.
                Err(_) => tokio::time::sleep(Duration::from_millis(100)).await,
            },
            () = signals.recv() => break,
        }
    }
    state.ready.store(false, Ordering::SeqCst);
    drop(listener);
    eprintln!(
        "lookalike: stopping: answering the requests in flight (at most --drain-timeout {} s; \
         a second signal exits at once)",
        limits.drain.as_secs()
    );
    tokio::select! {
        () = graceful.shutdown() => Stop::Drained,
        () = tokio::time::sleep(limits.drain) => Stop::Cut,
        () = signals.recv() => Stop::Forced,
    }
}

/// The router over a state.
fn router(state: Shared, max_body: usize) -> Router {
    Router::new()
        .route("/v1/check", post(check))
        .route("/v1/check:batch", post(check_batch))
        .route("/v1/documents/{id}", get(get_document).put(put_document).delete(delete_document))
        .route("/v1/index/stats", get(stats))
        .route("/healthz", get(healthz))
        .route("/readyz", get(readyz))
        .route("/metrics", get(metrics))
        .route("/openapi.json", get(openapi_json))
        .fallback(not_found)
        .layer(from_fn_with_state(state.clone(), deadline))
        .layer(from_fn_with_state(state.clone(), errors))
        .layer(DefaultBodyLimit::max(max_body))
        .with_state(state)
}

/// The message of a panic's payload.
fn panic_message(payload: &(dyn std::any::Any + Send)) -> &str {
    payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("a panic")
}

/// Runs `lookalike serve`.
pub fn run(args: ServeArgs) -> Result<ExitCode> {
    let token = Token::load(args.token_file.as_deref())?;
    if token.is_none() && !args.addr.ip().is_loopback() {
        return Err(UsageError(format!(
            "--addr {}: not a loopback address, and no token: anyone who can connect could \
             write. Give --token-file FILE (or {TOKEN_ENV}), or listen on 127.0.0.1 behind a \
             reverse proxy",
            args.addr
        ))
        .into());
    }
    crate::setup::set_threads(args.threads)?;
    let mut index = crate::index::open(&args.dir, &args.expect)?;
    index.set_durability(match args.durability {
        DurabilityArg::Safe => Durability::Immediate,
        DurabilityArg::Fast => Durability::Fast,
    });
    let index = Arc::new(index);
    let (tx, rx) = mpsc::channel();
    let writes_need_token = token.is_some();
    let state = Arc::new(AppState {
        index: index.clone(),
        writer: Mutex::new(Some(tx)),
        metrics: Metrics::default(),
        max_batch: args.max_batch,
        timeout: Duration::from_secs(args.timeout),
        token,
        ready: AtomicBool::new(false),
        writer_failed: AtomicBool::new(false),
    });
    let window = Duration::from_millis(args.group_commit_ms);
    let weak = Arc::downgrade(&state);
    let writer_index = index.clone();
    let writer = std::thread::Builder::new()
        .name("index-writer".into())
        .spawn(move || {
            let _guard = WriterGuard(weak.clone());
            writer_loop(&writer_index, &rx, window, |commits, took| {
                if let Some(s) = weak.upgrade() {
                    s.metrics.commits.fetch_add(commits, Ordering::Relaxed);
                    let micros = took.as_micros() as u64;
                    s.metrics.commit_seconds_micros.fetch_add(micros, Ordering::Relaxed);
                }
            });
        })
        .context("cannot start the writer thread")?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let limits = Limits {
        header: Duration::from_secs(args.header_timeout),
        write: Duration::from_secs(args.write_timeout),
        drain: Duration::from_secs(args.drain_timeout),
    };
    let app = router(state.clone(), args.max_body);
    let served: Result<Option<(Stop, std::thread::Result<()>)>> = runtime.block_on(async {
        let mut signals = Signals::new().context("cannot handle SIGINT and SIGTERM")?;
        let listener = TcpListener::bind(args.addr)
            .await
            .with_context(|| format!("cannot listen on {}", args.addr))?;
        let local: SocketAddr = listener.local_addr()?;
        state.ready.store(true, Ordering::SeqCst);
        // The address actually bound (port 0 picks one): tests and scripts read this line.
        eprintln!("lookalike: serving {} on http://{local}", args.dir.display());
        if writes_need_token {
            eprintln!("lookalike: writes need the token; reads are open");
        }
        let stop = serve(listener, app, &limits, &mut signals, &state).await;
        // No new writes; the writer commits what it was given, then stops.
        state.writer.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Stop::Forced = stop {
            return Ok(None);
        }
        let joined = tokio::task::spawn_blocking(move || writer.join());
        tokio::select! {
            joined = joined => Ok(Some((stop, joined?))),
            () = signals.recv() => Ok(None),
        }
    });
    let Some((stop, joined)) = served? else {
        eprintln!(
            "lookalike: second signal: exiting now; every acknowledged write is committed (with \
             --durability fast, those of the last second may be lost); writes not answered yet \
             may or may not be"
        );
        std::process::exit(1);
    };
    // Connections still open after the drain bound are closed here.
    runtime.shutdown_timeout(Duration::from_secs(1));
    let flushed = index.flush().map_err(crate::index::index_error);
    if let Err(panic) = joined {
        return Err(anyhow!(
            "the index writer failed ({}): every acknowledged write is committed; the writes \
             answered 500 or 503 were not applied",
            panic_message(panic.as_ref())
        ));
    }
    flushed?;
    if let Stop::Cut = stop {
        eprintln!(
            "lookalike: warning: connections still open after --drain-timeout {} s were closed \
             (their requests unanswered)",
            args.drain_timeout
        );
    }
    eprintln!("lookalike: stopped; the index is committed");
    Ok(ExitCode::SUCCESS)
}

/// Marks the writer failed when its thread unwinds: readiness and the write endpoints say so.
struct WriterGuard(Weak<AppState>);

impl Drop for WriterGuard {
    fn drop(&mut self) {
        if std::thread::panicking()
            && let Some(s) = self.0.upgrade()
        {
            s.writer_failed.store(true, Ordering::SeqCst);
        }
    }
}
