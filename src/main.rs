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
        Command::Sessions(args) => args.run(),
        Command::WebhookSecret => {
            println!("{}", toolview::webhook::config::Secret::generate()?);
            Ok(())
        }
    }
}

/// `toolview serve`: the service, until SIGINT or SIGTERM.
fn serve(mut config: ServeConfig) -> anyhow::Result<()> {
    // Test builds only: fail points configured from `FAILPOINTS`.
    #[cfg(feature = "failpoints")]
    let _failpoints = fail::FailScenario::setup();
    tune_allocator();
    init_tracing(config.log_format);
    config.fit_descriptor_limit();
    // Idle threads give back what a crowd that left freed (`collect_when_idle`).
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .on_thread_park(collect_when_idle)
        .build()?;
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

/// mimalloc's `mi_option_purge_delay` (its `include/mimalloc.h`; the crate's bindings do not
/// name it). The test below checks that it is the option whose default is 1,000 ms.
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;
/// How long mimalloc keeps memory freed before it returns it to the OS, in ms. Its default, a
/// second, kept a spike's memory: `tests/memory.rs`'s rounds of 50,000 sessions published and
/// expired grew +48, +67, +83 MiB (+33, +35, +40 at 0; +45, +41, +42 at 1). At 0 a replay lost
/// a tenth of its speed; at 1 it kept it (docs/performance.md).
const PURGE_DELAY_MS: std::ffi::c_long = 1;

/// Sets mimalloc's purge delay, unless `MIMALLOC_PURGE_DELAY` sets it (mimalloc reads that at
/// start).
fn tune_allocator() {
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
        // SAFETY: sets one of mimalloc's options (an atomic store); any thread may call it.
        #[expect(unsafe_code, reason = "see the SAFETY note")]
        unsafe {
            libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, PURGE_DELAY_MS);
        }
    }
}

/// How often a runtime thread going idle gives mimalloc's free memory back, at most. Each
/// thread keeps what its frees left in its own heap until it collects: 10,000 subscribers that
/// left kept +33 MiB until then (`tests/memory.rs`). A collection visits the thread's pages
/// (microseconds); threads park thousands of times a second under load, so not every time. The
/// bench's OTLP and publish rows were the same with it off, at 100 ms and at 1 s.
const COLLECT_INTERVAL: std::time::Duration = std::time::Duration::from_millis(100);

/// A runtime thread about to park (idle): returns its heap's free memory to the OS, once per
/// [`COLLECT_INTERVAL`] at most.
fn collect_when_idle() {
    thread_local! {
        static LAST: std::cell::Cell<Option<std::time::Instant>> = const { std::cell::Cell::new(None) };
    }
    let now = std::time::Instant::now();
    if LAST
        .get()
        .is_some_and(|last| now.duration_since(last) < COLLECT_INTERVAL)
    {
        return;
    }
    LAST.set(Some(now));
    // SAFETY: collects the calling thread's mimalloc heap; any thread may call it at any time.
    #[expect(unsafe_code, reason = "see the SAFETY note")]
    unsafe {
        libmimalloc_sys::mi_collect(true);
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The option number is mimalloc's purge delay (the option whose default is 1,000 ms), and
    /// what is set is what mimalloc reads.
    #[test]
    fn the_purge_delay_is_the_option_tuned() {
        // SAFETY: reads and sets one of mimalloc's options.
        #[expect(unsafe_code, reason = "see the SAFETY note")]
        let (default, tuned) = unsafe {
            let default = libmimalloc_sys::mi_option_get(MI_OPTION_PURGE_DELAY);
            libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, PURGE_DELAY_MS);
            (
                default,
                libmimalloc_sys::mi_option_get(MI_OPTION_PURGE_DELAY),
            )
        };
        assert_eq!((default, tuned), (1000, PURGE_DELAY_MS));
    }
}
