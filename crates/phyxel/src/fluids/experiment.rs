//! Measured data the fluid tests compare against (2D and 3D alike): the surge front of two dam-break
//! experiments, Martin & Moyce 1952 and Lobovský et al. 2014 (a gate lifted fast, the time counted
//! from its first motion).

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

/// Lobovský, Botia-Vera, Castellana, Mas-Soler & Souto-Iglesias (2014), "Experimental investigation
/// of dynamic pressure loads during dam break", J. Fluids Struct. 48, 407–434 (arXiv 1308.0115),
/// fig. 12 (left), the ETSIN tank: a column L = 600 mm wide and H = 600 mm high (n² = 1) whose far
/// wall stands 1.01 m from the gate; the gate lifted fast (a median 4.53 m/s, as the data file's
/// notes give the paper's §4.2), the time counted from its first motion. The wave tip Z = 1 + x/H
/// (x from the gate: the distance from the back wall over the column's width, as Martin & Moyce's
/// z/a) against T = t √(g/H). Every 8th of the figure's 111 points from T = 0.11 to the far wall
/// (Z = 2.68), as extracted from the PDF's vector drawing in a public repository's data file
/// (`s34metrics.mjs`, `ETSIN600`).
pub const LOBOVSKY_FRONT_H600: [(f64, f64); 13] = [
    (0.1075, 1.0791),
    (0.2153, 1.1668),
    (0.3365, 1.2643),
    (0.4443, 1.3536),
    (0.5521, 1.4423),
    (0.6602, 1.5445),
    (0.768, 1.6436),
    (0.8892, 1.7717),
    (0.997, 1.8906),
    (1.1589, 2.0934),
    (1.2667, 2.2242),
    (1.4285, 2.4462),
    (1.5363, 2.6008),
];

/// The same tank and column width with H = 300 mm (n² = 1/2; the gate at a median 3.46 m/s): the
/// wave tip X = x/H from the gate against T = t √(g/H); every 10th of the figure's 117 points (the
/// same file, `ETSIN300`).
pub const LOBOVSKY_FRONT_H300: [(f64, f64); 11] = [
    (0.2664, 0.1849),
    (0.4763, 0.3821),
    (0.6668, 0.5538),
    (0.8764, 0.7567),
    (1.1054, 1.0436),
    (1.315, 1.3233),
    (1.5055, 1.6034),
    (1.6963, 1.8795),
    (1.925, 2.2364),
    (2.1158, 2.5602),
    (2.3063, 2.8855),
];
