//! Indenting compact JSON text, byte for byte as `serde_json::to_string_pretty` writes it
//! ([`pretty`]), and the reverse ([`compact`]).
//!
//! The page writes a scenario file as `pretty(serde_json::to_string(..))` instead of calling
//! `to_string_pretty`: serde would compile a second copy of every `Serialize` impl for the
//! pretty formatter into the page (about 15 KB of wasm), while this is a few hundred bytes.

/// Where a scan of JSON text is: inside a string (quotes included) or not, and after a
/// backslash in one.
#[derive(Default)]
struct Scan {
    in_string: bool,
    escaped: bool,
}

impl Scan {
    /// Reads `c`: whether it belongs to a string (its quotes included), to be copied as it is.
    fn in_string(&mut self, c: char) -> bool {
        if self.in_string {
            match (self.escaped, c) {
                (true, _) => self.escaped = false,
                (false, '\\') => self.escaped = true,
                (false, '"') => self.in_string = false,
                _ => {}
            }
            true
        } else {
            self.in_string = c == '"';
            self.in_string
        }
    }
}

/// `compact` (JSON as `serde_json::to_string` writes it: no whitespace outside strings)
/// indented with two spaces, `": "` after keys, empty objects and arrays kept as `{}` / `[]`.
/// Text that is not compact JSON comes out re-spaced but otherwise unchanged.
#[must_use]
pub fn pretty(compact: &str) -> String {
    let mut out = String::with_capacity(compact.len() * 2);
    let mut depth = 0usize;
    let mut scan = Scan::default();
    let mut chars = compact.chars().peekable();
    let newline = |out: &mut String, depth: usize| {
        out.push('\n');
        for _ in 0..depth {
            out.push_str("  ");
        }
    };
    while let Some(c) = chars.next() {
        if scan.in_string(c) {
            out.push(c);
            continue;
        }
        match c {
            '{' | '[' => {
                out.push(c);
                let close = if c == '{' { '}' } else { ']' };
                if chars.peek() == Some(&close) {
                    out.push(close);
                    chars.next();
                } else {
                    depth += 1;
                    newline(&mut out, depth);
                }
            }
            '}' | ']' => {
                depth = depth.saturating_sub(1);
                newline(&mut out, depth);
                out.push(c);
            }
            ',' => {
                out.push(c);
                newline(&mut out, depth);
            }
            ':' => out.push_str(": "),
            c if c.is_whitespace() => {}
            c => out.push(c),
        }
    }
    out
}

/// `json` without whitespace outside strings (spaces, tabs, newlines), as
/// `serde_json::to_string` writes it: the inverse of [`pretty`] (a section kept as text,
/// `scenario::Kept`, is kept compact).
#[must_use]
pub fn compact(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    let mut scan = Scan::default();
    for c in json.chars() {
        if scan.in_string(c) || !matches!(c, ' ' | '\t' | '\n' | '\r') {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::Scenario;

    #[test]
    fn matches_serde_json_pretty_on_scenarios() {
        let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/roundtrip/full-scenario.json"))
            .unwrap();
        let full = Scenario::from_json(&text).unwrap();
        for s in [Scenario::default(), full] {
            let compact = serde_json::to_string(&s).unwrap();
            assert_eq!(pretty(&compact), serde_json::to_string_pretty(&s).unwrap());
        }
    }

    #[test]
    fn compact_undoes_pretty() {
        let v = serde_json::json!({"a": "x, {y}: [z] \"q\" \\", "b": [], "c": {"d": [1, {"e": null}]}});
        let compact_text = serde_json::to_string(&v).unwrap();
        assert_eq!(compact(&serde_json::to_string_pretty(&v).unwrap()), compact_text);
        assert_eq!(compact(&pretty(&compact_text)), compact_text);
        assert_eq!(compact(" { \"a b\" :\t[ 1 ,\n2 ] } "), r#"{"a b":[1,2]}"#);
    }

    #[test]
    fn any_text_is_handled() {
        for text in ["", "}", "]]]", "\"unterminated", "{\"a\":[1,2", "\\\"", "é:,{"] {
            let _ = pretty(text);
        }
    }

    #[test]
    fn strings_with_structure_characters_are_left_alone() {
        let v = serde_json::json!({"a": "x,{y}:[z] \"q\" \\", "b": [], "c": {}, "d": [1, {"e": null}]});
        let compact = serde_json::to_string(&v).unwrap();
        assert_eq!(pretty(&compact), serde_json::to_string_pretty(&v).unwrap());
    }
}
