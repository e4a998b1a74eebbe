//! Sorting the few elements of a mesh's axes (at most `MAX_PHYSICAL_AXES`, eight) by
//! insertion, instead of `sort_unstable`.
//!
//! Why (docs/size.md, size4): the training page's only sorts were the placement's pieces and
//! links, each a few elements long, yet `sort_unstable` links its whole quicksort (pivot
//! choice, partitioning, small-sort networks) once per element type: two copies, ~5.9 KB of
//! wasm. An insertion sort is a few lines, and the fastest sort for so few elements anyway.

/// Sorts `v` by `key`, stably, in place: for short slices (quadratic in `v.len()`).
pub(crate) fn by_key<T, K: Ord>(v: &mut [T], key: impl Fn(&T) -> K) {
    for i in 1..v.len() {
        let mut j = i;
        while j > 0 && key(&v[j - 1]) > key(&v[j]) {
            v.swap(j - 1, j);
            j -= 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::by_key;

    /// Random slices of up to eight elements with repeated keys come out as the standard
    /// library's stable sort orders them (equal keys keep their order).
    #[test]
    fn sorts_as_the_standard_library_does() {
        let mut state = 12_345_u64;
        for len in 0..=8 {
            for _ in 0..500 {
                let v: Vec<(u8, usize)> = (0..len)
                    .map(|i| {
                        state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
                        ((state >> 61) as u8, i)
                    })
                    .collect();
                let mut ours = v.clone();
                by_key(&mut ours, |e| e.0);
                let mut theirs = v;
                theirs.sort_by_key(|e| e.0);
                assert_eq!(ours, theirs);
            }
        }
    }
}
