//! Differential test: `hunks` against the reference, jsdiff 9 (`tests/js`, installed by
//! `scripts/test.sh` with `npm ci`), on a thousand random before/after pairs. A crate of its own:
//! it needs Node, which the pure `spec` suites do not.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use serde_json::{Value, json};
use toolview::present::hunks;

/// xorshift64*: deterministic cases without a dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> usize {
        (self.next() % n) as usize
    }
}

/// Lines from a small alphabet so that texts share lines and ties are common.
fn random_lines(rng: &mut Rng, max: u64) -> Vec<String> {
    const WORDS: [&str; 6] = ["a", "b", "c", "", "x y", "}"];
    (0..rng.below(max))
        .map(|_| WORDS[rng.below(WORDS.len() as u64)].to_owned())
        .collect()
}

fn join(rng: &mut Rng, lines: &[String]) -> String {
    let mut s = String::new();
    for (i, l) in lines.iter().enumerate() {
        s.push_str(l);
        let last = i + 1 == lines.len();
        match rng.below(10) {
            0 if last => {}
            1 => s.push_str("\r\n"),
            _ => s.push('\n'),
        }
    }
    s
}

/// An edited copy: deletions, insertions and replacements at random places.
fn edit(rng: &mut Rng, lines: &[String]) -> Vec<String> {
    let mut out = lines.to_vec();
    for _ in 0..rng.below(6) {
        let at = if out.is_empty() {
            0
        } else {
            rng.below(out.len() as u64 + 1)
        };
        match rng.below(3) {
            0 if at < out.len() => {
                out.remove(at);
            }
            1 if at < out.len() => out[at] = format!("changed {}", rng.below(3)),
            _ => out.insert(at, random_lines(rng, 3).concat()),
        }
    }
    out
}

fn reference_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/js")
}

#[test]
fn hunks_match_jsdiff() {
    let dir = reference_dir();
    assert!(
        dir.join("node_modules/diff").is_dir(),
        "the jsdiff reference is not installed: run `npm ci --prefix tests/js` (scripts/test.sh does)"
    );
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let cases: Vec<(String, String)> = (0..1000)
        .map(|i| {
            // Mostly small texts (ties everywhere), some long ones (hunk merging and splitting).
            let size = if i % 10 == 0 { 200 } else { 30 };
            let before = random_lines(&mut rng, size);
            let after = if i % 4 == 0 {
                random_lines(&mut rng, size)
            } else {
                edit(&mut rng, &before)
            };
            (join(&mut rng, &before), join(&mut rng, &after))
        })
        .collect();
    let input: Vec<Value> = cases
        .iter()
        .map(|(b, a)| json!({"before": b, "after": a}))
        .collect();

    let mut child = Command::new("node")
        .arg(dir.join("jsdiff_hunks.cjs"))
        .current_dir(&dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("node runs");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(Value::Array(input).to_string().as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "the jsdiff script failed");
    let expected: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();

    let mut mismatches = Vec::new();
    for ((before, after), want) in cases.iter().zip(&expected) {
        let got: Vec<Value> = hunks("f", before, after)
            .into_iter()
            .map(|h| json!({"oldText": h.diff.old_text, "newText": h.diff.new_text, "newStart": h.new_start}))
            .collect();
        if &Value::Array(got.clone()) != want {
            mismatches.push(format!(
                "before={before:?} after={after:?}\n  got:  {got:?}\n  want: {want}"
            ));
        }
    }
    println!(
        "hunks vs jsdiff: {} passed, {} failed",
        cases.len() - mismatches.len(),
        mismatches.len()
    );
    assert!(
        mismatches.is_empty(),
        "{}",
        mismatches[..mismatches.len().min(5)].join("\n")
    );
}
