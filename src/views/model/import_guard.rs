//! A guard run before importing a config: refuse head counts above core's `MAX_HEADS`.
//!
//! `ModelConfig::validate` (which every import ends with) suggests a KV-head divisor by
//! counting down from the KV-head count even when the head count is out of range; for a large
//! prime that takes effectively forever, so a crafted config.json could freeze the page.
//! This guard goes once core skips that search for out-of-range head counts.

use shardcalc_core::model::MAX_HEADS;

/// `key: problem` for the first key containing "heads" whose value is above [`MAX_HEADS`],
/// in JSON (`"num_attention_heads": 32`) or YAML (`num_query_heads: 32`) text.
#[must_use]
pub fn oversized_heads(text: &str) -> Option<String> {
    text.split(['\n', ',', '{', '}'])
        .filter_map(|segment| segment.split_once(':'))
        .find_map(|(key, value)| {
            let key = key.trim().trim_matches(|c| c == '"' || c == '\'');
            if !key.to_ascii_lowercase().contains("heads") {
                return None;
            }
            let token = value.trim().trim_matches(|c| c == '"' || c == '\'');
            let token = token.split_whitespace().next().unwrap_or("");
            match token.parse::<f64>() {
                Ok(n) if n > MAX_HEADS as f64 => {
                    Some(format!("{key}: must be at most {MAX_HEADS} (got {token})"))
                }
                _ => None,
            }
        })
}
