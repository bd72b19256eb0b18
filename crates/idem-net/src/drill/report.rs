//! The drill's report: a table for the terminal, or one JSON object, with a conformance
//! summary per requirement level.

use super::battery::{Observed, Plan};
use super::judge::{Level, Row, Verdict};
use crate::sim::Design;
use serde::Serialize;
use serde_json::json;

/// The draft the rows are read against.
pub const DRAFT: &str = "draft-ietf-httpapi-idempotency-key-header-07";

/// How the rows of one level came out.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Tally {
    pub pass: usize,
    pub variant: usize,
    pub fail: usize,
    pub info: usize,
    pub not_run: usize,
}

impl Tally {
    pub fn of(rows: &[Row], level: Level) -> Tally {
        let mut t = Tally::default();
        for r in rows.iter().filter(|r| r.level == level) {
            match r.verdict {
                Verdict::Pass => t.pass += 1,
                Verdict::Variant => t.variant += 1,
                Verdict::Fail => t.fail += 1,
                Verdict::Info => t.info += 1,
                Verdict::NotRun => t.not_run += 1,
            }
        }
        t
    }

    fn total(self) -> usize {
        self.pass + self.variant + self.fail + self.info + self.not_run
    }

    fn words(self, level: Level) -> String {
        let mut s = format!("{} {} of {} passed", level.word(), self.pass, self.total());
        for (n, what) in [
            (self.variant, "variant"),
            (self.fail, "failed"),
            (self.info, "not exercised"),
            (self.not_run, "not run"),
        ] {
            if n > 0 {
                s.push_str(&format!(", {n} {what}"));
            }
        }
        s
    }
}

/// Where the endpoint stands against the draft, from its rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Standing {
    /// Every MUST row was exercised and passed (or passed as a variant), and no row failed.
    Conforms,
    /// A MUST or SHOULD row failed.
    Fails,
    /// No row failed, but this many MUST rows could not be exercised (nothing answered, the
    /// time ran out, or what came back could not test them): nothing shows the endpoint meets
    /// them.
    Unexercised(usize),
}

impl Standing {
    /// The exit status of `idem drill`: 0 conforms, 1 a requirement failed, 3 a MUST row was
    /// not exercised (2 is the command's own error).
    pub fn exit(self) -> u8 {
        match self {
            Standing::Conforms => 0,
            Standing::Fails => 1,
            Standing::Unexercised(_) => 3,
        }
    }
}

/// Where the endpoint stands: a failed row decides first, then any MUST row left unexercised.
pub fn standing(rows: &[Row]) -> Standing {
    if rows.iter().any(|r| r.verdict == Verdict::Fail) {
        return Standing::Fails;
    }
    let unexercised = rows
        .iter()
        .filter(|r| {
            r.level == Level::Must && !matches!(r.verdict, Verdict::Pass | Verdict::Variant)
        })
        .count();
    if unexercised > 0 || !rows.iter().any(|r| r.level == Level::Must) {
        return Standing::Unexercised(unexercised);
    }
    Standing::Conforms
}

/// Every MUST row was exercised and passed, and no row failed.
pub fn conforms(rows: &[Row]) -> bool {
    standing(rows) == Standing::Conforms
}

/// The report as text: the table, the summary, and the nearest design.
pub fn text(
    rows: &[Row],
    observed: &Observed,
    nearest: Option<&(Design, String)>,
    none_fits: Option<&str>,
) -> String {
    let width = rows.iter().map(|r| r.check.len()).max().unwrap_or(5).max(5);
    let mut out = format!(
        "{:width$}  {:6}  {:7}  requirement, then what was seen\n",
        "check", "level", "result"
    );
    for r in rows {
        out.push_str(&format!(
            "{:width$}  {:6}  {:7}  {}\n{:width$}  {:6}  {:7}  {}\n",
            r.check,
            r.level.word(),
            r.verdict.word(),
            r.requirement,
            "",
            "",
            "",
            crate::text::sanitize_line(&r.seen),
        ));
    }
    out.push('\n');
    out.push_str(&format!(
        "{} requests in {}{}.\n",
        observed.sent,
        crate::units::duration_ms(observed.millis),
        if observed.out_of_time {
            ", stopped when the time ran out"
        } else {
            ""
        }
    ));
    out.push_str(&format!(
        "Against {DRAFT}: {}; {}. {}\n",
        Tally::of(rows, Level::Must).words(Level::Must),
        Tally::of(rows, Level::Should).words(Level::Should),
        match standing(rows) {
            Standing::Conforms => "Every MUST row was exercised and passed.".to_string(),
            Standing::Fails => "It does not conform.".to_string(),
            Standing::Unexercised(n) => format!(
                "No row failed, but {} could not be exercised, so nothing shows the endpoint meets {}.",
                match n {
                    1 => "1 MUST row".to_string(),
                    n => format!("{n} MUST rows"),
                },
                if n == 1 { "it" } else { "them" }
            ),
        }
    ));
    if let Some((d, why)) = nearest {
        out.push_str(&format!(
            "It behaves most like the design {} ({}): {why}.\n  idem run order-5531 --design {}    to watch that design tell the story\n",
            d.id(),
            d.name(),
            d.id()
        ));
    }
    if let Some(why) = none_fits {
        out.push_str(&format!("{why}.\n"));
    }
    out
}

/// The report as one JSON object.
pub fn json(
    plan: &Plan,
    rows: &[Row],
    observed: &Observed,
    nearest: Option<&(Design, String)>,
    none_fits: Option<&str>,
) -> Result<String, String> {
    let v = json!({
        "draft": DRAFT,
        "url": plan.target.url,
        "loopback": plan.target.loopback,
        "plan": plan.describe(),
        "sent": observed.sent,
        "millis": observed.millis,
        "out_of_time": observed.out_of_time,
        "rows": rows,
        "summary": {
            "must": Tally::of(rows, Level::Must),
            "should": Tally::of(rows, Level::Should),
            "conforms": conforms(rows),
            "must_unexercised": match standing(rows) {
                Standing::Unexercised(n) => n,
                _ => 0,
            },
        },
        "nearest_design": nearest.map(|(d, why)| json!({ "id": d.id(), "name": d.name(), "why": why })),
        "no_design_fits": none_fits,
        "responses": {
            "read_back": observed.read_back,
            "first": observed.first,
            "retry": observed.retry,
            "key_reuse": observed.mismatch,
            "concurrent": observed.race,
            "same_key_other_syntax": observed.other_syntax_repeat,
            "missing_key": observed.missing,
            "other_syntax_key": observed.other_syntax,
            "long_key": observed.long,
            "before_expiry": observed.before_expiry,
            "after_expiry": observed.after_expiry,
            "kept_first": observed.kept_first,
            "kept_again": observed.kept_again,
        },
        "key_syntax": plan.key_syntax.id(),
        "exchanges": observed.exchanges,
    });
    serde_json::to_string_pretty(&v).map_err(|e| format!("cannot write the report as JSON: {e}"))
}
