"""Quantizes a GGUF file with llama.cpp's own quantizer (llama-cpp-python's llama_model_quantize),
so a file of the side-by-side benchmark holds the tensor types llama.cpp's `llama-quantize` gives
a published file of that type: Q4_K_M keeps some tensors in Q6_K and falls back to Q5_0 / Q8_0
for rows that are not whole 256-value super-blocks (widths 896, 640 and 576 here).

    python benches/local_model/quantize.py IN.gguf OUT.gguf q8_0|q4_k_m
"""
import ctypes
import os
import sys

import llama_cpp

FTYPES = {"q8_0": llama_cpp.LLAMA_FTYPE_MOSTLY_Q8_0, "q4_k_m": llama_cpp.LLAMA_FTYPE_MOSTLY_Q4_K_M}


def main():
    source, target, kind = sys.argv[1], sys.argv[2], sys.argv[3]
    params = llama_cpp.llama_model_quantize_default_params()
    params.ftype = FTYPES[kind]
    params.nthread = 2
    # the bundled model is published as Q4_1 only: its Q4_K_M is requantized from it
    params.allow_requantize = True
    status = llama_cpp.llama_model_quantize(source.encode(), (target + ".part").encode(), ctypes.byref(params))
    if status != 0:
        sys.exit(f"llama_model_quantize failed ({status}) for {source}")
    os.replace(target + ".part", target)


if __name__ == "__main__":
    main()
