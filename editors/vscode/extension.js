// The Lamina extension: the language (grammar, brackets, comments, folding) is declared in
// package.json; this wires in the language server, `lamina lsp` over stdio.
const fs = require("fs");
const path = require("path");
const vscode = require("vscode");
const { LanguageClient } = require("vscode-languageclient/node");

let client;

// The `lamina` command: the setting, else a workspace's own .venv (as `make` creates it),
// else whatever `lamina` is on the PATH.
function laminaCommand() {
  const configured = vscode.workspace.getConfiguration("lamina").get("server.command", "");
  if (configured) return configured;
  const venv = process.platform === "win32" ? ["Scripts", "lamina.exe"] : ["bin", "lamina"];
  for (const folder of vscode.workspace.workspaceFolders || []) {
    const candidate = path.join(folder.uri.fsPath, ".venv", ...venv);
    if (fs.existsSync(candidate)) return candidate;
  }
  return "lamina";
}

function activate(context) {
  const args = vscode.workspace.getConfiguration("lamina").get("server.args", ["lsp"]);
  client = new LanguageClient("lamina", "Lamina language server", { command: laminaCommand(), args }, {
    documentSelector: [
      { scheme: "file", language: "lamina" },
      { scheme: "untitled", language: "lamina" },
    ],
  });
  context.subscriptions.push(client);
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
