"""Today's servers from Debian's archive, each in a minimal Debian root of its own: MariaDB 11.8
from trixie and MySQL 9.7 from sid (whose build needs a newer glibc than the host's).

A root is built once (debootstrap, then the server package), cached under the work directory
like the lab VM images, and checked before each reuse: its manifest, the server binary's hash and
its --version. The server runs in its root (chroot) inside a mount namespace of its own, into
which the run's directories are bound at the same paths, so the host's sysbench reaches its
socket and nothing is mounted on the host: the namespace, and every mount in it, ends with the
server, however it ends.
"""

import hashlib
import json
import os
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from tuninglab.engine.host import builds
from tuninglab.recipes.server_version import parse_version
from tuninglab.errors import UserError
from tuninglab.recipes import server_list

MIRROR = "http://deb.debian.org/debian"
BUILD_VERSION = 1   # bump when the build steps change
HOST_SERVER = server_list.HOST_SERVER   # the host's own, Debian 12's: no root
# Recorded in every result beside the server's own packages: what the server links against.
LIBRARIES = ("libc6", "libstdc++6", "liburing2", "libaio1t64", "libaio1", "libssl3t64")


@dataclass(frozen=True)
class Spec:
    name: str        # what --server takes
    suite: str       # the Debian suite that has it
    packages: tuple  # installed with --no-install-recommends
    binary: str      # the server, inside the root
    flavor: str
    version: tuple   # the major.minor the name promises

    @property
    def label(self) -> str:
        return f"{'MariaDB' if self.flavor == 'mariadb' else 'MySQL'} " \
               f"{'.'.join(map(str, self.version))}"


SPECS = {s.name: s for s in (
    # mariadb-install-db needs my_print_defaults and resolveip, from the client's core.
    Spec("mariadb-11.8", "trixie", ("mariadb-server-core", "mariadb-client-core"),
         "/usr/sbin/mariadbd", "mariadb", (11, 8)),
    Spec("mysql-9.7", "sid", ("mysql-server-core",), "/usr/sbin/mysqld", "mysql", (9, 7)),
)}


def names() -> list[str]:
    return list(server_list.NAMES)


def spec(name: str) -> Spec:
    if name not in SPECS:
        raise UserError(f"--server {name!r}: expected one of {', '.join(names())} (or "
                        "--mysqld PATH for a server binary of your own)")
    return SPECS[name]


@dataclass(frozen=True)
class Root:
    dir: Path
    spec: Spec

    @property
    def path(self) -> Path:
        return self.dir / "root"

    @property
    def binary(self) -> Path:
        """The server binary as the host sees it."""
        return self.path / self.spec.binary.lstrip("/")

    @property
    def manifest(self) -> dict:
        return json.loads((self.dir / "manifest.json").read_text())


def key(s: Spec) -> str:
    text = json.dumps([BUILD_VERSION, MIRROR, s.name, s.suite, s.packages, s.binary])
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def path_for(workdir: Path, s: Spec) -> Path:
    return Path(workdir) / "servers" / f"{s.name}-{key(s)}"


def cached(workdir: Path, name: str) -> Root | None:
    """The root already built for this server (checked: problems() says what is wrong)."""
    s = spec(name)
    d = path_for(workdir, s)
    return Root(d, s) if (d / "manifest.json").is_file() else None


def ensure(workdir: Path, name: str, say=print) -> Root:
    """The server's root, built first if there is none or the cached one fails its check."""
    root = cached(workdir, name)
    if root:
        wrong = problems(root)
        if not wrong:
            return root
        say(f"the {name} root in {root.dir} fails its check ({wrong}): building it again")
    return build(workdir, name, say)


def problems(root: Root) -> str:
    """"" when the root is as built: manifest, the binary's hash and its --version."""
    try:
        manifest = root.manifest
    except (OSError, ValueError) as exc:
        return f"its manifest is unreadable: {exc}"
    if not root.binary.is_file():
        return f"{root.spec.binary} is missing"
    if _sha256(root.binary) != manifest.get("binary_sha256"):
        return f"{root.spec.binary} differs from the one built"
    try:
        said = version_line(root.path, root.spec.binary)
    except UserError as exc:
        return str(exc)
    if said != manifest.get("version_text"):
        return f"{root.spec.binary} --version says {said!r}, the manifest " \
               f"{manifest.get('version_text')!r}"
    return ""


def build(workdir: Path, name: str, say=print) -> Root:
    """debootstrap the suite, install the server, record what was installed (about a minute
    per server, most of it downloading)."""
    s = spec(name)
    check_build_tools()
    final = path_for(workdir, s)
    work = final.with_name(final.name + f".build-{os.getpid()}")
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    started = time.monotonic()
    try:
        manifest = _build(work, s, say)
        manifest["build_seconds"] = round(time.monotonic() - started)
        (work / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
        shutil.rmtree(final, ignore_errors=True)
        work.rename(final)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    for stale in final.parent.glob(f"{s.name}-*"):  # roots of older build steps
        if stale != final and not stale.name.startswith(f"{s.name}-{key(s)}"):
            shutil.rmtree(stale, ignore_errors=True)
    say(f"{name} root ready in {time.monotonic() - started:.0f}s: {final}")
    return Root(final, s)


def check_build_tools() -> None:
    builds.check_tools("a server root", ("debootstrap", "unshare", "chroot"),
                       "debootstrap util-linux coreutils")


def _build(work: Path, s: Spec, say) -> dict:
    root, log = work / "root", work / "build.log"
    say(f"{s.name} root: debootstrap {s.suite}, then {', '.join(s.packages)} from Debian's "
        "archive (about a minute, once)")
    # In a mount namespace of its own: the mounts debootstrap makes in the root (proc, sys)
    # end with it, even when it is killed.
    _logged(["unshare", "--mount", "--propagation", "private", "debootstrap",
             "--variant=minbase", s.suite, str(root), MIRROR], log, s)
    # Signatures are checked; a mirror that serves a suite's index past its Valid-Until date
    # (as the archive these machines reach may) is still taken.
    script = ("apt-get -o Acquire::Check-Valid-Until=false update -q && "
              "DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "
              f"{' '.join(s.packages)} && apt-get clean")
    _logged(command(root, ["sh", "-ec", script]), log, s)
    # mariadb-install-db looks up localhost; debootstrap writes no hosts file.
    (root / "etc/hosts").write_text("127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost\n")
    for sub in ("usr/share/doc", "usr/share/man", "usr/share/locale", "usr/share/info",
                "var/lib/apt/lists"):  # unused here: a third of a minimal root
        shutil.rmtree(root / sub, ignore_errors=True)
    text = version_line(root, s.binary)
    flavor, version = parse_version(text)
    if (flavor, version[:2]) != (s.flavor, s.version):
        raise UserError(f"Debian's {s.suite} now has {text!r}, not {s.label}: the server "
                        f"{s.name} names is gone from the archive; expected its {s.label}")
    return {"name": s.name, "suite": s.suite, "mirror": MIRROR, "version_text": text,
            "binary_sha256": _sha256(root / s.binary.lstrip("/")),
            "packages": packages(root, s), "built": time.strftime("%Y-%m-%dT%H:%M:%SZ",
                                                                    time.gmtime())}


def packages(root: Path, s: Spec) -> dict:
    """The installed versions of the server's packages and of the libraries it runs on."""
    out = subprocess.run(["chroot", str(root), "dpkg-query", "-W", "-f",
                          "${db:Status-Abbrev} ${Package} ${Version}\n"], capture_output=True,
                         text=True, check=False)
    own = tuple(p.removesuffix("-core") for p in s.packages)  # mariadb-server-core and kin
    found = {}
    for line in out.stdout.splitlines():
        status, _, rest = line.partition(" ")
        name, _, version = rest.strip().partition(" ")
        if status.startswith("ii") and (name in LIBRARIES or name.startswith(own)):
            found[name] = version
    return dict(sorted(found.items()))


def version_line(root: Path, binary: str) -> str:
    try:
        out = subprocess.run(["chroot", str(root), binary, "--version"], capture_output=True,
                             text=True, errors="backslashreplace", timeout=60, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise UserError(f"{binary} --version in {root} did not answer: {exc}") from None
    text = (out.stdout or out.stderr).strip()
    if out.returncode != 0 or " Ver " not in f" {text}":
        raise UserError(f"{binary} --version in {root} failed (exit {out.returncode}): "
                        f"{text[-300:]}")
    return text


# Runs as the command's first process, which it then becomes (exec keeps its pid, its cgroup,
# its CPUs and its parent-death signal): mounts in a namespace of its own, then chroots.
_ENTER = r"""
root=$1; n=$2; shift 2
mount -t proc proc "$root/proc"
mount --rbind /dev "$root/dev"
mount --rbind /sys "$root/sys"
while [ "$n" -gt 0 ]; do
  mkdir -p "$root$1"; mount --rbind "$1" "$root$1"; shift; n=$((n-1))
done
exec chroot "$root" "$@"
"""


def command(root: Path, argv: list, binds=()) -> list:
    """argv run in the root, with each host directory of binds at the same path inside it."""
    binds = sorted({os.path.abspath(b) for b in binds}, key=len)
    for b in binds:
        if not Path(b).is_dir():
            raise UserError(f"cannot bind {b} into the server root: not a directory")
    return ["unshare", "--mount", "--propagation", "private", "sh", "-ec", _ENTER,
            "tuninglab-root", str(root), str(len(binds)), *binds, *map(str, argv)]


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _logged(cmd: list, log: Path, s: Spec) -> None:
    builds.run_logged(cmd, log, f"the {s.name} root", f"; is Debian's archive ({MIRROR}) "
                      "reachable?")
