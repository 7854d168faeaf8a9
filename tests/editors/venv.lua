-- Driven by tests/editors/test_neovim.py: editors/neovim/lait.lua with its own server discovery
-- (no `cmd` override). LAIT_PROJECT_VENV=1 sets vim.g.lait_project_venv. Opens LAIT_FILE, waits for
-- lait-ls to attach and publish diagnostics, writes what it saw as JSON to LAIT_OUT.
local out = {}
local ok, err = pcall(function()
  if os.getenv("LAIT_PROJECT_VENV") == "1" then
    vim.g.lait_project_venv = true
  end
  local M = dofile(os.getenv("LAIT_SNIPPET"))
  vim.lsp.config("lait", { init_options = { debounce = 0 } })
  vim.cmd.edit(vim.fn.fnameescape(os.getenv("LAIT_FILE")))
  local buf = vim.api.nvim_get_current_buf()
  local function lait()
    return vim.lsp.get_clients({ bufnr = buf, name = "lait" })[1]
  end
  out.attached = vim.wait(30000, function() return lait() ~= nil end, 20)
  local client = assert(lait(), "lait-ls did not attach")
  out.root_dir = client.config.root_dir
  out.server_cmd = M.server_cmd(client.config.root_dir)
  out.diagnostics_arrived = vim.wait(30000, function() return #vim.diagnostic.get(buf) > 0 end, 20)
  out.codes = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    table.insert(out.codes, d.code)
  end
end)
out.ok = ok
out.error = ok and vim.NIL or tostring(err)
local f = assert(io.open(os.getenv("LAIT_OUT"), "w"))
f:write(vim.json.encode(out))
f:close()
for _, client in ipairs(vim.lsp.get_clients()) do
  client:stop(true)
end
vim.cmd("qall!")
