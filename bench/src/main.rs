//! `toolview-bench`: the load generator. It starts real servers (`toolview serve`, and
//! `nats-server` as the fan-out peer) as child processes, drives them over loopback, and prints
//! one Markdown table (`docs/performance.md`). Not part of the product: `scripts/bench.sh` builds
//! and runs it.

mod config;
mod feed;
mod fleet;
mod growth;
mod jetstream;
mod limits;
mod listing;
mod load;
mod measure;
mod nats;
mod otlp;
mod process;
mod replay;
mod run;
mod scale;
mod stream;
mod table;

use clap::Parser;

/// toolview-bench: measures a toolview server under load.
#[derive(Debug, Parser)]
#[command(version, about)]
struct Cli {
    #[command(flatten)]
    config: config::BenchConfig,
}

fn main() -> anyhow::Result<()> {
    let Cli { config } = Cli::parse();
    tokio::runtime::Runtime::new()?.block_on(run::run(config, &mut std::io::stdout()))
}
