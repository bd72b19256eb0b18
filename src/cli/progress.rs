//! A long command's progress and its Ctrl-C, for `idem explore` and `idem traffic` alike:
//! Ctrl-C sets the work's own stop flag (the work then ends early with what it has), and on a
//! terminal a bar appears once the work has taken a while, cleared when it ends.

use std::io::IsTerminal;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// How often the bar is brought up to date.
const TICK: Duration = Duration::from_millis(100);

/// Runs `work` with SIGINT setting `stop`. When standard error is a terminal and the work
/// outlasts `quiet`, `bar` makes the bar and `update` brings it up to date every tick.
pub fn run<T>(
    stop: &Arc<AtomicBool>,
    quiet: Duration,
    bar: impl FnOnce() -> indicatif::ProgressBar + Send,
    update: impl Fn(&indicatif::ProgressBar) + Send + Sync,
    work: impl FnOnce() -> T,
) -> T {
    let registered = signal_hook::flag::register(signal_hook::consts::SIGINT, Arc::clone(stop));
    let finished = AtomicBool::new(false);
    let shown = std::io::stderr().is_terminal();
    let result = std::thread::scope(|scope| {
        if shown {
            scope.spawn(|| {
                let started = Instant::now();
                while started.elapsed() < quiet {
                    if finished.load(Ordering::Relaxed) {
                        return;
                    }
                    std::thread::sleep(TICK);
                }
                let bar = bar();
                while !finished.load(Ordering::Relaxed) {
                    update(&bar);
                    std::thread::sleep(TICK);
                }
                bar.finish_and_clear();
            });
        }
        let result = work();
        finished.store(true, Ordering::Relaxed);
        result
    });
    if let Ok(id) = registered {
        signal_hook::low_level::unregister(id);
    }
    result
}
