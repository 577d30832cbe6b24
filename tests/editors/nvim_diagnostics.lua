-- Neovim, headless, as an editor session of idemlint's language server:
--
--   IDEMLINT_SERVER='["idemlint", "server"]' IDEMLINT_ROOT=/path/to/project \
--     nvim --headless --clean -c 'luafile tests/editors/nvim_diagnostics.lua' FILE
--
-- Opens FILE, starts the server for it (vim.lsp.start; vim.lsp.start_client
-- on Neovim 0.7), waits for its diagnostics and prints them, one a line:
--   path:line:column: CODE message
-- (1-based, as idemlint prints them).  With IDEMLINT_EDIT_FROM and
-- IDEMLINT_EDIT_TO it then replaces the first line holding the one by the
-- other in the buffer, without saving, and prints the diagnostics that
-- come next after a line "-- edited".  Quits (the client shuts the server
-- down), with status 0, or 1 when diagnostics did not come within
-- IDEMLINT_TIMEOUT seconds (default 60).

local function out(line)
  io.stdout:write(line .. "\n")
end

local function fail(message)
  io.stderr:write("nvim_diagnostics: " .. message .. "\n")
  vim.cmd("cquit 1")
end

local server = vim.fn.json_decode(os.getenv("IDEMLINT_SERVER") or '["idemlint", "server"]')
local root = os.getenv("IDEMLINT_ROOT") or vim.fn.getcwd()
local timeout = tonumber(os.getenv("IDEMLINT_TIMEOUT") or "60") * 1000
local buffer = vim.api.nvim_get_current_buf()
local uri = vim.uri_from_bufnr(buffer)
vim.bo[buffer].filetype = "python"

-- Count the diagnostics published for this buffer, as the editor handles them.
local published = 0
local default_handler = vim.lsp.handlers["textDocument/publishDiagnostics"]
vim.lsp.handlers["textDocument/publishDiagnostics"] = function(err, result, ctx, config)
  default_handler(err, result, ctx, config)
  if result and result.uri == uri then
    published = published + 1
  end
end

local config = { name = "idemlint", cmd = server, root_dir = root }
local client_id
if vim.lsp.start then
  client_id = vim.lsp.start(config)
else -- Neovim 0.7
  client_id = vim.lsp.start_client(config)
  vim.lsp.buf_attach_client(buffer, client_id)
end
if not client_id then
  fail("the language server did not start")
end

local function print_diagnostics()
  local found = vim.diagnostic.get(buffer)
  table.sort(found, function(a, b)
    return a.lnum < b.lnum or (a.lnum == b.lnum and a.col < b.col)
  end)
  local name = vim.api.nvim_buf_get_name(buffer)
  for _, d in ipairs(found) do
    -- d.col counts bytes (Neovim's own); the server counted UTF-16 units.
    out(string.format("%s:%d:%d: %s %s", name, d.lnum + 1, d.col + 1, tostring(d.code), d.message))
  end
end

local function wait_for(count)
  if not vim.wait(timeout, function() return published >= count end, 20) then
    fail("no diagnostics within " .. timeout / 1000 .. " s")
  end
end

wait_for(1)
print_diagnostics()

local from, to = os.getenv("IDEMLINT_EDIT_FROM"), os.getenv("IDEMLINT_EDIT_TO")
if from and to then
  local lines = vim.api.nvim_buf_get_lines(buffer, 0, -1, false)
  for number, line in ipairs(lines) do
    local start = string.find(line, from, 1, true)
    if start then
      local edited = line:sub(1, start - 1) .. to .. line:sub(start + #from)
      local before = published
      vim.api.nvim_buf_set_lines(buffer, number - 1, number, false, { edited })
      wait_for(before + 1)
      out("-- edited")
      print_diagnostics()
      break
    end
  end
end

vim.cmd("qa!")
