//! A strict reader for the flat YAML subset MaxText model configs are written in.
//!
//! Supported: top-level `key: value` lines; `#` comments; plain, `'single'` and `"double"`
//! quoted scalars; the empty mapping `{}`; `null`/`~`, `true`/`false` (any case YAML 1.1 allows), integers with
//! `_` separators, floats (`1.0e-5`, `1.e-06`, `1e-05`); flow lists (`["silu", "linear"]`,
//! nested, possibly over several lines); block lists of `- item` lines under an empty
//! value. Everything else (nested mappings, anchors, tags, block scalars, flow mappings,
//! duplicate keys, tab indentation) is a [`ImportError::Syntax`] naming the line. The
//! result is a JSON object so both importers share one key reader.

use super::yaml_scalar::scalar;
use super::ImportError;
use serde_json::{Map, Value};

/// Deepest flow-list nesting accepted (MaxText uses two levels).
const MAX_DEPTH: usize = 16;

/// Parse `text` into an object of its top-level keys.
///
/// # Errors
/// The first line outside the supported subset.
pub(crate) fn parse(text: &str) -> Result<Map<String, Value>, ImportError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let lines: Vec<&str> = text.lines().collect();
    let mut map = Map::new();
    let mut i = 0;
    while let Some(raw) = lines.get(i) {
        let line_no = i + 1;
        i += 1;
        let content = strip_comment(raw);
        if content.trim().is_empty() {
            continue;
        }
        if content.starts_with([' ', '\t']) {
            return Err(syntax(
                line_no,
                "unexpected indentation: only top-level `key: value` lines and lists are supported",
            ));
        }
        let (key, rest) = split_key(content, line_no)?;
        let value = if rest.is_empty() {
            let (items, next) = block_list(&lines, i)?;
            i = next;
            items.map_or(Value::Null, Value::Array)
        } else if rest.starts_with('[') {
            let (joined, next) = join_flow_lines(&lines, line_no - 1, rest)?;
            i = next;
            flow_list(&joined, line_no)?
        } else {
            scalar(rest, line_no)?
        };
        if map.insert(key.to_owned(), value).is_some() {
            return Err(syntax(line_no, format!("duplicate key `{key}`")));
        }
    }
    Ok(map)
}

/// One value as a command line gives it (`key=VALUE`, OmegaConf's `from_cli`): a flow
/// list or a scalar, resolved as in a file; text that is neither is a plain string.
pub(crate) fn value(text: &str) -> Value {
    let text = text.trim();
    let parsed = if text.starts_with('[') { flow_list(text, 1) } else { scalar(text, 1) };
    parsed.unwrap_or_else(|_| Value::String(text.to_owned()))
}

pub(super) fn syntax(line: usize, message: impl Into<String>) -> ImportError {
    ImportError::Syntax { line: Some(line), message: message.into() }
}

/// The line without its `# comment` (a `#` at the start or after whitespace, outside
/// quotes), trailing whitespace removed.
fn strip_comment(line: &str) -> &str {
    let mut quote: Option<char> = None;
    let mut prev: Option<char> = None;
    for (at, c) in line.char_indices() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if opens_quote(c, prev) => quote = Some(c),
            None if c == '#' && prev.is_none_or(|p| p == ' ' || p == '\t') => {
                return line.get(..at).unwrap_or(line).trim_end();
            }
            None => {}
        }
        prev = Some(c);
    }
    line.trim_end()
}

/// A quote character starts a quoted scalar only where a scalar can start (after a
/// blank, `[`, `,` or `:`), so the apostrophe in `it's` is plain text.
fn opens_quote(c: char, prev: Option<char>) -> bool {
    (c == '"' || c == '\'') && prev.is_none_or(|p| p.is_whitespace() || matches!(p, '[' | ',' | ':'))
}

/// `key: rest` → (`key`, trimmed `rest`).
fn split_key(content: &str, line: usize) -> Result<(&str, &str), ImportError> {
    if content.starts_with('-') && (content.len() == 1 || content.starts_with("- ")) {
        return Err(syntax(line, "a list item needs a key above it (`key:` then `- item`)"));
    }
    let colon = content
        .char_indices()
        .find(|&(at, c)| c == ':' && content.get(at + 1..).is_none_or(|r| r.is_empty() || r.starts_with([' ', '\t'])))
        .map(|(at, _)| at)
        .ok_or_else(|| syntax(line, "expected `key: value`"))?;
    let key = content.get(..colon).unwrap_or_default();
    let rest = content.get(colon + 1..).unwrap_or_default().trim();
    let key_ok = !key.is_empty() && key.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
    if !key_ok {
        return Err(syntax(line, format!("unsupported key `{key}`: use letters, digits, `_`, `-` or `.`")));
    }
    Ok((key, rest))
}

/// The `- item` lines starting at index `from`, if any; returns the index after them.
fn block_list(lines: &[&str], from: usize) -> Result<(Option<Vec<Value>>, usize), ImportError> {
    let mut items = Vec::new();
    let mut i = from;
    let mut end = from;
    while let Some(raw) = lines.get(i) {
        let content = strip_comment(raw);
        let item = content.trim_start_matches(' ');
        if item.is_empty() {
            i += 1;
            continue;
        }
        let Some(rest) = item.strip_prefix('-').filter(|r| r.is_empty() || r.starts_with(' ')) else {
            break;
        };
        let rest = rest.trim();
        let line_no = i + 1;
        let value = if rest.is_empty() {
            return Err(syntax(line_no, "empty list item"));
        } else if rest.starts_with('[') {
            flow_list(rest, line_no)?
        } else if rest.starts_with('-') {
            return Err(syntax(line_no, "nested block lists are not supported; use `[a, b]`"));
        } else {
            scalar(rest, line_no)?
        };
        items.push(value);
        i += 1;
        end = i;
    }
    if items.is_empty() {
        Ok((None, from))
    } else {
        Ok((Some(items), end))
    }
}

/// Join a flow list that continues over several lines; returns the text and the index
/// of the first line after it.
fn join_flow_lines(lines: &[&str], start: usize, first: &str) -> Result<(String, usize), ImportError> {
    let mut joined = String::new();
    let mut depth = 0usize;
    let mut i = start;
    let mut part = first;
    loop {
        let mut quote: Option<char> = None;
        let mut prev: Option<char> = None;
        for c in part.chars() {
            match quote {
                Some(q) if c == q => quote = None,
                Some(_) => {}
                None if opens_quote(c, prev) => quote = Some(c),
                None if c == '[' => depth += 1,
                None if c == ']' => depth = depth.saturating_sub(1),
                None => {}
            }
            prev = Some(c);
        }
        joined.push_str(part);
        joined.push(' ');
        i += 1;
        if depth == 0 {
            return Ok((joined, i));
        }
        match lines.get(i) {
            Some(next) => part = strip_comment(next),
            None => return Err(syntax(start + 1, "unterminated `[` list")),
        }
    }
}

/// A flow list `[a, "b", [c]]` with nothing after it.
fn flow_list(text: &str, line: usize) -> Result<Value, ImportError> {
    let chars: Vec<char> = text.chars().collect();
    let mut pos = 0;
    let value = flow_seq(&chars, &mut pos, 0, line)?;
    skip_blank(&chars, &mut pos);
    if pos < chars.len() {
        return Err(syntax(line, "unexpected text after the closing `]`"));
    }
    Ok(value)
}

fn skip_blank(chars: &[char], pos: &mut usize) {
    while chars.get(*pos).is_some_and(|c| c.is_whitespace()) {
        *pos += 1;
    }
}

fn flow_seq(chars: &[char], pos: &mut usize, depth: usize, line: usize) -> Result<Value, ImportError> {
    if depth >= MAX_DEPTH {
        return Err(syntax(line, format!("lists nested deeper than {MAX_DEPTH} levels")));
    }
    // The caller has seen `[`.
    *pos += 1;
    let mut items = Vec::new();
    loop {
        skip_blank(chars, pos);
        match chars.get(*pos) {
            None => return Err(syntax(line, "unterminated `[` list")),
            Some(']') => {
                *pos += 1;
                return Ok(Value::Array(items));
            }
            Some('[') => items.push(flow_seq(chars, pos, depth + 1, line)?),
            Some('{') => return Err(syntax(line, "flow mappings `{...}` are not supported")),
            Some(&first) => {
                let start = *pos;
                if first == '"' || first == '\'' {
                    // A quoted item runs to its closing quote (`\"` and `''` are escapes).
                    *pos += 1;
                    while let Some(&c) = chars.get(*pos) {
                        *pos += 1;
                        if c == '\\' && first == '"' {
                            *pos += 1;
                        } else if c == first {
                            if first == '\'' && chars.get(*pos) == Some(&'\'') {
                                *pos += 1;
                            } else {
                                break;
                            }
                        }
                    }
                } else {
                    while chars.get(*pos).is_some_and(|&c| c != ',' && c != ']' && c != '[') {
                        *pos += 1;
                    }
                }
                let item: String = chars.get(start..*pos).unwrap_or_default().iter().collect();
                let item = item.trim();
                if item.is_empty() {
                    return Err(syntax(line, "empty list item"));
                }
                items.push(scalar(item, line)?);
            }
        }
        skip_blank(chars, pos);
        match chars.get(*pos) {
            Some(',') => *pos += 1,
            Some(']') => {}
            _ => return Err(syntax(line, "expected `,` or `]` in a list")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn line_of(e: ImportError) -> Option<usize> {
        match e {
            ImportError::Syntax { line, .. } => line,
            other => panic!("not a syntax error: {other}"),
        }
    }

    #[test]
    fn maxtext_scalars() {
        let m = parse(
            "# comment\n\nbase_emb_dim: 4096\nrope_max_timescale: 1_000_000 # note\n\
             eps: 1.0e-5\neps2: 1.e-06\neps3: 1e-05\nflag: False\nname: \"llama2\"\n\
             other: 'it''s'\nnothing: null\nneg: -1\nplain: hello world\nhash: \"a # b\"\n\
             apostrophe: it's fine # comment\nlisted: ['a, b', \"c\\\"d\", it's]\n",
        )
        .unwrap();
        assert_eq!(m["base_emb_dim"], json!(4096));
        assert_eq!(m["rope_max_timescale"], json!(1_000_000));
        assert_eq!(m["eps"], json!(1.0e-5));
        assert_eq!(m["eps2"], json!(1.0e-6));
        assert_eq!(m["eps3"], json!(1.0e-5));
        assert_eq!(m["flag"], json!(false));
        assert_eq!(m["name"], json!("llama2"));
        assert_eq!(m["other"], json!("it's"));
        assert_eq!(m["nothing"], Value::Null);
        assert_eq!(m["neg"], json!(-1));
        assert_eq!(m["plain"], json!("hello world"));
        assert_eq!(m["hash"], json!("a # b"));
        assert_eq!(m["apostrophe"], json!("it's fine"));
        assert_eq!(m["listed"], json!(["a, b", "c\"d", "it's"]));
    }

    #[test]
    fn lists() {
        let m = parse(
            "acts: [\"silu\",\"linear\"]\nrules: [['norm', 'fsdp']]\nlong: [\n  [a, [b, c]],\n  d, # c\n]\n\
             block:\n  - 1\n  - x\nempty: []\nnext: 2\n",
        )
        .unwrap();
        assert_eq!(m["acts"], json!(["silu", "linear"]));
        assert_eq!(m["rules"], json!([["norm", "fsdp"]]));
        assert_eq!(m["long"], json!([["a", ["b", "c"]], "d"]));
        assert_eq!(m["block"], json!([1, "x"]));
        assert_eq!(m["empty"], json!([]));
        assert_eq!(m["next"], json!(2));
    }

    #[test]
    fn malformed_lines_name_their_line() {
        let cases = [
            ("a: 1\nb 2\n", 2),
            ("a: 1\n  nested: 2\n", 2),
            ("a: 1\na: 2\n", 2),
            ("a: [1, 2\nb: 3\n", 1),
            ("x: 1\n\n\ny: &anchor 3\n", 4),
            ("x: {a: 1}\n", 1),
            ("x: |\n  text\n", 1),
            ("- item\n", 1),
            ("k: \"open\n", 1),
            ("k: [1,, 2]\n", 1),
            ("\tk: 1\n", 1),
            ("k: a: b\n", 1),
            ("k:\n  - - a\n", 2),
        ];
        for (text, line) in cases {
            assert_eq!(line_of(parse(text).unwrap_err()), Some(line), "{text:?}");
        }
    }

    #[test]
    fn deep_nesting_is_refused_not_overflowed() {
        let text = format!("k: {}{}\n", "[".repeat(10_000), "]".repeat(10_000));
        assert_eq!(line_of(parse(&text).unwrap_err()), Some(1));
    }
}
