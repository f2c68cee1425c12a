//! OTLP/HTTP: `POST /v1/traces` and `/v1/logs`, a protobuf (`application/x-protobuf`) or JSON
//! (`application/json`, OTLP's mapping: hex ids, int64s as text) body, plain or
//! `Content-Encoding: gzip`. Answered in the request's format: the export response (with its
//! partial success), or a refusal as a `google.rpc.Status` with the HTTP status of `Error`'s
//! table (400 a bad body, 401/403 auth, 413 over a limit, 415 another format or encoding).

use std::io::Read as _;

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use opentelemetry_proto::tonic::collector::logs::v1::{
    ExportLogsServiceRequest, ExportLogsServiceResponse,
};
use opentelemetry_proto::tonic::collector::trace::v1::{
    ExportTraceServiceRequest, ExportTraceServiceResponse,
};
use prost::Message as _;
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::scan::{self, Kind};
use super::{Otlp, Outcome};
use crate::auth::Right;
use crate::error::Error;

/// The trace export path (what exporters append to `OTEL_EXPORTER_OTLP_ENDPOINT`).
pub const TRACES_PATH: &str = "/v1/traces";
/// The logs export path.
pub const LOGS_PATH: &str = "/v1/logs";

/// The metrics export path: taken and dropped ([`metrics`]).
pub const METRICS_PATH: &str = "/v1/metrics";

/// The three paths, bodies within the receiver's limit (compressed and decompressed).
pub fn routes(otlp: Otlp) -> axum::Router {
    let max = otlp.limits.max_body;
    axum::Router::new()
        .route(TRACES_PATH, axum::routing::post(traces))
        .route(LOGS_PATH, axum::routing::post(logs))
        .route(METRICS_PATH, axum::routing::post(metrics))
        .layer(DefaultBodyLimit::max(max))
        .with_state(otlp)
}

/// A body's format, from its `Content-Type`.
#[derive(Debug, Clone, Copy)]
enum Format {
    Protobuf,
    Json,
}

impl Format {
    fn of(headers: &HeaderMap) -> Option<Format> {
        let value = headers.get(header::CONTENT_TYPE)?.to_str().ok()?;
        let essence = value.split(';').next()?.trim();
        match essence.to_ascii_lowercase().as_str() {
            "application/x-protobuf" | "application/protobuf" => Some(Format::Protobuf),
            "application/json" => Some(Format::Json),
            _ => None,
        }
    }

    fn content_type(self) -> &'static str {
        match self {
            Format::Protobuf => "application/x-protobuf",
            Format::Json => "application/json",
        }
    }

    fn decode<T: prost::Message + Default + DeserializeOwned>(
        self,
        body: &[u8],
    ) -> Result<T, Error> {
        match self {
            Format::Protobuf => {
                T::decode(body).map_err(|e| Error::bad_request(format!("request body: {e}")))
            }
            Format::Json => serde_json::from_slice(body)
                .map_err(|e| Error::bad_request(format!("request body: {e}"))),
        }
    }

    fn respond<T: prost::Message + Serialize>(self, status: StatusCode, message: &T) -> Response {
        let body = match self {
            Format::Protobuf => message.encode_to_vec(),
            // OTLP/JSON leaves unset fields out (`{}` for a full success), where serde
            // writes `null`.
            Format::Json => {
                let mut value = serde_json::to_value(message).unwrap_or_default();
                if let Some(fields) = value.as_object_mut() {
                    fields.retain(|_, v| !v.is_null());
                }
                value.to_string().into_bytes()
            }
        };
        (status, [(header::CONTENT_TYPE, self.content_type())], body).into_response()
    }

    /// A refusal: `google.rpc.Status` in this format.
    fn refuse(self, e: Error) -> Response {
        let status =
            StatusCode::from_u16(e.http_status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        let code = e.code() as i32;
        let message = e.public_message().to_owned();
        match self {
            Format::Protobuf => {
                let body = tonic_types::pb::Status {
                    code,
                    message,
                    details: Vec::new(),
                }
                .encode_to_vec();
                (status, [(header::CONTENT_TYPE, self.content_type())], body).into_response()
            }
            Format::Json => {
                let body = serde_json::json!({"code": code, "message": message}).to_string();
                (status, [(header::CONTENT_TYPE, self.content_type())], body).into_response()
            }
        }
    }
}

/// A body's encoding, from its `Content-Encoding`.
#[derive(Debug, Clone, Copy)]
enum Encoding {
    Identity,
    Gzip,
}

impl Encoding {
    fn of(headers: &HeaderMap) -> Option<Encoding> {
        let Some(value) = headers.get(header::CONTENT_ENCODING) else {
            return Some(Encoding::Identity);
        };
        match value.to_str().ok()?.trim().to_ascii_lowercase().as_str() {
            "" | "identity" => Some(Encoding::Identity),
            "gzip" => Some(Encoding::Gzip),
            _ => None,
        }
    }

    /// The body decoded, at most `max` bytes: a gzip bomb stops at the limit, having cost no
    /// more than it.
    fn decode(self, body: Bytes, max: usize) -> Result<Bytes, Error> {
        match self {
            Encoding::Identity => Ok(body),
            Encoding::Gzip => {
                let mut out = Vec::new();
                let n = flate2::read::GzDecoder::new(&body[..])
                    .take(max as u64 + 1)
                    .read_to_end(&mut out)
                    .map_err(|e| Error::bad_request(format!("request body: not gzip ({e})")))?;
                if n > max {
                    return Err(Error::TooLarge(
                        format!(
                            "request body: over the limit of {max} bytes once decompressed \
                         (--max-message-size)"
                        )
                        .into(),
                    ));
                }
                Ok(out.into())
            }
        }
    }
}

/// What the two paths share: the format, the caller, the body.
async fn export<Req, Resp>(
    otlp: &Otlp,
    headers: &HeaderMap,
    body: Result<Bytes, BytesRejection>,
    kind: Kind,
    ingest: impl AsyncFnOnce(&Otlp, &crate::auth::Access, Req) -> Result<Outcome, Error>,
) -> Response
where
    Req: prost::Message + Default + DeserializeOwned,
    Resp: prost::Message + Serialize + From<Outcome>,
{
    let (Some(format), Some(encoding)) = (Format::of(headers), Encoding::of(headers)) else {
        return unsupported();
    };
    let read = read::<Req>(otlp, headers, body, (format, encoding), kind);
    let outcome = match read {
        Ok((access, request)) => ingest(otlp, &access, request).await,
        Err(e) => Err(e),
    };
    match outcome {
        Ok(outcome) => format.respond(StatusCode::OK, &Resp::from(outcome)),
        Err(e) => format.refuse(e),
    }
}

/// The caller and the request. The right first (on some session: which ones the export names
/// is known only once it is decoded and mapped), so a token that may publish nothing costs no
/// decoding; then the body within its limits, counted before it is decoded (`scan`).
fn read<Req: prost::Message + Default + DeserializeOwned>(
    otlp: &Otlp,
    headers: &HeaderMap,
    body: Result<Bytes, BytesRejection>,
    (format, encoding): (Format, Encoding),
    kind: Kind,
) -> Result<(crate::auth::Access, Req), Error> {
    let max = otlp.limits.max_body;
    let access = crate::http::authenticate(&otlp.auth, headers)?;
    access.require_somewhere(Right::Publish)?;
    let body = encoding.decode(crate::http::body(body, max)?, max)?;
    let budget = otlp.limits.budget();
    match format {
        Format::Protobuf => scan::protobuf(&body, kind, &budget)?,
        Format::Json => scan::json(&body, &budget)?,
    };
    Ok((access, format.decode::<Req>(&body)?))
}

/// A format or encoding OTLP/HTTP does not have: `415`, as text (no format to answer in).
fn unsupported() -> Response {
    (
        StatusCode::UNSUPPORTED_MEDIA_TYPE,
        "OTLP/HTTP takes Content-Type application/x-protobuf or application/json, and \
         Content-Encoding gzip or none",
    )
        .into_response()
}

/// `POST /v1/metrics`: toolview shows no metrics, but SDKs that export every signal to one
/// endpoint (the Node SDK's default) would log a 404 at every interval. The caller and the body
/// are checked like a trace export's; the body is then dropped unread, and the answer is an
/// empty `ExportMetricsServiceResponse` (no field set: the same bytes as an empty trace
/// response, which is what is encoded).
async fn metrics(
    State(otlp): State<Otlp>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    let (Some(format), Some(_)) = (Format::of(&headers), Encoding::of(&headers)) else {
        return unsupported();
    };
    let taken = crate::http::authenticate(&otlp.auth, &headers)
        .and_then(|a| a.require_somewhere(Right::Publish))
        .and_then(|()| crate::http::body(body, otlp.limits.max_body).map(drop));
    match taken {
        Ok(()) => format.respond(StatusCode::OK, &ExportTraceServiceResponse::default()),
        Err(e) => format.refuse(e),
    }
}

async fn traces(
    State(otlp): State<Otlp>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    export::<_, ExportTraceServiceResponse>(
        &otlp,
        &headers,
        body,
        Kind::Traces,
        async |otlp: &Otlp, access: &crate::auth::Access, request: ExportTraceServiceRequest| {
            otlp.traces(access, request).await
        },
    )
    .await
}

async fn logs(
    State(otlp): State<Otlp>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    export::<_, ExportLogsServiceResponse>(
        &otlp,
        &headers,
        body,
        Kind::Logs,
        async |otlp: &Otlp, access: &crate::auth::Access, request: ExportLogsServiceRequest| {
            otlp.logs(access, request).await
        },
    )
    .await
}
