//! The `toolview` binary: parse the command line, set up logging, dispatch.

use clap::Parser;
use tokio::net::TcpListener;
use toolview::app::{
    self,
    cli::{Cli, Command},
    config::LogFormat,
};

fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    match cli.command {
        Command::Serve(config) => {
            init_tracing(config.log_format);
            let rt = tokio::runtime::Runtime::new()?;
            rt.block_on(async {
                let listener = TcpListener::bind(config.listen).await?;
                // On stdout, for scripts and tests that listen on port 0.
                println!("toolview listening on {}", listener.local_addr()?);
                app::run(listener, config, shutdown_signal()).await
            })
        }
        Command::Present { tool, args, result } => app::cli::present_command(
            &tool,
            &args,
            result.as_deref(),
            &mut std::io::stdout().lock(),
        ),
    }
}

fn init_tracing(format: LogFormat) {
    let filter = tracing_subscriber::EnvFilter::try_from_env("TOOLVIEW_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()));
    match format {
        LogFormat::Human => builder.init(),
        LogFormat::Json => builder.json().init(),
    }
}

/// Resolves on SIGINT or SIGTERM.
async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => {},
        _ = term => {},
    }
    tracing::info!("shutdown signal received");
}
