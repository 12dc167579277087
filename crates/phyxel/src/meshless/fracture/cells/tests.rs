use super::*;
use crate::meshless::fracture::crack::{Crack, OutlineVertex};
use crate::meshless::fracture::scenes::{BarDescription, PulledBar};
use crate::meshless::fracture::{fragments, Criterion, FractureSettings};
use crate::meshless::material::Material;

/// The lattice spacing of the test bars (m).
const A: f64 = 0.05;
const CELLS: [usize; 3] = [8, 4, 3];

/// An 8 × 4 × 3 bar at rest, fracture on (notched through its top `notch_layers` layers), under
/// `criterion`.
fn bar(notch_layers: usize, criterion: Criterion) -> PulledBar {
    let settings = FractureSettings::new(2.0e3, 2.0).unwrap();
    let settings = match criterion {
        Criterion::Visibility => settings,
        Criterion::Transparency { kappa } => settings.with_transparency(kappa).unwrap(),
    };
    PulledBar::new(BarDescription {
        cells: CELLS,
        spacing: A,
        support_factor: 2.2,
        material: Material::JELLY,
        fracture: settings,
        load: 0.0,
        ramp_time: 1.0,
        damping: 0.0,
        grip_layers: 1,
        notch_layers,
    })
    .unwrap()
}

const CRITERIA: [Criterion; 2] = [
    Criterion::Visibility,
    Criterion::Transparency { kappa: 1.0 },
];

/// A crack in the plane x = `x` reaching 10 spacings out each way: it spans the bar.
fn spanning_crack(x: f64) -> Crack {
    let mut crack = Crack::in_plane(DVec3::new(x, 1.5 * A, A), DVec3::X);
    for angle in 0..4 {
        let d = glam::DVec2::from_angle(std::f64::consts::FRAC_PI_2 * angle as f64 + 0.3);
        crack.push_vertex(OutlineVertex {
            position: d * (10.0 * A),
            direction: d,
            is_front: false,
        });
    }
    crack
}

/// The pieces the quads make: quads sharing a corner are one piece. Each piece's quads.
fn pieces(mesh: &CellMesh) -> Vec<Vec<Quad>> {
    let mut parent: Vec<usize> = (0..mesh.corners.len()).collect();
    fn root(parent: &mut [usize], mut i: usize) -> usize {
        while parent[i] != i {
            i = parent[i];
        }
        i
    }
    for q in &mesh.quads {
        for k in 1..4 {
            let (u, v) = (
                root(&mut parent, q.corners[0] as usize),
                root(&mut parent, q.corners[k] as usize),
            );
            parent[u.max(v)] = u.min(v);
        }
    }
    let mut by_root: HashMap<usize, Vec<Quad>> = HashMap::new();
    for q in &mesh.quads {
        by_root
            .entry(root(&mut parent, q.corners[0] as usize))
            .or_default()
            .push(*q);
    }
    let mut pieces: Vec<Vec<Quad>> = by_root.into_values().collect();
    pieces.sort_by_key(|p| p.iter().map(|q| q.phyxel).min());
    pieces
}

/// A mesh of some quads of `mesh` (its corners all kept).
fn part(mesh: &CellMesh, quads: Vec<Quad>) -> CellMesh {
    CellMesh {
        corners: mesh.corners.clone(),
        quads,
    }
}

fn surface_of(b: &PulledBar) -> CellSurface {
    CellSurface::new(&b.simulation.body, CELLS, A).unwrap()
}

#[test]
fn an_uncut_bar_at_rest_is_the_closed_surface_of_its_box() {
    let b = bar(0, Criterion::Visibility);
    let body = &b.simulation.body;
    let surface = surface_of(&b);
    assert!(surface
        .open_faces(
            b.simulation.fracture.as_ref().unwrap(),
            &fragments(&b.simulation.body).1
        )
        .is_empty());
    let mesh = surface.mesh(&body.reference, &body.positions(), &[]);
    let [nx, ny, nz] = CELLS;
    assert_eq!(mesh.quads.len(), 2 * (nx * ny + ny * nz + nz * nx));
    assert_eq!(mesh.quads.len(), surface.outer_faces());
    assert_eq!(mesh.crack_quads(), 0);
    // One vertex per lattice point on the box's surface.
    assert_eq!(
        mesh.corners.len(),
        (nx + 1) * (ny + 1) * (nz + 1) - (nx - 1) * (ny - 1) * (nz - 1)
    );
    assert_eq!(mesh.unmatched_edges(), 0);
    let volume = (nx * ny * nz) as f64 * A.powi(3);
    assert!((mesh.enclosed_volume() - volume).abs() < 1e-12 * volume);
    // Every corner on the lattice's corners, half a spacing out from the phyxels.
    for x in &mesh.corners {
        let p = (*x / A) + DVec3::splat(0.5);
        assert!((p - p.round()).abs().max_element() < 1e-12, "{x}");
    }
    assert_eq!(pieces(&mesh).len(), 1);
}

#[test]
fn an_affine_motion_moves_every_corner_exactly() {
    let b = bar(0, Criterion::Visibility);
    let body = &b.simulation.body;
    let surface = surface_of(&b);
    let rest = surface.mesh(&body.reference, &body.reference, &[]);
    let rotation = DMat3::from_quat(DQuat::from_axis_angle(
        DVec3::new(1.0, 2.0, -0.5).normalize(),
        1.1,
    ));
    let stretch = DMat3::from_cols(
        DVec3::new(1.2, 0.1, 0.0),
        DVec3::new(0.0, 0.9, 0.05),
        DVec3::new(0.02, 0.0, 1.05),
    );
    let m = rotation * stretch;
    let shift = DVec3::new(0.3, -0.2, 0.7);
    let moved: Vec<DVec3> = body.reference.iter().map(|x| m * *x + shift).collect();
    let mesh = surface.mesh(&body.reference, &moved, &[]);
    assert_eq!(mesh.quads, rest.quads);
    let worst = mesh
        .corners
        .iter()
        .zip(&rest.corners)
        .map(|(x, x_rest)| x.distance(m * *x_rest + shift))
        .fold(0.0, f64::max);
    assert!(worst < 1e-13, "{worst}");
    let volume = rest.enclosed_volume() * m.determinant();
    assert!((mesh.enclosed_volume() - volume).abs() < 1e-12 * volume);
}

#[test]
fn a_crack_across_the_bar_splits_its_surface_into_two_closed_pieces_that_part() {
    for criterion in CRITERIA {
        let mut b = bar(0, criterion);
        let sim = &mut b.simulation;
        let fracture = sim.fracture.as_mut().unwrap();
        fracture.add_crack(&mut sim.body, spanning_crack(3.5 * A));
        let body = &b.simulation.body;
        let surface = surface_of(&b);
        let open = surface.open_faces(
            b.simulation.fracture.as_ref().unwrap(),
            &fragments(&b.simulation.body).1,
        );
        let [nx, ny, nz] = CELLS;
        // Exactly the x-faces between layers 3 and 4.
        let expected: Vec<u32> = (0..nx * ny * nz)
            .filter(|i| i % nx == 3)
            .map(|i| 3 * i as u32)
            .collect();
        assert_eq!(open, expected, "{criterion:?}");
        // The right piece turned about the crack's edge and moved off; the left piece stays.
        let turn = DMat3::from_rotation_z(0.4);
        let hinge = DVec3::new(4.0 * A, 0.0, 0.0);
        let moved: Vec<DVec3> = body
            .reference
            .iter()
            .enumerate()
            .map(|(i, x)| {
                if i % nx >= 4 {
                    hinge + turn * (*x - hinge) + DVec3::new(0.02, 0.0, 0.0)
                } else {
                    *x
                }
            })
            .collect();
        for positions in [&body.reference, &moved] {
            let mesh = surface.mesh(&body.reference, positions, &open);
            assert_eq!(mesh.crack_quads(), 2 * ny * nz);
            assert_eq!(mesh.quads.len(), surface.outer_faces() + 2 * open.len());
            assert_eq!(mesh.unmatched_edges(), 0);
            let pieces = pieces(&mesh);
            assert_eq!(pieces.len(), 2);
            for (piece, layers) in pieces.into_iter().zip([4.0, 4.0]) {
                let piece = part(&mesh, piece);
                assert_eq!(piece.unmatched_edges(), 0);
                let volume = layers * (ny * nz) as f64 * A.powi(3);
                assert!(
                    (piece.enclosed_volume() - volume).abs() < 1e-12 * volume,
                    "{} against {volume}",
                    piece.enclosed_volume()
                );
            }
        }
    }
}

#[test]
fn a_notch_opens_the_faces_it_crosses_and_leaves_one_closed_piece() {
    for criterion in CRITERIA {
        let layers = 2;
        let b = bar(layers, criterion);
        let body = &b.simulation.body;
        let surface = surface_of(&b);
        let open = surface.open_faces(
            b.simulation.fracture.as_ref().unwrap(),
            &fragments(&b.simulation.body).1,
        );
        let [nx, ny, nz] = CELLS;
        let notched = |i: usize| i % nx == nx / 2 - 1 && (i / nx) % ny >= ny - layers;
        let expected: Vec<u32> = (0..nx * ny * nz)
            .filter(|&i| notched(i))
            .map(|i| 3 * i as u32)
            .collect();
        assert_eq!(open, expected, "{criterion:?}");
        let mesh = surface.mesh(&body.reference, &body.positions(), &open);
        assert_eq!(mesh.crack_quads(), 2 * layers * nz);
        assert_eq!(mesh.unmatched_edges(), 0);
        assert_eq!(pieces(&mesh).len(), 1);
        let volume = (nx * ny * nz) as f64 * A.powi(3);
        assert!((mesh.enclosed_volume() - volume).abs() < 1e-12 * volume);
    }
}

#[test]
fn a_cell_cut_free_on_every_side_is_a_closed_cube_of_its_own() {
    let b = bar(0, Criterion::Visibility);
    let body = &b.simulation.body;
    let surface = surface_of(&b);
    let [nx, ny, _] = CELLS;
    let free = 2 + nx * (1 + ny);
    let open: Vec<u32> = (0..3)
        .flat_map(|a| {
            let stride = [1, nx, nx * ny][a];
            [3 * free + a, 3 * (free - stride) + a]
        })
        .map(|c| c as u32)
        .collect();
    let mut positions = body.reference.clone();
    positions[free] += DVec3::new(0.5, 0.0, 0.0);
    let mesh = surface.mesh(&body.reference, &positions, &open);
    assert_eq!(mesh.unmatched_edges(), 0);
    // The box, the cavity the cell leaves in it (its inward faces), and the cell's cube.
    let pieces = pieces(&mesh);
    assert_eq!(pieces.len(), 3);
    let cube = pieces
        .iter()
        .find(|p| p.iter().all(|q| q.phyxel == free as u32))
        .expect("the free cell's own piece");
    assert_eq!(cube.len(), 6);
    let cube = part(&mesh, cube.clone());
    assert!((cube.enclosed_volume() - A.powi(3)).abs() < 1e-15);
    for q in &cube.quads {
        for k in q.corners {
            let d = mesh.corners[k as usize] - positions[free];
            assert!((d.abs() - DVec3::splat(0.5 * A)).abs().max_element() < 1e-15);
        }
    }
    // The body keeps the cavity: its volume less the cell's.
    let rest: Vec<Quad> = mesh
        .quads
        .iter()
        .filter(|q| q.phyxel != free as u32)
        .copied()
        .collect();
    let rest = part(&mesh, rest);
    let volume = (body.len() - 1) as f64 * A.powi(3);
    assert!((rest.enclosed_volume() - volume).abs() < 1e-12 * volume);
}

#[test]
fn a_body_that_is_no_lattice_of_the_cells_is_refused() {
    let b = bar(0, Criterion::Visibility);
    let error = CellSurface::new(&b.simulation.body, [8, 4, 4], A).unwrap_err();
    assert!(error.0.contains("no lattice"), "{error}");
    let error = CellSurface::new(&b.simulation.body, CELLS, 0.0).unwrap_err();
    assert!(error.0.contains("spacing"), "{error}");
}

#[test]
fn a_phyxel_of_a_piece_of_its_own_opens_its_six_faces_though_no_crack_cut_them() {
    // A phyxel whose refits were released flies off as a free particle: no crack separates it from its
    // neighbours, but no pair joins it to them either — it is a piece of its own.
    let b = bar(0, Criterion::Visibility);
    let body = &b.simulation.body;
    let fracture = b.simulation.fracture.as_ref().unwrap();
    let surface = surface_of(&b);
    let [nx, ny, _] = CELLS;
    let free = 2 + nx * (1 + ny);
    let mut pieces = vec![0; body.len()];
    pieces[free] = 1;
    let mut expected: Vec<u32> = (0..3)
        .flat_map(|a| {
            let stride = [1, nx, nx * ny][a];
            [3 * free + a, 3 * (free - stride) + a]
        })
        .map(|c| c as u32)
        .collect();
    expected.sort_unstable();
    assert_eq!(surface.open_faces(fracture, &pieces), expected);
    assert!(surface
        .open_faces(fracture, &vec![0; body.len()])
        .is_empty());
}
