#!/usr/bin/env python3
"""Makes the tiny MiniCPM-V 4.7 test pair and transformers' reference logits for it
(tools/make-fixture-models runs this after fixture_models.py).

1. a transformers MiniCPMV4_7ForConditionalGeneration with the tiny sizes of the 4.6 fixture (the 4.7
   checkpoint has the 4.6 tensor names and shapes), random weights (fixed seed), the marker ids in
   its config;
2. converted by the pinned llama.cpp's own converter as the 4.6 graph it is (that converter does not
   know 4.7), F32, then given the keys upstream's 4.7 GGUFs carry: the language model
   `qwen35.rope.mrope_time_slot = 3` (gguf-py's add_rope_mrope_time_slot; the key name follows
   gguf-py's `{arch}.rope.*` pattern: upstream's exact spelling could not be read here) and the mmproj
   `clip.projector_type = minicpmv4_7`;
3. transformers' logits after the prompt for two pictures (a 448 x 252 frame, one crop; a 1344 x 672
   photo, a thumbnail and slices), with canvas positions and, for comparison, plain sequential ones,
   written with the prompt's token layout to tiny-minicpmv47-reference.json.

Usage: fixture_models_47.py LLAMA_SRC OUT_DIR
"""
import json
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fixture_models as fm  # noqa: E402

STEM = "tiny-minicpmv47"
PICTURES = {"frame": (448, 252, (40, 120, 200)), "photo": (1344, 672, (200, 90, 30))}
QUESTION = "Is there a chessboard?"
# transformers' MiniCPMV4_7Processor numbers each picture (use_image_id, on by default):
# `<image_id>0</image_id>` goes before the first one's `<image>` (its _prepend_local_ids).
IMAGE_ID = ["<image_id>", "</image_id>"]


def make_checkpoint(out: Path, vocab: dict):
    import torch
    from transformers import MiniCPMV4_7Config, MiniCPMV4_7ForConditionalGeneration

    torch.manual_seed(fm.SEED + 47)
    config = MiniCPMV4_7Config(text_config=fm.text_config(vocab, rope_theta=10000.0), vision_config=fm.vision_config(),
                               insert_layer_id=fm.TINY["insert_layer_id"], image_size=448,
                               downsample_mode="16x", image_token_id=vocab["<|image_pad|>"], video_token_id=vocab["<|video_pad|>"],
                               image_start_id=vocab["<image>"], image_end_id=vocab["</image>"], slice_start_id=vocab["<slice>"],
                               slice_end_id=vocab["</slice>"], newline_id=vocab["Ċ"])
    config.architectures = ["MiniCPMV4_7ForConditionalGeneration"]
    model = MiniCPMV4_7ForConditionalGeneration(config)
    fm.randomize(model)
    fm.save(model, out)
    return model.eval(), config


def convert(llama_src: Path, ckpt: Path, out_dir: Path) -> None:
    """As the 4.6 graph, F32, then retagged as upstream's 4.7 files."""
    cfg = json.loads((ckpt / "config.json").read_text())
    cfg["architectures"] = ["MiniCPMV4_6ForConditionalGeneration"]
    cfg["model_type"] = "minicpmv4_6"
    (ckpt / "config.json").write_text(json.dumps(cfg))
    fm.convert(llama_src, ckpt, out_dir, STEM + "-46", outtype="f32")
    sys.path.insert(0, str(llama_src / "gguf-py"))
    import gguf
    from gguf.scripts.gguf_new_metadata import MetadataDetails, copy_with_new_metadata
    jobs = [(f"{STEM}-46-F32.gguf", f"{STEM}-F32.gguf",
             {"qwen35.rope.mrope_time_slot": MetadataDetails(gguf.GGUFValueType.UINT32, 3)}),
            (f"{STEM}-46-mmproj-F32.gguf", f"{STEM}-mmproj-F32.gguf",
             {"clip.projector_type": MetadataDetails(gguf.GGUFValueType.STRING, "minicpmv4_7")})]
    for src, dst, meta in jobs:
        reader = gguf.GGUFReader(str(out_dir / src), "r")
        arch = reader.fields["general.architecture"].contents()
        writer = gguf.GGUFWriter(str(out_dir / dst), arch=arch, endianess=reader.endianess)
        copy_with_new_metadata(reader, writer, meta, [])
        (out_dir / src).unlink()


def prompt_ids(tok, layout_image):
    """The ChatML frame with thinking off, the picture's number and the picture, the question: what
    transformers' processor and chat template give with enable_thinking=False (lookd's ChatTemplate.swift)."""
    before = tok.encode("<|im_start|>user\n" + IMAGE_ID[0] + "0" + IMAGE_ID[1], add_special_tokens=False)
    after = tok.encode("\n" + QUESTION + "<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n", add_special_tokens=False)
    return before + layout_image + after


def reference(model, config, ckpt: Path, out_dir: Path) -> None:
    import torch
    from PIL import Image
    from transformers import AutoTokenizer
    from transformers.models.minicpmv4_6.image_processing_pil_minicpmv4_6 import MiniCPMV4_6ImageProcessorPil as MiniCPMV4_6ImageProcessor

    tok = AutoTokenizer.from_pretrained(str(ckpt))
    processor = MiniCPMV4_6ImageProcessor(**json.loads((ckpt / "preprocessor_config.json").read_text()))
    pad = config.image_token_id
    cases = {}
    for name, (w, h, colour) in PICTURES.items():
        path = out_dir / f"{STEM}-{name}.png"
        Image.new("RGB", (w, h), colour).save(path)
        inputs = processor(images=[Image.open(path).convert("RGB")], return_tensors="pt")
        sizes = inputs["target_sizes"].tolist()
        tokens = [(a // 4) * (b // 4) for a, b in sizes]
        # <image> thumbnail </image>, then rows of <slice> crop </slice> ended by "\n" (no trailing one)
        image = [config.image_start_id] + [pad] * tokens[0] + [config.image_end_id]
        grid = processor.get_sliced_grid((h, w), processor.max_slice_nums, 448) if len(sizes) > 1 else None
        cols = grid[1] if grid else 1
        for k, n in enumerate(tokens[1:]):
            image += [config.slice_start_id] + [pad] * n + [config.slice_end_id]
            if (k + 1) % cols == 0 and k + 2 < len(tokens):
                image.append(config.newline_id)
        ids = prompt_ids(tok, image)
        input_ids = torch.tensor([ids])
        mm = (input_ids == pad).int()
        with torch.no_grad():
            kwargs = dict(input_ids=input_ids, pixel_values=inputs["pixel_values"], target_sizes=inputs["target_sizes"],
                          mm_token_type_ids=mm)
            canvas = model(**kwargs).logits[0, -1]
            model.model.rope_deltas = None
            seq = torch.arange(len(ids)).view(1, 1, -1).expand(4, 1, -1)
            sequential = model(**kwargs, position_ids=seq).logits[0, -1]
            model.model.rope_deltas = None
        cases[name] = {
            "picture": path.name, "size": [w, h], "crops": sizes,
            "layout": [-1 if i == pad else i for i in ids],
            "logits": [round(float(x), 6) for x in canvas],
            "sequential_logits": [round(float(x), 6) for x in sequential],
        }
        d = (canvas - sequential).abs().max().item()
        print(f"{name}: {len(ids)} positions, crops {sizes}, canvas vs sequential max |diff| {d:.4f}", file=sys.stderr)
    (out_dir / f"{STEM}-reference.json").write_text(json.dumps({"question": QUESTION, "cases": cases}, indent=0))


def main() -> None:
    llama_src, out_dir = Path(sys.argv[1]).resolve(), Path(sys.argv[2]).resolve()
    with tempfile.TemporaryDirectory() as tmp:
        ckpt = Path(tmp) / "checkpoint"
        ckpt.mkdir()
        vocab = fm.make_tokenizer(llama_src, ckpt, extra_specials=IMAGE_ID)
        model, config = make_checkpoint(ckpt, vocab)
        reference(model, config, ckpt, out_dir)
        convert(llama_src, ckpt, Path(tmp))
        for f in sorted(Path(tmp).glob("*.gguf")):
            os.replace(f, out_dir / f.name)


if __name__ == "__main__":
    main()
