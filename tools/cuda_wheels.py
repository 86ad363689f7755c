#!/usr/bin/env python3
"""cuda_wheels.py - NVIDIA's CUDA compiler from PyPI, for machines without one.

    python3 tools/cuda_wheels.py DIR

Fetches the pinned wheels below from PyPI's simple index (by package name and version,
each checked against the sha256 the index gives), and unpacks what compiling the kernels
needs into DIR: DIR/nvidia/cu13/bin/nvcc, its nvvm, the runtime and cuRAND headers, and
the static runtime. Nothing runs a GPU here: CI builds the kernels and runs their CPU
self-test (run.sh). A second call finds DIR complete and fetches nothing.
Exits non-zero with a one-line reason when the index cannot be reached.
"""
import hashlib
import json
import os
import platform
import sys
import urllib.request
import zipfile

INDEX = "https://pypi.org/simple/"
# name, version, the members to unpack (prefixes below nvidia/cu13/)
WHEELS = [
    ("nvidia-cuda-nvcc", "13.5.37", ("bin/", "include/", "lib/")),
    ("nvidia-nvvm", "13.5.37", ("nvvm/",)),
    ("nvidia-cuda-crt", "13.5.37", ("include/",)),
    ("nvidia-cuda-runtime", "13.5.37", ("include/", "lib/libcudart_static.a")),
    ("nvidia-curand", "10.4.5.25", ("include/",)),  # headers only: its library is 100 MB
]
DONE = ".complete"


def wheel_url(name, version):
    req = urllib.request.Request(INDEX + name + "/",
                                 headers={"Accept": "application/vnd.pypi.simple.v1+json"})
    with urllib.request.urlopen(req, timeout=60) as r:
        files = json.load(r)["files"]
    for f in files:
        fn = f["filename"]
        if f"-{version}-" in fn and fn.endswith(".whl") and "manylinux" in fn and "x86_64" in fn:
            return fn, f["url"], f["hashes"]["sha256"]
    raise RuntimeError(f"{name} {version}: no manylinux x86_64 wheel in the index")


def fetch(name, version, keep, dest):
    fn, url, sha = wheel_url(name, version)
    path = os.path.join(dest, fn)
    if not os.path.exists(path):
        h = hashlib.sha256()
        with urllib.request.urlopen(url, timeout=300) as r, open(path + ".part", "wb") as out:
            while chunk := r.read(1 << 20):
                h.update(chunk)
                out.write(chunk)
        if h.hexdigest() != sha:
            os.remove(path + ".part")
            raise RuntimeError(f"{fn}: sha256 differs from the index's")
        os.replace(path + ".part", path)
    with zipfile.ZipFile(path) as z:
        for m in z.infolist():
            rel = m.filename[len("nvidia/cu13/"):] if m.filename.startswith("nvidia/cu13/") else None
            if rel is None or not rel.startswith(keep):
                continue
            out = z.extract(m, dest)
            if rel.startswith(("bin/", "nvvm/bin/")):
                os.chmod(out, 0o755)
    os.remove(path)  # unpacked: the wheel itself is not kept


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: cuda_wheels.py DIR")
    dest = sys.argv[1]
    if platform.machine() != "x86_64":
        sys.exit(f"cuda_wheels: no wheels pinned for {platform.machine()}")
    if os.path.exists(os.path.join(dest, DONE)):
        return
    os.makedirs(dest, exist_ok=True)
    try:
        for name, version, keep in WHEELS:
            fetch(name, version, keep, dest)
    except Exception as e:  # one line for the caller's skip message
        sys.exit(f"cuda_wheels: {e}")
    open(os.path.join(dest, DONE), "w").close()


if __name__ == "__main__":
    main()
