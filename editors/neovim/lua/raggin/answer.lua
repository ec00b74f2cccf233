-- The answer window: a Markdown scratch buffer that keeps the conversation, where streamed
-- text is appended as it arrives. <CR> on a link opens it in the browser.
local compat = require('raggin.compat')

local M = {}

local state = { buf = nil, turns = {} }

local function valid_buffer()
  return state.buf ~= nil and vim.api.nvim_buf_is_valid(state.buf)
end

local function link_under_cursor()
  local line = vim.api.nvim_get_current_line()
  local column = vim.api.nvim_win_get_cursor(0)[2] + 1
  for start, url, finish in line:gmatch('()(https?://[^%s%)>%]]+)()') do
    if column >= start - 1 and column <= finish then
      return url
    end
  end
  return line:match('https?://[^%s%)>%]]+')
end

local function buffer()
  if valid_buffer() then
    return state.buf
  end
  state.buf = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_name(state.buf, 'raggin://answer')
  vim.api.nvim_buf_set_option(state.buf, 'filetype', 'markdown')
  vim.api.nvim_buf_set_option(state.buf, 'bufhidden', 'hide')
  vim.api.nvim_buf_set_keymap(state.buf, 'n', '<CR>', '', {
    noremap = true,
    desc = 'Open the link under the cursor',
    callback = function()
      local url = link_under_cursor()
      if url then
        M.open_url(url)
      end
    end,
  })
  return state.buf
end

local function show(window)
  local buf = buffer()
  for _, win in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_buf(win) == buf then
      return win
    end
  end
  if window == 'float' then
    local width = math.floor(vim.o.columns * 0.7)
    local height = math.floor(vim.o.lines * 0.6)
    return vim.api.nvim_open_win(buf, false, {
      relative = 'editor',
      width = width,
      height = height,
      row = math.floor((vim.o.lines - height) / 2),
      col = math.floor((vim.o.columns - width) / 2),
      border = 'rounded',
      style = 'minimal',
    })
  end
  local current = vim.api.nvim_get_current_win()
  vim.cmd('botright split')
  local win = vim.api.nvim_get_current_win()
  vim.api.nvim_win_set_buf(win, buf)
  vim.api.nvim_win_set_option(win, 'wrap', true)
  vim.api.nvim_win_set_option(win, 'linebreak', true)
  vim.api.nvim_set_current_win(current)
  return win
end

local function turn_lines(turn)
  local lines = { '## ' .. turn.question, '' }
  local body = turn.result and turn.result.answer or turn.text
  if body == '' and not turn.done then
    body = '_Searching the docs…_'
  end
  vim.list_extend(lines, vim.split(body, '\n', { plain = true }))
  if turn.error then
    vim.list_extend(lines, { '', '**Error:** ' .. turn.error })
  end
  table.insert(lines, '')
  return lines
end

local function render()
  if not valid_buffer() then
    return
  end
  local lines = {}
  for _, turn in ipairs(state.turns) do
    vim.list_extend(lines, turn_lines(turn))
  end
  vim.api.nvim_buf_set_lines(state.buf, 0, -1, false, lines)
  for _, win in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_buf(win) == state.buf then
      vim.api.nvim_win_set_cursor(win, { #lines, 0 })
    end
  end
end

--- A new turn of the conversation, shown at once.
function M.start(question, opts)
  local turn = { question = question, text = '', done = false }
  table.insert(state.turns, turn)
  buffer()
  show(opts and opts.window or 'split')
  render()
  return turn
end

--- Streamed text for a turn (called from the $/progress handler).
function M.append(turn, text)
  turn.text = turn.text .. text
  render()
end

--- The final result (or error) of a turn.
function M.finish(turn, result, err)
  turn.done = true
  if err then
    turn.error = err.message or tostring(err)
  elseif result then
    turn.result = result
  end
  render()
end

--- Earlier answered turns, for a follow-up question's `history`.
function M.history()
  local history = {}
  for _, turn in ipairs(state.turns) do
    if turn.done and turn.result then
      local generated = turn.result.generated
      table.insert(history, {
        question = turn.question,
        answer = (generated and generated ~= vim.NIL) and generated or turn.result.answer,
      })
    end
  end
  return history
end

function M.lines()
  if not valid_buffer() then
    return {}
  end
  return vim.api.nvim_buf_get_lines(state.buf, 0, -1, false)
end

function M.clear()
  state.turns = {}
  render()
end

M.open_url = compat.open_url

return M
