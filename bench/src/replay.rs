//! A new subscriber replaying a long session, and the memory idle subscribers hold.

use std::time::Duration;

use crate::config::BenchConfig;
use crate::limits::Limits;
use crate::load;
use crate::measure;
use crate::process::Server;
use crate::table::{Row, mark, progress, thousands};

pub async fn replay_row(
    config: &BenchConfig,
    limits: &Limits,
    rows: &mut Vec<Row>,
) -> anyhow::Result<()> {
    let n = config.replay_events;
    let server = Server::toolview(&config.toolview, "embedded")?;
    progress(&format!("replay: publishing {n} events"));
    load::fill(&server.url, "replay", n, config.payload, 1_000).await?;
    progress("replay: one new subscriber from the beginning");
    let server_cpu = || server.cpu_time();
    let cpu = measure::CpuSpan::start(&server_cpu);
    let (took, updates) = load::replay(&server.url, "replay", n).await?;
    let (server_cpu, client_cpu) = cpu.stop();
    let per_event = |cpu: Duration| cpu.as_secs_f64() * 1e6 / updates.max(1) as f64;
    let mut row = Row::new(
        format!(
            "replay of a {} event session to a new subscriber (embedded, ACP, terminal on)",
            thousands(n as f64)
        ),
        format!(
            "{:.2} s ({} ev/s; CPU per event: server {:.1} µs, client {:.1} µs)",
            took.as_secs_f64(),
            thousands(measure::rate(updates, took)),
            per_event(server_cpu),
            per_event(client_cpu),
        ),
    );
    // The ceiling is the fold + render rate of one core, measured in this run.
    let share = measure::rate(updates, took) / limits.render_rate.max(1.0);
    row.goal = "≥ 70% of the in-process render rate";
    row.verdict = mark(
        share >= 0.70,
        format!("{:.0}% of it, {updates} updates", share * 100.0),
    );
    rows.push(row);
    Ok(())
}

pub async fn idle_rows(config: &BenchConfig, rows: &mut Vec<Row>) -> anyhow::Result<()> {
    let n = config.idle_subscribers;
    for &per in &config.idle_per_connection {
        let server = Server::toolview(&config.toolview, "embedded")?;
        load::fill(&server.url, "idle", 1, config.payload, 1).await?;
        // Let the freshly started server settle before the baseline reading.
        tokio::time::sleep(Duration::from_millis(300)).await;
        let before = server.rss_kib()?;
        progress(&format!(
            "memory: {n} idle subscribers, {per} per connection"
        ));
        let idle = load::idle_subscribers(&server.url, "idle", n, per).await?;
        tokio::time::sleep(Duration::from_millis(500)).await;
        let after = server.rss_kib()?;
        drop(idle);
        let each = after.saturating_sub(before) as f64 / n.max(1) as f64;
        let mut row = Row::new(
            format!(
                "server memory, {} idle subscribers, {per} per connection",
                thousands(n as f64)
            ),
            format!("{each:.1} KiB per subscriber"),
        );
        row.verdict = format!(
            "RSS {:.1} → {:.1} MiB",
            before as f64 / 1024.0,
            after as f64 / 1024.0
        );
        // The goal is for a subscriber on its own connection, as a UI process is.
        if per == 1 {
            row.goal = "≤ 24 KiB each";
            row.verdict = mark(each <= 24.0, row.verdict);
        }
        rows.push(row);
    }
    Ok(())
}
