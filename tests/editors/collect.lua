-- Driven by tests/editors/test_neovim.py: a real Neovim as the LSP client of lait-ls.
-- Opens the file given on the command line, waits for lait's diagnostics, asks for completion at
-- LAIT_COMPLETE_AT ("line,col", 0-based), and writes what it saw as JSON to LAIT_OUT.
local cmd = vim.json.decode(os.getenv("LAIT_LS_CMD"))
local buf = vim.api.nvim_get_current_buf()
local out = { nvim = tostring(vim.version()), diagnostics = {}, completion = {} }
local client_id = vim.lsp.start({
  name = "lait",
  cmd = cmd,
  root_dir = vim.fn.getcwd(),
  init_options = { debounce = 0 },
}, { bufnr = buf })
out.started = client_id ~= nil
out.diagnostics_arrived = vim.wait(20000, function()
  return #vim.diagnostic.get(buf) > 0
end, 20)
for _, d in ipairs(vim.diagnostic.get(buf)) do
  table.insert(out.diagnostics, {
    lnum = d.lnum, col = d.col, end_col = d.end_col, severity = d.severity,
    message = d.message, source = d.source, code = d.code,
  })
end
local line, col = (os.getenv("LAIT_COMPLETE_AT") or "0,0"):match("(%d+),(%d+)")
local res = vim.lsp.buf_request_sync(buf, "textDocument/completion", {
  textDocument = { uri = vim.uri_from_bufnr(buf) },
  position = { line = tonumber(line), character = tonumber(col) },
}, 10000)
for _, r in pairs(res or {}) do
  local result = r.result or {}
  local items = result.items or result
  for _, item in ipairs(items) do
    table.insert(out.completion, item.label)
  end
end
local f = assert(io.open(os.getenv("LAIT_OUT"), "w"))
f:write(vim.json.encode(out))
f:close()
vim.lsp.stop_client(client_id, true)
vim.cmd("qall!")
