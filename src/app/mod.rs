//! Wiring: configuration, the server, the command line, logging and signals.

pub mod cli;
pub mod commands;
pub mod config;
pub mod listen;
pub mod nats;
pub mod observe;
pub mod server;
pub mod tls;
pub mod web;

pub use config::ServeConfig;
pub use server::{Server, run};
