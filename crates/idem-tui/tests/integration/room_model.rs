//! A model-based test of teaching a room: a session of three parts, presented with the
//! design's name hidden, driven through random sequences of key presses (stepping, switching
//! design, answering, counting hands, revealing, taking back, re-keying with K and m, what-ifs,
//! undo, `0`, `n`, help, compare, Esc). After every key, what the room and the speaker notes
//! are told must hold together:
//!
//! 1. the notes see what the presenter shows: the state lines match the app, and the story
//!    the notes rebuild from the published file is the one on screen;
//! 2. while the design's name is hidden, no design's name or id is drawn, help included;
//! 3. a question's answer is never drawn before its reveal;
//! 4. the score moves only on an answer, a reveal or a take-back;
//! 5. `0` returns to the story as the file writes it.
//!
//! `PROPTEST_CASES` raises the number of sequences for a long run (the default keeps the
//! test under about twenty seconds in a debug build).

use crate::common;

use common::{ch, key, press, render};
use idem::present::Hide;
use idem::present::playlist::Playlist;
use idem::scenario::fork::WhatIf;
use idem::sim::Design;
use idem::tui::App;
use idem::tui::Msg;
use idem::tui::app::{Launch, Overlay};
use proptest::prelude::*;
use ratatui::crossterm::event::{KeyCode, KeyEvent};
use std::collections::HashMap;
use std::sync::OnceLock;

/// The session, read once: every case starts from a copy.
fn three() -> Playlist {
    static PLAYLIST: OnceLock<Playlist> = OnceLock::new();
    PLAYLIST.get_or_init(common::three_parts).clone()
}

/// The session in presenter mode, the design's name hidden from the room.
fn presenting() -> App {
    let playlist = three();
    let first = playlist.sections[0].clone();
    let launch = Launch {
        present: true,
        design: Some(first.design),
        hide: Hide {
            design: true,
            ..Hide::default()
        },
        playlist: Some(playlist),
        ..Launch::default()
    };
    App::launch(first.scenario, first.source, launch).expect("simulates")
}

// ---------------------------------------------------------------- what the generator draws

/// One thing the presenter does, as the keys that do it.
#[derive(Clone, Debug)]
enum Act {
    /// PageDown (a clicker's next).
    Next,
    /// PageUp.
    Prev,
    /// Home.
    First,
    /// End.
    Last,
    /// A number key, 1–6 (another design; in answer mode, an answer; in compare, a column).
    Digit(u8),
    /// `a`, then the answer's number (1-based; past the choices it is refused).
    Answer(u8),
    /// `v`, then each choice's count typed with ↓ between them, then Enter.
    Votes(Vec<u16>),
    /// Enter: reveals an answer that waits.
    Enter,
    /// `u`: takes the room's answer back, or a what-if (or K, m) when no answer waits.
    Undo,
    /// `K`: the checkout's keys the next way.
    Keys,
    /// `m`: the steps' keys the next way.
    StepKeys,
    /// `0`: back to the story as written.
    AsWritten,
    /// `x`, `!` or `s`: a what-if here.
    Fork(WhatIf),
    /// `n`: reveal what is hidden, or hide it again.
    Hidden,
    /// `?`: help, or close it.
    Help,
    /// `c`: the compare screen, or back.
    Compare,
    /// Esc.
    Back,
}

impl Act {
    fn keys(&self) -> Vec<KeyEvent> {
        match self {
            Act::Next => vec![key(KeyCode::PageDown)],
            Act::Prev => vec![key(KeyCode::PageUp)],
            Act::First => vec![key(KeyCode::Home)],
            Act::Last => vec![key(KeyCode::End)],
            Act::Digit(d) => vec![digit(*d)],
            Act::Answer(n) => vec![ch('a'), digit(*n)],
            Act::Votes(counts) => {
                let mut keys = vec![ch('v')];
                for (i, n) in counts.iter().enumerate() {
                    if i > 0 {
                        keys.push(key(KeyCode::Down));
                    }
                    keys.extend(n.to_string().chars().map(ch));
                }
                keys.push(key(KeyCode::Enter));
                keys
            }
            Act::Enter => vec![key(KeyCode::Enter)],
            Act::Undo => vec![ch('u')],
            Act::Keys => vec![ch('K')],
            Act::StepKeys => vec![ch('m')],
            Act::AsWritten => vec![ch('0')],
            Act::Fork(WhatIf::DropInFlight) => vec![ch('x')],
            Act::Fork(WhatIf::CrashNext) => vec![ch('!')],
            Act::Fork(WhatIf::SlowAttempt) => vec![ch('s')],
            Act::Hidden => vec![ch('n')],
            Act::Help => vec![ch('?')],
            Act::Compare => vec![ch('c')],
            Act::Back => vec![key(KeyCode::Esc)],
        }
    }
}

fn digit(d: u8) -> KeyEvent {
    ch(char::from(b'0' + d))
}

fn act() -> impl Strategy<Value = Act> {
    prop_oneof![
        // Mostly forward: the questions and the later parts are some steps away.
        12 => Just(Act::Next),
        3 => Just(Act::Prev),
        1 => Just(Act::First),
        2 => Just(Act::Last),
        3 => (1u8..=6).prop_map(Act::Digit),
        4 => (1u8..=4).prop_map(Act::Answer),
        2 => prop::collection::vec(0u16..40, 1..4).prop_map(Act::Votes),
        3 => Just(Act::Enter),
        2 => Just(Act::Undo),
        2 => Just(Act::Keys),
        1 => Just(Act::StepKeys),
        2 => Just(Act::AsWritten),
        1 => Just(Act::Fork(WhatIf::DropInFlight)),
        1 => Just(Act::Fork(WhatIf::CrashNext)),
        1 => Just(Act::Fork(WhatIf::SlowAttempt)),
        2 => Just(Act::Hidden),
        1 => Just(Act::Help),
        1 => Just(Act::Compare),
        1 => Just(Act::Back),
    ]
}

// ---------------------------------------------------------------- the invariants

/// The keys of one sequence, at most: what the acts ask for past them is not pressed.
const MOST_KEYS: usize = 40;

/// The sizes every frame is drawn at.
const SIZES: [(u16, u16); 2] = [(80, 24), (120, 40)];

/// What the notes would rebuild, by the story's revision and design: (ticks, charges, cents).
type Rebuilt = HashMap<(u64, Design), (usize, usize, i64)>;

/// 1. The notes see what the presenter shows.
fn notes_agree(app: &App, rebuilt: &mut Rebuilt, step: &str) {
    let shown = idem::tui::shown::shown(app);
    assert!(
        app.place.tick <= app.last_tick(),
        "{step}: tick {} is past the last, {}",
        app.place.tick,
        app.last_tick()
    );
    let agenda = app.talk.agenda.as_ref().expect("a session is played");
    let part = &agenda.playlist.sections[agenda.at];
    assert_eq!(
        app.version.original.name, part.scenario.name,
        "{step}: the story on screen is not the part the agenda stands at"
    );
    assert_eq!(
        shown.section,
        Some(format!(
            "part {} of {}: {}{}",
            agenda.at + 1,
            agenda.playlist.sections.len(),
            part.title,
            part.budget
                .map(|b| format!(" · budget {}", idem::tui::shown::clock(b.as_secs() as i64)))
                .unwrap_or_default()
        )),
        "{step}: the notes are told another part than the one on screen"
    );
    assert_eq!(
        shown.score,
        app.talk.session_score().text(),
        "{step}: the notes are told another score than the room's"
    );
    let changed: Vec<String> = app
        .version
        .changed_from_written()
        .into_iter()
        .map(String::from)
        .collect();
    assert_eq!(
        shown.changed, changed,
        "{step}: the notes are told another change from the file"
    );
    let hidden = app.talk.present.expect("presenting").hidden();
    assert_eq!(
        shown.hidden.is_some(),
        hidden.any(),
        "{step}: the notes are told {:?} is hidden, while {hidden:?} is",
        shown.hidden
    );
    let (ticks, charges, cents) = *rebuilt
        .entry((app.version.revision, app.place.design))
        .or_insert_with(|| {
            let text =
                idem::scenario::fork_toml::to_toml(&app.version.original, &app.version.added)
                    .unwrap_or_else(|e| {
                        panic!("{step}: the story cannot be written for the notes: {e}")
                    });
            let scenario =
                idem::scenario::parse("presenter", "presenter", &text).unwrap_or_else(|e| {
                    panic!("{step}: the notes cannot read the story they are sent: {e}\n{text}")
                });
            let trace = scenario
                .simulate(app.place.design)
                .unwrap_or_else(|e| panic!("{step}: the notes cannot simulate the story: {e}"));
            (
                trace.ticks.len(),
                trace.outcome.charges,
                trace.outcome.charged_cents.0,
            )
        });
    let trace = app.trace();
    assert_eq!(
        (ticks, charges, cents),
        (
            trace.ticks.len(),
            trace.outcome.charges,
            trace.outcome.charged_cents.0
        ),
        "{step}: the notes rebuild another story (ticks, charges, cents) than the presenter shows under {}",
        app.place.design.id()
    );
}

/// The design names and ids the room must not read while names are hidden. "no key" is
/// ordinary English ("no key was sent"), so only its id is looked for.
fn design_words() -> Vec<&'static str> {
    let mut words = Vec::new();
    for d in Design::ALL {
        if d.name() != "no key" {
            words.push(d.name());
        }
        words.push(d.id());
    }
    words
}

/// 2. No design's name on a frame while names are hidden (case aside: a name may start
///    a sentence).
fn no_design_named(screen: &str, what: &str, step: &str) {
    let lower = screen.to_lowercase();
    for word in design_words() {
        assert!(
            !lower.contains(word),
            "{step}: the design's name is hidden, yet {what} shows {word:?}:\n{screen}"
        );
    }
}

/// The outcome's headline without its symbol and its money: `Charged once`.
fn headline_words(app: &App) -> String {
    let (_, headline) = idem::story::outcome::headline(&app.trace().outcome);
    let words = headline
        .split_once(' ')
        .map_or(headline.as_str(), |(_, w)| w);
    words.split(" — ").next().unwrap_or(words).to_string()
}

/// Help as the room may see it, by what its text depends on (the screen under it and how far
/// it is scrolled; it is only looked at while names are hidden): each is drawn once a case.
type HelpSeen = std::collections::HashSet<(String, u16)>;

/// 2 and 3, on the frames the room sees, and on help as `?` would open it.
fn frames_keep_secrets(app: &mut App, help_seen: &mut HelpSeen, step: &str) {
    let hidden = app.talk.present.expect("presenting").hidden().design;
    let pending = app.quiz_pending();
    let headline = headline_words(app);
    for (w, h) in SIZES {
        let screen = render(app, w, h);
        if hidden {
            no_design_named(&screen, &format!("the {w}×{h} frame"), step);
        }
        if pending {
            assert!(
                !screen.contains(&headline),
                "{step}: a question waits, yet the {w}×{h} frame shows the outcome {headline:?}:\n{screen}"
            );
        }
    }
    // Help is drawn over the frame just checked, so its own box is what is new: drawn with
    // the overlay set, and tall enough to hold all of it, then the state put back as it was,
    // so the sequence goes on untouched.
    if !hidden || !matches!(app.screens.overlay, Overlay::None | Overlay::Help) {
        return;
    }
    let scroll = match app.screens.overlay {
        Overlay::Help => app.screens.help_scroll,
        _ => 0,
    };
    if !help_seen.insert((format!("{:?}", app.screens.screen), scroll)) {
        return;
    }
    let (overlay, kept) = (app.screens.overlay.clone(), app.screens.help_scroll);
    app.screens.overlay = Overlay::Help;
    app.screens.help_scroll = scroll;
    for (w, h) in SIZES.into_iter().chain([(120, 100)]) {
        let screen = render(app, w, h);
        no_design_named(&screen, &format!("help at {w}×{h}"), step);
    }
    app.screens.overlay = overlay;
    app.screens.help_scroll = kept;
}

/// 4. Whether `msg` may change the score, in the state it was pressed in.
fn may_score(msg: &Msg, answer_waiting: bool, voting: bool) -> bool {
    match msg {
        Msg::Answer(_) | Msg::Reveal | Msg::TakeBack => true,
        Msg::Next => answer_waiting,
        Msg::Confirm => voting,
        _ => false,
    }
}

/// Presses every key of `acts`, checking the invariants after each.
fn run(acts: &[Act], most_keys: usize) {
    let mut app = presenting();
    let (mut rebuilt, mut help_seen) = (Rebuilt::new(), HelpSeen::new());
    notes_agree(&app, &mut rebuilt, "at the start");
    frames_keep_secrets(&mut app, &mut help_seen, "at the start");
    let mut pressed: Vec<String> = Vec::new();
    let keys: Vec<KeyEvent> = acts.iter().flat_map(Act::keys).take(most_keys).collect();
    {
        for k in keys {
            let score = app.talk.session_score();
            let (answer_waiting, voting) = (
                app.answer_waiting(),
                matches!(app.screens.overlay, Overlay::Voting { .. }),
            );
            let msg = press(&mut app, k);
            pressed.push(format!("{:?}→{msg:?}", k.code));
            let step = format!("after {}", pressed.join(", "));
            assert!(
                app.jobs.simulating.is_none(),
                "{step}: still simulating after settle"
            );
            let now = app.talk.session_score();
            if now != score {
                let msg = msg
                    .as_ref()
                    .expect("a key that did nothing changed the score");
                assert!(
                    may_score(msg, answer_waiting, voting),
                    "{step}: the score moved from {score:?} to {now:?} on {msg:?}, which neither answers, reveals nor takes back"
                );
            }
            if msg.is_none() {
                // Nothing was asked of the replay: its state, and so every frame, is as
                // checked after the key before.
                continue;
            }
            notes_agree(&app, &mut rebuilt, &step);
            frames_keep_secrets(&mut app, &mut help_seen, &step);
            if msg == Some(Msg::AsWritten) {
                assert!(
                    app.version.changed_from_written().is_empty(),
                    "{step}: 0 left the story changed from the file: {:?}",
                    app.version.changed_from_written()
                );
                assert!(
                    app.version.added.is_empty(),
                    "{step}: 0 left what-ifs in force: {:?}",
                    app.version.added
                );
            }
        }
    }
}

proptest! {
    // A failing case prints its keys, which is all it takes to reproduce it, so nothing is
    // written into the source tree.
    #![proptest_config(ProptestConfig {
        // PROPTEST_CASES raises it for a long run.
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(160),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn the_room_and_the_notes_are_told_the_truth_key_by_key(
        acts in prop::collection::vec(act(), 0..=40)
    ) {
        run(&acts, MOST_KEYS);
    }
}

/// The keys of the sequence every case starts from, pressed once in a fixed order: each act
/// at least once, so the invariants are seen to hold on every kind of key.
#[test]
fn every_act_keeps_the_invariants_once() {
    let mut acts = vec![Act::Next; 8];
    acts.extend([
        Act::Answer(2),
        Act::Undo,
        Act::Votes(vec![3, 12, 1]),
        Act::Hidden,
        Act::Hidden,
        Act::Digit(3),
        Act::Answer(3),
        Act::Enter,
        Act::Keys,
        Act::StepKeys,
        Act::Fork(WhatIf::DropInFlight),
        Act::Fork(WhatIf::CrashNext),
        Act::Fork(WhatIf::SlowAttempt),
        Act::Undo,
        Act::AsWritten,
        Act::Help,
        Act::Help,
        Act::Compare,
        Act::Next,
        Act::Back,
        Act::Last,
        Act::First,
        Act::Prev,
    ]);
    acts.extend(vec![Act::Next; 30]);
    acts.push(Act::Back);
    run(&acts, usize::MAX);
}

/// Found by the model (shrunk): reply-lost's explanation starts a sentence with
/// "Content-hash", which the hidden names missed while they were matched in lower case only.
#[test]
fn a_name_that_starts_a_sentence_is_hidden_too() {
    run(
        &[
            Act::Last,
            Act::Answer(1),
            Act::Next,
            Act::Last,
            Act::Next,
            Act::Last,
            Act::Votes(vec![1]),
        ],
        usize::MAX,
    );
}
