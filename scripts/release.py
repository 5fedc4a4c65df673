#!/usr/bin/env python3
"""Packs the installed trees scripts/release.sh made into dist/: the tarball,
the .deb, the Windows zip, the wheels, the SBOM, the Scoop and winget
manifests and SHA256SUMS. Every archive is written entry by entry in sorted
order, with the commit's time (SOURCE_DATE_EPOCH), owner 0 and fixed modes,
so that two builds of one commit give the same bytes.

Usage: release.py --version V --epoch SECONDS --out DIR --url-base URL
                  [--linux ARCH TREE ROOT]... [--windows TREE] [--also NAME]
  ARCH: x86_64 or aarch64; TREE: what `cmake --install --prefix TREE` wrote;
  ROOT: a DESTDIR install with the prefix /usr. --url-base: where the release's files are published
  ({version} is replaced), for the Scoop and winget manifests.
"""
import argparse
import base64
import gzip
import hashlib
import io
import json
import os
import subprocess
import sys
import tarfile
import time
import zipfile

NAME = "cudnnenv"
SUMMARY = "keep several cuDNN versions side by side and know which one loads"
HOMEPAGE = "https://github.com/cudnnenv/cudnnenv"
# The project has chosen no licence yet: the SBOM says NOASSERTION, the wheel
# and the Scoop manifest name none, and winget (which requires the field)
# says so in words.
LICENSE_WORDS = "not chosen yet (no licence file)"
DEB_ARCH = {"x86_64": "amd64", "aarch64": "arm64"}

# What each build compiles in, by the Debian package it comes from (the
# SBOM's versions are those packages' on the machine that built the release).
# The aarch64 build takes its C and C++ libraries from the cross compiler's
# packages (CROSS) and the others from Debian's arm64 packages (multiarch).
COMPILED_IN = {
    "linux": [
        ("glibc", "libc6-dev", "cudnnenv itself, linked statically; the helpers link to the system's glibc >= 2.28"),
        ("libstdc++", "libstdc++-12-dev", "linked statically into cudnnenv, the probe and the download helper"),
        ("musl", "musl-dev", "the shim launcher, linked statically"),
        ("libarchive", "libarchive-dev", ""),
        ("liblzma", "liblzma-dev", ""),
        ("libbz2", "libbz2-dev", ""),
        ("zlib", "zlib1g-dev", ""),
        ("OpenSSL libcrypto", "libssl-dev", "SHA-256"),
    ],
    "windows": [
        ("mingw-w64 runtime", "mingw-w64-x86-64-dev", "the C runtime and Windows API import libraries"),
        ("libstdc++ (mingw-w64)", "g++-mingw-w64-x86-64-posix", "linked statically, with winpthreads"),
        ("zlib", "libz-mingw-w64-dev", "linked statically; also zlibwapi.dll for cuDNN 8.3-8.9"),
    ],
    "both": [
        ("toml++", "libtomlplusplus-dev", "header-only"),
        ("CLI11", "libcli11-dev", "header-only"),
        ("spdlog", "libspdlog-dev", "header-only"),
        ("fmt", "libfmt-dev", "header-only"),
        ("nlohmann-json", "nlohmann-json3-dev", "header-only"),
        ("Boost.Process", "libboost1.81-dev", "header-only, with Asio"),
    ],
}


def zip_time(epoch):
    return max(time.gmtime(epoch)[:6], (1980, 1, 1, 0, 0, 0))


def walk(tree):
    """(relative path, full path) of every file and link below tree, sorted."""
    found = []
    for folder, dirs, files in os.walk(tree):
        for name in dirs + files:
            full = os.path.join(folder, name)
            if os.path.isdir(full) and not os.path.islink(full):
                continue
            found.append((os.path.relpath(full, tree).replace(os.sep, "/"), full))
    return sorted(found)


def executable(path):
    return os.access(path, os.X_OK)


def write_tarball(tree, top, epoch, out):
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.GNU_FORMAT) as tar:
        folders = set()
        for relative, full in walk(tree):
            parts = relative.split("/")
            for depth in range(1, len(parts)):
                folders.add("/".join(parts[:depth]))
        entries = [(f, None) for f in folders] + walk(tree)
        for relative, full in sorted(entries, key=lambda e: e[0]):
            info = tarfile.TarInfo(f"{top}/{relative}")
            info.mtime, info.uid, info.gid, info.uname, info.gname = epoch, 0, 0, "root", "root"
            if full is None:
                info.type, info.mode = tarfile.DIRTYPE, 0o755
                tar.addfile(info)
            elif os.path.islink(full):
                info.type, info.mode, info.linkname = tarfile.SYMTYPE, 0o777, os.readlink(full)
                tar.addfile(info)
            else:
                info.size, info.mode = os.path.getsize(full), 0o755 if executable(full) else 0o644
                with open(full, "rb") as f:
                    tar.addfile(info, f)
    with open(out, "wb") as f:
        with gzip.GzipFile(filename="", mode="wb", fileobj=f, mtime=epoch, compresslevel=9) as z:
            z.write(raw.getvalue())


def add_zip_entry(archive, name, data, mode, epoch):
    info = zipfile.ZipInfo(name, zip_time(epoch))
    info.external_attr = (0o100000 | mode) << 16
    info.create_system = 3  # Unix, so that the mode above is read
    info.compress_type = zipfile.ZIP_DEFLATED
    archive.writestr(info, data)


def write_zip(entries, epoch, out):
    """entries: [(name, bytes, mode)]"""
    with zipfile.ZipFile(out, "w") as archive:
        for name, data, mode in sorted(entries):
            add_zip_entry(archive, name, data, mode, epoch)


def read(path):
    with open(path, "rb") as f:
        return f.read()


def record_hash(data):
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def write_wheel(version, tag, scripts, data, epoch, out):
    """A wheel as uv's and ruff's are: the native program in the scripts
    scheme (bin/ or Scripts/ of the environment, the file itself), its helpers
    in the data scheme (the environment's lib/cudnnenv/), no Python module."""
    info = f"{NAME}-{version}.dist-info"
    entries = []
    for name, path in scripts:
        entries.append((f"{NAME}-{version}.data/scripts/{name}", read(path), 0o755))
    for name, path in data:
        entries.append((f"{NAME}-{version}.data/data/{name}", read(path), 0o755 if executable(path) else 0o644))
    entries.append((f"{info}/METADATA", (
        "Metadata-Version: 2.1\n"
        f"Name: {NAME}\nVersion: {version}\nSummary: {SUMMARY}\nHome-page: {HOMEPAGE}\n"
        "Requires-Python: >=3.7\n").encode(), 0o644))
    entries.append((f"{info}/WHEEL", (
        f"Wheel-Version: 1.0\nGenerator: {NAME} scripts/release.py\nRoot-Is-Purelib: false\nTag: {tag}\n").encode(),
        0o644))
    record = "".join(f"{name},{record_hash(blob)},{len(blob)}\n" for name, blob, _ in sorted(entries))
    record += f"{info}/RECORD,,\n"
    entries.append((f"{info}/RECORD", record.encode(), 0o644))
    write_zip(entries, epoch, out)


CROSS = {"libc6-dev": "libc6-dev-arm64-cross", "libstdc++-12-dev": "libstdc++-12-dev-arm64-cross"}


def write_deb(root, version, arch, epoch, out):
    control = os.path.join(root, "DEBIAN", "control")
    os.makedirs(os.path.dirname(control), exist_ok=True)
    size = sum(os.path.getsize(full) for _, full in walk(root) if not os.path.islink(full)) // 1024
    with open(control, "w") as f:
        f.write(f"Package: {NAME}\nVersion: {version}\nArchitecture: {DEB_ARCH[arch]}\n"
                f"Maintainer: {NAME} maintainers <{NAME}@users.noreply.github.com>\nInstalled-Size: {size}\n"
                "Depends: libc6 (>= 2.28)\nRecommends: libcurl4 | libcurl4t64\nSection: utils\nPriority: optional\n"
                f"Homepage: {HOMEPAGE}\nDescription: {SUMMARY}\n"
                " cudnnenv installs cuDNN releases side by side, selects one per shell, project or\n"
                " user, and starts programs pinned to exactly one copy, checked with a real\n"
                " convolution on the GPU. libcurl is loaded at run time, for downloads only.\n")
    for folder, dirs, files in os.walk(root):
        for name in dirs + files + ["."]:
            full = os.path.join(folder, name)
            os.utime(full, (epoch, epoch), follow_symlinks=False)
            if not os.path.islink(full):
                os.chmod(full, 0o755 if os.path.isdir(full) or executable(full) else 0o644)
    environment = dict(os.environ, SOURCE_DATE_EPOCH=str(epoch))
    subprocess.run(["dpkg-deb", "--root-owner-group", "-Zxz", "--build", root, out], check=True,
                   stdout=subprocess.DEVNULL, env=environment)


def deb_version(package):
    done = subprocess.run(["dpkg-query", "-W", "-f=${Version}", package], capture_output=True, text=True)
    return done.stdout.strip() if done.returncode == 0 and done.stdout.strip() else "NOASSERTION"


def write_sbom(version, epoch, builds, files, out):
    """SPDX 2.3 (JSON): cudnnenv and every library compiled into it, with the
    version of the Debian package it was compiled from."""
    packages = [{
        "name": NAME, "SPDXID": "SPDXRef-Package-cudnnenv", "versionInfo": version,
        "downloadLocation": HOMEPAGE, "filesAnalyzed": False, "licenseConcluded": "NOASSERTION",
        "licenseDeclared": "NOASSERTION", "copyrightText": "NOASSERTION", "supplier": f"Organization: {NAME}",
        "primaryPackagePurpose": "APPLICATION"}]
    relationships = [{"spdxElementId": "SPDXRef-DOCUMENT", "relationshipType": "DESCRIBES",
                      "relatedSpdxElement": "SPDXRef-Package-cudnnenv"}]
    used = []
    for build, deb_arch in builds:
        used += [(build, deb_arch, entry) for entry in COMPILED_IN[build.split(" ")[0]]]
    used += [("every", "all", entry) for entry in COMPILED_IN["both"]]
    for build, deb_arch, (name, package, how) in used:
        ident = "SPDXRef-Package-" + "".join(c if c.isalnum() else "-" for c in f"{package}-{build}")
        if deb_arch == "arm64" and package in CROSS:
            package, deb_arch = CROSS[package], "all"
        package_version = deb_version(package if deb_arch in ("all", "amd64") else f"{package}:{deb_arch}")
        packages.append({
            "name": name, "SPDXID": ident, "versionInfo": package_version, "downloadLocation": "NOASSERTION",
            "filesAnalyzed": False, "licenseConcluded": "NOASSERTION", "licenseDeclared": "NOASSERTION",
            "copyrightText": "NOASSERTION", "supplier": "Organization: Debian",
            "comment": f"compiled into the {build} programs from Debian's {package}" + (f": {how}" if how else ""),
            "externalRefs": [{"referenceCategory": "PACKAGE-MANAGER", "referenceType": "purl",
                              "referenceLocator": f"pkg:deb/debian/{package}@{package_version}" +
                                                  ("" if deb_arch == "all" else f"?arch={deb_arch}")}]})
        relationships.append({"spdxElementId": "SPDXRef-Package-cudnnenv", "relationshipType": "STATIC_LINK",
                              "relatedSpdxElement": ident})
    digest = hashlib.sha256("".join(f"{n}:{h}" for n, h in files).encode()).hexdigest()
    document = {
        "spdxVersion": "SPDX-2.3", "dataLicense": "CC0-1.0", "SPDXID": "SPDXRef-DOCUMENT",
        "name": f"{NAME}-{version}",
        "documentNamespace": f"{HOMEPAGE}/spdx/{NAME}-{version}-{digest}",
        "creationInfo": {"created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(epoch)),
                         "creators": [f"Tool: {NAME} scripts/release.py"]},
        "packages": packages, "relationships": relationships}
    with open(out, "w") as f:
        json.dump(document, f, indent=2)
        f.write("\n")


def write_manifests(version, url_base, zip_name, zip_hash, out):
    url = url_base.replace("{version}", version) + "/" + zip_name
    template = url_base.replace("{version}", "$version") + "/" + zip_name.replace(version, "$version")
    scoop = {
        "version": version, "description": SUMMARY, "homepage": HOMEPAGE,
        "architecture": {"64bit": {"url": url, "hash": zip_hash}},
        "bin": "cudnnenv.exe",
        "checkver": {"github": HOMEPAGE},
        "autoupdate": {"architecture": {"64bit": {"url": template}}}}
    os.makedirs(os.path.join(out, "scoop"), exist_ok=True)
    with open(os.path.join(out, "scoop", f"{NAME}.json"), "w") as f:
        json.dump(scoop, f, indent=4)
        f.write("\n")
    ident = f"{NAME}.{NAME}"
    folder = os.path.join(out, "winget", ident, version)
    os.makedirs(folder, exist_ok=True)
    head = f"# yaml-language-server: $schema=https://aka.ms/winget-manifest.{{}}.1.6.0.schema.json\n"
    common = f"PackageIdentifier: {ident}\nPackageVersion: {version}\n"
    files = {
        f"{ident}.yaml": head.format("version") + common + "DefaultLocale: en-US\nManifestType: version\n"
                         "ManifestVersion: 1.6.0\n",
        f"{ident}.installer.yaml": head.format("installer") + common +
        "InstallerType: zip\nNestedInstallerType: portable\nNestedInstallerFiles:\n"
        "- RelativeFilePath: cudnnenv.exe\n  PortableCommandAlias: cudnnenv\n"
        f"Installers:\n- Architecture: x64\n  InstallerUrl: {url}\n  InstallerSha256: {zip_hash.upper()}\n"
        "ManifestType: installer\nManifestVersion: 1.6.0\n",
        f"{ident}.locale.en-US.yaml": head.format("defaultLocale") + common +
        f"PackageLocale: en-US\nPublisher: {NAME}\nPackageName: {NAME}\nPackageUrl: {HOMEPAGE}\n"
        f"License: {LICENSE_WORDS}\nShortDescription: {SUMMARY}\nManifestType: defaultLocale\nManifestVersion: 1.6.0\n",
    }
    for name, text in files.items():
        with open(os.path.join(folder, name), "w") as f:
            f.write(text)


def sha256(path):
    return hashlib.sha256(read(path)).hexdigest()


def main():
    parser = argparse.ArgumentParser()
    for option in ("--version", "--epoch", "--out", "--url-base"):
        parser.add_argument(option, required=True)
    parser.add_argument("--linux", nargs=3, action="append", default=[], metavar=("ARCH", "TREE", "ROOT"))
    parser.add_argument("--windows")
    parser.add_argument("--also", action="append", default=[], help="a file already in OUT to list in SHA256SUMS")
    arguments = parser.parse_args()
    version, epoch, out = arguments.version, int(arguments.epoch), arguments.out
    os.makedirs(out, exist_ok=True)
    artifacts = list(arguments.also)
    builds = []
    for arch, linux_tree, deb_root in arguments.linux:
        builds.append((f"linux {arch}", DEB_ARCH[arch]))
        top = f"{NAME}-{version}-linux-{arch}"
        write_tarball(linux_tree, top, epoch, os.path.join(out, top + ".tar.gz"))
        artifacts.append(top + ".tar.gz")
        deb = f"{NAME}_{version}_{DEB_ARCH[arch]}.deb"
        write_deb(deb_root, version, arch, epoch, os.path.join(out, deb))
        artifacts.append(deb)
        helpers = os.path.join(linux_tree, "lib", NAME)
        # The helpers only: pip leaves behind the folders it made for shared ones (share/man/...).
        data = [(f"lib/{NAME}/{rel}", full) for rel, full in walk(helpers) if rel != NAME]
        wheel = f"{NAME}-{version}-py3-none-manylinux_2_28_{arch}.whl"
        write_wheel(version, f"py3-none-manylinux_2_28_{arch}", [(NAME, os.path.join(helpers, NAME))], data, epoch,
                    os.path.join(out, wheel))
        artifacts.append(wheel)
    if arguments.windows:
        builds.append(("windows x86_64", "all"))
        tree = arguments.windows
        zip_name = f"{NAME}-{version}-windows-x86_64.zip"
        write_zip([(rel, read(full), 0o755 if rel.endswith((".exe", ".dll")) else 0o644) for rel, full in walk(tree)],
                  epoch, os.path.join(out, zip_name))
        artifacts.append(zip_name)
        data = [(f"lib/{NAME}/{rel}", full) for rel, full in walk(tree) if rel not in (f"{NAME}.exe", "README.md")]
        wheel = f"{NAME}-{version}-py3-none-win_amd64.whl"
        write_wheel(version, "py3-none-win_amd64", [(f"{NAME}.exe", os.path.join(tree, f"{NAME}.exe"))], data, epoch,
                    os.path.join(out, wheel))
        artifacts.append(wheel)
        write_manifests(version, arguments.url_base, zip_name, sha256(os.path.join(out, zip_name)), out)
        for rel, _ in walk(os.path.join(out, "scoop")):
            artifacts.append(f"scoop/{rel}")
        for rel, _ in walk(os.path.join(out, "winget")):
            artifacts.append(f"winget/{rel}")
    hashes = [(name, sha256(os.path.join(out, name))) for name in sorted(artifacts)]
    sbom = f"{NAME}-{version}.spdx.json"
    write_sbom(version, epoch, builds, hashes, os.path.join(out, sbom))
    hashes = sorted(hashes + [(sbom, sha256(os.path.join(out, sbom)))])
    with open(os.path.join(out, "SHA256SUMS"), "w") as f:
        for name, digest in hashes:
            f.write(f"{digest}  {name}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
