//! A phyxel body: reference shape, displacements, and the elastic forces in gather form.

use super::elasticity::{phyxel_stress, PhyxelStress};
use super::kernel::poly6;
use super::material::Material;
use super::mls::MlsWeights;
use super::neighbours::Neighbourhoods;
use super::quadrature::points::Region;
use super::quadrature::{Quadrature, QuadratureError, QuadratureSettings};
use crate::parallel::map_indices;
use glam::{DMat3, DVec3};
use serde::{Deserialize, Serialize};

/// Room temperature (°C): every phyxel starts here (melting heats it from there).
pub const AMBIENT_TEMPERATURE: f64 = 20.0;

/// How each phyxel's support radius h_i is chosen.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "rule", rename_all = "kebab-case")]
pub enum SupportRadius {
    /// h_i = factor × lattice spacing for every phyxel.
    SpacingMultiple { factor: f64 },
    /// h_i = scale × the mean distance to the k nearest phyxels (thesis §3.3: k ≈ 9–10, scale ≈ 3).
    KNearest { k: usize, scale: f64 },
}

/// Where the nodal model's phyxel volumes V_i come from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum NodalVolume {
    /// V_i = m_i / ρ_i with ρ_i = Σ_j m_j w_ij, as MKN04 (eq. 6) and the thesis (§4.1.1): the kernel
    /// sum is cut off at the surface, so surface phyxels get up to twice their share.
    #[default]
    KernelDensity,
    /// V_i = m_i / ρ₀: the volume of the lattice cell the phyxel was sampled for.
    Cell,
}

/// How the elastic energy is integrated over the body.
#[derive(Clone, Debug, PartialEq)]
pub enum Integration {
    /// At the phyxels themselves (MKN04 §4): phyxel i is an integration point of volume V_i.
    Nodal(NodalVolume),
    /// At the Gauss points of a background grid cropped to the shape (Brunet et al. 2019 §3.3); the
    /// phyxels carry the degrees of freedom, their masses are the lumped ρ ∫ φ_i. Always corotated;
    /// multiplicative plasticity lives at the points, and melting softens them from the phyxels'
    /// stiffness factors (`Quadrature::soften`).
    Quadrature(Box<Quadrature>),
}

impl Default for Integration {
    fn default() -> Self {
        Integration::Nodal(NodalVolume::KernelDensity)
    }
}

/// A solid made of phyxels.
#[derive(Clone, Debug)]
pub struct Body {
    pub material: Material,
    /// Reference positions x̄_i (the rest shape, until plasticity moves it).
    pub reference: Vec<DVec3>,
    /// Displacements u_i: the current position is x̄_i + u_i.
    pub displacement: Vec<DVec3>,
    pub velocity: Vec<DVec3>,
    pub mass: Vec<f64>,
    /// ρ_i = Σ_j m_j w_ij (j over the neighbourhood and i itself).
    pub density: Vec<f64>,
    /// V_i: m_i / ρ_i (MKN04), m_i / ρ₀ (cell volumes), or the phyxel's share Σ_I v_I φ_i(x_I) of
    /// the integration points' volume (background quadrature) — see [`Integration`].
    pub volume: Vec<f64>,
    pub support_radius: Vec<f64>,
    /// Plastic strain ε_plastic,i of the MKN04 model's additive plasticity (zero for a purely elastic
    /// body).
    pub plastic_strain: Vec<DMat3>,
    /// Plastic deformation gradient F_p,i of the corotated model's multiplicative plasticity
    /// (F = F_e F_p, Zhou et al. 2013 eq. 13): the rest shape of phyxel i's neighbourhood is F_p,i x̄_ij.
    /// The identity for a purely elastic body.
    pub plastic_deformation: Vec<DMat3>,
    /// The rest correction G_i of each phyxel, the safeguard of fracture's refits
    /// ([`super::fracture`]): MKN04's energy is evaluated at the elastic gradient J_i G_i with
    /// J_i = I + ∇u_i. The identity (and then skipped) for every phyxel of a body no crack touched.
    pub rest_correction: Vec<DMat3>,
    /// Temperature T_i (°C), for melting.
    pub temperature: Vec<f64>,
    /// Stiffness factor s_i ∈ (0, 1] scaling λ and μ of phyxel i (1 = solid; melting lowers it).
    pub stiffness_scale: Vec<f64>,
    pub neighbours: Neighbourhoods,
    pub mls: MlsWeights,
    /// Nodal (the default) or background quadrature.
    pub integration: Integration,
}

impl Body {
    /// A body at rest from lattice points with spacing `spacing` (mass = cell volume × ρ₀).
    pub fn new(
        points: Vec<DVec3>,
        cell_volume: f64,
        spacing: f64,
        material: Material,
        rule: SupportRadius,
    ) -> Self {
        let n = points.len();
        let support_radius = support_radii(&points, spacing, rule);
        let mass = vec![cell_volume * material.density; n];
        let mut body = Self {
            material,
            reference: points,
            displacement: vec![DVec3::ZERO; n],
            velocity: vec![DVec3::ZERO; n],
            mass,
            density: vec![0.0; n],
            volume: vec![0.0; n],
            support_radius,
            plastic_strain: vec![DMat3::ZERO; n],
            plastic_deformation: vec![DMat3::IDENTITY; n],
            rest_correction: vec![DMat3::IDENTITY; n],
            temperature: vec![AMBIENT_TEMPERATURE; n],
            stiffness_scale: vec![1.0; n],
            neighbours: Neighbourhoods::default(),
            mls: MlsWeights::default(),
            integration: Integration::default(),
        };
        body.rebuild_reference();
        body
    }

    /// A new material in place. E, ν and k_v act from the next force evaluation; a new density ρ′
    /// scales every mass and every density by ρ′/ρ while the volumes stay: with the thesis' masses
    /// m_i ∝ ρ (§4.1.1, step 1(b)iv), the densities ρ_i = Σ_j m_j w_ij (step 1(c)ii; Adams & Wicke
    /// eq. 5) scale alike, so V_i = m_i/ρ_i (step 1(c)iii) — the sampled volume, and the MLS weights
    /// — are unchanged, and the total mass is Σ m_i = ρ′·V with V the body's sampled volume.
    pub fn set_material(&mut self, material: Material) {
        let ratio = material.density / self.material.density;
        self.mass.iter_mut().for_each(|m| *m *= ratio);
        self.density.iter_mut().for_each(|rho| *rho *= ratio);
        if let Integration::Quadrature(quadrature) = &mut self.integration {
            let (lambda, mu) = material.lame();
            quadrature.set_uniform_material(lambda, mu);
        }
        self.material = material;
    }

    /// The nodal model with phyxel volumes from `rule` (MKN04's kernel densities or the sampling's
    /// cells); the masses stay.
    pub fn set_nodal_volume(&mut self, rule: NodalVolume) {
        self.integration = Integration::Nodal(rule);
        self.rebuild_reference();
    }

    /// Integrate over `region` (the shape the phyxels were sampled from) at the Gauss points of a
    /// background grid (Brunet et al. 2019 §3.3). The phyxels keep their places; their masses become
    /// the lumped ρ₀ Σ_I v_I φ_i(x_I) (total ρ₀ Σ_I v_I) and their volumes the shares Σ_I v_I φ_i.
    /// Phyxels outside the region (held in a wall, say) that no point reaches keep their masses.
    /// Refused, with the reason, for a region thinner than a cell, points without enough particles
    /// around them, or a phyxel inside that no point reaches; the body is then unchanged.
    pub fn set_quadrature(
        &mut self,
        region: &dyn Region,
        spacing: f64,
        settings: QuadratureSettings,
    ) -> Result<(), QuadratureError> {
        self.set_quadrature_of_objects(&[(region, 0..self.len())], spacing, settings)
    }

    /// [`Body::set_quadrature`] for a body of several objects: object k fills `region` with the
    /// phyxels `range` ([`Quadrature::of_objects`]: no shape function reaches across objects).
    pub fn set_quadrature_of_objects(
        &mut self,
        objects: &[(&dyn Region, std::ops::Range<usize>)],
        spacing: f64,
        settings: QuadratureSettings,
    ) -> Result<(), QuadratureError> {
        let quadrature =
            Quadrature::of_objects(objects, &self.reference, spacing, &self.material, settings)?;
        // A phyxel no point reaches would feel no elastic force; one reached with a share ≤ 0 (the
        // MLS φ_i may be negative where a point extrapolates, in a bunny's thin ear) keeps its
        // sampled mass ([`Body::adopt_quadrature`]).
        let unreached = |i: &usize| quadrature.shape.edges_into(*i).is_empty();
        let inside = |i: usize| {
            objects
                .iter()
                .any(|(region, range)| range.contains(&i) && region.contains(self.reference[i]))
        };
        if let Some(i) = (0..self.len()).filter(unreached).find(|&i| inside(i)) {
            return Err(QuadratureError(format!(
                "phyxel {i} at {:?} is reached by no integration point (no elastic force would hold it)",
                self.reference[i]
            )));
        }
        self.adopt_quadrature(Box::new(quadrature));
        Ok(())
    }

    /// Integrate by `quadrature` (built for these phyxels, checked by [`Body::set_quadrature`]):
    /// masses ρ₀ Σ_I v_I φ_i(x_I) and volumes Σ_I v_I φ_i(x_I), softened as the phyxels are.
    pub fn adopt_quadrature(&mut self, mut quadrature: Box<Quadrature>) {
        let shares = quadrature.volume_shares();
        // Phyxels outside the shape (a clamp's wall) that no point reaches, and phyxels whose share
        // is not positive, keep their masses.
        for (i, share) in shares.iter().enumerate() {
            if *share > 0.0 {
                self.mass[i] = self.material.density * share;
            }
        }
        self.volume = shares.iter().map(|v| v.max(0.0)).collect();
        quadrature.soften(&self.stiffness_scale);
        self.integration = Integration::Quadrature(quadrature);
    }

    /// Hold the surface points `points` (reference position, area) at rest by a penalty (background
    /// quadrature only: [`Quadrature::hold_surface`]); the nodal model holds phyxels instead
    /// (`fixed`).
    pub fn hold_surface(
        &mut self,
        points: &[(DVec3, f64)],
        penalty_factor: f64,
        spacing: f64,
    ) -> Result<(), QuadratureError> {
        match &mut self.integration {
            Integration::Quadrature(q) => {
                q.hold_surface(points, penalty_factor, spacing);
                Ok(())
            }
            Integration::Nodal(_) => Err(QuadratureError(
                "only a body integrated by background quadrature holds a surface; hold phyxels instead"
                    .into(),
            )),
        }
    }

    /// Whether the elastic forces keep the body in place: a surface held by a penalty (a clamped
    /// face of a quadrature body) pulls a rigidly translated body back, so K no longer annihilates
    /// the translations (the implicit solve's deflation relies on K e_d = 0 otherwise).
    pub fn holds_a_surface(&self) -> bool {
        self.quadrature().is_some_and(|q| q.held.is_some())
    }

    /// The background quadrature, if the body uses one.
    pub fn quadrature(&self) -> Option<&Quadrature> {
        match &self.integration {
            Integration::Quadrature(q) => Some(q),
            Integration::Nodal(_) => None,
        }
    }

    pub fn len(&self) -> usize {
        self.reference.len()
    }

    pub fn is_empty(&self) -> bool {
        self.reference.is_empty()
    }

    /// Current positions x_i = x̄_i + u_i.
    pub fn positions(&self) -> Vec<DVec3> {
        self.reference
            .iter()
            .zip(&self.displacement)
            .map(|(x, u)| *x + *u)
            .collect()
    }

    /// Passes 1–2 after the reference shape changed: neighbours, densities, volumes, MLS weights.
    /// (A body with background quadrature keeps its quadrature's volumes.)
    pub fn rebuild_reference(&mut self) {
        self.neighbours = Neighbourhoods::build(&self.reference, &self.support_radius);
        for i in 0..self.len() {
            let h = self.support_radius[i];
            let own = self.mass[i] * poly6(0.0, h);
            let others: f64 = self
                .neighbours
                .edges(i)
                .map(|k| {
                    let j = self.neighbours.neighbour[k] as usize;
                    self.mass[j] * poly6(self.reference[j].distance(self.reference[i]), h)
                })
                .sum();
            self.density[i] = own + others;
            match self.integration {
                Integration::Nodal(NodalVolume::KernelDensity) => {
                    self.volume[i] = self.mass[i] / self.density[i];
                }
                Integration::Nodal(NodalVolume::Cell) => {
                    self.volume[i] = self.mass[i] / self.material.density;
                }
                Integration::Quadrature(_) => {}
            }
        }
        self.mls = MlsWeights::compute(&self.reference, &self.support_radius, &self.neighbours);
    }

    /// The MLS displacement gradient ∇u_i = Σ_j (u_j − u_i) d_ijᵀ of every phyxel (MKN04 eq. 8;
    /// thesis eq. 3.31), the first part of pass 3 — what the surface animation needs.
    pub fn displacement_gradients(&self) -> Vec<DMat3> {
        map_indices(self.len(), |i| {
            self.mls
                .displacement_gradient(i, &self.displacement, &self.neighbours)
        })
    }

    /// Pass 3 at the body's own displacements.
    pub fn phyxel_stresses(&self) -> Vec<PhyxelStress> {
        self.phyxel_stresses_at(&self.displacement)
    }

    /// Pass 3: displacement gradient, strain, stress, force matrix and energy of every phyxel, for the
    /// displacements `displacement` (an integrator's intermediate state, or the body's own).
    pub fn phyxel_stresses_at(&self, displacement: &[DVec3]) -> Vec<PhyxelStress> {
        map_indices(self.len(), |i| {
            let grad_u = self
                .mls
                .displacement_gradient(i, displacement, &self.neighbours);
            self.phyxel_stress_of(i, grad_u)
        })
    }

    /// Pass 3 for phyxel i with displacement gradient ∇u_i. With a rest correction G_i ≠ I the
    /// energy is U_i(J_i G_i) and, as ∂U(J G)/∂J = (∂U/∂J)(J G) Gᵀ, the force matrix is
    /// M_i(J_i G_i) Gᵢᵀ ([`phyxel_stress`] at J_i G_i − I).
    pub fn phyxel_stress_of(&self, i: usize, grad_u: DMat3) -> PhyxelStress {
        self.phyxel_stress_with(i, grad_u, self.rest_correction[i])
    }

    /// [`Body::phyxel_stress_of`] with the rest correction `g` in place of G_i (a trial one).
    pub fn phyxel_stress_with(&self, i: usize, grad_u: DMat3, g: DMat3) -> PhyxelStress {
        let (lambda, mu) = self.material.lame();
        let scale = self.stiffness_scale[i];
        let corrected = g != DMat3::IDENTITY;
        let grad_e = if corrected {
            (DMat3::IDENTITY + grad_u) * g - DMat3::IDENTITY
        } else {
            grad_u
        };
        let mut stress = phyxel_stress(
            grad_e,
            self.plastic_strain[i],
            self.volume[i],
            scale * lambda,
            scale * mu,
            self.material.volume_stiffness,
        );
        if corrected {
            stress.force_matrix *= g.transpose();
        }
        stress
    }

    /// Pass 4, the force gather: phyxel k receives the reaction of its own neighbourhood,
    /// −M_k Σ_j d_kj, plus M_i d_ik from every neighbourhood i that contains it. Each phyxel writes only
    /// its own force.
    pub fn gather_forces(&self, stresses: &[PhyxelStress]) -> Vec<DVec3> {
        map_indices(self.len(), |k| self.gather_force(k, stresses))
    }

    /// Pass 4 for one phyxel k: f_k = −M_k Σ_j d_kj + Σ_{i : k ∈ N(i)} M_i d_ik (MKN04 eq. 13 in
    /// gather form).
    pub fn gather_force(&self, k: usize, stresses: &[PhyxelStress]) -> DVec3 {
        let reaction = -(stresses[k].force_matrix * self.mls.row_sum(k));
        self.mls
            .fold_incoming(k, &self.neighbours, reaction, |f, i, d| {
                f + stresses[i].force_matrix * d
            })
    }

    /// Elastic forces f = −∂U/∂u.
    pub fn elastic_forces(&self) -> Vec<DVec3> {
        self.gather_forces(&self.phyxel_stresses())
    }

    /// Total stored elastic energy U = Σ_i V_i (½ ε_i:σ_i + ½ k_v (det J_i − 1)²).
    pub fn elastic_energy(&self) -> f64 {
        self.phyxel_stresses().iter().map(|s| s.energy).sum()
    }
}

/// Support radii by `rule`.
fn support_radii(points: &[DVec3], spacing: f64, rule: SupportRadius) -> Vec<f64> {
    match rule {
        SupportRadius::SpacingMultiple { factor } => vec![factor * spacing; points.len()],
        SupportRadius::KNearest { .. } if points.len() < 2 => vec![spacing; points.len()],
        SupportRadius::KNearest { k, scale } => {
            let k = k.max(1);
            // Search a ball that holds well over k lattice neighbours, widening it for sparse points.
            let mut search = 2.5 * spacing;
            loop {
                let hoods = Neighbourhoods::build(points, &vec![search; points.len()]);
                let radii: Option<Vec<f64>> = (0..points.len())
                    .map(|i| {
                        let mut d: Vec<f64> = hoods
                            .edges(i)
                            .map(|e| points[hoods.neighbour[e] as usize].distance(points[i]))
                            .collect();
                        if d.len() < k.min(points.len() - 1) {
                            return None;
                        }
                        d.sort_by(f64::total_cmp);
                        let nearest = &d[..k.min(d.len())];
                        Some(scale * nearest.iter().sum::<f64>() / nearest.len().max(1) as f64)
                    })
                    .collect();
                match radii {
                    Some(r) if r.iter().all(|h| *h > 0.0) => return r,
                    _ => search *= 2.0,
                }
            }
        }
    }
}

#[cfg(test)]
mod tests;
