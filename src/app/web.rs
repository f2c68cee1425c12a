//! The browser viewer, served at `/` next to the gRPC and gRPC-Web services. The page and its
//! bundled script (built from `web/` and committed) are compiled into the binary.

use std::sync::Arc;

use axum::http::{HeaderValue, Method, header};
use axum::response::IntoResponse;
use axum::routing::get;
use tower_http::cors::{AllowOrigin, CorsLayer};

const INDEX: &str = include_str!("../../web/index.html");
const VIEWER_JS: &str = include_str!("../../web/dist/viewer.js");
const VIEWER_CSS: &str = include_str!("../../web/dist/viewer.css");

/// The page may load only its own script and styles and talk only to its own origin; no inline
/// code, no plugins, no framing. Tool output in the page is text, never markup, and links go
/// only to `http:`, `https:` and `mailto:` URLs (`web/src/viewer.ts`).
const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; script-src 'self'; \
     style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; \
     form-action 'none'; frame-ancestors 'none'";

/// A static file with the headers every response of the viewer carries.
fn asset(content_type: &'static str, body: &'static str) -> axum::response::Response {
    (
        [
            (header::CONTENT_TYPE, content_type),
            (header::CONTENT_SECURITY_POLICY, CONTENT_SECURITY_POLICY),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
            (header::X_FRAME_OPTIONS, "DENY"),
            (header::REFERRER_POLICY, "no-referrer"),
        ],
        body,
    )
        .into_response()
}

/// `/` (the page), `/viewer.js` and `/viewer.css`.
pub fn routes() -> axum::Router {
    axum::Router::new()
        .route(
            "/",
            get(|| async { asset("text/html; charset=utf-8", INDEX) }),
        )
        .route(
            "/viewer.js",
            get(|| async { asset("text/javascript; charset=utf-8", VIEWER_JS) }),
        )
        .route(
            "/viewer.css",
            get(|| async { asset("text/css; charset=utf-8", VIEWER_CSS) }),
        )
}

/// The host names HTTP/1 requests (the viewer and gRPC-Web, what browsers send) may name:
/// loopback names, the listen address and the configured ones. A page elsewhere that points
/// its own name at this machine (DNS rebinding) names its own host, and is refused.
#[derive(Debug, Clone)]
pub struct AllowedHosts(Arc<Vec<String>>);

impl AllowedHosts {
    /// The loopback names, `listen`'s address and `extra`.
    pub fn new(listen: std::net::SocketAddr, extra: &[String]) -> Self {
        let mut hosts: Vec<String> = ["localhost", "127.0.0.1", "::1"]
            .iter()
            .map(|h| (*h).to_owned())
            .collect();
        hosts.push(listen.ip().to_string());
        hosts.extend(extra.iter().map(|h| h.to_ascii_lowercase()));
        AllowedHosts(Arc::new(hosts))
    }

    /// Whether a `Host` header value (with or without a port) names an allowed host.
    fn allows(&self, host: &str) -> bool {
        let host = host.to_ascii_lowercase();
        let name = match host.strip_prefix('[') {
            // `[::1]:50051`
            Some(v6) => v6.split(']').next().unwrap_or_default(),
            None => host
                .rsplit_once(':')
                .map_or(host.as_str(), |(name, _)| name),
        };
        self.0
            .iter()
            .any(|h| h == name || (name.ends_with(".localhost") && h == "localhost"))
    }
}

/// Whether a request is gRPC over HTTP/2, which browsers cannot send (they speak gRPC-Web).
fn grpc_from_a_program(request: &axum::extract::Request) -> bool {
    let content_type = request
        .headers()
        .get(header::CONTENT_TYPE)
        .map_or(&b""[..], HeaderValue::as_bytes);
    request.version() >= http::Version::HTTP_2
        && content_type.starts_with(b"application/grpc")
        && !content_type.starts_with(b"application/grpc-web")
}

/// Refuses requests a browser could send (the viewer and gRPC-Web, over HTTP/1 or, with TLS,
/// HTTP/2) whose host is not allowed (403). gRPC over HTTP/2 comes from programs, which name
/// whatever host they dialled (a Kubernetes service, a proxy); it passes.
pub async fn check_host(
    axum::extract::State(allowed): axum::extract::State<AllowedHosts>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    if grpc_from_a_program(&request) {
        return next.run(request).await;
    }
    let host = request
        .headers()
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .or_else(|| request.uri().authority().map(|a| a.as_str()))
        .unwrap_or_default()
        .to_owned();
    let host = host.as_str();
    if allowed.allows(host) {
        return next.run(request).await;
    }
    tracing::warn!(%host, "refused a request for a host that is not allowed (see --allowed-host)");
    crate::http::refusal(crate::error::Error::PermissionDenied(
        "this host name is not allowed; the server's operator can add it with --allowed-host"
            .into(),
    ))
}

/// CORS for pages on the configured origins: gRPC-Web, and the AG-UI and AI SDK endpoints a
/// host app's CopilotKit or `useChat` reads (`GET` for the AI SDK's stream resumption). The
/// viewer itself is same-origin and needs none.
pub fn cors(origins: &[String]) -> CorsLayer {
    let origins: Vec<HeaderValue> = origins
        .iter()
        // Checked at startup (`config::cors_origin`): every one is a header value.
        .filter_map(|o| HeaderValue::from_str(o).ok())
        .collect();
    CorsLayer::new()
        .allow_origin(AllowOrigin::list(origins))
        .allow_methods([Method::GET, Method::POST, Method::OPTIONS])
        .allow_headers([
            header::CONTENT_TYPE,
            header::AUTHORIZATION,
            "x-grpc-web".parse().expect("a header name"),
            "x-user-agent".parse().expect("a header name"),
            "grpc-timeout".parse().expect("a header name"),
        ])
        .expose_headers([
            "grpc-status".parse().expect("a header name"),
            "grpc-message".parse().expect("a header name"),
            "grpc-status-details-bin".parse().expect("a header name"),
        ])
}
