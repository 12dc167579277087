"""SPlisHSPlasH's DFSPH (Bender & Koschier 2017, as in the reference implementation) on Phyxel's
hydrostatic column test (crates/phyxel/src/fluids/tests.rs): a 2D column 0.1 m wide and 0.2 m high
filling a box 0.1 m wide, released from the square lattice, Akinci et al. 2012 wall particles, the
same tolerances as Phyxel's DFSPH (0.02 % mean density error, 0.1 % divergence, 2 to 100 iterations).
Prints, every 0.05 s, the largest speed, the largest and mean density error and how many particles
are out of the box; at the end the cost per particle-step. Not part of CI: see README.md.

    LD_PRELOAD=/lib/x86_64-linux-gnu/libGLdispatch.so.0 python3.11 column_2d.py ACROSS SECONDS [BOUNDARY]
"""

import json
import math
import os
import sys
import tempfile
import time

import pysplishsplash as sph

across = int(sys.argv[1]) if len(sys.argv) > 1 else 40
duration = float(sys.argv[2]) if len(sys.argv) > 2 else 0.5
# 0: Akinci et al. 2012 wall particles (Phyxel's walls); 2: Bender et al. 2019 volume maps (the
# boundary of SPlisHSPlasH's own 2D scenes).
boundary = int(sys.argv[3]) if len(sys.argv) > 3 else 2
dx = 0.1 / across
r = dx / 2
box = os.path.join(os.path.dirname(sph.__file__), "..", "..", "..", "bin", "data", "models", "UnitBox.obj")
box = os.path.abspath(box)
if not os.path.exists(box):
    box = os.path.expanduser("~/.local/bin/data/models/UnitBox.obj")
scene = {
    "Configuration": {
        "sim2D": True,
        "particleRadius": r,
        "simulationMethod": 4,  # DFSPH
        "gravitation": [0, -9.81, 0],
        "cflMethod": 1,
        "cflFactor": 0.4,
        "cflMaxTimeStepSize": 0.002,
        "boundaryHandlingMethod": boundary,
        "kernel": 0,  # in 2D mode the first kernel is the 2D cubic spline
        "gradKernel": 0,
        "DFSPH": {
            "minIterations": 2,
            "maxIterations": 100,
            "maxError": 0.02,
            "maxIterationsV": 100,
            "maxErrorV": 0.1,
            "enableDivergenceSolver": True,
        },
    },
    "Materials": [{"id": "Fluid", "density0": 1000, "viscosityMethod": 0, "vorticityMethod": 0}],
    "RigidBodies": [
        {
            "geometryFile": box,
            "translation": [0.05, 0.125, 0],
            "scale": [0.1, 0.25, 1],
            "isDynamic": False,
            "isWall": True,
            "mapInvert": True,
            "mapThickness": 0.0,
            "mapResolution": [30, 30, 20],
        }
    ],
    "FluidBlocks": [
        {"denseMode": 0, "start": [-r, -r, -1], "end": [0.1 + r, 0.2 + r, 1], "translation": [0, 0, 0], "scale": [1, 1, 1]}
    ],
}
workdir = tempfile.mkdtemp()
path = os.path.join(workdir, "column.json")
with open(path, "w") as f:
    json.dump(scene, f)

base = sph.Exec.SimulatorBase()
base.init(sceneFile=path, useGui=False, outputDir=workdir, useCache=False, initialPause=False, stopAt=duration)
base.setValueFloat(base.STOP_AT, duration)
base.initSimulation()
sim = sph.Simulation.getCurrent()
tm = sph.TimeManager.getCurrent()
fm = sim.getFluidModel(0)
n = fm.numActiveParticles()
rho0 = fm.getDensity0()
xs = [fm.getPosition(i)[0] for i in range(n)]
ys = [fm.getPosition(i)[1] for i in range(n)]
print(
    f"{across} across, boundary method {boundary}: {n} particles, dx = {dx} m, kernel support {4 * r} m, "
    f"x in [{min(xs):.5f}, {max(xs):.5f}], y in [{min(ys):.5f}, {max(ys):.5f}]"
)
state = {"steps": 0, "report": 0.0, "vmax": 0.0, "worst": 0.0}


def after_step():
    """Called by SPlisHSPlasH after each step: samples every 0.05 s of simulated time."""
    state["steps"] += 1
    if tm.getTime() < state["report"]:
        return
    state["report"] += 0.05
    vmax = max(math.hypot(*fm.getVelocity(i)[:2]) for i in range(n))
    state["vmax"] = max(state["vmax"], vmax)
    dens = [fm.getDensity(i) / rho0 - 1 for i in range(n)]
    state["worst"] = max(state["worst"], max(dens))
    out = sum(1 for i in range(n) if not (0 <= fm.getPosition(i)[0] <= 0.1 and 0 <= fm.getPosition(i)[1] <= 0.25))
    print(
        f"t {tm.getTime():.3f} dt {tm.getTimeStepSize():.5f} vmax {vmax:.3f} m/s (sqrt(gH) {math.sqrt(9.81 * 0.2):.3f}) "
        f"max rho err {max(dens):+.4f} mean {sum(max(d, 0) for d in dens) / n:.5f} out {out}",
        flush=True,
    )


base.setTimeStepCB(after_step)
t0 = time.perf_counter()
base.runSimulation()
wall = time.perf_counter() - t0
print(
    f"largest sampled speed {state['vmax']:.3f} m/s, largest density error {state['worst']:+.4f}; {state['steps']} steps "
    f"in {wall:.2f} s (sampling included), {wall / state['steps'] / n * 1e9:.0f} ns per particle-step"
)
base.cleanup()
