//! The `authorization` metadata of every call, checked by the JWT authenticator: any text gets
//! an answer (almost always UNAUTHENTICATED), never a panic.
#![no_main]

use std::sync::OnceLock;
use std::time::Duration;

use libfuzzer_sys::fuzz_target;
use toolview::auth::{Authenticator, JwtSettings, KeySource, Right};
use toolview::domain::SessionId;

fn authenticator() -> &'static Authenticator {
    static AUTH: OnceLock<Authenticator> = OnceLock::new();
    AUTH.get_or_init(|| {
        let path = std::env::temp_dir().join("toolview-fuzz-secret");
        std::fs::write(&path, "fuzz-secret-0123456789abcdef0123456789abcdef").unwrap();
        Authenticator::jwt(JwtSettings {
            keys: KeySource::Secret(path),
            audience: "toolview".into(),
            issuer: None,
            leeway: Duration::from_secs(30),
        })
        .unwrap()
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(access) = authenticator().authenticate(Some(text)) {
        let session = SessionId::new("team-a/run-1").unwrap();
        let _ = access.require(Right::Publish, &session);
    }
});
