"""Declares the Cython extensions only; everything else lives in pyproject.toml.

Each extension is compiled on its own: modules share *types* through
``engines/abi.pxd`` and ``engines/rng.pxd`` (type declarations and inline
helpers only) and pass engine function tables at run time in a PyCapsule, so no
extension ever cimports another one's functions.
"""
import importlib.util
import os
import pathlib

from Cython.Build import cythonize
from setuptools import Extension, setup
from setuptools.command.build_py import build_py

HERE = pathlib.Path(__file__).resolve().parent


def generate_stubs():
    """Runs proto/generate.py: the gRPC/protobuf stubs are build outputs."""
    spec = importlib.util.spec_from_file_location("fagin_proto_generate", HERE / "proto" / "generate.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.generate()


class BuildPyWithStubs(build_py):
    def run(self):
        generate_stubs()
        super().run()

# Hot loops run without bounds checks; modules that read client data
# (the engines' decoders) re-enable them locally with decorators.
HOT = {
    "boundscheck": False,
    "wraparound": False,
    "cdivision": True,
    "initializedcheck": False,
    "language_level": 3,
}

# Every .pyx is an extension, found rather than listed: a game's engine is
# engines/<game>/engine.pyx (module fagin.engines.<game>.engine); server/wire.pyx
# reads requests' states.
PACKAGE_DIRS = {"engines": "fagin.engines", "search": "fagin.search", "server": "fagin.server"}


def find_extensions():
    found = []
    for folder, package in PACKAGE_DIRS.items():
        for src in sorted((HERE / folder).rglob("*.pyx")):
            rel = src.relative_to(HERE / folder).with_suffix("")
            found.append((".".join((package, *rel.parts)), str(src.relative_to(HERE))))
    return found


def find_game_packages():
    """fagin.engines.<game> for every engines/<game>/ room (a folder with an __init__.py)."""
    return [f"fagin.engines.{d.name}" for d in sorted((HERE / "engines").iterdir())
            if (d / "__init__.py").is_file()]


EXTENSIONS = find_extensions()

# Functions and loops start on cache-line boundaries: where a hot loop falls otherwise
# depends on unrelated code around it, and moved a search's speed by 4-5 % when Python-level
# functions left an engine (docs/search.md, "Benchmarks").
extra_compile_args = ["-O3", "-falign-functions=64", "-falign-loops=32"]
if os.environ.get("FAGIN_DEBUG_BUILD"):
    extra_compile_args = ["-O0", "-g"]
# The C build is kept free of compiler warnings: CI (and FAGIN_STRICT_BUILD=1)
# turns them into errors so that a new one cannot slip in.
if os.environ.get("CI") or os.environ.get("FAGIN_STRICT_BUILD"):
    extra_compile_args.append("-Werror")


def extension(name, src):
    """An extension; the C headers beside its source (search/tree_memory.h) are on its include
    path and are its dependencies, so that a changed header rebuilds it (pyproject.toml's
    package data ships them)."""
    folder = (HERE / src).parent
    headers = sorted(str(h.relative_to(HERE)) for h in folder.glob("*.h"))
    return Extension(name, [src], extra_compile_args=extra_compile_args, depends=headers,
                     include_dirs=[str(folder.relative_to(HERE))] if headers else [])


def ext_modules():
    # `make` installs the project editable with FAGIN_SKIP_EXTENSIONS=1 and then compiles the
    # extensions in place with build_ext: without it they would be compiled twice, once by
    # `pip install -e` (into a build folder the editable install never reads) and once in place.
    if os.environ.get("FAGIN_SKIP_EXTENSIONS"):
        return []
    return cythonize([extension(name, src) for name, src in EXTENSIONS], include_path=["."],
                     compiler_directives=HOT)


setup(
    packages=["fagin", "fagin.v1", "fagin.engines", "fagin.search", "fagin.server", "fagin.clients",
              *find_game_packages()],
    cmdclass={"build_py": BuildPyWithStubs},
    ext_modules=ext_modules(),
)
