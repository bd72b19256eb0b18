//! Every seed of every fuzz target, and every reproducer of what the fuzzers found, through the
//! target's own body (`idem::fuzzing`): what a fuzz run starts from holds on every `cargo
//! test`, and a target cannot fall out of step with the code it feeds.

use crate::common::root;
use std::path::Path;

type Body = fn(&[u8]);

const TARGETS: [(&str, Body); 6] = [
    ("scenario", idem::fuzzing::scenario),
    ("values", idem::fuzzing::values),
    ("window_config", idem::fuzzing::window_config),
    ("traffic", idem::fuzzing::traffic),
    ("export", idem::fuzzing::export),
    ("terminal_size", idem::fuzzing::terminal_size),
];

fn files_in(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
}

#[test]
fn every_seed_holds_under_its_target() {
    for (target, body) in TARGETS {
        let seeds = files_in(&root().join("fuzz/seeds").join(target));
        assert!(!seeds.is_empty(), "{target} has seeds");
        for seed in seeds {
            let bytes = std::fs::read(&seed).expect("a seed is readable");
            body(&bytes);
        }
    }
}

/// A reproducer is named after the target that found it: `values-duration-overflow.txt`.
#[test]
fn every_reproducer_holds_under_the_target_that_found_it() {
    let found = files_in(&root().join("fuzz/regressions"));
    assert!(!found.is_empty());
    for file in found {
        let name = file
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        let (_, body) = TARGETS
            .iter()
            .filter(|(t, _)| name.starts_with(&format!("{t}-")))
            .max_by_key(|(t, _)| t.len())
            .unwrap_or_else(|| panic!("{name} names no fuzz target"));
        body(&std::fs::read(&file).expect("a reproducer is readable"));
    }
}
