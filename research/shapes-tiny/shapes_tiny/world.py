#!/usr/bin/env python3
"""The shapes world: scenes of 0-4 coloured shapes on a background, drawn deterministically from a
seed, with their truth (each thing's phrase and box) and the questions lookd asks about them with
their right answers. research/shapes-tiny/train trains lookd's `shapes-tiny` model on it and measures it;
`tools/shapes-world` writes stills and clips of it (the example clip, held-out sets).

Things: a ball, a square, a triangle, a star; red, green, blue, yellow or white; 5-40 % of the frame's
shorter side; overlapping at most a little. Backgrounds: plain, gradient, noise, stripes or bars.
A scene never holds two things of one colour and shape, so "a red ball" names one thing.
"""
import math
import sys
from dataclasses import dataclass, field

import numpy as np
from PIL import Image, ImageDraw

SHAPES = ["ball", "square", "triangle", "star"]
COLOURS = {"red": (220, 30, 30), "green": (30, 170, 50), "blue": (40, 70, 230), "yellow": (240, 210, 30),
           "white": (245, 245, 245)}
BACKGROUNDS = ["plain", "gradient", "noise", "stripes", "bars"]
BACKGROUND_WORDS = {"plain": "a plain", "gradient": "a gradient", "noise": "a noisy", "stripes": "a striped",
                    "bars": "a barred"}
# Background tones: muted, darker than the things, so every colour stands out on every background.
TONES = [(70, 70, 80), (40, 50, 70), (90, 60, 50), (60, 80, 60), (80, 60, 90), (30, 30, 30), (110, 100, 90),
         (50, 90, 100)]
FRAME = (448, 252)
PHOTO_SIZES = [(448, 448), (640, 480), (480, 640), (800, 600), (1024, 576), (1344, 672)]
NUMBER_WORDS = ["No", "One", "Two", "Three", "Four"]

INSTRUCTION = "Answer each question with Yes or No, each answer on its own numbered line."


@dataclass
class Thing:
    colour: str
    shape: str
    box: tuple  # (x1, y1, x2, y2) in pixels
    angle: float = 0.0

    @property
    def phrase(self) -> str:
        return f"a {self.colour} {self.shape}"


@dataclass
class Scene:
    size: tuple
    background: str
    tones: tuple
    things: list = field(default_factory=list)
    texture_seed: int = 0

    def present(self, phrase: str) -> bool:
        return any(matches(t, phrase) for t in self.things)

    def find(self, phrase: str):
        return next((t for t in self.things if matches(t, phrase)), None)


def matches(thing: Thing, phrase: str) -> bool:
    """`a red ball` names that thing; `a ball` names any ball."""
    words = phrase.split()[1:]
    if len(words) == 1:
        return words[0] == thing.shape
    return words == [thing.colour, thing.shape]


IN_VIEW = 0.5  # the share of a thing's box in the frame from which a clip counts it there


def in_view(box, size) -> float:
    """The share of `box`'s area inside a frame of `size`."""
    w, h = size
    inside = max(0, min(box[2], w) - max(box[0], 0)) * max(0, min(box[3], h) - max(box[1], 0))
    return inside / ((box[2] - box[0]) * (box[3] - box[1]))


def overlap(a, b) -> float:
    """The share of the smaller box that the other covers."""
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    if w <= 0 or h <= 0:
        return 0.0
    small = min((a[2] - a[0]) * (a[3] - a[1]), (b[2] - b[0]) * (b[3] - b[1]))
    return w * h / small


def random_scene(rng: np.random.Generator, size=FRAME, count=None, edges=False, least=None) -> Scene:
    """0-4 things; with `edges`, things may stand partly out of the frame, as they do in a clip when
    they come in or leave: at least 70 % of their side in view along each axis, or, with `least`, at
    least that share of their box in view (as `clip_scene` counts a thing in a clip: IN_VIEW)."""
    w, h = size
    scene = Scene(size=size, background=BACKGROUNDS[rng.integers(len(BACKGROUNDS))],
                  tones=tuple(TONES[i] for i in rng.choice(len(TONES), 2, replace=False)),
                  texture_seed=int(rng.integers(1 << 30)))
    n = int(rng.integers(0, 5)) if count is None else count
    kinds = [(c, s) for c in COLOURS for s in SHAPES]
    for _ in range(n):
        for _attempt in range(30):
            colour, shape = kinds[rng.integers(len(kinds))]
            if any(t.colour == colour and t.shape == shape for t in scene.things):
                continue
            side = rng.uniform(0.05, 0.40) * min(w, h)
            out = ((1 - least) if least else 0.3) * side if edges else 0.0
            x = rng.uniform(-out, w - side + out)
            y = rng.uniform(-out, h - side + out)
            box = (x, y, x + side, y + side)
            if least and in_view(box, size) < least:
                continue
            if all(overlap(box, t.box) < 0.25 for t in scene.things):
                scene.things.append(Thing(colour, shape, box, angle=float(rng.uniform(-0.3, 0.3))))
                break
    return scene


def background(scene: Scene) -> np.ndarray:
    w, h = scene.size
    rng = np.random.default_rng(scene.texture_seed)
    a, b = (np.array(t, dtype=np.float32) for t in scene.tones)
    if scene.background == "plain":
        img = np.broadcast_to(a, (h, w, 3)).copy()
    elif scene.background == "gradient":
        t = np.linspace(0, 1, w if rng.random() < 0.5 else h, dtype=np.float32)
        t = t[None, :, None] if t.shape[0] == w else t[:, None, None]
        img = np.broadcast_to(a * (1 - t) + b * t, (h, w, 3)).copy()
    elif scene.background == "noise":
        img = a + rng.normal(0, 18, (h, w, 3)).astype(np.float32)
    else:
        period = int(rng.integers(8, 40)) if scene.background == "stripes" else int(rng.integers(40, 110))
        horizontal = rng.random() < 0.5
        idx = (np.arange(h)[:, None] if horizontal else np.arange(w)[None, :]) // max(1, period // 2) % 2
        idx = np.broadcast_to(idx, (h, w))
        img = np.where(idx[..., None] == 0, a, b).astype(np.float32)
    return np.clip(img, 0, 255).astype(np.uint8)


def polygon(thing: Thing):
    x1, y1, x2, y2 = thing.box
    cx, cy, r = (x1 + x2) / 2, (y1 + y2) / 2, (x2 - x1) / 2
    if thing.shape == "triangle":
        pts = [(cx, y1), (x2, y2), (x1, y2)]
        return pts
    if thing.shape == "star":
        pts = []
        for k in range(10):
            rad = r if k % 2 == 0 else r * 0.45
            a = -math.pi / 2 + k * math.pi / 5 + thing.angle
            pts.append((cx + rad * math.cos(a), cy + rad * math.sin(a)))
        return pts
    return None


def tight_box(thing: Thing):
    """The box of what is drawn (a star's points reach less far than its square)."""
    pts = polygon(thing)
    if pts is None:
        return thing.box
    xs, ys = [p[0] for p in pts], [p[1] for p in pts]
    return (min(xs), min(ys), max(xs), max(ys))


def draw_things(img: Image.Image, scene: Scene, fill) -> Image.Image:
    """Draws the scene's things on `img` in order, each in `fill(thing)`."""
    draw = ImageDraw.Draw(img)
    for t in scene.things:
        if t.shape == "ball":
            draw.ellipse(t.box, fill=fill(t))
        elif t.shape == "square":
            draw.rectangle(t.box, fill=fill(t))
        else:
            draw.polygon(polygon(t), fill=fill(t))
    return img


def render(scene: Scene) -> Image.Image:
    return draw_things(Image.fromarray(background(scene)), scene, lambda t: COLOURS[t.colour])


KINDS = [(c, s) for c in COLOURS for s in SHAPES]


def label_map(scene: Scene) -> np.ndarray:
    """Each pixel's thing as a class (1 + its index in KINDS; 0: the background), drawn as `render` draws."""
    img = draw_things(Image.new("L", scene.size, 0), scene, lambda t: 1 + KINDS.index((t.colour, t.shape)))
    return np.asarray(img)


def cell_labels(scene: Scene, rows: int, cols: int, least: float = 0.15) -> list:
    """The class that covers most of each of `rows` x `cols` cells (row by row), when it covers at
    least `least` of the cell; else 0."""
    labels = label_map(scene)
    h, w = labels.shape
    out = []
    for r in range(rows):
        for c in range(cols):
            cell = labels[r * h // rows:(r + 1) * h // rows, c * w // cols:(c + 1) * w // cols]
            counts = np.bincount(cell.ravel(), minlength=len(KINDS) + 1)
            counts[0] = 0
            k = int(counts.argmax())
            out.append(k if counts[k] >= least * cell.size else 0)
    # A thing too small to cover `least` of any cell still names the cell that holds most of it, so
    # that no thing in the picture goes without a cell of its own.
    for k in set(np.unique(labels)) - set(out) - {0}:
        held = [int((labels[r * h // rows:(r + 1) * h // rows, c * w // cols:(c + 1) * w // cols] == k).sum())
                for r in range(rows) for c in range(cols)]
        best = int(np.argmax(held))
        if out[best] == 0:
            out[best] = int(k)
    return out


def truth(scene: Scene) -> list:
    return [{"phrase": t.phrase, "box": [round(v, 1) for v in visible_box(scene, t)]} for t in scene.things]


# --- the questions lookd asks, as lookd words them (Sources/Rules, Sources/Grounding) ---------------

def watch_prompt(phrases) -> str:
    return "\n".join([INSTRUCTION] + [f"{i + 1}. Is there {p}?" for i, p in enumerate(phrases)])


def watch_answer(scene: Scene, phrases) -> str:
    return "\n".join(f"{i + 1}. {'Yes' if scene.present(p) else 'No'}" for i, p in enumerate(phrases))


def box_question(phrase: str) -> str:
    return f"Detect {phrase} in the picture and output its bounding box."


def visible_box(scene: Scene, thing: Thing):
    """A thing's drawn box, cut to the frame."""
    w, h = scene.size
    x1, y1, x2, y2 = tight_box(thing)
    return (max(0.0, x1), max(0.0, y1), min(float(w), x2), min(float(h), y2))


def per_mille(scene: Scene, box):
    w, h = scene.size
    x1, y1, x2, y2 = box
    return [int(round(min(max(v, 0), s) / s * 1000)) for v, s in ((x1, w), (y1, h), (x2, w), (y2, h))]


def box_answer(scene: Scene, phrase: str, step: int = 1) -> str:
    """The box as the model is taught to write it: per mille, to the nearest `step` (10 for a tower
    taught the digits: a last digit finer than a token's sub-cell is noise to learn, and moves an
    IoU little)."""
    x1, y1, x2, y2 = (step * round(v / step) for v in per_mille(scene, visible_box(scene, scene.find(phrase))))
    return f"<box>{x1} {y1} {x2} {y2}</box>"


def cell_question(phrase: str) -> str:
    return (f"Which cell of a 3x3 grid (1-9, numbered left to right, top to bottom) contains {phrase}? "
            "Answer with the number only.")


def words_question(phrase: str) -> str:
    return (f"Where in the picture is {phrase}? Answer with two words: left, center or right; "
            "then top, middle or bottom.")


def cell_of(scene: Scene, phrase: str) -> int:
    x1, y1, x2, y2 = visible_box(scene, scene.find(phrase))
    w, h = scene.size
    col = min(2, int((x1 + x2) / 2 / w * 3))
    row = min(2, int((y1 + y2) / 2 / h * 3))
    return row * 3 + col + 1


def words_answer(scene: Scene, phrase: str) -> str:
    c = cell_of(scene, phrase) - 1
    return f"{['left', 'center', 'right'][c % 3]} {['top', 'middle', 'bottom'][c // 3]}"


def describe_question(condition: str) -> str:
    return ("In one short sentence, say what is happening in this picture. "
            f"It was picked because it shows {condition}.")


def named(scene: Scene) -> list:
    """The things a sentence names, in its order: the world's own (KINDS: red before green before
    blue…, a ball before a square…), which a model can follow by asking what is there, kind after
    kind, with no need to know where each thing is, nor to skip one it has named already."""
    return sorted(scene.things, key=lambda t: KINDS.index((t.colour, t.shape)))


def sentence(scene: Scene) -> str:
    """"A red ball and a blue square and a white star on a plain background.": each thing joined by
    "and", so that what follows a thing says only whether another is still to name (with a comma
    before the last "and", the word after a thing would also say how many are left: a model that
    wrote "and" one thing too soon could only stop one short, and most wrong sentences did)."""
    things = named(scene)
    ground = f"{BACKGROUND_WORDS[scene.background]} background"
    if not things:
        return f"Nothing but {ground}."
    names = [t.phrase for t in things]
    listed = " and ".join(names)
    return f"{listed[0].upper()}{listed[1:]} on {ground}."


def colour_answer(scene: Scene, shape: str) -> str:
    found = [t for t in sorted(scene.things, key=lambda t: KINDS.index((t.colour, t.shape))) if t.shape == shape]
    if not found:
        return f"There is no {shape}."
    if len(found) == 1:
        return found[0].colour.capitalize() + "."
    colours = [t.colour for t in found]
    return f"{NUMBER_WORDS[len(found)]} {shape}s: " + ", ".join(colours[:-1]) + " and " + colours[-1] + "."


def count_answer(scene: Scene) -> str:
    n = len(scene.things)
    return {0: "None.", 1: "One."}.get(n, f"{NUMBER_WORDS[n]}.")


def phrases_for(rng: np.random.Generator, scene: Scene, n: int) -> list:
    """`n` rule phrases about `scene`, about half of them present, the rest near misses and others."""
    out = []
    while len(out) < n:
        r = rng.random()
        if scene.things and r < 0.5:
            t = scene.things[rng.integers(len(scene.things))]
            p = t.phrase if rng.random() < 0.85 else f"a {t.shape}"
        elif scene.things and r < 0.8:  # a near miss: the colour or the shape of a thing that is there
            t = scene.things[rng.integers(len(scene.things))]
            u = scene.things[rng.integers(len(scene.things))]
            if u is not t and rng.random() < 0.5:  # crossed: one thing's colour, another's shape
                p = f"a {t.colour} {u.shape}"
            elif rng.random() < 0.5:
                p = f"a {list(COLOURS)[rng.integers(len(COLOURS))]} {t.shape}"
            else:
                p = f"a {t.colour} {SHAPES[rng.integers(len(SHAPES))]}"
        else:
            p = f"a {list(COLOURS)[rng.integers(len(COLOURS))]} {SHAPES[rng.integers(len(SHAPES))]}"
            if rng.random() < 0.1:
                p = f"a {SHAPES[rng.integers(len(SHAPES))]}"
        if p not in out:
            out.append(p)
    return out


def rule_kind(scene: Scene, phrase: str) -> str:
    """What a rule's phrase is to `scene`, for figures by kind: a thing there (by its size: small
    under 15 % of the frame's shorter side, big from 27 %), or absent as a near miss (the colour of
    a thing there, the shape of one, or crossed: one's colour and another's shape) or otherwise."""
    words = phrase.split()
    if scene.present(phrase):
        if len(words) == 2:
            return "there, shape only"
        t = scene.find(phrase)
        side = (t.box[2] - t.box[0]) / min(scene.size)
        return "there, " + ("small" if side < 0.15 else "mid-sized" if side < 0.27 else "big")
    if len(words) == 2:
        return "absent, shape only"
    colour = any(t.colour == words[1] for t in scene.things)
    shape = any(t.shape == words[2] for t in scene.things)
    if colour and shape:
        return "absent, crossed"
    return "absent, " + ("its colour there" if colour else "its shape there" if shape else "nothing like it")


def iou(a, b) -> float:
    """Intersection over union of two boxes (x1, y1, x2, y2)."""
    w = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    h = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    u = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - w * h
    return w * h / u if u > 0 else 0.0


# --- clips: things that enter, move and leave -------------------------------------------------------

@dataclass
class Track:
    colour: str
    shape: str
    side: float
    enter: float   # seconds
    leave: float
    start: tuple   # the centre at `enter` (off the frame's edge) and at `leave`
    end: tuple

    def box_at(self, t: float):
        if not (self.enter <= t < self.leave):
            return None
        f = (t - self.enter) / (self.leave - self.enter)
        cx = self.start[0] + (self.end[0] - self.start[0]) * f
        cy = self.start[1] + (self.end[1] - self.start[1]) * f
        return (cx - self.side / 2, cy - self.side / 2, cx + self.side / 2, cy + self.side / 2)


def clip_scene(base: Scene, tracks, t: float, least: float = IN_VIEW) -> Scene:
    """The clip's picture at `t`: the things whose box is at least `least` inside the frame count."""
    scene = Scene(size=base.size, background=base.background, tones=base.tones, texture_seed=base.texture_seed)
    for tr in tracks:
        box = tr.box_at(t)
        if box is None:
            continue
        if in_view(box, base.size) >= least:
            scene.things.append(Thing(tr.colour, tr.shape, box))
    return scene


def random_tracks(rng: np.random.Generator, size, seconds: float, count: int):
    w, h = size
    tracks = []
    kinds = [(c, s) for c in COLOURS for s in SHAPES]
    picked = rng.choice(len(kinds), count, replace=False)
    for k, i in enumerate(picked):
        colour, shape = kinds[i]
        side = rng.uniform(0.15, 0.35) * min(w, h)
        span = seconds / count
        enter = k * span * 0.8 + rng.uniform(0, span * 0.3)
        leave = min(seconds + 1, enter + rng.uniform(0.45, 0.7) * seconds)
        y0, y1 = rng.uniform(side / 2, h - side / 2, 2)
        if rng.random() < 0.5:
            start, end = (-side / 2, y0), (w + side / 2, y1)
        else:
            start, end = (w + side / 2, y0), (-side / 2, y1)
        tracks.append(Track(colour, shape, side, enter, leave, start, end))
    return tracks


# --- writing stills and clips (tools/shapes-world) ---------------------------------------------------

EXAMPLE_TRACKS = [
    # colour, shape, side (px), enter (s), leave (s), from (x, y), to (x, y): things that come in, cross and go
    ("red", "ball", 80, 1.0, 9.0, (-40, 120), (490, 90)),
    ("blue", "square", 70, 5.0, 13.0, (490, 180), (-40, 150)),
    ("yellow", "star", 90, 11.0, 19.0, (-50, 70), (500, 160)),
    ("green", "triangle", 80, 16.0, 24.0, (490, 80), (-40, 190)),
    ("white", "ball", 60, 21.0, 31.0, (-30, 200), (300, 120)),
    ("red", "ball", 70, 26.0, 34.0, (490, 60), (-40, 110)),
]


def example_tracks():
    return [Track(c, s, side, a, b, p, q) for c, s, side, a, b, p, q in EXAMPLE_TRACKS]


def spans(base: Scene, tracks, phrases, seconds: float, fps: float):
    """Each phrase's spans in view (`m:ss.s-m:ss.s`), sampled at the clip's frames."""
    out = {p: [] for p in phrases}
    for p in phrases:
        start = None
        n = int(round(seconds * fps))
        for i in range(n + 1):
            t = i / fps
            here = i < n and clip_scene(base, tracks, t).present(p)
            if here and start is None:
                start = t
            elif not here and start is not None:
                out[p].append((start, t))
                start = None
    return out


def clock(t: float) -> str:
    return f"{int(t // 60)}:{t % 60:04.1f}"


def write_clip(path: str, truth_path: str, boxes_path: str, base: Scene, tracks, phrases, seconds: float, fps: int):
    import json
    import subprocess
    w, h = base.size
    ff = subprocess.Popen(["ffmpeg", "-loglevel", "error", "-y", "-f", "rawvideo", "-pix_fmt", "rgb24", "-s", f"{w}x{h}", "-r", str(fps),
                           "-i", "-", "-c:v", "libx264", "-preset", "slow", "-crf", "23", "-pix_fmt", "yuv420p", "-movflags", "+faststart",
                           path], stdin=subprocess.PIPE)
    frames = []
    for i in range(int(seconds * fps)):
        scene = clip_scene(base, tracks, i / fps)
        ff.stdin.write(render(scene).tobytes())
        frames.append({"t": round(i / fps, 3), "things": truth(scene)})
    ff.stdin.close()
    if ff.wait() != 0:
        raise SystemExit(f"shapes-world: ffmpeg could not write {path}")
    lines = ["# What the clip really shows (tools/shapes-world writes it with the clip): each rule's spans in view.",
             "truth:"]
    for p, ss in spans(base, tracks, phrases, seconds, fps).items():
        lines.append(f"  - when: {p}")
        lines.append("    spans: [" + ", ".join(f'"{clock(a)}-{clock(b)}"' for a, b in ss) + "]")
    with open(truth_path, "w") as f:
        f.write("\n".join(lines) + "\n")
    if boxes_path:
        with open(boxes_path, "w") as f:
            json.dump({"size": [w, h], "fps": fps, "frames": frames}, f, separators=(",", ":"))


def main(argv=None):
    import argparse
    import json
    import os
    ap = argparse.ArgumentParser(prog="shapes-world", description="Stills and clips of the shapes world, with their truth.")
    sub = ap.add_subparsers(dest="what", required=True)
    c = sub.add_parser("clip", help="a clip of things that come in, move and leave, with its truth file and per-frame boxes")
    c.add_argument("out", help="the clip (.mp4)")
    c.add_argument("--truth", required=True, help="the truth file to write (lookd eval's spans)")
    c.add_argument("--boxes", default="", help="a JSON file of every frame's things and boxes")
    c.add_argument("--example", action="store_true", help="the README's example clip (fixed tracks)")
    c.add_argument("--seconds", type=float, default=30.0)
    c.add_argument("--fps", type=int, default=10)
    c.add_argument("--seed", type=int, default=1)
    c.add_argument("--rules", default="", help="the phrases to give spans for, comma-separated (default: every thing in the clip)")
    s = sub.add_parser("stills", help="stills (PNG) with truth.json: each still's things and boxes")
    s.add_argument("folder")
    s.add_argument("--count", type=int, default=100)
    s.add_argument("--seed", type=int, default=2)
    s.add_argument("--size", default="448x252", help="WxH")
    a = ap.parse_args(argv)
    if a.what == "clip":
        rng = np.random.default_rng(a.seed)
        if a.example:
            base = Scene(size=FRAME, background="gradient", tones=((40, 50, 70), (90, 60, 50)), texture_seed=7)
            tracks = example_tracks()
        else:
            base = random_scene(rng, FRAME, count=0)
            tracks = random_tracks(rng, FRAME, a.seconds, int(rng.integers(2, 5)))
        phrases = [p.strip() for p in a.rules.split(",") if p.strip()] or list(dict.fromkeys(f"a {t.colour} {t.shape}" for t in tracks))
        write_clip(a.out, a.truth, a.boxes, base, tracks, phrases, a.seconds, a.fps)
        print(f"shapes-world: {a.out} ({a.seconds:g} s at {a.fps} fps), {a.truth}", file=sys.stderr)
    else:
        w, h = (int(x) for x in a.size.split("x"))
        rng = np.random.default_rng(a.seed)
        os.makedirs(a.folder, exist_ok=True)
        index = {}
        for i in range(a.count):
            scene = random_scene(rng, (w, h), edges=rng.random() < 0.2)
            name = f"still-{i:05d}.png"
            render(scene).save(os.path.join(a.folder, name))
            index[name] = {"things": truth(scene), "background": scene.background, "sentence": sentence(scene)}
        with open(os.path.join(a.folder, "truth.json"), "w") as f:
            json.dump(index, f, indent=0)
        print(f"shapes-world: {a.count} stills in {a.folder}", file=sys.stderr)


if __name__ == "__main__":
    import sys
    main()
