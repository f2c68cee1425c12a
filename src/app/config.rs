//! The one typed configuration of `toolview serve`: flags, each with a `TOOLVIEW_*` variable.

use std::{net::SocketAddr, path::PathBuf};

use clap::{Args, ValueEnum};

/// Where session logs live.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum StoreKind {
    /// In memory: lost on exit. (The durable `embedded` store arrives with sessions.)
    Memory,
}

/// Log line format on stderr.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LogFormat {
    /// Human-readable lines.
    Human,
    /// One JSON object per line.
    Json,
}

/// Configuration of `toolview serve`.
#[derive(Debug, Clone, Args)]
pub struct ServeConfig {
    /// Address to listen on.
    #[arg(long, env = "TOOLVIEW_LISTEN", default_value = "127.0.0.1:50051")]
    pub listen: SocketAddr,

    /// Session store.
    #[arg(long, env = "TOOLVIEW_STORE", value_enum, default_value = "memory")]
    pub store: StoreKind,

    /// Data directory of the embedded store.
    #[arg(long, env = "TOOLVIEW_DATA_DIR", default_value = "./toolview-data")]
    pub data_dir: PathBuf,

    /// Largest accepted or sent gRPC message, in bytes.
    #[arg(long, env = "TOOLVIEW_MAX_MESSAGE_SIZE", default_value_t = 4 * 1024 * 1024)]
    pub max_message_size: usize,

    /// Log format.
    #[arg(long, env = "TOOLVIEW_LOG_FORMAT", value_enum, default_value = "human")]
    pub log_format: LogFormat,
}

impl Default for ServeConfig {
    fn default() -> Self {
        ServeConfig {
            listen: SocketAddr::from(([127, 0, 0, 1], 50051)),
            store: StoreKind::Memory,
            data_dir: PathBuf::from("./toolview-data"),
            max_message_size: 4 * 1024 * 1024,
            log_format: LogFormat::Human,
        }
    }
}
