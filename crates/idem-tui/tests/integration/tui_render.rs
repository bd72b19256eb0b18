//! Snapshot tests of the replay's key screens, drawn on ratatui's test backend without colour,
//! each paired with plain assertions that hold whatever the snapshot says, so a blindly
//! accepted snapshot cannot hide a regression.

use crate::common;

use common::{app, collapse, flat, panel, render, render_full};
use idem::scenario::Scenario;
use idem::scenario::library::{BUILTIN, default_scenario};
use idem::sim::{Design, TickKind};
use idem::tui::app::{Overlay, Screen};
use idem::tui::keymap::KEYS;
use idem::tui::view::{MIN_HEIGHT, MIN_WIDTH};
use idem::tui::{App, Msg, settle};

fn app_for(scenario: Scenario, source: &str) -> App {
    App::new(scenario, source.to_string()).expect("every design simulates")
}

/// The lines of the card statement that are charges (not the total). The merchant's name
/// may be cut short on narrow screens.
fn statement_lines(screen: &str) -> usize {
    statement_panel(screen)
        .iter()
        .filter(|l| l.contains('$') && !l.contains("total") && !l.contains("net $"))
        .count()
}

/// The card statement box; on a short screen it is merged with the ledger.
fn statement_panel(screen: &str) -> Vec<String> {
    if screen.contains("┌ Card statement ") {
        panel(screen, " Card statement ")
    } else {
        panel(screen, " Ledger → card statement ")
    }
}

/// The diagram rows of the timeline: those that start with a time (the lane names and the
/// empty rows start with a space).
fn timeline_rows(screen: &str) -> Vec<String> {
    // The first row names the lanes (and, on a narrow screen, the hour the rows share).
    panel(screen, " Timeline ")
        .into_iter()
        .skip(1)
        .filter(|l| !l.starts_with(' '))
        .collect()
}

/// Whether a row of the screen reads exactly `text` (trailing padding aside).
fn has_line(screen: &str, text: &str) -> bool {
    screen.lines().any(|l| l.trim_end() == text)
}

fn step_to(app: &mut App, tick: usize) {
    settle(app, Msg::First);
    for _ in 0..tick {
        settle(app, Msg::Next);
    }
    assert_eq!(app.place.tick, tick);
}

fn crash_tick(app: &App) -> usize {
    app.trace()
        .ticks
        .iter()
        .position(|t| t.kind == TickKind::Crash)
        .expect("order-5531 has a crash under with-charge")
}

fn last_under(design: Design) -> (App, String) {
    let mut app = app();
    settle(&mut app, Msg::SwitchDesign(design));
    settle(&mut app, Msg::Last);
    assert_eq!(app.place.design, design);
    assert!(app.at_end());
    let screen = render_full(&app);
    (app, screen)
}

#[test]
fn first_tick() {
    let app = app();
    assert_eq!(app.place.design, Design::WithCharge);
    assert_eq!(app.place.tick, 0);
    let screen = render_full(&app);
    insta::assert_snapshot!("first_tick", screen);

    let ticks = app.trace().ticks.len();
    let header: Vec<&str> = screen.lines().take(2).collect();
    assert!(header[0].contains("Order 5531: the answer that never came"));
    assert!(header[0].contains("order 5531 · $48.60"));
    assert!(header[1].contains("◷ 14:02:07.000"), "{}", header[1]);
    assert!(
        header[1].contains(&format!("tick 1/{ticks}")),
        "{}",
        header[1]
    );
    assert!(header[1].contains("❚❚ paused · 1×"));
    assert!(header[1].contains("design key stored with the charge"));
    // Only the first tick is drawn: the room cannot read ahead.
    let rows = timeline_rows(&screen);
    assert_eq!(rows.len(), 1, "{rows:#?}");
    assert!(rows[0].contains("presses Pay"));
    for later in &app.told().labels[1..] {
        assert!(
            !screen.contains(later.as_str()),
            "a later tick ({later:?}) is on screen at tick 1:\n{screen}"
        );
    }
    assert!(!screen.contains("crashes"));
    assert!(!screen.contains("✸"));
    assert!(
        !screen.contains("Charged once"),
        "the outcome is not told early"
    );
    assert!(screen.contains(&format!("({} to go)", ticks - 1)));
    assert!(screen.contains("nothing remembered"));
    assert!(screen.contains("no charges from this shop"));
    assert_eq!(statement_lines(&screen), 0);
    assert!(has_line(
        &screen,
        " share: idem order-5531 --design with-charge --at 14:02:07"
    ));
}

#[test]
fn crash_tick_screen() {
    let mut app = app();
    let crash = crash_tick(&app);
    step_to(&mut app, crash);
    let screen = render_full(&app);
    insta::assert_snapshot!("crash_tick", screen);

    let tick = &app.trace().ticks[crash];
    assert_eq!(app.trace().format_time(tick.at), "14:02:07.250");
    let header = screen.lines().nth(1).expect("a second header line");
    assert!(header.contains("◷ 14:02:07.250"), "{header}");
    assert!(header.contains(&format!("tick {}/", crash + 1)), "{header}");
    assert!(screen.contains("crashes ✸"), "the crash row:\n{screen}");
    assert!(screen.contains("Processor memory · DOWN"), "{screen}");
    // Past ticks stay, future ones are hidden (the narration may mention the restart, the
    // diagram must not show it).
    let rows = timeline_rows(&screen);
    assert_eq!(rows.len(), crash + 1, "{rows:#?}");
    assert!(rows[0].contains("presses Pay"));
    assert!(rows.last().is_some_and(|r| r.contains("crashes")));
    assert!(!screen.contains("↻"), "the restart is in the future");
    assert!(!screen.contains("no answer to #1"));
    // Under with-charge the charge and its key are already on disk, and survive the crash.
    assert_eq!(statement_lines(&screen), 1);
    assert!(screen.contains("key K7Q4 · completed"));
    assert!(has_line(
        &screen,
        " share: idem order-5531 --design with-charge --at 14:02:07.250"
    ));
}

#[test]
fn last_tick_with_charge() {
    let (app, screen) = last_under(Design::WithCharge);
    insta::assert_snapshot!("last_tick_design_1", screen);

    let ticks = app.trace().ticks.len();
    assert!(screen.contains(&format!("tick {ticks}/{ticks}")));
    assert!(screen.contains("✓ Charged once — $48.60"), "{screen}");
    assert!(screen.contains("verdict: correct"));
    assert!(!screen.contains("Charged twice"));
    assert_eq!(statement_lines(&screen), 1);
    assert!(screen.contains("1 line · total $48.60"));
    assert!(!screen.contains("to go"));
    assert!(screen.contains("200 charged ch_1 (replayed)"));
    assert_eq!(timeline_rows(&screen).len(), ticks);
}

#[test]
fn last_tick_log_after_charge() {
    let (app, screen) = last_under(Design::LogAfterCharge);
    insta::assert_snapshot!("last_tick_design_2", screen);

    let o = &app.trace().outcome;
    assert_eq!(o.charges, 2, "the key is logged after the crash, too late");
    assert!(screen.contains("✗ Charged twice — $97.20"), "{screen}");
    assert!(screen.contains(&format!("verdict: {}", o.verdict.id())));
    assert_eq!(statement_lines(&screen), 2);
    assert!(screen.contains("2 lines · total $97.20"));
    let header = screen.lines().nth(1).expect("a second header line");
    assert!(header.contains("design key logged separately"), "{header}");
    assert!(screen.contains("logs K7Q4"));
}

#[test]
fn last_tick_no_key() {
    let (_app, screen) = last_under(Design::NoKey);
    insta::assert_snapshot!("last_tick_design_3", screen);

    assert!(screen.contains("✗ Charged twice — $97.20"), "{screen}");
    assert!(screen.contains("verdict: duplicate"));
    assert!(!screen.contains("Charged once"));
    assert_eq!(statement_lines(&screen), 2);
    assert!(screen.contains("2 lines · total $97.20"));
    assert!(screen.contains("nothing remembered"), "no key, no memory");
    assert!(has_line(
        &screen,
        " share: idem order-5531 --design no-key --at 14:02:38.300"
    ));
}

#[test]
fn compare_view() {
    let mut app = app();
    settle(&mut app, Msg::Last);
    settle(&mut app, Msg::ToggleCompare);
    assert_eq!(app.screens.screen, Screen::Compare);
    let screen = render_full(&app);
    insta::assert_snapshot!("compare", screen);

    let header = screen.lines().nth(1).expect("a second header line");
    assert!(header.contains("COMPARE"), "{header}");
    assert!(!header.contains("tick "), "no tick counter in compare");
    // From the end of one design, compare opens at the end of all three.
    let last = Design::CORE
        .iter()
        .map(|d| app.version.trace_of(*d).ticks.last().map(|t| t.at).unwrap())
        .max()
        .unwrap();
    assert_eq!(app.place.compare_at, last);
    assert!(header.contains("◷ 14:02:38.300"), "{header}");
    for d in Design::CORE {
        let title = format!(" {} {} ", d.hotkey(), d.name());
        let column = panel(&screen, &title);
        assert!(column.iter().any(|l| l.contains("presses Pay")), "{d:?}");
        assert!(
            column.iter().any(|l| l.contains(" ledger: ch_1")),
            "{d:?}: {column:#?}"
        );
    }
    // Every column has reached its end, so each tells its outcome.
    let first = panel(&screen, " 1 key stored with the charge ");
    assert!(first.iter().any(|l| l.contains("✓ Charged once — $48.60")));
    for title in [" 2 key logged separately ", " 3 no key "] {
        let column = panel(&screen, title);
        assert!(
            column
                .iter()
                .any(|l| l.contains("✗ Charged twice — $97.20")),
            "{column:#?}"
        );
    }
    // ◆ marks the split once per column; the narration explains it once.
    assert_eq!(screen.matches('◆').count(), 4, "{screen}");
}

/// ◆ means only "the designs part ways here": a service's effect has a mark of its own, so
/// the ◆ on screen are the split (once per column) and the explanation's.
#[test]
fn an_effect_is_not_marked_as_a_divergence() {
    let scenario = idem::scenario::library::find("courier-retry")
        .expect("built in")
        .load()
        .expect("loads");
    let mut app = App::new(scenario, "courier-retry".to_string()).expect("simulates");
    settle(&mut app, Msg::ToggleCompare);
    settle(&mut app, Msg::Last);
    let screen = render(&app, 160, 48);
    assert!(screen.contains("books a pickup"), "{screen}");
    assert_eq!(screen.matches('◆').count(), 4, "{screen}");
    assert!(screen.contains("✦ books a pickup"), "{screen}");
    assert!(
        screen
            .lines()
            .filter(|l| l.contains("books a pickup"))
            .all(|l| !l.contains('◆')),
        "{screen}"
    );
}

#[test]
fn compare_view_at_the_end() {
    let mut app = app();
    settle(&mut app, Msg::ToggleCompare);
    settle(&mut app, Msg::Last);
    let screen = render_full(&app);
    insta::assert_snapshot!("compare_end", screen);

    assert!(screen.contains("◷ 14:02:38.300"), "{screen}");
    let outcome = |title: &str| {
        panel(&screen, title)
            .last()
            .expect("a column has lines")
            .trim()
            .to_string()
    };
    assert_eq!(
        outcome(" 1 key stored with the charge "),
        "✓ Charged once — $48.60"
    );
    assert_eq!(
        outcome(" 2 key logged separately "),
        "✗ Charged twice — $97.20"
    );
    assert_eq!(outcome(" 3 no key "), "✗ Charged twice — $97.20");
    let ledger = panel(&screen, " 3 no key ");
    assert!(
        ledger
            .iter()
            .any(|l| l.contains("ledger: ch_1 ch_2 · $97.20"))
    );
}

#[test]
fn help_overlay() {
    let mut app = app();
    settle(&mut app, Msg::ToggleHelp);
    assert_eq!(app.screens.overlay, Overlay::Help);
    // Tall enough for all of it: no scrolling.
    let screen = render(&app, 120, 50);
    insta::assert_snapshot!("help", screen);

    let help = panel(&screen, " Keys ");
    for (key, what) in KEYS {
        let line = format!(" {key:<10}{what}");
        assert!(
            help.iter().any(|l| l.trim_end() == line),
            "help lists {key:?} ({what:?}):\n{screen}"
        );
    }
    for d in Design::ALL {
        let line = format!(" {:<10}{} ({})", d.hotkey(), d.name(), d.id());
        assert!(help.iter().any(|l| l.trim_end() == line), "{d:?}");
    }
    assert!(
        help.iter()
            .any(|l| l.contains("What this model leaves out"))
    );
    assert!(help.iter().any(|l| l.contains("Esc or ? closes this help")));
}

#[test]
fn help_overlay_at_minimum_size_lists_every_key() {
    // Drawn over the compare screen; at 80×24 the help scrolls, and scrolling shows it all.
    let mut app = app();
    settle(&mut app, Msg::ToggleCompare);
    settle(&mut app, Msg::ToggleHelp);
    let first = render(&app, MIN_WIDTH, MIN_HEIGHT);
    assert!(
        first.contains(" Keys · ↓ "),
        "the title says more is below:\n{first}"
    );
    let mut seen: Vec<String> = panel(&first, " Keys");
    for _ in 0..60 {
        settle(&mut app, Msg::Down);
        let screen = render(&app, MIN_WIDTH, MIN_HEIGHT);
        seen.extend(panel(&screen, " Keys").last().cloned());
        if !screen.contains(" more") {
            break;
        }
    }
    let text = seen.join("\n");
    let words = |t: &str| t.split_whitespace().collect::<Vec<_>>().join(" ");
    let all = words(&text);
    for (key, what) in KEYS {
        assert!(
            seen.iter().any(|l| l.starts_with(&format!(" {key:<10}"))),
            "help lists {key:?}:\n{text}"
        );
        assert!(
            all.contains(&words(what)),
            "help explains {key:?} ({what:?}):\n{text}"
        );
    }
    assert!(all.contains("What this model leaves out"), "{text}");
    assert!(all.contains("Esc or ? closes this help"), "{text}");
    // Wrapped descriptions go on under themselves, not at column 0.
    assert!(
        seen.iter().all(|l| l.is_empty() || l.starts_with(' ')),
        "{text}"
    );
}

#[test]
fn replay_at_minimum_size() {
    let mut app = app();
    let crash = crash_tick(&app);
    step_to(&mut app, crash + 2);
    let screen = render(&app, MIN_WIDTH, MIN_HEIGHT);
    insta::assert_snapshot!("replay_80x24", screen);

    assert!(!screen.contains("Enlarge the terminal"));
    let header = screen.lines().nth(1).expect("a second header line");
    assert!(header.contains(&format!("tick {}/", crash + 3)), "{header}");
    assert!(screen.contains("restarts"), "{screen}");
    assert!(
        screen.contains("Card statement") || screen.contains("card statement"),
        "{screen}"
    );
    let bar = screen.lines().nth(2).expect("the design bar");
    for d in 1..=5 {
        assert!(bar.contains(&format!(" {d} ")), "design key {d}: {bar}");
    }
}

#[test]
fn too_small() {
    let app = app();
    let screen = render(&app, 60, 20);
    insta::assert_snapshot!("too_small", screen);

    let flat = screen.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains("Enlarge the terminal to at least 80×24"),
        "{screen}"
    );
    assert!(flat.contains("(it is 60×20 now)"), "{screen}");
    assert!(!screen.contains("Timeline"));
    // One column or one row short is still too small, whatever the screen.
    let mut compare = self::app();
    settle(&mut compare, Msg::ToggleCompare);
    settle(&mut compare, Msg::ToggleHelp);
    for app in [&app, &compare] {
        for (w, h) in [
            (MIN_WIDTH - 1, MIN_HEIGHT),
            (MIN_WIDTH, MIN_HEIGHT - 1),
            (1, 1),
        ] {
            let s = render(app, w, h);
            let flat = s.split_whitespace().collect::<Vec<_>>().join(" ");
            assert!(
                flat.contains("Enlarge the terminal") || w * h < 20,
                "{w}×{h}:\n{s}"
            );
            assert!(
                !s.contains("Timeline") && !s.contains(" Keys "),
                "{w}×{h}:\n{s}"
            );
        }
    }
}

/// Every tick of every built-in scenario under every design, on both screens and with the
/// help open, draws at each of `sizes` without panicking; in the replay, the timeline shows
/// exactly the ticks up to the current one (future ticks are hidden) and, when
/// `whole_statement`, the card statement shows every charge made so far.
fn draw_everything(sizes: &[(u16, u16)], whole_statement: bool) {
    for builtin in BUILTIN {
        let scenario = builtin.load().expect("built-in scenarios load");
        let mut app = app_for(scenario, builtin.name);
        for design in Design::ALL {
            settle(&mut app, Msg::SwitchDesign(design));
            for tick in 0..=app.last_tick() {
                app.show_tick(tick);
                for &(w, h) in sizes {
                    let at = format!("{} {design:?} tick {tick} at {w}×{h}", builtin.name);
                    app.show_replay();
                    app.screens.overlay = Overlay::None;
                    let screen = render(&app, w, h);
                    let rows = timeline_rows(&screen);
                    // Every row of the timeline box but its lane-name header holds a tick.
                    let room = panel(&screen, " Timeline ").len().saturating_sub(1);
                    assert_eq!(rows.len(), (tick + 1).min(room), "{at}:\n{screen}");
                    if whole_statement {
                        // A refund is a statement line of its own.
                        let state = &app.trace().ticks[tick].state;
                        let lines = state.ledger().len() + state.refunds().len();
                        assert_eq!(statement_lines(&screen), lines, "{at}:\n{screen}");
                    }
                    if (w, h) == sizes[0] {
                        app.screens.overlay = Overlay::Help;
                        render(&app, w, h);
                        app.screens.overlay = Overlay::None;
                    }
                    app.show_compare(tick);
                    render(&app, w, h);
                }
                app.show_replay();
            }
        }
    }
}

#[test]
fn every_screen_draws_at_common_sizes() {
    draw_everything(&[(80, 40), (120, 36), (200, 50)], true);
}

#[test]
fn every_screen_draws_down_to_the_minimum_size() {
    draw_everything(&[(80, 24), (81, 27), (120, 24)], false);
}

#[test]
fn statement_shows_every_charge_at_small_sizes() {
    for h in MIN_HEIGHT..36 {
        let (app, _) = last_under(Design::NoKey);
        let screen = render(&app, MIN_WIDTH, h);
        assert_eq!(statement_lines(&screen), 2, "80×{h}:\n{screen}");
        let ledger = if screen.contains("┌ Ledger ") {
            panel(&screen, " Ledger ")
        } else {
            statement_panel(&screen)
        };
        assert!(
            ledger.iter().any(|l| l.starts_with("ch_2 ")),
            "80×{h}:\n{screen}"
        );
    }
}

#[test]
fn checkout_believes_paid_when_it_reads_the_answer() {
    // The checkout panel agrees with the narration at the tick the answer is read, not one
    // tick later.
    for design in Design::ALL {
        let mut app = app();
        settle(&mut app, Msg::SwitchDesign(design));
        let told = app.told();
        let Some(read) = app.trace().ticks.iter().enumerate().position(|(i, t)| {
            t.kind == TickKind::Answer && told.narrations[i].contains("marks the order paid")
        }) else {
            continue;
        };
        step_to(&mut app, read);
        let screen = render_full(&app);
        let checkout = panel(&screen, " Checkout & counters ");
        assert!(
            checkout[0].starts_with("order 5531: paid "),
            "{design:?} tick {read}:\n{screen}"
        );
        assert!(
            screen.contains("Checkout & counters ●"),
            "{design:?}: marked as changed"
        );
    }
}

#[test]
fn quiz_question_and_answer() {
    let mut app = app_for(
        default_scenario().expect("the default scenario loads"),
        "order-5531",
    );
    settle(&mut app, Msg::Last);
    assert!(app.quiz_pending(), "End stops at the question");
    let asked = render_full(&app);
    insta::assert_snapshot!("quiz_question", asked);
    assert!(asked.contains("Question for the room"), "{asked}");
    assert!(asked.contains("How many times will the card be charged?"));
    assert!(asked.contains("1 Not at all"), "{asked}");
    assert!(asked.contains("a, then a number"), "{asked}");

    settle(&mut app, Msg::OpenAnswer);
    let mode = render_full(&app);
    assert!(mode.contains(" Answer mode "), "{mode}");
    assert!(
        mode.contains("press 1 to 3 for the room's answer"),
        "{mode}"
    );
    settle(&mut app, Msg::Answer(2));
    let waiting = render_full(&app);
    assert!(waiting.contains("The room says 3 Twice."), "{waiting}");
    assert!(
        !waiting.contains("The answer is"),
        "not revealed yet:\n{waiting}"
    );
    settle(&mut app, Msg::Reveal);
    let answered = render_full(&app);
    insta::assert_snapshot!("quiz_answer", answered);
    assert!(answered.contains("✗ The answer is 2 Once."), "{answered}");
    // The explanation for the design on screen.
    let quiz = &app.version.scenario().quizzes[0];
    let why = quiz.explanation.for_design(app.place.design);
    assert!(
        flat(&panel(&answered, " The answer ")).contains(&collapse(why)),
        "{answered}"
    );

    settle(&mut app, Msg::Last);
    let end = render_full(&app);
    assert!(end.contains("0 of 1 answer right"), "{end}");
}

#[test]
fn a_what_if_is_announced_in_the_header() {
    let mut app = app();
    settle(&mut app, Msg::Next);
    settle(
        &mut app,
        Msg::Fork(idem::scenario::fork::WhatIf::DropInFlight),
    );
    let screen = render_full(&app);
    insta::assert_snapshot!("what_if", screen);
    let header = screen.lines().nth(1).expect("a second header line");
    assert!(
        header.contains("⑂ WHAT-IF (u undoes): request #1"),
        "{header}"
    );
}

/// The README's text picture is the replay of order 5531 at its last tick, at 120×36: this
/// keeps it true to the story. `IDEM_REGENERATE=1` rewrites it.
#[test]
fn readme_text_picture_is_current() {
    let mut app = app();
    settle(&mut app, Msg::Last);
    let fresh: Vec<String> = render_full(&app)
        .lines()
        .map(|l| l.trim_end().to_string())
        .collect();
    let path = common::manifest("README.md");
    let readme = std::fs::read_to_string(&path).expect("README.md");
    let start = readme.find("```text\n").expect("a text picture") + "```text\n".len();
    let end = start + readme[start..].find("```").expect("its end");
    let committed: Vec<&str> = readme[start..end].lines().collect();
    if std::env::var_os("IDEM_REGENERATE").is_some() {
        let rewritten = format!(
            "{}{}\n{}",
            &readme[..start],
            fresh.join("\n"),
            &readme[end..]
        );
        std::fs::write(&path, rewritten).expect("README.md is writable");
        return;
    }
    assert_eq!(
        committed, fresh,
        "the README's picture is stale: regenerate with IDEM_REGENERATE=1 cargo test -p idem-tui --test integration readme_text_picture"
    );
}

/// At 80×24, 100×30 and 120×36 no narration is cut silently: the box grows to its words, and
/// a narration that still does not fit says how much is hidden, and scrolling with ↓ brings all
/// of it into view. At the last tick the outcome's headline and its meaning appear whole.
#[test]
fn narration_at_common_sizes_is_whole_or_scrolls_into_view() {
    for builtin in BUILTIN {
        let scenario = builtin.load().expect("built-in scenarios load");
        let mut app = app_for(scenario, builtin.name);
        for design in Design::ALL {
            settle(&mut app, Msg::SwitchDesign(design));
            for tick in 0..=app.last_tick() {
                app.show_tick(tick);
                if app.quiz_here().is_some() {
                    continue;
                }
                for (w, h) in [(MIN_WIDTH, MIN_HEIGHT), (100, 30), (120, 36)] {
                    let mut seen: Vec<String> = Vec::new();
                    let mut screen = String::new();
                    for offset in 0u16..40 {
                        app.place.story_scroll = (tick, design, offset);
                        screen = render(&app, w, h);
                        let rows = panel(&screen, " What happens");
                        match offset {
                            0 => seen.extend(rows),
                            _ => seen.extend(rows.last().cloned()),
                        }
                        if !screen.contains(" more · ↓↑ scroll") {
                            break;
                        }
                    }
                    app.place.story_scroll = (tick, design, 0);
                    let words = |t: &str| t.split_whitespace().collect::<Vec<_>>().join(" ");
                    assert!(
                        words(&seen.join(" ")).contains(&words(&app.told().narrations[tick])),
                        "{} {design:?} tick {tick} at {w}×{h}: not all of the narration can be read:\n{}",
                        builtin.name,
                        seen.join("\n")
                    );
                    if tick == app.last_tick() {
                        let o = &app.trace().outcome;
                        let (_, head) = idem::story::outcome::headline(o);
                        let meaning = idem::story::outcome::verdict_meaning(o);
                        let all = words(&screen);
                        assert!(all.contains(&words(&head)), "{w}×{h}: {head}\n{screen}");
                        assert!(
                            all.contains(&words(&meaning)),
                            "{w}×{h}: {meaning}\n{screen}"
                        );
                    }
                }
            }
        }
    }
}

/// A panel too short for its lines says how many it could not show: at 80×24 the memory box
/// has room for one line of the key record and its details.
#[test]
fn a_short_panel_counts_the_lines_it_cannot_show() {
    let mut app = app();
    let crash = crash_tick(&app);
    step_to(&mut app, crash + 2);
    let screen = render(&app, MIN_WIDTH, MIN_HEIGHT);
    let memory = panel(&screen, " Processor memory");
    assert_eq!(memory.len(), 1, "{screen}");
    assert!(memory[0].trim_end().ends_with("more"), "{screen}");
    // With room, the details wrap rather than stop at the edge.
    let screen = render(&app, 160, 48);
    let memory = panel(&screen, " Processor memory");
    let text = memory
        .iter()
        .map(|l| l.trim())
        .collect::<Vec<_>>()
        .join(" ");
    assert!(text.contains("attempt #1, one write with ch_1"), "{screen}");
    assert!(!text.contains('…'), "{screen}");
}

/// The header keeps the mode and the speed at every width; the design's long name is the
/// first thing to shorten.
#[test]
fn the_header_ranks_what_it_keeps() {
    let mut app = app();
    settle(&mut app, Msg::Next);
    settle(
        &mut app,
        Msg::Fork(idem::scenario::fork::WhatIf::DropInFlight),
    );
    assert_eq!(app.version.added.len(), 1);
    settle(&mut app, Msg::TogglePlay);
    for width in [80u16, 100, 120, 200] {
        let screen = render(&app, width, 30);
        let line = screen.lines().nth(1).expect("a second header line");
        assert!(line.contains("⑂ WHAT-IF"), "{width}: {line}");
        assert!(line.contains("▶ PLAYING"), "{width}: {line}");
        assert!(line.contains(" · 1×"), "{width}: {line}");
        assert!(line.contains("◷ 14:02:07.000"), "{width}: {line}");
        if width == 200 {
            assert!(
                line.contains("key stored with the charge"),
                "{width}: {line}"
            );
        } else {
            assert!(line.contains("design with charge"), "{width}: {line}");
        }
        if width == 200 {
            assert!(
                line.contains("(u undoes): request #1 of order 5531 lost"),
                "{line}"
            );
        }
    }
    settle(&mut app, Msg::ToggleCompare);
    let line = render(&app, 80, 24)
        .lines()
        .nth(1)
        .unwrap_or_default()
        .to_string();
    assert!(
        line.contains("COMPARE") && line.contains("⑂ WHAT-IF"),
        "{line}"
    );
}

/// At 80×24, 100×30 and 120×36, every arrow that carries a key shows it with its attempt
/// number, under every design of every built-in: the prose gives way first.
#[test]
fn every_arrow_that_carries_a_key_shows_it() {
    use idem::sim::Fact;
    for builtin in BUILTIN {
        let scenario = builtin.load().expect("built-in scenarios load");
        let mut app = app_for(scenario, builtin.name);
        for design in Design::ALL {
            settle(&mut app, Msg::SwitchDesign(design));
            let trace = app.trace().clone();
            for (tick, t) in trace.ticks.iter().enumerate() {
                let (key, tag) = match t.fact {
                    Fact::Send { req } | Fact::LostRequest { req } => {
                        let r = &trace.requests[req];
                        let Some(key) = r.key.as_deref() else {
                            continue;
                        };
                        let tag = if trace.outcome.intents.len() > 1 {
                            format!("{} #{}", trace.outcome.intents[r.intent].id, r.attempt)
                        } else {
                            format!("#{}", r.attempt)
                        };
                        (key.to_string(), tag)
                    }
                    Fact::CallSent { call } => {
                        let c = &trace.calls[call];
                        let Some(key) = c.key.as_deref() else {
                            continue;
                        };
                        (key.to_string(), format!("#{}", c.attempt))
                    }
                    _ => continue,
                };
                app.show_tick(tick);
                for (w, h) in [(80, 24), (100, 30), (120, 36)] {
                    let screen = render(&app, w, h);
                    let rows = timeline_rows(&screen);
                    let row = rows.last().expect("the current tick is drawn");
                    assert!(
                        row.contains(&key) && row.contains(&tag),
                        "{} {design:?} tick {tick} at {w}×{h}: {key} {tag} not in\n{row}\n{screen}",
                        builtin.name
                    );
                }
            }
        }
    }
}

/// A scenario that names its lanes shows the names over them, whole where they fit, their
/// first word on a narrow screen, and never one name written over another; with `layers =
/// true` each checkout layer has a lane of its own, and the requests leave from the innermost.
#[test]
fn named_lanes_sit_over_their_lanes() {
    let scenario = idem::scenario::library::find("mobile-gateway")
        .expect("built in")
        .load()
        .expect("loads");
    assert_eq!(scenario.lanes.layers, ["API gateway", "mobile app"]);
    let mut app = App::new(scenario, "mobile-gateway".to_string()).expect("simulates");
    // To the first request.
    while app.trace().ticks[app.place.tick].kind != idem::sim::TickKind::Send {
        settle(&mut app, Msg::Next);
    }
    for (width, height) in [(80, 24), (120, 36), (200, 50)] {
        let screen = render(&app, width, height);
        let timeline = panel(&screen, " Timeline ");
        let names = &timeline[0];
        for word in ["Payment", "mobile", "API", "Cust"] {
            assert!(
                names.contains(word),
                "{word} at {width}×{height}:\n{screen}"
            );
        }
        if width >= 200 {
            for word in ["Payment service", "mobile app", "API gateway", "Customer"] {
                assert!(
                    names.contains(word),
                    "{word} at {width}×{height}:\n{screen}"
                );
            }
        }
        // The first request leaves from under the gateway's name.
        let send = timeline
            .iter()
            .find(|row| row.contains("K7Q4 #1"))
            .unwrap_or_else(|| panic!("no send row:\n{screen}"));
        let column = |row: &str, text: &str| {
            row.find(text)
                .map(|b| row[..b].chars().count())
                .unwrap_or(usize::MAX)
        };
        let from = column(send, "├");
        let api = column(names, "API");
        assert!(
            (api..api + "API gateway".len()).contains(&from),
            "{width}×{height}: the arrow leaves at {from}, the gateway's name is at {api}:\n{screen}"
        );
    }
}

/// With the layers drawn apart, an outer layer's deadline is marked on that layer's lane, and
/// the inner layer's own timeouts on the inner lane.
#[test]
fn an_outer_deadline_is_marked_on_its_own_lane() {
    let text = "title = \"deadline\"\n[lanes]\nlayers = true\n\
        [[checkout.layer]]\nname = \"gateway\"\nattempts = 3\ntimeout = \"4s\"\n\
        [[checkout.layer]]\nname = \"app\"\nattempts = 2\ntimeout = \"6s\"\n\
        [[intent]]\norder = \"5531\"\nkey = \"K7Q4\"\namount = \"$48.60\"\nat = \"14:02:07\"\n\
        [processor]\nprocessing = \"1h\"\n";
    let scenario = idem::scenario::parse("deadline.toml", "deadline", text).expect("parses");
    let mut app = App::new(scenario, "deadline".to_string()).expect("simulates");
    let deadline = app
        .trace()
        .ticks
        .iter()
        .position(|t| matches!(t.fact, idem::sim::fact::Fact::Deadline { layer: 1, .. }))
        .expect("the app's deadline runs out");
    let timeout = app
        .trace()
        .ticks
        .iter()
        .position(|t| matches!(t.fact, idem::sim::fact::Fact::TimedOut { .. }))
        .expect("the gateway times out");
    settle(&mut app, Msg::GoToTick(deadline.max(timeout)));
    let screen = render(&app, 120, 36);
    let timeline = panel(&screen, " Timeline ");
    let column = |row: &str, text: &str| row.find(text).map(|b| row[..b].chars().count());
    let names = &timeline[0];
    let lane = |name: &str| {
        let start = column(names, name).unwrap_or_else(|| panic!("{name}:\n{screen}"));
        start + name.chars().count() / 2
    };
    let mark_of = |tick: usize| {
        let time = app.trace().format_time(app.trace().ticks[tick].at);
        let label = &app.told().labels[tick];
        let row = timeline
            .iter()
            .find(|r| r.starts_with(&time) && r.contains(label.as_str()))
            .unwrap_or_else(|| panic!("{label}:\n{screen}"));
        column(row, "◷").unwrap_or_else(|| panic!("no mark: {row}"))
    };
    assert!(mark_of(deadline).abs_diff(lane("app")) <= 2, "{screen}");
    assert!(mark_of(timeout).abs_diff(lane("gateway")) <= 4, "{screen}");
}

/// The counters panel counts 400 refusals once there is one, and keeps the store's line at
/// 80 × 24 while there is none.
#[test]
fn the_400_counter_comes_with_the_first_refusal() {
    let mut app = common::app();
    // order-5531 under content-hash: the retry's body is refused with 400.
    common::press(&mut app, common::ch('5'));
    common::press(
        &mut app,
        common::key(ratatui::crossterm::event::KeyCode::Home),
    );
    let first = common::render(&app, 80, 24);
    let counters = common::panel(&first, " Checkout & counters ").join("\n");
    assert!(!counters.contains("400"), "{counters}");
    common::press(
        &mut app,
        common::key(ratatui::crossterm::event::KeyCode::End),
    );
    let last = common::render(&app, 160, 48);
    let counters = common::panel(&last, " Checkout & counters ").join("\n");
    assert!(counters.contains("400 1"), "{counters}");
    assert!(counters.contains("held"), "{counters}");
}
