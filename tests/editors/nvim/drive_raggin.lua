-- Run by tests/editors/test_neovim.py inside a headless Neovim (`nvim --headless -u NONE`):
-- sets up the raggin plugin on the fixture project, then prints one JSON line per check.
-- Environment: RAGGIN_PLUGIN_DIR, RAGGIN_PROJECT, RAGGIN_SERVER_COMMAND (JSON array),
-- RAGGIN_INIT_OPTIONS (JSON), RAGGIN_DEPRECATED_FILE (a file of the project that uses a
-- deprecated API, for the diagnostic and its quick fix).
local TIMEOUT = 180000

local function emit(record)
  io.stdout:write(vim.fn.json_encode(record) .. '\n')
  io.stdout:flush()
end

local function finish(code)
  vim.cmd((code == 0 and 'qall!') or ('cquit! ' .. code))
end

local ok, failure = pcall(function()
  vim.opt.runtimepath:append(os.getenv('RAGGIN_PLUGIN_DIR'))
  vim.cmd('filetype on')
  vim.cmd('runtime! plugin/raggin.lua')
  local init_options = vim.fn.json_decode(os.getenv('RAGGIN_INIT_OPTIONS'))
  local raggin = require('raggin')
  local answer = require('raggin.answer')
  emit({ event = 'loaded', version = tostring(vim.version().major) .. '.' .. tostring(vim.version().minor),
    uses_config_api = require('raggin.compat').has_config })

  raggin.setup({
    cmd = vim.fn.json_decode(os.getenv('RAGGIN_SERVER_COMMAND')),
    settings = { raggin = init_options },
    init_options = init_options,
  })

  local project = os.getenv('RAGGIN_PROJECT')
  vim.cmd('edit ' .. vim.fn.fnameescape(project .. '/app/actions.ts'))
  local bufnr = vim.api.nvim_get_current_buf()
  local client
  vim.wait(30000, function()
    client = require('raggin.compat').find_client('raggin', bufnr)
    return client ~= nil and client.server_capabilities ~= nil and client.initialized ~= false
  end, 50)
  emit({ event = 'attached', ok = client ~= nil, filetype = vim.bo.filetype,
    root = client and client.config.root_dir or vim.NIL })
  if not client then
    return finish(2)
  end

  -- A hover through the built-in client API, on revalidatePath in `revalidatePath('/blog')`.
  local line_number, column
  for index, line in ipairs(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)) do
    local found = line:find('revalidatePath%(')
    if found then
      line_number, column = index - 1, found + 2
    end
  end
  local hover = vim.lsp.buf_request_sync(bufnr, 'textDocument/hover', {
    textDocument = { uri = vim.uri_from_bufnr(bufnr) },
    position = { line = line_number, character = column },
  }, TIMEOUT)
  local hover_value = vim.NIL
  for _, response in pairs(hover or {}) do
    if response.result and response.result.contents then
      hover_value = response.result.contents.value
    end
  end
  emit({ event = 'hover', value = hover_value })

  -- raggin/search the direct way (client.request_sync, as the FACTS recipe does).
  local search = client.request_sync('raggin/search', {
    query = 'revalidate a path on demand',
    textDocument = { uri = vim.uri_from_bufnr(bufnr) },
  }, TIMEOUT, bufnr)
  local urls = {}
  for _, result in ipairs((search and search.result) or {}) do
    table.insert(urls, { url = result.url, version = result.version })
  end
  emit({ event = 'search', results = urls, err = search and search.err and search.err.message or vim.NIL })

  -- :RagginAsk's code path: raggin/ask streamed into the answer split.
  local appended = {}
  local original_append = answer.append
  answer.append = function(turn, text)
    table.insert(appended, text)
    original_append(turn, text)
  end
  local done, ask_result, ask_error = false, nil, nil
  raggin.ask({
    question = 'How do I revalidate the blog page after creating a post?',
    bufnr = bufnr,
    on_done = function(result, err)
      done, ask_result, ask_error = true, result, err
    end,
  })
  local snapshot_while_streaming
  vim.wait(TIMEOUT, function()
    if #appended > 0 and snapshot_while_streaming == nil and not done then
      snapshot_while_streaming = table.concat(answer.lines(), '\n')
    end
    return done
  end, 10)
  emit({
    event = 'ask',
    done = done,
    err = ask_error and ask_error.message or vim.NIL,
    reports = #appended,
    streamed = table.concat(appended),
    answer = ask_result and ask_result.answer or vim.NIL,
    citations = ask_result and ask_result.citations or {},
    while_streaming = snapshot_while_streaming or vim.NIL,
    buffer = table.concat(answer.lines(), '\n'),
    history = answer.history(),
  })

  -- :RagginVersion's request.
  local versions
  raggin.version({ bufnr = bufnr, on_done = function(result) versions = result end })
  vim.wait(TIMEOUT, function() return versions ~= nil end, 20)
  emit({ event = 'versions', selected = versions and versions.selected or vim.NIL,
    indexed = versions and versions.indexed or {} })

  -- :RagginStatus's request and the line it shows.
  local status
  raggin.status({ bufnr = bufnr, on_done = function(result) status = result end })
  vim.wait(TIMEOUT, function() return status ~= nil end, 20)
  emit({ event = 'status',
    line = status and raggin.status_line(status.loading or {}, status.upgrade) or vim.NIL,
    while_indexing = raggin.status_line({ indexedVersions = { '16.2.0' },
      indexStages = { { version = '16.4.6', stage = 'lexical only, dense 40%' } } }),
    while_upgrading = raggin.status_line({}, { profile = 'bge-m3', answering = {
      { version = '16.2.0', profile = 'bge-m3', stage = 'hybrid' },
      { version = '16.4.6', profile = 'light', stage = 'lexical only, dense 40%' } } }) })

  -- A deprecated API: Neovim 0.7 cannot pull diagnostics, so the server publishes them;
  -- the quick fix is chosen from `vim.lsp.buf.code_action()`'s menu as a user would, and
  -- once applied (the edit goes back to the server as didChange) the diagnostic is gone.
  vim.cmd('edit ' .. vim.fn.fnameescape(os.getenv('RAGGIN_DEPRECATED_FILE')))
  local deprecated = vim.api.nvim_get_current_buf()
  vim.wait(30000, function()
    return require('raggin.compat').find_client('raggin', deprecated) ~= nil
  end, 50)
  local function raggin_diagnostics()
    local found = {}
    for _, item in ipairs(vim.diagnostic.get(deprecated)) do
      if item.source == 'raggin' then
        local lsp = (item.user_data and item.user_data.lsp) or {}
        table.insert(found, { lnum = item.lnum, col = item.col, end_col = item.end_col,
          severity = item.severity, message = item.message, code = item.code or lsp.code or vim.NIL,
          href = lsp.codeDescription and lsp.codeDescription.href or vim.NIL })
      end
    end
    return found
  end
  vim.wait(60000, function() return #raggin_diagnostics() > 0 end, 20)
  local shown = raggin_diagnostics()
  emit({ event = 'diagnostic', items = shown,
    line = shown[1] and vim.api.nvim_buf_get_lines(deprecated, shown[1].lnum, shown[1].lnum + 1, false)[1] or vim.NIL })
  if #shown == 0 then
    return finish(3)
  end

  local offered, chosen = {}, nil
  local original_select = vim.ui.select
  vim.ui.select = function(items, opts, on_choice)
    for _, item in ipairs(items) do
      local action = item[2]
      table.insert(offered, { title = action.title, kind = action.kind or vim.NIL,
        fixes = action.diagnostics and #action.diagnostics or 0, has_edit = action.edit ~= nil })
      if chosen == nil and action.kind == 'quickfix' and action.edit and action.diagnostics then
        chosen = item
      end
    end
    on_choice(chosen)
  end
  vim.api.nvim_win_set_cursor(0, { shown[1].lnum + 1, shown[1].col })
  vim.lsp.buf.code_action()
  vim.wait(TIMEOUT, function() return #offered > 0 end, 20)
  vim.ui.select = original_select
  local line_after = vim.api.nvim_buf_get_lines(deprecated, shown[1].lnum, shown[1].lnum + 1, false)[1]
  vim.wait(30000, function() return #raggin_diagnostics() == 0 end, 20)
  emit({ event = 'quickfix', offered = offered, applied = chosen and chosen[2].title or vim.NIL,
    line = line_after, remaining = raggin_diagnostics() })

  client.stop()
  vim.wait(10000, function() return client.is_stopped() end, 50)
  emit({ event = 'stopped', ok = client.is_stopped() })
end)

if not ok then
  emit({ event = 'error', message = tostring(failure) })
  finish(1)
else
  finish(0)
end
