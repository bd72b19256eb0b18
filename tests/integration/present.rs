//! Teaching a room: the presenter's link to the speaker notes over a real Unix socket, the
//! notes' sheet, the presenter's screens, and both programs end to end in tmux.

use crate::common;

use common::{TempDir, Tmux, collapse, key, press, render, tmux_ready};
use idem::present::link::{Follower, Position, Publisher};
use idem::scenario::library::default_scenario;
use idem::sim::{Design, TickKind};
use idem::tui::app::Presenting;
use idem::tui::notes::sheet;
use idem::tui::{App, Msg};
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use std::io::ErrorKind;
use std::path::Path;
use std::time::Duration;

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

fn position(tick: usize) -> Position {
    Position {
        source: "order-5531".into(),
        scenario: default_scenario().expect("loads").text,
        design: "with-charge".into(),
        tick,
        shown: Default::default(),
    }
}

const WAIT: Duration = Duration::from_secs(2);
const QUIET: Duration = Duration::from_millis(200);

// ---------------------------------------------------------------------------------------------
// 1. The link, over a real socket
// ---------------------------------------------------------------------------------------------

#[test]
fn publisher_and_follower_over_a_socket() {
    let dir = TempDir::new("link");
    // A folder the publisher makes for its socket is private.
    let path = dir.join("made").join("p.sock");
    let mut publisher = Publisher::bind(&path).expect("binds");
    assert!(path.exists(), "the socket file is there");
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(dir.join("made"))
            .expect("stat")
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o700, "the socket's folder is private");
    }
    assert_eq!(publisher.followers(), 0);

    let mut first = Follower::connect(&path).expect("connects");
    // Nothing is sent before the presenter publishes.
    assert_eq!(first.next(QUIET).expect("no error"), None);
    let at_3 = position(3);
    publisher.publish(&at_3);
    assert_eq!(publisher.followers(), 1);
    assert_eq!(first.next(WAIT).expect("reads"), Some(at_3.clone()));

    // The same position again sends nothing.
    publisher.publish(&at_3);
    assert_eq!(first.next(QUIET).expect("no error"), None);

    // A changed one arrives.
    let at_4 = Position {
        design: "no-key".into(),
        ..position(4)
    };
    publisher.publish(&at_4);
    assert_eq!(first.next(WAIT).expect("reads"), Some(at_4.clone()));

    // A follower that comes later gets the current position on the next publish, even an
    // unchanged one; the first follower is not sent it twice.
    let mut second = Follower::connect(&path).expect("connects");
    assert_eq!(second.next(QUIET).expect("no error"), None);
    publisher.publish(&at_4);
    assert_eq!(second.next(WAIT).expect("reads"), Some(at_4.clone()));
    assert_eq!(first.next(QUIET).expect("no error"), None);
    assert_eq!(publisher.followers(), 2);

    // Both follow the next change.
    let at_5 = position(5);
    publisher.publish(&at_5);
    assert_eq!(first.next(WAIT).expect("reads"), Some(at_5.clone()));
    assert_eq!(second.next(WAIT).expect("reads"), Some(at_5.clone()));

    // A follower that went away is dropped at the next change.
    drop(second);
    publisher.publish(&position(6));
    publisher.publish(&position(7));
    assert_eq!(publisher.followers(), 1);
    assert_eq!(first.next(WAIT).expect("reads"), Some(position(6)));
    assert_eq!(first.next(WAIT).expect("reads"), Some(position(7)));

    // Dropping the publisher removes the socket file and ends the followers' stream.
    drop(publisher);
    assert!(!path.exists(), "the socket file is removed");
    let err = first.next(WAIT).expect_err("the presenter has gone");
    assert_eq!(err.kind(), ErrorKind::UnexpectedEof, "{err}");
    assert!(Follower::connect(&path).is_err());
}

#[test]
fn a_second_presenter_is_refused() {
    let dir = TempDir::new("busy");
    let path = dir.join("p.sock");
    let mut publisher = Publisher::bind(&path).expect("binds");
    let mut follower = Follower::connect(&path).expect("connects");
    publisher.publish(&position(1));
    assert_eq!(follower.next(WAIT).expect("reads"), Some(position(1)));

    let Err(err) = Publisher::bind(&path) else {
        panic!("a second presenter on the same socket is refused");
    };
    assert_eq!(err.kind(), ErrorKind::AddrInUse, "{err}");
    assert!(err.to_string().contains("another presenter"), "{err}");
    // The first presenter is untouched and still reaches its follower.
    assert!(path.exists());
    publisher.publish(&position(2));
    assert_eq!(follower.next(WAIT).expect("reads"), Some(position(2)));
    assert_eq!(
        publisher.followers(),
        1,
        "the refused probe is not a follower"
    );
}

#[test]
fn a_stale_socket_file_is_replaced() {
    let dir = TempDir::new("stale");
    let path = dir.join("p.sock");
    // A presenter that died without cleaning up: the file stays, nobody listens on it.
    let dead = std::os::unix::net::UnixListener::bind(&path).expect("a raw listener");
    drop(dead);
    assert!(path.exists(), "dropping a listener leaves its file behind");
    assert!(Follower::connect(&path).is_err(), "nobody listens on it");

    let mut publisher = Publisher::bind(&path).expect("the stale file is replaced");
    let mut follower = Follower::connect(&path).expect("connects");
    publisher.publish(&position(2));
    assert_eq!(follower.next(WAIT).expect("reads"), Some(position(2)));
    drop(publisher);
    assert!(!path.exists());
}

// ---------------------------------------------------------------------------------------------
// 2. The notes' sheet
// ---------------------------------------------------------------------------------------------

const NOTE_SILENCE: &str = "From the checkout's seat, a lost request, a lost answer and a slow bank look identical. Point at the three.";
const NOTE_CHARGED: &str = "Ask the room: has the customer been charged yet? (Yes — and nobody outside the processor knows.)";

#[test]
fn the_notes_sheet_for_order_5531() {
    let scenario = default_scenario().expect("loads");
    let trace = scenario.simulate(Design::WithCharge).expect("simulates");
    let crash = trace
        .ticks
        .iter()
        .position(|t| t.kind == TickKind::Crash)
        .expect("order 5531 crashes");
    assert_eq!(crash, 5);
    let at = |design: &str, tick: usize| {
        sheet(&Position {
            source: "order-5531".into(),
            scenario: scenario.text.clone(),
            design: design.into(),
            tick,
            shown: Default::default(),
        })
        .unwrap_or_else(|e| panic!("a sheet for {design} at {tick}: {e}"))
    };

    let s = at("with-charge", crash);
    assert_eq!(s.title, "Order 5531: the answer that never came");
    assert_eq!(s.design, "key stored with the charge");
    assert_eq!(s.position, "tick 6/13 · 14:02:07.250");
    assert_eq!(s.now, "Processor — crashes");
    assert!(s.now.contains("crashes"));
    assert_eq!(s.narration, scenario.tell(&trace).narrations[crash]);
    assert_eq!(s.next, "14:02:07.300 Network — answer to #1 lost");
    assert!(
        s.notes.is_empty(),
        "no note on the crash itself: {:?}",
        s.notes
    );
    let quiz = s.quiz.expect("the question to come");
    assert!(
        quiz.starts_with("The checkout's retry is on its way. How many times will the card be charged? (asked at tick 10)"),
        "{quiz}"
    );
    assert!(
        quiz.contains("Answer under key stored with the charge: 2 Once."),
        "{quiz}"
    );
    let explained = scenario.quizzes[0]
        .explanation
        .for_design(Design::WithCharge)
        .to_string();
    assert!(quiz.ends_with(&explained), "{quiz}");
    // Once the presenter's story is no longer the file's, the file's explanation is not
    // given as the reason.
    let changed = sheet(&Position {
        source: "order-5531".into(),
        scenario: scenario.text.clone(),
        design: "with-charge".into(),
        tick: crash,
        shown: idem::present::link::Shown {
            changed: vec!["the what-ifs".into()],
            ..Default::default()
        },
    })
    .expect("a sheet");
    let quiz = changed.quiz.expect("the question to come");
    assert!(
        quiz.ends_with(
            "The file's explanation is for the story it tells; the what-ifs changed it here."
        ),
        "{quiz}"
    );

    // The trainer's notes, on the ticks they name.
    let silence = trace
        .ticks
        .iter()
        .position(|t| trace.format_time(t.at) == "14:02:37.000")
        .expect("a tick at 14:02:37");
    assert_eq!(at("with-charge", silence).notes, [NOTE_SILENCE]);
    assert!(scenario.notes.iter().any(|n| n.text == NOTE_SILENCE));
    // A note at 14:02:07.250 belongs to the first tick then: the charge, before the answer
    // leaves and the processor crashes.
    assert_eq!(at("with-charge", crash - 2).notes, [NOTE_CHARGED]);

    // The answer follows the design in force.
    let no_key = at("no-key", crash);
    assert_eq!(no_key.design, "no key");
    assert_eq!(no_key.now, "Processor — crashes");
    assert!(
        no_key
            .quiz
            .as_deref()
            .is_some_and(|q| q.contains("Answer under no key: 3 Twice.")),
        "{:?}",
        no_key.quiz
    );
    // At the question itself it is asked now; past it, there is none to come.
    let asked = at("with-charge", 9);
    assert!(
        asked
            .quiz
            .as_deref()
            .is_some_and(|q| q.contains("(asked now)")),
        "{:?}",
        asked.quiz
    );
    let last = trace.ticks.len() - 1;
    let end = at("with-charge", last);
    assert_eq!(end.quiz, None);
    assert_eq!(
        end.next,
        "this is the last tick: the outcome is on the presenter's screen"
    );

    // What cannot be followed is said, not guessed at.
    let bad = |p: Position| sheet(&p).expect_err("refused");
    assert!(
        bad(Position {
            design: "no-such-design".into(),
            ..position(0)
        })
        .contains("unknown design")
    );
    assert!(bad(position(last + 1)).contains("past the end"));
    assert!(
        sheet(&Position {
            scenario: "title = ".into(),
            ..position(0)
        })
        .is_err()
    );
}

// ---------------------------------------------------------------------------------------------
// 3. The presenter's screens
// ---------------------------------------------------------------------------------------------

/// Order 5531 (without its quiz, so stepping is never held up) in presenter mode, 75 s in.
fn presenting() -> App {
    let mut scenario = default_scenario().expect("loads");
    scenario.quizzes.clear();
    let mut app = App::new(scenario, "order-5531".into()).expect("simulates");
    app.talk.present = Some(Presenting {
        show_elapsed: true,
        elapsed_secs: 75,
        ..Default::default()
    });
    app
}

fn check_presenter_screen(app: &App, screen: &str) {
    assert!(
        !screen.contains("Processor memory"),
        "no side panels:\n{screen}"
    );
    assert!(!screen.contains("Ledger"), "{screen}");
    assert!(!screen.contains("share:"), "{screen}");
    let narration = &app.told().narrations[app.place.tick];
    assert!(
        collapse(screen).contains(&collapse(narration)),
        "the narration in full:\n{screen}"
    );
    let first = screen.lines().next().expect("a title line");
    assert!(
        first.contains("Order 5531: the answer that never came"),
        "{first}"
    );
    assert!(
        first.contains(&format!(
            "◷ 14:02:07.250   {}/{}   ⏲ 01:15",
            app.place.tick + 1,
            app.trace().ticks.len()
        )),
        "{first}"
    );
    let foot = screen.lines().last().expect("a footer");
    assert!(foot.contains(". blank"), "{foot}");
    assert!(foot.contains("PgDn/→ next"), "{foot}");
    assert!(foot.contains("t timer"), "{foot}");
    assert!(
        screen.contains("Card statement: 1 line · total $48.60"),
        "{screen}"
    );
}

#[test]
fn presenter_screens() {
    let mut app = presenting();
    for _ in 0..5 {
        assert_eq!(press(&mut app, key(KeyCode::PageDown)), Some(Msg::Next));
    }
    assert_eq!(app.place.tick, 5);
    assert_eq!(app.trace().ticks[5].kind, TickKind::Crash);

    let wide = render(&app, 100, 30);
    insta::assert_snapshot!("presenter_100x30", wide);
    check_presenter_screen(&app, &wide);
    let small = render(&app, 80, 24);
    insta::assert_snapshot!("presenter_80x24", small);
    check_presenter_screen(&app, &small);
    // The outcome waits for the last tick.
    assert!(!wide.contains("Charged once"), "{wide}");

    // PageUp steps back, PageDown forward.
    assert_eq!(press(&mut app, key(KeyCode::PageUp)), Some(Msg::Prev));
    assert_eq!(app.place.tick, 4);
    press(&mut app, key(KeyCode::PageDown));
    assert_eq!(app.place.tick, 5);

    // At the last tick the outcome headline is on the money line.
    press(&mut app, key(KeyCode::End));
    assert!(app.at_end());
    let end = render(&app, 100, 30);
    let money = end
        .lines()
        .find(|l| l.contains("Card statement:"))
        .expect("the money line");
    assert!(
        money.contains("Card statement: 1 line · total $48.60   ✓ Charged once — $48.60"),
        "{money}"
    );
}

#[test]
fn presenter_timer_blank_and_quit() {
    let mut app = presenting();
    assert!(render(&app, 100, 30).contains("⏲ 01:15"));
    assert_eq!(
        press(
            &mut app,
            KeyEvent::new(KeyCode::Char('t'), KeyModifiers::NONE)
        ),
        Some(Msg::ToggleElapsed)
    );
    let screen = render(&app, 100, 30);
    assert!(!screen.contains('⏲'), "the timer is hidden:\n{screen}");
    assert!(screen.contains("◷ 14:02:07.000   1/13"), "{screen}");
    press(&mut app, key(KeyCode::Char('t')));
    assert!(render(&app, 100, 30).contains("⏲ 01:15"));

    // `.` blanks the screen: every cell a space.
    assert_eq!(press(&mut app, key(KeyCode::Char('.'))), Some(Msg::Blank));
    assert!(app.talk.present.is_some_and(|p| p.blank));
    for (w, h) in [(100, 30), (80, 24)] {
        let screen = render(&app, w, h);
        assert!(
            screen.chars().all(|c| c == ' ' || c == '\n'),
            "blank at {w}×{h}:\n{screen}"
        );
    }
    // Any other key brings it back without acting on it.
    assert_eq!(press(&mut app, key(KeyCode::PageDown)), Some(Msg::Blank));
    assert!(app.talk.present.is_some_and(|p| !p.blank));
    assert_eq!(app.place.tick, 0, "the waking key did not step");
    assert!(render(&app, 100, 30).contains("1/13"));
    press(&mut app, key(KeyCode::Char('b')));
    assert!(app.talk.present.is_some_and(|p| p.blank));
    assert_eq!(press(&mut app, key(KeyCode::Char('3'))), Some(Msg::Blank));
    assert_eq!(
        app.place.design,
        Design::WithCharge,
        "the waking key did not switch"
    );
    // q quits, blank or not.
    press(&mut app, key(KeyCode::Char('.')));
    assert!(app.talk.present.is_some_and(|p| p.blank));
    assert_eq!(press(&mut app, key(KeyCode::Char('q'))), Some(Msg::Quit));
    assert!(app.quit);
}

// ---------------------------------------------------------------------------------------------
// 4. End to end in tmux
// ---------------------------------------------------------------------------------------------

const WIDTH: u16 = 100;
const HEIGHT: u16 = 30;

/// Starts `idem <command>` in a session's shell, on the test's own socket.
fn start_idem(tmux: &Tmux, session: &str, socket: &Path, command: &str) {
    let bin = env!("CARGO_BIN_EXE_idem");
    let socket = socket.display().to_string();
    assert!(
        !bin.contains('\'') && !socket.contains('\''),
        "paths quoted with '"
    );
    tmux.type_text(
        session,
        &format!("IDEM_SOCKET='{socket}' '{bin}' {command}"),
    );
    tmux.press(session, "Enter");
}

/// The presenter's title line: `◷ 14:02:07.000   1/13   ⏲ 00:00` on the right.
fn presenter_at(screen: &str, tick: usize) -> bool {
    screen
        .lines()
        .next()
        .is_some_and(|l| l.contains(&format!("   {tick}/13")))
}

const STOPPED: &str = "The presenter has stopped. Waiting for it to come back…";

#[test]
fn presenter_and_notes_in_tmux() {
    if !tmux_ready("the presenter and notes end-to-end test") {
        return;
    }
    let dir = TempDir::new("e2e");
    let socket = dir.join("p.sock");
    let mut tmux = Tmux::start("tmux");
    tmux.session("present", WIDTH, HEIGHT);
    tmux.session("notes", WIDTH, HEIGHT);

    start_idem(&tmux, "notes", &socket, "notes");
    tmux.wait_for("notes", "the notes waiting for a presenter", |s| {
        s.contains("No presenter is running")
    });
    start_idem(&tmux, "present", &socket, "present");
    tmux.wait_for("present", "the presenter", |s| presenter_at(s, 1));
    assert!(socket.exists(), "the presenter listens on IDEM_SOCKET");
    // The notes retry once a second; step only once they are connected (a presenter on a
    // built-in serves a new follower at its next key press: see the ignored test below).
    tmux.wait_for("notes", "the notes to connect", |s| {
        !s.contains("No presenter is running")
    });

    for _ in 0..5 {
        tmux.press("present", "NPage");
    }
    let presenter = tmux.wait_for("present", "the presenter at tick 6", |s| presenter_at(s, 6));
    assert!(presenter.contains("crashes"), "{presenter}");
    let notes = tmux.wait_for("notes", "the notes at tick 6", |s| s.contains("tick 6/"));
    assert!(
        notes.contains("idem notes Order 5531: the answer that never came"),
        "{notes}"
    );
    assert!(
        notes.contains("key stored with the charge · tick 6/13 · 14:02:07.250"),
        "{notes}"
    );
    assert!(notes.contains("Processor — crashes"), "{notes}");
    assert!(
        notes.contains("14:02:07.300 Network — answer to #1 lost"),
        "{notes}"
    );
    assert!(
        notes.contains("Answer under key stored with the charge: 2 Once."),
        "{notes}"
    );

    // A design switch follows too.
    tmux.press("present", "3");
    let notes = tmux.wait_for("notes", "the notes under no key", |s| {
        s.contains("no key · tick 6/")
    });
    assert!(notes.contains("Answer under no key: 3 Twice."), "{notes}");

    // q: the presenter stops and the notes say so.
    tmux.press("present", "q");
    tmux.wait_for("notes", "the notes to see the presenter stop", |s| {
        s.contains(STOPPED)
    });
    tmux.wait_for("present", "the presenter's shell", |s| !s.contains("⏲"));
    assert!(!socket.exists(), "the presenter removed its socket");

    // The presenter comes back: the notes follow it again, from its first tick. A key that
    // changes nothing (t twice) wakes the presenter's loop: see the ignored test below.
    start_idem(&tmux, "present", &socket, "present");
    tmux.wait_for("present", "the presenter again", |s| presenter_at(s, 1));
    tmux.wait_for("notes", "the notes to reconnect", |s| !s.contains(STOPPED));
    tmux.press("present", "t");
    tmux.press("present", "t");
    let notes = tmux.wait_for("notes", "the notes following again", |s| {
        s.contains("key stored with the charge · tick 1/13")
    });
    assert!(notes.contains("Customer — presses Pay"), "{notes}");
    tmux.press("present", "q");
    tmux.press("notes", "q");
    tmux.wait_for("notes", "the notes to quit", |s| !s.contains("idem notes"));
}

/// The presenter's event loop waits for a key for up to an hour when the scenario is not a
/// file (`terminal::run`: `idle` is 3600 s when `app.path` is `None`), so between key presses
/// it neither accepts new followers nor advances the elapsed-time display.
#[test]
fn notes_follow_a_presenter_without_a_key_press() {
    if !tmux_ready("the idle-follower test") {
        return;
    }
    let dir = TempDir::new("idle");
    let socket = dir.join("p.sock");
    let mut tmux = Tmux::start("tmux");
    tmux.session("present", WIDTH, HEIGHT);
    tmux.session("notes", WIDTH, HEIGHT);
    start_idem(&tmux, "present", &socket, "present");
    tmux.wait_for("present", "the presenter", |s| presenter_at(s, 1));
    start_idem(&tmux, "notes", &socket, "notes");
    tmux.wait_for("notes", "the notes following a running presenter", |s| {
        s.contains("tick 1/13")
    });
    tmux.wait_for("present", "the elapsed time to move", |s| {
        !s.contains("⏲ 00:00")
    });
}

/// `IDEM_SOCKET` pointing at an ordinary file must never cost the user that file, nor change
/// the permissions of a folder they chose.
#[test]
fn a_file_that_is_not_a_socket_is_left_alone() {
    use std::os::unix::fs::PermissionsExt;
    let dir = TempDir::new("victim");
    let victim = dir.join("notes.txt");
    std::fs::write(&victim, b"my notes").expect("writes");
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let err = Publisher::bind(&victim).err().expect("refuses");
    assert!(err.to_string().contains("is not a socket"), "{err}");
    assert_eq!(std::fs::read(&victim).expect("still there"), b"my notes");
    let mode = std::fs::metadata(dir.path())
        .expect("stat")
        .permissions()
        .mode();
    assert_eq!(
        mode & 0o777,
        0o755,
        "the user's folder keeps its permissions"
    );
}

// ---------------------------------------------------------------------------------------------
// 5. The socket's folder, refusals the presenter shows, and followers that do not read
// ---------------------------------------------------------------------------------------------

#[test]
fn without_a_runtime_dir_the_socket_is_in_a_private_folder_of_the_temp_dir() {
    use idem::present::link::socket_place_from;
    let place = socket_place_from(None, None, Some("ann".into()));
    let folder = std::env::temp_dir().join("idem-ann");
    assert_eq!(place.path, folder.join("presenter.sock"));
    assert_eq!(place.private_folder, Some(folder));
    let place = socket_place_from(None, Some("/run/user/7".into()), Some("ann".into()));
    assert_eq!(place.path, Path::new("/run/user/7/idem-ann/presenter.sock"));
    assert!(place.private_folder.is_some());
    // A path the user chose is theirs: no folder rule.
    let place = socket_place_from(Some("/x/p.sock".into()), None, Some("ann".into()));
    assert_eq!(place.path, Path::new("/x/p.sock"));
    assert_eq!(place.private_folder, None);
}

#[test]
fn a_socket_folder_that_is_not_ours_and_private_is_refused() {
    use idem::present::link::{SocketPlace, check_private, private_folder};
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let dir = TempDir::new("private");

    // Made here: private, and used.
    let mine = dir.join("idem-me");
    private_folder(&mine).expect("a new folder is made private");
    let meta = std::fs::metadata(&mine).expect("stat");
    assert_eq!(meta.mode() & 0o777, 0o700);
    private_folder(&mine).expect("and used again");

    // Someone else's folder, as it looks to this user: refused.
    let err = check_private(&mine, &meta, meta.uid() + 1).expect_err("not ours");
    assert!(err.to_string().contains("belongs to another user"), "{err}");

    // Open to others: refused, and left as it is.
    let open = dir.join("idem-open");
    std::fs::create_dir(&open).expect("mkdir");
    std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o777)).expect("chmod");
    let place = SocketPlace {
        path: open.join("presenter.sock"),
        private_folder: Some(open.clone()),
    };
    let Err(err) = Publisher::bind_at(&place) else {
        panic!("a folder others can enter is refused");
    };
    assert!(err.to_string().contains("mode 777, not 700"), "{err}");
    assert!(err.to_string().contains("IDEM_SOCKET"), "{err}");
    assert!(!place.path.exists(), "no socket was made there");
    let mode = std::fs::metadata(&open).expect("stat").mode();
    assert_eq!(mode & 0o777, 0o777, "the folder is left alone");
    let Err(err) = Follower::connect_at(&place) else {
        panic!("the notes refuse it too");
    };
    assert!(err.to_string().contains("mode 777"), "{err}");

    // A link in its place, even to a private folder of ours: refused.
    let link = dir.join("idem-link");
    std::os::unix::fs::symlink(&mine, &link).expect("a link");
    let err = private_folder(&link).expect_err("a link is not the folder");
    assert!(err.to_string().contains("is not a folder"), "{err}");

    // Really another user's (possible when the tests run as root).
    let theirs = dir.join("idem-theirs");
    private_folder(&theirs).expect("made");
    let chown = std::process::Command::new("chown")
        .args(["65534", &theirs.display().to_string()])
        .output();
    if chown.is_ok_and(|o| o.status.success()) {
        let err = private_folder(&theirs).expect_err("owned by nobody");
        assert!(err.to_string().contains("belongs to another user"), "{err}");
    }
}

#[test]
fn a_socket_path_too_long_is_refused_with_its_length() {
    let dir = TempDir::new("long");
    let path = dir.join(&"s".repeat(120));
    let Err(err) = Publisher::bind(&path) else {
        panic!("too long for a socket");
    };
    assert!(err.to_string().contains("longer than the 107"), "{err}");
    assert!(err.to_string().contains("IDEM_SOCKET"), "{err}");
}

/// A position whose scenario text is `size` bytes: larger than a socket's buffer.
fn big_position(tick: usize, size: usize) -> Position {
    Position {
        scenario: format!("# {}", "x".repeat(size)),
        ..position(tick)
    }
}

#[test]
fn the_presenter_serves_a_bounded_number_of_followers() {
    let dir = TempDir::new("many");
    let path = dir.join("p.sock");
    let mut publisher = Publisher::bind(&path).expect("binds");
    let crowd: Vec<Follower> = (0..100)
        .map(|_| Follower::connect(&path).expect("connects"))
        .collect();
    publisher.publish(&big_position(1, 1 << 20));
    assert_eq!(
        publisher.followers(),
        idem::present::link::MAX_FOLLOWERS,
        "the rest are closed at once"
    );
    // One past the bound is told why, not that the presenter stopped.
    let mut late = crowd
        .into_iter()
        .nth(idem::present::link::MAX_FOLLOWERS)
        .expect("one past the bound");
    let err = loop {
        match late.next(Duration::from_millis(50)) {
            Ok(_) => continue,
            Err(e) => break e.to_string(),
        }
    };
    assert!(
        err.contains("already serves 16 idem notes") && !err.contains("stopped"),
        "{err}"
    );
}

/// A follower that goes away frees its place at the presenter's next look, not only at its
/// next step: with no new position published, a newcomer is taken in.
#[test]
fn a_gone_followers_place_is_free_before_the_next_step() {
    let dir = TempDir::new("freed");
    let path = dir.join("p.sock");
    let mut publisher = Publisher::bind(&path).expect("binds");
    let mut crowd: Vec<Follower> = (0..idem::present::link::MAX_FOLLOWERS)
        .map(|_| Follower::connect(&path).expect("connects"))
        .collect();
    publisher.publish(&position(1));
    assert_eq!(publisher.followers(), idem::present::link::MAX_FOLLOWERS);
    for f in &mut crowd {
        assert!(f.next(Duration::from_secs(2)).expect("reads").is_some());
    }
    crowd.truncate(3);
    let mut newcomer = Follower::connect(&path).expect("connects");
    publisher.serve();
    assert_eq!(publisher.followers(), 4, "the gone ones were let go");
    assert_eq!(
        newcomer.next(Duration::from_secs(2)).expect("reads"),
        Some(position(1)),
        "the newcomer is served the current position"
    );
}

#[test]
fn followers_that_do_not_read_never_hold_up_the_presenter() {
    let dir = TempDir::new("idle20");
    let path = dir.join("p.sock");
    let (done, finished) = std::sync::mpsc::channel();
    let guard = std::thread::spawn(move || {
        let mut publisher = Publisher::bind(&path).expect("binds");
        let idle: Vec<Follower> = (0..14)
            .map(|_| Follower::connect(&path).expect("connects"))
            .collect();
        // One position far larger than a socket takes at once: it waits in the presenter for
        // each follower instead of stopping the presenter, and nobody is dropped for being slow.
        publisher.publish(&big_position(1, 1 << 20));
        assert_eq!(publisher.followers(), 14, "slow followers are kept");
        // A slow follower that starts reading gets the whole line, while the presenter goes on.
        let mut reader = Follower::connect(&path).expect("connects");
        publisher.serve();
        let got = loop {
            publisher.serve();
            if let Some(p) = reader.next(Duration::from_millis(20)).expect("reads") {
                break p;
            }
        };
        assert_eq!(got, big_position(1, 1 << 20));
        // Followers that never read are sent only the newest position, however many come,
        // and are dropped once a line has waited for them longer than the stall bound; the
        // presenter never waits.
        for tick in 2..14 {
            publisher.publish(&big_position(tick, 1 << 20));
        }
        assert_eq!(
            publisher.followers(),
            15,
            "none dropped before the stall bound"
        );
        publisher.set_stall(Duration::from_millis(100));
        publisher.serve();
        std::thread::sleep(Duration::from_millis(200));
        publisher.serve();
        assert!(
            publisher.followers() <= 1,
            "the 14 that never read are dropped as stalled: {}",
            publisher.followers()
        );
        drop(idle);
        let _ = done.send(());
    });
    let outcome = finished.recv_timeout(Duration::from_secs(60));
    if outcome.is_err() && guard.is_finished() {
        guard.join().expect("the publishing thread");
    }
    assert!(outcome.is_ok(), "publishing to idle followers stalled");
}

#[test]
fn the_presenter_says_why_the_notes_are_off() {
    if !tmux_ready("the notes-off test") {
        return;
    }
    let dir = TempDir::new("off");
    let socket = dir.join("p.sock");
    let file = dir.join("file-in-the-way");
    std::fs::write(&file, "mine").expect("a file");
    let long = dir.join(&"s".repeat(120));
    let mut tmux = Tmux::start("off");
    tmux.session("first", WIDTH, HEIGHT);
    tmux.session("second", WIDTH, HEIGHT);
    start_idem(&tmux, "first", &socket, "present");
    tmux.wait_for("first", "the first presenter", |s| presenter_at(s, 1));
    assert!(
        !tmux.screen("first").contains("speaker notes are off"),
        "the first one has its notes"
    );
    for (path, why) in [
        (socket.as_path(), "another presenter is already running"),
        (file.as_path(), "is not a socket"),
        (long.as_path(), "longer than the 107"),
    ] {
        start_idem(&tmux, "second", path, "present");
        let screen = tmux.wait_for("second", why, |s| {
            collapse(s).contains("speaker notes are off:") && collapse(s).contains(why)
        });
        assert!(presenter_at(&screen, 1), "{screen}");
        tmux.press("second", "q");
        tmux.wait_for("second", "the presenter to quit", |s| !s.contains("⏲"));
    }
    assert_eq!(std::fs::read(&file).expect("kept"), b"mine");
    // Once the first presenter quits, a second one that keeps running gets the notes.
    start_idem(&tmux, "second", &socket, "present");
    tmux.wait_for("second", "the notice", |s| {
        s.contains("speaker notes are off")
    });
    tmux.press("first", "q");
    tmux.wait_for("second", "the notes to come on", |s| {
        !s.contains("speaker notes are off")
    });
    tmux.press("second", "q");
}

/// A notes sheet longer than the screen says how much is out of sight and scrolls with ↓ / ↑;
/// the next tick starts at the top again.
#[test]
fn a_long_notes_sheet_scrolls_with_a_sign() {
    use idem::tui::notes::{Notes, NotesMsg, Sheet, Status};
    use idem::tui::program::Program;
    let sheet = |position: &str| Sheet {
        title: "Order 5531".into(),
        design: "no key".into(),
        position: position.into(),
        now: "Processor — crashes".into(),
        narration: "The processor crashes right after answering attempt #1.".into(),
        next: "14:02:07.300 Network — answer to #1 lost".into(),
        notes: (1..=30).map(|n| format!("note line {n}")).collect(),
        quiz: None,
        shown: Default::default(),
        last: false,
    };
    let mut notes = Notes {
        status: Status::Following(Ok(Box::new(sheet("tick 6/15")))),
        quit: false,
        received: std::time::Instant::now(),
        scroll: 0,
    };
    let draw = |n: &Notes| common::screen_text(80, 24, |f| n.view(f, &common::PLAIN));
    let top = draw(&notes);
    assert!(
        top.contains("↓ ") && top.contains(" more · ↓↑ scroll"),
        "{top}"
    );
    assert!(!top.contains("note line 30"), "{top}");
    let down = ratatui::crossterm::event::Event::Key(common::key(
        ratatui::crossterm::event::KeyCode::PageDown,
    ));
    for _ in 0..5 {
        let msg = notes.message(&down).expect("PageDown scrolls");
        notes.update(msg);
    }
    let bottom = draw(&notes);
    assert!(bottom.contains("note line 30"), "{bottom}");
    assert!(
        bottom.contains("↑ ") && bottom.contains(" above"),
        "{bottom}"
    );
    // The presenter moves on: the sheet starts at the top again.
    notes.update(NotesMsg::Show(Status::Following(Ok(Box::new(sheet(
        "tick 7/15",
    ))))));
    assert_eq!(notes.scroll, 0);
}
