#!/usr/bin/env python3
"""Checks the release's Scoop manifest and winget manifests against the rules
of their published schemas (Scoop's schema.json; winget's 1.6.0 version,
installer and defaultLocale schemas), written out here field by field: the
required fields, the types, the patterns and lengths, the closed sets; and
that every hash and URL is the zip's. Prints each finding; exit 1 if any.

Usage: check_manifests.py DIST ZIP_NAME ZIP_SHA256 URL
"""
import json
import os
import re
import sys

import yaml

problems = []


def need(condition, what):
    if not condition:
        problems.append(what)


def text(value, where, minimum=0, maximum=None, pattern=None):
    if not isinstance(value, str):
        problems.append(f"{where}: not a string ({value!r})")
        return
    need(len(value) >= minimum, f"{where}: shorter than {minimum}")
    need(maximum is None or len(value) <= maximum, f"{where}: longer than {maximum}")
    need(pattern is None or re.search(pattern, value), f"{where}: {value!r} does not match {pattern}")


def uri(value, where):
    # JSON Schema's "uri" format: an absolute URI with a scheme.
    text(value, where, pattern=r"^[A-Za-z][A-Za-z0-9+.-]*://[^\s]+$")


def only(document, allowed, where):
    for key in document:
        need(key in allowed, f"{where}: '{key}' is not a property the schema allows")


# Scoop (schema.json): additionalProperties false at the top, in
# architecture and in autoupdate; "version" required with its pattern; hashes
# of 64 hex digits (or TYPE:HEX); URLs of format uri without "$"; the
# autoupdate URL a uri that may hold $version.
SCOOP_TOP = {"##", "_comment", "architecture", "autoupdate", "bin", "persist", "checkver", "cookie", "depends",
             "description", "env_add_path", "env_set", "extract_dir", "extract_to", "hash", "homepage", "innosetup",
             "installer", "license", "msi", "notes", "post_install", "pre_install", "psmodule", "shortcuts",
             "suggest", "uninstaller", "url", "version"}
SCOOP_ARCH = {"bin", "checkver", "extract_dir", "hash", "installer", "msi", "post_install", "pre_install", "shortcuts",
              "uninstaller", "url"}
HASH = r"^([a-fA-F0-9]{64}|(sha1|sha256|sha512|md5):([a-fA-F0-9]{32}|[a-fA-F0-9]{40}|[a-fA-F0-9]{64}|[a-fA-F0-9]{128}))$"


def check_scoop(path, zip_hash, url):
    with open(path) as f:
        manifest = json.load(f)
    need(isinstance(manifest, dict), "scoop: not an object")
    only(manifest, SCOOP_TOP, "scoop")
    need("version" in manifest, "scoop: no version (required)")
    text(manifest.get("version"), "scoop: version", pattern=r"^[\w\-.+_]+$")
    text(manifest.get("description"), "scoop: description")
    uri(manifest.get("homepage"), "scoop: homepage")
    if "license" in manifest:
        text(manifest["license"], "scoop: license", minimum=1)
    bins = manifest.get("bin")
    need(isinstance(bins, str) or (isinstance(bins, list) and bins), "scoop: bin is not a string or a list")
    arch = manifest.get("architecture", {}).get("64bit", {})
    only(manifest.get("architecture", {}), {"32bit", "64bit"}, "scoop: architecture")
    only(arch, SCOOP_ARCH, "scoop: architecture.64bit")
    uri(arch.get("url"), "scoop: architecture.64bit.url")
    need("$" not in str(arch.get("url")), "scoop: architecture.64bit.url holds '$'")
    text(arch.get("hash"), "scoop: architecture.64bit.hash", pattern=HASH)
    need(arch.get("url") == url, f"scoop: the URL is {arch.get('url')}, not the zip's {url}")
    need(str(arch.get("hash")).lower() == zip_hash, "scoop: the hash is not the zip's")
    auto = manifest.get("autoupdate", {})
    only(auto, {"architecture", "extract_dir", "hash", "note", "url"}, "scoop: autoupdate")
    auto_arch = auto.get("architecture", {}).get("64bit", {})
    only(auto_arch, {"extract_dir", "url", "hash"}, "scoop: autoupdate.architecture.64bit")
    uri(auto_arch.get("url"), "scoop: autoupdate.architecture.64bit.url")
    need(auto_arch.get("url", "").replace("$version", manifest.get("version", "")) == url,
         "scoop: the autoupdate URL pattern, filled with the version, is not the zip's URL")
    checkver = manifest.get("checkver")
    if isinstance(checkver, dict):
        only(checkver, {"github", "re", "regex", "url", "jp", "jsonpath", "xpath", "reverse", "replace", "useragent"},
             "scoop: checkver")


# winget 1.6.0.
IDENTIFIER = r'^[^\.\s\\/:\*\?"<>\|\x01-\x1f]{1,32}(\.[^\.\s\\/:\*\?"<>\|\x01-\x1f]{1,32}){1,7}$'
VERSION = r'^[^\\/:\*\?"<>\|\x01-\x1f]+$'
LOCALE = r"^([a-zA-Z]{2,3}|[iI]-[a-zA-Z]+|[xX]-[a-zA-Z]{1,8})(-[a-zA-Z]{1,8})*$"
PART = r"(0|[1-9][0-9]{0,3}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5])"
MANIFEST_VERSION = rf"^{PART}(\.{PART}){{2}}$"
URL = r"^([Hh][Tt][Tt][Pp][Ss]?)://.+$"


def common(manifest, where, manifest_type):
    text(manifest.get("PackageIdentifier"), f"{where}: PackageIdentifier", maximum=128, pattern=IDENTIFIER)
    text(manifest.get("PackageVersion"), f"{where}: PackageVersion", maximum=128, pattern=VERSION)
    need(manifest.get("ManifestType") == manifest_type, f"{where}: ManifestType is not '{manifest_type}'")
    text(manifest.get("ManifestVersion"), f"{where}: ManifestVersion", pattern=MANIFEST_VERSION)


def check_winget(folder, zip_hash, url):
    names = sorted(os.listdir(folder))
    identifier = os.path.basename(os.path.dirname(folder))  # winget/IDENTIFIER/VERSION/
    need(names == [f"{identifier}.installer.yaml", f"{identifier}.locale.en-US.yaml", f"{identifier}.yaml"],
         f"winget: the files are {names}")
    load = lambda name: yaml.safe_load(open(os.path.join(folder, name)))
    version = load(f"{identifier}.yaml")
    for field in ("PackageIdentifier", "PackageVersion", "DefaultLocale", "ManifestType", "ManifestVersion"):
        need(field in version, f"winget version: no {field} (required)")
    common(version, "winget version", "version")
    text(version.get("DefaultLocale"), "winget version: DefaultLocale", maximum=20, pattern=LOCALE)

    installer = load(f"{identifier}.installer.yaml")
    for field in ("PackageIdentifier", "PackageVersion", "Installers", "ManifestType", "ManifestVersion"):
        need(field in installer, f"winget installer: no {field} (required)")
    common(installer, "winget installer", "installer")
    need(installer.get("InstallerType") in ("msix", "msi", "appx", "exe", "zip", "inno", "nullsoft", "wix", "burn",
                                            "pwa", "portable"), "winget installer: InstallerType")
    need(installer.get("NestedInstallerType") in ("msix", "msi", "appx", "exe", "inno", "nullsoft", "wix", "burn",
                                                  "portable"), "winget installer: NestedInstallerType")
    nested = installer.get("NestedInstallerFiles")
    need(isinstance(nested, list) and 0 < len(nested) <= 1024, "winget installer: NestedInstallerFiles")
    for each in nested or []:
        text(each.get("RelativeFilePath"), "winget installer: RelativeFilePath", minimum=1, maximum=512)
        if "PortableCommandAlias" in each:
            text(each["PortableCommandAlias"], "winget installer: PortableCommandAlias", minimum=1, maximum=40)
    installers = installer.get("Installers")
    need(isinstance(installers, list) and 1 <= len(installers) <= 1024, "winget installer: Installers")
    for each in installers or []:
        for field in ("Architecture", "InstallerUrl", "InstallerSha256"):
            need(field in each, f"winget installer: an installer without {field} (required)")
        need(each.get("Architecture") in ("x86", "x64", "arm", "arm64", "neutral"), "winget installer: Architecture")
        text(each.get("InstallerUrl"), "winget installer: InstallerUrl", maximum=2048, pattern=URL)
        text(each.get("InstallerSha256"), "winget installer: InstallerSha256", pattern=r"^[A-Fa-f0-9]{64}$")
        need(each.get("InstallerUrl") == url, "winget installer: the URL is not the zip's")
        need(str(each.get("InstallerSha256")).lower() == zip_hash, "winget installer: the hash is not the zip's")

    locale = load(f"{identifier}.locale.en-US.yaml")
    for field in ("PackageIdentifier", "PackageVersion", "PackageLocale", "Publisher", "PackageName", "License",
                  "ShortDescription", "ManifestType", "ManifestVersion"):
        need(field in locale, f"winget defaultLocale: no {field} (required)")
    common(locale, "winget defaultLocale", "defaultLocale")
    text(locale.get("PackageLocale"), "winget defaultLocale: PackageLocale", maximum=20, pattern=LOCALE)
    text(locale.get("Publisher"), "winget defaultLocale: Publisher", 2, 256)
    text(locale.get("PackageName"), "winget defaultLocale: PackageName", 2, 256)
    text(locale.get("License"), "winget defaultLocale: License", 3, 512)
    text(locale.get("ShortDescription"), "winget defaultLocale: ShortDescription", 3, 256)
    if "PackageUrl" in locale:
        text(locale["PackageUrl"], "winget defaultLocale: PackageUrl", maximum=2048, pattern=URL)
    for each in (version, installer, locale):
        need(each.get("PackageIdentifier") == identifier, "winget: a file's PackageIdentifier is not its name's")
        need(each.get("PackageVersion") == version.get("PackageVersion"), "winget: the files' versions differ")


def main():
    dist, zip_name, zip_hash, url = sys.argv[1:5]
    check_scoop(os.path.join(dist, "scoop", "cudnnenv.json"), zip_hash, url)
    version_folders = os.listdir(os.path.join(dist, "winget", "cudnnenv.cudnnenv"))
    need(len(version_folders) == 1, f"winget: version folders {version_folders}")
    check_winget(os.path.join(dist, "winget", "cudnnenv.cudnnenv", version_folders[0]), zip_hash, url)
    for problem in problems:
        print(problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
