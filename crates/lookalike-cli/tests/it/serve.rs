//! `lookalike serve` (issue 15) on an ephemeral loopback port: every endpoint, bad inputs, the
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
    let mut child = lookalike()
        .args(["serve", "idx", "--addr", "127.0.0.1:0", "--timeout", "60"])
        .args(extra)
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
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(120))).unwrap();
    let mut head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    if let Some(c) = ctype {
        head.push_str(&format!("Content-Type: {c}\r\n"));
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

/// Stops the server with SIGTERM (graceful) and returns its exit status and log.
fn stop(mut server: Server) -> (std::process::ExitStatus, String) {
    let pid = server.child.id().to_string();
    let sent = std::process::Command::new("kill").args(["-TERM", &pid]).status().unwrap();
    assert!(sent.success());
    let status = server.child.wait().unwrap();
    let log = server.log.take().map(|l| l.join().unwrap()).unwrap_or_default();
    (status, log)
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
        ("/v1/documents/{id}", vec!["delete", "put"]),
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
