"""The repository stands alone: no file cites a path outside it.

The rulebooks and research notes the project was built from are background, not part of
the repository; a spec cites a published rulebook by title, edition and publisher, and
architecture references point at docs/architecture.md (found from outside: pyproject.toml,
engines/abi.pxd, the specs and the README cited the background's architecture page and its
rulebook files by path).
"""
import pathlib
import re
import subprocess

ROOT = pathlib.Path(__file__).resolve().parents[1]

# A path that leaves the repository, or the background files by name (the folder's name is
# kept apart so that this file does not cite it either).
BACKGROUND = "shared"
OUTSIDE = re.compile(rf"\.\./{BACKGROUND}\b|\b{BACKGROUND}/(seeds|research)\b|\bARCHITECTURE\.md\b"
                     r"|\b[0-9]{3}_[0-9a-f]{16}\.txt\b")
# An absolute path into a checkout or a scratch folder (a report once gave its command with the
# checkout's absolute paths): the usual homes of a clone, at the start of a path, not inside a
# relative path or an address; a unix socket's address is not a checkout.
CHECKOUT = re.compile(r"(?<![\w.~-])(?<!unix:)/(?:work|home|tmp|Users|root|mnt|scratch)/")


def _tracked_text_files():
    names = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    for name in names:
        path = ROOT / name
        if path.is_file() and path.stat().st_size < 2_000_000:
            try:
                yield name, path.read_text(encoding="utf-8")
            except UnicodeDecodeError:
                continue


def test_no_file_cites_a_path_outside_the_repository():
    found = [f"{name}:{text.count(chr(10), 0, m.start()) + 1}: {m.group(0)}"
             for name, text in _tracked_text_files() for m in OUTSIDE.finditer(text)]
    assert not found, "cites outside the repository:\n" + "\n".join(found)


def test_no_file_cites_an_absolute_path_into_a_checkout():
    """Commands and examples name files relative to the repository (``--report docs/arena/g``)."""
    found = [f"{name}:{text.count(chr(10), 0, m.start()) + 1}: {text[m.start():m.start() + 60].splitlines()[0]}"
             for name, text in _tracked_text_files() for m in CHECKOUT.finditer(text)]
    assert not found, "cites an absolute path into a checkout:\n" + "\n".join(found)


def test_the_architecture_it_cites_is_in_the_repository():
    assert (ROOT / "docs" / "architecture.md").is_file()


def test_the_readme_fits_on_a_screen_or_two():
    """The README says what fagin is and how to start; the manual lives in docs/."""
    lines = (ROOT / "README.md").read_text(encoding="utf-8").count("\n")
    assert lines <= 250, f"README.md has {lines} lines: move the detail to docs/"


def test_the_readme_layout_names_every_module():
    """The layout table lists every module of the shared packages, one line each."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    layout = readme.split("## Layout", 1)[1].split("\n## ", 1)[0]
    modules = [p for folder in ("engines", "search", "server", "clients") for p in (ROOT / folder).iterdir()
               if p.suffix in (".py", ".pyx", ".pxd", ".pxi", ".h") and p.name != "__init__.py"]
    missing = [f"{m.parent.name}/{m.name}" for m in modules if f"{m.parent.name}/{m.name}" not in layout]
    assert not missing, f"README's layout table does not name: {', '.join(sorted(missing))}"
