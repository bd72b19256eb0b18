//! Checks a parsed scenario file for problems beyond its syntax, collecting every one of them,
//! and turns it into the engine's configuration.

use super::diagnostic::{Diagnostic, Severity};
use super::schema;
use super::values::did_you_mean;
use super::{
    Expectation, Explanation, NarrationMode, NarrationRule, NarrationTarget, Note, Quiz,
    QuizAnswer, Scenario, Scope,
};
use crate::sim::config::{
    Backoff, Fault, FaultAction, IntentConfig, IntentDigests, Jitter, KeyMode, KeyStrategy,
    LayerConfig, Reconcile, Rerun, SimConfig, StepConfig, StepFault, StepFaultAction, Unconfirmed,
};
use crate::sim::time::{ClockStyle, DAY_MS, Instant};
use crate::sim::{Belief, Design, Verdict};
use crate::text::sanitize_line;
use crate::units::duration_ms;
use std::ops::Range;
use toml::Spanned;

/// The most ticks a scenario may produce under any design.
pub const MAX_TICKS: usize = 100_000;
/// The most purchases one scenario may hold.
pub const MAX_INTENTS: usize = 64;
/// A generous estimate of ticks per attempt (send, receive, write, answer, timeout, …).
pub const TICKS_PER_ATTEMPT: u64 = 8;

// What a scenario gets where its file says nothing. They are applied here and nowhere else:
// the engine's `SimConfig` holds every value resolved.
/// How long the innermost layer waits for an answer.
pub const DEFAULT_TIMEOUT_MS: u64 = 30_000;
/// The checkout when the file has no `[[checkout.layer]]`: three attempts, a second apart.
const DEFAULT_ATTEMPTS: u32 = 3;
const DEFAULT_BACKOFF_MS: u64 = 1_000;
const DEFAULT_LATENCY_MS: u64 = 50;
const DEFAULT_PROCESSING_MS: u64 = 200;
const DEFAULT_RETENTION_MS: u64 = DAY_MS;
const DEFAULT_IN_PROGRESS_EXPIRY_MS: u64 = 60_000;
const DEFAULT_MERCHANT: &str = "INKWELL STATIONERY";
const DEFAULT_HUMAN_PATH: &str = "operator rerun";
/// A downstream step: three tries, ten seconds each, a second apart, 100 ms of work.
const DEFAULT_STEP_ATTEMPTS: u32 = 3;
const DEFAULT_STEP_TIMEOUT_MS: u64 = 10_000;
const DEFAULT_STEP_PROCESSING_MS: u64 = 100;
/// The most tries one downstream step may make.
const MAX_STEP_ATTEMPTS: i64 = 100;

struct Checker<'a> {
    source: &'a str,
    /// Every problem found, in the order found; sorted by position when reported.
    found: Vec<Problem>,
    /// When the first purchase is made: times with a weekday count from its week.
    start: Instant,
}

/// A problem before it is placed: a whole-file problem has an empty span at 0.
struct Problem {
    severity: Severity,
    span: Range<usize>,
    message: String,
}

/// The most problems reported for one file.
const MAX_DIAGNOSTICS: usize = 50;

impl Checker<'_> {
    fn error(&mut self, span: Range<usize>, message: String) {
        self.push(Severity::Error, span, message);
    }
    fn warn(&mut self, span: Range<usize>, message: String) {
        self.push(Severity::Warning, span, message);
    }
    fn push(&mut self, severity: Severity, span: Range<usize>, message: String) {
        self.found.push(Problem {
            severity,
            span,
            message,
        });
    }
    fn has_errors(&self) -> bool {
        self.found.iter().any(|p| p.severity == Severity::Error)
    }

    /// The problems in the order of the file (whole-file ones first), at most
    /// `MAX_DIAGNOSTICS` of them: past a point more of the same helps nobody, and placing
    /// each one costs a scan of the file.
    fn into_diagnostics(mut self) -> Vec<Diagnostic> {
        let any_error = self.has_errors();
        self.found.sort_by_key(|p| p.span.start);
        let dropped = self.found.len().saturating_sub(MAX_DIAGNOSTICS);
        let mut out: Vec<Diagnostic> = self
            .found
            .into_iter()
            .take(MAX_DIAGNOSTICS)
            .map(|p| {
                if p.span.is_empty() && p.span.start == 0 {
                    Diagnostic::whole(p.severity, p.message)
                } else {
                    Diagnostic::at(p.severity, self.source, p.span, p.message)
                }
            })
            .collect();
        if dropped > 0 {
            let severity = if any_error {
                Severity::Error
            } else {
                Severity::Warning
            };
            out.push(Diagnostic::whole(
                severity,
                format!("and {dropped} more problems like those above"),
            ));
        }
        out
    }
}

/// Converts a parsed file; `Err` holds every error (and warning) found. `survey` says whether
/// its ticks are looked for under every design (see [`super::Survey`]).
pub fn convert(
    name: &str,
    source: &str,
    file: schema::File,
    survey: super::Survey,
) -> Result<Scenario, Vec<Diagnostic>> {
    let mut c = Checker {
        source,
        found: Vec::new(),
        start: Instant(0),
    };
    let title = sanitize_line(&file.title);
    if title.trim().is_empty() {
        c.error(
            title_span(source),
            "the title is empty; give the scenario a name a room can read".into(),
        );
    }

    let key_strategy = file
        .checkout
        .key_strategy
        .map_or(KeyStrategy::PerIntent, |k| k.0);
    let layers = layers(&mut c, &file.checkout.layer, key_strategy);
    let intents = intents(&mut c, &file.intent);
    c.start = intents.first().map_or(Instant(0), |i| i.at);
    let orders: Vec<String> = intents.iter().map(|i| i.order.to_string()).collect();
    let faults = faults(&mut c, &file.fault, &orders);
    let reruns = reruns(&mut c, &file.human, &orders);
    let steps = steps(&mut c, &file.step, &orders);

    let processing_ms = file
        .processor
        .processing
        .as_ref()
        .map_or(DEFAULT_PROCESSING_MS, |d| d.get_ref().0);
    let retention_ms = match &file.processor.retention {
        Some(r) if r.get_ref().0 == 0 => {
            c.error(
                r.span(),
                "the retention window must be longer than zero".into(),
            );
            0
        }
        Some(r) => r.get_ref().0,
        None => DEFAULT_RETENTION_MS,
    };
    let in_progress_expiry_ms = match &file.processor.in_progress_expiry {
        Some(r) if r.get_ref().0 == 0 => {
            c.error(
                r.span(),
                "the in-progress expiry must be longer than zero".into(),
            );
            0
        }
        Some(r) => r.get_ref().0,
        None => DEFAULT_IN_PROGRESS_EXPIRY_MS,
    };
    let weekdays = file
        .intent
        .iter()
        .any(|i| i.get_ref().at.get_ref().weekday.is_some());
    let mut config = SimConfig {
        title: title.clone(),
        seed: file.seed.map_or(0, |s| s.0),
        merchant: file
            .merchant
            .as_deref()
            .map(sanitize_line)
            .unwrap_or_else(|| DEFAULT_MERCHANT.to_string()),
        intents,
        layers,
        key_strategy,
        timeout_ms: file
            .checkout
            .layer
            .get_ref()
            .first()
            .and_then(|l| l.get_ref().timeout.as_ref())
            .map_or(DEFAULT_TIMEOUT_MS, |t| t.get_ref().0.max(1)),
        stamp_body: file.checkout.stamp_body,
        lookup: file.checkout.lookup,
        latency_ms: file.network.latency.map_or(DEFAULT_LATENCY_MS, |d| d.0),
        processing_ms,
        retention_ms,
        in_progress_expiry_ms,
        faults,
        reruns,
        clock: if weekdays {
            ClockStyle::Weekday
        } else {
            ClockStyle::TimeOfDay
        },
        reconcile: reconcile(&c, file.reconcile.as_ref()),
        steps,
        max_ticks: MAX_TICKS,
    };
    config.digest_intents();
    check_size(&mut c, &file.checkout.layer, &file.human, &config);
    check_deadlines(&mut c, &file.checkout.layer, &config);
    check_fault_attempts(&mut c, &file.fault, &config);

    let narration = narration(&mut c, &file.narration);
    let expectations = expectations(
        &mut c,
        &file.expect,
        config.reconcile.is_some(),
        config.steps.len(),
    );
    let quizzes = quizzes(&mut c, &file.quiz);
    let notes = notes(&mut c, &file.note);
    let traffic = match &file.traffic {
        Some(table) => {
            let (plan, problems) = super::traffic::read_table(table, source);
            for (span, message) in problems {
                c.error(span, message);
            }
            plan
        }
        None => super::traffic::TrafficPlan::default(),
    };
    let mut lanes = lanes(&mut c, &file.lanes);
    if file.lanes.layers && config.layers.len() > 1 {
        lanes.layers = config.layers.iter().map(|l| l.name.clone()).collect();
    }
    if c.has_errors() {
        return Err(c.into_diagnostics());
    }
    let keying_as_written = config.keying();
    let mut scenario = Scenario {
        name: name.to_string(),
        title,
        description: crate::text::reflow(&file.description),
        design: file.design.map_or(Design::WithCharge, |d| d.0),
        config,
        narration,
        expectations,
        quizzes,
        notes,
        lanes,
        warnings: Vec::new(),
        text: source.to_string(),
        keying_as_written,
        origin: super::Origin::Made,
        traffic,
    };
    // Only a scenario that is otherwise sound can be simulated to find its ticks.
    if survey == super::Survey::Every {
        for (severity, span, message) in super::targets::check(&scenario) {
            c.push(severity, span, message);
        }
    }
    let errors = c.has_errors();
    let found = c.into_diagnostics();
    if errors {
        return Err(found);
    }
    scenario.warnings = found;
    Ok(scenario)
}

/// The lane names the file gives, each on one line and short enough to sit over its lane.
fn lanes(c: &mut Checker<'_>, file: &schema::Lanes) -> super::LaneNames {
    let mut names = super::LaneNames::default();
    for (given, slot) in [
        (&file.customer, &mut names.customer),
        (&file.checkout, &mut names.checkout),
        (&file.network, &mut names.network),
        (&file.processor, &mut names.processor),
    ] {
        let Some(given) = given else { continue };
        let name = sanitize_line(given.get_ref()).trim().to_string();
        let length = name.chars().count();
        if name.is_empty() {
            c.error(
                given.span(),
                "a lane name must have at least one visible character".into(),
            );
        } else if length > super::LaneNames::MAX {
            c.error(
                given.span(),
                format!(
                    "a lane name may be {} characters long, and this one is {length}: it must fit over its lane",
                    super::LaneNames::MAX
                ),
            );
        } else {
            *slot = name;
        }
    }
    names
}

/// The reconciliation job, at the first such time at or after the story's start (the one
/// reading of a time that every block shares); a charge the shop
/// does not believe paid is refunded unless the file says otherwise.
fn reconcile(c: &Checker<'_>, spec: Option<&Spanned<schema::Reconcile>>) -> Option<Reconcile> {
    let r = spec?.get_ref();
    Some(Reconcile {
        at: r.at.get_ref().first_at_or_after(c.start),
        unconfirmed: r.unconfirmed.map_or(Unconfirmed::Refund, |p| p.0),
    })
}

fn title_span(source: &str) -> Range<usize> {
    source.find("title").map_or(0..0, |i| i..i + 5)
}

fn layers(
    c: &mut Checker<'_>,
    spec: &Spanned<Vec<Spanned<schema::Layer>>>,
    strategy: KeyStrategy,
) -> Vec<LayerConfig> {
    if spec.get_ref().is_empty() {
        return vec![LayerConfig {
            name: "checkout".to_string(),
            attempts: DEFAULT_ATTEMPTS,
            deadline_ms: None,
            backoff: Backoff {
                initial_ms: DEFAULT_BACKOFF_MS,
                multiplier: 1.0,
                cap_ms: None,
                jitter: Jitter::None,
            },
            key: strategy.layer_default(0),
        }];
    }
    let count = spec.get_ref().len();
    spec.get_ref()
        .iter()
        .enumerate()
        .map(|(i, layer)| {
            let l = layer.get_ref();
            let attempts = match l.attempts.get_ref().0 {
                n if n < 1 => {
                    c.error(l.attempts.span(), format!("attempts must be at least 1, not {n}: a layer makes its first attempt and then retries"));
                    1
                }
                n if n > 10_000 => {
                    c.error(l.attempts.span(), format!("{n} attempts is more than the 10,000 a layer may make"));
                    1
                }
                n => n as u32,
            };
            if let Some(t) = &l.timeout
                && t.get_ref().0 == 0
            {
                c.error(t.span(), "a timeout must be longer than zero".into());
            }
            let multiplier = match &l.multiplier {
                Some(m) if !(1.0..=100.0).contains(&m.get_ref().0) => {
                    c.error(m.span(), format!("the backoff multiplier must be between 1 and 100, not {}", super::values::plain_number(m.get_ref().0)));
                    1.0
                }
                Some(m) => m.get_ref().0,
                None => 1.0,
            };
            let default_name = if count == 1 {
                "checkout".to_string()
            } else {
                format!("layer {}", i + 1)
            };
            LayerConfig {
                name: l.name.as_deref().map(sanitize_line).filter(|n| !n.trim().is_empty()).unwrap_or(default_name),
                attempts,
                // The innermost layer's timeout is the scenario's `timeout_ms`.
                deadline_ms: l.timeout.as_ref().filter(|_| i > 0).map(|t| t.get_ref().0.max(1)),
                backoff: Backoff {
                    initial_ms: l.backoff.map_or(DEFAULT_BACKOFF_MS, |d| d.0),
                    multiplier,
                    cap_ms: l.cap.map(|d| d.0),
                    jitter: l.jitter.map_or(Jitter::None, |j| j.0),
                },
                key: l.key.map_or(strategy.layer_default(i), |k| k.0),
            }
        })
        .collect()
}

fn intents(c: &mut Checker<'_>, specs: &[Spanned<schema::Intent>]) -> Vec<IntentConfig> {
    if specs.is_empty() {
        c.error(
            0..0,
            "the scenario has no [[intent]]: add at least one purchase (order, amount, at)".into(),
        );
        return Vec::new();
    }
    if specs.len() > MAX_INTENTS {
        c.error(
            specs[MAX_INTENTS].span(),
            format!(
                "a scenario may hold at most {MAX_INTENTS} intents, and this one has {}; a room cannot follow more purchases than that",
                specs.len()
            ),
        );
        return Vec::new();
    }
    let weekdays = specs
        .iter()
        .any(|i| i.get_ref().at.get_ref().weekday.is_some());
    let mut out: Vec<IntentConfig> = Vec::new();
    let mut previous: Option<Instant> = None;
    for spec in specs {
        let i = spec.get_ref();
        let order = sanitize_line(i.order.trim());
        if order.is_empty() {
            c.error(spec.span(), "an intent needs an order id".into());
        }
        if out.iter().any(|o| *o.order == *order) {
            c.error(
                spec.span(),
                format!("order `{order}` appears twice; each [[intent]] needs its own order id"),
            );
        }
        let at = i.at.get_ref();
        if weekdays && at.weekday.is_none() {
            c.error(i.at.span(), "this time has no weekday while another intent's has one; give every time a weekday (\"Fri 18:00:00\") or none".into());
        }
        let when = at.resolve(previous.unwrap_or(Instant(0)));
        if previous.is_some_and(|p| when < p) {
            c.error(
                i.at.span(),
                "intents must be listed in time order: this one is earlier than the one before it"
                    .into(),
            );
        }
        previous = Some(when);
        let key = i
            .key
            .as_deref()
            .map(|k| sanitize_line(k.trim()))
            .filter(|k| !k.is_empty());
        out.push(IntentConfig {
            key: smol_str::SmolStr::from(key.unwrap_or_else(|| format!("{order}-key"))),
            order: smol_str::SmolStr::from(order),
            amount: i.amount.0,
            items: i.items.iter().map(|s| sanitize_line(s)).collect(),
            at: when,
            digests: IntentDigests::default(),
        });
    }
    out
}

fn intent_index(
    c: &mut Checker<'_>,
    spec: Option<&Spanned<String>>,
    orders: &[String],
    severity: Severity,
) -> Option<usize> {
    let Some(name) = spec else {
        return Some(0);
    };
    // Orders are kept cleaned of control characters; a reference to one is cleaned the same way.
    let wanted = sanitize_line(name.get_ref().trim());
    let wanted = wanted.as_str();
    if let Some(i) = orders.iter().position(|o| o == wanted) {
        return Some(i);
    }
    let hint = did_you_mean(wanted, orders.iter().map(String::as_str))
        .map(|s| format!(" (did you mean `{s}`?)"))
        .unwrap_or_default();
    let consequence = match severity {
        Severity::Warning => "; it is ignored",
        Severity::Error => "",
    };
    c.push(
        severity,
        name.span(),
        format!(
            "no intent has order `{}`{hint}{consequence}; the orders are: {}",
            crate::text::shorten(wanted, 60),
            orders.join(", ")
        ),
    );
    None
}

/// The order and the attempt (a step's `try`) a fault names, when both can happen. A fault on
/// an order that does not exist cannot happen: a warning, as for an attempt that never comes.
/// Attempts are counted from 1: attempt 0 is an error.
fn fault_target(
    c: &mut Checker<'_>,
    intent: Option<&Spanned<String>>,
    attempt: &Spanned<super::values::AttemptNo>,
    orders: &[String],
    what: &str,
) -> Option<(usize, u32)> {
    let intent = intent_index(c, intent, orders, Severity::Warning);
    let n = attempt.get_ref().0;
    if n < 1 {
        let many = if what == "try" { "tries" } else { "attempts" };
        c.error(
            attempt.span(),
            format!("{many} are counted from 1, so {what} {n} never happens"),
        );
        return None;
    }
    Some((intent?, n.min(i64::from(u32::MAX)) as u32))
}

fn faults(c: &mut Checker<'_>, specs: &[Spanned<schema::Fault>], orders: &[String]) -> Vec<Fault> {
    let mut out = Vec::new();
    for spec in specs {
        let f = spec.get_ref();
        let target = fault_target(c, f.intent.as_ref(), &f.attempt, orders, "attempt");
        let mut actions = Vec::new();
        if let Some(w) = f.lose {
            actions.push(FaultAction::Lose { direction: w.0 });
        }
        if let Some((direction, by_ms)) = delay_of(c, spec.span(), f.delay, f.by) {
            actions.push(FaultAction::Delay { direction, by_ms });
        }
        if let Some(w) = f.duplicate {
            actions.push(FaultAction::Duplicate {
                direction: w.0,
                gap_ms: f.gap.map_or(10, |g| g.0),
            });
        } else if f.gap.is_some() {
            c.error(spec.span(), "`gap` only goes with `duplicate`".into());
        }
        if let Some(point) = f.crash_after {
            actions.push(FaultAction::Crash {
                after: point.0,
                restart_after_ms: f.restart_after.map_or(2000, |d| d.0),
            });
        } else if f.restart_after.is_some() {
            c.error(
                spec.span(),
                "`restart_after` only goes with `crash_after`".into(),
            );
        }
        if let Some(p) = f.processing {
            actions.push(FaultAction::Slow { processing_ms: p.0 });
        }
        if f.decline {
            actions.push(FaultAction::Decline);
        }
        if let Some(point) = f.fail_after {
            actions.push(FaultAction::Fail { after: point.0 });
        }
        match actions.len() {
            0 => c.error(spec.span(), "this [[fault]] does nothing; expected one of lose, delay (with by), duplicate, crash_after, processing, decline or fail_after".into()),
            1 => {}
            _ => {
                let names: Vec<&str> = actions.iter().map(|a| action_key(*a)).collect();
                c.error(
                    spec.span(),
                    format!(
                        "one action per [[fault]]: this one has {}; give each its own [[fault]] block, with the same attempt",
                        names.join(" and ")
                    ),
                );
            }
        }
        if let (Some((intent, attempt)), Some(action)) = (target, actions.first()) {
            out.push(Fault {
                intent,
                attempt,
                action: *action,
            });
        }
    }
    out
}

/// A `delay` and its `by`, in a `[[fault]]` or a `[[step.fault]]`: each without the other is
/// an error. A `delay` without `by` still counts as the block's action (with no delay), so the
/// block is not also called empty.
fn delay_of(
    c: &mut Checker<'_>,
    span: Range<usize>,
    delay: Option<super::values::Way>,
    by: Option<super::values::Dur>,
) -> Option<(crate::sim::config::Direction, u64)> {
    match (delay, by) {
        (Some(w), Some(by)) => Some((w.0, by.0)),
        (Some(w), None) => {
            c.error(
                span,
                "`delay` needs `by`, how much later the message arrives (by = \"40s\")".into(),
            );
            Some((w.0, 0))
        }
        (None, Some(_)) => {
            c.error(span, "`by` only goes with `delay`".into());
            None
        }
        (None, None) => None,
    }
}

/// The shop's downstream steps, each service at most once.
fn steps(
    c: &mut Checker<'_>,
    specs: &[Spanned<schema::Step>],
    orders: &[String],
) -> Vec<StepConfig> {
    let mut out: Vec<StepConfig> = Vec::new();
    for spec in specs {
        let s = spec.get_ref();
        let service = s.service.get_ref().0;
        if out.iter().any(|o| o.service == service) {
            c.error(
                s.service.span(),
                format!(
                    "the {} already has a [[step]]; each service is called by one step",
                    service.id()
                ),
            );
        }
        let attempts = match &s.attempts {
            None => DEFAULT_STEP_ATTEMPTS,
            Some(a) => match a.get_ref().0 {
                n if (1..=MAX_STEP_ATTEMPTS).contains(&n) => n as u32,
                n => {
                    c.error(
                        a.span(),
                        format!("a step makes from 1 to {MAX_STEP_ATTEMPTS} tries, not {n}"),
                    );
                    1
                }
            },
        };
        let timeout_ms = match &s.timeout {
            Some(t) if t.get_ref().0 == 0 => {
                c.error(t.span(), "a timeout must be longer than zero".into());
                1
            }
            Some(t) => t.get_ref().0,
            None => DEFAULT_STEP_TIMEOUT_MS,
        };
        let faults = step_faults(c, &s.fault, orders);
        out.push(StepConfig {
            service,
            key_mode: s.key.map_or(KeyMode::Derived, |k| k.0),
            attempts,
            timeout_ms,
            backoff_ms: s.backoff.map_or(DEFAULT_BACKOFF_MS, |d| d.0),
            processing_ms: s.processing.map_or(DEFAULT_STEP_PROCESSING_MS, |d| d.0),
            faults,
        });
    }
    out
}

/// The faults of one step: one action each, as for the checkout's `[[fault]]`.
fn step_faults(
    c: &mut Checker<'_>,
    specs: &[Spanned<schema::StepFault>],
    orders: &[String],
) -> Vec<StepFault> {
    let mut out = Vec::new();
    for spec in specs {
        let f = spec.get_ref();
        let target = fault_target(c, f.intent.as_ref(), &f.attempt, orders, "try");
        let mut actions = Vec::new();
        if let Some(w) = f.lose {
            actions.push(StepFaultAction::Lose { direction: w.0 });
        }
        if let Some((direction, by_ms)) = delay_of(c, spec.span(), f.delay, f.by) {
            actions.push(StepFaultAction::Delay { direction, by_ms });
        }
        if let Some(p) = f.processing {
            actions.push(StepFaultAction::Slow { processing_ms: p.0 });
        }
        match actions.len() {
            0 => c.error(
                spec.span(),
                "this [[step.fault]] does nothing; expected one of lose, delay (with by) or processing".into(),
            ),
            1 => {}
            _ => c.error(
                spec.span(),
                "one action per [[step.fault]]; give each its own block, with the same attempt".into(),
            ),
        }
        if let (Some((intent, attempt)), Some(action)) = (target, actions.first()) {
            out.push(StepFault {
                intent,
                attempt,
                action: *action,
            });
        }
    }
    out
}

/// The key that writes an action in a `[[fault]]`.
fn action_key(action: FaultAction) -> &'static str {
    match action {
        FaultAction::Lose { .. } => "lose",
        FaultAction::Delay { .. } => "delay",
        FaultAction::Duplicate { .. } => "duplicate",
        FaultAction::Crash { .. } => "crash_after",
        FaultAction::Slow { .. } => "processing",
        FaultAction::Decline => "decline",
        FaultAction::Fail { .. } => "fail_after",
    }
}

fn reruns(c: &mut Checker<'_>, specs: &[Spanned<schema::Human>], orders: &[String]) -> Vec<Rerun> {
    let mut out = Vec::new();
    for spec in specs {
        let h = spec.get_ref();
        if h.after.get_ref().0 == 0 {
            c.error(
                h.after.span(),
                "a human path takes time: `after` must be longer than zero".into(),
            );
        }
        let intent = match &h.intent {
            Some(_) => intent_index(c, h.intent.as_ref(), orders, Severity::Error),
            None => None,
        };
        let name = sanitize_line(h.name.trim());
        out.push(Rerun {
            name: if name.is_empty() {
                DEFAULT_HUMAN_PATH.to_string()
            } else {
                name
            },
            after_ms: h.after.get_ref().0,
            intent,
        });
    }
    out
}

/// Refuses a retry configuration that would explode into more ticks than can be shown,
/// pointing at what makes it too large: the layers, or the `[[human]]` reruns that repeat them.
fn check_size(
    c: &mut Checker<'_>,
    layers: &Spanned<Vec<Spanned<schema::Layer>>>,
    humans: &[Spanned<schema::Human>],
    cfg: &SimConfig,
) {
    // In floating point, so a product of many large layers is still a number to show.
    let attempts: f64 = cfg.layers.iter().map(|l| f64::from(l.attempts)).product();
    let intents = cfg.intents.len().max(1) as f64;
    let ticks = |runs: usize| attempts * runs as f64 * intents * TICKS_PER_ATTEMPT as f64;
    let runs = 1 + cfg.reruns.len();
    if ticks(runs) <= MAX_TICKS as f64 {
        return;
    }
    let parts: Vec<String> = cfg
        .layers
        .iter()
        .map(|l| format!("{} {}", l.name, l.attempts))
        .collect();
    let layers_text = format!(
        "{} = {} attempts per run",
        parts.join(" × "),
        count(attempts)
    );
    // The first rerun that takes it over the limit, when the layers alone stay within it.
    let rerun = (ticks(1) <= MAX_TICKS as f64)
        .then(|| (1..runs).find(|r| ticks(r + 1) > MAX_TICKS as f64))
        .flatten()
        .and_then(|r| humans.get(r - 1).map(|h| (r, h)));
    let (span, remedy) = match rerun {
        Some((r, h)) => (
            h.span(),
            format!(
                "each [[human]] rerun repeats them, and this is rerun {r} of {}; remove some [[human]] blocks",
                humans.len()
            ),
        ),
        None => (
            layers.span(),
            "lower the attempts of some layer".to_string(),
        ),
    };
    c.error(
        span,
        format!(
            "this retry configuration could simulate {} ticks, more than the {MAX_TICKS} allowed: the retry layers multiply ({layers_text}), over {} intent(s) and {runs} run(s) each; {remedy}",
            count(ticks(runs)),
            cfg.intents.len(),
        ),
    );
}

/// A count as a person reads it: `810000`, or `about 10^32` past what digits can show.
fn count(x: f64) -> String {
    if x < 1e15 {
        format!("{}", x as u64)
    } else {
        format!("about 10^{}", x.log10().round())
    }
}

/// Warns when an outer layer's deadline is shorter than the longest the layers beneath it may
/// take: it will cut their retries short, so fewer attempts happen than the layers multiply to.
fn check_deadlines(
    c: &mut Checker<'_>,
    specs: &Spanned<Vec<Spanned<schema::Layer>>>,
    cfg: &SimConfig,
) {
    let mut inner_worst: u64 = 0;
    for (i, layer) in cfg.layers.iter().enumerate() {
        if i > 0
            && let (Some(deadline), Some(spec)) = (layer.deadline_ms, specs.get_ref().get(i))
            && deadline < inner_worst
            && let Some(t) = &spec.get_ref().timeout
        {
            c.warn(
                t.span(),
                format!(
                    "the {} deadline of {} is shorter than the {} the layers beneath it may take, so it cuts their retries short",
                    layer.name,
                    duration_ms(deadline),
                    duration_ms(inner_worst)
                ),
            );
        }
        let own = if i == 0 {
            cfg.timeout_ms
        } else {
            layer
                .deadline_ms
                .map_or(inner_worst, |d| d.min(inner_worst))
        };
        let mut waits: u64 = 0;
        let mut wait = layer.backoff.initial_ms as f64;
        for _ in 1..layer.attempts {
            let capped = layer
                .backoff
                .cap_ms
                .map_or(wait, |cap| wait.min(cap as f64));
            waits = waits.saturating_add(capped.min(1e15) as u64);
            wait *= layer.backoff.multiplier;
        }
        inner_worst = own
            .saturating_mul(u64::from(layer.attempts))
            .saturating_add(waits);
    }
}

/// A fault planned on an attempt no run can reach is a warning: the scenario still works.
fn check_fault_attempts(c: &mut Checker<'_>, specs: &[Spanned<schema::Fault>], cfg: &SimConfig) {
    let most = cfg
        .attempts_per_run()
        .saturating_mul(1 + cfg.reruns.len() as u64);
    for spec in specs {
        let f = spec.get_ref();
        let attempt = f.attempt.get_ref().0;
        if attempt >= 1 && attempt as u64 > most {
            c.warn(
                f.attempt.span(),
                format!("attempt {attempt} never happens: the checkout makes at most {most} attempts for an intent, so this fault has no effect"),
            );
        }
    }
}

fn narration(c: &mut Checker<'_>, specs: &[Spanned<schema::Narration>]) -> Vec<NarrationRule> {
    let mut out = Vec::new();
    for spec in specs {
        let n = spec.get_ref();
        let Some((target, target_span)) = target(c, spec.span(), "narration", &n.label, &n.at)
        else {
            continue;
        };
        let Some(designs) = scope(c, "narration", n.designs.as_ref()) else {
            continue;
        };
        let mode = match n.mode.as_ref().map(|m| m.get_ref().as_str()) {
            None | Some("replace") => NarrationMode::Replace,
            Some("append") => NarrationMode::Append,
            Some(other) => {
                let span = n.mode.as_ref().map_or(spec.span(), |m| m.span());
                let hint = did_you_mean(other, ["replace", "append"])
                    .map(|s| format!(" (did you mean `{s}`?)"))
                    .unwrap_or_default();
                c.error(
                    span,
                    format!(
                        "unknown narration mode `{}`{hint}; expected replace or append",
                        sanitize_line(other)
                    ),
                );
                continue;
            }
        };
        out.push(NarrationRule {
            target,
            target_span,
            text: crate::text::reflow(n.text.get_ref()).into(),
            text_span: n.text.span(),
            mode,
            designs,
        });
    }
    out
}

fn expectations(
    c: &mut Checker<'_>,
    specs: &[Spanned<schema::Expect>],
    reconciles: bool,
    steps: usize,
) -> Vec<Expectation> {
    let mut out = Vec::new();
    for spec in specs {
        let e = spec.get_ref();
        let verdict = e.verdict.as_ref().and_then(|v| {
            let found = Verdict::ALL.into_iter().find(|x| x.id() == v.get_ref());
            if found.is_none() {
                let names = Verdict::ALL.map(Verdict::id);
                let hint = did_you_mean(v.get_ref(), names)
                    .map(|s| format!(" (did you mean `{s}`?)"))
                    .unwrap_or_default();
                c.error(
                    v.span(),
                    format!(
                        "unknown verdict `{}`{hint}; expected one of: {}",
                        sanitize_line(v.get_ref()),
                        names.join(", ")
                    ),
                );
            }
            found
        });
        let client = e.client.as_ref().and_then(|v| {
            let options = [
                ("paid", Belief::Paid),
                ("failed", Belief::Failed),
                ("unknown", Belief::Unknown),
            ];
            let found = options
                .iter()
                .find(|(n, _)| *n == v.get_ref())
                .map(|(_, b)| *b);
            if found.is_none() {
                let hint = did_you_mean(v.get_ref(), options.map(|o| o.0))
                    .map(|s| format!(" (did you mean `{s}`?)"))
                    .unwrap_or_default();
                c.error(
                    v.span(),
                    format!(
                        "unknown client belief `{}`{hint}; expected paid, failed or unknown",
                        sanitize_line(v.get_ref())
                    ),
                );
            }
            found
        });
        let charges = match &e.charges {
            Some(n) if n.get_ref().0 < 0 => {
                c.error(n.span(), "expected charges cannot be negative".into());
                None
            }
            Some(n) => Some(n.get_ref().0 as usize),
            None => None,
        };
        let refunds = match &e.refunds {
            Some(n) if n.get_ref().0 < 0 => {
                c.error(n.span(), "expected refunds cannot be negative".into());
                None
            }
            Some(n) if !reconciles => {
                c.error(
                    n.span(),
                    "`refunds` counts what the [reconcile] job gives back, and this scenario has no [reconcile]".into(),
                );
                None
            }
            Some(n) => Some(n.get_ref().0 as usize),
            None => None,
        };
        if e.charges.is_none() && e.verdict.is_none() && e.client.is_none() && e.refunds.is_none() {
            c.error(
                spec.span(),
                "this [[expect]] checks nothing; give charges, verdict, client or refunds".into(),
            );
        }
        let step_keys = e.step_keys.as_ref().and_then(|m| {
            if steps == 0 {
                c.error(
                    m.span(),
                    "`step_keys` keys the steps after payment, and this scenario has no [[step]]"
                        .into(),
                );
                return None;
            }
            Some(m.get_ref().0)
        });
        out.push(Expectation {
            design: e.design.0,
            charges,
            verdict,
            client,
            refunds,
            key_strategy: e.key_strategy.as_ref().map(|k| k.get_ref().0),
            step_keys,
            line: super::diagnostic::line_at(c.source, spec.span().start),
        });
    }
    out
}

/// A tick named by `label` or `at`, exactly one of them, and where it is named.
fn target(
    c: &mut Checker<'_>,
    span: Range<usize>,
    what: &str,
    label: &Option<Spanned<String>>,
    at: &Option<Spanned<super::values::ClockTime>>,
) -> Option<(NarrationTarget, Range<usize>)> {
    match (label, at) {
        (Some(label), None) => Some((
            NarrationTarget::Label(sanitize_line(label.get_ref())),
            label.span(),
        )),
        (None, Some(at)) => Some((
            NarrationTarget::At(at.get_ref().first_at_or_after(c.start)),
            at.span(),
        )),
        _ => {
            c.error(
                span,
                format!("a [[{what}]] names its tick by `label` or by `at`, exactly one of them"),
            );
            None
        }
    }
}

fn quizzes(c: &mut Checker<'_>, specs: &[Spanned<schema::Quiz>]) -> Vec<Quiz> {
    let mut out = Vec::new();
    for spec in specs {
        let q = spec.get_ref();
        let Some((target, target_span)) = target(c, spec.span(), "quiz", &q.label, &q.at) else {
            continue;
        };
        let Some(designs) = scope(c, "quiz", q.designs.as_ref()) else {
            continue;
        };
        let choices: Vec<String> = q
            .choices
            .get_ref()
            .iter()
            .map(|s| sanitize_line(s.trim()))
            .collect();
        if !(2..=4).contains(&choices.len()) {
            c.error(
                q.choices.span(),
                format!("a quiz offers two to four choices, not {}", choices.len()),
            );
            continue;
        }
        let answer = match q.answer.get_ref() {
            toml::Value::Integer(n) if (1..=choices.len() as i64).contains(n) => {
                QuizAnswer::Choice(*n as usize - 1)
            }
            toml::Value::String(s) if s == "charges" => QuizAnswer::Charges,
            _ => {
                c.error(
                    q.answer.span(),
                    format!("expected the number of the right choice (1 to {}), or \"charges\" for the choice numbered one more than the charges the run ends with", choices.len()),
                );
                continue;
            }
        };
        if sanitize_line(q.question.trim()).is_empty() {
            c.error(spec.span(), "the quiz has no question".into());
            continue;
        }
        out.push(Quiz {
            target,
            target_span,
            question: sanitize_line(q.question.trim()),
            choices,
            answer,
            explanation: explanation(c, q.explanation.as_ref()),
            designs,
        });
    }
    out
}

/// The designs a block is for: every design without a `designs` key, else those it lists.
/// An id that is no design, or an empty list, is an error (and `None`); a design listed
/// twice is a warning, and counted once.
fn scope(
    c: &mut Checker<'_>,
    what: &str,
    spec: Option<&Spanned<Vec<Spanned<String>>>>,
) -> Option<Scope> {
    let Some(spec) = spec else {
        return Some(Scope::every());
    };
    let ids: Vec<&str> = Design::ALL.iter().map(|d| d.id()).collect();
    if spec.get_ref().is_empty() {
        c.error(
            spec.span(),
            format!(
                "`designs` lists no design, so this [[{what}]] would never be seen; name one or more of {}, or leave the key out for every design",
                ids.join(", ")
            ),
        );
        return None;
    }
    let mut listed: Vec<Design> = Vec::new();
    let mut bad = false;
    for id in spec.get_ref() {
        let text = id.get_ref();
        let found = Design::ALL.iter().copied().find(|d| d.id() == text);
        match found {
            Some(d) if listed.contains(&d) => c.warn(
                id.span(),
                format!("`{}` is listed twice in `designs`; once is enough", d.id()),
            ),
            Some(d) => listed.push(d),
            None => {
                bad = true;
                let hint = did_you_mean(text, ids.iter().copied())
                    .map(|s| format!(" (did you mean `{s}`?)"))
                    .unwrap_or_default();
                c.error(
                    id.span(),
                    format!(
                        "`{}` is not a design id{hint}; `designs` takes ids from: {}",
                        crate::text::shorten(&sanitize_line(text), 40),
                        ids.join(", ")
                    ),
                );
            }
        }
    }
    (!bad).then(|| Scope::only(&listed))
}

/// A quiz's explanation: a string for every design, or a table of strings keyed by design id,
/// with `other` for the designs it leaves out. A bad key is pointed at where it is written.
fn explanation(c: &mut Checker<'_>, spec: Option<&Spanned<toml::Value>>) -> Explanation {
    let Some(spec) = spec else {
        return Explanation::default();
    };
    let span = spec.span();
    match spec.get_ref() {
        toml::Value::String(text) => Explanation::same(&crate::text::reflow(text)),
        toml::Value::Table(table) => {
            let mut out = Explanation::default();
            let ids: Vec<&str> = Design::ALL.iter().map(|d| d.id()).collect();
            for (key, value) in table {
                // The key's own place inside the table, for the caret.
                let at = key_span(c.source, &span, key);
                let toml::Value::String(text) = value else {
                    c.error(
                        at,
                        format!(
                            "the explanation for `{}` is text and goes in quotes",
                            sanitize_line(key)
                        ),
                    );
                    continue;
                };
                let text = crate::text::reflow(text);
                if key == "other" {
                    out.other = text;
                    continue;
                }
                match key.parse::<Design>() {
                    Ok(d) if ids.contains(&key.as_str()) => out.by_design.push((d, text)),
                    _ => {
                        let hint = did_you_mean(key, ids.iter().copied().chain(["other"]))
                            .map(|s| format!(" (did you mean `{s}`?)"))
                            .unwrap_or_default();
                        c.error(
                            at,
                            format!(
                                "`{}` is not a design id{hint}; an explanation table is keyed by {}, or `other` for the designs it leaves out",
                                crate::text::shorten(&sanitize_line(key), 40),
                                ids.join(", ")
                            ),
                        );
                    }
                }
            }
            if table.is_empty() {
                c.error(
                    span,
                    "the explanation table is empty: give a text per design id, or one string"
                        .into(),
                );
            }
            out
        }
        _ => {
            c.error(
                span,
                "an explanation is text in quotes, or a table of texts keyed by design id such as { no-key = \"…\", other = \"…\" }".into(),
            );
            Explanation::default()
        }
    }
}

/// Where `key` is written inside `within` of the source: the key's own span when it can be
/// found there, else the whole of `within`.
fn key_span(source: &str, within: &Range<usize>, key: &str) -> Range<usize> {
    let end = within.end.min(source.len());
    let start = within.start.min(end);
    source
        .get(start..end)
        .and_then(|text| text.find(key))
        .map_or(start..end, |i| start + i..start + i + key.len())
}

fn notes(c: &mut Checker<'_>, specs: &[Spanned<schema::Note>]) -> Vec<Note> {
    specs
        .iter()
        .filter_map(|spec| {
            let n = spec.get_ref();
            let (target, target_span) = target(c, spec.span(), "note", &n.label, &n.at)?;
            let designs = scope(c, "note", n.designs.as_ref())?;
            Some(Note {
                target,
                target_span,
                text: crate::text::reflow(&n.text),
                designs,
            })
        })
        .collect()
}
