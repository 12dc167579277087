//! # phyxel-bindings
//!
//! The JavaScript face of `phyxel-app`, written once for the two WebAssembly modules that export it:
//! `phyxel-view` (the page's module: renderer and GPU backend) and `phyxel-worker` (the CPU solver's
//! Web Worker). Start at [`phyxel_demo_class!`]: each of them expands it into its own `PhyxelDemo`
//! class around [`phyxel_app::Demo`] — the view with its GPU backend as the accelerator, the worker
//! with none — so both classes have the same methods, each a thin wrapper that computes nothing
//! itself and checks only the whole numbers JavaScript hands it ([`whole`]). (A class cannot be shared as one type: the view adds its GPU methods to
//! its own.)
//!
//! Also here: [`parameters`], the table of `phyxel_app::parameters` as JavaScript objects,
//! [`start`], the panic hook both modules install when instantiated, and [`fluid3d`], what the 3D fluid
//! page reads of its scene (for the worker's solver and the WebGPU one alike).

pub use phyxel_app;

pub mod fluid3d;

use phyxel_app::parameters::PARAMETERS;
use std::fmt::Display;
use wasm_bindgen::prelude::*;

/// Runs when the module is instantiated: Rust panics become readable console errors.
#[wasm_bindgen(start)]
pub fn start() {
    console_error_panic_hook::set_once();
}

/// A refusal of the demo (a parameter out of range, say), as the JavaScript error it throws.
pub fn js_error(error: impl Display) -> JsError {
    JsError::new(&error.to_string())
}

/// A whole number from JavaScript, where wasm-bindgen's `u32` and `i32` would silently truncate and
/// wrap it (10.5 → 10, −1 → 4294967295, 1e10 → 1410065408): taken as the `f64` it is and refused
/// unless it is whole and within [`min`, `max`], the error naming `name` and the range as the
/// parameter tables' checks do ("steps: must be a whole number").
pub fn whole(name: &'static str, value: f64, min: f64, max: f64) -> Result<i64, JsError> {
    phyxel::params::Param::integer(name, min, max, min)
        .check(value)
        .map(|value| value as i64)
        .map_err(js_error)
}

/// Steps one `step` call may ask for (the page's frames ask for at most `substepCount`'s 1000, the
/// message API for 1000): a JavaScript number beyond it is refused, never wrapped.
pub const MAX_STEPS_PER_CALL: f64 = 1e6;

/// The 3D demo's parameter table ([`phyxel_app::parameters::PARAMETERS`]) as an array of plain
/// objects `{ name, symbol, min, max, integer, default, unit }` in the order of the page's controls:
/// `name` is the public name (the page's control, URL and message name, as in the 2D lessons'
/// tables), `symbol` the name the demo's errors give it.
pub fn parameters() -> JsValue {
    let set = |object: &js_sys::Object, field: &str, value: JsValue| {
        js_sys::Reflect::set(object, &field.into(), &value).expect("a plain object takes a field");
    };
    PARAMETERS
        .iter()
        .map(|p| {
            let object = js_sys::Object::new();
            set(&object, "name", p.key.into());
            set(&object, "symbol", p.name.into());
            set(&object, "min", p.min.into());
            set(&object, "max", p.max.into());
            set(&object, "integer", p.integer.into());
            set(&object, "default", p.default.into());
            set(&object, "unit", p.unit.into());
            JsValue::from(object)
        })
        .collect::<js_sys::Array>()
        .into()
}

/// The class `PhyxelDemo` around a [`phyxel_app::Demo`] whose accelerator is `$accelerator`: a
/// struct with one field, `demo`, and the methods the page and the solver worker call
/// (web/js/lessons/phyxels.js, web/js/workers/solver-worker.js), each a call of the method of
/// [`phyxel_app::Demo`] of the same name. Expanded in the crate root or a module of a crate that
/// depends on `wasm-bindgen`; that crate may add methods of its own in further `impl PhyxelDemo`
/// blocks.
#[macro_export]
macro_rules! phyxel_demo_class {
    ($accelerator:ty) => {
        /// The phyxel solver as the page sees it ([`phyxel_app::Demo`]).
        #[::wasm_bindgen::prelude::wasm_bindgen]
        pub struct PhyxelDemo {
            demo: $crate::phyxel_app::Demo<$accelerator>,
        }

        #[::wasm_bindgen::prelude::wasm_bindgen]
        impl PhyxelDemo {
            /// A scene: objects ("cube", "sphere", "torus", "bunny", "several", "collide"), phyxels across
            /// 0.4 m, BCC lattice or not, E (Pa), ν, ρ (kg/m³), k_v (Pa), whether a ball lies on the
            /// ground.
            #[wasm_bindgen(constructor)]
            #[allow(clippy::too_many_arguments)]
            pub fn new(
                objects: &str,
                resolution: f64,
                bcc: bool,
                young: f64,
                poisson: f64,
                density: f64,
                volume_stiffness: f64,
                obstacle: bool,
            ) -> Result<PhyxelDemo, ::wasm_bindgen::JsError> {
                let resolution = $crate::phyxel_app::parameters::RESOLUTION
                    .check(resolution)
                    .map_err($crate::js_error)? as u32;
                $crate::phyxel_app::Demo::new(
                    objects,
                    resolution,
                    bcc,
                    young,
                    poisson,
                    density,
                    volume_stiffness,
                    obstacle,
                )
                .map(|demo| PhyxelDemo { demo })
                .map_err($crate::js_error)
            }

            /// The parameters the demo takes, with their ranges: an array of
            /// `{ name, symbol, min, max, integer, default, unit }`.
            pub fn parameters() -> ::wasm_bindgen::JsValue {
                $crate::parameters()
            }

            pub fn set_material(
                &mut self,
                young: f64,
                poisson: f64,
                density: f64,
                volume_stiffness: f64,
            ) -> Result<(), ::wasm_bindgen::JsError> {
                self.demo
                    .set_material(young, poisson, density, volume_stiffness)
                    .map_err($crate::js_error)
            }

            pub fn set_damping_and_friction(
                &mut self,
                damping: f64,
                friction: f64,
            ) -> Result<(), ::wasm_bindgen::JsError> {
                self.demo
                    .set_damping_and_friction(damping, friction)
                    .map_err($crate::js_error)
            }

            /// The fracture scene's settings: σ_t (Pa), c_prop (m/s), weights ("visibility" or
            /// "transparency"), κ, the notched bar's grips' load (a fraction of σ_t), the struck
            /// slab's ball speed (m/s); builds the scene anew.
            #[allow(clippy::too_many_arguments)]
            pub fn set_fracture(
                &mut self,
                strength: f64,
                c_prop: f64,
                weights: &str,
                kappa: f64,
                omega_min: f64,
                load: f64,
                ball_speed: f64,
            ) -> Result<(), ::wasm_bindgen::JsError> {
                self.demo
                    .set_fracture(
                        strength, c_prop, weights, kappa, omega_min, load, ball_speed,
                    )
                    .map_err($crate::js_error)
            }

            pub fn is_fracture_scene(&self) -> bool {
                self.demo.is_fracture_scene()
            }

            /// [cracks, cracks grown, fragments, free particles, peak σ₁/σ_t, load fraction (the
            /// struck slab: the ball's speed, m/s)]
            /// (empty in a scene without fracture).
            pub fn fracture_readouts(&self) -> Vec<f64> {
                self.demo.fracture_readouts()
            }

            /// The fracture scene's drawn surface: [cell faces, of them on cracks] (empty in a
            /// scene without fracture).
            pub fn surface_faces(&self) -> Vec<f64> {
                self.demo.surface_faces()
            }

            /// Each phyxel's fragment (0, 1, …; −1 for a free particle; empty in a scene without
            /// fracture).
            pub fn fracture_pieces(&self) -> Vec<f64> {
                self.demo.fracture_pieces()
            }

            /// Cut the fracture scene along a pointer stroke: the eye and the eye rays of its start
            /// and end, each [x, y, z]. Returns [phyxels passed, refitted, released, fragments, free
            /// particles, elastic energy before (J), after (J)]; refused with the reason.
            pub fn cut(
                &mut self,
                eye: Vec<f64>,
                start: Vec<f64>,
                end: Vec<f64>,
            ) -> Result<Vec<f64>, ::wasm_bindgen::JsError> {
                self.demo.cut(&eye, &start, &end).map_err($crate::js_error)
            }

            /// Strike the fracture scene where the ray origin + s·direction meets it, along the ray
            /// at `speed` (m/s). Returns [phyxels struck, their mass (kg), impulse x, y, z (N·s)];
            /// refused with the reason.
            pub fn strike(
                &mut self,
                origin: Vec<f64>,
                direction: Vec<f64>,
                speed: f64,
            ) -> Result<Vec<f64>, ::wasm_bindgen::JsError> {
                self.demo
                    .strike(&origin, &direction, speed)
                    .map_err($crate::js_error)
            }

            pub fn set_integrator(&mut self, id: &str) -> Result<(), ::wasm_bindgen::JsError> {
                self.demo.set_integrator(id).map_err($crate::js_error)
            }

            pub fn set_implicit_solver(
                &mut self,
                tolerance: f64,
                max_iterations: f64,
            ) -> Result<(), ::wasm_bindgen::JsError> {
                let max_iterations = $crate::phyxel_app::parameters::CG_ITERATIONS
                    .check(max_iterations)
                    .map_err($crate::js_error)? as u32;
                self.demo
                    .set_implicit_solver(tolerance, max_iterations)
                    .map_err($crate::js_error)
            }

            pub fn set_implicit_model(&mut self, id: &str) -> Result<(), ::wasm_bindgen::JsError> {
                self.demo.set_implicit_model(id).map_err($crate::js_error)
            }

            pub fn integration(&self) -> String {
                self.demo.integration().into()
            }

            pub fn is_implicit(&self) -> bool {
                self.demo.is_implicit()
            }

            pub fn cg_iterations(&self) -> f64 {
                self.demo.cg_iterations()
            }

            pub fn cg_residual(&self) -> f64 {
                self.demo.cg_residual()
            }

            pub fn phyxel_count(&self) -> usize {
                self.demo.phyxel_count()
            }

            pub fn mean_neighbours(&self) -> f64 {
                self.demo.mean_neighbours()
            }

            pub fn regularized_count(&self) -> usize {
                self.demo.regularized_count()
            }

            pub fn reference_updates(&self) -> usize {
                self.demo.reference_updates()
            }

            pub fn spacing(&self) -> f64 {
                self.demo.spacing()
            }

            pub fn cfl_time_step(&self) -> f64 {
                self.demo.cfl_time_step()
            }

            pub fn recommended_time_step(&self) -> f64 {
                self.demo.recommended_time_step()
            }

            pub fn time(&self) -> f64 {
                self.demo.time()
            }

            pub fn steps(&self) -> f64 {
                self.demo.steps()
            }

            pub fn energy(&self) -> f64 {
                self.demo.energy()
            }

            pub fn max_temperature(&self) -> f64 {
                self.demo.max_temperature()
            }

            pub fn height(&self) -> f64 {
                self.demo.height()
            }

            pub fn bounds(&self) -> Vec<f64> {
                self.demo.bounds()
            }

            pub fn set_plasticity(
                &mut self,
                enabled: bool,
                yield_strain: f64,
                creep: f64,
                max_strain: f64,
            ) -> Result<(), ::wasm_bindgen::JsError> {
                self.demo
                    .set_plasticity(enabled, yield_strain, creep, max_strain)
                    .map_err($crate::js_error)
            }

            pub fn set_heat_source(
                &mut self,
                x: f64,
                y: f64,
                z: f64,
                radius: f64,
                rate: f64,
            ) -> Result<(), ::wasm_bindgen::JsError> {
                self.demo
                    .set_heat_source(x, y, z, radius, rate)
                    .map_err($crate::js_error)
            }

            /// Advance `steps` steps of `dt`; false (the last good state kept) on a blow-up, which
            /// `error()` then explains.
            pub fn step(&mut self, dt: f64, steps: f64) -> Result<bool, ::wasm_bindgen::JsError> {
                let steps = $crate::whole("steps", steps, 0.0, $crate::MAX_STEPS_PER_CALL)? as u32;
                self.demo.step(dt, steps).map_err($crate::js_error)
            }

            pub fn snapshot(&self, with_reference: bool) -> Vec<f64> {
                self.demo.snapshot(with_reference)
            }

            pub fn restore(&mut self, state: Vec<f64>) -> Result<(), ::wasm_bindgen::JsError> {
                self.demo.restore(state).map_err($crate::js_error)
            }

            pub fn error(&self) -> Option<String> {
                self.demo.error()
            }

            /// "gpu" while the GPU backend steps, else "cpu".
            pub fn backend(&self) -> String {
                self.demo.backend().into()
            }

            pub fn use_cpu(&mut self) {
                self.demo.use_cpu()
            }

            pub fn take_notice(&mut self) -> Option<String> {
                self.demo.take_notice()
            }

            pub fn positions(&self) -> Vec<f32> {
                self.demo.positions()
            }

            pub fn temperatures(&self) -> Vec<f32> {
                self.demo.temperatures()
            }

            pub fn pick(
                &self,
                origin: Vec<f64>,
                direction: Vec<f64>,
                radius: f64,
            ) -> Result<i32, ::wasm_bindgen::JsError> {
                self.demo
                    .pick(&origin, &direction, radius)
                    .map_err($crate::js_error)
            }

            /// Position of phyxel `phyxel` (a whole number; empty beyond the last phyxel).
            pub fn position(&self, phyxel: f64) -> Result<Vec<f64>, ::wasm_bindgen::JsError> {
                let phyxel = $crate::whole("the phyxel", phyxel, -1.0, f64::from(i32::MAX))?;
                Ok(self.demo.position(phyxel as i32))
            }

            /// Drag phyxel `phyxel` (a whole number; −1 releases) towards (x, y, z).
            pub fn drag(
                &mut self,
                phyxel: f64,
                x: f64,
                y: f64,
                z: f64,
                dt: f64,
            ) -> Result<(), ::wasm_bindgen::JsError> {
                let phyxel = $crate::whole("the phyxel", phyxel, -1.0, f64::from(i32::MAX))?;
                self.demo.drag(phyxel as i32, x, y, z, dt);
                Ok(())
            }
        }
    };
}
