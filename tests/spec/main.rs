//! Pure suites, no server: spec vectors, the bridge, properties, the jsdiff differential, session timers under a paused clock, and the store contract over every backend.
//!
//! One test crate (one link of the library) for many suites; each suite is a module.

mod bridge_vectors;
mod hunks_differential;
mod properties;
mod session_timers;
mod store_contract;
mod vectors;
