"""search/tree_memory.h, the ISMCTS tree's memory, compiled on its own with every warning an error.

The extension that includes it is built with the interpreter's flags (-Wall; -Werror in CI); this
compiles the header alone with -Wall -Wextra -Werror, in a small program that uses every function
it defines (an unused static function is a warning too) and checks what they do.
"""
import pathlib
import shlex
import shutil
import subprocess
import sys
import sysconfig

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
HEADER = ROOT / "search" / "tree_memory.h"
WARNINGS = ["-Wall", "-Wextra", "-Werror"]

PROGRAM = r"""
#include <stdio.h>
#include "tree_memory.h"

#define NKEPT (FAGIN_POOL_MAX_BYTES / (8 * FAGIN_HUGE))
#define CHECK(c) do { if (!(c)) { printf("failed: %s (line %d)\n", #c, __LINE__); return 1; } } while (0)

int main(void) {
    size_t got = 0, bytes = 0, held = 0, big;
    void *small, *again, *huge, *kept[NKEPT + 1];
    int32_t *table;
    int flag = 0;
    size_t i;
    double t0 = fagin_now_ms();

    /* A small chunk comes from malloc as asked; given back, the pool hands the same one out again. */
    small = fagin_chunk_take(1000, &got);
    CHECK(small != NULL && got == 1000);
    fagin_chunk_give(small, 1000, got);
    CHECK(fagin_pool_stats(&bytes) == 1 && bytes == 1000);
    again = fagin_chunk_take(1000, &got);
    CHECK(again == small && got == 1000 && fagin_pool_stats(&bytes) == 0 && bytes == 0);

    /* A chunk of 2 MiB or more is whole huge pages, 2 MiB-aligned. */
    big = FAGIN_HUGE + 1;
    huge = fagin_chunk_take(big, &got);
    CHECK(huge != NULL && got == 2 * FAGIN_HUGE && ((uintptr_t)huge & (FAGIN_HUGE - 1)) == 0);
    memset(huge, 1, got);
    fagin_chunk_give(huge, big, got);
    fagin_chunk_give(again, 1000, 1000);
    CHECK(fagin_pool_stats(&bytes) == 2 && bytes == 1000 + 2 * FAGIN_HUGE);
    CHECK(fagin_pool_release() == 1000 + 2 * FAGIN_HUGE && fagin_pool_stats(&bytes) == 0 && bytes == 0);

    /* The pool keeps at most FAGIN_POOL_MAX_BYTES: a chunk past it is freed at once
       (the chunks are mapped, never written: no memory is used). */
    for (i = 0; i <= NKEPT; i++) {
        kept[i] = fagin_chunk_take(8 * FAGIN_HUGE, &got);
        CHECK(kept[i] != NULL && got == 8 * FAGIN_HUGE);
    }
    for (i = 0; i <= NKEPT; i++) fagin_chunk_give(kept[i], 8 * FAGIN_HUGE, 8 * FAGIN_HUGE);
    CHECK(fagin_pool_stats(&bytes) == NKEPT && bytes == FAGIN_POOL_MAX_BYTES);
    CHECK(fagin_pool_release() == FAGIN_POOL_MAX_BYTES);

    /* Hash tables come zeroed, small (calloc) or mapped; touching writes a zero. */
    table = fagin_table_alloc(16);
    CHECK(table != NULL && table[0] == 0 && table[15] == 0);
    fagin_table_free(table, 16);
    table = fagin_table_alloc(FAGIN_TABLE_MAP_BYTES);
    CHECK(table != NULL && table[0] == 0 && table[FAGIN_TABLE_MAP_BYTES - 1] == 0);
    table[5] = 7;
    fagin_touch(table, 4096);
    CHECK(table[1024] == 0 && table[5] == 7);
    fagin_table_free(table, FAGIN_TABLE_MAP_BYTES);

    /* The relaxed atomics and the clock. */
    fagin_store_flag(&flag, 3);
    CHECK(fagin_load_flag(&flag) == 3);
    fagin_add_size(&held, 40);
    fagin_add_size(&held, -(size_t)15);
    CHECK(fagin_load_size(&held) == 25);
    CHECK(fagin_now_ms() >= t0);
    printf("ok\n");
    return 0;
}
"""


def _compiler():
    cc = shlex.split(sysconfig.get_config_var("CC") or "cc")
    if shutil.which(cc[0]) is None:
        pytest.fail(f"no C compiler ({cc[0]}): the extensions could not have been built either")
    return cc


@pytest.mark.parametrize("optimize", ["-O0", "-O3"])
def test_the_header_compiles_alone_without_warnings_and_works(tmp_path, optimize):
    """Compiled with -Wall -Wextra -Werror at -O0 and -O3 (some warnings need the optimizer's analysis)."""
    source = tmp_path / "tree_memory_check.c"
    source.write_text(PROGRAM, encoding="utf-8")
    exe = tmp_path / "tree_memory_check"
    build = subprocess.run([*_compiler(), *WARNINGS, optimize, "-pthread", f"-I{HEADER.parent}", str(source),
                            "-o", str(exe)], capture_output=True, text=True)
    assert build.returncode == 0, build.stderr
    assert build.stderr == "", build.stderr
    ran = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
    assert ran.returncode == 0 and ran.stdout == "ok\n", ran.stdout + ran.stderr


def test_the_header_ships_with_the_package():
    """An sdist or a wheel built from the repository carries the header the extension includes."""
    tomllib = pytest.importorskip("tomllib") if sys.version_info >= (3, 11) else pytest.importorskip("tomli")
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "*.h" in config["tool"]["setuptools"]["package-data"]["*"]
