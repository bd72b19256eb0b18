//! Holds the line between the layers: the engine and the file format know nothing about
//! terminals, so either could become its own crate without a rewrite.

use std::path::Path;

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("the source folder is readable") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn the_engine_and_the_format_use_no_terminal_crate() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    // The window arithmetic has a command line, but draws nothing itself either.
    for layer in ["sim", "scenario", "window"] {
        let mut files = Vec::new();
        rust_files(&root.join(layer), &mut files);
        assert!(!files.is_empty(), "src/{layer} has files");
        for file in files {
            let text = std::fs::read_to_string(&file).expect("a source file is text");
            for forbidden in ["ratatui", "crossterm", "crate::tui"] {
                assert!(
                    !text.contains(forbidden),
                    "{} mentions {forbidden}",
                    file.display()
                );
            }
        }
    }
}
