//! One log line and the RPC metrics per gRPC call: a tower layer over the gRPC routes (inside
//! the gRPC-Web translation, so browser calls count too). It reads the status where gRPC puts
//! it — the headers of a trailers-only response (every error before a response), else the
//! trailers at the end of the body; a body dropped before its trailers is a call the client
//! cancelled. Handlers name the session by recording `session_id` on the call's span.

use std::collections::HashSet;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Instant;

use axum::body::{Body, HttpBody};
use futures_util::future::BoxFuture;
use http::{HeaderMap, Request, Response};
use tonic::Code;

use crate::grpc::code_name;
use crate::metrics::{AuthLabels, MethodLabels, Metrics, RpcLabels};

/// Methods whose calls are logged at `debug`, not `info`: probes call them every few seconds.
const QUIET_METHODS: [&str; 2] = [
    "/grpc.health.v1.Health/Check",
    "/grpc.health.v1.Health/Watch",
];
/// Streams that last as long as their client likes: their lifetime is not a latency.
const LONG_STREAMS: [&str; 2] = [
    "/toolview.v1.SessionService/Subscribe",
    "/grpc.health.v1.Health/Watch",
];

/// What the layer needs: where to count, and which paths are real methods (anything else is
/// counted as `unknown`, so a client cannot create series).
#[derive(Clone)]
pub struct Observe {
    metrics: Arc<Metrics>,
    methods: Arc<HashSet<String>>,
}

impl Observe {
    /// A layer counting calls to `methods` (the gRPC paths served; any other path counts as `unknown`).
    pub fn new(metrics: Arc<Metrics>, methods: impl IntoIterator<Item = String>) -> Self {
        Observe {
            metrics,
            methods: Arc::new(methods.into_iter().collect()),
        }
    }
}

impl<S> tower::Layer<S> for Observe {
    type Service = Observed<S>;

    fn layer(&self, inner: S) -> Self::Service {
        Observed {
            inner,
            observe: self.clone(),
        }
    }
}

/// The service [`Observe`] wraps around the routes.
#[derive(Clone)]
pub struct Observed<S> {
    inner: S,
    observe: Observe,
}

impl<S> tower::Service<Request<Body>> for Observed<S>
where
    S: tower::Service<Request<Body>, Response = Response<Body>> + Send + 'static,
    S::Future: Send + 'static,
{
    type Response = Response<Body>;
    type Error = S::Error;
    type Future = BoxFuture<'static, Result<Response<Body>, S::Error>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, req: Request<Body>) -> Self::Future {
        let path = req.uri().path();
        let method = if self.observe.methods.contains(path) {
            path.to_owned()
        } else {
            "unknown".to_owned()
        };
        let span = tracing::info_span!(
            "rpc",
            method = %method,
            session_id = tracing::field::Empty
        );
        let call = Call {
            metrics: self.observe.metrics.clone(),
            method,
            started: Instant::now(),
            span: span.clone(),
        };
        let future = tracing::Instrument::instrument(self.inner.call(req), span);
        Box::pin(async move {
            let response = future.await?;
            if let Some(code) = status(response.headers()) {
                call.finish(code, true);
                return Ok(response);
            }
            Ok(response.map(|body| {
                Body::new(Watched {
                    body,
                    call: Some(call),
                })
            }))
        })
    }
}

/// One call, until its status is known.
struct Call {
    metrics: Arc<Metrics>,
    method: String,
    started: Instant,
    span: tracing::Span,
}

impl Call {
    /// Counts and logs the call; `early` when the status came with the response headers (a
    /// call refused before it started: auth refusals among them).
    fn finish(self, code: Code, early: bool) {
        let elapsed = self.started.elapsed();
        let name = code_name(code);
        let m = &self.metrics;
        m.rpcs
            .get_or_create(&RpcLabels {
                method: self.method.clone(),
                code: name,
            })
            .inc();
        if early || !LONG_STREAMS.contains(&self.method.as_str()) {
            m.rpc_seconds
                .get_or_create(&MethodLabels {
                    method: self.method.clone(),
                })
                .observe(elapsed.as_secs_f64());
        }
        if early && matches!(code, Code::Unauthenticated | Code::PermissionDenied) {
            m.auth_failures
                .get_or_create(&AuthLabels { code: name })
                .inc();
        }
        let latency_ms = elapsed.as_secs_f64() * 1000.0;
        let _in = self.span.enter();
        if QUIET_METHODS.contains(&self.method.as_str()) {
            tracing::debug!(code = name, latency_ms, "rpc");
        } else {
            tracing::info!(code = name, latency_ms, "rpc");
        }
    }
}

/// A response body that finishes its call when the trailers pass (or the body is dropped).
struct Watched {
    body: Body,
    call: Option<Call>,
}

impl HttpBody for Watched {
    type Data = <Body as HttpBody>::Data;
    type Error = <Body as HttpBody>::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Self::Data>, Self::Error>>> {
        let polled = Pin::new(&mut self.body).poll_frame(cx);
        match &polled {
            Poll::Ready(Some(Ok(frame))) => {
                if let Some(code) = frame.trailers_ref().and_then(status) {
                    self.end(code);
                }
            }
            // The body broke (the connection did): the call did not complete.
            Poll::Ready(Some(Err(_))) => self.end(Code::Unknown),
            // A body without trailers is not a gRPC call; it ended without a status.
            Poll::Ready(None) => self.end(Code::Unknown),
            Poll::Pending => {}
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.body.size_hint()
    }
}

impl Watched {
    fn end(&mut self, code: Code) {
        if let Some(call) = self.call.take() {
            call.finish(code, false);
        }
    }
}

impl Drop for Watched {
    fn drop(&mut self) {
        // Dropped before the trailers: the client reset the stream or went away.
        self.end(Code::Cancelled);
    }
}

/// The `grpc-status` in `headers`, if any.
fn status(headers: &HeaderMap) -> Option<Code> {
    let value = headers.get("grpc-status")?.to_str().ok()?;
    Some(Code::from_i32(value.parse().ok()?))
}
