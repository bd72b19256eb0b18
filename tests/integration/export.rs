//! `idem export` through the library: an insta snapshot of each format, the shape of each
//! format, safe writing (no clobbering without --force, no temporary files left behind), and
//! hostile scenario text that must not reach the exported files as markup or escape sequences.
//!
//! `assets/replay.svg`, the README's picture, is compared with a fresh export too; it is
//! rewritten instead when the environment variable `IDEM_REGENERATE=1` is set.

use idem::cli::export::{ExportArgs, Exported};
use idem::export::{Audience, Format};
use idem::scenario::values::parse_clock;
use idem::sim::Design;
use serde_json::Value;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

const REGENERATE: &str = "IDEM_REGENERATE";

fn regenerating() -> bool {
    std::env::var(REGENERATE).is_ok_and(|v| v == "1")
}

/// A fresh, empty directory for one test, under Cargo's scratch space for integration tests.
fn scratch(name: &str) -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!(
        "export-{name}-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).expect("the scratch directory can be created");
    dir
}

/// The names in a directory, sorted.
fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .expect("the scratch directory is readable")
        .map(|e| {
            e.expect("a directory entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    names.sort();
    names
}

/// Runs an export: the line that says what was written (or, for `--out -`, the export
/// itself), or the error as it would be printed.
fn run(args: &ExportArgs) -> Result<String, String> {
    match idem::cli::export::run(args) {
        Ok(Exported::File(line)) | Ok(Exported::Stdout(line)) => Ok(line),
        Err(e) => Err(e.text()),
    }
}

/// Runs an export into a scratch directory and returns the file's text.
fn export(args: ExportArgs) -> String {
    let message = run(&args).unwrap_or_else(|e| panic!("export {args:?} failed: {e}"));
    assert!(message.starts_with("wrote "), "{message}");
    assert!(!message.contains('\n'), "one line: {message:?}");
    fs::read_to_string(&args.out).expect("the exported file is UTF-8 text")
}

/// Compares `actual` with the committed asset at `path` (relative to the crate), or rewrites
/// the file when regenerating: for a file the repository shows as it is, not a snapshot.
fn asset(path: &str, actual: &str) {
    let full = Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    if regenerating() {
        if let Some(dir) = full.parent() {
            fs::create_dir_all(dir).expect("the asset's folder can be created");
        }
        fs::write(&full, actual).expect("the asset can be written");
        return;
    }
    let expected = fs::read_to_string(&full).unwrap_or_else(|e| {
        panic!("cannot read {path} ({e}); create it with `{REGENERATE}=1 cargo test --test integration export`")
    });
    if expected != actual {
        let line = expected
            .lines()
            .zip(actual.lines())
            .position(|(a, b)| a != b)
            .map_or(expected.lines().count().min(actual.lines().count()), |i| i)
            + 1;
        panic!(
            "{path} differs from a fresh export (first at line {line}; {} bytes committed, {} bytes now).\n\
             If the change is intended, regenerate with `{REGENERATE}=1 cargo test --test integration export` and review the diff.",
            expected.len(),
            actual.len()
        );
    }
}

fn md_args(dir: &Path) -> ExportArgs {
    ExportArgs::new("order-5531", Format::Md, dir.join("order-5531.md"))
}

/// The full handout: the pre-read, then every timeline, the outcomes and the answers.
fn full_args(dir: &Path) -> ExportArgs {
    let mut args = ExportArgs::new("order-5531", Format::Md, dir.join("order-5531-full.md"));
    args.handout = Some(Audience::Students);
    args
}

fn svg_args(dir: &Path) -> ExportArgs {
    let mut args = ExportArgs::new("order-5531", Format::Svg, dir.join("frame.svg"));
    args.design = Some(Design::NoKey);
    args.at = Some(parse_clock("14:02:38").expect("a clock time"));
    args
}

fn cast_args(dir: &Path) -> ExportArgs {
    let mut args = ExportArgs::new("order-5531", Format::Cast, dir.join("replay.cast"));
    args.design = Some(Design::WithCharge);
    args
}

#[test]
fn golden_markdown() {
    let dir = scratch("golden-md");
    insta::assert_snapshot!("order_5531_md", export(md_args(&dir)));
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn golden_svg_no_key_at_retry() {
    let dir = scratch("golden-svg");
    insta::assert_snapshot!("order_5531_no_key_14_02_38_svg", export(svg_args(&dir)));
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn golden_cast_with_charge() {
    let dir = scratch("golden-cast");
    insta::assert_snapshot!("order_5531_with_charge_cast", export(cast_args(&dir)));
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn golden_svg_light() {
    let dir = scratch("golden-svg-light");
    let mut args = svg_args(&dir);
    args.theme = Some(idem::export::SvgTheme::Light);
    let svg = export(args);
    insta::assert_snapshot!("order_5531_no_key_14_02_38_light_svg", svg.as_str());
    // A light page, dark text: neither of the dark theme's defaults is left.
    assert!(svg.contains("fill=\"#fbfbfc\""), "the light page");
    assert!(!svg.contains(idem::export::svg::DEFAULT_BG));
    assert!(!svg.contains(idem::export::svg::DEFAULT_FG));
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn golden_markdown_for_the_trainer() {
    let dir = scratch("golden-md-trainer");
    let mut args = md_args(&dir);
    args.trainer = true;
    insta::assert_snapshot!("order_5531_trainer_md", export(args));
    let _ = fs::remove_dir_all(&dir);
}

/// The full handout keeps the answers, the timelines and the trainer's notes away from the
/// questions; the trainer's has the notes, and each answer under its question.
#[test]
fn the_students_handout_keeps_the_answers_apart() {
    let dir = scratch("audience");
    let students = export(full_args(&dir));
    let question = students.find("**Question 1**").expect("the question");
    let page_break = students.find("page-break-before").expect("a page break");
    let timelines = students.find("## 1 ·").expect("the timelines");
    let answers = students
        .find("## Answers")
        .expect("the answers, on their own page");
    assert!(
        question < page_break && page_break < timelines && timelines < answers,
        "the questions first, then what happened, then the answers"
    );
    assert!(
        !students[..page_break].contains("**Outcome:**")
            && !students[..page_break].contains("Charged twice"),
        "no outcome before the questions"
    );
    assert!(
        !students[..answers].contains("**2. Once**"),
        "no answer before the last page"
    );
    assert!(!students.contains("Notes for the trainer"));
    let mut args = md_args(&dir);
    args.trainer = true;
    args.out = dir.join("trainer.md");
    let trainer = export(args);
    assert!(trainer.contains("## Notes for the trainer"));
    assert!(!trainer.contains("## Answers"));
    let question = trainer.find("**Question 1**").expect("the question");
    let answer = trainer.find("**2. Once**").expect("its answer");
    let timelines = trainer.find("## 1 ·").expect("the timelines");
    assert!(
        question < answer && answer < timelines,
        "the answer is inline, up front"
    );
    let _ = fs::remove_dir_all(&dir);
}

/// The words a reader reads: whitespace-separated pieces with a letter or a digit in them
/// (a table's bars and rules are not words).
fn words(text: &str) -> usize {
    text.split_whitespace()
        .filter(|w| w.chars().any(char::is_alphanumeric))
        .count()
}

/// Every outcome the handout could give away under some design, and the words that answer a
/// "how many charges" question.
fn outcome_words() -> Vec<&'static str> {
    vec![
        "**Outcome:**",
        "Outcome across designs",
        "Charged twice",
        "Charged once",
        "verdict",
        "## Answers",
        "**3. Twice**",
        "**2. Once**",
        "statement: 2 lines",
    ]
}

/// The pre-read, the default handout: the story up to the question and the question, and
/// nothing that answers it: no outcome, no later tick, no answer, no author's summary (which
/// says how the story ends).
#[test]
fn the_pre_read_gives_nothing_away() {
    let dir = scratch("pre-read");
    for name in [
        "per-attempt-key",
        "order-5531",
        "reply-lost",
        "monday-rerun",
    ] {
        let args = ExportArgs::new(name, Format::Md, dir.join(format!("{name}.md")));
        let md = export(args);
        for leak in outcome_words() {
            assert!(
                !md.contains(leak),
                "{name}: the pre-read says {leak:?}:\n{md}"
            );
        }
        assert!(md.contains("**Question 1**"), "{name}: the question");
        assert!(md.contains("1. Not at all"), "{name}: its choices");
        assert!(md.contains("## The story up to question 1"), "{name}");
        let scenario = idem::scenario::resolve(name).expect("a built-in");
        let first_line = scenario.description.lines().next().unwrap_or_default();
        assert!(
            !md.contains(first_line.trim()),
            "{name}: the author's summary tells the ending"
        );
    }
    // A tick only some designs have (a write to memory) would start to answer the question.
    let md = fs::read_to_string(dir.join("order-5531.md")).expect("written");
    assert!(md.contains("answer to #1 lost"), "the shared story is told");
    assert!(!md.contains("in one write"), "a design's own tick: {md}");
    assert!(!md.contains("replays K7Q4"), "a tick after the question");
    let _ = fs::remove_dir_all(&dir);
}

/// The compact handout: the pre-read first, then only the designs shown and only their ticks
/// of their own; the outcomes and answers come after the questions.
#[test]
fn the_compact_handout_shows_where_the_designs_part_ways() {
    let dir = scratch("compact");
    let mut args = md_args(&dir);
    args.handout = Some(Audience::Compact);
    let md = export(args);
    let question = md.find("**Question 1**").expect("the question");
    let next = md.find("## What happened next").expect("what came next");
    assert!(question < next);
    for leak in outcome_words() {
        assert!(!md[..next].contains(leak), "before the questions: {leak:?}");
    }
    assert!(md[next..].contains("**Outcome:**"));
    assert!(md[next..].contains("## Answers"));
    // The designs the room is shown: the opening one and the compare screen's.
    for design in Design::CORE {
        assert!(md.contains(&format!("### {}\n", design.name())), "{design}");
    }
    for design in [Design::ContentHash, Design::InProgressRecord] {
        assert!(!md.contains(design.name()), "{design} is not shown");
    }
    // The shared part is not repeated: "answer to #1 lost" is told once, before the question.
    assert_eq!(md.matches("answer to #1 lost").count(), 1);
    assert!(md[next..].contains("#2: replays K7Q4"));
    let _ = fs::remove_dir_all(&dir);
}

/// With the design hidden no design's name or id is left anywhere: not in a heading, an
/// answer, a narration, a note or an explanation. Designs are numbered instead.
#[test]
fn hide_design_leaves_no_design_name_in_any_export() {
    let dir = scratch("hide-design");
    let mut texts = Vec::new();
    for handout in [
        Audience::PreRead,
        Audience::Compact,
        Audience::Students,
        Audience::Trainer,
    ] {
        for name in ["order-5531", "per-attempt-key", "reply-lost"] {
            let mut args =
                ExportArgs::new(name, Format::Md, dir.join(format!("{name}-{handout:?}.md")));
            args.handout = Some(handout);
            args.hide_design = true;
            texts.push((format!("{name} {handout:?}"), export(args)));
        }
    }
    let mut svg = svg_args(&dir);
    svg.hide_design = true;
    texts.push(("svg".into(), export(svg)));
    let mut cast = cast_args(&dir);
    cast.hide_design = true;
    texts.push(("cast".into(), export(cast)));
    for (what, text) in &texts {
        for design in Design::ALL {
            for word in [design.id(), design.name()] {
                assert!(!text.contains(word), "{what} names {word:?}");
            }
        }
    }
    // Three scenarios per form: the compact one of order-5531 is the fourth, the full one the
    // seventh.
    assert!(texts[6].1.contains("## design 1\n"), "neutral headings");
    assert!(texts[3].1.contains("### design 1\n"), "the compact one too");
    let _ = fs::remove_dir_all(&dir);
}

/// --hide-outcome keeps every outcome and verdict line out; --hide-statement keeps the card
/// statement out of a picture.
#[test]
fn hide_outcome_and_statement_are_kept_out() {
    let dir = scratch("hide-outcome");
    for handout in [Audience::Compact, Audience::Students, Audience::Trainer] {
        let mut args = md_args(&dir);
        args.handout = Some(handout);
        args.hide_outcome = true;
        args.out = dir.join(format!("{handout:?}.md"));
        let md = export(args);
        for leak in [
            "**Outcome:**",
            "Outcome across designs",
            "verdict",
            "Charged twice",
        ] {
            assert!(!md.contains(leak), "{handout:?} says {leak:?}");
        }
    }
    let mut svg = svg_args(&dir);
    svg.at = None;
    svg.hide_outcome = true;
    svg.hide_statement = true;
    let picture = export(svg);
    assert!(
        !picture.contains("Charged twice"),
        "the outcome at the last tick"
    );
    assert!(!picture.contains("INKWELL"), "the card statement");
    assert!(picture.contains("hidden until the reveal"));
    let mut cast = cast_args(&dir);
    cast.hide_outcome = true;
    let recording = export(cast);
    assert!(!recording.contains("Charged once"), "the outcome");
    assert!(
        !recording.contains("The answer is"),
        "nor the answer it would reveal"
    );
    let _ = fs::remove_dir_all(&dir);
}

/// A frame where a question stands open shows nothing that answers it: not the checkout's
/// key strategy, not the processor's memory or whether it is up, not what its store holds.
/// Once the recording has revealed the answer they come back.
#[test]
fn an_open_question_keeps_keys_and_memory_off_the_frame() {
    let dir = scratch("asking");
    let mut args = ExportArgs::new("per-attempt-key", Format::Svg, dir.join("q.svg"));
    args.at = Some(parse_clock("14:02:37").expect("a clock time"));
    let svg = export(args);
    assert!(svg.contains("? QUIZ"), "the frame holds the question");
    for leak in [
        "new on every attempt",
        "per attempt",
        "Processor memory",
        "stored 0",
        "held ",
    ] {
        assert!(!svg.contains(leak), "the question's frame shows {leak:?}");
    }
    // A tick before the question shows them as usual.
    let mut args = ExportArgs::new("per-attempt-key", Format::Svg, dir.join("before.svg"));
    args.at = Some(parse_clock("14:02:07.250").expect("a clock time"));
    let before = export(args);
    assert!(before.contains("Processor memory"));
    assert!(before.contains("keys:"));
    // The order-5531 retry: the processor is DOWN in the tick before and back at the question.
    let svg = export(svg_args(&dir));
    assert!(!svg.contains("Processor memory"), "{}", svg.len());
    // The recording: the question's frame keeps them back, the frame after its reveal does not.
    let mut cast = ExportArgs::new("per-attempt-key", Format::Cast, dir.join("r.cast"));
    cast.design = Some(Design::WithCharge);
    let recording = export(cast);
    let frames: Vec<&str> = recording.lines().skip(1).collect();
    let asking = frames
        .iter()
        .position(|f| f.contains("Think it over"))
        .expect("a frame with the question open");
    for leak in ["per attempt", "Processor memory"] {
        assert!(!frames[asking].contains(leak), "{leak}");
    }
    assert!(
        frames[asking + 1].contains("The answer is"),
        "the reveal follows"
    );
    assert!(frames[asking + 1].contains("Processor memory"));
    let _ = fs::remove_dir_all(&dir);
}

/// A session of six built-in scenarios, as a trainer would run in 45 minutes: its pre-read and
/// its compact handout stay short enough to read (about 3,000 words), where the full one runs
/// to tens of thousands. A part's own `hide` is honoured besides the session's.
#[test]
fn a_six_part_session_handout_stays_short() {
    let dir = scratch("session-words");
    let session = dir.join("six.toml");
    let parts = [
        ("order-5531", "8m", ""),
        ("reply-lost", "7m", ""),
        ("per-attempt-key", "7m", ""),
        ("slow-processor", "8m", "hide = [\"design\"]\n"),
        ("monday-rerun", "7m", ""),
        ("nightly-reconcile", "8m", ""),
    ];
    let mut text = String::from("title = \"Six stories\"\n");
    for (name, budget, hide) in parts {
        text.push_str(&format!(
            "[[section]]\nscenario = \"{name}\"\nbudget = \"{budget}\"\n{hide}"
        ));
    }
    fs::write(&session, text).expect("the session file");
    let mut counts = Vec::new();
    for handout in [Audience::PreRead, Audience::Compact, Audience::Students] {
        let mut args = ExportArgs::new(
            &session.to_string_lossy(),
            Format::Md,
            dir.join(format!("{handout:?}.md")),
        );
        args.handout = Some(handout);
        let md = export(args);
        assert_eq!(md.matches("\n# Part ").count(), 6, "six parts");
        counts.push((handout, words(&md), md));
    }
    for (handout, n, _) in &counts[..2] {
        assert!(*n <= 3_000, "{handout:?}: {n} words");
    }
    assert!(
        counts[2].1 > 10_000,
        "the full one is long: {}",
        counts[2].1
    );
    // Part 4 hides its designs; the others show theirs.
    let compact = &counts[1].2;
    let part4 = compact.find("# Part 4").expect("part 4");
    let part5 = compact.find("# Part 5").expect("part 5");
    for design in Design::ALL {
        assert!(!compact[part4..part5].contains(design.name()), "{design}");
    }
    assert!(compact[..part4].contains(Design::WithCharge.name()));
    let _ = fs::remove_dir_all(&dir);
}

/// An export is drawn for a slide: the replay without the key hints and the share line.
#[test]
fn pictures_have_no_key_hints_or_share_line() {
    let dir = scratch("no-footer");
    let svg = export(svg_args(&dir));
    let cast = export(cast_args(&dir));
    for text in [&svg, &cast] {
        assert!(!text.contains("share:"), "the share line");
        assert!(!text.contains("diverge"), "the key hints");
    }
    let _ = fs::remove_dir_all(&dir);
}

/// Options that belong to another format are refused, not ignored.
#[test]
fn theme_and_trainer_belong_to_their_formats() {
    let dir = scratch("theme-trainer");
    let mut md = md_args(&dir);
    md.theme = Some(idem::export::SvgTheme::Light);
    assert!(run(&md).expect_err("md has no theme").contains("--theme"));
    let mut svg = svg_args(&dir);
    svg.trainer = true;
    assert!(
        run(&svg)
            .expect_err("svg has no audience")
            .contains("--trainer")
    );
    let _ = fs::remove_dir_all(&dir);
}

/// The README's picture is an export too; this keeps it from going stale.
#[test]
fn readme_picture_is_current() {
    let dir = scratch("readme");
    let mut args = ExportArgs::new("order-5531", Format::Svg, dir.join("replay.svg"));
    args.design = Some(Design::WithCharge);
    args.width = Some(120);
    args.height = Some(36);
    asset("assets/replay.svg", &export(args));
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn exports_are_deterministic() {
    for make in [md_args, svg_args, cast_args] {
        let (a, b) = (scratch("det-a"), scratch("det-b"));
        assert_eq!(export(make(&a)), export(make(&b)));
        assert_eq!(listing(&a).len(), 1, "only the export, no temporary file");
        let _ = fs::remove_dir_all(&a);
        let _ = fs::remove_dir_all(&b);
    }
}

#[test]
fn markdown_has_every_outcome_and_answers_last() {
    let dir = scratch("md-shape");
    let md = export(full_args(&dir));
    assert!(md.starts_with("# Order 5531: the answer that never came\n"));
    let story = md
        .find("## The story up to question 1")
        .expect("the story is told");
    assert!(
        md.find("A customer pays").is_some_and(|s| s > story),
        "the summary, later"
    );
    for design in Design::ALL {
        let heading = format!(
            "## {} · {} (`{}`)",
            design.hotkey(),
            design.name(),
            design.id()
        );
        let at = md
            .find(&heading)
            .unwrap_or_else(|| panic!("no section for {}", design.id()));
        assert!(at > story);
        let section = &md[at..];
        let outcome = section
            .find("**Outcome:**")
            .expect("each design section ends with its outcome");
        assert!(section[..outcome].contains("| Time | Lane | What happened | Narration |"));
        // The comparison table has a row for the design.
        assert!(
            md.contains(&format!(
                "| {} {} (`{}`) |",
                design.hotkey(),
                design.name(),
                design.id()
            )),
            "no comparison row for {}",
            design.id()
        );
    }
    // The outcomes docs/model.md §3 gives for order-5531.
    assert!(md.contains("✓ Charged once — \\$48.60"));
    assert!(md.contains("✗ Charged twice — \\$97.20"));
    let question = md
        .find("The checkout's retry is on its way")
        .expect("the quiz question is in the handout");
    let choices = md
        .find("1. Not at all\n2. Once\n3. Twice\n")
        .expect("its choices");
    let answers = md.find("## Answers").expect("an answers section");
    assert!(question < choices && choices < answers);
    assert!(md[..answers].contains("## Outcome across designs"));
    let tail = &md[answers..];
    assert!(
        !tail[3..].contains("\n## "),
        "the answers are the last section"
    );
    // The right choice depends on the design: once with the key stored with the charge,
    // twice without a key.
    assert!(tail.contains("- key stored with the charge (`with-charge`): **2. Once**"));
    assert!(tail.contains("- no key (`no-key`): **3. Twice**"));
    assert!(md.ends_with('\n') && !md.ends_with("\n\n"));
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn svg_is_well_formed_enough() {
    let dir = scratch("svg-shape");
    for args in [svg_args(&dir), {
        let mut a = ExportArgs::new("order-5531", Format::Svg, dir.join("last.svg"));
        a.width = Some(80);
        a.height = Some(24);
        a
    }] {
        let svg = export(args);
        assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
        assert!(svg.trim_end().ends_with("</svg>"));
        assert!(
            svg.contains("Charged") || svg.contains("charge $48.60"),
            "the frame shows the money"
        );
        assert_eq!(svg.matches("<text").count(), svg.matches("</text>").count());
        assert_no_raw_markup(&svg);
    }
    let _ = fs::remove_dir_all(&dir);
}

/// Every `<` opens one of the elements the exporter writes, and every `&` starts an entity.
fn assert_no_raw_markup(svg: &str) {
    const TAGS: [&str; 6] = ["svg", "title", "style", "rect", "g", "text"];
    for (i, _) in svg.match_indices('<') {
        let rest = &svg[i + 1..];
        let rest = rest.strip_prefix('/').unwrap_or(rest);
        let name: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphabetic())
            .collect();
        assert!(
            TAGS.contains(&name.as_str()),
            "raw `<` in the SVG: {:?}",
            &svg[i..(i + 40).min(svg.len())]
        );
    }
    for (i, _) in svg.match_indices('&') {
        let rest = &svg[i..];
        assert!(
            ["&amp;", "&lt;", "&gt;", "&quot;", "&apos;"]
                .iter()
                .any(|e| rest.starts_with(e)),
            "raw `&` in the SVG: {:?}",
            &rest[..rest.len().min(20)]
        );
    }
}

#[test]
fn svg_at_picks_the_last_tick_at_or_before() {
    let dir = scratch("svg-at");
    let svg = export(svg_args(&dir));
    // no-key at 14:02:38: the retry has just been sent, and the header says so.
    assert!(
        svg.contains("◷ 14:02:38.000"),
        "the clock shows the retry's time"
    );
    assert!(svg.contains("no key"));
    let mut early = svg_args(&dir);
    early.out = dir.join("early.svg");
    early.at = Some(parse_clock("09:00:00").expect("a clock time"));
    let err = run(&early).expect_err("a time before the first tick is refused");
    assert!(err.contains("before the first tick"), "{err}");
    assert!(!early.out.exists());
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn cast_is_asciinema_v2() {
    let dir = scratch("cast-shape");
    let cast = export(cast_args(&dir));
    let mut lines = cast.lines();
    let header: Value =
        serde_json::from_str(lines.next().expect("a header line")).expect("the header is JSON");
    assert_eq!(header["version"], 2);
    assert_eq!(header["width"], 120);
    assert_eq!(header["height"], 36);
    assert!(
        header["title"]
            .as_str()
            .is_some_and(|t| t.contains("Order 5531"))
    );
    let ticks = idem::scenario::resolve("order-5531")
        .expect("the built-in loads")
        .simulate(Design::WithCharge)
        .expect("it simulates")
        .ticks
        .len();
    let mut last = -1.0;
    let mut count = 0;
    let mut events: Vec<&str> = lines.collect();
    // The last event only shows the cursor again, hidden while the recording played.
    let end: Value = serde_json::from_str(events.pop().expect("a closing event")).expect("JSON");
    assert_eq!(
        end[2], "\u{1b}[?25h",
        "the recording ends by showing the cursor"
    );
    let mut times = Vec::new();
    for line in events {
        let event: Value = serde_json::from_str(line).expect("each event is JSON");
        let event = event.as_array().expect("each event is an array");
        assert_eq!(event.len(), 3, "{line}");
        let t = event[0].as_f64().expect("a time");
        assert!(t > last, "times advance");
        last = t;
        times.push(t);
        assert_eq!(event[1], "o");
        let data = event[2].as_str().expect("output text");
        assert!(
            data.contains("\u{1b}[H\u{1b}[2J"),
            "each frame clears the screen"
        );
        assert_eq!(data.matches("\r\n").count(), 35, "36 rows per frame");
        assert_only_our_escapes(data);
        count += 1;
    }
    // order-5531 asks one question: its answer gets a frame of its own, after a pause.
    assert_eq!(count, ticks + 1, "one frame per tick, and one per answer");
    assert!(end[0].as_f64().is_some_and(|t| t > last));
    let pause = idem::export::cast::QUIZ_PAUSE_MS as f64 / 1000.0;
    let paused = times
        .windows(2)
        .filter(|w| (w[1] - w[0] - pause).abs() < 1e-6);
    assert_eq!(paused.count(), 1, "the answer comes after the pause");
    // No key to press in a recording: the question says the answer will come, then it does.
    assert!(cast.contains("Think it over: the answer follows in a moment."));
    assert!(
        cast.contains("✓ The answer is 2 Once."),
        "under with-charge, once"
    );
    assert!(!cast.contains("Press 1 to"));
    assert!(cast.contains("Charged once"));
    let _ = fs::remove_dir_all(&dir);
}

/// Every ESC in a frame starts a sequence the exporter writes: SGR, cursor home, clear,
/// cursor hide and show.
fn assert_only_our_escapes(data: &str) {
    for (i, _) in data.match_indices('\u{1b}') {
        let rest = &data[i + 1..];
        let ok = rest.starts_with("[H")
            || rest.starts_with("[2J")
            || rest.starts_with("[?25l")
            || rest.starts_with("[?25h")
            || rest.strip_prefix('[').is_some_and(|r| {
                let params: String = r
                    .chars()
                    .take_while(|c| c.is_ascii_digit() || *c == ';')
                    .collect();
                !params.is_empty() && r[params.len()..].starts_with('m')
            });
        assert!(
            ok,
            "unexpected escape sequence: {:?}",
            &rest[..rest.len().min(12)]
        );
    }
}

#[test]
fn existing_file_needs_force() {
    let dir = scratch("force");
    let out = dir.join("handout.md");
    fs::write(&out, "keep me\n").expect("write a file to protect");
    let mut args = ExportArgs::new("order-5531", Format::Md, &out);
    let err = run(&args).expect_err("an existing file is not overwritten");
    assert!(
        err.contains("handout.md") && err.contains("--force"),
        "{err}"
    );
    assert_eq!(fs::read_to_string(&out).expect("still there"), "keep me\n");
    assert_eq!(
        listing(&dir),
        ["handout.md"],
        "no temporary file left behind"
    );
    args.force = true;
    let message = run(&args).expect("--force overwrites");
    assert!(message.contains("handout.md"), "{message}");
    assert!(
        fs::read_to_string(&out)
            .expect("rewritten")
            .starts_with("# Order 5531")
    );
    assert_eq!(
        listing(&dir),
        ["handout.md"],
        "no temporary file left behind"
    );
    let _ = fs::remove_dir_all(&dir);
}

/// A FIFO at `path`, made with `mkfifo`.
fn make_fifo(path: &Path) {
    let ok = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .expect("mkfifo runs")
        .success();
    assert!(ok, "mkfifo {}", path.display());
}

#[test]
fn force_replaces_only_a_regular_file_or_a_link_to_one() {
    let dir = scratch("not-a-file");
    let fifo = dir.join("pipe.md");
    make_fifo(&fifo);
    let folder = dir.join("folder.md");
    fs::create_dir(&folder).expect("a directory");
    let to_device = dir.join("null.md");
    std::os::unix::fs::symlink("/dev/null", &to_device).expect("a link to /dev/null");
    let dangling = dir.join("nowhere.md");
    std::os::unix::fs::symlink(dir.join("no-such-file"), &dangling).expect("a dangling link");
    // /dev/null itself is tried only without --force, and through the check that every write
    // makes first: a regression must not cost the machine its /dev/null.
    let args = ExportArgs::new("order-5531", Format::Md, "/dev/null");
    let err = run(&args).expect_err("a device is refused");
    assert!(
        err.contains("is a character device") && !err.contains("--force"),
        "{err}"
    );
    let err = idem::files::existing_file(Path::new("/dev/null")).expect_err("a device");
    assert!(err.contains("is a character device"), "{err}");
    for (target, what) in [
        (fifo.as_path(), "is a FIFO (named pipe)"),
        (folder.as_path(), "is a directory"),
        (to_device.as_path(), "is a character device"),
        (dangling.as_path(), "leads to no file"),
    ] {
        for force in [false, true] {
            let mut args = ExportArgs::new("order-5531", Format::Md, target);
            args.force = force;
            let err = run(&args).expect_err("never replaced");
            assert!(
                err.contains(what),
                "{} (force {force}): {err}",
                target.display()
            );
            assert!(
                !err.contains("--force"),
                "--force would not help, so it is not offered: {err}"
            );
        }
    }
    let meta = fs::symlink_metadata("/dev/null").expect("/dev/null is still there");
    assert!(
        std::os::unix::fs::FileTypeExt::is_char_device(&meta.file_type()),
        "/dev/null is still a device"
    );
    let meta = fs::symlink_metadata(&fifo).expect("the FIFO is still there");
    assert!(std::os::unix::fs::FileTypeExt::is_fifo(&meta.file_type()));
    assert!(
        fs::symlink_metadata(&to_device)
            .expect("the link")
            .file_type()
            .is_symlink()
    );
    assert!(
        fs::symlink_metadata(&dangling)
            .expect("the link")
            .file_type()
            .is_symlink()
    );

    // A link to a regular file is replaced with --force, and only with it.
    let real = dir.join("real.md");
    fs::write(&real, "keep me\n").expect("a file");
    let link = dir.join("link.md");
    std::os::unix::fs::symlink(&real, &link).expect("a link to a file");
    let mut args = ExportArgs::new("order-5531", Format::Md, &link);
    let err = run(&args).expect_err("not without --force");
    assert!(err.contains("--force"), "{err}");
    args.force = true;
    run(&args).expect("a link to a file is replaced with --force");
    assert!(
        fs::read_to_string(&link)
            .expect("readable")
            .starts_with("# Order 5531")
    );
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn failures_leave_nothing_behind() {
    let dir = scratch("failures");
    // A directory in the way, even with --force.
    fs::create_dir(dir.join("taken")).expect("make a directory");
    let mut args = ExportArgs::new("order-5531", Format::Svg, dir.join("taken"));
    args.force = true;
    let err = run(&args).expect_err("a directory is never replaced");
    assert!(err.contains("directory"), "{err}");
    // A folder that does not exist.
    let args = ExportArgs::new("order-5531", Format::Md, dir.join("missing").join("x.md"));
    let err = run(&args).expect_err("no such folder");
    assert!(err.contains("does not exist"), "{err}");
    // Options that do not fit the format, a bad scenario and a bad size.
    let mut args = ExportArgs::new("order-5531", Format::Md, dir.join("a.md"));
    args.design = Some(Design::NoKey);
    assert!(
        run(&args)
            .expect_err("md covers every design")
            .contains("--design")
    );
    let mut args = ExportArgs::new("order-5531", Format::Cast, dir.join("a.cast"));
    args.at = Some(parse_clock("14:02:38").expect("a clock time"));
    assert!(run(&args).expect_err("a cast has no --at").contains("--at"));
    let mut args = ExportArgs::new("order-5531", Format::Svg, dir.join("a.svg"));
    args.width = Some(40);
    assert!(run(&args).expect_err("too narrow").contains("--width"));
    let args = ExportArgs::new("no-such-scenario", Format::Md, dir.join("b.md"));
    assert!(run(&args).is_err());
    assert_eq!(
        listing(&dir),
        ["taken"],
        "nothing written, no temporary files"
    );
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn design_accepts_numbers_and_refuses_all() {
    use idem::scenario::values::parse_one_design;
    assert_eq!(parse_one_design("3"), Ok(Design::NoKey));
    assert_eq!(parse_one_design("with-charge"), Ok(Design::WithCharge));
    assert!(parse_one_design("all").is_err());
    assert!(parse_one_design("nope").is_err());
}

#[test]
fn hostile_scenario_text_stays_text() {
    let dir = scratch("hostile");
    let scenario = dir.join("hostile.toml");
    let source =
        fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/order-5531.toml"))
            .expect("the canonical scenario is readable");
    let mut lines: Vec<String> = source.lines().map(str::to_string).collect();
    let title = lines
        .iter()
        .position(|l| l.starts_with("title = "))
        .expect("the scenario has a title");
    lines[title] =
        r#"title = "Evil \u001b[31mred\u001b]0;owned\u0007 <script>&amp; | pipe *bold* # end""#
            .to_string();
    let quiz = lines
        .iter()
        .position(|l| l.starts_with("question = "))
        .expect("the scenario has a quiz");
    lines[quiz] = r#"question = "Which | column \u001b[2J? <b>""#.to_string();
    fs::write(&scenario, lines.join("\n")).expect("write the hostile scenario");
    let path = scenario.to_string_lossy().into_owned();

    let md_out = dir.join("hostile.md");
    run(&ExportArgs::new(&path, Format::Md, &md_out)).expect("the md export runs");
    let md = fs::read(&md_out).expect("the handout");
    assert!(!md.contains(&0x1b), "no escape byte in the Markdown");
    let md = String::from_utf8(md).expect("UTF-8");
    assert!(
        md.starts_with(
            "# Evil \\[31mred\\]0;owned \\<script\\>\\&amp; \\| pipe \\*bold\\* \\# end\n"
        ),
        "{}",
        &md[..120]
    );
    assert!(md.contains("Which \\| column \\[2J? \\<b\\>"));
    for line in md.lines().filter(|l| l.starts_with("| ")) {
        // Each table row keeps its columns: unescaped pipes are only the separators.
        let bare = line.replace("\\|", "");
        let columns = bare.matches('|').count();
        assert!(columns == 5 || columns == 6, "{line}");
    }

    let svg_out = dir.join("hostile.svg");
    run(&ExportArgs::new(&path, Format::Svg, &svg_out)).expect("the svg export runs");
    let svg = fs::read(&svg_out).expect("the picture");
    assert!(!svg.contains(&0x1b), "no escape byte in the SVG");
    let svg = String::from_utf8(svg).expect("UTF-8");
    assert_no_raw_markup(&svg);
    assert!(svg.contains("&lt;script&gt;&amp;amp;"));

    let cast_out = dir.join("hostile.cast");
    run(&ExportArgs::new(&path, Format::Cast, &cast_out)).expect("the cast export runs");
    let cast = fs::read_to_string(&cast_out).expect("the recording");
    for line in cast.lines().skip(1) {
        let event: Value = serde_json::from_str(line).expect("each event is JSON");
        assert_only_our_escapes(event[2].as_str().expect("output text"));
    }
    let _ = fs::remove_dir_all(&dir);
}

/// The options as clap reads them, the way `idem export` will.
#[derive(clap::Parser, Debug)]
struct Cli {
    #[command(flatten)]
    args: ExportArgs,
}

#[test]
fn command_line_options_parse() {
    use clap::{CommandFactory, Parser};
    Cli::command().debug_assert();
    let cli = Cli::try_parse_from([
        "export",
        "order-5531",
        "--format",
        "svg",
        "--design",
        "3",
        "--at",
        "Fri 18:00:00",
        "--out",
        "x.svg",
        "--width",
        "100",
        "--height",
        "30",
        "--force",
    ])
    .expect("a full set of options parses");
    let a = cli.args;
    assert_eq!(a.scenario, "order-5531");
    assert_eq!(a.format, Format::Svg);
    assert_eq!(a.design, Some(Design::NoKey));
    assert_eq!(
        a.at,
        Some(parse_clock("Fri 18:00:00").expect("a clock time"))
    );
    assert_eq!(a.out, PathBuf::from("x.svg"));
    assert_eq!((a.width, a.height, a.force), (Some(100), Some(30), true));
    let md = Cli::try_parse_from(["export", "reply-lost", "--format", "markdown", "-o", "h.md"])
        .expect("md with defaults");
    assert_eq!(md.args.format, Format::Md);
    assert!(!md.args.force && md.args.design.is_none());
    for bad in [
        &[
            "export",
            "order-5531",
            "--format",
            "svg",
            "--design",
            "all",
            "--out",
            "x",
        ][..],
        &["export", "order-5531", "--format", "pdf", "--out", "x"],
        &[
            "export",
            "order-5531",
            "--format",
            "svg",
            "--at",
            "2pm",
            "--out",
            "x",
        ],
        &["export", "order-5531", "--format", "md"],
    ] {
        assert!(
            Cli::try_parse_from(bad).is_err(),
            "{bad:?} should be refused"
        );
    }
}

/// `idem export` through the real binary: it writes the handout, refuses to replace it
/// without `--force`, and replaces it with.
#[test]
fn binary_export_writes_and_replaces_only_with_force() {
    use std::process::Command;
    let idem = env!("CARGO_BIN_EXE_idem");
    let dir = scratch("binary");
    let out = dir.join("handout.md");
    let out_arg = out.to_string_lossy().into_owned();
    let args = [
        "export",
        "order-5531",
        "--format",
        "md",
        "--out",
        out_arg.as_str(),
    ];
    let first = Command::new(idem)
        .args(args)
        .output()
        .expect("idem export runs");
    assert_eq!(first.status.code(), Some(0), "{first:?}");
    let stdout = String::from_utf8_lossy(&first.stdout);
    assert_eq!(
        stdout.lines().count(),
        1,
        "one line of confirmation: {stdout:?}"
    );
    assert!(stdout.contains("handout.md"), "{stdout}");
    // The binary writes what the library does, which the snapshot `order_5531_md` holds.
    let library = scratch("binary-export-library");
    let from_library = export(md_args(&library));
    let _ = fs::remove_dir_all(&library);
    assert_eq!(fs::read_to_string(&out).expect("the handout"), from_library);
    // Again without --force: refused with exit code 2, the file untouched.
    fs::write(&out, "keep\n").expect("replace the handout with a marker");
    let second = Command::new(idem)
        .args(args)
        .output()
        .expect("idem export runs");
    assert_eq!(second.status.code(), Some(2), "{second:?}");
    assert!(String::from_utf8_lossy(&second.stderr).contains("--force"));
    assert_eq!(fs::read_to_string(&out).expect("kept"), "keep\n");
    let third = Command::new(idem)
        .args(args)
        .arg("--force")
        .output()
        .expect("idem export runs");
    assert_eq!(third.status.code(), Some(0), "{third:?}");
    assert_eq!(fs::read_to_string(&out).expect("rewritten"), from_library);
    assert_eq!(
        listing(&dir),
        ["handout.md"],
        "no temporary file left behind"
    );
    let _ = fs::remove_dir_all(&dir);
}

/// A story of one purchase whose every attempt times out: about four ticks per attempt.
fn many_attempts(attempts: usize, extra: &str) -> String {
    format!(
        "title = \"Many attempts\"\n[[checkout.layer]]\nattempts = {attempts}\ntimeout = \"100ms\"\nbackoff = \"10ms\"\n\
         [processor]\nprocessing = \"10h\"\n[[intent]]\norder = \"1\"\namount = \"$1.00\"\nat = \"10:00:00\"\n{extra}"
    )
}

/// The rows of each design's timeline table, in order.
fn timeline_rows(md: &str) -> Vec<usize> {
    md.split("\n## ")
        .filter(|s| s.starts_with(|c: char| c.is_ascii_digit()))
        .filter(|s| s.contains("| Time | Lane | What happened | Narration |"))
        .map(|s| {
            s.lines()
                .skip_while(|l| !l.starts_with("|---"))
                .skip(1)
                .take_while(|l| l.starts_with('|'))
                .count()
        })
        .collect()
}

#[test]
fn a_long_story_makes_a_bounded_handout_that_says_it_is_cut() {
    use idem::export::markdown::{Audience, MAX_HANDOUT_ROWS, handout};
    let markdown = |s: &idem::scenario::Scenario| handout(s, Audience::Students);
    let long = idem::scenario::parse("long.toml", "long", &many_attempts(600, ""))
        .expect("the story parses");
    let ticks = long.simulate(Design::NoKey).expect("simulates").ticks.len();
    assert!(ticks > MAX_HANDOUT_ROWS, "{ticks} ticks");
    let md = markdown(&long).expect("a handout");
    let rows = timeline_rows(&md);
    assert_eq!(rows.len(), Design::ALL.len(), "one timeline per design");
    assert!(rows.iter().all(|r| *r <= MAX_HANDOUT_ROWS), "{rows:?}");
    assert!(rows.contains(&MAX_HANDOUT_ROWS), "{rows:?}");
    assert!(
        md.contains("**This handout is shortened.**"),
        "said at the top"
    );
    let cut_line = format!(
        "*The timeline is cut here: {} more of its {ticks} ticks are not shown.",
        ticks - MAX_HANDOUT_ROWS
    );
    assert!(
        md.contains(&cut_line),
        "said under the no-key table: {cut_line}"
    );
    assert!(md.contains("`--design no-key` prints every one"));
    // The outcome and the comparison are still there, after the cut.
    assert!(md.contains("## Outcome across designs"));
    assert!(md.contains("Charged 600 times"), "the outcome is whole");

    // A short story is not cut, and says nothing about it.
    let short = idem::scenario::parse("short.toml", "short", &many_attempts(3, ""))
        .expect("the story parses");
    let md = markdown(&short).expect("a handout");
    assert!(!md.contains("shortened") && !md.contains("cut here"));
}

#[test]
fn long_narration_is_bounded_by_size_too() {
    use idem::export::markdown::{Audience, MAX_TIMELINE_BYTES, handout};
    let markdown = |s: &idem::scenario::Scenario| handout(s, Audience::Students);
    let text = "word ".repeat(4_000);
    let rules: String = (1..=40)
        .map(|n| format!("[[narration]]\nlabel = \"no answer to #{n}\"\ntext = \"{text}\"\n"))
        .collect();
    let s = idem::scenario::parse("wordy.toml", "wordy", &many_attempts(40, &rules))
        .expect("the story parses");
    let md = markdown(&s).expect("a handout");
    let rows = timeline_rows(&md);
    let ticks = s.simulate(Design::NoKey).expect("simulates").ticks.len();
    assert!(
        rows.iter().all(|r| *r < ticks),
        "every table was cut: {rows:?}"
    );
    assert!(
        md.len() < Design::ALL.len() * (MAX_TIMELINE_BYTES + 2 * text.len()) + 200_000,
        "{} bytes",
        md.len()
    );
    assert!(md.contains("**This handout is shortened.**"));
}

/// Order 5531 with its question asked under no-key and log-after-charge only, and a note for
/// no-key only, written to `dir`.
fn scoped_scenario(dir: &Path) -> PathBuf {
    let source = include_str!("../../scenarios/order-5531.toml")
        .replacen(
            "answer = \"charges\"\n",
            "answer = \"charges\"\ndesigns = [\"no-key\", \"log-after-charge\"]\n",
            1,
        )
        .replacen(
            "at = \"14:02:38.050\"\n",
            "at = \"14:02:38.050\"\ndesigns = [\"no-key\"]\n",
            1,
        );
    assert_eq!(source.matches("designs = [").count(), 2);
    let path = dir.join("scoped.toml");
    fs::write(&path, source).expect("the scenario can be written");
    path
}

/// The trainer's handout says whom a scoped question and a scoped note are for, and answers
/// the question under those designs only.
#[test]
fn a_scoped_question_and_note_say_whom_they_are_for_in_the_handout() {
    let dir = scratch("scoped");
    let scenario = scoped_scenario(&dir);
    let mut args = ExportArgs::new(
        scenario.to_str().expect("a UTF-8 path"),
        Format::Md,
        dir.join("trainer.md"),
    );
    args.handout = Some(Audience::Trainer);
    let md = export(args);
    let question = md
        .lines()
        .find(|l| l.starts_with("**Question 1**"))
        .unwrap_or_else(|| panic!("no question: {md}"));
    assert!(
        question
            .contains("for key logged separately (`log-after-charge`) and no key (`no-key`) only")
            || question.contains(
                "for no key (`no-key`) and key logged separately (`log-after-charge`) only"
            ),
        "{question}"
    );
    let answers: Vec<&str> = md
        .split("**Question 1**")
        .nth(1)
        .and_then(|rest| rest.split("\n## ").next())
        .expect("the question's answer follows it")
        .lines()
        .filter(|l| l.starts_with("- "))
        .collect();
    assert_eq!(answers.len(), 2, "{answers:?}");
    assert!(
        answers.iter().any(|l| l.contains("`no-key`")),
        "{answers:?}"
    );
    assert!(
        answers.iter().any(|l| l.contains("`log-after-charge`")),
        "{answers:?}"
    );
    let note = md
        .lines()
        .find(|l| l.contains("press 1, 2 and 3"))
        .unwrap_or_else(|| panic!("no note: {md}"));
    assert!(note.contains("for no key (`no-key`) only"), "{note}");
    // Notes for every design say nothing of designs.
    let other = md
        .lines()
        .find(|l| l.contains("has the customer been charged yet"))
        .unwrap_or_else(|| panic!("no note: {md}"));
    assert!(!other.contains(" only"), "{other}");
}

/// An export tells the story of the design it draws alone, and keeps the other designs'
/// outcomes only. Held to the replay that tells every design: for every built-in scenario,
/// every design and the moments that matter (the first tick, each question, the middle, the
/// last), names shown or hidden, the two draw the same frame, cell for cell.
#[test]
fn a_frame_of_one_design_is_the_frame_the_whole_replay_draws() {
    use idem::export::frame::render;
    use idem::tui::App;
    let hidden = idem::present::Hide {
        design: true,
        ..idem::present::Hide::default()
    };
    for builtin in idem::scenario::library::BUILTIN {
        let scenario = builtin.load().expect("a built-in loads");
        let mut whole = App::new(scenario.clone(), builtin.name.to_string()).expect("simulates");
        for hide in [idem::present::Hide::default(), hidden] {
            whole.export = Some(hide);
            for design in Design::ALL {
                whole.show(design, 0);
                let mut one =
                    App::for_export(scenario.clone(), builtin.name.to_string(), design, hide)
                        .expect("simulates");
                for other in Design::ALL {
                    assert_eq!(
                        one.version.ticks_before_what_ifs(other),
                        whole.version.ticks_before_what_ifs(other),
                        "{}: how long {} runs",
                        builtin.name,
                        other.id()
                    );
                    assert_eq!(
                        one.version.trace_of(other).outcome,
                        whole.version.trace_of(other).outcome
                    );
                }
                let last = whole.last_tick();
                let mut ticks = vec![0, last / 2, last];
                ticks.extend(
                    scenario
                        .quizzes
                        .iter()
                        .filter_map(|q| q.tick(whole.trace(), whole.told())),
                );
                for tick in ticks {
                    whole.show_tick(tick);
                    one.show_tick(tick);
                    assert_eq!(
                        render(&one, 120, 36),
                        render(&whole, 120, 36),
                        "{} under {} at tick {tick}, {hide:?}",
                        builtin.name,
                        design.id()
                    );
                }
            }
        }
    }
}

/// A question asked under content-hash alone is answered under content-hash in the compact
/// handout (it showed only the opening and core designs, and printed "none of the choices
/// fits"), its story is told from that design, and the command it suggests for a file
/// scenario runs as written.
#[test]
fn the_compact_handout_answers_every_question_under_its_own_designs() {
    let dir = scratch("compact-scoped");
    let file = dir.join("scoped story.toml");
    let text = fs::read_to_string("scenarios/reply-lost.toml").expect("shipped")
        + "\n[[quiz]]\nlabel = \"no answer to #1\"\ndesigns = [\"content-hash\"]\nquestion = \"Under this design, how many times is the card charged?\"\nchoices = [\"Not at all\", \"Once\", \"Twice\"]\nanswer = 2\n";
    fs::write(&file, text).expect("writable");
    let mut args = ExportArgs::new(
        file.as_os_str().to_str().expect("utf-8"),
        Format::Md,
        dir.join("compact.md"),
    );
    args.handout = Some(Audience::Compact);
    let md = export(args);
    let answers = &md[md.find("## Answers").expect("answers")..];
    let q2 = &answers[answers.find("**Question 2.**").expect("question 2")..];
    assert!(!q2.contains("none of the choices fits"), "{q2}");
    assert!(q2.contains("**2. Once**"), "{q2}");
    assert!(
        md.contains(&format!("### {}\n", Design::ContentHash.name())),
        "content-hash is shown: {md}"
    );
    // Every command the handout suggests runs.
    for line in md.lines().filter(|l| l.contains("`idem run ")) {
        let start = line.find("`idem run ").expect("a command") + 1;
        let end = start + line[start..].find('`').expect("its end");
        let words = shlex::split(&line[start..end]).expect("shell words");
        let out = crate::common::run_idem_in(
            None,
            &words[1..].iter().map(String::as_str).collect::<Vec<_>>(),
        );
        assert_eq!(
            out.status.code(),
            Some(0),
            "{line}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let _ = fs::remove_dir_all(&dir);
}

/// The pre-read never prints the answer to an earlier question: the ticks between two
/// questions of one story hold it, so a later question gets its moment alone; and the
/// question's own tick shows no label.
#[test]
fn the_pre_read_never_answers_an_earlier_question() {
    let dir = scratch("pre-read-two");
    let file = dir.join("two.toml");
    let text = fs::read_to_string("scenarios/reply-lost.toml").expect("shipped")
        + "\n[[quiz]]\nat = \"14:02:38.050\"\nquestion = \"How many lines does the statement show now?\"\nchoices = [\"None\", \"One\", \"Two\"]\nanswer = \"charges\"\n";
    fs::write(&file, text).expect("writable");
    let args = ExportArgs::new(
        file.as_os_str().to_str().expect("utf-8"),
        Format::Md,
        dir.join("pre.md"),
    );
    let md = export(args);
    let q1 = md.find("**Question 1**").expect("question 1");
    let q2 = md.find("**Question 2**").expect("question 2");
    let between = &md[q1..q2];
    assert!(
        !between.contains("| 14:02:38"),
        "ticks after question 1: {between}"
    );
    assert!(between.contains("left for the session"), "{between}");
    for leak in ["replays", "ch\\_2", "charges ch"] {
        assert!(!md.contains(leak), "{leak}: {md}");
    }
    let _ = fs::remove_dir_all(&dir);
}

/// A session's compact handout keeps to its words: the shipped session and six parts of
/// other stories each stay within 3,000 (a six-part one ran to 4,092), by showing fewer ticks
/// per design, never by dropping an answer.
#[test]
fn a_sessions_compact_handout_keeps_to_its_words() {
    let dir = scratch("compact-words");
    for session in [
        "scenarios/sessions/payments-45min.toml",
        "tests/fixtures/sessions/six-parts.toml",
    ] {
        let out = dir.join("handout.md");
        let _ = fs::remove_file(&out);
        let mut args = ExportArgs::new(session, Format::Md, out);
        args.handout = Some(Audience::Compact);
        let md = export(args);
        let words = md.split_whitespace().count();
        assert!(
            words <= idem::export::markdown::COMPACT_SESSION_WORDS,
            "{session}: {words} words"
        );
        let parts = md.matches("\n# Part ").count();
        assert!(parts >= 5, "{session}: {parts} parts");
        assert_eq!(
            md.matches("### Answers").count(),
            parts,
            "{session}: every part keeps its answers"
        );
    }
    let _ = fs::remove_dir_all(&dir);
}

/// The trainer's copy of a session that hides the designs from the room shows the trainer
/// everything (it dropped every explanation, saying they named designs), and `--format crib`
/// gives per part the questions, the right answer under each design, the explanations, the
/// notes, the time, and the keys the room needs.
#[test]
fn the_trainer_sees_what_the_room_does_not() {
    let dir = scratch("crib");
    let session = "scenarios/sessions/payments-45min.toml";
    let mut args = ExportArgs::new(session, Format::Md, dir.join("trainer.md"));
    args.trainer = true;
    let trainer = export(args);
    assert!(!trainer.contains("left out while"), "{trainer}");
    assert!(trainer.contains(Design::WithCharge.name()), "names shown");
    assert!(
        trainer.contains("Hidden from the room: design"),
        "{trainer}"
    );
    let crib = export(ExportArgs::new(session, Format::Crib, dir.join("crib.md")));
    assert!(crib.contains("| Enter |"), "the keys: {crib}");
    assert!(crib.contains("Time: 12 min"), "the budget");
    assert_eq!(crib.matches("\n# Part ").count(), 5);
    for d in Design::ALL {
        assert!(
            crib.contains(&format!("(`{}`): **", d.id())),
            "{d:?}: {crib}"
        );
    }
    assert!(
        crib.contains("This processor wrote K7Q4"),
        "the explanations"
    );
    assert!(crib.contains("Ask the room"), "the notes");
    assert!(!crib.contains("| Time | Lane |"), "no timelines");
    // One scenario's crib, and the flags a crib does not take.
    let one = export(ExportArgs::new(
        "order-5531",
        Format::Crib,
        dir.join("one.md"),
    ));
    assert!(
        one.contains("**Question 1**") && one.contains("| Key |"),
        "{one}"
    );
    let mut bad = ExportArgs::new("order-5531", Format::Crib, dir.join("bad.md"));
    bad.design = Some(Design::NoKey);
    assert!(idem::cli::export::run(&bad).is_err());
    let _ = fs::remove_dir_all(&dir);
}
