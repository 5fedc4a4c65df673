#!/usr/bin/env bash
# The release's lists (#60): SHA256SUMS names every file of dist/ with its
# hash; the Scoop manifest and the winget manifests carry every field their
# published schemas require, with the types, patterns and closed sets those
# schemas give (check_manifests.py, written from the schemas' rules), and
# the zip's URL and hash; a broken manifest is caught. The SBOM (SPDX 2.3)
# names every library compiled in, with the version of the Debian package
# it came from here.
source "$(dirname "$0")/lib.sh" "$@"
(cd "$DIST" && find . -type f ! -name SHA256SUMS | sed 's|^\./||' | sort) > files.txt
expect_eq "$(sed 's/^[0-9a-f]*  //' "$DIST/SHA256SUMS")" "$(cat files.txt)" "the files SHA256SUMS names"
(cd "$DIST" && sha256sum -c --quiet SHA256SUMS) > sums.out 2>&1 || fail "sha256sum -c: $(cat sums.out)"
pass "SHA256SUMS: every file of the release, each hash right"

zip=cudnnenv-$VERSION-windows-x86_64.zip
zip_hash=$(sha256sum "$DIST/$zip" | cut -d' ' -f1)
url=https://github.com/cudnnenv/cudnnenv/releases/download/v$VERSION/$zip
python3 "$RELEASE_DIR/check_manifests.py" "$DIST" "$zip" "$zip_hash" "$url" > check.out 2>&1 ||
  fail "the manifests: $(cat check.out)"
# The check catches what the schemas forbid: a field they do not know, a hash that is not the zip's.
cp -R "$DIST" broken
python3 - broken/scoop/cudnnenv.json broken/winget/cudnnenv.cudnnenv/"$VERSION"/cudnnenv.cudnnenv.installer.yaml <<'PY'
import json, sys
scoop = json.load(open(sys.argv[1]))
scoop["homepage_url"] = scoop.pop("homepage")
json.dump(scoop, open(sys.argv[1], "w"))
text = open(sys.argv[2]).read().replace("InstallerSha256: ", "InstallerSha256: 0")
open(sys.argv[2], "w").write(text)
PY
set +e
python3 "$RELEASE_DIR/check_manifests.py" broken "$zip" "$zip_hash" "$url" > broken.out 2>&1
rc=$?
set -e
expect_eq "$rc:$(cat broken.out)" "1:scoop: 'homepage_url' is not a property the schema allows
scoop: homepage: not a string (None)
winget installer: InstallerSha256: '0${zip_hash^^}' does not match ^[A-Fa-f0-9]{64}\$
winget installer: the hash is not the zip's" "the check on broken manifests"
pass "the Scoop and winget manifests follow their schemas' rules and carry the zip's URL and hash"

sbom=$DIST/cudnnenv-$VERSION.spdx.json
python3 - "$sbom" "$VERSION" > sbom.out <<'PY'
import json, subprocess, sys
document = json.load(open(sys.argv[1]))
assert document["spdxVersion"] == "SPDX-2.3" and document["dataLicense"] == "CC0-1.0", document["spdxVersion"]
for field in ("SPDXID", "name", "documentNamespace", "creationInfo", "packages", "relationships"):
    assert field in document, field
ids = [p["SPDXID"] for p in document["packages"]]
assert len(ids) == len(set(ids)), "SPDXIDs repeat"
for package in document["packages"][1:]:
    purl = package["externalRefs"][0]["referenceLocator"]
    deb = purl.split("/")[-1].split("@")[0]
    arch = purl.partition("?arch=")[2]
    if arch not in ("", "amd64"):
        deb += ":" + arch
    have = subprocess.run(["dpkg-query", "-W", "-f=${Version}", deb], capture_output=True, text=True).stdout
    assert package["versionInfo"] == have, (deb, package["versionInfo"], have)
    print(package["name"])
links = [r for r in document["relationships"] if r["relationshipType"] == "STATIC_LINK"]
assert len(links) == len(document["packages"]) - 1
assert document["packages"][0]["versionInfo"] == sys.argv[2]
PY
expect_eq "$(sort -u sbom.out)" "Boost.Process
CLI11
OpenSSL libcrypto
fmt
glibc
libarchive
libbz2
liblzma
libstdc++
libstdc++ (mingw-w64)
mingw-w64 runtime
musl
nlohmann-json
spdlog
toml++
zlib" "the libraries the SBOM names"
pass "the SBOM (SPDX 2.3) names every library compiled in, with the version Debian's package has here"
