//! Reading tool arguments and meta without ever failing: typed accessors over a JSON value.
//!
//! Vocabulary 1 presenters validate softly with [`Strict`] (a wrong type declines); vocabulary 2
//! presenters read with [`Lenient`] (a wrong type, or an empty string, counts as absent).

use serde_json::{Map, Value};

/// A presenter declined: the resolution order decides the card instead.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Decline;

/// What a presenter returns.
pub type Presented<T> = Result<T, Decline>;

/// Step 1 of the resolution order: `""` is `{}`, text that is not JSON is kept as a string.
pub fn parse_arguments(text: &str) -> Value {
    if text.is_empty() {
        return Value::Object(Map::new());
    }
    serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.to_owned()))
}

/// Parses presentation meta: empty text is no meta. Invalid JSON is rejected at the API edge;
/// here it degrades to no meta.
pub fn parse_meta(text: &str) -> Option<Value> {
    if text.trim().is_empty() {
        return None;
    }
    serde_json::from_str(text).ok()
}

/// An integer in `[min, u32::MAX]`; anything else (floats, strings, out of range) is `None`.
pub fn as_u32_from(v: &Value, min: u32) -> Option<u32> {
    v.as_u64()
        .and_then(|n| u32::try_from(n).ok())
        .filter(|&n| n >= min)
}

/// A 1-based number: an integer in `[1, u32::MAX]`.
pub fn as_line(v: &Value) -> Option<u32> {
    as_u32_from(v, 1)
}

/// Schema-checked access for vocabulary 1: required fields must be present with the right
/// type, optional ones may be absent or `null`; anything else declines.
pub struct Strict<'a>(&'a Map<String, Value>);

impl<'a> Strict<'a> {
    /// The arguments must be an object.
    pub fn of(args: &'a Value) -> Presented<Self> {
        args.as_object().map(Strict).ok_or(Decline)
    }

    fn opt(&self, key: &str) -> Option<&'a Value> {
        self.0.get(key).filter(|v| !v.is_null())
    }

    pub fn req_str(&self, key: &str) -> Presented<&'a str> {
        self.opt(key).and_then(Value::as_str).ok_or(Decline)
    }

    pub fn opt_str(&self, key: &str) -> Presented<Option<&'a str>> {
        self.opt(key).map(|v| v.as_str().ok_or(Decline)).transpose()
    }

    pub fn opt_bool(&self, key: &str) -> Presented<Option<bool>> {
        self.opt(key)
            .map(|v| v.as_bool().ok_or(Decline))
            .transpose()
    }

    /// An optional integer in `[1, u32::MAX]`.
    pub fn opt_line(&self, key: &str) -> Presented<Option<u32>> {
        self.opt(key).map(|v| as_line(v).ok_or(Decline)).transpose()
    }

    pub fn req_array(&self, key: &str) -> Presented<&'a Vec<Value>> {
        self.opt(key).and_then(Value::as_array).ok_or(Decline)
    }

    /// A required array whose items are all strings.
    pub fn req_strings(&self, key: &str) -> Presented<Vec<&'a str>> {
        self.req_array(key)?
            .iter()
            .map(|v| v.as_str().ok_or(Decline))
            .collect()
    }
}

/// Forgiving access for vocabulary 2: a missing field, a field of the wrong type and (for
/// [`Lenient::str`]) an empty string all read as absent. Non-object arguments have no fields.
pub struct Lenient<'a>(Option<&'a Map<String, Value>>);

impl<'a> Lenient<'a> {
    pub fn of(args: &'a Value) -> Self {
        Lenient(args.as_object())
    }

    pub fn get(&self, key: &str) -> Option<&'a Value> {
        self.0.and_then(|m| m.get(key))
    }

    /// A non-empty string.
    pub fn str(&self, key: &str) -> Option<&'a str> {
        self.text(key).filter(|s| !s.is_empty())
    }

    /// Any string, `""` included (for fields where the empty string is a value).
    pub fn text(&self, key: &str) -> Option<&'a str> {
        self.get(key).and_then(Value::as_str)
    }

    /// True only for JSON `true`.
    pub fn flag(&self, key: &str) -> bool {
        self.get(key).and_then(Value::as_bool) == Some(true)
    }

    /// Any JSON integer.
    pub fn int(&self, key: &str) -> Option<i64> {
        self.get(key).and_then(Value::as_i64)
    }

    /// An integer in `[1, u32::MAX]`.
    pub fn line(&self, key: &str) -> Option<u32> {
        self.get(key).and_then(as_line)
    }

    pub fn array(&self, key: &str) -> Option<&'a Vec<Value>> {
        self.get(key).and_then(Value::as_array)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn arguments_text_never_fails() {
        assert_eq!(parse_arguments(""), json!({}));
        assert_eq!(parse_arguments("{\"a\":1}"), json!({"a":1}));
        assert_eq!(parse_arguments("not json"), json!("not json"));
        assert_eq!(parse_arguments("[1,"), json!("[1,"));
    }

    #[test]
    fn numbers_are_checked_for_range() {
        assert_eq!(as_line(&json!(1)), Some(1));
        assert_eq!(as_line(&json!(0)), None);
        assert_eq!(as_line(&json!(4294967295u64)), Some(u32::MAX));
        assert_eq!(as_line(&json!(4294967296u64)), None);
        assert_eq!(as_line(&json!(2.0)), None);
        assert_eq!(as_line(&json!(-1)), None);
        assert_eq!(as_line(&json!("3")), None);
    }

    #[test]
    fn strict_null_is_absent_wrong_type_declines() {
        let v = json!({"a": null, "b": 3, "c": "x"});
        let s = Strict::of(&v).unwrap();
        assert_eq!(s.opt_str("a"), Ok(None));
        assert_eq!(s.opt_str("b"), Err(Decline));
        assert_eq!(s.req_str("c"), Ok("x"));
        assert_eq!(s.req_str("a"), Err(Decline));
        assert!(Strict::of(&json!("text")).is_err());
    }
}
