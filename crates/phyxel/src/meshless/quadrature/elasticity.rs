//! Corotated linear elasticity summed over the integration points (seed 003 §3.4–3.5, eqs. 9–14), in
//! the deformation-gradient form of the nodal corotated model (Zhou et al. 2013 §3.1):
//!
//! F_I = I + Σ_i u_i ∇φ_iᵀ (at x_I),  F_e,I = F_I F_p,I⁻¹,  R_I = polar(F_e,I),
//! ε_I = sym(R_Iᵀ F_e,I) − I,  σ_I = λ_I tr(ε_I) I + 2μ_I ε_I,  P_I = R_I σ_I F_p,I⁻ᵀ,
//!
//! U = Σ_I v_I ½ ε_I:σ_I and f_i = −∂U/∂u_i = −Σ_I v_I P_I ∇φ_i(x_I) — seed 003 eq. 12 with the
//! rotation taken per integration point (its eq. 11 builds R_I from the neighbourhood; the polar
//! rotation of F_I is the same frame for an affine neighbourhood). With the rotations frozen, the
//! stiffness product is K δu: δF_I = Σ_j δu_j ∇φ_jᵀ F_p,I⁻¹, δP_I = R_I C(sym(R_Iᵀ δF_I)) F_p,I⁻ᵀ,
//! (K δu)_i = −Σ_I v_I δP_I ∇φ_i — eq. 14 without assembling K ([`FrozenStiffness`]: the frozen
//! frames prepared once per solve, the ~15 products of an implicit step then share them). Each pass
//! runs once over the edges in their order, each point's matrix applied to its edges as soon as it
//! is formed, into per-range copies of the particles' sums that are added in a fixed order
//! (`Quadrature::sum_over_points`): no two threads write one force, and the sums do not depend on
//! the thread count. A held surface
//! ([`super::HeldSurface`]) adds its penalty's (linear) force, energy and stiffness to each.

use super::single_precision::{flushed_matrix, SingleDirections, FLUSHED_BELOW};
use super::{Lame, Quadrature};
use crate::meshless::elasticity::{
    corotated_force_differential, corotated_stress, plastic_inverse_of, PhyxelStress,
};
use crate::meshless::polar::polar_rotation;
use crate::parallel::{for_each_piece, map_indices};
use glam::{DMat3, DVec3, Mat3A, Vec3A};

impl Quadrature {
    /// F_I = I + Σ_i u_i ∇φ_iᵀ at integration point I.
    pub fn deformation_gradient(&self, point: usize, displacement: &[DVec3]) -> DMat3 {
        DMat3::IDENTITY + self.displacement_gradient(point, displacement)
    }

    /// ∇u_I = Σ_i u_i ∇φ_iᵀ at integration point I: one column per component of ∇φ, over the
    /// point's edges in sequence.
    fn displacement_gradient(&self, point: usize, displacement: &[DVec3]) -> DMat3 {
        let shape = &self.shape;
        let edges = shape.edges(point);
        let (mut x, mut y, mut z) = (DVec3::ZERO, DVec3::ZERO, DVec3::ZERO);
        for (&i, g) in shape.particle[edges.clone()]
            .iter()
            .zip(&shape.gradient[edges])
        {
            let u = displacement[i as usize];
            x += u * g.x;
            y += u * g.y;
            z += u * g.z;
        }
        DMat3::from_cols(x, y, z)
    }

    fn plastic_inverse(&self, point: usize) -> DMat3 {
        plastic_inverse_of(self.plastic_deformation[point])
    }

    /// R_I = polar(F_I F_p,I⁻¹) of every integration point.
    pub fn rotations(&self, displacement: &[DVec3]) -> Vec<DMat3> {
        map_indices(self.len(), |k| {
            polar_rotation(self.deformation_gradient(k, displacement) * self.plastic_inverse(k))
        })
    }

    /// The corotated state of integration point I ([`corotated_stress`] with v_I): its force matrix
    /// is M_I = −v_I P_I.
    fn point_stress(&self, point: usize, displacement: &[DVec3], rotation: DMat3) -> PhyxelStress {
        self.point_stress_with(point, displacement, |_| rotation).1
    }

    /// [`Quadrature::point_stress`] with the rotation taken from the elastic deformation gradient
    /// F_I F_p,I⁻¹ by `rotation_of`; returns that rotation too.
    fn point_stress_with(
        &self,
        point: usize,
        displacement: &[DVec3],
        rotation_of: impl Fn(DMat3) -> DMat3,
    ) -> (DMat3, PhyxelStress) {
        let plastic_inverse = self.plastic_inverse(point);
        let elastic = self.deformation_gradient(point, displacement) * plastic_inverse;
        let Lame { lambda, mu } = self.point_lame(point);
        let volume = self.points.volume[point];
        let rotation = rotation_of(elastic);
        let stress = corotated_stress(elastic, rotation, plastic_inverse, volume, lambda, mu);
        (rotation, stress)
    }

    /// f_i = −Σ_I v_I P_I ∇φ_i(x_I) at `displacement` with the rotations `rotations`, and the held
    /// surface's penalty force.
    pub fn forces(&self, displacement: &[DVec3], rotations: &[DMat3]) -> Vec<DVec3> {
        let mut forces = self.material_forces(displacement, rotations);
        if let Some(held) = &self.held {
            held.add_forces(displacement, &mut forces);
        }
        forces
    }

    /// The material's part of [`Quadrature::forces`], without the held surface's penalty.
    pub fn material_forces(&self, displacement: &[DVec3], rotations: &[DMat3]) -> Vec<DVec3> {
        self.scatter(|k| {
            self.point_stress(k, displacement, rotations[k])
                .force_matrix
        })
    }

    /// R_I of every point ([`Quadrature::rotations`]) and the forces with them
    /// ([`Quadrature::forces`]) in one pass over the points, F_I gathered once for both and each
    /// point's M_I applied to its edges as soon as it is formed: what an implicit step and a Newton
    /// iteration start with. Measured on the 3D demo's cube (8 000 points, 152 048 edges): 1.63 ms
    /// with one thread against 1.10 + 0.77 ms for the two passes; with two threads no gain (0.97 ms
    /// either way). Storing every point's (R_I, M_I) first and scattering after gained nothing even
    /// with one thread (1.15 MB written and read back a step).
    pub fn rotations_and_forces(&self, displacement: &[DVec3]) -> (Vec<DMat3>, Vec<DVec3>) {
        let mut rotations = vec![DMat3::IDENTITY; self.len()];
        let mut forces = self.scatter_into(&mut rotations, |k, r| {
            let (rotation, stress) = self.point_stress_with(k, displacement, polar_rotation);
            *r = rotation;
            stress.force_matrix
        });
        if let Some(held) = &self.held {
            held.add_forces(displacement, &mut forces);
        }
        (rotations, forces)
    }

    /// [`Quadrature::material_forces`] with each point's rotation taken from `displacement` in the
    /// same pass (F_I computed once per point): what an explicit step needs.
    pub fn material_forces_at(&self, displacement: &[DVec3]) -> Vec<DVec3> {
        self.scatter(|k| {
            self.point_stress_with(k, displacement, polar_rotation)
                .1
                .force_matrix
        })
    }

    /// U = Σ_I v_I ½ ε_I:σ_I with the rotations of `displacement`.
    pub fn energy(&self, displacement: &[DVec3]) -> f64 {
        let rotations = self.rotations(displacement);
        let held = self.held.as_ref().map_or(0.0, |h| h.energy(displacement));
        held + (0..self.len())
            .map(|k| self.point_stress(k, displacement, rotations[k]).energy)
            .sum::<f64>()
    }

    /// K δu at frozen rotations ([`FrozenStiffness::product`], the frames prepared for this one
    /// product).
    pub fn stiffness_product(&self, rotations: &[DMat3], du: &[DVec3]) -> Vec<DVec3> {
        self.frozen_stiffness(rotations).product(du)
    }

    /// The stiffness at the frozen rotations `rotations` (one per point): each elastic point's
    /// frame in f32, prepared once for the products and the diagonal of a solve.
    pub fn frozen_stiffness<'a>(&'a self, rotations: &'a [DMat3]) -> FrozenStiffness<'a> {
        assert_eq!(rotations.len(), self.len(), "one rotation per point");
        let frames = map_indices(self.len(), |k| {
            (self.plastic_deformation[k] == DMat3::IDENTITY)
                .then(|| ElasticFrame::new(self, k, rotations[k]))
        });
        FrozenStiffness {
            quadrature: self,
            rotations,
            frames,
        }
    }

    /// δM_I = −v_I δP_I of a plastic point (F_p,I ≠ I) for the displacement gradient ∇δu_I of the
    /// product's scaled field, with its rotation R_I frozen: δF_I = ∇δu_I F_p,I⁻¹, δP_I = R_I
    /// C(sym(R_Iᵀ δF_I)) F_p,I⁻ᵀ (module docs), in double; in f32 with its entries below 2⁻⁴⁰ of
    /// v_I (λ_I + 2μ_I) max|∇φ| (δM_I's scale for the largest ∇δu the scaled field can give) set to
    /// zero ([`single_precision`]).
    ///
    /// [`single_precision`]: super::single_precision
    fn plastic_force_matrix_differential(
        &self,
        k: usize,
        rotation: DMat3,
        gradient: DMat3,
    ) -> Mat3A {
        let Lame { lambda, mu } = self.point_lame(k);
        let volume = self.points.volume[k];
        let plastic_inverse = self.plastic_inverse(k);
        let df = gradient * plastic_inverse;
        let m = corotated_force_differential(df, rotation, plastic_inverse, volume, lambda, mu);
        flushed_matrix(m, self.differential_floor(volume, lambda, mu))
    }

    /// 2⁻⁴⁰ of v_I (λ_I + 2μ_I) max|∇φ| for a point of volume v_I and Lamé parameters λ_I, μ_I:
    /// below it an entry of the point's δM_I is zero.
    fn differential_floor(&self, volume: f64, lambda: f64, mu: f64) -> f64 {
        FLUSHED_BELOW * volume * (lambda + 2.0 * mu) * self.shape.gradient_bound
    }

    /// The diagonal blocks of K at frozen rotations ([`FrozenStiffness::diagonal`]).
    pub fn stiffness_diagonal(&self, rotations: &[DMat3]) -> Vec<DMat3> {
        self.frozen_stiffness(rotations).diagonal()
    }

    /// f_i = Σ_{edges e into i} M_{I(e)} ∇φ_e with the points' force matrices M_I = −v_I P_I from
    /// `force_matrix`, in one pass over the edges in their order ([`Quadrature::sum_over_points`]):
    /// each point's M_I is computed and at once applied to its edges.
    fn scatter(&self, force_matrix: impl Fn(usize) -> DMat3 + Sync + Send) -> Vec<DVec3> {
        let mut nothing = vec![(); self.len()];
        self.scatter_into(&mut nothing, |k, _| force_matrix(k))
    }

    /// [`Quadrature::scatter`] whose `force_matrix(I, &mut outputs[I])` also writes one value per
    /// point.
    fn scatter_into<O: Send>(
        &self,
        outputs: &mut [O],
        force_matrix: impl Fn(usize, &mut O) -> DMat3 + Sync + Send,
    ) -> Vec<DVec3> {
        let shape = &self.shape;
        self.sum_over_points_into(DVec3::ZERO, outputs, |k, output, forces| {
            let m = force_matrix(k, output);
            let edges = shape.edges(k);
            for (&i, &g) in shape.particle[edges.clone()]
                .iter()
                .zip(&shape.gradient[edges])
            {
                forces[i as usize] += m * g;
            }
        })
    }

    /// Per-particle sums over the integration points: `add_point(I, sums)` adds point I's shares
    /// into the sums of its particles. The points are taken in [`POINT_RANGES`] fixed ranges, each
    /// summed into its own copy of the sums over the particles its edges reach (its window,
    /// [`ShapeFunctions::range_windows`]; the ranges in parallel), and the copies are then added in
    /// order: the result does not depend on the thread count, and no two threads write one sum. (A
    /// pass over the edges in their order, each point's work done once, instead of a gather over
    /// reverse lists that reads every edge's point data again. Copies of every particle's sums
    /// instead of the windows took 5 % of the 3D demo's step on one thread, 2026-12-03: 16 copies
    /// zeroed and added in each of its ~15 stiffness products.)
    ///
    /// [`POINT_RANGES`]: super::shape_functions::POINT_RANGES
    /// [`ShapeFunctions::range_windows`]: super::shape_functions::ShapeFunctions::range_windows
    fn sum_over_points<T>(
        &self,
        zero: T,
        add_point: impl Fn(usize, &mut Window<T>) + Sync + Send,
    ) -> Vec<T>
    where
        T: Copy + Send + Sync + std::ops::Add<Output = T>,
    {
        let mut nothing = vec![(); self.len()];
        self.sum_over_points_into(zero, &mut nothing, |k, _, sums| add_point(k, sums))
    }

    /// [`Quadrature::sum_over_points`] that also writes one value per point:
    /// `add_point(I, &mut outputs[I], sums)`.
    fn sum_over_points_into<T, O>(
        &self,
        zero: T,
        outputs: &mut [O],
        add_point: impl Fn(usize, &mut O, &mut Window<T>) + Sync + Send,
    ) -> Vec<T>
    where
        T: Copy + Send + Sync + std::ops::Add<Output = T>,
        O: Send,
    {
        let (points, particles) = (self.len(), self.particle_count());
        assert_eq!(outputs.len(), points, "one output per point");
        let range = self.shape.range_length();
        let windows = &self.shape.range_windows;
        assert_eq!(
            windows.len(),
            points.div_ceil(range),
            "one window per range"
        );
        let mut partial: Vec<Vec<T>> = windows.iter().map(|_| Vec::new()).collect();
        let pieces: Vec<_> = outputs
            .chunks_mut(range)
            .zip(&mut partial)
            .zip(windows)
            .enumerate()
            .collect();
        for_each_piece(pieces, |(c, ((outputs, sums), &(first, end)))| {
            *sums = vec![zero; (end - first) as usize];
            let mut window = Window {
                first: first as usize,
                sums,
            };
            for (offset, output) in outputs.iter_mut().enumerate() {
                add_point(c * range + offset, output, &mut window);
            }
        });
        // Each range's window added in the ranges' order (a few thousand sums: one thread).
        let mut total = vec![zero; particles];
        for (sums, &(first, end)) in partial.iter().zip(windows) {
            for (sum, &share) in total[first as usize..end as usize].iter_mut().zip(sums) {
                *sum = *sum + share;
            }
        }
        total
    }
}

/// One point range's sums over the particles first..first + len its edges reach, indexed by the
/// particle's number ([`Quadrature::sum_over_points`]).
struct Window<'a, T> {
    first: usize,
    sums: &'a mut [T],
}

impl<T> std::ops::Index<usize> for Window<'_, T> {
    type Output = T;
    fn index(&self, particle: usize) -> &T {
        &self.sums[particle - self.first]
    }
}

impl<T> std::ops::IndexMut<usize> for Window<'_, T> {
    fn index_mut(&mut self, particle: usize) -> &mut T {
        &mut self.sums[particle - self.first]
    }
}

/// A particle's diagonal block as [`Quadrature::stiffness_diagonal`] sums it: the shares
/// −v_I (λ_I + μ_I) r rᵀ, and apart from them Σ v_I μ_I (r ⊙ r), whose three entries sum to the
/// Σ v_I μ_I |r|² of the block's −(…) I part.
#[derive(Clone, Copy)]
struct DiagonalShare {
    outer: Mat3A,
    squares: Vec3A,
}

impl DiagonalShare {
    /// No share (not `Default`: glam's default matrix is the identity).
    const ZERO: Self = Self {
        outer: Mat3A::ZERO,
        squares: Vec3A::ZERO,
    };
}

impl std::ops::Add for DiagonalShare {
    type Output = Self;
    fn add(self, other: Self) -> Self {
        Self {
            outer: self.outer + other.outer,
            squares: self.squares + other.squares,
        }
    }
}

/// K = ∂f/∂u of a quadrature at frozen rotations (module docs), prepared once for the products and
/// the diagonal blocks of a solve (an implicit step takes ~15 products with one set of rotations):
/// each elastic point's frame in f32 ([`ElasticFrame`]); a plastic point (F_p,I ≠ I) is taken in
/// double from its rotation.
pub struct FrozenStiffness<'a> {
    quadrature: &'a Quadrature,
    rotations: &'a [DMat3],
    /// The elastic points' frames; None for a plastic point.
    frames: Vec<Option<ElasticFrame>>,
}

impl FrozenStiffness<'_> {
    /// K δu in single precision over the edges: the gather ∇δu_I = Σ_i δu_i ∇φ_iᵀ and the scatter
    /// of δM_I ∇φ_i run on `Vec3A` (four f32 lanes of SSE2 or wasm's simd128: three vector
    /// operations per edge and step where `DVec3` takes nine scalar ones), and so does each elastic
    /// point's δM_I ([`ElasticFrame::force_matrix_differential`]). δu is taken without its mean
    /// (Σ_i ∇φ_i = 0 makes a translation exert no force; what is left is the deformation, not a
    /// large common velocity rounded to 2⁻²⁴ of itself), scaled by a power of two, and every f32
    /// operand is kept free of subnormal numbers ([`single_precision`]; their tails cost a landing
    /// 30 products at 40× the time). The product is then exact to about 10⁻⁶ relative, far below
    /// what CG asks of it (10⁻⁴); the forces, the energy and Newton's residual stay in double.
    /// Measured on the 3D demo's cube (152 048 edges, one thread): 0.68 ms in double, 0.48 ms with
    /// the edges in f32 and δM_I in double (2026-11-24); on a slower VM (2026-12-01) 0.99–1.01 ms
    /// so and 0.80–0.84 ms with δM_I in f32 from the prepared frames.
    ///
    /// [`single_precision`]: super::single_precision
    pub fn product(&self, du: &[DVec3]) -> Vec<DVec3> {
        let q = self.quadrature;
        let shape = &q.shape;
        let SingleDirections {
            values: du_single,
            scale,
        } = SingleDirections::of(du);
        let sums = q.sum_over_points(Vec3A::ZERO, |k, forces| {
            let edges = shape.edges(k);
            let gradient = gather_single(
                &du_single,
                &shape.particle[edges.clone()],
                &shape.gradient_single[edges.clone()],
            );
            let m = match &self.frames[k] {
                Some(frame) => frame.force_matrix_differential(gradient),
                None => {
                    q.plastic_force_matrix_differential(k, self.rotations[k], gradient.as_dmat3())
                }
            };
            for (&i, &g) in shape.particle[edges.clone()]
                .iter()
                .zip(&shape.gradient_single[edges])
            {
                forces[i as usize] += m * g;
            }
        });
        let unscale = scale.recip();
        let mut product: Vec<DVec3> = sums.into_iter().map(|f| unscale * f.as_dvec3()).collect();
        if let Some(held) = &q.held {
            held.add_forces(du, &mut product);
        }
        product
    }

    /// The 3 × 3 diagonal blocks K_ii = −Σ_I v_I R_I (μ|c|² I + (λ + μ) c cᵀ) R_Iᵀ with
    /// c = F_p,I⁻ᵀ ∇φ_i(x_I), for block-Jacobi preconditioning. With r = R_I c each share is
    /// −v_I (μ_I |r|² I + (λ_I + μ_I) r rᵀ), as in [`corotated_diagonal_block`] (|r| = |c|, R_I being
    /// a rotation); R_I F_p,I⁻ᵀ, v_I μ_I and v_I (λ_I + μ_I) are taken once per point. In single
    /// precision over the edges, as the product ([`FrozenStiffness::product`]): a preconditioner
    /// needs no more. The μ_I |r|² I shares are summed as the vector Σ v_I μ_I (r ⊙ r), whose entries
    /// add up to the multiple of I at the end: at every edge, two lane-wise products and a sum in
    /// place of a dot product and three diagonal entries (0.58 → 0.42 ms on the 3D demo's cube).
    ///
    /// [`corotated_diagonal_block`]: crate::meshless::elasticity::corotated_diagonal_block
    pub fn diagonal(&self) -> Vec<DMat3> {
        let q = self.quadrature;
        let shape = &q.shape;
        let sums = q.sum_over_points(DiagonalShare::ZERO, |k, blocks| {
            // R_I's round-off entries (down to 10⁻⁴⁰ in free fall) would be subnormal in f32, and
            // every edge's r = R_I ∇φ_i would take them (measured: the fall's diagonals took 2.5–11
            // ms instead of 0.6): the frames have them flushed.
            let (frame, volume_mu, volume_lambda_mu) = match &self.frames[k] {
                Some(e) => (e.rotation, e.volume_mu, e.volume_lambda + e.volume_mu),
                None => {
                    let Lame { lambda, mu } = q.point_lame(k);
                    let volume = q.points.volume[k];
                    let frame = self.rotations[k] * q.plastic_inverse(k).transpose();
                    (
                        flushed_matrix(frame, FLUSHED_BELOW),
                        (volume * mu) as f32,
                        (volume * (lambda + mu)) as f32,
                    )
                }
            };
            let edges = shape.edges(k);
            for (&i, &g) in shape.particle[edges.clone()]
                .iter()
                .zip(&shape.gradient_single[edges])
            {
                let r = frame * g;
                let scaled = -volume_lambda_mu * r;
                let block = &mut blocks[i as usize];
                block.outer.x_axis += scaled * r.x;
                block.outer.y_axis += scaled * r.y;
                block.outer.z_axis += scaled * r.z;
                block.squares += volume_mu * (r * r);
            }
        });
        let mut blocks: Vec<DMat3> = sums
            .iter()
            .map(|s| {
                let trace = s.squares.as_dvec3().element_sum();
                s.outer.as_dmat3() - DMat3::from_diagonal(DVec3::splat(trace))
            })
            .collect();
        if let Some(held) = &q.held {
            held.add_diagonal(&mut blocks);
        }
        blocks
    }
}

/// ∇δu_I = Σ_i δu_i ∇φ_iᵀ over one point's edges (`particles`, `gradients`) in f32, as two partial
/// sums over the even and the odd edges added at the end: each column's sum is a chain of additions
/// that wait on each other (`perf` put the gather's time on them), and two chains halve the wait.
/// Measured on the 3D demo's products (one thread, fastest of 20 calls, six runs each, 2026-12-03):
/// 0.503–0.534 ms against 0.526–0.544 ms with one chain, about 3 %.
fn gather_single(du: &[Vec3A], particles: &[u32], gradients: &[Vec3A]) -> Mat3A {
    let mut even = Mat3A::ZERO;
    let mut odd = Mat3A::ZERO;
    let add = |sum: &mut Mat3A, i: u32, g: Vec3A| {
        let u = du[i as usize];
        sum.x_axis += u * g.x;
        sum.y_axis += u * g.y;
        sum.z_axis += u * g.z;
    };
    let mut pairs = particles.chunks_exact(2).zip(gradients.chunks_exact(2));
    for (i, g) in pairs.by_ref() {
        add(&mut even, i[0], g[0]);
        add(&mut odd, i[1], g[1]);
    }
    if particles.len() % 2 == 1 {
        let last = particles.len() - 1;
        add(&mut even, particles[last], gradients[last]);
    }
    even + odd
}

/// An elastic point's frozen frame for the product, in f32: R_I and R_Iᵀ with their round-off
/// entries below 2⁻⁴⁰ set to zero (they reach 10⁻⁴⁰ while a body falls undeformed, subnormal in
/// f32), v_I λ_I, v_I μ_I, and the floor of δM_I's entries
/// ([`Quadrature::differential_floor`]).
#[derive(Clone, Copy, Debug)]
struct ElasticFrame {
    rotation: Mat3A,
    rotation_transposed: Mat3A,
    volume_lambda: f32,
    volume_mu: f32,
    floor: f32,
}

impl ElasticFrame {
    fn new(quadrature: &Quadrature, k: usize, rotation: DMat3) -> Self {
        let Lame { lambda, mu } = quadrature.point_lame(k);
        let volume = quadrature.points.volume[k];
        Self {
            rotation: flushed_matrix(rotation, FLUSHED_BELOW),
            rotation_transposed: flushed_matrix(rotation.transpose(), FLUSHED_BELOW),
            volume_lambda: (volume * lambda) as f32,
            volume_mu: (volume * mu) as f32,
            floor: quadrature.differential_floor(volume, lambda, mu) as f32,
        }
    }

    /// δM_I = −v_I δP_I for the displacement gradient G = ∇δu_I with R_I frozen and F_p,I = I:
    /// δP = R C(sym(Rᵀ G)) = λ tr(H) R + μ (G + R Hᵀ) with H = Rᵀ G (R Rᵀ = I), so
    ///
    /// δM_I = −v_I λ_I tr(H) R − v_I μ_I (G + R Hᵀ),
    ///
    /// two 3 × 3 products on four f32 lanes, its entries below the floor set to zero. (In double,
    /// from R_I and F_p,I read each product, the work per point took 36 % of the product's pass,
    /// beside 35 % for the gather and 25 % for the scatter over its 19 edges: `perf` on the demo.)
    fn force_matrix_differential(&self, gradient: Mat3A) -> Mat3A {
        let h = self.rotation_transposed * gradient;
        let trace = h.x_axis.x + h.y_axis.y + h.z_axis.z;
        let m = self.rotation * (-self.volume_lambda * trace)
            - (gradient + self.rotation * h.transpose()) * self.volume_mu;
        let floor = Vec3A::splat(self.floor);
        let flush = |v: Vec3A| Vec3A::select(v.abs().cmplt(floor), Vec3A::ZERO, v);
        Mat3A::from_cols(flush(m.x_axis), flush(m.y_axis), flush(m.z_axis))
    }
}
