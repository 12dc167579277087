//! The 3D fluid's buffers on the device, by the binding numbers `shaders/sph_fluid.wgsl` and
//! `shaders/fluid_cells.wgsl` declare them with: what the step's passes (`super`), the neighbour
//! search (`cells`) and the read-back (`state`) bind.

/// The binding numbers of sph_fluid.wgsl and fluid_cells.wgsl.
pub mod binding {
    pub const PARAMS: u32 = 0;
    pub const X: u32 = 1;
    pub const V: u32 = 2;
    pub const DENSITY: u32 = 3;
    pub const PRESSURES: u32 = 4;
    pub const SCRATCH: u32 = 5;
    pub const SEARCHED: u32 = 6;
    pub const CELL_END: u32 = 7;
    pub const SORTED: u32 = 8;
    pub const WALLS: u32 = 9;
    pub const WALL_END: u32 = 10;
    pub const STATUS: u32 = 11;
    pub const CELL_OF: u32 = 12;
}

/// The fluid's buffers, by binding number.
pub struct Buffers {
    pub params: wgpu::Buffer,
    pub x: wgpu::Buffer,
    pub v: wgpu::Buffer,
    pub density: wgpu::Buffer,
    pub pressures: wgpu::Buffer,
    pub scratch: wgpu::Buffer,
    pub searched: wgpu::Buffer,
    pub cell_end: wgpu::Buffer,
    pub sorted: wgpu::Buffer,
    pub walls: wgpu::Buffer,
    pub wall_end: wgpu::Buffer,
    pub status: wgpu::Buffer,
    pub cell_of: wgpu::Buffer,
}

impl Buffers {
    /// The buffer bound at `number`.
    pub fn get(&self, number: u32) -> &wgpu::Buffer {
        use binding::*;
        match number {
            PARAMS => &self.params,
            X => &self.x,
            V => &self.v,
            DENSITY => &self.density,
            PRESSURES => &self.pressures,
            SCRATCH => &self.scratch,
            SEARCHED => &self.searched,
            CELL_END => &self.cell_end,
            SORTED => &self.sorted,
            WALLS => &self.walls,
            WALL_END => &self.wall_end,
            STATUS => &self.status,
            _ => &self.cell_of,
        }
    }

    /// The bindings `numbers`, each buffer bound whole.
    pub fn bind(&self, numbers: &[u32]) -> Vec<(u32, &wgpu::Buffer)> {
        numbers.iter().map(|&k| (k, self.get(k))).collect()
    }
}
