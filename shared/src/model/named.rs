//! Reading the result file's unit enums (`"reuse"`, `"1.1"`, `"timeout"`, ...) by their names: one small
//! deserializer for all of them instead of serde's derived one per enum. A derived enum deserializer is a
//! visitor with string, bytes and index paths, about 940 bytes of the page's wasm each; this is a `String`
//! and a look-up in the enum's own name list. The names and the error (`unknown variant `x`, expected one of
//! ...`) are the derive's.

use serde::de::{Deserialize, Deserializer, Error};

/// A unit enum whose every value has one name in the result file.
pub(crate) trait Named: Copy + 'static {
    /// Every value, in declaration order.
    const ALL: &'static [Self];
    /// Their names, in the same order.
    const NAMES: &'static [&'static str];
}

/// The value of `T` named by the next string in `d`.
pub(crate) fn deserialize<'de, D: Deserializer<'de>, T: Named>(d: D) -> Result<T, D::Error> {
    let name = String::deserialize(d)?;
    match T::NAMES.iter().position(|n| *n == name) {
        Some(i) => Ok(T::ALL[i]),
        None => Err(D::Error::unknown_variant(&name, T::NAMES)),
    }
}

/// `impl Deserialize` for unit enums by their [`Named`] names.
macro_rules! deserialize_by_name {
    ($($t:ty),*) => {$(
        impl<'de> serde::Deserialize<'de> for $t {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                crate::model::named::deserialize(d)
            }
        }
    )*};
}
pub(crate) use deserialize_by_name;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{EnvironmentKind, ErrorKind, HttpVersion, Mode, Pin};

    /// Every value is written (by serde's derived `Serialize`) as its name, read back from it, and sits at
    /// its own index, as `as_str` relies on.
    fn round_trips<T: Named + serde::Serialize + for<'de> Deserialize<'de> + PartialEq + std::fmt::Debug>() {
        assert_eq!(T::ALL.len(), T::NAMES.len());
        for (v, name) in T::ALL.iter().zip(T::NAMES) {
            let written = serde_json::to_string(v).unwrap();
            assert_eq!(written, format!("\"{name}\""));
            assert_eq!(serde_json::from_str::<T>(&written).unwrap(), *v);
        }
        let e = serde_json::from_str::<T>("\"nope\"").unwrap_err().to_string();
        assert!(e.contains("unknown variant `nope`") && e.contains(T::NAMES[0]), "{e}");
        assert!(serde_json::from_str::<T>("1").is_err());
    }

    #[test]
    fn every_enum_reads_its_names_and_only_them() {
        round_trips::<EnvironmentKind>();
        round_trips::<Mode>();
        round_trips::<ErrorKind>();
        round_trips::<HttpVersion>();
        round_trips::<Pin>();
        for (i, k) in ErrorKind::ALL.iter().enumerate() {
            assert_eq!(*k as usize, i);
        }
        let map: std::collections::BTreeMap<ErrorKind, u64> = serde_json::from_str(r#"{"timeout": 2}"#).unwrap();
        assert_eq!(map[&ErrorKind::Timeout], 2, "as a map key too");
    }
}
