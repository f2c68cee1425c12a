//! The one place the error taxonomy becomes gRPC status codes.

use crate::error::Error;

impl From<Error> for tonic::Status {
    fn from(e: Error) -> Self {
        match e {
            Error::InvalidArgument(msg) => tonic::Status::invalid_argument(msg),
            Error::Lifecycle(msg) => tonic::Status::failed_precondition(msg),
            Error::NotFound(msg) => tonic::Status::not_found(msg),
            Error::Lagging(msg) => tonic::Status::resource_exhausted(msg),
            Error::Unavailable(msg) => tonic::Status::unavailable(msg),
            Error::Internal(detail) => {
                tracing::error!(%detail, "internal error");
                tonic::Status::internal("internal error")
            }
        }
    }
}
