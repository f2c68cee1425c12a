//! The `toolview` binary: parse the command line, set up logging, dispatch.

use anyhow::Context as _;
use clap::Parser;
use tokio::net::TcpListener;
use toolview::app::{
    self, ServeConfig,
    cli::{Cli, Command},
    config::LogFormat,
};

/// mimalloc, for its cross-thread frees (see its entry in Cargo.toml); the library leaves the
/// allocator to the program that links it.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    match dispatch(cli) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        // A closed pipe (`toolview tail … | head`) is a normal way for a reader to stop.
        Err(e)
            if e.downcast_ref::<std::io::Error>()
                .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe) =>
        {
            std::process::ExitCode::SUCCESS
        }
        // One line, the causes after a colon each: a bad flag or an unreachable server is not
        // a crash, so no backtrace even with RUST_BACKTRACE set (anyhow's `Debug` would print
        // one).
        Err(e) => {
            eprintln!("Error: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}

fn dispatch(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Serve(config) => serve(*config),
        Command::Tail(args) => args.run(),
        Command::Publish(args) => args.run(),
        Command::Token(args) => args.run(),
        Command::Health(args) => args.run(),
        Command::Acp(args) => args.run(),
        Command::Mcp(args) => args.run(),
        Command::Render(args) => args.run(),
        Command::Present(args) => args.run(),
        Command::Approve(args) => args.run(),
    }
}

/// `toolview serve`: the service, until SIGINT or SIGTERM.
fn serve(mut config: ServeConfig) -> anyhow::Result<()> {
    // Test builds only: fail points configured from `FAILPOINTS`.
    #[cfg(feature = "failpoints")]
    let _failpoints = fail::FailScenario::setup();
    init_tracing(config.log_format);
    config.fit_descriptor_limit();
    let rt = tokio::runtime::Runtime::new()?;
    rt.block_on(async {
        let stop = shutdown_signal()?;
        let addr = config.listen;
        let server = app::Server::open(config).await?;
        let listener = TcpListener::bind(addr)
            .await
            .with_context(|| format!("cannot listen on {addr}"))?;
        // On stdout, for scripts and tests that listen on port 0; only once the store is open
        // and the port bound, so it means the server can serve.
        if let Some(admin) = server.admin_addr() {
            println!("toolview metrics on {admin}");
        }
        println!("toolview listening on {}", listener.local_addr()?);
        server.serve(listener, stop).await
    })
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

/// Resolves on SIGINT or SIGTERM. The handlers are registered now (inside the runtime), so a
/// process that could not be stopped cleanly fails at startup instead of serving regardless.
fn shutdown_signal() -> anyhow::Result<impl std::future::Future<Output = ()>> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let mut interrupt = signal(SignalKind::interrupt()).context("cannot handle SIGINT")?;
        let mut terminate = signal(SignalKind::terminate()).context("cannot handle SIGTERM")?;
        Ok(async move {
            tokio::select! {
                _ = interrupt.recv() => {},
                _ = terminate.recv() => {},
            }
            tracing::info!("shutdown signal received");
        })
    }
    #[cfg(not(unix))]
    {
        Ok(async {
            let _ = tokio::signal::ctrl_c().await;
            tracing::info!("shutdown signal received");
        })
    }
}
