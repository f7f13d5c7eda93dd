---@brief
---
--- panic-lens: warns about burn calls that will panic at run time (a companion to
--- rust-analyzer: both attach to the same Rust buffers).
---
--- It also attaches to JSON buffers (filetypes `json` and `jsonl`, Neovim 0.11's for `.json`
--- and `.jsonl` files), next to any JSON server: on a records file (a `.json` or `.jsonl` file in
--- a folder of the `records` setting) it shows which rule checks each record as an Information
--- diagnostic, and the rule derived from it in the hover of its `"id"` line. Other JSON files
--- get nothing from it; JSON buffers outside a Cargo project (no `Cargo.toml` above them) are
--- not attached. `filetypes = { 'rust' }` in `vim.lsp.config` turns that off.
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
  filetypes = { 'rust', 'json', 'jsonl' },
  -- a Rust buffer's project: the nearest folder with Cargo.toml or .git (none: a single file);
  -- a JSON buffer is only attached inside a Cargo project, so that opening package.json in a
  -- project without Rust starts no server
  root_dir = function(bufnr, on_dir)
    if vim.bo[bufnr].filetype == 'rust' then
      on_dir(vim.fs.root(bufnr, { 'Cargo.toml', '.git' }))
    elseif vim.fs.root(bufnr, 'Cargo.toml') then
      on_dir(vim.fs.root(bufnr, { 'Cargo.toml', '.git' }))
    end
  end,
  -- empty tables would be sent as JSON arrays, so only scalar defaults are spelled out here
  settings = {
    panicLens = {
      scope = 'workspace',
      ctcCapacity = 8192,
      logLevel = 'info',
    },
  },
}
