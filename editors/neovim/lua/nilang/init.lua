-- NiLang for Neovim: the filetype, the nilang-lsp language server, the
-- tree-sitter parser and its queries (without nvim-treesitter), and the
-- inverse preview.
--
--   require('nilang').setup({
--     cmd = { 'nilang-lsp' },          -- the server (default: on PATH)
--     parser = '/path/to/nilang.so',   -- default: parser/nilang.so beside this plugin
--     queries = '/path/to/queries',    -- default: tree-sitter-nilang/queries of the repository
--   })
--
-- Needs Neovim 0.10 or later (vim.lsp.config and vim.lsp.enable on 0.11,
-- vim.lsp.start on 0.10). On an older one, setup() says so with an error
-- message, sets nothing up and returns false; nothing else runs before that
-- check (this file only defines functions when it is loaded).

local M = {}

-- The oldest Neovim the plugin runs on, as `has()` spells it.
M.required = 'nvim-0.10'

-- The running Neovim's version, `0.7.2`, with only APIs every Neovim has.
local function running_version()
  local ok, version = pcall(function()
    local v = vim.fn.api_info().version
    return string.format('%d.%d.%d', v.major, v.minor, v.patch)
  end)
  return ok and version or 'unknown'
end

--- Whether this Neovim is new enough; when it is not, says which version
--- the plugin needs (an error message) and returns false.
function M.check_version()
  if vim.fn.has(M.required) == 1 then
    return true
  end
  local message = 'nilang: this plugin needs Neovim 0.10 or later (this is '
    .. running_version()
    .. '); it is not set up'
  if vim.notify and vim.log and vim.log.levels then
    vim.notify(message, vim.log.levels.ERROR)
  else
    vim.api.nvim_err_writeln(message)
  end
  return false
end

-- The folder of this plugin (editors/neovim).
local function plugin_root()
  local source = debug.getinfo(1, 'S').source:sub(2)
  return vim.fs.dirname(vim.fs.dirname(vim.fs.dirname(source)))
end

local function read_file(path)
  local file = io.open(path, 'r')
  if not file then
    return nil
  end
  local text = file:read('*a')
  file:close()
  return text
end

--- Registers the parser and the highlight/locals queries. Returns false
--- (and says why) when the parser library is missing.
function M.register_treesitter(parser, queries)
  if vim.fn.filereadable(parser) == 0 then
    vim.notify_once(
      'nilang: no tree-sitter parser at ' .. parser .. ' (run editors/neovim/build-parser.sh)',
      vim.log.levels.WARN
    )
    return false
  end
  local ok, err = pcall(vim.treesitter.language.add, 'nilang', { path = parser })
  if not ok then
    vim.notify_once('nilang: cannot load ' .. parser .. ': ' .. tostring(err), vim.log.levels.WARN)
    return false
  end
  for _, name in ipairs({ 'highlights', 'locals' }) do
    local text = read_file(queries .. '/' .. name .. '.scm')
    if text then
      vim.treesitter.query.set('nilang', name, text)
    end
  end
  return true
end

--- Shows `text` in a read-only scratch buffer in a split beside the current
--- window (reused while it stays open).
local preview_buffers = {}
function M.show_preview(name, text, filetype)
  local buf = preview_buffers[name]
  if not (buf and vim.api.nvim_buf_is_valid(buf)) then
    buf = vim.api.nvim_create_buf(false, true)
    vim.api.nvim_buf_set_name(buf, name)
    vim.bo[buf].buftype = 'nofile'
    vim.bo[buf].bufhidden = 'wipe'
    preview_buffers[name] = buf
  end
  vim.bo[buf].modifiable = true
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, vim.split(text, '\n', { trimempty = true }))
  vim.bo[buf].modifiable = false
  vim.bo[buf].filetype = filetype
  if vim.fn.bufwinid(buf) == -1 then
    local current = vim.api.nvim_get_current_win()
    vim.cmd('rightbelow vsplit')
    vim.api.nvim_win_set_buf(0, buf)
    vim.api.nvim_set_current_win(current)
  end
  return buf
end

local function client_for(bufnr)
  return vim.lsp.get_clients({ bufnr = bufnr, name = 'nilang' })[1]
end

local function request(client, method, params, bufnr, callback)
  -- `client:request` on 0.11, `client.request` before.
  if vim.fn.has('nvim-0.11') == 1 then
    return client:request(method, params, callback, bufnr)
  end
  return client.request(method, params, callback, bufnr)
end

--- Asks the server for the inverse of a function (by name, or the one at the
--- cursor) and shows it beside the source.
function M.show_inverse(bufnr, function_name)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  local client = client_for(bufnr)
  if not client then
    vim.notify('nilang: the language server is not attached', vim.log.levels.WARN)
    return
  end
  local uri = vim.uri_from_bufnr(bufnr)
  local params = { textDocument = { uri = uri } }
  if function_name then
    params['function'] = function_name
  else
    local cursor = vim.api.nvim_win_get_cursor(0)
    local line = vim.api.nvim_buf_get_lines(bufnr, cursor[1] - 1, cursor[1], false)[1] or ''
    params.position = {
      line = cursor[1] - 1,
      character = vim.str_utfindex(line, client.offset_encoding or 'utf-16', cursor[2]),
    }
  end
  request(client, 'nilang/inverse', params, bufnr, function(err, result)
    if err then
      vim.notify('nilang: ' .. err.message, vim.log.levels.WARN)
      return
    end
    local title = vim.fn.fnamemodify(vim.uri_to_fname(uri), ':t:r')
    local name = 'nilang-inverse://' .. title .. (result['function'] ~= vim.NIL and result['function'] and ('/~' .. result['function']) or '')
    M.show_preview(name, result.source, 'nilang')
  end)
end

--- Shows the Rust the build plugin would generate for the file.
function M.show_rust(bufnr)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  local client = client_for(bufnr)
  if not client then
    return
  end
  local uri = vim.uri_from_bufnr(bufnr)
  request(client, 'nilang/generatedRust', { textDocument = { uri = uri } }, bufnr, function(err, result)
    if err then
      vim.notify('nilang: ' .. err.message, vim.log.levels.WARN)
      return
    end
    M.show_preview('nilang-rust://' .. vim.fn.fnamemodify(vim.uri_to_fname(uri), ':t:r') .. '.rs', result.source, 'rust')
  end)
end

local function on_attach(client, bufnr)
  vim.api.nvim_buf_create_user_command(bufnr, 'NilangInverse', function(opts)
    M.show_inverse(bufnr, opts.args ~= '' and opts.args or nil)
  end, { nargs = '?', desc = 'NiLang: show the inverse of the function at the cursor (or named)' })
  vim.api.nvim_buf_create_user_command(bufnr, 'NilangRust', function()
    M.show_rust(bufnr)
  end, { desc = 'NiLang: show the generated Rust' })
  -- Code lenses ("Show inverse" on every function): shown, and run with
  -- vim.lsp.codelens.run().
  vim.lsp.codelens.refresh({ bufnr = bufnr })
  vim.api.nvim_create_autocmd({ 'BufEnter', 'InsertLeave', 'TextChanged' }, {
    buffer = bufnr,
    callback = function()
      vim.lsp.codelens.refresh({ bufnr = bufnr })
    end,
  })
end

--- Sets the plugin up; returns false (after an error message) on a Neovim
--- older than 0.10, true otherwise.
function M.setup(opts)
  if not M.check_version() then
    return false
  end
  opts = opts or {}
  local root = plugin_root()
  vim.filetype.add({ extension = { ['nil'] = 'nilang' } })

  local parser = opts.parser or (root .. '/parser/nilang.so')
  local queries = opts.queries or (root .. '/../../tree-sitter-nilang/queries')
  if opts.treesitter ~= false then
    M.register_treesitter(parser, queries)
    vim.api.nvim_create_autocmd('FileType', {
      pattern = 'nilang',
      callback = function(args)
        pcall(vim.treesitter.start, args.buf, 'nilang')
      end,
    })
  end

  -- The code lens command is run on the client side.
  vim.lsp.commands['nilang.showInverse'] = function(command, ctx)
    local args = command.arguments or {}
    M.show_inverse(ctx.bufnr, args[2])
  end

  local config = {
    cmd = opts.cmd or { 'nilang-lsp' },
    filetypes = { 'nilang' },
    root_markers = { 'Cargo.toml', '.git' },
    on_attach = on_attach,
  }
  if vim.fn.has('nvim-0.11') == 1 then
    vim.lsp.config('nilang', config)
    vim.lsp.enable('nilang')
  else
    vim.api.nvim_create_autocmd('FileType', {
      pattern = 'nilang',
      callback = function(args)
        local name = vim.api.nvim_buf_get_name(args.buf)
        vim.lsp.start({
          name = 'nilang',
          cmd = config.cmd,
          root_dir = vim.fs.root(args.buf, config.root_markers) or vim.fs.dirname(name),
          on_attach = on_attach,
        }, { bufnr = args.buf })
      end,
    })
  end
  return true
end

return M
