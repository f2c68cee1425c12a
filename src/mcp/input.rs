//! Each tool's input as one type: its JSON Schema (schemars) and its parsing (serde) come from
//! the same definition. A bad argument is a tool error naming it (`pageSize: …`, the path from
//! `serde_path_to_error`), as MCP asks of input validation — the model reads it and corrects the
//! call — where rmcp's `Parameters<T>` would answer a protocol error naming nothing.

use std::sync::Arc;

use schemars::generate::SchemaSettings;
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::Deserialize;
use serde::de::{self, DeserializeOwned, Deserializer, Visitor};
use serde_json::{Map, Value};

use crate::domain::{Cursor, Epoch};

/// The longest `poll_session` waits at the head (`waitMs`): well under the tool-call timeouts of
/// hosts.
pub const MAX_WAIT_MS: u64 = 20_000;
/// Sessions per `list_sessions` page at most.
pub const MAX_PAGE_SIZE: u32 = 200;

/// What an input's schema says beyond its types: ranges and non-empty ids.
pub trait Check {
    /// `Err` names the argument and says what it must be.
    fn check(&self) -> Result<(), String>;
}

/// `list_sessions`' input.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ListSessions {
    /// Sessions per page (50 without it).
    #[schemars(range(min = 1, max = MAX_PAGE_SIZE))]
    pub page_size: Option<u32>,
    /// A previous page's nextPageToken.
    pub page_token: Option<String>,
}

/// `watch_session`'s input.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WatchSession {
    /// The session id (`team-a/run-42`).
    #[schemars(length(min = 1))]
    pub session: String,
}

/// `poll_session`'s input.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct PollSession {
    /// The session id (`team-a/run-42`).
    pub session: String,
    /// The cursor of the last update the view has: the page's `cursor`, or an update's own (its
    /// offset as text).
    pub after: Option<After>,
    /// How long to wait at the head for the next update, in milliseconds.
    #[schemars(range(min = 0, max = MAX_WAIT_MS))]
    pub wait_ms: Option<u64>,
}

/// A cursor as the view sends it back.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct After {
    /// The log's epoch.
    pub epoch: String,
    /// The offset: an update's own cursor carries it as text (the protobuf JSON of a `uint64`),
    /// the page's as a number; both mean the same place.
    pub offset: Offset,
}

/// `answer_permission`'s input.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct AnswerPermission {
    /// The session id.
    pub session: String,
    /// The permission request.
    pub request_id: String,
    /// The option the person chose.
    pub option_id: String,
}

fn within<T: PartialOrd + std::fmt::Display>(
    name: &str,
    n: Option<T>,
    min: T,
    max: T,
) -> Result<(), String> {
    match n {
        Some(n) if n < min || n > max => {
            Err(format!("{name}: an integer from {min} to {max}, not {n}"))
        }
        _ => Ok(()),
    }
}

fn named(name: &str, text: &str) -> Result<(), String> {
    match text.is_empty() {
        true => Err(format!("{name}: a non-empty string is required")),
        false => Ok(()),
    }
}

impl Check for ListSessions {
    fn check(&self) -> Result<(), String> {
        within("pageSize", self.page_size, 1, MAX_PAGE_SIZE)
    }
}

impl Check for WatchSession {
    fn check(&self) -> Result<(), String> {
        named("session", &self.session)
    }
}

impl Check for PollSession {
    fn check(&self) -> Result<(), String> {
        named("session", &self.session)?;
        if let Some(after) = &self.after {
            named("after.epoch", &after.epoch)?;
        }
        within("waitMs", self.wait_ms, 0, MAX_WAIT_MS)
    }
}

impl Check for AnswerPermission {
    fn check(&self) -> Result<(), String> {
        named("session", &self.session)?;
        named("requestId", &self.request_id)?;
        named("optionId", &self.option_id)
    }
}

/// An offset given as a number or as its decimal text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Offset(pub u64);

impl<'de> Deserialize<'de> for Offset {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Either;
        impl Visitor<'_> for Either {
            type Value = Offset;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an integer of 0 or more, or its decimal text")
            }
            fn visit_u64<E: de::Error>(self, n: u64) -> Result<Offset, E> {
                Ok(Offset(n))
            }
            fn visit_str<E: de::Error>(self, text: &str) -> Result<Offset, E> {
                match text.bytes().all(|b| b.is_ascii_digit()) {
                    true => text
                        .parse()
                        .map(Offset)
                        .map_err(|_| E::custom("not an offset")),
                    false => Err(E::invalid_value(de::Unexpected::Str(text), &self)),
                }
            }
        }
        d.deserialize_any(Either)
    }
}

impl JsonSchema for Offset {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Offset".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({"anyOf": [
            {"type": "integer", "minimum": 0},
            {"type": "string", "pattern": "^[0-9]+$"},
        ]})
    }
}

impl After {
    /// The cursor it names.
    pub fn cursor(&self) -> Result<Cursor, String> {
        let epoch = Epoch::new(self.epoch.as_str()).map_err(|e| format!("after.epoch: {e}"))?;
        Ok(Cursor {
            offset: self.offset.0,
            epoch,
        })
    }
}

/// A tool's arguments as its input type; the error names the argument (`after.offset: …`) and
/// says what was wrong with it.
pub fn parse<T: DeserializeOwned + Check>(arguments: Map<String, Value>) -> Result<T, String> {
    let input: T = serde_path_to_error::deserialize(Value::Object(arguments)).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        match path.as_str() {
            "." => inner.to_string(),
            path => format!("{path}: {inner}"),
        }
    })?;
    input.check()?;
    Ok(input)
}

/// A tool's input schema, from its input type: inlined, without the generator's `$schema` and
/// `title`, and an optional property typed as its value alone (absent means none; a `type`
/// array with `"null"` is legal but less portable, as MCP Inspector's `--strict` says).
pub fn schema<T: JsonSchema>() -> Arc<Map<String, Value>> {
    let mut settings = SchemaSettings::draft2020_12();
    settings.inline_subschemas = true;
    let schema = settings.into_generator().into_root_schema_for::<T>();
    let mut object = match schema.to_value() {
        Value::Object(object) => object,
        _ => Map::new(),
    };
    for key in ["$schema", "title", "description"] {
        object.remove(key);
    }
    let mut value = Value::Object(object);
    without_null(&mut value);
    match value {
        Value::Object(object) => Arc::new(object),
        _ => Arc::default(),
    }
}

/// Takes `"null"` out of every `type` array and `anyOf` (one type left: that type alone).
fn without_null(value: &mut Value) {
    match value {
        Value::Object(object) => {
            if let Some(Value::Array(types)) = object.get_mut("type") {
                types.retain(|t| t != "null");
                if let [only] = types.as_slice() {
                    let only = only.clone();
                    object.insert("type".into(), only);
                }
            }
            if let Some(Value::Array(branches)) = object.get_mut("anyOf") {
                branches.retain(|b| b.get("type").is_none_or(|t| t != "null"));
                if let [only] = branches.as_slice() {
                    let only = only.clone();
                    object.remove("anyOf");
                    if let Value::Object(only) = only {
                        object.extend(only);
                    }
                }
            }
            object.values_mut().for_each(without_null);
        }
        Value::Array(items) => items.iter_mut().for_each(without_null),
        _ => {}
    }
}

#[cfg(test)]
#[path = "input_tests.rs"]
mod tests;
