//! The room's answers to a question: answer mode, counting hands, the reveal, taking an
//! answer back, and whether leaving would lose them.

use super::*;

/// The room's answers to a question: answer mode, hands, the reveal, taking an answer back.
pub(super) fn room(app: &mut App, msg: Msg) {
    match msg {
        Msg::Answer(choice) => answer(app, choice),
        Msg::OpenAnswer => open_answer(app, false),
        Msg::OpenVotes => open_answer(app, true),
        Msg::Reveal => reveal(app),
        Msg::TakeBack => take_back(app),
        _ => {}
    }
}

pub(super) fn quiz_reminder(app: &App) -> String {
    if matches!(app.screens.overlay, Overlay::Answering) {
        let n = app.question_here().map_or(0, |(_, q)| app.choices(q).len());
        return format!("the room's answer first: press 1 to {n}, or Esc");
    }
    "the room answers first: a, then the answer's number; or v to count hands".to_string()
}

/// `a` or `v` at a question: answer mode, or counting hands. A revealed answer is final under
/// its design; another design asks the question again.
pub(super) fn open_answer(app: &mut App, votes: bool) {
    let Some((index, quiz)) = app.question_here() else {
        return;
    };
    let choices = app.choices(quiz).len();
    app.place.playing = false;
    if app.response_here().is_some_and(|r| r.is_revealed()) {
        app.screens.notice = Some(format!(
            "the room's answer under {} is revealed and stays; switch design (1–6) to ask again under another",
            crate::replay::shown::design_name(app, app.place.design)
        ));
        return;
    }
    if votes {
        if let Some(r) = app.talk.room.entry(index, app.place.design) {
            r.votes.resize(choices, 0);
        }
        app.screens.overlay = Overlay::Voting {
            selected: 0,
            fresh: true,
        };
    } else {
        app.screens.overlay = Overlay::Answering;
    }
}

/// The room's answer, in answer mode: kept, and revealed by the next step (or Enter).
pub(super) fn answer(app: &mut App, choice: usize) {
    let Some((index, quiz)) = app.question_here() else {
        return;
    };
    let choices = app.choices(quiz);
    let Some(text) = choices.get(choice).cloned() else {
        app.screens.notice = Some(format!("choose 1 to {}, or Esc", choices.len()));
        return;
    };
    let design = app.place.design;
    match app.talk.room.entry(index, design) {
        Some(r) if r.is_revealed() => {}
        Some(r) => {
            r.choice = Some(choice);
            app.screens.overlay = Overlay::None;
            app.screens.notice = Some(format!(
                "the room says {} {text}: → or Enter reveals, u takes it back",
                choice + 1
            ));
        }
        None => {}
    }
}

/// A digit typed while counting hands (the selected choice's count), `+` or `-` (one more or
/// less), or `None` for Backspace (its last digit erased).
pub(super) fn count(app: &mut App, typed: Option<char>) {
    let Overlay::Voting { selected, fresh } = app.screens.overlay else {
        return;
    };
    let Some((index, _)) = app.question_here() else {
        return;
    };
    let Some(r) = app.talk.room.entry(index, app.place.design) else {
        return;
    };
    let Some(n) = r.votes.get_mut(selected) else {
        return;
    };
    *n = match typed {
        Some('+') => n.saturating_add(1),
        Some('-') => n.saturating_sub(1),
        Some(c) => {
            let digit = c.to_digit(10).unwrap_or(0);
            if fresh {
                digit
            } else {
                n.saturating_mul(10).saturating_add(digit)
            }
        }
        None => *n / 10,
    }
    .min(MAX_VOTES);
    app.screens.overlay = Overlay::Voting {
        selected,
        fresh: false,
    };
}

/// Shows the right answer to what the room said, under the design on screen: final from now.
pub(super) fn reveal(app: &mut App) {
    app.place.playing = false;
    let Some((index, quiz)) = app.question_here() else {
        return;
    };
    let correct = app.correct(quiz, app.place.design);
    let started = app.response_here().is_some_and(|r| r.started());
    if !started {
        app.screens.notice = Some(if matches!(app.screens.overlay, Overlay::Voting { .. }) {
            "no hands counted yet: type each choice's count, then Enter".into()
        } else {
            quiz_reminder(app)
        });
        return;
    }
    if let Some(r) = app.talk.room.entry(index, app.place.design)
        && !r.is_revealed()
    {
        r.reveal(correct);
        if r.choice.is_none() {
            app.screens.notice = Some("the room is split: no choice has the most hands".into());
        }
    }
    app.screens.overlay = Overlay::None;
}

/// Takes back the room's answer (and its counted hands) before the reveal.
pub(super) fn take_back(app: &mut App) {
    let Some((index, _)) = app.question_here() else {
        return;
    };
    if let Some(r) = app.talk.room.entry(index, app.place.design)
        && r.waiting()
    {
        *r = crate::replay::room::Response::default();
        app.screens.notice =
            Some("the room's answer is taken back: the question waits again".into());
    }
}

/// Whether leaving now loses something: what-ifs never saved, or a room's answers.
pub(super) fn leaving_loses(app: &App) -> bool {
    app.version.unsaved() || (app.talk.present.is_some() && app.talk.room_answered())
}
