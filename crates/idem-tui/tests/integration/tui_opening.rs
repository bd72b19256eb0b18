//! The replay draws its first frame from the opening of the story on screen: the first tick's
//! narration told, every other tick's once the frame is drawn (`Runs::words`). No cell of that
//! frame may tell the two apart, and no later frame may be drawn from the opening.

use crate::common;
use idem::present::Hide;
use idem::sim::Design;
use idem::tui::App;
use idem::tui::Msg;
use idem::tui::app::Launch;
use idem::tui::program::Program;
use idem::tui::theme::Theme;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;

/// The sizes the first frame is compared at: the smallest readable screen, the usual ones,
/// and a wide one.
const SIZES: [(u16, u16); 4] = [(60, 18), (80, 24), (100, 30), (200, 50)];

/// A frame of `app`, styles and all.
fn frame(app: &App, (width, height): (u16, u16), theme: &Theme) -> Buffer {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).expect("test terminal");
    terminal
        .draw(|f| idem::tui::view::draw(f, app, theme))
        .expect("drawing never fails");
    terminal.backend().buffer().clone()
}

/// The first cell where two frames differ, with both, for a message a person can read.
fn first_difference(a: &Buffer, b: &Buffer) -> Option<String> {
    let width = a.area.width as usize;
    a.content
        .iter()
        .zip(&b.content)
        .position(|(x, y)| x != y)
        .map(|i| {
            let (x, y) = (i % width, i / width);
            format!(
                "at column {x}, row {y}: {:?} against {:?}",
                a.content[i], b.content[i]
            )
        })
}

/// The ways the replay opens: on its own, and presenting with and without the design's name.
fn launches(design: Design) -> [Launch; 3] {
    let presenting = |hide| Launch {
        design: Some(design),
        present: true,
        hide,
        ..Launch::default()
    };
    [
        Launch {
            design: Some(design),
            mouse: true,
            ..Launch::default()
        },
        presenting(Hide::default()),
        presenting(Hide {
            design: true,
            ..Hide::default()
        }),
    ]
}

#[test]
fn the_first_frame_drawn_from_the_opening_is_the_whole_story_s() {
    let theme = Theme::for_no_color(None);
    let mut compared = 0;
    // And a story whose first tick carries the trainer's own words and a question.
    let own = format!(
        "{}\n[[narration]]\nat = \"14:02:07\"\ntext = \"The trainer's opening words.\"\nmode = \"replace\"\n\
         [[quiz]]\nat = \"14:02:07\"\nquestion = \"How many charges?\"\nchoices = [\"None\", \"One\"]\nanswer = \"charges\"\n",
        common::builtin_source("order-5531")
    );
    let own = idem::scenario::parse("own.toml", "own", &own).unwrap_or_else(|e| panic!("{e}"));
    let mut all = common::every_scenario();
    all.push(("own".into(), own));
    for (name, scenario) in all {
        for design in Design::ALL {
            for launch in launches(design) {
                let at = format!("{name}, {design}, presenting: {}", launch.present);
                let open = |launch: Launch| {
                    App::launch(scenario.clone(), name.clone(), launch)
                        .unwrap_or_else(|e| panic!("{at}: {e}"))
                };
                let opening = open(launch.clone());
                let whole = open(launch);
                whole.version.runs().open();
                for size in SIZES {
                    let first = frame(&opening, size, &theme);
                    assert!(
                        opening.version.runs().told_so_far().is_empty(),
                        "{at}, {size:?}: the frame was drawn from the whole story, not its opening"
                    );
                    let drawn = frame(&whole, size, &theme);
                    if let Some(diff) = first_difference(&first, &drawn) {
                        panic!("{at}, {size:?}: the opening's frame differs {diff}");
                    }
                    compared += 1;
                }
            }
        }
    }
    assert!(compared > 500, "{compared}");
}

/// Once the first frame is on the screen, or once anything has happened, frames are drawn
/// from the whole story.
#[test]
fn no_frame_after_the_first_is_drawn_from_the_opening() {
    let theme = Theme::for_no_color(None);
    let launch = Launch {
        design: Some(Design::NoKey),
        ..Launch::default()
    };
    let scenario = idem::scenario::library::default_scenario().expect("the default reads");
    let mut shown =
        App::launch(scenario.clone(), "order-5531".into(), launch.clone()).expect("simulates");
    frame(&shown, (80, 24), &theme);
    assert!(shown.version.runs().told_so_far().is_empty());
    shown.shown();
    frame(&shown, (80, 24), &theme);
    assert_eq!(shown.version.runs().told_so_far(), vec![Design::NoKey]);

    let mut stepped = App::launch(scenario, "order-5531".into(), launch).expect("simulates");
    idem::tui::update(&mut stepped, Msg::ToggleHelp);
    idem::tui::update(&mut stepped, Msg::ToggleHelp);
    assert!(stepped.version.runs().told_so_far().is_empty());
    frame(&stepped, (80, 24), &theme);
    assert_eq!(stepped.version.runs().told_so_far(), vec![Design::NoKey]);
    // Every tick's narration is there to be drawn.
    let told = stepped.told();
    assert!(told.narrations.iter().all(|n| !n.is_empty()), "{told:?}");
}

/// The loop itself spends the opening once its first frame is drawn: the next frame, with
/// nothing having happened in between, is drawn from the whole story.
#[test]
fn the_loop_draws_its_second_frame_from_the_whole_story() {
    use idem::tui::program::{self, Quiet, Scripted, Wake};
    let scenario = idem::scenario::library::default_scenario().expect("the default reads");
    let mut app = App::new(scenario, "order-5531".into()).expect("simulates");
    let design = app.place.design;
    let mut host = Scripted::new(TestBackend::new(80, 24), [Wake::Redraw, Wake::End])
        .expect("a test terminal");
    program::run(&mut host, &mut app, &mut Quiet, &Theme::for_no_color(None))
        .expect("the loop runs");
    assert_eq!(app.version.runs().told_so_far(), vec![design]);
}

/// A replay opened at a later moment (`--at`) reads that moment's narration: it has no
/// opening to draw from, and its story is told before its first frame.
#[test]
fn a_replay_opened_later_reads_that_moment_s_narration() {
    for (name, scenario) in common::every_scenario() {
        let launch = Launch {
            at: Some(idem::scenario::values::parse_clock("14:02:38").expect("a moment")),
            ..Launch::default()
        };
        let app = App::launch(scenario.clone(), name.clone(), launch).expect("simulates");
        let tick = app.place.tick;
        if tick == 0 {
            continue;
        }
        assert_eq!(
            app.version.runs().told_so_far(),
            vec![app.place.design],
            "{name}"
        );
        let whole = scenario.tell(app.trace());
        assert_eq!(
            app.told().narrations[tick],
            whole.narrations[tick],
            "{name}"
        );
        assert!(!whole.narrations[tick].is_empty(), "{name}");
    }
}
