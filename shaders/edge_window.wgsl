// The per-edge buffers — the neighbour rows and the reverse lists, a u32 per neighbour pair — bound in
// windows (crates/phyxel-gpu/src/edge_windows.rs). When they hold more than one storage binding may
// (`max_storage_buffer_binding_size`: 128 MiB on Mesa lavapipe and WebGPU's default), a pass that reads
// them runs once per window, binding only that window's part of them; window c binds the edges
// [first_c, first_c + span) and handles the phyxels whose row (or reverse list) starts in
// [first_c, first_{c+1}). Windows overlap by as many edges as the body has phyxels (no row or reverse
// list can be longer), so a list handled in a window lies wholly in it. A body small enough for one binding has a single window that owns every row.
//
// A background quadrature's per-edge buffers (quadrature.wgsl: the shape functions' rows, their values
// and the particles' reverse lists, 16 or 4 bytes per edge) take windows the same way, cut by a plan of
// their own: its point passes own points by their rows' starts, its particle passes particles by their
// reverse lists' starts, and the windows overlap by the longest of those.
//
// Prepended to the passes that read rows or reverse lists; binding 30 holds this dispatch's windows
// (`EdgeWindow`, the prelude).

@group(0) @binding(30) var<uniform> edge_window: EdgeWindow;

// Is the row whose first edge is `first` handled in this dispatch?
fn owns_row(first: u32) -> bool {
    return first >= edge_window.rows_first && first < edge_window.rows_owned_end;
}

// Is the reverse list whose first entry is `first` handled in this dispatch?
fn owns_reverse_list(first: u32) -> bool {
    return first >= edge_window.reverse_first && first < edge_window.reverse_owned_end;
}

// Edge e's slot in the bound window of the rows.
fn row_slot(e: u32) -> u32 {
    return e - edge_window.rows_first;
}

// Entry r's slot in the bound window of the reverse lists.
fn reverse_slot(r: u32) -> u32 {
    return r - edge_window.reverse_first;
}
