//! The `toolview` binary's offline commands.

use std::process::Command;

use serde_json::{Value, json};

fn toolview(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_toolview"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn present_prints_the_view_json() {
    let (ok, out, _) = toolview(&[
        "present",
        "--tool",
        "edit",
        "--args",
        r#"{"file_path":"a.txt","old_string":"x","new_string":"y"}"#,
    ]);
    assert!(ok);
    assert_eq!(
        out,
        "{\"card\":\"diff\",\"title\":\"Edit a.txt\",\"diffs\":[{\"path\":\"a.txt\",\"oldText\":\"x\",\"newText\":\"y\"}],\"locations\":[{\"path\":\"a.txt\"}]}\n"
    );
}

#[test]
fn present_with_a_result_prints_two_lines() {
    let (ok, out, _) = toolview(&[
        "present",
        "--tool",
        "Bash",
        "--args",
        r#"{"command":"ls"}"#,
        "--result",
        r#"{"content":[{"type":"text","text":"a\nb"}],"isError":false,"meta":{"exit_code":1}}"#,
    ]);
    assert!(ok);
    let lines: Vec<Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(
        lines,
        vec![
            json!({"card":"terminal","title":"ls"}),
            json!({"card":"terminal","output":"a\nb","exitCode":1})
        ]
    );
}

#[test]
fn present_rejects_a_malformed_result_clearly() {
    let (ok, _, err) = toolview(&[
        "present",
        "--tool",
        "bash",
        "--result",
        "{\"content\":[{\"type\":\"video\"}]}",
    ]);
    assert!(!ok);
    assert!(err.contains("--result"), "{err}");
}
