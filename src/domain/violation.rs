//! A refusal of one field of a request, as data: the field's path and what is wrong with it.
//!
//! Errors about a request's fields implement [`Violation`]; a nested message's error puts its
//! own field name in front with [`FieldViolation::under`], so the path is built as the error
//! passes up, never parsed back out of a message. The edges send the pair apart (a gRPC
//! `google.rpc.BadRequest` field violation, an HTTP refusal's `field`) and as the message text
//! `field: problem`.

use std::fmt::{self, Display};

/// What is wrong with one field of a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldViolation {
    /// The field's path from the request's top, e.g. `events[2].call_output.call_id`.
    pub field: String,
    /// The rule it breaks, e.g. `must not be empty`.
    pub problem: String,
}

impl FieldViolation {
    /// The violation of `field`.
    pub fn new(field: impl Into<String>, problem: impl Display) -> Self {
        FieldViolation {
            field: field.into(),
            problem: problem.to_string(),
        }
    }

    /// The same violation seen from the message one level up, whose field `prefix` holds this
    /// one: `prefix.field` (`prefix` alone for a violation of the whole nested message).
    pub fn under(mut self, prefix: impl Display) -> Self {
        self.field = if self.field.is_empty() {
            prefix.to_string()
        } else {
            format!("{prefix}.{}", self.field)
        };
        self
    }
}

impl Display for FieldViolation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.problem)
    }
}

/// An error about one field of a request.
pub trait Violation {
    /// The field and what is wrong with it.
    fn violation(&self) -> FieldViolation;
}

impl Violation for FieldViolation {
    fn violation(&self) -> FieldViolation {
        self.clone()
    }
}

/// `Display` (`field: problem`) and `std::error::Error` for types that implement [`Violation`]:
/// their text is their violation's, so the two cannot disagree.
macro_rules! violation_error {
    ($($t:ty),+ $(,)?) => {$(
        impl std::fmt::Display for $t {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                std::fmt::Display::fmt(&$crate::domain::Violation::violation(self), f)
            }
        }
        impl std::error::Error for $t {}
    )+};
}
pub(crate) use violation_error;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_is_built_as_the_error_passes_up() {
        let v = FieldViolation::new("call_id", "must not be empty")
            .under("call_output")
            .under("events[2]");
        assert_eq!(v.field, "events[2].call_output.call_id");
        assert_eq!(
            v.to_string(),
            "events[2].call_output.call_id: must not be empty"
        );
        assert_eq!(
            FieldViolation::new("", "x").under("events[0]").field,
            "events[0]"
        );
    }
}
