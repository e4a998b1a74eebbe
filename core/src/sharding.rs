//! Sharded arrays (book 3.1): the local shape each device holds under a sharding such
//! as `A[I_XY, J]` on a mesh `{X: 2, Y: 8, Z: 2}`, and how many copies exist.

use crate::error::{Checker, Invalid};
use crate::units::Bytes;

/// A named device-mesh axis, e.g. `("X", 4)`.
pub type MeshAxis<'a> = (&'a str, u64);

/// Chips in the mesh.
#[must_use]
pub fn devices(mesh: &[MeshAxis]) -> f64 {
    mesh.iter().map(|(_, n)| *n as f64).product()
}

fn axis_size(mesh: &[MeshAxis], name: &str) -> Option<u64> {
    mesh.iter().find(|(n, _)| *n == name).map(|(_, s)| *s)
}

/// The device-local shape of an array of `global` shape whose dimension `i` is
/// sharded over the mesh axes `spec[i]` (book 3.1.1: `A[I_XY, J]` on
/// `{X: 2, Y: 8}` holds `[I/16, J]` per device).
///
/// # Errors
/// On field `spec[i]`: an unknown mesh axis, an axis used twice (the book's forbidden
/// `A[I_X, J_X]`), or a dimension the axes do not divide; on `spec`: a rank mismatch.
pub fn local_shape(global: &[u64], spec: &[&[&str]], mesh: &[MeshAxis]) -> Result<Vec<u64>, Invalid> {
    let mut c = Checker::new();
    c.ensure(spec.len() == global.len(), "spec", || {
        format!("has {} entries for an array of rank {}", spec.len(), global.len())
    });
    let mut used: Vec<&str> = Vec::new();
    let mut local = Vec::with_capacity(global.len());
    for (i, (&dim, axes)) in global.iter().zip(spec).enumerate() {
        let field = format!("spec[{i}]");
        let mut ways: u64 = 1;
        for &axis in *axes {
            match axis_size(mesh, axis) {
                Some(n) => ways = ways.saturating_mul(n),
                None => c.push(field.clone(), format!("unknown mesh axis {axis:?}")),
            }
            if used.contains(&axis) {
                c.push(field.clone(), format!("mesh axis {axis:?} already shards another dimension"));
            }
            used.push(axis);
        }
        if ways == 0 || dim % ways != 0 {
            c.push(field, format!("{ways} shards do not divide dimension {dim}"));
            local.push(dim);
        } else {
            local.push(dim / ways);
        }
    }
    c.finish()?;
    Ok(local)
}

/// Copies of the array across the mesh: the product of the axes no dimension is
/// sharded over (book Solution 3.1: `A[I_X, ...]` on `{X:4, Y:8, Z:2}` exists 16 times).
#[must_use]
pub fn replication(spec: &[&[&str]], mesh: &[MeshAxis]) -> f64 {
    mesh.iter().filter(|(name, _)| !spec.iter().any(|axes| axes.contains(name))).map(|(_, n)| *n as f64).product()
}

/// Bytes one device holds.
///
/// # Errors
/// As [`local_shape`].
pub fn bytes_per_device(
    global: &[u64],
    spec: &[&[&str]],
    mesh: &[MeshAxis],
    bytes_per_element: f64,
) -> Result<Bytes, Invalid> {
    let local = local_shape(global, spec, mesh)?;
    Ok(Bytes(local.iter().map(|&n| n as f64).product::<f64>() * bytes_per_element))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forbidden_and_unknown_axes_name_the_dimension() {
        let mesh = [("X", 2), ("Y", 4)];
        let e = local_shape(&[8, 8], &[&["X"], &["X"]], &mesh).unwrap_err();
        assert_eq!(e.0[0].field, "spec[1]");
        let e = local_shape(&[8, 8], &[&["Q"], &[]], &mesh).unwrap_err();
        assert_eq!(e.0[0].field, "spec[0]");
        let e = local_shape(&[6], &[&["Y"]], &mesh).unwrap_err();
        assert_eq!(e.0[0].field, "spec[0]");
    }
}
