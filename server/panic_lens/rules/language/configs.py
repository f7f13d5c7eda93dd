"""burn's `#[derive(Config)]` structs: fields in order, defaults, `Option`s and what `init`
makes, read from the index shipped in `rules/data/` (built from burn's source by
`panic-lens index build`; never written by hand).
"""

from __future__ import annotations

import gzip
import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from panic_lens.rust.burn_api import canonical

DATA_DIR = Path(__file__).resolve().parent.parent / "data"


@dataclass(frozen=True, slots=True)
class ConfigField:
    name: str
    type: str
    default: str | None = None  # the Rust expression burn's `#[config(default = ..)]` gives
    option: bool = False

    @property
    def required(self) -> bool:
        """Set by `XConfig::new(..)`: no default and not an Option."""
        return self.default is None and not self.option


@dataclass(frozen=True, slots=True)
class ConfigInfo:
    path: str  # canonical
    fields: tuple[ConfigField, ...]
    init: str | None  # the module type `init` returns
    file: str | None = None

    def field(self, name: str) -> ConfigField | None:
        return next((f for f in self.fields if f.name == name), None)

    @property
    def required(self) -> tuple[ConfigField, ...]:
        return tuple(f for f in self.fields if f.required)


@dataclass(frozen=True, slots=True)
class ConfigTable:
    burn: str | None
    configs: dict[str, ConfigInfo]
    aliases: dict[str, str]  # every public path -> the canonical one
    modules: dict[str, str]  # module type -> its config (by `init`)

    def config(self, path: str | None) -> ConfigInfo | None:
        if path is None:
            return None
        return self.configs.get(self.aliases.get(path, path))

    def canonical(self, path: str) -> str:
        return self.aliases.get(path, path)

    def paths_of(self, path: str) -> frozenset[str]:
        """Every path naming what `path` names: a config's public paths, or the names of the
        module a config's `init` makes."""
        key = self.aliases.get(path)
        if key is not None:
            return frozenset(alias for alias, target in self.aliases.items() if target == key)
        config = self.modules.get(path)
        if config is not None:
            return frozenset(module for module, c in self.modules.items() if c == config)
        return frozenset()


def index_files() -> list[Path]:
    return sorted(DATA_DIR.glob("burn-*.json"))


@lru_cache(maxsize=1)
def table() -> ConfigTable:
    """The newest shipped index (an empty table when none is shipped)."""
    files = index_files()
    if not files:
        return ConfigTable(None, {}, {}, {})
    return read_table(files[-1])


def read_table(path: Path) -> ConfigTable:
    data = json.loads(path.read_text(encoding="utf-8"))
    return table_from_data(data, str(path))


def table_from_data(data: dict[str, Any], source: str = "<index>") -> ConfigTable:
    configs: dict[str, ConfigInfo] = {}
    aliases: dict[str, str] = {}
    modules: dict[str, str] = {}
    raw = data.get("configs")
    if not isinstance(raw, dict):
        raise ValueError(f"{source}: configs: missing or not an object")
    for key, entry in raw.items():
        try:
            fields = tuple(
                ConfigField(f["name"], f.get("type", ""), f.get("default"), bool(f.get("option")))
                for f in entry["fields"]
            )
        except (KeyError, TypeError) as exc:
            raise ValueError(f"{source}: configs.{key}.fields: {exc!r}") from exc
        init = entry.get("init")
        configs[key] = ConfigInfo(key, fields, init, entry.get("file"))
        aliases.setdefault(key, key)
        for alias in entry.get("paths", ()):
            # as written, and as the resolver gives it (`burn_nn::..` -> `burn::nn::..`)
            for name in (alias, canonical(alias.split("::"))):
                if name is not None:
                    aliases.setdefault(name, key)
    for key, info in configs.items():
        if info.init is None:
            continue
        modules.setdefault(info.init, key)
        module_name = info.init.rsplit("::", 1)[-1]
        if key.rsplit("::", 1)[-1] != f"{module_name}Config":
            continue
        # `burn::nn::norm::GroupNorm` is the module of `burn::nn::norm::GroupNormConfig`
        for alias, target in aliases.items():
            if target == key and alias.endswith("Config"):
                modules.setdefault(alias.removesuffix("Config"), key)
    return ConfigTable(data.get("burn"), configs, aliases, modules)


def config_of_module(module_path: str) -> str | None:
    """The config whose `init` makes `module_path` (canonical), if any."""
    t = table()
    return t.modules.get(module_path) or t.modules.get(t.canonical(module_path))


# -- the shipped guards index (rust/burn_guards.py): read by the checker's API and the deriver


def guards_files() -> list[Path]:
    return sorted(DATA_DIR.glob("burn-*.guards.json.gz"))


@lru_cache(maxsize=1)
def shipped_guards() -> dict[str, Any]:
    """The newest shipped guards index (`{"functions": {}}` when none is shipped), for the
    deriver."""
    files = guards_files()
    if not files:
        return {"functions": {}}
    return read_guards(files[-1])


def read_guards(path: Path) -> dict[str, Any]:
    raw = path.read_bytes()
    if path.suffix == ".gz":
        raw = gzip.decompress(raw)
    data = json.loads(raw)
    if not isinstance(data, dict) or not isinstance(data.get("functions"), dict):
        raise ValueError(f"{path}: functions: missing or not an object")
    return data
