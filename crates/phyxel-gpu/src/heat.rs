//! Pass 6 on the device, `Melting::heat` (MKN04 §5.2; shaders/heat.wgsl), run after either step when
//! the material melts: each phyxel is warmed by the heat source, T_i += rate Δt W(|x_i − s|, r)/W(0, r),
//! and exchanges heat with its neighbours, T_i += min(D Δt, 1) Σ_j w_ij (T_j − T_i) / Σ_j w_ij; its
//! stiffness factor falls linearly from 1 at room temperature to the molten value at the melting point.

use crate::body::BodyBuffers;
use crate::passes::Pass;
use crate::wgsl::source;

/// `heat` (the new temperatures beside the old) and `commit_temperature` (copied over).
pub fn heat_passes(device: &wgpu::Device, b: &BodyBuffers) -> [Pass; 2] {
    let pass = |entry, buffers: &[(u32, &wgpu::Buffer)]| {
        let mut bound = vec![(0, &b.params)];
        bound.extend_from_slice(buffers);
        b.edges.pass(
            device,
            &[source::COMMON, source::HEAT],
            entry,
            &bound,
            b.workgroups(),
        )
    };
    [
        pass(
            "heat",
            &[
                (1, &b.reference),
                (2, &b.displacement),
                (3, &b.start),
                (4, &b.edges.neighbour),
                (5, &b.temperature),
                (6, &b.temperature_next),
                (7, &b.phyxel),
            ],
        ),
        pass(
            "commit_temperature",
            &[(5, &b.temperature), (6, &b.temperature_next)],
        ),
    ]
}
