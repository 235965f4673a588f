//! Running the binary and building small inputs.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

pub fn lookalike() -> Command {
    Command::new(env!("CARGO_BIN_EXE_lookalike"))
}

/// How long a run of the binary may take before the test fails: generous (debug builds on a
/// loaded machine), but a hang fails the test instead of hanging CI.
pub const RUN_TIMEOUT: Duration = Duration::from_secs(300);

/// Runs with `args`, feeding `stdin`; returns the output. Fails the test when the run takes
/// longer than [`RUN_TIMEOUT`] (the child is killed).
pub fn run(args: &[&str], stdin: Option<&[u8]>, dir: &Path) -> Output {
    run_within(args, stdin, dir, RUN_TIMEOUT)
}

/// [`run`] with its own time limit.
pub fn run_within(args: &[&str], stdin: Option<&[u8]>, dir: &Path, limit: Duration) -> Output {
    let mut cmd = lookalike();
    cmd.args(args).current_dir(dir);
    output_within(cmd, stdin, limit)
}

/// Runs `cmd` (stdin fed from `stdin`, or null; stdout and stderr captured) and returns its
/// output; fails the test when it takes longer than `limit` (the child is killed).
pub fn output_within(mut cmd: Command, stdin: Option<&[u8]>, limit: Duration) -> Output {
    cmd.stdin(if stdin.is_some() { Stdio::piped() } else { Stdio::null() });
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("the binary starts");
    // Every pipe on its own thread, so that none fills up while the child runs.
    let feeder = stdin.map(|input| {
        let mut pipe = child.stdin.take().unwrap();
        let input = input.to_vec();
        std::thread::spawn(move || {
            // The child may exit without reading everything: a broken pipe is not an error here.
            let _ = pipe.write_all(&input);
        })
    });
    let drain = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut out = Vec::new();
            pipe.read_to_end(&mut out).unwrap();
            out
        })
    };
    let stdout = drain(Box::new(child.stdout.take().unwrap()));
    let stderr = drain(Box::new(child.stderr.take().unwrap()));
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > limit {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("{cmd:?} did not finish within {limit:?}: killed");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    if let Some(feeder) = feeder {
        feeder.join().unwrap();
    }
    Output { status, stdout: stdout.join().unwrap(), stderr: stderr.join().unwrap() }
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

pub fn write(dir: &Path, name: &str, content: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(&p, content).unwrap();
    p
}

pub fn gzip(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

/// A paragraph of deterministic pseudo-random words (distinct per `seed`).
pub fn words(seed: u64, n: usize) -> String {
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            format!("w{}", s % 5000)
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// `text` with every `every`-th word replaced.
pub fn edit(text: &str, every: usize) -> String {
    text.split(' ')
        .enumerate()
        .map(|(i, w)| if i % every == every - 1 { "changed".to_owned() } else { w.to_owned() })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The shared folder beside the repository (`../shared`, with `data/` and `seeds/`). The tests
/// that read it are `#[ignore]`d: `cargo test -- --ignored` runs them, and fails here when
/// `sub` is absent.
pub fn shared(sub: &str) -> PathBuf {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared");
    assert!(p.join(sub).is_dir(), "{} is absent", p.join(sub).display());
    p
}

/// Parses a pairs TSV into (id1, id2, similarity).
pub fn pairs(tsv: &str) -> Vec<(String, String, f64)> {
    tsv.lines()
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            assert_eq!(f.len(), 3, "bad TSV line {l:?}");
            (f[0].to_owned(), f[1].to_owned(), f[2].parse().unwrap())
        })
        .collect()
}

/// The names in `dir` that look like temporary output files.
pub fn temporary_files(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".lookalike"))
        .collect()
}

/// xorshift64*: a test's random delays (kill points), the same on every run.
pub struct Rng(pub u64);

impl Rng {
    /// The next value, uniform in [0, 1).
    pub fn next_f64(&mut self) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// A WARC response record whose HTTP payload is `body` with `content_type`.
pub fn warc_record(uri: &str, content_type: &str, body: &str) -> Vec<u8> {
    let block = format!("HTTP/1.1 200 OK\r\nContent-Type: {content_type}\r\n\r\n{body}");
    format!(
        "WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: {uri}\r\nContent-Length: {}\r\n\r\n\
         {block}\r\n\r\n",
        block.len()
    )
    .into_bytes()
}
