//! Field types for loaders that read records into structs instead of `serde_json::Value`:
//! strings borrowed from the file's bytes when they hold no escapes, and lenient scalars.
//! A field of an unexpected type reads as absent instead of failing its whole record, so
//! one odd field in a real log costs that field, not the line.
//!
//! Owns only these types; which fields a record has is each loader's business.

use serde::Deserialize;
use serde::de::{Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use std::borrow::Cow;
use std::fmt;

/// A string field, borrowed when possible; absent when missing, null or not a string.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Str<'a>(pub Option<Cow<'a, str>>);

impl<'a> Str<'a> {
    pub fn get(&self) -> Option<&str> {
        self.0.as_deref()
    }

    /// The string, when present and not empty.
    pub fn non_empty(&self) -> Option<&str> {
        self.get().filter(|s| !s.is_empty())
    }
}

/// A boolean field; absent when missing or not a boolean.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Flag(pub Option<bool>);

impl Flag {
    pub fn is_true(self) -> bool {
        self.0 == Some(true)
    }
}

/// A number field, also when logged as a numeric string; absent otherwise.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Num(pub Option<f64>);

impl Num {
    pub fn f64(self) -> Option<f64> {
        self.0
    }

    /// The number as a count (tokens): whole and not negative.
    pub fn u64(self) -> Option<u64> {
        self.0
            .filter(|n| *n >= 0.0 && n.fract() == 0.0)
            .map(|n| n as u64)
    }

    pub fn i64(self) -> Option<i64> {
        self.0.filter(|n| n.fract() == 0.0).map(|n| n as i64)
    }
}

/// What a scalar visitor makes of the values it does not want: nothing, after consuming
/// them (a map or list must be read to the end to keep the parser in step).
macro_rules! skip_others {
    ($value:ty) => {
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<$value, A::Error> {
            while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
            Ok(Default::default())
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<$value, A::Error> {
            while seq.next_element::<IgnoredAny>()?.is_some() {}
            Ok(Default::default())
        }
        fn visit_unit<E>(self) -> Result<$value, E> {
            Ok(Default::default())
        }
        fn visit_none<E>(self) -> Result<$value, E> {
            Ok(Default::default())
        }
    };
}

impl<'de: 'a, 'a> Deserialize<'de> for Str<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct StrVisitor;
        impl<'de> Visitor<'de> for StrVisitor {
            type Value = Str<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E>(self, s: &'de str) -> Result<Str<'de>, E> {
                Ok(Str(Some(Cow::Borrowed(s))))
            }
            fn visit_str<E>(self, s: &str) -> Result<Str<'de>, E> {
                Ok(Str(Some(Cow::Owned(s.to_string()))))
            }
            fn visit_string<E>(self, s: String) -> Result<Str<'de>, E> {
                Ok(Str(Some(Cow::Owned(s))))
            }
            fn visit_bool<E>(self, _: bool) -> Result<Str<'de>, E> {
                Ok(Str(None))
            }
            fn visit_i64<E>(self, _: i64) -> Result<Str<'de>, E> {
                Ok(Str(None))
            }
            fn visit_u64<E>(self, _: u64) -> Result<Str<'de>, E> {
                Ok(Str(None))
            }
            fn visit_f64<E>(self, _: f64) -> Result<Str<'de>, E> {
                Ok(Str(None))
            }
            fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Str<'de>, D::Error> {
                d.deserialize_any(StrVisitor)
            }
            skip_others!(Str<'de>);
        }
        deserializer.deserialize_any(StrVisitor)
    }
}

impl<'de> Deserialize<'de> for Flag {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct FlagVisitor;
        impl<'de> Visitor<'de> for FlagVisitor {
            type Value = Flag;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a boolean")
            }
            fn visit_bool<E>(self, b: bool) -> Result<Flag, E> {
                Ok(Flag(Some(b)))
            }
            fn visit_str<E>(self, _: &str) -> Result<Flag, E> {
                Ok(Flag(None))
            }
            fn visit_i64<E>(self, _: i64) -> Result<Flag, E> {
                Ok(Flag(None))
            }
            fn visit_u64<E>(self, _: u64) -> Result<Flag, E> {
                Ok(Flag(None))
            }
            fn visit_f64<E>(self, _: f64) -> Result<Flag, E> {
                Ok(Flag(None))
            }
            fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Flag, D::Error> {
                d.deserialize_any(FlagVisitor)
            }
            skip_others!(Flag);
        }
        deserializer.deserialize_any(FlagVisitor)
    }
}

impl<'de> Deserialize<'de> for Num {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct NumVisitor;
        impl<'de> Visitor<'de> for NumVisitor {
            type Value = Num;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a number")
            }
            fn visit_i64<E>(self, n: i64) -> Result<Num, E> {
                Ok(Num(Some(n as f64)))
            }
            fn visit_u64<E>(self, n: u64) -> Result<Num, E> {
                Ok(Num(Some(n as f64)))
            }
            fn visit_f64<E>(self, n: f64) -> Result<Num, E> {
                Ok(Num(Some(n)))
            }
            fn visit_str<E>(self, s: &str) -> Result<Num, E> {
                Ok(Num(s.trim().parse().ok()))
            }
            fn visit_bool<E>(self, _: bool) -> Result<Num, E> {
                Ok(Num(None))
            }
            fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Num, D::Error> {
                d.deserialize_any(NumVisitor)
            }
            skip_others!(Num);
        }
        deserializer.deserialize_any(NumVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Deserialize, Default)]
    #[serde(default)]
    struct Record<'a> {
        #[serde(borrow)]
        name: Str<'a>,
        #[serde(borrow)]
        note: Str<'a>,
        ok: Flag,
        n: Num,
        m: Num,
    }

    #[test]
    fn odd_fields_read_as_absent_and_plain_strings_borrow() {
        let text = r#"{"name": "plain", "note": "a\nb", "ok": {"x": [1, {"y": 2}]}, "n": "42", "m": [1], "z": 1}"#;
        let r: Record = serde_json::from_str(text).unwrap();
        assert!(matches!(r.name.0, Some(Cow::Borrowed("plain"))));
        assert_eq!(r.note.get(), Some("a\nb"));
        assert_eq!(r.ok, Flag(None));
        assert_eq!(r.n.u64(), Some(42));
        assert_eq!(r.m.f64(), None);
        let r: Record = serde_json::from_str(r#"{"name": 3, "ok": true, "n": -2.5}"#).unwrap();
        assert_eq!(r.name.get(), None);
        assert!(r.ok.is_true());
        assert_eq!(r.n.u64(), None);
        assert_eq!(r.n.f64(), Some(-2.5));
    }
}
