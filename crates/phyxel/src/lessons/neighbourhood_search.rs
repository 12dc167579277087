//! The neighbourhood-search lesson: particles moving in a box that straddles the origin, their
//! neighbours found by the solver's spatial hash ([`crate::meshless::neighbours`], Teschner et al. 2003)
//! and, for comparison, by brute force (every pair: O(n²)).

use crate::meshless::neighbours::Neighbourhoods;
use glam::{DVec2, DVec3};

/// The lesson's parameters: how many particles, and the search radius h (m).
/// The page's controls take their ranges and defaults from here (`NeighbourhoodLesson.parameters()`), and
/// the bindings check values against the same.
pub mod param {
    use crate::params::Param;
    pub const COUNT: Param = Param::integer("count", 2.0, 20_000.0, 1000.0);
    pub const RADIUS: Param = Param::real("radius", 0.01, 0.5, 0.1);
}

/// Every parameter of the lesson, by its public name.
pub const PARAMETERS: &[crate::params::Param] = &[param::COUNT, param::RADIUS];

/// The most (ordered) neighbour pairs one search may be expected to find: each range alone is fine,
/// but 20 000 particles with h = 0.5 would make ~8·10⁷ pairs (over 1 GB of lists, rebuilt every
/// frame). 4·10⁶ allows every count up to the largest at the default radius.
pub const MAX_PAIRS: f64 = 4.0e6;

/// The expected number of ordered neighbour pairs of `count` particles spread evenly over the
/// 2 × 2 box searched with radius `radius`: n(n − 1)·πh²/4 (fewer near the walls).
pub fn expected_pairs(count: usize, radius: f64) -> f64 {
    let n = count as f64;
    n * (n - 1.0) * std::f64::consts::PI * radius * radius / 4.0
}

/// The work budget, checked before a swarm is made or its radius changed: Ok, or why not, with
/// the limit.
pub fn check_work(count: usize, radius: f64) -> Result<(), String> {
    let pairs = expected_pairs(count, radius);
    if pairs > MAX_PAIRS {
        return Err(format!(
            "{count} particles with radius {radius} would make about {pairs:.1e} neighbour pairs per \
             search (n(n−1)πh²/4): at most {MAX_PAIRS:.0e} are allowed; lower the count or the radius"
        ));
    }
    Ok(())
}

/// Particles bouncing in the box [−1, 1]².
#[derive(Clone, Debug)]
pub struct Swarm {
    pub positions: Vec<DVec2>,
    velocities: Vec<DVec2>,
}

impl Swarm {
    /// `count` particles at deterministic pseudo-random positions and velocities.
    pub fn new(count: usize, seed: u64) -> Self {
        let mut state = seed ^ 0x9E37_79B9_7F4A_7C15;
        let mut uniform = || {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            2.0 * ((state >> 11) as f64 / (1u64 << 53) as f64) - 1.0
        };
        let positions = (0..count)
            .map(|_| DVec2::new(uniform(), uniform()))
            .collect();
        let velocities = (0..count)
            .map(|_| 0.3 * DVec2::new(uniform(), uniform()))
            .collect();
        Self {
            positions,
            velocities,
        }
    }

    /// Move for `dt`, reflecting at the walls.
    pub fn advance(&mut self, dt: f64) {
        for (p, v) in self.positions.iter_mut().zip(&mut self.velocities) {
            *p += dt * *v;
            for axis in 0..2 {
                if p[axis].abs() > 1.0 {
                    p[axis] = p[axis].signum() * (2.0 - p[axis].abs());
                    v[axis] = -v[axis];
                }
            }
        }
    }

    /// ½Σ|v|² (unit masses): the walls reflect a velocity component, so it never changes.
    pub fn kinetic_energy(&self) -> f64 {
        self.velocities
            .iter()
            .map(|v| 0.5 * v.length_squared())
            .sum()
    }

    /// Neighbour lists (|x_j − x_i| < radius) by the spatial hash.
    pub fn hashed(&self, radius: f64) -> Neighbourhoods {
        let points: Vec<DVec3> = self.positions.iter().map(|p| p.extend(0.0)).collect();
        Neighbourhoods::build(&points, &vec![radius; points.len()])
    }

    /// Neighbour lists by testing every pair, sorted by index.
    pub fn brute_force(&self, radius: f64) -> Vec<Vec<u32>> {
        self.positions
            .iter()
            .enumerate()
            .map(|(i, p)| {
                (0..self.positions.len() as u32)
                    .filter(|&j| {
                        j as usize != i && self.positions[j as usize].distance(*p) < radius
                    })
                    .collect()
            })
            .collect()
    }
}

/// The hash's neighbour list of particle i.
pub fn neighbours_of(hoods: &Neighbourhoods, i: usize) -> Vec<u32> {
    hoods.edges(i).map(|k| hoods.neighbour[k]).collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_parameter_table_takes_its_ends_and_defaults_and_refuses_beyond() {
        crate::params::check_table(super::PARAMETERS).unwrap();
    }

    use super::*;

    #[test]
    fn the_work_budget_refuses_the_combination_and_names_the_limit() {
        // Every count at the default radius, and every radius at the default count, is within it.
        assert!(check_work(20_000, param::RADIUS.default).is_ok());
        assert!(check_work(param::COUNT.default as usize, param::RADIUS.max).is_ok());
        let error = check_work(20_000, 0.5).unwrap_err();
        assert!(error.contains("20000 particles with radius 0.5"), "{error}");
        assert!(error.contains("at most 4e6"), "{error}");
        // The estimate is an upper bound of what a search finds (walls only lower it), and close.
        let swarm = Swarm::new(2000, 7);
        let found = swarm.hashed(0.1).neighbour.len() as f64;
        let expected = expected_pairs(2000, 0.1);
        assert!(
            found < expected && found > 0.85 * expected,
            "{found} vs {expected}"
        );
    }

    #[test]
    fn the_hash_grid_returns_exactly_the_brute_force_sets() {
        for (count, radius, seed) in [(300, 0.1, 1), (1000, 0.05, 2), (50, 0.7, 3)] {
            let mut swarm = Swarm::new(count, seed);
            for _ in 0..3 {
                let hashed = swarm.hashed(radius);
                let brute = swarm.brute_force(radius);
                for (i, expected) in brute.iter().enumerate() {
                    assert_eq!(&neighbours_of(&hashed, i), expected, "particle {i}");
                }
                swarm.advance(0.7);
            }
        }
    }

    #[test]
    fn particles_on_cell_borders_and_at_negative_coordinates_are_found() {
        // A lattice whose points lie exactly on the hash cells' borders (spacing = cell = radius),
        // straddling the origin, plus points just inside the radius across a border.
        let h = 0.25;
        let mut positions: Vec<DVec2> = (-4..=4)
            .flat_map(|i| (-4..=4).map(move |j| DVec2::new(i as f64 * h, j as f64 * h)))
            .collect();
        positions.extend([
            DVec2::new(-0.5 - 1e-12, -0.25),
            DVec2::new(-0.5 + 0.2499, -0.25),
            DVec2::new(-1.0, -1.0 + 1e-9),
        ]);
        let swarm = Swarm {
            velocities: vec![DVec2::ZERO; positions.len()],
            positions,
        };
        // Radius slightly above the spacing: the 4 lattice neighbours at distance h count.
        for radius in [h, h * (1.0 + 1e-9), 1.5 * h] {
            let hashed = swarm.hashed(radius);
            for (i, expected) in swarm.brute_force(radius).iter().enumerate() {
                assert_eq!(
                    &neighbours_of(&hashed, i),
                    expected,
                    "particle {i} at {}, r = {radius}",
                    swarm.positions[i]
                );
            }
        }
        let centre = swarm
            .positions
            .iter()
            .position(|p| *p == DVec2::ZERO)
            .unwrap();
        assert_eq!(
            neighbours_of(&swarm.hashed(h * (1.0 + 1e-9)), centre).len(),
            4
        );
    }
}
