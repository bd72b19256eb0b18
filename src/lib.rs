//! idem: a deterministic simulation of retries, idempotency keys and the charges they cause.

pub mod window;
