use super::*;
use crate::wgsl::{prelude, source};

#[test]
fn layouts_match_the_wgsl_structs() {
    // WGSL: Params is 10 × 16 = 160 bytes; Phyxel 16; Collider 48; mat3x3<f32> has stride 48.
    assert_eq!(size_of::<Params>(), 160);
    assert_eq!(size_of::<PhyxelConstants>(), 16);
    assert_eq!(size_of::<GpuCollider>(), 48);
    // MlsFrame: mat3x3<f32> (48) then vec4<f32> (16).
    assert_eq!(size_of::<MlsFrame>(), 64);
    assert_eq!(size_of::<ImplicitFrame>(), 144);
    // The quadrature's: a vec3<f32> and a u32 share 16 bytes.
    assert_eq!(size_of::<IntegrationPoint>(), 16);
    assert_eq!(size_of::<ShapeEdge>(), 16);
    assert_eq!(size_of::<PointFrame>(), 96);
    let inverse = DMat3::from_cols_array(&[1., 2., 3., 4., 5., 6., 7., 8., 9.]);
    let frame = MlsFrame::new(inverse, DVec3::new(0.5, 1.5, 2.5), 0.25);
    assert_eq!(frame.reference, [0.5, 1.5, 2.5, 0.25]);
    assert_eq!(frame.moment_inverse(), inverse);
    // The kernel's constants: 1/h² and poly6(0, h).
    assert_eq!(frame.inverse_x[3], 16.0);
    let poly6_at_centre = phyxel::meshless::kernel::poly6(0.0, 0.25);
    assert!((frame.inverse_y[3] as f64 / poly6_at_centre - 1.0).abs() < 1e-6);
    let m = mat3(DMat3::from_cols_array(&[
        1., 2., 3., 4., 5., 6., 7., 8., 9.,
    ]));
    assert_eq!(m, [1., 2., 3., 0., 4., 5., 6., 0., 7., 8., 9., 0.]);
    assert_eq!(
        from_mat3(&m),
        DMat3::from_cols_array(&[1., 2., 3., 4., 5., 6., 7., 8., 9.])
    );
    let ground = GpuCollider::from(&Collider::ground(0.25));
    assert_eq!((ground.kind, ground.extent), (0, 0.25));
    assert_eq!(ground.a, [0.0, 1.0, 0.0, 0.0]);
}

/// Every shared struct's fields as Rust lays them out, by WGSL name.
#[cfg(not(target_arch = "wasm32"))]
fn shared() -> Vec<(&'static str, Vec<Field>, usize)> {
    fn of<T: SharedStruct>() -> (&'static str, Vec<Field>, usize) {
        (T::WGSL_NAME, T::fields(), size_of::<T>())
    }
    vec![
        of::<Params>(),
        of::<MlsFrame>(),
        of::<PhyxelConstants>(),
        of::<GpuCollider>(),
        of::<GridParams>(),
        of::<EdgeWindow>(),
        of::<Grip>(),
        of::<GripParams>(),
        of::<GpuBall>(),
        of::<Count>(),
        of::<ImplicitFrame>(),
        of::<IntegrationPoint>(),
        of::<ShapeEdge>(),
        of::<PointFrame>(),
        of::<InstanceSettings>(),
        of::<SurfaceSettings>(),
        of::<FluidParams>(),
    ]
}

/// A naga type as WGSL writes it (the scalars, vectors and matrices the shared structs hold).
#[cfg(not(target_arch = "wasm32"))]
fn wgsl_name(module: &naga::Module, ty: naga::Handle<naga::Type>) -> String {
    use naga::{Scalar, TypeInner};
    let scalar = |s: Scalar| match (s.kind, s.width) {
        (naga::ScalarKind::Uint, 4) => "u32",
        (naga::ScalarKind::Sint, 4) => "i32",
        (naga::ScalarKind::Float, 4) => "f32",
        other => panic!("a scalar the shared structs do not use: {other:?}"),
    };
    match module.types[ty].inner {
        TypeInner::Scalar(s) => scalar(s).to_string(),
        TypeInner::Vector { size, scalar: s } => format!("vec{}<{}>", size as u8, scalar(s)),
        TypeInner::Matrix {
            columns,
            rows,
            scalar: s,
        } => format!("mat{}x{}<{}>", columns as u8, rows as u8, scalar(s)),
        ref other => panic!("a type the shared structs do not use: {other:?}"),
    }
}

/// naga (wgpu's shader compiler) lays out the prelude's structs by WGSL's rules; each must agree with
/// the Rust struct the host writes, field by field: name, order, type, offset and size.
#[cfg(not(target_arch = "wasm32"))]
#[test]
fn the_preludes_structs_are_laid_out_as_the_rust_structs_are() {
    let module = naga::front::wgsl::parse_str(&prelude()).expect("the prelude is valid WGSL");
    let mut layouter = naga::proc::Layouter::default();
    layouter.update(module.to_ctx()).unwrap();
    for (name, fields, rust_size) in shared() {
        let (handle, ty) = module
            .types
            .iter()
            .find(|(_, ty)| ty.name.as_deref() == Some(name))
            .unwrap_or_else(|| panic!("the prelude declares {name}"));
        let naga::TypeInner::Struct { members, span } = &ty.inner else {
            panic!("{name} is a struct");
        };
        let wgsl: Vec<(String, String, usize, usize)> = members
            .iter()
            .map(|m| {
                (
                    m.name.clone().unwrap_or_default(),
                    wgsl_name(&module, m.ty),
                    m.offset as usize,
                    layouter[m.ty].size as usize,
                )
            })
            .collect();
        let rust: Vec<(String, String, usize, usize)> = fields
            .iter()
            .map(|f| (f.name.into(), f.wgsl_type.into(), f.offset, f.size))
            .collect();
        assert_eq!(
            wgsl, rust,
            "{name}: (field, type, offset, size) in WGSL and Rust"
        );
        assert_eq!(*span as usize, rust_size, "{name}'s size");
        assert_eq!(layouter[handle].size as usize, rust_size, "{name}'s size");
    }
}

/// The shaders take what they share with Rust from the prelude: no workgroup size, struct or constant
/// of it is written again in a shader file.
#[test]
fn no_shader_repeats_what_the_prelude_declares() {
    let prelude = prelude();
    let declared: Vec<&str> = prelude
        .lines()
        .filter_map(|line| {
            let rest = line
                .strip_prefix("const ")
                .or_else(|| line.strip_prefix("struct "))?;
            rest.split([':', ' ']).next()
        })
        .collect();
    assert!(declared.contains(&"WORKGROUP_SIZE") && declared.contains(&"Params"));
    for file in source::ALL {
        for line in file.lines().map(str::trim_start) {
            for name in &declared {
                for keyword in ["const ", "struct "] {
                    let declaration = format!("{keyword}{name}");
                    assert!(
                        !line.starts_with(&format!("{declaration}:"))
                            && !line.starts_with(&format!("{declaration} ")),
                        "a shader declares {name} again: {line}"
                    );
                }
            }
            if let Some(size) = line.strip_prefix("@compute @workgroup_size(") {
                assert!(
                    size.starts_with(|c: char| !c.is_ascii_digit()) || size.starts_with("1)"),
                    "a workgroup size written as a number: {line}"
                );
            }
        }
    }
}
