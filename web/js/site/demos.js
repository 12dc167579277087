// Every demo that can be embedded: its id (the lesson page's file name) and title.
export const DEMOS = [
  { id: 'time-integration', title: 'Time integrators' },
  { id: 'kernels', title: 'SPH kernels' },
  { id: 'neighbourhood-search', title: 'Neighbourhood search' },
  { id: 'sph-approximation', title: 'SPH approximation and gradient' },
  { id: 'mls-gradient', title: 'MLS gradient' },
  { id: 'deformation', title: 'Deformation gradient and strain' },
  { id: 'pbd', title: 'Position-based dynamics: PBD and XPBD' },
  { id: 'explicit-implicit', title: 'Explicit vs implicit' },
  { id: 'integrating-solid', title: 'Integrating a meshless solid' },
  { id: 'cracks', title: 'Cracks in a meshless solid' },
  { id: 'sph-fluids', title: 'SPH fluids' },
  { id: 'sph-fluids-3d', title: 'SPH fluids in 3D' },
  { id: 'phyxels', title: 'Elastic, plastic and melting objects (3D)' },
];
