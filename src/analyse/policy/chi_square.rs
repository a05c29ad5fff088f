//! Pearson's chi-square goodness-of-fit test: do observed counts fit the probabilities a policy
//! should give? Written here (log-gamma, regularised incomplete gamma) to keep the numbers
//! reproducible and the dependency list short.

/// Below this expected count in any category the chi-square approximation means little.
pub const MIN_EXPECTED: f64 = 5.0;

/// The p-value of Pearson's chi-square test of `observed` against `expected_probs`.
///
/// `expected_probs` are normalised to sum to 1 (so expected counts or shares work as well).
/// Categories with probability 0 and no observation are dropped; an observation in a category of
/// probability 0 is impossible under the hypothesis and gives `Some(0.0)`.
///
/// `None` when the test cannot mean anything: lengths differ, nothing was observed, a probability
/// is negative or not finite, fewer than two categories remain, or any expected count is below 5.
pub fn chi_square_p(observed: &[u64], expected_probs: &[f64]) -> Option<f64> {
    if observed.len() != expected_probs.len() {
        return None;
    }
    if expected_probs.iter().any(|p| !p.is_finite() || *p < 0.0) {
        return None;
    }
    let total_p: f64 = expected_probs.iter().sum();
    let n: u64 = observed.iter().try_fold(0u64, |a, &o| a.checked_add(o))?;
    if n == 0 || total_p <= 0.0 {
        return None;
    }
    let n = n as f64;
    let mut statistic = 0.0;
    let mut categories = 0usize;
    for (&o, &p) in observed.iter().zip(expected_probs) {
        let expected = n * p / total_p;
        if p == 0.0 {
            if o > 0 {
                return Some(0.0);
            }
            continue;
        }
        if expected < MIN_EXPECTED {
            return None;
        }
        let d = o as f64 - expected;
        statistic += d * d / expected;
        categories += 1;
    }
    if categories < 2 {
        return None;
    }
    Some(chi_square_sf(statistic, (categories - 1) as f64))
}

/// P(X >= x) for X chi-square distributed with `df` degrees of freedom.
pub fn chi_square_sf(x: f64, df: f64) -> f64 {
    if x <= 0.0 {
        return 1.0;
    }
    upper_regularised_gamma(df / 2.0, x / 2.0)
}

/// ln Γ(x) for x > 0 (Lanczos approximation, g = 7, nine terms; about 15 significant digits).
fn ln_gamma(x: f64) -> f64 {
    const G: f64 = 7.0;
    const C: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        // Reflection: Γ(x) Γ(1-x) = π / sin(πx).
        let pi = std::f64::consts::PI;
        return (pi / (pi * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let mut sum = C[0];
    for (i, c) in C.iter().enumerate().skip(1) {
        sum += c / (x + i as f64);
    }
    let t = x + G + 0.5;
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + sum.ln()
}

/// Q(a, x) = Γ(a, x) / Γ(a): by its power series below x = a + 1 (where it converges fast),
/// by Lentz's continued fraction above.
fn upper_regularised_gamma(a: f64, x: f64) -> f64 {
    if x <= 0.0 {
        return 1.0;
    }
    let log_prefix = a * x.ln() - x - ln_gamma(a);
    if x < a + 1.0 {
        // P(a, x) = x^a e^-x / Γ(a+1) * Σ x^n / ((a+1)...(a+n))
        let mut term = 1.0 / a;
        let mut sum = term;
        let mut denom = a;
        for _ in 0..10_000 {
            denom += 1.0;
            term *= x / denom;
            sum += term;
            if term.abs() < sum.abs() * 1e-16 {
                break;
            }
        }
        (1.0 - sum * log_prefix.exp()).clamp(0.0, 1.0)
    } else {
        // Γ(a, x) = e^-x x^a (1 / (x + 1 - a - 1·(1-a) / (x + 3 - a - 2·(2-a) / (x + 5 - a - ...))))
        const TINY: f64 = 1e-300;
        let mut b = x + 1.0 - a;
        let mut c = 1.0 / TINY;
        let mut d = 1.0 / b;
        let mut h = d;
        for i in 1..10_000 {
            let an = -(i as f64) * (i as f64 - a);
            b += 2.0;
            d = an * d + b;
            if d.abs() < TINY {
                d = TINY;
            }
            c = b + an / c;
            if c.abs() < TINY {
                c = TINY;
            }
            d = 1.0 / d;
            let delta = d * c;
            h *= delta;
            if (delta - 1.0).abs() < 1e-16 {
                break;
            }
        }
        (h * log_prefix.exp()).clamp(0.0, 1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// For even degrees of freedom 2m the survival function has a closed form:
    /// e^(-x/2) Σ_{j<m} (x/2)^j / j!.
    fn even_df_sf(x: f64, m: u32) -> f64 {
        let h = x / 2.0;
        let mut term = 1.0;
        let mut sum = 0.0;
        for j in 0..m {
            if j > 0 {
                term *= h / f64::from(j);
            }
            sum += term;
        }
        (-h).exp() * sum
    }

    #[test]
    fn survival_function_matches_closed_forms_for_even_df() {
        for &x in &[
            0.1,
            0.5,
            1.0,
            2.0,
            3.5,
            5.991_464_547_107_979,
            10.0,
            25.0,
            60.0,
        ] {
            for m in 1..=6 {
                let got = chi_square_sf(x, f64::from(2 * m));
                let want = even_df_sf(x, m);
                assert!(
                    (got - want).abs() < 1e-12 * want.max(1e-3),
                    "x={x} df={} got {got} want {want}",
                    2 * m
                );
            }
        }
    }

    #[test]
    fn survival_function_for_one_df_is_erfc() {
        // With one degree of freedom P(X >= x) = erfc(sqrt(x/2)); values from a libm erfc.
        assert!((chi_square_sf(3.841_458_820_694_124, 1.0) - 0.05).abs() < 1e-12);
        assert!((chi_square_sf(10.0, 1.0) - 0.001_565_402_258_002_548_8).abs() < 1e-13);
        assert_eq!(chi_square_sf(0.0, 3.0), 1.0);
    }

    #[test]
    fn ln_gamma_of_integers_is_ln_factorial() {
        let mut fact = 1.0f64;
        for n in 1..20 {
            // Γ(n) = (n-1)!
            assert!((ln_gamma(f64::from(n)) - fact.ln()).abs() < 1e-10, "n={n}");
            fact *= f64::from(n);
        }
        assert!((ln_gamma(0.5) - std::f64::consts::PI.sqrt().ln()).abs() < 1e-12);
    }

    #[test]
    fn perfect_fit_gives_p_one_and_a_gross_misfit_p_near_zero() {
        assert_eq!(chi_square_p(&[50, 50], &[0.5, 0.5]), Some(1.0));
        let p = chi_square_p(&[90, 10], &[0.5, 0.5]).unwrap();
        // statistic 64, one degree of freedom
        assert!(p < 1e-14 && p > 0.0, "{p}");
        // Expected counts work as well as probabilities.
        assert_eq!(chi_square_p(&[30, 10], &[3.0, 1.0]), Some(1.0));
    }

    #[test]
    fn meaningless_tests_give_none() {
        assert_eq!(chi_square_p(&[3, 2], &[0.5, 0.5]), None); // expected 2.5 < 5
        assert_eq!(chi_square_p(&[10], &[1.0]), None); // one category
        assert_eq!(chi_square_p(&[0, 0], &[0.5, 0.5]), None); // nothing observed
        assert_eq!(chi_square_p(&[10, 10], &[0.5]), None); // lengths differ
        assert_eq!(chi_square_p(&[10, 10], &[f64::NAN, 0.5]), None);
        assert_eq!(chi_square_p(&[10, 10], &[-0.5, 1.5]), None);
        assert_eq!(chi_square_p(&[u64::MAX, 1], &[0.5, 0.5]), None); // count overflow
    }

    #[test]
    fn zero_probability_categories() {
        assert_eq!(chi_square_p(&[20, 20, 0], &[0.5, 0.5, 0.0]), Some(1.0));
        assert_eq!(chi_square_p(&[20, 20, 1], &[0.5, 0.5, 0.0]), Some(0.0));
    }
}
