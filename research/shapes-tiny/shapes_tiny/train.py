#!/usr/bin/env python3
"""Trains `shapes-tiny`: a tiny MiniCPM-V 4.7 (SigLIP tower, window-attention merger, qwen3_5 text)
from scratch on the shapes world (shapes_tiny/world.py), on lookd's own questions exactly as lookd
sends them (ChatML, the picture's number, thinking off), then converts it with the pinned llama.cpp's
converter (language model Q8_0, mmproj F16 as upstream publishes) and measures it on held-out scenes
it never saw. research/shapes-tiny/train runs it; the tests never do.

Deterministic given --seed: the scenes come from numpy generators seeded from it, the weights and
the order from torch's generator, on the CPU with deterministic kernels and a fixed thread count.

Usage: python -m shapes_tiny.train LLAMA_SRC OUT_DIR [--seed N] [--see-steps N] [--see-batch N] [--pool N]
       [--answer-steps N] [--answer-batch N] [--photo-batch N] [--place-scale X] [--place-weight X] [--tower-digits X] [--edges-in-view X]
       [--held-out N] [--device cpu|cuda] [--workers N] [--threads N] [--keep-checkpoint DIR] [--measure-only DIR]
"""
import argparse
import json
import math
import os
import sys
import tempfile
import time
from pathlib import Path

import fixture_models as fm  # tools/fixture_models.py: the wrappers put tools/ on PYTHONPATH
import numpy as np

from . import world as W

STEM = "shapes-tiny"
IMAGE_ID = ["<image_id>", "</image_id>"]
TEXT_TOKENS = 8000  # the first ids of the qwen35 vocabulary kept: " Yes", " No", " ball", … are single tokens
SHAPES = dict(
    text=dict(hidden_size=160, intermediate_size=448, num_hidden_layers=6,
              layer_types=["linear_attention"] + ["full_attention"] * 5,
              num_attention_heads=4, num_key_value_heads=2, head_dim=40,
              linear_num_key_heads=2, linear_num_value_heads=4, linear_key_head_dim=32, linear_value_head_dim=32,
              rope=dict(partial_rotary_factor=1.0, mrope_section=[8, 6, 6])),
    vision=dict(hidden_size=128, intermediate_size=256, num_hidden_layers=4, num_attention_heads=4),
    insert_layer_id=1,
)
ASSISTANT = "<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n"
ASK_QUESTIONS = ["What colour is the {shape}?", "How many things are there?", "What is in the picture?"]
DEVICE = "cpu"  # --device: where the model trains and is measured; the pictures are always drawn on the CPU


def log(*a):
    print(*a, file=sys.stderr, flush=True)


# --- the model --------------------------------------------------------------------------------------

def place_code(model, scale: float):
    """Makes the tower's position table (70 × 70 places; learnt, each place alone from the pictures
    whose patches fall in it, it came to say nothing of where a place is) a fixed smooth code of each
    place's row and column: half the width sines and cosines of the row, half of the column, at
    frequencies from a quarter turn across the picture to a quarter turn a place, times `scale`. It
    is not learnt (the tower learns what to make of it), as the first transformers' sinusoids.

    Its scale must match the patches' own embeddings, which grow as the tower learns (to a norm of
    about 23 a patch): at 0.1 (a norm of 0.8) the trained tower's tokens of a plain picture differed
    by 0.01 % from place to place, so no token knew where it was and no head could learn a cell
    (17 % after 1,100 steps, chance 11 %); at 1.0 and 3.0 (norms 8 and 24) thing tokens name their
    thing's cell 73 % and 74 % right after 300 steps. At 3.0 the trained tower named shapes worse
    (85 % on crops against 87 % at 0.1); at 1.0, the default, it kept them (90 %) and its thing
    tokens named their cell 86 % right."""
    import torch
    table = model.model.vision_tower.embeddings.position_embedding.weight
    side = int(round(math.sqrt(table.shape[0])))
    width = table.shape[1]
    k = width // 4
    turns = torch.exp(torch.linspace(math.log(math.pi / 2 / side), math.log(math.pi / 2), k))
    place = torch.arange(side, dtype=torch.float32)[:, None] * turns
    code = torch.cat([place.sin(), place.cos()], dim=1)  # side × width/2
    rows = code[:, None, :].expand(side, side, -1)
    cols = code[None, :, :].expand(side, side, -1)
    with torch.no_grad():
        table.copy_(scale * torch.cat([rows, cols], dim=2).reshape(side * side, width))
    table.requires_grad_(False)


def make_model(ckpt: Path, seed: int):
    import torch
    from transformers import MiniCPMV4_7Config, MiniCPMV4_7ForConditionalGeneration
    vocab = fm.make_tokenizer(LLAMA_SRC, ckpt, text_tokens=TEXT_TOKENS, extra_specials=IMAGE_ID)
    torch.manual_seed(seed)
    config = MiniCPMV4_7Config(
        text_config=fm.text_config(vocab, SHAPES, rope_theta=10000.0) | {"tie_word_embeddings": True},
        vision_config=fm.vision_config(SHAPES),
        insert_layer_id=SHAPES["insert_layer_id"], image_size=448, downsample_mode="16x",
        image_token_id=vocab["<|image_pad|>"], video_token_id=vocab["<|video_pad|>"],
        image_start_id=vocab["<image>"], image_end_id=vocab["</image>"], slice_start_id=vocab["<slice>"],
        slice_end_id=vocab["</slice>"], newline_id=vocab["Ċ"], tie_word_embeddings=True)
    config.architectures = ["MiniCPMV4_7ForConditionalGeneration"]
    model = MiniCPMV4_7ForConditionalGeneration(config)
    batch_tower_attention(model)
    return model, config, vocab


def batched_attention(self, hidden_states, cu_seqlens, max_seqlen, attention_mask=None, **kwargs):
    """The tower's attention (MiniCPMV4_7VisionAttention.forward) with its pieces of one length in
    one SDPA call, as a batch, where transformers calls SDPA once a piece: the merger's windows are
    4 patches each, over a thousand a stage-1 step, and those calls were most of the step's
    attention time. It computes what the calls a piece compute, and on the CPU the outputs and
    gradients are the same bit for bit (research/shapes-tiny/bench-tower checks it before it times the two ways)."""
    import torch
    F = torch.nn.functional
    n = hidden_states.shape[1]
    q, k, v = (proj(hidden_states).view(1, n, -1, self.head_dim).transpose(1, 2)[0] for proj in (self.q_proj, self.k_proj, self.v_proj))
    lengths = (cu_seqlens[1:] - cu_seqlens[:-1]).tolist()
    outs, start, i = [], 0, 0
    while i < len(lengths):
        j = i
        while j < len(lengths) and lengths[j] == lengths[i]:
            j += 1
        length, end = lengths[i], start + lengths[i] * (j - i)
        run = [t[:, start:end].unflatten(1, (j - i, length)).transpose(0, 1) for t in (q, k, v)]  # pieces × heads × length × dim
        out = F.scaled_dot_product_attention(*run, dropout_p=self.attention_dropout if self.training else 0.0, scale=self.scaling)
        outs.append(out.transpose(1, 2).reshape(end - start, -1))
        start, i = end, j
    return self.out_proj(torch.cat(outs).unsqueeze(0)), None


def batch_tower_attention(model):
    """Makes every attention of the tower (its layers' and the merger's windows') batched_attention."""
    import types
    from transformers.models.minicpmv4_7.modeling_minicpmv4_7 import MiniCPMV4_7VisionAttention
    for module in model.model.vision_tower.modules():
        if isinstance(module, MiniCPMV4_7VisionAttention):
            module.forward = types.MethodType(batched_attention, module)


def bench_checkpoint(ap, folder, threads):
    """A step bench's checkpoint (refused with ap.error unless --keep-checkpoint wrote it), with torch
    set to run deterministically on `threads` threads, as the training does."""
    import torch
    torch.set_num_threads(threads)
    torch.use_deterministic_algorithms(True)
    ckpt = Path(folder)
    if not (ckpt / "config.json").is_file():
        ap.error(f"{ckpt}: no config.json (a folder that --keep-checkpoint wrote)")
    return ckpt


def load_checkpoint(ckpt, device="cpu"):
    """A checkpoint that --keep-checkpoint saved, ready to measure: (model, config, encoder)."""
    from transformers import MiniCPMV4_7Config, MiniCPMV4_7ForConditionalGeneration
    ckpt = Path(ckpt)
    config = MiniCPMV4_7Config.from_pretrained(str(ckpt))
    model = MiniCPMV4_7ForConditionalGeneration.from_pretrained(str(ckpt)).eval().to(device)
    batch_tower_attention(model)
    return model, config, Encoder(ckpt, config)


class Encoder:
    """Pictures and questions as the model's inputs: the processor's patches and lookd's token layout."""

    def __init__(self, ckpt: Path, config):
        from transformers import AutoTokenizer
        from transformers.models.minicpmv4_6.image_processing_pil_minicpmv4_6 import \
            MiniCPMV4_6ImageProcessorPil as Processor
        self.tok = AutoTokenizer.from_pretrained(str(ckpt))
        self.processor = Processor(**json.loads((ckpt / "preprocessor_config.json").read_text()))
        self.config = config
        self.before = self.tok.encode("<|im_start|>user\n" + IMAGE_ID[0] + "0" + IMAGE_ID[1], add_special_tokens=False)
        self.end = self.tok.encode("<|im_end|>", add_special_tokens=False)
        self.marks = {i for t, i in self.tok.get_vocab().items() if "?" in self.tok.decode([i])}
        # A colour's or a shape's word as a sentence writes it (after a space): its tokens.
        self.words = {w: self.tok.encode(" " + w, add_special_tokens=False) for w in list(W.COLOURS) + W.SHAPES}

    def picture(self, image):
        """(pixel_values, target_sizes, layout): the layout of `<image>`, slices and pads (fixture_models_47)."""
        c = self.config
        inputs = self.processor(images=[image], return_tensors="pt")
        sizes = inputs["target_sizes"].tolist()
        tokens = [(a // 4) * (b // 4) for a, b in sizes]
        layout = [c.image_start_id] + [c.image_token_id] * tokens[0] + [c.image_end_id]
        w, h = image.size
        grid = self.processor.get_sliced_grid((h, w), self.processor.max_slice_nums, 448) if len(sizes) > 1 else None
        cols = grid[1] if grid else 1
        for k, n in enumerate(tokens[1:]):
            layout += [c.slice_start_id] + [c.image_token_id] * n + [c.slice_end_id]
            if (k + 1) % cols == 0 and k + 2 < len(tokens):
                layout.append(c.newline_id)
        return inputs["pixel_values"], inputs["target_sizes"], layout

    def sequence(self, layout, question: str, answer: str | None):
        """Token ids and the labels (-100 but on the answer and its end)."""
        prompt = self.before + layout + self.tok.encode("\n" + question + ASSISTANT, add_special_tokens=False)
        if answer is None:
            return prompt, None
        reply = self.tok.encode(answer, add_special_tokens=False) + self.end
        return prompt + reply, [-100] * len(prompt) + reply


# --- the training data ------------------------------------------------------------------------------

EDGES_IN_VIEW = None  # --edges-in-view: the least share of an edge scene's thing in view (None: 70 % of its side)


def scene_for(rng):
    r = rng.random()
    if r < 0.12:
        size = W.PHOTO_SIZES[rng.integers(0, 4)] if rng.random() < 0.8 else W.PHOTO_SIZES[rng.integers(4, 6)]
    else:
        size = W.FRAME
    return W.random_scene(rng, size, edges=rng.random() < 0.2, least=EDGES_IN_VIEW)


def questions_for(rng, scene, k: int, box_step: int = 1):
    """`k` (question, answer, truths, looks, said) about `scene`, as lookd asks them; `truths` is each
    numbered rule's presence for a watch prompt, else None; `looks` the phrases the question is
    about, one for each place the model should look from (each rule's question mark, else the end of
    the prompt); `said` the things a sentence answer names, in its order (else empty). Boxes are
    written per mille to the nearest `box_step`."""
    out = []
    things = scene.things
    while len(out) < k:
        r = rng.random()
        if r < 0.45 or not things:
            if r >= 0.45 and rng.random() < 0.25:
                out.append(ask_question(rng, scene))
                continue
            phrases = W.phrases_for(rng, scene, int(rng.integers(1, 9)))
            out.append((W.watch_prompt(phrases), W.watch_answer(scene, phrases), [scene.present(p) for p in phrases], phrases, []))
            continue
        t = things[rng.integers(len(things))]
        phrase = t.phrase if rng.random() < 0.85 else (f"a {t.shape}" if sum(u.shape == t.shape for u in things) == 1 else t.phrase)
        if r < 0.59:
            out.append((W.box_question(phrase), W.box_answer(scene, phrase, box_step), None, [phrase], []))
        elif r < 0.68:
            out.append((W.cell_question(phrase), str(W.cell_of(scene, phrase)), None, [phrase], []))
        elif r < 0.74:
            out.append((W.words_question(phrase), W.words_answer(scene, phrase), None, [phrase], []))
        elif r < 0.94:
            out.append((W.describe_question(phrase), W.sentence(scene), None, [], W.named(scene)))
        else:
            out.append(ask_question(rng, scene))
    return out


def ask_question(rng, scene):
    form = ASK_QUESTIONS[rng.integers(len(ASK_QUESTIONS))]
    if "{shape}" in form:
        shape = W.SHAPES[rng.integers(len(W.SHAPES))]
        if scene.things and rng.random() < 0.7:
            shape = scene.things[rng.integers(len(scene.things))].shape
        return form.format(shape=shape), W.colour_answer(scene, shape), None, [f"a {shape}"], []
    if form.startswith("How many"):
        return form, W.count_answer(scene), None, [], []
    return form, W.sentence(scene), None, [], W.named(scene)


# --- training ---------------------------------------------------------------------------------------
#
# Two stages. Learning to see and learning to answer at once is slow for a model this small: the
# language model learns the answers' wording long before the tower gives it anything to read. So:
#  1. the tower and merger learn to see, alone, on small crops of the world drawn at the scale the
#     processor gives a frame (16 × 16 patches: a quarter of a frame's cost, so four times the
#     pictures in the same minutes; shape needs thousands of them, colour needs a few hundred).
#     Training-only heads (never exported) name the thing under each picture token and that thing's
#     box, the thing under each of the token's 8 × 8 sub-cells (the silhouettes: shape on crops
#     85 % → 88 % at 1,800 steps), and each thing's colour and shape from its own tokens;
#  2. the language model learns lookd's questions on pictures the now frozen tower has encoded once,
#     with one more training-only head that asks, at each numbered rule's question mark, whether
#     that rule's thing is there (the first half of reading a watch answer). Its peak learning rate
#     is 2e-3: at 3e-3 its losses jumped about and yes/no on the probe stalled near 75 %; at 2e-3
#     the same recipe climbs past 95 %.

CROP = 16  # a crop's side in patches (4 picture tokens)
FRAME_SCALE = 336 / 252  # the processor draws a 448 × 252 frame at 616 × 336


def picture_for(enc, rng):
    scene = scene_for(rng)
    pv, s, layout = enc.picture(W.render(scene))
    return pv, s, layout, scene


def crop_scene(rng, side: int):
    """A `side`-pixel square of the world at the frame's processed scale, with 1–3 things (some
    partly out of it)."""
    scene = W.Scene(size=(side, side), background=W.BACKGROUNDS[rng.integers(len(W.BACKGROUNDS))],
                    tones=tuple(W.TONES[i] for i in rng.choice(len(W.TONES), 2, replace=False)),
                    texture_seed=int(rng.integers(1 << 30)))
    for _ in range(int(rng.integers(1, 4))):
        for _attempt in range(30):
            colour, shape = W.KINDS[rng.integers(len(W.KINDS))]
            if any(t.colour == colour and t.shape == shape for t in scene.things):
                continue
            size = min(rng.uniform(0.05, 0.40) * W.FRAME[1] * FRAME_SCALE, side * 0.95)
            x = rng.uniform(-0.15 * size, side - 0.85 * size)
            y = rng.uniform(-0.15 * size, side - 0.85 * size)
            box = (x, y, x + size, y + size)
            if all(W.overlap(box, t.box) < 0.25 for t in scene.things):
                scene.things.append(W.Thing(colour, shape, box, angle=float(rng.uniform(-0.3, 0.3))))
                break
    return scene


def patches(image, rows: int, cols: int):
    """Pixel values as the processor lays them out (rows × cols patches of 14, one row of patches)."""
    import torch
    x = (np.asarray(image).astype(np.float32) / 255 - 0.5) / 0.5
    return torch.from_numpy(x.reshape(rows, 14, cols, 14, 3).transpose(4, 1, 0, 2, 3).reshape(1, 3, 14, -1).copy())


def token_targets(scene, rows: int, cols: int):
    """Each picture token's thing (0: none) and that thing's box, in shares of the picture; and each
    thing's colour, shape and weights over the tokens it covers."""
    import torch
    labels = W.label_map(scene)
    h, w = labels.shape
    kinds = W.cell_labels(scene, rows, cols)
    things = []
    for t in scene.things:
        k = 1 + W.KINDS.index((t.colour, t.shape))
        cover = np.array([(labels[r * h // rows:(r + 1) * h // rows, c * w // cols:(c + 1) * w // cols] == k).mean()
                          for r in range(rows) for c in range(cols)], dtype=np.float32)
        if cover.max() > 0:
            things.append((list(W.COLOURS).index(t.colour), W.SHAPES.index(t.shape), torch.from_numpy(cover / cover.sum())))
    boxes = {}
    for t in scene.things:
        x1, y1, x2, y2 = W.visible_box(scene, t)
        boxes[1 + W.KINDS.index((t.colour, t.shape))] = [x1 / w, y1 / h, x2 / w, y2 / h]
    # Each token's 8 × 8 sub-cells' things (sampled at their centres): the silhouettes, finer than a
    # token, which teach the tower the shapes' outlines and the small things.
    ys = ((np.arange(rows * SUB) + 0.5) * h / (rows * SUB)).astype(int)
    xs = ((np.arange(cols * SUB) + 0.5) * w / (cols * SUB)).astype(int)
    sub = labels[ys][:, xs].reshape(rows, SUB, cols, SUB).transpose(0, 2, 1, 3).reshape(rows * cols, SUB * SUB)
    return (torch.tensor(kinds), torch.tensor([boxes.get(k, [0.0] * 4) for k in kinds]), things,
            torch.from_numpy(sub.astype(np.int64)))


SUB = 8  # a token's side in sub-cells for the silhouette head


def vision_heads(hidden: int, digits: bool):
    """The stage-1 heads; the digit and cell heads only when weighed (made last, so a recipe without
    them draws every other weight as it did)."""
    import torch
    heads = torch.nn.ModuleDict({"kind": torch.nn.Linear(hidden, len(W.KINDS) + 1),
                                 "scene": torch.nn.Linear(hidden, len(W.KINDS)),
                                 "box": torch.nn.Linear(hidden, 4),
                                 "colour": torch.nn.Linear(hidden, len(W.COLOURS)),
                                 "shape": torch.nn.Linear(hidden, len(W.SHAPES)),
                                 "sub": torch.nn.Linear(hidden, SUB * SUB * (len(W.KINDS) + 1))})
    if digits:
        heads["digits"] = torch.nn.Linear(hidden, 4 * (11 + 10))
        heads["cell"] = torch.nn.Linear(hidden, 9)
    return heads


BOX_STEP = 10  # per mille: what the digit heads' last digit counts in, and what box answers round to with them


def digit_loss(heads, x, boxes):
    """The box and cell answers' own terms, from each thing token: its thing's box edges per mille as
    the answer writes them (the hundreds digit, 0-10, and the tens digit: box answers are taught to
    the nearest BOX_STEP per mille), and the 3 × 3 cell of its thing's middle (as W.cell_of counts
    it). Learnt as classes, so the tokens carry the digits the language model copies, not only a
    place it must turn into digits. → (loss, share of edges with both digits right, of cells right)."""
    import torch
    F = torch.nn.functional
    steps = (boxes * 1000 / BOX_STEP).round().long().clamp(0, 1000 // BOX_STEP)  # n × 4
    hundreds, tens = steps // 10, steps % 10
    logits = heads["digits"](x).reshape(len(x), 4, 21)
    loss = sum(F.cross_entropy(logits[:, e, :11], hundreds[:, e]) + F.cross_entropy(logits[:, e, 11:], tens[:, e])
               for e in range(4)) / 4
    col = ((boxes[:, 0] + boxes[:, 2]) / 2 * 3).long().clamp(0, 2)
    row = ((boxes[:, 1] + boxes[:, 3]) / 2 * 3).long().clamp(0, 2)
    cell, cell_logits = row * 3 + col, heads["cell"](x)
    right = ((logits[:, :, :11].argmax(-1) == hundreds) & (logits[:, :, 11:].argmax(-1) == tens)).float().mean()
    return (loss + F.cross_entropy(cell_logits, cell), right.item(),
            (cell_logits.argmax(-1) == cell).float().mean().item())


def vision_loss(model, heads, pictures, digit_weight: float = 0.0):
    """pictures: [(pixel_values, target_sizes, token_targets)] → the heads' loss; the share of things
    whose colour and whose shape their tokens name right, of tokens naming every thing in the
    picture, and of thing tokens naming their box's edges (both digits) and their cell right."""
    import torch
    F = torch.nn.functional
    pixels = torch.cat([p[0] for p in pictures], dim=-1).to(DEVICE)
    sizes = torch.cat([p[1] for p in pictures], dim=0).to(DEVICE)
    features = model.model.get_image_features(pixels, sizes).pooler_output
    tokens, kinds, boxes, pooled, colours, shapes, present, subs, start = [], [], [], [], [], [], [], [], 0
    for _, s, (k, b, things, sub) in pictures:
        subs.append(sub)
        x = features[start]
        tokens.append(x)
        kinds.append(k)
        boxes.append(b)
        here = torch.zeros(len(W.KINDS))
        for colour, shape, cover in things:
            pooled.append(cover.to(DEVICE) @ x)
            colours.append(colour)
            shapes.append(shape)
            here[W.KINDS.index((list(W.COLOURS)[colour], W.SHAPES[shape]))] = 1
        present.append(here.expand(len(x), -1))
        start += len(s)
    x, kinds, boxes = torch.cat(tokens), torch.cat(kinds).to(DEVICE), torch.cat(boxes).to(DEVICE)
    present = torch.cat(present).to(DEVICE)
    on = kinds > 0
    edges = cells = 0.0
    # The background is most tokens: weighed down, so naming the things is what the loss is about.
    weight = torch.ones(len(W.KINDS) + 1)
    weight[0] = 0.2
    weight = weight.to(DEVICE)
    loss = F.cross_entropy(heads["kind"](x), kinds, weight=weight)
    sub_logits = heads["sub"](x).reshape(-1, len(W.KINDS) + 1)
    loss = loss + F.cross_entropy(sub_logits, torch.cat(subs).to(DEVICE).reshape(-1), weight=weight)
    # Every token also says which things the whole picture holds, so that the language model can
    # read a rule's answer from any picture token (one head's average over them), not only from
    # the thing's own tokens, which it must first learn to find.
    scene_logits = heads["scene"](x)
    loss = loss + 2 * F.binary_cross_entropy_with_logits(scene_logits, present)
    whole = ((scene_logits > 0) == (present > 0.5)).all(-1).float().mean().item()
    if on.any():
        loss = loss + 4 * F.smooth_l1_loss(heads["box"](x[on]), boxes[on], beta=0.02)
        if digit_weight > 0:
            digits, edges, cells = digit_loss(heads, x[on], boxes[on])
            loss = loss + digit_weight * digits
    if pooled:
        p = torch.stack(pooled)
        colour_logits, shape_logits = heads["colour"](p), heads["shape"](p)
        colours, shapes = torch.tensor(colours, device=DEVICE), torch.tensor(shapes, device=DEVICE)
        loss = loss + F.cross_entropy(colour_logits, colours) + F.cross_entropy(shape_logits, shapes)
        return (loss, (colour_logits.argmax(-1) == colours).float().mean().item(),
                (shape_logits.argmax(-1) == shapes).float().mean().item(), whole, edges, cells)
    return loss, 1.0, 1.0, whole, edges, cells


def schedule(step: int, steps: int, peak: float, warm: int) -> float:
    return peak * min(1.0, (step + 1) / warm) * (0.5 * (1 + math.cos(math.pi * step / steps)) * 0.95 + 0.05)


def progress(stage: str, step: int, steps: int, started: float, what: str):
    spent = time.monotonic() - started
    left = spent / (step + 1) * (steps - step - 1)
    log(f"{stage}: step {step + 1}/{steps} · {what} · {spent / 60:.1f} min ({spent / (step + 1):.3f} s a step) · about {left / 60:.1f} min left")


ENC = None  # the encoder the drawing processes share (set before they start)


def see_pictures(task):
    """One stage-1 step's pictures with their token targets, from the step's own generator (so any
    number of drawing processes draws the same): crops, and every fifth step a few whole frames and
    photos as the processor gives them (so the tower also knows a whole picture's positions)."""
    seed, step, per_step = task
    rng = np.random.default_rng([seed, 1, step])
    if step % 5 == 4:
        pictures = [picture_for(ENC, rng) for _ in range(per_step // 4)]
        return [(p[0], p[1], token_targets(p[3], int(p[1][0][0]) // 4, int(p[1][0][1]) // 4)) for p in pictures]
    import torch
    crop = torch.tensor([[CROP, CROP]], dtype=torch.int32)
    scenes = [crop_scene(rng, CROP * 14) for _ in range(per_step)]
    return [(patches(W.render(s), CROP, CROP), crop, token_targets(s, CROP // 4, CROP // 4)) for s in scenes]


def pool_picture(task):
    """The stage-2 pool's picture `j`, from its own generator."""
    seed, j = task
    return picture_for(ENC, np.random.default_rng([seed, 2, j]))


def train_vision(model, enc, drawing, seed: int, steps: int, per_step: int = 16, digit_weight: float = 0.0):
    """Stage 1: the tower and merger learn to see (see_pictures)."""
    import torch
    heads = vision_heads(model.config.text_config.hidden_size, digit_weight > 0).to(DEVICE)
    params = [p for p in list(model.model.vision_tower.parameters()) + list(model.model.merger.parameters()) + list(heads.parameters())
              if p.requires_grad]
    opt = torch.optim.AdamW(params, lr=2e-3, betas=(0.9, 0.98), weight_decay=0.01)
    started, seen = time.monotonic(), []
    batches = drawing([(seed, step, per_step) for step in range(steps)], see_pictures)
    for step, pictures in enumerate(batches):
        lr = schedule(step, steps, 2e-3, min(30, steps // 10 + 1))
        for g in opt.param_groups:
            g["lr"] = lr
        loss, colour, shape, whole, edges, cells = vision_loss(model, heads, pictures, digit_weight)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        opt.step()
        seen.append((colour, shape, whole, edges, cells))
        if step % 50 == 49 or step == steps - 1:
            c, s, w, e, k = np.mean(seen[-50:], axis=0)
            digits = f"; thing tokens naming a box edge {e:.1%}, their cell {k:.1%}" if digit_weight > 0 else ""
            progress("see", step, steps, started, f"loss {loss.item():.3f} · things named by colour {c:.1%}, by shape {s:.1%}; "
                     f"tokens naming every thing in the picture {w:.1%}{digits} (the last 50 steps) · lr {lr:.1e}")


def encode_pool(model, enc, drawing, seed: int, count: int, chunk: int = 32):
    """`count` pictures the frozen tower has encoded once: (features, target_sizes, layout, scene)."""
    import torch
    pool, started = [], time.monotonic()
    drawn = iter(drawing([(seed, j) for j in range(count)], pool_picture))
    for first in range(0, count, chunk):
        pictures = [next(drawn) for _ in range(min(chunk, count - first))]
        with torch.no_grad():
            feats = features(enc, model, [p[:3] for p in pictures])
        pool += [(f, p[1], p[2], p[3]) for f, p in zip(feats, pictures)]
        progress("encode", first // chunk, (count + chunk - 1) // chunk, started, f"{len(pool)} pictures")
    return pool


def rule_marks(enc, ids, rules: int):
    """The positions of the numbered rules' question marks in a watch prompt's ids (None if the
    tokenizer joined them otherwise)."""
    marks = [i for i, t in enumerate(ids) if t in enc.marks]
    return marks if len(marks) == rules else None


# The language model's layers whose first heads are taught where to look: the first finds each
# question's thing among the picture tokens, the second reads while answering (a rule's answer from
# its question mark, a box or a cell from the thing's tokens).
LOOK_LAYER, READ_LAYER = 2, 4


CELL_LABELS = {}  # (scene's id, rows, cols) → its cell labels: the pool's scenes are asked about again and again


def cell_labels(scene, rows: int, cols: int):
    key = (id(scene), rows, cols)
    if key not in CELL_LABELS:
        CELL_LABELS[key] = (scene, W.cell_labels(scene, rows, cols))  # the scene kept, so its id stays its own
    return CELL_LABELS[key][1]


def look_targets(model, ids, scene, size, looks, spots):
    """For each spot (a position in `ids`) and its phrase: the positions of the whole-picture crop's
    tokens that show the phrase's thing, or, when none does, the `<image>` mark (where a head looks
    when there is nothing to see)."""
    config = model.config
    rows, cols = int(size[0][0]) // 4, int(size[0][1]) // 4
    kinds = cell_labels(scene, rows, cols)
    first = ids.index(config.image_token_id)
    start = ids.index(config.image_start_id)
    out = []
    for spot, phrase in zip(spots, looks):
        seen = [first + j for j, k in enumerate(kinds) if k and W.matches(W.Thing(*W.KINDS[k - 1], (0, 0, 0, 0)), phrase)]
        out.append((spot, seen or [start]))
    return out


def sentence_looks(enc, model, ids, prompt: int, scene, size, said):
    """READ_LAYER's targets in a sentence that names `said` things in order: from the places that
    write each thing's colour word and its shape word, at that thing's picture tokens (a sentence is
    read from the picture, one thing after another); and from the place that writes what follows
    each thing ("and" or "on"), at the tokens of the things still to name, or at the
    `<image>` mark when none is left (so the head learns what it has not yet said: without it,
    sentences repeat one thing)."""
    start = ids.index(model.config.image_start_id)
    seen = [look_targets(model, ids, scene, size, [t.phrase], [0])[0][1] for t in said]
    out, at = [], prompt
    for n, thing in enumerate(said):
        for word in (thing.colour, thing.shape):
            piece = enc.words[word]
            k = next(k for k in range(at, len(ids)) if ids[k:k + len(piece)] == piece)
            out += [(READ_LAYER, j - 1, seen[n]) for j in range(k, k + len(piece))]
            at = k + len(piece)
        rest = sorted({i for later in seen[n + 1:] for i in later if i != start})
        out.append((READ_LAYER, at - 1, rest or [start]))
    return out


def answer_loss(enc, model, presence, place_head, items, groups: int = 4):
    """items: [(features, target_sizes, layout, scene, [(question, answer, truths, looks, said)…])] → the
    mean over sequences of the answer tokens' cross-entropy, the presence head's loss, the looking
    heads' loss, and the share of answer tokens right.

    Training-only signals teach the language model to read the picture, as dense gradients the
    answers alone give too slowly: at each numbered rule's question mark (the middle layer) whether
    its thing is there; and where two heads look: LOOK_LAYER's, from each rule's question mark and
    from the end of a question about one thing, at that thing's picture tokens; READ_LAYER's, from
    each numbered answer at its rule's question mark, from each token of a box or a cell at the
    thing's picture tokens, and from each colour and shape word of a sentence at its thing's.

    The sequences run in `groups` forward passes of like length (most of one padded batch is
    padding: an 8-rule watch prompt is twice a box question's length); each loss is the sum over
    all groups divided by the whole batch's count, so the groups make one batch's loss."""
    import torch
    yes_no_ids = {enc.tok.encode(" Yes", add_special_tokens=False)[0], enc.tok.encode(" No", add_special_tokens=False)[0]}
    seqs = []  # (ids, labels, features, size, (spots, truths) or None, [(layer, spot, positions)], [(spot, box)])
    layouts = {}  # the same, by the picture's layout
    for feats, s, layout, scene, qa in items:
        for q, a, truths, looks, said in qa:
            ids, lab = enc.sequence(layout, q, a)
            prompt = len(ids) - sum(x != -100 for x in lab)
            spots = rule_marks(enc, ids[:prompt], len(truths)) if truths else None
            marks = (spots, truths) if spots else None
            if truths is None and looks:
                spots = [prompt - 1]
            looking = []
            if looks and spots:
                found = look_targets(model, ids, scene, s, looks, spots)
                looking += [(LOOK_LAYER, spot, at) for spot, at in found]
                if truths:
                    answers = [i - 1 for i in range(prompt, len(ids)) if ids[i] in yes_no_ids]
                    if len(answers) == len(spots):
                        looking += [(READ_LAYER, i, [mark]) for i, mark in zip(answers, spots)]
                else:
                    looking += [(READ_LAYER, i, found[0][1]) for i in range(prompt - 1, len(ids) - 2)]
            looking += sentence_looks(enc, model, ids, prompt, scene, s, said)
            seqs.append((ids, lab, feats, s, marks, looking, place_targets(scene, q, looks, prompt, len(ids))))
            layouts.setdefault(tuple(layout), []).append(seqs[-1])
    counts = (len(seqs), sum(len(m[0]) for *_, m, _, _ in seqs if m), sum(len(lk) for *_, lk, _ in seqs),
              sum(len(pl) for *_, pl in seqs))
    totals = [torch.zeros((), device=DEVICE) for _ in range(4)]
    right = answered = 0
    # Pictures of one layout share their start (prefix_pass): a frame step is mostly 448 × 252 frames,
    # with now and then a square one; each photo has its own.
    for kind in layouts.values():
        prefix = prefix_pass(model, kind)
        order = sorted(range(len(kind)), key=lambda k: len(kind[k][0]))
        size = -(-len(order) // max(1, round(groups * len(kind) / len(seqs))))
        for first in range(0, len(order), size):
            part = [kind[k] for k in order[first:first + size]]
            sums, got, n = group_loss(enc, model, presence, place_head, part, prefix)
            totals = [t + x for t, x in zip(totals, sums)]
            right += got
            answered += n
    answers, seen, look, place = (t / max(1, c) for t, c in zip(totals, counts))
    return answers, seen, look, place, right / max(1, answered)


def place_targets(scene, question: str, looks, prompt: int, length: int):
    """[(spot, box)]: for a box, cell or words question about one thing, each place that writes its
    answer, with the thing's visible box in shares of the picture (for the place head)."""
    if len(looks) != 1 or question not in (W.box_question(looks[0]), W.cell_question(looks[0]), W.words_question(looks[0])):
        return []
    things = [t for t in scene.things if W.matches(t, looks[0])]
    if len(things) != 1:
        return []
    w, h = scene.size
    x1, y1, x2, y2 = W.visible_box(scene, things[0])
    return [(i, [x1 / w, y1 / h, x2 / w, y2 / h]) for i in range(prompt - 1, length - 1)]


def prefix_pass(model, seqs):
    """The start that sequences of one picture layout share, run once a picture: (its length, the
    cache it leaves, {id(features): the picture's row}), or None where they share no whole picture.

    A picture's three sequences (and, in a frame step, every frame's) begin with the same tokens, the
    chat's start and the picture's layout; only the pictures' features differ. Those tokens are two
    thirds of a frame's sequence and four fifths of a photo's, so a picture runs once, not three
    times, and each question continues from its cache, gradients flowing back through it: the same
    losses and gradients (research/shapes-tiny/bench-stage2 checks it), a fifth less time a step. Every answer,
    presence, looking and place spot must lie after the shared start."""
    import torch
    from transformers import DynamicCache
    first = seqs[0][0]
    shortest = min(len(s[0]) for s in seqs)
    length = next((i for i in range(shortest) if any(s[0][i] != first[i] for s in seqs)), shortest)
    image = model.config.image_token_id
    if any(image in s[0][length:] for s in seqs):
        return None
    spots = [i - 1 for s in seqs for i, x in enumerate(s[1]) if x != -100]
    spots += [i for s in seqs if s[4] for i in s[4][0]]
    spots += [i for s in seqs for _, i, _ in s[5]] + [i for s in seqs for i, _ in s[6]]
    if min(spots) < length:
        return None
    rows = {}
    for s in seqs:
        rows.setdefault(id(s[2]), (len(rows), s[2], s[3]))
    pictures = sorted(rows.values(), key=lambda r: r[0])
    ids = torch.tensor([first[:length]] * len(pictures), device=DEVICE)
    cache = DynamicCache(config=model.config.text_config)
    model.model.rope_deltas = None
    try:
        model.model(input_ids=ids, mm_token_type_ids=(ids == image).int(), cache=cache, use_cache=True,
                    target_sizes=torch.cat([r[2] for r in pictures]).to(DEVICE),
                    mm_encoder_outputs=encoded([r[1] for r in pictures]))
    finally:
        model.model.rope_deltas = None
    return length, cache, {k: r[0] for k, r in rows.items()}


def cache_rows(cache, rows):
    """A cache of `rows` of `cache` (one a sequence, repeated as its picture is) whose updates make
    new tensors: the shared one stays as the prefix pass left it, for every group and for backward."""
    import copy
    import torch
    from transformers.cache_utils import LinearAttentionLayer
    picked = copy.copy(cache)
    picked.layers = []
    for layer in cache.layers:
        new = copy.copy(layer)
        if isinstance(layer, LinearAttentionLayer):
            new.conv_states = {k: s.index_select(0, rows) for k, s in layer.conv_states.items()}
            new.recurrent_states = {k: s.index_select(0, rows) for k, s in layer.recurrent_states.items()}
            new.has_previous_state = dict(layer.has_previous_state)
            new.update_conv_state = lambda states, state_idx=0, new=new, **_: torch.cat([new.conv_states[state_idx], states], -1)
            new.update_recurrent_state = lambda states, state_idx=0, **_: states
        else:
            new.keys, new.values = layer.keys.index_select(0, rows), layer.values.index_select(0, rows)
        picked.layers.append(new)
    return picked


def group_loss(enc, model, presence, place_head, part, prefix=None):
    """One forward pass over sequences of like length: the sums of their per-sequence answer losses,
    presence losses, looking losses and place losses (none without `place_head`); the answer tokens
    right, and how many there were. With `prefix` (prefix_pass's), only the tokens after the shared
    start run, on its cache."""
    import torch
    F = torch.nn.functional
    n = max(len(p[0]) for p in part)
    pad = enc.tok.pad_token_id
    input_ids = torch.tensor([p[0] + [pad] * (n - len(p[0])) for p in part], device=DEVICE)
    label_ids = torch.tensor([p[1] + [-100] * (n - len(p[1])) for p in part], device=DEVICE)
    mask = torch.tensor([[1] * len(p[0]) + [0] * (n - len(p[0])) for p in part], device=DEVICE)
    mm = (input_ids == model.config.image_token_id).int()
    sizes = torch.cat([p[3] for p in part]).to(DEVICE)
    caught = {}
    layers = model.model.language_model.layers
    hooks = [layers[n].self_attn.register_forward_hook(lambda _m, _i, out, n=n: caught.__setitem__(n, out[1][:, 0]))
             for n in (LOOK_LAYER, READ_LAYER)]
    model.model.rope_deltas = None
    try:
        if prefix is None:
            skip = 0
            out = model.model(input_ids=input_ids, attention_mask=mask, mm_token_type_ids=mm, target_sizes=sizes,
                              mm_encoder_outputs=encoded([p[2] for p in part]), output_hidden_states=True)
        else:
            skip, cache, rows = prefix
            # The whole sequences' positions (the picture's canvas ones), of which the tail runs.
            positions = model.model.compute_3d_position_ids(input_ids=input_ids, attention_mask=mask, target_sizes=sizes,
                                                            mm_token_type_ids=mm)
            picked = cache_rows(cache, torch.tensor([rows[id(p[2])] for p in part], device=DEVICE))
            out = model.model.language_model(input_ids=input_ids[:, skip:], attention_mask=mask,
                                             position_ids=positions[..., skip:], cache=picked, use_cache=True,
                                             output_hidden_states=True)
            label_ids = label_ids[:, skip:]
    finally:
        for hook in hooks:
            hook.remove()
        model.model.rope_deltas = None
    part = [(p[0], p[1], p[2], p[3], p[4] and ([i - skip for i in p[4][0]], p[4][1]),
             [(layer, spot - skip, at) for layer, spot, at in p[5]], [(spot - skip, box) for spot, box in p[6]]) for p in part]
    targets = label_ids[:, 1:]
    where = targets != -100
    logits = model.lm_head(out.last_hidden_state[:, :-1][where])
    token_loss = F.cross_entropy(logits.float(), targets[where], reduction="none")
    # Each sequence's mean, as a product with a one-hot matrix (deterministic on a GPU too, where
    # index_add is not).
    owner = F.one_hot(where.nonzero()[:, 0], len(part)).to(token_loss.dtype)
    answers = ((token_loss @ owner) / where.sum(1).clamp(min=1)).sum()
    middle = out.hidden_states[len(out.hidden_states) // 2]
    rows, cols, want = [], [], []
    for k, p in enumerate(part):
        if p[4]:
            rows += [k] * len(p[4][0])
            cols += p[4][0]
            want += [float(t) for t in p[4][1]]
    seen = (F.binary_cross_entropy_with_logits(presence(middle[rows, cols]).squeeze(-1), torch.tensor(want, device=DEVICE),
                                               reduction="sum") if rows else torch.zeros((), device=DEVICE))
    looks = [-torch.log(caught[layer][k, spot, at].sum() + 1e-6) for k, p in enumerate(part) for layer, spot, at in p[5]]
    look = torch.stack(looks).sum() if looks else torch.zeros((), device=DEVICE)
    spots = [(k, spot, box) for k, p in enumerate(part) for spot, box in p[6]]
    place = torch.zeros((), device=DEVICE)
    if spots and place_head is not None:
        after = out.hidden_states[READ_LAYER + 1]
        guess = place_head(after[[k for k, _, _ in spots], [spot for _, spot, _ in spots]])
        place = F.smooth_l1_loss(guess, torch.tensor([box for *_, box in spots], device=DEVICE), beta=0.02, reduction="sum") / 4
    right = (logits.argmax(-1) == targets[where]).sum().item()
    return (answers, seen, look, place), right, int(where.sum().item())


def probe_set(model, enc, seed: int, count: int = 64):
    """Stills the training never draws (a generator of their own, apart from the measure's), for a
    yes/no figure while the language model learns: progress, never used to choose anything."""
    return watch_stills(model, enc, np.random.default_rng(seed + 31337), count)[2]


def probe(enc, model, probes) -> float:
    got = yes_no(enc, model, *probes)
    return float(np.mean([a == b for g, t in zip(got, probes[4]) for a, b in zip(g, t)]))


def causal(enc, model):
    """Stops unless the language model is causal as it trains: a sequence that differs from another
    only after its 8th token must give its first 8 tokens the same hidden states, in a padded batch
    (the model makes a mask) and alone (it may make none)."""
    import torch
    first = enc.tok.encode("<|im_start|>user\nIs there a red ball? Yes, a red ball on a plain background.", add_special_tokens=False)
    other = first[:8] + enc.tok.encode(" No blue star left of a green square here", add_special_tokens=False)
    n = max(len(first), len(other))
    for padded in (True, False):
        hidden = []
        for seq in (first, other):
            rows = [(seq, n), (first[:5], n)] if padded else [(seq, len(seq))]
            ids = torch.tensor([r + [enc.tok.pad_token_id] * (w - len(r)) for r, w in rows], device=DEVICE)
            mask = torch.tensor([[1] * len(r) + [0] * (w - len(r)) for r, w in rows], device=DEVICE)
            with torch.no_grad():
                hidden.append(model.model.language_model(input_ids=ids, attention_mask=mask).last_hidden_state)
        change = (hidden[0][0, :8] - hidden[1][0, :8]).abs().max().item()
        if change > 1e-5:
            raise SystemExit(f"train: the language model sees ahead while it trains (a change after token 8 moves the "
                             f"first 8 by {change:.3g}, {'in a padded batch' if padded else 'alone'})")


READ_ATTENTION = "lookd_read"


def read_attention(module, query, key, value, attention_mask, scaling, dropout=0.0, **kwargs):
    """Plain attention (its weights are the looking heads') under a causal mask built here from
    whatever mask the model made (a boolean one, an additive one, or none)."""
    import torch
    from transformers.models.qwen3_5.modeling_qwen3_5 import eager_attention_forward
    n, m = query.shape[-2], key.shape[-2]
    allowed = torch.ones(n, m, dtype=torch.bool, device=query.device).tril(m - n)
    if attention_mask is not None:
        allowed = allowed & (attention_mask if attention_mask.dtype == torch.bool else attention_mask == 0)
    additive = torch.zeros(allowed.shape, dtype=query.dtype, device=query.device).masked_fill(~allowed, torch.finfo(query.dtype).min)
    return eager_attention_forward(module, query, key, value, additive, scaling, dropout, **kwargs)


def answer_stage(model):
    """Sets the model up as the answer stage trains it (the tower and merger frozen, the looking
    layers on plain attention); returns what puts the looking layers back."""
    for p in list(model.model.vision_tower.parameters()) + list(model.model.merger.parameters()):
        p.requires_grad_(False)
    # The looking heads' weights are read, so their layers (only) run the plain attention, on a mask
    # of their own (read_attention): the mask the model builds is for its own attention (SDPA's:
    # True where a token may look, or none at all, leaving SDPA to be causal), and plain attention
    # adds that mask to its scores, so a looking layer handed it attended to the tokens after its
    # own and could read the answer it was being taught to write (found 2026-12-05; every pair
    # before was trained so). causal() checks it. The other layers keep SDPA: the whole model on
    # plain attention takes 1.7 times as long a step.
    import copy
    from transformers import AttentionInterface
    AttentionInterface.register(READ_ATTENTION, read_attention)
    attentions = [model.model.language_model.layers[n].self_attn for n in (LOOK_LAYER, READ_LAYER)]
    shared = attentions[0].config
    for attention in attentions:
        attention.config = copy.copy(shared)
        attention.config._attn_implementation_internal = READ_ATTENTION

    def restore():
        for attention in attentions:
            attention.config = shared
    return restore


def step_loss(answers, seen, look, placed, place_weight: float):
    """The answer stage's loss from answer_loss's parts."""
    return answers + 0.5 * seen + 0.5 * look + place_weight * placed


def train_answers(model, enc, pool, rng, steps: int, per_step: int = 16, questions: int = 3, probes=None,
                  place_weight: float = 0.0, box_step: int = 1, per_photo_step: int = 16):
    import torch
    restore = answer_stage(model)
    causal(enc, model)
    presence = torch.nn.Linear(model.config.text_config.hidden_size, 1).to(DEVICE)
    params = list(model.model.language_model.parameters()) + list(presence.parameters())
    # The place head: the asked thing's box, regressed from READ_LAYER's output (when weighed at all).
    place = torch.nn.Linear(model.config.text_config.hidden_size, 4).to(DEVICE) if place_weight > 0 else None
    if place is not None:
        params += list(place.parameters())
    opt = torch.optim.AdamW(params, lr=2e-3, betas=(0.9, 0.98), weight_decay=0.01)
    frames = [k for k, p in enumerate(pool) if len(p[1]) == 1]
    photos = [k for k, p in enumerate(pool) if len(p[1]) > 1]
    started = time.monotonic()
    for step in range(steps):
        lr = schedule(step, steps, 2e-3, min(60, steps // 10 + 1))
        for g in opt.param_groups:
            g["lr"] = lr
        # Photos (sliced, long) take their own steps, so a step's padding stays short; fewer of them a
        # step (--photo-batch): a photo's sequences are 2.5 times a frame's, and 16 photos' step took
        # 5.2 s against a frame step's 1.3, two fifths of the stage's time.
        source, wanted = (photos, per_photo_step) if photos and step % 8 == 7 else (frames, per_step)
        picked = [pool[source[i]] for i in rng.choice(len(source), min(wanted, len(source)), replace=False)]
        items = [(f, s, layout, scene, questions_for(rng, scene, questions, box_step))
                 for f, s, layout, scene in picked]
        answers, seen, look, placed, right = answer_loss(enc, model, presence, place, items)
        loss = step_loss(answers, seen, look, placed, place_weight)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        opt.step()
        probing = step % 100 == 99 or step == steps - 1
        if step % 20 == 0 or probing:
            held = f" · yes/no on {len(probes[0])} unseen stills {probe(enc, model, probes):.1%}" if probes and probing else ""
            progress("answer", step, steps, started, f"loss {answers.item():.3f} (answers) {seen.item():.3f} (presence) "
                     f"{look.item():.3f} (looking) {placed.item():.3f} (place) · answer tokens right {right:.1%}{held} · lr {lr:.1e}")
    restore()


def train(model, enc, drawing, seed: int, recipe):
    import torch
    torch.manual_seed(seed)
    started = time.monotonic()
    model.train()
    train_vision(model, enc, drawing, seed, recipe.see_steps, recipe.see_batch, recipe.tower_digits)
    pool = encode_pool(model, enc, drawing, seed, recipe.pool)
    train_answers(model, enc, pool, np.random.default_rng([seed, 3]), recipe.answer_steps, recipe.answer_batch,
                  probes=probe_set(model, enc, seed), place_weight=recipe.place_weight,
                  box_step=BOX_STEP if recipe.tower_digits > 0 else 1, per_photo_step=recipe.photo_batch)
    model.eval()
    return time.monotonic() - started


# --- conversion -------------------------------------------------------------------------------------

def convert(ckpt: Path, out_dir: Path):
    """The pinned converter (as the 4.6 graph it is), then the keys upstream's 4.7 files carry
    (tools/fixture_models_47.py): the language model Q8_0, the mmproj F16 as upstream publishes it."""
    cfg = json.loads((ckpt / "config.json").read_text())
    cfg["architectures"] = ["MiniCPMV4_6ForConditionalGeneration"]
    cfg["model_type"] = "minicpmv4_6"
    (ckpt / "config.json").write_text(json.dumps(cfg))
    with tempfile.TemporaryDirectory() as tmp:
        fm.convert(LLAMA_SRC, ckpt, Path(tmp), STEM + "-46", outtype="q8_0", mmproj_outtype="f16")
        sys.path.insert(0, str(LLAMA_SRC / "gguf-py"))
        import gguf
        from gguf.scripts.gguf_new_metadata import MetadataDetails, copy_with_new_metadata
        jobs = [(f"{STEM}-46-Q8_0.gguf", f"{STEM}-Q8_0.gguf",
                 {"qwen35.rope.mrope_time_slot": MetadataDetails(gguf.GGUFValueType.UINT32, 3),
                  "general.name": MetadataDetails(gguf.GGUFValueType.STRING, "shapes-tiny")}),
                (f"{STEM}-46-mmproj-F16.gguf", f"{STEM}-mmproj-F16.gguf",
                 {"clip.projector_type": MetadataDetails(gguf.GGUFValueType.STRING, "minicpmv4_7"),
                  "general.name": MetadataDetails(gguf.GGUFValueType.STRING, "shapes-tiny")})]
        for src, dst, meta in jobs:
            reader = gguf.GGUFReader(str(Path(tmp) / src), "r")
            arch = reader.fields["general.architecture"].contents()
            writer = gguf.GGUFWriter(str(out_dir / dst), arch=arch, endianess=reader.endianess)
            copy_with_new_metadata(reader, writer, meta, [])


# --- measuring on scenes it never saw ----------------------------------------------------------------

def features(enc, model, pictures):
    import torch
    pixels = torch.cat([p for p, _, _ in pictures], dim=-1).to(DEVICE)
    sizes = torch.cat([s for _, s, _ in pictures], dim=0).to(DEVICE)
    out, start = [], 0
    feats = model.model.get_image_features(pixels, sizes).pooler_output
    for _, s, _ in pictures:
        out.append(feats[start:start + len(s)])
        start += len(s)
    return out


def encoded(per_image):
    """Pictures' features (a list a picture, one tensor a slice) as the model takes them pre-encoded."""
    from transformers.modeling_outputs import BaseModelOutputWithPooling
    return {"image": BaseModelOutputWithPooling(pooler_output=[f for fs in per_image for f in fs])}


def forward_hidden(enc, model, seqs, per_image, sizes):
    import torch
    n = max(len(s) for s in seqs)
    pad = enc.tok.pad_token_id
    input_ids = torch.tensor([s + [pad] * (n - len(s)) for s in seqs], device=DEVICE)
    mask = torch.tensor([[1] * len(s) + [0] * (n - len(s)) for s in seqs], device=DEVICE)
    mm = (input_ids == model.config.image_token_id).int()
    model.model.rope_deltas = None
    hidden = model.model(input_ids=input_ids, attention_mask=mask, mm_token_type_ids=mm, target_sizes=torch.cat(sizes).to(DEVICE),
                         mm_encoder_outputs=encoded(per_image)).last_hidden_state
    model.model.rope_deltas = None
    return hidden


def greedy(enc, model, pics, feats, questions, limit):
    """Greedy answers, a batch at a time: transformers' generate with its cache, the prompts padded on
    the left (the canvas positions skip the padding), on the pictures' features as `features` gave
    them (the tower runs once a picture, not once a question)."""
    import torch
    seqs = [enc.sequence(p[2], q, None)[0] for p, q in zip(pics, questions)]
    n = max(len(s) for s in seqs)
    pad, end = enc.tok.pad_token_id, enc.end[0]
    ids = torch.tensor([[pad] * (n - len(s)) + s for s in seqs], device=DEVICE)
    mask = torch.tensor([[0] * (n - len(s)) + [1] * len(s) for s in seqs], device=DEVICE)
    model.model.rope_deltas = None
    with torch.no_grad():
        out = model.generate(input_ids=ids, attention_mask=mask,
                             mm_encoder_outputs=encoded(feats),
                             target_sizes=torch.cat([p[1] for p in pics], dim=0).to(DEVICE),
                             mm_token_type_ids=(ids == model.config.image_token_id).int(), max_new_tokens=limit, do_sample=False,
                             eos_token_id=end, pad_token_id=pad)
    model.model.rope_deltas = None
    answers = []
    for row in out[:, n:].tolist():
        answers.append(enc.tok.decode(row[:row.index(end)] if end in row else [t for t in row if t != pad]))
    return answers


def yes_no(enc, model, layouts, feats, sizes, prompts, truths):
    """P(yes) at each numbered line, read as lookd's constrained answers read it: the model's Yes
    logit against its No logit after `i.`, the lines before given as they truly are."""
    import torch
    yes_id = enc.tok.encode(" Yes", add_special_tokens=False)[0]
    no_id = enc.tok.encode(" No", add_special_tokens=False)[0]
    seqs, spots = [], []
    for l, p, t in zip(layouts, prompts, truths):
        ids = enc.sequence(l, p, None)[0]
        marks = []
        for i, yes in enumerate(t):
            ids += enc.tok.encode(("\n" if i else "") + f"{i + 1}.", add_special_tokens=False)
            marks.append(len(ids) - 1)
            ids.append(yes_id if yes else no_id)
        seqs.append(ids)
        spots.append(marks)
    with torch.no_grad():
        hidden = forward_hidden(enc, model, seqs, feats, sizes)
    out = []
    for k, marks in enumerate(spots):
        logits = model.lm_head(hidden[k, marks])
        out.append((logits[:, yes_id] >= logits[:, no_id]).tolist())
    return out


def parse_box(text):
    import re
    nums = [float(x) for x in re.findall(r"\d+(?:\.\d+)?", text)[:4]]
    if len(nums) < 4:
        return None
    x1, y1, x2, y2 = nums
    return (min(x1, x2), min(y1, y2), max(x1, x2), max(y1, y2))


def names_right(sentence, scene):
    """A sentence names every thing in the scene and nothing absent."""
    said = set()
    words = sentence.lower().replace(",", " ").replace(".", " ").split()
    for i in range(len(words) - 1):
        if words[i] in W.COLOURS and words[i + 1].rstrip("s") in W.SHAPES:
            said.add((words[i], words[i + 1].rstrip("s")))
    return said == {(t.colour, t.shape) for t in scene.things}


def watch_stills(model, enc, rng, count: int, first: int = 0):
    """`count` frames drawn from `rng`, each with a watch prompt of 1–8 rules (the count going round
    from `first`): the scenes, their pictures, and `yes_no`'s arguments (the truth last)."""
    import torch
    scenes = [W.random_scene(rng, W.FRAME, edges=rng.random() < 0.2) for _ in range(count)]
    pics = [enc.picture(W.render(s)) for s in scenes]
    with torch.no_grad():
        feats = features(enc, model, pics)
    phrases = [W.phrases_for(rng, s, (first + k) % 8 + 1) for k, s in enumerate(scenes)]
    return scenes, pics, ([p[2] for p in pics], feats, [p[1] for p in pics], [W.watch_prompt(p) for p in phrases],
                          [[s.present(q) for q in p] for s, p in zip(scenes, phrases)]), phrases


def measure(model, enc, seed: int, count: int):
    """Held-out figures: scenes from a generator seeded apart from training's."""
    rng = np.random.default_rng(seed + 7919)
    started = time.monotonic()
    yes_right = yes_total = 0
    by_rules = {n: [0, 0] for n in range(1, 9)}
    by_kind = {}
    ious, cells, words_ok, described = [], [], [], []
    chunk = 64
    for first in range(0, count, chunk):
        scenes, pics, asked, phrases = watch_stills(model, enc, rng, min(chunk, count - first), first)
        truths = asked[4]
        for k, got in enumerate(yes_no(enc, model, *asked)):
            right = sum(a == b for a, b in zip(got, truths[k]))
            for p, a, b in zip(phrases[k], got, truths[k]):
                tally = by_kind.setdefault(W.rule_kind(scenes[k], p), [0, 0])
                tally[0] += a == b
                tally[1] += 1
            yes_right += right
            yes_total += len(got)
            by_rules[len(got)][0] += right
            by_rules[len(got)][1] += len(got)
        have = [k for k, s in enumerate(scenes) if s.things]
        picked = [scenes[k].things[rng.integers(len(scenes[k].things))].phrase for k in have]
        shown, seen = [pics[k] for k in have], [asked[1][k] for k in have]
        boxes = greedy(enc, model, shown, seen, [W.box_question(p) for p in picked], 24)
        for k, p, text in zip(have, picked, boxes):
            got = parse_box(text)
            truth = W.per_mille(scenes[k], W.visible_box(scenes[k], scenes[k].find(p)))
            ious.append(W.iou(got, truth) if got else 0.0)
        answers = greedy(enc, model, shown, seen, [W.cell_question(p) for p in picked], 3)
        cells += [a.strip()[:1] == str(W.cell_of(scenes[k], p)) for k, p, a in zip(have, picked, answers)]
        answers = greedy(enc, model, shown, seen, [W.words_question(p) for p in picked], 4)
        words_ok += [a.strip() == W.words_answer(scenes[k], p) for k, p, a in zip(have, picked, answers)]
        answers = greedy(enc, model, shown, seen, [W.describe_question(p) for p in picked], 40)
        described += [names_right(a, scenes[k]) for k, a in zip(have, answers)]
        done = first + len(scenes)
        spent = time.monotonic() - started
        log(f"measure: {done}/{count} stills · about {spent / done * (count - done) / 60:.1f} min left")
    ious_sorted = sorted(ious)
    return {
        "stills": count,
        "yes_no_accuracy": yes_right / yes_total,
        "yes_no_by_rules": {n: round(r / t, 4) for n, (r, t) in by_rules.items() if t},
        "yes_no_by_kind_of_rule": {k: {"accuracy": round(r / t, 4), "rules": t} for k, (r, t) in sorted(by_kind.items())},
        "box_iou_median": ious_sorted[len(ious_sorted) // 2],
        "box_iou_at_least_0.5": sum(i >= 0.5 for i in ious) / len(ious),
        "cell_accuracy": sum(cells) / len(cells),
        "cell_words_accuracy": sum(words_ok) / len(words_ok),
        "describe_correct": sum(described) / len(described),
        "asked": {"box": len(ious), "cell": len(cells), "words": len(words_ok), "describe": len(described)},
    }


def measure_all(model, enc, seed: int, held_out: int):
    """The figures the model card gives: measure's on `held_out` stills, and the clips'."""
    figures = measure(model, enc, seed, held_out)
    figures["clips"] = measure_clips(model, enc, seed)
    return figures


def measure_clips(model, enc, seed: int, clips: int = 3, seconds: float = 30.0, fps: float = 2.0):
    """Yes/no accuracy on the frames of clips of things that come in, move and leave."""
    import torch
    rng = np.random.default_rng(seed + 104729)
    right = total = 0
    for _ in range(clips):
        base = W.random_scene(rng, W.FRAME, count=0)
        tracks = W.random_tracks(rng, W.FRAME, seconds, int(rng.integers(2, 5)))
        phrases = [f"a {t.colour} {t.shape}" for t in tracks] + W.phrases_for(rng, base, 2)
        frames = [W.clip_scene(base, tracks, i / fps) for i in range(int(seconds * fps))]
        for first in range(0, len(frames), 16):
            scenes = frames[first:first + 16]
            pics = [enc.picture(W.render(s)) for s in scenes]
            with torch.no_grad():
                feats = features(enc, model, pics)
            truths = [[s.present(p) for p in phrases] for s in scenes]
            got = yes_no(enc, model, [p[2] for p in pics], feats, [p[1] for p in pics],
                         [W.watch_prompt(phrases)] * len(scenes), truths)
            for g, t in zip(got, truths):
                right += sum(a == b for a, b in zip(g, t))
                total += len(g)
    return {"clips": clips, "frames": int(seconds * fps) * clips, "yes_no_accuracy": right / total}


def quiet_worker():
    import torch
    torch.set_num_threads(1)


def packed(job):
    """A drawing process's result as plain pickled bytes: tensors by value, not shared memory's file
    handles (a batch holds hundreds of small tensors)."""
    import pickle
    fn, task = job
    return pickle.dumps(fn(task))


def drawer(workers: int):
    """`drawing(tasks, fn)`: fn over tasks, in order and lazily, in `workers` forked processes (which
    share ENC), at most a few tasks a process ahead of the training; or here, with no workers."""
    if workers <= 0:
        return lambda tasks, fn: map(fn, tasks)
    import collections
    import multiprocessing
    import pickle
    procs = multiprocessing.get_context("fork").Pool(workers, initializer=quiet_worker)

    def drawing(tasks, fn):
        pending = collections.deque()
        for task in tasks:
            pending.append(procs.apply_async(packed, ((fn, task),)))
            if len(pending) >= 3 * workers:
                yield pickle.loads(pending.popleft().get())
        while pending:
            yield pickle.loads(pending.popleft().get())
    return drawing


def arguments():
    """The script's options; their defaults are the recipe (NOTES.md: continuing the answer stage used them too)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("llama_src")
    ap.add_argument("out_dir")
    ap.add_argument("--seed", type=int, default=20261202)
    ap.add_argument("--see-steps", type=int, default=2800, help="stage 1: steps of crops (or a quarter as many whole pictures) for the tower")
    ap.add_argument("--see-batch", type=int, default=16, help="stage 1: crops a step")
    ap.add_argument("--pool", type=int, default=2000, help="pictures the trained tower encodes for stage 2")
    ap.add_argument("--answer-steps", type=int, default=1150, help="stage 2: steps of pictures with 3 questions each")
    ap.add_argument("--answer-batch", type=int, default=16, help="stage 2: pictures a step")
    ap.add_argument("--photo-batch", type=int, default=8, help="stage 2: photos a photo step (every 8th step)")
    ap.add_argument("--place-scale", type=float, default=1.0,
                    help="make the tower's position table a fixed smooth code of row and column at this scale (0: learnt from random)")
    ap.add_argument("--place-weight", type=float, default=1.0,
                    help="weight of a training-only head that regresses the thing's box from layer 4's output at each box, cell and words answer (0: none)")
    ap.add_argument("--tower-digits", type=float, default=0.25,
                    help="stage 1: weight of the heads that name, from each thing token, its box's digits and its cell (0: none)")
    ap.add_argument("--edges-in-view", type=float, default=W.IN_VIEW,
                    help="the training scenes' things at the frame's edge: at least this share of each box in view, as a clip counts "
                         f"a thing there ({W.IN_VIEW}) (0: at least 70 %% of each side in view)")
    ap.add_argument("--device", default="cpu", help="where the model trains and is measured: cpu, or cuda")
    ap.add_argument("--threads", type=int, default=2, help="torch's threads in the training process")
    ap.add_argument("--workers", type=int, default=0, help="processes that draw the pictures (0: the training process draws them)")
    ap.add_argument("--held-out", type=int, default=1000)
    ap.add_argument("--keep-checkpoint", default="", help="a folder to copy the trained transformers checkpoint into")
    ap.add_argument("--measure-only", default="", help="measure a checkpoint saved by --keep-checkpoint; no training")
    return ap


def main():
    global LLAMA_SRC, DEVICE, ENC, EDGES_IN_VIEW
    ap = arguments()
    args = ap.parse_args()
    LLAMA_SRC = Path(args.llama_src).resolve()
    DEVICE = args.device
    if not 0 <= args.edges_in_view <= 1:
        ap.error("--edges-in-view is a share of a box: from 0 to 1")
    for name in ("see_steps", "see_batch", "pool", "answer_steps", "answer_batch", "photo_batch", "held_out"):
        if getattr(args, name) < 1:
            ap.error(f"--{name.replace('_', '-')} takes a whole number of 1 or more")
    EDGES_IN_VIEW = args.edges_in_view or None
    os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")  # cuBLAS's deterministic mode
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")  # the drawing processes are forked
    import torch
    torch.set_num_threads(args.threads)
    # On the CPU every kernel is deterministic; on a GPU a kernel with no deterministic form warns.
    torch.use_deterministic_algorithms(True, warn_only=DEVICE != "cpu")
    if args.measure_only:
        model, _, enc = load_checkpoint(Path(args.measure_only), DEVICE)
        figures = measure_all(model, enc, args.seed, args.held_out)
        print(json.dumps(figures, indent=1))
        return
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        ckpt = Path(tmp) / "checkpoint"
        ckpt.mkdir()
        model, config, vocab = make_model(ckpt, args.seed)
        if args.place_scale > 0:
            place_code(model, args.place_scale)
        fm.save(model, ckpt)
        enc = ENC = Encoder(ckpt, config)
        drawing = drawer(args.workers)  # forked before the model goes to the device
        model.to(DEVICE)
        n = sum(p.numel() for p in model.parameters())
        log(f"train: {n / 1e6:.2f} M parameters, on {DEVICE}, {args.workers} drawing processes")
        spent = train(model, enc, drawing, args.seed, args)
        (ckpt / "model.safetensors").unlink()  # the untrained weights, replaced by shards (each < 12 MB)
        model.save_pretrained(str(ckpt), safe_serialization=True, max_shard_size="12MB")
        out = Path(args.out_dir).resolve()
        out.mkdir(parents=True, exist_ok=True)
        if args.keep_checkpoint:
            import shutil
            shutil.copytree(ckpt, args.keep_checkpoint, dirs_exist_ok=True)
        log("convert: the pinned llama.cpp converter, language model Q8_0, mmproj F16")
        convert(ckpt, out)
        figures = measure_all(model, enc, args.seed, args.held_out)
        figures["training_minutes"] = round(spent / 60, 1)
        figures["script_minutes"] = round((time.monotonic() - started) / 60, 1)
        figures["parameters"] = n
        figures["seed"] = args.seed
        figures["torch"] = torch.__version__  # the same seed on another torch build or CPU may draw other weights
        figures["recipe"] = {"see_steps": args.see_steps, "see_batch": args.see_batch, "pool": args.pool,
                             "answer_steps": args.answer_steps, "answer_batch": args.answer_batch, "photo_batch": args.photo_batch,
                             "place_scale": args.place_scale, "place_weight": args.place_weight,
                             "tower_digits": args.tower_digits, "edges_in_view": args.edges_in_view, "device": DEVICE}
        (out / f"{STEM}-measured.json").write_text(json.dumps(figures, indent=1) + "\n")
        print(json.dumps(figures, indent=1))


if __name__ == "__main__":
    main()
