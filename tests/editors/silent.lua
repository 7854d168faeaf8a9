-- Driven by tests/editors/test_neovim_silent.py: editors/neovim/lait.lua as a user installs it
-- (its own server discovery, no `cmd` override). LAIT_ENABLE sets vim.g.lait_enable ("1"/"0").
-- Opens each file of LAIT_FILES (":"-separated), waits LAIT_WAIT_MS for a lait client, and writes
-- what it saw (clients per file, :messages, :LaitStatus's lines) as JSON to LAIT_OUT.
local out = { files = {} }
local ok, err = pcall(function()
  local enable = os.getenv("LAIT_ENABLE")
  if enable == "1" then
    vim.g.lait_enable = true
  elseif enable == "0" then
    vim.g.lait_enable = false
  end
  local M = dofile(os.getenv("LAIT_SNIPPET"))
  local wait = tonumber(os.getenv("LAIT_WAIT_MS") or "3000")
  for file in (os.getenv("LAIT_FILES") or ""):gmatch("[^:]+") do
    vim.cmd.edit(vim.fn.fnameescape(file))
    local buf = vim.api.nvim_get_current_buf()
    local attached = vim.wait(wait, function()
      return #vim.lsp.get_clients({ bufnr = buf, name = "lait" }) > 0
    end, 20)
    table.insert(out.files, { file = file, filetype = vim.bo[buf].filetype, attached = attached, status = M.status_lines(buf) })
  end
  out.messages = vim.fn.execute("messages")
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
