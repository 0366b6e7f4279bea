//! `ray_tracing`: a small Whitted-style ray tracer
//! (`kernels/ispass/ray_tracing.ptx`, `render`; ISPASS-2009 "RAY", LFWS
//! Table 2 "RAY", after Maxime Boroujerdi's CUDA ray tracer). One thread
//! per pixel, 16 x 8 CTAs (4 warps): a primary ray from the observer, the
//! nearest of the scene's objects (a plane and spheres in `__constant__`
//! memory), ambient + diffuse + specular shading with a shadow ray towards
//! the light, and up to five mirror bounces kept in a per-thread stack
//! (local memory), blended and packed as RGBA bytes.
//!
//! Input: the original scene ([`scene`]: the plane y = -1.5 and three
//! spheres) plus `extra_spheres` seeded spheres placed as the original's
//! random ones, the original observer ([`view`]: at (0, 0.5, 2) looking at
//! the origin, 65 degrees), written to the module's `MView` and `cnode`.
//! Check: the `width` x `height` image `result` exactly against
//! [`reference`], which does the kernel's f32 operations in its order (the
//! kernel never fuses a product into an `fma`; its `rsqrtf` is
//! `rsqrt.approx.f32`, which the simulator computes as `1 / sqrt(x)`).

use crate::workload::args::Args;
use crate::workload::check::{self, Check};
use crate::workload::generate::{Rng, stream_seed};
use crate::workload::host::{ArgValue, Host, WorkloadError, download, overwrite, upload};
use crate::workload::{Launch, Workload};

/// CTA shape (the original's 16 x 8).
pub const BLOCK: [u32; 3] = [16, 8, 1];
/// Objects the kernel's `cnode` holds.
pub const MAX_OBJECTS: usize = 16;
/// Objects of the original scene.
pub const SCENE_OBJECTS: usize = 4;
/// Largest image edge accepted.
const MAX_EDGE: u32 = 8192;

/// One scene object, the kernel's `Node`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Node {
    /// Centre (a plane: a point of it).
    pub c: [f32; 3],
    /// Radius.
    pub r: f32,
    /// Colour (R, G, B, A).
    pub color: [f32; 4],
    /// Non-zero: a plane with normal +y.
    pub fg: u32,
}

/// The original's four objects and `extra` seeded spheres (the original's
/// placement of its random spheres: centre in [-2.5, 2.5] x [-2.5, 2.5] x
/// [-5, 0], colour from the same draws, radius in [0, 1)).
pub fn scene(extra: usize, seed: u64) -> Vec<Node> {
    let node = |c: [f32; 3], r: f32, rgb: [f32; 3], fg: u32| Node {
        c,
        r,
        color: [rgb[0], rgb[1], rgb[2], 1.0],
        fg,
    };
    let mut s = vec![
        node([0.0, -1.5, 0.0], 0.5, [0.0, 1.0, 1.0], 1),
        node([-1.0, 0.0, -1.0], 0.5, [1.0, 0.0, 0.0], 0),
        node([1.0, 0.0, -1.0], 0.5, [0.0, 0.0, 1.0], 0),
        node([0.0, 0.0, -2.0], 0.75, [0.0, 1.0, 0.0], 0),
    ];
    let mut rng = Rng::new(stream_seed(seed, 0));
    for _ in 0..extra {
        let r = rng.below(255) as f32 / 255.0;
        let v = rng.below(255) as f32 / 255.0;
        let b = rng.below(255) as f32 / 255.0;
        let radius = rng.below(100) as f32 / 100.0;
        s.push(node(
            [5.0 * r - 2.5, 5.0 * v - 2.5, -5.0 * b],
            radius,
            [r, v, b],
            0,
        ));
    }
    s
}

type V3 = [f32; 3];

fn add(a: V3, b: V3) -> V3 {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}
fn sub(a: V3, b: V3) -> V3 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}
fn scale(a: V3, s: f32) -> V3 {
    [a[0] * s, a[1] * s, a[2] * s]
}
fn dot(a: V3, b: V3) -> f32 {
    (a[0] * b[0] + a[1] * b[1]) + a[2] * b[2]
}
/// The kernel's normalize: `v * rsqrtf(dot(v, v))`, the simulator's
/// `rsqrt.approx` being `1 / sqrt`.
fn normalize(v: V3) -> V3 {
    scale(v, 1.0 / dot(v, v).sqrt())
}

/// The observer's inverse view matrix (rows U, V, W with the position in
/// `w`) and focal distance, computed as the original's `Observateur`.
pub fn view() -> ([[f32; 4]; 3], f32) {
    let p = [0.0f32, 0.5, 2.0];
    let u = normalize(sub([0.0; 3], p));
    let vp = normalize([0.0, 1.0, 0.0]);
    let uu = normalize(u);
    let vv = normalize(sub(vp, scale(uu, dot(uu, vp))));
    let cross = [
        uu[1] * vv[2] - uu[2] * vv[1],
        uu[2] * vv[0] - uu[0] * vv[2],
        uu[0] * vv[1] - uu[1] * vv[0],
    ];
    let w = normalize(cross);
    let m = [
        [uu[0], uu[1], uu[2], p[0]],
        [vv[0], vv[1], vv[2], p[1]],
        [w[0], w[1], w[2], p[2]],
    ];
    let df = (1.0 / (65.0f64.to_radians() / 2.0).tan()) as f32;
    (m, df)
}

fn intersection_sphere(a: V3, u: V3, c: V3, r: f32) -> f32 {
    let l = sub(c, a);
    let (d, l2, r2) = (dot(l, u), dot(l, l), r * r);
    if d < 0.0 && l2 > r2 {
        return 0.0;
    }
    let m2 = l2 - d * d;
    if m2 > r2 {
        return 0.0;
    }
    let q = (r2 - m2).sqrt();
    if l2 > r2 { d - q } else { d + q }
}

fn intersection_plan(a: V3, u: V3, c: V3) -> f32 {
    let n = normalize([0.0, 1.0, 0.0]);
    let m = dot(n, u);
    if m.abs() < 0.0001 {
        return 0.0;
    }
    let d = dot(n, sub(a, c));
    let t = -d / m;
    if t > 0.0 { t } else { 0.0 }
}

fn hit(n: &Node, a: V3, u: V3, pas: f32) -> f32 {
    let c = [n.c[0] + pas, n.c[1], n.c[2]];
    if n.fg != 0 {
        intersection_plan(a, u, c)
    } else {
        intersection_sphere(a, u, c, n.r)
    }
}

fn not_shadow_ray(nodes: &[Node], p: V3, u: V3, pas: f32) -> bool {
    let to_light = sub([10.0; 3], p);
    let dst = dot(to_light, to_light);
    let a = add(p, scale(u, 0.0001));
    let mut t = 0.0f32;
    for n in nodes {
        if t != 0.0 {
            break;
        }
        t = hit(n, a, u, pas);
        let q = add(p, scale(u, t));
        if t > 0.0 && dot(q, q) > dst {
            t = 0.0;
        }
    }
    t == 0.0
}

fn pow50(a: f32) -> f32 {
    let mut p = a;
    for _ in 1..50 {
        p *= a;
    }
    p
}

/// `__saturatef`: clamp to [0, 1], NaN to 0.
fn saturate(x: f32) -> f32 {
    if x.is_nan() { 0.0 } else { x.clamp(0.0, 1.0) }
}

fn rgba(c: [f32; 4]) -> u32 {
    let b = |x: f32| (saturate(x) * 255.0) as u32;
    (b(c[3]) << 24) | (b(c[2]) << 16) | (b(c[1]) << 8) | b(c[0])
}

/// The image as the kernel renders it, row-major RGBA words.
pub fn reference(
    nodes: &[Node],
    view: &([[f32; 4]; 3], f32),
    w: u32,
    h: u32,
    pas: f32,
) -> Vec<u32> {
    let (m, df) = view;
    let row = |i: usize| [m[i][0], m[i][1], m[i][2]];
    let t_pixel = 2.0 / w.min(h) as f32;
    let mut out = Vec::with_capacity((w * h) as usize);
    for y in 0..h {
        for x in 0..w {
            let fx = (x as f32 - w as f32 * 0.5) * t_pixel;
            let fy = (y as f32 - h as f32 * 0.5) * t_pixel;
            let mut a = [m[0][3], m[1][3], m[2][3]];
            let mut u = normalize(add(
                add(scale(row(0), *df), scale(row(2), fx)),
                scale(row(1), fy),
            ));
            let mut pile = [[0.0f32, 0.0, 0.0, 1.0]; 5];
            let mut n = 0usize;
            for (i, slot) in pile.iter_mut().enumerate() {
                if n != i {
                    break;
                }
                let (mut prof, mut obj) = (10000.0f32, 0usize);
                for (j, node) in nodes.iter().enumerate() {
                    let t = hit(node, a, u, pas);
                    if t > 0.0 && t < prof {
                        prof = t;
                        obj = j;
                    }
                }
                let t = prof;
                if !(t > 0.0 && t < 10000.0) {
                    continue;
                }
                n += 1;
                let nod = &nodes[obj];
                let color = nod.color;
                let c = [nod.c[0] + pas, nod.c[1], nod.c[2]];
                let p = add(a, scale(u, t));
                let l = normalize(sub([10.0; 3], p));
                let v = normalize(sub(a, p));
                let nn = if nod.fg != 0 {
                    normalize([0.0, 1.0, 0.0])
                } else {
                    normalize(sub(p, c))
                };
                let np = if dot(v, nn) < 0.0 {
                    scale(nn, -1.0)
                } else {
                    nn
                };
                let mut col = color.map(|k| 0.05 * k);
                let nl = dot(np, l);
                if nl > 0.0 && not_shadow_ray(nodes, p, l, pas) {
                    let hh = normalize(add(l, v));
                    let k = 0.3 * 1.0f32.min(nl);
                    for (cc, k0) in col.iter_mut().zip(color) {
                        *cc += k0 * k;
                    }
                    let spec = 0.8 * pow50(0.0f32.max(1.0f32.min(dot(np, hh))));
                    for cc in &mut col[..3] {
                        *cc += spec;
                    }
                }
                *slot = col;
                u = normalize(sub(scale(nn, 2.0 * dot(nn, v)), v));
                a = add(p, scale(u, 0.0001));
            }
            for i in (1..n).rev() {
                let next = pile[i];
                for (c, k) in pile[i - 1].iter_mut().zip(next) {
                    *c += 0.8 * k;
                }
            }
            out.push(rgba(pile[0]));
        }
    }
    out
}

/// The `ray_tracing` workload.
pub struct RayTracing {
    width: u32,
    height: u32,
    extra_spheres: u32,
    pas: f32,
    seed: u64,
}

impl RayTracing {
    /// Reads `width` and `height` (default 32, the paper's 32 x 32; at most
    /// 8192), `extra_spheres` (0; at most 12, beyond the original's four
    /// objects), `pas` (0: every object's shift along x, the original's
    /// animation step; |pas| <= 10) and `seed` (1, for the extra spheres).
    /// The launch shape is the kernel's (16 x 8 CTAs covering the image);
    /// the manifest gives none.
    pub fn new(args: &mut Args, launch: Launch) -> Result<RayTracing, WorkloadError> {
        let w = RayTracing {
            width: args.count("width", 32)?,
            height: args.count("height", 32)?,
            extra_spheres: args.u32("extra_spheres", 0)?,
            pas: args.f64("pas", 0.0)? as f32,
            seed: args.u64("seed", 1)?,
        };
        if w.width > MAX_EDGE || w.height > MAX_EDGE {
            return Err(WorkloadError::Args(format!(
                "`width` = {} and `height` = {} must be at most {MAX_EDGE}",
                w.width, w.height
            )));
        }
        if w.extra_spheres as usize > MAX_OBJECTS - SCENE_OBJECTS {
            return Err(WorkloadError::Args(format!(
                "`extra_spheres` = {} must be at most {} (the kernel's scene holds {MAX_OBJECTS} objects)",
                w.extra_spheres,
                MAX_OBJECTS - SCENE_OBJECTS
            )));
        }
        if !(w.pas.is_finite() && w.pas.abs() <= 10.0) {
            return Err(WorkloadError::Args(format!(
                "`pas` = {} must be a number in [-10, 10]",
                w.pas
            )));
        }
        if launch.grid.is_some() || launch.block.is_some() {
            return Err(WorkloadError::Args(
                "ray_tracing uses the kernel's launch shape (16 x 8 CTAs covering the image): remove `grid`/`block`".into(),
            ));
        }
        Ok(w)
    }
}

/// Writes `words` to the module's `__constant__` variable `name`.
fn write_constant(host: &mut dyn Host, name: &str, words: &[u32]) -> Result<(), WorkloadError> {
    let Some((addr, size)) = host.symbol(name) else {
        return Err(WorkloadError::Host(format!(
            "ray_tracing: the module declares no `{name}` (expected kernels/ispass/ray_tracing.ptx)"
        )));
    };
    if size < 4 * words.len() as u64 {
        return Err(WorkloadError::Host(format!(
            "ray_tracing: `{name}` holds {size} bytes, {} needed",
            4 * words.len()
        )));
    }
    overwrite(host, addr, words)
}

impl Workload for RayTracing {
    fn run(&mut self, host: &mut dyn Host) -> Result<Check, WorkloadError> {
        let nodes = scene(self.extra_spheres as usize, self.seed);
        let v = view();
        let mut words = Vec::new();
        for n in &nodes {
            words.extend(
                n.c.iter()
                    .chain([&n.r])
                    .chain(&n.color)
                    .map(|f| f.to_bits()),
            );
            words.extend([n.fg, 0]);
        }
        write_constant(host, "cnode", &words)?;
        let mview: Vec<u32> = v.0.iter().flatten().map(|f| f.to_bits()).collect();
        write_constant(host, "MView", &mview)?;
        let pixels = (self.width * self.height) as usize;
        let dout = upload(host, "result", &vec![0xDEAD_BEEFu32; pixels])?;
        host.launch(
            Some("render"),
            [
                self.width.div_ceil(BLOCK[0]),
                self.height.div_ceil(BLOCK[1]),
                1,
            ],
            BLOCK,
            &[
                ArgValue::U64(dout),
                ArgValue::U32(self.width),
                ArgValue::U32(self.height),
                ArgValue::S32(nodes.len() as i32),
                ArgValue::F32(self.pas),
                ArgValue::F32(v.1),
            ],
        )?;
        let got: Vec<u32> = download(host, dout, pixels)?;
        let want = reference(&nodes, &v, self.width, self.height, self.pas);
        Ok(check::exact("result", &want, &got))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_view_looks_at_the_origin_and_the_image_shows_the_scene() {
        let v = view();
        // The first row (the viewing direction) points from (0, 0.5, 2) to
        // the origin.
        let d = normalize([0.0, -0.5, -2.0]);
        for (got, want) in v.0[0].iter().zip(d) {
            assert!((got - want).abs() < 1e-6);
        }
        assert!((v.1 - 1.569_686).abs() < 1e-5, "{}", v.1);
        // A ray down the axis hits the big sphere at (0, 0, -2) (radius
        // 0.75) at distance |(0, -0.5, -4)| - 0.75.
        let nodes = scene(0, 1);
        let t = hit(
            &nodes[3],
            [0.0, 0.5, 2.0],
            normalize([0.0, -0.5, -4.0]),
            0.0,
        );
        let want = (0.25f32 + 16.0).sqrt() - 0.75;
        assert!((t - want).abs() < 1e-5, "{t} vs {want}");
        // The image: the centre pixel looks along the axis into the green
        // sphere (green above red; blue comes only with the cyan plane, so
        // never above green), some rays miss everything (opaque black), and
        // there are many colours.
        let img = reference(&nodes, &v, 16, 16, 0.0);
        let c = img[8 * 16 + 8];
        let (r, g, b) = (c & 255, (c >> 8) & 255, (c >> 16) & 255);
        assert!(g > r && g >= b, "{c:#x}");
        assert!(img.contains(&0xFF00_0000));
        let mut distinct = img.clone();
        distinct.sort_unstable();
        distinct.dedup();
        assert!(distinct.len() > 10, "{}", distinct.len());
        assert_eq!(rgba([2.0, -1.0, f32::NAN, 0.5]), (127 << 24) | 255);
    }
}
