//! `Deserialize` for enums whose variants carry no data, by name: read a string, match it.
//!
//! serde's derive generates a full enum visitor per type (about 1 KB of wasm each: strings, maps
//! with one key, integers), and every page that reads a scenario links one per enum in it. This
//! is the same thing in ~0.2 KB: the names are the ones serde's derived `Serialize` writes (each
//! type's `rename_all` and renames stay on the type, which keeps deriving `Serialize` and
//! `JsonSchema`), and `tests::names_match_serialize` checks every variant of every type listed
//! there. A variant added to the enum but not here is a compile error (the match in
//! `serde_name` is exhaustive). Unknown names get serde's usual "unknown variant" error.

/// Reads the next value of a map into `slot`, refusing a second occurrence of `name` (what a
/// derived struct `Deserialize` does): for the hand-written visitors of internally tagged
/// enums (`training::optimizer`, `model::attention_de`).
///
/// # Errors
/// `duplicate_field(name)` when `slot` is already set; the value's own error.
pub(crate) fn fill<'de, A: serde::de::MapAccess<'de>, T: serde::Deserialize<'de>>(
    map: &mut A,
    slot: &mut Option<T>,
    name: &'static str,
) -> Result<(), A::Error> {
    if slot.is_some() {
        return Err(<A::Error as serde::de::Error>::duplicate_field(name));
    }
    *slot = Some(map.next_value()?);
    Ok(())
}

/// Implements `Deserialize` (from a string) and `serde_name` for a unit-only enum:
/// `deserialize_by_name!(DType { Fp32 => "fp32", Bf16 => "bf16" });`
macro_rules! deserialize_by_name {
    ($ty:ident { $($variant:ident => $name:literal),+ $(,)? }) => {
        impl $ty {
            /// Every variant with the name serde writes for it.
            #[allow(dead_code)]
            pub(crate) const SERDE_NAMES: &'static [($ty, &'static str)] = &[$(($ty::$variant, $name)),+];

            /// The name serde writes for this variant.
            #[allow(dead_code)]
            pub(crate) fn serde_name(self) -> &'static str {
                match self {
                    $($ty::$variant => $name),+
                }
            }
        }

        impl<'de> serde::Deserialize<'de> for $ty {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let name = <String as serde::Deserialize>::deserialize(deserializer)?;
                match name.as_str() {
                    $($name => Ok($ty::$variant),)+
                    other => Err(serde::de::Error::unknown_variant(other, &[$($name),+])),
                }
            }
        }
    };
}
pub(crate) use deserialize_by_name;

#[cfg(test)]
mod tests {
    /// Every variant's name reads back as that variant and equals what `Serialize` writes.
    macro_rules! check {
        ($($ty:ty),+ $(,)?) => {
            $(
                for &(variant, name) in <$ty>::SERDE_NAMES {
                    assert_eq!(serde_json::to_string(&variant).unwrap(), format!("\"{name}\""), "{}", stringify!($ty));
                    assert_eq!(serde_json::from_str::<$ty>(&format!("\"{name}\"")).unwrap(), variant);
                    assert_eq!(variant.serde_name(), name);
                }
                let err = serde_json::from_str::<$ty>("\"no_such_variant\"").unwrap_err().to_string();
                assert!(err.contains("unknown variant `no_such_variant`, expected"), "{err}");
                assert!(serde_json::from_str::<$ty>("1").is_err());
            )+
        };
    }

    #[test]
    fn names_match_serialize() {
        use crate::collectives::{CollectiveKind, Network};
        use crate::dtype::DType;
        use crate::flops::{AttentionCounting, FlopConvention, RematPolicy};
        use crate::hardware::chip::ChipFamily;
        use crate::inference::options::{CommsOverlap, KvContext, KvSharding, WeightSharding, WorkingMemory};
        use crate::inference::search::options::DeploymentMode;
        use crate::inference::search::space::ShardingChoice;
        use crate::inference::targets::Constraint;
        use crate::model::{AttentionBias, LayerKind, MlpKind, NormKind};
        use crate::training::pipeline::Schedule;
        use crate::training::setup::AttentionKernel;
        use crate::training::tensors::Placement;
        check!(
            DType,
            CollectiveKind,
            Network,
            FlopConvention,
            AttentionCounting,
            RematPolicy,
            ChipFamily,
            CommsOverlap,
            KvContext,
            KvSharding,
            WeightSharding,
            WorkingMemory,
            AttentionBias,
            LayerKind,
            MlpKind,
            NormKind,
            Schedule,
            AttentionKernel,
            Placement,
            Constraint,
            ShardingChoice,
            DeploymentMode,
        );
    }
}
