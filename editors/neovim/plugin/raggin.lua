-- Loaded by any plugin manager; nothing starts until require('raggin').setup{...}.
if vim.g.loaded_raggin then
  return
end
vim.g.loaded_raggin = true
