//! What a scenario measured, and the arithmetic on it: rates and latency percentiles.

use std::time::Duration;

/// Operations counted over a measured interval, with a latency per operation in microseconds.
#[derive(Debug, Clone, Default)]
pub struct Sampled {
    /// Operations completed inside the measured interval.
    pub ops: u64,
    /// The measured interval.
    pub elapsed: Duration,
    /// One latency per operation, in microseconds (unsorted).
    pub latencies_us: Vec<u32>,
    /// Operations that failed; a run with failures is reported, not hidden.
    pub errors: u64,
}

impl Sampled {
    /// Operations per second.
    pub fn rate(&self) -> f64 {
        rate(self.ops, self.elapsed)
    }

    /// Latency percentiles (p50, p99) in milliseconds.
    pub fn percentiles(&mut self) -> (f64, f64) {
        self.latencies_us.sort_unstable();
        (
            percentile(&self.latencies_us, 0.50),
            percentile(&self.latencies_us, 0.99),
        )
    }

    /// Adds another client's measurements (same interval).
    pub fn merge(&mut self, other: Sampled) {
        self.ops += other.ops;
        self.errors += other.errors;
        self.elapsed = self.elapsed.max(other.elapsed);
        self.latencies_us.extend(other.latencies_us);
    }
}

/// `count` per second over `elapsed`.
pub fn rate(count: u64, elapsed: Duration) -> f64 {
    let secs = elapsed.as_secs_f64();
    if secs > 0.0 { count as f64 / secs } else { 0.0 }
}

/// The nearest-rank percentile of sorted microseconds, in milliseconds (0 when empty).
pub fn percentile(sorted_us: &[u32], p: f64) -> f64 {
    if sorted_us.is_empty() {
        return 0.0;
    }
    let rank = ((p * sorted_us.len() as f64).ceil() as usize).clamp(1, sorted_us.len());
    f64::from(sorted_us[rank - 1]) / 1000.0
}

/// Microseconds, saturating (a latency over 71 minutes is not a latency worth telling apart).
pub fn micros(d: Duration) -> u32 {
    u32::try_from(d.as_micros()).unwrap_or(u32::MAX)
}

/// The load of a fan-out run.
#[derive(Debug, Clone, Copy)]
pub struct FanoutPlan {
    /// Subscribers, one connection each.
    pub subscribers: usize,
    /// Output events published per second.
    pub rate: u64,
    /// How long the publisher publishes.
    pub duration: Duration,
    /// Events per publish (and per flush).
    pub batch: usize,
}

impl FanoutPlan {
    /// Events published in all.
    pub fn events(&self) -> u64 {
        (self.rate as f64 * self.duration.as_secs_f64()).round() as u64
    }

    /// Time between publishes.
    pub fn period(&self) -> Duration {
        Duration::from_secs_f64(self.batch as f64 / self.rate.max(1) as f64)
    }
}

/// A fan-out run: deliveries to every subscriber of events published at a fixed rate.
#[derive(Debug, Clone, Default)]
pub struct Fanout {
    /// Events published.
    pub published: u64,
    /// Deliveries expected (published × subscribers).
    pub expected: u64,
    /// Deliveries received, with one publish→delivery latency each.
    pub delivered: Sampled,
    /// The publishes, with their ack latencies.
    pub publishes: Sampled,
    /// The bytes of one delivered message (the rendered ACP JSON of an output event).
    pub message_bytes: usize,
    /// CPU time the server used from the first publish to the last delivery.
    pub server_cpu: Duration,
    /// CPU time this (client) process used in the same interval.
    pub client_cpu: Duration,
}

impl Fanout {
    /// The server's CPU time per delivery, in µs.
    pub fn server_cpu_per_delivery(&self) -> f64 {
        self.server_cpu.as_secs_f64() * 1e6 / self.delivered.ops.max(1) as f64
    }
}

/// Reads a process's CPU time; called when a measured interval starts and ends.
pub type CpuProbe<'a> = &'a (dyn Fn() -> Duration + Sync);

/// CPU used over an interval by the server and by this process.
pub struct CpuSpan<'a> {
    server: CpuProbe<'a>,
    start: (Duration, Duration),
}

impl<'a> CpuSpan<'a> {
    /// Starts the interval now.
    pub fn start(server: CpuProbe<'a>) -> Self {
        CpuSpan {
            server,
            start: (server(), own_cpu()),
        }
    }

    /// (server, client) CPU time since `start`.
    pub fn stop(&self) -> (Duration, Duration) {
        (
            (self.server)().saturating_sub(self.start.0),
            own_cpu().saturating_sub(self.start.1),
        )
    }
}

fn own_cpu() -> Duration {
    crate::process::cpu_time(std::process::id())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_percentiles() {
        let v: Vec<u32> = (1..=100).map(|i| i * 1000).collect();
        assert_eq!(percentile(&v, 0.50), 50.0);
        assert_eq!(percentile(&v, 0.99), 99.0);
        assert_eq!(percentile(&v, 1.0), 100.0);
        assert_eq!(percentile(&[7000], 0.99), 7.0);
        assert_eq!(percentile(&[], 0.5), 0.0);
    }

    #[test]
    fn rates() {
        assert_eq!(rate(500, Duration::from_millis(250)), 2000.0);
        assert_eq!(rate(5, Duration::ZERO), 0.0);
    }
}
