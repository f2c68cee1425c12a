//! The browser viewer, served at `/` next to the gRPC and gRPC-Web services. The page and its
//! bundled script (built from `web/` and committed) are compiled into the binary.

use axum::http::{HeaderValue, Method, header};
use axum::response::IntoResponse;
use axum::routing::get;
use tower_http::cors::{AllowOrigin, CorsLayer};

const INDEX: &str = include_str!("../../web/index.html");
const VIEWER_JS: &str = include_str!("../../web/dist/viewer.js");

/// `/` (the page) and `/viewer.js`.
pub fn routes() -> axum::Router {
    axum::Router::new()
        .route(
            "/",
            get(|| async {
                ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], INDEX).into_response()
            }),
        )
        .route(
            "/viewer.js",
            get(|| async {
                (
                    [(header::CONTENT_TYPE, "text/javascript; charset=utf-8")],
                    VIEWER_JS,
                )
                    .into_response()
            }),
        )
}

/// CORS for gRPC-Web from the configured origins (the viewer itself is same-origin and needs
/// none).
pub fn cors(origins: &[String]) -> CorsLayer {
    let origins: Vec<HeaderValue> = origins
        .iter()
        .filter_map(|o| HeaderValue::from_str(o).ok())
        .collect();
    CorsLayer::new()
        .allow_origin(AllowOrigin::list(origins))
        .allow_methods([Method::POST, Method::OPTIONS])
        .allow_headers([
            header::CONTENT_TYPE,
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
