"""tests/cli/sass_lines.sh: a saved disassembly written for the test (CI has no nvdisasm), with
known instructions at known lines of rk_step, IllinoisBracket::update and StrongeLaw::Run::step
and their inlining chains; the kernel's first body line goes to OUT.kline.
Usage: fake_sass.py SOURCE_ROOT OUT.sass"""
import sys

sys.path.insert(0, sys.argv[1] + "/scripts")
from check_layout import functions

root, out = sys.argv[1], sys.argv[2]
def inside(rel, name):
    for n, a, b in functions(open(f"{root}/{rel}").read()):
        if n.split("::")[-1] == name and b > a + 1:
            return a + 1
    raise SystemExit(f"no {name} in {rel}")
rk, up = inside("include/impact/rk4.hpp", "rk_step"), inside("include/impact/illinois.hpp", "update")
st = inside("include/impact/laws/detail/stronge.hpp", "step")
ax = inside("include/impact/rk4.hpp", "axpy")


def F(rel, line, at=None):
    inlined = f' inlined at "{root}/{at[0]}", line {at[1]}' if at else ""
    return f'\t//## File "{root}/{rel}", line {line}' + inlined


k = ("kernels/cuda/sampled.cu", inside("kernels/cuda/sampled.cu", "sampled_reduce_kernel") + 1)
open(out + ".kline", "w").write(str(k[1]))
lines = [F("include/impact/rk4.hpp", rk, ("include/impact/laws/detail/stronge.hpp", st)),
         F("include/impact/laws/detail/stronge.hpp", st, k), F(*k),
         "        /*0000*/                   LDL.64 R6, [R1+0x488] ;",
         "        /*0010*/                   DFMA R2, R4, R6, R2 ;",
         F("include/impact/illinois.hpp", up, ("include/impact/laws/detail/stronge.hpp", st)),
         F("include/impact/laws/detail/stronge.hpp", st, k), F(*k),
         "        /*0020*/                   STL.64 [R1+0x108], R14 ;",
         "        /*0030*/              @!P0 STL [R1+0x8], R3 ;",
         F(*k),
         "        /*0040*/                   EXIT ;",
         # one comment whose "inlined at" names the next frame out: axpy (no block) inside step
         F("include/impact/rk4.hpp", ax, ("include/impact/laws/detail/stronge.hpp", st)),
         "        /*0050*/                   DADD R2, R4, R6 ;",
         # CUDA's out-of-line division slow path: no line info, whatever came before
         "$__internal_12_$__cuda_sm20_div_rn_f64_full:",
         "        /*0060*/                   LDL R2, [R1+0x10] ;",
         ".L_x_7:",
         "        /*0070*/                   RET.REL.NODEC R20 `(.L_x_0) ;"]
open(out, "w").write("\n".join(lines) + "\n")
