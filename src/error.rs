//! The closed error taxonomy of the service, and the one table that gives each kind of error its
//! gRPC status code and its HTTP status ([`Error::code`], [`Error::http_status`]): `grpc::status`
//! builds a `tonic::Status` from it, the HTTP edge its refusals.

use std::fmt::Display;

pub use tonic::Code;

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
    /// A body of a media type the endpoint does not take (HTTP only: a type a web page could
    /// send to any origin without a CORS preflight, or none).
    #[error("unsupported media type: {0}")]
    UnsupportedMediaType(String),
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
}

impl Error {
    /// An invalid request; `e`'s `Display` is the field path and the problem.
    pub fn invalid(e: impl Display) -> Self {
        Error::InvalidArgument(e.to_string())
    }

    /// The one table: each kind of error's gRPC status code and HTTP status. The HTTP status
    /// follows the code as grpc-gateway maps it, except where HTTP has a word of its own for the
    /// case: a body over the size limit is `413`, a body of a type not taken `415`, a lifecycle
    /// violation `409` (it conflicts with what the session holds).
    fn classify(&self) -> (Code, u16) {
        match self {
            Error::InvalidArgument(_) => (Code::InvalidArgument, 400),
            Error::Lifecycle(_) => (Code::FailedPrecondition, 409),
            Error::NotFound(_) => (Code::NotFound, 404),
            Error::Lagging(_) => (Code::ResourceExhausted, 429),
            Error::TooLarge(_) => (Code::ResourceExhausted, 413),
            Error::UnsupportedMediaType(_) => (Code::InvalidArgument, 415),
            Error::Aborted(_) => (Code::Aborted, 409),
            Error::Unavailable(_) => (Code::Unavailable, 503),
            Error::DataLoss(_) => (Code::DataLoss, 500),
            Error::Unauthenticated(_) => (Code::Unauthenticated, 401),
            Error::PermissionDenied(_) => (Code::PermissionDenied, 403),
            Error::Internal(_) => (Code::Internal, 500),
        }
    }

    /// The gRPC status code.
    pub fn code(&self) -> Code {
        self.classify().0
    }

    /// The HTTP status of the same refusal.
    pub fn http_status(&self) -> u16 {
        self.classify().1
    }

    /// The request field a refusal is about, and what is wrong with it: every refusal built
    /// from a field starts its message with the field's path (`events[2].call_output.call_id:
    /// …`; `grpc::convert`'s errors compose their `Display`s so, and `Error::invalid` callers
    /// write `"{field}: {problem}"`). The edge sends it apart as a `google.rpc.BadRequest`
    /// field violation, so clients need not read it from the text. `None` for a message that
    /// does not start with a path (`the body is not a chat request: …`).
    pub fn field(&self) -> Option<(&str, &str)> {
        let message = self.public_message();
        let (path, problem) = message.split_once(": ")?;
        let is_path = !path.is_empty()
            && path
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '[' | ']' | '-'));
        is_path.then_some((path, problem))
    }

    /// What a client is told: the message, except an internal error's detail (logged, not sent).
    pub fn public_message(&self) -> &str {
        match self {
            Error::Internal(_) => "internal error",
            Error::InvalidArgument(m)
            | Error::Lifecycle(m)
            | Error::NotFound(m)
            | Error::Lagging(m)
            | Error::TooLarge(m)
            | Error::UnsupportedMediaType(m)
            | Error::Aborted(m)
            | Error::Unavailable(m)
            | Error::DataLoss(m)
            | Error::Unauthenticated(m)
            | Error::PermissionDenied(m) => m,
        }
    }
}

/// The canonical name of a gRPC status code (`INVALID_ARGUMENT`): what HTTP refusals and AG-UI
/// errors carry as `code`.
pub fn code_name(code: Code) -> &'static str {
    match code {
        Code::Ok => "OK",
        Code::Cancelled => "CANCELLED",
        Code::Unknown => "UNKNOWN",
        Code::InvalidArgument => "INVALID_ARGUMENT",
        Code::DeadlineExceeded => "DEADLINE_EXCEEDED",
        Code::NotFound => "NOT_FOUND",
        Code::AlreadyExists => "ALREADY_EXISTS",
        Code::PermissionDenied => "PERMISSION_DENIED",
        Code::ResourceExhausted => "RESOURCE_EXHAUSTED",
        Code::FailedPrecondition => "FAILED_PRECONDITION",
        Code::Aborted => "ABORTED",
        Code::OutOfRange => "OUT_OF_RANGE",
        Code::Unimplemented => "UNIMPLEMENTED",
        Code::Internal => "INTERNAL",
        Code::Unavailable => "UNAVAILABLE",
        Code::DataLoss => "DATA_LOSS",
        Code::Unauthenticated => "UNAUTHENTICATED",
    }
}
