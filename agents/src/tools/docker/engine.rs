//! The Docker Engine API's answers, as much of them as the tool shows, and
//! its log stream's framing.

use std::collections::HashMap;

use serde::Deserialize;

use super::{Container, ContainerState, ContainerStats};

/// One row of `GET /containers/json`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct Listed {
    #[serde(default)]
    names: Vec<String>,
    #[serde(default)]
    image: String,
    #[serde(default)]
    state: String,
    #[serde(default)]
    status: String,
}

impl Listed {
    pub fn into_row(self) -> Container {
        Container {
            name: self
                .names
                .first()
                .map(|name| name.trim_start_matches('/').to_owned())
                .unwrap_or_default(),
            image: self.image,
            state: self.state,
            status: self.status,
        }
    }
}

/// `GET /containers/{name}/json`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct Inspected {
    #[serde(default)]
    name: String,
    #[serde(default)]
    restart_count: u64,
    state: State,
    #[serde(default)]
    config: Config,
    #[serde(default)]
    host_config: HostConfig,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
struct State {
    #[serde(default)]
    status: String,
    #[serde(default, rename = "OOMKilled")]
    oom_killed: bool,
    #[serde(default)]
    exit_code: i64,
    #[serde(default)]
    started_at: String,
    #[serde(default)]
    finished_at: String,
    #[serde(default)]
    health: Option<Health>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
struct Health {
    status: String,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "PascalCase")]
struct Config {
    #[serde(default)]
    image: String,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "PascalCase")]
struct HostConfig {
    /// Bytes; 0: no limit.
    #[serde(default)]
    memory: u64,
}

impl Inspected {
    pub fn into_state(self) -> ContainerState {
        ContainerState {
            name: self.name.trim_start_matches('/').to_owned(),
            image: self.config.image,
            status: self.state.status,
            health: self.state.health.map(|health| health.status),
            restart_count: self.restart_count,
            exit_code: self.state.exit_code,
            oom_killed: self.state.oom_killed,
            started_at: self.state.started_at,
            finished_at: self.state.finished_at,
            memory_limit_bytes: Some(self.host_config.memory).filter(|&bytes| bytes > 0),
        }
    }
}

/// `GET /containers/{name}/stats?stream=false`: two samples a second apart.
#[derive(Debug, Deserialize)]
pub struct Stats {
    cpu_stats: Cpu,
    precpu_stats: Cpu,
    memory_stats: Memory,
}

#[derive(Debug, Default, Deserialize)]
struct Cpu {
    #[serde(default)]
    cpu_usage: CpuUsage,
    #[serde(default)]
    system_cpu_usage: u64,
    #[serde(default)]
    online_cpus: u32,
}

#[derive(Debug, Default, Deserialize)]
struct CpuUsage {
    #[serde(default)]
    total_usage: u64,
}

#[derive(Debug, Default, Deserialize)]
struct Memory {
    #[serde(default)]
    usage: u64,
    #[serde(default)]
    limit: u64,
    #[serde(default)]
    stats: HashMap<String, u64>,
}

impl Stats {
    /// The figures `docker stats` shows: CPU in % of one CPU, memory
    /// without the page cache (`inactive_file`), in % of the limit.
    pub fn into_stats(self, name: &str) -> ContainerStats {
        let cpu = self
            .cpu_stats
            .cpu_usage
            .total_usage
            .saturating_sub(self.precpu_stats.cpu_usage.total_usage);
        let system = self
            .cpu_stats
            .system_cpu_usage
            .saturating_sub(self.precpu_stats.system_cpu_usage);
        let cpus = self.cpu_stats.online_cpus.max(1);
        let cpu_percent = if system == 0 {
            0.0
        } else {
            cpu as f64 / system as f64 * f64::from(cpus) * 100.0
        };
        let memory = &self.memory_stats;
        let cache = ["inactive_file", "total_inactive_file"]
            .iter()
            .find_map(|key| memory.stats.get(*key))
            .copied()
            .unwrap_or(0);
        let used = memory.usage.saturating_sub(cache);
        let memory_percent = if memory.limit == 0 {
            0.0
        } else {
            used as f64 / memory.limit as f64 * 100.0
        };
        ContainerStats {
            name: name.to_owned(),
            cpu_percent: round2(cpu_percent),
            memory_percent: round2(memory_percent),
            memory_used_bytes: used,
            memory_limit_bytes: memory.limit,
        }
    }
}

fn round2(value: f64) -> f64 {
    (value * 100.0).round() / 100.0
}

/// The log text of a container without a TTY, whose stream is framed: each
/// frame has an 8-byte header (stream 0/1/2, three zeros, big-endian
/// length). A container with a TTY sends raw text, returned as is.
pub fn demultiplex(body: &[u8]) -> Vec<u8> {
    let framed = |rest: &[u8]| rest.len() >= 8 && rest[0] <= 2 && rest[1..4] == [0, 0, 0];
    if !framed(body) {
        return body.to_vec();
    }
    let mut text = Vec::with_capacity(body.len());
    let mut rest = body;
    while framed(rest) {
        let length = u32::from_be_bytes([rest[4], rest[5], rest[6], rest[7]]);
        let end = usize::try_from(length)
            .map_or(rest.len(), |length| 8usize.saturating_add(length))
            .min(rest.len());
        text.extend_from_slice(&rest[8..end]);
        rest = &rest[end..];
    }
    text.extend_from_slice(rest);
    text
}

/// The end of `text` within `max` bytes, from a line start when it is cut,
/// and whether it was cut.
pub fn tail_of(text: &str, max: usize) -> (&str, bool) {
    if text.len() <= max {
        return (text, false);
    }
    let mut start = text.len() - max;
    while !text.is_char_boundary(start) {
        start += 1;
    }
    let kept = &text[start..];
    match kept.find('\n') {
        Some(newline) if newline + 1 < kept.len() => (&kept[newline + 1..], true),
        _ => (kept, true),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(stream: u8, text: &str) -> Vec<u8> {
        let mut bytes = vec![stream, 0, 0, 0];
        bytes.extend_from_slice(&u32::try_from(text.len()).unwrap_or(0).to_be_bytes());
        bytes.extend_from_slice(text.as_bytes());
        bytes
    }

    #[test]
    fn framed_logs_lose_their_headers_and_raw_ones_are_kept() {
        let mut body = frame(1, "started\n");
        body.extend(frame(2, "warning: low disk\n"));
        assert_eq!(demultiplex(&body), b"started\nwarning: low disk\n");
        assert_eq!(demultiplex(b"tty output\n"), b"tty output\n");
    }

    #[test]
    fn the_tail_keeps_the_last_whole_lines() {
        assert_eq!(tail_of("one\ntwo\nthree\n", 9), ("three\n", true));
        assert_eq!(tail_of("one\n", 9), ("one\n", false));
    }
}
