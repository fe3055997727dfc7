-- `.nil` files are NiLang. `nil` is a Lua keyword, so the key is written ['nil'].
vim.filetype.add({ extension = { ['nil'] = 'nilang' } })
