"""SPlisHSPlasH's DFSPH (Bender & Koschier 2017, the reference implementation) on Phyxel's hydrostatic
column test (crates/phyxel/src/fluids/tests.rs), set up to be the same discrete problem:

- the fluid: SPlisHSPlasH's own regular fluid block, which puts the particles at the centres of the
  Δx = 2r lattice filling the column 0.1 m × 0.2 m (the positions Phyxel uses), at rest;
- the mass: SPlisHSPlasH's own, V = (2r)² = Δx² per particle (its DFSPH works in volumes; the
  Python module cannot change them), 0.086 % more than Phyxel's m = ρ₀ / Σ_lattice W with this
  kernel, so its bulk starts at 1.00086 ρ₀ — Phyxel's side is run with both masses;
- the walls: Phyxel's wall particles (three lattice layers outside the floor and the side walls of
  the 0.1 m × 0.25 m box, the first half a spacing out, the floor running under the side walls),
  written to an ASCII Houdini .geo file and given to SPlisHSPlasH as the wall's `particleFile`; it
  computes Akinci et al. 2012's volumes V_b = 1/Σ_k W_bk itself (the same formula as Phyxel);
- the kernel: SPlisHSPlasH's 2D cubic spline with support 4r = 2Δx (Phyxel's);
- the solver: DFSPH with Phyxel's tolerances (mean density error 0.02 %, divergence 0.1 %, 2 to 100
  iterations; MAX_ITERATIONS changes the density solve's cap), CFL λ = 0.4 (SPlisHSPlasH's
  Δt = 0.4 · cflFactor · 2r / v_max, cflFactor 1), Δt ≤ DT_MAX (default 2 ms, the tests'), XSPH
  ξ = 0.01 (Phyxel's column), no other viscosity; the first step at DT_MAX too.

Checked: the initial lattice's densities are Phyxel's to the digit when Phyxel is given this mass
(largest ρ/ρ₀ − 1 = +0.0457 at the floor's corner, mean 0.448 % at 20 across, 0.270 % at 40, 0.179 %
at 80: the Akinci walls' excess on the rows next to them, the same in both codes).

Differences that remain: SPlisHSPlasH runs in single precision (its Real is float); it does the
divergence solve at the start of a step, Phyxel at the end of the previous one; Phyxel also pushes a
particle closer than its wall distance back out (`Fluid::keep_off_walls`), SPlisHSPlasH has no such
constraint; SPlisHSPlasH's Δt also counts the acceleration (|v + a Δt|), which does not bind here.

Before this set-up the runner let SPlisHSPlasH build the walls from the 3D `UnitBox.obj` (its 2D
sampling of the mesh for Akinci particles, a coarse volume map for Bender et al. 2019): ρ went to
1.74–1.85 ρ₀ in the first step and particles left the box (see README.md).

Prints the first steps one by one and then every 0.05 s: Δt, the iterations of both solves, the
largest speed, the largest and the mean density error (Phyxel's measure: mean of max(ρ/ρ₀ − 1, 0))
and the particles outside the box, then a summary line (JSON) with the cost per particle-step, the
time spent in this script's per-step measurements left out. Not part of CI: see README.md.

    LD_PRELOAD=/lib/x86_64-linux-gnu/libGLdispatch.so.0 python3.11 column_2d.py ACROSS SECONDS [DT_MAX [MAX_ITERATIONS]] [--dam-break]

`--dam-break`: the lesson's dam break instead (a column 0.5 m × 1 m in the left corner of a box 2 m ×
1.5 m closed by a lid, Δt ≤ 1/240 s unless DT_MAX is given; walls, lattice and solver settings as
above); Phyxel's side: the ignored test `dfsph_dam_break_side_by_side`.

Note on the densities: SPlisHSPlasH computes ρ at the start of each step (before it moves the
particles), so the density read after step k is that of the positions after step k − 1; this script
prints it against step k − 1 (step 0: the initial lattice).
"""

import json
import math
import os
import sys
import tempfile
import time

import numpy as np
import pysplishsplash as sph

args = [a for a in sys.argv[1:] if not a.startswith("--")]
across = int(args[0]) if len(args) > 0 else 40
duration = float(args[1]) if len(args) > 1 else 0.5
dt_max = float(args[2]) if len(args) > 2 else 0.002
max_iterations = int(args[3]) if len(args) > 3 else 100
LAYERS, RHO0 = 3, 1000.0
dam_break = "--dam-break" in sys.argv
if dam_break:
    # The lesson's dam break (crates/phyxel/src/lessons/sph_fluids.rs, `dam_break`): a column a × 2a,
    # a = 0.5 m, in the left corner of a box 4a × 3a closed by a lid; Δt ≤ 1/240 s (its DT_MAX).
    WIDTH, HEIGHT, BOX_WIDTH, BOX_HEIGHT, LID = 0.5, 1.0, 2.0, 1.5, True
    if len(args) <= 2:
        dt_max = 1.0 / 240.0
else:
    WIDTH, HEIGHT, BOX_WIDTH, BOX_HEIGHT, LID = 0.1, 0.2, 0.1, 0.25, False
dx = WIDTH / across
r = dx / 2
workdir = tempfile.mkdtemp()

# Phyxel's Boundary::box_walls(BOX_WIDTH, BOX_HEIGHT, dx, 3, LID).
nx, ny = round(BOX_WIDTH / dx), round(BOX_HEIGHT / dx)
walls = []
for k in range(LAYERS):
    off = (k + 0.5) * dx
    for i in range(-LAYERS, nx + LAYERS):
        walls.append(((i + 0.5) * dx, -off))
    for j in range(ny):
        y = (j + 0.5) * dx
        walls.append((-off, y))
        walls.append((BOX_WIDTH + off, y))
    if LID:
        for i in range(-LAYERS, nx + LAYERS):
            walls.append(((i + 0.5) * dx, BOX_HEIGHT + off))
with open(os.path.join(workdir, "walls.geo"), "w") as f:
    # Partio's .geo reader needs the PointAttrib token and "( )" after each point.
    f.write(f"PGEOMETRY V5\nNPoints {len(walls)} NPrims 0\nNPointGroups 0 NPrimGroups 0\n")
    f.write("NPointAttrib 0 NVertexAttrib 0 NPrimAttrib 0 NAttrib 0\nPointAttrib\n")
    for x, y in walls:
        f.write(f"{x:.9g} {y:.9g} 0 1 ( )\n")
    f.write("beginExtra\nendExtra\n")

box = os.path.expanduser("~/.local/bin/data/models/UnitBox.obj")  # only drawn, never sampled
scene = {
    "Configuration": {
        "sim2D": True,
        "particleRadius": r,
        "simulationMethod": 4,  # DFSPH
        "gravitation": [0, -9.81, 0],
        "cflMethod": 1,
        "cflFactor": 1.0,
        "cflMaxTimeStepSize": dt_max,
        "boundaryHandlingMethod": 0,  # Akinci et al. 2012 particles
        "DFSPH": {
            "minIterations": 2,
            "maxIterations": max_iterations,
            "maxError": 0.02,  # percent
            "maxIterationsV": 100,
            "maxErrorV": 0.1,  # percent
            "enableDivergenceSolver": True,
        },
    },
    "Materials": [{"id": "Fluid", "density0": RHO0, "viscosityMethod": 0, "vorticityMethod": 0}],
    "RigidBodies": [
        {
            "geometryFile": box,
            "particleFile": "walls.geo",
            "translation": [0, 0, 0],
            "scale": [1, 1, 1],
            "isDynamic": False,
            "isWall": True,
        }
    ],
    "FluidBlocks": [
        {"denseMode": 0, "start": [-r, -r, -1], "end": [WIDTH + r, HEIGHT + r, 1], "translation": [0, 0, 0], "scale": [1, 1, 1]}
    ],
}
path = os.path.join(workdir, "column.json")
with open(path, "w") as f:
    json.dump(scene, f)

base = sph.Exec.SimulatorBase()
base.init(sceneFile=path, useGui=False, outputDir=workdir, useCache=False, initialPause=False, stopAt=duration)
base.setValueFloat(base.STOP_AT, duration)
base.initSimulation()
sim = sph.Simulation.getCurrent()
tm = sph.TimeManager.getCurrent()
ts = sim.getTimeStep()
fm = sim.getFluidModel(0)
n = fm.numActiveParticles()

# The particle volume: SPlisHSPlasH's DFSPH works in volumes, ρ_i = ρ₀ (V_i W_ii + Σ_j V_j W_ij +
# Σ_b V_b W_ib) with V = (2r)² = Δx² in 2.19's 2D mode (the mass m = ρ₀ V is used only for the walls'
# reaction forces), and the Python module cannot change V. Phyxel's m = ρ₀ / Σ_lattice W is 0.086 %
# lighter with this kernel (Σ_lattice W Δx² = 1.000862), so SPlisHSPlasH's bulk starts 0.086 %
# compressed; the Phyxel side of the comparison (tests.rs, `dfsph_column_side_by_side`) is run with
# both masses.
lattice = sum(sim.W(np.array([a * dx, b * dx, 0.0], dtype=np.float32)) for a in range(-3, 4) for b in range(-3, 4))
# XSPH: set here (the material's "xsph" key is not read by 2.19); its a_i = −(ξ/Δt) Σ_j (m/ρ_j)
# (v_i − v_j) W_ij is Phyxel's v_i += ξ Σ_j (m/ρ_j) (v_j − v_i) W_ij once integrated over Δt.
fm.getXSPH().setValueFloat(sph.XSPH.FLUID_COEFFICIENT, 0.01)
# The first step at Δt = 2 ms like Phyxel's (SPlisHSPlasH starts at 1 ms before its CFL takes over).
tm.setTimeStepSize(dt_max)
x0 = np.array(fm.getFieldBuffer("position"), copy=True).reshape(-1, 3)[:n]
print(
    f"{across} across: {n} particles, {len(walls)} wall particles, dx = {dx} m, support {4 * r} m, "
    f"x in [{x0[:, 0].min() / dx:.2f}, {x0[:, 0].max() / dx:.2f}] dx, y in [{x0[:, 1].min() / dx:.2f}, "
    f"{x0[:, 1].max() / dx:.2f}] dx, volume {fm.getVolume(0) / (dx * dx):.6f} dx^2, "
    f"lattice sum W dx^2 = {lattice * dx * dx:.6f}), xsph {fm.getXSPH().getValueFloat(sph.XSPH.FLUID_COEFFICIENT)}",
    flush=True,
)

state = {"steps": 0, "report": 0.05, "vmax": 0.0, "worst": 0.0, "worst_mean": 0.0, "iters": 0, "iters_v": 0,
         "probe": 0.0, "out": 0, "first": None}


def after_step():
    """After each step: the largest speed and the particles out (these positions), the densities
    (the positions before this step), the iterations."""
    t0 = time.perf_counter()
    k = state["steps"] = state["steps"] + 1
    it, it_v = ts.getValueInt(ts.SOLVER_ITERATIONS), ts.getValueInt(ts.SOLVER_ITERATIONS_V)
    state["iters"] += it
    state["iters_v"] += it_v
    x = np.frombuffer(fm.getFieldBuffer("position"), dtype=np.float32).reshape(-1, 3)[:n]
    v = np.frombuffer(fm.getFieldBuffer("velocity"), dtype=np.float32).reshape(-1, 3)[:n]
    rho = np.frombuffer(fm.getFieldBuffer("density"), dtype=np.float32)[:n]
    speed = np.hypot(v[:, 0], v[:, 1])
    err = rho / RHO0 - 1
    mean = float(np.maximum(err, 0).mean())
    out = int(((x[:, 0] < 0) | (x[:, 0] > BOX_WIDTH) | (x[:, 1] < 0) | (x[:, 1] > BOX_HEIGHT)).sum())
    state["vmax"] = max(state["vmax"], float(speed.max()))
    state["worst"] = max(state["worst"], float(err.max()))
    state["worst_mean"] = max(state["worst_mean"], mean)
    state["out"] = max(state["out"], out)
    if state["first"] is None:
        state["first"] = {"iterations": it, "iterations_v": it_v, "initial_max": float(err.max()), "initial_mean": mean}
    if k <= 12 or tm.getTime() >= state["report"] - 1e-9:
        if k > 12:
            state["report"] += 0.05
        i = int(err.argmax())
        print(
            f"step {k:4} t {tm.getTime():.4f} dt {tm.getTimeStepSize():.5f} iterations {it:3} + {it_v:3} "
            f"vmax {speed.max():.3f} m/s out {out} | rho after step {k - 1}: max {err.max():+.4f} "
            f"(at {x[i, 0] / dx:.2f}, {x[i, 1] / dx:.2f} dx) mean {mean:.5f}"
            + (f" | front {x[:, 0].max() / WIDTH:.3f} a" if dam_break else ""),
            flush=True,
        )
    state["probe"] += time.perf_counter() - t0


base.setTimeStepCB(after_step)
t0 = time.perf_counter()
base.runSimulation()
wall = time.perf_counter() - t0
solve = wall - state["probe"]
steps = state["steps"]
summary = {
    "code": "SPlisHSPlasH 2.19.0 DFSPH (2D)",
    "scene": "dam break" if dam_break else "column",
    "across": across,
    "dt_max": dt_max,
    "max_iterations": max_iterations,
    "particles": n,
    "seconds": round(tm.getTime(), 4),
    "steps": steps,
    "iterations_first_step": [state["first"]["iterations"], state["first"]["iterations_v"]],
    "iterations_per_step": round((state["iters"] + state["iters_v"]) / steps, 1),
    "density_iterations_per_step": round(state["iters"] / steps, 1),
    "initial_max_density_error": round(state["first"]["initial_max"], 5),
    "initial_mean_density_error": round(state["first"]["initial_mean"], 6),
    "largest_speed": round(state["vmax"], 3),
    "largest_density_error": round(state["worst"], 4),
    "largest_mean_density_error": round(state["worst_mean"], 6),
    "most_particles_out": state["out"],
    "ns_per_particle_step": round(solve / steps / n * 1e9),
    "omp_threads": os.environ.get("OMP_NUM_THREADS", "default"),
}
print(json.dumps(summary), flush=True)
base.cleanup()
