//! A progress bar on stderr for scans that take more than a second, when
//! stderr is a terminal: never in CI logs (`CI` set), with `-q`, or with a
//! machine-readable format.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::engine::{self, Progress, Scan, ScanOptions};
use crate::error::Error;

/// How long a scan runs before the bar appears.
const DELAY: Duration = Duration::from_secs(1);

pub fn scan(opts: &ScanOptions) -> Result<Scan, Error> {
    let start = Instant::now();
    let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden());
    bar.set_style(
        ProgressStyle::with_template("{spinner} {msg} {pos}/{len} files [{elapsed}]")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar.set_message("reading");
    let shown = Mutex::new(false);
    let result = engine::scan_with_progress(opts, &|p| {
        match p {
            Progress::Files(n) => bar.set_length(n as u64),
            Progress::Read => bar.inc(1),
            Progress::Linking => bar.set_message("linking and checking"),
        }
        if start.elapsed() >= DELAY {
            let mut shown = shown.lock().unwrap_or_else(|e| e.into_inner());
            if !*shown {
                *shown = true;
                bar.set_draw_target(ProgressDrawTarget::stderr());
                bar.enable_steady_tick(Duration::from_millis(120));
            }
        }
    });
    bar.finish_and_clear();
    result
}
