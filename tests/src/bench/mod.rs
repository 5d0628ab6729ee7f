//! Workloads and timings that `lab-bench` prints, one module per section, and the two
//! ways every section reports: a median and a verdict against the target.

pub mod dcqcn;
pub mod decode;
pub mod netsim;
pub mod probe;
pub mod site;

/// The median of the finite values (NaN when there are none).
pub fn median(values: &[f64]) -> f64 {
    let mut v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

pub fn verdict(ok: bool) -> &'static str {
    if ok {
        "meets target"
    } else {
        "MISSES TARGET"
    }
}
