//! What the store benchmarks share (each example includes this module).

/// `x` rounded to `digits` decimal places, as the results files print figures.
pub fn round(x: f64, digits: i32) -> f64 {
    let f = 10f64.powi(digits);
    (x * f).round() / f
}
