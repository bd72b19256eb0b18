//! The engine's small vocabularies hold together: each design's place, number key and id
//! (serialised as its id: the derived name once split `inprogress-record` in two); each key
//! strategy's and key mode's id as files and JSON write it; and money read from a file, cent
//! for cent.

use idem::sim::config::{KeyMode, KeyStrategy};
use idem::sim::money::parse_money;
use idem::sim::{Cents, Design};

#[test]
fn each_design_has_its_own_place_number_and_id() {
    for (place, design) in Design::ALL.into_iter().enumerate() {
        assert_eq!(design.index(), place, "{design:?}");
        assert_eq!(usize::from(design.hotkey()), place + 1, "{design:?}");
        assert_eq!(Design::from_hotkey(design.hotkey()), Some(design));
        let json = serde_json::to_string(&design).expect("a design serialises");
        assert_eq!(json, format!("\"{}\"", design.id()), "{design:?}");
    }
    let mut ids: Vec<&str> = Design::ALL.iter().map(|d| d.id()).collect();
    ids.dedup();
    assert_eq!(ids.len(), Design::ALL.len());
    assert_eq!(Design::from_hotkey(0), None);
    assert_eq!(Design::from_hotkey(7), None);
}

#[test]
fn a_key_strategy_and_a_key_mode_are_written_by_their_ids() {
    let strategies = [
        KeyStrategy::PerIntent,
        KeyStrategy::PerAttempt,
        KeyStrategy::None,
    ];
    for s in strategies {
        let json = serde_json::to_string(&s).expect("a strategy serialises");
        assert_eq!(json, format!("\"{}\"", s.id()), "{s:?}");
    }
    assert_eq!(
        strategies.map(|s| s.id()),
        ["per-intent", "per-attempt", "none"]
    );
    // K goes round every strategy and back.
    let mut s = KeyStrategy::PerIntent;
    let mut seen = Vec::new();
    for _ in 0..3 {
        seen.push(s);
        s = s.next();
    }
    assert_eq!(s, KeyStrategy::PerIntent);
    seen.sort();
    seen.dedup();
    assert_eq!(seen.len(), 3);
    let mut m = KeyMode::Derived;
    let mut modes = Vec::new();
    for _ in 0..3 {
        let json = serde_json::to_string(&m).expect("a mode serialises");
        assert_eq!(json, format!("\"{}\"", m.id()), "{m:?}");
        modes.push(m.id());
        m = m.next();
    }
    assert_eq!(m, KeyMode::Derived);
    modes.sort();
    modes.dedup();
    assert_eq!(modes.len(), 3);
}

#[test]
fn money_is_read_cent_for_cent() {
    for (text, cents) in [
        ("$48.60", 4860),
        ("48.60", 4860),
        ("48.6", 4860),
        ("48.06", 4806),
        ("48", 4800),
        (" $48.60 ", 4860),
        ("$1,250.00", 125_000),
        ("1,234,567.89", 123_456_789),
        ("0.05", 5),
        // A point with no cents after it is read as whole dollars.
        ("48.", 4800),
        ("$1,000,000,000.00", 100_000_000_000),
    ] {
        assert_eq!(parse_money(text), Ok(Cents(cents)), "{text}");
    }
    for text in [
        "",
        "$",
        ".50",
        "4.605",
        "-4.60",
        "+4",
        "4.6x",
        "x4.60",
        "$$4",
        "1,2",
        "12,50",
        "1,,250",
        "1,250.0,0",
        "$1,000,000,000.01",
        "99999999999999999999",
    ] {
        assert!(
            parse_money(text).is_err(),
            "{text} read as {:?}",
            parse_money(text)
        );
    }
}

#[test]
fn each_design_has_a_name_of_its_own_and_is_shown_by_its_id() {
    let mut names: Vec<&str> = Design::ALL.iter().map(|d| d.name()).collect();
    assert!(names.iter().all(|n| n.len() > 3), "{names:?}");
    assert_eq!(Design::WithCharge.name(), "key stored with the charge");
    names.sort();
    names.dedup();
    assert_eq!(names.len(), Design::ALL.len());
    for d in Design::ALL {
        assert_eq!(d.to_string(), d.id());
        assert_ne!(d.name(), d.id());
    }
}

/// The story's keys as written and as K or m changes them: each change is seen for what it
/// changed (the checkout's strategy, a layer's key, a step's), and setting a story's keys back
/// as written undoes every one of them.
#[test]
fn a_change_of_keys_is_seen_for_what_it_changed_and_undone_as_written() {
    use idem::sim::config::LayerKey;
    let written = idem::scenario::library::find("courier-retry")
        .expect("built in")
        .load()
        .expect("loads");
    let as_written = written.config.keying();
    assert!(!as_written.checkout_differs(&written.keying_as_written));
    assert!(!as_written.steps_differ(&written.keying_as_written));
    assert_eq!(written.keys_changed(), Vec::<&str>::new());

    let by_strategy = written
        .rekeyed(Some(KeyStrategy::PerAttempt), None)
        .expect("rekeyed");
    let k = by_strategy.config.keying();
    assert!(k.checkout_differs(&as_written) && !k.steps_differ(&as_written));
    assert_eq!(by_strategy.keys_changed(), ["the checkout's keys"]);

    // The strategy as written, one layer keyed otherwise: still the checkout's keys.
    let mut by_layer = written.clone();
    by_layer.config.layers[0].key = LayerKey::None;
    let l = by_layer.config.keying();
    assert_eq!(l.strategy, as_written.strategy);
    assert!(l.checkout_differs(&as_written));
    assert!(!l.steps_differ(&as_written));

    let by_steps = written.rekeyed(None, Some(KeyMode::None)).expect("rekeyed");
    let m = by_steps.config.keying();
    assert!(m.steps_differ(&as_written) && !m.checkout_differs(&as_written));
    assert_eq!(by_steps.keys_changed(), ["the steps' keys"]);

    let both = written
        .rekeyed(Some(KeyStrategy::None), Some(KeyMode::PerAttempt))
        .expect("rekeyed");
    assert_eq!(
        both.keys_changed(),
        ["the checkout's keys", "the steps' keys"]
    );
    // And back: every key as the file writes it.
    let mut back = both.clone();
    back.config.set_keying(&written.keying_as_written);
    assert_eq!(back.config.keying(), as_written);
    assert_eq!(back.keys_changed(), Vec::<&str>::new());
    assert_ne!(
        both.simulate(Design::WithCharge)
            .expect("simulates")
            .outcome,
        back.simulate(Design::WithCharge)
            .expect("simulates")
            .outcome,
        "the keys change what happens, and setting them back undoes it"
    );
}

/// Found by mutation testing: the names the story and the JSON are written with, tested until
/// now only through them, in the crates above.
#[test]
fn lanes_tick_kinds_and_step_states_have_their_words() {
    use idem::sim::TickKind;
    use idem::sim::trace::StepState;
    let lanes: Vec<&str> = idem::sim::Actor::ALL.iter().map(|a| a.name()).collect();
    assert_eq!(lanes, ["Customer", "Checkout", "Network", "Processor"]);
    for (kind, id) in [
        (TickKind::Pay, "pay"),
        (TickKind::Send, "send"),
        (TickKind::Lookup, "lookup"),
        (TickKind::Lost, "lost"),
        (TickKind::Charge, "charge"),
        (TickKind::Replay, "replay"),
        (TickKind::Conflict, "conflict"),
    ] {
        assert_eq!(kind.id(), id);
    }
    let states: Vec<&str> = [StepState::NotRun, StepState::Done, StepState::Unknown]
        .iter()
        .map(|s| s.label())
        .collect();
    assert_eq!(states, ["not run", "done", "unknown"]);
}

/// The tick a moment names is the last at or before it; a run kept for its outcome alone
/// keeps no tick or message.
#[test]
fn a_moment_finds_its_last_tick_and_an_outcome_keeps_no_ticks() {
    let scenario = idem::scenario::library::default_scenario().expect("built in");
    let trace = scenario.simulate(Design::NoKey).expect("simulates");
    for (i, tick) in trace.ticks.iter().enumerate() {
        let last_at_that_moment = trace
            .ticks
            .iter()
            .rposition(|t| t.at == tick.at)
            .expect("it");
        assert!(last_at_that_moment >= i);
        assert_eq!(trace.tick_at_or_before(tick.at), last_at_that_moment);
    }
    let first = trace.ticks[0].at.0;
    assert_eq!(
        trace.tick_at_or_before(idem::sim::Instant(first.saturating_sub(1))),
        0
    );
    let last = trace.ticks.len() - 1;
    assert_eq!(trace.tick_at_or_before(idem::sim::Instant(u64::MAX)), last);
    let outcome = trace.outcome.clone();
    let kept = trace.outcome_only();
    assert!(kept.ticks.is_empty() && kept.requests.is_empty() && kept.replies.is_empty());
    assert!(kept.lookups.is_empty() && kept.calls.is_empty());
    assert_eq!(kept.outcome, outcome);
    // The lookups and the calls to services go too, where a run has them.
    for name in ["lookup-first", "courier-retry"] {
        let scenario = idem::scenario::library::find(name)
            .expect("built in")
            .load()
            .expect("loads");
        let trace = scenario.simulate(Design::WithCharge).expect("simulates");
        assert!(
            !trace.lookups.is_empty() || !trace.calls.is_empty(),
            "{name}"
        );
        let kept = trace.outcome_only();
        assert!(kept.lookups.is_empty() && kept.calls.is_empty(), "{name}");
    }
}
