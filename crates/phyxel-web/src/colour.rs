//! Colour scales for the per-particle colouring of the 2D lesson views (the page legends sample the
//! same functions, so the canvas and the legend agree).

use wasm_bindgen::prelude::*;

/// Viridis at six stops (perceptually uniform, readable in greyscale and by most colour-blind readers).
const VIRIDIS: [[f64; 3]; 6] = [
    [68.0, 1.0, 84.0],
    [65.0, 68.0, 135.0],
    [42.0, 120.0, 142.0],
    [34.0, 168.0, 132.0],
    [122.0, 209.0, 81.0],
    [253.0, 231.0, 37.0],
];

/// The colour for t ∈ [0, 1] (clamped; NaN counts as 0) as `#rrggbb`.
#[wasm_bindgen]
pub fn colour_scale(t: f64) -> String {
    let t = if t.is_nan() { 0.0 } else { t.clamp(0.0, 1.0) };
    let x = t * (VIRIDIS.len() - 1) as f64;
    let k = (x.floor() as usize).min(VIRIDIS.len() - 2);
    let f = x - k as f64;
    let c: Vec<u8> = (0..3)
        .map(|i| (VIRIDIS[k][i] + f * (VIRIDIS[k + 1][i] - VIRIDIS[k][i])).round() as u8)
        .collect();
    format!("#{:02x}{:02x}{:02x}", c[0], c[1], c[2])
}

/// Blue, light grey and red: the volume-share scale's ends and middle.
const SHARE_UNDER: [f64; 3] = [37.0, 99.0, 235.0];
const SHARE_EXACT: [f64; 3] = [226.0, 232.0, 240.0];
const SHARE_OVER: [f64; 3] = [220.0, 38.0, 38.0];

/// The colour of a volume share s = V_i / (its cell's volume) as `#rrggbb`: light grey at 1 (exact),
/// towards blue below (under-counted) and red above (over-counted), on a log₂ scale that saturates
/// at ½ and 2 (NaN counts as 1).
pub fn volume_share_colour(share: f64) -> String {
    let t = if share > 0.0 {
        share.log2().clamp(-1.0, 1.0)
    } else if share.is_nan() {
        0.0
    } else {
        -1.0
    };
    let (from, to, f) = if t < 0.0 {
        (SHARE_EXACT, SHARE_UNDER, -t)
    } else {
        (SHARE_EXACT, SHARE_OVER, t)
    };
    let c: Vec<u8> = (0..3)
        .map(|i| (from[i] + f * (to[i] - from[i])).round() as u8)
        .collect();
    format!("#{:02x}{:02x}{:02x}", c[0], c[1], c[2])
}

#[cfg(test)]
mod tests {
    use super::{colour_scale, volume_share_colour};

    #[test]
    fn the_scale_runs_from_purple_to_yellow_and_clamps() {
        assert_eq!(colour_scale(0.0), "#440154");
        assert_eq!(colour_scale(1.0), "#fde725");
        assert_eq!(colour_scale(-3.0), "#440154");
        assert_eq!(colour_scale(f64::NAN), "#440154");
        assert_eq!(colour_scale(7.0), "#fde725");
        assert_eq!(colour_scale(0.2), "#414487");
    }

    #[test]
    fn the_volume_share_scale_is_grey_at_one_blue_below_red_above_and_saturates() {
        assert_eq!(volume_share_colour(1.0), "#e2e8f0");
        assert_eq!(volume_share_colour(f64::NAN), "#e2e8f0");
        assert_eq!(volume_share_colour(0.5), "#2563eb");
        assert_eq!(volume_share_colour(0.1), "#2563eb");
        assert_eq!(volume_share_colour(0.0), "#2563eb");
        assert_eq!(volume_share_colour(2.0), "#dc2626");
        assert_eq!(volume_share_colour(9.0), "#dc2626");
    }
}
