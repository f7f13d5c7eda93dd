"""An index of burn's `#[derive(Config)]` structs, computed from a burn checkout's source.

For every config: its fields in declaration order (type, `#[config(default = ..)]` as written,
whether it is an `Option`), the public paths a user can write for it, and the type its `init`
returns. The paths come from following `pub mod` and `pub use` (named, renamed, globs) from
every crate root of the workspace, the `burn` facade included (`burn_workspace`); the index's
key for a config is
the path panic-lens's resolver gives for its shortest `burn::` path (`burn_api.canonical`).

`build_index` reads only Rust source (tree-sitter); `load_index` reads the JSON it gives back,
with errors that name the file and the key.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, NoReturn

from panic_lens.rust import burn_api
from panic_lens.rust.burn_workspace import (
    PUBLIC,
    BurnIndexError,
    ItemKey,
    Module,
    Struct,
    Workspace,
    attribute,
    burn_version,
    canonical_key,
    items_of,
    visibility,
)
from panic_lens.rust.syntax import Node, child_by_field, node_text, path_segments

FORMAT = 1


def config_default(attrs: list[Node], src: bytes) -> tuple[str | None, Node] | None:
    """A field's `#[config(..)]` as burn's Config derive reads it: None without one; else the
    expression of its `default = ..` as written (a string's content unquoted; None when the
    attribute gives none) and the node it is written at (the value, or the attribute)."""
    bare: Node | None = None  # a `#[config(..)]` without a default
    for attr in attrs:
        found = attribute(attr, src)
        if found is None or found[0] != "config":
            continue
        tokens = [c for c in found[1].children if c.type not in ("(", ")")] if found[1] else []
        for i in range(len(tokens) - 2):
            if node_text(tokens[i], src) == "default" and tokens[i + 1].type == "=":
                value: list[Node] = []
                for token in tokens[i + 2 :]:
                    if token.type == ",":
                        break
                    value.append(token)
                if not value:
                    return None, attr
                if len(value) == 1 and value[0].type in ("string_literal", "raw_string_literal"):
                    return _string_value(value[0], src), value[0]
                text = src[value[0].start_byte : value[-1].end_byte].decode("utf-8", "replace")
                return text, value[0]
        bare = bare or attr
    return (None, bare) if bare is not None else None


def _string_value(node: Node, src: bytes) -> str:
    if node.type == "raw_string_literal":
        content = child_by_field(node, "content") or next(
            (c for c in node.named_children if c.type == "string_content"), None
        )
        return node_text(content, src) if content is not None else ""
    parts: list[str] = []
    for child in node.named_children:
        text = node_text(child, src)
        if child.type == "escape_sequence":
            parts.append(_ESCAPES.get(text, text))
        else:
            parts.append(text)
    return "".join(parts)


_ESCAPES = {'\\"': '"', "\\\\": "\\", "\\n": "\n", "\\t": "\t", "\\'": "'", "\\0": "\0"}


def _fields(struct: Struct) -> list[dict[str, Any]] | None:
    """The named fields of a struct in declaration order; None for a tuple or unit struct."""
    body = child_by_field(struct.node, "body")
    if body is None or body.type != "field_declaration_list":
        return None
    out: list[dict[str, Any]] = []
    for node, attrs in items_of(body, struct.src):
        if node.type != "field_declaration":
            continue
        name, kind = child_by_field(node, "name"), child_by_field(node, "type")
        if name is None or kind is None:
            continue
        entry: dict[str, Any] = {
            "name": node_text(name, struct.src),
            "type": " ".join(node_text(kind, struct.src).split()),
        }
        default = config_default(attrs, struct.src)
        if default is not None and default[0] is not None:
            entry["default"] = default[0]
        if _is_option(kind, struct.src):
            entry["option"] = True
        out.append(entry)
    return out


def _is_option(kind: Node, src: bytes) -> bool:
    if kind.type != "generic_type":
        return False
    segs = path_segments(kind, src)
    return segs is not None and (
        segs == ["Option"] or (segs[-2:] == ["option", "Option"] and segs[0] in ("std", "core"))
    )


def _returned_type(function: Node, src: bytes) -> list[str] | None:
    """The path of the type a function returns (generic arguments dropped), if a plain path."""
    kind = child_by_field(function, "return_type")
    if kind is None or kind.type not in (
        "type_identifier",
        "scoped_type_identifier",
        "generic_type",
    ):
        return None
    segs = path_segments(kind, src)
    return segs if segs and segs != ["Self"] else None


# -- the index ---------------------------------------------------------------------------------


def build_index(burn_root: Path) -> dict[str, Any]:
    """The index of the burn checkout at `burn_root` (see the module's docstring)."""
    if not (burn_root / "crates").is_dir():
        raise BurnIndexError(f"{burn_root}: not a burn checkout (no crates/ folder)")
    version = burn_version(burn_root)
    space = Workspace(burn_root)
    space.load()
    space.resolve_names()
    paths = space.public_paths()
    keys = {item: canonical_key(found) for item, found in paths.items()}

    configs: dict[str, dict[str, Any]] = {}
    by_item: dict[ItemKey, dict[str, Any]] = {}
    for item, struct in sorted(space.structs.items()):
        if "Config" not in struct.derives or item not in keys:
            continue
        fields = _fields(struct)
        if fields is None:
            continue
        entry: dict[str, Any] = {
            "file": struct.file,
            "line": struct.line,
            "paths": ["::".join(p) for p in paths[item]],
            "fields": fields,
        }
        key = keys[item]
        if key in configs:
            raise BurnIndexError(
                f"{struct.file}:{struct.line}: {key}: also the path of {configs[key]['file']}"
            )
        configs[key] = by_item[item] = entry

    modules: dict[str, str] = {}
    for module in space.modules.values():
        for impl in module.impls:
            config = _impl_target(space, module, impl)
            if config is None or config not in by_item:
                continue
            entry = by_item[config]
            for method, returned in _module_methods(space, module, impl, keys).items():
                entry.setdefault("inits", {})[method] = keys[returned]
                if method != "init":
                    continue
                entry["init"] = keys[returned]
                if "Module" in space.structs[returned].derives:
                    modules.setdefault(keys[returned], keys[config])
    return {"format": FORMAT, "burn": version, "configs": configs, "modules": modules}


def _impl_target(space: Workspace, module: Module, impl: Node) -> ItemKey | None:
    """The struct an inherent `impl X { .. }` is for."""
    if child_by_field(impl, "trait") is not None:
        return None
    kind = child_by_field(impl, "type")
    segs = path_segments(kind, module.src) if kind is not None else None
    found = space.resolve(module.key, tuple(segs)) if segs else None
    return found[1] if found is not None and found[0] == "item" else None


def _module_methods(
    space: Workspace, module: Module, impl: Node, keys: dict[ItemKey, str]
) -> dict[str, ItemKey]:
    """`pub fn` of the impl -> the burn struct it returns: `init` whatever struct it returns,
    the others when they return a struct deriving `Module`."""
    body = child_by_field(impl, "body")
    out: dict[str, ItemKey] = {}
    for node, _attrs in items_of(body, module.src) if body is not None else ():
        name = child_by_field(node, "name")
        if node.type != "function_item" or name is None or visibility(node, module.src) < PUBLIC:
            continue
        segs = _returned_type(node, module.src)
        found = space.resolve(module.key, tuple(segs)) if segs else None
        if found is None or found[0] != "item" or found[1] not in keys:
            continue
        method = node_text(name, module.src)
        if method == "init" or "Module" in space.structs[found[1]].derives:
            out[method] = found[1]
    return out


# -- reading an index ----------------------------------------------------------------------


def resolved_names(index: dict[str, Any]) -> dict[str, str]:
    """What panic-lens's resolver gives for each public path of each config -> the config's
    key. A config has several (`burn::nn::norm::GroupNormConfig` resolves as written, the key is
    `burn::nn::GroupNormConfig`); a path the resolver does not know (None) is left out."""
    out: dict[str, str] = {}
    for key, entry in sorted(index["configs"].items()):
        out.setdefault(key, key)
        for path in entry["paths"]:
            name = burn_api.canonical(path.split("::"))
            if name is not None:
                out.setdefault(name, key)
    return out


def dumps(index: dict[str, Any]) -> str:
    """The index as shipped: compact JSON, sorted keys, a newline at the end."""
    return json.dumps(index, sort_keys=True, separators=(",", ":"), ensure_ascii=False) + "\n"


def load_index(path: Path) -> dict[str, Any]:
    """Read and check an index file; BurnIndexError names the file and the key that is wrong."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as err:
        raise BurnIndexError(f"{path}: cannot read: {err}") from err
    except json.JSONDecodeError as err:
        raise BurnIndexError(f"{path}: not JSON: {err}") from err
    check = _Checker(str(path))
    check.object(data, "")
    if data.get("format") != FORMAT:
        check.fail("format", f"expected {FORMAT}, found {data.get('format')!r}")
    check.string(data.get("burn"), "burn")
    configs = data.get("configs")
    check.object(configs, "configs")
    for key, entry in configs.items():
        where = f"configs.{key}"
        check.object(entry, where)
        check.string(entry.get("file"), f"{where}.file")
        if not isinstance(entry.get("line"), int) or isinstance(entry.get("line"), bool):
            check.fail(f"{where}.line", "expected a line number")
        paths = entry.get("paths")
        if not isinstance(paths, list) or not paths:
            check.fail(f"{where}.paths", "expected a non-empty list of paths")
        for i, item in enumerate(paths):
            check.string(item, f"{where}.paths[{i}]")
        if "init" in entry:
            check.string(entry["init"], f"{where}.init")
        for method, target in check.object(entry.get("inits", {}), f"{where}.inits").items():
            check.string(target, f"{where}.inits.{method}")
        fields = entry.get("fields")
        if not isinstance(fields, list):
            check.fail(f"{where}.fields", "expected a list of fields")
        for i, spec in enumerate(fields):
            at = f"{where}.fields[{i}]"
            check.object(spec, at)
            check.string(spec.get("name"), f"{at}.name")
            check.string(spec.get("type"), f"{at}.type")
            if "default" in spec:
                check.string(spec["default"], f"{at}.default")
            if "option" in spec and spec["option"] is not True:
                check.fail(f"{at}.option", "expected true (or no key)")
            unknown = set(spec) - {"name", "type", "default", "option"}
            if unknown:
                check.fail(f"{at}.{sorted(unknown)[0]}", "unknown key")
    for module, config in check.object(data.get("modules", {}), "modules").items():
        check.string(config, f"modules.{module}")
        if config not in configs:
            check.fail(f"modules.{module}", f"{config} is not a config of the index")
    return data


class _Checker:
    def __init__(self, file: str) -> None:
        self.file = file

    def fail(self, key: str, reason: str) -> NoReturn:
        raise BurnIndexError(f"{self.file}: {key or 'top level'}: {reason}")

    def object(self, value: Any, key: str) -> dict[str, Any]:
        if not isinstance(value, dict):
            self.fail(key, "expected an object")
        return value

    def string(self, value: Any, key: str) -> None:
        if not isinstance(value, str) or not value:
            self.fail(key, "expected a non-empty string")
