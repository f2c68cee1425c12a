//! The closed error taxonomy of the service. Each variant maps to exactly one gRPC status code,
//! in `grpc::status` (the only place that knows about codes).

use std::fmt::Display;

/// Everything an RPC can fail with.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// The request breaks the API contract; the message names the field.
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
    /// A call lifecycle rule is broken (second start, output after finish, second finish).
    #[error("lifecycle violation: {0}")]
    Lifecycle(String),
    /// The named thing does not exist (a session without a log).
    #[error("not found: {0}")]
    NotFound(String),
    /// A subscriber fell too far behind; it resumes from its last cursor.
    #[error("lagging: {0}")]
    Lagging(String),
    /// A message over the size limit.
    #[error("too large: {0}")]
    TooLarge(String),
    /// Writers to one session kept colliding (replicas over a shared store): retry.
    #[error("aborted: {0}")]
    Aborted(String),
    /// Shutting down, or the store cannot be used.
    #[error("unavailable: {0}")]
    Unavailable(String),
    /// Stored data that cannot be read back (a failed checksum, an unreadable record): the
    /// session's log is damaged; other sessions are not affected.
    #[error("data loss: {0}")]
    DataLoss(String),
    /// No valid credentials: no token, or one that is malformed, expired, wrongly signed or for
    /// another audience.
    #[error("unauthenticated: {0}")]
    Unauthenticated(String),
    /// Valid credentials that do not cover the request. The answer is the same whether the
    /// session exists or not.
    #[error("permission denied: {0}")]
    PermissionDenied(String),
    /// A bug; the detail is logged, not sent.
    #[error("internal: {0}")]
    Internal(String),
    /// The server cannot do this in its configuration (listing sessions on a shared store).
    #[error("unimplemented: {0}")]
    Unimplemented(String),
}

impl Error {
    /// An invalid request; `e`'s `Display` is the field path and the problem.
    pub fn invalid(e: impl Display) -> Self {
        Error::InvalidArgument(e.to_string())
    }
}
