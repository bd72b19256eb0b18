use idem::scenario::fork::WhatIf;
use idem::scenario::library::default_scenario;
use idem::sim::Design;
use idem::tui::{App, Msg, update};

fn dump(app: &App) {
    for d in [Design::WithCharge, Design::NoKey, Design::LogAfterCharge] {
        let t = app.trace_of(d);
        println!(
            "== {:?} charges {} verdict {:?}",
            d, t.outcome.charges, t.outcome.verdict
        );
        for (i, k) in t.ticks.iter().enumerate() {
            println!(
                "{i:2} {} {:?} {:?} {}",
                t.format_time(k.at),
                k.actor,
                k.kind,
                k.label
            );
        }
    }
}

#[test]
fn explore() {
    let mut s = default_scenario().unwrap();
    s.quizzes.clear();
    for w in [WhatIf::DropInFlight, WhatIf::CrashNext, WhatIf::SlowAttempt] {
        let mut app = App::new(s.clone(), "order-5531".into()).unwrap();
        update(&mut app, Msg::Next);
        update(&mut app, Msg::Fork(w));
        println!(
            "##### {w:?} added {:?} notice {:?} tick {}",
            app.added, app.notice, app.tick
        );
        dump(&app);
    }
}
