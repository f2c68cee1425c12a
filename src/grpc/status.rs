//! The error taxonomy as gRPC statuses (its codes are `Error::code`'s one table; the field a
//! refusal names, whatever its code, as a `google.rpc.BadRequest` field violation in the
//! details, beside the message), and the statuses tonic itself answers made to follow the API.

use tonic_types::{ErrorDetails, StatusExt as _};

use crate::error::Error;

impl From<Error> for tonic::Status {
    fn from(e: Error) -> Self {
        match &e {
            Error::DataLoss(msg) => tracing::error!(%msg, "stored data unreadable"),
            Error::Internal(detail) => tracing::error!(%detail, "internal error"),
            Error::InvalidArgument(_)
            | Error::Lifecycle(_)
            | Error::NotFound(_)
            | Error::Lagging(_)
            | Error::TooLarge(_)
            | Error::UnsupportedMediaType(_)
            | Error::Aborted(_)
            | Error::Unavailable(_)
            | Error::Unauthenticated(_)
            | Error::PermissionDenied(_) => {}
        }
        match e.field() {
            Some((field, problem)) => {
                let details = ErrorDetails::with_bad_request_violation(field, problem);
                tonic::Status::with_error_details(e.code(), e.public_message(), details)
            }
            None => tonic::Status::new(e.code(), e.public_message()),
        }
    }
}

/// Enforces the configured message size on a decoded request: over it is `RESOURCE_EXHAUSTED`
/// (tonic's own decoding limit, set higher as a memory guard, would say `OUT_OF_RANGE`).
pub fn check_size(message: &impl prost::Message, max: usize) -> Result<(), Error> {
    let len = message.encoded_len();
    if len > max {
        return Err(Error::TooLarge(
            format!("request is {len} bytes, the limit is {max} bytes").into(),
        ));
    }
    Ok(())
}

/// The `grpc-message`s (percent-encoded, as sent) of the `INTERNAL` statuses tonic answers for
/// a request that is broken, not for a fault of the server: an invalid compression flag, a body
/// that does not gunzip, a frame cut short, and a message that does not decode (services on
/// tonic's prost codec: OTLP's; toolview's own decode with theirs, which names the field).
const TONIC_BAD_INPUT: [&[u8]; 4] = [
    b"protocol%20error:%20received%20message%20with%20invalid%20compression",
    b"Error%20decompressing:",
    b"Unexpected%20EOF%20decoding%20stream",
    b"failed%20to%20decode%20Protobuf%20message",
];

/// Rewrites the statuses tonic itself answers before a handler runs, so they follow the API: a
/// request over the message size limit (tonic says `OUT_OF_RANGE`; no handler does, so every
/// such status is that check) is `RESOURCE_EXHAUSTED`, and a broken request (tonic says
/// `INTERNAL`: [`TONIC_BAD_INPUT`]) is `INVALID_ARGUMENT`.
pub fn transport_status<B>(mut response: http::Response<B>) -> http::Response<B> {
    use http::HeaderValue;
    let headers = response.headers_mut();
    let code = headers.get("grpc-status").map(HeaderValue::as_bytes);
    let message = headers
        .get("grpc-message")
        .map_or(&b""[..], HeaderValue::as_bytes);
    let rewrite = match code {
        Some(b"11") => Some("8"),
        Some(b"13") if TONIC_BAD_INPUT.iter().any(|m| message.starts_with(m)) => Some("3"),
        _ => None,
    };
    if let Some(code) = rewrite {
        headers.insert("grpc-status", HeaderValue::from_static(code));
    }
    response
}
