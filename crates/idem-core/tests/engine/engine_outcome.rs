//! The engine's arithmetic and its words about itself: each order's charges and money in the
//! outcome, a step's retry counted as the try it is, how the layers multiply, why a run was
//! stopped, and how many runs a thread has started.

use idem::scenario::{self, library};
use idem::sim::fact::{Fact, Next};
use idem::sim::{Cents, Design, SimError};

#[test]
fn each_order_is_charged_the_sum_of_its_own_charges() {
    let base = library::find("order-5531")
        .expect("built in")
        .load()
        .expect("loads");
    let mut text = base.text.clone();
    text.push_str(
        "\n[[intent]]\norder = \"5547\"\nkey = \"P2W9\"\namount = \"$12.25\"\nat = \"16:00:00\"\n",
    );
    let s = scenario::parse("two.toml", "two", &text).unwrap_or_else(|e| panic!("{e}"));
    for (design, first) in [(Design::WithCharge, 1), (Design::NoKey, 2)] {
        let o = s.simulate(design).expect("simulates").outcome;
        assert_eq!(o.intents[0].charges, first, "{design}");
        assert_eq!(
            o.intents[0].charged_cents,
            Cents(4860 * first as i64),
            "{design}"
        );
        assert_eq!(o.intents[1].charges, 1, "{design}");
        assert_eq!(o.intents[1].charged_cents, Cents(1225), "{design}");
        assert_eq!(
            o.charged_cents,
            Cents(4860 * first as i64 + 1225),
            "{design}"
        );
        assert_eq!(o.charges, first + 1, "{design}");
    }
}

#[test]
fn a_steps_retry_is_counted_as_the_try_it_is() {
    let source = crate::common::inline::one_layer(
        3,
        "backoff = \"1s\"",
        "[[step]]\nservice = \"courier\"\nattempts = 3\ntimeout = \"10s\"\n\
         [[step.fault]]\nattempt = 1\nlose = \"reply\"\n[[step.fault]]\nattempt = 2\nlose = \"reply\"\n",
    );
    let s = scenario::parse("s.toml", "s", &source).unwrap_or_else(|e| panic!("{e}"));
    let trace = s.simulate(Design::WithCharge).expect("simulates");
    let retries: Vec<(u32, u32)> = trace
        .ticks
        .iter()
        .filter_map(|t| match t.fact {
            Fact::CallTimedOut {
                next: Next::Retry { n, of, .. },
                ..
            } => Some((n, of)),
            _ => None,
        })
        .collect();
    assert_eq!(retries, [(2, 3), (3, 3)]);
}

#[test]
fn the_layers_are_described_as_they_multiply() {
    let s = library::find("order-5531")
        .expect("built in")
        .load()
        .expect("loads");
    let one = idem::sim::describe_layers(&s.config);
    assert!(one.ends_with("attempts per run"), "{one}");
    let source = "title = \"t\"\n[[checkout.layer]]\nname = \"client\"\nattempts = 3\ntimeout = \"2s\"\n\
        [[checkout.layer]]\nname = \"service\"\nattempts = 4\nbackoff = \"1s\"\n\
        [[intent]]\norder = \"1\"\nkey = \"K1\"\namount = \"$1.00\"\nat = \"10:00:00\"\n";
    let s = scenario::parse("l.toml", "l", source).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        idem::sim::describe_layers(&s.config),
        "client 3 × service 4 = 12 attempts per run"
    );
}

#[test]
fn a_stopped_run_says_why() {
    let ticks = SimError::TooManyTicks {
        limit: 100_000,
        layers: "client 3 × service 4 = 12 attempts per run".into(),
    };
    assert_eq!(
        ticks.to_string(),
        "the simulation passed 100000 ticks and was stopped; the retry layers (client 3 × service 4 = 12 attempts per run) multiply into more attempts than can be shown"
    );
    let events = SimError::TooManyEvents { limit: 7 }.to_string();
    assert!(
        events.starts_with("the simulation handled 7 events"),
        "{events}"
    );
    let steps = SimError::TooManySteps {
        steps: 9,
        requests: 2,
    }
    .to_string();
    assert!(
        steps.starts_with("the processor took 9 steps over 2 requests"),
        "{steps}"
    );
}

#[test]
fn each_simulation_is_counted_on_its_thread() {
    let s = library::find("order-5531")
        .expect("built in")
        .load()
        .expect("loads");
    std::thread::spawn(move || {
        assert_eq!(idem::sim::runs_on_this_thread(), 0);
        s.simulate(Design::WithCharge).expect("simulates");
        s.simulate(Design::NoKey).expect("simulates");
        s.simulate(Design::NoKey).expect("simulates");
        assert_eq!(idem::sim::runs_on_this_thread(), 3);
    })
    .join()
    .expect("counts");
}

/// A body's hash, as `content-hash` remembers it and the story names it, is the top six hex
/// digits of the digest the request carries.
#[test]
fn a_body_hash_is_its_digests_first_six_hex_digits() {
    let s = library::find("order-5531")
        .expect("built in")
        .load()
        .expect("loads");
    let trace = s.simulate(Design::ContentHash).expect("simulates");
    assert!(!trace.requests.is_empty());
    for r in &trace.requests {
        assert_eq!(r.body_hash(), format!("{:016x}", r.content)[..6], "{r:?}");
    }
}
