//! Helpers shared by integration tests.
#![allow(dead_code)]

use std::path::PathBuf;

use serde_json::Value;

/// The vendored copy of `shared/spec/vectors` (kept identical by `vectors_match_shared_spec`).
pub fn vectors_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/vectors")
}

/// The spec folder beside the checkout, when there is one (CI and developer machines).
pub fn shared_spec_dir() -> Option<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/spec/vectors");
    dir.is_dir().then_some(dir)
}

/// Loads one vector file as a list of cases.
pub fn load_cases(file: &str) -> Vec<Value> {
    let path = vectors_dir().join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    match serde_json::from_str(&text) {
        Ok(Value::Array(cases)) => cases,
        other => panic!("{}: expected a JSON array, got {other:?}", path.display()),
    }
}

/// Tallies case outcomes and prints the plain summary line.
#[derive(Default)]
pub struct Tally {
    pub passed: usize,
    pub pending: Vec<String>,
    pub failed: Vec<String>,
}

impl Tally {
    pub fn check(&mut self, name: &str, outcome: Result<(), String>) {
        match outcome {
            Ok(()) => self.passed += 1,
            Err(why) => self.failed.push(format!("{name}: {why}")),
        }
    }

    /// Prints the counts and fails the test if any case failed.
    pub fn finish(self, label: &str) {
        println!(
            "{label}: {} passed, {} failed, {} pending",
            self.passed,
            self.failed.len(),
            self.pending.len()
        );
        for p in &self.pending {
            println!("  pending: {p}");
        }
        assert!(
            self.failed.is_empty(),
            "{label} failures:\n{}",
            self.failed.join("\n")
        );
    }
}

/// Compares two JSON values, describing the first difference.
pub fn same_json(got: &Value, want: &Value) -> Result<(), String> {
    if got == want {
        Ok(())
    } else {
        Err(format!("\n  got:  {got}\n  want: {want}"))
    }
}
