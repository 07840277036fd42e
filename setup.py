"""Declares the Cython extensions only; everything else lives in pyproject.toml.

A module cimports another under its package name, ``fagin.engines.abi`` or
``fagin.search.tree``, the name it is imported by at run time, so that a compiled
module may cimport another compiled module's functions through its ``.pxd`` (the
rooms cimport ``fagin.engines.learned``).  The folders are mapped into the ``fagin``
package only at install time (``package-dir``), so Cython finds those ``.pxd`` files
in a tree of links built here: ``build/cython/fagin/`` links to the folders.  Games
still hand their function tables to the search at run time in a PyCapsule
(docs/architecture.md, "One package from several folders").
"""
import importlib.util
import os
import pathlib

from Cython.Build import cythonize
from setuptools import Extension, setup
from setuptools.command.build_py import build_py

HERE = pathlib.Path(__file__).resolve().parent


def generate_stubs():
    """Runs proto/generate.py: fagin.proto's lines for the games, written from the rooms, and
    the gRPC/protobuf stubs are build outputs."""
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

#: Where Cython looks up cimported names: fagin/ in it stands for the installed package.
CIMPORT_ROOT = HERE / "build" / "cython"


def link_package_tree():
    """build/cython/fagin/: a link to each folder of the package (its package-dir mapping) and to
    the root package's __init__.py, made anew where one is missing or points elsewhere.  Links
    rather than copies, so that an edited .pxd is the one Cython reads (and cythonize's
    dependency check sees its time)."""
    root = CIMPORT_ROOT / "fagin"
    root.mkdir(parents=True, exist_ok=True)
    links = {"__init__.py": HERE / "proto" / "fagin" / "__init__.py",
             **{package.split(".")[1]: HERE / folder for folder, package in PACKAGE_DIRS.items()}}
    for name, target in links.items():
        link, to = root / name, os.path.relpath(target, root)
        if link.is_symlink() and os.readlink(link) == to:
            continue
        if link.is_symlink() or link.is_file():
            link.unlink()
        link.symlink_to(to)
    return CIMPORT_ROOT

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
    return cythonize([extension(name, src) for name, src in EXTENSIONS],
                     include_path=[str(link_package_tree())], compiler_directives=HOT)


setup(
    packages=["fagin", "fagin.v1", "fagin.engines", "fagin.search", "fagin.server", "fagin.clients",
              *find_game_packages()],
    cmdclass={"build_py": BuildPyWithStubs},
    ext_modules=ext_modules(),
)
