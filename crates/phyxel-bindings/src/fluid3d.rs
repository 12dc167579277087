//! What the 3D fluid page reads of a `phyxel::lessons::sph_fluids_3d::Fluid3dScene`: written once for
//! its two solvers, the CPU worker's (`SphFluids3d` of phyxel-worker) and the WebGPU one
//! (`GpuFluid3d` of phyxel-view) — the readouts as a JavaScript object ([`report`]), the parameter
//! table ([`parameters`]) and the methods both classes read the scene with (`fluid3d_readers!`).
//! Nothing here computes physics.

use phyxel::fluids3d::kernel::Vector;
use phyxel::lessons::sph_fluids_3d::{Fluid3dScene, PARAMETERS};
use wasm_bindgen::JsValue;

fn set(object: &js_sys::Object, field: &str, value: JsValue) {
    js_sys::Reflect::set(object, &field.into(), &value).expect("a plain object takes a field");
}

/// The page's parameter table [{ name, min, max, integer, default }].
pub fn parameters() -> JsValue {
    PARAMETERS
        .iter()
        .map(|p| {
            let object = js_sys::Object::new();
            set(&object, "name", p.name.into());
            set(&object, "min", p.min.into());
            set(&object, "max", p.max.into());
            set(&object, "integer", p.integer.into());
            set(&object, "default", p.default.into());
            JsValue::from(object)
        })
        .collect::<js_sys::Array>()
        .into()
}

/// The readouts of `scene`: { scene, solver, particles, time, dt, steps, iterations, density_error,
/// max_density_error, max_speed, mass, poured, to_pour, front: [T, Z, Z_MM | null] | null,
/// glass: [fraction held, level / a | null (before the water has settled), V/(π a²) / a] | null,
/// error }.
pub fn report(s: &Fluid3dScene, error: Option<&str>) -> JsValue {
    let sim = &s.simulation;
    let f = &sim.fluid;
    let object = js_sys::Object::new();
    set(&object, "scene", s.scene.id().into());
    set(&object, "solver", sim.solver.name().into());
    set(&object, "particles", (f.len() as f64).into());
    set(&object, "time", f.time.into());
    set(&object, "dt", sim.last.dt.into());
    set(&object, "steps", (sim.steps() as f64).into());
    set(&object, "iterations", sim.last.iterations.into());
    set(&object, "density_error", f.density_error().into());
    set(&object, "max_density_error", f.max_density_error().into());
    set(&object, "max_speed", f.max_speed().into());
    set(&object, "mass", f.total_mass().into());
    let (poured, to_pour) = s
        .glass
        .as_ref()
        .map_or((f.len(), f.len()), |(_, n)| (n.emitted, n.total()));
    set(&object, "poured", (poured as f64).into());
    set(&object, "to_pour", (to_pour as f64).into());
    let front = s.surge_front().map_or(JsValue::NULL, |(t, z, mm)| {
        js_sys::Array::of3(
            &t.into(),
            &z.into(),
            &mm.map_or(JsValue::NULL, JsValue::from),
        )
        .into()
    });
    set(&object, "front", front);
    let glass = s
        .in_glass()
        .map_or(JsValue::NULL, |(held, level, expected)| {
            let level = level.map_or(JsValue::NULL, JsValue::from);
            js_sys::Array::of3(&held.into(), &level, &expected.into()).into()
        });
    set(&object, "glass", glass);
    set(&object, "error", error.map_or(JsValue::NULL, JsValue::from));
    object.into()
}

/// The pointer's stir as the page sends it — its point (x, y, z) and velocity (vx, vy, vz), or
/// `on` false to stop — for `Fluid3dScene::set_stir`.
pub fn stir_at(point: [f64; 3], velocity: [f64; 3], on: bool) -> Option<(Vector, Vector)> {
    on.then(|| (point.into(), velocity.into()))
}

/// The methods the page reads a 3D fluid class with — `particles(colour)`, `outline()`, `bounds()`,
/// `spacing()`, `time()`, `error()` and `report()` — for a struct `$class` with the fields
/// `scene: Fluid3dScene` (the state shown) and `error: Option<String>` (why it stopped). Expanded
/// in a crate that depends on `wasm-bindgen`.
#[macro_export]
macro_rules! fluid3d_readers {
    ($class:ident) => {
        #[::wasm_bindgen::prelude::wasm_bindgen]
        impl $class {
            /// x, y, z and a colour value in [0, 1] per particle, coloured by `colour` ("density",
            /// "pressure", "speed").
            pub fn particles(&self, colour: &str) -> Result<Vec<f32>, ::wasm_bindgen::JsError> {
                let colour = ::phyxel::lessons::sph_fluids_3d::Colour::from_id(colour)
                    .map_err($crate::js_error)?;
                Ok(self.scene.particles(colour))
            }

            /// Points along the walls' edges for drawing (x, y, z, 0 each).
            pub fn outline(&self) -> Vec<f32> {
                self.scene.outline()
            }

            /// The scene's box: lower and upper corners (for the camera).
            pub fn bounds(&self) -> Vec<f64> {
                self.scene.bounds().to_vec()
            }

            /// The particle spacing Δx (m).
            pub fn spacing(&self) -> f64 {
                self.scene.simulation.fluid.spacing()
            }

            /// Simulated time of the state shown (s).
            pub fn time(&self) -> f64 {
                self.scene.simulation.fluid.time
            }

            /// Why the fluid stopped, if it did.
            pub fn error(&self) -> Option<String> {
                self.error.clone()
            }

            /// The readouts ([`$crate::fluid3d::report`]).
            pub fn report(&self) -> ::wasm_bindgen::JsValue {
                $crate::fluid3d::report(&self.scene, self.error.as_deref())
            }
        }
    };
}
