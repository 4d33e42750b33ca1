#!/usr/bin/env python3
"""Trains `shapes-tiny`: a tiny MiniCPM-V 4.7 (SigLIP tower, window-attention merger, qwen3_5 text)
from scratch on the shapes world (tools/shapes_world.py), on lookd's own questions exactly as lookd
sends them (ChatML, the picture's number, thinking off), then converts it with the pinned llama.cpp's
converter (language model Q8_0, mmproj F16 as upstream publishes) and measures it on held-out scenes
it never saw. tools/train-shapes-tiny runs it; the tests never do.

Deterministic given --seed: the scenes come from numpy generators seeded from it, the weights and
the order from torch's generator, on the CPU with deterministic kernels and a fixed thread count.

Usage: train_shapes_tiny.py LLAMA_SRC OUT_DIR [--seed N] [--steps N] [--minutes M] [--held-out N]
"""
import argparse
import json
import math
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fixture_models as fm  # noqa: E402
import shapes_world as W  # noqa: E402

import numpy as np  # noqa: E402

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


def log(*a):
    print(*a, file=sys.stderr, flush=True)


# --- the model --------------------------------------------------------------------------------------

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
    return model, config, vocab


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

def scene_for(rng):
    r = rng.random()
    if r < 0.12:
        size = W.PHOTO_SIZES[rng.integers(0, 4)] if rng.random() < 0.8 else W.PHOTO_SIZES[rng.integers(4, 6)]
    else:
        size = W.FRAME
    return W.random_scene(rng, size, edges=rng.random() < 0.2)


def questions_for(rng, scene, k: int):
    """`k` (question, answer, kind) pairs about `scene`, as lookd asks them."""
    out = []
    things = scene.things
    while len(out) < k:
        r = rng.random()
        if r < 0.45 or not things:
            if r >= 0.45 and rng.random() < 0.3:
                q, a = ask_question(rng, scene)
                out.append((q, a, "ask"))
                continue
            phrases = W.phrases_for(rng, scene, int(rng.integers(1, 9)))
            out.append((W.watch_prompt(phrases), W.watch_answer(scene, phrases), "watch"))
            continue
        t = things[rng.integers(len(things))]
        phrase = t.phrase if rng.random() < 0.85 else (f"a {t.shape}" if sum(u.shape == t.shape for u in things) == 1 else t.phrase)
        if r < 0.68:
            out.append((W.box_question(phrase), W.box_answer(scene, phrase), "box"))
        elif r < 0.76:
            out.append((W.cell_question(phrase), str(W.cell_of(scene, phrase)), "cell"))
        elif r < 0.84:
            out.append((W.words_question(phrase), W.words_answer(scene, phrase), "words"))
        elif r < 0.93:
            out.append((W.describe_question(phrase), W.sentence(scene), "describe"))
        else:
            q, a = ask_question(rng, scene)
            out.append((q, a, "ask"))
    return out


def ask_question(rng, scene):
    form = ASK_QUESTIONS[rng.integers(len(ASK_QUESTIONS))]
    if "{shape}" in form:
        shape = W.SHAPES[rng.integers(len(W.SHAPES))]
        if scene.things and rng.random() < 0.7:
            shape = scene.things[rng.integers(len(scene.things))].shape
        return form.format(shape=shape), W.colour_answer(scene, shape)
    if form.startswith("How many"):
        return form, W.count_answer(scene)
    return form, W.sentence(scene)


# --- training ---------------------------------------------------------------------------------------

def batch(enc, model, items, aux, scenes):
    """items: [(pixel_values, target_sizes, layout, [(question, answer)…])] → the model's loss: the
    answers' cross-entropy, plus a training-only probe (`aux`, never exported) that reads each picture
    token of the whole-picture crop and names the thing under it: dense gradients that teach the
    tower to see long before the answers alone would."""
    import torch
    pixels = torch.cat([p for p, _, _, _ in items], dim=-1)
    sizes = torch.cat([s for _, s, _, _ in items], dim=0)
    features = model.model.get_image_features(pixels, sizes).pooler_output
    probe_in, probe_labels, start = [], [], 0
    for (pv, s, layout, qa), scene in zip(items, scenes):
        rows, cols = int(s[0][0]) // 4, int(s[0][1]) // 4
        probe_in.append(features[start])
        probe_labels += W.cell_labels(scene, rows, cols)
        start += len(s)
    probe = torch.nn.functional.cross_entropy(aux(torch.cat(probe_in)), torch.tensor(probe_labels))
    per_image, seqs, labels, seq_sizes = [], [], [], []
    start = 0
    for pv, s, layout, qa in items:
        mine = features[start:start + len(s)]
        start += len(s)
        for q, a in qa:
            ids, lab = enc.sequence(layout, q, a)
            seqs.append(ids)
            labels.append(lab)
            per_image.extend(mine)
            seq_sizes.append(s)
    n = max(len(s) for s in seqs)
    pad = enc.tok.pad_token_id
    input_ids = torch.tensor([s + [pad] * (n - len(s)) for s in seqs])
    label_ids = torch.tensor([l + [-100] * (n - len(l)) for l in labels])
    mask = torch.tensor([[1] * len(s) + [0] * (n - len(s)) for s in seqs])
    mm = (input_ids == model.config.image_token_id).int()
    from transformers.modeling_outputs import BaseModelOutputWithPooling
    image = BaseModelOutputWithPooling(pooler_output=per_image)
    model.model.rope_deltas = None
    hidden = model.model(input_ids=input_ids, attention_mask=mask, mm_token_type_ids=mm, target_sizes=torch.cat(seq_sizes),
                         mm_encoder_outputs={"image": image}).last_hidden_state
    model.model.rope_deltas = None
    # The output layer only where there is an answer token to predict (the vocabulary is most of the cost).
    targets = label_ids[:, 1:]
    where = targets != -100
    logits = model.lm_head(hidden[:, :-1][where])
    return torch.nn.functional.cross_entropy(logits.float(), targets[where]), probe


def train(model, enc, seed: int, steps: int, minutes: float):
    import torch
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    aux = torch.nn.Linear(model.config.text_config.hidden_size, len(W.KINDS) + 1)
    opt = torch.optim.AdamW(list(model.parameters()) + list(aux.parameters()), lr=2e-3, betas=(0.9, 0.98), weight_decay=0.01)
    images_per_step, questions_per_image = 10, 3
    budget = minutes * 60
    # The schedule is set in steps, not in time, so the result is the same on any machine; `minutes`
    # is only a safety stop (a run it stops says so, and is no longer the seed's model).
    warm = min(100, steps // 10 + 1)
    model.train()
    started = time.monotonic()
    for step in range(steps):
        lr = 2e-3 * min(1.0, (step + 1) / warm) * (0.5 * (1 + math.cos(math.pi * step / steps)) * 0.95 + 0.05)
        for g in opt.param_groups:
            g["lr"] = lr
        items, scenes = [], []
        for _ in range(images_per_step):
            scene = scene_for(rng)
            pv, s, layout = enc.picture(W.render(scene))
            qa = [(q, a) for q, a, _ in questions_for(rng, scene, questions_per_image)]
            items.append((pv, s, layout, qa))
            scenes.append(scene)
        answers, probe = batch(enc, model, items, aux, scenes)
        loss = answers + probe
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        if step % 20 == 0 or step == steps - 1:
            spent = time.monotonic() - started
            left = spent / (step + 1) * (steps - step - 1)
            log(f"train: step {step + 1}/{steps} · loss {answers.item():.3f} (answers) {probe.item():.3f} (probe) · lr {lr:.2e} · "
                f"{spent / 60:.1f} min · about {left / 60:.1f} min left")
        if time.monotonic() - started > budget:
            log(f"train: the {minutes:g} min budget is spent at step {step + 1}; stopping there")
            break
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
    pixels = torch.cat([p for p, _, _ in pictures], dim=-1)
    sizes = torch.cat([s for _, s, _ in pictures], dim=0)
    out, start = [], 0
    feats = model.model.get_image_features(pixels, sizes).pooler_output
    for _, s, _ in pictures:
        out.append(feats[start:start + len(s)])
        start += len(s)
    return out


def forward_hidden(enc, model, seqs, per_image, sizes):
    import torch
    from transformers.modeling_outputs import BaseModelOutputWithPooling
    n = max(len(s) for s in seqs)
    pad = enc.tok.pad_token_id
    input_ids = torch.tensor([s + [pad] * (n - len(s)) for s in seqs])
    mask = torch.tensor([[1] * len(s) + [0] * (n - len(s)) for s in seqs])
    mm = (input_ids == model.config.image_token_id).int()
    image = BaseModelOutputWithPooling(pooler_output=[f for fs in per_image for f in fs])
    model.model.rope_deltas = None
    hidden = model.model(input_ids=input_ids, attention_mask=mask, mm_token_type_ids=mm, target_sizes=torch.cat(sizes),
                         mm_encoder_outputs={"image": image}).last_hidden_state
    model.model.rope_deltas = None
    return hidden


def greedy(enc, model, pics, questions, limit):
    """Greedy answers, a batch at a time: transformers' generate with its cache, the prompts padded on
    the left (the canvas positions skip the padding)."""
    import torch
    seqs = [enc.sequence(p[2], q, None)[0] for p, q in zip(pics, questions)]
    n = max(len(s) for s in seqs)
    pad, end = enc.tok.pad_token_id, enc.end[0]
    ids = torch.tensor([[pad] * (n - len(s)) + s for s in seqs])
    mask = torch.tensor([[0] * (n - len(s)) + [1] * len(s) for s in seqs])
    model.model.rope_deltas = None
    with torch.no_grad():
        out = model.generate(input_ids=ids, attention_mask=mask, pixel_values=torch.cat([p[0] for p in pics], dim=-1),
                             target_sizes=torch.cat([p[1] for p in pics], dim=0),
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


def measure(model, enc, seed: int, count: int):
    """Held-out figures: scenes from a generator seeded apart from training's."""
    rng = np.random.default_rng(seed + 7919)
    started = time.monotonic()
    yes_right = yes_total = 0
    by_rules = {n: [0, 0] for n in range(1, 9)}
    ious, cells, words_ok, described = [], [], [], []
    chunk = 64
    for first in range(0, count, chunk):
        scenes = [W.random_scene(rng, W.FRAME, edges=rng.random() < 0.2) for _ in range(min(chunk, count - first))]
        pics = [enc.picture(W.render(s)) for s in scenes]
        layouts = [p[2] for p in pics]
        sizes = [p[1] for p in pics]
        import torch
        with torch.no_grad():
            feats = features(enc, model, pics)
        prompts, truths = [], []
        for k, s in enumerate(scenes):
            n = (first + k) % 8 + 1
            phrases = W.phrases_for(rng, s, n)
            prompts.append(W.watch_prompt(phrases))
            truths.append([s.present(p) for p in phrases])
        for k, got in enumerate(yes_no(enc, model, layouts, feats, sizes, prompts, truths)):
            right = sum(a == b for a, b in zip(got, truths[k]))
            yes_right += right
            yes_total += len(got)
            by_rules[len(got)][0] += right
            by_rules[len(got)][1] += len(got)
        have = [k for k, s in enumerate(scenes) if s.things]
        picked = [scenes[k].things[rng.integers(len(scenes[k].things))].phrase for k in have]
        shown = [pics[k] for k in have]
        boxes = greedy(enc, model, shown, [W.box_question(p) for p in picked], 24)
        for k, p, text in zip(have, picked, boxes):
            got = parse_box(text)
            truth = W.per_mille(scenes[k], W.visible_box(scenes[k], scenes[k].find(p)))
            ious.append(W.iou(got, truth) if got else 0.0)
        answers = greedy(enc, model, shown, [W.cell_question(p) for p in picked], 3)
        cells += [a.strip()[:1] == str(W.cell_of(scenes[k], p)) for k, p, a in zip(have, picked, answers)]
        answers = greedy(enc, model, shown, [W.words_question(p) for p in picked], 4)
        words_ok += [a.strip() == W.words_answer(scenes[k], p) for k, p, a in zip(have, picked, answers)]
        answers = greedy(enc, model, shown, [W.describe_question(p) for p in picked], 40)
        described += [names_right(a, scenes[k]) for k, a in zip(have, answers)]
        done = first + len(scenes)
        spent = time.monotonic() - started
        log(f"measure: {done}/{count} stills · about {spent / done * (count - done) / 60:.1f} min left")
    ious_sorted = sorted(ious)
    return {
        "stills": count,
        "yes_no_accuracy": yes_right / yes_total,
        "yes_no_by_rules": {n: round(r / t, 4) for n, (r, t) in by_rules.items() if t},
        "box_iou_median": ious_sorted[len(ious_sorted) // 2],
        "box_iou_at_least_0.5": sum(i >= 0.5 for i in ious) / len(ious),
        "cell_accuracy": sum(cells) / len(cells),
        "cell_words_accuracy": sum(words_ok) / len(words_ok),
        "describe_correct": sum(described) / len(described),
        "asked": {"box": len(ious), "cell": len(cells), "words": len(words_ok), "describe": len(described)},
    }


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


def main():
    global LLAMA_SRC
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("llama_src")
    ap.add_argument("out_dir")
    ap.add_argument("--seed", type=int, default=20261202)
    ap.add_argument("--steps", type=int, default=550, help="training steps of 10 pictures and 30 questions")
    ap.add_argument("--minutes", type=float, default=55.0, help="a safety stop for training, in minutes")
    ap.add_argument("--held-out", type=int, default=1000)
    ap.add_argument("--keep-checkpoint", default="", help="a folder to copy the trained transformers checkpoint into")
    ap.add_argument("--measure-only", default="", help="measure a checkpoint saved by --keep-checkpoint; no training")
    args = ap.parse_args()
    LLAMA_SRC = Path(args.llama_src).resolve()
    import torch
    torch.set_num_threads(2)
    torch.use_deterministic_algorithms(True)
    if args.measure_only:
        from transformers import MiniCPMV4_7Config, MiniCPMV4_7ForConditionalGeneration
        ckpt = Path(args.measure_only)
        config = MiniCPMV4_7Config.from_pretrained(str(ckpt))
        model = MiniCPMV4_7ForConditionalGeneration.from_pretrained(str(ckpt)).eval()
        enc = Encoder(ckpt, config)
        figures = measure(model, enc, args.seed, args.held_out)
        figures["clips"] = measure_clips(model, enc, args.seed)
        print(json.dumps(figures, indent=1))
        return
    with tempfile.TemporaryDirectory() as tmp:
        ckpt = Path(tmp) / "checkpoint"
        ckpt.mkdir()
        model, config, vocab = make_model(ckpt, args.seed)
        fm.save(model, ckpt)
        enc = Encoder(ckpt, config)
        n = sum(p.numel() for p in model.parameters())
        log(f"train: {n / 1e6:.2f} M parameters")
        spent = train(model, enc, args.seed, args.steps, args.minutes)
        model.save_pretrained(str(ckpt), safe_serialization=True)
        out = Path(args.out_dir).resolve()
        out.mkdir(parents=True, exist_ok=True)
        if args.keep_checkpoint:
            import shutil
            shutil.copytree(ckpt, args.keep_checkpoint, dirs_exist_ok=True)
        log("convert: the pinned llama.cpp converter, language model Q8_0, mmproj F16")
        convert(ckpt, out)
        figures = measure(model, enc, args.seed, args.held_out)
        figures["clips"] = measure_clips(model, enc, args.seed)
        figures["training_minutes"] = round(spent / 60, 1)
        figures["parameters"] = n
        figures["seed"] = args.seed
        (out / f"{STEM}-measured.json").write_text(json.dumps(figures, indent=1) + "\n")
        print(json.dumps(figures, indent=1))


if __name__ == "__main__":
    main()
