//! The one place the error taxonomy becomes gRPC status codes.

use crate::error::Error;

impl From<Error> for tonic::Status {
    fn from(e: Error) -> Self {
        match e {
            Error::InvalidArgument(msg) => tonic::Status::invalid_argument(msg),
            Error::Lifecycle(msg) => tonic::Status::failed_precondition(msg),
            Error::NotFound(msg) => tonic::Status::not_found(msg),
            Error::Lagging(msg) | Error::TooLarge(msg) => tonic::Status::resource_exhausted(msg),
            Error::Unavailable(msg) => tonic::Status::unavailable(msg),
            Error::DataLoss(msg) => {
                tracing::error!(%msg, "stored data unreadable");
                tonic::Status::data_loss(msg)
            }
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
