"""The plotly.js the site serves: the npm registry's partial "basic" bundle (bar, scatter and
pie traces: all the site draws), a quarter of the full bundle's size, pinned by version and
checked against its published sha512 before use. Downloaded once into .cache/; a machine that
cannot reach the registry builds with the full bundle of the plotly Python package instead,
and says so.
"""

import base64
import hashlib
import io
import os
import sys
import tarfile
import urllib.request
from pathlib import Path

import plotly

from tuninglab.files import PROJECT_DIR

PACKAGE, VERSION = "plotly.js-basic-dist-min", "4.1.1"
MEMBER = "package/plotly-basic.min.js"
INTEGRITY = ("sha512-1oNF8PeQx2hv/y7tqEVWKD3JGwn/MGEMQ8mL9HUwsaqG9FGy/OU5FHUHvzqbqxN4mnwZGI9abTi"
             "E775C4kkjMQ==")
# The trace types the bundle registers: a figure of another type would draw nothing.
TRACES = ("bar", "scatter", "pie")
CACHE = PROJECT_DIR / ".cache" / "plotly"
VENDOR = PROJECT_DIR / "docs" / "assets" / "vendor" / "plotly.min.js"


def registry() -> str:
    return os.environ.get("npm_config_registry", "https://registry.npmjs.org").rstrip("/")


def verified(data: bytes) -> bool:
    digest = base64.b64encode(hashlib.sha512(data).digest()).decode()
    return f"sha512-{digest}" == INTEGRITY


def tarball() -> bytes:
    """The pinned package, from the cache or the registry; OSError when neither has it."""
    cached = CACHE / f"{PACKAGE}-{VERSION}.tgz"
    if cached.is_file() and verified(cached.read_bytes()):
        return cached.read_bytes()
    url = f"{registry()}/{PACKAGE}/-/{PACKAGE}-{VERSION}.tgz"
    with urllib.request.urlopen(url, timeout=60) as response:
        data = response.read()
    if not verified(data):
        raise OSError(f"{url} does not match its pinned sha512 (plotly_bundle.INTEGRITY)")
    CACHE.mkdir(parents=True, exist_ok=True)
    tmp = cached.with_suffix(".part")
    tmp.write_bytes(data)
    tmp.replace(cached)
    return data


def vendor(target: Path = VENDOR) -> Path:
    """Put the site's plotly.js at target (docs/assets/vendor/plotly.min.js)."""
    try:
        with tarfile.open(fileobj=io.BytesIO(tarball()), mode="r:gz") as tar:
            script = tar.extractfile(MEMBER).read()
    except (OSError, tarfile.TarError, KeyError, AttributeError) as exc:
        print(f"warning: the partial plotly.js bundle is unavailable ({exc}); the site gets "
              "the full bundle of the plotly package, four times heavier", file=sys.stderr)
        script = (Path(plotly.__file__).parent / "package_data" / "plotly.min.js").read_bytes()
    if not target.is_file() or target.read_bytes() != script:
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_suffix(".part")
        tmp.write_bytes(script)
        tmp.replace(target)
    return target

