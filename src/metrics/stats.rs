//! The statistics behind the numbers: Wilson score intervals for rates, McNemar's test for
//! paired runs, means and medians. Pure functions over counts; nothing here knows about
//! trajectories.

use serde::Serialize;

/// z for a two-sided 95% interval.
const Z95: f64 = 1.959_963_984_540_054;

/// A rate with its 95% Wilson score interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Rate {
    pub successes: u64,
    pub total: u64,
    /// `successes / total`; 0 when `total` is 0.
    pub rate: f64,
    /// Lower and upper bound of the 95% Wilson score interval.
    pub low: f64,
    pub high: f64,
}

/// The 95% Wilson score interval of `successes` out of `total`. Unlike the textbook
/// `p ± 1.96·sqrt(p(1-p)/n)`, it stays inside [0, 1] and is honest for small runs and for
/// rates near 0 or 1, which is what agent evals are made of. `total == 0` gives [0, 1].
pub fn wilson(successes: u64, total: u64) -> Rate {
    if total == 0 {
        return Rate {
            successes,
            total,
            rate: 0.0,
            low: 0.0,
            high: 1.0,
        };
    }
    let successes = successes.min(total);
    let n = total as f64;
    let p = successes as f64 / n;
    let z2 = Z95 * Z95;
    let denominator = 1.0 + z2 / n;
    let centre = (p + z2 / (2.0 * n)) / denominator;
    let half = Z95 / denominator * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    Rate {
        successes,
        total,
        rate: p,
        low: (centre - half).max(0.0),
        high: (centre + half).min(1.0),
    }
}

/// McNemar's test on paired outcomes: of the instances both runs attempted, `only_a` were
/// solved by A alone and `only_b` by B alone. Instances both solved or both failed say
/// nothing about which run is better and do not enter the test.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct McNemar {
    pub only_a: u64,
    pub only_b: u64,
    /// Two-sided exact p-value: the binomial test of `only_a` against `only_a + only_b`
    /// fair coin flips. Conservative for small counts.
    pub exact_p: f64,
    /// Two-sided mid-p value: the exact p minus the probability of the observed split. Keeps
    /// the error rate close to the nominal 5% where the exact test is too strict (Fagerland,
    /// Lydersen and Laake, 2013), so the verdict uses it.
    pub mid_p: f64,
}

/// McNemar's exact and mid-p tests for `only_a` and `only_b` discordant pairs.
pub fn mcnemar(only_a: u64, only_b: u64) -> McNemar {
    let n = only_a + only_b;
    let k = only_a.min(only_b);
    if n == 0 {
        return McNemar {
            only_a,
            only_b,
            exact_p: 1.0,
            mid_p: 1.0,
        };
    }
    let at_most_k: f64 = (0..=k).map(|i| binomial_half(n, i)).sum();
    let exactly_k = binomial_half(n, k);
    let exact_p = (2.0 * at_most_k).min(1.0);
    // When the split is even (k == n/2) both tails are the same outcome counted twice.
    let mid_p = (2.0 * at_most_k - exactly_k).min(1.0);
    McNemar {
        only_a,
        only_b,
        exact_p,
        mid_p,
    }
}

/// P(X = k) for X ~ Binomial(n, 1/2), computed in log space so that runs of thousands of
/// instances do not overflow.
fn binomial_half(n: u64, k: u64) -> f64 {
    if k > n {
        return 0.0;
    }
    let ln_choose = ln_factorial(n) - ln_factorial(k) - ln_factorial(n - k);
    (ln_choose - n as f64 * std::f64::consts::LN_2).exp()
}

fn ln_factorial(n: u64) -> f64 {
    (2..=n).map(|i| (i as f64).ln()).sum()
}

/// Mean of the values; `None` when there are none.
pub fn mean(values: &[f64]) -> Option<f64> {
    (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
}

/// Median of the values (the mean of the middle two for an even count); `None` when empty.
pub fn median(values: &[f64]) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let mid = sorted.len() / 2;
    Some(if sorted.len().is_multiple_of(2) {
        (sorted[mid - 1] + sorted[mid]) / 2.0
    } else {
        sorted[mid]
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-4
    }

    #[test]
    fn wilson_matches_published_values() {
        // Newcombe (1998), table I: 81/263 → 0.2553 to 0.3662; 15/148 → 0.0624 to 0.1605.
        let r = wilson(81, 263);
        assert!(close(r.low, 0.2553) && close(r.high, 0.3662), "{r:?}");
        let r = wilson(15, 148);
        assert!(close(r.low, 0.0624) && close(r.high, 0.1605), "{r:?}");
        // 0/10: the interval still reaches 0.2775, where p ± 1.96·se would claim [0, 0].
        let r = wilson(0, 10);
        assert_eq!(r.low, 0.0);
        assert!(close(r.high, 0.2775), "{r:?}");
        assert_eq!(wilson(0, 0).high, 1.0);
    }

    #[test]
    fn mcnemar_exact_and_mid_p() {
        // 0 vs 5: exact = 2·(1/32) = 0.0625 (not significant), mid-p = 0.03125.
        let t = mcnemar(0, 5);
        assert!(close(t.exact_p, 0.0625) && close(t.mid_p, 0.03125), "{t:?}");
        // 2 vs 8: P(X≤2) = 56/1024; exact = 0.109375; mid-p = (112 − 45)/1024.
        let t = mcnemar(2, 8);
        assert!(close(t.exact_p, 0.109375), "{t:?}");
        assert!(close(t.mid_p, 67.0 / 1024.0), "{t:?}");
        // Symmetric in its arguments, 1 for an even split and for no discordant pairs.
        assert_eq!(mcnemar(8, 2).mid_p, t.mid_p);
        assert!(close(mcnemar(3, 3).exact_p, 1.0));
        assert_eq!(mcnemar(0, 0).mid_p, 1.0);
        // Large runs stay finite and tiny.
        let t = mcnemar(100, 300);
        assert!(t.exact_p > 0.0 && t.exact_p < 1e-20, "{t:?}");
    }

    #[test]
    fn mean_and_median() {
        assert_eq!(mean(&[]), None);
        assert_eq!(mean(&[1.0, 2.0, 6.0]), Some(3.0));
        assert_eq!(median(&[5.0, 1.0, 3.0]), Some(3.0));
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), Some(2.5));
    }
}
