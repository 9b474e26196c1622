//! The standard `process_*` metrics, read from `/proc/self` on Linux (no maintained crate
//! offers them for our exposition code). Elsewhere [`read`] returns `None` and the family is
//! omitted.

/// One reading of this process' resources.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ProcessStats {
    pub cpu_seconds: f64,
    pub resident_bytes: u64,
    pub virtual_bytes: u64,
    pub open_fds: u64,
    pub max_fds: Option<u64>,
    pub start_time_seconds: f64,
}

/// Kernel clock ticks per second as seen from user space (`USER_HZ`): part of the Linux ABI
/// and 100 on every architecture the kernel supports, so no `sysconf` call is needed.
const USER_HZ: f64 = 100.0;

#[cfg(target_os = "linux")]
pub fn read() -> Option<ProcessStats> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let boot = std::fs::read_to_string("/proc/stat").ok()?;
    let limits = std::fs::read_to_string("/proc/self/limits").unwrap_or_default();
    let open_fds = std::fs::read_dir("/proc/self/fd").ok()?.count() as u64;
    parse(&stat, &status, &boot, &limits, open_fds)
}

#[cfg(not(target_os = "linux"))]
pub fn read() -> Option<ProcessStats> {
    None
}

/// Parses the `/proc` files; separate from [`read`] so it can be tested with fixed text.
pub fn parse(
    stat: &str,
    status: &str,
    proc_stat: &str,
    limits: &str,
    open_fds: u64,
) -> Option<ProcessStats> {
    // The command name in field 2 may contain spaces and parentheses: fields start after the
    // last ')'. Field 3 (state) is then index 0.
    let rest = &stat[stat.rfind(')')? + 1..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    let field = |n: usize| f.get(n - 3)?.parse::<u64>().ok();
    let cpu_seconds = (field(14)? + field(15)?) as f64 / USER_HZ;
    let start_ticks = field(22)?;
    let btime = proc_stat
        .lines()
        .find_map(|l| l.strip_prefix("btime "))?
        .trim()
        .parse::<u64>()
        .ok()?;
    let kb = |key: &str| -> Option<u64> {
        let v = status.lines().find_map(|l| l.strip_prefix(key))?;
        v.split_whitespace()
            .next()?
            .parse::<u64>()
            .ok()
            .map(|k| k * 1024)
    };
    let max_fds = limits
        .lines()
        .find_map(|l| l.strip_prefix("Max open files"))
        .and_then(|v| v.split_whitespace().next()?.parse::<u64>().ok());
    Some(ProcessStats {
        cpu_seconds,
        resident_bytes: kb("VmRSS:").unwrap_or(0),
        virtual_bytes: kb("VmSize:").unwrap_or(0),
        open_fds,
        max_fds,
        start_time_seconds: btime as f64 + start_ticks as f64 / USER_HZ,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Fields are counted after the command name, which may hold spaces and parentheses.
    #[test]
    fn parses_proc_text() {
        let stat = "1234 (my (odd) exe) S 1 1234 1234 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 3 0 5000 123456789 400 18446744073709551615";
        let status = "Name:\tx\nVmSize:\t  120560 kB\nVmRSS:\t    5120 kB\n";
        let boot = "cpu  1 2 3\nbtime 1700000000\n";
        let limits = "Limit                     Soft Limit           Hard Limit           Units\nMax open files            1024                 524288               files\n";
        let p = parse(stat, status, boot, limits, 7).unwrap();
        assert_eq!(p.cpu_seconds, 3.0);
        assert_eq!(p.start_time_seconds, 1_700_000_050.0);
        assert_eq!(p.resident_bytes, 5120 * 1024);
        assert_eq!(p.virtual_bytes, 120560 * 1024);
        assert_eq!(p.max_fds, Some(1024));
        assert_eq!(p.open_fds, 7);
    }

    /// Truncated input gives None, not a panic.
    #[test]
    fn garbage() {
        assert_eq!(parse("1 (x) S 1", "", "", "", 0), None);
        assert_eq!(parse("", "", "", "", 0), None);
    }

    /// This process can read its own numbers.
    #[cfg(target_os = "linux")]
    #[test]
    fn reads_self() {
        let p = read().unwrap();
        assert!(p.resident_bytes > 0 && p.open_fds > 0 && p.start_time_seconds > 1e9);
    }
}
