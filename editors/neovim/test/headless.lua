-- A headless Neovim test of the NiLang setup:
--
--   NILANG_LSP=target/debug/nilang-lsp nvim --headless --clean -l editors/neovim/test/headless.lua
--
-- It loads the plugin as a user would (runtimepath + setup), opens a `.nil`
-- file with a reversibility error, and checks: the filetype, the tree-sitter
-- parser and highlight query, the language server attaching, the
-- diagnostics it publishes, a hover, the inverse request, the code lens and
-- its client-side command. Ends with `N passed, M failed`.

local script = debug.getinfo(1, 'S').source:sub(2)
local plugin = vim.fs.dirname(vim.fs.dirname(vim.fn.fnamemodify(script, ':p')))
local server = vim.env.NILANG_LSP or 'nilang-lsp'

vim.opt.runtimepath:prepend(plugin)
vim.cmd('runtime! ftdetect/nilang.lua')
require('nilang').setup({ cmd = { server } })

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

local dir = vim.fn.tempname()
vim.fn.mkdir(dir, 'p')
local path = dir .. '/demo.nil'
local source = {
  '"""Accumulate into `y`."""',
  'function acc(y::f64, x::f64)',
  '    a ← zero(f64)',
  '    a += x * 2.0',
  '    y += x * y',
  '    a -= x * 2.0',
  'end',
}
vim.fn.writefile(source, path)
vim.cmd('edit ' .. vim.fn.fnameescape(path))
local buf = vim.api.nvim_get_current_buf()

check('filetype is nilang', vim.bo[buf].filetype == 'nilang', vim.bo[buf].filetype)

local ok_parser, tree = pcall(function()
  return vim.treesitter.get_parser(buf, 'nilang'):parse()[1]
end)
check('tree-sitter parses the buffer', ok_parser and tree and not tree:root():has_error(), tree)
local ok_query, query = pcall(vim.treesitter.query.get, 'nilang', 'highlights')
local captures = {}
if ok_parser and ok_query and query then
  for id, node in query:iter_captures(tree:root(), buf, 0, -1) do
    local name = query.captures[id]
    local text = vim.treesitter.get_node_text(node, buf)
    captures[name .. ' ' .. text] = true
  end
end
check('highlight query captures the function name', captures['function acc'], vim.tbl_keys(captures))
check('highlight query captures the arrow', captures['operator ←'], nil)

local attached = vim.wait(10000, function()
  return #vim.lsp.get_clients({ bufnr = buf, name = 'nilang' }) > 0
end, 20)
check('nilang-lsp attaches', attached)

local got = vim.wait(10000, function()
  return #vim.diagnostic.get(buf) > 0
end, 20)
local diagnostics = vim.diagnostic.get(buf)
check('diagnostics arrive', got)
local d = diagnostics[1] or {}
check('E0201 on the `y` read in line 5', d.code == 'E0201' and d.lnum == 4 and d.col == 13 and d.end_col == 14, d)
check('the help line is in the message', (d.message or ''):find('help:', 1, true) ~= nil, d.message)

local client = vim.lsp.get_clients({ bufnr = buf, name = 'nilang' })[1]
local function sync(method, params)
  if not client then
    return nil
  end
  local response
  if vim.fn.has('nvim-0.11') == 1 then
    response = client:request_sync(method, params, 5000, buf)
  else
    response = client.request_sync(method, params, 5000, buf)
  end
  return response
end

local hover = sync('textDocument/hover', {
  textDocument = { uri = vim.uri_from_bufnr(buf) },
  position = { line = 3, character = 6 },
})
local hover_text = hover and hover.result and hover.result.contents.value or ''
check('hover shows the inverse of the statement', hover_text:find('a -= x * 2.0', 1, true) ~= nil, hover)

local inverse = sync('nilang/inverse', { textDocument = { uri = vim.uri_from_bufnr(buf) }, ['function'] = 'acc' })
check(
  'nilang/inverse refuses a function with errors',
  inverse and inverse.err and inverse.err.message:find('has errors', 1, true) ~= nil,
  inverse
)

-- Fix the error: diagnostics clear, and the inverse is shown in a split.
vim.api.nvim_buf_set_lines(buf, 4, 5, false, { '    y += x * a' })
local cleared = vim.wait(10000, function()
  return #vim.diagnostic.get(buf) == 0
end, 20)
check('diagnostics clear after the fix', cleared, vim.diagnostic.get(buf))

-- The editing features over Neovim's client.
local uri = vim.uri_from_bufnr(buf)
local renamed = sync('textDocument/rename', { textDocument = { uri = uri }, position = { line = 2, character = 4 }, newName = 'b' })
local edits = renamed and renamed.result and renamed.result.changes and renamed.result.changes[uri] or {}
check('rename changes every use of the ancilla', #edits == 4, renamed)
local refused = sync('textDocument/rename', { textDocument = { uri = uri }, position = { line = 2, character = 4 }, newName = 'x' })
check(
  'rename refuses a name already taken',
  refused and refused.err and refused.err.message:find('already a name', 1, true) ~= nil,
  refused
)
local folds = sync('textDocument/foldingRange', { textDocument = { uri = uri } })
local fold = folds and folds.result and folds.result[1]
check('the function folds from its docstring, keeping its end line', fold and fold.startLine == 0 and fold.endLine == 5, folds)
local highlights = sync('textDocument/documentHighlight', { textDocument = { uri = uri }, position = { line = 3, character = 4 } })
check('highlights mark every use of `a`', highlights and highlights.result and #highlights.result == 4, highlights)
local completion = sync('textDocument/completion', { textDocument = { uri = uri }, position = { line = 4, character = 14 } })
local items = completion and completion.result and completion.result.items or {}
local only_a = #items > 0
for _, item in ipairs(items) do
  only_a = only_a and item.label:lower():sub(1, 1) == 'a'
end
check('completion is filtered by the typed word', only_a, completion)

local lenses = sync('textDocument/codeLens', { textDocument = { uri = vim.uri_from_bufnr(buf) } })
local lens = lenses and lenses.result and lenses.result[1]
check('a "Show inverse" code lens', lens and lens.command.title == 'Show inverse', lenses)

if lens then
  vim.lsp.commands[lens.command.command](lens.command, { bufnr = buf, client_id = client.id })
end
local preview
vim.wait(10000, function()
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_get_name(b):find('nilang%-inverse://') then
      preview = b
      return true
    end
  end
  return false
end, 20)
local lines = preview and vim.api.nvim_buf_get_lines(preview, 0, -1, false) or {}
check(
  'the code lens command opens the inverse beside the source',
  vim.tbl_contains(lines, '    y -= x * a') and vim.bo[preview].filetype == 'nilang',
  lines
)
check('the preview is in its own window', preview and vim.fn.bufwinid(preview) ~= -1)

print(string.format('%d passed, %d failed', passed, failed))
vim.lsp.stop_client(vim.lsp.get_clients())
os.exit(failed == 0 and 0 or 1)
