//! The long jobs that run beside the replay: the search of every fault plan and a day of
//! traffic, their progress and their results.

use super::*;

/// Long work beside the loop: the explorer and a day of traffic, their progress and results.
pub(super) fn jobs(app: &mut App, msg: Msg, effects: &mut Vec<Effect>) {
    match msg {
        Msg::OpenExplore if app.jobs.searching.is_some() => {
            app.screens.notice = Some(searching_words(0, app));
        }
        Msg::OpenExplore => {
            app.place.playing = false;
            let search = crate::replay::effect::Searching::default();
            app.jobs.searching = Some(search.clone());
            app.screens.notice = Some(searching_words(0, app));
            effects.push(Effect::Explore {
                scenario: Box::new(app.version.scenario().clone()),
                search,
            });
        }
        Msg::ChoreDone => {}
        Msg::Searched(plans) if app.jobs.searching.is_some() => {
            app.screens.notice = Some(searching_words(plans, app));
        }
        Msg::OpenTraffic if app.jobs.counting.is_some() => {
            app.screens.notice = Some("still counting the day of traffic · Esc stops".into());
        }
        Msg::OpenTraffic => {
            match crate::traffic::Settings::of_scenario_or_assumed(app.version.scenario()) {
                Ok((settings, assumed)) => {
                    app.place.playing = false;
                    let progress = std::sync::Arc::new(crate::traffic::Progress::default());
                    let note = assumed.then(crate::traffic::words::assumed);
                    app.jobs.counting = Some((progress.clone(), note));
                    app.screens.notice = Some(format!(
                        "counting {} orders through every design · Esc stops",
                        crate::units::group_digits(u128::from(settings.orders))
                    ));
                    effects.push(Effect::Traffic {
                        scenario: Box::new(app.version.scenario().clone()),
                        settings: Box::new(settings),
                        progress,
                    });
                }
                Err(e) => app.screens.notice = Some(format!("no day of traffic: {e}")),
            }
        }
        Msg::Counted(result) => {
            let note = app.jobs.counting.take().and_then(|(_, note)| note);
            match result {
                Err(e) => app.screens.notice = Some(format!("the day of traffic failed: {e}")),
                Ok(_) if app.screens.overlay != Overlay::None => {
                    app.screens.notice =
                        Some("the day of traffic is counted: close this and press T".into());
                }
                Ok(report) => {
                    app.screens.notice = None;
                    let selected = report
                        .designs
                        .iter()
                        .position(|d| d.design == app.place.design)
                        .unwrap_or(0);
                    app.screens.overlay = Overlay::Traffic(crate::replay::app::TrafficView {
                        report: std::sync::Arc::from(report),
                        selected,
                        note,
                    });
                }
            }
        }
        Msg::Explored(Err(e)) => {
            app.jobs.searching = None;
            app.screens.notice = Some(format!("the search failed: {e}"))
        }
        Msg::Explored(Ok(found)) => {
            app.jobs.searching = None;
            app.screens.notice = None;
            let row = found
                .designs
                .iter()
                .position(|d| d.design == app.place.design)
                .unwrap_or(0);
            app.screens.overlay = Overlay::Explore { found, row, col: 0 };
        }
        _ => {}
    }
}

/// The search's progress, as the notice line shows it.
pub(super) fn searching_words(plans: usize, app: &App) -> String {
    let plans = app
        .jobs
        .searching
        .as_ref()
        .map_or(plans, |s| s.plans_run().max(plans));
    format!(
        "searching every plan of up to {} faults: {plans} run (at most {} per design) · Esc stops",
        crate::replay::effect::EXPLORE_FAULTS,
        crate::replay::effect::EXPLORE_MAX_PLANS
    )
}
