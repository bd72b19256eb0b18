//! `idem new`: writes a starter scenario, commented section by section, for a trainer to edit.

use crate::text::sanitize_line;
use std::path::Path;

/// The starter scenario: valid as it stands, with `[[expect]]` blocks that hold.
pub const STARTER: &str = include_str!("../../assets/starter.toml");

/// The incidents a trainer can start from, each a built-in scenario whose `[[expect]]` blocks
/// hold: `idem new NAME --from TEMPLATE`.
pub const TEMPLATES: [&str; 4] = [
    "mobile-gateway",
    "monday-rerun",
    "webhook-redelivery",
    "queue-redelivery",
];

/// Arguments of `idem new`.
#[derive(clap::Args, Debug)]
pub struct NewArgs {
    /// The new scenario's name: the file written is NAME.toml (or NAME, if it already ends
    /// in .toml). An existing file is never overwritten.
    #[arg(required_unless_present = "list")]
    pub name: Option<String>,
    /// Start from an incident template (see --list), or any built-in scenario, instead of the
    /// commented starter.
    #[arg(long, value_name = "TEMPLATE")]
    pub from: Option<String>,
    /// List the incident templates, and write nothing.
    #[arg(long, conflicts_with_all = ["name", "from"])]
    pub list: bool,
}

/// The incident templates, one a line: name and title.
pub fn list() -> anyhow::Result<String> {
    let width = TEMPLATES.iter().map(|t| t.len()).max().unwrap_or(0);
    let mut out = String::from("Incident templates (idem new NAME --from TEMPLATE):\n");
    for name in TEMPLATES {
        let title = crate::scenario::library::find(name)
            .ok_or_else(|| format!("the template {name} is not built in"))
            .map_err(anyhow::Error::msg)?
            .load()
            .map_err(|e| e.one_line())
            .map_err(anyhow::Error::msg)?
            .title;
        out.push_str(&format!("  {name:<width$}  {}\n", sanitize_line(&title)));
    }
    out.push_str("Any built-in scenario (idem list) can be started from the same way.\n");
    Ok(out)
}

/// Writes the starter scenario (or a template); returns what to tell the user, or why
/// nothing was written.
pub fn run(args: &NewArgs) -> anyhow::Result<String> {
    if args.list {
        return list();
    }
    let text = match args.from.as_deref().map(str::trim) {
        None => STARTER,
        Some(from) => match crate::scenario::library::find(from) {
            Some(b) => b.text,
            None => {
                let names = crate::scenario::library::BUILTIN.iter().map(|b| b.name);
                let hint = crate::scenario::values::did_you_mean(from, names)
                    .map_or(String::new(), |n| format!(" (did you mean {n}?)"));
                anyhow::bail!(
                    "there is no template or built-in scenario `{}`{hint}; `idem new --list` lists the templates, `idem list` every built-in",
                    sanitize_line(from)
                );
            }
        },
    };
    let name = args.name.as_deref().unwrap_or_default().trim();
    if name.is_empty() {
        anyhow::bail!("the new scenario needs a name, as in `idem new my-scenario`");
    }
    // `/`, `dir/`, `.` or `.toml` would write a file with no name (`/.toml`).
    let base = name.rsplit('/').next().unwrap_or(name);
    let stem = base.strip_suffix(".toml").unwrap_or(base);
    if stem.is_empty() || stem == "." || stem == ".." {
        anyhow::bail!(
            "`{}` names a folder, not a scenario file; give the scenario a name, as in `idem new my-scenario` or `idem new scenarios/my-scenario`",
            sanitize_line(name)
        );
    }
    let file = if name.ends_with(".toml") {
        name.to_string()
    } else {
        format!("{name}.toml")
    };
    let path = Path::new(&file);
    let shown = sanitize_line(&file);
    match crate::files::write_new(path, text.as_bytes()) {
        Ok(()) => {}
        Err(crate::files::WriteError::Exists(_)) => {
            anyhow::bail!(
                "{shown} already exists, and idem new never overwrites a file; choose another name or move that file away"
            );
        }
        Err(crate::files::WriteError::Other(message)) => anyhow::bail!(message),
    }
    let arg = crate::text::shell_word(&file);
    let what = match &args.from {
        None => "a starter scenario that explains each section in its comments".to_string(),
        Some(from) => format!("a copy of {} to make your own", sanitize_line(from.trim())),
    };
    // A name with control characters in it is shown without them: say so, and give the name
    // as the shell would type it.
    let shown = if shown == file {
        shown
    } else {
        format!("{arg} (its name holds control characters, left out where it is shown as text)")
    };
    Ok(format!(
        "Wrote {shown}: {what}.\n\
         Edit it, then:\n\
         \x20 idem check {arg}               confirm its [[expect]] blocks still hold\n\
         \x20 idem run {arg} --design all    every design's outcome side by side\n\
         \x20 idem {arg}                     replay it tick by tick\n"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario;

    /// The starter's comments name every design, the keys that reach them all, and every
    /// verdict an `[[expect]]` may give.
    #[test]
    fn the_starter_names_every_design_and_every_verdict() {
        for d in crate::sim::Design::ALL {
            assert!(STARTER.contains(d.id()), "{}", d.id());
        }
        for v in crate::sim::Verdict::ALL {
            assert!(STARTER.contains(v.id()), "{}", v.id());
        }
        let keys = format!("Number keys 1-{}", crate::sim::Design::ALL.len());
        assert!(STARTER.contains(&keys), "{keys}");
    }

    #[test]
    fn the_starter_parses_without_warnings_and_its_expectations_hold() {
        let s = scenario::parse("starter.toml", "starter", STARTER)
            .unwrap_or_else(|e| panic!("the starter does not parse:\n{e}"));
        assert!(s.warnings.is_empty(), "{:?}", s.warnings);
        assert!(s.expectations.len() >= 3, "the starter shows [[expect]]");
        assert!(!s.narration.is_empty() && !s.quizzes.is_empty() && !s.notes.is_empty());
        for e in &s.expectations {
            let trace = s
                .simulate(e.design)
                .unwrap_or_else(|err| panic!("{}: {err}", e.design));
            let o = &trace.outcome;
            if let Some(c) = e.charges {
                assert_eq!(o.charges, c, "line {} ({})", e.line, e.design);
            }
            if let Some(v) = e.verdict {
                assert_eq!(o.verdict, v, "line {} ({})", e.line, e.design);
            }
            if let Some(b) = e.client {
                for i in &o.intents {
                    assert_eq!(i.client_view, b, "line {} ({})", e.line, e.design);
                }
            }
        }
    }

    #[test]
    fn the_starter_narration_and_quiz_find_their_ticks() {
        let s = scenario::parse("starter.toml", "starter", STARTER).expect("the starter parses");
        let trace = s
            .simulate(crate::sim::Design::WithCharge)
            .expect("it simulates");
        let told = s.tell(&trace);
        for n in &s.narration {
            assert!(n.target.find(&trace, &told).is_some(), "{:?}", n.target);
        }
        for q in &s.quizzes {
            assert!(q.target.find(&trace, &told).is_some(), "{:?}", q.target);
            assert_eq!(q.correct(&trace, 1), Some(1), "once, under with-charge");
        }
        assert!(
            told.narrations
                .iter()
                .any(|n| n.ends_with("The money moved long ago.")),
            "the appended narration reaches the trace"
        );
    }

    #[test]
    fn every_template_is_built_in_and_its_expectations_hold() {
        for name in TEMPLATES {
            let b = crate::scenario::library::find(name).expect("built in");
            let s = b.load().unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(
                !s.expectations.is_empty(),
                "{name} holds itself to [[expect]]"
            );
            for e in &s.expectations {
                let keyed = s.rekeyed(e.key_strategy, e.step_keys).expect("keys");
                let o = keyed.simulate(e.design).expect("runs").outcome;
                if let Some(c) = e.charges {
                    assert_eq!(o.charges, c, "{name} line {}", e.line);
                }
                if let Some(v) = e.verdict {
                    assert_eq!(o.verdict, v, "{name} line {}", e.line);
                }
            }
        }
        let listed = list().expect("lists");
        for name in TEMPLATES {
            assert!(listed.contains(name), "{listed}");
        }
    }

    #[test]
    fn the_starter_mentions_every_section() {
        for section in [
            "[checkout]",
            "[[checkout.layer]]",
            "[network]",
            "[processor]",
            "[[intent]]",
            "[[fault]]",
            "[[human]]",
            "[[narration]]",
            "[[quiz]]",
            "[[note]]",
            "[[expect]]",
        ] {
            assert!(STARTER.contains(section), "{section}");
        }
    }
}
