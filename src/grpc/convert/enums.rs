//! What an enum field from the wire can be wrong with, shared by every conversion.

/// A proto enum field that is unset where required, or holds a number the schema does not know.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum EnumError {
    /// Left at its `_UNSPECIFIED` zero.
    #[error("not set")]
    Unset,
    /// A number that is not one of the enum's values.
    #[error("unknown value {0}")]
    Unknown(i32),
}
