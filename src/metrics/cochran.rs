//! Cochran's Q: whether three or more runs resolve the same share of the instances they all
//! judged, and the chi-square tail it is read against. Pure functions over counts, like
//! [`super::stats`]; nothing here knows about trajectories.

use serde::Serialize;

/// Cochran's Q over `instances` complete rows (one verdict per run each).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct CochranQ {
    /// Rows that entered the test: instances with a verdict in every run.
    pub instances: usize,
    /// Degrees of freedom: runs − 1.
    pub df: usize,
    /// `None` when every instance got the same verdict from every run: then Q is 0/0 and
    /// the runs cannot be told apart (scipy/statsmodels give `nan`).
    pub statistic: Option<f64>,
    /// Upper tail of χ²(df) at the statistic (the large-sample approximation).
    pub p_value: Option<f64>,
}

/// Cochran's Q for `rows`, each the verdicts of every run on one instance.
///
/// Q = (k − 1) · (k · Σ C_j² − T²) / (k · T − Σ R_i²), with C_j the instances run j
/// resolved, R_i the runs that resolved instance i and T the total.
pub fn cochran_q(rows: &[Vec<bool>]) -> CochranQ {
    let k = rows.first().map_or(0, Vec::len);
    let df = k.saturating_sub(1);
    let mut columns = vec![0u64; k];
    let mut row_squares = 0u64;
    let mut total = 0u64;
    for row in rows {
        let mut r = 0u64;
        for (j, &solved) in row.iter().enumerate().take(k) {
            if solved {
                columns[j] += 1;
                r += 1;
            }
        }
        row_squares += r * r;
        total += r;
    }
    let (k_f, t) = (k as f64, total as f64);
    let numerator =
        df as f64 * (k_f * columns.iter().map(|&c| (c * c) as f64).sum::<f64>() - t * t);
    let denominator = k_f * t - row_squares as f64;
    let statistic = (k >= 2 && denominator > 0.0).then(|| numerator / denominator);
    CochranQ {
        instances: rows.len(),
        df,
        statistic,
        p_value: statistic.map(|q| chi_square_sf(q, df as f64)),
    }
}

/// P(X ≥ x) for X ~ χ²(df): the regularized upper incomplete gamma Q(df/2, x/2).
pub fn chi_square_sf(x: f64, df: f64) -> f64 {
    if x <= 0.0 || df <= 0.0 {
        return 1.0;
    }
    upper_gamma(df / 2.0, x / 2.0)
}

/// Regularized upper incomplete gamma Q(a, x): the power series of P below a + 1, the
/// continued fraction of Q above (both converge fast on their side).
fn upper_gamma(a: f64, x: f64) -> f64 {
    let log_prefix = a * x.ln() - x - ln_gamma(a);
    if x < a + 1.0 {
        let mut term = 1.0 / a;
        let mut sum = term;
        let mut n = a;
        for _ in 0..1000 {
            n += 1.0;
            term *= x / n;
            sum += term;
            if term.abs() < sum.abs() * 1e-16 {
                break;
            }
        }
        (1.0 - sum * log_prefix.exp()).clamp(0.0, 1.0)
    } else {
        // Modified Lentz evaluation of the continued fraction for Q.
        let tiny = 1e-300;
        let mut b = x + 1.0 - a;
        let mut c = 1.0 / tiny;
        let mut d = 1.0 / b;
        let mut h = d;
        for i in 1..1000 {
            let i = i as f64;
            let an = -i * (i - a);
            b += 2.0;
            d = an * d + b;
            if d.abs() < tiny {
                d = tiny;
            }
            c = b + an / c;
            if c.abs() < tiny {
                c = tiny;
            }
            d = 1.0 / d;
            let step = d * c;
            h *= step;
            if (step - 1.0).abs() < 1e-16 {
                break;
            }
        }
        (log_prefix.exp() * h).clamp(0.0, 1.0)
    }
}

/// ln Γ(a) by the Lanczos approximation (g = 7, nine coefficients): about 15 digits, plenty
/// for a p-value.
fn ln_gamma(a: f64) -> f64 {
    const G: f64 = 7.0;
    const COEFFICIENTS: [f64; 9] = [
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
    if a < 0.5 {
        // Reflection keeps the series in its accurate range.
        let pi = std::f64::consts::PI;
        return (pi / (pi * a).sin()).ln() - ln_gamma(1.0 - a);
    }
    let a = a - 1.0;
    let mut sum = COEFFICIENTS[0];
    for (i, c) in COEFFICIENTS.iter().enumerate().skip(1) {
        sum += c / (a + i as f64);
    }
    let t = a + G + 0.5;
    0.5 * (2.0 * std::f64::consts::PI).ln() + (a + 0.5) * t.ln() - t + sum.ln()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tolerance: f64) -> bool {
        (a - b).abs() < tolerance
    }

    #[test]
    fn chi_square_tail_matches_closed_forms() {
        // Closed forms, independent of the incomplete gamma above: for df = 2 the tail is
        // e^(−x/2); for df = 1 it is erfc(√(x/2)); for df = 4, e^(−x/2)·(1 + x/2).
        // Reference values from Python's math module:
        //   python3 -c "import math; print(math.exp(-3.0/2), math.erfc(math.sqrt(3.84/2)),
        //               math.exp(-5.0)*(1+5.0), math.erfc(math.sqrt(0.5/2)))"
        //   0.22313016014842982 0.05004352124870509 0.0404276819945128 0.4795001221869535
        assert!(close(
            chi_square_sf(3.0, 2.0),
            0.223_130_160_148_429_82,
            1e-12
        ));
        assert!(close(
            chi_square_sf(3.84, 1.0),
            0.050_043_521_248_705_09,
            1e-10
        ));
        assert!(close(
            chi_square_sf(10.0, 4.0),
            0.040_427_681_994_512_79,
            1e-12
        ));
        assert!(close(
            chi_square_sf(0.5, 1.0),
            0.479_500_122_186_953_5,
            1e-10
        ));
        assert_eq!(chi_square_sf(0.0, 3.0), 1.0);
    }

    #[test]
    fn cochran_q_matches_the_textbook_formula() {
        // Four runs, six instances. Column sums C = (5, 2, 2, 1), row sums R = (4, 2, 2, 1,
        // 1, 0): T = 10, Σ C² = 34, Σ R² = 26, so Q = 3 · (4·34 − 100) / (4·10 − 26)
        // = 3 · 36 / 14 = 54/7, and p = P(χ²(3) ≥ 54/7), by the closed form for df = 3:
        //   python3 -c "import math; x=54/7; print(math.erfc(math.sqrt(x/2)) +
        //               math.exp(-x/2)*math.sqrt(2*x/math.pi))"
        //   0.052300779862086456
        let rows = vec![
            vec![true, true, true, true],
            vec![true, false, true, false],
            vec![true, true, false, false],
            vec![true, false, false, false],
            vec![true, false, false, false],
            vec![false, false, false, false],
        ];
        let q = cochran_q(&rows);
        assert_eq!((q.instances, q.df), (6, 3));
        let statistic = q.statistic.unwrap();
        assert!(close(statistic, 54.0 / 7.0, 1e-12), "{statistic}");
        assert!(close(q.p_value.unwrap(), 0.052_300_779_862_086_456, 1e-10));
    }

    #[test]
    fn identical_rows_leave_q_undefined() {
        let rows = vec![vec![true, true, true], vec![false, false, false]];
        let q = cochran_q(&rows);
        assert_eq!(q.statistic, None);
        assert_eq!(q.p_value, None);
        assert_eq!(q.df, 2);
        assert_eq!(cochran_q(&[]).statistic, None);
    }
}
