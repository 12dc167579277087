// The SPH fluid solvers both fluid pages offer, as options of their "Solver" select: the values are
// `phyxel::fluids::Solver::id` (the URL's and the messages' `solver`), the labels its names.

/** The options of a fluid page's "Solver" select. */
export const FLUID_SOLVER_OPTIONS = Object.freeze([
  { value: 'wcsph', label: 'WCSPH (weakly compressible)' },
  { value: 'dfsph', label: 'DFSPH (divergence-free)' },
  { value: 'pbf', label: 'PBF (position-based fluids)' },
]);
