// The Lamina extension: the language (grammar, brackets, comments, folding) is declared in
// package.json; this wires in the language server, `lamina lsp` over stdio.
const vscode = require("vscode");
const { LanguageClient } = require("vscode-languageclient/node");

let client;

function activate(context) {
  const config = vscode.workspace.getConfiguration("lamina");
  const server = {
    command: config.get("server.command", "lamina"),
    args: config.get("server.args", ["lsp"]),
  };
  client = new LanguageClient("lamina", "Lamina language server", server, {
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
