//! What the pointer picks in 3D: of a set of points, the one nearest the origin of a ray among those
//! within a radius of the ray — a phyxel of the 3D demo (`Simulation::pick`), a particle of the 3D
//! fluid page (the view's `OrbitCamera::pick`).

use glam::DVec3;

/// The index of the point nearest to the ray origin + s·direction (s ≥ 0) among `points` within
/// `radius` of it; None if there is none or the direction is not a direction.
pub fn nearest_along_ray(
    points: impl IntoIterator<Item = DVec3>,
    origin: DVec3,
    direction: DVec3,
    radius: f64,
) -> Option<usize> {
    let direction = direction.try_normalize()?;
    points
        .into_iter()
        .enumerate()
        .filter_map(|(i, x)| {
            let along = (x - origin).dot(direction);
            let off_ray = (x - origin - along * direction).length();
            (along >= 0.0 && off_ray <= radius).then_some((i, along))
        })
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(i, _)| i)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first point the ray meets within the radius, not the nearest to the ray; none behind its
    /// origin, none beyond the radius, none for a zero direction.
    #[test]
    fn the_first_point_within_the_radius_along_the_ray_is_picked() {
        let points = [
            DVec3::new(0.0, 0.0, -1.0), // behind the origin
            DVec3::new(0.05, 0.0, 3.0), // within the radius, farther along
            DVec3::new(0.09, 0.0, 2.0), // within the radius, first along the ray
            DVec3::new(0.2, 0.0, 1.0),  // beyond the radius
        ];
        let pick = |direction, radius| nearest_along_ray(points, DVec3::ZERO, direction, radius);
        assert_eq!(pick(DVec3::Z * 2.0, 0.1), Some(2));
        assert_eq!(pick(DVec3::Z, 0.06), Some(1));
        assert_eq!(pick(DVec3::Z, 0.01), None);
        assert_eq!(pick(-DVec3::Z, 0.1), Some(0));
        assert_eq!(pick(DVec3::ZERO, 0.1), None);
    }
}
