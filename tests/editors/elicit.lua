-- Driven by tests/editors/test_neovim_run.py: the form dialogs of editors/neovim/lait.lua on their own
-- (no server). Each case of LAIT_CASES is {params, answers}; M.elicit / M.ask / M.approve run in a
-- coroutine with vim.ui.select / vim.ui.input answering from `answers` (null = Escape). Writes
-- {results, prompts} as JSON to LAIT_OUT.
local out = { results = {}, prompts = {} }
local answers = {}

vim.ui.select = function(items, opts, on_choice)
  local answer = table.remove(answers, 1)
  table.insert(out.prompts, { prompt = opts.prompt, items = items })
  vim.defer_fn(function()
    for i, item in ipairs(items) do
      if item == answer then
        return on_choice(item, i)
      end
    end
    on_choice(nil, nil)
  end, 1)
end

vim.ui.input = function(opts, on_confirm)
  local answer = table.remove(answers, 1)
  table.insert(out.prompts, { prompt = opts.prompt, default = opts.default })
  vim.defer_fn(function()
    on_confirm(answer ~= vim.NIL and answer or nil)
  end, 1)
end

local ok, err = pcall(function()
  local lait = dofile(os.getenv("LAIT_MODULE"))
  for _, case in ipairs(vim.json.decode(os.getenv("LAIT_CASES"))) do
    answers = case.answers
    local done, result = false, nil
    coroutine.wrap(function()
      result = lait[case.dialog](case.params)
      done = true
    end)()
    assert(vim.wait(5000, function()
      return done
    end, 5), "dialog did not finish")
    table.insert(out.results, result)
  end
end)
out.ok = ok
out.error = ok and vim.NIL or tostring(err)
local f = assert(io.open(os.getenv("LAIT_OUT"), "w"))
f:write(vim.json.encode(out))
f:close()
vim.cmd("qall!")
