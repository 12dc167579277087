//! The phyxel solver (Müller, Keiser, Nealen, Pauly, Gross, Alexa, "Point based animation of elastic,
//! plastic and melting objects", SCA 2004 — "MKN04"; Stegmayr 2008, the EFG/MLS thesis, ch. 3–4; Adams &
//! Wicke, meshless tutorial §3.4, §7).
//!
//! The passes, in the order one step runs them (the WebGPU kernels of `crates/phyxel-gpu` and
//! `shaders/` mirror them one-to-one, with the same names):
//!
//! 1. [`neighbours`]: hash-grid build by counting sort, neighbour and reverse lists (reference positions).
//! 2. [`mls`]: densities, moment matrices A_i and their safe inverses, MLS weights d_ij = A_i⁻¹ x_ij w_ij.
//! 3. [`elasticity`]: displacement gradient, Green strain, Hooke stress, per-phyxel force matrix.
//! 4. [`body::Body::gather_forces`]: force gather — each phyxel sums what its own and its neighbours'
//!    neighbourhoods give it (no write conflicts).
//! 5. [`contact`]: after the step, the objects' surfaces meet: vertices inside another object's surface
//!    are pushed out by impulses mapped to the phyxels (seed 003 §3.7).
//!
//! Stiff materials at real-time steps: [`corotated`] (corotated linear elasticity on the MLS
//! deformation gradient, its matrix-free stiffness product) and [`implicit`] (implicit Euler and static
//! equilibrium, solved by [`crate::conjugate_gradient`]).

pub mod body;
pub mod collision;
pub mod contact;
pub mod corotated;
pub mod elasticity;
pub mod fracture;
pub mod implicit;
pub mod inside;
pub mod kernel;
pub mod material;
pub mod melting;
pub mod mesh;
pub mod mls;
pub mod neighbours;
pub mod plasticity;
pub mod polar;
pub mod primitive_mesh;
pub mod quadrature;
pub mod sampling;
pub mod scene;
pub mod simulation;
pub mod stability;
pub mod surface;
