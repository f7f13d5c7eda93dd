---@brief
---
--- panic-lens: warns about burn calls that will panic at run time (a companion to
--- rust-analyzer: both attach to the same Rust buffers).
---
--- Install the server (Python 3.11 or newer):
--- ```sh
--- pipx install ./panic-lens   # a clone of the panic-lens repository
--- ```
---
--- Settings (the same keys as VS Code's `panicLens.*` and Cargo.toml's
--- `[package.metadata.panic-lens]`):
--- - `severity`: per rule id, `"error"`, `"warning"`, `"information"`, `"hint"` or `"off"`
--- - `records`: extra record files or folders (a list of paths)
--- - `scope`: `"workspace"` (analyse every .rs file on start) or `"openFiles"`
--- - `ctcCapacity`: the ctc_loss kernel's alpha capacity, for patched burn builds
--- - `logLevel`: `"error"`, `"warning"`, `"info"` or `"debug"`
---
--- ```lua
--- vim.lsp.config('panic_lens', {
---   settings = { panicLens = { severity = { ['router-unsupported-dtype'] = 'off' } } },
--- })
--- ```

---@type vim.lsp.Config
return {
  cmd = { 'panic-lens', 'serve' },
  filetypes = { 'rust' },
  root_markers = { 'Cargo.toml', '.git' },
  -- empty tables would be sent as JSON arrays, so only scalar defaults are spelled out here
  settings = {
    panicLens = {
      scope = 'workspace',
      ctcCapacity = 8192,
      logLevel = 'info',
    },
  },
}
