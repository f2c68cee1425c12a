//! A tool's arguments checked against the tool's own input schema (`tools.rs`): an unknown
//! property, a wrong type or a value out of range is a tool error naming the property, never a
//! default quietly taken.

use std::ops::RangeInclusive;

use serde_json::{Map, Value};

use super::page::After;

/// One call's arguments.
pub(super) struct Args<'a> {
    map: &'a Map<String, Value>,
}

impl<'a> Args<'a> {
    /// The arguments, if every property is one the tool's schema names.
    pub(super) fn new(map: &'a Map<String, Value>, known: &[&str]) -> Result<Self, String> {
        match map.keys().find(|k| !known.contains(&k.as_str())) {
            Some(unknown) => Err(format!(
                "{unknown}: not an argument of this tool (it takes {})",
                known.join(", ")
            )),
            None => Ok(Args { map }),
        }
    }

    /// A required non-empty string.
    pub(super) fn required(&self, name: &str) -> Result<&'a str, String> {
        self.string(name)?
            .filter(|s| !s.is_empty())
            .ok_or_else(|| format!("{name}: a non-empty string is required"))
    }

    /// An optional string.
    pub(super) fn string(&self, name: &str) -> Result<Option<&'a str>, String> {
        match self.map.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(other) => Err(format!("{name}: a string, not {}", kind(other))),
        }
    }

    /// An optional integer within `range`.
    pub(super) fn integer(
        &self,
        name: &str,
        range: RangeInclusive<u64>,
    ) -> Result<Option<u64>, String> {
        match self.map.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => match v.as_u64() {
                Some(n) if range.contains(&n) => Ok(Some(n)),
                _ => Err(format!(
                    "{name}: an integer from {} to {}, not {v}",
                    range.start(),
                    range.end()
                )),
            },
        }
    }

    /// `poll_session`'s optional `after`: `{epoch, offset}`, both required, the offset an
    /// integer or its decimal text — an update's own cursor carries it as text (the protobuf JSON
    /// of a `uint64`), the page's as a number; both mean the same place.
    pub(super) fn after(&self) -> Result<Option<After>, String> {
        let after = match self.map.get("after") {
            None | Some(Value::Null) => return Ok(None),
            Some(Value::Object(after)) => after,
            Some(other) => {
                return Err(format!(
                    "after: a cursor {{epoch, offset}}, not {}",
                    kind(other)
                ));
            }
        };
        let inner = Args::new(after, &["epoch", "offset"]).map_err(|e| format!("after.{e}"))?;
        let epoch = inner.required("epoch").map_err(|e| format!("after.{e}"))?;
        let offset = match after.get("offset") {
            Some(Value::String(text))
                if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) =>
            {
                text.parse::<u64>().ok()
            }
            Some(v) => v.as_u64(),
            None => None,
        };
        let offset = offset
            .ok_or("after.offset: an integer of 0 or more (or its decimal text) is required")?;
        Ok(Some(After {
            epoch: epoch.to_owned(),
            offset,
        }))
    }
}

/// What a JSON value is, for a refusal.
fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn args(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn each_bad_argument_is_named() {
        let known = ["session", "after", "waitMs"];
        let refused = |v: Value, check: &dyn Fn(&Args) -> Result<(), String>| {
            let map = args(v);
            Args::new(&map, &known).and_then(|a| check(&a)).unwrap_err()
        };
        let wait = |a: &Args| a.integer("waitMs", 0..=20_000).map(drop);
        let after = |a: &Args| a.after().map(drop);
        assert!(refused(json!({"extra": 1}), &|_| Ok(())).starts_with("extra: not an argument"));
        assert!(refused(json!({"waitMs": -1}), &wait).starts_with("waitMs: an integer from 0"));
        assert!(refused(json!({"waitMs": "soon"}), &wait).starts_with("waitMs:"));
        assert!(refused(json!({"waitMs": 20_001}), &wait).starts_with("waitMs:"));
        assert!(refused(json!({"after": "x"}), &after).starts_with("after: a cursor"));
        assert!(refused(json!({"after": {"offset": 3}}), &after).starts_with("after.epoch:"));
        assert!(refused(json!({"after": {"epoch": "e"}}), &after).starts_with("after.offset:"));
        assert!(
            refused(json!({"after": {"epoch": "e", "offset": "-1"}}), &after)
                .starts_with("after.offset:")
        );
        assert!(
            refused(
                json!({"after": {"epoch": "e", "offset": 1, "x": 0}}),
                &after
            )
            .starts_with("after.x:")
        );
        let map = args(json!({"pageSize": 0}));
        let page = Args::new(&map, &["pageSize"]).unwrap();
        assert!(
            page.integer("pageSize", 1..=200)
                .unwrap_err()
                .starts_with("pageSize:")
        );
    }

    #[test]
    fn an_updates_own_cursor_is_the_pages() {
        let text = args(json!({"after": {"epoch": "e", "offset": "21"}}));
        let number = args(json!({"after": {"epoch": "e", "offset": 21}}));
        let read = |m: &Map<String, Value>| Args::new(m, &["after"]).unwrap().after().unwrap();
        assert_eq!(read(&text), read(&number));
        assert_eq!(read(&number).unwrap().offset, 21);
    }
}
