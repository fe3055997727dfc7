-- `.nil` files are NiLang. `nil` is a Lua keyword, so the key is written ['nil'].
-- Only on the Neovim the plugin supports (0.10 or later; require('nilang').setup()
-- says so on an older one).
if vim.fn.has('nvim-0.10') == 1 then
  vim.filetype.add({ extension = { ['nil'] = 'nilang' } })
end
