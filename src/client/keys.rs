//! `toolview tail --approve`: a pending permission request on the screen is answered with a key
//! per option (`1` to `9`), read from the terminal without Enter; the decision then arrives with
//! the session's updates, as everyone else sees it.

use std::io::IsTerminal as _;

use tokio::io::AsyncReadExt as _;

use super::Remote;
use super::approve::{Answer, approve};
use crate::render::ViewUpdate;

/// The terminal in non-canonical mode (a key is read without Enter, and not echoed), restored
/// when dropped. Signals stay on: Ctrl-C still ends `tail`.
pub struct RawKeys {
    saved: libc::termios,
}

impl RawKeys {
    /// Switches stdin to non-canonical mode when it is a terminal; `None` otherwise (a pipe's
    /// lines are keys as they are).
    pub fn enable() -> Option<RawKeys> {
        if !std::io::stdin().is_terminal() {
            return None;
        }
        // SAFETY: tcgetattr and tcsetattr on fd 0 with a termios the call fills in.
        #[expect(unsafe_code, reason = "see the SAFETY note")]
        unsafe {
            let mut saved: libc::termios = std::mem::zeroed();
            if libc::tcgetattr(0, &mut saved) != 0 {
                return None;
            }
            let mut raw = saved;
            raw.c_lflag &= !(libc::ICANON | libc::ECHO);
            raw.c_cc[libc::VMIN] = 1;
            raw.c_cc[libc::VTIME] = 0;
            (libc::tcsetattr(0, libc::TCSANOW, &raw) == 0).then_some(RawKeys { saved })
        }
    }
}

impl Drop for RawKeys {
    fn drop(&mut self) {
        // SAFETY: restores the termios read in `enable`.
        #[expect(unsafe_code, reason = "see the SAFETY note")]
        unsafe {
            libc::tcsetattr(0, libc::TCSANOW, &self.saved);
        }
    }
}

/// The prompt waiting for a key: the request and its options, in order.
struct Prompt {
    request: String,
    options: Vec<(String, String)>,
}

/// Answers the session's pending permission request from keys.
pub struct Approver {
    remote: Remote,
    session: String,
    prompt: Option<Prompt>,
    stdin: tokio::io::Stdin,
}

impl Approver {
    /// Answers requests of `session` on `remote` (the token needs `approve`).
    pub fn new(remote: Remote, session: &str) -> Self {
        Approver {
            remote,
            session: session.to_owned(),
            prompt: None,
            stdin: tokio::io::stdin(),
        }
    }

    /// Notes an update: a pending request becomes the prompt (the hint to say is returned), a
    /// decided one stops being it.
    pub fn note(&mut self, update: &ViewUpdate) -> Option<String> {
        let ViewUpdate::Permission(p) = update else {
            return None;
        };
        let request = p.request.request_id.to_string();
        if p.resolution.is_some() {
            if self.prompt.as_ref().is_some_and(|q| q.request == request) {
                self.prompt = None;
            }
            return None;
        }
        let options: Vec<(String, String)> = p
            .request
            .options
            .iter()
            .take(9)
            .map(|o| (o.option_id.clone(), o.name.clone()))
            .collect();
        let keys: Vec<String> = options
            .iter()
            .enumerate()
            .map(|(i, (_, name))| format!("{} {}", i + 1, crate::render::visible(name)))
            .collect();
        self.prompt = Some(Prompt { request, options });
        Some(format!("[press a key to answer: {}]", keys.join(" · ")))
    }

    /// The next key from the terminal (`None` at the end of stdin).
    pub async fn key(&mut self) -> Option<u8> {
        self.stdin.read_u8().await.ok()
    }

    /// Answers the prompt with the option of `key` (`1`…`9`); what went wrong, if anything.
    pub async fn answer(&mut self, key: u8) -> Option<String> {
        let prompt = self.prompt.as_ref()?;
        let index = usize::from(key.checked_sub(b'1')?);
        let (option, _) = prompt.options.get(index)?;
        let answer = Answer {
            session: &self.session,
            request: &prompt.request,
            option,
            reason: "",
            via: "tail",
        };
        match approve(&self.remote, answer, &mut std::io::sink()).await {
            Ok(_) => None,
            Err(e) => Some(format!("[not answered: {e}]")),
        }
    }
}
