use serde_json::json;

use super::*;

fn args(v: Value) -> Map<String, Value> {
    v.as_object().unwrap().clone()
}

fn refused<T: DeserializeOwned + Check + std::fmt::Debug>(v: Value) -> String {
    parse::<T>(args(v)).unwrap_err()
}

#[test]
fn each_bad_argument_is_named() {
    let poll = |v: Value| refused::<PollSession>(v);
    let base = |extra: Value| {
        let mut v = json!({"session": "s"});
        v.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        v
    };
    assert!(poll(base(json!({"extra": 1}))).contains("unknown field `extra`"));
    assert!(poll(base(json!({"waitMs": -1}))).starts_with("waitMs:"));
    assert!(poll(base(json!({"waitMs": "soon"}))).starts_with("waitMs:"));
    assert!(poll(base(json!({"waitMs": 20_001}))).starts_with("waitMs: an integer from 0"));
    assert!(poll(base(json!({"after": "x"}))).starts_with("after:"));
    assert!(poll(base(json!({"after": {"offset": 3}}))).contains("epoch"));
    assert!(poll(base(json!({"after": {"epoch": "e"}}))).contains("offset"));
    assert!(
        poll(base(json!({"after": {"epoch": "e", "offset": "-1"}}))).starts_with("after.offset:")
    );
    assert!(poll(base(json!({"after": {"epoch": "e", "offset": 1, "x": 0}}))).starts_with("after"));
    assert!(poll(json!({})).contains("session"));
    assert!(poll(json!({"session": ""})).starts_with("session: a non-empty string"));
    assert!(
        refused::<ListSessions>(json!({"pageSize": 0}))
            .starts_with("pageSize: an integer from 1 to 200")
    );
    assert!(refused::<ListSessions>(json!({"pageSize": "x"})).starts_with("pageSize:"));
}

#[test]
fn an_updates_own_cursor_is_the_pages() {
    let read = |v: Value| {
        parse::<PollSession>(args(v))
            .unwrap()
            .after
            .unwrap()
            .cursor()
            .unwrap()
    };
    let text = read(json!({"session": "s", "after": {"epoch": "e", "offset": "21"}}));
    let number = read(json!({"session": "s", "after": {"epoch": "e", "offset": 21}}));
    assert_eq!(text, number);
    assert_eq!(number.offset, 21);
}

#[test]
fn schemas_are_portable_and_name_their_limits() {
    let poll = Value::Object((*schema::<PollSession>()).clone());
    assert_eq!(poll["type"], "object");
    assert_eq!(poll["additionalProperties"], false);
    assert_eq!(poll["required"], json!(["session"]));
    assert_eq!(poll["properties"]["waitMs"]["type"], "integer");
    assert_eq!(poll["properties"]["waitMs"]["maximum"], MAX_WAIT_MS);
    assert_eq!(poll["properties"]["after"]["type"], "object");
    assert_eq!(
        poll["properties"]["after"]["required"],
        json!(["epoch", "offset"])
    );
    let text = poll.to_string();
    assert!(!text.contains("null"), "{text}");
    assert!(
        !text.contains("$schema") && !text.contains("$ref"),
        "{text}"
    );
    let list = Value::Object((*schema::<ListSessions>()).clone());
    assert_eq!(list["properties"]["pageSize"]["minimum"], 1);
    assert!(list.get("required").is_none(), "{list}");
}
