-- On a Neovim older than 0.10, require('nilang').setup() says which version
-- it needs (one error message) and sets nothing up, without a Lua error.
-- Runs on any Neovim: on an old one as it is, on 0.10 or later with `has()`
-- answering as 0.7 would.
--
--   nvim --headless --clean -u NONE -c 'luafile editors/neovim/test/old_version.lua'
--
-- Ends with `N passed, M failed` and exits 1 when any check failed (`-l` is
-- not used: Neovim 0.7 does not have it).

local script = debug.getinfo(1, 'S').source:sub(2)
local plugin = vim.fn.fnamemodify(script, ':p:h:h')
vim.opt.runtimepath:prepend(plugin)

local real = vim.fn.has('nvim-0.10') == 1
if real then
  -- Pretend to be Neovim 0.7.
  local has = vim.fn.has
  vim.fn.has = function(feature)
    if feature == 'nvim-0.10' or feature == 'nvim-0.11' then
      return 0
    end
    return has(feature)
  end
end

local messages = {}
vim.notify = function(message, level)
  table.insert(messages, { message = message, level = level })
end

local passed, failed = 0, 0
local function check(name, ok, detail)
  if ok then
    passed = passed + 1
    print('ok   ' .. name)
  else
    failed = failed + 1
    print('FAIL ' .. name .. (detail and (': ' .. vim.inspect(detail)) or ''))
  end
end

vim.cmd('runtime! ftdetect/nilang.lua')
local ok, result = pcall(function()
  return require('nilang').setup({ cmd = { 'nilang-lsp' } })
end)
check('setup raises no Lua error', ok, result)
check('setup returns false', result == false, result)
check('one message', #messages == 1, messages)
local message = messages[1] or {}
check('it is an error', message.level == vim.log.levels.ERROR, message)
check(
  'it names the version needed and the one running',
  type(message.message) == 'string'
    and message.message:find('needs Neovim 0.10 or later', 1, true) ~= nil
    and message.message:find('(this is ' .. vim.fn.api_info().version.major .. '.', 1, true) ~= nil,
  message
)
local autocmds = vim.api.nvim_get_autocmds({ event = 'FileType', pattern = 'nilang' })
check('no FileType autocommand', #autocmds == 0, autocmds)
check('no client command', vim.lsp.commands['nilang.showInverse'] == nil)
if real then
  check('no server configured', vim.lsp.config == nil or rawget(vim.lsp.config, 'nilang') == nil)
end

print(string.format('%d passed, %d failed', passed, failed))
if failed > 0 then
  vim.cmd('cquit 1')
else
  vim.cmd('qall!')
end
