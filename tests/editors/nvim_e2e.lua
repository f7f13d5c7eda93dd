-- Headless Neovim 0.11 end-to-end check of editors/neovim/lsp/panic_lens.lua against the real server.
-- Env: PANIC_LENS_RTP (editors/neovim), PANIC_LENS_CMD (JSON argv), PANIC_LENS_RULE (rule id to
-- fix), PANIC_LENS_OUT (result JSON); with PANIC_LENS_RECORDS (a records folder) the file opened
-- is a records file and only its record-coverage diagnostic and hover are checked.
-- The pytest side (test_neovim.py) judges the result.
local out = assert(os.getenv('PANIC_LENS_OUT'), 'PANIC_LENS_OUT unset')
local rule = assert(os.getenv('PANIC_LENS_RULE'), 'PANIC_LENS_RULE unset')
local result = { nvim = tostring(vim.version()) }

vim.opt.runtimepath:prepend(assert(os.getenv('PANIC_LENS_RTP'), 'PANIC_LENS_RTP unset'))
vim.opt.swapfile = false
-- the config file under test stays as shipped; only the argv points at this checkout's server
vim.lsp.config('panic_lens', { cmd = vim.json.decode(assert(os.getenv('PANIC_LENS_CMD'))) })
if os.getenv('PANIC_LENS_SEVERITY') then -- a user override, merged into the shipped settings
  vim.lsp.config('panic_lens', { settings = { panicLens = { severity = { [rule] = os.getenv('PANIC_LENS_SEVERITY') } } } })
end
local records = os.getenv('PANIC_LENS_RECORDS') -- a records folder: the file opened is a record
if records then
  vim.lsp.config('panic_lens', { settings = { panicLens = { records = { records } } } })
end
vim.lsp.enable('panic_lens')

local function wait_for(what, seconds, pred)
  assert(vim.wait(seconds * 1000, pred, 50), 'timed out waiting for ' .. what)
end

local function ours(bufnr)
  return vim.tbl_filter(function(d) return d.source == 'panic-lens' end, vim.diagnostic.get(bufnr))
end

local function of_rule(bufnr)
  return vim.tbl_filter(function(d) return d.code == rule end, ours(bufnr))
end

local function summarize(diags)
  return vim.tbl_map(function(d)
    return { lnum = d.lnum, col = d.col, end_col = d.end_col, code = d.code, severity = d.severity,
             message = d.message }
  end, diags)
end

local function attach(bufnr)
  wait_for('the client to attach', 30, function()
    return #vim.lsp.get_clients({ bufnr = bufnr, name = 'panic_lens' }) > 0
  end)
  local client = vim.lsp.get_clients({ bufnr = bufnr, name = 'panic_lens' })[1]
  result.filetype = vim.bo[bufnr].filetype
  result.root_dir = client.root_dir
  result.offset_encoding = client.offset_encoding
  result.settings = client.settings
  return client
end

local function hover(client, bufnr, d)
  vim.api.nvim_win_set_cursor(0, { d.lnum + 1, d.col })
  local params = vim.lsp.util.make_position_params(0, client.offset_encoding)
  local resp = client:request_sync('textDocument/hover', params, 10000, bufnr)
  assert(resp and not resp.err, 'hover failed: ' .. vim.inspect(resp and resp.err))
  result.hover = resp.result and resp.result.contents
end

local function code_actions(client, bufnr, d)
  local params = vim.lsp.util.make_range_params(0, client.offset_encoding)
  params.range = d.user_data.lsp.range
  params.context = { diagnostics = { d.user_data.lsp }, only = { 'quickfix' } }
  local resp = client:request_sync('textDocument/codeAction', params, 10000, bufnr)
  assert(resp and not resp.err, 'codeAction failed: ' .. vim.inspect(resp and resp.err))
  local actions = resp.result or {}
  result.code_actions = vim.tbl_map(function(a)
    return { title = a.title, kind = a.kind, isPreferred = a.isPreferred == true,
             has_edit = a.edit ~= nil, has_command = a.command ~= nil }
  end, actions)
  return actions
end

local function apply(client, bufnr, actions)
  local chosen
  for _, a in ipairs(actions) do
    if a.isPreferred then chosen = chosen or a end
  end
  assert(chosen, 'no preferred quick fix among ' .. #actions .. ' actions')
  if not chosen.edit and client:supports_method('codeAction/resolve') then
    local resp = client:request_sync('codeAction/resolve', chosen, 10000, bufnr)
    assert(resp and not resp.err, 'codeAction/resolve failed: ' .. vim.inspect(resp and resp.err))
    chosen = resp.result
    result.resolved = true
  end
  assert(chosen.edit, 'the preferred quick fix has no edit: ' .. chosen.title)
  result.applied = chosen.title
  vim.lsp.util.apply_workspace_edit(chosen.edit, client.offset_encoding)
end

-- a records file: its record's coverage note, and the hover of its "id" line
local function record_coverage(client, bufnr)
  local function notes()
    return vim.tbl_filter(function(d) return d.code == 'record-coverage' end, ours(bufnr))
  end
  wait_for('a record-coverage diagnostic', 60, function() return #notes() > 0 end)
  result.diagnostics = summarize(ours(bufnr))
  hover(client, bufnr, notes()[1])
  client:stop()
end

vim.api.nvim_create_autocmd('VimEnter', { callback = function()
  local ok, err = pcall(function()
    local bufnr = vim.api.nvim_get_current_buf()
    local client = attach(bufnr)
    if records then return record_coverage(client, bufnr) end
    wait_for('a ' .. rule .. ' diagnostic', 60, function() return #of_rule(bufnr) > 0 end)
    result.first_diagnostics = summarize(ours(bufnr))
    -- settings may reach the server after its first analysis: wait for the settled severity
    local want = tonumber(os.getenv('PANIC_LENS_EXPECT_SEVERITY') or '')
    if want then
      wait_for('the configured severity', 20, function()
        return #of_rule(bufnr) > 0 and of_rule(bufnr)[1].severity == want
      end)
    end
    result.diagnostics = summarize(ours(bufnr))
    local d = of_rule(bufnr)[1]
    hover(client, bufnr, d)
    apply(client, bufnr, code_actions(client, bufnr, d))
    result.fixed_line = vim.api.nvim_buf_get_lines(bufnr, d.lnum, d.lnum + 1, false)[1]
    result.buffer = table.concat(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false), '\n')
    wait_for('the ' .. rule .. ' diagnostic to go', 30, function() return #of_rule(bufnr) == 0 end)
    result.diagnostics_after = summarize(ours(bufnr))
    -- the README's re-scan command, answered synchronously here
    local scan = client:request_sync('workspace/executeCommand',
      { command = 'panic-lens.scanWorkspace', arguments = {} }, 30000, bufnr)
    assert(scan and not scan.err, 'scanWorkspace failed: ' .. vim.inspect(scan and scan.err))
    result.scan = scan.result
    client:stop()
  end)
  if not ok then
    result.error = tostring(err)
    result.diagnostics_at_error = summarize(ours(0))
  end
  vim.fn.writefile({ vim.json.encode(result) }, out)
  vim.cmd(ok and 'qall!' or 'cquit! 1')
end })
