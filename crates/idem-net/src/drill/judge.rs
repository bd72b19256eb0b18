//! What the answers mean: one row per requirement of the IETF draft *The Idempotency-Key
//! HTTP Header Field*, with its level (MUST, SHOULD, or none for what the draft leaves
//! open), and the design of the simulation the endpoint behaves most like.

use super::battery::{KeySyntax, Observed, Plan};
use super::client::{self, Seen};
use crate::sim::Design;
use serde::Serialize;

/// How binding a requirement is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Level {
    Must,
    Should,
    /// The draft leaves it open: reported, never failed.
    Info,
}

impl Level {
    pub fn word(self) -> &'static str {
        match self {
            Level::Must => "MUST",
            Level::Should => "SHOULD",
            Level::Info => "-",
        }
    }
}

/// How a check came out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    Pass,
    /// Not what the draft says, but a documented answer of a well-known API.
    Variant,
    Fail,
    /// Seen and reported; nothing to pass or fail.
    Info,
    NotRun,
}

impl Verdict {
    pub fn word(self) -> &'static str {
        match self {
            Verdict::Pass => "pass",
            Verdict::Variant => "variant",
            Verdict::Fail => "FAIL",
            Verdict::Info => "info",
            Verdict::NotRun => "not run",
        }
    }
}

/// One row of the report.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Row {
    pub check: &'static str,
    pub requirement: &'static str,
    pub level: Level,
    pub verdict: Verdict,
    /// What was seen, in words.
    pub seen: String,
}

fn row(
    check: &'static str,
    requirement: &'static str,
    level: Level,
) -> impl Fn(Verdict, String) -> Row {
    move |verdict, seen| Row {
        check,
        requirement,
        level,
        verdict,
        seen,
    }
}

fn not_run(seen: &Option<Seen>) -> Option<String> {
    match seen {
        None => Some("not sent: the time ran out".into()),
        Some(s) if s.status.is_none() => Some(s.short()),
        Some(_) => None,
    }
}

/// The same status and the same body, both read whole: a body cut at the bound, or one that
/// never ended, is the same as nothing.
fn same_answer(a: &Seen, b: &Seen) -> bool {
    let http = |s: &Seen| s.status.is_some_and(|c| (100..=599).contains(&c));
    http(a) && a.whole() && b.whole() && a.status == b.status && a.body == b.body
}

/// The first answer among `answers` whose body was not read whole, said in words.
fn unread_among<'a>(answers: impl IntoIterator<Item = &'a Seen>) -> Option<String> {
    answers
        .into_iter()
        .find_map(|s| s.unread.as_ref())
        .map(|u| format!("the body of one answer {}", u.describe()))
}

/// Why a pair of answers cannot be compared at all: one was a redirect (which the drill
/// does not follow), or one's body was not read whole.
fn incomparable(first: &Seen, retry: &Seen) -> Option<String> {
    let named = [("the first request", first), ("the retry", retry)];
    if let Some((which, s)) = named.iter().find(|(_, s)| s.redirected()) {
        return Some(format!(
            "{which} was redirected ({}): a redirect is not a replay, and the drill follows none; drill the URL it points to",
            s.redirect_text()
        ));
    }
    // HTTP statuses run from 100 to 599; a number outside them is no answer to compare, and
    // two of them alike are no replay.
    if let Some((which, code)) = named.iter().find_map(|(which, s)| {
        s.status
            .filter(|c| !(100..=599).contains(c))
            .map(|c| (which, c))
    }) {
        return Some(format!(
            "{which} was answered with status {code}, which is no HTTP status (they run from 100 to 599), so it cannot be compared"
        ));
    }
    named.iter().find_map(|(which, s)| {
        s.unread
            .as_ref()
            .map(|u| format!("{which}'s body {}, so it cannot be compared", u.describe()))
    })
}

/// When every request that carried a key in the chosen syntax was refused (a 4xx or 5xx)
/// with an answer the one without a key did not get: the endpoint did not take the drill's
/// keys as written, and nothing that depends on a taken key can be judged.
pub fn keys_not_taken(plan: &Plan, o: &Observed) -> Option<String> {
    let mut keyed: Vec<&Seen> = [&o.first, &o.retry].into_iter().flatten().collect();
    keyed.extend(o.race.iter().flatten());
    let missing = o.missing.as_ref()?;
    let unkeyed = missing.status?;
    let refused = |s: &&Seen| s.status.is_some_and(|st| st >= 400);
    if keyed.len() < 3 || !keyed.iter().all(refused) {
        return None;
    }
    // The same answer without a key: the refusal is not about the key.
    if keyed
        .iter()
        .any(|s| s.status == Some(unkeyed) && s.body == missing.body)
    {
        return None;
    }
    let statuses: Vec<String> = {
        let mut all: Vec<u16> = keyed.iter().filter_map(|s| s.status).collect();
        all.sort_unstable();
        all.dedup();
        all.iter().map(u16::to_string).collect()
    };
    let syntax = plan.key_syntax;
    let other = syntax.other();
    let other_taken = [&o.other_syntax, &o.other_syntax_repeat]
        .into_iter()
        .flatten()
        .any(Seen::ok);
    let hint = if other_taken {
        format!(
            "; a key written {} was taken, so drill it again with --key-syntax {}",
            other.words(),
            other.id()
        )
    } else {
        let mut tries = vec![format!("--key-syntax {}", other.id())];
        if plan.key_format == super::battery::KeyFormat::Token {
            tries.push("--key-format uuid".into());
        }
        format!("; try {}", tries.join(" or "))
    };
    Some(format!(
        "every one of the {} requests with a key written {} got {}, and the one without a key got {unkeyed}: the endpoint did not take these keys{hint}",
        keyed.len(),
        syntax.words(),
        statuses.join(" or ")
    ))
}

/// Every row, in the order the report shows them.
pub fn rows(plan: &Plan, o: &Observed) -> Vec<Row> {
    if let Some(why) = keys_not_taken(plan, o) {
        // Said first, and nothing else judged: the other rows would only repeat the error.
        let mut rows = vec![Row {
            check: "key-format",
            requirement: "the endpoint takes the Idempotency-Key values sent",
            level: Level::Must,
            verdict: Verdict::Fail,
            seen: why,
        }];
        rows.extend(judged(plan, o).into_iter().map(|r| Row {
            verdict: Verdict::NotRun,
            seen: "not judged: no request with a key was taken".into(),
            ..r
        }));
        return rows;
    }
    judged(plan, o)
}

/// The rows judged from the answers.
fn judged(plan: &Plan, o: &Observed) -> Vec<Row> {
    vec![
        replay(o),
        one_effect(o),
        concurrent(o),
        mismatch(plan, o),
        missing(o),
        syntax(plan, o),
        other_syntax(plan, o),
        long(plan, o),
        expiry(plan),
        after_expiry(plan, o),
        kept_for(plan, o),
    ]
}

/// With `--kept-for`: the key is still kept after the wait, so its repeat gets the first
/// answer; a repeat charged anew means it was forgotten sooner, earlier than the stated
/// expiry when one was given.
fn kept_for(plan: &Plan, o: &Observed) -> Row {
    let r = row(
        "kept-for",
        "a key is still kept, its repeat answered from memory, as long as the API says",
        Level::Should,
    );
    let Some(wait) = plan.kept_for else {
        return r(
            Verdict::NotRun,
            "give --kept-for, a wait shorter than the API's stated expiry, to check it".into(),
        );
    };
    let waited = crate::units::duration_ms(u64::try_from(wait.as_millis()).unwrap_or(u64::MAX));
    if let Some(why) = not_run(&o.kept_first) {
        return r(Verdict::NotRun, why);
    }
    let (Some(first), Some(again)) = (&o.kept_first, &o.kept_again) else {
        return r(
            Verdict::NotRun,
            format!("not sent: the wait of {waited} did not fit in --max-time"),
        );
    };
    if let Some(why) = not_run(&o.kept_again) {
        return r(Verdict::NotRun, why);
    }
    if !first.ok() {
        return r(
            Verdict::NotRun,
            format!("the first request under the key got {}", first.short()),
        );
    }
    if let Some(why) = incomparable(first, again) {
        return r(Verdict::NotRun, why);
    }
    let pair = format!("{} then, {waited} later, {}", first.short(), again.short());
    let carries_first = again.replayed || (again.body == first.body && !first.body.is_empty());
    let stated = plan.expiry.as_ref().map(|e| e.published_ms);
    if carries_first && again.ok() {
        r(
            Verdict::Pass,
            format!("{pair}, the first answer: kept at least {waited}"),
        )
    } else if carries_first && again.status == Some(409) {
        r(
            Verdict::Pass,
            format!("{pair} with the first answer's body: kept at least {waited}"),
        )
    } else if again.ok() {
        let earlier = match stated {
            Some(ms) if ms > u64::try_from(wait.as_millis()).unwrap_or(u64::MAX) => format!(
                ", earlier than the stated expiry of {}",
                crate::units::duration_ms(ms)
            ),
            _ => String::new(),
        };
        r(
            Verdict::Fail,
            format!(
                "{pair}, a new answer: the key was forgotten within {waited}{earlier}, and the repeat charged anew"
            ),
        )
    } else {
        r(
            Verdict::Info,
            format!(
                "{pair}: neither the first answer nor a new one, so whether the key was kept cannot be told"
            ),
        )
    }
}

/// With `--expiry-wait`: the key used again after the wait is processed anew, once, even
/// when the requests come at once, and is not refused for ever.
fn after_expiry(plan: &Plan, o: &Observed) -> Row {
    let r = row(
        "after-expiry",
        "a key used again after it expired is processed anew, once, and not refused",
        Level::Should,
    );
    let Some(wait) = plan.expiry_wait else {
        return r(
            Verdict::NotRun,
            "give --expiry-wait, longer than the API's key expiry, to check it".into(),
        );
    };
    let waited = crate::units::duration_ms(u64::try_from(wait.as_millis()).unwrap_or(u64::MAX));
    if let Some(why) = not_run(&o.before_expiry) {
        return r(Verdict::NotRun, why);
    }
    let (Some(first), Some(again)) = (&o.before_expiry, &o.after_expiry) else {
        return r(
            Verdict::NotRun,
            format!("not sent: the wait of {waited} did not fit in --max-time"),
        );
    };
    if !first.ok() {
        return r(
            Verdict::NotRun,
            format!("the first request under the key got {}", first.short()),
        );
    }
    if let Some(why) = unread_among(again.iter().chain([first])) {
        return r(
            Verdict::NotRun,
            format!("{why}, so the answers cannot be told apart"),
        );
    }
    let fresh = distinct(
        again
            .iter()
            .filter(|s| s.ok() && !s.replayed && s.body != first.body),
    );
    let conflicts = again.iter().filter(|s| s.status == Some(409)).count();
    let oks = again.iter().filter(|s| s.ok()).count();
    let tally = format!(
        "{waited} after the first, {} at once: {oks} succeeded ({fresh} new), {conflicts} × 409",
        again.len()
    );
    if fresh > 1 {
        r(
            Verdict::Fail,
            format!(
                "{tally}: after the expiry several were processed as new, a second charge each"
            ),
        )
    } else if fresh == 1 {
        r(Verdict::Pass, format!("{tally}: processed anew once"))
    } else if oks > 0 {
        r(
            Verdict::Info,
            format!("{tally}: still answered from memory, so the key had not expired yet"),
        )
    } else if conflicts == again.len()
        && again
            .iter()
            .all(|s| s.replayed || (s.body == first.body && !first.body.is_empty()))
    {
        r(
            Verdict::Info,
            format!(
                "{tally}, each with the first answer's body: kept at least {waited}, so the key had not expired yet"
            ),
        )
    } else if conflicts == again.len() {
        r(
            Verdict::Fail,
            format!("{tally}: the key is refused after its expiry, as if still in progress"),
        )
    } else {
        let others: Vec<String> = again.iter().map(Seen::short).collect();
        r(Verdict::Fail, format!("{tally}: {}", others.join(", ")))
    }
}

fn replay(o: &Observed) -> Row {
    let r = row(
        "replay",
        "a retry after the first request completed gets its result, success or error",
        Level::Should,
    );
    if let Some(why) = not_run(&o.first).or_else(|| not_run(&o.retry)) {
        return r(Verdict::NotRun, why);
    }
    let (Some(a), Some(b)) = (&o.first, &o.retry) else {
        return r(Verdict::NotRun, "not sent".into());
    };
    let marked = if b.replayed {
        ", marked as a replay"
    } else {
        ", not marked replayed"
    };
    let pair = format!("{} then {}", a.short(), b.short());
    if let Some(why) = incomparable(a, b) {
        return r(Verdict::Fail, format!("{pair}: {why}"));
    }
    if same_answer(a, b) && !a.ok() && !b.replayed {
        r(
            Verdict::Info,
            format!(
                "{pair}, the same body: an error answered twice alike, which does not show that the key was remembered"
            ),
        )
    } else if same_answer(a, b) {
        r(Verdict::Pass, format!("{pair}, the same body{marked}"))
    } else if a.status == b.status && b.replayed {
        r(
            Verdict::Fail,
            format!(
                "{pair}, marked as a replay but with another body than the first answer: not its result"
            ),
        )
    } else if a.status == b.status {
        r(
            Verdict::Fail,
            format!("{pair}, a different body: the retry was processed again"),
        )
    } else if a.ok() && b.status == Some(409) && a.body == b.body && !a.body.is_empty() {
        r(
            Verdict::Variant,
            format!(
                "{pair}: the repeat gets the first answer's body under 409, its result with a conflict status rather than a replay's"
            ),
        )
    } else if a.ok() && b.status == Some(409) {
        r(
            Verdict::Variant,
            format!("{pair}: the repeat is refused, as GoCardless does, not replayed"),
        )
    } else {
        r(
            Verdict::Fail,
            format!("{pair}: the retry got another answer"),
        )
    }
}

/// How many resources a read-back's body lists: the length of a JSON array, or of the one
/// array among a JSON object's fields (`{"count": 2, "charges": [...]}`). None when the body
/// is not JSON, or holds no array or several, so that nothing is counted that was not seen.
pub(crate) fn listed(body: &str) -> Option<usize> {
    let value: serde_json::Value = serde_json::from_str(body).ok()?;
    match value {
        serde_json::Value::Array(items) => Some(items.len()),
        serde_json::Value::Object(fields) => {
            let mut arrays = fields.values().filter_map(|v| v.as_array());
            let only = arrays.next()?;
            arrays.next().is_none().then_some(only.len())
        }
        _ => None,
    }
}

/// How many more resources the read-back lists after the first request than before it, when
/// both can be counted and the list did not shrink.
pub(crate) fn made_by_first(before: &Seen, after_first: &Seen) -> Option<usize> {
    let (b, a) = (listed(&before.body)?, listed(&after_first.body)?);
    a.checked_sub(b)
}

fn one_effect(o: &Observed) -> Row {
    let r = row(
        "one-effect",
        "a repeated request makes no second resource (no duplicate money transfer)",
        Level::Must,
    );
    if let Some([before, after_first, after_retry]) = &o.read_back {
        if let Some(bad) = [before, after_first, after_retry]
            .into_iter()
            .find(|s| s.status.is_none_or(|st| st >= 400))
        {
            return r(
                Verdict::NotRun,
                format!("the read-back answered {}", bad.short()),
            );
        }
        if let Some(made) = made_by_first(before, after_first)
            && made > 1
        {
            return r(
                Verdict::Fail,
                format!(
                    "the read-back lists {made} more resources after the first request than before it: one request, sent once, made {made}"
                ),
            );
        }
        return if after_first.body != after_retry.body {
            r(
                Verdict::Fail,
                "the read-back changed after the retry: a second resource".into(),
            )
        } else if before.body == after_first.body {
            r(
                Verdict::Info,
                "the read-back changed after neither request: does it show what POST makes?".into(),
            )
        } else {
            r(
                Verdict::Pass,
                "the read-back changed after the first request, not after the retry".into(),
            )
        };
    }
    if let Some(why) = not_run(&o.first).or_else(|| not_run(&o.retry)) {
        return r(Verdict::NotRun, why);
    }
    let (Some(a), Some(b)) = (&o.first, &o.retry) else {
        return r(Verdict::NotRun, "not sent".into());
    };
    if let Some(why) = incomparable(a, b) {
        return r(
            Verdict::Info,
            format!(
                "{} then {}: cannot tell from the answers: {why} (give --read-back to look)",
                a.short(),
                b.short()
            ),
        );
    }
    if !a.ok() {
        r(
            Verdict::Info,
            format!(
                "{} then {}: the first request was refused, so no effect is shown either way (give --read-back to look)",
                a.short(),
                b.short()
            ),
        )
    } else if same_answer(a, b) || (a.status == b.status && b.replayed) {
        r(
            Verdict::Pass,
            "judged from the answers (give --read-back to look)".into(),
        )
    } else if b.ok() && a.ok() {
        r(
            Verdict::Fail,
            "judged from the answers: the retry got a new one (give --read-back to look)".into(),
        )
    } else {
        r(
            Verdict::Info,
            format!(
                "{} then {}: cannot tell from the answers (give --read-back to look)",
                a.short(),
                b.short()
            ),
        )
    }
}

fn concurrent(o: &Observed) -> Row {
    let r = row(
        "concurrent",
        "a retry while the first is still processed gets a conflict error (409)",
        Level::Must,
    );
    let Some(race) = &o.race else {
        return r(Verdict::NotRun, "not sent: the time ran out".into());
    };
    // No answer at all (nothing listening) is no verdict on the endpoint, as for the rows
    // with one request.
    if let Some(first) = race
        .first()
        .filter(|_| race.iter().all(|s| s.status.is_none()))
    {
        return r(Verdict::NotRun, first.short());
    }
    if let Some(why) = unread_among(race) {
        return r(
            Verdict::NotRun,
            format!("{why}, so the answers cannot be told apart"),
        );
    }
    let oks: Vec<&Seen> = race.iter().filter(|s| s.ok()).collect();
    let conflicts = race.iter().filter(|s| s.status == Some(409)).count();
    let replays = oks.iter().filter(|s| s.replayed).count();
    let new_answers = distinct(oks.iter().filter(|s| !s.replayed).copied());
    let answers = distinct(oks.iter().copied());
    let others: Vec<String> = race
        .iter()
        .filter(|s| !s.ok() && s.status != Some(409))
        .map(Seen::short)
        .collect();
    let mut tally = format!(
        "{} at once: {} succeeded, {conflicts} × 409",
        race.len(),
        oks.len()
    );
    if replays > 0 {
        tally.push_str(&format!(", {replays} of the successes marked replayed"));
    }
    if answers > 1 {
        tally.push_str(&format!(", {answers} different answers among them"));
    }
    if !others.is_empty() {
        tally.push_str(&format!(", other: {}", others.join(", ")));
    }
    if oks.is_empty() {
        r(Verdict::Fail, format!("{tally}: none succeeded"))
    } else if new_answers > 1 {
        r(
            Verdict::Fail,
            format!("{tally}: several were processed as new"),
        )
    } else if answers > 1 {
        r(
            Verdict::Fail,
            format!(
                "{tally}: some were answered from memory before the first finished, with another answer than its own"
            ),
        )
    } else if !others.is_empty() {
        r(Verdict::Fail, tally)
    } else if conflicts > 0 {
        conflicts_row(r, race, &oks, tally)
    } else if let Some(held) = held_then_replayed(race) {
        r(Verdict::Pass, format!("{tally}: {held}"))
    } else {
        r(
            Verdict::Info,
            format!("{tally}: the first finished before the others came, so no overlap was seen"),
        )
    }
}

/// How far ahead of the first request's answer a 409 must come back to show that it met that
/// request's work still going: a server may store an answer a moment before its bytes leave,
/// so a 409 only just ahead of the answer proves nothing.
fn margin_us(winner: &client::Times) -> u64 {
    (winner.head_us.saturating_sub(winner.left_us) / 4).max(20_000)
}

/// The request among `oks` that was worked on, not replayed: the first whose answer came.
fn winner<'a>(oks: &[&'a Seen]) -> Option<&'a Seen> {
    oks.iter()
        .filter(|s| !s.replayed)
        .min_by_key(|s| s.times.map_or(0, |t| t.head_us))
        .copied()
}

/// A 409 that carries a completed request's stored answer (the body of a success, or marked
/// as a replay): it answered a request that had finished, not one in flight.
fn carries_stored_answer(conflict: &Seen, oks: &[&Seen]) -> bool {
    conflict.replayed
        || (conflict.whole()
            && !conflict.body.is_empty()
            && oks.iter().any(|s| s.whole() && s.body == conflict.body))
}

/// The row when some answers were 409: a pass only for a 409 that carries no stored answer
/// and came back well before the first request's own answer, so the server's work on that
/// request provably overlapped it. Otherwise the row was not tested, and says why.
fn conflicts_row(
    r: impl Fn(Verdict, String) -> Row,
    race: &[Seen],
    oks: &[&Seen],
    tally: String,
) -> Row {
    let conflicts: Vec<&Seen> = race.iter().filter(|s| s.status == Some(409)).collect();
    let fresh: Vec<&Seen> = conflicts
        .iter()
        .copied()
        .filter(|c| !carries_stored_answer(c, oks))
        .collect();
    let slower = "give it a slower handler (idem serve --slow, or a test hook that holds the charge) and drill it again";
    if fresh.is_empty() {
        return r(
            Verdict::NotRun,
            format!(
                "not tested: every 409 carried the answer of the request that succeeded, so each answered a request already completed, not one in flight; {slower}"
            ),
        );
    }
    let first = winner(oks);
    let Some(w) = first.and_then(|w| w.times) else {
        // Answers made by hand carry no times: a 409 with no stored answer is taken at its word.
        return r(Verdict::Pass, tally);
    };
    let margin = margin_us(&w);
    let ahead: Vec<u64> = fresh
        .iter()
        .filter_map(|c| c.times)
        .filter(|t| t.done_us.saturating_add(margin) <= w.head_us)
        .map(|t| w.head_us - t.done_us)
        .collect();
    let took = crate::units::duration_ms(w.head_us.saturating_sub(w.left_us).div_ceil(1000));
    match ahead.iter().min() {
        Some(&least) => r(
            Verdict::Pass,
            format!(
                "{tally}: {} of the 409s came back at least {} before the first request's answer ({took}), while it was still being worked on",
                ahead.len(),
                crate::units::duration_ms(least / 1000)
            ),
        ),
        None => r(
            Verdict::NotRun,
            format!(
                "not tested: the request that succeeded was answered in {took}, and no 409 came back at least {} before that answer, so none is shown to have met it in flight; {slower}",
                crate::units::duration_ms(margin / 1000)
            ),
        ),
    }
}

/// When every request succeeded with one answer, all of them open together, and the others'
/// answers came only once the first's had: the server held the repeats until the first
/// finished, then replayed its answer. A legitimate way to answer a concurrent repeat.
fn held_then_replayed(race: &[Seen]) -> Option<String> {
    if race.len() < 2 || !race.iter().all(Seen::ok) || distinct(race.iter()) != 1 {
        return None;
    }
    let times: Vec<client::Times> = race.iter().map(|s| s.times).collect::<Option<_>>()?;
    let last_left = times.iter().map(|t| t.left_us).max()?;
    let first_done = times.iter().map(|t| t.done_us).min()?;
    let first_head = times.iter().map(|t| t.head_us).min()?;
    if last_left >= first_head {
        return None;
    }
    let together = first_done.saturating_sub(last_left);
    Some(format!(
        "all {} were open together for {}, and each got the first's answer: held until the first finished, then replayed",
        race.len(),
        crate::units::duration_ms(together / 1000)
    ))
}

/// How many different bodies the answers hold.
fn distinct<'a>(answers: impl Iterator<Item = &'a Seen>) -> usize {
    let mut bodies: Vec<&str> = answers.map(|s| s.body.as_str()).collect();
    bodies.sort_unstable();
    bodies.dedup();
    bodies.len()
}

fn mismatch(plan: &Plan, o: &Observed) -> Row {
    let r = row(
        "key-reuse",
        "the same key with a different body is refused with 422",
        Level::Should,
    );
    if plan.other_body.is_none() {
        return r(
            Verdict::NotRun,
            "the body has no amount to change: give --other-body".into(),
        );
    }
    if let Some(why) = not_run(&o.mismatch) {
        return r(Verdict::NotRun, why);
    }
    let Some(m) = &o.mismatch else {
        return r(Verdict::NotRun, "not sent".into());
    };
    match m.status {
        Some(422) => r(Verdict::Pass, "422".into()),
        Some(400) => r(
            Verdict::Variant,
            "400, as Stripe answers a reused key (idempotency_error)".into(),
        ),
        Some(409) => r(
            Verdict::Variant,
            "409, as GoCardless answers a reused key".into(),
        ),
        Some(400..=499) => r(
            Verdict::Variant,
            format!("{}: refused, though not with 422", m.status_text()),
        ),
        _ if m.ok()
            && let Some(why) = unread_among(o.first.iter().chain([m])) =>
        {
            r(
                Verdict::Info,
                format!(
                    "{}: {why}, so a replay cannot be told from a new charge",
                    m.short()
                ),
            )
        }
        _ if m.ok() && o.first.as_ref().is_some_and(|f| f.body == m.body) => r(
            Verdict::Fail,
            format!(
                "{}, the first request's answer: the body is not compared",
                m.short()
            ),
        ),
        _ if m.ok() => r(
            Verdict::Fail,
            format!("{}, a new answer: processed under a used key", m.short()),
        ),
        _ => r(Verdict::Fail, m.status_text()),
    }
}

fn missing(o: &Observed) -> Row {
    let r = row(
        "missing-key",
        "a request without the key is refused with 400 and a problem body or Link",
        Level::Should,
    );
    if let Some(why) = not_run(&o.missing) {
        return r(Verdict::NotRun, why);
    }
    let Some(m) = &o.missing else {
        return r(Verdict::NotRun, "not sent".into());
    };
    let how = match (m.is_problem(), m.link) {
        (true, true) => "application/problem+json and a Link",
        (true, false) => "application/problem+json",
        (false, true) => "a Link",
        (false, false) => "neither a problem body nor a Link",
    };
    match m.status {
        Some(400) if m.is_problem() || m.link => r(Verdict::Pass, format!("400 with {how}")),
        Some(400) => r(Verdict::Variant, format!("400 with {how}")),
        _ if m.ok() => r(Verdict::Fail, format!("{}: taken without a key", m.short())),
        _ => r(Verdict::Fail, format!("{} with {how}", m.status_text())),
    }
}

fn syntax(plan: &Plan, o: &Observed) -> Row {
    let r = row(
        "key-syntax",
        "the key is a Structured Field string, in quotes, and is taken as one",
        Level::Must,
    );
    if let Some(why) = not_run(&o.first) {
        return r(Verdict::NotRun, why);
    }
    let (sent, other) = (plan.key_syntax, plan.key_syntax.other());
    match (&o.first, &o.other_syntax) {
        (Some(q), _) if q.ok() => {
            let (verdict, what) = parsed(plan, q, o);
            r(
                verdict,
                format!("a key {}: {}{what}", sent.words(), q.short()),
            )
        }
        (Some(q), Some(b)) if b.ok() => match sent {
            KeySyntax::SfString => r(
                Verdict::Fail,
                format!(
                    "a key in quotes: {}, yet a bare one: {}: the field is not read as a Structured Field string",
                    q.short(),
                    b.short()
                ),
            ),
            KeySyntax::Bare => r(
                Verdict::Pass,
                format!(
                    "a bare key: {}, a key in quotes: {}: keys are read as Structured Field strings, and bare ones refused",
                    q.short(),
                    b.short()
                ),
            ),
        },
        (Some(q), _) => r(
            Verdict::Info,
            format!(
                "a key {}: {}; a key {}: {}; the endpoint took neither",
                sent.words(),
                q.short(),
                other.words(),
                o.other_syntax
                    .as_ref()
                    .map_or("not sent".into(), Seen::short)
            ),
        ),
        (None, _) => r(Verdict::NotRun, "not sent".into()),
    }
}

/// Whether a key that was taken was also read as a Structured Field string: the same key
/// written the other way must be the same key (its answer comes back) or, sent bare to a
/// strict reader, refused as malformed. Taken as new, the quotes are part of the key.
fn parsed(plan: &Plan, q: &Seen, o: &Observed) -> (Verdict, String) {
    let as_first =
        |s: &Seen| s.replayed || (s.whole() && q.whole() && s.body == q.body && !q.body.is_empty());
    if !o.retry.as_ref().is_some_and(as_first) {
        return (
            Verdict::Info,
            "; its repeat was not recognised (see replay), so whether the quotes were read as syntax cannot be told".into(),
        );
    }
    let other = plan.key_syntax.other();
    let Some(u) = &o.other_syntax_repeat else {
        return (
            Verdict::Info,
            format!(
                "; not shown to be parsed: the time ran out before the same key went {}",
                other.words()
            ),
        );
    };
    match (u.status, other) {
        _ if as_first(u) => (
            Verdict::Pass,
            format!(
                ", and the same key {} got the first answer ({}): the quotes were read as syntax",
                other.words(),
                u.short()
            ),
        ),
        (Some(400..=499), KeySyntax::Bare) => (
            Verdict::Pass,
            format!(
                "; the same key bare was refused ({}): the field is read as a Structured Field",
                u.short()
            ),
        ),
        (Some(400..=499), KeySyntax::SfString) => (
            Verdict::Fail,
            format!(
                "; the same key in quotes, as the draft writes it, was refused ({}): the field is not read as a Structured Field string",
                u.short()
            ),
        ),
        _ if u.ok() => (
            Verdict::Variant,
            format!(
                ", yet the same key {} was processed as new ({}): the quotes are kept as part of the key, so a client that {} gets a second effect",
                other.words(),
                u.short(),
                match other {
                    KeySyntax::Bare => "sends it bare",
                    KeySyntax::SfString => "quotes it, as the draft asks,",
                }
            ),
        ),
        _ => (
            Verdict::Info,
            format!(
                "; the same key {}: {}, so whether the quotes were read as syntax cannot be told",
                other.words(),
                u.status_text()
            ),
        ),
    }
}

fn other_syntax(plan: &Plan, o: &Observed) -> Row {
    match plan.key_syntax.other() {
        KeySyntax::Bare => open_question(
            "unquoted-key",
            "a key sent without quotes (not an sf-string): refused or taken",
            &o.other_syntax,
        ),
        KeySyntax::SfString => open_question(
            "quoted-key",
            "a key sent in quotes (an sf-string, as the draft writes it): refused or taken",
            &o.other_syntax,
        ),
    }
}

fn long(plan: &Plan, o: &Observed) -> Row {
    open_question(
        "long-key",
        match plan.key_syntax {
            KeySyntax::SfString => {
                "a quoted key of 256 characters (the draft sets no limit; Stripe's is 255)"
            }
            KeySyntax::Bare => {
                "a bare key of 256 characters (the draft sets no limit; Stripe's is 255)"
            }
        },
        &o.long,
    )
}

/// A row the draft leaves open: what the endpoint did, with no verdict on it.
fn open_question(check: &'static str, requirement: &'static str, seen: &Option<Seen>) -> Row {
    let r = row(check, requirement, Level::Info);
    match seen {
        None => r(Verdict::NotRun, "not sent: the time ran out".into()),
        Some(s) if s.ok() => r(Verdict::Info, format!("{}: taken", s.short())),
        Some(s) => r(Verdict::Info, format!("{}: refused", s.short())),
    }
}

fn expiry(plan: &Plan) -> Row {
    let r = row(
        "expiry",
        "the key expiry is published, and outlasts every way a duplicate can come",
        Level::Should,
    );
    let Some(e) = &plan.expiry else {
        return r(
            Verdict::NotRun,
            "give --expiry with the published retention to check it".into(),
        );
    };
    let mut stack = e.stack.clone();
    stack.window = std::time::Duration::from_millis(e.published_ms);
    let report = match stack.report() {
        Ok(report) => report,
        Err(err) => return r(Verdict::NotRun, format!("the calculator failed: {err}")),
    };
    let published = crate::units::duration_ms(e.published_ms);
    let required = crate::window::human_span(report.required_window);
    let uncovered: Vec<String> = report
        .paths
        .iter()
        .filter(|p| !p.covered)
        .map(|p| {
            format!(
                "{} ({})",
                crate::text::sanitize_line(&p.name),
                crate::window::human_span(p.delay)
            )
        })
        .collect();
    if !e.own_stack {
        // A stack the user did not give judges nothing: say what it shows, and how to ask.
        let shows = if uncovered.is_empty() {
            format!("{published} covers every path of {}", e.source)
        } else {
            format!(
                "{published} does not cover {} of {}",
                uncovered.join(", "),
                e.source
            )
        };
        return r(
            Verdict::Info,
            format!(
                "{shows}, an example stack, not yours; give --stack with your own retry stack to judge it"
            ),
        );
    }
    if uncovered.is_empty() {
        r(
            Verdict::Pass,
            format!(
                "{published} covers every path of {}; the calculator asks for {required} with its safety factor",
                e.source
            ),
        )
    } else {
        r(
            Verdict::Fail,
            format!(
                "{published} does not cover {} of {}; the calculator asks for {required}",
                uncovered.join(", "),
                e.source
            ),
        )
    }
}

/// What the drill saw that only a design which makes a second effect can do: requests that
/// overlap each processed as new, or a used key processed again for another body.
pub fn second_effects(o: &Observed) -> Vec<String> {
    let mut seen = Vec::new();
    if let Some(race) = &o.race {
        let new = distinct(race.iter().filter(|s| s.ok() && !s.replayed));
        if new > 1 {
            seen.push(format!(
                "{new} of {} requests sent at once were each processed as new",
                race.len()
            ));
        }
    }
    if let (Some(first), Some(m)) = (&o.first, &o.mismatch)
        && m.ok()
        && !m.replayed
        && m.body != first.body
    {
        seen.push("the same key with another body was processed again".to_string());
    }
    seen
}

/// Whether a design can make a second effect for one key where the drill looks: only those
/// may be named when a row saw one.
pub fn makes_second_effects(design: Design) -> bool {
    matches!(
        design,
        Design::NoKey | Design::LogAfterCharge | Design::ContentHash
    )
}

/// The design of the simulation that behaves most like what was seen, with the reason;
/// none when too little came back to tell. A design that never makes a second effect is never
/// named when a row saw one.
pub fn nearest(o: &Observed) -> Option<(Design, String)> {
    let found = nearest_by_answers(o)?;
    let twice = second_effects(o);
    if twice.is_empty() || makes_second_effects(found.0) {
        return Some(found);
    }
    let (a, b) = (o.first.as_ref()?, o.retry.as_ref()?);
    let repeat = if b.status == Some(409) && a.ok() && a.body == b.body {
        "a completed request's repeat gets its stored answer under 409"
    } else if b.status == Some(409) && a.ok() {
        "a completed request's repeat is refused with 409"
    } else {
        "a completed request's repeat gets its answer"
    };
    let overlap = o
        .race
        .as_ref()
        .is_some_and(|race| distinct(race.iter().filter(|s| s.ok() && !s.replayed)) > 1);
    let design = if overlap {
        Design::LogAfterCharge
    } else {
        Design::ContentHash
    };
    Some((
        design,
        format!(
            "{repeat}, but {}: more than one effect, which {} can make and {} cannot",
            crate::text::and_list(&twice.iter().map(String::as_str).collect::<Vec<_>>()),
            design.id(),
            found.0.id()
        ),
    ))
}

/// The nearest design judged from the first request and its retry, then the rest.
fn nearest_by_answers(o: &Observed) -> Option<(Design, String)> {
    let (a, b) = (o.first.as_ref()?, o.retry.as_ref()?);
    a.status?;
    b.status?;
    if a.ok() && !b.ok() && b.status != Some(409) && !b.replayed {
        return Some((
            Design::ContentHash,
            "the retry was refused as an error instead of replayed".into(),
        ));
    }
    if a.ok() && b.status == Some(409) {
        let how = if a.body == b.body {
            "gets its stored answer under 409 rather than a replay's 2xx"
        } else {
            "is refused with 409 instead of replayed"
        };
        return Some((
            Design::WithCharge,
            format!(
                "a completed request's repeat {how}, which keeps one charge as the key stored with it does"
            ),
        ));
    }
    let replayed = same_answer(a, b) || (a.status == b.status && b.replayed);
    if !replayed {
        return Some((
            Design::NoKey,
            "the retry was processed as a new request".into(),
        ));
    }
    if b.replayed && a.body != b.body {
        return Some((
            Design::LogBeforeCharge,
            "the retry was replayed with another answer than the first's: what the key remembers was written before the work was done".into(),
        ));
    }
    let race_split = o
        .race
        .as_ref()
        .is_some_and(|race| distinct(race.iter().filter(|s| s.ok() && !s.replayed)) > 1);
    if race_split {
        return Some((
            Design::LogAfterCharge,
            "retries are replayed once the first is done, but requests that overlap are each processed".into(),
        ));
    }
    match &o.mismatch {
        Some(m) if m.ok() && m.body == a.body => Some((
            Design::InProgressRecord,
            "retries are replayed, and a reused key gets the first answer whatever the body".into(),
        )),
        mismatch => {
            // Only what the drill saw: a part it did not get to is not claimed.
            let mut seen = vec!["retries are replayed"];
            if o.race
                .as_ref()
                .is_some_and(|race| race.iter().any(|s| s.status == Some(409)))
            {
                seen.push("overlapping ones refused with 409");
            }
            if mismatch
                .as_ref()
                .is_some_and(|m| matches!(m.status, Some(400 | 409 | 422)))
            {
                seen.push("a reused key with another body refused");
            }
            Some((Design::WithCharge, crate::text::and_list(&seen)))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seen(status: u16, body: &str) -> Seen {
        Seen {
            status: Some(status),
            body: body.into(),
            ..Seen::default()
        }
    }

    fn observed(retry: Seen, race: Vec<Seen>, mismatch: Seen) -> Observed {
        Observed {
            first: Some(seen(200, "ch_1")),
            retry: Some(retry),
            race: Some(race),
            mismatch: Some(mismatch),
            missing: Some(seen(400, "")),
            ..Observed::default()
        }
    }

    #[test]
    fn the_nearest_design_follows_the_answers() {
        let ok = |b: &str| seen(200, b);
        let with_charge = observed(ok("ch_1"), vec![ok("ch_2"), seen(409, "")], seen(422, ""));
        assert_eq!(nearest(&with_charge).map(|n| n.0), Some(Design::WithCharge));
        let no_key = observed(ok("ch_2"), vec![ok("ch_3"), ok("ch_4")], ok("ch_5"));
        assert_eq!(nearest(&no_key).map(|n| n.0), Some(Design::NoKey));
        let log = observed(ok("ch_1"), vec![ok("ch_2"), ok("ch_3")], ok("ch_1"));
        assert_eq!(nearest(&log).map(|n| n.0), Some(Design::LogAfterCharge));
        let record = observed(ok("ch_1"), vec![ok("ch_2"), seen(409, "")], ok("ch_1"));
        assert_eq!(
            nearest(&record).map(|n| n.0),
            Some(Design::InProgressRecord)
        );
        let hash = observed(seen(400, "dup"), vec![seen(400, "dup")], ok("ch_2"));
        assert_eq!(nearest(&hash).map(|n| n.0), Some(Design::ContentHash));
        let mut approved = seen(200, "approved");
        approved.replayed = true;
        let before = observed(approved, vec![ok("ch_2")], seen(422, ""));
        assert_eq!(nearest(&before).map(|n| n.0), Some(Design::LogBeforeCharge));
        assert_eq!(nearest(&Observed::default()), None);
        let refused = observed(
            seen(409, "conflict"),
            vec![ok("ch_2"), seen(409, "")],
            seen(409, ""),
        );
        assert_eq!(nearest(&refused).map(|n| n.0), Some(Design::WithCharge));
        assert_eq!(replay(&refused).verdict, Verdict::Variant);
    }

    /// A body that was not read whole, or a redirect, is never "the same body".
    #[test]
    fn an_unread_body_or_a_redirect_is_no_replay() {
        use super::super::client::{Cut, Unread};
        let cut = |bytes: u64, how: Cut| Seen {
            unread: Some(Unread {
                bytes,
                cut: how,
                why: (how == Cut::Failed).then(|| "it timed out".to_string()),
            }),
            ..seen(200, "")
        };
        for (first, retry, want) in [
            (
                cut(65_536, Cut::Bound),
                cut(65_536, Cut::Bound),
                "cut at the bound",
            ),
            (seen(200, "ch_1"), cut(10, Cut::Failed), "then it timed out"),
            (cut(0, Cut::Failed), cut(0, Cut::Failed), "0 bytes"),
        ] {
            let o = observed(retry, vec![], seen(422, ""));
            let o = Observed {
                first: Some(first),
                ..o
            };
            let row = replay(&o);
            assert_eq!(row.verdict, Verdict::Fail, "{}", row.seen);
            assert!(row.seen.contains("could not be read whole"), "{}", row.seen);
            assert!(row.seen.contains(want), "{}", row.seen);
            assert!(!row.seen.contains("the same body"), "{}", row.seen);
            assert_ne!(one_effect(&o).verdict, Verdict::Pass);
            assert_ne!(one_effect(&o).verdict, Verdict::Fail);
        }
        let moved = Seen {
            location: Some("/v2/charges".into()),
            ..seen(307, "")
        };
        let o = observed(moved.clone(), vec![], seen(422, ""));
        let o = Observed {
            first: Some(moved),
            ..o
        };
        let row = replay(&o);
        assert_eq!(row.verdict, Verdict::Fail, "{}", row.seen);
        assert!(
            row.seen
                .contains("redirected (307 Temporary Redirect to /v2/charges)"),
            "{}",
            row.seen
        );
    }

    #[test]
    fn no_design_that_keeps_one_effect_is_named_when_a_row_saw_two() {
        let ok = |b: &str| seen(200, b);
        // A completed repeat answered 409 with the stored body, five overlapping requests each
        // charged, a reused key charged again: not with-charge.
        let race = (1..=5).map(|n| ok(&format!("ch_{n}"))).collect();
        let refused = observed(seen(409, "ch_1"), race, ok("ch_9"));
        let (design, why) = nearest(&refused).expect("a design");
        assert!(makes_second_effects(design), "{design}: {why}");
        assert!(why.contains("each processed as new"), "{why}");
        // Replayed retries with a reused key charged again.
        let reuse = observed(ok("ch_1"), vec![ok("ch_2"), seen(409, "")], ok("ch_9"));
        let (design, why) = nearest(&reuse).expect("a design");
        assert!(makes_second_effects(design), "{design}: {why}");
        assert!(why.contains("another body"), "{why}");
        // Every combination of the rows: whatever is named agrees with what was seen.
        let answers = [
            ok("ch_1"),
            seen(409, "ch_1"),
            seen(400, "dup"),
            seen(422, ""),
        ];
        for retry in &answers {
            for m in &answers {
                for race in [
                    vec![ok("ch_2"), seen(409, "")],
                    vec![ok("ch_2"), ok("ch_3")],
                ] {
                    let o = observed(retry.clone(), race, m.clone());
                    if let Some((d, why)) = nearest(&o)
                        && !second_effects(&o).is_empty()
                    {
                        assert!(makes_second_effects(d), "{d}: {why}");
                    }
                }
            }
        }
    }

    fn timed(status: u16, body: &str, left: u64, head: u64) -> Seen {
        Seen {
            times: Some(client::Times {
                left_us: left,
                head_us: head,
                done_us: head + 100,
            }),
            ..seen(status, body)
        }
    }

    #[test]
    fn a_conflict_counts_only_while_the_first_is_in_flight() {
        // The success answered at 300 ms, the 409 (no stored answer) at 5 ms: in flight.
        let slow = observed(
            seen(200, "ch_1"),
            vec![timed(200, "a", 0, 300_000), timed(409, "busy", 0, 5_000)],
            seen(422, ""),
        );
        let row = concurrent(&slow);
        assert_eq!(row.verdict, Verdict::Pass, "{}", row.seen);
        assert!(
            row.seen.contains("while it was still being worked on"),
            "{}",
            row.seen
        );
        // The success answered at 2 ms, every 409 later: not tested.
        let fast = observed(
            seen(200, "ch_1"),
            vec![timed(200, "a", 0, 2_000), timed(409, "busy", 0, 9_000)],
            seen(422, ""),
        );
        let row = concurrent(&fast);
        assert_eq!(row.verdict, Verdict::NotRun, "{}", row.seen);
        assert!(row.seen.contains("not tested"), "{}", row.seen);
    }

    /// A server that stores the answer a moment before its bytes leave: its 409s carry that
    /// answer and may come back before it. They answered a completed request.
    #[test]
    fn a_409_carrying_the_stored_answer_is_never_a_conflict_in_flight() {
        let early = observed(
            seen(201, "ch_1"),
            vec![timed(201, "ch_7", 0, 30_000), timed(409, "ch_7", 0, 20_000)],
            seen(422, ""),
        );
        let row = concurrent(&early);
        assert_eq!(row.verdict, Verdict::NotRun, "{}", row.seen);
        assert!(row.seen.contains("already completed"), "{}", row.seen);
        // Nor one only just ahead of the first answer: nothing shows the work overlapped.
        let close = observed(
            seen(201, "ch_1"),
            vec![timed(201, "ch_7", 0, 30_000), timed(409, "busy", 0, 25_000)],
            seen(422, ""),
        );
        assert_eq!(concurrent(&close).verdict, Verdict::NotRun);
    }

    /// Five open together for half a second, each answered with the first's answer: held
    /// and replayed, a pass of its own kind, never "no overlap was seen".
    #[test]
    fn repeats_held_until_the_first_finished_then_replayed_pass_by_name() {
        let race: Vec<Seen> = (0..5)
            .map(|i| timed(201, "ch_3", i * 100, 505_000 + i * 50))
            .collect();
        let row = concurrent(&observed(seen(201, "ch_1"), race, seen(422, "")));
        assert_eq!(row.verdict, Verdict::Pass, "{}", row.seen);
        assert!(
            row.seen
                .contains("held until the first finished, then replayed")
                && row.seen.contains("open together for 504 ms"),
            "{}",
            row.seen
        );
        // Sent one after another's answer, they never overlapped.
        let serial: Vec<Seen> = (0..3)
            .map(|i| timed(201, "ch_3", i * 10_000, i * 10_000 + 2_000))
            .collect();
        let row = concurrent(&observed(seen(201, "ch_1"), serial, seen(422, "")));
        assert_eq!(row.verdict, Verdict::Info, "{}", row.seen);
    }

    /// Two identical errors are no replay, and say nothing of an effect.
    #[test]
    fn errors_answered_alike_pass_nothing() {
        let o = observed(seen(400, "Invalid key"), vec![], seen(400, "Invalid key"));
        let o = Observed {
            first: Some(seen(400, "Invalid key")),
            ..o
        };
        assert_eq!(replay(&o).verdict, Verdict::Info, "{}", replay(&o).seen);
        assert_eq!(one_effect(&o).verdict, Verdict::Info);
    }

    #[test]
    fn an_expiry_held_against_a_stack_nobody_gave_fails_nothing() {
        let with = |own_stack: bool| Plan {
            expiry: Some(super::super::battery::Expiry {
                published_ms: 10_000,
                stack: crate::window::Stack::worked_example(),
                source: "the worked example of idem window".into(),
                own_stack,
            }),
            ..test_plan()
        };
        let example = expiry(&with(false));
        assert_eq!(example.verdict, Verdict::Info, "{}", example.seen);
        assert!(example.seen.contains("not yours"), "{}", example.seen);
        assert!(example.seen.contains("--stack"), "{}", example.seen);
        // The same numbers against a stack the user gave are a verdict.
        assert_eq!(expiry(&with(true)).verdict, Verdict::Fail);
    }

    #[test]
    fn a_409_carrying_the_first_answer_is_not_called_a_refusal() {
        let o = observed(seen(409, "ch_1"), vec![seen(200, "a")], seen(422, ""));
        let row = replay(&o);
        assert_eq!(row.verdict, Verdict::Variant);
        assert!(
            row.seen.contains("first answer's body under 409"),
            "{}",
            row.seen
        );
        assert!(!row.seen.contains("refused"), "{}", row.seen);
    }

    #[test]
    fn a_refusal_by_an_unusual_status_is_named_with_its_reason() {
        let mut o = observed(seen(200, "ch_1"), vec![seen(200, "a")], seen(417, ""));
        o.missing = Some(seen(417, ""));
        let row = missing(&o);
        assert!(row.seen.contains("417 Expectation Failed"), "{}", row.seen);
        let m = mismatch(&test_plan(), &o);
        assert_eq!(
            m.seen,
            "417 Expectation Failed: refused, though not with 422"
        );
        assert_eq!(m.verdict, Verdict::Variant);
    }

    #[test]
    fn a_race_passes_only_with_one_success_and_conflicts() {
        let o = |race| observed(seen(200, "ch_1"), race, seen(422, ""));
        let v = |o: &Observed| concurrent(o).verdict;
        assert_eq!(v(&o(vec![seen(200, "a"), seen(409, "")])), Verdict::Pass);
        assert_eq!(v(&o(vec![seen(200, "a"), seen(200, "b")])), Verdict::Fail);
        assert_eq!(v(&o(vec![seen(200, "a"), seen(200, "a")])), Verdict::Info);
        assert_eq!(v(&o(vec![seen(409, ""), seen(409, "")])), Verdict::Fail);
        assert_eq!(v(&o(vec![seen(200, "a"), seen(500, "")])), Verdict::Fail);
    }

    #[test]
    fn a_reused_key_answered_400_or_409_is_a_variant() {
        let v = |m| mismatch_verdict(m);
        assert_eq!(v(seen(422, "")), Verdict::Pass);
        assert_eq!(v(seen(400, "")), Verdict::Variant);
        assert_eq!(v(seen(409, "")), Verdict::Variant);
        assert_eq!(v(seen(200, "ch_1")), Verdict::Fail);
        assert_eq!(v(seen(200, "ch_9")), Verdict::Fail);
    }

    fn test_plan() -> Plan {
        super::super::battery::Plan {
            target: super::super::target::Target {
                url: "http://127.0.0.1:1/".into(),
                loopback: true,
            },
            body: serde_json::json!({"amount": 1}),
            other_body: Some(serde_json::json!({"amount": 2})),
            read_back: None,
            concurrency: 2,
            timeout: std::time::Duration::from_secs(1),
            max_time: std::time::Duration::from_secs(1),
            expiry: None,
            key_format: super::super::battery::KeyFormat::Token,
            expiry_wait: None,
            kept_for: None,
            tag: "t".into(),
            key_syntax: super::super::battery::KeySyntax::SfString,
        }
    }

    fn mismatch_verdict(m: Seen) -> Verdict {
        mismatch(&test_plan(), &observed(seen(200, "ch_1"), vec![], m)).verdict
    }

    /// The long-key row says how long the key it sent was.
    #[test]
    fn the_long_key_row_names_the_length_sent() {
        let row = long(&test_plan(), &Observed::default());
        assert!(
            row.requirement
                .contains(&format!("{} characters", super::super::battery::LONG_KEY)),
            "{}",
            row.requirement
        );
    }
}
