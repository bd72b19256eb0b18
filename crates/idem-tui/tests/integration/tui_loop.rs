//! The replay's real event loop, the one the binary runs, driven on a `TestBackend` with a
//! scripted stream of events: it starts, steps, switches design, and quits.

use idem::sim::Design;
use idem::tui::App;
use idem::tui::program::Wake;
use idem::tui::program::{self, Scripted};
use idem::tui::terminal::Replay;
use idem::tui::theme::Theme;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};

fn key(code: KeyCode) -> Wake {
    Wake::Event(Event::Key(KeyEvent::new(code, KeyModifiers::NONE)))
}

fn screen(host: &Scripted<TestBackend>) -> String {
    let buffer = host.terminal.backend().buffer();
    let width = buffer.area.width as usize;
    buffer
        .content
        .chunks(width)
        .map(|row| row.iter().map(|c| c.symbol()).collect::<String>())
        .collect::<Vec<_>>()
        .join("\n")
}

fn order_5531() -> App {
    let scenario = idem::scenario::library::default_scenario().expect("the default scenario");
    App::new(scenario, "order-5531".into()).expect("it simulates")
}

#[test]
fn the_loop_starts_steps_switches_design_and_quits() {
    let mut app = order_5531();
    let two_steps_in = app.version.trace_of(Design::WithCharge).ticks[2].at;
    let mut runtime = Replay::new(&app);
    let mut host = Scripted::new(
        TestBackend::new(120, 36),
        [
            key(KeyCode::Right),
            key(KeyCode::Right),
            Wake::Event(Event::Resize(120, 36)),
            key(KeyCode::Char('3')),
            key(KeyCode::Char('q')),
            // Never reached: the program is done at `q`.
            key(KeyCode::Right),
        ],
    )
    .expect("a test terminal");
    let theme = Theme { color: false };
    program::run(&mut host, &mut app, &mut runtime, &theme).expect("the loop runs");

    assert!(app.quit, "q ends the program");
    assert_eq!(app.place.design, Design::NoKey, "3 switches to no key");
    assert_eq!(
        app.now(),
        two_steps_in,
        "two steps in, the moment kept across designs"
    );
    assert_eq!(host.events.len(), 1, "nothing is read after q");
    let text = screen(&host);
    assert!(
        text.contains("no key"),
        "the last frame shows the design:\n{text}"
    );
    // The first frame drawn, the loop looks again at once, to start telling the other
    // designs beside it (not before the frame: that work would slow it down).
    assert_eq!(host.waits.first(), Some(&std::time::Duration::ZERO));
    // Then, with nothing to watch, play or simulate, it sleeps until a key comes.
    assert!(
        host.waits.iter().skip(1).all(|w| w.as_secs() >= 3600),
        "{:?}",
        host.waits
    );
}

#[test]
fn the_loop_ends_when_the_host_says_so() {
    let mut app = order_5531();
    let mut runtime = Replay::new(&app);
    let mut host = Scripted::new(TestBackend::new(80, 24), [key(KeyCode::Right), Wake::End])
        .expect("a test terminal");
    program::run(&mut host, &mut app, &mut runtime, &Theme { color: false })
        .expect("the loop runs");
    assert!(!app.quit, "a signal ends the loop without a quit");
    assert_eq!(app.place.tick, 1);
}

#[test]
fn autoplay_steps_come_from_the_loop_not_the_keys() {
    let mut app = order_5531();
    let mut runtime = Replay::new(&app);
    // Space starts autoplay; the loop then waits no longer than one pace for the next step.
    let mut host = Scripted::new(
        TestBackend::new(120, 36),
        [key(KeyCode::Char(' ')), Wake::Timeout, Wake::End],
    )
    .expect("a test terminal");
    program::run(&mut host, &mut app, &mut runtime, &Theme { color: false })
        .expect("the loop runs");
    assert!(app.place.playing);
    let pace = app.place.pace();
    assert!(
        host.waits.iter().skip(1).all(|w| *w <= pace),
        "while playing the loop wakes for the next step: {:?} (pace {pace:?})",
        host.waits
    );
}

#[test]
fn a_what_if_is_simulated_by_the_loop_and_shown() {
    let mut app = order_5531();
    let mut runtime = Replay::new(&app);
    let mut events = vec![key(KeyCode::Right), key(KeyCode::Char('x'))];
    // The simulation runs on another thread: the loop keeps looking until it is done.
    events.extend((0..100).map(|_| Wake::Timeout));
    let mut host = Scripted::new(TestBackend::new(120, 36), events).expect("a test terminal");
    program::run(&mut host, &mut app, &mut runtime, &Theme { color: false })
        .expect("the loop runs");
    assert_eq!(app.version.added.len(), 1, "the what-if is on screen");
    assert!(app.jobs.simulating.is_none());
}

/// In presenter mode the notes hear of each new position once, and again when they come on.
#[test]
fn the_presenter_publishes_each_new_position_once() {
    use idem::tui::app::Launch;
    use idem::tui::{Effect, Msg, update};
    let scenario = idem::scenario::library::default_scenario().expect("the default scenario");
    let launch = Launch {
        present: true,
        ..Launch::default()
    };
    let mut app = App::launch(scenario, "order-5531".into(), launch).expect("it simulates");
    let publishes = |effects: Vec<Effect>| {
        effects
            .iter()
            .filter(|e| matches!(e, Effect::Publish))
            .count()
    };
    assert_eq!(
        publishes(update(&mut app, Msg::Next)),
        1,
        "a step is a new position"
    );
    assert_eq!(
        publishes(update(&mut app, Msg::ToggleElapsed)),
        0,
        "the same position"
    );
    assert_eq!(
        publishes(update(&mut app, Msg::Clock(5))),
        0,
        "the clock moves nothing"
    );
    assert_eq!(
        publishes(update(&mut app, Msg::NotesLink(None))),
        1,
        "notes that come on hear where the presenter stands"
    );
    assert_eq!(
        publishes(update(&mut app, Msg::SwitchDesign(Design::NoKey))),
        1
    );
    // Without a room, nothing is published.
    let mut alone = order_5531();
    assert_eq!(publishes(update(&mut alone, Msg::Next)), 0);
}
