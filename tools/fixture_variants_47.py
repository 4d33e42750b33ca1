#!/usr/bin/env python3
"""Makes the variants of the tiny MiniCPM-V 4.7 pair that converters publish (tools/make-fixture-models
runs this after fixture_models_47.py): the same weights, only the keys that say where the positions'
time component goes differ, so every variant that runs must give transformers' reference logits.

- tiny-minicpmv47-nokey-F32.gguf: no time-slot key at all (ggml-org's converter writes none);
- tiny-minicpmv47-zyxt-F32.gguf: `qwen35.rope.section_order = "zyxt"` (time in slot 3), no time-slot key;
- tiny-minicpmv47-tyxz-F32.gguf: `qwen35.rope.section_order = "tyxz"` (the default order: time in slot 0);
- tiny-minicpmv47-badorder-F32.gguf: `qwen35.rope.section_order = "txyz"` (height and width swapped:
  lookd must refuse it);
- tiny-minicpmv47-mmproj-sep-F32.gguf: the mmproj with an extra tensor `v.tok_embd_sep` (a fork's
  embeddings of `</image>`, `<slice>`, `</slice>` and newline), which lookd's llama.cpp ignores.

The base language model (tiny-minicpmv47-F32.gguf) carries `qwen35.rope.mrope_time_slot = 3`.
Needs only gguf-py (the llama.cpp source) and numpy.

Usage: fixture_variants_47.py LLAMA_SRC OUT_DIR
"""
import sys
from pathlib import Path

STEM = "tiny-minicpmv47"
SLOT_KEY = "qwen35.rope.mrope_time_slot"
ORDER_KEY = "qwen35.rope.section_order"


def copy(gguf, src: Path, dst: Path, drop=(), add=None, extra_tensors=()):
    """Copies a GGUF file with keys dropped or added and tensors appended (name, float32 array)."""
    import numpy as np
    reader = gguf.GGUFReader(str(src), "r")
    arch = reader.fields["general.architecture"].contents()
    writer = gguf.GGUFWriter(str(dst), arch=arch, endianess=reader.endianess)
    for field in reader.fields.values():
        if field.name == gguf.Keys.General.ARCHITECTURE or field.name.startswith("GGUF.") or field.name in drop:
            continue
        kind = field.types[0]
        sub = field.types[-1] if kind == gguf.GGUFValueType.ARRAY else None
        writer.add_key_value(field.name, field.contents(), kind, sub_type=sub)
    for key, (value, kind) in (add or {}).items():
        writer.add_key_value(key, value, kind)
    for t in reader.tensors:
        writer.add_tensor_info(t.name, t.data.shape, t.data.dtype, t.data.nbytes, t.tensor_type)
    for name, array in extra_tensors:
        array = np.ascontiguousarray(array, dtype=np.float32)
        writer.add_tensor_info(name, array.shape, array.dtype, array.nbytes, gguf.GGMLQuantizationType.F32)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_ti_data_to_file()
    for t in reader.tensors:
        writer.write_tensor_data(t.data, tensor_endianess=reader.endianess)
    for _, array in extra_tensors:
        writer.write_tensor_data(np.ascontiguousarray(array, dtype=np.float32))
    writer.close()


def main() -> None:
    llama_src, out = Path(sys.argv[1]).resolve(), Path(sys.argv[2]).resolve()
    sys.path.insert(0, str(llama_src / "gguf-py"))
    import gguf
    import numpy as np

    model, mmproj = out / f"{STEM}-F32.gguf", out / f"{STEM}-mmproj-F32.gguf"
    string = gguf.GGUFValueType.STRING
    copy(gguf, model, out / f"{STEM}-nokey-F32.gguf", drop=[SLOT_KEY])
    copy(gguf, model, out / f"{STEM}-zyxt-F32.gguf", drop=[SLOT_KEY], add={ORDER_KEY: ("zyxt", string)})
    copy(gguf, model, out / f"{STEM}-tyxz-F32.gguf", drop=[SLOT_KEY], add={ORDER_KEY: ("tyxz", string)})
    copy(gguf, model, out / f"{STEM}-badorder-F32.gguf", drop=[SLOT_KEY], add={ORDER_KEY: ("txyz", string)})
    width = gguf.GGUFReader(str(mmproj), "r").fields["clip.vision.projection_dim"].contents()
    sep = np.random.default_rng(47).standard_normal((4, width)).astype(np.float32)
    copy(gguf, mmproj, out / f"{STEM}-mmproj-sep-F32.gguf", extra_tensors=[("v.tok_embd_sep", sep)])
    print("fixture_variants_47: 5 variants written", file=sys.stderr)


if __name__ == "__main__":
    main()
