//! The `toolview` binary: parse the command line, set up logging, dispatch.

use anyhow::Context as _;
use clap::Parser;
use tokio::net::TcpListener;
use toolview::app::{
    self,
    cli::{Cli, Command},
    config::LogFormat,
};

fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    let result = dispatch(cli);
    // A closed pipe (`toolview tail … | head`) is a normal way for a reader to stop.
    match result {
        Err(e)
            if e.downcast_ref::<std::io::Error>()
                .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe) =>
        {
            Ok(())
        }
        other => other,
    }
}

fn dispatch(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Serve(mut config) => {
            // Test builds only: fail points configured from `FAILPOINTS`.
            #[cfg(feature = "failpoints")]
            let _failpoints = fail::FailScenario::setup();
            limit_malloc_arenas();
            init_tracing(config.log_format);
            config.fit_descriptor_limit();
            let rt = tokio::runtime::Runtime::new()?;
            rt.block_on(async {
                let addr = config.listen;
                let server = app::Server::open(*config).await?;
                let listener = TcpListener::bind(addr)
                    .await
                    .with_context(|| format!("cannot listen on {addr}"))?;
                // On stdout, for scripts and tests that listen on port 0; only once the store
                // is open and the port bound, so it means the server can serve.
                if let Some(admin) = server.admin_addr() {
                    println!("toolview metrics on {admin}");
                }
                println!("toolview listening on {}", listener.local_addr()?);
                server.serve(listener, shutdown_signal()).await
            })
        }
        Command::Tail {
            session,
            server,
            target,
            terminal,
            from_beginning,
            no_follow,
            tool_colors,
        } => client_runtime()?.block_on(toolview::grpc::tail::tail(
            &server.remote(),
            toolview::grpc::tail::TailOptions {
                session: &session,
                target: target.into(),
                caps: toolview::render::Capabilities {
                    tool_colors,
                    ..toolview::render::Capabilities::all(terminal)
                },
                from_beginning,
                follow: !no_follow,
            },
            &mut std::io::stdout(),
        )),
        Command::Publish { session, server } => {
            client_runtime()?.block_on(toolview::grpc::cli::publish(
                &server.remote(),
                &session,
                std::io::stdin().lock(),
                &mut std::io::stdout(),
            ))
        }
        Command::Token {
            secret_file,
            grants,
            ttl,
            aud,
            iss,
            sub,
        } => {
            let token = toolview::auth::mint(&toolview::auth::MintRequest {
                secret: toolview::auth::read_secret(&secret_file)?,
                grants,
                ttl,
                audience: aud,
                issuer: iss,
                subject: sub,
            })?;
            println!("{token}");
            Ok(())
        }
        Command::Health {
            server,
            tls_ca,
            service,
            timeout_ms,
        } => {
            let timeout = std::time::Duration::from_millis(timeout_ms);
            let url = server.unwrap_or_else(|| {
                let var = |name| std::env::var(name).ok();
                app::cli::health_url(
                    var("TOOLVIEW_METRICS_LISTEN").as_deref(),
                    var("TOOLVIEW_LISTEN").as_deref(),
                )
            });
            let remote = toolview::grpc::cli::Remote {
                url: url.clone(),
                token: None,
                tls_ca,
                tls_identity: None,
            };
            let mut out = std::io::stdout();
            let check = toolview::grpc::cli::health(&remote, &service, &mut out);
            let serving = client_runtime()?
                .block_on(async { tokio::time::timeout(timeout, check).await })
                .map_err(|_| anyhow::anyhow!("no answer from {url} within {timeout:?}"))??;
            if serving {
                Ok(())
            } else {
                std::process::exit(1)
            }
        }
        Command::Acp {
            server,
            session,
            live_only,
        } => client_runtime()?.block_on(toolview::grpc::acp_agent::serve_stdio(
            toolview::grpc::acp_agent::AgentOptions {
                remote: server.remote(),
                session,
                live_only,
            },
        )),
        Command::Render { target, terminal } => toolview::grpc::cli::render_offline(
            target.into(),
            terminal,
            std::io::stdin().lock(),
            &mut std::io::stdout().lock(),
        ),
        Command::Present { tool, args, result } => app::cli::present_command(
            &tool,
            &args,
            result.as_deref(),
            &mut std::io::stdout().lock(),
        ),
    }
}

/// glibc gives each thread that allocates concurrently an arena of its own, up to 8 per core,
/// and keeps freed memory in them: a server that spikes (many sessions published, expired,
/// rendered on the blocking pool) then keeps most of the spike as RSS. Measured on 2 cores:
/// three rounds of 50,000 sessions published and expired left +55, +90, +117 MiB with the
/// default, +44, +46, +52 MiB with 2 arenas; 16 slow subscribers peaked at 173 and 120 MiB
/// (docs/performance.md). One arena per core keeps that bound. `MALLOC_ARENA_MAX`, when set,
/// still wins.
fn limit_malloc_arenas() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    if std::env::var_os("MALLOC_ARENA_MAX").is_none() {
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        let arenas = i32::try_from(cores).unwrap_or(i32::MAX);
        // SAFETY: mallopt only sets an allocator parameter; called before any thread starts.
        unsafe {
            libc::mallopt(libc::M_ARENA_MAX, arenas);
        }
    }
}

/// A small runtime for the client commands.
fn client_runtime() -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
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
