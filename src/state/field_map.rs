//! Text by field path, for the form's [`super::Draft`]: what was typed, and why it could not be
//! read. A form has tens of fields, so a sorted list does what a `BTreeMap` did (the same
//! order, the same equality) without linking the B-tree's code into every page (~1.5 KB
//! gzip; docs/size.md, "Training page, session 14: the last KB").

/// Values by field path, sorted by path.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FieldMap(Vec<(String, String)>);

impl FieldMap {
    /// An empty map.
    #[must_use]
    pub fn new() -> Self {
        Self(Vec::new())
    }

    fn find(&self, path: &str) -> Result<usize, usize> {
        self.0.binary_search_by(|(p, _)| p.as_str().cmp(path))
    }

    /// The value of `path`.
    #[must_use]
    pub fn get(&self, path: &str) -> Option<&String> {
        self.find(path).ok().and_then(|i| self.0.get(i)).map(|(_, v)| v)
    }

    /// Whether `path` has a value.
    #[must_use]
    pub fn contains_key(&self, path: &str) -> bool {
        self.find(path).is_ok()
    }

    /// Sets the value of `path`, returning the one it replaces.
    pub fn insert(&mut self, path: String, value: String) -> Option<String> {
        match self.find(&path) {
            Ok(i) => self.0.get_mut(i).map(|(_, v)| std::mem::replace(v, value)),
            Err(i) => {
                self.0.insert(i, (path, value));
                None
            }
        }
    }

    /// Removes the value of `path`, returning it.
    pub fn remove(&mut self, path: &str) -> Option<String> {
        self.find(path).ok().map(|i| self.0.remove(i).1)
    }

    /// Keeps the entries for which `keep` is true.
    pub fn retain(&mut self, mut keep: impl FnMut(&String, &mut String) -> bool) {
        self.0.retain_mut(|(p, v)| keep(p, v));
    }

    /// The entries, by path.
    pub fn iter(&self) -> impl Iterator<Item = (&String, &String)> {
        self.0.iter().map(|(p, v)| (p, v))
    }
}
