//! `idem traffic`: a day of orders through every design. The figures are held to what the
//! rates must give (a binomial band), to the stories the seeds tell (an outage, the Monday
//! rerun), to themselves (one thread or two), and each order to the replay path: the same
//! order written out as a scenario file by this test and simulated tick by tick.

use crate::common;

use common::TempDir;
use idem::scenario::traffic::TrafficPlan;
use idem::scenario::{Scenario, parse};
use idem::sim::Design;
use idem::sim::config::{CrashPoint, Direction, Fault, FaultAction};
use idem::traffic::{self, Progress, Report, Settings};

/// A shop of our own: three attempts 30 s apart, keys kept for `retention`.
fn shop(retention: &str) -> String {
    format!(
        r#"title = "A shop for traffic tests"
seed = 91

[[checkout.layer]]
name = "checkout"
attempts = 3
timeout = "30s"
backoff = "1s"

[processor]
retention = "{retention}"

[[intent]]
order = "7001"
key = "K001"
amount = "$20.00"
at = "09:00:00"
"#
    )
}

fn scenario(text: &str) -> Scenario {
    match parse("shop.toml", "shop", text) {
        Ok(s) => s,
        Err(e) => panic!("the test's scenario does not parse: {e}"),
    }
}

fn day(scenario: &Scenario, plan: TrafficPlan) -> Settings {
    match Settings::from_plan(&plan, scenario.config.seed) {
        Ok(s) => s,
        Err(e) => panic!("settings refused: {e}"),
    }
}

/// The shop with keys kept 24 h, and its day as `plan` says.
fn shop_day(plan: TrafficPlan) -> (Scenario, Settings) {
    let s = scenario(&shop("24h"));
    let settings = day(&s, plan);
    (s, settings)
}

fn run(scenario: &Scenario, settings: &Settings, threads: usize) -> Report {
    match traffic::run(
        scenario,
        settings,
        &Design::ALL,
        threads,
        &Progress::default(),
    ) {
        Ok(r) => r,
        Err(e) => panic!("the day did not run: {e}"),
    }
}

fn of(report: &Report, design: Design) -> &idem::traffic::DesignReport {
    match report.designs.iter().find(|d| d.design == design) {
        Some(d) => d,
        None => panic!("{} is missing from the report", design.id()),
    }
}

#[test]
fn a_day_without_faults_is_correct_under_every_design_and_answers_nothing_from_memory() {
    let (s, settings) = shop_day(TrafficPlan {
        orders: Some(20_000),
        ..TrafficPlan::default()
    });
    let report = run(&s, &settings, 2);
    assert!(!report.partial);
    assert_eq!(report.designs.len(), Design::ALL.len());
    for d in &report.designs {
        let id = d.design.id();
        assert_eq!(d.orders, 20_000, "{id}");
        assert_eq!(d.correct, 20_000, "{id}: every order correct");
        assert_eq!(d.attempts, 20_000, "{id}: one attempt an order");
        assert_eq!(d.charges, 20_000, "{id}");
        assert_eq!(
            d.duplicate_orders + d.unpaid + d.charged_unconfirmed,
            0,
            "{id}"
        );
        assert_eq!(d.hits, 0, "{id}: nothing answered from memory");
        assert_eq!(d.hit_rate(), 0.0, "{id}");
        assert!(d.series.iter().all(|b| b.hits == 0), "{id}");
    }
    // Every design that keeps keys holds the orders of the last 24 h at the end of the day.
    assert_eq!(of(&report, Design::WithCharge).peak_keys, 20_000);
    assert_eq!(of(&report, Design::NoKey).peak_keys, 0);
}

#[test]
fn lost_answers_at_half_a_percent_charge_no_key_twice_within_the_binomial_band() {
    let s = scenario(&shop("24h"));
    let n = 100_000u64;
    let p = 0.005;
    let settings = day(
        &s,
        TrafficPlan {
            orders: Some(n),
            lose_reply: Some(p),
            ..TrafficPlan::default()
        },
    );
    let report = run(&s, &settings, 2);
    // An order is charged twice exactly when its first answer is lost: each order draws
    // that on its own, so the count is binomial(n, p). 99.9 % of draws fall within
    // 3.29 standard deviations of the mean.
    let mean = n as f64 * p;
    let sd = (n as f64 * p * (1.0 - p)).sqrt();
    let (low, high) = (mean - 3.29 * sd, mean + 3.29 * sd);
    let no_key = of(&report, Design::NoKey);
    let dup = no_key.duplicate_orders as f64;
    assert!(
        (low..=high).contains(&dup),
        "no-key charged {dup} orders twice; the 99.9 % band is {low:.0}..{high:.0}"
    );
    assert_eq!(
        no_key.duplicate_cents,
        no_key.duplicate_charges as i64 * 2_000,
        "each charge beyond the first costs the order's $20.00"
    );
    let with_charge = of(&report, Design::WithCharge);
    assert_eq!(with_charge.duplicate_orders, 0);
    assert_eq!(with_charge.correct, n);
    // Each lost answer makes one more attempt, answered from memory.
    assert!(with_charge.hits > 0);
    assert_eq!(with_charge.attempts, n + with_charge.hits);
    assert!(with_charge.hit_rate() > 0.0 && with_charge.hit_rate() < 0.01);
}

#[test]
fn an_outage_of_answers_shows_as_a_spike_of_hits_in_the_hours_it_covers() {
    let s = scenario(&shop("24h"));
    let outage = idem::scenario::traffic::parse_outage("14:00+10m").expect("an outage");
    let settings = day(
        &s,
        TrafficPlan {
            orders: Some(48_000),
            lose_reply: Some(0.001),
            outage: Some(outage),
            outage_loses: Some(idem::scenario::traffic::Loses::Answers),
            ..TrafficPlan::default()
        },
    );
    let report = run(&s, &settings, 2);
    let d = of(&report, Design::WithCharge);
    let hour = 3_600_000u64;
    assert_eq!(report.bucket_ms, hour);
    let rate = |i: usize| d.series.get(i).map_or(0.0, |b| b.hit_rate());
    let outside = (0..24)
        .filter(|&h| h != 14)
        .map(rate)
        .fold(0.0f64, f64::max);
    assert!(
        rate(14) > 10.0 * outside.max(0.0001),
        "hour 14's hit rate {:.4} against at most {outside:.4} elsewhere",
        rate(14)
    );
    // Every order paid in the outage was charged once and heard back from a retry after it,
    // or its retries ran out while the answers were lost.
    assert_eq!(d.duplicate_orders, 0);
    assert!(of(&report, Design::NoKey).series[14].duplicates > 100);
}

#[test]
fn an_outage_that_loses_everything_sends_more_attempts_and_answers_none_from_memory() {
    // Nothing reaches the processor, so nothing can be recognised: the spike is in the
    // attempts sent, and the orders the retries could not reach end unpaid-and-unknown.
    let s = scenario(&shop("24h"));
    let outage = idem::scenario::traffic::parse_outage("14:00+10m").expect("an outage");
    let settings = day(
        &s,
        TrafficPlan {
            orders: Some(48_000),
            outage: Some(outage),
            ..TrafficPlan::default()
        },
    );
    let report = run(&s, &settings, 1);
    let d = of(&report, Design::WithCharge);
    let per_order = |i: usize| d.series[i].attempts as f64 / d.series[i].orders.max(1) as f64;
    assert!(per_order(14) > 1.1, "{}", per_order(14));
    assert!((per_order(10) - 1.0).abs() < 1e-9);
    assert_eq!(d.hits, 0);
    assert_eq!(d.charges + d.not_charged, d.orders);
    assert!(d.not_charged > 0);
}

fn monday(retention: &str) -> (Report, Settings) {
    let s = scenario(&shop(retention));
    let settings = day(
        &s,
        TrafficPlan {
            orders: Some(10_000),
            lose_reply: Some(0.5),
            rerun_after_ms: Some(72 * 3_600_000),
            ..TrafficPlan::default()
        },
    );
    (run(&s, &settings, 2), settings)
}

#[test]
fn a_rerun_after_the_keys_expired_charges_every_rerun_order_again_under_with_charge() {
    let (report, _) = monday("24h");
    let d = of(&report, Design::WithCharge);
    // Three answers in a row lost: one order in eight is rerun by a person 72 h later.
    assert!(d.reruns > 1_000 && d.reruns < 1_500, "{}", d.reruns);
    assert_eq!(
        d.duplicate_orders, d.reruns,
        "the key expired after 24 h, so every rerun is new work"
    );
}

#[test]
fn a_rerun_within_a_week_of_keys_is_recognised() {
    let (report, _) = monday("7d");
    let d = of(&report, Design::WithCharge);
    assert!(d.reruns > 1_000);
    assert_eq!(d.duplicate_orders, 0);
    assert!(d.peak_keys >= 10_000, "a week of keys holds every order");
}

#[test]
fn one_thread_or_two_give_the_same_figures() {
    let (s, settings) = shop_day(TrafficPlan {
        orders: Some(30_000),
        lose_reply: Some(0.01),
        lose_request: Some(0.01),
        slow: Some(0.01),
        crash_per_hour: Some(3.0),
        ..TrafficPlan::default()
    });
    let one = serde_json::to_string(&run(&s, &settings, 1)).expect("json");
    let two = serde_json::to_string(&run(&s, &settings, 2)).expect("json");
    assert_eq!(one, two);
}

/// The order's faults as this test writes them in a scenario file, apart from the product's
/// own writer.
fn faults_as_toml(faults: &[Fault]) -> String {
    let mut out = String::new();
    for f in faults {
        out.push_str(&format!("\n[[fault]]\nattempt = {}\n", f.attempt));
        match f.action {
            FaultAction::Lose { direction } => {
                let way = match direction {
                    Direction::Request => "request",
                    Direction::Reply => "reply",
                };
                out.push_str(&format!("lose = \"{way}\"\n"));
            }
            FaultAction::Slow { processing_ms } => {
                out.push_str(&format!("processing = \"{processing_ms}ms\"\n"));
            }
            FaultAction::Crash {
                after,
                restart_after_ms,
            } => {
                let at = match after {
                    CrashPoint::Receive => "receive",
                    CrashPoint::Key => "key",
                    CrashPoint::Charge => "charge",
                    CrashPoint::Reply => "reply",
                };
                out.push_str(&format!(
                    "crash_after = \"{at}\"\nrestart_after = \"{restart_after_ms}ms\"\n"
                ));
            }
            other => panic!("the traffic path drew a fault it never draws: {other:?}"),
        }
    }
    out
}

#[test]
fn every_order_of_a_day_replays_as_a_scenario_with_the_same_outcome() {
    let text = shop("24h");
    let s = scenario(&text);
    let outage = idem::scenario::traffic::parse_outage("10:00+20m").expect("an outage");
    let settings = day(
        &s,
        TrafficPlan {
            orders: Some(3_000),
            lose_reply: Some(0.05),
            lose_request: Some(0.05),
            slow: Some(0.05),
            crash_per_hour: Some(20.0),
            outage: Some(outage),
            outage_loses: Some(idem::scenario::traffic::Loses::Answers),
            ..TrafficPlan::default()
        },
    );
    let report = run(&s, &settings, 2);
    let mut faulted = 0;
    for design in Design::ALL {
        let mut charges = 0u64;
        let mut duplicates = 0u64;
        for index in (0..settings.orders).step_by(7) {
            let case = match traffic::order_case(&s, &settings, design, index) {
                Ok(c) => c,
                Err(e) => panic!("order {index}: {e}"),
            };
            charges += case.charges as u64;
            if case.verdict == idem::sim::Verdict::Duplicate {
                duplicates += 1;
            }
            if case.faults.is_empty() {
                continue;
            }
            faulted += 1;
            let replay = scenario(&format!("{text}{}", faults_as_toml(&case.faults)));
            let trace = match replay.simulate(design) {
                Ok(t) => t,
                Err(e) => panic!("order {index} under {}: {e}", design.id()),
            };
            let outcome = &trace.outcome.intents[0];
            let what = format!("order {index} under {}: {:?}", design.id(), case.faults);
            assert_eq!(outcome.charges as u32, case.charges, "{what}");
            assert_eq!(outcome.verdict, case.verdict, "{what}");
            assert_eq!(outcome.client_view, case.belief, "{what}");
            // The product's own file for the order says the same.
            let written = traffic::order_scenario_toml(&s, &settings, design, &case)
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            let again = scenario(&written)
                .simulate(design)
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_eq!(again.outcome.intents[0].charges, outcome.charges, "{what}");
            assert_eq!(again.outcome.intents[0].verdict, outcome.verdict, "{what}");
        }
        // A seventh of the orders, counted one by one, against the day's whole count.
        let d = of(&report, design);
        let share = |x: u64| x as f64 * 7.0 / d.orders as f64;
        assert!(
            (share(charges) - d.charges as f64 / d.orders as f64).abs() < 0.05,
            "{}: {charges} charges in a seventh, {} in the day",
            design.id(),
            d.charges
        );
        let _ = duplicates;
        // Each distinct set of faults is simulated once, not once an order.
        assert!(
            d.simulated < d.orders / 10,
            "{}: {}",
            design.id(),
            d.simulated
        );
    }
    assert!(faulted > 300, "only {faulted} orders drew a fault");
}

#[test]
fn order_cases_add_up_to_the_days_figures() {
    let (s, settings) = shop_day(TrafficPlan {
        orders: Some(1_500),
        lose_reply: Some(0.1),
        lose_request: Some(0.1),
        crash_per_hour: Some(30.0),
        ..TrafficPlan::default()
    });
    let report = run(&s, &settings, 2);
    for design in [
        Design::NoKey,
        Design::LogAfterCharge,
        Design::InProgressRecord,
    ] {
        let mut charges = 0u64;
        let mut duplicates = 0u64;
        let mut unpaid = 0u64;
        for index in 0..settings.orders {
            let case = traffic::order_case(&s, &settings, design, index).expect("a case");
            charges += case.charges as u64;
            duplicates += (case.verdict == idem::sim::Verdict::Duplicate) as u64;
            unpaid += (case.verdict == idem::sim::Verdict::Unpaid) as u64;
        }
        let d = of(&report, design);
        assert_eq!(charges, d.charges, "{}", design.id());
        assert_eq!(duplicates, d.duplicate_orders, "{}", design.id());
        assert_eq!(unpaid, d.unpaid, "{}", design.id());
    }
}

/// What `idem traffic` refuses, `idem check` refuses too, at the value's line and with the
/// same words: rates past every attempt, an outage after the period (the default day
/// included), what an outage loses with no outage.
#[test]
fn check_and_traffic_refuse_the_same_tables_with_the_same_words() {
    let dir = TempDir::new("traffic-one-check");
    for (name, table, key, words) in [
        (
            "rates",
            "lose_reply = \"60%\"\nslow = \"50%\"\n",
            "slow",
            "add up to 110.0%",
        ),
        (
            "late-outage",
            "outage = \"day 2 09:00+10m\"\n",
            "outage",
            "after the period of 24 h ends",
        ),
        (
            "loses-nothing",
            "outage_loses = \"answers\"\n",
            "outage_loses",
            "no outage is given",
        ),
    ] {
        let text = format!("{}\n[traffic]\norders = 100\n{table}", shop("24h"));
        let file = format!("{name}.toml");
        std::fs::write(dir.path().join(&file), &text).expect("write");
        let line = text
            .lines()
            .position(|l| l.starts_with(key))
            .expect("the line")
            + 1;
        let check = idem_cmd(&["check", &file], dir.path());
        let said = String::from_utf8_lossy(&check.stderr).to_string()
            + &String::from_utf8_lossy(&check.stdout);
        assert!(!check.status.success(), "{name}: {said}");
        assert!(said.contains(&format!("{file}:{line}:")), "{name}: {said}");
        assert!(said.contains(words), "{name}: {said}");
        let traffic = idem_cmd(&["traffic", &file], dir.path());
        let err = String::from_utf8_lossy(&traffic.stderr);
        assert!(!traffic.status.success(), "{name}: {err}");
        assert!(err.contains(words), "{name}: {err}");
    }
}

fn idem_cmd(args: &[&str], dir: &std::path::Path) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_idem"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("idem runs")
}

#[test]
fn a_traffic_table_is_read_from_the_file_and_checked_by_idem_check() {
    let dir = TempDir::new("traffic");
    let good = format!(
        "{}\n[traffic]\norders = 2000\nover = \"12h\"\nlose_reply = \"1%\"\nrerun_after = \"72h\"\n",
        shop("24h")
    );
    std::fs::write(dir.path().join("good.toml"), &good).expect("write");
    let out = idem_cmd(&["check", "good.toml"], dir.path());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    let out = idem_cmd(&["traffic", "good.toml", "--json"], dir.path());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(json["settings"]["orders"], 2000);
    assert_eq!(json["partial"], false);
    assert_eq!(json["designs"].as_array().map(Vec::len), Some(6));
    // The command line wins over the file.
    let out = idem_cmd(
        &["traffic", "good.toml", "--orders", "300", "--json"],
        dir.path(),
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(json["designs"][0]["orders"], 300);

    let bad = format!(
        "{}\n[traffic]\norders = 2000\nlose_reply = \"half\"\n",
        shop("24h")
    );
    std::fs::write(dir.path().join("bad.toml"), &bad).expect("write");
    let line = bad
        .lines()
        .position(|l| l.starts_with("lose_reply"))
        .expect("the line")
        + 1;
    let out = idem_cmd(&["check", "bad.toml"], dir.path());
    assert!(!out.status.success());
    let err =
        String::from_utf8_lossy(&out.stderr).to_string() + &String::from_utf8_lossy(&out.stdout);
    assert!(
        err.contains(&format!("bad.toml:{line}:14")),
        "at the value: {err}"
    );
    assert!(err.contains("not a rate"), "{err}");

    let typo = format!("{}\n[traffic]\nlose_replies = \"1%\"\n", shop("24h"));
    std::fs::write(dir.path().join("typo.toml"), &typo).expect("write");
    let out = idem_cmd(&["check", "typo.toml"], dir.path());
    assert!(!out.status.success());
    let err =
        String::from_utf8_lossy(&out.stderr).to_string() + &String::from_utf8_lossy(&out.stdout);
    assert!(err.contains("did you mean `lose_reply`"), "{err}");
    let line = typo
        .lines()
        .position(|l| l.starts_with("lose_replies"))
        .expect("the line")
        + 1;
    assert!(
        err.contains(&format!("typo.toml:{line}:1")),
        "at the key: {err}"
    );
}

#[test]
fn the_svg_of_a_day_is_written_and_never_over_a_file_without_force() {
    let dir = TempDir::new("traffic");
    std::fs::write(dir.path().join("shop.toml"), shop("24h")).expect("write");
    let args = [
        "traffic",
        "shop.toml",
        "--orders",
        "2000",
        "--lose-reply",
        "1%",
        "--svg",
        "day.svg",
    ];
    let out = idem_cmd(&args, dir.path());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let svg = std::fs::read_to_string(dir.path().join("day.svg")).expect("the svg");
    assert!(svg.starts_with("<svg") || svg.starts_with("<?xml"));
    assert!(svg.contains("no key"), "designs by name");
    let out = idem_cmd(&args, dir.path());
    assert!(
        !out.status.success(),
        "a second run must not overwrite day.svg"
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("day.svg")).expect("the svg"),
        svg
    );
}

mod screen {
    use super::common::{app, ch, key, press, render};
    use idem::tui::app::Overlay;
    use ratatui::crossterm::event::KeyCode;

    #[test]
    fn t_counts_a_day_beside_the_replay_and_shows_it_at_80_by_24() {
        let mut app = app();
        press(&mut app, ch('T'));
        let Overlay::Traffic(view) = &app.screens.overlay else {
            panic!("T opens the traffic screen: {:?}", app.screens.notice);
        };
        assert!(view.note.is_some(), "order-5531 sets no traffic faults");
        assert_eq!(view.report.designs.len(), 6);
        let screen = render(&app, 80, 24);
        assert!(screen.contains("is assumed"), "{screen}");
        insta::assert_snapshot!("traffic_with_charge_80x24", screen);
        // 3 is no-key, the design that charges twice.
        press(&mut app, ch('3'));
        let screen = render(&app, 80, 24);
        assert!(screen.contains("No key was held"), "{screen}");
        assert!(screen.contains("$25,"), "{screen}");
        press(&mut app, key(KeyCode::Left));
        let Overlay::Traffic(view) = &app.screens.overlay else {
            panic!("still open");
        };
        assert_eq!(view.selected, 1);
        press(&mut app, key(KeyCode::Esc));
        assert_eq!(app.screens.overlay, Overlay::None);
    }

    #[test]
    fn the_help_lists_t_and_presenter_mode_keeps_it_out_of_the_room() {
        let mut app = app();
        press(&mut app, ch('?'));
        let help = render(&app, 100, 60);
        assert!(help.contains("a day of traffic"), "{help}");
        let keys: Vec<&str> = idem::tui::keymap::KEYS.iter().map(|(k, _)| *k).collect();
        assert!(keys.contains(&"T"));
        assert!(
            !idem::tui::keymap::PRESENTER_KEYS
                .iter()
                .any(|(k, _)| k.split([' ', '/']).any(|k| k == "T"))
        );
    }

    #[test]
    fn a_files_own_traffic_faults_are_used_and_nothing_is_assumed() {
        let text = format!(
            "{}\n[traffic]\norders = 5000\nlose_request = \"2%\"\n",
            super::shop("24h")
        );
        let scenario = super::scenario(&text);
        let mut app = idem::tui::app::App::new(scenario, "shop".into()).expect("the app");
        press(&mut app, ch('T'));
        let Overlay::Traffic(view) = &app.screens.overlay else {
            panic!("T opens the traffic screen: {:?}", app.screens.notice);
        };
        assert_eq!(view.note, None);
        assert_eq!(view.report.settings.orders, 5_000);
        assert_eq!(view.report.settings.lose_reply, 0.0);
        let screen = render(&app, 80, 24);
        assert!(
            screen.contains("5,000 orders over 24 h · 2.00% of requests lost"),
            "{screen}"
        );
        assert!(!screen.contains("assumed"), "{screen}");
    }
}

#[test]
fn every_example_in_the_help_runs() {
    let dir = TempDir::new("traffic-examples");
    let help = idem_cmd(&["traffic", "--help"], dir.path());
    let help = String::from_utf8_lossy(&help.stdout).to_string();
    let examples: Vec<&str> = help
        .lines()
        .filter_map(|l| l.trim().strip_prefix("idem traffic"))
        .collect();
    assert!(examples.len() >= 4, "{help}");
    for example in examples {
        let line = example.split('|').next().unwrap_or("");
        let mut args = vec!["traffic"];
        args.extend(line.split_whitespace());
        let out = idem_cmd(&args, dir.path());
        assert!(
            out.status.success(),
            "idem traffic{line}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn the_text_tables_line_up_whatever_the_money() {
    let dir = TempDir::new("traffic-columns");
    // Dear orders, so the money runs to fourteen characters.
    let text = shop("24h").replace("$20.00", "$9,000.00");
    std::fs::write(dir.join("dear.toml"), text).expect("write");
    let out = idem_cmd(
        &[
            "traffic",
            "dear.toml",
            "--orders",
            "20000",
            "--lose-reply",
            "50%",
            "--rerun-after",
            "72h",
        ],
        dir.path(),
    );
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    let table: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with("design "))
        .take_while(|l| !l.is_empty())
        .collect();
    assert_eq!(table.len(), 7, "{text}");
    let width = table[0].chars().count();
    for row in &table {
        assert_eq!(row.chars().count(), width, "{text}");
        assert!(row.chars().count() <= 80, "{row}");
    }
    // Every figure's last character sits under its heading's.
    let ends = |l: &str| -> Vec<usize> {
        let chars: Vec<char> = l.chars().collect();
        (0..chars.len())
            .filter(|&i| chars[i] != ' ' && (i + 1 == chars.len() || chars[i + 1] == ' '))
            .collect()
    };
    let heading = ends(table[0]);
    for row in &table[1..] {
        let row_ends = ends(row);
        assert_eq!(row_ends.len(), 7, "{row}");
        // The names are to the left; every figure after them ends where its heading does.
        assert!(row_ends[1..].iter().all(|e| heading.contains(e)), "{text}");
    }
    assert!(!text.contains("ended unpaid"));
}

#[test]
fn export_draws_a_day_for_a_slide_and_refuses_what_does_not_apply() {
    let dir = TempDir::new("traffic-export");
    let out = idem_cmd(
        &[
            "export",
            "order-5531",
            "--traffic",
            "--format",
            "svg",
            "--hide-design",
            "--out",
            "day.svg",
        ],
        dir.path(),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let svg = std::fs::read_to_string(dir.join("day.svg")).expect("the svg");
    assert!(svg.contains("design 3"));
    assert!(!svg.contains("no key"), "names are hidden");
    assert!(svg.contains("is assumed"));
    for bad in [
        vec!["--format", "md"],
        vec!["--format", "svg", "--hide-outcome"],
    ] {
        let mut args = vec!["export", "order-5531", "--traffic", "--out", "x.out"];
        args.extend(bad.iter().copied());
        let out = idem_cmd(&args, dir.path());
        assert!(!out.status.success(), "{bad:?}");
        assert!(!dir.join("x.out").exists());
    }
}

/// The real binary in a terminal: `T` counts the day on a thread beside the screen, the
/// screen draws it, its keys move between designs, and the terminal comes back on quit.
#[test]
fn t_in_a_real_terminal() {
    if !common::tmux_ready("the traffic screen in a terminal") {
        return;
    }
    let mut tmux = common::Tmux::start("traffic");
    tmux.session("day", 80, 24);
    let bin = env!("CARGO_BIN_EXE_idem");
    assert!(!bin.contains('\''), "the binary's path is quoted with '");
    tmux.type_text("day", &format!("'{bin}'"));
    tmux.press("day", "Enter");
    tmux.wait_for("day", "the replay", |s| s.contains("tick 1/"));
    tmux.press("day", "T");
    let screen = tmux.wait_for("day", "the traffic screen", |s| {
        s.contains("A day of traffic") && s.contains("attempts per hour")
    });
    assert!(screen.contains("100,000 orders over 24 h"), "{screen}");
    tmux.press("day", "3");
    tmux.wait_for("day", "no-key's store", |s| s.contains("No key was held"));
    tmux.press("day", "Escape");
    tmux.wait_for("day", "the replay again", |s| {
        s.contains("tick 1/") && !s.contains("A day of traffic")
    });
    tmux.press("day", "q");
    tmux.wait_for("day", "the shell", |s| {
        s.lines().any(|l| l.starts_with("$ ")) && !s.contains("tick 1/")
    });
    assert_eq!(tmux.format("day", "#{alternate_on}"), "0");
}

/// Ctrl-C stops a long day where it stands: the figures so far come out, marked partial.
#[test]
fn ctrl_c_prints_the_figures_so_far_marked_partial() {
    let dir = TempDir::new("traffic-interrupt");
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_idem"))
        .args([
            "traffic",
            "--orders",
            "10000000",
            "--over",
            "31d",
            "--lose-reply",
            "1%",
            "--json",
        ])
        .current_dir(dir.path())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("idem starts");
    std::thread::sleep(std::time::Duration::from_millis(700));
    let pid = child.id().to_string();
    let kill = std::process::Command::new("kill")
        .args(["-INT", &pid])
        .status()
        .expect("kill runs");
    assert!(kill.success());
    let out = child.wait_with_output().expect("idem ends");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(json["partial"], true);
    let counted: Vec<u64> = json["designs"]
        .as_array()
        .expect("designs")
        .iter()
        .map(|d| d["orders"].as_u64().expect("orders"))
        .collect();
    assert_eq!(counted.len(), 6);
    assert!(counted.iter().any(|&n| n < 10_000_000), "{counted:?}");
}

/// A stop is heard within an order's run, however heavy the orders: here each order sends
/// about a thousand attempts (99.9 % of answers lost, a layer of 4,096), each with faults of
/// its own, so every order is simulated. A stop was heard only every 4,096 orders.
#[test]
fn a_stop_is_heard_within_an_order_however_heavy() {
    let text = shop("24h").replace("attempts = 3", "attempts = 4096");
    let s = scenario(&text);
    let settings = day(
        &s,
        TrafficPlan {
            orders: Some(1_000_000),
            lose_reply: Some(0.999),
            ..TrafficPlan::default()
        },
    );
    let progress = Progress::default();
    let stop = progress.stop.clone();
    let started = std::time::Instant::now();
    let ran = std::thread::scope(|scope| {
        let day = scope.spawn(|| traffic::run(&s, &settings, &Design::ALL, 2, &progress));
        std::thread::sleep(std::time::Duration::from_millis(300));
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        let stopped_at = std::time::Instant::now();
        let report = day.join().expect("the day's thread");
        (report, stopped_at.elapsed())
    });
    let (report, after_stop) = ran;
    let report = report.expect("a report");
    assert!(report.partial);
    assert!(
        after_stop < std::time::Duration::from_secs(3),
        "the day went on {after_stop:?} after the stop ({:?} in all)",
        started.elapsed()
    );
}

#[test]
fn a_stopped_day_is_marked_partial() {
    let (s, settings) = shop_day(TrafficPlan {
        orders: Some(100_000),
        ..TrafficPlan::default()
    });
    let stopped = Progress::default();
    stopped
        .stop
        .store(true, std::sync::atomic::Ordering::Relaxed);
    let report = traffic::run(&s, &settings, &Design::ALL, 2, &stopped).expect("a report");
    assert!(report.partial);
    assert!(report.designs.iter().all(|d| d.orders < 100_000));
}

#[test]
fn the_week_of_keys_says_the_reports_own_figures() {
    let (s, settings) = shop_day(TrafficPlan {
        orders: Some(20_000),
        over_ms: Some(2 * 86_400_000),
        lose_reply: Some(0.01),
        ..TrafficPlan::default()
    });
    let report = run(&s, &settings, 2);
    let keyed = of(&report, Design::WithCharge);
    let no_key = of(&report, Design::NoKey);
    let lines = idem::traffic::words::week_of_keys(&report, s.config.retention_ms);
    let text = lines.join("\n");
    // 20,000 orders, each one key, over two days: 10,000 a day, 70,000 a week.
    assert_eq!(keyed.keys_stored, 20_000);
    // Kept 24 h, the store holds about a day of keys at its peak; kept a week, every key of
    // the two days at once; seven days at this rate, 70,000.
    assert!(
        keyed.peak_keys > 9_000 && keyed.peak_keys < 11_000,
        "{}",
        keyed.peak_keys
    );
    assert_eq!(keyed.week_peak_keys, 20_000);
    assert!(
        text.contains(&format!(
            "Kept for 24 h as here, with-charge's keys peaked at {} held at once",
            idem::units::group_digits(u128::from(keyed.peak_keys))
        )),
        "{text}"
    );
    assert!(
        text.contains("would have held at most 20,000 (12.0 MB); at about 10,000 keys a day, 7 such days hold 70,000 (42.0 MB)"),
        "{text}"
    );
    assert!(
        text.contains("with-charge charged 0 orders more than once"),
        "{text}"
    );
    let most = report
        .designs
        .iter()
        .map(|d| d.duplicate_cents)
        .max()
        .unwrap_or(0);
    assert_eq!(no_key.duplicate_cents, most);
    assert!(
        text.contains(&format!(
            "no-key charged {} too much",
            idem::sim::Cents(no_key.duplicate_cents)
        )),
        "{text}"
    );
    // With nothing going wrong, nothing is claimed about a duplicate.
    let calm = day(
        &s,
        TrafficPlan {
            orders: Some(1_000),
            ..TrafficPlan::default()
        },
    );
    let lines = idem::traffic::words::week_of_keys(&run(&s, &calm, 1), s.config.retention_ms);
    assert!(
        lines
            .last()
            .is_some_and(|l| l.starts_with("No faults were drawn")),
        "{lines:?}"
    );
}

/// On a terminal a long day shows its bar after a second, and Ctrl-C there prints the
/// figures so far, marked partial, with the bar cleared.
#[test]
fn a_long_day_in_a_terminal_shows_its_bar_and_stops_on_ctrl_c() {
    if !common::tmux_ready("the traffic progress bar in a terminal") {
        return;
    }
    let mut tmux = common::Tmux::start("traffic-bar");
    tmux.session("bar", 100, 30);
    let bin = env!("CARGO_BIN_EXE_idem");
    assert!(!bin.contains('\''), "the binary's path is quoted with '");
    tmux.type_text(
        "bar",
        &format!("'{bin}' traffic --orders 10000000 --over 31d --lose-reply 1%"),
    );
    tmux.press("bar", "Enter");
    tmux.wait_for("bar", "the progress bar", |s| {
        s.contains("orders × designs") && s.contains("Ctrl-C stops")
    });
    tmux.press("bar", "C-c");
    let screen = tmux.wait_for("bar", "the partial figures", |s| s.contains("PARTIAL"));
    assert!(
        !screen.contains("orders × designs,"),
        "the bar is cleared:\n{screen}"
    );
    assert!(screen.contains("with-charge"), "{screen}");
}

/// `Esc` while the day is being counted stops it: what was counted comes, marked partial.
#[test]
fn esc_stops_a_count_and_the_screen_says_partial() {
    use idem::tui::app::Overlay;
    use idem::tui::{Effect, Msg, settle, update};
    let mut app = common::app();
    let effects = update(&mut app, Msg::OpenTraffic);
    let Some(Effect::Traffic { progress, .. }) =
        effects.iter().find(|e| matches!(e, Effect::Traffic { .. }))
    else {
        panic!("T asks for a day to be counted beside the screen");
    };
    assert!(app.jobs.counting.is_some());
    assert!(
        app.screens
            .notice
            .as_deref()
            .is_some_and(|n| n.contains("Esc stops"))
    );
    update(&mut app, Msg::Back);
    assert!(progress.stopped(), "Esc set the count's stop flag");
    // The count, run now, ends at once with what it has.
    let counted = effects
        .into_iter()
        .find_map(idem::tui::effect::run_now)
        .expect("the count reports");
    settle(&mut app, counted);
    let Overlay::Traffic(view) = &app.screens.overlay else {
        panic!("the partial day is shown: {:?}", app.screens.notice);
    };
    assert!(view.report.partial);
    let screen = common::render(&app, 80, 24);
    assert!(screen.contains("PARTIAL"), "{screen}");
}

/// Orders arrive over a daily curve: quiet at night, busiest in the evening, every order
/// counted once.
#[test]
fn a_daily_curve_is_quiet_at_night_and_busy_in_the_evening() {
    let (s, settings) = shop_day(TrafficPlan {
        orders: Some(48_000),
        arrivals: Some(idem::scenario::traffic::Arrivals::Daily),
        ..TrafficPlan::default()
    });
    let report = run(&s, &settings, 2);
    let d = of(&report, Design::WithCharge);
    let per_hour: Vec<u64> = d.series.iter().take(24).map(|b| b.orders).collect();
    assert_eq!(per_hour.iter().sum::<u64>(), 48_000, "{per_hour:?}");
    let night = per_hour[3];
    let evening = per_hour[18..22].iter().copied().max().unwrap_or(0);
    assert!(evening > 3 * night.max(1), "{per_hour:?}");
    // The same day, steady: every hour within a few orders of 2,000.
    let (s, steady) = shop_day(TrafficPlan {
        orders: Some(48_000),
        ..TrafficPlan::default()
    });
    let report = run(&s, &steady, 2);
    let d = of(&report, Design::WithCharge);
    assert!(
        d.series
            .iter()
            .take(24)
            .all(|b| b.orders.abs_diff(2_000) <= 2)
    );
}

/// `--order N --design D` prints one order as a scenario file that `idem run` tells.
#[test]
fn one_order_of_the_day_prints_as_a_scenario_the_replay_tells() {
    let dir = TempDir::new("traffic-order");
    std::fs::write(dir.join("shop.toml"), shop("24h")).expect("write");
    let out = idem_cmd(
        &[
            "traffic",
            "shop.toml",
            "--orders",
            "200",
            "--lose-reply",
            "50%",
            "--design",
            "no-key",
            "--order",
            "7",
        ],
        dir.path(),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(text.contains("design = \"no-key\""), "{text}");
    std::fs::write(dir.join("order.toml"), &text).expect("write");
    let run = idem_cmd(&["run", "order.toml", "--json"], dir.path());
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let refused = idem_cmd(
        &["traffic", "shop.toml", "--orders", "200", "--order", "7"],
        dir.path(),
    );
    assert!(!refused.status.success(), "--order needs one design");
    let beyond = idem_cmd(
        &[
            "traffic",
            "shop.toml",
            "--orders",
            "200",
            "--design",
            "1",
            "--order",
            "200",
        ],
        dir.path(),
    );
    assert!(String::from_utf8_lossy(&beyond.stderr).contains("no order 200"));
}
