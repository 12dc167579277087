//! Measured data the fluid tests compare against (2D and 3D alike).

/// Martin & Moyce (1952), "An experimental study of the collapse of liquid columns on a rigid
/// horizontal plane", Phil. Trans. R. Soc. A 244, 312–324, fig. 3, column n² = 2 (height 2a), a =
/// 2.25 in: the surge front Z = z/a against T = t √(2g/a). Taken from PySPH's
/// `pysph/examples/db_exp_data.py` (`mm_data_2`, read off the paper's figure).
pub const MARTIN_MOYCE_FRONT: [(f64, f64); 15] = [
    (0.832, 1.217),
    (1.219, 1.474),
    (1.997, 2.292),
    (2.547, 2.995),
    (3.345, 4.134),
    (4.034, 4.944),
    (4.418, 5.881),
    (5.091, 6.980),
    (5.685, 7.945),
    (6.306, 8.966),
    (6.822, 9.986),
    (7.439, 10.963),
    (8.031, 11.977),
    (8.633, 13.005),
    (9.237, 13.970),
];
