// Tokenize files with the extension's TextMate grammar, as VS Code does (vscode-textmate on
// the Oniguruma regex engine), and print each line's tokens with their scopes as JSON:
//   node test/tokenize.js FILE...  ->  {"FILE": [[[text, [scope, ...]], ...], ...], ...}
const fs = require("fs");
const path = require("path");
const vsctm = require("vscode-textmate");
const oniguruma = require("vscode-oniguruma");

const HERE = path.join(__dirname, "..");
const wasm = fs.readFileSync(path.join(HERE, "node_modules", "vscode-oniguruma", "release", "onig.wasm"));

async function main(files) {
  await oniguruma.loadWASM(wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength));
  const registry = new vsctm.Registry({
    onigLib: Promise.resolve({
      createOnigScanner: (patterns) => new oniguruma.OnigScanner(patterns),
      createOnigString: (s) => new oniguruma.OnigString(s),
    }),
    loadGrammar: async (scopeName) => {
      if (scopeName !== "source.lamina") return null;
      const file = path.join(HERE, "syntaxes", "lamina.tmLanguage.json");
      return vsctm.parseRawGrammar(fs.readFileSync(file, "utf8"), file);
    },
  });
  const grammar = await registry.loadGrammar("source.lamina");
  const out = {};
  for (const file of files) {
    let state = vsctm.INITIAL;
    out[file] = fs.readFileSync(file, "utf8").split(/\r?\n/).map((line) => {
      const result = grammar.tokenizeLine(line, state);
      state = result.ruleStack;
      return result.tokens.map((t) => [line.slice(t.startIndex, t.endIndex), t.scopes]);
    });
  }
  process.stdout.write(JSON.stringify(out));
}

main(process.argv.slice(2)).catch((err) => {
  console.error(err);
  process.exit(1);
});
