//! idem's reader of an incident's records (`idem import`): OTLP JSON, Jaeger and Zipkin v2
//! traces, HAR files and JSON access logs, into a scenario that replays what happened. On
//! idem-core (the scenario format and the engine); no terminal, no network.
#![deny(clippy::unwrap_used)]

pub mod import;
