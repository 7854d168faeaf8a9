-- Driven by tests/editors/test_neovim_run.py: editors/neovim/lait.lua in a real Neovim runs the
-- workflow in LAIT_FILE with :LaitRun (or LAIT_COMMAND). vim.ui.select / vim.ui.input are scripted: each call takes
-- the next answer of LAIT_ANSWERS (a choice's text, a line of text, or null = Escape) and answers
-- asynchronously, as a real UI does. Writes what it saw as JSON to LAIT_OUT.
local out = { nvim = tostring(vim.version()), prompts = {} }
local answers = vim.json.decode(os.getenv("LAIT_ANSWERS"))

local function finish()
  local f = assert(io.open(os.getenv("LAIT_OUT"), "w"))
  f:write(vim.json.encode(out))
  f:close()
  for _, client in ipairs(vim.lsp.get_clients()) do
    client:stop(true)
  end
  vim.cmd("qall!")
end

local function next_answer(kind, prompt, extra)
  local answer = table.remove(answers, 1)
  table.insert(out.prompts, { kind = kind, prompt = prompt, items = extra.items, default = extra.default })
  return answer
end

vim.ui.select = function(items, opts, on_choice)
  local answer = next_answer("select", opts.prompt, { items = items })
  vim.defer_fn(function()
    for i, item in ipairs(items) do
      if item == answer then
        return on_choice(item, i)
      end
    end
    on_choice(nil, nil)
  end, 5)
end

vim.ui.input = function(opts, on_confirm)
  local answer = next_answer("input", opts.prompt, { default = opts.default })
  vim.defer_fn(function()
    on_confirm(answer ~= vim.NIL and answer or nil)
  end, 5)
end

local ok, err = pcall(function()
  local lait = dofile(os.getenv("LAIT_MODULE"))
  vim.lsp.config("lait", { cmd = vim.json.decode(os.getenv("LAIT_LS_CMD")), init_options = { debounce = 0 } })
  vim.cmd.edit(vim.fn.fnameescape(os.getenv("LAIT_FILE")))
  local buf = vim.api.nvim_get_current_buf()
  out.attached = vim.wait(20000, function()
    return #vim.lsp.get_clients({ bufnr = buf, name = "lait" }) > 0
  end, 20)
  out.target = lait.target(buf)
  vim.cmd(os.getenv("LAIT_COMMAND") or "LaitRun")
  local cancel_after = os.getenv("LAIT_CANCEL_AFTER") -- "<file>:<lines>": :LaitCancel once the file has that many lines
  if cancel_after then
    local file, count = cancel_after:match("^(.*):(%d+)$")
    out.cancel_ready = vim.wait(60000, function()
      return vim.fn.filereadable(file) == 1 and #vim.fn.readfile(file) >= tonumber(count)
    end, 50)
    vim.cmd("LaitCancel")
  end
  out.finished = vim.wait(90000, function()
    return lait.last ~= nil
  end, 20)
  out.result = lait.last
  out.output = lait.output
  if os.getenv("LAIT_RUNS") then -- :LaitRuns, then <CR> on the line that contains LAIT_RUNS
    vim.wait(500, function()
      return false
    end)
    vim.cmd("LaitRuns")
    out.runs = vim.api.nvim_buf_get_lines(0, 0, -1, false)
    out.runs_buffer = vim.api.nvim_buf_get_name(0)
    for i, line in ipairs(out.runs) do
      if line:find(os.getenv("LAIT_RUNS"), 1, true) then
        vim.api.nvim_win_set_cursor(0, { i, 0 })
        vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes("<CR>", true, false, true), "x", false)
        out.jumped = { file = vim.api.nvim_buf_get_name(0), cursor = vim.api.nvim_win_get_cursor(0) }
        break
      end
    end
  end
  out.unused_answers = answers
end)
out.ok = ok
out.error = ok and vim.NIL or tostring(err)
finish()
