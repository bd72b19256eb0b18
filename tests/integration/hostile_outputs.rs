//! Every command, fed hostile text wherever it takes text (scenario fields, file names, window
//! layer and path names, a config file, a new scenario's name), and every output it makes
//! (standard output, standard error, the files it writes) searched for what a terminal would
//! act on: ESC, BEL, C1 controls (U+0080–U+009F), and the bidirectional controls that reorder
//! what is shown. JSON may not carry them as `\u` escapes either.

use crate::common;

use common::{TempDir, run_with_timeout};
use std::path::Path;

/// Text that would set the clipboard (OSC 52), the window title (OSC 0), colours (CSI), ring
/// the bell, start a C1 CSI and DCS, and reverse the text that follows.
const HOSTILE_TOML: &str = r"\u001b]52;c;cHduZWQ\u0007\u001b]0;owned\u0007\u001b[31m\u009b2J\u0090x\u009c\u202eevil\u2066\u200f\u061c";

/// The same, as the characters themselves, for file names and command-line arguments.
const HOSTILE: &str = "\u{1b}]52;c;cHduZWQ\u{7}\u{1b}]0;owned\u{7}\u{1b}[31m\u{9b}2J\u{90}x\u{9c}\u{202e}evil\u{2066}\u{200f}\u{61c}";

/// Whether a character is one a terminal acts on or that reorders text.
fn forbidden(c: char) -> bool {
    (c.is_control() && c != '\n')
        || matches!(c,
            '\u{80}'..='\u{9f}'
            | '\u{061c}'
            | '\u{200b}'..='\u{200f}'
            | '\u{2028}'..='\u{202e}'
            | '\u{2066}'..='\u{2069}'
            | '\u{feff}')
}

/// Fails, naming `what`, if `bytes` hold a forbidden character. (A quoted line of a scenario
/// may show `\u001b` as the six characters typed in the file: that is text.)
fn assert_clean(bytes: &[u8], what: &str) {
    for (byte, name) in [(0x1b, "ESC"), (0x07, "BEL")] {
        assert!(
            !bytes.contains(&byte),
            "{what}: a raw {name} byte got through"
        );
    }
    let text = String::from_utf8_lossy(bytes);
    if let Some((i, c)) = text.char_indices().find(|(_, c)| forbidden(*c)) {
        let from = text[..i].char_indices().rev().nth(40).map_or(0, |(j, _)| j);
        panic!("{what}: {c:?} got through, after {:?}", &text[from..i]);
    }
}

/// JSON may not carry a forbidden character as an escape either.
fn assert_clean_json(bytes: &[u8], what: &str) {
    assert_clean(bytes, what);
    let text = String::from_utf8_lossy(bytes);
    let lower = text.to_lowercase();
    for escape in [
        "\\u001b", "\\u0007", "\\u009b", "\\u0090", "\\u009c", "\\u202e", "\\u2066",
    ] {
        assert!(!lower.contains(escape), "{what}: {escape} got through");
    }
}

/// The starter scenario with hostile text in every field that takes text.
fn hostile_scenario() -> String {
    let h = HOSTILE_TOML;
    let mut text = String::new();
    for line in idem::cli::new::STARTER.lines() {
        let code = line.split(" #").next().unwrap_or(line);
        let hostile = [
            "title = ",
            "merchant = ",
            "name = ",
            "key = ",
            "question = ",
            "explanation = ",
        ]
        .iter()
        .any(|k| code.starts_with(k))
            || (code.starts_with("text = ") && !code.contains("mode"));
        if hostile && code.trim_end().ends_with('"') {
            let cut = code.trim_end().len() - 1;
            text.push_str(&format!("{}{h}\"\n", &code[..cut]));
        } else if code.starts_with("choices = ") {
            text.push_str(&format!(
                "choices = [\"Not at all{h}\", \"Once{h}\", \"Twice{h}\"]\n"
            ));
        } else if code.starts_with("items = ") {
            text.push_str(&format!("items = [\"ink{h}\"]\n"));
        } else if code.starts_with("order = ") || code.starts_with("intent = ") {
            let (k, _) = code.split_once(" = ").expect("a key");
            text.push_str(&format!("{} = \"7102{h}\"\n", k.trim()));
        } else {
            text.push_str(line);
            text.push('\n');
        }
    }
    text = text.replacen(
        "description = \"\"\"\n",
        &format!("description = \"\"\"\n{h}\n"),
        1,
    );
    text
}

/// Runs the binary in `dir` and checks its outputs; returns the exit code.
fn run_clean(dir: &Path, args: &[&str]) -> Option<i32> {
    let shown: Vec<String> = args.iter().map(|a| a.escape_debug().to_string()).collect();
    let what = format!("idem {shown:?}");
    let mut cmd = common::idem_command(args);
    cmd.current_dir(dir);
    let output = run_with_timeout(cmd, &what, common::LIMIT);
    common::assert_exited(&output, &what);
    if args.contains(&"--json") {
        assert_clean_json(&output.stdout, &format!("{what} stdout"));
    } else {
        assert_clean(&output.stdout, &format!("{what} stdout"));
    }
    assert_clean(&output.stderr, &format!("{what} stderr"));
    output.status.code()
}

#[test]
fn the_hostile_scenario_is_accepted_with_its_text_cleaned() {
    let s = idem::scenario::parse("h.toml", "h", &hostile_scenario())
        .unwrap_or_else(|e| panic!("the hostile scenario parses:\n{e}"));
    assert!(s.title.contains("evil"), "{}", s.title);
    assert!(s.notes.iter().any(|n| n.text.contains("evil")));
    assert!(s.quizzes.iter().any(|q| q.question.contains("evil")));
}

#[test]
fn no_command_lets_hostile_text_through() {
    let dir = TempDir::new("hostile-out");
    let d = dir.path();
    let story_name = format!("story{HOSTILE}.toml");
    std::fs::write(d.join(&story_name), hostile_scenario()).expect("the hostile scenario");
    let story = story_name.as_str();
    let conf_name = format!("stack{HOSTILE}.toml");
    std::fs::write(
        d.join(&conf_name),
        format!(
            "window = \"24h\"\n[[layer]]\nname = \"http{HOSTILE_TOML}\"\nbackoff = \"2s\"\nattempts = 3\n\
             [[path]]\nname = \"rerun{HOSTILE_TOML}\"\ndelay = \"72h\"\n\
             [[path]]\nname = \"bad{HOSTILE_TOML}\"\ndelay = \"72{HOSTILE_TOML}h\"\n"
        ),
    )
    .expect("a hostile config");
    let good_conf_name = format!("good{HOSTILE}.toml");
    std::fs::write(
        d.join(&good_conf_name),
        format!(
            "[[layer]]\nname = \"http{HOSTILE_TOML}\"\nbackoff = \"2s\"\nattempts = 3\n\
             [[path]]\nname = \"rerun{HOSTILE_TOML}\"\ndelay = \"72h\"\n"
        ),
    )
    .expect("a hostile config that parses");
    let layer = format!("http{HOSTILE}=2s:3");
    let bad_layer = format!("http{HOSTILE}=2s:{HOSTILE}");
    let path = format!("rerun{HOSTILE}=72h");
    let bad_path = format!("rerun{HOSTILE}=72{HOSTILE}");
    let missing = format!("no-such{HOSTILE}.toml");
    let new_name = format!("fresh{HOSTILE}");

    // Each command and the exit code it must end with (`None`: whichever).
    let runs: Vec<(Vec<&str>, Option<i32>)> = vec![
        (vec!["run", story], Some(0)),
        (vec!["run", story, "--json"], Some(0)),
        (vec!["run", story, "--design", "all"], Some(0)),
        (vec!["run", story, "--design", "all", "--json"], Some(0)),
        (vec!["run", &missing], Some(2)),
        (vec!["check", story], None),
        (vec!["check", story, &missing], Some(2)),
        (vec!["list"], Some(0)),
        (vec!["window", "--layer", &layer, "--path", &path], Some(0)),
        (
            vec!["window", "--layer", &layer, "--path", &path, "--json"],
            Some(0),
        ),
        (vec!["window", "--config", &good_conf_name], Some(0)),
        (
            vec!["window", "--config", &good_conf_name, "--json"],
            Some(0),
        ),
        (
            vec!["window", "--config", &good_conf_name, "--layer", &layer],
            Some(0),
        ),
        (vec!["window", "--config", &conf_name], Some(2)),
        (vec!["window", "--config", &missing], Some(2)),
        (vec!["window", "--layer", &bad_layer], Some(2)),
        (vec!["window", "--path", &bad_path], Some(2)),
        (vec!["window", "--window", HOSTILE], Some(2)),
        (vec!["window", "--safety", HOSTILE], Some(2)),
        (vec!["new", &new_name], Some(0)),
        (vec!["new", &new_name], Some(2)),
        (
            vec!["export", &missing, "--format", "md", "--out", "x.md"],
            Some(2),
        ),
    ];
    for (args, code) in &runs {
        let got = run_clean(d, args);
        if code.is_some() {
            assert_eq!(got, *code, "idem {:?}", args.first());
        }
    }
    let mut written = Vec::new();
    for (format, ext) in [("md", "md"), ("svg", "svg"), ("cast", "cast")] {
        let out = format!("out{HOSTILE}.{ext}");
        assert_eq!(
            run_clean(d, &["export", story, "--format", format, "--out", &out]),
            Some(0),
            "export {format}"
        );
        // Again: refused, since the file exists, and the refusal is clean too.
        assert_eq!(
            run_clean(d, &["export", story, "--format", format, "--out", &out]),
            Some(2)
        );
        written.push(out);
    }
    written.push(format!("{new_name}.toml"));
    for name in &written {
        let bytes = std::fs::read(d.join(name)).expect("the file was written");
        let what = format!("the file {}", name.escape_debug());
        if name.ends_with(".cast") {
            assert_clean_cast(&bytes, &what);
        } else {
            assert_clean(&bytes, &what);
        }
    }
}

/// A recording is JSON lines whose output events carry the screen's own drawing sequences
/// (CSI: `ESC [` … a final letter) and line ends (`\r\n`). Those are removed; nothing else
/// may remain.
fn assert_clean_cast(bytes: &[u8], what: &str) {
    assert_clean(bytes, what);
    let text = String::from_utf8_lossy(bytes);
    for (n, line) in text.lines().enumerate().skip(1) {
        let event: serde_json::Value =
            serde_json::from_str(line).unwrap_or_else(|e| panic!("{what}:{n}: {e}"));
        let data = event[2].as_str().unwrap_or_default();
        let mut rest = String::new();
        let mut chars = data.chars().peekable();
        while let Some(c) = chars.next() {
            if c == '\u{1b}' && chars.peek() == Some(&'[') {
                chars.next();
                // Parameters and intermediates, then one final byte.
                for f in chars.by_ref() {
                    if ('@'..='~').contains(&f) {
                        break;
                    }
                }
            } else if c != '\r' {
                rest.push(c);
            }
        }
        assert_clean(
            rest.as_bytes(),
            &format!("{what}:{n} once its CSI sequences are removed"),
        );
    }
}
