-- Driven by tests/editors/test_neovim.py: the user's setup (editors/neovim/lait.lua, with `cmd`
-- pointed at the Python under test) in a real Neovim. Opens LAIT_FILE, lets root markers and the
-- filetype start lait-ls, checks non-ASCII columns, applies the quick fix for LAIT309 and writes
-- what it saw as JSON to LAIT_OUT.
local out = { nvim = tostring(vim.version()), actions = {} }

local function finish()
  local f = assert(io.open(os.getenv("LAIT_OUT"), "w"))
  f:write(vim.json.encode(out))
  f:close()
  for _, client in ipairs(vim.lsp.get_clients()) do
    client:stop(true)
  end
  vim.cmd("qall!")
end

local ok, err = pcall(function()
  dofile(os.getenv("LAIT_SNIPPET"))
  vim.lsp.config("lait", { cmd = vim.json.decode(os.getenv("LAIT_LS_CMD")), init_options = { debounce = 0 } })
  vim.cmd.edit(vim.fn.fnameescape(os.getenv("LAIT_FILE")))
  local buf = vim.api.nvim_get_current_buf()
  out.filetype = vim.bo[buf].filetype

  local function lait()
    return vim.lsp.get_clients({ bufnr = buf, name = "lait" })[1]
  end
  out.attached = vim.wait(20000, function() return lait() ~= nil end, 20)
  local client = assert(lait(), "lait-ls did not attach")
  out.root_dir = client.config.root_dir
  out.offset_encoding = client.offset_encoding

  local function diagnostics()
    local list = {}
    for _, d in ipairs(vim.diagnostic.get(buf)) do
      table.insert(list, { code = d.code, lnum = d.lnum, col = d.col, end_col = d.end_col, message = d.message })
    end
    return list
  end
  out.diagnostics_arrived = vim.wait(20000, function() return #vim.diagnostic.get(buf) > 0 end, 20)
  out.before = diagnostics()

  local target
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    if d.code == "LAIT309" then
      target = d
    end
  end
  local shown = assert(target and target.user_data and target.user_data.lsp, "no LAIT309 to fix")
  local response = client:request_sync("textDocument/codeAction", {
    textDocument = { uri = vim.uri_from_bufnr(buf) },
    range = shown.range,
    context = { diagnostics = { shown }, only = { "quickfix" } },
  }, 10000, buf)
  local chosen
  for _, action in ipairs((response and response.result) or {}) do
    table.insert(out.actions, action.title)
    if action.title == "Replace with 'temperature'" then
      chosen = action
    end
  end
  if chosen then
    vim.lsp.util.apply_workspace_edit(chosen.edit, client.offset_encoding)
  end
  out.fixed = vim.wait(20000, function()
    for _, d in ipairs(vim.diagnostic.get(buf)) do
      if d.code == "LAIT309" then
        return false
      end
    end
    return true
  end, 20)
  out.after = diagnostics()
  out.lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
end)
out.ok = ok
out.error = ok and nil or tostring(err)
finish()
