//! The per-edge buffers — neighbour rows and reverse lists, a u32 per neighbour pair — and the windows
//! they are bound in (`shaders/edge_window.wgsl`). A storage binding holds at most
//! `max_storage_buffer_binding_size` bytes (128 MiB on Mesa lavapipe and by WebGPU's default: 33 M
//! pairs, about 1.3 M phyxels with 26 neighbours each). Where the buffers hold more, every pass that
//! reads them runs once per window: window c binds the edges `[c·stride, c·stride + span)` and handles
//! the phyxels whose rows start in `[c·stride, (c+1)·stride)`; the windows overlap by at least the
//! longest list — as many edges as the body has phyxels: no row or reverse list can be longer, before
//! or after the device rebuilds them — so each lies wholly in the window that handles it. A pass reading rows and reverse
//! lists runs once per pair of windows. The buffers themselves may be larger than a binding (up to
//! `max_buffer_size`).

use crate::layout::EdgeWindow;
use crate::passes::{bind, bind_entries, pipeline, u32_buffer, uniform, Pass};

/// Bytes per edge in the windowed buffers.
const EDGE_BYTES: u64 = 4;

/// How `capacity` edges are cut into windows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EdgeWindowPlan {
    /// Edges the buffers hold.
    pub capacity: u32,
    /// Edges between the first edges of consecutive windows.
    pub stride: u32,
    /// Edges one window binds (`stride` plus the overlap).
    pub span: u32,
    /// Windows.
    pub count: u32,
}

impl EdgeWindowPlan {
    /// Windows for `capacity` edges in bindings of at most `binding_bytes`, at offsets that are
    /// multiples of `alignment` bytes (`min_storage_buffer_offset_alignment`), for rows and reverse
    /// lists of up to `longest_list` edges. One window when the buffers fit one binding.
    pub fn new(
        capacity: u32,
        binding_bytes: u64,
        alignment: u32,
        longest_list: u32,
    ) -> Result<Self, String> {
        if u64::from(capacity) * EDGE_BYTES <= binding_bytes {
            return Ok(Self {
                capacity,
                stride: capacity.max(1),
                span: capacity,
                count: 1,
            });
        }
        let align = (u64::from(alignment).max(EDGE_BYTES) / EDGE_BYTES) as u32;
        let span = ((binding_bytes / EDGE_BYTES).min(u64::from(u32::MAX)) as u32) / align * align;
        let overlap = longest_list.div_ceil(align) * align;
        if overlap >= span {
            return Err(format!(
                "edge windows of {span} edges cannot hold neighbour lists of {longest_list} phyxels"
            ));
        }
        let stride = span - overlap;
        Ok(Self {
            capacity,
            stride,
            span,
            count: capacity.div_ceil(stride),
        })
    }

    /// The longest row (or reverse list) every window holds whole.
    pub fn longest_list(&self) -> u32 {
        if self.count == 1 {
            u32::MAX
        } else {
            self.span - self.stride
        }
    }

    /// Window c's first edge.
    pub fn first(&self, c: u32) -> u32 {
        c * self.stride
    }

    /// The end of the row starts window c owns (the last window owns all the rest).
    pub fn owned_end(&self, c: u32) -> u32 {
        if c + 1 >= self.count {
            u32::MAX
        } else {
            (c + 1) * self.stride
        }
    }

    /// Window c's binding: its offset and size in bytes.
    pub fn bound(&self, c: u32) -> (u64, u64) {
        let first = self.first(c);
        let edges = self.span.min(self.capacity - first);
        (
            u64::from(first) * EDGE_BYTES,
            u64::from(edges.max(1)) * EDGE_BYTES,
        )
    }
}

/// The per-edge buffers and the uniforms that tell each dispatch its windows.
pub(crate) struct EdgeWindows {
    pub plan: EdgeWindowPlan,
    /// Rows: edge e of phyxel i (`start[i] ≤ e < start[i+1]`) names the neighbour j.
    pub neighbour: wgpu::Buffer,
    /// Reverse lists: entry r of phyxel k (`reverse_start[k] ≤ r < reverse_start[k+1]`) names a phyxel
    /// i whose neighbourhood holds k (the CPU lists the edge i → k instead).
    pub reverse: wgpu::Buffer,
    /// The [`EdgeWindow`] of each pair (rows window a, reverse window b), at a·count + b.
    uniforms: Vec<wgpu::Buffer>,
}

impl EdgeWindows {
    /// The buffers, holding `neighbour` and `reverse` zero-padded to the plan's capacity.
    pub fn new(
        device: &wgpu::Device,
        plan: EdgeWindowPlan,
        neighbour: &[u32],
        reverse: &[u32],
    ) -> Self {
        let padded = |label: &str, values: &[u32]| {
            let mut values = values.to_vec();
            values.resize(plan.capacity as usize, 0);
            u32_buffer(device, label, &values)
        };
        let uniforms = (0..plan.count)
            .flat_map(|a| (0..plan.count).map(move |b| (a, b)))
            .map(|(a, b)| {
                let window = EdgeWindow {
                    rows_first: plan.first(a),
                    rows_owned_end: plan.owned_end(a),
                    rows_window: a,
                    reverse_first: plan.first(b),
                    reverse_owned_end: plan.owned_end(b),
                    reverse_window: b,
                    ..EdgeWindow::default()
                };
                uniform(device, "edge window", &window)
            })
            .collect();
        Self {
            plan,
            neighbour: padded("neighbour", neighbour),
            reverse: padded("reverse", reverse),
            uniforms,
        }
    }

    /// The bind groups of `pipeline` over `buffers`, one per dispatch: the rows and reverse lists among
    /// them bound window by window (every pair of windows where both are), with the windows' uniform
    /// at binding 30. A pass that reads neither has one bind group, without the uniform.
    pub fn bind(
        &self,
        device: &wgpu::Device,
        pipeline: &wgpu::ComputePipeline,
        buffers: &[(u32, &wgpu::Buffer)],
    ) -> Vec<wgpu::BindGroup> {
        let reads = |edges: &wgpu::Buffer| buffers.iter().any(|(_, b)| *b == edges);
        let (rows, reverse) = (reads(&self.neighbour), reads(&self.reverse));
        if !rows && !reverse {
            return vec![bind(device, pipeline, buffers)];
        }
        let windows = |used: bool| if used { self.plan.count } else { 1 };
        let mut groups = Vec::new();
        for a in 0..windows(rows) {
            for b in 0..windows(reverse) {
                let window = |buffer: &wgpu::Buffer| {
                    if *buffer == self.neighbour {
                        Some(a)
                    } else if *buffer == self.reverse {
                        Some(b)
                    } else {
                        None
                    }
                };
                let mut entries: Vec<wgpu::BindGroupEntry> = buffers
                    .iter()
                    .map(|&(binding, buffer)| wgpu::BindGroupEntry {
                        binding,
                        resource: match window(buffer) {
                            Some(c) => {
                                let (offset, size) = self.plan.bound(c);
                                wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                                    buffer,
                                    offset,
                                    size: wgpu::BufferSize::new(size),
                                })
                            }
                            None => buffer.as_entire_binding(),
                        },
                    })
                    .collect();
                let uniform = &self.uniforms[(a * self.plan.count + b) as usize];
                entries.push(wgpu::BindGroupEntry {
                    binding: 30,
                    resource: uniform.as_entire_binding(),
                });
                groups.push(bind_entries(device, pipeline, &entries));
            }
        }
        groups
    }

    /// The pass of entry point `entry` of `sources` (after edge_window.wgsl) over `buffers`, the per-edge
    /// ones bound window by window.
    pub fn pass(
        &self,
        device: &wgpu::Device,
        sources: &[&str],
        entry: &str,
        buffers: &[(u32, &wgpu::Buffer)],
        workgroups: u32,
    ) -> Pass {
        let sources: Vec<&str> = std::iter::once(crate::wgsl::source::EDGE_WINDOW)
            .chain(sources.iter().copied())
            .collect();
        let pipeline = pipeline(device, &sources, entry);
        let bindings = self.bind(device, &pipeline, buffers);
        Pass::new(entry, pipeline, bindings, workgroups)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_window_when_the_edges_fit_a_binding() {
        let plan = EdgeWindowPlan::new(1000, 4000, 256, 50).unwrap();
        assert_eq!(
            (plan.count, plan.first(0), plan.owned_end(0)),
            (1, 0, u32::MAX)
        );
        assert_eq!(plan.bound(0), (0, 4000));
    }

    #[test]
    fn windows_cover_every_row_whole() {
        // 128 MiB bindings, 256-byte offsets, rows up to 1000 long; 100 M edges.
        let plan = EdgeWindowPlan::new(100_000_000, 128 << 20, 256, 1000).unwrap();
        assert_eq!(plan.span, 32 << 20);
        assert_eq!(plan.span - plan.stride, 1024);
        assert_eq!(plan.count, 100_000_000u32.div_ceil(plan.stride));
        for c in 0..plan.count {
            let (offset, size) = plan.bound(c);
            assert_eq!(offset % 256, 0, "offset alignment");
            assert!(size <= 128 << 20, "binding size");
            assert!(offset + size <= 400_000_000, "inside the buffer");
            // A row owned by window c (start < owned end) of the longest length ends inside it.
            let last_start = plan.owned_end(c).min(plan.capacity) - 1;
            let end = u64::from(last_start) + u64::from(plan.longest_list());
            assert!(
                end * 4 <= offset + size || end > u64::from(plan.capacity),
                "window {c}"
            );
        }
        // Consecutive windows own adjacent ranges of row starts.
        for c in 1..plan.count {
            assert_eq!(plan.owned_end(c - 1), plan.first(c));
        }
        assert!(plan.longest_list() >= 1000);
    }

    #[test]
    fn a_row_longer_than_a_window_is_refused() {
        let refused = EdgeWindowPlan::new(10_000, 4096, 256, 1024).unwrap_err();
        assert!(refused.contains("1024"), "{refused}");
    }
}
