//! Money in whole cents, written as dollars.

use serde::{Deserialize, Serialize};

/// An amount of money in cents.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct Cents(pub i64);

impl std::fmt::Display for Cents {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let sign = if self.0 < 0 { "-" } else { "" };
        let abs = self.0.unsigned_abs();
        f.write_str(sign)?;
        f.write_str("$")?;
        write_grouped(f, abs / 100)?;
        write!(f, ".{:02}", abs % 100)
    }
}

/// Writes `1234567` as `1,234,567` without building the string first: amounts are narrated
/// at nearly every tick.
fn write_grouped(f: &mut std::fmt::Formatter<'_>, n: u64) -> std::fmt::Result {
    if n < 1000 {
        return write!(f, "{n}");
    }
    write_grouped(f, n / 1000)?;
    write!(f, ",{:03}", n % 1000)
}

/// Reads `"$48.60"`, `"48.60"`, `"48"` or `"$1,250.00"` into cents; at most two decimals, no
/// sign, and thousands separators only between groups of three digits.
pub fn parse_money(text: &str) -> Result<Cents, String> {
    let t = text.trim();
    let t = t.strip_prefix('$').unwrap_or(t);
    commas_in_place(text, t)?;
    let t = t.replace(',', "");
    let (whole, frac) = match t.split_once('.') {
        Some((w, f)) => (w, f),
        None => (t.as_str(), ""),
    };
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(whole) || !(frac.is_empty() || digits(frac)) || frac.len() > 2 {
        return Err(format!(
            "`{text}` is not an amount: expected dollars and cents such as \"$48.60\""
        ));
    }
    let whole: i64 = whole
        .parse()
        .map_err(|_| format!("`{text}` is too large an amount"))?;
    let frac: i64 = if frac.is_empty() {
        0
    } else {
        let f: i64 = frac
            .parse()
            .map_err(|_| format!("`{text}` is not an amount"))?;
        if frac.len() == 1 { f * 10 } else { f }
    };
    whole
        .checked_mul(100)
        .and_then(|c| c.checked_add(frac))
        .filter(|c| *c <= 100_000_000_000)
        .map(Cents)
        .ok_or_else(|| format!("`{text}` is too large an amount (at most $1,000,000,000.00)"))
}

/// Thousands separators only where they belong: `$1,250.00`, not `$1,,2` or `$12,50`.
fn commas_in_place(text: &str, amount: &str) -> Result<(), String> {
    let (whole, frac) = amount.split_once('.').unwrap_or((amount, ""));
    let mut groups = whole.split(',');
    let first = groups.next().unwrap_or("");
    let misplaced = frac.contains(',')
        || (whole.contains(',')
            && (!(1..=3).contains(&first.len()) || groups.any(|g| g.len() != 3)));
    if misplaced {
        let shown: String = text.chars().filter(|c| !c.is_control()).take(40).collect();
        return Err(format!(
            "`{shown}` is not an amount: commas go between groups of three digits, as in \"$1,250.00\""
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_prints() {
        assert_eq!(parse_money("$48.60"), Ok(Cents(4860)));
        assert_eq!(parse_money("52.1"), Ok(Cents(5210)));
        assert_eq!(parse_money("$7"), Ok(Cents(700)));
        assert_eq!(Cents(4860).to_string(), "$48.60");
        assert_eq!(Cents(123_456_789).to_string(), "$1,234,567.89");
        assert!(parse_money("$4.605").is_err());
        assert!(parse_money("-3").is_err());
        assert!(parse_money("99999999999999999999").is_err());
        assert!(parse_money("$").is_err());
        assert_eq!(parse_money("$1,250.00"), Ok(Cents(125_000)));
        assert!(parse_money("$1,,2").is_err());
        assert!(parse_money("$12,50").is_err());
        assert!(parse_money("$1,250,5").is_err());
    }

    /// Found by mutation testing: zero has no sign, a negative amount has one, a thousand
    /// takes its comma, and a first group of commas is one to three digits.
    #[test]
    fn signs_commas_and_their_edges() {
        assert_eq!(Cents(0).to_string(), "$0.00");
        assert_eq!(Cents(-5).to_string(), "-$0.05");
        assert_eq!(Cents(-1250).to_string(), "-$12.50");
        assert_eq!(Cents(99_999).to_string(), "$999.99");
        assert_eq!(Cents(100_000).to_string(), "$1,000.00");
        assert!(parse_money("$1234,567.00").is_err());
        assert!(parse_money("$,250.00").is_err());
        assert_eq!(parse_money("$12,345.00"), Ok(Cents(1_234_500)));
        assert_eq!(parse_money("$123,456"), Ok(Cents(12_345_600)));
        // The message quotes the amount, its control characters taken out.
        let said = parse_money("$1,,2\u{7}").expect_err("misplaced commas");
        assert!(said.contains("`$1,,2`"), "{said}");
    }
}
