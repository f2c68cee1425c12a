//! Validation of ACP messages against the official ACP v1 schema (vendored copy of
//! `shared/acp/schema.json`).

use std::sync::OnceLock;

use serde_json::{Value, json};

fn validator() -> &'static jsonschema::Validator {
    static V: OnceLock<jsonschema::Validator> = OnceLock::new();
    V.get_or_init(|| {
        let path = crate::repo_dir().join("tests/data/acp-schema.json");
        let mut schema: Value =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        // Validate against one definition: a session/update notification's params.
        let obj = schema.as_object_mut().unwrap();
        obj.remove("anyOf");
        obj.insert("$ref".into(), json!("#/$defs/SessionNotification"));
        jsonschema::draft202012::new(&schema).expect("the ACP schema compiles")
    })
}

/// Parses one ACP message, checks the JSON-RPC envelope, and validates its params as a
/// `SessionNotification`. Returns the params' `update`.
pub fn validate(message: &str) -> Result<Value, String> {
    let v: Value = serde_json::from_str(message).map_err(|e| format!("not JSON: {e}"))?;
    if v["jsonrpc"] != "2.0" || v["method"] != "session/update" || v.get("id").is_some() {
        return Err(format!("not a session/update notification: {message}"));
    }
    let params = &v["params"];
    let errors: Vec<String> = validator()
        .iter_errors(params)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    if !errors.is_empty() {
        return Err(format!(
            "schema violations in {message}: {}",
            errors.join("; ")
        ));
    }
    Ok(params["update"].clone())
}
