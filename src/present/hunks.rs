//! `hunks(path, before, after)`: contextual hunks exactly as jsdiff 9's
//! `structuredPatch(.., {context: 3})` makes them.
//!
//! Why not a diff crate: every Myers implementation breaks ties its own way, and the hunks must
//! be byte-identical to the reference (jsdiff), which real harnesses already show. `similar`
//! differs on some inputs, so this module implements jsdiff's variant — forward greedy Myers,
//! deletions preferred, with jsdiff's diagonal pruning — and `tests/spec/hunks_differential.rs`
//! compares it with jsdiff itself on random inputs.

use std::collections::HashMap;

use crate::domain::{DiffOp, DiffRun, FileDiff};

/// Unchanged lines kept around each change run.
const CONTEXT: usize = 3;

/// The longest edit script searched for (jsdiff's `maxEditLength`)…
const MAX_EDIT_LENGTH: isize = 4096;
/// …and the most search steps (paths extended and lines compared). Myers costs O((N+M)·D):
/// two 8,000-line files with nothing in common took seconds. Past either bound a diff takes its
/// coarse form: every old line removed, then every new line added (one whole-file hunk). Both
/// are counts, not times, so the same input always gives the same diff.
const MAX_STEPS: usize = 1_000_000;

/// One hunk: the diff of its two sides and where it starts (jsdiff's 1-based `oldStart` and
/// `newStart`; a side with no lines still reports the line it would start at).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hunk {
    /// The 1-based line the hunk starts at before the change.
    pub old_start: usize,
    /// The 1-based line it starts at after.
    pub new_start: usize,
    /// The hunk's two sides.
    pub diff: FileDiff,
}

/// The contextual hunks turning `before` into `after`, in file order; none when equal.
pub fn hunks(path: &str, before: &str, after: &str) -> Vec<Hunk> {
    let old: Vec<&str> = before.split_inclusive('\n').collect();
    let new: Vec<&str> = after.split_inclusive('\n').collect();
    let runs = diff_runs(&old, &new).unwrap_or_else(|| coarse(&old, &new));
    group(path, &runs, &old, &new)
}

/// What a line diff does with a line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// Kept.
    Equal,
    /// Removed from the old side.
    Remove,
    /// Added on the new side.
    Add,
}

#[derive(Debug, Clone, Copy)]
struct Run {
    op: Op,
    count: usize,
}

/// A node of jsdiff's persistent list of runs (paths share their prefixes).
#[derive(Clone, Copy)]
struct Node {
    op: Op,
    count: usize,
    prev: Option<u32>,
}

#[derive(Clone, Copy)]
struct Path {
    old_pos: isize,
    last: Option<u32>,
}

/// The full line diff of two line lists (no context grouping), in order: jsdiff's `diffLines`.
pub fn diff_lines<'a>(old: &[&'a str], new: &[&'a str]) -> Vec<(Op, &'a str)> {
    let (mut o, mut n) = (0, 0);
    let mut out = Vec::with_capacity(old.len().max(new.len()));
    for run in diff_runs(old, new).unwrap_or_else(|| coarse(old, new)) {
        let lines = match run.op {
            Op::Remove => &old[o..o + run.count],
            Op::Equal | Op::Add => &new[n..n + run.count],
        };
        out.extend(lines.iter().map(|l| (run.op, *l)));
        if run.op != Op::Add {
            o += run.count;
        }
        if run.op != Op::Remove {
            n += run.count;
        }
    }
    out
}

/// A diff side's lines: split at `\n`; an empty side has none.
pub fn side_lines(text: &str) -> Vec<&str> {
    if text.is_empty() {
        Vec::new()
    } else {
        text.split('\n').collect()
    }
}

/// The line diff of a `FileDiff`'s two sides ([`side_lines`]) as runs: what every target draws,
/// and what VIEW cards carry so that a UI need not diff (bounded like [`diff_lines`]).
pub fn line_runs(d: &FileDiff) -> Vec<DiffRun> {
    let old = side_lines(d.old_text.as_deref().unwrap_or(""));
    let new = side_lines(&d.new_text);
    let runs = diff_runs(&old, &new).unwrap_or_else(|| coarse(&old, &new));
    runs.into_iter()
        .map(|r| DiffRun {
            op: match r.op {
                Op::Equal => DiffOp::Context,
                Op::Remove => DiffOp::Removed,
                Op::Add => DiffOp::Added,
            },
            lines: u32::try_from(r.count).unwrap_or(u32::MAX),
        })
        .collect()
}

/// Fills each diff's runs ([`line_runs`]): what the server sends a UI with a card (VIEW, AG-UI,
/// the AI SDK, `Present`), so that it draws the diff without diffing. The presenters' own output
/// (and the spec's vectors) leave runs empty.
pub fn fill_runs(diffs: &mut [FileDiff]) {
    for d in diffs {
        d.runs = line_runs(d);
    }
}

/// The coarse diff: remove every old line, add every new one.
fn coarse(old: &[&str], new: &[&str]) -> Vec<Run> {
    [(Op::Remove, old.len()), (Op::Add, new.len())]
        .into_iter()
        .filter(|&(_, count)| count > 0)
        .map(|(op, count)| Run { op, count })
        .collect()
}

/// jsdiff's `Diff.diff` for line tokens, returning the runs in order; `None` past the search
/// bounds.
fn diff_runs<'a>(old: &[&'a str], new: &[&'a str]) -> Option<Vec<Run>> {
    // Intern lines so the inner loop compares integers.
    let mut ids: HashMap<&'a str, u32> = HashMap::new();
    let mut intern = |s: &[&'a str]| -> Vec<u32> {
        s.iter()
            .map(|&line| {
                let next = ids.len() as u32;
                *ids.entry(line).or_insert(next)
            })
            .collect()
    };
    let mut search = Search {
        old: intern(old),
        new: intern(new),
        nodes: Vec::new(),
        steps: 0,
    };
    let (old_len, new_len) = (search.old.len() as isize, search.new.len() as isize);

    // Diagonals never leave [-max_edit, max_edit].
    let max_edit = (old_len + new_len).min(MAX_EDIT_LENGTH);
    let offset = max_edit + 1;
    let mut best: Vec<Option<Path>> = vec![None; (2 * offset + 1) as usize];
    let slot = |d: isize| (d + offset) as usize;

    let mut seed = Path {
        old_pos: -1,
        last: None,
    };
    let new_pos = search.extract_common(&mut seed, 0);
    if seed.old_pos + 1 >= old_len && new_pos + 1 >= new_len {
        return Some(collect(&search.nodes, seed.last));
    }
    best[slot(0)] = Some(seed);

    let (mut min_diag, mut max_diag) = (isize::MIN, isize::MAX);
    let mut edit_len: isize = 1;
    while edit_len <= max_edit {
        let mut diagonal = min_diag.max(-edit_len);
        while diagonal <= max_diag.min(edit_len) {
            let remove_path = best[slot(diagonal - 1)].take();
            let add_path = best[slot(diagonal + 1)];
            let Some(mut base) = search.branch(remove_path, add_path, diagonal) else {
                best[slot(diagonal)] = None;
                diagonal += 2;
                continue;
            };
            let new_pos = search.extract_common(&mut base, diagonal);
            if base.old_pos + 1 >= old_len && new_pos + 1 >= new_len {
                return Some(collect(&search.nodes, base.last));
            }
            best[slot(diagonal)] = Some(base);
            if base.old_pos + 1 >= old_len {
                max_diag = max_diag.min(diagonal - 1);
            }
            if new_pos + 1 >= new_len {
                min_diag = min_diag.max(diagonal + 1);
            }
            diagonal += 2;
        }
        edit_len += 1;
        if search.steps > MAX_STEPS {
            return None;
        }
    }
    // Only reached when the edit script would be longer than `MAX_EDIT_LENGTH`.
    None
}

/// The state of one search: the interned lines, the runs found so far (linked backwards) and
/// the steps taken, against `MAX_STEPS`.
struct Search {
    old: Vec<u32>,
    new: Vec<u32>,
    nodes: Vec<Node>,
    steps: usize,
}

impl Search {
    /// Follows the diagonal while lines match; returns the new position.
    fn extract_common(&mut self, path: &mut Path, diagonal: isize) -> isize {
        let (old_len, new_len) = (self.old.len() as isize, self.new.len() as isize);
        let mut old_pos = path.old_pos;
        let mut new_pos = old_pos - diagonal;
        let mut common = 0;
        while new_pos + 1 < new_len
            && old_pos + 1 < old_len
            && self.old[(old_pos + 1) as usize] == self.new[(new_pos + 1) as usize]
        {
            new_pos += 1;
            old_pos += 1;
            common += 1;
        }
        self.steps += common + 1;
        if common > 0 {
            self.nodes.push(Node {
                op: Op::Equal,
                count: common,
                prev: path.last,
            });
            path.last = Some((self.nodes.len() - 1) as u32);
        }
        path.old_pos = old_pos;
        new_pos
    }

    /// The path to extend on `diagonal`: from the one farthest along the old side (ties go to
    /// removal); `None` when neither can be extended.
    fn branch(&mut self, remove: Option<Path>, add: Option<Path>, diagonal: isize) -> Option<Path> {
        let (old_len, new_len) = (self.old.len() as isize, self.new.len() as isize);
        let can_add = add.is_some_and(|p| {
            let new_pos = p.old_pos - diagonal;
            0 <= new_pos && new_pos < new_len
        });
        let can_remove = remove.is_some_and(|p| p.old_pos + 1 < old_len);
        match (remove, add) {
            (Some(r), Some(a)) if can_add && (!can_remove || r.old_pos < a.old_pos) => {
                Some(add_to_path(&mut self.nodes, a, Op::Add))
            }
            (_, Some(a)) if can_add && !can_remove => {
                Some(add_to_path(&mut self.nodes, a, Op::Add))
            }
            (Some(r), _) if can_remove => Some(add_to_path(&mut self.nodes, r, Op::Remove)),
            (_, _) => None,
        }
    }
}

/// jsdiff's `addToPath`: extend a path by one removal or insertion, merging with a run of the
/// same kind.
fn add_to_path(nodes: &mut Vec<Node>, path: Path, op: Op) -> Path {
    let old_pos = path.old_pos + if op == Op::Remove { 1 } else { 0 };
    let node = match path.last.map(|i| nodes[i as usize]) {
        Some(last) if last.op == op => Node {
            op,
            count: last.count + 1,
            prev: last.prev,
        },
        _ => Node {
            op,
            count: 1,
            prev: path.last,
        },
    };
    nodes.push(node);
    Path {
        old_pos,
        last: Some((nodes.len() - 1) as u32),
    }
}

fn collect(nodes: &[Node], mut last: Option<u32>) -> Vec<Run> {
    let mut runs = Vec::new();
    while let Some(i) = last {
        let n = nodes[i as usize];
        runs.push(Run {
            op: n.op,
            count: n.count,
        });
        last = n.prev;
    }
    runs.reverse();
    runs
}

/// A line of a hunk in progress: its side(s) and its text with the terminator.
type HunkLine<'a> = (Op, &'a str);

/// jsdiff's `structuredPatch` grouping, then the split into old and new sides.
fn group(path: &str, runs: &[Run], old: &[&str], new: &[&str]) -> Vec<Hunk> {
    // Resolve each run to its lines.
    let (mut o, mut n) = (0, 0);
    let mut sections: Vec<(Op, &[&str])> = runs
        .iter()
        .map(|r| match r.op {
            Op::Equal => {
                let lines = &new[n..n + r.count];
                o += r.count;
                n += r.count;
                (Op::Equal, lines)
            }
            Op::Add => {
                let lines = &new[n..n + r.count];
                n += r.count;
                (Op::Add, lines)
            }
            Op::Remove => {
                let lines = &old[o..o + r.count];
                o += r.count;
                (Op::Remove, lines)
            }
        })
        .collect();
    // jsdiff appends an empty sentinel so the last range always closes.
    sections.push((Op::Equal, &[]));

    let mut out = Vec::new();
    let (mut old_range_start, mut new_range_start) = (0usize, 0usize);
    let (mut old_line, mut new_line) = (1usize, 1usize);
    let mut cur: Vec<HunkLine> = Vec::new();
    for (i, &(op, lines)) in sections.iter().enumerate() {
        if op != Op::Equal {
            if old_range_start == 0 {
                old_range_start = old_line;
                new_range_start = new_line;
                if i > 0 {
                    let prev = sections[i - 1].1;
                    let ctx = &prev[prev.len().saturating_sub(CONTEXT)..];
                    cur = ctx.iter().map(|l| (Op::Equal, *l)).collect();
                    old_range_start -= cur.len();
                    new_range_start -= cur.len();
                }
            }
            cur.extend(lines.iter().map(|l| (op, *l)));
            if op == Op::Add {
                new_line += lines.len();
            } else {
                old_line += lines.len();
            }
        } else {
            if old_range_start != 0 {
                if lines.len() <= CONTEXT * 2 && i + 2 < sections.len() {
                    cur.extend(lines.iter().map(|l| (Op::Equal, *l)));
                } else {
                    let keep = lines.len().min(CONTEXT);
                    cur.extend(lines[..keep].iter().map(|l| (Op::Equal, *l)));
                    out.push(Hunk {
                        old_start: old_range_start,
                        new_start: new_range_start,
                        diff: sides(path, &cur),
                    });
                    old_range_start = 0;
                    new_range_start = 0;
                    cur.clear();
                }
            }
            old_line += lines.len();
            new_line += lines.len();
        }
    }
    out
}

/// Context lines go to both sides, removals to the old side, additions to the new side; each
/// line loses one trailing `\n`, and the sides are joined with `\n`.
fn sides(path: &str, lines: &[HunkLine]) -> FileDiff {
    let strip = |l: &str| l.strip_suffix('\n').unwrap_or(l).to_owned();
    let old: Vec<String> = lines
        .iter()
        .filter(|(op, _)| *op != Op::Add)
        .map(|(_, l)| strip(l))
        .collect();
    let new: Vec<String> = lines
        .iter()
        .filter(|(op, _)| *op != Op::Remove)
        .map(|(_, l)| strip(l))
        .collect();
    FileDiff {
        path: path.to_owned(),
        old_text: (!old.is_empty()).then(|| old.join("\n")),
        new_text: new.join("\n"),
        runs: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sides_of(before: &str, after: &str) -> Vec<(Option<String>, String, usize)> {
        hunks("f", before, after)
            .into_iter()
            .map(|h| (h.diff.old_text, h.diff.new_text, h.new_start))
            .collect()
    }

    /// Two files with nothing in common past the search bounds: one whole-file hunk.
    #[test]
    fn unbounded_diffs_take_the_coarse_form() {
        let before: String = (0..8000).map(|i| format!("old line {i}\n")).collect();
        let after: String = (0..8000).map(|i| format!("new line {i}\n")).collect();
        let hs = hunks("f", &before, &after);
        assert_eq!(hs.len(), 1);
        assert_eq!((hs[0].old_start, hs[0].new_start), (1, 1));
        assert_eq!(hs[0].diff.old_text.as_deref(), Some(before.trim_end()));
        assert_eq!(hs[0].diff.new_text, after.trim_end());
        let old: Vec<&str> = before.lines().collect();
        let new: Vec<&str> = after.lines().collect();
        let lines = diff_lines(&old, &new);
        assert!(lines[..8000].iter().all(|(op, _)| *op == Op::Remove));
        assert!(lines[8000..].iter().all(|(op, _)| *op == Op::Add));
        // Within the bounds the exact diff is kept: one changed line in 8,000.
        let mut edited = old.clone();
        edited[4000] = "changed";
        assert_eq!(diff_lines(&old, &edited).len(), 8001);
    }

    #[test]
    fn identical_texts_have_no_hunks() {
        assert!(hunks("f", "a\nb\n", "a\nb\n").is_empty());
        assert!(hunks("f", "", "").is_empty());
    }

    #[test]
    fn terminators_matter() {
        assert_eq!(
            sides_of("x", "x\n"),
            vec![(Some("x".into()), "x".into(), 1)]
        );
    }

    #[test]
    fn merge_and_split_boundary() {
        let base: Vec<String> = (1..=20).map(|i| format!("l{i}\n")).collect();
        let with = |changed: &[usize]| -> String {
            base.iter()
                .enumerate()
                .map(|(i, l)| {
                    if changed.contains(&(i + 1)) {
                        format!("X{}\n", i + 1)
                    } else {
                        l.clone()
                    }
                })
                .collect()
        };
        let before: String = base.concat();
        // Six unchanged lines between changes at 2 and 9: one hunk.
        assert_eq!(hunks("f", &before, &with(&[2, 9])).len(), 1);
        // Seven: two hunks.
        assert_eq!(hunks("f", &before, &with(&[2, 10])).len(), 2);
    }
}
