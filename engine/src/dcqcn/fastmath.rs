//! The fluid model's elementary functions, made by hand: in wasm `f64::exp_m1`, `ln_1p`
//! and `powi` are library calls (libm's), and with two or three exponentials per
//! flow-step they were most of the browser's solve. The tests below hold each one to a
//! stated bound against the standard library over the range the model uses.

/// ln(1 − p) for p ∈ [0, 1). The model's marking probabilities are mostly below P_max
/// (often 1 %), where nine terms of the series are exact to f64 precision and much cheaper
/// than `ln_1p` in wasm; above 1 % it is `ln_1p`.
#[inline]
pub(super) fn ln_1m(p: f64) -> f64 {
    if p <= 0.01 {
        const INV: [f64; 9] = [
            1.0,
            1.0 / 2.0,
            1.0 / 3.0,
            1.0 / 4.0,
            1.0 / 5.0,
            1.0 / 6.0,
            1.0 / 7.0,
            1.0 / 8.0,
            1.0 / 9.0,
        ];
        // −p·Σ p^k/(k+1), grouped in pairs (Estrin's scheme) so the multiplications need
        // not wait on each other one by one.
        let p2 = p * p;
        let p4 = p2 * p2;
        let low = (INV[0] + INV[1] * p) + p2 * (INV[2] + INV[3] * p);
        let high = (INV[4] + INV[5] * p) + p2 * (INV[6] + INV[7] * p);
        -p * (low + p4 * (high + p4 * INV[8]))
    } else {
        (-p).ln_1p()
    }
}

/// e^x − 1 within a few parts in 10^14 (relative), for any x. The fluid model needs two or
/// three per flow-step, and `f64::exp_m1` (libm's, in wasm) was 40 % of the browser's solve:
/// this one is a 32-entry table of 2^(j/32) and a degree-6 polynomial, with no division.
#[inline]
pub(super) fn exp_m1(x: f64) -> f64 {
    const LN_MAX: f64 = 709.782_712_893_384;
    const SMALL: f64 = std::f64::consts::LN_2 / 64.0;
    /// 1/k! for k = 1…6: e^r − 1 = r·Σ r^(k−1)/k!; the next term is below 2^-52·|r| here.
    const C: [f64; 6] = [1.0, 0.5, 1.0 / 6.0, 1.0 / 24.0, 1.0 / 120.0, 1.0 / 720.0];
    let poly = |r: f64| {
        let r2 = r * r;
        r * ((C[0] + C[1] * r) + r2 * ((C[2] + C[3] * r) + r2 * (C[4] + C[5] * r)))
    };
    if x.abs() <= SMALL {
        return poly(x);
    }
    if x < -40.0 {
        // e^x is below 2^-57: −1 to within half an ulp.
        return -1.0;
    }
    if x.is_nan() || x > LN_MAX {
        return if x.is_nan() { x } else { f64::INFINITY };
    }
    // x = (32·k + j)·ln2/32 + r, |r| ≤ ln2/64; ln 2/32 in two parts so that r is exact.
    const N_OVER_LN2: f64 = 32.0 * std::f64::consts::LOG2_E;
    const LN2_N_HI: f64 = 0.693_147_180_369_123_8 / 32.0;
    const LN2_N_LO: f64 = 1.908_214_929_270_587_7e-10 / 32.0;
    // Adding 1.5·2^52 rounds to the nearest integer (ties to even) and leaves it in the
    // low bits of the mantissa: no rounding (a library call on baseline x86-64) and no
    // float-to-integer conversion (saturating, so several instructions once compiled).
    const SHIFT: f64 = 6_755_399_441_055_744.0;
    let shifted = x * N_OVER_LN2 + SHIFT;
    let n_f = shifted - SHIFT;
    let r = (x - n_f * LN2_N_HI) - n_f * LN2_N_LO;
    // n ∈ [−1847, 32768] here, so the low 32 bits hold it in two's complement.
    let n = i64::from(shifted.to_bits() as u32 as i32);
    let j = (n & 31) as usize;
    let k = n >> 5;
    // 2^k·2^(j/32); k ∈ [−58, 1024]: split 2^1024 so that it stays finite.
    let scale = if k > 1023 {
        2.0 * f64::from_bits(((k + 1022) as u64) << 52)
    } else {
        f64::from_bits(((k + 1023) as u64) << 52)
    };
    let t = scale * EXP2_J_32[j];
    t * poly(r) + (t - 1.0)
}

/// 2^(j/32) for j = 0…31.
const EXP2_J_32: [f64; 32] = [
    1.0,
    1.0218971486541166,
    1.0442737824274138,
    1.0671404006768237,
    1.0905077326652577,
    1.1143867425958924,
    1.1387886347566916,
    1.1637248587775775,
    1.189207115002721,
    1.215247359980469,
    1.241857812073484,
    1.2690509571917332,
    1.2968395546510096,
    1.3252366431597413,
    1.3542555469368927,
    1.383909881963832,
    std::f64::consts::SQRT_2,
    1.4451808069770467,
    1.4768261459394993,
    1.5091644275934228,
    1.5422108254079407,
    1.5759808451078865,
    1.6104903319492543,
    1.645755478153965,
    1.681792830507429,
    1.718619298122478,
    1.7562521603732995,
    1.7947090750031072,
    1.8340080864093424,
    1.8741676341103,
    1.9152065613971474,
    1.9571441241754002,
];

/// x^n by squaring, inline: `powi` is a library call in wasm, made twice per flow-step.
/// Each squaring doubles the relative error carried so far, so it is within about n ulps.
#[inline]
pub(super) fn pow_n(x: f64, n: u32) -> f64 {
    let (mut base, mut n, mut acc) = (x, n, 1.0);
    while n > 0 {
        if n & 1 == 1 {
            acc *= base;
        }
        base *= base;
        n >>= 1;
    }
    acc
}

/// `x` held to [lo, hi] (lo ≤ hi) by two comparisons: `f64::clamp` also asserts its
/// bounds and orders NaN, which adds instructions on a path taken nine times a step.
#[inline]
pub(super) fn bounded(x: f64, lo: f64, hi: f64) -> f64 {
    let x = if x < lo { lo } else { x };
    if x > hi {
        hi
    } else {
        x
    }
}

#[cfg(test)]
mod tests {
    use super::super::fluid::P_CAP;
    use super::*;

    /// |got − want| / |want|, or the absolute difference where want is 0 or infinite.
    fn rel_err(got: f64, want: f64) -> f64 {
        if want == 0.0 || want.is_infinite() {
            (got - want).abs()
        } else {
            ((got - want) / want).abs()
        }
    }

    #[test]
    fn the_log_series_matches_ln_1p() {
        for p in [0.0, 1e-9, 1e-4, 0.003, 0.01, 0.0100001, 0.2, P_CAP] {
            let want = (-p).ln_1p();
            let got = ln_1m(p);
            assert!(
                (got - want).abs() <= 4.0 * f64::EPSILON * want.abs(),
                "p = {p}: {got} vs {want}"
            );
        }
    }

    #[test]
    fn ln_1m_is_within_four_ulps_over_every_marking_probability() {
        // The series' whole range densely, its small end by decades, and above it
        // (where `ln_1p` itself answers) up to the model's cap.
        let dense = (0..=200_000).map(|k| f64::from(k) * 0.01 / 200_000.0);
        let decades = (1..=300).map(|k| 10f64.powi(-k));
        let above = (0..=10_000).map(|k| 0.01 + f64::from(k) * (P_CAP - 0.01) / 10_000.0);
        for p in dense.chain(decades).chain(above) {
            let got = ln_1m(p);
            let want = (-p).ln_1p();
            assert!(
                (got - want).abs() <= 4.0 * f64::EPSILON * want.abs(),
                "p = {p:e}: {got:e} vs {want:e}"
            );
        }
    }

    #[test]
    fn exp_m1_matches_the_standard_library() {
        let mut worst = 0.0_f64;
        let mut x: f64 = -45.0;
        while x < 710.0 {
            for v in [x, x * 1e-3, -x * 1e-9, x * 1e-300] {
                worst = worst.max(rel_err(exp_m1(v), v.exp_m1()));
            }
            x += 0.000_73;
        }
        assert!(worst < 1e-13, "worst relative error {worst:e}");
        assert_eq!(exp_m1(0.0), 0.0);
        assert_eq!(exp_m1(-1e3), -1.0);
        assert_eq!(exp_m1(710.0), f64::INFINITY);
        assert!(exp_m1(709.7).is_finite());
        assert!(exp_m1(f64::NAN).is_nan());
    }

    #[test]
    fn exp_m1_is_within_1e_minus_14_where_the_model_takes_it() {
        // The model takes e^y − 1 of y = n·ln(1 − p) ≤ 0 only: from −0 down past −40,
        // where it is −1, with the tiny |y| of faint marking by decades.
        let mut worst = 0.0_f64;
        let near = (0..=400_000).map(|k| -f64::from(k) * 50.0 / 400_000.0);
        let tiny = (1..=300).map(|k| -(10f64.powi(-k)));
        for y in near.chain(tiny) {
            worst = worst.max(rel_err(exp_m1(y), y.exp_m1()));
        }
        // Measured: 4.6e-15 (about 21 ulps) at the commit that moved it here.
        assert!(worst < 1e-14, "worst relative error {worst:e}");
    }

    #[test]
    fn pow_n_is_within_n_ulps_of_powf() {
        // Bases in [0, 1] (chances that a run goes unmarked), exponents over
        // `rp_threshold`'s range [1, 1000], and 0.
        for n in (0..=1000_u32).step_by(7).chain([1, 2, 3, 1000]) {
            for k in 0..=2_000 {
                let x = f64::from(k) / 2_000.0;
                let got = pow_n(x, n);
                let want = x.powf(f64::from(n));
                // Past underflow only an absolute bound means anything.
                let slack = f64::from(n.max(1)) * f64::EPSILON * want + f64::MIN_POSITIVE;
                assert!((got - want).abs() <= slack, "{x}^{n}: {got:e} vs {want:e}");
            }
        }
        assert_eq!(pow_n(0.3, 0), 1.0);
        assert_eq!(pow_n(0.0, 0), 1.0);
        assert_eq!(pow_n(1.0, 1000), 1.0);
    }

    #[test]
    fn bounded_is_clamp_for_ordered_bounds() {
        let values = [
            f64::NEG_INFINITY,
            -1e300,
            -1.0,
            -0.0,
            0.0,
            1e-300,
            0.25,
            0.5,
            1.0,
            3.0,
            1e300,
            f64::INFINITY,
        ];
        for &x in &values {
            for &lo in &values {
                for &hi in values.iter().filter(|&&hi| hi >= lo) {
                    let (got, want) = (bounded(x, lo, hi), x.clamp(lo, hi));
                    assert!(
                        got == want,
                        "bounded({x}, {lo}, {hi}) = {got}, clamp gives {want}"
                    );
                }
            }
        }
        assert!(bounded(f64::NAN, 0.0, 1.0).is_nan());
    }
}
