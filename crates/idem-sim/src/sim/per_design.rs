//! One value for each design, found by the design itself rather than by a position in a
//! list that must silently follow the order of [`Design::ALL`].

use super::Design;

/// A value for every design: `values[design]`.
#[derive(Clone, Debug, PartialEq)]
pub struct PerDesign<T> {
    values: Vec<T>,
}

impl Design {
    /// Where the design stands in [`Design::ALL`] (its number key less one).
    pub fn index(self) -> usize {
        usize::from(self.hotkey()) - 1
    }
}

impl<T> PerDesign<T> {
    /// Works a value out for each design, stopping at the first error.
    pub fn try_new<E>(mut make: impl FnMut(Design) -> Result<T, E>) -> Result<PerDesign<T>, E> {
        let values = Design::ALL
            .into_iter()
            .map(&mut make)
            .collect::<Result<Vec<T>, E>>()?;
        Ok(PerDesign { values })
    }

    /// A value for each design.
    pub fn new(mut make: impl FnMut(Design) -> T) -> PerDesign<T> {
        PerDesign {
            values: Design::ALL.into_iter().map(&mut make).collect(),
        }
    }

    /// Another value for each design, made from this one's.
    pub fn map<U>(&self, mut make: impl FnMut(Design, &T) -> U) -> PerDesign<U> {
        PerDesign::new(|d| make(d, &self[d]))
    }

    /// Every design with its value, in the order of [`Design::ALL`].
    pub fn iter(&self) -> impl Iterator<Item = (Design, &T)> {
        Design::ALL.into_iter().zip(&self.values)
    }

    /// The values alone, in the order of [`Design::ALL`].
    pub fn values(&self) -> &[T] {
        &self.values
    }
}

impl<T> std::ops::Index<Design> for PerDesign<T> {
    type Output = T;

    fn index(&self, design: Design) -> &T {
        // Built from `Design::ALL`, so every design has its place.
        &self.values[design.index()]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_design_finds_its_own_value() {
        for (i, d) in Design::ALL.into_iter().enumerate() {
            assert_eq!(d.index(), i, "{d} stands at its number key");
        }
        let names = PerDesign::new(Design::id);
        for d in Design::ALL {
            assert_eq!(names[d], d.id());
        }
        let pairs: Vec<_> = names.iter().map(|(d, n)| (d, *n)).collect();
        assert_eq!(pairs.len(), Design::ALL.len());
        let ids: Vec<&str> = Design::ALL.iter().map(|d| d.id()).collect();
        assert_eq!(
            names.values(),
            ids.as_slice(),
            "the values alone, in the same order"
        );
        let failed: Result<PerDesign<u8>, Design> =
            PerDesign::try_new(|d| if d == Design::NoKey { Err(d) } else { Ok(1) });
        assert_eq!(failed, Err(Design::NoKey));
    }
}
