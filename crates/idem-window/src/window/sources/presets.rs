//! Stacks configured in code, with their documented schedules (`--preset`);
//! the usual human paths (`--path dead-set` ...); and how long payment
//! providers keep idempotency keys (`--keys-kept stripe`).

use std::time::Duration;

use crate::window::{HumanPath, Jitter, Layer, PathStart, Provenance, Schedule};

const MIN: u64 = 60;
const HOUR: u64 = 3600;
const DAY: u64 = 86_400;

/// The layer presets, as `--preset` lists them.
pub const LAYER_PRESETS: [&str; 4] = ["sidekiq", "celery", "temporal", "lambda-async"];

/// The human-path presets, as `--path` accepts them alone.
pub const PATH_PRESETS: [&str; 3] = ["dead-set", "dlq-redrive", "cronjob-rerun"];

/// The provider presets of `--keys-kept`.
pub const PROVIDERS: [(&str, &str, u64); 2] =
    [("stripe", "Stripe", DAY), ("adyen", "Adyen", 31 * DAY)];

fn source(name: &str, notes: &[&str]) -> Provenance {
    let mut source = Provenance::new(format!("preset {name}"), "");
    for note in notes {
        source.note(*note);
    }
    source
}

/// The layer a preset stands for, or `None` for an unknown name.
pub fn layer(name: &str) -> Option<Layer> {
    let secs = Duration::from_secs;
    let layer = match name {
        "sidekiq" => {
            let mut l = Layer::new("sidekiq", Duration::ZERO, 26);
            l.schedule = Schedule::Polynomial {
                power: 4,
                unit: secs(1),
                per_retry: Duration::ZERO,
                offset: secs(15),
            };
            l.jitter = Jitter::Growing(secs(9));
            l.provenance = Some(source(
                name,
                &[
                    "attempts 26: 25 retries, Sidekiq's default",
                    "waits count⁴ + 15 s before retry count + 1 (count from 0)",
                    "plus up to 9 s × (count + 1) of jitter: counted in full",
                    "then the job goes to the Dead set (add --path dead-set)",
                ],
            ));
            l
        }
        "celery" => {
            let mut l = Layer::new("celery", Duration::ZERO, 4);
            l.schedule = Schedule::Exponential {
                initial: secs(1),
                multiplier: 2.0,
                cap: Some(secs(600)),
            };
            l.jitter = Jitter::Full;
            l.provenance = Some(source(
                name,
                &[
                    "attempts 4: max_retries 3, Celery's default",
                    "retry_backoff: waits up to 1 s × 2^(n−1), at most 600 s (retry_backoff_max), full jitter",
                    "without retry_backoff Celery waits default_retry_delay (3 min) instead",
                    "max_retries=None never stops: write attempts = \"unbounded\" in a --config file",
                ],
            ));
            l
        }
        "temporal" => {
            let mut l = Layer::new("temporal activity", Duration::ZERO, 1);
            l.forever = true;
            l.schedule = Schedule::Exponential {
                initial: secs(1),
                multiplier: 2.0,
                cap: Some(secs(100)),
            };
            l.warnings.push(
                "no bound: an activity's default RetryPolicy has maximumAttempts 0 (unlimited); \
                 only a ScheduleToClose timeout would stop it"
                    .to_owned(),
            );
            l.provenance = Some(source(
                name,
                &[
                    "attempts unlimited: maximumAttempts 0, Temporal's default",
                    "waits 1 s, ×2 (backoffCoefficient), at most 100 s (100 × the initial interval)",
                ],
            ));
            l
        }
        "lambda-async" => {
            let mut l = Layer::new("lambda async", Duration::ZERO, 3);
            l.schedule = Schedule::List(vec![secs(MIN), secs(2 * MIN)]);
            l.deadline = Some(secs(6 * HOUR));
            l.provenance = Some(source(
                name,
                &[
                    "attempts 3: 2 retries, Lambda's default for asynchronous calls",
                    "waits 1 min, then 2 min",
                    "all within 6 h: the default maximum event age",
                ],
            ));
            l
        }
        _ => return None,
    };
    Some(layer)
}

/// The human path a preset stands for, or `None` for an unknown name.
pub fn path(name: &str) -> Option<HumanPath> {
    let (label, delay, start, notes): (&str, u64, PathStart, &[&str]) = match name {
        "dead-set" => (
            "Sidekiq Dead set retry",
            180 * DAY,
            PathStart::AfterGiveUp,
            &["a dead job can be retried by hand for 6 months (dead_timeout_in_seconds)"],
        ),
        "dlq-redrive" => (
            "dead-letter redrive",
            4 * DAY,
            PathStart::FirstAttempt,
            &["SQS keeps a message 4 days by default, counted from its first arrival"],
        ),
        "cronjob-rerun" => (
            "next CronJob run",
            DAY,
            PathStart::FirstAttempt,
            &["a daily CronJob starts the same work again 24 h after the run that failed"],
        ),
        _ => return None,
    };
    let mut path = HumanPath::new(label, Duration::from_secs(delay));
    path.start = start;
    path.provenance = Some(source(name, notes));
    Some(path)
}

/// A provider's name and how long it keeps keys, for a preset name.
pub fn provider(name: &str) -> Option<(&'static str, Duration)> {
    PROVIDERS
        .iter()
        .find(|(id, _, _)| id.eq_ignore_ascii_case(name.trim()))
        .map(|(_, label, secs)| (*label, Duration::from_secs(*secs)))
}
