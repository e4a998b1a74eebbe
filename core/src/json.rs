//! Reading JSON documents: [`from_str`], serde_json's `from_str` with one difference: a struct
//! is read from a JSON object only.
//!
//! serde's derived `Deserialize` for a struct also reads it from an array of its fields in
//! order (`visit_seq`), and serde_json's `deserialize_struct` dispatches to it on `[`. Nothing
//! writes that form (shardcalc writes objects, people write objects), yet every struct of the
//! scenario, the presets and the chip catalog carries that second reader, about 10 KB of
//! gzipped wasm on a page. [`from_str`] hands the document to serde through [`Objects`], a
//! deserializer that forwards everything to serde_json except `deserialize_struct`, which it
//! turns into `deserialize_map`: the array form is then never reached and the linker drops it.
//! The wrappers below only pass the same adapter on to nested values (map values, sequence
//! elements, `Option`s, enum variants), so each struct inside is read the same way.
//!
//! Accepted and refused documents are serde_json's, except a struct given as an array, which
//! is refused ("invalid type: sequence, expected struct …"); values are the same
//! (`tests/json_objects.rs` compares with serde_json over many documents).

use serde::de::{self, DeserializeSeed, Deserializer, EnumAccess, MapAccess, SeqAccess, VariantAccess, Visitor};
use std::fmt;

/// Reads a `T` from JSON text, structs from objects only (see the module's documentation).
///
/// # Errors
/// serde_json's error: syntax, a missing or unknown field, a wrong type (including an array
/// where a struct is expected), trailing characters.
pub fn from_str<'a, T: de::Deserialize<'a>>(text: &'a str) -> serde_json::Result<T> {
    let mut json = serde_json::Deserializer::from_str(text);
    let value = T::deserialize(Objects(&mut json))?;
    json.end()?;
    Ok(value)
}

/// A bundled document (`include_str!`), read into `cell` on first use: `None` when it does not
/// parse, which each bundled file's tests rule out.
pub fn bundled<T: de::Deserialize<'static> + Send + Sync>(
    cell: &'static std::sync::OnceLock<Option<T>>,
    text: &'static str,
) -> Option<&'static T> {
    cell.get_or_init(|| from_str(text).ok()).as_ref()
}

/// A deserializer that reads structs from maps only and passes itself on to nested values.
pub struct Objects<D>(pub D);

/// Forwards `deserialize_*` methods without extra arguments.
macro_rules! forward {
    ($($method:ident)*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
            self.0.$method(Nested(visitor))
        }
    )*};
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for Objects<D> {
    type Error = D::Error;

    forward! {
        deserialize_any deserialize_bool deserialize_i8 deserialize_i16 deserialize_i32
        deserialize_i64 deserialize_i128 deserialize_u8 deserialize_u16 deserialize_u32
        deserialize_u64 deserialize_u128 deserialize_f32 deserialize_f64 deserialize_char
        deserialize_str deserialize_string deserialize_bytes deserialize_byte_buf
        deserialize_option deserialize_unit deserialize_seq deserialize_map
        deserialize_identifier deserialize_ignored_any
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(self, name: &'static str, visitor: V) -> Result<V::Value, D::Error> {
        self.0.deserialize_unit_struct(name, Nested(visitor))
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(self, name: &'static str, visitor: V) -> Result<V::Value, D::Error> {
        self.0.deserialize_newtype_struct(name, Nested(visitor))
    }

    fn deserialize_tuple<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value, D::Error> {
        self.0.deserialize_tuple(len, Nested(visitor))
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.0.deserialize_tuple_struct(name, len, Nested(visitor))
    }

    /// The one change: a struct is read as a map (its `visit_map`), never as a sequence.
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.0.deserialize_map(Nested(visitor))
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.0.deserialize_enum(name, variants, Nested(visitor))
    }

    fn is_human_readable(&self) -> bool {
        self.0.is_human_readable()
    }
}

/// A visitor, a map, a sequence, an enum, a variant or a seed whose nested values are read
/// through [`Objects`].
struct Nested<T>(T);

/// Forwards `visit_*` methods of one argument that hold no nested value.
macro_rules! visit {
    ($($method:ident: $ty:ty)*) => {$(
        fn $method<E: de::Error>(self, v: $ty) -> Result<V::Value, E> {
            self.0.$method(v)
        }
    )*};
}

impl<'de, V: Visitor<'de>> Visitor<'de> for Nested<V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.expecting(f)
    }

    visit! {
        visit_bool: bool visit_i8: i8 visit_i16: i16 visit_i32: i32 visit_i64: i64 visit_i128: i128
        visit_u8: u8 visit_u16: u16 visit_u32: u32 visit_u64: u64 visit_u128: u128
        visit_f32: f32 visit_f64: f64 visit_char: char visit_str: &str visit_borrowed_str: &'de str
        visit_string: String visit_bytes: &[u8] visit_borrowed_bytes: &'de [u8] visit_byte_buf: Vec<u8>
    }

    fn visit_none<E: de::Error>(self) -> Result<V::Value, E> {
        self.0.visit_none()
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<V::Value, D::Error> {
        self.0.visit_some(Objects(deserializer))
    }

    fn visit_unit<E: de::Error>(self) -> Result<V::Value, E> {
        self.0.visit_unit()
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, deserializer: D) -> Result<V::Value, D::Error> {
        self.0.visit_newtype_struct(Objects(deserializer))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<V::Value, A::Error> {
        self.0.visit_seq(Nested(seq))
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<V::Value, A::Error> {
        self.0.visit_map(Nested(map))
    }

    fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<V::Value, A::Error> {
        self.0.visit_enum(Nested(data))
    }
}

impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for Nested<S> {
    type Value = S::Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<S::Value, D::Error> {
        self.0.deserialize(Objects(deserializer))
    }
}

impl<'de, A: SeqAccess<'de>> SeqAccess<'de> for Nested<A> {
    type Error = A::Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>, A::Error> {
        self.0.next_element_seed(Nested(seed))
    }

    fn size_hint(&self) -> Option<usize> {
        self.0.size_hint()
    }
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for Nested<A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, A::Error> {
        self.0.next_key_seed(Nested(seed))
    }

    fn next_value_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<T::Value, A::Error> {
        self.0.next_value_seed(Nested(seed))
    }

    fn size_hint(&self) -> Option<usize> {
        self.0.size_hint()
    }
}

impl<'de, A: EnumAccess<'de>> EnumAccess<'de> for Nested<A> {
    type Error = A::Error;
    type Variant = Nested<A::Variant>;

    fn variant_seed<S: DeserializeSeed<'de>>(self, seed: S) -> Result<(S::Value, Self::Variant), A::Error> {
        self.0.variant_seed(Nested(seed)).map(|(value, variant)| (value, Nested(variant)))
    }
}

impl<'de, A: VariantAccess<'de>> VariantAccess<'de> for Nested<A> {
    type Error = A::Error;

    fn unit_variant(self) -> Result<(), A::Error> {
        self.0.unit_variant()
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, A::Error> {
        self.0.newtype_variant_seed(Nested(seed))
    }

    fn tuple_variant<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value, A::Error> {
        self.0.tuple_variant(len, Nested(visitor))
    }

    /// A struct variant is read as a map too: serde_json's `struct_variant` reads any value
    /// (an array included), so the variant's value goes through [`Objects`] instead.
    fn struct_variant<V: Visitor<'de>>(
        self,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, A::Error> {
        self.0.newtype_variant_seed(StructVariant(visitor))
    }
}

/// The value of a struct variant, read as a map.
struct StructVariant<V>(V);

impl<'de, V: Visitor<'de>> DeserializeSeed<'de> for StructVariant<V> {
    type Value = V::Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<V::Value, D::Error> {
        deserializer.deserialize_map(Nested(self.0))
    }
}
