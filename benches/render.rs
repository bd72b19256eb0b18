//! How long one frame of the replay takes to draw into a 200×50 test backend.

use criterion::{Criterion, criterion_group, criterion_main};
use idem::scenario::library::default_scenario;
use idem::tui::app::{App, Screen};
use idem::tui::theme::Theme;
use idem::tui::view::draw;
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
    app.tick = app.last_tick();
    let theme = Theme { color: true };
    let mut terminal = match Terminal::new(TestBackend::new(200, 50)) {
        Ok(t) => t,
        Err(e) => panic!("a test backend cannot fail: {e}"),
    };
    c.bench_function("frame 200x50 replay", |b| {
        b.iter(|| terminal.draw(|f| draw(f, &app, &theme)).map(|_| ()))
    });
    app.screen = Screen::Compare;
    app.compare_at = app.now();
    c.bench_function("frame 200x50 compare", |b| {
        b.iter(|| terminal.draw(|f| draw(f, &app, &theme)).map(|_| ()))
    });
}

criterion_group!(benches, render);
criterion_main!(benches);
