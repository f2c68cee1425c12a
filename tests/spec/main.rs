//! Pure suites, no server and no tool (the fast inner loop: `cargo test --lib --test spec`): spec
//! vectors, the bridge, properties, session timers under a paused clock, and the store contract
//! over every backend (built with the `jetstream` feature, it also runs against a `nats-server`).
//!
//! One test crate (one link of the library) for many suites; each suite is a module.

mod bridge_vectors;
mod producers_doc;
mod properties;
mod reference_docs;
mod session_timers;
mod store_contract;
mod vectors;
