"""Unpack the headless Chromium of the npm package @sparticuz/chromium (brotli-compressed binary and libraries)
into a folder, with a `chromium` wrapper that finds its libraries: a browser for the HTML report tests on a
machine where `playwright install chromium` cannot download one and there is no root to install a system one.

Usage: python .ci/unpack_chromium.py PACKAGE_DIR OUT_DIR   (PACKAGE_DIR: the unpacked npm tarball's `package/`)
"""

import io
import os
import stat
import sys
import tarfile
from pathlib import Path

import brotli


def main(package: Path, out: Path) -> None:
    bin_dir = package / "bin"
    out.mkdir(parents=True, exist_ok=True)
    exe = out / "chromium-bin"
    exe.write_bytes(brotli.decompress((bin_dir / "chromium.br").read_bytes()))
    exe.chmod(exe.stat().st_mode | stat.S_IXUSR)
    for name in ("al2023", "swiftshader", "fonts"):
        archive = bin_dir / f"{name}.tar.br"
        if archive.exists():
            with tarfile.open(fileobj=io.BytesIO(brotli.decompress(archive.read_bytes()))) as tar:
                tar.extractall(out, filter="data")
    (out / "fonts.conf").write_text(  # the package's points at AWS Lambda's folders
        '<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig>\n'
        f'  <dir>{out / "fonts"}</dir>\n  <dir>/usr/share/fonts</dir>\n'
        f'  <cachedir>{out / "fonts-cache"}</cachedir>\n</fontconfig>\n')
    wrapper = out / "bin" / "chromium"
    wrapper.parent.mkdir(exist_ok=True)
    wrapper.write_text("#!/bin/sh\n"
                       f'export LD_LIBRARY_PATH="{out}/lib:{out}${{LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}}"\n'
                       f'export FONTCONFIG_PATH="{out}"\n'
                       f'exec "{exe}" "$@"\n')
    wrapper.chmod(0o755)
    print(wrapper)


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
