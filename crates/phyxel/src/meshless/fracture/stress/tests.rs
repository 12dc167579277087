use super::*;
use glam::DQuat;

/// Q diag(λ) Qᵀ for a rotation Q about `axis` by `angle`.
fn with_eigenvalues(values: [f64; 3], axis: DVec3, angle: f64) -> DMat3 {
    let q = DMat3::from_quat(DQuat::from_axis_angle(axis.normalize(), angle));
    q * DMat3::from_diagonal(DVec3::from_array(values)) * q.transpose()
}

/// Where the largest eigenvalue is a double root, r sits at −1, where acos loses half the digits:
/// the closed form holds to √ε of the scale there, to rounding elsewhere.
#[test]
fn the_closed_form_largest_eigenvalue_is_the_spectrums_largest() {
    // Distinct, repeated (double above and below), triple, signs mixed, stresses of kPa and of GPa.
    let spectra = [
        [3.0, -1.0, 2.0],
        [5.0, 5.0, -2.0],
        [-4.0, 1.0, 1.0],
        [7.0, 7.0, 7.0],
        [0.0, 0.0, 0.0],
        [-1.0, -2.0, -3.0],
        [1.0e3, 1.0e3 + 1e-6, 2.0],
        [2.0e9, -5.0e8, 1.0e9],
    ];
    for (k, values) in spectra.into_iter().enumerate() {
        let largest = values.iter().cloned().fold(f64::MIN, f64::max);
        let scale = values.iter().map(|v| v.abs()).fold(1e-300, f64::max);
        for angle in [0.0, 0.3, 1.7, 2.9] {
            let s = with_eigenvalues(values, DVec3::new(1.0, 2.0 + k as f64, -0.5), angle);
            let closed = largest_eigenvalue(s);
            let (jacobi, _) = largest_principal(s);
            let double = values
                .iter()
                .filter(|&&v| (v - largest).abs() < 1e-6 * scale)
                .count()
                > 1;
            let tolerance = if double { 1e-7 } else { 1e-12 } * scale;
            assert!(
                (closed - largest).abs() <= tolerance,
                "{values:?} at {angle}: {closed} against {largest}"
            );
            assert!((closed - jacobi).abs() <= tolerance);
        }
    }
}
