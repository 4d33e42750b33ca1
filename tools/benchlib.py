"""What the bench scripts share (tools/bench, tools/bench-builds, tools/bench-place, and the training
steps' benches): the watch's question for a rules file, as lookd itself makes it (`lookd check
--json`), interleaved timing of two ways of one step, and the report's numbers."""
import json
import statistics
import subprocess
import sys


def watch_prompt(lookd, rules):
    """The numbered question each frame of a watch with `rules` gets."""
    out = subprocess.run([lookd, "check", rules, "--json"], capture_output=True, text=True, check=True).stdout
    return json.loads(out)["prompt"]


# The instruction sets lookd's kernels and ggml's choose by: every figure is of one kind of CPU.
ISA = ["avx2", "fma", "f16c", "avx_vnni", "avx512f", "avx512bw", "avx512vl", "avx512_vnni", "avx512_bf16", "amx_int8"]


def cpu_line(path="/proc/cpuinfo"):
    """`CPU: AMD EPYC, 2 cores; has avx2 fma f16c avx512f …; lacks avx_vnni amx_int8`, for the
    head of every bench's report (a figure without its CPU kind cannot be compared)."""
    try:
        text = open(path).read()
    except OSError:
        return "CPU: unknown (no /proc/cpuinfo)"
    model = next((l.split(":", 1)[1].strip() for l in text.splitlines() if l.startswith("model name")), "unknown")
    flags = set(next((l.split(":", 1)[1].split() for l in text.splitlines() if l.startswith("flags")), []))
    cores = sum(1 for l in text.splitlines() if l.startswith("processor"))
    has = [f for f in ISA if f in flags]
    lacks = [f for f in ISA if f not in flags]
    return f"CPU: {model}, {cores} cores; has {' '.join(has) or 'none of them'}; lacks {' '.join(lacks) or 'none'}"


def median(values):
    return statistics.median(values) if values else float("nan")


def interleaved(steps, timed, rounds: int):
    """Times `timed(way, data)` (it returns seconds) both ways, False (the peer) and True (the
    change), on each `(kind, data)` of `steps`, every round, the two swapping order each round (the
    machine is shared and noisy) → {(way, kind): the median seconds}, and {kind: the runs of each
    way}."""
    times = {}
    for r in range(rounds):
        for kind, data in steps:
            for way in ((False, True) if r % 2 == 0 else (True, False)):
                times.setdefault((way, kind), []).append(timed(way, data))
        print(f"bench: round {r + 1} of {rounds}", file=sys.stderr)
    return {key: median(v) for key, v in times.items()}, {kind: len(v) for (way, kind), v in times.items() if way}


def print_ratios(medians, runs, names, mix):
    """Each kind's medians and the change's ratio to the peer, then the same for the stage's average
    step. `names`: (the peer's, the change's, the ratio's label); `mix`: {kind: its steps in the
    stage's average step}."""
    peer, change, ratio = names
    for kind in mix:
        a, b = medians[(False, kind)], medians[(True, kind)]
        print(f"{kind} step: {peer} {a:.3f} s, {change} {b:.3f} s, {ratio} {b / a:.3f} ({runs[kind]} each)")
    steps = sum(mix.values())
    a = sum(n * medians[(False, kind)] for kind, n in mix.items()) / steps
    b = sum(n * medians[(True, kind)] for kind, n in mix.items()) / steps
    said = ", ".join(f"{n} {kind} step{'s' if n > 1 else ''}" for kind, n in mix.items())
    print(f"a step on average ({said}): {peer} {a:.3f} s, {change} {b:.3f} s, {ratio} {b / a:.3f}")
