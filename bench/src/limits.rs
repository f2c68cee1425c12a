//! The limits the bench's goals are ratios to, measured in the same run (absolute times move 2×
//! between machines of one kind): how long this disk takes to make one block durable, and how
//! fast one core folds and renders events in process.

use std::fs::OpenOptions;
use std::os::unix::fs::FileExt as _;
use std::time::{Duration, Instant};

use toolview::render::{Capabilities, Renderer, Target};

use crate::config::BenchConfig;
use crate::load;
use crate::measure;
use crate::process::fresh_dir;
use crate::table::{Row, mark, progress, thousands};

/// One block, as a journal append writes it.
const BLOCK: usize = 4096;

/// What this machine can do at best, measured at the start of a run.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// `fdatasync` of one block over preallocated space on the data directories' file system:
    /// p50 and p99, in µs. The floor of a durable single-event publish.
    pub flush_us: (f64, f64),
    /// Fold + render to ACP (terminal on) on one core, in process: events per second. The
    /// ceiling of a replay.
    pub render_rate: f64,
}

impl Limits {
    /// Measures both (about a second, or a tenth of that with `--quick`).
    pub fn measure(config: &BenchConfig) -> anyhow::Result<Limits> {
        progress("limits: disk flush probe");
        let flush_us = flush_probe(if config.quick { 50 } else { 500 })?;
        progress("limits: fold + render on one core");
        let render_rate = render_rate(config);
        Ok(Limits {
            flush_us,
            render_rate,
        })
    }

    /// The header's line about them.
    pub fn describe(&self) -> String {
        format!(
            "disk flush (fdatasync of a 4 KiB block over preallocated space): p50 {:.0} µs, \
             p99 {:.0} µs; fold + render to ACP in process: {} events/s on one core",
            self.flush_us.0,
            self.flush_us.1,
            thousands(self.render_rate)
        )
    }

    /// The row for the render rate, with its own goal.
    pub fn render_row(&self) -> Row {
        let mut row = Row::new(
            "ACP renders, one core (fold + render in process, terminal on)".into(),
            format!("{} renders/s", thousands(self.render_rate)),
        );
        row.goal = "≥ 200,000/s";
        row.verdict = mark(self.render_rate >= 200_000.0, String::new());
        row
    }
}

/// Writes `samples` blocks, each made durable on its own, into a file whose space was written
/// and flushed first (so only data blocks are timed, not the file's growth): p50 and p99 in µs.
fn flush_probe(samples: usize) -> anyhow::Result<(f64, f64)> {
    let dir = fresh_dir("flush");
    std::fs::create_dir_all(&dir)?;
    let path = dir.join("probe");
    let file = OpenOptions::new()
        .create(true)
        .read(true)
        .write(true)
        .truncate(true)
        .open(&path)?;
    file.write_all_at(&vec![0u8; samples * BLOCK], 0)?;
    file.sync_all()?;
    let block = vec![0xa5u8; BLOCK];
    let mut us = Vec::with_capacity(samples);
    for i in 0..samples {
        let t = Instant::now();
        file.write_all_at(&block, (i * BLOCK) as u64)?;
        file.sync_data()?;
        us.push(t.elapsed().as_secs_f64() * 1e6);
    }
    drop(file);
    let _ = std::fs::remove_dir_all(&dir);
    us.sort_by(f64::total_cmp);
    Ok((us[us.len() / 2], us[us.len() * 99 / 100]))
}

/// Fold + render of the fan-out session's events to ACP (terminal on), on this thread.
fn render_rate(config: &BenchConfig) -> f64 {
    let events = load::script_events(10_000, config.payload);
    let caps = Capabilities::all(true);
    let budget = Duration::from_millis(if config.quick { 100 } else { 1_000 });
    let mut count = 0u64;
    let t0 = Instant::now();
    while t0.elapsed() < budget {
        let mut renderer = Renderer::new("", Target::Acp, caps, usize::MAX);
        for event in &events {
            std::hint::black_box(renderer.step(event));
        }
        count += events.len() as u64;
    }
    measure::rate(count, t0.elapsed())
}
