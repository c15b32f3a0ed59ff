//! Kubernetes resource quantities (`250m`, `1.5`, `128974848`, `129e6`, `123Mi`) read as
//! kubectl top reads them: CPU in millicores and memory in bytes, both rounded up, in whole
//! numbers (no floating point: `0.1` is 100m exactly).

/// A quantity's value as `mantissa × 2^binary × 10^decimal`.
struct Parsed {
    mantissa: u128,
    binary: u32,
    decimal: i32,
}

/// Reads a quantity: a non-negative decimal number, then a binary suffix (`Ki` … `Ei`), a
/// decimal suffix (`n`, `u`, `m`, `k`, `M`, `G`, `T`, `P`, `E`) or an exponent (`e3`, `E-2`).
fn parse(text: &str) -> Option<Parsed> {
    let text = text.trim().strip_prefix('+').unwrap_or(text.trim());
    let end = text.find(|c: char| !c.is_ascii_digit() && c != '.').unwrap_or(text.len());
    let (number, suffix) = text.split_at(end);
    let (whole, fraction) = number.split_once('.').unwrap_or((number, ""));
    if whole.is_empty() && fraction.is_empty() || fraction.contains('.') {
        return None;
    }
    let digits = format!("{whole}{fraction}");
    let mantissa: u128 = digits.parse().ok()?;
    let fraction = i32::try_from(fraction.len()).ok()?;
    let (binary, decimal) = match suffix {
        "" => (0, 0),
        "n" => (0, -9),
        "u" => (0, -6),
        "m" => (0, -3),
        "k" => (0, 3),
        "M" => (0, 6),
        "G" => (0, 9),
        "T" => (0, 12),
        "P" => (0, 15),
        "E" => (0, 18),
        "Ki" => (10, 0),
        "Mi" => (20, 0),
        "Gi" => (30, 0),
        "Ti" => (40, 0),
        "Pi" => (50, 0),
        "Ei" => (60, 0),
        _ => {
            let exponent = suffix.strip_prefix(['e', 'E'])?;
            (0, exponent.parse::<i32>().ok()?)
        }
    };
    Some(Parsed { mantissa, binary, decimal: decimal - fraction })
}

impl Parsed {
    /// The value × 10^scale, rounded up; `None` when it does not fit.
    fn scaled(&self, scale: i32) -> Option<u64> {
        let mut n = self.mantissa.checked_mul(1u128.checked_shl(self.binary)?)?;
        let exponent = self.decimal + scale;
        if exponent >= 0 {
            n = n.checked_mul(10u128.checked_pow(u32::try_from(exponent).ok()?)?)?;
        } else {
            let d = 10u128.checked_pow(exponent.unsigned_abs())?;
            n = n.div_ceil(d);
        }
        u64::try_from(n).ok()
    }
}

/// CPU in millicores, rounded up (kubectl's `MilliValue`).
pub fn millicores(text: &str) -> Option<u64> {
    parse(text)?.scaled(3)
}

/// Memory in bytes, rounded up (kubectl's `Value`).
pub fn bytes(text: &str) -> Option<u64> {
    parse(text)?.scaled(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_is_read_in_millicores_rounded_up() {
        for (text, millis) in [
            ("250m", 250),
            ("1", 1000),
            ("1.5", 1500),
            ("0.1", 100),
            ("2k", 2_000_000),
            ("1234567n", 2),
            ("5000000n", 5),
            ("100u", 1),
            ("0", 0),
            ("1e3", 1_000_000),
            ("15E-1", 1500),
        ] {
            assert_eq!(millicores(text), Some(millis), "{text}");
        }
    }

    #[test]
    fn memory_is_read_in_bytes() {
        for (text, bytes_) in [
            ("128974848", 128_974_848),
            ("129e6", 129_000_000),
            ("129M", 129_000_000),
            ("123Mi", 123 * 1024 * 1024),
            ("1Gi", 1 << 30),
            ("1.5Ki", 1536),
            ("8024932Ki", 8_024_932 * 1024),
            ("1E", 1_000_000_000_000_000_000),
            ("500m", 1),
        ] {
            assert_eq!(bytes(text), Some(bytes_), "{text}");
        }
    }

    #[test]
    fn what_is_no_quantity_is_none() {
        for text in ["", "m", "abc", "1.2.3", "-1", "1Xi", "1e", "99999999999999999999999Ei"] {
            assert_eq!(bytes(text), None, "{text}");
        }
    }
}
