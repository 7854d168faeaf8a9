-- lait language server for Neovim 0.11+ (put this file on your runtimepath, e.g. as
-- ~/.config/nvim/plugin/lait.lua, or source it from init.lua).
-- lait-ls decides by itself which YAML and Markdown files are lait files and stays silent on others.
vim.lsp.config("lait", {
  cmd = { "lait-ls" },
  filetypes = { "yaml", "markdown" },
  root_markers = { "lait.config.yml", ".git" },
  init_options = { debounce = 150 },
})
vim.lsp.enable("lait")
