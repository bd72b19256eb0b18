//! Sidekiq's `config/sidekiq.yml`: the options Sidekiq reads at start, written with a leading
//! colon (`:concurrency:`, `:queues:`, `:max_retries:`). Only `:max_retries:` bears on the
//! window: the retries a job makes when its class sets no `sidekiq_options retry:` of its own
//! (25 when the file says nothing, Sidekiq 7's documented default). The wait before each retry
//! is Sidekiq's own, the same as `--preset sidekiq`; the rest of the file (queues, their
//! weights, concurrency, the shutdown timeout) is named in the notes as not read.

use super::Imported;
use super::fields::Doc;
use super::tree::Node;
use crate::window::WindowError;

/// Options Sidekiq reads from the file that the window does not need.
const NOT_NEEDED: [&str; 7] = [
    ":concurrency:",
    ":queues:",
    ":timeout:",
    ":verbose:",
    ":pidfile:",
    ":labels:",
    ":logfile:",
];

/// Whether `root` is a Sidekiq options file: a mapping whose keys Sidekiq writes with a leading
/// colon, or a file named `sidekiq.yml` / `sidekiq.yaml`.
pub fn present(file_name: &str, root: &Node) -> bool {
    let named = file_name.ends_with("sidekiq.yml") || file_name.ends_with("sidekiq.yaml");
    let entries = root.entries();
    let colon_keys = !entries.is_empty()
        && entries.iter().filter(|(k, _)| k.starts_with(':')).count() * 2 > entries.len();
    named || colon_keys
}

/// The one layer the file gives: Sidekiq's retries, as many as `:max_retries:` says.
pub fn read(doc: &Doc<'_>, root: &Node) -> Result<Imported, WindowError> {
    let Some(mut layer) = super::presets::layer("sidekiq") else {
        return Err(doc.error(root, "Sidekiq's schedule is missing from the presets"));
    };
    let max_retries = root
        .get_exact(":max_retries")
        .or_else(|| root.get_exact("max_retries"));
    let mut source = doc.provenance(max_retries.unwrap_or(root), ":max_retries");
    match max_retries {
        Some(node) => {
            let retries = doc.count(node, ":max_retries")?;
            layer.attempts = retries.saturating_add(1);
            source.note(format!(
                "attempts {} = :max_retries {retries} + 1",
                layer.attempts
            ));
        }
        None => source.note("attempts 26: no :max_retries, so Sidekiq's default of 25 retries"),
    }
    source.note("waits count⁴ + 15 s before retry count + 1 (count from 0), Sidekiq's own");
    source.note("plus up to 9 s × (count + 1) of jitter: counted in full");
    source.note("then the job goes to the Dead set (add --path dead-set)");
    layer.provenance = Some(source);
    let mut notes = vec![format!(
        "{}: a job class's own sidekiq_options retry: N wins over :max_retries; that is in \
         code this file does not hold (give it with --layer if it differs)",
        doc.file
    )];
    let skipped: Vec<&str> = NOT_NEEDED
        .iter()
        .copied()
        .filter(|k| {
            let bare = k.trim_end_matches(':');
            root.get_exact(bare).is_some()
        })
        .collect();
    if !skipped.is_empty() {
        notes.push(format!(
            "{}: not read, as they do not change one job's retries: {}",
            doc.file,
            skipped.join(", ")
        ));
    }
    Ok(Imported {
        layers: vec![layer],
        notes,
        ..Imported::default()
    })
}
