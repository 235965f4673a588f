//! The progress line `dedup` draws on stderr (a terminal only, not with `--quiet`): while
//! reading, bytes read against the inputs' size; after reading, the phase the run is in, and
//! during verification the candidate pairs verified against those to verify, with the time left
//! at the rate so far. A phase with no count of its own shows its name and the time elapsed, not
//! an estimate.

use std::sync::Mutex;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use lookalike::VerifyProgress;

/// How often the pairs verified are read while verification runs.
const TICK: Duration = Duration::from_millis(200);

/// A bar (or a spinner) on stderr when it is a terminal; nothing otherwise.
pub struct Progress {
    bar: ProgressBar,
    /// While verification runs, what its line is drawn from.
    verifying: Mutex<Option<Verifying>>,
}

/// Verification as the line draws it.
struct Verifying {
    phase: String,
    started: Instant,
    counts: VerifyProgress,
    estimate: Estimate,
}

fn style(template: &str) -> ProgressStyle {
    ProgressStyle::with_template(template).unwrap_or_else(|_| ProgressStyle::default_spinner())
}

impl Progress {
    /// A bar over `total` bytes when the input size is known, a spinner otherwise; drawn only
    /// when stderr is a terminal.
    pub fn new(quiet: bool, total: Option<u64>) -> Self {
        let target =
            if quiet { ProgressDrawTarget::hidden() } else { ProgressDrawTarget::stderr() };
        let bar = ProgressBar::with_draw_target(total, target);
        bar.set_style(style(if total.is_some() {
            "{spinner} [{elapsed}] {wide_bar} {bytes}/{total_bytes} (eta {eta}) {msg}"
        } else {
            "{spinner} [{elapsed}] {msg}"
        }));
        bar.enable_steady_tick(Duration::from_millis(120));
        Progress { bar, verifying: Mutex::new(None) }
    }

    /// Records and bytes read so far, `elapsed` since the start.
    pub fn reading(&self, docs: u64, bytes: u64, elapsed: Duration) {
        let mb = bytes as f64 / 1e6;
        let rate = mb / elapsed.as_secs_f64().max(1e-9);
        if let Some(len) = self.bar.length() {
            self.bar.set_position(bytes.min(len));
        }
        self.bar.set_message(format!("{docs} documents, {mb:.1} MB ({rate:.1} MB/s)"));
    }

    /// The first pass of boilerplate removal: pages read and counted so far.
    pub fn counting(&self, pages: u64, bytes: u64, elapsed: Duration) {
        let mb = bytes as f64 / 1e6;
        let rate = mb / elapsed.as_secs_f64().max(1e-9);
        if let Some(len) = self.bar.length() {
            self.bar.set_position(bytes.min(len));
        }
        self.bar.set_message(format!(
            "site templates: {pages} pages counted, {mb:.1} MB ({rate:.1} MB/s)"
        ));
    }

    /// A phase after reading: its name and the time elapsed (no bar: nothing counts it).
    pub fn phase(&self, phase: &str) {
        let mut verifying = self.verifying.lock().unwrap_or_else(|e| e.into_inner());
        *verifying = None;
        self.bar.set_style(style("{spinner} [{elapsed}] {msg}"));
        self.bar.set_message(phase.to_owned());
    }

    /// A phase of the pipeline (its callback): verification, when `counts` says pairs are left to
    /// verify, is drawn as a bar over the pairs ([`Progress::tick`] moves it); any other phase as
    /// [`Progress::phase`] draws it.
    pub fn pipeline_phase(&self, phase: &str, counts: &VerifyProgress) {
        let (verified, to_verify) = counts.get();
        if verified >= to_verify {
            self.phase(phase);
            return;
        }
        let mut verifying = self.verifying.lock().unwrap_or_else(|e| e.into_inner());
        self.bar.set_style(style("{spinner} [{elapsed}] {wide_bar} {msg}"));
        self.bar.set_length(to_verify);
        self.bar.set_position(verified);
        self.bar.set_message(verify_message(phase, verified, to_verify, None));
        *verifying = Some(Verifying {
            phase: phase.to_owned(),
            started: Instant::now(),
            counts: counts.clone(),
            estimate: Estimate::default(),
        });
    }

    /// Draws the pairs verified so far and the time left, while verification runs.
    pub fn tick(&self) {
        let mut verifying = self.verifying.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(v) = verifying.as_mut() {
            let (verified, to_verify) = v.counts.get();
            let left = v.estimate.left(verified, to_verify, v.started.elapsed());
            self.bar.set_position(verified);
            self.bar.set_message(verify_message(&v.phase, verified, to_verify, left));
        }
    }

    /// Runs `work` with a thread that calls [`Progress::tick`] every 0.2 s (when the line is
    /// drawn at all), stopped as soon as `work` returns.
    pub fn ticking<T>(&self, work: impl FnOnce() -> T) -> T {
        if self.bar.is_hidden() {
            return work();
        }
        std::thread::scope(|s| {
            let (stop, stopped) = mpsc::channel::<()>();
            s.spawn(move || {
                while let Err(RecvTimeoutError::Timeout) = stopped.recv_timeout(TICK) {
                    self.tick();
                }
            });
            let out = work();
            drop(stop);
            out
        })
    }

    /// Prints a line above the spinner; after 20 such lines, stays silent (the summary counts).
    pub fn println(&self, line: &str, already: usize) {
        if already < 20 {
            self.bar.suspend(|| eprintln!("{line}"));
        }
    }

    /// Clears the line.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

/// Time left to verify the pairs not verified yet at the rate of those verified so far
/// (`verified` of `to_verify` in `elapsed`); `None` before the first pair is verified or before
/// any time has passed (no rate yet).
fn time_left(verified: u64, to_verify: u64, elapsed: Duration) -> Option<Duration> {
    if verified == 0 || elapsed.is_zero() {
        return None;
    }
    let rest = to_verify.saturating_sub(verified);
    Some(elapsed.mul_f64(rest as f64 / verified as f64))
}

/// The time left during verification, at the rate measured from the first reading that found
/// pairs verified: the phase first sorts the stored sets, which verifies none, and a rate over
/// the whole phase would count that time as if verifying were that slow.
#[derive(Debug, Default)]
struct Estimate {
    /// Time into the phase and pairs verified at the first reading with pairs verified.
    origin: Option<(Duration, u64)>,
}

impl Estimate {
    /// The time left after a reading of `verified` of `to_verify` pairs at `elapsed` into the
    /// phase; `None` until two readings with pairs verified, or when none were verified between
    /// them (no rate).
    fn left(&mut self, verified: u64, to_verify: u64, elapsed: Duration) -> Option<Duration> {
        let Some((t0, v0)) = self.origin else {
            if verified > 0 {
                self.origin = Some((elapsed, verified));
            }
            return None;
        };
        let done = verified.saturating_sub(v0);
        time_left(done, to_verify.saturating_sub(v0), elapsed.saturating_sub(t0))
    }
}

/// A time left as the line says it: whole seconds rounded up, so that it reads 0 only when
/// nothing is left; minutes and seconds from a minute, hours and minutes from an hour.
fn say(left: Duration) -> String {
    let s = left.as_secs() + u64::from(left.subsec_nanos() > 0);
    match s {
        0..60 => format!("{s} s"),
        60..3600 => format!("{} min {:02} s", s / 60, s % 60),
        _ => {
            let m = s.div_ceil(60);
            format!("{} h {:02} min", m / 60, m % 60)
        }
    }
}

/// The line during verification: pairs verified of pairs to verify, the share, the time left.
fn verify_message(phase: &str, verified: u64, to_verify: u64, left: Option<Duration>) -> String {
    // Rounded down: 100% only when every pair is verified.
    let share = verified.saturating_mul(100) / to_verify.max(1);
    let left = match left {
        Some(left) => format!("about {} left", say(left)),
        None => "time left not known yet".to_owned(),
    };
    format!("{phase}: {verified} of {to_verify} pairs ({share}%), {left}")
}

#[cfg(test)]
mod tests {
    use super::*;

    const PHASE: &str = "verifying candidate pairs";

    #[test]
    fn time_left_is_the_rest_at_the_rate_so_far() {
        let secs = |v, t, e| time_left(v, t, Duration::from_secs(e)).map(|d| d.as_secs_f64());
        // A quarter in 3 s: three quarters left, 9 s.
        assert_eq!(secs(250, 1000, 3), Some(9.0));
        assert_eq!(secs(900, 1000, 9), Some(1.0));
        assert_eq!(secs(1000, 1000, 6), Some(0.0));
        // No pair verified yet, or no time passed: no rate, no estimate (not 0).
        assert_eq!(secs(0, 1000, 6), None);
        assert_eq!(secs(10, 1000, 0), None);
    }

    #[test]
    fn the_estimate_leaves_out_the_time_before_the_first_pairs() {
        let ms = Duration::from_millis;
        let mut e = Estimate::default();
        // Sorting the stored sets: nothing verified, no estimate (not "0 s").
        assert_eq!(e.left(0, 7000, ms(1200)), None);
        // The first pairs verified: the origin of the rate, still no estimate.
        assert_eq!(e.left(2000, 7000, ms(1400)), None);
        // 3000 more in 0.2 s: the 2000 left take 0.133 s (over the whole phase it would say
        // 0.56 s, the sorting counted as verifying).
        let left = e.left(5000, 7000, ms(1600)).unwrap();
        assert!((left.as_secs_f64() - 0.2 * 2000.0 / 3000.0).abs() < 1e-9, "{left:?}");
        assert_eq!(e.left(7000, 7000, ms(1700)), Some(Duration::ZERO));
        // Nothing verified since the origin: no rate, no estimate.
        let mut stalled = Estimate::default();
        stalled.left(10, 100, ms(100));
        assert_eq!(stalled.left(10, 100, ms(900)), None);
    }

    #[test]
    fn the_line_never_says_nothing_is_left_while_pairs_are() {
        let line =
            |v, t, left: Option<u64>| verify_message(PHASE, v, t, left.map(Duration::from_millis));
        assert_eq!(
            line(0, 4000, None),
            "verifying candidate pairs: 0 of 4000 pairs (0%), time left not known yet"
        );
        assert_eq!(
            line(1000, 4000, Some(6000)),
            "verifying candidate pairs: 1000 of 4000 pairs (25%), about 6 s left"
        );
        // 1 ms of work left is "1 s", not "0 s"; 99%, not 100%.
        assert_eq!(
            line(3999, 4000, Some(1)),
            "verifying candidate pairs: 3999 of 4000 pairs (99%), about 1 s left"
        );
        assert_eq!(
            line(4000, 4000, Some(0)),
            "verifying candidate pairs: 4000 of 4000 pairs (100%), about 0 s left"
        );
    }

    #[test]
    fn long_times_left_are_said_in_minutes_and_hours() {
        assert_eq!(say(Duration::from_millis(58_500)), "59 s");
        assert_eq!(say(Duration::from_millis(59_500)), "1 min 00 s");
        assert_eq!(say(Duration::from_secs(61)), "1 min 01 s");
        assert_eq!(say(Duration::from_secs(3600 + 90)), "1 h 02 min");
        assert_eq!(say(Duration::from_secs(2 * 3600 - 1)), "2 h 00 min");
    }
}
