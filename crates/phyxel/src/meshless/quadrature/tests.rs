use super::points::gauss_legendre;
use super::*;
use crate::conjugate_gradient::{self, block_jacobi, block_jacobi_inverses, Tolerance};
use crate::meshless::sampling::{sample, Lattice, Shape};

fn beam_material(young: f64, poisson: f64) -> Material {
    Material {
        young,
        poisson,
        density: 1000.0,
        volume_stiffness: 0.0,
    }
}

/// Solves −K u = f on the free particles (linear: rotations at u = 0).
fn linear_static(q: &Quadrature, fixed: &[bool], f: &[DVec3]) -> (Vec<DVec3>, usize) {
    let n = q.particle_count();
    let r = vec![DMat3::IDENTITY; q.len()];
    let zero = |v: &mut Vec<DVec3>| {
        for (i, x) in v.iter_mut().enumerate() {
            if fixed[i] {
                *x = DVec3::ZERO;
            }
        }
    };
    let apply = |z: &Vec<DVec3>| {
        let mut free = z.clone();
        zero(&mut free);
        let kz = q.stiffness_product(&r, &free);
        (0..n).map(|i| if fixed[i] { z[i] } else { -kz[i] }).collect::<Vec<_>>()
    };
    let blocks: Vec<DMat3> = q
        .stiffness_diagonal(&r)
        .into_iter()
        .enumerate()
        .map(|(i, k)| if fixed[i] { DMat3::IDENTITY } else { -k })
        .collect();
    let inverses = block_jacobi_inverses(&blocks);
    let mut b = f.to_vec();
    zero(&mut b);
    let s = conjugate_gradient::solve(
        apply,
        &b,
        vec![DVec3::ZERO; n],
        block_jacobi(&inverses),
        Tolerance {
            relative_residual: 1e-10,
            max_iterations: 20_000,
        },
    );
    (s.x, s.iterations)
}

#[test]
#[ignore]
fn experiment_cantilever() {
    let (h, l): (f64, f64) = (0.02, 0.2);
    let (young, nu) = (5.0e7, 0.45);
    let load = 1e-3 * young * h * h;
    let g = young / (2.0 * (1.0 + nu));
    let kappa = 10.0 * (1.0 + nu) / (12.0 + 11.0 * nu);
    let inertia = h.powi(4) / 12.0;
    let timoshenko = load * l.powi(3) / (3.0 * young * inertia) + load * l / (kappa * g * h * h);
    println!("timoshenko {timoshenko:e} (EB {:e})", load * l.powi(3) / (3.0 * young * inertia));
    for &(support, order, ghosts) in &[(2.2, 2, 0), (2.2, 2, 2), (2.5, 2, 2), (2.2, 3, 2), (1.8, 2, 2)] {
        for n in [3usize, 4, 6, 8] {
            let a = h / (n - 1) as f64;
            let beam = Shape::Box { min: DVec3::new(0.0, 0.0, 0.0), max: DVec3::new(l, h, h) };
            let mut particles = sample(&beam, a, Lattice::Cubic);
            for k in 1..=ghosts {
                for p in sample(&beam, a, Lattice::Cubic) {
                    if p.x < 1e-9 {
                        particles.push(p - DVec3::X * (k as f64 * a));
                    }
                }
            }
            let settings = QuadratureSettings { support_factor: support, gauss_order: order, ..Default::default() };
            let q = Quadrature::new(&beam, &particles, a, &beam_material(young, nu), settings).unwrap();
            let fixed: Vec<bool> = particles.iter().map(|p| p.x < 1e-9).collect();
            let mut f = vec![DVec3::ZERO; particles.len()];
            let (xi, w) = gauss_legendre(2);
            let cells = n - 1;
            for cy in 0..cells {
                for cz in 0..cells {
                    for (yy, wy) in xi.iter().zip(w) {
                        for (zz, wz) in xi.iter().zip(w) {
                            let y = (cy as f64 + 0.5 * (1.0 + yy)) * a;
                            let z = (cz as f64 + 0.5 * (1.0 + zz)) * a;
                            let area = 0.25 * a * a * wy * wz;
                            for (i, fi) in q.point_load(DVec3::new(l, y, z), DVec3::new(0.0, -load * area / (h * h), 0.0)) {
                                f[i] += fi;
                            }
                        }
                    }
                }
            }
            let (u, iterations) = linear_static(&q, &fixed, &f);
            // tip deflection: interpolate at the centre of the end face
            let tip: DVec3 = q.point_load(DVec3::new(l, 0.5 * h, 0.5 * h), DVec3::ONE).iter().map(|(i, phi)| phi.x * u[*i]).sum();
            println!(
                "h={support} g={order} ghosts={ghosts} n={n}: particles {} points {} tip {:e} error {:+.3}% cg {iterations} ΣV/V {:.6}",
                particles.len(), q.len(), -tip.y, (-tip.y / timoshenko - 1.0) * 100.0, q.points.total_volume() / (l*h*h)
            );
        }
    }
}
