"""The rule language: rule files (`spec`), burn's config table (`configs`), values folded from
Rust (`values`), three-valued conditions (`conditions`) and the detector that runs a rule file
over a file's facts (`detect`). docs/rule-language.md is its user documentation.
"""
