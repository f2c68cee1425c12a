//! What an OTLP body would decode to, counted on its bytes before it is decoded.
//!
//! A decoded message costs memory per *entry* of its repeated fields, whatever the bytes: an
//! empty attribute is two bytes of protobuf and about 64 decoded, so a 4 MB body of empty
//! attributes decoded to 300 MB and more. This scan walks the body without allocating — the
//! protobuf wire format along OTLP's message paths, or the JSON's arrays — and counts records
//! (spans, log records) and entries (every element of a repeated field: resources, scopes,
//! spans, events, links, attributes, entity references, array and key-value list values, log
//! records). Past `--otlp-max-records` or `--otlp-max-entries` the request is refused before it
//! is decoded; anything malformed is left to the decoder, which names it. Its cost is O(body).

use prost::encoding::{WireType, decode_key, decode_varint};
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

use crate::error::Error;

/// Nesting this scan follows at most: prost's own recursion limit, past which the decoder
/// refuses the body anyway.
const MAX_DEPTH: u32 = 100;

/// The limits the counts are held to.
#[derive(Debug, Clone, Copy)]
pub struct Budget {
    /// Spans or log records.
    pub max_records: usize,
    /// Entries of repeated fields, records included.
    pub max_entries: usize,
}

/// What a body holds, counted so far.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Counts {
    /// Spans or log records.
    pub records: usize,
    /// Entries of repeated fields.
    pub entries: usize,
}

impl Budget {
    /// Counts one entry (a record too when `record`), refusing once past a limit.
    fn count(&self, n: &mut Counts, record: bool) -> Result<(), Error> {
        n.entries += 1;
        n.records += usize::from(record);
        if n.records > self.max_records {
            return Err(Error::TooLarge(
                format!(
                    "more than {} spans or log records in one request, over the limit \
                 (--otlp-max-records): lower the exporter's batch (OTEL_BSP_MAX_EXPORT_BATCH_SIZE)",
                    self.max_records
                )
                .into(),
            ));
        }
        if n.entries > self.max_entries {
            return Err(Error::TooLarge(format!(
                "more than {} attributes, events, links, values and records in one request, over \
                 the limit (--otlp-max-entries)",
                self.max_entries
            ).into()));
        }
        Ok(())
    }
}

/// The OTLP messages whose repeated fields are counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `ExportTraceServiceRequest`.
    Traces,
    /// `ExportLogsServiceRequest`.
    Logs,
    ResourceSpans,
    ResourceLogs,
    Resource,
    EntityRef,
    ScopeSpans,
    ScopeLogs,
    Scope,
    Span,
    Event,
    Link,
    LogRecord,
    KeyValue,
    AnyValue,
    ArrayValue,
    KeyValueList,
}

/// What a field of a message is, for the scan.
enum Field {
    /// A message of this kind.
    Message(Kind),
    /// An element of a repeated string field.
    String,
}

impl Kind {
    /// Field `number` of this message, when it is a message or a repeated string (OTLP's field
    /// numbers, from the `opentelemetry-proto` definitions).
    fn field(self, number: u32) -> Option<Field> {
        use Kind::*;
        let message = match (self, number) {
            (Traces, 1) => ResourceSpans,
            (Logs, 1) => ResourceLogs,
            (ResourceSpans | ResourceLogs, 1) => Resource,
            (ResourceSpans, 2) => ScopeSpans,
            (ResourceLogs, 2) => ScopeLogs,
            (Resource, 3) => EntityRef,
            (EntityRef, 3 | 4) => return Some(Field::String),
            (ScopeSpans | ScopeLogs, 1) => Scope,
            (ScopeSpans, 2) => Span,
            (ScopeLogs, 2) => LogRecord,
            (Span, 11) => Event,
            (Span, 13) => Link,
            (Resource, 1)
            | (Scope, 3)
            | (Span, 9)
            | (Event, 3)
            | (Link, 4)
            | (LogRecord, 6)
            | (KeyValueList, 1) => KeyValue,
            (KeyValue, 2) | (ArrayValue, 1) | (LogRecord, 5) => AnyValue,
            (AnyValue, 5) => ArrayValue,
            (AnyValue, 6) => KeyValueList,
            _ => return None,
        };
        Some(Field::Message(message))
    }
}

/// Counts a protobuf body of `kind` (`Traces` or `Logs`), refusing it past the budget.
pub fn protobuf(body: &[u8], kind: Kind, budget: &Budget) -> Result<Counts, Error> {
    let mut n = Counts::default();
    walk(body, kind, 0, &mut n, budget)?;
    Ok(n)
}

/// One message's fields. Malformed bytes end the walk quietly: the decoder refuses them.
fn walk(mut buf: &[u8], kind: Kind, depth: u32, n: &mut Counts, b: &Budget) -> Result<(), Error> {
    while !buf.is_empty() {
        let Ok((number, wire)) = decode_key(&mut buf) else {
            return Ok(());
        };
        let skip = match wire {
            WireType::Varint => decode_varint(&mut buf).map(|_| 0).ok(),
            WireType::SixtyFourBit => Some(8),
            WireType::ThirtyTwoBit => Some(4),
            WireType::LengthDelimited => decode_varint(&mut buf)
                .ok()
                .and_then(|len| usize::try_from(len).ok()),
            WireType::StartGroup | WireType::EndGroup => None,
        };
        let Some(len) = skip.filter(|len| *len <= buf.len()) else {
            return Ok(());
        };
        let (inner, rest) = buf.split_at(len);
        buf = rest;
        match (wire, kind.field(number)) {
            (WireType::LengthDelimited, Some(Field::Message(child))) => {
                b.count(n, matches!(child, Kind::Span | Kind::LogRecord))?;
                if depth < MAX_DEPTH {
                    walk(inner, child, depth + 1, n, b)?;
                }
            }
            (WireType::LengthDelimited, Some(Field::String)) => b.count(n, false)?,
            _ => {}
        }
    }
    Ok(())
}

/// Counts a JSON body: every array element is an entry (OTLP/JSON's arrays are its repeated
/// fields), and the elements of a `spans` or `logRecords` array are records. Malformed JSON is
/// left to the decoder.
pub fn json(body: &[u8], budget: &Budget) -> Result<Counts, Error> {
    let mut n = Counts::default();
    let mut de = serde_json::Deserializer::from_slice(body);
    let count = Count {
        n: &mut n,
        budget,
        records: false,
    };
    match count.deserialize(&mut de) {
        Ok(()) => Ok(n),
        // The budget's refusal, carried through serde as the one error a counter raises (it
        // takes any value), with serde_json's position after it.
        Err(e) if e.is_data() => {
            let message = e.to_string();
            let message = message.split(" at line ").next().unwrap_or_default();
            Err(Error::TooLarge(message.to_owned().into()))
        }
        Err(_) => Ok(n),
    }
}

/// A JSON object's key: whether its value's array holds records.
struct RecordsKey;

impl<'de> DeserializeSeed<'de> for RecordsKey {
    type Value = bool;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<bool, D::Error> {
        d.deserialize_str(self)
    }
}

impl Visitor<'_> for RecordsKey {
    type Value = bool;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a key")
    }

    fn visit_str<E>(self, key: &str) -> Result<bool, E> {
        Ok(matches!(key, "spans" | "logRecords"))
    }
}

/// A JSON value, counted: `records` when it is the array of a `spans` or `logRecords` key.
struct Count<'a> {
    n: &'a mut Counts,
    budget: &'a Budget,
    records: bool,
}

impl<'de> DeserializeSeed<'de> for Count<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Count<'_> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("an OTLP/JSON value")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        loop {
            let element = Count {
                n: &mut *self.n,
                budget: self.budget,
                records: false,
            };
            if seq.next_element_seed(element)?.is_none() {
                return Ok(());
            }
            self.budget
                .count(self.n, self.records)
                .map_err(|e| de::Error::custom(e.public_message()))?;
        }
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(records) = map.next_key_seed(RecordsKey)? {
            let value = Count {
                n: &mut *self.n,
                budget: self.budget,
                records,
            };
            map.next_value_seed(value)?;
        }
        Ok(())
    }

    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
    use opentelemetry_proto::tonic::common::v1::{AnyValue, KeyValue, any_value};
    use opentelemetry_proto::tonic::resource::v1::Resource;
    use opentelemetry_proto::tonic::trace::v1::{ResourceSpans, ScopeSpans, Span, span::Event};
    use prost::Message as _;

    const ROOMY: Budget = Budget {
        max_records: 1000,
        max_entries: 1_000_000,
    };

    fn kv(key: &str, value: Option<any_value::Value>) -> KeyValue {
        KeyValue {
            key: key.into(),
            value: Some(AnyValue { value }),
            ..Default::default()
        }
    }

    /// 2 resource attributes (one a list of 3 strings), 3 spans of 2 attributes and an event.
    fn request() -> ExportTraceServiceRequest {
        use any_value::Value as V;
        let list = V::ArrayValue(opentelemetry_proto::tonic::common::v1::ArrayValue {
            values: (0..3)
                .map(|i| AnyValue {
                    value: Some(V::StringValue(i.to_string())),
                })
                .collect(),
        });
        let span = Span {
            attributes: vec![kv("a", None), kv("b", Some(V::IntValue(1)))],
            events: vec![Event::default()],
            ..Default::default()
        };
        ExportTraceServiceRequest {
            resource_spans: vec![ResourceSpans {
                resource: Some(Resource {
                    attributes: vec![kv("service.name", None), kv("list", Some(list))],
                    ..Default::default()
                }),
                scope_spans: vec![ScopeSpans {
                    spans: vec![span; 3],
                    ..Default::default()
                }],
                ..Default::default()
            }],
        }
    }

    /// Resource spans, resource, 2 attributes with 2 values, the list and its 3 values, scope
    /// spans, 3 × (span, 2 attributes, 2 values, event).
    const ENTRIES: usize = 1 + 1 + 2 + 2 + 1 + 3 + 1 + 3 * 6;

    #[test]
    fn protobuf_and_json_count_the_same() {
        let r = request();
        let want = Counts {
            records: 3,
            entries: ENTRIES,
        };
        assert_eq!(protobuf(&r.encode_to_vec(), Kind::Traces, &ROOMY), Ok(want));
        // JSON has no wrapper objects for the messages a protobuf nests (resource, values):
        // only its arrays count, which hold every repeated entry.
        let json_body = serde_json::to_vec(&r).unwrap();
        let counted = json(&json_body, &ROOMY).unwrap();
        assert_eq!(counted.records, 3);
        assert!(counted.entries <= ENTRIES, "{counted:?}");
    }

    #[test]
    fn past_a_limit_is_refused_before_decoding() {
        let body = request().encode_to_vec();
        let records = Budget {
            max_records: 2,
            ..ROOMY
        };
        let e = protobuf(&body, Kind::Traces, &records).unwrap_err();
        assert!(e.public_message().contains("--otlp-max-records"), "{e}");
        let entries = Budget {
            max_entries: 10,
            ..ROOMY
        };
        let e = protobuf(&body, Kind::Traces, &entries).unwrap_err();
        assert_eq!(e.http_status(), 413);
        assert!(e.public_message().contains("--otlp-max-entries"), "{e}");
        let e = json(&serde_json::to_vec(&request()).unwrap(), &entries).unwrap_err();
        assert!(e.public_message().contains("--otlp-max-entries"), "{e}");
    }

    #[test]
    fn malformed_bodies_are_left_to_the_decoder() {
        let body = request().encode_to_vec();
        assert!(protobuf(&body[..body.len() / 2], Kind::Traces, &ROOMY).is_ok());
        assert!(protobuf(&[0xff; 16], Kind::Traces, &ROOMY).is_ok());
        assert!(json(b"{\"resourceSpans\": [1, 2", &ROOMY).is_ok());
    }
}
