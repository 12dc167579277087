//! The pointer's tools on a brittle body (issue 18 item 6, the 3D demo's "cut" and "strike"): a knife
//! stroke becomes a planar crack in the reference configuration, a blow a velocity change whose
//! stress waves the material's own criterion may then crack ([`super::Fracture::step`]).
//!
//! **Cut.** The user strokes across the body on the screen. The eye e and the eye rays d₀, d₁ of the
//! stroke's end points span the cut plane of the current configuration, normal n = d₀ × d₁ / |d₀ × d₁|,
//! and the stroke sweeps its wedge {e + a d₀ + b d₁ : a, b ≥ 0}. The cracks are kept in the reference
//! configuration (seed 002 §7.3), so the wedge is pulled back through the affine map of the phyxels it
//! passes through — those whose current x_i lie in the wedge within h_i of the plane:
//! x ↦ X = X̄ + F̄⁻¹ (x − x̄), with x̄ and X̄ their mean current and reference positions and F̄ the mean
//! of their deformation gradients F_i = I + ∇u_i (MKN04 eq. 6, the MLS gradient). The plane
//! n·(x − p) = 0 becomes N·(X − P) = 0 with N ∝ F̄ᵀ n (Nanson's n ∝ F⁻ᵀ N read backwards) and P the
//! image of p, and the wedge the wedge of E = X(e) spanned by F̄⁻¹ d₀ and F̄⁻¹ d₁. The crack is that
//! wedge cut off beyond the body — a triangle with no front: a cut does not grow by itself, and under
//! transparency (no front: d_s = ∞) it is as opaque as under visibility. Where the body near the cut
//! deforms affinely the pull-back is exact; elsewhere it is the cut's first-order map, as good as the
//! MLS gradient. The crack goes in as a notch does ([`super::Fracture::add_crack`]): only the phyxels
//! within h of it are re-weighed, only those whose weights changed refitted, and the refit's safeguard
//! (the module's *energy through a crack event*) holds — a cut never raises the elastic energy.
//!
//! **Strike.** A blow at the point c along the unit direction d̂ at speed s: every free phyxel within r
//! of c gains Δv = s d̂, the impulse J = Σ_i m_i Δv — an impact's velocity change, which the elastic
//! forces then carry through the body as stress waves.

use super::crack::{Crack, OutlineVertex};
use super::weights::fragments;
use super::{Fracture, FractureError};
use crate::meshless::body::Body;
use glam::{DMat3, DVec2, DVec3};

/// The smallest sin of the angle between a stroke's end rays: below it the stroke has no length.
pub const SHORTEST_STROKE: f64 = 1e-6;

/// The smallest det F̄ the cut's pull-back inverts (the deformation gradient of a crushed region is no
/// map to the reference configuration).
pub const SMALLEST_PULL_BACK_DETERMINANT: f64 = 0.1;

/// A knife stroke on the screen: the eye e and the eye rays (directions, any length) of its start and
/// end points, in the current configuration (m).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stroke {
    pub eye: DVec3,
    pub start: DVec3,
    pub end: DVec3,
}

/// What a cut did.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CutReport {
    /// The crack's index in [`Fracture::cracks`].
    pub crack: usize,
    /// The phyxels the stroke's wedge passed through (within h_i of its plane).
    pub touched: usize,
    /// The phyxels whose MLS data were refitted, and of those the ones released (their d_ij zeroed).
    pub refitted: usize,
    pub released: usize,
    /// The body's elastic energy U (J) before and after the cut.
    pub energy_before: f64,
    pub energy_after: f64,
    /// The pieces the body is in after the cut ([`fragments`]: a free particle is one).
    pub fragments: usize,
    /// The crack's plane in the reference configuration.
    pub origin: DVec3,
    pub normal: DVec3,
}

/// What a strike did.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StrikeReport {
    /// The free phyxels within the radius, and their mass (kg).
    pub struck: usize,
    pub mass: f64,
    /// The impulse J = Σ_i m_i Δv (N·s).
    pub impulse: DVec3,
}

fn refuse<T>(reason: String) -> Result<T, FractureError> {
    Err(FractureError(reason))
}

impl Fracture {
    /// Cut the body along `stroke` (the module's *Cut*): the stroke's wedge, pulled back to the
    /// reference configuration through the mean deformation gradient of the phyxels it passes
    /// through, becomes a crack with no front ([`Fracture::add_crack`]). Refused, changing nothing,
    /// for a stroke that is not finite numbers, has no length (its end rays parallel), misses the body
    /// (no phyxel in its wedge within h_i of its plane), or crosses a region too crushed to pull back
    /// (det F̄ < [`SMALLEST_PULL_BACK_DETERMINANT`]).
    pub fn cut(&mut self, body: &mut Body, stroke: Stroke) -> Result<CutReport, FractureError> {
        let Stroke { eye, start, end } = stroke;
        if !(eye.is_finite() && start.is_finite() && end.is_finite()) {
            return refuse(format!(
                "a cut's eye and rays must be finite numbers (got eye {eye}, rays {start} and {end})"
            ));
        }
        let (Some(d0), Some(d1)) = (start.try_normalize(), end.try_normalize()) else {
            return refuse("a cut's rays must be directions, not zero vectors".into());
        };
        let normal = d0.cross(d1);
        if normal.length() < SHORTEST_STROKE || d0.dot(d1) <= 0.0 {
            return refuse(
                "the stroke has no length (its end rays coincide) or they open by a right angle or \
                 more: drag across the body"
                    .into(),
            );
        }
        let n = normal.normalize();
        let in_wedge = |w: DVec3| d0.cross(w).dot(n) >= 0.0 && w.cross(d1).dot(n) >= 0.0;
        let touched: Vec<usize> = (0..body.len())
            .filter(|&i| {
                let w = body.reference[i] + body.displacement[i] - eye;
                w.dot(n).abs() < body.support_radius[i] && in_wedge(w)
            })
            .collect();
        if touched.is_empty() {
            return refuse(
                "the cut misses the body: no phyxel lies in the swept wedge within its support \
                 radius of the stroke's plane (nothing was cut)"
                    .into(),
            );
        }
        let count = touched.len() as f64;
        let (mut x_mean, mut reference_mean, mut f_mean) = (DVec3::ZERO, DVec3::ZERO, DMat3::ZERO);
        for &i in &touched {
            x_mean += body.reference[i] + body.displacement[i];
            reference_mean += body.reference[i];
            f_mean += DMat3::IDENTITY
                + body
                    .mls
                    .displacement_gradient(i, &body.displacement, &body.neighbours);
        }
        let (x_mean, reference_mean, f_mean) = (
            x_mean / count,
            reference_mean / count,
            f_mean * (1.0 / count),
        );
        let det = f_mean.determinant();
        if !(det >= SMALLEST_PULL_BACK_DETERMINANT && det.is_finite()) {
            return refuse(format!(
                "the cut crosses a region too crushed to map back to the body's rest shape \
                 (det F̄ = {det:.3}, below {SMALLEST_PULL_BACK_DETERMINANT})"
            ));
        }
        let f_inverse = f_mean.inverse();
        let pull_back = |x: DVec3| reference_mean + f_inverse * (x - x_mean);
        let on_plane = x_mean - n * n.dot(x_mean - eye);
        let origin = pull_back(on_plane);
        let Some(normal) = (f_mean.transpose() * n).try_normalize() else {
            return refuse("the cut's plane has no image in the rest shape".into());
        };
        let apex = pull_back(eye);
        let beyond = body
            .reference
            .iter()
            .map(|x| x.distance(apex))
            .fold(0.0, f64::max)
            + 2.0 * self.largest_support;
        let mut crack = Crack::in_plane(origin, normal);
        for direction in [None, Some(f_inverse * d0), Some(f_inverse * d1)] {
            let corner = match direction.and_then(DVec3::try_normalize) {
                Some(d) => apex + beyond * d,
                None => apex,
            };
            crack.push_vertex(OutlineVertex {
                position: crack.plane_coordinates(corner),
                direction: DVec2::ZERO,
                is_front: false,
            });
        }
        let energy_before = body.elastic_energy();
        let (refits, released) = (self.recomputed_total, self.released);
        self.add_crack(body, crack);
        Ok(CutReport {
            crack: self.cracks.len() - 1,
            touched: touched.len(),
            refitted: self.recomputed_total - refits,
            released: self.released - released,
            energy_before,
            energy_after: body.elastic_energy(),
            fragments: fragments(body).0,
            origin,
            normal,
        })
    }
}

/// Strike `body` at `centre` along `direction` at `speed` (the module's *Strike*): every phyxel not
/// `fixed` within `radius` of `centre` (current positions) gains Δv = speed · d̂. Refused, changing
/// nothing, for a centre or direction that is not finite (or a zero direction), a speed or radius that
/// is not a positive finite number, or a blow that reaches no free phyxel.
pub fn strike(
    body: &mut Body,
    fixed: &[bool],
    centre: DVec3,
    direction: DVec3,
    speed: f64,
    radius: f64,
) -> Result<StrikeReport, FractureError> {
    if !(centre.is_finite() && direction.is_finite()) {
        return refuse(format!(
            "a strike's point and direction must be finite numbers (got {centre} and {direction})"
        ));
    }
    let Some(d) = direction.try_normalize() else {
        return refuse("a strike's direction must not be zero".into());
    };
    if !(speed > 0.0 && speed.is_finite()) {
        return refuse(format!(
            "a strike's speed must be a positive number of m/s (got {speed})"
        ));
    }
    if !(radius > 0.0 && radius.is_finite()) {
        return refuse(format!(
            "a strike's radius must be a positive number of metres (got {radius})"
        ));
    }
    let struck: Vec<usize> = (0..body.len())
        .filter(|&i| {
            !fixed.get(i).copied().unwrap_or(false)
                && (body.reference[i] + body.displacement[i]).distance(centre) <= radius
        })
        .collect();
    if struck.is_empty() {
        return refuse(format!(
            "the strike reaches no free phyxel within {radius} m of the point it hit (nothing moved)"
        ));
    }
    let dv = speed * d;
    let mut mass = 0.0;
    for &i in &struck {
        body.velocity[i] += dv;
        mass += body.mass[i];
    }
    Ok(StrikeReport {
        struck: struck.len(),
        mass,
        impulse: mass * dv,
    })
}

#[cfg(test)]
mod tests;
