//! How long one frame of the replay takes to draw into a 200×50 test backend.

use criterion::{Criterion, criterion_group, criterion_main};
use idem::scenario::library::default_scenario;
use idem::tui::app::{App, Launch};
use idem::tui::theme::Theme;
use idem::tui::view::draw;
use idem::tui::{Msg, settle};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

fn render(c: &mut Criterion) {
    let scenario = match default_scenario() {
        Ok(s) => s,
        Err(e) => panic!("the built-in scenario must load: {e}"),
    };
    let mut app = match App::new(scenario, "order-5531".into()) {
        Ok(a) => a,
        Err(e) => panic!("the built-in scenario must simulate: {e}"),
    };
    app.show_tick(app.last_tick());
    let theme = Theme { color: true };
    let mut terminal = match Terminal::new(TestBackend::new(200, 50)) {
        Ok(t) => t,
        Err(e) => panic!("a test backend cannot fail: {e}"),
    };
    // The same screen filled by a bare ratatui program: a bordered block of text on every
    // row, the least any full-screen frame costs (ratatui's drawing, its diff and flush).
    let text: Vec<ratatui::text::Line> = (0..48)
        .map(|row| {
            ratatui::text::Line::from(format!(
                "{row:>2} 14:02:07 checkout → processor: charge $48.60 with key K7Q4, attempt #1 {}",
                ".".repeat(100)
            ))
        })
        .collect();
    let bare = ratatui::widgets::Paragraph::new(text)
        .block(ratatui::widgets::Block::bordered().title(" bare ratatui "));
    c.bench_function("frame 200x50 bare ratatui", |b| {
        b.iter(|| {
            terminal
                .draw(|f| f.render_widget(&bare, f.area()))
                .map(|_| ())
        })
    });
    // And a bare ratatui program's emptiest frame: one bordered block, every other cell blank.
    let empty = ratatui::widgets::Block::bordered().title(" bare ratatui ");
    c.bench_function("frame 200x50 bare ratatui, one empty block", |b| {
        b.iter(|| {
            terminal
                .draw(|f| f.render_widget(&empty, f.area()))
                .map(|_| ())
        })
    });
    c.bench_function("frame 200x50 replay", |b| {
        b.iter(|| terminal.draw(|f| draw(f, &app, &theme)).map(|_| ()))
    });
    app.show_compare(app.place.tick);
    c.bench_function("frame 200x50 compare", |b| {
        b.iter(|| terminal.draw(|f| draw(f, &app, &theme)).map(|_| ()))
    });
    // Presenter mode at the question, hands counted, the timeline's repeats folded.
    let launch = Launch {
        present: true,
        ..Launch::default()
    };
    let mut room = match default_scenario().map(|s| App::launch(s, "order-5531".into(), launch)) {
        Ok(Ok(a)) => a,
        _ => panic!("the built-in scenario must load and simulate"),
    };
    room.screens.fold = true;
    while !room.quiz_pending() && !room.at_end() {
        settle(&mut room, Msg::Next);
    }
    settle(&mut room, Msg::OpenVotes);
    for c in ['4', '1', '2'] {
        settle(&mut room, Msg::Type(c));
        settle(&mut room, Msg::Down);
    }
    c.bench_function("frame 200x50 presenter question", |b| {
        b.iter(|| terminal.draw(|f| draw(f, &room, &theme)).map(|_| ()))
    });
}

criterion_group!(benches, render);
criterion_main!(benches);
