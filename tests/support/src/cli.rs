//! Running the `toolview` CLI as a user does: one helper for every test that runs a command.

use std::io::Write as _;
use std::process::{Command, Stdio};

/// What a finished command left.
#[derive(Debug)]
pub struct Ran {
    /// Whether it exited 0.
    pub ok: bool,
    /// Its standard output (UTF-8).
    pub stdout: String,
    /// Its standard error (lossy: a failure's text is what matters).
    pub stderr: String,
}

/// The `toolview` command with `args`, stdin closed: for a test that spawns and steers it.
pub fn command<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> Command {
    let mut cmd = Command::new(crate::toolview_bin());
    cmd.args(args).stdin(Stdio::null());
    cmd
}

/// Runs `toolview args…` to its end.
pub fn run<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> Ran {
    run_with_stdin(args, "")
}

/// Runs `toolview args…` with `stdin` written and closed, to its end.
pub fn run_with_stdin<S: AsRef<std::ffi::OsStr>>(args: &[S], stdin: &str) -> Ran {
    let mut child = command(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn toolview");
    let mut input = child.stdin.take().expect("piped stdin");
    // A command that exits without reading its input closes the pipe: not a test failure.
    let _ = input.write_all(stdin.as_bytes());
    drop(input);
    let out = child.wait_with_output().expect("wait for toolview");
    Ran {
        ok: out.status.success(),
        stdout: String::from_utf8(out.stdout).expect("toolview writes UTF-8"),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// A file of the repository (`examples/conversation.jsonl`, …) as text.
pub fn repo_file(path: &str) -> String {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    std::fs::read_to_string(root.join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// `toolview publish` of `ToolEvent` JSON lines to `session` on the server at `url`; fails the
/// test with the command's stderr when it fails.
pub fn publish_jsonl(url: &str, session: &str, jsonl: &str) {
    let ran = run_with_stdin(&["publish", "--server", url, "--session", session], jsonl);
    assert!(ran.ok, "toolview publish: {}", ran.stderr);
}

/// The session as `toolview tail --no-follow` renders it for `target` (the process must succeed).
pub fn tail(url: &str, session: &str, target: &str) -> String {
    let out = command(&[
        "tail",
        "--server",
        url,
        "--session",
        session,
        "--target",
        target,
        "--no-follow",
    ])
    .output()
    .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}
