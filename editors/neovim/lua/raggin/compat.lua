-- The few built-in LSP calls whose names changed between Neovim 0.7 and 0.11.
local M = {}

M.has_config = vim.lsp.config ~= nil and vim.lsp.enable ~= nil

--- Attached clients named `name` for a buffer, across Neovim versions.
function M.find_client(name, bufnr)
  if bufnr == 0 then
    bufnr = vim.api.nvim_get_current_buf()
  end
  local clients
  if vim.lsp.get_clients then -- 0.10+
    clients = vim.lsp.get_clients({ name = name, bufnr = bufnr })
  else
    clients = vim.tbl_values(vim.lsp.buf_get_clients(bufnr))
  end
  for _, client in ipairs(clients) do
    if client.name == name then
      return client
    end
  end
  return nil
end

--- client:request on 0.11+, client.request before (the method form warns there).
function M.request(client, method, params, handler, bufnr)
  local function on_result(err, result)
    handler(err, result)
  end
  if M.has_config then
    local ok, request_id = client:request(method, params, on_result, bufnr)
    return ok and request_id or nil
  end
  local ok, request_id = client.request(method, params, on_result, bufnr)
  return ok and request_id or nil
end

local function root_dir(markers, bufnr)
  local path = vim.api.nvim_buf_get_name(bufnr)
  local start = path ~= '' and vim.fn.fnamemodify(path, ':p:h') or vim.loop.cwd()
  for _, marker in ipairs(markers) do
    local found = vim.fn.findfile(marker, start .. ';')
    if found == '' then
      found = vim.fn.finddir(marker, start .. ';')
    end
    if found ~= '' then
      return vim.fn.fnamemodify(found, ':p:h'):gsub('/%.git/?$', '')
    end
  end
  return start
end

--- Starts the client for the configured filetypes.
function M.enable(config)
  if M.has_config then
    vim.lsp.config('raggin', config)
    vim.lsp.enable('raggin')
    return
  end
  -- Before 0.11: one client per root, started from a FileType autocommand.
  local clients = {}
  local group = vim.api.nvim_create_augroup('raggin_lsp', { clear = true })
  vim.api.nvim_create_autocmd('FileType', {
    group = group,
    pattern = config.filetypes,
    callback = function(args)
      local root = root_dir(config.root_markers, args.buf)
      local client_id = clients[root]
      if client_id == nil or vim.lsp.get_client_by_id(client_id) == nil then
        client_id = vim.lsp.start_client({
          name = config.name,
          cmd = config.cmd,
          root_dir = root,
          workspace_folders = { { uri = vim.uri_from_fname(root), name = root } },
          settings = config.settings,
          init_options = config.init_options,
          handlers = config.handlers,
        })
        clients[root] = client_id
      end
      if client_id then
        vim.lsp.buf_attach_client(args.buf, client_id)
      end
    end,
  })
end

--- Opens a URL in the browser.
function M.open_url(url)
  if vim.ui.open then -- 0.10+
    vim.ui.open(url)
    return
  end
  local opener = vim.fn.has('mac') == 1 and 'open' or 'xdg-open'
  vim.fn.jobstart({ opener, url }, { detach = true })
end

return M
