//! The closed error taxonomy of the service, and the one table that gives each kind of error its
//! gRPC status code and its HTTP status ([`Error::code`], [`Error::http_status`]): `grpc::status`
//! builds a `tonic::Status` from it, the HTTP edge its refusals.

use std::fmt::Display;

use crate::domain::{FieldViolation, Violation};

pub use tonic::Code;

/// Everything an RPC can fail with.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// The request breaks the API contract; the message names the field.
    #[error("invalid argument: {0}")]
    InvalidArgument(Message),
    /// A call lifecycle rule is broken (second start, output after finish, second finish).
    #[error("lifecycle violation: {0}")]
    Lifecycle(Message),
    /// The named thing does not exist (a session without a log).
    #[error("not found: {0}")]
    NotFound(Message),
    /// A subscriber fell too far behind; it resumes from its last cursor.
    #[error("lagging: {0}")]
    Lagging(Message),
    /// A message over the size limit.
    #[error("too large: {0}")]
    TooLarge(Message),
    /// A body of a media type the endpoint does not take (HTTP only: a type a web page could
    /// send to any origin without a CORS preflight, or none).
    #[error("unsupported media type: {0}")]
    UnsupportedMediaType(Message),
    /// Writers to one session kept colliding (replicas over a shared store): retry.
    #[error("aborted: {0}")]
    Aborted(Message),
    /// Shutting down, or the store cannot be used.
    #[error("unavailable: {0}")]
    Unavailable(Message),
    /// Stored data that cannot be read back (a failed checksum, an unreadable record): the
    /// session's log is damaged; other sessions are not affected.
    #[error("data loss: {0}")]
    DataLoss(Message),
    /// No valid credentials: no token, or one that is malformed, expired, wrongly signed or for
    /// another audience.
    #[error("unauthenticated: {0}")]
    Unauthenticated(Message),
    /// Valid credentials that do not cover the request. The answer is the same whether the
    /// session exists or not.
    #[error("permission denied: {0}")]
    PermissionDenied(Message),
    /// A bug; the detail is logged, not sent.
    #[error("internal: {0}")]
    Internal(Message),
}

impl Error {
    /// An invalid field of a request: the field's path and the problem kept apart.
    pub fn invalid(e: impl Violation) -> Self {
        Error::InvalidArgument(Message::about(e))
    }

    /// An invalid request that no one field is to blame for (a body that is not JSON at all).
    pub fn bad_request(problem: impl Display) -> Self {
        Error::InvalidArgument(problem.to_string().into())
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

    /// The request field a refusal is about, and what is wrong with it, when it is about one:
    /// kept apart as data from where the refusal was made ([`Message::about`]), so the edges
    /// send it apart (a `google.rpc.BadRequest` field violation, an HTTP refusal's `field`) and
    /// clients need not read it from the text.
    pub fn field(&self) -> Option<(&str, &str)> {
        self.message().field()
    }

    /// What a client is told: the message, except an internal error's detail (logged, not sent).
    pub fn public_message(&self) -> &str {
        match self {
            Error::Internal(_) => "internal error",
            _ => self.message().text(),
        }
    }

    fn message(&self) -> &Message {
        match self {
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
            | Error::PermissionDenied(m)
            | Error::Internal(m) => m,
        }
    }
}

/// An error's text, and the request field it is about when there is one: `field: problem`,
/// with where the field ends kept as data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    text: String,
    /// The length of the text's field prefix, when it names one.
    field_len: Option<usize>,
}

impl Message {
    /// The message of a refused field: `field: problem`.
    pub fn about(v: impl Violation) -> Self {
        let FieldViolation { field, problem } = v.violation();
        Message {
            field_len: Some(field.len()),
            text: format!("{field}: {problem}"),
        }
    }

    /// The whole text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The field and the problem, when the message is about a field.
    pub fn field(&self) -> Option<(&str, &str)> {
        let n = self.field_len?;
        Some((&self.text[..n], &self.text[n + 2..]))
    }
}

impl From<String> for Message {
    fn from(text: String) -> Self {
        Message {
            text,
            field_len: None,
        }
    }
}

impl From<&str> for Message {
    fn from(text: &str) -> Self {
        text.to_owned().into()
    }
}

impl Display for Message {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_field_is_kept_as_data_not_read_back_from_the_text() {
        let e = Error::invalid(FieldViolation::new(
            "events[0].event_id",
            "must not be empty",
        ));
        assert_eq!(e.field(), Some(("events[0].event_id", "must not be empty")));
        assert_eq!(e.public_message(), "events[0].event_id: must not be empty");
        // A problem may itself hold `: `; the field still ends where it was made to.
        let e = Error::invalid(FieldViolation::new(
            "option_id",
            "request p: no option \"x\"",
        ));
        assert_eq!(e.field(), Some(("option_id", "request p: no option \"x\"")));
        // A text shaped like `word: …` that no field was named for has none.
        assert_eq!(Error::bad_request("json: expected value").field(), None);
        assert_eq!(Error::NotFound("session: s".into()).field(), None);
    }

    #[test]
    fn a_nested_options_error_names_the_options_field() {
        use crate::domain::permission::OptionsError;
        let e = Error::invalid(
            OptionsError::Count(1)
                .violation()
                .under("permission_requested"),
        );
        assert_eq!(
            e.field(),
            Some((
                "permission_requested.options",
                "must have 2 to 16 options, got 1"
            ))
        );
    }
}
