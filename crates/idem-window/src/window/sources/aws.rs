//! `~/.aws/config`: a profile's `retry_mode` and `max_attempts`.
//!
//! The AWS SDKs' documented behaviour: in `standard` (and `adaptive`) mode a
//! call makes 3 attempts unless `max_attempts` says otherwise, waiting a
//! random time up to `1 s × 2^(n−1)` before retry `n`, never more than 20 s
//! (full jitter). `legacy` mode is each SDK's own (boto3's makes 5 attempts),
//! and it is boto3's default when no mode is set; both are counted as 5, the
//! most, with a warning that gives the range. The file sets no per-try timeout
//! (that lives in code), so tries count as taking no time unless one is given.

use std::time::Duration;

use super::fields::Doc;
use super::tree::Node;
use super::{Imported, pick};
use crate::window::{Jitter, Layer, Schedule, WindowError};

const BASE: Duration = Duration::from_secs(1);
const CAP: Duration = Duration::from_secs(20);

/// The AWS SDK that reads the file, when the user says: where the file sets no
/// `retry_mode`, each SDK has its own documented default.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sdk {
    /// boto3 (Python): legacy mode by default, 5 attempts.
    Boto3,
    /// The AWS CLI version 2: standard mode by default, 3 attempts.
    Cli,
    /// The AWS SDK for JavaScript v3: standard mode by default, 3 attempts.
    JsV3,
    /// The AWS SDK for Go v2: standard mode by default, 3 attempts.
    GoV2,
}

impl Sdk {
    /// Each SDK with the word that names it on the command line.
    pub const ALL: [(&'static str, Sdk); 4] = [
        ("boto3", Sdk::Boto3),
        ("cli", Sdk::Cli),
        ("js-v3", Sdk::JsV3),
        ("go-v2", Sdk::GoV2),
    ];

    fn name(self) -> &'static str {
        match self {
            Sdk::Boto3 => "boto3",
            Sdk::Cli => "the AWS CLI v2",
            Sdk::JsV3 => "the AWS SDK for JavaScript v3",
            Sdk::GoV2 => "the AWS SDK for Go v2",
        }
    }

    /// The mode this SDK retries in when the file names none.
    fn default_mode(self) -> &'static str {
        match self {
            Sdk::Boto3 => "legacy",
            Sdk::Cli | Sdk::JsV3 | Sdk::GoV2 => "standard",
        }
    }
}

/// Reads the profile `selector` names (`default` when it is there, else the
/// first), as `sdk` reads it when given.
pub fn read(
    doc: &Doc<'_>,
    root: &Node,
    selector: Option<&str>,
    sdk: Option<Sdk>,
) -> Result<Imported, WindowError> {
    let mut candidates: Vec<(String, &Node)> = root
        .entries()
        .iter()
        .filter_map(|(section, node)| {
            if section == "default" {
                Some(("default".to_owned(), node))
            } else {
                section
                    .strip_prefix("profile ")
                    .map(|p| (p.trim().to_owned(), node))
            }
        })
        .collect();
    // The default profile is the one an SDK uses unless told otherwise.
    if let Some(i) = candidates.iter().position(|(n, _)| n == "default") {
        let default = candidates.remove(i);
        candidates.insert(0, default);
    }
    // `[dev]` is a profile only in ~/.aws/credentials; in the config file the SDKs read
    // `[profile dev]`, and skip `[dev]` without a word.
    let bare: Vec<(&String, &Node)> = root
        .entries()
        .iter()
        // `[sso-session x]` and `[services x]` are sections of their own, not profiles.
        .filter(|(section, _)| section != "default" && !section.contains(' '))
        .map(|(section, node)| (section, node))
        .collect();
    if let Some((section, node)) = bare
        .iter()
        .find(|(section, _)| selector.is_some_and(|s| s == section.as_str()))
        .or_else(|| bare.first().filter(|_| candidates.is_empty()))
    {
        return Err(doc.error(
            node,
            format!(
                "[{section}] is not a profile to the AWS SDKs, which skip it in ~/.aws/config: write [profile {section}]"
            ),
        ));
    }
    let mut notes = Vec::new();
    let (name, profile) = pick(doc, "profile", candidates, selector, &mut notes)?;
    let section = if name == "default" {
        "[default]".to_owned()
    } else {
        format!("[profile {name}]")
    };
    let mut source = doc.provenance(profile, section);
    let mut layer = Layer::new(format!("AWS SDK ({name})"), Duration::ZERO, 3);
    let mode = match (profile.get_exact("retry_mode"), sdk) {
        (Some(n), _) => {
            let mode = doc.text(n, "retry_mode")?;
            if !["standard", "adaptive", "legacy"].contains(&mode.as_str()) {
                return Err(doc.error(
                    n,
                    format!("retry_mode must be standard, adaptive or legacy; found {mode:?}"),
                ));
            }
            source.note(format!("retry_mode {mode}"));
            mode
        }
        (None, Some(sdk)) => {
            let mode = sdk.default_mode();
            source.note(format!(
                "no retry_mode: {mode}, the default of {}",
                sdk.name()
            ));
            mode.to_owned()
        }
        (None, None) => {
            source.note("no retry_mode: each SDK's own default mode");
            layer.warnings.push(
                "no retry_mode: each SDK picks its own default mode, standard (3 attempts) for the \
                 AWS CLI v2, legacy for boto3 (5 attempts); counted as boto3's 5, the most, so the \
                 window is not cut short; set retry_mode, or name the SDK with --sdk, to count one"
                    .to_owned(),
            );
            "unset".to_owned()
        }
    };
    if mode == "legacy" && sdk != Some(Sdk::Boto3) {
        layer.warnings.push(
            "legacy mode retries as each SDK sees fit, from 3 attempts to boto3's 5; counted as \
             5, the most"
                .to_owned(),
        );
    }
    // The most attempts a documented default makes: boto3's legacy mode (5, the first
    // included), which is also its default when no mode is set.
    let default_attempts = if mode == "legacy" || mode == "unset" {
        5
    } else {
        3
    };
    layer.attempts = default_attempts;
    match profile.get_exact("max_attempts") {
        Some(n) => {
            let attempts = doc.count(n, "max_attempts")?;
            if attempts == 0 {
                return Err(doc.error(n, "max_attempts must be at least 1 (the first attempt)"));
            }
            source.note(format!(
                "attempts {attempts} (max_attempts, the first included)"
            ));
            layer.attempts = attempts;
        }
        None if default_attempts == 5 => {
            source.note("attempts 5: boto3's legacy default, the most an SDK's default makes")
        }
        None => source.note("attempts 3: the default of standard and adaptive modes"),
    }
    layer.schedule = Schedule::Exponential {
        initial: BASE,
        multiplier: 2.0,
        cap: Some(CAP),
    };
    layer.jitter = Jitter::Full;
    source.note("waits up to 1 s × 2^(n−1) before retry n, at most 20 s (full jitter)");
    source.note("no per-try timeout in this file (each SDK sets its own in code)");
    layer.provenance = Some(source);
    Ok(Imported {
        layers: vec![layer],
        paths: Vec::new(),
        notes,
        ..Imported::default()
    })
}
