//! Money in integer micro-dollars: sums of many small model calls stay exact.

use std::fmt;
use std::iter::Sum;
use std::ops::{Add, AddAssign, Sub};

use serde::{Deserialize, Serialize};

/// An amount of US dollars, held as an integer number of micro-dollars.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct Usd(i64);

impl Usd {
    /// Zero dollars.
    pub const ZERO: Usd = Usd(0);

    /// An amount from micro-dollars.
    pub const fn from_micros(micros: i64) -> Self {
        Self(micros)
    }

    /// The amount in micro-dollars, as stored.
    pub const fn micros(self) -> i64 {
        self.0
    }

    /// An amount from a decimal dollar figure (as written in settings),
    /// rounded to the nearest micro-dollar. `None` when not finite or out of range.
    pub fn from_dollars(dollars: f64) -> Option<Self> {
        let micros = (dollars * 1_000_000.0).round();
        (micros.is_finite() && micros.abs() < 9.0e15).then_some(Self(micros as i64))
    }

    /// The amount as decimal dollars, for display and reports.
    pub fn dollars(self) -> f64 {
        self.0 as f64 / 1_000_000.0
    }
}

impl Add for Usd {
    type Output = Usd;
    fn add(self, rhs: Usd) -> Usd {
        Usd(self.0.saturating_add(rhs.0))
    }
}

impl AddAssign for Usd {
    fn add_assign(&mut self, rhs: Usd) {
        *self = *self + rhs;
    }
}

impl Sub for Usd {
    type Output = Usd;
    fn sub(self, rhs: Usd) -> Usd {
        Usd(self.0.saturating_sub(rhs.0))
    }
}

impl Sum for Usd {
    fn sum<I: Iterator<Item = Usd>>(iter: I) -> Usd {
        iter.fold(Usd::ZERO, Add::add)
    }
}

impl fmt::Display for Usd {
    /// Four decimals: model calls often cost fractions of a cent.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "${:.4}", self.dollars())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dollars_round_trip_through_micros_without_drift() {
        let price = Usd::from_dollars(0.000_15);
        assert_eq!(price, Some(Usd::from_micros(150)));
        let total: Usd = std::iter::repeat_n(Usd::from_micros(150), 1000).sum();
        assert_eq!(total, Usd::from_micros(150_000));
        assert_eq!(total.to_string(), "$0.1500");
    }

    #[test]
    fn non_finite_dollars_are_refused() {
        assert_eq!(Usd::from_dollars(f64::NAN), None);
        assert_eq!(Usd::from_dollars(f64::INFINITY), None);
    }
}
