//! The presenters on arbitrary tool names, argument text and result JSON (what `Present` and a
//! published call carry): display input never fails, it degrades.
#![no_main]

use libfuzzer_sys::fuzz_target;
use toolview::present::{self, FinishedInput, TOOLS};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    // `tool \0 args \0 result`: the result is `{"content":[…],"isError":…,"meta":…}` JSON.
    let mut parts = text.splitn(3, '\0');
    let tool = parts.next().unwrap_or_default();
    let args = parts.next().unwrap_or_default();
    let result = parts.next();
    // A one-byte name picks a known tool, so most inputs reach a real presenter.
    let tool = match tool.as_bytes() {
        &[b] => TOOLS[usize::from(b) % TOOLS.len()].0,
        _ => tool,
    };
    let finished = result.map(|r| {
        let value: serde_json::Value = serde_json::from_str(r).unwrap_or(serde_json::Value::Null);
        FinishedInput {
            content: serde_json::from_value(value["content"].clone()).unwrap_or_default(),
            is_error: value["isError"].as_bool().unwrap_or(false),
            meta: Some(value["meta"].clone()).filter(|m| !m.is_null()),
            view: None,
        }
    });
    let _ = present::present(tool, args, None, finished.as_ref());
});
