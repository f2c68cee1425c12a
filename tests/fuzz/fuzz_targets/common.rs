//! What the handler targets share: one runtime for all inputs, and the server's limits.

use std::sync::OnceLock;

/// The message size limit the server runs with by default.
pub const MAX_MESSAGE: usize = 4 << 20;
/// The largest rendered update at that limit.
pub const MAX_UPDATE: usize = MAX_MESSAGE - (16 << 10);
/// The output cap ceiling at that limit.
pub const MAX_OUTPUT: u64 = (MAX_MESSAGE / 8) as u64;

/// One current-thread runtime for every input (starting one per input would dominate).
pub fn runtime() -> &'static tokio::runtime::Runtime {
    static RT: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RT.get_or_init(|| {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
    })
}
