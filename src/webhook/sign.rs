//! Signatures as Standard Webhooks (standardwebhooks.com) has them, so a receiver verifies
//! with its libraries or a few lines: `webhook-id`, `webhook-timestamp` (Unix seconds) and
//! `webhook-signature: v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`. The id is the
//! delivery's, the same on every retry; the timestamp is the attempt's, so a receiver can
//! refuse old replays.

use base64::Engine as _;
use ring::hmac;

use super::config::Secret;

/// The three headers of a signed attempt, as (name, value).
pub fn headers(
    secret: &Secret,
    id: &str,
    timestamp_s: u64,
    body: &str,
) -> [(&'static str, String); 3] {
    [
        ("webhook-id", id.to_owned()),
        ("webhook-timestamp", timestamp_s.to_string()),
        (
            "webhook-signature",
            signature(secret, id, timestamp_s, body),
        ),
    ]
}

/// `v1,<base64 signature>`.
pub fn signature(secret: &Secret, id: &str, timestamp_s: u64, body: &str) -> String {
    let key = hmac::Key::new(hmac::HMAC_SHA256, &secret.0);
    let mut ctx = hmac::Context::with_key(&key);
    ctx.update(id.as_bytes());
    ctx.update(b".");
    ctx.update(timestamp_s.to_string().as_bytes());
    ctx.update(b".");
    ctx.update(body.as_bytes());
    let tag = ctx.sign();
    format!(
        "v1,{}",
        base64::engine::general_purpose::STANDARD.encode(tag.as_ref())
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_standard_webhooks_example_signs_as_its_libraries_do() {
        // The example in Standard Webhooks' specification (spec/standard-webhooks.md).
        let secret = Secret::parse("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw").unwrap();
        let body = r#"{"test": 2432232314}"#;
        assert_eq!(
            signature(&secret, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, body),
            "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
        );
    }
}
