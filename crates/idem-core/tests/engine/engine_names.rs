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
