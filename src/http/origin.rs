//! What a web page on another origin could make a browser send: refused, unless `--cors-origin`
//! names that page's origin.
//!
//! Any page can make a browser send a "simple" request — a `POST` of `text/plain`, of a form, or
//! of no type at all — to any server, this one on loopback included, without asking it first
//! (no CORS preflight). The page cannot read the answer, but with auth off (the loopback
//! default) the request itself would answer a permission prompt. So every request that may
//! change state (any method but `GET`, `HEAD` and `OPTIONS`) passes two checks, on every path
//! (the HTTP endpoints, `/mcp`, OTLP/HTTP and gRPC-Web alike):
//!
//! - **Its site.** A browser names the page that sent it (`Origin`, which it sends with every
//!   cross-origin `POST`; `Sec-Fetch-Site` where it sends none): another origin is refused with
//!   `403` unless `--cors-origin` names it. Same-origin pages (the viewer at `/`) and programs,
//!   which send neither header (curl, the client libraries, gRPC), pass.
//! - **Its body's type** (`POST`): none, `text/plain`, `application/x-www-form-urlencoded` and
//!   `multipart/form-data` are what a page may send without a preflight, and no endpoint here
//!   takes them: `415`. Every endpoint takes JSON, protobuf or gRPC, which a page on another
//!   origin can send only after a preflight the CORS layer answers for configured origins only.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{HeaderMap, Method, header};
use axum::middleware::Next;
use axum::response::Response;

use super::refusal;
use crate::domain::FieldViolation;
use crate::error::{Error, Message};

/// The body types a page may send to any origin without a preflight (the Fetch standard's
/// CORS-safelisted `Content-Type`s).
const SIMPLE_TYPES: [&str; 3] = [
    "text/plain",
    "application/x-www-form-urlencoded",
    "multipart/form-data",
];

/// The origins allowed besides the server's own (`--cors-origin`), compared as browsers send
/// them (ASCII case-insensitively).
#[derive(Debug, Clone)]
pub struct Origins(Arc<[String]>);

impl Origins {
    /// The configured `--cors-origin`s.
    pub fn new(cors_origins: &[String]) -> Self {
        Origins(
            cors_origins
                .iter()
                .map(|o| o.to_ascii_lowercase())
                .collect(),
        )
    }

    /// Why a request is refused, if it is: see the module doc.
    pub fn check(
        &self,
        method: &Method,
        headers: &HeaderMap,
        authority: Option<&str>,
    ) -> Result<(), Error> {
        if matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS) {
            return Ok(());
        }
        self.check_site(headers, authority)?;
        if *method == Method::POST {
            check_content_type(headers)?;
        }
        Ok(())
    }

    /// The page's origin is this server's (`authority`: the `Host` it was asked for) or a
    /// configured one; a request no browser sent (no `Origin`, no cross-site `Sec-Fetch-Site`)
    /// passes.
    fn check_site(&self, headers: &HeaderMap, authority: Option<&str>) -> Result<(), Error> {
        let Some(origin) = headers.get(header::ORIGIN) else {
            let site = headers.get("sec-fetch-site").map(|v| v.as_bytes());
            return match site {
                Some(b"cross-site" | b"same-site") => Err(Error::PermissionDenied(Message::about(
                    FieldViolation::new(
                        "Sec-Fetch-Site",
                        "a page on another site sent this request; allow its origin with \
                         --cors-origin",
                    ),
                ))),
                _ => Ok(()),
            };
        };
        let origin = origin.to_str().unwrap_or_default().to_ascii_lowercase();
        let own = origin
            .strip_prefix("http://")
            .or_else(|| origin.strip_prefix("https://"))
            .zip(authority)
            .is_some_and(|(host, authority)| host.eq_ignore_ascii_case(authority));
        if own || self.0.contains(&origin) {
            return Ok(());
        }
        Err(Error::PermissionDenied(Message::about(
            FieldViolation::new(
                "Origin",
                format!(
                    "a page on {origin:?} may not send this request; the server's operator can allow \
                 that origin with --cors-origin"
                ),
            ),
        )))
    }
}

/// A `POST`'s `Content-Type` is one a page cannot send without a preflight.
fn check_content_type(headers: &HeaderMap) -> Result<(), Error> {
    let value = headers
        .get(header::CONTENT_TYPE)
        .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
        .unwrap_or_default();
    let essence = value.split(';').next().unwrap_or_default().trim();
    let simple = essence.is_empty() || SIMPLE_TYPES.iter().any(|t| essence.eq_ignore_ascii_case(t));
    if !simple {
        return Ok(());
    }
    let sent = if essence.is_empty() { "none" } else { essence };
    Err(Error::UnsupportedMediaType(Message::about(
        FieldViolation::new(
            "Content-Type",
            format!(
                "{sent} is not taken here (a web page on any origin can send it without a CORS \
             preflight): send application/json (OTLP: application/x-protobuf or \
             application/json; gRPC: application/grpc)"
            ),
        ),
    )))
}

/// The middleware: refuses what [`Origins::check`] refuses, before any handler reads the body.
pub async fn check_origin(
    State(origins): State<Origins>,
    request: Request,
    next: Next,
) -> Response {
    let authority = request
        .headers()
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .or_else(|| request.uri().authority().map(|a| a.as_str()))
        .map(str::to_owned);
    match origins.check(request.method(), request.headers(), authority.as_deref()) {
        Ok(()) => next.run(request).await,
        Err(e) => {
            tracing::warn!(method = %request.method(), path = %request.uri().path(), error = %e, "refused a request a web page could have sent");
            refusal(e)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(*k, v.parse().unwrap());
        }
        h
    }

    const HOST: Option<&str> = Some("127.0.0.1:50051");

    #[test]
    fn pages_on_other_origins_are_refused_unless_configured() {
        let origins = Origins::new(&["https://App.example".into()]);
        let json = ("content-type", "application/json");
        let post = |h: &[(&'static str, &str)]| origins.check(&Method::POST, &headers(h), HOST);
        // Programs, the server's own page, a configured page.
        assert_eq!(post(&[json]), Ok(()));
        assert_eq!(post(&[json, ("origin", "http://127.0.0.1:50051")]), Ok(()));
        assert_eq!(post(&[json, ("origin", "https://app.example")]), Ok(()));
        // Another port is another origin; `null` is a sandboxed or local page.
        for other in [
            "http://127.0.0.1:3000",
            "https://evil.example",
            "null",
            "http://localhost:50051",
        ] {
            let e = post(&[json, ("origin", other)]).unwrap_err();
            assert_eq!(e.http_status(), 403, "{other}");
        }
        let e = post(&[json, ("sec-fetch-site", "cross-site")]).unwrap_err();
        assert_eq!(e.http_status(), 403);
        assert_eq!(post(&[json, ("sec-fetch-site", "same-origin")]), Ok(()));
        // Reads pass: they change nothing, and CORS keeps their answers from other pages.
        let get = headers(&[("origin", "https://evil.example")]);
        assert_eq!(origins.check(&Method::GET, &get, HOST), Ok(()));
    }

    #[test]
    fn bodies_a_page_can_send_without_a_preflight_are_refused() {
        let origins = Origins::new(&[]);
        for simple in [
            "text/plain",
            "text/plain;charset=UTF-8",
            "Application/X-WWW-Form-Urlencoded",
            "multipart/form-data; boundary=x",
        ] {
            let e = origins
                .check(&Method::POST, &headers(&[("content-type", simple)]), HOST)
                .unwrap_err();
            assert_eq!(e.http_status(), 415, "{simple}");
            assert_eq!(e.field().map(|(f, _)| f), Some("Content-Type"));
        }
        let none = origins
            .check(&Method::POST, &HeaderMap::new(), HOST)
            .unwrap_err();
        assert!(
            none.public_message().starts_with("Content-Type: none"),
            "{none}"
        );
        for taken in [
            "application/json",
            "application/x-protobuf",
            "application/grpc-web+proto",
        ] {
            let h = headers(&[("content-type", taken)]);
            assert_eq!(origins.check(&Method::POST, &h, HOST), Ok(()), "{taken}");
        }
        // MCP's DELETE of its session has no body; a page cannot send it without a preflight.
        assert_eq!(
            origins.check(&Method::DELETE, &HeaderMap::new(), HOST),
            Ok(())
        );
    }
}
