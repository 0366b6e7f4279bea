//! Machine configs: the shipped presets (parse, validate, round-trip, match
//! their papers' tables), `--set` overrides, partial files on a base,
//! diagnostics with spans and suggestions, validation, and robustness
//! against garbage input.

use gpusim::config::{
    FieldValue, GpuConfig, PRESETS, fields, load_config, parse_config, preset_text,
};
use gpusim::{Diagnostic, Diagnostics};

fn sets(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

fn preset(name: &str) -> GpuConfig {
    GpuConfig::preset(name).unwrap_or_else(|| panic!("preset {name} does not parse"))
}

/// The only diagnostic of an error, and the text its primary span covers.
fn single(e: &Diagnostics) -> (&Diagnostic, &str) {
    assert_eq!(e.list.len(), 1, "{}", e.render(false));
    let d = &e.list[0];
    let text = d.span().map_or("", |s| &e.file.text[s.range()]);
    (d, text)
}

const KB: u64 = 1024;

fn l1d_bytes(c: &GpuConfig) -> u64 {
    u64::from(c.l1d.sets) * u64::from(c.l1d.ways) * u64::from(c.l1d.line)
}

fn l2_bytes(c: &GpuConfig) -> u64 {
    u64::from(c.l2.slices) * u64::from(c.l2.sets) * u64::from(c.l2.ways) * u64::from(c.l2.line)
}

fn icache_bytes(c: &GpuConfig) -> u64 {
    u64::from(c.icache.sets) * u64::from(c.icache.ways) * u64::from(c.icache.line)
}

#[test]
fn every_preset_parses_validates_and_round_trips() {
    assert_eq!(PRESETS[0], "gtx480");
    for name in PRESETS {
        let c = preset(name);
        if let Err(p) = c.validate() {
            panic!("preset {name} is invalid: {p:?}");
        }
        // Loading by name gives the same config.
        assert_eq!(load_config(name, &[]).unwrap(), c, "{name}");
        // to_toml lists everything and reads back equal, through the loader
        // and through serde (which requires every field).
        let text = c.to_toml();
        assert_eq!(parse_config("out.toml", &text, &[]).unwrap(), c, "{name}");
        assert_eq!(toml::from_str::<GpuConfig>(&text).unwrap(), c, "{name}");
        // The preset file itself is a valid config file.
        let file = preset_text(name).unwrap();
        assert_eq!(parse_config(name, file, &[]).unwrap(), c, "{name}");
    }
    assert!(GpuConfig::preset("gtx580").is_none());
}

#[test]
fn rust_presets_equal_their_toml_files() {
    assert_eq!(GpuConfig::gtx480(), preset("gtx480"));
    assert_eq!(GpuConfig::tiny(), preset("tiny"));
}

#[test]
fn every_field_has_a_one_line_comment() {
    let mut texts: Vec<(String, String)> = PRESETS
        .iter()
        .map(|p| (p.to_string(), preset_text(p).unwrap().to_string()))
        .collect();
    texts.push((
        "to_toml".into(),
        GpuConfig::preset("awg").unwrap().to_toml(),
    ));
    for (name, text) in &texts {
        let mut seen = 0;
        for line in text.lines() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') || line.starts_with('[') {
                continue;
            }
            seen += 1;
            let (_, comment) = line
                .split_once('#')
                .unwrap_or_else(|| panic!("{name}: no comment on `{line}`"));
            assert!(
                comment.trim().len() > 3,
                "{name}: empty comment on `{line}`"
            );
        }
        assert_eq!(seen, fields().count(), "{name} lists every field once");
    }
}

#[test]
fn gtx480_matches_gpgpusim_and_the_fermi_papers() {
    let c = preset("gtx480");
    // BAWS §5, LFWS Table 1, BLWS Table 1; GPGPU-Sim's GTX480 file.
    assert_eq!(c.core.num_sms, 15);
    assert_eq!(c.core.warp_size, 32);
    assert_eq!(c.core.max_threads_per_sm, 1536);
    assert_eq!(c.core.max_warps_per_sm, 48);
    assert_eq!(c.core.max_ctas_per_sm, 8);
    assert_eq!(c.core.registers_per_sm, 32768);
    assert_eq!(u64::from(c.core.shared_mem_per_sm), 48 * KB);
    assert_eq!(c.core.schedulers_per_sm, 2);
    assert_eq!((c.core.sp_units, c.core.sfu_units), (2, 1));
    assert_eq!(l1d_bytes(&c), 16 * KB);
    assert_eq!((c.l1d.sets, c.l1d.ways, c.l1d.line), (32, 4, 128));
    assert_eq!(icache_bytes(&c), 2 * KB);
    assert_eq!(l2_bytes(&c), 768 * KB);
    assert_eq!(c.l2.sets, 64);
    assert_eq!(c.dram.channels, 6);
    assert_eq!(c.l2.slices, 12);
    assert_eq!(c.l2.latency, 120);
    assert_eq!(c.l2.latency + c.dram.latency, 220); // BLWS "Min. DRAM access latency"
    // -gpgpu_clock_domains 700:700:700:924; -gpgpu_dram_timing_opt
    // "nbk=16:CCD=2:RRD=6:RCD=12:RAS=28:RP=12:RC=40:CL=12:WL=4:CDLR=5:WR=12:nbkgrp=4:CCDL=3:RTPL=2".
    let d = &c.dram;
    assert_eq!((c.core.clock_mhz, d.clock_mhz), (700, 924));
    assert_eq!((d.banks, d.bank_groups, d.t_ccd, d.t_rrd), (16, 4, 2, 6));
    assert_eq!((d.t_rcd, d.t_ras, d.t_rp, d.t_rc), (12, 28, 12, 40));
    assert_eq!(
        (d.cl, d.wl, d.t_cdlr, d.t_wr, d.t_ccdl, d.t_rtpl),
        (12, 4, 5, 12, 3, 2)
    );
    // 4-byte bus x 2 chips x burst 8 = 64 B per column command, QDR.
    assert_eq!(d.burst_length * d.bus_width * d.chips, 64);
    assert_eq!(d.data_command_ratio, 4);
    // dramid@8;...0000RRRR.RRRRRRRR.BBBCCCCB.CCSSSSSS
    assert_eq!(d.channel_bit, 8);
    assert_eq!(d.bank_mask, 0b1110_0001_0000_0000);
    assert_eq!(d.row_mask, 0x0FFF_0000);
    assert_eq!(d.col_mask, 0b0001_1110_1111_1111);
    assert_eq!((d.queue, d.return_queue, d.scheduler), (64, 116, 1));
    assert_eq!(c.latency.int, [4, 13, 4, 5, 145]);
    assert_eq!(c.latency.int_initiation, [1, 2, 2, 1, 8]);
    assert_eq!(c.latency.fp32, [4, 13, 4, 5, 39]);
    assert_eq!(c.latency.fp32_initiation, [1, 2, 1, 1, 4]);
    assert_eq!(c.latency.fp64, [8, 19, 8, 8, 330]);
    assert_eq!(c.shared.banks, 32);
    assert_eq!(c.shared.latency, 26);
    assert_eq!(c.l1d.hit_latency, 35);
}

#[test]
fn daws_matches_daws_table_1() {
    let c = preset("daws");
    assert_eq!(c.core.num_sms, 30); // # Compute Units 30
    assert_eq!(c.core.warp_size, 32); // Warp Size 32
    assert_eq!(c.core.max_threads_per_sm, 1024); // Number of Threads / Core 1024
    assert_eq!(c.core.max_warps_per_sm, 32);
    assert_eq!(c.core.registers_per_sm, 16384); // Number of Registers / Core 16384
    assert_eq!(u64::from(c.core.shared_mem_per_sm), 16 * KB); // Shared Memory / Core 16KB
    assert_eq!(c.core.schedulers_per_sm, 1);
    // L1 Data Cache 32KB, 128B line, 8-way assoc.
    assert_eq!(l1d_bytes(&c), 32 * KB);
    assert_eq!((c.l1d.line, c.l1d.ways), (128, 8));
    // Texture Cache Size / Core 32KB, 64B line, 16-way.
    let t = &c.l1t;
    assert_eq!(u64::from(t.sets * t.ways * t.line), 32 * KB);
    assert_eq!((t.line, t.ways), (64, 16));
    // Number of Memory Channels 8; L2 128k/Memory Channel, 128B line, 8-way.
    assert_eq!(c.dram.channels, 8);
    assert_eq!(l2_bytes(&c) / u64::from(c.dram.channels), 128 * KB);
    assert_eq!((c.l2.line, c.l2.ways), (128, 8));
    // DRAM request queue capacity 32.
    assert_eq!(c.dram.queue, 32);
    // Memory Channel BW 8 (Bytes/Cycle) at the 800 MHz memory clock: a
    // column command moves burst × bus width × chips bytes and holds the
    // bus burst / data-command-ratio clocks.
    let d = &c.dram;
    assert_eq!(d.clock_mhz, 800);
    assert_eq!(
        d.burst_length * d.bus_width * d.chips / (d.burst_length / d.data_command_ratio),
        8
    );
    // GDDR3 Memory Timing tCL=10 tRP=10 tRC=35 tRAS=25 tRCD=12 tRRD=8;
    // Memory Controller out of order (FR-FCFS).
    assert_eq!(
        (d.cl, d.t_rp, d.t_rc, d.t_ras, d.t_rcd, d.t_rrd),
        (10, 10, 35, 25, 12, 8)
    );
    assert_eq!(d.scheduler, 1);
    // The 1300 MHz core runs one warp instruction per 4 clocks.
    assert_eq!(c.core.clock_mhz, 1300 / 4);
    // Interconnect Clock 650 MHz = two flits per 325 MHz cycle.
    assert_eq!(c.icnt.flits_per_cycle, 650 / 325);
}

#[test]
fn awg_matches_awg_table_1() {
    let c = preset("awg");
    assert_eq!(c.core.num_sms, 8); // 8 Compute Units
    assert_eq!(c.core.warp_size, 64); // SIMD width 64
    assert_eq!(c.core.schedulers_per_sm, 2); // SIMD units 2
    assert_eq!(c.core.sp_units, 2);
    assert_eq!(c.core.max_warps_per_sm, 20 * 2); // Wavefronts per SIMD 20
    assert_eq!(c.core.max_threads_per_sm, 40 * 64);
    // Memory Hierarchy (64 B block size).
    assert_eq!((c.icache.line, c.l1d.line, c.l2.line), (64, 64, 64));
    // L1 cache / CU 32 KB, 16-way set assoc., 30 cycles.
    assert_eq!(l1d_bytes(&c), 32 * KB);
    assert_eq!((c.l1d.ways, c.l1d.hit_latency), (16, 30));
    // L2 cache shared 512 KB, 16-way set assoc., 50 cycles.
    assert_eq!(l2_bytes(&c), 512 * KB);
    assert_eq!((c.l2.ways, c.l2.latency), (16, 50));
    // 1 Instruction Cache / 4 CUs 32 KB, 8-way set assoc., 4 cycles.
    assert_eq!(icache_bytes(&c), 32 * KB);
    assert_eq!((c.icache.ways, c.icache.hit_latency), (8, 4));
    // Scalar Cache 4 cycles.
    assert_eq!(c.latency.const_load, 4);
    // DRAM DDR3, 4 Channels.
    assert_eq!(c.dram.channels, 4);
}

#[test]
fn tiny_is_small() {
    let c = preset("tiny");
    assert_eq!(c.core.num_sms, 1);
    assert_eq!(c.core.max_warps_per_sm, 16);
    assert_eq!(c.core.schedulers_per_sm, 1);
    assert_eq!(l1d_bytes(&c), 4 * KB);
    assert_eq!(l2_bytes(&c), 64 * KB);
    assert_eq!(c.dram.channels, 1);
}

#[test]
fn set_overrides_scalars_arrays_and_bools() {
    let c = load_config(
        "daws",
        &sets(&[
            ("l1d.ways", "16"),
            ("latency.int", "[4, 13, 4, 5, 150]"),
            ("sim.idle_skip", "false"),
            ("sim.max_cycles", "1_000"),
            (" core.num_sms ", " 0x10 "),
            ("l1d.ways", "4"), // the later one wins
        ]),
    )
    .unwrap();
    let mut want = preset("daws");
    want.l1d.ways = 4;
    want.latency.int = [4, 13, 4, 5, 150];
    want.sim.idle_skip = false;
    want.sim.max_cycles = 1000;
    want.core.num_sms = 16;
    assert_eq!(c, want);
    assert_eq!(
        c.get("latency.int"),
        Some(FieldValue::U32x5([4, 13, 4, 5, 150]))
    );
}

#[test]
fn get_and_set_by_key() {
    let mut c = GpuConfig::gtx480();
    assert_eq!(c.get("l2.slices"), Some(FieldValue::U32(12)));
    assert_eq!(c.get("sim.idle_skip"), Some(FieldValue::Bool(true)));
    assert_eq!(c.get("l2.nope"), None);
    c.set("l1d.mshrs", FieldValue::U32(64)).unwrap();
    assert_eq!(c.l1d.mshrs, 64);
    let e = c.set("l1d.mshrs", FieldValue::Bool(true)).unwrap_err();
    assert!(e.contains("expects an integer"), "{e}");
    assert!(c.set("l1d.bogus", FieldValue::U32(1)).is_err());
    assert_eq!(c.l1d.mshrs, 64);
    for f in fields() {
        assert!(c.get(f.key).is_some(), "{}", f.key);
    }
}

#[test]
fn unknown_set_key_suggests_the_closest() {
    let e = load_config("gtx480", &sets(&[("l1d.ways", "8"), ("l1d.way", "8")])).unwrap_err();
    let (d, text) = single(&e);
    assert_eq!(d.code, "gpusim::config::unknown_key");
    assert_eq!(&*e.file.name, "--set");
    assert_eq!(text, "l1d.way");
    assert!(
        d.help
            .as_deref()
            .unwrap()
            .contains("did you mean `l1d.ways`?")
    );

    for (typo, want) in [
        ("l1.ways", "l1d.ways"),
        ("L1D.WAYS", "l1d.ways"),
        ("l1d.latency", "l1d.hit_latency"),
        ("num_sms", "core.num_sms"),
        ("core.warpsize", "core.warp_size"),
        ("dram.chanels", "dram.channels"),
    ] {
        let e = load_config("gtx480", &sets(&[(typo, "1")])).unwrap_err();
        let (d, text) = single(&e);
        assert_eq!(text, typo);
        let help = d.help.as_deref().unwrap_or("");
        assert!(
            help.contains(&format!("did you mean `{want}`?")),
            "{typo}: {help}"
        );
    }
    // An ambiguous field name lists its sections.
    let e = load_config("gtx480", &sets(&[("ways", "1")])).unwrap_err();
    let help = single(&e).0.help.clone().unwrap();
    assert!(
        help.contains("`l1d.ways`") && help.contains("`l2.ways`"),
        "{help}"
    );
}

#[test]
fn unknown_file_keys_and_sections_have_spans_and_suggestions() {
    let text = "[l1d]\nways = 8\nwasy = 4\n\n[l1]\nsets = 2\n";
    let e = parse_config("my.toml", text, &[]).unwrap_err();
    assert_eq!(e.list.len(), 2, "{}", e.render(false));
    let d = &e.list[0];
    assert_eq!(d.code, "gpusim::config::unknown_key");
    assert_eq!(&text[d.span().unwrap().range()], "wasy");
    assert!(
        d.help
            .as_deref()
            .unwrap()
            .contains("did you mean `l1d.ways`?")
    );
    let d = &e.list[1];
    assert_eq!(d.code, "gpusim::config::unknown_section");
    assert_eq!(&text[d.span().unwrap().range()], "l1");
    assert!(d.help.as_deref().unwrap().contains("did you mean `[l1d]`?"));
    // The rendering names the file and the line.
    let r = e.render(false);
    assert!(r.contains("my.toml:3:1"), "{r}");

    // A field outside its section.
    let text = "num_sms = 4\n";
    let e = parse_config("my.toml", text, &[]).unwrap_err();
    let (d, span) = single(&e);
    assert_eq!(span, "num_sms");
    assert!(d.help.as_deref().unwrap().contains("`core.num_sms`"));
}

#[test]
fn wrong_types_point_at_the_value() {
    let cases: &[(&str, &str, &str)] = &[
        (
            "[l1d]\nways = \"8\"\n",
            "\"8\"",
            "gpusim::config::wrong_type",
        ),
        ("[sim]\nidle_skip = 1\n", "1", "gpusim::config::wrong_type"),
        (
            "[core]\nnum_sms = 1.5\n",
            "1.5",
            "gpusim::config::wrong_type",
        ),
        (
            "[core]\nnum_sms = -1\n",
            "-1",
            "gpusim::config::out_of_range",
        ),
        (
            "[core]\nnum_sms = 4294967296\n",
            "4294967296",
            "gpusim::config::out_of_range",
        ),
        (
            "[latency]\nint = [1, 2, 3]\n",
            "[1, 2, 3]",
            "gpusim::config::wrong_type",
        ),
        (
            "[latency]\nint = [1, 2, true, 4, 5]\n",
            "true",
            "gpusim::config::wrong_type",
        ),
        ("[latency]\nint = 4\n", "4", "gpusim::config::wrong_type"),
        ("core = 4\n", "4", "gpusim::config::wrong_type"),
        ("base = 4\n", "4", "gpusim::config::wrong_type"),
        (
            "base = \"gtx48\"\n",
            "\"gtx48\"",
            "gpusim::config::unknown_preset",
        ),
        ("[l1d]\nways = \n", "", "gpusim::config::syntax"),
    ];
    for (text, span, code) in cases {
        let e = parse_config("t.toml", text, &[]).unwrap_err();
        let (d, got) = single(&e);
        assert_eq!(d.code, *code, "{text}");
        if !span.is_empty() {
            assert_eq!(got, *span, "{text}");
        }
    }
    let e = parse_config("t.toml", "[l1d]\nways = \"8\"\n", &[]).unwrap_err();
    assert!(
        single(&e)
            .0
            .help
            .as_deref()
            .unwrap()
            .contains("remove the quotes")
    );

    // The same through --set, with spans in the --set text.
    for (k, v, code) in [
        ("sim.idle_skip", "1", "gpusim::config::wrong_type"),
        ("sim.idle_skip", "False", "gpusim::config::wrong_type"),
        ("l1d.ways", "eight", "gpusim::config::wrong_type"),
        ("l1d.ways", "-3", "gpusim::config::out_of_range"),
        ("latency.int", "[1,2,3,4]", "gpusim::config::wrong_type"),
        ("l1d.ways", "", "gpusim::config::wrong_type"),
    ] {
        let e = load_config("gtx480", &sets(&[("core.num_sms", "2"), (k, v)])).unwrap_err();
        let (d, got) = single(&e);
        assert_eq!(d.code, code, "{k}={v}");
        assert_eq!(got, v, "{k}={v}");
        assert_eq!(e.file.line_of(d.span().unwrap().start), 2);
    }
}

#[test]
fn validation_catches_nonsense() {
    let check = |list: &[(&str, &str)], key: &str, words: &str| {
        let e = load_config("gtx480", &sets(list)).unwrap_err();
        let d = e
            .list
            .iter()
            .find(|d| d.message.contains(key))
            .unwrap_or_else(|| panic!("no problem about {key}: {}", e.render(false)));
        assert_eq!(d.code, "gpusim::config::invalid");
        assert!(d.message.contains(words), "{}", d.message);
        assert!(d.span().is_some(), "{key} has no span");
    };
    check(&[("core.warp_size", "65")], "core.warp_size", "at most 64");
    // 128 banks with a well-formed 7-bit mask: a channel's bank masks are
    // 64 bits wide, so this must be refused (it used to run forever).
    check(
        &[
            ("dram.banks", "128"),
            ("dram.bank_mask", "0x70E100"),
            ("dram.row_mask", "0xFF000000"),
        ],
        "dram.banks",
        "exceeds its limit of 64",
    );
    check(
        &[("core.warp_size", "0")],
        "core.warp_size",
        "must not be 0",
    );
    check(&[("l1d.sets", "0")], "l1d.sets", "must not be 0");
    // A one-entry miss queue could never take a read miss (two entries).
    check(
        &[("l2.miss_queue", "1")],
        "l2.miss_queue",
        "no room for a read miss",
    );
    check(
        &[("l1d.miss_queue", "1")],
        "l1d.miss_queue",
        "no room for a read miss",
    );
    check(&[("l1d.line", "96")], "l1d.line", "power of two");
    check(&[("l2.sets", "48")], "l2.sets", "power of two");
    check(&[("icache.line", "4")], "icache.line", "one instruction");
    // The read-only caches, when turned on, need a whole geometry.
    check(
        &[("l1t.fifo", "0")],
        "l1t.fifo",
        "turns the texture cache on",
    );
    check(&[("l1t.sets", "3")], "l1t.sets", "power of two");
    check(
        &[("l1c.mshrs", "0")],
        "l1c.mshrs",
        "turns the constant cache on",
    );
    check(
        &[("l1c.line", "256")],
        "l1c.line",
        "a miss must be one L2 request",
    );
    check(&[("l1c.line", "48")], "l1c.line", "power of two");
    check(
        &[("dram.channels", "5")],
        "l2.slices",
        "multiple of `dram.channels`",
    );
    check(
        &[("core.max_warps_per_sm", "16")],
        "max_threads_per_sm",
        "cannot be reached",
    );
    check(
        &[("latency.int", "[4, 13, 0, 5, 145]")],
        "latency.int",
        "mul",
    );
    check(
        &[("core.schedulers_per_sm", "64")],
        "schedulers_per_sm",
        "no warps",
    );
    check(
        &[("core.registers_per_sm", "256")],
        "registers_per_sm",
        "one warp",
    );
    check(&[("l1d.line", "256")], "l1d.line", "larger than `l2.line`");
    check(
        &[("shared.bank_width", "3")],
        "shared.bank_width",
        "power of two",
    );
    check(
        &[("sim.max_cycles", "0")],
        "sim.max_cycles",
        "must not be 0",
    );

    // Zero shared memory and an instant barrier are fine.
    load_config(
        "gtx480",
        &sets(&[
            ("core.shared_mem_per_sm", "0"),
            ("core.barrier_latency", "0"),
        ]),
    )
    .unwrap();

    // validate() itself names the keys.
    let mut c = GpuConfig::gtx480();
    c.dram.channels = 5;
    c.l1d.ways = 0;
    let p = c.validate().unwrap_err();
    assert_eq!(p.len(), 2);
    assert!(p.iter().any(|p| p.keys == ["l2.slices", "dram.channels"]));
    assert!(p.iter().any(|p| p.keys == ["l1d.ways"]));

    // A problem between a file value and a preset value points into the
    // file and names the preset's value.
    let e = parse_config("m.toml", "[dram]\nchannels = 5\n", &[]).unwrap_err();
    let (d, text) = single(&e);
    assert_eq!(text, "channels = 5");
    assert!(
        d.help
            .as_deref()
            .unwrap()
            .contains("`l2.slices` = 12 (preset gtx480)")
    );
}

#[test]
fn partial_files_start_from_their_base() {
    let c = parse_config("p.toml", "base = \"awg\"\n[l1d]\nways = 8\n", &[]).unwrap();
    let mut want = preset("awg");
    want.l1d.ways = 8;
    assert_eq!(c, want);

    // No base: gtx480. Inline and dotted tables work too.
    let c = parse_config(
        "p.toml",
        "l2.latency = 200\ndram = { latency = 300 }\n[sim]\nidle_skip = false\n",
        &[],
    )
    .unwrap();
    let mut want = GpuConfig::gtx480();
    want.l2.latency = 200;
    want.dram.latency = 300;
    want.sim.idle_skip = false;
    assert_eq!(c, want);

    // An empty file is its base; --set applies after the file.
    assert_eq!(
        parse_config("e.toml", "", &[]).unwrap(),
        GpuConfig::gtx480()
    );
    let c = parse_config(
        "p.toml",
        "base = \"tiny\"\n[l1d]\nways = 8\n",
        &sets(&[("l1d.ways", "2")]),
    )
    .unwrap();
    assert_eq!(c.l1d.ways, 2);
    assert_eq!(c.core.num_sms, 1);

    // A file that is invalid alone can be fixed by --set.
    let text = "[core]\nmax_warps_per_sm = 16\n";
    assert!(parse_config("p.toml", text, &[]).is_err());
    let c = parse_config("p.toml", text, &sets(&[("core.max_threads_per_sm", "512")])).unwrap();
    assert_eq!(c.core.max_warps_per_sm, 16);
}

#[test]
fn files_are_read_from_disk() {
    let dir = std::env::temp_dir().join(format!("gpusim-config-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("m.toml");
    std::fs::write(&path, "base = \"daws\"\n[core]\nnum_sms = 4\n").unwrap();
    let c = load_config(path.to_str().unwrap(), &[]).unwrap();
    assert_eq!(c.core.num_sms, 4);
    assert_eq!(c.l1d.ways, 8);
    let missing = dir.join("missing.toml");
    let e = load_config(missing.to_str().unwrap(), &[]).unwrap_err();
    assert_eq!(single(&e).0.code, "gpusim::io::read");
    std::fs::remove_dir_all(&dir).unwrap();

    let e = load_config("gtx48", &[]).unwrap_err();
    let (d, _) = single(&e);
    assert_eq!(d.code, "gpusim::config::unknown_preset");
    assert!(d.help.as_deref().unwrap().contains("`gtx480`"));
}

/// A deterministic pseudo-random generator (xorshift).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

fn mutate(rng: &mut Rng, s: &str) -> String {
    const PIECES: &[&str] = &[
        "[",
        "]",
        "=",
        "\"",
        ".",
        "#",
        "\n",
        "0",
        "7",
        "-",
        "_",
        "{",
        "}",
        ",",
        " ",
        "x",
        "l1d",
        "ways",
        "[core]",
        "base = \"tiny\"",
        "1e9",
        "inf",
        "99999999999999999999",
        "é",
        "\u{0}",
        "'''",
        "true",
        "[[a]]",
    ];
    let mut chars: Vec<char> = s.chars().collect();
    for _ in 0..1 + rng.below(4) {
        let at = rng.below(chars.len() + 1);
        match rng.below(4) {
            0 if !chars.is_empty() => {
                let end = (at + 1 + rng.below(8)).min(chars.len());
                chars.drain(at.min(end)..end);
            }
            1 => {
                let piece = PIECES[rng.below(PIECES.len())];
                chars.splice(at..at, piece.chars());
            }
            2 if !chars.is_empty() => {
                let at = at.min(chars.len() - 1);
                chars[at] = PIECES[rng.below(PIECES.len())]
                    .chars()
                    .next()
                    .unwrap_or('x');
            }
            _ => {
                let end = (at + rng.below(16)).min(chars.len());
                let copy: Vec<char> = chars[at..end].to_vec();
                let to = rng.below(chars.len() + 1);
                chars.splice(to..to, copy);
            }
        }
    }
    chars.into_iter().collect()
}

#[test]
fn garbage_never_panics() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let seeds: Vec<String> = PRESETS
        .iter()
        .map(|p| preset_text(p).unwrap().to_string())
        .chain([
            "base = \"awg\"\n[l1d]\nways = 8\n".to_string(),
            "[latency]\nint = [1, 2, 3, 4, 5]\n".to_string(),
            String::new(),
        ])
        .collect();
    for i in 0..10_000 {
        let seed = &seeds[i % seeds.len()];
        let text = mutate(&mut rng, seed);
        let set_key = mutate(&mut rng, "l1d.ways");
        let set_value = mutate(&mut rng, "[4, 13, 4, 5, 145]");
        let r = parse_config("fuzz.toml", &text, &sets(&[(&set_key, &set_value)]));
        if let Err(e) = r {
            assert!(!e.list.is_empty());
            // Rendering never panics either (spans stay inside the text).
            let _ = e.render(false);
        }
    }
}

#[test]
fn cli_prints_configs_and_reports_errors() {
    let run = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_gpusim"))
            .args(args)
            .output()
            .expect("run gpusim");
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, out, err) = run(&["config"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(parse_config("out", &out, &[]).unwrap(), GpuConfig::gtx480());

    let (code, out, _) = run(&[
        "config",
        "awg",
        "--set",
        "l1d.ways=8",
        "--set",
        "sim.idle_skip=false",
    ]);
    assert_eq!(code, 0);
    let c = parse_config("out", &out, &[]).unwrap();
    assert_eq!(
        (c.core.warp_size, c.l1d.ways, c.sim.idle_skip),
        (64, 8, false)
    );

    let (code, out, err) = run(&["config", "--set", "l1d.wayz=8"]);
    assert_eq!(code, 2);
    assert!(out.is_empty());
    assert!(err.contains("gpusim::config::unknown_key"), "{err}");
    assert!(err.contains("did you mean `l1d.ways`?"), "{err}");

    let (code, _, err) = run(&["config", "nope"]);
    assert_eq!(code, 2);
    assert!(err.contains("gpusim::config::unknown_preset"), "{err}");
}

#[test]
fn readme_documents_every_field() {
    let readme = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/docs/configuration.md"
    ))
    .unwrap();
    let start = readme
        .find("<!-- config:begin -->")
        .expect("docs/configuration.md has the config table");
    let end = readme.find("<!-- config:end -->").expect("end marker");
    let section = &readme[start..end];
    let g = GpuConfig::gtx480();
    for f in fields() {
        let value = g.get(f.key).unwrap().to_string();
        let row = format!("| `{}` |", f.key);
        let line = section
            .lines()
            .find(|l| l.starts_with(&row))
            .unwrap_or_else(|| panic!("README table lacks `{}`", f.key));
        assert!(
            line.contains(&format!("`{value}`")),
            "README row for {} lacks the gtx480 value {value}: {line}",
            f.key
        );
    }
}

#[test]
fn baws_is_the_gtx480_machine_of_the_baws_paper() {
    let c = preset("baws");
    // BAWS §5: 15 SMs, 32-thread warps, 32768 registers and 1536 threads
    // per SM, a 16 KB L1D and a 2 KB I-cache, 2 SP units and 1 SFU, two
    // schedulers; GPGPU-Sim's 2-entry I-buffer (§6.4).
    assert_eq!(c.core.num_sms, 15);
    assert_eq!(c.core.warp_size, 32);
    assert_eq!(c.core.registers_per_sm, 32768);
    assert_eq!(c.core.max_threads_per_sm, 1536);
    assert_eq!(
        u64::from(c.l1d.sets) * u64::from(c.l1d.ways) * u64::from(c.l1d.line),
        16 * 1024
    );
    assert_eq!(icache_bytes(&c), 2 * 1024);
    assert_eq!((c.core.sp_units, c.core.sfu_units), (2, 1));
    assert_eq!(c.core.schedulers_per_sm, 2);
    assert_eq!(c.core.ibuffer_entries, 2);
    // The paper names nothing else: every other value is gtx480's, but
    // for what its GPGPU-Sim (3.2.2) does not have: the schedulers' turns
    // at the shared ports, the Fermi write transactions and the
    // lazy-fetch-on-read L2 (all three came on the way to 4.0).
    assert!(!c.core.rotate_sched_priority);
    assert!(!c.l1d.store_transactions);
    assert!(!c.l2.partial_write_miss);
    let mut gtx480 = preset("gtx480");
    gtx480.core.rotate_sched_priority = false;
    gtx480.l1d.store_transactions = false;
    gtx480.l2.partial_write_miss = false;
    assert_eq!(c, gtx480);
}
