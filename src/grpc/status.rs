//! The one place the error taxonomy becomes gRPC status codes.

use crate::error::Error;

impl From<Error> for tonic::Status {
    fn from(e: Error) -> Self {
        match e {
            Error::InvalidArgument(msg) => tonic::Status::invalid_argument(msg),
            Error::Lifecycle(msg) => tonic::Status::failed_precondition(msg),
            Error::NotFound(msg) => tonic::Status::not_found(msg),
            Error::Lagging(msg) | Error::TooLarge(msg) => tonic::Status::resource_exhausted(msg),
            Error::Unauthenticated(msg) => tonic::Status::unauthenticated(msg),
            Error::PermissionDenied(msg) => tonic::Status::permission_denied(msg),
            Error::Unavailable(msg) => tonic::Status::unavailable(msg),
            Error::Aborted(msg) => tonic::Status::aborted(msg),
            Error::DataLoss(msg) => {
                tracing::error!(%msg, "stored data unreadable");
                tonic::Status::data_loss(msg)
            }
            Error::Unimplemented(msg) => tonic::Status::unimplemented(msg),
            Error::Internal(detail) => {
                tracing::error!(%detail, "internal error");
                tonic::Status::internal("internal error")
            }
        }
    }
}

/// Enforces the configured message size on a decoded request: over it is `RESOURCE_EXHAUSTED`
/// (tonic's own decoding limit, set higher as a memory guard, would say `OUT_OF_RANGE`).
pub fn check_size(message: &impl prost::Message, max: usize) -> Result<(), Error> {
    let len = message.encoded_len();
    if len > max {
        return Err(Error::TooLarge(format!(
            "request is {len} bytes, the limit is {max} bytes"
        )));
    }
    Ok(())
}

/// Rewrites the statuses tonic itself answers before a handler runs, so they follow the API: a
/// request over the message size limit (tonic says `OUT_OF_RANGE`; no handler does, so every
/// such status is that check) is `RESOURCE_EXHAUSTED`, and a message frame with an invalid
/// compression flag (tonic says `INTERNAL`) is `INVALID_ARGUMENT`.
pub fn transport_status<B>(mut response: http::Response<B>) -> http::Response<B> {
    use http::HeaderValue;
    let headers = response.headers_mut();
    let code = headers.get("grpc-status").map(HeaderValue::as_bytes);
    let message = headers
        .get("grpc-message")
        .map_or(&b""[..], HeaderValue::as_bytes);
    let rewrite = match code {
        Some(b"11") => Some("8"),
        Some(b"13")
            if message.starts_with(
                b"protocol%20error:%20received%20message%20with%20invalid%20compression",
            ) =>
        {
            Some("3")
        }
        _ => None,
    };
    if let Some(code) = rewrite {
        headers.insert("grpc-status", HeaderValue::from_static(code));
    }
    response
}

/// The canonical name of a gRPC status code.
pub fn code_name(code: tonic::Code) -> &'static str {
    match code {
        tonic::Code::Ok => "OK",
        tonic::Code::Cancelled => "CANCELLED",
        tonic::Code::Unknown => "UNKNOWN",
        tonic::Code::InvalidArgument => "INVALID_ARGUMENT",
        tonic::Code::DeadlineExceeded => "DEADLINE_EXCEEDED",
        tonic::Code::NotFound => "NOT_FOUND",
        tonic::Code::AlreadyExists => "ALREADY_EXISTS",
        tonic::Code::PermissionDenied => "PERMISSION_DENIED",
        tonic::Code::ResourceExhausted => "RESOURCE_EXHAUSTED",
        tonic::Code::FailedPrecondition => "FAILED_PRECONDITION",
        tonic::Code::Aborted => "ABORTED",
        tonic::Code::OutOfRange => "OUT_OF_RANGE",
        tonic::Code::Unimplemented => "UNIMPLEMENTED",
        tonic::Code::Internal => "INTERNAL",
        tonic::Code::Unavailable => "UNAVAILABLE",
        tonic::Code::DataLoss => "DATA_LOSS",
        tonic::Code::Unauthenticated => "UNAUTHENTICATED",
    }
}
