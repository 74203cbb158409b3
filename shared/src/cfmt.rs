//! C `printf` number conversions that Rust's `format!` does not spell the same way (`%g`, `%e`), and Perl's
//! spelling of infinities and NaN, so the Perl-style report matches `Benchmark.pm` byte for byte.
//!
//! Rust's `{:.N}` already rounds like glibc's `%.Nf` (exact decimal expansion, ties to even), and prints `-0`
//! like C does, so `%f` needs nothing but the special values.

/// Perl's stringification of a non-finite number, if `v` is one.
fn perl_special(v: f64) -> Option<&'static str> {
    if v.is_nan() {
        Some("NaN")
    } else if v == f64::INFINITY {
        Some("Inf")
    } else if v == f64::NEG_INFINITY {
        Some("-Inf")
    } else {
        None
    }
}

/// `%.{prec}f`.
pub fn fixed(v: f64, prec: usize) -> String {
    match perl_special(v) {
        Some(s) => s.to_string(),
        None => format!("{v:.prec$}"),
    }
}

/// `%.{prec}e`: mantissa, `e`, sign, and an exponent of at least two digits.
pub fn exp(v: f64, prec: usize) -> String {
    if let Some(s) = perl_special(v) {
        return s.to_string();
    }
    let e_form = format!("{v:.prec$e}");
    let (mantissa, exponent) = split_exp(&e_form);
    c_exponent(mantissa, exponent)
}

/// `%g` (precision 6): the shorter of `%e`/`%f` by C's rule, trailing zeros removed.
pub fn general(v: f64) -> String {
    const PRECISION: i32 = 6;
    if let Some(s) = perl_special(v) {
        return s.to_string();
    }
    if v == 0.0 {
        return if v.is_sign_negative() { "-0".into() } else { "0".into() };
    }
    // C decides on the exponent that %e with precision P-1 would print, i.e. after rounding.
    let e_form = format!("{v:.prec$e}", prec = (PRECISION - 1) as usize);
    let (mantissa, exponent) = split_exp(&e_form);
    if (-4..PRECISION).contains(&exponent) {
        let prec = (PRECISION - 1 - exponent) as usize;
        strip_zeros(&format!("{v:.prec$}")).to_string()
    } else {
        c_exponent(strip_zeros(mantissa), exponent)
    }
}

/// Right-align `s` in `width` columns, as `%{width}s` does (never truncates). Spaces are counted out rather
/// than given to `format!` as a width: a width above 65,535 panics there, and a foreign label can be that long.
pub fn pad_left(s: &str, width: usize) -> String {
    let mut out = " ".repeat(width.saturating_sub(s.chars().count()));
    out.push_str(s);
    out
}

/// Left-align `s` in `width` columns, as `%-{width}s` does (never truncates); see [`pad_left`].
pub fn pad_right(s: &str, width: usize) -> String {
    let mut out = s.to_string();
    out.push_str(&" ".repeat(width.saturating_sub(s.chars().count())));
    out
}

fn split_exp(s: &str) -> (&str, i32) {
    match s.split_once('e') {
        Some((m, e)) => (m, e.parse().unwrap_or(0)),
        None => (s, 0),
    }
}

fn c_exponent(mantissa: &str, exponent: i32) -> String {
    let sign = if exponent < 0 { '-' } else { '+' };
    format!("{mantissa}e{sign}{:02}", exponent.unsigned_abs())
}

/// `s` without the trailing zeros of its fraction (and the point, if nothing is left after it): `2.50` -> `2.5`.
pub(crate) fn strip_zeros(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn general_matches_c() {
        // Expected values are what glibc's printf("%g") prints.
        let cases = [
            (13.8234567, "13.8235"),
            (0.131234, "0.131234"),
            (0.0001, "0.0001"),
            (0.00001234, "1.234e-05"),
            (1234567.0, "1.23457e+06"),
            (999999.5, "1e+06"),
            (100000.0, "100000"),
            (2.0, "2"),
            (0.5, "0.5"),
            (1e300, "1e+300"),
            (0.0, "0"),
        ];
        for (v, want) in cases {
            assert_eq!(general(v), want, "%g of {v}");
        }
    }

    #[test]
    fn exp_matches_c() {
        assert_eq!(exp(0.0123456, 2), "1.23e-02");
        assert_eq!(exp(12345.0, 2), "1.23e+04");
        assert_eq!(exp(1e-123, 2), "1.00e-123");
        assert_eq!(exp(f64::INFINITY, 2), "Inf");
    }

    #[test]
    fn fixed_spells_specials_like_perl() {
        assert_eq!(fixed(2.5, 0), "2");
        assert_eq!(fixed(-0.4, 0), "-0");
        assert_eq!(fixed(f64::NAN, 2), "NaN");
        assert_eq!(fixed(f64::NEG_INFINITY, 0), "-Inf");
    }
}
