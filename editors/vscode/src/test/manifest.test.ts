// Checks that package.json, the grammar, the language configuration and the
// code agree with each other (what VS Code would otherwise report only at
// run time, in a VS Code we cannot run here).

import { strict as assert } from "node:assert";
import { readFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";

const root = join(__dirname, "..", "..");
const read = (path: string) => readFileSync(join(root, path), "utf8");
const manifest = JSON.parse(read("package.json"));

test("the language is nilang for .nil files", () => {
  const languages = manifest.contributes.languages;
  assert.equal(languages.length, 1);
  assert.equal(languages[0].id, "nilang");
  assert.deepEqual(languages[0].extensions, [".nil"]);
  const config = JSON.parse(read(languages[0].configuration));
  assert.equal(config.comments.lineComment, "#");
  for (const pattern of Object.values(config.indentationRules) as string[]) {
    new RegExp(pattern); // throws if VS Code could not compile it
  }
  assert.ok(new RegExp(config.indentationRules.increaseIndentPattern).test("    while (k < n, k != 0)"));
  assert.ok(new RegExp(config.indentationRules.decreaseIndentPattern).test("    end"));
});

test("the grammar file matches its contribution", () => {
  const [grammar] = manifest.contributes.grammars;
  assert.equal(grammar.language, "nilang");
  const tm = JSON.parse(read(grammar.path));
  assert.equal(tm.scopeName, grammar.scopeName);
  assert.equal(tm.scopeName, "source.nilang");
});

test("every command the code registers is contributed, and back", () => {
  const code = read("src/extension.ts");
  const registered = [...code.matchAll(/registerCommand\(\s*"([^"]+)"/g)].map((m) => m[1]).sort();
  const contributed = manifest.contributes.commands.map((c: { command: string }) => c.command).sort();
  assert.deepEqual(registered, contributed);
  const show = manifest.contributes.commands.find(
    (c: { command: string }) => c.command === "nilang.showInverse",
  );
  assert.equal(`${show.category}: ${show.title}`, "NiLang: Show Inverse");
});

// The server's side of this is checked over the protocol in
// server.test.ts (the lens's command), so the extension folder tests on its
// own, copied out of the repository.
test("the code lens command the server sends is one the extension registers", () => {
  const code = read("src/extension.ts");
  assert.match(code, /registerCommand\(\s*"nilang\.showInverse"/);
});

test("the entry point is built and the engine matches the API types", () => {
  assert.ok(existsSync(join(root, manifest.main)), `${manifest.main} (run npm run compile)`);
  const engine = manifest.engines.vscode.replace(/^\^/, "");
  assert.equal(manifest.devDependencies["@types/vscode"], engine);
});
