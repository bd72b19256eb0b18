//! The manual pages and the shell completions, both made from the command tree: `idem man`
//! prints idem(1), `idem man COMMAND` the page of one command, and `idem man --out DIR` writes
//! every page the first one refers to, so that `idem-run(1)` exists where `idem(1)` does.
//! Completion scripts offer what each flag really takes: the values its own parser accepts
//! (designs, key modes, shells …), the built-in scenarios where a scenario goes, and file
//! names only where a path goes.

use clap::Command;
use std::path::Path;

/// A word no parser of a value that names something takes: a flag whose parser refuses it
/// takes a value of its own kind (a design, a duration, a time), never a file name.
const NONSENSE: &str = "zz-no-such-value-zz";

/// The words tried as values of every flag, from the lists the values' own types keep; a flag
/// that refuses [`NONSENSE`] is offered those its own parser accepts.
fn candidates() -> Vec<&'static str> {
    use crate::sim::config::{KeyMode, KeyStrategy};
    let mut words: Vec<&'static str> = crate::sim::Design::ALL.iter().map(|d| d.id()).collect();
    words.push("all");
    words.extend(KeyMode::ALL.iter().map(|m| m.id()));
    words.extend(KeyStrategy::ALL.iter().map(|k| k.id()));
    words.extend(crate::export::Format::NAMES);
    words.extend(crate::export::Audience::NAMES);
    words.extend(crate::export::SvgTheme::NAMES);
    words.extend(crate::present::Hide::NAMES);
    words.extend(
        crate::drill::battery::KeySyntax::ALL
            .iter()
            .map(|(name, _)| *name),
    );
    words.extend(
        crate::drill::battery::KeyFormat::ALL
            .iter()
            .map(|(name, _)| *name),
    );
    words.sort_unstable();
    words.dedup();
    words
}

/// Whether a flag's own parser takes `word` as its value: tried on a flag of a command of its
/// own that holds nothing else of it.
fn accepts(arg: &clap::Arg, word: &str) -> bool {
    let probe = clap::Arg::new("probe")
        .long("probe")
        .value_parser(arg.get_value_parser().clone());
    Command::new("probe")
        .no_binary_name(true)
        .arg(probe)
        .try_get_matches_from(["--probe", word])
        .is_ok()
}

/// The command tree as the completion scripts should see it. Parsing never uses it: only the
/// values offered change.
pub fn for_completion(cmd: Command) -> Command {
    let words = candidates();
    let builtins: Vec<&'static str> = crate::scenario::library::BUILTIN
        .iter()
        .map(|b| b.name)
        .collect();
    offer(cmd, &words, &builtins)
}

fn offer(cmd: Command, words: &[&'static str], builtins: &[&'static str]) -> Command {
    let names: Vec<String> = cmd
        .get_subcommands()
        .map(|s| s.get_name().to_string())
        .collect();
    let mut cmd = cmd.mut_args(|arg| {
        if !arg.get_action().takes_values() || !arg.get_possible_values().is_empty() {
            return arg;
        }
        if arg.get_id() == "scenario" {
            // A scenario is a file or a built-in's name: the names are offered, and a word
            // that starts none of them falls back to file names.
            return arg.value_parser(clap::builder::PossibleValuesParser::new(builtins.to_vec()));
        }
        if accepts(&arg, NONSENSE) {
            // Takes anything: a path, a URL, a name. Left to the shell's default.
            return arg;
        }
        let taken: Vec<&'static str> = words.iter().copied().filter(|w| accepts(&arg, w)).collect();
        if taken.is_empty() {
            arg.value_hint(clap::ValueHint::Other)
        } else {
            arg.value_parser(clap::builder::PossibleValuesParser::new(taken))
        }
    });
    for name in names {
        cmd = cmd.mut_subcommand(name, |sub| offer(sub, words, builtins));
    }
    cmd
}

/// Every manual page: idem(1) first, then one per command, each as its file name and roff.
pub fn pages(cmd: Command) -> std::io::Result<Vec<(String, Vec<u8>)>> {
    let mut cmd = cmd.disable_help_subcommand(true);
    cmd.build();
    let mut out = Vec::new();
    collect(&cmd, &mut out)?;
    Ok(out)
}

fn collect(cmd: &Command, out: &mut Vec<(String, Vec<u8>)>) -> std::io::Result<()> {
    let man = clap_mangen::Man::new(cmd.clone());
    let mut page = Vec::new();
    man.render(&mut page)?;
    out.push((man.get_filename(), page));
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        collect(sub, out)?;
    }
    Ok(())
}

/// The page of one command (`run`, or `idem-run`), or why there is none.
pub fn page_of(cmd: Command, name: &str) -> Result<Vec<u8>, String> {
    let want = format!("{}.1", name.strip_prefix("idem-").unwrap_or(name));
    let pages = pages(cmd).map_err(|e| format!("cannot write the manual page: {e}"))?;
    let known: Vec<String> = pages
        .iter()
        .filter_map(|(f, _)| f.strip_prefix("idem-")?.strip_suffix(".1"))
        .map(str::to_string)
        .collect();
    pages
        .into_iter()
        .find(|(f, _)| f.strip_prefix("idem-") == Some(want.as_str()))
        .map(|(_, page)| page)
        .ok_or_else(|| {
            format!(
                "idem has no command `{}`; its pages are for: {}",
                crate::text::sanitize_line(name),
                known.join(", ")
            )
        })
}

/// Writes every page into `dir` (made if missing). A page already there is replaced only
/// with `force`, and nothing is written unless every page can be: the names of those in the
/// way are given.
pub fn write_pages(cmd: Command, dir: &Path, force: bool) -> Result<Vec<String>, String> {
    let pages = pages(cmd).map_err(|e| format!("cannot write the manual pages: {e}"))?;
    std::fs::create_dir_all(dir)
        .map_err(|e| format!("cannot make the folder `{}`: {e}", dir.display()))?;
    if !force {
        let there: Vec<&str> = pages
            .iter()
            .filter(|(f, _)| dir.join(f).symlink_metadata().is_ok())
            .map(|(f, _)| f.as_str())
            .collect();
        if !there.is_empty() {
            return Err(format!(
                "{} already in `{}`: {}; pass --force to replace them",
                if there.len() == 1 {
                    "one page is"
                } else {
                    "these pages are"
                },
                crate::text::sanitize_line(&dir.display().to_string()),
                there.join(", ")
            ));
        }
    }
    let mut written = Vec::new();
    for (file, page) in &pages {
        crate::files::write_file(&dir.join(file), page, force)?;
        written.push(file.clone());
    }
    Ok(written)
}
