//! How many servers a request rate needs: the fewest for which a check passes, when more
//! servers only help (each takes `λ/n` of a Poisson stream: lower utilisation, lower
//! concurrency, shorter queues).

use crate::error::Invalid;

/// Most servers of one pool the planner considers (2^24).
pub const MAX_SERVERS: u64 = 1 << 24;

/// The fewest `n` in `[1, MAX_SERVERS]` with `ok(n)`, for an `ok` that is false up to some
/// `n` and true from it on (doubling, then bisection: about 2·log₂ n calls); `None` when
/// even `MAX_SERVERS` is not enough.
///
/// # Errors
/// What `ok` returns.
pub fn fewest_servers(ok: impl FnMut(u64) -> Result<bool, Invalid>) -> Result<Option<u64>, Invalid> {
    fewest_servers_from(1, ok)
}

/// [`fewest_servers`] when fewer than `first` servers are known not to be enough (a
/// stability bound): the search starts there.
///
/// # Errors
/// What `ok` returns.
pub fn fewest_servers_from(
    first: u64,
    mut ok: impl FnMut(u64) -> Result<bool, Invalid>,
) -> Result<Option<u64>, Invalid> {
    let first = first.clamp(1, MAX_SERVERS);
    let mut hi = first;
    let mut lo = first - 1;
    while !ok(hi)? {
        if hi >= MAX_SERVERS {
            return Ok(None);
        }
        lo = hi;
        hi = (hi * 2).min(MAX_SERVERS);
    }
    // ok(hi); not ok at lo (or lo = first − 1, below which nothing is).
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if ok(mid)? {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    Ok(Some(hi))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_edge() {
        for edge in [1_u64, 2, 3, 7, 8, 9, 1000, MAX_SERVERS] {
            let mut calls = 0;
            let n = fewest_servers(|n| {
                calls += 1;
                Ok(n >= edge)
            })
            .unwrap();
            assert_eq!(n, Some(edge));
            assert!(calls <= 2 * 25, "{calls}");
        }
        assert_eq!(fewest_servers(|_| Ok(false)).unwrap(), None);
        for (first, edge) in [(1, 5), (5, 5), (3, 1000), (1000, 1001)] {
            assert_eq!(fewest_servers_from(first, |n| Ok(n >= edge)).unwrap(), Some(edge));
        }
    }
}
