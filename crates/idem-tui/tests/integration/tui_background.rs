//! A new story (a what-if, a reload, an opened scenario) is simulated off the UI thread: the
//! replay stays live, says it is simulating, and shows the engine's outcome when it arrives.

use crate::common;

use common::{TempDir, app, at_first_send, ch, key, press, render_full, story};
use idem::sim::Trace;
use idem::tui::app::Overlay;
use idem::tui::keymap::map_key;
use idem::tui::{Effect, Msg, settle, update};

/// The simulation among the effects an update asked for, if it asked for one.
fn simulation(effects: Vec<Effect>) -> Option<idem::tui::prepare::Job> {
    effects.into_iter().find_map(|e| match e {
        Effect::Simulate { job, .. } => Some(job),
        _ => None,
    })
}
use ratatui::crossterm::event::KeyCode;

#[test]
fn in_the_terminal_a_what_if_is_simulated_while_the_replay_stays_live() {
    let mut app = at_first_send();
    // As the terminal's loop runs it: the update asks for the story, another thread works.
    let before = app.version.runs().traces().clone();
    let msg = map_key(ch('x'), &app).expect("x is a what-if");
    let job = simulation(update(&mut app, msg)).expect("the what-if waits to be simulated");
    assert!(
        app.version.added.is_empty(),
        "nothing changes on screen before the outcome is known"
    );
    let stories = |traces: &[Trace]| traces.iter().map(story).collect::<Vec<_>>();
    assert_eq!(
        stories(app.version.runs().traces().values()),
        stories(before.values())
    );
    let doing = app
        .jobs
        .simulating
        .clone()
        .expect("it says it is simulating");
    assert!(doing.starts_with("what if:"), "{doing}");
    let screen = render_full(&app);
    assert!(
        screen.contains("⧗ simulating… what if:"),
        "the footer says so:\n{screen}"
    );

    // Meanwhile the replay answers: stepping and switching designs work, and a second change
    // to the story waits.
    press(&mut app, key(KeyCode::Right));
    assert_eq!(app.place.tick, 2);
    press(&mut app, key(KeyCode::Left));
    let msg = map_key(ch('!'), &app).expect("! is a what-if");
    assert!(
        simulation(update(&mut app, msg)).is_none(),
        "no second story while one is simulated"
    );
    assert_eq!(
        app.screens.notice.as_deref(),
        Some("still simulating the last change: one moment")
    );

    // The engine's outcome, worked out elsewhere, is what the screen shows; in presenter mode
    // the story is also written as a file there, for the speaker notes.
    let after = job.after.clone();
    let result = idem::tui::prepare::prepare(job.original, job.added)
        .map(idem::tui::prepare::Prepared::with_file)
        .map_err(|e| e.to_string());
    settle(&mut app, Msg::Simulated { after, result });
    assert!(app.jobs.simulating.is_none());
    assert_eq!(app.version.added.len(), 1);
    let (revision, file) = app.version.file.clone().expect("the story as a file");
    assert_eq!(
        revision, app.version.revision,
        "written for the story on screen"
    );
    assert!(
        file.contains("What-if faults added in the replay"),
        "{file}"
    );
    let mut at_once = at_first_send();
    press(&mut at_once, ch('x'));
    assert_eq!(
        stories(app.version.runs().traces().values()),
        stories(at_once.version.runs().traces().values()),
        "the same story as simulated at once"
    );
    assert_eq!(app.place.tick, 1, "the moment is kept");
    assert!(
        app.screens
            .notice
            .as_deref()
            .is_some_and(|n| n.starts_with("what if:")),
        "{:?}",
        app.screens.notice
    );
}

#[test]
fn in_the_terminal_a_reload_and_an_opened_scenario_are_simulated_elsewhere_too() {
    let dir = TempDir::new("bg-reload");
    let path = dir.write("story.toml", idem::scenario::library::BUILTIN[1].text);
    let mut app = app();
    let changed = Msg::FileChanged(idem::scenario::load(&path).map_err(|e| e.one_line()));
    let job = simulation(update(&mut app, changed)).expect("a reload waits to be simulated");
    assert_eq!(job.after, idem::tui::prepare::After::Reload);
    let result = idem::tui::prepare::prepare(job.original, job.added).map_err(|e| e.to_string());
    settle(
        &mut app,
        Msg::Simulated {
            after: job.after,
            result,
        },
    );
    assert_eq!(
        app.screens.notice.as_deref(),
        Some("the scenario file changed: reloaded")
    );

    // The picker's choice closes the picker; an error would bring it back.
    press(&mut app, ch('o'));
    let Overlay::Picker(picker) = &app.screens.overlay else {
        panic!("the picker: {:?}", app.screens.overlay);
    };
    let n = picker
        .entries
        .iter()
        .position(|e| e.builtin && e.source == "reply-lost")
        .expect("reply-lost is listed");
    for _ in 0..n {
        press(&mut app, key(KeyCode::Down));
    }
    let chosen = update(&mut app, Msg::Confirm);
    let [idem::tui::Effect::Load { .. }] = chosen.as_slice() else {
        panic!("the chosen scenario is read next: {chosen:?}");
    };
    let read = chosen
        .into_iter()
        .next()
        .and_then(idem::tui::effect::run_now);
    let job = simulation(update(&mut app, read.expect("the scenario was read")))
        .expect("the scenario waits to be simulated");
    assert_eq!(app.screens.overlay, Overlay::None);
    let idem::tui::prepare::After::Open { errors_to, .. } = &job.after else {
        panic!("{:?}", job.after);
    };
    assert!(matches!(errors_to, idem::tui::prepare::ErrorsTo::Picker(_)));
    settle(
        &mut app,
        Msg::Simulated {
            after: job.after,
            result: Err("the engine refused it".into()),
        },
    );
    let Overlay::Picker(picker) = &app.screens.overlay else {
        panic!("the picker is back: {:?}", app.screens.overlay);
    };
    assert_eq!(picker.error.as_deref(), Some("the engine refused it"));
}

/// A story opens with the opening of the design it opens at told alone (its first tick's
/// narration: what the first frame draws), every design told whole when first wanted or beside
/// the loop; whichever way and on whichever thread a design is told, its words, its glossary
/// marks and its folds are what telling its run at once gives.
#[test]
fn each_design_is_told_when_first_wanted_and_told_the_same_on_any_thread() {
    use idem::sim::Design;
    use idem::tui::App;
    use idem::tui::app::Launch;
    for builtin in idem::scenario::library::BUILTIN {
        let scenario = builtin.load().expect("a built-in loads");
        for opening in Design::ALL {
            let launch = Launch {
                design: Some(opening),
                ..Launch::default()
            };
            let app =
                App::launch(scenario.clone(), builtin.name.into(), launch).expect("simulates");
            assert_eq!(app.place.design, opening);
            assert_eq!(
                app.version.runs().told_so_far(),
                vec![],
                "{}: opened under {opening:?}, only its opening is told",
                builtin.name
            );
            // Half the designs told on another thread, the rest here, on demand.
            let runs = app.version.runs().clone();
            std::thread::spawn(move || runs.tell_every_design(Design::ALL[3]))
                .join()
                .expect("tells");
            for d in Design::ALL {
                let trace = scenario.simulate(d).expect("simulates");
                let told = scenario.tell(&trace);
                assert_eq!(
                    story(app.version.runs().trace(d)),
                    story(&trace),
                    "{}: {d:?}",
                    builtin.name
                );
                assert_eq!(
                    app.version.told_of(d).labels,
                    told.labels,
                    "{}: {d:?}",
                    builtin.name
                );
                assert_eq!(app.version.told_of(d).narrations, told.narrations);
                assert_eq!(app.version.told_of(d).arrows, told.arrows);
                assert_eq!(
                    app.version.runs().glossary(d),
                    idem::story::glossary::first_uses(&told)
                );
                assert_eq!(
                    app.version.runs().repeats(d),
                    idem::tui::repeats::runs(&trace, &told).as_slice()
                );
            }
        }
    }
}

/// Until a story's whole narration has been searched for the glossary's terms, the terms
/// marked at a tick are found by searching only the ticks up to it: the marks are the same
/// as the whole search gives, at every tick of every built-in and design, and past the ticks
/// searched ahead the whole story is searched.
#[test]
fn the_terms_marked_at_a_tick_are_the_same_before_the_whole_story_is_searched() {
    use idem::sim::Design;
    let marked_at = |firsts: &[Option<usize>], tick: usize| -> Vec<usize> {
        (0..firsts.len())
            .filter(|&t| firsts[t] == Some(tick))
            .collect()
    };
    let mut long = String::from(
        "title = \"Long\"\n[[checkout.layer]]\nattempts = 10\ntimeout = \"2s\"\n[[checkout.layer]]\nattempts = 30\nbackoff = \"1m\"\n[[intent]]\norder = \"1\"\nkey = \"K1\"\namount = \"$1.00\"\nat = \"10:00:00\"\n",
    );
    for attempt in 1..=300 {
        long.push_str(&format!(
            "[[fault]]\nattempt = {attempt}\nlose = \"reply\"\n"
        ));
    }
    let mut scenarios: Vec<idem::scenario::Scenario> = idem::scenario::library::BUILTIN
        .iter()
        .map(|b| b.load().expect("a built-in loads"))
        .collect();
    scenarios.push(idem::scenario::parse("long", "long", &long).expect("parses"));
    for scenario in scenarios {
        let app = idem::tui::App::new(scenario.clone(), scenario.name.clone()).expect("simulates");
        let runs = app.version.runs();
        for d in Design::ALL {
            let told = scenario.tell(&scenario.simulate(d).expect("simulates"));
            let whole = idem::story::glossary::first_uses(&told);
            // Every tick of a short story; of the long one, every seventh and those around
            // the ends of the searches ahead.
            let ticks = (0..told.narrations.len().min(600)).filter(|t| {
                told.narrations.len() < 100
                    || t % 7 == 0
                    || (0..4).contains(t)
                    || (508..516).contains(t)
            });
            for tick in ticks {
                assert_eq!(
                    marked_at(runs.glossary_through(d, tick), tick),
                    marked_at(&whole, tick),
                    "{} under {d:?} at tick {tick}",
                    scenario.name
                );
            }
        }
    }
}

/// Marking the glossary's terms on a frame searches nothing: while the whole story has not
/// been searched, an early tick's marks come from a search made the first time a frame wants
/// it (of the first tick alone for the first frame, of the first 512 ticks after) (before, each frame searched, and built a new search
/// for every term it found: 40 % of a frame at 200×50).
#[test]
fn an_early_ticks_glossary_marks_are_searched_once_per_design() {
    let app = common::app();
    let runs = app.version.runs();
    for d in idem::sim::Design::ALL {
        for (a, b) in [(0, 0), (1, 3), (9, 400)] {
            let first = runs.glossary_through(d, a);
            let again = runs.glossary_through(d, b);
            assert!(
                std::ptr::eq(first.as_ptr(), again.as_ptr()),
                "{d:?}: the marks of ticks {a} and {b} were searched twice"
            );
        }
    }
}
