-- After a user's init.lua started idemlint's language server for the
-- current buffer: wait for its diagnostics, print each as "CODE line"
-- (1-based) and quit; status 1 when none came within IDEMLINT_TIMEOUT
-- seconds (default 60).
local timeout = tonumber(os.getenv("IDEMLINT_TIMEOUT") or "60") * 1000
local ok = vim.wait(timeout, function()
  return #vim.diagnostic.get(0) > 0
end, 20)
for _, d in ipairs(vim.diagnostic.get(0)) do
  io.stdout:write(string.format("%s %d\n", tostring(d.code), d.lnum + 1))
end
vim.cmd(ok and "qa!" or "cquit 1")
