//! Short accessors into the parts of a draft's model that only exist in some shapes
//! (GQA or MLA attention, MoE, MTP), and number conversions for spec setters.

use shardcalc_core::model::{Attention, GqaAttention, MlaAttention, Moe, Mtp};

use crate::field_spec::Number;
use crate::state::Draft;

/// The GQA attention block, if the model has one.
pub fn gqa(d: &Draft) -> Option<&GqaAttention> {
    match &d.model.attention {
        Attention::Gqa(a) => Some(a),
        Attention::Mla(_) => None,
    }
}

/// Mutable [`gqa`].
pub fn gqa_mut(d: &mut Draft) -> Option<&mut GqaAttention> {
    match &mut d.model.attention {
        Attention::Gqa(a) => Some(a),
        Attention::Mla(_) => None,
    }
}

/// The MLA attention block, if the model has one.
pub fn mla(d: &Draft) -> Option<&MlaAttention> {
    match &d.model.attention {
        Attention::Mla(a) => Some(a),
        Attention::Gqa(_) => None,
    }
}

/// Mutable [`mla`].
pub fn mla_mut(d: &mut Draft) -> Option<&mut MlaAttention> {
    match &mut d.model.attention {
        Attention::Mla(a) => Some(a),
        Attention::Gqa(_) => None,
    }
}

/// The MoE block, if any.
pub fn moe(d: &Draft) -> Option<&Moe> {
    d.model.moe.as_ref()
}

/// Mutable [`moe`].
pub fn moe_mut(d: &mut Draft) -> Option<&mut Moe> {
    d.model.moe.as_mut()
}

/// The MTP block, if any.
pub fn mtp(d: &Draft) -> Option<&Mtp> {
    d.model.mtp.as_ref()
}

/// The whole number in `n` (`None` for unset or real values, which count fields never get).
pub fn count(n: Number) -> Option<u64> {
    match n {
        Number::Count(c) => Some(c),
        Number::Unset | Number::Real(_) => None,
    }
}

/// Text of a count.
#[allow(clippy::unnecessary_wraps)]
pub fn text(n: u64) -> Option<String> {
    Some(n.to_string())
}
