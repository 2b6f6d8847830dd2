// Starts `warcodex lsp` (stdio) for .wcx files. Everything else (diagnostics, hover, rename...)
// comes from the server; syntax colours come from syntaxes/warcodex.tmLanguage.json.
const vscode = require("vscode");
const { LanguageClient, TransportKind } = require("vscode-languageclient/node");

let client;

function activate(context) {
  const config = vscode.workspace.getConfiguration("warcodex");
  const command = config.get("server.command", "warcodex");
  const args = config.get("server.args", ["lsp"]);
  const server = { command, args, transport: TransportKind.stdio };
  client = new LanguageClient("warcodex", "Warcodex", { run: server, debug: server }, {
    documentSelector: [{ scheme: "file", language: "warcodex" }],
    synchronize: { fileEvents: vscode.workspace.createFileSystemWatcher("**/*.{wcx,wcmap}") },
  });
  context.subscriptions.push(client);
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
