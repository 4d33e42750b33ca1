#!/usr/bin/env python3
"""Scores a shapes-tiny pair through lookd itself (the real engine on the GGUF pair): stills drawn
here from generators the training never used (other seeds, other sizes), asked as a user asks.
research/shapes-tiny/score runs it (lookd eval on examples/shapes.mp4 scores a clip).

- yes/no: `lookd watch --source FOLDER` (a photo folder, the next still every frame, constrained
  answers) with the twenty phrases of the world split over three rules files: every still is asked
  about every phrase; accuracy over all answers, and recall of the things that are there;
- boxes: `lookd ask STILL "Detect <thing> in the picture and output its bounding box."` for a thing
  of each still; IoU with the truth (median, and the share at 0.5 or more).

Usage: python -m shapes_tiny.score LOOKD OUT_DIR --model MODEL.gguf --mmproj MMPROJ.gguf [--stills N] [--seed N]
                            [--vision-weights q8_0|f16]
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time

import numpy as np

from . import world as W

PHRASES = [f"a {c} {s}" for c in W.COLOURS for s in W.SHAPES]


def lookd(binary, args):
    return subprocess.run([binary] + args, capture_output=True, text=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("lookd")
    ap.add_argument("out")
    ap.add_argument("--stills", type=int, default=200)
    ap.add_argument("--seed", type=int, default=777)
    ap.add_argument("--model", required=True)
    ap.add_argument("--mmproj", required=True)
    ap.add_argument("--vision-weights", default="q8_0", help="the tower lookd runs (q8_0, its default, or f16)")
    a = ap.parse_args()
    model = ["--model", a.model, "--mmproj", a.mmproj, "--vision-weights", a.vision_weights]
    os.makedirs(a.out, exist_ok=True)
    rng = np.random.default_rng(a.seed)
    stills = os.path.join(a.out, "stills")
    os.makedirs(stills, exist_ok=True)
    scenes = []
    for i in range(a.stills):
        # Other layouts: frames, and photos of other shapes lookd slices; things up to the edges.
        size = W.FRAME if rng.random() < 0.7 else [(640, 360), (512, 512), (720, 480), (1024, 768)][rng.integers(4)]
        scene = W.random_scene(rng, size, edges=rng.random() < 0.3)
        W.render(scene).save(os.path.join(stills, f"{i:05d}.png"))
        scenes.append(scene)
    # yes/no through the watch: three runs, every still asked about every phrase
    right = total = yes_right = yes_total = 0
    for part in range(3):
        phrases = PHRASES[part::3]
        rules = os.path.join(a.out, f"rules-{part}.yaml")
        with open(rules, "w") as f:
            f.write("rules:\n" + "".join(f"  - when: {p}\n    log: true\n" for p in phrases))
        log = os.path.join(a.out, f"events-{part}.jsonl")
        if os.path.exists(log):
            os.unlink(log)
        # A photo folder goes round and round: the watch is stopped (SIGTERM) once every still is answered.
        p = subprocess.Popen([a.lookd, "watch", "--source", stills, "--rules", rules, "--photo-seconds", "0", "--log", log,
                              "--record", a.out, "--no-sound", "--gate", "off", "--cooldown", "0"] + model,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        frames = []
        while p.poll() is None and len(frames) < len(scenes):
            time.sleep(0.5)
            frames = [f for f in events(log) if f.get("event") == "watch"]
        if p.poll() is None:
            p.terminate()
        err = p.communicate()[1]
        if len(frames) < len(scenes):
            print(err[-2000:], file=sys.stderr)
        for frame in frames[:len(scenes)]:
            i = int(frame["label"].split(".")[0])
            for p, ans in zip(phrases, frame["answers"]):
                truth = scenes[i].present(p)
                right += (ans == "yes") == truth
                total += 1
                if truth:
                    yes_total += 1
                    yes_right += ans == "yes"
        print(f"score: yes/no run {part + 1} of 3: {len(frames)} stills answered", file=sys.stderr)
    # boxes through ask
    ious = []
    for i, scene in enumerate(scenes):
        if not scene.things:
            continue
        thing = scene.things[rng.integers(len(scene.things))]
        r = lookd(a.lookd, ["ask", os.path.join(stills, f"{i:05d}.png"), W.box_question(thing.phrase)] + model)
        nums = [float(x) for x in re.findall(r"\d+", r.stdout)[:4]]
        truth = W.per_mille(scene, W.visible_box(scene, thing))
        if len(nums) == 4:
            x1, y1, x2, y2 = nums
            ious.append(W.iou((min(x1, x2), min(y1, y2), max(x1, x2), max(y1, y2)), truth))
        else:
            ious.append(0.0)
    ious.sort()
    figures = {
        "stills": len(scenes), "yes_no_accuracy": right / max(total, 1), "yes_recall": yes_right / max(yes_total, 1),
        "answers": total, "box_iou_median": ious[len(ious) // 2] if ious else None,
        "box_iou_at_least_0.5": sum(x >= 0.5 for x in ious) / max(len(ious), 1), "boxes": len(ious),
    }
    print(json.dumps(figures, indent=1))


def events(path):
    """The event log's whole lines (the last may be half written while lookd runs)."""
    out = []
    if os.path.exists(path):
        for line in open(path):
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError:
                pass
    return out


if __name__ == "__main__":
    main()
