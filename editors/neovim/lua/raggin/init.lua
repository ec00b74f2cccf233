-- raggin.nvim: Next.js docs of your project's exact version, from raggin-lsp.
--
-- Neovim >= 0.11 uses vim.lsp.config('raggin', ...) / vim.lsp.enable('raggin'); older
-- releases (down to 0.7) start the same client from a FileType autocommand. The commands
-- send raggin-lsp's custom requests and stream answers into a Markdown split.
local compat = require('raggin.compat')
local answer = require('raggin.answer')

local M = {}

M.filetypes = {
  'typescript',
  'typescriptreact',
  'javascript',
  'javascriptreact',
  'markdown',
  'mdx',
}

M.root_markers = {
  'package.json',
  'next.config.js',
  'next.config.mjs',
  'next.config.ts',
  '.git',
}

local defaults = {
  cmd = { 'raggin-lsp', 'serve' },
  filetypes = M.filetypes,
  root_markers = M.root_markers,
  -- The `raggin` settings section (see docs/protocol.md), answered to workspace/configuration.
  settings = { raggin = {} },
  init_options = nil,
  -- 'split' (a Markdown window below) or 'float'.
  answer_window = 'split',
  -- Turn the built-in LSP client on for the filetypes above (set false to do it yourself).
  enable = true,
}

M.options = vim.deepcopy(defaults)

-- Progress tokens of our requests, and what to do with their $/progress values.
local listeners = {}

--- Calls `on_value(value)` for every $/progress value sent on `token`.
function M.listen(token, on_value)
  listeners[token] = on_value
end

function M.forget(token)
  listeners[token] = nil
end

--- $/progress handler: our tokens go to their listener, the rest to Neovim's own handler.
function M.progress_handler(err, result, ctx, config)
  local listener = result and listeners[result.token]
  if listener then
    listener(result.value)
    return vim.NIL
  end
  local default = vim.lsp.handlers['$/progress']
  if default then
    return default(err, result, ctx, config)
  end
  return vim.NIL
end

--- The client configuration shared by every way of starting the server.
function M.client_config(opts)
  opts = opts or M.options
  local settings = opts.settings or { raggin = {} }
  return {
    name = 'raggin',
    cmd = opts.cmd,
    filetypes = opts.filetypes,
    root_markers = opts.root_markers,
    settings = settings,
    -- Settings also go as initializationOptions, for clients that are never asked.
    init_options = opts.init_options or settings.raggin,
    handlers = { ['$/progress'] = M.progress_handler },
  }
end

local function new_token(kind)
  return string.format('raggin-%s-%d-%d', kind, vim.loop.hrtime(), math.random(1, 1000000))
end

local function notify(message, level)
  vim.notify('raggin: ' .. message, level or vim.log.levels.INFO)
end

local function document(bufnr)
  return { uri = vim.uri_from_bufnr(bufnr) }
end

--- The selection of the current buffer as an LSP range, when called from a visual range.
local function selection_range(opts)
  if not opts or not opts.range or opts.range == 0 then
    return nil
  end
  local start = vim.api.nvim_buf_get_mark(0, '<')
  local finish = vim.api.nvim_buf_get_mark(0, '>')
  local last = vim.api.nvim_buf_get_lines(0, finish[1] - 1, finish[1], false)[1] or ''
  return {
    start = { line = start[1] - 1, character = start[2] },
    ['end'] = { line = finish[1] - 1, character = math.min(finish[2] + 1, #last) },
  }
end

--- The running raggin client for a buffer, or nil (with a message).
function M.client(bufnr)
  local client = compat.find_client('raggin', bufnr or 0)
  if not client then
    notify('no raggin-lsp client runs for this buffer (see :checkhealth lsp / :LspInfo)', vim.log.levels.WARN)
  end
  return client
end

--- Sends raggin/ask and streams the answer into the answer window.
-- opts: question, bufnr, range, client, history (default: the conversation's), on_done(result, err)
function M.ask(opts)
  local bufnr = opts.bufnr or vim.api.nvim_get_current_buf()
  local client = opts.client or M.client(bufnr)
  if not client then
    return nil
  end
  local token = new_token('ask')
  local params = {
    question = opts.question,
    textDocument = document(bufnr),
    range = opts.range,
    history = opts.history or answer.history(),
    workDoneToken = token,
  }
  local turn = answer.start(opts.question, { window = M.options.answer_window })
  M.listen(token, function(value)
    if value.kind == 'report' and value.message then
      answer.append(turn, value.message)
    end
  end)
  return compat.request(client, 'raggin/ask', params, function(err, result)
    M.forget(token)
    answer.finish(turn, result, err)
    if opts.on_done then
      opts.on_done(result, err)
    end
  end, bufnr)
end

--- raggin/search: results in a quickfix-like picker (vim.ui.select); opens the URL picked.
function M.search(opts)
  local bufnr = opts.bufnr or vim.api.nvim_get_current_buf()
  local client = opts.client or M.client(bufnr)
  if not client then
    return nil
  end
  local params = { query = opts.query, textDocument = document(bufnr) }
  return compat.request(client, 'raggin/search', params, function(err, results)
    if opts.on_done then
      opts.on_done(results, err)
      return
    end
    if err then
      notify(err.message, vim.log.levels.ERROR)
      return
    end
    if not results or #results == 0 then
      notify('no docs section matches "' .. opts.query .. '"')
      return
    end
    vim.ui.select(results, {
      prompt = 'Next.js ' .. results[1].version .. ' docs: ' .. opts.query,
      format_item = function(item)
        return (item.heading ~= vim.NIL and item.heading or item.title) .. '  ' .. item.url
      end,
    }, function(item)
      if item then
        answer.open_url(item.url)
      end
    end)
  end, bufnr)
end

--- raggin/index for a version (default: the project's), with progress in messages.
function M.index(opts)
  local bufnr = opts.bufnr or vim.api.nvim_get_current_buf()
  local client = opts.client or M.client(bufnr)
  if not client then
    return nil
  end
  local token = new_token('index')
  M.listen(token, function(value)
    if value.kind == 'begin' then
      notify(value.title)
    elseif value.kind == 'end' and value.message then
      notify(value.message)
    end
  end)
  local params = { textDocument = document(bufnr), workDoneToken = token }
  if opts.version and opts.version ~= '' then
    params.version = opts.version
  end
  return compat.request(client, 'raggin/index', params, function(err, result)
    M.forget(token)
    if opts.on_done then
      opts.on_done(result, err)
    elseif err then
      notify(err.message, vim.log.levels.ERROR)
    else
      notify('Next.js ' .. result.version .. ' docs are indexed')
    end
  end, bufnr)
end

--- :RagginVersion: shows the version in use; with an argument, selects it for the session.
function M.version(opts)
  local bufnr = opts.bufnr or vim.api.nvim_get_current_buf()
  local client = opts.client or M.client(bufnr)
  if not client then
    return nil
  end
  if opts.version and opts.version ~= '' then
    return compat.request(client, 'workspace/executeCommand', {
      command = 'raggin.selectVersion',
      arguments = { opts.version },
    }, function(err, result)
      if opts.on_done then
        opts.on_done(result, err)
      elseif err then
        notify(err.message, vim.log.levels.ERROR)
      else
        notify('Next.js docs version: ' .. tostring(result.effective or result.version))
      end
    end, bufnr)
  end
  return compat.request(client, 'raggin/versions', { textDocument = document(bufnr) }, function(err, result)
    if opts.on_done then
      opts.on_done(result, err)
    elseif err then
      notify(err.message, vim.log.levels.ERROR)
    else
      local indexed = vim.tbl_contains(result.indexed, result.selected) and 'indexed' or 'NOT indexed'
      notify(string.format('Next.js %s docs (%s, %s); indexed: %s', tostring(result.selected),
        result.selectedBecause, indexed, table.concat(result.indexed, ', ')))
    end
  end, bufnr)
end

--- The searchable versions and how each is searched, one line: "16.2.0 (hybrid), 16.4.6
--- (lexical only, dense 40%)" (a version whose dense vectors are still being added), with
--- the profile answering when it is not the configured one: "16.4.6 (light, hybrid)"
--- until the bge-m3 index is complete (`upgrade` of raggin/status).
function M.status_line(loading, upgrade)
  local parts = {}
  if upgrade and upgrade.answering then
    for _, item in ipairs(upgrade.answering) do
      local how = item.stage
      if item.profile ~= upgrade.profile then
        how = item.profile .. ', ' .. how
      end
      table.insert(parts, item.version .. ' (' .. how .. ')')
    end
  else
    for _, version in ipairs(loading.indexedVersions or {}) do
      table.insert(parts, version .. ' (hybrid)')
    end
    for _, item in ipairs(loading.indexStages or {}) do
      table.insert(parts, item.version .. ' (' .. item.stage .. ')')
    end
  end
  if #parts == 0 then
    return 'no Next.js docs indexed yet'
  end
  return 'Next.js docs: ' .. table.concat(parts, ', ')
end

--- :RagginStatus: the indexed versions and the stage of those still being indexed.
function M.status(opts)
  opts = opts or {}
  local bufnr = opts.bufnr or vim.api.nvim_get_current_buf()
  local client = opts.client or M.client(bufnr)
  if not client then
    return nil
  end
  return compat.request(client, 'raggin/status', vim.NIL, function(err, result)
    if opts.on_done then
      opts.on_done(result, err)
    elseif err then
      notify(err.message, vim.log.levels.ERROR)
    else
      notify(M.status_line(result.loading or {}, result.upgrade))
    end
  end, bufnr)
end

local function create_commands()
  local command = vim.api.nvim_create_user_command
  command('RagginAsk', function(args)
    local question = args.args
    if question == '' then
      question = vim.fn.input('Ask the Next.js docs: ')
    end
    if question ~= '' then
      M.ask({ question = question, range = selection_range(args) })
    end
  end, { nargs = '*', range = true, desc = 'Ask the Next.js docs of this project' })
  command('RagginSearch', function(args)
    local query = args.args
    if query == '' then
      query = vim.fn.input('Search the Next.js docs: ', vim.fn.expand('<cword>'))
    end
    if query ~= '' then
      M.search({ query = query })
    end
  end, { nargs = '*', desc = 'Search the Next.js docs of this project' })
  command('RagginIndex', function(args)
    M.index({ version = args.args })
  end, { nargs = '?', desc = 'Index a Next.js docs version (default: this project)' })
  command('RagginVersion', function(args)
    M.version({ version = args.args })
  end, { nargs = '?', desc = 'Show or select (auto, 16.2.0, ...) the Next.js docs version' })
  command('RagginStatus', function()
    M.status()
  end, { desc = 'Show the indexed Next.js docs versions and how each is searched' })
  command('RagginNew', function()
    answer.clear()
  end, { desc = 'Start a new raggin conversation' })
end

--- setup{ cmd = {...}, settings = { raggin = {...} }, answer_window = 'split' | 'float' }
function M.setup(opts)
  M.options = vim.tbl_deep_extend('force', vim.deepcopy(defaults), opts or {})
  create_commands()
  if M.options.enable then
    compat.enable(M.client_config(M.options))
  end
end

return M
