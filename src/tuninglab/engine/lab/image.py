"""The lab VM, made from Debian's packages and cached: a small root image (the server, sysbench,
fio, mdadm, Python), a Debian kernel of the chosen flavour, and a tiny busybox initramfs that
loads the virtio drivers and hands over to lab-init.

Building needs root (debootstrap chroots) and the network to Debian's mirror, once per
image version; every run boots a throwaway snapshot of it.
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
from tuninglab.errors import UserError

SUITE = "bookworm"
MIRROR = "http://deb.debian.org/debian"
SECURITY = "http://deb.debian.org/debian-security"
FLAVOURS = ("cloud-amd64", "amd64", "rt-amd64")
# OpenZFS from contrib, built by DKMS for the image's kernel: only images named "<flavour>-zfs".
ZFS_PACKAGES = ("zfs-dkms", "zfsutils-linux")
BASE_PACKAGES = ("mariadb-server-core", "sysbench", "fio", "mdadm", "python3", "python3-pymysql",
                 "e2fsprogs", "xfsprogs", "jfsutils", "reiserfsprogs", "kmod", "procps",
                 "busybox-static")
# What the initramfs needs to mount the root image; those a flavour builds in are skipped (the
# cloud kernel has ext4 built in, the generic one as a module; ext4 wants crc32c first).
BOOT_MODULES = ("virtio_pci", "virtio_blk", "crc32c_generic", "ext4")
HERE = Path(__file__).resolve().parent
LAB_INIT = HERE / "lab-init.sh"
INITRD_INIT = HERE / "initrd-init.sh"
BUILD_VERSION = 1   # bump when the build steps change


@dataclass(frozen=True)
class Image:
    dir: Path

    @property
    def root(self) -> Path:
        return self.dir / "root.img"

    @property
    def kernel(self) -> Path:
        return self.dir / "vmlinuz"

    @property
    def initrd(self) -> Path:
        return self.dir / "initrd.img"

    @property
    def manifest(self) -> dict:
        return json.loads((self.dir / "manifest.json").read_text())


def key(name: str) -> str:
    text = json.dumps([BUILD_VERSION, SUITE, name, BASE_PACKAGES, BOOT_MODULES,
                       LAB_INIT.read_text(), INITRD_INIT.read_text()]
                      + ([ZFS_PACKAGES] if name.endswith("-zfs") else []))
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def split_name(name: str) -> tuple[str, bool, bool]:
    """"cloud-amd64-bpo" -> ("cloud-amd64", True, False): the kernel flavour, whether the
    kernel comes from bookworm-backports (a newer release), and whether the image has OpenZFS
    (the reverse of recipes/lab.image_name)."""
    flavour, zfs = (name[:-4], True) if name.endswith("-zfs") else (name, False)
    flavour, backports = (flavour[:-4], True) if flavour.endswith("-bpo") else (flavour, False)
    if flavour not in FLAVOURS:
        raise UserError(f"no kernel flavour {flavour!r} (expected one of {', '.join(FLAVOURS)})")
    if zfs and backports:
        raise UserError("the ZFS image builds OpenZFS for bookworm's own kernel, not the "
                        "backports one")
    return flavour, backports, zfs


def path_for(workdir: Path, flavour: str = "cloud-amd64") -> Path:
    return Path(workdir) / "vm" / "images" / f"{SUITE}-{flavour}-{key(flavour)}"


def cached(workdir: Path, flavour: str = "cloud-amd64") -> Image | None:
    d = path_for(workdir, flavour)
    return Image(d) if (d / "manifest.json").is_file() else None


def ensure(workdir: Path, flavour: str = "cloud-amd64", say=print) -> Image:
    """The cached image, built first if needed (about a minute; with OpenZFS, which DKMS
    compiles, several)."""
    split_name(flavour)
    image = cached(workdir, flavour)
    if image:
        return image
    check_build_tools()
    final = path_for(workdir, flavour)
    build = final.with_name(final.name + f".build-{os.getpid()}")
    shutil.rmtree(build, ignore_errors=True)
    build.mkdir(parents=True)
    started = time.monotonic()
    try:
        _build(build, flavour, say)
        shutil.rmtree(final, ignore_errors=True)
        build.rename(final)
    finally:
        _unmount_all(build / "root")
        shutil.rmtree(build, ignore_errors=True)
    for stale in final.parent.glob(f"{SUITE}-{flavour}-*"):  # older versions of this image
        if stale != final and stale.name.rsplit("-", 1)[0] == f"{SUITE}-{flavour}":
            shutil.rmtree(stale, ignore_errors=True)
    say(f"lab VM image ready in {time.monotonic() - started:.0f}s: {final}")
    return Image(final)


def check_build_tools() -> None:
    builds.check_tools("the lab VM image", ("debootstrap", "mkfs.ext4", "cpio"),
                       "debootstrap e2fsprogs cpio")


def _build(build: Path, name: str, say) -> None:
    flavour, backports, zfs = split_name(name)
    root = build / "root"
    say(f"lab VM image: debootstrap {SUITE} with {', '.join(BASE_PACKAGES)} (about a minute)")
    _run(["debootstrap", "--variant=minbase", f"--include={','.join(BASE_PACKAGES)}", SUITE,
          str(root), MIRROR], build / "debootstrap.log")
    sections = "main contrib" if zfs else "main"
    (root / "etc/apt/sources.list").write_text(
        f"deb {MIRROR} {SUITE} {sections}\ndeb {MIRROR} {SUITE}-updates {sections}\n"
        f"deb {SECURITY} {SUITE}-security {sections}\n"
        + (f"deb {MIRROR} {SUITE}-backports main\n" if backports else ""))
    source = f"-t {SUITE}-backports " if backports else ""
    say(f"lab VM image: security updates and the {flavour} kernel"
        + (f" from {SUITE}-backports" if backports else ""))
    env = "env INITRD=No DEBIAN_FRONTEND=noninteractive"  # no initramfs-tools run: ours is tiny
    _chroot(root, f"apt-get update -q && {env} apt-get -y -q upgrade && {env} apt-get install "
                  f"-y -q --no-install-recommends {source}linux-image-{flavour}",
            build / "apt.log")
    kernel = _only(root / "boot", "vmlinuz-*")
    release = kernel.name.removeprefix("vmlinuz-")
    if zfs:
        _add_zfs(root, flavour, release, build, say)
    shutil.copy(kernel, build / "vmlinuz")
    _make_initrd(root, release, build)
    manifest = {"suite": SUITE, "flavour": flavour, "backports": backports, "zfs": zfs,
                "kernel": release,
                "key": key(name), "built": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                "packages": _versions(root)}
    _trim(root)
    lab_init = root / "usr/local/sbin/lab-init"
    shutil.copy(LAB_INIT, lab_init)
    lab_init.chmod(0o755)
    say("lab VM image: writing root.img")
    size = _dir_bytes(root) * 13 // 10 + (256 << 20)
    _run(["mkfs.ext4", "-q", "-F", "-L", "labroot", "-d", str(root), str(build / "root.img"),
          f"{size // 1024}k"], build / "mkfs.log")
    shutil.rmtree(root)
    (build / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")


def _add_zfs(root: Path, flavour: str, release: str, build: Path, say) -> None:
    """OpenZFS, the real thing: DKMS compiles its module for the image's kernel (minutes)."""
    say("lab VM image: OpenZFS from contrib, compiled by DKMS for the guest kernel (several "
        "minutes, once)")
    env = "env INITRD=No DEBIAN_FRONTEND=noninteractive"
    _chroot(root, f"{env} apt-get install -y -q --no-install-recommends "
                  f"linux-headers-{flavour} {' '.join(ZFS_PACKAGES)}", build / "zfs.log")
    if not list((root / "lib/modules" / release).rglob("zfs.ko*")):
        tail = "\n".join((build / "zfs.log").read_text(errors="replace").splitlines()[-15:])
        raise UserError(f"DKMS built no zfs module for {release}; the end of its log:\n{tail}")


def module_order(modules_dep: str, wanted, builtin: str = "") -> list[str]:
    """Module paths in load order (dependencies first) for the wanted module names, leaving
    out those built into the kernel (modules.builtin)."""
    built_in = {Path(line.strip()).name.split(".ko")[0].replace("-", "_")
                for line in builtin.splitlines() if line.strip()}
    deps = {}
    for line in modules_dep.splitlines():
        if ":" in line:
            path, rest = line.split(":", 1)
            deps[path] = rest.split()
    by_name = {Path(p).name.split(".ko")[0].replace("-", "_"): p for p in deps}
    order = []

    def visit(path):
        for dep in reversed(deps[path]):  # modules.dep lists the deepest dependency last
            visit(dep)
        if path not in order:
            order.append(path)

    for name in wanted:
        if name in built_in:
            continue
        if name not in by_name:
            raise UserError(f"the lab VM kernel has no module {name}")
        visit(by_name[name])
    return order


def _make_initrd(root: Path, release: str, build: Path) -> None:
    mods = root / "lib/modules" / release
    tree = build / "initrd"
    for d in ("bin", "mods", "proc", "sys", "dev", "newroot"):
        (tree / d).mkdir(parents=True)
    shutil.copy(root / "bin/busybox", tree / "bin/busybox")
    names = []
    for path in module_order((mods / "modules.dep").read_text(), BOOT_MODULES,
                             (mods / "modules.builtin").read_text()):
        shutil.copy(mods / path, tree / "mods" / Path(path).name)
        names.append(Path(path).name)
    (tree / "mods/order").write_text("\n".join(names) + "\n")
    shutil.copy(INITRD_INIT, tree / "init")
    (tree / "init").chmod(0o755)
    files = sorted(str(p.relative_to(tree)) for p in tree.rglob("*"))
    cpio = subprocess.run(["cpio", "-o", "-H", "newc", "--quiet"], cwd=tree,
                          input="\n".join(["."] + files).encode(), capture_output=True)
    if cpio.returncode != 0:
        raise UserError(f"cpio failed: {cpio.stderr.decode(errors='replace')}")
    (build / "initrd.img").write_bytes(cpio.stdout)
    shutil.rmtree(tree)


def _versions(root: Path) -> dict:
    names = ["mariadb-server-core", "sysbench", "fio", "mdadm", "python3", "xfsprogs",
             "e2fsprogs", "jfsutils", "reiserfsprogs", "zfsutils-linux"]
    out = subprocess.run(["chroot", str(root), "dpkg-query", "-W", "-f", "${Package} ${Version}\n"]
                         + names, capture_output=True, text=True)
    return dict(line.split(" ", 1) for line in out.stdout.splitlines() if " " in line)


def _trim(root: Path) -> None:
    """Documentation, locales and apt's lists: a third of a minimal root, unused here."""
    for sub in ("usr/share/doc", "usr/share/man", "usr/share/locale", "usr/share/info",
                "var/cache/apt", "var/lib/apt/lists"):
        shutil.rmtree(root / sub, ignore_errors=True)


def _only(directory: Path, pattern: str) -> Path:
    found = sorted(directory.glob(pattern))
    if len(found) != 1:
        raise UserError(f"expected one {pattern} in {directory}, found {len(found)}")
    return found[0]


def _dir_bytes(path: Path) -> int:
    """Not workdir.dir_bytes: a chroot's absolute symlinks point into the host."""
    return sum(p.lstat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())


def _chroot(root: Path, script: str, log: Path) -> None:
    for fs, target in (("proc", "proc"), ("devpts", "dev/pts")):
        (root / target).mkdir(parents=True, exist_ok=True)
        subprocess.run(["mount", "-t", fs, fs, str(root / target)], check=True)
    try:
        _run(["chroot", str(root), "sh", "-ec", script], log)
    finally:
        _unmount_all(root)


def _unmount_all(root: Path) -> None:
    for target in ("dev/pts", "proc"):
        path = root / target
        if path.is_dir() and os.path.ismount(path):
            subprocess.run(["umount", "-l", str(path)], check=False)


def _run(cmd: list[str], log: Path) -> None:
    builds.run_logged(cmd, log, "the lab VM image")
