// The 3D preview: flat-shaded triangles lit by a headlight, and crease edges drawn a hair in front.
// Colours come sRGB-encoded, are lit in that space (like the CPU painter) and are written as they
// are: egui shows the texture's values as sRGB-encoded colours. While a component of an assembly
// is lit, each vertex carries a mark: 1 lit (the accent colour), 2 faded (see-through, its colour
// premultiplied by its alpha, drawn blended after the rest); 0 when nothing is lit.

struct Uniforms {
    // Model coordinates to clip space (orthographic).
    clip_from_model: mat4x4<f32>,
    // From the target toward the viewer (w unused).
    toward_viewer: vec4<f32>,
    // Surface colour, sRGB-encoded RGB in 0..1 (a unused): light scales it as egui's painter does.
    surface: vec4<f32>,
    // Edge colour, sRGB-encoded RGBA in 0..1.
    edge: vec4<f32>,
    // x: ambient light, y: how far edges are pulled toward the viewer in clip depth.
    params: vec4<f32>,
    // A lit component's surface colour (a 1).
    accent: vec4<f32>,
    // The rest's surface colour while a component is lit, premultiplied by its alpha.
    faded: vec4<f32>,
    // The rest's edge colour while a component is lit, premultiplied by its alpha.
    faded_edge: vec4<f32>,
};

@group(0) @binding(0) var<uniform> u: Uniforms;

struct SurfaceOut {
    @builtin(position) position: vec4<f32>,
    @location(0) normal: vec3<f32>,
    @location(1) mark: f32,
};

@vertex
fn vs_surface(
    @location(0) position: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) mark: f32,
) -> SurfaceOut {
    var out: SurfaceOut;
    out.position = u.clip_from_model * vec4<f32>(position, 1.0);
    out.normal = normal;
    out.mark = mark;
    return out;
}

@fragment
fn fs_surface(in: SurfaceOut) -> @location(0) vec4<f32> {
    let facing = abs(dot(in.normal, u.toward_viewer.xyz));
    let light = u.params.x + (1.0 - u.params.x) * min(facing, 1.0);
    var base = vec4<f32>(u.surface.rgb, 1.0);
    if in.mark > 1.5 {
        base = u.faded;
    } else if in.mark > 0.5 {
        base = vec4<f32>(u.accent.rgb, 1.0);
    }
    return vec4<f32>(base.rgb * light, base.a);
}

struct EdgeOut {
    @builtin(position) position: vec4<f32>,
    @location(0) mark: f32,
};

@vertex
fn vs_edge(@location(0) position: vec3<f32>, @location(1) mark: f32) -> EdgeOut {
    var out: EdgeOut;
    var clip = u.clip_from_model * vec4<f32>(position, 1.0);
    clip.z = clip.z - u.params.y * clip.w;
    out.position = clip;
    out.mark = mark;
    return out;
}

@fragment
fn fs_edge(in: EdgeOut) -> @location(0) vec4<f32> {
    if in.mark > 1.5 {
        return u.faded_edge;
    }
    return u.edge;
}
