//! `gpusim export`: the recorded host actions of small workloads are the
//! allocations, writes, launches and final buffers the host programs make.

use std::path::Path;

use gpusim::workload::host::FunctionalOptions;
use gpusim::workload::record::{RecordedEvent, Recording, record_functional};
use gpusim::workload::runner::prepare;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn record(manifest: &str, args: &[(&str, &str)]) -> Recording {
    let p = prepare(&root().join(manifest), None).expect("manifest loads");
    let args: Vec<(String, String)> = args
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let (check, rec) =
        record_functional(&p, &args, FunctionalOptions::default()).expect("workload runs");
    assert!(check.passed(), "{manifest}: {check}");
    rec
}

fn f32s(bytes: &[u8]) -> Vec<f32> {
    bytes
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

#[test]
fn saxpy_records_two_uploads_one_launch_and_the_result() {
    let rec = record("kernels/saxpy.toml", &[]);
    // kernels/saxpy.toml: x and y, 1024 f32 each.
    assert_eq!(rec.allocs.len(), 2);
    assert_eq!(rec.allocs[0].name, "x");
    assert_eq!(rec.allocs[1].name, "y");
    assert!(rec.allocs.iter().all(|a| a.bytes == 4096));
    // Allocation, then its initial bytes, for each buffer, then the launch.
    match &rec.events[..5] {
        [
            RecordedEvent::Alloc(0),
            RecordedEvent::Write {
                alloc: 0,
                offset: 0,
                data: x,
            },
            RecordedEvent::Alloc(1),
            RecordedEvent::Write {
                alloc: 1,
                offset: 0,
                data: y,
            },
            RecordedEvent::Launch {
                kernel,
                grid,
                block,
                shared_bytes,
                params,
                layout,
            },
        ] => {
            let xs = f32s(x);
            assert_eq!(xs.len(), 1024);
            assert!(xs.iter().enumerate().all(|(i, &v)| v == i as f32));
            assert!(f32s(y).iter().all(|&v| v == 1.0));
            assert_eq!(kernel, "saxpy");
            assert_eq!(*grid, [4, 1, 1]);
            assert_eq!(*block, [256, 1, 1]);
            assert_eq!(*shared_bytes, 0);
            // saxpy(float *x, float *y, u32 n, f32 a): two pointers, then
            // n = 1000 and a = 2.0 at offsets 16 and 20.
            assert_eq!(layout.len(), 4);
            assert_eq!(layout[0].pointer, Some((0, 0)));
            assert_eq!(layout[1].pointer, Some((1, 0)));
            assert_eq!(
                (layout[2].offset, layout[2].size, layout[2].pointer),
                (16, 4, None)
            );
            assert_eq!(
                (layout[3].offset, layout[3].size, layout[3].pointer),
                (20, 4, None)
            );
            assert_eq!(&params[16..20], &1000u32.to_le_bytes());
            assert_eq!(&params[20..24], &2.0f32.to_le_bytes());
            assert_eq!(&params[0..8], &rec.allocs[0].addr.to_le_bytes());
            assert_eq!(&params[8..16], &rec.allocs[1].addr.to_le_bytes());
        }
        other => panic!("unexpected events {other:?}"),
    }
    assert_eq!(rec.launches(), 1);
    // Final y = 2x + 1 for the first 1000 elements, untouched after.
    let y = f32s(&rec.finals[1]);
    for (i, &v) in y.iter().enumerate() {
        let want = if i < 1000 { 2.0 * i as f32 + 1.0 } else { 1.0 };
        assert_eq!(v, want, "y[{i}]");
    }
    assert_eq!(rec.finals[0], {
        let mut b = Vec::new();
        for i in 0..1024 {
            b.extend_from_slice(&(i as f32).to_le_bytes());
        }
        b
    });
}

#[test]
fn gaussian_records_rodinias_launch_sequence() {
    let rec = record("kernels/rodinia/gaussian.toml", &[("size", "4")]);
    // Rodinia: for t in 0..n-1 { Fan1(m, a, n, t); Fan2(m, a, b, n, n - t, t) }.
    let launches: Vec<(&str, Vec<u8>)> = rec
        .events
        .iter()
        .filter_map(|e| match e {
            RecordedEvent::Launch { kernel, params, .. } => Some((kernel.as_str(), params.clone())),
            _ => None,
        })
        .collect();
    let names: Vec<&str> = launches.iter().map(|l| l.0).collect();
    assert_eq!(names, ["Fan1", "Fan2", "Fan1", "Fan2", "Fan1", "Fan2"]);
    for (t, pair) in launches.chunks(2).enumerate() {
        // Fan1(float *m, float *a, int size, int t): t at offset 20.
        assert_eq!(&pair[0].1[16..20], &4i32.to_le_bytes());
        assert_eq!(&pair[0].1[20..24], &(t as i32).to_le_bytes());
        // Fan2(m, a, b, size, j1 = size - t, t): t at offset 32.
        assert_eq!(&pair[1].1[32..36], &(t as i32).to_le_bytes());
    }
    // m, a (4 x 4 floats) and b (4 floats).
    let sizes: Vec<u64> = rec.allocs.iter().map(|a| a.bytes).collect();
    assert_eq!(sizes, [64, 64, 16]);

    let (text, files) = rec.render("gaussian.ptx");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "gpusim-trace 1");
    assert_eq!(lines[1], "ptx gaussian.ptx");
    assert_eq!(lines.last(), Some(&"end"));
    let launch_lines: Vec<&&str> = lines.iter().filter(|l| l.starts_with("launch ")).collect();
    assert_eq!(launch_lines.len(), 6);
    // Fan1: one 512-thread CTA; 4 params, the first two pointers to m and a.
    assert!(launch_lines[0].starts_with("launch Fan1 1 1 1 512 1 1 0 4 "));
    let after = lines
        .iter()
        .position(|l| l.starts_with("launch Fan1"))
        .unwrap();
    assert_eq!(lines[after + 1], "param 0 8 ptr 0 0");
    assert_eq!(lines[after + 2], "param 8 8 ptr 1 0");
    assert_eq!(lines[after + 3], "param 16 4 value");
    // Small data is inline; every allocation's final bytes go to a file.
    let finals: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
    for i in 0..3 {
        assert!(finals.contains(&format!("final_{i}.bin").as_str()));
    }
    assert!(text.contains("\nwrite 2 0 16 ="));
}
