"""The repository stands alone: no file cites a path outside it.

The rulebooks and research notes the project was built from are background, not part of
the repository; a spec cites a published rulebook by title, edition and publisher, and
architecture references point at docs/architecture.md (found from outside: pyproject.toml,
engines/abi.pxd, the specs and the README cited ../shared/ARCHITECTURE.md and shared/seeds/).
"""
import pathlib
import re
import subprocess

ROOT = pathlib.Path(__file__).resolve().parents[1]

# A path that leaves the repository, or the background files by name.
OUTSIDE = re.compile(r"\.\./shared\b|\bshared/(seeds|research)\b|\bARCHITECTURE\.md\b|\b[0-9]{3}_[0-9a-f]{16}\.txt\b")


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
    this = pathlib.Path(__file__).name
    found = [f"{name}:{text.count(chr(10), 0, m.start()) + 1}: {m.group(0)}"
             for name, text in _tracked_text_files() if not name.endswith(this)
             for m in OUTSIDE.finditer(text)]
    assert not found, "cites outside the repository:\n" + "\n".join(found)


def test_the_architecture_it_cites_is_in_the_repository():
    assert (ROOT / "docs" / "architecture.md").is_file()
