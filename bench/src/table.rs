//! The table: a row, progress on stderr, the medians and formats every row module uses, and
//! the printing. Row modules depend on this and `config.rs`, never on `run.rs`.

use std::io::Write;
use std::time::Instant;

use crate::measure::{self, Fanout, Sampled};

/// One line of the table.
pub(crate) struct Row {
    pub scenario: String,
    pub result: String,
    pub latency: Option<(f64, f64)>,
    pub goal: &'static str,
    pub verdict: String,
}

impl Row {
    pub fn new(scenario: String, result: String) -> Self {
        Row {
            scenario,
            result,
            latency: None,
            goal: "",
            verdict: String::new(),
        }
    }
}

/// A line on stderr: how far the run is.
pub(crate) fn progress(what: &str) {
    static START: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
    let t = START.get_or_init(Instant::now).elapsed().as_secs_f64();
    eprintln!("bench [{t:6.1} s]: {what}");
}

/// The run with the median rate.
pub(crate) fn median(mut runs: Vec<Sampled>) -> Sampled {
    runs.sort_by(|a, b| a.rate().total_cmp(&b.rate()));
    let mid = runs.len() / 2;
    runs.swap_remove(mid)
}

pub(crate) fn percentile_of(f: &Fanout, p: f64) -> f64 {
    let mut v = f.delivered.latencies_us.clone();
    v.sort_unstable();
    measure::percentile(&v, p)
}

pub(crate) fn fanout_row(scenario: String, mut f: Fanout) -> Row {
    let missing = f.expected.saturating_sub(f.delivered.ops);
    let mut row = Row::new(
        scenario,
        format!("{} deliveries/s", thousands(f.delivered.rate())),
    );
    row.latency = Some(f.delivered.percentiles());
    row.result = format!(
        "{} (CPU per delivery: server {:.1} µs, clients {:.1} µs)",
        row.result,
        f.server_cpu_per_delivery(),
        f.client_cpu.as_secs_f64() * 1e6 / f.delivered.ops.max(1) as f64
    );
    if missing > 0 {
        row.verdict = format!(
            ", {missing} of {} ({} events × subscribers) not delivered",
            f.expected, f.published
        );
    }
    row
}

pub(crate) fn errors(s: &Sampled) -> String {
    if s.errors > 0 {
        format!(", {} errors", s.errors)
    } else {
        String::new()
    }
}

pub(crate) fn mark(met: bool, detail: String) -> String {
    let detail = detail.trim_start_matches(", ");
    match (met, detail.is_empty()) {
        (true, true) => "met".into(),
        (true, false) => format!("met: {detail}"),
        (false, true) => "MISSED".into(),
        (false, false) => format!("MISSED: {detail}"),
    }
}

/// `1 caller`, `16 callers`.
pub(crate) fn plural(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// `1234567.8` → `1,234,568`.
pub(crate) fn thousands(x: f64) -> String {
    let digits = format!("{:.0}", x.max(0.0));
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

pub(crate) fn print_table(rows: &[Row], out: &mut impl Write) -> std::io::Result<()> {
    writeln!(
        out,
        "| scenario | result | p50 ms | p99 ms | goal | verdict |"
    )?;
    writeln!(out, "|---|---:|---:|---:|---|---|")?;
    for r in rows {
        let (p50, p99) = r.latency.map_or((String::new(), String::new()), |(a, b)| {
            (format!("{a:.2}"), format!("{b:.2}"))
        });
        writeln!(
            out,
            "| {} | {} | {p50} | {p99} | {} | {} |",
            r.scenario, r.result, r.goal, r.verdict
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thousands_separators() {
        assert_eq!(thousands(0.0), "0");
        assert_eq!(thousands(999.4), "999");
        assert_eq!(thousands(1000.0), "1,000");
        assert_eq!(thousands(1234567.8), "1,234,568");
    }

    #[test]
    fn verdicts() {
        assert_eq!(mark(true, String::new()), "met");
        assert_eq!(mark(false, ", 3 errors".into()), "MISSED: 3 errors");
    }
}
