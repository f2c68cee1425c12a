//! `run(listener, config, shutdown)`: the whole server on a listener the caller bound, so tests
//! start real servers on port 0. [`Server::open`] then [`Server::serve`] is the same in two
//! steps, for the binary: it says it is listening only once the store is open.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context as _;
use tokio::net::TcpListener;

use super::ServeConfig;
use super::config::StoreKind;
use super::listen;
use super::observe::Observe;
use super::tls::Tls;
use crate::auth::Authenticator;
use crate::auth::link::LinkKey;
use crate::grpc::{Health, Limits, Services, StorageCodec, method_paths, transport_status};
use crate::metrics::Metrics;
use crate::otlp::Otlp;
use crate::session::{Sessions, SessionsConfig};
use crate::store::{EmbeddedStore, MemoryStore, Store};
use crate::webhook::Webhooks;

/// Serves every service on `listener` until `shutdown` resolves; then ends open streams, lets
/// in-flight calls finish (within the grace period) and closes the store.
pub async fn run(
    listener: TcpListener,
    config: ServeConfig,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> anyhow::Result<()> {
    Server::open(config).await?.serve(listener, shutdown).await
}

/// A server whose store is open, ready to serve.
pub struct Server {
    config: ServeConfig,
    sessions: Arc<Sessions>,
    auth: Arc<Authenticator>,
    tls: Option<Arc<Tls>>,
    /// The admin listener (`--metrics-listen`), bound.
    admin: Option<TcpListener>,
    /// The webhooks, when any are configured.
    webhooks: Option<Arc<Webhooks>>,
}

impl Server {
    /// Checks the configuration, loads keys and certificates, binds the admin listener and
    /// opens the store (errors name the file, the address or the data directory).
    pub async fn open(config: ServeConfig) -> anyhow::Result<Self> {
        config.validate()?;
        let auth = Arc::new(match config.jwt_settings()? {
            Some(settings) => Authenticator::jwt(settings)?,
            None => Authenticator::open(),
        });
        let tls = config.tls_files().map(Tls::load).transpose()?.map(Arc::new);
        let admin = match config.metrics_listen {
            Some(addr) => Some(
                TcpListener::bind(addr)
                    .await
                    .with_context(|| format!("--metrics-listen: cannot listen on {addr}"))?,
            ),
            None => None,
        };
        let store: Arc<dyn Store> = match config.store {
            StoreKind::Memory => Arc::new(MemoryStore::new()),
            StoreKind::Embedded => Arc::new(EmbeddedStore::open(
                &config.data_dir,
                config.store_cache_mb << 20,
                Arc::new(StorageCodec),
            )?),
            StoreKind::Jetstream => jetstream_store(&config).await?,
        };
        let metrics = Arc::new(Metrics::new(store.name()));
        let webhooks = match config.webhooks.settings()? {
            Some(settings) => Some(Webhooks::open(settings, &*store, metrics.clone()).await?),
            None => None,
        };
        let sessions_config = SessionsConfig {
            metrics,
            on_transition: webhooks
                .clone()
                .map(|w| w as Arc<dyn crate::session::TransitionSink>),
            ..config.sessions()
        };
        let sessions = Sessions::new(store, sessions_config);
        Ok(Server {
            config,
            sessions,
            auth,
            tls,
            admin,
            webhooks,
        })
    }

    /// Where the admin listener (metrics and health) listens, when there is one.
    pub fn admin_addr(&self) -> Option<std::net::SocketAddr> {
        self.admin.as_ref().and_then(|l| l.local_addr().ok())
    }

    /// Serves until `shutdown` resolves, then drains and closes the store.
    pub async fn serve(
        self,
        listener: TcpListener,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> anyhow::Result<()> {
        let Server {
            config,
            sessions,
            auth,
            tls,
            admin,
            webhooks,
        } = self;
        let Services {
            routes,
            health,
            admin: admin_routes,
        } = crate::grpc::services(
            sessions.clone(),
            auth.clone(),
            Limits {
                max_message_size: config.max_message_size,
                max_update_bytes: config.max_update_bytes(),
                max_output_bytes: config.max_output_bytes(),
            },
        )
        .await?;
        // Held in a set: an early return aborts them all, and none outlives `serve`.
        let mut background = tokio::task::JoinSet::new();
        spawn_background(&mut background, &config, &sessions, &auth, &tls, &health);
        let otlp = (!config.otlp.disable).then(|| {
            let limits = config.otlp.limits(config.max_message_size);
            Otlp::new(sessions.clone(), auth.clone(), limits)
        });
        if let Some(otlp) = &otlp {
            background.spawn(otlp.clone().end_waits());
        }
        if let Some(webhooks) = &webhooks {
            let scheme = if tls.is_some() { "https" } else { "http" };
            webhooks.listening_at(format!("{scheme}://{}", listener.local_addr()?));
            background.spawn(webhooks.clone().run(sessions.clone()));
        }
        let links = webhooks.as_ref().map(|w| w.link_key().clone());
        let app = router(routes, &config, &sessions, &auth, otlp.as_ref(), links);
        let (stopping, fired) = stopping(shutdown, sessions.clone(), health, otlp);

        tracing::info!(
            addr = %listener.local_addr()?,
            store = sessions.store_name(),
            auth = auth.enabled(),
            tls = tls.is_some(),
            "serving"
        );
        let limits = config.connection_limits();
        // The admin listener outlives the drain (probes see NOT_SERVING meanwhile) and stops
        // with the server.
        let (admin_stop, admin_stopped) = tokio::sync::oneshot::channel::<()>();
        if let Some(listener) = admin {
            let app = admin_app(sessions.clone(), admin_routes);
            background.spawn(serve_admin(listener, app, limits.clone(), admin_stopped));
        }
        let counted = listen::Counted {
            open: sessions.metrics().connections.clone(),
            refused: sessions.metrics().connections_refused.clone(),
        };
        let server = listen::serve(listener, app, limits, tls, Some(counted), stopping);
        drain(
            server,
            fired,
            Duration::from_millis(config.shutdown_grace_ms),
        )
        .await;
        let _ = admin_stop.send(());
        end_background(background).await;
        sessions.close().await;
        tracing::info!("stopped");
        Ok(())
    }
}

/// The admin listener (metrics and health, plaintext) until `stop` fires.
async fn serve_admin(
    listener: TcpListener,
    app: axum::Router,
    limits: listen::ConnectionLimits,
    stop: tokio::sync::oneshot::Receiver<()>,
) {
    let addr = listener
        .local_addr()
        .map(|a| a.to_string())
        .unwrap_or_default();
    tracing::info!(%addr, "serving metrics and health");
    let stop = async {
        let _ = stop.await;
    };
    listen::serve(listener, app, limits, None, None, stop).await;
}

/// The tasks that run beside the server: expiry, health following the store, other replicas'
/// appends, reloads on SIGHUP.
fn spawn_background(
    background: &mut tokio::task::JoinSet<()>,
    config: &ServeConfig,
    sessions: &Arc<Sessions>,
    auth: &Arc<Authenticator>,
    tls: &Option<Arc<Tls>>,
    health: &Health,
) {
    background.spawn(expire_sessions(
        sessions.clone(),
        Duration::from_millis(config.expiry_interval_ms.max(1)),
    ));
    background.spawn(health_follows_store(
        sessions.store_writable(),
        health.clone(),
    ));
    // Appends other replicas make reach this one's subscribers (a shared store only).
    background.spawn(sessions.clone().follow_appends());
    background.spawn(sessions.clone().run_fleet());
    // Permission requests nobody answers in time resolve to their reject option.
    background.spawn(sessions.clone().expire_permissions());
    background.spawn(reload_on_hangup(
        auth.clone(),
        tls.clone(),
        sessions.metrics().clone(),
    ));
}

/// The API port's routes: gRPC (HTTP/2) and gRPC-Web (HTTP/1.1, for browsers) on one port, the
/// HTTP endpoints, and the viewer at `/`. gRPC-Web is translated for the gRPC routes only:
/// tonic-web refuses other HTTP/1 requests, and the viewer's page is plain HTTP/1.
fn router(
    routes: tonic::service::Routes,
    config: &ServeConfig,
    sessions: &Arc<Sessions>,
    auth: &Arc<Authenticator>,
    otlp: Option<&Otlp>,
    links: Option<LinkKey>,
) -> axum::Router {
    let mut paths = method_paths();
    let max = config.max_message_size;
    let mut http = crate::http::routes(sessions.clone(), auth.clone(), max, links)
        .merge(crate::mcp::routes(sessions.clone(), auth.clone(), max));
    let routes = match otlp {
        None => routes,
        Some(otlp) => {
            paths.extend(crate::otlp::METHOD_PATHS.map(str::to_owned));
            http = http.merge(crate::otlp::routes(otlp.clone()));
            crate::otlp::services(otlp.clone(), routes)
        }
    };
    let observe = Observe::new(sessions.metrics().clone(), paths);
    let grpc = routes
        .into_axum_router()
        .layer(tower::util::MapResponseLayer::new(transport_status))
        .layer(observe)
        .layer(tonic_web::GrpcWebLayer::new());
    let hosts = super::web::AllowedHosts::new(config.listen, &config.allowed_hosts);
    super::web::routes()
        .merge(http)
        .merge(grpc)
        // The router's own refusals as JSON, like every other (after the merge: it replaces
        // the gRPC routes' fallback, and still answers gRPC requests as gRPC).
        .fallback(crate::http::unrouted)
        .method_not_allowed_fallback(crate::http::wrong_method)
        // Inside CORS, which answers preflights itself: what reaches here was sent.
        .layer(axum::middleware::from_fn_with_state(
            crate::http::origin::Origins::new(&config.cors_origins),
            crate::http::origin::check_origin,
        ))
        .layer(super::web::cors(&config.cors_origins))
        .layer(axum::middleware::from_fn_with_state(
            hosts,
            super::web::check_host,
        ))
}

/// What runs when `shutdown` resolves: spans held for their ancestors are published, subscriptions
/// stop (their streams end) and publishes are refused, then the connections drain. The receiver fires once that happened.
fn stopping(
    shutdown: impl Future<Output = ()> + Send + 'static,
    sessions: Arc<Sessions>,
    health: Health,
    otlp: Option<Otlp>,
) -> (
    impl Future<Output = ()> + Send + 'static,
    tokio::sync::oneshot::Receiver<()>,
) {
    let (fired_tx, fired_rx) = tokio::sync::oneshot::channel::<()>();
    let stopping = async move {
        shutdown.await;
        tracing::info!("shutting down");
        health.set_sessions_serving(false).await;
        // Spans waiting for their ancestors are placed as they are, while publishes still go.
        if let Some(otlp) = otlp {
            otlp.stop_holding().await;
        }
        sessions.begin_shutdown();
        let _ = fired_tx.send(());
    };
    (stopping, fired_rx)
}

/// Serves until the connections drained after the shutdown signal, or the grace period after it
/// ran out.
async fn drain(
    server: impl Future<Output = ()>,
    fired: tokio::sync::oneshot::Receiver<()>,
    grace: Duration,
) {
    tokio::select! {
        () = server => {}
        _ = async { let _ = fired.await; tokio::time::sleep(grace).await } => {
            tracing::warn!(?grace, "grace period over; closing with calls still open");
        }
    }
}

/// Ends the background tasks, reporting one that panicked (the admin listener ends first, told
/// by its stop signal).
async fn end_background(mut background: tokio::task::JoinSet<()>) {
    background.abort_all();
    while let Some(ended) = background.join_next().await {
        if let Err(e) = ended
            && e.is_panic()
        {
            tracing::error!(error = %e, "a background task panicked");
        }
    }
}

/// The admin listener's routes: `/metrics` and the gRPC health service.
fn admin_app(sessions: Arc<Sessions>, health: tonic::service::Routes) -> axum::Router {
    let metrics = axum::routing::get(move || async move {
        sessions.update_gauges();
        (
            [(http::header::CONTENT_TYPE, crate::metrics::CONTENT_TYPE)],
            sessions.metrics().encode(),
        )
    });
    axum::Router::new()
        .route("/metrics", metrics)
        .merge(health.into_axum_router())
}

/// The JetStream store, connected and its stream checked.
#[cfg(feature = "jetstream")]
async fn jetstream_store(config: &ServeConfig) -> anyhow::Result<Arc<dyn Store>> {
    let options = config.nats.options(config);
    let store = crate::store::JetStreamStore::open(options, Arc::new(StorageCodec)).await?;
    Ok(Arc::new(store))
}

#[cfg(not(feature = "jetstream"))]
async fn jetstream_store(_: &ServeConfig) -> anyhow::Result<Arc<dyn Store>> {
    anyhow::bail!("--store jetstream: this toolview was built without the `jetstream` feature")
}

/// Deletes expired sessions now and then (only when a TTL is configured).
async fn expire_sessions(sessions: Arc<Sessions>, every: Duration) {
    loop {
        tokio::time::sleep(every).await;
        match sessions.expire().await {
            Ok(0) => {}
            Ok(n) => tracing::info!(sessions = n, "expired idle sessions"),
            Err(e) => tracing::warn!(error = %e, "session expiry failed"),
        }
    }
}

/// Reads keys and certificates again on SIGHUP (certificate rotation without a restart): new
/// connections and requests use them; open connections keep theirs. A file that does not load
/// is logged and counted (`toolview_reloads_total{result="kept_old"}`), and the old
/// configuration stays.
async fn reload_on_hangup(auth: Arc<Authenticator>, tls: Option<Arc<Tls>>, metrics: Arc<Metrics>) {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let mut hangups = match signal(SignalKind::hangup()) {
            Ok(s) => s,
            Err(e) => {
                tracing::warn!(error = %e, "cannot listen for SIGHUP; no reloads");
                return;
            }
        };
        let count = |file: &'static str, result: &'static str| {
            metrics
                .reloads
                .get_or_create(&crate::metrics::ReloadLabels { file, result })
                .inc();
        };
        while hangups.recv().await.is_some() {
            match auth.reload() {
                Ok(()) if auth.enabled() => {
                    tracing::info!("reloaded the token keys");
                    count("token_keys", "loaded");
                }
                Ok(()) => {}
                Err(e) => {
                    tracing::error!(error = format!("{e:#}"), "keeping the old token keys");
                    count("token_keys", "kept_old");
                }
            }
            if let Some(tls) = &tls {
                match tls.reload() {
                    Ok(()) => {
                        tracing::info!("reloaded the TLS certificate");
                        count("tls_certificate", "loaded");
                    }
                    Err(e) => {
                        tracing::error!(
                            error = format!("{e:#}"),
                            "keeping the old TLS certificate"
                        );
                        count("tls_certificate", "kept_old");
                    }
                }
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = (auth, tls, metrics);
        std::future::pending::<()>().await;
    }
}

/// Health follows the store: `NOT_SERVING` while it cannot write (it recovers by itself).
async fn health_follows_store(mut writable: tokio::sync::watch::Receiver<bool>, health: Health) {
    loop {
        let ok = *writable.borrow_and_update();
        health.set_sessions_serving(ok).await;
        if writable.changed().await.is_err() {
            return;
        }
    }
}
