//! Each checkout layer handles the idempotency key its own way: it forwards the key it is
//! handed, gives each of its attempts a fresh one, or drops it. The key that reaches the
//! processor is whatever the innermost layer passes on.

use crate::common;

use common::inline::ORDER;
use idem::scenario::{self, Scenario};
use idem::sim::config::{KeySource, KeyStrategy, LayerKey};
use idem::sim::fact::Fact;
use idem::sim::trace::Trace;
use idem::sim::{Design, TickKind};

/// A mobile app (outer, 3 attempts) behind an API gateway (inner, 2 attempts), every answer
/// lost, with the given `key` lines for the gateway and the app.
fn app_behind_gateway(gateway_key: &str, app_key: &str, checkout: &str) -> Scenario {
    let source = format!(
        "title = \"layers\"\nseed = 1\n{checkout}\n\
         [[checkout.layer]]\nname = \"API gateway\"\nattempts = 2\ntimeout = \"10s\"\nbackoff = \"1s\"\n{gateway_key}\n\
         [[checkout.layer]]\nname = \"mobile app\"\nattempts = 3\nbackoff = \"5s\"\n{app_key}\n\
         {ORDER}\n{}",
        (1..=6)
            .map(|n| format!("[[fault]]\nattempt = {n}\nlose = \"reply\"\n"))
            .collect::<String>()
    );
    scenario::parse("layers.toml", "layers", &source)
        .unwrap_or_else(|e| panic!("the scenario does not parse:\n{e}\n---\n{source}"))
}

fn run(s: &Scenario, design: Design) -> Trace {
    s.simulate(design)
        .unwrap_or_else(|e| panic!("{design}: {e}"))
}

/// The key each request carried, in the order they were sent.
fn keys(trace: &Trace) -> Vec<Option<String>> {
    trace
        .requests
        .iter()
        .filter(|r| r.copy == 0)
        .map(|r| r.key.as_ref().map(|k| k.to_string()))
        .collect()
}

fn narration(s: &Scenario, trace: &Trace, kind: TickKind) -> String {
    let told = idem::story::tell(&s.config, trace);
    let at = trace
        .ticks
        .iter()
        .position(|t| t.kind == kind)
        .unwrap_or_else(|| panic!("no {kind:?} tick"));
    told.narrations[at].clone()
}

#[test]
fn an_app_that_mints_per_attempt_behind_a_forwarding_gateway_changes_key_per_app_attempt() {
    let s = app_behind_gateway("key = \"forward\"", "key = \"per-attempt\"", "");
    assert_eq!(s.config.key_source(), KeySource::Minted { layer: 1 });
    let trace = run(&s, Design::WithCharge);
    let keys = keys(&trace);
    assert_eq!(keys.len(), 6, "{keys:?}");
    // The gateway's two tries share the app's key; each app attempt brings a new one.
    assert_eq!(keys[0].as_deref(), Some("K7Q4"));
    assert_eq!(keys[0], keys[1]);
    assert_eq!(keys[2], keys[3]);
    assert_eq!(keys[4], keys[5]);
    assert_ne!(keys[1], keys[2]);
    assert_ne!(keys[3], keys[4]);
    assert_ne!(keys[0], keys[4]);
    // Stored with the charge, the key stops the gateway's retry but not the app's: one
    // charge per app attempt.
    assert_eq!(trace.outcome.charges, 3);
    assert_eq!(run(&s, Design::NoKey).outcome.charges, 6);
}

#[test]
fn forwarding_everywhere_is_one_key_for_every_attempt() {
    let s = app_behind_gateway("", "", "");
    assert_eq!(s.config.key_source(), KeySource::Order);
    let trace = run(&s, Design::WithCharge);
    assert!(keys(&trace).iter().all(|k| k.as_deref() == Some("K7Q4")));
    assert_eq!(trace.outcome.charges, 1);
}

#[test]
fn the_checkout_wide_per_attempt_strategy_is_the_innermost_layer_minting() {
    let shorthand = app_behind_gateway("", "", "[checkout]\nkey_strategy = \"per-attempt\"\n");
    let spelled = app_behind_gateway("key = \"per-attempt\"", "", "");
    assert_eq!(shorthand.config.layers[0].key, LayerKey::PerAttempt);
    assert_eq!(shorthand.config.layers[1].key, LayerKey::Forward);
    for design in Design::ALL {
        let a = run(&shorthand, design);
        let b = run(&spelled, design);
        assert_eq!(keys(&a), keys(&b), "{design}");
        assert_eq!(a.outcome.charges, b.outcome.charges, "{design}");
    }
    let keys = keys(&run(&shorthand, Design::WithCharge));
    let mut unique = keys.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), 6, "every request has its own key: {keys:?}");
}

#[test]
fn a_gateway_that_drops_the_key_sends_none_and_the_processor_refuses() {
    let s = app_behind_gateway("key = \"none\"", "", "");
    assert_eq!(s.config.key_source(), KeySource::Dropped { layer: 0 });
    let trace = run(&s, Design::WithCharge);
    assert!(keys(&trace).iter().all(Option::is_none));
    // A request without a key is answered 400 with no effect.
    assert_eq!(trace.outcome.charges, 0);
    assert_eq!(trace.outcome.intents[0].key, None);
}

#[test]
fn a_gateway_that_mints_under_an_app_that_forwards_is_a_new_key_per_request() {
    let s = app_behind_gateway("key = \"per-attempt\"", "key = \"forward\"", "");
    let keys = keys(&run(&s, Design::WithCharge));
    let mut unique = keys.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), 6, "{keys:?}");
}

#[test]
fn an_app_that_mints_under_a_shop_that_mints_nothing_still_starts_with_the_order_key() {
    let s = app_behind_gateway(
        "",
        "key = \"per-attempt\"",
        "[checkout]\nkey_strategy = \"none\"\n",
    );
    let keys = keys(&run(&s, Design::WithCharge));
    assert_eq!(keys[0].as_deref(), Some("K7Q4"));
    assert_eq!(keys[0], keys[1]);
    assert_ne!(keys[1], keys[2]);
}

#[test]
fn the_narration_says_which_layer_mints_and_which_forwards() {
    let s = app_behind_gateway("key = \"forward\"", "key = \"per-attempt\"", "");
    let trace = run(&s, Design::WithCharge);
    let pay = narration(&s, &trace, TickKind::Pay);
    assert!(
        pay.contains("The mobile app gives each of its attempts a new key (K7Q4 first)"),
        "{pay}"
    );
    assert!(
        pay.contains("the API gateway beneath it passes that key on"),
        "{pay}"
    );

    let dropped = app_behind_gateway("key = \"none\"", "", "");
    let trace = run(&dropped, Design::WithCharge);
    let pay = narration(&dropped, &trace, TickKind::Pay);
    assert!(
        pay.contains("The API gateway passes the request on without its idempotency key"),
        "{pay}"
    );
}

#[test]
fn a_lookup_before_the_retry_names_the_key_the_retry_really_carries() {
    // The app mints per attempt and asks first: after the gateway's tries run out, the app's
    // retry goes out under a new key, and the narration must say so. Under no-key the
    // processor remembers nothing, so every lookup reads "not found" and a retry follows.
    let s = app_behind_gateway(
        "key = \"forward\"",
        "key = \"per-attempt\"",
        "[checkout]\nlookup = true\n",
    );
    let trace = run(&s, Design::NoKey);
    let told = idem::story::tell(&s.config, &trace);
    let mut saw_new = false;
    let mut saw_same = false;
    for (i, tick) in trace.ticks.iter().enumerate() {
        if !matches!(tick.fact, Fact::LookedUp { .. }) {
            continue;
        }
        let text = &told.narrations[i];
        if text.contains("with a new key") {
            saw_new = true;
        }
        if text.contains("with the same key") {
            saw_same = true;
        }
    }
    assert!(saw_same, "the gateway's retry keeps the key");
    assert!(saw_new, "the app's retry brings a new key");
}

#[test]
fn setting_the_strategy_resets_every_layer_to_its_default() {
    let mut s = app_behind_gateway("key = \"none\"", "key = \"per-attempt\"", "");
    assert!(s.config.layer_keys_differ());
    s.config.set_key_strategy(KeyStrategy::PerAttempt);
    assert!(!s.config.layer_keys_differ());
    assert_eq!(s.config.key_source(), KeySource::Minted { layer: 0 });
    s.config.set_key_strategy(KeyStrategy::PerIntent);
    assert_eq!(s.config.key_source(), KeySource::Order);
    assert_eq!(run(&s, Design::WithCharge).outcome.charges, 1);
}

#[test]
fn the_mobile_gateway_incident_charges_once_when_every_attempt_carries_the_order_key() {
    let mut s = idem::scenario::library::find("mobile-gateway")
        .expect("built in")
        .load()
        .expect("loads");
    assert_eq!(s.config.key_source(), KeySource::Minted { layer: 1 });
    assert_eq!(run(&s, Design::WithCharge).outcome.charges, 2);
    s.config.set_key_strategy(KeyStrategy::PerIntent);
    assert_eq!(run(&s, Design::WithCharge).outcome.charges, 1);
    assert_eq!(run(&s, Design::NoKey).outcome.charges, 2);
}

/// Under an app that mints per attempt, the gateway's retry of the app's second attempt
/// carries that attempt's key: its narration says which attempt it repeats, and the app's
/// own retry is told as a new purchase.
#[test]
fn a_retry_under_a_minted_key_is_told_as_a_repeat_of_the_attempt_that_minted_it() {
    let s = app_behind_gateway("key = \"forward\"", "key = \"per-attempt\"", "");
    let trace = run(&s, Design::WithCharge);
    let told = idem::story::tell(&s.config, &trace);
    let send = |attempt: u32| {
        let at = trace
            .ticks
            .iter()
            .position(|t| t.kind == TickKind::Send && t.attempt == Some(attempt))
            .unwrap_or_else(|| panic!("no send of #{attempt}"));
        told.narrations[at].clone()
    };
    assert!(
        send(2).contains("the same key as attempt #1"),
        "{}",
        send(2)
    );
    assert!(send(3).contains("a different purchase"), "{}", send(3));
    let fourth = send(4);
    assert!(fourth.contains("the key of attempt #3"), "{fourth}");
    assert!(
        fourth.contains("repeat of attempt #3, but not of attempt #1"),
        "{fourth}"
    );
    assert!(!fourth.contains("different purchase"), "{fourth}");
}
