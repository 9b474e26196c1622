//! Integers written as decimal digits straight into a `String`. Paths that run for every sample
//! of a scrape (the metrics encoder) or every poll (Mumble's version text) spent more in the
//! formatter's machinery than in the digits themselves.

/// Appends `v` in decimal, as `Display` writes it.
pub fn push_u64(out: &mut String, mut v: u64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    // Only ASCII digits were written, so this never falls back.
    out.push_str(std::str::from_utf8(&digits[at..]).unwrap_or("0"));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Integers print as `Display` does, at both ends of the range and after existing text.
    #[test]
    fn integers() {
        for v in [0, 7, 10, 99, 1_000_000, u64::MAX - 1, u64::MAX] {
            let mut s = String::from("v=");
            push_u64(&mut s, v);
            assert_eq!(s, format!("v={v}"));
        }
    }
}
