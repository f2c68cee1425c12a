//! `google.protobuf.Value` ↔ `serde_json::Value`.
//!
//! protobuf carries every number as a double: an integral double within ±2^53 comes back as a
//! JSON integer, any other finite double as a float, and NaN/±∞ (which JSON cannot hold) as
//! `null`. Integers beyond 2^53 lose precision on the wire; that is the protobuf type's limit.

use prost_types::{ListValue, Struct, value::Kind};
use serde_json::{Map, Number, Value};

/// The largest integer a double holds exactly.
const SAFE_INT: f64 = 9_007_199_254_740_992.0;

/// A protobuf `Value` as JSON: integral numbers within ±2^53 become integers.
pub fn json_from_pb(v: prost_types::Value) -> Value {
    match v.kind {
        None | Some(Kind::NullValue(_)) => Value::Null,
        Some(Kind::BoolValue(b)) => Value::Bool(b),
        Some(Kind::StringValue(s)) => Value::String(s),
        Some(Kind::NumberValue(n)) => number(n),
        Some(Kind::StructValue(s)) => Value::Object(
            s.fields
                .into_iter()
                .map(|(k, v)| (k, json_from_pb(v)))
                .collect::<Map<_, _>>(),
        ),
        Some(Kind::ListValue(l)) => Value::Array(l.values.into_iter().map(json_from_pb).collect()),
    }
}

fn number(n: f64) -> Value {
    if n.is_finite() && n.fract() == 0.0 && n.abs() <= SAFE_INT {
        Value::Number(Number::from(n as i64))
    } else {
        Number::from_f64(n).map_or(Value::Null, Value::Number)
    }
}

/// JSON as a protobuf `Value` (numbers become doubles).
pub fn pb_from_json(v: &Value) -> prost_types::Value {
    let kind = match v {
        Value::Null => Kind::NullValue(0),
        Value::Bool(b) => Kind::BoolValue(*b),
        Value::String(s) => Kind::StringValue(s.clone()),
        Value::Number(n) => Kind::NumberValue(n.as_f64().unwrap_or(0.0)),
        Value::Object(o) => Kind::StructValue(Struct {
            fields: o
                .iter()
                .map(|(k, v)| (k.clone(), pb_from_json(v)))
                .collect(),
        }),
        Value::Array(a) => Kind::ListValue(ListValue {
            values: a.iter().map(pb_from_json).collect(),
        }),
    };
    prost_types::Value { kind: Some(kind) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn round_trip_keeps_integers_integral() {
        let v = json!({"a": [1, -2, 2.5, null, true, "s"], "b": {"c": 9007199254740992u64}});
        assert_eq!(json_from_pb(pb_from_json(&v)), v);
    }

    #[test]
    fn non_finite_numbers_become_null() {
        let v = prost_types::Value {
            kind: Some(Kind::NumberValue(f64::NAN)),
        };
        assert_eq!(json_from_pb(v), Value::Null);
    }
}
