"""Isolation: every notebook stands alone, writes no file and downloads nothing.

A notebook that writes a file can feed another notebook (which then passes only in one order),
and one that downloads fails offline and in CI. These tests read the code cells of every
notebook (and the sources of ``helpers``) and fail on file writes and network use. The last test
imports and uses ``helpers`` in a child process with no network at all (``unshare -rn``), when
this machine allows it.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
from _course import course_notebooks  # noqa: E402

NOTEBOOKS = course_notebooks()
HELPERS = sorted((ROOT / "helpers").rglob("*.py"))

# Writing a file, in the ways notebook code does it.
WRITES = {
    # a quoted mode made only of mode letters that include w, a, x or +: "w", 'ab', "r+"
    "open() for writing": r"\bopen\([^)]*['\"][rbt]*[wax+][rwxabt+]*['\"]",
    "Path.write_text/write_bytes": r"\.write_(text|bytes)\(",
    "numpy save": r"\bnp\.(save|savez|savez_compressed|savetxt)\(|\.tofile\(",
    "torch.save": r"\btorch\.save\(",
    "pandas export": r"\.to_(csv|json|parquet|pickle|excel|html|latex|feather|hdf)\(",
    "savefig": r"\bsavefig\(",
    "pickle/json dump to a file": r"\b(pickle|json|yaml)\.dump\(",
    "nbformat.write": r"\bnbformat\.write\(",
    "file operations": r"\b(shutil\.(copy\w*|move|rmtree)|os\.(remove|rename|makedirs|mkdir))\(",
    "%%writefile": r"^\s*%%writefile\b",
    "shell redirect": r"^\s*!.*>",
}
# Reaching the network.
NETWORK = {
    "urllib": r"\burllib\b",
    "requests/httpx/aiohttp": r"\b(import|from)\s+(requests|httpx|aiohttp)\b",
    "http client/server": r"\b(import|from)\s+http\b|\bhttp\.client\b",
    "socket": r"\b(import|from)\s+socket\b",
    "a URL in code": r"['\"](https?|ftp)://",
    "a download call or flag": r"\bdownload\w*\s*\(|\bdownload\s*=\s*True",
    "torch.hub": r"\btorch\.hub\b",
    "Hugging Face hub": r"\b(huggingface_hub|hf_hub_download|from_pretrained|load_dataset)\b",
    "shell download or install": r"^\s*[!%].*\b(wget|curl|pip|conda|git\s+clone)\b",
}


def _code_cells(path: Path) -> list[tuple[int, str]]:
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return [(i, "".join(c["source"])) for i, c in enumerate(cells) if c["cell_type"] == "code"]


def _strip_comments(source: str) -> str:
    """Drop ``#`` comments (outside strings, roughly) so that prose about downloads is allowed."""
    lines = []
    for line in source.splitlines():
        code, quote = [], None
        for char in line:
            if quote:
                quote = None if char == quote else quote
            elif char in "'\"":
                quote = char
            elif char == "#":
                break
            code.append(char)
        lines.append("".join(code))
    return "\n".join(lines)


IN_MEMORY = re.compile(
    r"(\w+)\s*=\s*(?:io\.)?(?:BytesIO|StringIO)\(|(?:BytesIO|StringIO)\([^)]*\)\s+as\s+(\w+)"
)


def _findings(source: str, patterns: dict[str, str]) -> list[str]:
    """Lines of ``source`` (comments dropped) that match a pattern, as ``what: line``.

    A write into an in-memory buffer (a name bound to ``io.BytesIO()`` or ``io.StringIO()`` in
    the same source, e.g. ``fig.savefig(buffer, format="png")``) is not a file write.
    """
    code = _strip_comments(source)
    buffers = {name for pair in IN_MEMORY.findall(code) for name in pair if name}
    found = []
    for line in code.splitlines():
        if any(re.search(rf"\b{re.escape(name)}\b", line) for name in buffers):
            continue
        for what, pattern in patterns.items():
            if re.search(pattern, line):
                found.append(f"{what}: {line.strip()}")
    return found


def _ids(paths: list[Path]) -> list[str]:
    return [str(p.relative_to(ROOT)) for p in paths]


def test_there_are_notebooks_to_check():
    assert len(NOTEBOOKS) >= 2


@pytest.mark.parametrize("path", NOTEBOOKS, ids=_ids(NOTEBOOKS))
def test_notebook_writes_no_file(path):
    # With no notebook writing, no notebook can read what another wrote: any order works.
    problems = [f"cell {i}: {f}" for i, src in _code_cells(path) for f in _findings(src, WRITES)]
    assert not problems, f"{path.name} writes files (keep results in memory):\n" + "\n".join(
        problems
    )


@pytest.mark.parametrize("path", NOTEBOOKS, ids=_ids(NOTEBOOKS))
def test_notebook_uses_no_network(path):
    problems = [f"cell {i}: {f}" for i, src in _code_cells(path) for f in _findings(src, NETWORK)]
    assert not problems, f"{path.name} reaches the network:\n" + "\n".join(problems)


@pytest.mark.parametrize("path", HELPERS, ids=_ids(HELPERS))
def test_helpers_module_uses_no_network_and_writes_no_file(path):
    source = path.read_text(encoding="utf-8")
    problems = _findings(source, NETWORK) + _findings(source, WRITES)
    assert not problems, f"{path.relative_to(ROOT)}:\n" + "\n".join(problems)


@pytest.mark.parametrize(
    ("source", "patterns"),
    [
        ("open('out.csv', 'w')", WRITES),
        ('with open(path, mode="a") as f:', WRITES),
        ("with Path('log.txt').open('r+') as f:", WRITES),
        ("np.save('pe.npy', pe)", WRITES),
        ("torch.save(model.state_dict(), 'm.pt')", WRITES),
        ("df.to_csv('scores.csv')", WRITES),
        ("fig.savefig('attention.png')", WRITES),
        ("Path('x.txt').write_text('hi')", WRITES),
        ("%%writefile helpers_copy.py", WRITES),
        ("import urllib.request", NETWORK),
        ("import requests", NETWORK),
        ("from http import client", NETWORK),
        ("torchvision.datasets.MNIST('.', download=True)", NETWORK),
        ("torch.hub.load('pytorch/vision', 'resnet18')", NETWORK),
        ("data = download_corpus()", NETWORK),
        ("!pip install torch", NETWORK),
        ("url = 'https://example.org/data.txt'", NETWORK),
    ],
)
def test_the_patterns_catch_writes_and_downloads(source, patterns):
    assert _findings(source, patterns), f"not caught: {source}"


@pytest.mark.parametrize(
    "source",
    [
        "text = open('requirements.txt').read()",
        "# nothing is downloaded: the data are generated",
        'print("no download needed")',
        "plt.show()",
        "np.load('README.md')",
        "weights = model.forward(x)",
        "buffer = io.BytesIO()\nfig.savefig(buffer, format='png')",
        "with io.StringIO() as text:\n    df.to_csv(text)",
    ],
)
def test_the_patterns_allow_reads_comments_and_prose(source):
    assert not _findings(source, WRITES) and not _findings(source, NETWORK), source


def _unshare_works() -> bool:
    if shutil.which("unshare") is None:
        return False
    try:
        result = subprocess.run(["unshare", "-rn", "true"], capture_output=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return result.returncode == 0


OFFLINE_SCRIPT = """
import socket
try:
    socket.create_connection(("1.1.1.1", 53), timeout=2)
    raise SystemExit("the network is reachable: the test would prove nothing")
except OSError:
    pass

import torch
import helpers
from helpers import attention, data, encodings, exercises, plots, transformer

helpers.seed_everything(0)
src, tgt = data.make_batch("copy", 2, num_symbols=5, min_len=3)
model = transformer.Transformer(data.vocab_size(5), data.vocab_size(5), d_model=8, num_heads=2,
                                num_layers=1, d_ff=16)
out = transformer.greedy_decode(model, src, 4, data.BOS_ID, data.EOS_ID)
pe = encodings.sinusoidal_encoding(4, 8)
print("offline OK", tuple(out.shape), pe.shape)
"""


@pytest.mark.skipif(
    not _unshare_works(),
    reason="`unshare -rn` (user + network namespace) is not permitted on this machine",
)
def test_helpers_import_and_run_with_the_network_unavailable():
    result = subprocess.run(
        ["unshare", "-rn", sys.executable, "-c", OFFLINE_SCRIPT],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "offline OK" in result.stdout
