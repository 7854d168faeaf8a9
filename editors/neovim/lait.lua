-- lait for Neovim 0.11+: the language server, and running workflows and agents from the editor.
--
-- Install: put this file on your runtimepath (e.g. as ~/.config/nvim/plugin/lait.lua) or
-- `dofile()` it from init.lua; it returns its module table. It starts `lait-ls` for the YAML and
-- Markdown buffers of lait projects (below), declares the `experimental.lait` capability and answers the server's dialogs with
-- vim.ui.select / vim.ui.input:
--   * lait/approveToolCall -> "Allow once" / "Allow for this session" / "Deny"
--   * lait/elicit          -> "Answer" / "Decline" / "Cancel", then one prompt per field
--   * lait/ask             -> a choice or a line of text
-- Progress and the answer go to the `lait://output` buffer.
--
-- It starts only in a lait project (a lait.config.yml above the file) or for a file lait
-- recognises by its content (a workflow's top-level `steps:`, an agent's frontmatter in agents/);
-- elsewhere, and when lait-ls is not installed, it stays silent. `vim.g.lait_enable = true` starts
-- it for every YAML/Markdown buffer, `false` never. :LaitStatus says whether it runs, and why (not).
--
-- Commands: :LaitRun [prompt]  run the current workflow or agent file (asks for the prompt and
--           :LaitDryRun          the workflow's inputs), :LaitDryRun shows the plan only,
--           :LaitCancel          cancels the runs in flight (tool processes and MCP servers stop),
--           :LaitRuns            lists the runs with their steps' status in `lait://runs`
--                                (<CR> on a step opens it in its workflow file).
-- The "▶ Run workflow" / "▶ Run agent" / "Dry run" code lenses run the same commands
-- (`vim.lsp.codelens.refresh()` / `vim.lsp.codelens.run()`).
--
-- Settings: init_options.approveTools = "always" (default: every tool call asks) | "never";
--           init_options.noEnv = true: runs do not read the project's .env (the CLI's --no-env).
--
-- Which lait-ls runs: the one on PATH. Set `vim.g.lait_project_venv = true` (before a lait file
-- is opened) to prefer a project's own `.venv/bin/lait-ls` (also `venv/`, `env/`) below the root
-- (the folder of lait.config.yml, else of .git). Off by default: with it, opening a project runs
-- an executable that the project contains, so turn it on only if you trust the projects you open.
-- `vim.lsp.config("lait", { cmd = { "/path/to/lait-ls" } })` always wins.
local M = {}

M.output = {} -- lines of the output buffer (also kept when no buffer is shown)
M.runs = {} -- runId -> {client, request_id, streamed}
M.last = nil -- the last lait/run result

local REQUESTS = { "lait/approveToolCall", "lait/elicit", "lait/ask" }

-- -- helpers -----------------------------------------------------------------------------------
local function await(start)
  -- Wait for a vim.ui callback inside a handler's coroutine (LSP handlers of server requests run
  -- in one, and so does M.run); outside a coroutine, only a synchronous UI can answer.
  local co, is_main = coroutine.running()
  if not co or is_main then
    local value
    start(function(v)
      value = v
    end)
    return value
  end
  start(function(v)
    vim.schedule(function()
      coroutine.resume(co, v)
    end)
  end)
  return coroutine.yield()
end

local function select(items, opts)
  return await(function(cb)
    vim.ui.select(items, opts, cb)
  end)
end

local function input(opts)
  return await(function(cb)
    vim.ui.input(opts, cb)
  end)
end

local function output_buffer()
  local buf = vim.fn.bufnr("lait://output")
  if buf == -1 then
    buf = vim.api.nvim_create_buf(false, true)
    vim.api.nvim_buf_set_name(buf, "lait://output")
    vim.bo[buf].buftype = "nofile"
    vim.bo[buf].swapfile = false
  end
  return buf
end

local function write(text, newline)
  -- append text to the output: a new line, or (newline == false) the end of the last line
  local pieces = vim.split(text, "\n", { plain = true })
  if newline == false and #M.output > 0 then
    M.output[#M.output] = M.output[#M.output] .. table.remove(pieces, 1)
  end
  vim.list_extend(M.output, pieces)
  local buf = output_buffer()
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, M.output)
end

local function show_output()
  local buf = output_buffer()
  if vim.fn.bufwinid(buf) == -1 then
    vim.cmd("botright split")
    vim.api.nvim_win_set_buf(0, buf)
    vim.cmd("wincmd p")
  end
end

local function first_line(text, limit)
  local line = tostring(text or ""):match("^[^\n]*") or ""
  return #line > limit and line:sub(1, limit) .. "..." or line
end

-- -- :LaitRuns: the runs of this session with their steps ------------------------------------------
-- Built from the same lait/runEvent notifications, nested by their step fields (stepId,
-- parentStepId; editors/vscode/PROTOCOL.md section 5), newest run first.
M.history = {} -- {runId, name, state, seconds, children, steps = {stepId -> node}, tools = {callId -> node}}
local MAX_RUNS = 20

local function history_of(runId)
  for _, h in ipairs(M.history) do
    if h.runId == runId then
      return h
    end
  end
end

local function runs_buffer()
  local buf = vim.fn.bufnr("lait://runs")
  if buf == -1 then
    buf = vim.api.nvim_create_buf(false, true)
    vim.api.nvim_buf_set_name(buf, "lait://runs")
    vim.bo[buf].buftype = "nofile"
    vim.bo[buf].swapfile = false
    vim.bo[buf].bufhidden = "hide"
    vim.keymap.set("n", "<CR>", function()
      M.runs_jump()
    end, { buffer = buf, desc = "lait: go to this step in its workflow file" })
  end
  return buf
end

local function seconds_text(s)
  return s and string.format("  %.1fs", s) or ""
end

local function tokens_of(node) -- a step's own tokens and its inner steps'
  local total = node.tokens or 0
  for _, child in ipairs(node.children or {}) do
    if child.type == "step" then
      total = total + tokens_of(child)
    end
  end
  return total
end

--- The lines of :LaitRuns and, per line, the step place it jumps to.
function M.runs_lines()
  local lines, places = {}, {}
  local function add(node, depth)
    local pad = string.rep("  ", depth)
    local line
    if node.type == "step" then
      local tokens = tokens_of(node)
      line = string.format("%s[%s] %s (%s)  %s%s%s", pad, node.n or "?", node.label, node.kind or "", node.state, seconds_text(node.seconds), tokens > 0 and string.format("  %d tokens", tokens) or "")
      if node.error then
        line = line .. "  " .. first_line(node.error, 120)
      end
    elseif node.type == "tool" then
      line = string.format("%stool %s %s  %s%s", pad, node.name, first_line(node.arguments, 80), node.state, node.result and ("  -> " .. first_line(node.result, 80)) or "")
    elseif node.type == "approval" then
      line = string.format("%sapproval asked: %s  %s", pad, node.tool, node.decision or "waiting")
    else
      line = pad .. node.text
    end
    table.insert(lines, line)
    places[#lines] = node.place
    for _, child in ipairs(node.children or {}) do
      add(child, depth + 1)
    end
  end
  for _, h in ipairs(M.history) do
    table.insert(lines, string.format("%s  %s%s%s", h.name, h.state, seconds_text(h.seconds), h.tokens > 0 and string.format("  %d tokens", h.tokens) or ""))
    for _, child in ipairs(h.children) do
      add(child, 1)
    end
  end
  if #lines == 0 then
    lines = { "no runs yet (:LaitRun runs the current workflow or agent)" }
  end
  return lines, places
end

local function refresh_runs()
  local buf = vim.fn.bufnr("lait://runs")
  if buf ~= -1 then
    local lines, places = M.runs_lines()
    vim.bo[buf].modifiable = true
    vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
    vim.bo[buf].modifiable = false
    vim.b[buf].lait_places = places
  end
end

--- :LaitRuns: the runs in a scratch buffer (a split); <CR> on a step opens it in its file.
function M.show_runs()
  local buf = runs_buffer()
  refresh_runs()
  if vim.fn.bufwinid(buf) == -1 then
    vim.cmd("botright split")
    vim.api.nvim_win_set_buf(0, buf)
  else
    vim.api.nvim_set_current_win(vim.fn.bufwinid(buf))
  end
end

function M.runs_jump()
  local places = vim.b.lait_places or {}
  local place = places[vim.api.nvim_win_get_cursor(0)[1]]
  if not place then
    return
  end
  vim.cmd("wincmd p")
  vim.cmd.edit(vim.fn.fnameescape(vim.uri_to_fname(place.uri)))
  vim.api.nvim_win_set_cursor(0, { place.line + 1, place.character })
end

local function started(runId, name)
  table.insert(M.history, 1, { runId = runId, name = name, state = "running", tokens = 0, children = {}, steps = {}, tools = {} })
  for i = #M.history, 1, -1 do
    if #M.history <= MAX_RUNS then
      break
    end
    if M.history[i].state ~= "running" then
      table.remove(M.history, i)
    end
  end
  refresh_runs()
end

local function home(h, e)
  return (e.stepId and h.steps[e.stepId]) or h
end

local function record(runId, e)
  local h = history_of(runId)
  if not h then
    return
  end
  local t = e.type
  if t == "runStarted" and e.name then
    h.name = e.name
  elseif t == "stepStarted" or t == "stepFinished" then
    local step = e.stepId and h.steps[e.stepId]
    if not step then
      step = { type = "step", label = e.label, kind = e.kind, n = e.n, state = "running", tokens = 0, children = {} }
      if e.uri and e.range then
        step.place = { uri = e.uri, line = e.range.start.line, character = e.range.start.character }
      end
      table.insert(((e.parentStepId and h.steps[e.parentStepId]) or h).children, step)
      if e.stepId then
        h.steps[e.stepId] = step
      end
    end
    if t == "stepFinished" then
      step.state, step.seconds, step.error = e.status, e.seconds, e.error
    end
  elseif t == "stepProgress" then
    table.insert(home(h, e).children, { type = "note", text = e.message })
  elseif t == "toolCall" then
    local call = { type = "tool", name = e.name, arguments = e.arguments or "", state = "running" }
    h.tools[e.callId or ""] = call
    table.insert(home(h, e).children, call)
  elseif t == "toolResult" or t == "toolDenied" then
    local call = h.tools[e.callId or ""]
    if not call then
      call = { type = "tool", name = e.name, arguments = "", state = "running" }
      table.insert(home(h, e).children, call)
    end
    call.state = t == "toolDenied" and "denied" or (e.isError and "failed" or "ok")
    call.result = t == "toolDenied" and e.reason or e.result
  elseif t == "usage" then
    local tokens = e.totalTokens or 0
    h.tokens = h.tokens + tokens
    local step = e.stepId and h.steps[e.stepId]
    if step then
      step.tokens = step.tokens + tokens
    end
  elseif t == "runFinished" then
    h.seconds = e.seconds
  end
  refresh_runs()
end

local function finished(runId, state)
  local h = history_of(runId)
  if not h then
    return
  end
  h.state = state
  local function close(node)
    if node.state == "running" then
      node.state = node.type == "step" and state == "cancelled" and "cancelled" or "failed"
    end
    for _, child in ipairs(node.children or {}) do
      close(child)
    end
  end
  for _, child in ipairs(h.children) do
    close(child)
  end
  refresh_runs()
end

-- -- run events --------------------------------------------------------------------------------
local function on_event(runId, e)
  for k, value in pairs(e) do -- JSON null -> absent
    if value == vim.NIL then
      e[k] = nil
    end
  end
  record(runId, e)
  local run = M.runs[runId] or {}
  local t = e.type
  local prefix = e.prefix or ""
  if t == "runStarted" then
    if e.kind ~= "workflow" then -- a workflow announces itself (workflowStarted)
      write("==> " .. (e.name or vim.fn.fnamemodify(vim.uri_to_fname(e.uri), ":t")))
    end
  elseif t == "workflowStarted" then
    local about = e.name .. (e.description and (": " .. e.description) or "")
    write(((e.depth or 0) == 0 and "==> " or (prefix .. "-> ")) .. about)
  elseif t == "stepStarted" then
    write(string.format("%s[%s] %s", prefix, e.n, e.label))
  elseif t == "stepFinished" then
    if e.status == "skipped" then
      write(string.format("%s[%s] %s (skipped)", prefix, e.n, e.label))
    elseif e.status == "failed" and e.error then
      write("    -> failed: " .. e.error)
    end
  elseif t == "stepRetrying" then
    write(string.format("    -> attempt %d/%d failed: %s; retrying in %.1fs", e.attempt, e.maxAttempts, e.error, e.delaySeconds))
  elseif t == "stepProgress" then
    write(prefix .. "    -> " .. e.message)
  elseif t == "toolCall" then
    write(string.format("    -> tool %s(%s)", e.name, first_line(e.arguments, 200)))
  elseif t == "toolResult" then
    write(string.format("    <- %s%s: %s", e.name, e.isError and " failed" or "", first_line(e.result, 200)))
  elseif t == "toolDenied" then
    write(string.format("    -> tool %s denied: %s", e.name, e.reason))
  elseif t == "text" then
    if not run.streamed then
      write("")
    end
    run.streamed = (run.streamed or "") .. e.text
    write(e.text, false)
  elseif t == "usage" then
    write(string.format("usage: %d prompt + %d completion = %d tokens", e.promptTokens, e.completionTokens, e.totalTokens))
  elseif t == "warning" or t == "note" then
    write(t .. ": " .. e.message)
  elseif t == "runFinished" then
    if e.status == "ok" then
      if e.output and e.output ~= "" and e.output ~= run.streamed then
        write(e.output)
      end
      write(string.format("==> ok in %.1fs", e.seconds or 0))
    elseif e.status == "cancelled" then
      write("==> cancelled")
    else
      write("==> failed: " .. tostring(e.error))
    end
  end
end

-- -- dialogs -----------------------------------------------------------------------------------
local DECISIONS = { ["Allow once"] = "once", ["Allow for this session"] = "session", ["Deny"] = "deny" }

function M.approve(params)
  local lines = { string.format("lait: allow tool %s%s?", params.tool, params.server and (" (MCP server " .. params.server .. ")") or "") }
  table.insert(lines, "arguments: " .. tostring(params.arguments))
  if params.command then
    local words = {}
    for _, arg in ipairs(params.command) do -- quoted as a shell would need it: the exact argv
      table.insert(words, arg:match("^[%w%-_./=:,@+%%]+$") and arg or vim.fn.shellescape(arg))
    end
    table.insert(lines, "command: " .. table.concat(words, " "))
  end
  local h = params.runId and history_of(params.runId)
  local asked = { type = "approval", tool = params.tool }
  if h then
    table.insert(home(h, { stepId = params.stepId ~= vim.NIL and params.stepId or nil }).children, asked)
    refresh_runs()
  end
  local choice = select({ "Allow once", "Allow for this session", "Deny" }, { prompt = table.concat(lines, "\n"), kind = "lait_approval" })
  asked.decision = DECISIONS[choice] or "deny"
  refresh_runs()
  return { decision = asked.decision }
end

local function choices(schema)
  -- {value, label} pairs of an enum-like schema: enum (+ enumNames), oneOf/anyOf of {const, title}
  local out = {}
  if schema.enum then
    for i, value in ipairs(schema.enum) do
      table.insert(out, { value = value, label = tostring((schema.enumNames or {})[i] or value) })
    end
  end
  for _, option in ipairs(schema.oneOf or schema.anyOf or {}) do
    if type(option) == "table" and option.const ~= nil then
      table.insert(out, { value = option.const, label = tostring(option.title or option.const) })
    end
  end
  if #out == 0 and schema.type == "boolean" then
    out = { { value = true, label = "Yes" }, { value = false, label = "No" } }
  end
  -- SEP-1034: the default goes first (Enter takes it) and says so
  for i, o in ipairs(out) do
    if schema.default ~= nil and o.value == schema.default then
      table.remove(out, i)
      table.insert(out, 1, { value = o.value, label = o.label .. " (default)" })
      break
    end
  end
  return #out > 0 and out or nil
end

local function shown(values)
  local parts = {}
  for _, v in ipairs(values) do
    table.insert(parts, tostring(v))
  end
  return table.concat(parts, ", ")
end

local function pick(options, prompt, extra)
  -- the value of the chosen option, or one of the extra labels, or nil (Escape)
  local labels = {}
  for _, o in ipairs(options) do
    table.insert(labels, o.label)
  end
  vim.list_extend(labels, extra or {})
  local choice = select(labels, { prompt = prompt, kind = "lait_field" })
  for _, o in ipairs(options) do
    if o.label == choice then
      return o.value, true
    end
  end
  return choice, false
end

local function field_value(name, schema, required)
  -- one field of a form: nil = cancel, vim.NIL = leave out, else the typed value
  local label = (schema.title or name) .. (required and " (required)" or " (optional, empty = leave out)")
  if schema.description then
    label = label .. " — " .. schema.description
  end
  local options = choices(schema)
  if options then
    local value, picked = pick(options, label, not required and { "(leave out)" } or nil)
    if picked then
      return value
    end
    return value == "(leave out)" and vim.NIL or nil
  end
  local items = schema.type == "array" and type(schema.items) == "table" and choices(schema.items)
  if items then
    -- multi-select: pick one at a time until "(done)"; minItems / maxItems are checked; "(done)"
    -- with nothing picked takes the schema's default list (SEP-1034)
    local chosen, problem = {}, nil
    local fallback = type(schema.default) == "table" and #schema.default > 0 and schema.default or nil
    if fallback then
      label = label .. " [default: " .. shown(fallback) .. "]"
    end
    while true do
      local left = {}
      for _, o in ipairs(items) do
        if not vim.tbl_contains(chosen, o.value) then
          table.insert(left, o)
        end
      end
      local prompt = (problem and (problem .. "; ") or "") .. label .. string.format(" [%d chosen]", #chosen)
      local value, picked = pick(left, prompt, { "(done)" })
      if picked then
        table.insert(chosen, value)
        problem = schema.maxItems and #chosen > schema.maxItems and ("at most " .. schema.maxItems) or nil
        if problem then
          table.remove(chosen)
        end
      elseif value == "(done)" then
        if #chosen == 0 and fallback then
          return fallback
        elseif #chosen == 0 and not required then
          return vim.NIL
        elseif schema.minItems and #chosen < schema.minItems then
          problem = "at least " .. schema.minItems
        else
          return chosen
        end
      else
        return nil
      end
    end
  end
  local problem
  while true do
    local default = schema.default ~= nil and tostring(schema.default) or nil
    local text = input({ prompt = (problem and (problem .. "; ") or "") .. label .. ": ", default = default })
    if text == nil then
      return nil
    end
    if text == "" and not required then
      return vim.NIL
    end
    local value = text
    problem = nil
    if schema.type == "integer" or schema.type == "number" then
      value = tonumber(text)
      if value == nil then
        problem = "not a number"
      elseif schema.type == "integer" and value % 1 ~= 0 then
        problem = "not an integer"
      elseif schema.minimum and value < schema.minimum then
        problem = "at least " .. schema.minimum
      elseif schema.maximum and value > schema.maximum then
        problem = "at most " .. schema.maximum
      end
    elseif text == "" then
      problem = "required"
    elseif schema.minLength and #text < schema.minLength then
      problem = "at least " .. schema.minLength .. " characters"
    elseif schema.maxLength and #text > schema.maxLength then
      problem = "at most " .. schema.maxLength .. " characters"
    end
    if not problem then
      return value
    end
  end
end

function M.elicit(params)
  if params.mode == "url" then
    -- nothing is opened unless "Open" is chosen; retriesCall: a tool call waits for this page (-32042)
    local prompt = "lait: " .. params.server .. ": " .. params.message
    if params.retriesCall then
      prompt = prompt .. " (the tool call is retried when you are done there)"
    end
    local choice = select({ "Open " .. tostring(params.url), "Decline", "Cancel" }, { prompt = prompt, kind = "lait_elicit" })
    if choice == nil or choice == "Cancel" then
      return { action = "cancel" }
    elseif choice == "Decline" then
      return { action = "decline" }
    end
    vim.ui.open(params.url)
    return { action = "accept" }
  elseif params.mode ~= "form" then
    return { action = "decline" }
  end
  local first = select({ "Answer", "Decline", "Cancel" }, { prompt = "lait: MCP server " .. params.server .. " asks: " .. params.message, kind = "lait_elicit" })
  if first == nil or first == "Cancel" then
    return { action = "cancel" }
  elseif first == "Decline" then
    return { action = "decline" }
  end
  local schema = params.requestedSchema or {}
  local properties = schema.properties or {}
  local required = {}
  for _, name in ipairs(schema.required or {}) do
    required[name] = true
  end
  local order = params.propertyOrder or vim.tbl_keys(properties)
  local content = vim.empty_dict()
  for _, name in ipairs(order) do
    local value = field_value(name, properties[name] or {}, required[name])
    if value == nil then
      return { action = "cancel" }
    elseif value ~= vim.NIL then
      content[name] = value
    end
  end
  return { action = "accept", content = content }
end

function M.ask(params)
  local answer
  if params.choices then
    local items = {}
    if params.default then
      table.insert(items, params.default)
    end
    for _, c in ipairs(params.choices) do
      if c ~= params.default then
        table.insert(items, c)
      end
    end
    answer = select(items, { prompt = params.question, kind = "lait_ask" })
  else
    answer = input({ prompt = params.question .. " ", default = params.default })
  end
  if answer == nil then
    return vim.NIL
  end
  return { answer = answer }
end

-- -- running -----------------------------------------------------------------------------------
local function lait_client(buf)
  return vim.lsp.get_clients({ bufnr = buf, name = "lait" })[1]
end

local function ask_inputs(target, prompt)
  -- the prompt (unless given) and the workflow's inputs, typed per their schemas; nil = gave up
  if prompt == nil and target.prompt ~= "none" then
    prompt = input({ prompt = "Prompt" .. (target.prompt == "optional" and " (optional)" or "") .. ": " })
    if prompt == nil then
      return nil
    end
    if prompt == "" and target.prompt == "optional" then
      prompt = nil
    end
  end
  local inputs = vim.empty_dict()
  for _, spec in ipairs(target.inputs or {}) do
    local value = field_value(spec.name, spec.schema or {}, spec.required)
    if value == nil then
      return nil
    elseif value ~= vim.NIL then
      if type(value) == "string" and spec.schema.type and spec.schema.type ~= "string" then
        local ok, decoded = pcall(vim.json.decode, value)
        value = ok and decoded or value
      end
      inputs[spec.name] = value
    end
  end
  return prompt, inputs
end

--- Run a target ({uri, kind, prompt?, inputs?} as the lenses carry it). opts: dry_run, prompt
--- (skip asking), inputs (skip asking), on_done(err, result).
function M.run(target, opts)
  opts = opts or {}
  coroutine.wrap(function()
    local buf = vim.uri_to_bufnr(target.uri)
    local client = lait_client(buf)
    if not client then
      vim.notify("lait: lait-ls is not attached to " .. target.uri, vim.log.levels.ERROR)
      return
    end
    local prompt, inputs = opts.prompt, opts.inputs
    if inputs == nil then
      prompt, inputs = ask_inputs(target, prompt)
      if inputs == nil then
        return
      end
    end
    local runId = string.format("nvim-%d-%d", vim.fn.getpid(), vim.uv.hrtime())
    local params = { uri = target.uri, kind = target.kind, prompt = prompt, inputs = inputs or vim.empty_dict(), dryRun = opts.dry_run or false, runId = runId }
    show_output()
    M.runs[runId] = { client = client, on_done = opts.on_done }
    started(runId, vim.fn.fnamemodify(vim.uri_to_fname(target.uri), ":t"))
    local _, request_id = client:request("lait/run", params, function(err, result)
      M.runs[runId] = nil
      M.last = result or { runId = runId, status = "failed", error = err and err.message }
      finished(runId, M.last.status or "failed")
      if err then
        write("==> error: " .. tostring(err.message))
      end
      if opts.on_done then
        opts.on_done(err, result)
      end
    end, buf)
    M.runs[runId].request_id = request_id
  end)()
end

--- The run target of a buffer, from its code lens (so the inputs come from the server).
function M.target(buf)
  buf = buf or vim.api.nvim_get_current_buf()
  local client = lait_client(buf)
  if not client then
    return nil
  end
  local response = client:request_sync("textDocument/codeLens", { textDocument = { uri = vim.uri_from_bufnr(buf) } }, 10000, buf)
  for _, lens in ipairs(response and response.result or {}) do
    local command = lens.command or {}
    if command.command == "lait.runWorkflow" or command.command == "lait.runAgent" then
      return command.arguments[1]
    end
  end
  return nil
end

local function run_buffer(dry_run, args)
  local target = M.target()
  if not target then
    vim.notify("lait: this buffer is not a runnable workflow or agent file", vim.log.levels.WARN)
    return
  end
  M.run(target, { dry_run = dry_run, prompt = args ~= "" and args or nil })
end

function M.cancel()
  -- Neovim drops the callback of a cancelled request, so the run ends here
  for runId, run in pairs(M.runs) do
    if run.request_id then
      run.client:cancel_request(run.request_id)
    end
    M.runs[runId] = nil
    M.last = { runId = runId, status = "cancelled" }
    finished(runId, "cancelled")
    if run.on_done then
      run.on_done(nil, M.last)
    end
  end
end

-- -- setup -------------------------------------------------------------------------------------
local VENVS = { ".venv", "venv", "env" }

function M.server_cmd(root)
  -- The argv of the server for a project root: PATH's lait-ls unless the user opted in to the
  -- project's own (vim.g.lait_project_venv) and the project has one.
  if vim.g.lait_project_venv == true and type(root) == "string" and root ~= "" then
    for _, dir in ipairs(VENVS) do
      local exe = vim.fs.joinpath(root, dir, "bin", "lait-ls")
      if vim.fn.executable(exe) == 1 then
        return { exe }
      end
    end
  end
  return { "lait-ls" }
end

local function handler(fn)
  return function(_, params)
    return fn(params)
  end
end

-- -- when lait applies: a lait project or a file lait recognises by content ---------------------
-- The same checks as the VS Code extension's laitFiles.ts: lait.config.yml above the file, a
-- workflow's top-level `steps:` (or `nodes:`), a test or eval file's keys, an agent with
-- frontmatter in an agents/ folder. Elsewhere (a README, a CI workflow) nothing starts and nothing
-- is said. `vim.g.lait_enable = true` starts it for every YAML/Markdown buffer, `false` never.
local OTHER_TOOLS = { [".github"] = true, [".gitea"] = true, [".forgejo"] = true, [".claude"] = true, [".vscode"] = true, [".agents"] = true }
M.state = { decided = {}, missing = nil } -- per buffer: why lait-ls started or not; the command not found

local function under_other_tool(file)
  for part in vim.fs.dirname(file):gmatch("[^/]+") do
    if OTHER_TOOLS[part] then
      return true
    end
  end
  return false
end

--- Whether the buffer is a file lait-ls treats as lait's own (by name and content).
function M.is_lait_file(buf)
  local file = vim.api.nvim_buf_get_name(buf)
  local name = vim.fs.basename(file)
  if name == "lait.config.yml" then
    return true
  end
  local lines = vim.api.nvim_buf_get_lines(buf, 0, 2000, false)
  local keys = {}
  for _, line in ipairs(lines) do
    local key = line:match("^([%a_]+)[ \t]*:")
    if key then
      keys[key] = true
    end
  end
  local ft = vim.bo[buf].filetype
  if ft == "yaml" or name:match("%.ya?ml$") then
    if keys.steps or keys.nodes then
      return true
    end
    if under_other_tool(file) then
      return false
    end
    return (keys.replay or (keys.workflow and keys.assert) or (keys.target and keys.cases)) and true or false
  end
  if ft == "markdown" or name:match("%.md$") then
    local first = (lines[1] or ""):gsub("^\239\187\191", "")
    if not first:match("^%-%-%-%s*$") or under_other_tool(file) then
      return false
    end
    return vim.fs.basename(vim.fs.dirname(file)) == "agents" or name == "SKILL.md"
  end
  return false
end

local function configured_cmd(root)
  local cmd = (vim.lsp.config.lait or {}).cmd
  if type(cmd) == "table" then
    return cmd
  end
  return M.server_cmd(root)
end

--- Why lait-ls starts for a buffer (a string) or not (nil, the reason); the root to start it in.
function M.decide(buf)
  local enable = vim.g.lait_enable
  if enable == false or enable == "never" then
    return nil, "vim.g.lait_enable is false"
  end
  local root = vim.fs.root(buf, "lait.config.yml")
  local why
  if root then
    why = "lait.config.yml in " .. root
  elseif M.is_lait_file(buf) then
    why = "a lait file by its content"
  elseif enable == true or enable == "always" then
    why = "vim.g.lait_enable is true"
  else
    return nil, "not a lait project (no lait.config.yml above it) and not a lait file"
  end
  root = root or vim.fs.root(buf, ".git") or vim.fs.dirname(vim.api.nvim_buf_get_name(buf))
  local exe = configured_cmd(root)[1]
  if vim.fn.executable(exe) ~= 1 then
    -- No "Spawning language server ... failed": nothing starts; :LaitStatus says why.
    M.state.missing = exe
    return nil, exe .. " was not found (install lait: pipx install lait, or set vim.lsp.config('lait', {cmd = ...}))"
  end
  return why, root
end

vim.lsp.config("lait", {
  cmd = function(dispatchers, config)
    -- Neovim 0.11.2+ passes the client's config (its root_dir); older ones get PATH's lait-ls
    config = config or {}
    return vim.lsp.rpc.start(M.server_cmd(config.root_dir), dispatchers, { cwd = config.cmd_cwd, env = config.cmd_env })
  end,
  filetypes = { "yaml", "markdown" },
  root_dir = function(buf, on_dir)
    local why, root = M.decide(buf)
    M.state.decided[buf] = why and ("started: " .. why) or ("not started: " .. root)
    if why then
      on_dir(root)
    end
  end,
  init_options = { debounce = 150, approveTools = "always" },
  capabilities = { experimental = { lait = { version = 1, requests = REQUESTS, runEvents = true } } },
  handlers = {
    ["lait/approveToolCall"] = handler(M.approve),
    ["lait/elicit"] = handler(M.elicit),
    ["lait/ask"] = handler(M.ask),
    ["lait/runEvent"] = function(_, params)
      on_event(params.runId, params.event)
    end,
  },
})
vim.lsp.enable("lait")

--- The lines of :LaitStatus for a buffer: whether lait-ls runs for it, and why (not).
function M.status_lines(buf)
  buf = buf or vim.api.nvim_get_current_buf()
  local lines = {}
  local client = lait_client(buf)
  if client then
    local info = client.server_info or {}
    table.insert(lines, string.format("lait: %s %s running (root %s)", info.name or "lait-ls", info.version or "", client.config.root_dir or "?"))
  else
    local why, reason = M.decide(buf)
    if why then
      table.insert(lines, "lait: lait-ls is not attached to this buffer (it would start: " .. why .. ")")
    else
      table.insert(lines, "lait: lait-ls is not running for this buffer: " .. reason)
    end
  end
  local decided = M.state.decided[buf]
  if decided then
    table.insert(lines, "lait: when the buffer opened: " .. decided)
  end
  return lines
end

vim.api.nvim_create_user_command("LaitStatus", function()
  vim.notify(table.concat(M.status_lines(), "\n"), vim.log.levels.INFO)
end, { desc = "lait: whether lait-ls runs for this buffer, and why (not)" })

for name, dry_run in pairs({ ["lait.runWorkflow"] = false, ["lait.runAgent"] = false, ["lait.dryRun"] = true }) do
  vim.lsp.commands[name] = function(command)
    M.run(command.arguments[1], { dry_run = dry_run })
  end
end

vim.api.nvim_create_user_command("LaitRun", function(o)
  run_buffer(false, o.args)
end, { nargs = "?", desc = "lait: run this workflow or agent file" })
vim.api.nvim_create_user_command("LaitDryRun", function(o)
  run_buffer(true, o.args)
end, { nargs = "?", desc = "lait: show this workflow's execution plan" })
vim.api.nvim_create_user_command("LaitCancel", M.cancel, { desc = "lait: cancel the runs in flight" })
vim.api.nvim_create_user_command("LaitRuns", M.show_runs, { desc = "lait: the runs of this session with their steps" })

return M
