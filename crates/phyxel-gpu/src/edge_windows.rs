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
//!
//! A body integrated by background quadrature has per-edge buffers of its own — its shape-function
//! rows and reverse lists (16 bytes per edge: ∇φ_i(x_I) and an index) and the rows' values φ_i(x_I)
//! (4 bytes) — cut by a plan of its own ([`Windows`], `crate::quadrature`): the same windows in edges,
//! each buffer bound at the window's edges times its own bytes per edge.

use crate::layout::EdgeWindow;
use crate::passes::{bind, bind_entries, pipeline, u32_buffer, uniform, Pass};

/// Bytes per edge in the neighbourhoods' windowed buffers (a u32).
const EDGE_BYTES: u64 = 4;

/// The smallest element of a windowed buffer (a u32 or f32): window offsets are aligned for it, and so
/// for any buffer whose edges are a multiple of it long.
const SMALLEST_EDGE_BYTES: u64 = 4;

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
    /// Bytes per edge of the widest buffer cut by the plan (what a window's size is counted in).
    pub edge_bytes: u32,
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
        Self::sized(
            EDGE_BYTES as u32,
            capacity,
            binding_bytes,
            alignment,
            longest_list,
        )
    }

    /// [`Self::new`] for buffers of up to `edge_bytes` bytes per edge (a multiple of 4): windows of at
    /// most `binding_bytes` in the widest of them, starting at edges whose offsets are aligned in
    /// every buffer of 4 bytes per edge or more.
    pub fn sized(
        edge_bytes: u32,
        capacity: u32,
        binding_bytes: u64,
        alignment: u32,
        longest_list: u32,
    ) -> Result<Self, String> {
        let bytes = u64::from(edge_bytes).max(SMALLEST_EDGE_BYTES);
        if u64::from(capacity) * bytes <= binding_bytes {
            return Ok(Self {
                capacity,
                stride: capacity.max(1),
                span: capacity,
                count: 1,
                edge_bytes,
            });
        }
        let align = (u64::from(alignment).max(SMALLEST_EDGE_BYTES) / SMALLEST_EDGE_BYTES) as u32;
        let span = ((binding_bytes / bytes).min(u64::from(u32::MAX)) as u32) / align * align;
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
            edge_bytes,
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

    /// Window c's binding in the widest buffers: its offset and size in bytes.
    pub fn bound(&self, c: u32) -> (u64, u64) {
        self.bound_in(c, u64::from(self.edge_bytes))
    }

    /// Window c's binding in a buffer of `edge_bytes` bytes per edge: its offset and size in bytes.
    pub fn bound_in(&self, c: u32, edge_bytes: u64) -> (u64, u64) {
        let first = self.first(c);
        let edges = self.span.min(self.capacity - first);
        (
            u64::from(first) * edge_bytes,
            u64::from(edges.max(1)) * edge_bytes,
        )
    }
}

/// Which lists a windowed buffer holds, so which of a dispatch's two windows binds it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Lists {
    /// Rows (the rows' window: `owns_row`, `row_slot`).
    Rows,
    /// Reverse lists (the reverse lists' window: `owns_reverse_list`, `reverse_slot`).
    Reverse,
}

/// A buffer bound window by window: the lists it holds and its bytes per edge.
pub(crate) type Windowed<'a> = (&'a wgpu::Buffer, Lists, u64);

/// The windows of one plan and the uniforms that tell each dispatch its windows (edge_window.wgsl's
/// `EdgeWindow`, one per pair: rows window a, reverse window b, at a·count + b), for whatever per-edge
/// buffers the plan cuts.
pub(crate) struct Windows {
    pub plan: EdgeWindowPlan,
    uniforms: Vec<wgpu::Buffer>,
}

impl Windows {
    pub fn new(device: &wgpu::Device, plan: EdgeWindowPlan) -> Self {
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
        Self { plan, uniforms }
    }

    /// The bind groups of `pipeline` over `buffers`, one per dispatch: those among them in `windowed`
    /// bound window by window (every pair of windows where rows and reverse lists both are), with the
    /// windows' uniform at binding 30. A pass that reads none has one bind group, without the uniform.
    pub fn bind(
        &self,
        device: &wgpu::Device,
        pipeline: &wgpu::ComputePipeline,
        buffers: &[(u32, &wgpu::Buffer)],
        windowed: &[Windowed],
    ) -> Vec<wgpu::BindGroup> {
        let of = |buffer: &wgpu::Buffer| windowed.iter().find(|(w, _, _)| *w == buffer);
        let reads = |lists: Lists| {
            buffers
                .iter()
                .any(|(_, b)| of(b).is_some_and(|&(_, l, _)| l == lists))
        };
        let (rows, reverse) = (reads(Lists::Rows), reads(Lists::Reverse));
        if !rows && !reverse {
            return vec![bind(device, pipeline, buffers)];
        }
        let windows = |used: bool| if used { self.plan.count } else { 1 };
        let mut groups = Vec::new();
        for a in 0..windows(rows) {
            for b in 0..windows(reverse) {
                let mut entries: Vec<wgpu::BindGroupEntry> = buffers
                    .iter()
                    .map(|&(binding, buffer)| wgpu::BindGroupEntry {
                        binding,
                        resource: match of(buffer) {
                            Some(&(_, lists, bytes)) => {
                                let c = if lists == Lists::Rows { a } else { b };
                                let (offset, size) = self.plan.bound_in(c, bytes);
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

    /// The pass of entry point `entry` of `sources` (after edge_window.wgsl) over `buffers`, those in
    /// `windowed` bound window by window.
    pub fn pass(
        &self,
        device: &wgpu::Device,
        sources: &[&str],
        entry: &str,
        buffers: &[(u32, &wgpu::Buffer)],
        windowed: &[Windowed],
        workgroups: u32,
    ) -> Pass {
        let sources: Vec<&str> = std::iter::once(crate::wgsl::source::EDGE_WINDOW)
            .chain(sources.iter().copied())
            .collect();
        let pipeline = pipeline(device, &sources, entry);
        let bindings = self.bind(device, &pipeline, buffers, windowed);
        Pass::new(entry, pipeline, bindings, workgroups)
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
    /// The uniforms of each pair of windows.
    windows: Windows,
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
        Self {
            plan,
            neighbour: padded("neighbour", neighbour),
            reverse: padded("reverse", reverse),
            windows: Windows::new(device, plan),
        }
    }

    /// The rows and reverse lists, as [`Windows`] binds them.
    fn windowed(&self) -> [Windowed<'_>; 2] {
        [
            (&self.neighbour, Lists::Rows, EDGE_BYTES),
            (&self.reverse, Lists::Reverse, EDGE_BYTES),
        ]
    }

    /// The pass of entry point `entry` of `sources` (after edge_window.wgsl) over `buffers`, the rows and
    /// reverse lists among them bound window by window (every pair of windows where both are, the
    /// windows' uniform at binding 30; a pass that reads neither has one bind group, without it).
    pub fn pass(
        &self,
        device: &wgpu::Device,
        sources: &[&str],
        entry: &str,
        buffers: &[(u32, &wgpu::Buffer)],
        workgroups: u32,
    ) -> Pass {
        self.windows.pass(
            device,
            sources,
            entry,
            buffers,
            &self.windowed(),
            workgroups,
        )
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
    fn windows_of_wide_edges_are_aligned_in_every_buffer_they_cut() {
        // A quadrature's rows (16 B per edge) and their values (4 B) in 16 KiB windows, lists of up to
        // 100 edges: 1024 edges a window, overlapping by 128.
        let plan = EdgeWindowPlan::sized(16, 10_000, 16 << 10, 256, 100).unwrap();
        assert_eq!((plan.span, plan.span - plan.stride), (1024, 128));
        assert_eq!(plan.count, 10_000u32.div_ceil(896));
        for c in 0..plan.count {
            for bytes in [4, 16] {
                let (offset, size) = plan.bound_in(c, bytes);
                assert_eq!(offset % 256, 0, "window {c}, {bytes} B per edge");
                assert!(offset + size <= 10_000 * bytes);
            }
            assert!(plan.bound(c).1 <= 16 << 10);
        }
        // The same edges fit one window of 160 000 bytes.
        let whole = EdgeWindowPlan::sized(16, 10_000, 160_000, 256, 100).unwrap();
        assert_eq!((whole.count, whole.bound(0)), (1, (0, 160_000)));
    }

    #[test]
    fn a_row_longer_than_a_window_is_refused() {
        let refused = EdgeWindowPlan::new(10_000, 4096, 256, 1024).unwrap_err();
        assert!(refused.contains("1024"), "{refused}");
    }
}
