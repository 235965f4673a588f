//! `lookalike serve` on an ephemeral loopback port: every endpoint, bad inputs, the
//! OpenAPI document against the routes, graceful shutdown that keeps what was acknowledged.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Stdio};
use std::time::Duration;

use crate::common::*;

struct Server {
    child: Child,
    addr: String,
    log: Option<std::thread::JoinHandle<String>>,
}

/// Starts `lookalike serve` on 127.0.0.1:0 and reads the address it bound from its log.
fn serve(dir: &Path, extra: &[&str]) -> Server {
    serve_with(dir, extra, &[])
}

/// [`serve`] with environment variables (`--timeout 60` unless `extra` gives one).
fn serve_with(dir: &Path, extra: &[&str], env: &[(&str, &str)]) -> Server {
    let timeout: &[&str] = if extra.contains(&"--timeout") { &[] } else { &["--timeout", "60"] };
    let mut child = lookalike()
        .args(["serve", "idx", "--addr", "127.0.0.1:0"])
        .args(timeout)
        .args(extra)
        .env_remove("LOOKALIKE_TOKEN")
        .envs(env.iter().copied())
        .current_dir(dir)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let mut addr = String::new();
    for line in lines.by_ref() {
        let line = line.unwrap();
        if let Some(at) = line.find("http://") {
            addr = line[at + 7..].trim().to_owned();
            break;
        }
    }
    assert!(addr.starts_with("127.0.0.1:"), "no address in the log");
    let log =
        std::thread::spawn(move || lines.map_while(Result::ok).collect::<Vec<_>>().join("\n"));
    Server { child, addr, log: Some(log) }
}

/// One HTTP/1.1 request (Connection: close); returns the status and the body.
fn request(
    addr: &str,
    method: &str,
    path: &str,
    ctype: Option<&str>,
    body: &[u8],
) -> (u16, String) {
    let headers: Vec<(&str, &str)> = ctype.map(|c| ("Content-Type", c)).into_iter().collect();
    request_with(addr, method, path, &headers, body)
}

/// [`request`] with any headers.
fn request_with(
    addr: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> (u16, String) {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(120))).unwrap();
    let mut head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    s.write_all(head.as_bytes()).unwrap();
    s.write_all(body).unwrap();
    response(s)
}

fn response(mut s: TcpStream) -> (u16, String) {
    let mut raw = Vec::new();
    let _ = s.read_to_end(&mut raw);
    let text = String::from_utf8_lossy(&raw).into_owned();
    let status: u16 = text.split(' ').nth(1).and_then(|c| c.parse().ok()).unwrap_or(0);
    let body = text.split_once("\r\n\r\n").map(|(_, b)| b.to_owned()).unwrap_or_default();
    // Bodies here are small and sent whole (Content-Length), or chunked by axum for streams.
    let body = if text.to_ascii_lowercase().contains("transfer-encoding: chunked") {
        dechunk(&body)
    } else {
        body
    };
    (status, body)
}

fn dechunk(body: &str) -> String {
    let mut out = String::new();
    let mut rest = body;
    while let Some((size, after)) = rest.split_once("\r\n") {
        let n = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        if n == 0 {
            break;
        }
        out.push_str(&after[..n]);
        rest = &after[n + 2..];
    }
    out
}

fn json(body: &str) -> serde_json::Value {
    serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {body}"))
}

fn post(addr: &str, path: &str, v: &serde_json::Value) -> (u16, serde_json::Value) {
    let (status, body) =
        request(addr, "POST", path, Some("application/json"), v.to_string().as_bytes());
    (status, json(&body))
}

/// How long a stopping server may take before the test fails: a hang guard, generous (debug
/// builds on a loaded machine), far beyond the drain bounds the tests give.
const STOP_GUARD: Duration = Duration::from_secs(60);

/// Sends SIGTERM (or another signal) to the server.
fn signal(server: &Server, sig: &str) {
    let pid = server.child.id().to_string();
    let sent =
        std::process::Command::new("kill").args([&format!("-{sig}"), &pid]).status().unwrap();
    assert!(sent.success());
}

/// Waits for the server to exit (failing the test after [`STOP_GUARD`]); its status and log.
fn wait(mut server: Server) -> (std::process::ExitStatus, String) {
    let started = std::time::Instant::now();
    let status = loop {
        if let Some(status) = server.child.try_wait().unwrap() {
            break status;
        }
        assert!(started.elapsed() < STOP_GUARD, "the server did not exit within {STOP_GUARD:?}");
        std::thread::sleep(Duration::from_millis(20));
    };
    let log = server.log.take().map(|l| l.join().unwrap()).unwrap_or_default();
    (status, log)
}

/// Stops the server with SIGTERM (graceful) and returns its exit status and log.
fn stop(server: Server) -> (std::process::ExitStatus, String) {
    signal(&server, "TERM");
    wait(server)
}

impl Drop for Server {
    /// A test that fails before `stop` leaves no server behind.
    fn drop(&mut self) {
        if self.child.try_wait().ok().flatten().is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

#[test]
fn serve_answers_every_endpoint_and_refuses_bad_requests_clearly() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let o = run(&["index", "create", "idx", "-t", "0.7"], None, d);
    assert!(o.status.success(), "{}", stderr(&o));
    let server = serve(d, &["--max-body", "1M", "--max-batch", "5"]);
    let a = server.addr.clone();
    let text = words(1, 200);
    let near = edit(&text, 50);

    assert_eq!(request(&a, "GET", "/healthz", None, b"").0, 200);
    assert_eq!(request(&a, "GET", "/readyz", None, b"").0, 200);

    // Insert, then a near copy finds it (and is inserted too), then a check alone inserts nothing.
    let (s, v) =
        post(&a, "/v1/check", &serde_json::json!({"id": "a", "text": text, "insert": true}));
    assert_eq!(
        (s, &v["inserted"], &v["duplicate"], &v["status"]),
        (200, &true.into(), &false.into(), &"kept".into()),
        "{v}"
    );
    let (s, v) =
        post(&a, "/v1/check", &serde_json::json!({"id": "b", "text": near, "insert": true}));
    assert_eq!(s, 200);
    assert_eq!(v["duplicate"], true);
    assert_eq!(v["matches"][0]["id"], "a");
    assert_eq!(v["status"], "duplicate");
    assert_eq!(v["of"], "a");
    let sim = v["matches"][0]["similarity"].as_f64().unwrap();
    assert!((0.7..1.0).contains(&sim), "{v}");
    let (s, v) = post(&a, "/v1/check", &serde_json::json!({"text": text}));
    assert_eq!((s, &v["inserted"]), (200, &false.into()));
    assert_eq!(
        v["matches"][0],
        serde_json::json!({"id": "a", "similarity": 1.0, "match": "exact-bytes"}),
        "{v}"
    );
    let html = format!("<html><body><article><p>{text}</p></article></body></html>");
    let (s, v) = post(&a, "/v1/check", &serde_json::json!({"html": html}));
    assert_eq!(s, 200);
    assert_eq!(v["matches"][0]["id"], "a", "{v}");

    // Batches: a JSON array and NDJSON, answered in order.
    let batch = serde_json::json!([{"text": words(9, 50)}, {"text": near}, {"id": "c", "text": words(3, 90), "insert": true}]);
    let (s, v) = post(&a, "/v1/check:batch", &batch);
    assert_eq!(s, 200, "{v}");
    let v = v.as_array().unwrap().clone();
    assert_eq!(v.len(), 3);
    assert_eq!(
        (v[0]["duplicate"].clone(), v[1]["matches"][0]["id"].clone(), v[2]["inserted"].clone()),
        (false.into(), "b".into(), true.into())
    );
    let nd = format!(
        "{}\n{}\n",
        serde_json::json!({"text": text}),
        serde_json::json!({"text": words(3, 90)})
    );
    let (s, body) =
        request(&a, "POST", "/v1/check:batch", Some("application/x-ndjson"), nd.as_bytes());
    assert_eq!(s, 200, "{body}");
    let v = json(&body);
    assert_eq!(
        (v[0]["matches"][0]["id"].clone(), v[1]["matches"][0]["id"].clone()),
        ("a".into(), "c".into())
    );

    // Documents: put (replaces), delete, delete again.
    let (s, body) = request(
        &a,
        "PUT",
        "/v1/documents/c",
        Some("application/json"),
        serde_json::json!({"text": near}).to_string().as_bytes(),
    );
    assert_eq!(s, 200, "{body}");
    let v = json(&body);
    assert_eq!((v["replaced"].clone(), v["inserted"].clone()), (true.into(), true.into()));
    assert_eq!(request(&a, "DELETE", "/v1/documents/c", None, b"").0, 204);
    let (s, body) = request(&a, "DELETE", "/v1/documents/c", None, b"");
    assert_eq!(s, 404);
    assert!(json(&body)["error"].as_str().unwrap().contains("\"c\""));

    let (s, body) = request(&a, "GET", "/v1/index/stats", None, b"");
    assert_eq!(s, 200);
    let v = json(&body);
    assert_eq!(v["documents"], 2);
    assert_eq!(v["settings"]["threshold"], 0.7);

    // Bad requests: each a clear 4xx with a JSON error.
    // (path, content type, body, status, what the error says)
    type Bad<'a> = (&'a str, Option<&'a str>, Vec<u8>, u16, &'a str);
    let bad: Vec<Bad<'_>> = vec![
        ("/v1/check", Some("application/json"), b"{\"text\": ".to_vec(), 400, "EOF"),
        (
            "/v1/check",
            Some("application/json"),
            b"{\"id\": \"x\"}".to_vec(),
            422,
            "\"text\" or \"html\"",
        ),
        ("/v1/check", Some("application/json"), b"{\"txt\": \"x\"}".to_vec(), 422, "unknown field"),
        ("/v1/check", Some("application/json"), b"{\"text\": 5}".to_vec(), 422, "invalid type"),
        (
            "/v1/check",
            Some("application/json"),
            b"{\"text\": null, \"html\": \"<p>x</p>\"}".to_vec(),
            422,
            "invalid type: null",
        ),
        (
            "/v1/check",
            Some("application/json"),
            b"{\"text\": \"x y\", \"insert\": true}".to_vec(),
            422,
            "needs an \"id\"",
        ),
        ("/v1/check", Some("text/plain"), b"{\"text\": \"x\"}".to_vec(), 415, "application/json"),
        ("/v1/check", None, b"{\"text\": \"x\"}".to_vec(), 415, "application/json"),
        ("/v1/check:batch", Some("text/csv"), b"a,b".to_vec(), 415, "x-ndjson"),
        (
            "/v1/check:batch",
            Some("application/json"),
            b"{\"text\": \"x\"}".to_vec(),
            422,
            "sequence",
        ),
        (
            "/v1/check:batch",
            Some("application/x-ndjson"),
            b"{\"text\": \"x\"}\n{oops\n".to_vec(),
            400,
            "line 2",
        ),
    ];
    for (path, ctype, body, want, says) in bad {
        let (s, got) = request(&a, "POST", path, ctype, &body);
        assert_eq!(s, want, "{path} {ctype:?} {:?}: {got}", String::from_utf8_lossy(&body));
        if ctype.is_some_and(|c| c.contains("json")) || want == 415 {
            let msg = json(&got)["error"].as_str().unwrap().to_owned();
            assert!(msg.contains(says), "{path}: {msg:?} does not say {says:?}");
        }
    }
    let six: Vec<serde_json::Value> =
        (0..6).map(|i| serde_json::json!({"text": words(i, 10)})).collect();
    let (s, v) = post(&a, "/v1/check:batch", &serde_json::Value::Array(six));
    assert_eq!(s, 422, "{v}");
    assert!(v["error"].as_str().unwrap().contains("at most 5"));

    // A document the readers skip (NUL bytes: binary) is answered "skipped" with the reason; the
    // rest of its batch is answered as usual.
    // (the text schemathesis found: control characters ending in NUL)
    let binary: serde_json::Value = serde_json::from_str(
        r#""t\u00f8\u00ff\u00af\u00c5\u008b\u00a7\udbd0\uded2c\u00b3\u00a7\uda19\udd5b\u0090\u001e\u00c1\u00ca\u0000""#,
    )
    .unwrap();
    let batch = serde_json::json!([{"text": binary}, {"text": text}]);
    let (s, v) = post(&a, "/v1/check:batch", &batch);
    assert_eq!(s, 200, "{v}");
    assert_eq!(v[0]["status"], "skipped");
    assert!(v[0]["reason"].as_str().unwrap().contains("binary"), "{v}");
    assert_eq!(v[1]["matches"][0]["id"], "a");

    // A 100 MB body: refused (413) without reading it all; the server goes on.
    let mut s = TcpStream::connect(&a).unwrap();
    let head = format!(
        "POST /v1/check HTTP/1.1\r\nHost: {a}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        100 << 20
    );
    s.write_all(head.as_bytes()).unwrap();
    let chunk = vec![b' '; 1 << 20];
    for _ in 0..100 {
        if s.write_all(&chunk).is_err() {
            break;
        }
    }
    assert_eq!(response(s).0, 413);
    assert_eq!(request(&a, "GET", "/healthz", None, b"").0, 200);

    // Metrics count what happened.
    let (s, m) = request(&a, "GET", "/metrics", None, b"");
    assert_eq!(s, 200);
    assert!(m.contains("lookalike_requests_total{endpoint=\"check\"}"), "{m}");
    assert!(m.contains("lookalike_index_documents 2"), "{m}");
    let errors: u64 = m
        .lines()
        .find(|l| l.starts_with("lookalike_responses_errors_total{class=\"4xx\"}"))
        .and_then(|l| l.rsplit(' ').next())
        .unwrap()
        .parse()
        .unwrap();
    assert!(errors >= 12, "{m}");

    // The OpenAPI document lists exactly the routes (but itself), each with its methods.
    let (s, body) = request(&a, "GET", "/openapi.json", None, b"");
    assert_eq!(s, 200);
    let doc = json(&body);
    assert!(doc["openapi"].as_str().unwrap().starts_with("3."));
    let mut paths: Vec<(String, Vec<String>)> = doc["paths"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(p, ops)| {
            let mut methods: Vec<String> = ops.as_object().unwrap().keys().cloned().collect();
            methods.sort();
            (p.clone(), methods)
        })
        .collect();
    paths.sort();
    let want: Vec<(String, Vec<String>)> = [
        ("/healthz", vec!["get"]),
        ("/metrics", vec!["get"]),
        ("/readyz", vec!["get"]),
        ("/v1/check", vec!["post"]),
        ("/v1/check:batch", vec!["post"]),
        ("/v1/documents/{id}", vec!["delete", "get", "put"]),
        ("/v1/index/stats", vec!["get"]),
    ]
    .into_iter()
    .map(|(p, m)| (p.to_owned(), m.into_iter().map(String::from).collect()))
    .collect();
    assert_eq!(paths, want);
    for schema in ["CheckRequest", "CheckResponse", "ErrorBody", "MatchOut"] {
        assert!(doc["components"]["schemas"][schema].is_object(), "{schema} missing");
    }

    let (status, log) = stop(server);
    assert!(status.success(), "{status:?}: {log}");
    assert!(log.contains("stopped; the index is committed"), "{log}");
    let v = run(&["index", "verify", "idx"], None, d);
    assert!(v.status.success(), "{}", stderr(&v));
}

#[test]
fn serve_stopped_by_sigterm_under_writes_keeps_every_acknowledged_insert() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    assert!(run(&["index", "create", "idx"], None, d).status.success());
    let server = serve(d, &[]);
    let a = server.addr.clone();
    // Writers keep inserting until the server goes away; each records what was acknowledged.
    let writers: Vec<_> = (0..4u64)
        .map(|w| {
            let a = a.clone();
            std::thread::spawn(move || {
                let mut acked = Vec::new();
                for i in 0..10_000u64 {
                    let id = format!("w{w}-{i}");
                    let body = serde_json::json!({"id": id, "text": words(w * 100_000 + i, 60), "insert": true}).to_string();
                    let Ok(mut s) = TcpStream::connect(&a) else { break };
                    let head = format!("POST /v1/check HTTP/1.1\r\nHost: {a}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n", body.len());
                    if s.write_all(head.as_bytes()).and_then(|()| s.write_all(body.as_bytes())).is_err() {
                        break;
                    }
                    let (status, _) = response(s);
                    if status != 200 {
                        break;
                    }
                    acked.push(id);
                }
                acked
            })
        })
        .collect();
    std::thread::sleep(Duration::from_millis(1500));
    let (status, log) = stop(server);
    assert!(status.success(), "{status:?}: {log}");
    let acked: Vec<String> = writers.into_iter().flat_map(|w| w.join().unwrap()).collect();
    assert!(acked.len() > 10, "too few inserts before the stop: {}", acked.len());
    let o = run(&["index", "stats", "idx"], None, d);
    let stats: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let held = stats["documents"].as_u64().unwrap();
    assert!(held >= acked.len() as u64, "{held} held, {} acknowledged", acked.len());
    // Every acknowledged id is there: check them through a fresh server.
    let mut s = String::new();
    for id in &acked {
        let w: u64 = id[1..id.find('-').unwrap()].parse().unwrap();
        let i: u64 = id[id.find('-').unwrap() + 1..].parse().unwrap();
        s.push_str(&format!(
            "{}\n",
            serde_json::json!({"id": id, "text": words(w * 100_000 + i, 60)})
        ));
    }
    write(d, "acked.jsonl", s.as_bytes());
    let q = run(&["index", "query", "idx", "acked.jsonl"], None, d);
    assert!(q.status.success(), "{}", stderr(&q));
    for l in stdout(&q).lines() {
        let v: serde_json::Value = serde_json::from_str(l).unwrap();
        assert!(v["matches"].as_array().unwrap().iter().any(|m| m["id"] == v["id"]), "lost: {l}");
    }
    let v = run(&["index", "verify", "idx"], None, d);
    assert!(v.status.success(), "{}", stderr(&v));
}

/// Whether the index behind the server holds `id` (`GET /v1/documents/{id}`).
fn holds(addr: &str, id: &str) -> bool {
    match request(addr, "GET", &format!("/v1/documents/{id}"), None, b"") {
        (200, body) => json(&body)["id"] == id,
        (404, _) => false,
        (s, body) => panic!("GET {id}: {s} {body}"),
    }
}

/// A write answered 408 was not applied, and one that was applied is answered
/// with its commit. A heavy batch occupies the single writer while small inserts with a short
/// deadline (--timeout 1) queue behind it; then each answer is compared with what the index
/// holds. Second, a deterministic case: a commit window longer than the deadline.
#[test]
fn serve_answers_408_only_for_writes_it_did_not_apply() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    assert!(run(&["index", "create", "idx"], None, d).status.success());
    let server = serve(d, &["--timeout", "1", "--max-batch", "2000"]);
    let a = server.addr.clone();
    let heavy: Vec<serde_json::Value> = (0..2000u64)
        .map(|i| serde_json::json!({"id": format!("h{i}"), "text": words(10_000 + i, 300), "insert": true}))
        .collect();
    let heavy = {
        let a = a.clone();
        std::thread::spawn(move || post(&a, "/v1/check:batch", &serde_json::Value::Array(heavy)))
    };
    let smalls: Vec<_> = (0..10u64)
        .map(|i| {
            let a = a.clone();
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(200 + 150 * i));
                let body = serde_json::json!({"id": format!("s{i}"), "text": words(i, 50), "insert": true});
                post(&a, "/v1/check", &body)
            })
        })
        .collect();
    let (hs, hv) = heavy.join().unwrap();
    let smalls: Vec<(u16, serde_json::Value)> =
        smalls.into_iter().map(|t| t.join().unwrap()).collect();
    // Every answer is a commit (200) or "nothing written" (408), and the index agrees with it.
    assert!(hs == 200 || hs == 408, "{hs}: {hv}");
    if hs == 200 {
        assert_eq!(hv.as_array().unwrap().len(), 2000);
    } else {
        assert!(hv["error"].as_str().unwrap().contains("nothing was written"), "{hv}");
    }
    for i in (0..2000).step_by(97) {
        assert_eq!(holds(&a, &format!("h{i}")), hs == 200, "h{i}: the batch was answered {hs}");
    }
    for (i, (s, v)) in smalls.iter().enumerate() {
        assert!(*s == 200 || *s == 408, "s{i}: {s} {v}");
        if *s == 200 {
            assert_eq!(v["inserted"], true, "{v}");
        } else {
            assert!(v["error"].as_str().unwrap().contains("nothing was written"), "{v}");
        }
        assert_eq!(holds(&a, &format!("s{i}")), *s == 200, "s{i} was answered {s}: {v}");
    }
    let (status, log) = stop(server);
    assert!(status.success(), "{status:?}: {log}");

    // The writer waits 3 s to group a commit; the deadline is 1 s: the insert and the removal
    // are answered 408 and not applied.
    let server = serve(d, &["--timeout", "1", "--group-commit-ms", "3000"]);
    let a = server.addr.clone();
    let (s, v) = post(
        &a,
        "/v1/check",
        &serde_json::json!({"id": "late", "text": words(7, 40), "insert": true}),
    );
    assert_eq!(s, 408, "{v}");
    assert!(v["error"].as_str().unwrap().contains("nothing was written"), "{v}");
    let (s, body) = request(&a, "DELETE", "/v1/documents/h0", None, b"");
    if hs == 200 {
        assert_eq!(s, 408, "{body}");
    }
    let (status, log) = stop(server);
    assert!(status.success(), "{status:?}: {log}");
    let o = run(&["index", "get", "idx", "late"], None, d);
    assert_eq!(o.status.code(), Some(1), "late is not held: {}", stderr(&o));
    if hs == 200 {
        let o = run(&["index", "get", "idx", "h0"], None, d);
        assert!(o.status.success(), "h0 was not removed: {}", stderr(&o));
    }
}

/// A client that sends part of a request's headers, then nothing.
fn partial_headers(addr: &str) -> TcpStream {
    let mut s = TcpStream::connect(addr).unwrap();
    s.write_all(format!("GET /healthz HTTP/1.1\r\nHost: {addr}\r\nX-Slow: ").as_bytes()).unwrap();
    accepted(addr);
    s
}

/// Waits until the connections opened before now are accepted: a later connection answered
/// means they were (the accept queue is in order). Without it, a signal sent at once could
/// find a stuck client still in the queue, closed with the listener, on a loaded machine.
fn accepted(addr: &str) {
    assert_eq!(request(addr, "GET", "/healthz", None, b"").0, 200);
}

/// A client that asks for many answers (pipelined, about 40 MB) and never reads them.
fn never_reads(addr: &str) -> TcpStream {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_write_timeout(Some(Duration::from_secs(5))).unwrap();
    let req = format!("GET /openapi.json HTTP/1.1\r\nHost: {addr}\r\n\r\n");
    for _ in 0..3000 {
        // The server stops reading once its answers fill the socket: so do we.
        if s.write_all(req.as_bytes()).is_err() {
            break;
        }
    }
    accepted(addr);
    s
}

/// Inserts `n` documents `k0`... through the server; their ids.
fn insert_some(addr: &str, n: u64) -> Vec<String> {
    (0..n)
        .map(|i| {
            let id = format!("k{i}");
            let body = serde_json::json!({"id": id, "text": words(500 + i, 60), "insert": true});
            let (s, v) = post(addr, "/v1/check", &body);
            assert_eq!(s, 200, "{v}");
            id
        })
        .collect()
}

/// Every id is held by the (stopped) index in `dir`.
fn assert_held(dir: &Path, ids: &[String]) {
    let mut args = vec!["index", "get", "idx"];
    args.extend(ids.iter().map(String::as_str));
    let o = run(&args, None, dir);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o).lines().count(), ids.len());
}

/// SIGTERM stops `serve` within the drain bound while a client holds partial
/// headers and another never reads its answers (both bounds far away: 600 s), and the
/// acknowledged writes are kept.
#[test]
fn serve_stops_within_the_drain_bound_despite_stuck_clients_and_keeps_acknowledged_writes() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    assert!(run(&["index", "create", "idx"], None, d).status.success());
    let server =
        serve(d, &["--header-timeout", "600", "--write-timeout", "600", "--drain-timeout", "2"]);
    let a = server.addr.clone();
    let acked = insert_some(&a, 5);
    let _partial = partial_headers(&a);
    let _reader = never_reads(&a);
    let (status, log) = stop(server);
    assert!(status.success(), "{status:?}: {log}");
    assert!(log.contains("still open after --drain-timeout 2 s were closed"), "{log}");
    assert!(log.contains("stopped; the index is committed"), "{log}");
    assert_held(d, &acked);
}

/// Without any signal, a connection that stalls its headers is closed after
/// --header-timeout and one that leaves its answers unread after --write-timeout; so SIGTERM
/// then stops at once although the drain bound is 600 s.
#[test]
fn serve_closes_connections_that_stall_their_headers_or_their_answers() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    assert!(run(&["index", "create", "idx"], None, d).status.success());
    let server =
        serve(d, &["--header-timeout", "1", "--write-timeout", "1", "--drain-timeout", "600"]);
    let a = server.addr.clone();
    let acked = insert_some(&a, 3);
    let mut partial = partial_headers(&a);
    let reader = never_reads(&a);
    // The server closes the stalled one: end of stream (no answer), well before the guard.
    partial.set_read_timeout(Some(STOP_GUARD)).unwrap();
    let mut got = Vec::new();
    let closed = partial.read_to_end(&mut got);
    assert!(
        closed.is_ok()
            || closed.as_ref().is_err_and(|e| e.kind() == std::io::ErrorKind::ConnectionReset),
        "{closed:?}"
    );
    // The reader's connection is closed too: once it is, the service drains at once.
    std::thread::sleep(Duration::from_secs(3));
    let (status, log) = stop(server);
    drop(reader);
    assert!(status.success(), "{status:?}: {log}");
    assert!(!log.contains("were closed"), "{log}");
    assert_held(d, &acked);
}

/// A second signal exits at once, whatever the drain bound, saying so (exit 1).
#[test]
fn serve_exits_at_once_on_a_second_signal() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    assert!(run(&["index", "create", "idx"], None, d).status.success());
    let server = serve(d, &["--header-timeout", "600", "--drain-timeout", "600"]);
    let a = server.addr.clone();
    let acked = insert_some(&a, 3);
    let _partial = partial_headers(&a);
    signal(&server, "TERM");
    // The first signal is being handled (the listener closes) before the second is sent.
    let started = std::time::Instant::now();
    while TcpStream::connect(&a).is_ok() {
        assert!(started.elapsed() < STOP_GUARD, "the listener stays open after SIGTERM");
        std::thread::sleep(Duration::from_millis(50));
    }
    signal(&server, "INT");
    let (status, log) = wait(server);
    assert_eq!(status.code(), Some(1), "{log}");
    assert!(log.contains("second signal: exiting now"), "{log}");
    assert_held(d, &acked);
}

/// After the writer thread panics (the debug builds' test hook), `/readyz`
/// says not ready, writes are refused, reads go on, and the exit code is 1 with the reason; what
/// was acknowledged before is kept, the write it failed on is not applied.
#[cfg(debug_assertions)]
#[test]
fn serve_reports_a_failed_writer_in_readyz_and_its_exit_code() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    assert!(run(&["index", "create", "idx"], None, d).status.success());
    let server = serve_with(d, &[], &[("LOOKALIKE_TEST_WRITER_PANIC_ID", "boom")]);
    let a = server.addr.clone();
    let acked = insert_some(&a, 2);
    assert_eq!(request(&a, "GET", "/readyz", None, b"").0, 200);
    let (s, v) = post(
        &a,
        "/v1/check",
        &serde_json::json!({"id": "boom", "text": words(9, 40), "insert": true}),
    );
    assert_eq!(s, 500, "{v}");
    assert!(v["error"].as_str().unwrap().contains("writer failed"), "{v}");
    let (s, body) = request(&a, "GET", "/readyz", None, b"");
    assert_eq!(s, 503, "{body}");
    assert!(json(&body)["error"].as_str().unwrap().contains("writer failed"), "{body}");
    let (s, v) = post(
        &a,
        "/v1/check",
        &serde_json::json!({"id": "after", "text": words(10, 40), "insert": true}),
    );
    assert_eq!(s, 503, "{v}");
    let (s, v) = post(&a, "/v1/check", &serde_json::json!({"text": words(500, 60)}));
    assert_eq!((s, &v["matches"][0]["id"]), (200, &"k0".into()), "{v}");
    let (status, log) = stop(server);
    assert_eq!(status.code(), Some(1), "{log}");
    assert!(log.contains("the index writer failed"), "{log}");
    assert!(!log.contains("the index is committed"), "{log}");
    assert_held(d, &acked);
    let o = run(&["index", "get", "idx", "boom"], None, d);
    assert_eq!(o.status.code(), Some(1), "boom is not held: {}", stdout(&o));
}

/// Writes need the token when there is one (reads stay open), a non-loopback
/// address needs one, ids have a limit, and `serve --help` says what is protected.
#[test]
fn serve_refuses_writes_without_the_token_and_a_public_address_without_one() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    assert!(run(&["index", "create", "idx"], None, d).status.success());
    let refused = |args: &[&str], env: Option<&str>| {
        let mut cmd = lookalike();
        cmd.args(["serve", "idx"]).args(args).current_dir(d).env_remove("LOOKALIKE_TOKEN");
        if let Some(t) = env {
            cmd.env("LOOKALIKE_TOKEN", t);
        }
        let o = output_within(cmd, None, STOP_GUARD);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        stderr(&o)
    };
    // Refused before listening: nothing binds a public address here.
    let e = refused(&["--addr", "0.0.0.0:0"], None);
    assert!(e.contains("not a loopback address") && e.contains("--token-file"), "{e}");
    write(d, "short", b"abc\n");
    let e = refused(&["--token-file", "short"], None);
    assert!(e.contains("at least 16"), "{e}");
    let token = "s3cret-t0ken-0123456789";
    write(d, "token", format!("{token}\n").as_bytes());
    let e = refused(&["--token-file", "token"], Some(token));
    assert!(e.contains("given twice"), "{e}");

    let server = serve(d, &["--token-file", "token"]);
    let a = server.addr.clone();
    let good = format!("Bearer {token}");
    let json_ct = ("Content-Type", "application/json");
    let doc = serde_json::json!({"text": words(1, 60)}).to_string();
    for auth in [None, Some("Bearer wrong-token-0123456789"), Some(token), Some("Basic xyz")] {
        let mut h = vec![json_ct];
        h.extend(auth.map(|v| ("Authorization", v)));
        let (s, body) = request_with(&a, "PUT", "/v1/documents/p", &h, doc.as_bytes());
        assert_eq!(s, 401, "{auth:?}: {body}");
        assert!(json(&body)["error"].as_str().unwrap().contains("token"), "{body}");
        assert_eq!(request_with(&a, "DELETE", "/v1/documents/p", &h, b"").0, 401);
        let insert = serde_json::json!({"id": "p", "text": words(1, 60), "insert": true});
        assert_eq!(request_with(&a, "POST", "/v1/check", &h, insert.to_string().as_bytes()).0, 401);
        let batch = serde_json::json!([{"text": words(2, 60)}, insert]);
        assert_eq!(
            request_with(&a, "POST", "/v1/check:batch", &h, batch.to_string().as_bytes()).0,
            401
        );
    }
    assert!(!holds(&a, "p"), "a refused write was applied");
    // Reads are open.
    let (s, v) = post(&a, "/v1/check", &serde_json::json!({"text": words(1, 60)}));
    assert_eq!((s, &v["inserted"]), (200, &false.into()), "{v}");
    assert_eq!(request(&a, "GET", "/v1/index/stats", None, b"").0, 200);
    // With the token (the scheme in any case), writes go through.
    let lower = format!("bearer {token}");
    for auth in [good.as_str(), lower.as_str()] {
        let h = [json_ct, ("Authorization", auth)];
        let (s, body) = request_with(&a, "PUT", "/v1/documents/p", &h, doc.as_bytes());
        assert_eq!(s, 200, "{body}");
        assert!(holds(&a, "p"));
        assert_eq!(request_with(&a, "DELETE", "/v1/documents/p", &h, b"").0, 204);
    }
    // Ids: at most 4096 bytes, in a body or a path; 422 with a JSON error, nothing applied.
    let h = [json_ct, ("Authorization", good.as_str())];
    let long = "x".repeat(4097);
    let (s, body) = request_with(&a, "PUT", &format!("/v1/documents/{long}"), &h, doc.as_bytes());
    assert_eq!(s, 422, "{body}");
    assert!(json(&body)["error"].as_str().unwrap().contains("at most 4096"), "{body}");
    let insert = serde_json::json!({"id": long, "text": words(1, 60), "insert": true});
    let (s, body) = request_with(&a, "POST", "/v1/check", &h, insert.to_string().as_bytes());
    assert_eq!(s, 422, "{body}");
    assert!(json(&body)["error"].as_str().unwrap().contains("document 0: the id is 4097 bytes"));
    assert_eq!(request(&a, "GET", &format!("/v1/documents/{long}"), None, b"").0, 422);
    let longest = "y".repeat(4096);
    let (s, body) =
        request_with(&a, "PUT", &format!("/v1/documents/{longest}"), &h, doc.as_bytes());
    assert_eq!(s, 200, "{body}");
    let (status, log) = stop(server);
    assert!(status.success(), "{status:?}: {log}");

    // The token from the environment.
    let server = serve_with(d, &[], &[("LOOKALIKE_TOKEN", token)]);
    let a = server.addr.clone();
    assert_eq!(request_with(&a, "PUT", "/v1/documents/q", &[json_ct], doc.as_bytes()).0, 401);
    assert_eq!(request_with(&a, "PUT", "/v1/documents/q", &h, doc.as_bytes()).0, 200);
    let (status, log) = stop(server);
    assert!(status.success(), "{status:?}: {log}");

    let help = stdout(&run(&["serve", "--help"], None, d));
    for says in
        ["--token-file", "LOOKALIKE_TOKEN", "What it protects against", "TLS", "reverse proxy"]
    {
        assert!(help.contains(says), "serve --help does not say {says:?}");
    }
}

/// Every error answer is JSON `{"error": ...}`, whoever makes it, and
/// `GET /v1/documents/{id}` (and `index get`) look an id up.
#[test]
fn serve_answers_every_error_in_json_and_looks_ids_up() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    assert!(run(&["index", "create", "idx"], None, d).status.success());
    let server = serve(d, &["--max-body", "1K"]);
    let a = server.addr.clone();
    let big = vec![b' '; 2048];
    let long_path = format!("/v1/documents/{}", "z".repeat(20_000));
    // (method, path, content type, body, status, what the error says)
    type Case<'a> = (&'a str, &'a str, Option<&'a str>, &'a [u8], u16, &'a str);
    let cases: Vec<Case<'_>> = vec![
        ("GET", "/nope", None, b"", 404, "/openapi.json"),
        ("GET", "/v1/check", None, b"", 405, "method GET not allowed for /v1/check"),
        ("PUT", "/v1/index/stats", None, b"", 405, "not allowed"),
        ("GET", &long_path, None, b"", 414, "at most"),
        ("POST", "/v1/check:batch", Some("application/json"), &big, 413, "limit"),
        ("POST", "/v1/check", Some("application/json"), &big, 413, "limit"),
        ("GET", "/v1/documents/missing", None, b"", 404, "\"missing\""),
        ("DELETE", "/v1/documents/missing", None, b"", 404, "\"missing\""),
        ("POST", "/v1/check", Some("application/json"), b"{", 400, "EOF"),
        ("POST", "/v1/check", Some("text/plain"), b"{}", 415, "application/json"),
        ("PUT", "/v1/documents/x", Some("application/json"), b"{\"txt\": 1}", 422, "unknown field"),
        ("GET", "/v1/documents/%FF%FE", None, b"", 400, "UTF-8"),
    ];
    for (method, path, ctype, body, want, says) in cases {
        let (s, got) = request(&a, method, path, ctype, body);
        let shown = &path[..path.len().min(40)];
        assert_eq!(s, want, "{method} {shown}: {got}");
        let v: serde_json::Value = serde_json::from_str(&got)
            .unwrap_or_else(|e| panic!("{method} {shown}: not JSON ({e}): {got:?}"));
        let msg = v["error"].as_str().unwrap_or_else(|| panic!("{method} {shown}: {v}"));
        assert!(msg.contains(says), "{method} {shown}: {msg:?} does not say {says:?}");
    }
    // Look an id up: the text as compared (an HTML page's main content).
    let text = words(3, 80);
    let page = format!("<html><body><nav>menu</nav><article><p>{text}</p></article></body></html>");
    let (s, body) = request(
        &a,
        "PUT",
        "/v1/documents/a%20b",
        Some("application/json"),
        serde_json::json!({"html": page}).to_string().as_bytes(),
    );
    assert_eq!(s, 200, "{body}");
    let (s, body) = request(&a, "GET", "/v1/documents/a%20b", None, b"");
    assert_eq!(s, 200, "{body}");
    let v = json(&body);
    assert_eq!(v["id"], "a b");
    assert!(v["text"].as_str().unwrap().contains(&text[..40]), "{v}");
    let (status, log) = stop(server);
    assert!(status.success(), "{status:?}: {log}");
    // The same from the command line: JSONL in the order given, exit 1 naming what is missing.
    let o = run(&["index", "get", "idx", "a b"], None, d);
    assert!(o.status.success(), "{}", stderr(&o));
    let line: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert_eq!(line, v);
    let o = run(&["index", "get", "idx", "nope", "a b"], None, d);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(stdout(&o).lines().count(), 1);
    assert!(stderr(&o).contains("\"nope\""), "{}", stderr(&o));
}

/// A batch is answered in order: a document is checked against the index as
/// the batch's earlier documents left it, never against a later one it inserts.
#[test]
fn serve_batch_answers_in_order_never_against_a_later_insert() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    assert!(run(&["index", "create", "idx"], None, d).status.success());
    let server = serve(d, &[]);
    let a = server.addr.clone();
    let (t, u) = (words(1, 100), words(2, 100));
    let batch = serde_json::json!([
        {"text": t},
        {"id": "x", "text": t, "insert": true},
        {"text": t},
        {"id": "y", "text": u, "insert": true},
        {"text": edit(&u, 50)},
        {"id": "z", "text": u, "insert": true},
    ]);
    let (s, v) = post(&a, "/v1/check:batch", &batch);
    assert_eq!(s, 200, "{v}");
    let v = v.as_array().unwrap();
    assert_eq!(
        (&v[0]["duplicate"], v[0]["matches"].as_array().unwrap().len()),
        (&false.into(), 0),
        "{v:?}"
    );
    assert_eq!(
        (&v[1]["status"], v[1]["matches"].as_array().unwrap().len()),
        (&"kept".into(), 0),
        "{v:?}"
    );
    assert_eq!(v[2]["matches"][0]["id"], "x", "{v:?}");
    assert_eq!((&v[3]["status"], &v[3]["inserted"]), (&"kept".into(), &true.into()), "{v:?}");
    assert_eq!(
        v[4]["matches"].as_array().unwrap().iter().map(|m| &m["id"]).collect::<Vec<_>>(),
        ["y"],
        "{v:?}"
    );
    assert_eq!((&v[5]["status"], &v[5]["of"]), (&"duplicate".into(), &"y".into()), "{v:?}");
    let (status, log) = stop(server);
    assert!(status.success(), "{status:?}: {log}");
}

/// `serve` on an index with a site template cleans each page it is sent: a page of the site
/// matches its copy, not the other pages that share its menu.
#[test]
fn serve_cleans_pages_of_the_index_template() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    crate::boilerplate::site(d, 12);
    let o = run(&["index", "create", "idx", "-t", "0.5", "--boilerplate-from", "site"], None, d);
    assert!(o.status.success(), "{}", stderr(&o));
    let server = serve(d, &[]);
    let a = server.addr.clone();
    for i in 0..12 {
        let id = format!("site/p{i:02}.html");
        let html = std::fs::read_to_string(d.join(&id)).unwrap();
        let (s, v) =
            post(&a, "/v1/check", &serde_json::json!({"id": id, "html": html, "insert": true}));
        assert_eq!((s, &v["duplicate"]), (200, &false.into()), "{id}: {v}");
    }
    let html = std::fs::read_to_string(d.join("site/p3-print.html")).unwrap();
    let (s, v) =
        post(&a, "/v1/check", &serde_json::json!({"id": "site/p3-print.html", "html": html}));
    assert_eq!((s, &v["of"]), (200, &"site/p03.html".into()), "{v}");
    assert_eq!(v["matches"].as_array().unwrap().len(), 1, "{v}");
    let (status, _) = stop(server);
    assert!(status.success());
}
