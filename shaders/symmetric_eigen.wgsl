// `mls::symmetric_eigen` (crates/phyxel/src/meshless/mls.rs), shared by the passes that need an
// eigen-decomposition (moment_matrices: the safe inverse; corotated: the polar rotation).

// Cyclic Jacobi rotations (Golub & Van Loan, Algorithm 8.4.1) on the symmetric matrix a: returns the
// eigenvectors as columns; the eigenvalues are left on a's diagonal.
fn symmetric_eigen(a: ptr<function, mat3x3<f32>>) -> mat3x3<f32> {
    var q = mat3x3<f32>(vec3<f32>(1.0, 0.0, 0.0), vec3<f32>(0.0, 1.0, 0.0), vec3<f32>(0.0, 0.0, 1.0));
    for (var sweep = 0; sweep < 20; sweep++) {
        let m = *a;
        let off = m[0][1] * m[0][1] + m[0][2] * m[0][2] + m[1][2] * m[1][2];
        let diagonal = m[0][0] * m[0][0] + m[1][1] * m[1][1] + m[2][2] * m[2][2];
        if (off <= 1e-14 * diagonal || off == 0.0) {
            break;
        }
        for (var k = 0u; k < 3u; k++) {
            let p = select(select(1u, 0u, k < 2u), 0u, k == 0u);
            let r = select(2u, 1u, k == 0u);
            let apr = (*a)[r][p];
            if (apr == 0.0) {
                continue;
            }
            let theta = ((*a)[r][r] - (*a)[p][p]) / (2.0 * apr);
            var t = sign(theta) / (abs(theta) + sqrt(theta * theta + 1.0));
            if (theta == 0.0) {
                t = 1.0;
            }
            let c = 1.0 / sqrt(t * t + 1.0);
            let s = t * c;
            // a ← Jᵀ a J with the rotation J in the (p, r) plane; q ← q J.
            var rotation = mat3x3<f32>(vec3<f32>(1.0, 0.0, 0.0), vec3<f32>(0.0, 1.0, 0.0), vec3<f32>(0.0, 0.0, 1.0));
            rotation[p][p] = c;
            rotation[r][r] = c;
            rotation[r][p] = s;
            rotation[p][r] = -s;
            *a = transpose(rotation) * (*a) * rotation;
            q = q * rotation;
        }
    }
    return q;
}
