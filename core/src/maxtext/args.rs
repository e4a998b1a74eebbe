//! A MaxText command line as `train.py` reads it (`configs/pyconfig.py`,
//! `_resolve_or_infer_config` and `OmegaConf.from_cli`): an optional base YAML (the first
//! argument, when it ends in `.yml`), then `key=value` overrides, each value read as YAML
//! (`[a, b]` is a list, `-1` a number, `'flash'` a string).
//!
//! [`CommandLine::parse_text`] takes what people paste: a shell line or a launch script
//! (`python3 -m MaxText.train src/maxtext/configs/base.yml per_device_batch_size=2 \`),
//! with backslash continuations, quotes, the interpreter and module or script name, and
//! environment assignments before it. Environment variables that change a run
//! (`LIBTPU_INIT_ARGS`, `XLA_PYTHON_CLIENT_MEM_FRACTION`) are kept; `settings` reads them (the XLA flags).

use crate::import::ImportError;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One `key=value` override.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Override {
    /// The key.
    pub key: String,
    /// The value as written.
    pub text: String,
    /// The value as MaxText reads it.
    pub value: Value,
}

/// A parsed MaxText command line.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CommandLine {
    /// The base YAML path, when the first argument is one (`src/maxtext/configs/base.yml`).
    pub base_config: Option<String>,
    /// The overrides, in order (a repeated key: the last one wins, as in OmegaConf).
    pub overrides: Vec<Override>,
    /// Environment assignments written before the command (`NAME=value`, `export NAME=value`).
    pub env: Vec<(String, String)>,
}

/// Most tokens read from a command line or script.
pub const MAX_TOKENS: usize = 4096;

fn syntax(message: impl Into<String>) -> ImportError {
    ImportError::Syntax { line: None, message: message.into() }
}

/// Whether `token` names a YAML file.
fn is_yaml_path(token: &str) -> bool {
    !token.contains('=') && (token.ends_with(".yml") || token.ends_with(".yaml"))
}

/// `NAME=value` with an upper-case shell name: an environment assignment.
fn env_assignment(token: &str) -> Option<(&str, &str)> {
    let (name, value) = token.split_once('=')?;
    let shell_name = !name.is_empty()
        && name.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
        && name.starts_with(|c: char| c.is_ascii_uppercase());
    shell_name.then_some((name, value))
}

impl CommandLine {
    /// The arguments after `train.py` (or `-m MaxText.train`): `[BASE.yml] key=value ...`.
    /// A `NAME=value` with an upper-case shell name (`LIBTPU_INIT_ARGS=...`,
    /// `XLA_PYTHON_CLIENT_MEM_FRACTION=0.9`, `M_<KEY>=...`) is the environment the run
    /// starts with, as a shell reads it before the command: MaxText's keys are lower case.
    ///
    /// # Errors
    /// A token that is neither the first argument's YAML path nor `key=value`.
    pub fn parse(args: &[impl AsRef<str>]) -> Result<Self, ImportError> {
        if args.len() > MAX_TOKENS {
            return Err(syntax(format!("{} arguments; at most {MAX_TOKENS} are read", args.len())));
        }
        let mut out = CommandLine::default();
        for (i, token) in args.iter().map(AsRef::as_ref).enumerate() {
            if i == 0 && is_yaml_path(token) {
                out.base_config = Some(token.to_owned());
                continue;
            }
            if let Some((name, value)) = env_assignment(token) {
                out.env.push((name.to_owned(), value.to_owned()));
                continue;
            }
            let (key, text) = token.split_once('=').ok_or_else(|| {
                syntax(format!(
                    "`{token}` is not key=value (train.py takes an optional base YAML first, then key=value overrides)"
                ))
            })?;
            let key = key.trim();
            let key_ok = !key.is_empty() && key.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.'));
            if !key_ok {
                return Err(syntax(format!("`{key}` is not a MaxText key (in `{token}`)")));
            }
            out.overrides.push(Override {
                key: key.to_owned(),
                text: text.to_owned(),
                value: crate::import::yaml_value(text),
            });
        }
        Ok(out)
    }

    /// A pasted command line or launch script: shell words (quotes, backslash
    /// continuations, `#` comments), environment assignments, the interpreter and
    /// `train.py` or `-m <module>` dropped; the words after them are [`Self::parse`]d.
    /// Lines of a script that do not run training (`cd`, `bash preflight.sh`) are skipped:
    /// the first line that runs a `train` module or script is the command; without one,
    /// every line's words are read as arguments.
    ///
    /// # Errors
    /// Unterminated quotes, and [`Self::parse`]'s.
    pub fn parse_text(text: &str) -> Result<Self, ImportError> {
        let lines = shell_lines(text)?;
        let runs_training = |words: &[String]| {
            words.iter().any(|w| {
                let w = w.trim_end_matches(".py");
                w.ends_with("train") || w.ends_with(".train") || w.ends_with("/train")
            })
        };
        let mut env = Vec::new();
        let mut command: Option<Vec<String>> = None;
        let mut loose = Vec::new();
        for words in &lines {
            let mut rest = words.as_slice();
            if rest.first().is_some_and(|w| w == "export") {
                rest = rest.get(1..).unwrap_or_default();
            }
            while let Some((name, value)) = rest.first().and_then(|w| env_assignment(w)) {
                env.push((name.to_owned(), value.to_owned()));
                rest = rest.get(1..).unwrap_or_default();
            }
            if command.is_none() && runs_training(rest) {
                let after = rest
                    .iter()
                    .position(|w| {
                        let w = w.trim_end_matches(".py");
                        w.ends_with("train") || w.ends_with(".train") || w.ends_with("/train")
                    })
                    .map_or(0, |at| at + 1);
                command = Some(rest.get(after..).unwrap_or_default().to_vec());
            } else if command.is_none() {
                loose.extend(rest.iter().filter(|w| is_yaml_path(w) || w.contains('=')).cloned());
            }
        }
        let mut out = Self::parse(&command.unwrap_or(loose))?;
        env.append(&mut out.env);
        out.env = env;
        Ok(out)
    }

    /// The last value given for `key`.
    #[must_use]
    pub fn get(&self, key: &str) -> Option<&Override> {
        self.overrides.iter().rev().find(|o| o.key == key)
    }

    /// The last value of an environment variable.
    #[must_use]
    pub fn env(&self, name: &str) -> Option<&str> {
        self.env.iter().rev().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }
}

/// The shell words of each logical line (continuations joined, comments dropped).
fn shell_lines(text: &str) -> Result<Vec<Vec<String>>, ImportError> {
    let mut lines = Vec::new();
    let mut words: Vec<String> = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = text.chars().peekable();
    let mut count = 0usize;
    let end_word = |word: &mut String, in_word: &mut bool, words: &mut Vec<String>| {
        if *in_word {
            words.push(std::mem::take(word));
            *in_word = false;
        }
    };
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some('\n') => end_word(&mut word, &mut in_word, &mut words),
                Some('\r') if chars.peek() == Some(&'\n') => {
                    chars.next();
                    end_word(&mut word, &mut in_word, &mut words);
                }
                Some(next) => {
                    word.push(next);
                    in_word = true;
                }
                None => {}
            },
            '\'' | '"' => {
                in_word = true;
                let mut closed = false;
                while let Some(q) = chars.next() {
                    if q == c {
                        closed = true;
                        break;
                    }
                    if c == '"' && q == '\\' {
                        if let Some(&escaped) = chars.peek() {
                            if matches!(escaped, '"' | '\\' | '$' | '`') {
                                word.push(escaped);
                                chars.next();
                                continue;
                            }
                        }
                    }
                    word.push(q);
                }
                if !closed {
                    return Err(syntax(format!("unterminated {c} quote")));
                }
            }
            '#' if !in_word => {
                while chars.peek().is_some_and(|&n| n != '\n') {
                    chars.next();
                }
            }
            '\n' | ';' => {
                end_word(&mut word, &mut in_word, &mut words);
                if !words.is_empty() {
                    lines.push(std::mem::take(&mut words));
                }
            }
            c if c.is_whitespace() => end_word(&mut word, &mut in_word, &mut words),
            c => {
                word.push(c);
                in_word = true;
            }
        }
        count += 1;
        if count > 1 << 20 {
            return Err(syntax("the pasted text is longer than 1 MiB"));
        }
    }
    end_word(&mut word, &mut in_word, &mut words);
    if !words.is_empty() {
        lines.push(words);
    }
    if lines.iter().map(Vec::len).sum::<usize>() > MAX_TOKENS {
        return Err(syntax(format!("more than {MAX_TOKENS} words")));
    }
    Ok(lines)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn arguments_as_train_py_reads_them() {
        let c =
            CommandLine::parse(&["src/maxtext/configs/base.yml", "per_device_batch_size=2", "mlp_activations=[relu]"])
                .unwrap();
        assert_eq!(c.base_config.as_deref(), Some("src/maxtext/configs/base.yml"));
        assert_eq!(c.get("per_device_batch_size").unwrap().value, json!(2));
        assert_eq!(c.get("mlp_activations").unwrap().value, json!(["relu"]));
        assert!(CommandLine::parse(&["a=1", "b.yml"]).is_err(), "a YAML path only comes first");
        assert!(CommandLine::parse(&["per_device_batch_size"]).unwrap_err().to_string().contains("key=value"));
        let c = CommandLine::parse(&["x=1", "x=2", "run_name=a=b"]).unwrap();
        assert_eq!(c.get("x").unwrap().value, json!(2));
        assert_eq!(c.get("run_name").unwrap().value, json!("a=b"));
        let e = CommandLine::parse(&["LIBTPU_INIT_ARGS=--a=true --b=1", "x=1"]).unwrap();
        assert_eq!((e.env("LIBTPU_INIT_ARGS"), e.overrides.len()), (Some("--a=true --b=1"), 1));
    }

    #[test]
    fn a_pasted_script() {
        let text = "export LIBTPU_INIT_ARGS=\"--xla_tpu_overlap_compute_collective_tc=true --x=1\"\n\
                    bash preflight.sh PLATFORM=$PLATFORM\n\
                    python3 MaxText/train.py MaxText/configs/base.yml run_name=$RUN_NAME\\\n    \
                    steps=30 per_device_batch_size=8 attention='flash' # comment\n";
        let c = CommandLine::parse_text(text).unwrap();
        assert_eq!(c.base_config.as_deref(), Some("MaxText/configs/base.yml"));
        assert_eq!(c.get("attention").unwrap().value, json!("flash"));
        assert_eq!(c.get("per_device_batch_size").unwrap().value, json!(8));
        assert!(c.env("LIBTPU_INIT_ARGS").unwrap().contains("overlap_compute_collective_tc=true"));
        assert!(c.get("PLATFORM").is_none(), "the preflight line is not the command");
        let m = CommandLine::parse_text("XLA_PYTHON_CLIENT_MEM_FRACTION=0.85 python3 -m MaxText.train x=1").unwrap();
        assert_eq!((m.env("XLA_PYTHON_CLIENT_MEM_FRACTION"), m.overrides.len()), (Some("0.85"), 1));
        let bare = CommandLine::parse_text("model_name=llama3-8b per_device_batch_size=4\nsteps=10").unwrap();
        assert_eq!(bare.overrides.len(), 3);
        assert!(CommandLine::parse_text("python3 train.py 'x=1").is_err());
    }
}
