// The requests the extension sends, against the real language server
// (NILANG_LSP: the nilang-lsp binary; the test is skipped without it):
// the code lens arguments feed "Show Inverse", a position finds the
// function at the cursor, and refusals carry a message for the preview.

import { strict as assert } from "node:assert";
import { spawn } from "node:child_process";
import { test } from "node:test";
import {
  createMessageConnection,
  StreamMessageReader,
  StreamMessageWriter,
} from "vscode-jsonrpc/node";

const server = process.env.NILANG_LSP;
const uri = "file:///nilang-vscode-test/demo.nil";
const text = [
  "function double(y::f64, x::f64)",
  "    y += identity(x)",
  "    y += identity(x)",
  "end",
  "",
  "function broken(y::f64)",
  "    y += y",
  "end",
  "",
].join("\n");

test("the extension's requests against nilang-lsp", { skip: server === undefined }, async () => {
  const child = spawn(server as string, [], { stdio: ["pipe", "pipe", "ignore"] });
  const connection = createMessageConnection(
    new StreamMessageReader(child.stdout),
    new StreamMessageWriter(child.stdin),
  );
  const diagnostics = new Promise<{ diagnostics: { code: string }[] }>((resolve) => {
    connection.onNotification("textDocument/publishDiagnostics", resolve);
  });
  connection.listen();
  try {
    await connection.sendRequest("initialize", { processId: null, rootUri: null, capabilities: {} });
    await connection.sendNotification("initialized", {});
    await connection.sendNotification("textDocument/didOpen", {
      textDocument: { uri, languageId: "nilang", version: 1, text },
    });
    const published = await diagnostics;
    assert.deepEqual(
      published.diagnostics.map((d) => d.code),
      ["E0201"],
    );

    const lenses = await connection.sendRequest<
      { command: { command: string; arguments: [string, string] } }[]
    >("textDocument/codeLens", { textDocument: { uri } });
    assert.equal(lenses.length, 2);
    const [lensUri, lensFunction] = lenses[0].command.arguments;
    assert.equal(lenses[0].command.command, "nilang.showInverse");

    // What PreviewProvider sends for the lens.
    const inverse = await connection.sendRequest<{ function: string; source: string }>(
      "nilang/inverse",
      { textDocument: { uri: lensUri }, function: lensFunction },
    );
    assert.equal(inverse.function, "double");
    assert.equal(
      inverse.source,
      "function double(y::f64, x::f64)\n    y -= identity(x)\n    y -= identity(x)\nend\n",
    );

    // What targetAtCursor sends: a position inside `double`.
    const atCursor = await connection.sendRequest<{ function: string }>("nilang/inverse", {
      textDocument: { uri },
      position: { line: 2, character: 6 },
    });
    assert.equal(atCursor.function, "double");

    // A function with errors: an error whose message the preview shows.
    await assert.rejects(
      connection.sendRequest("nilang/inverse", { textDocument: { uri }, function: "broken" }),
      /`broken` has errors/,
    );
    await assert.rejects(
      connection.sendRequest("nilang/generatedRust", { textDocument: { uri } }),
      /E0201/,
    );

    // The editing features: completion filtered by the typed word, a rename
    // and its refusal, a quick fix, folding, signature help.
    const list = await connection.sendRequest<{ isIncomplete: boolean; items: { label: string }[] }>(
      "textDocument/completion",
      { textDocument: { uri }, position: { line: 1, character: 15 } },
    );
    assert.equal(list.isIncomplete, false);
    assert.ok(list.items.length > 0);
    assert.ok(list.items.every((i) => i.label.toLowerCase().startsWith("identity".slice(0, 7))));
    const rename = await connection.sendRequest<{ changes: Record<string, unknown[]> }>(
      "textDocument/rename",
      { textDocument: { uri }, position: { line: 0, character: 17 }, newName: "z" },
    );
    assert.equal(rename.changes[uri].length, 3);
    await assert.rejects(
      connection.sendRequest("textDocument/rename", {
        textDocument: { uri },
        position: { line: 0, character: 17 },
        newName: "x",
      }),
      /`x` is already a name in `double`/,
    );
    const folds = await connection.sendRequest<{ startLine: number; endLine: number }[]>(
      "textDocument/foldingRange",
      { textDocument: { uri } },
    );
    assert.deepEqual(
      folds.map((f) => [f.startLine, f.endLine]),
      [
        [0, 2],
        [5, 6],
      ],
    );
    const help = await connection.sendRequest<{ signatures: { label: string }[] }>(
      "textDocument/signatureHelp",
      { textDocument: { uri }, position: { line: 1, character: 18 } },
    );
    assert.equal(help, null, "identity is a pure function, not a callable one");

    await connection.sendRequest("shutdown");
    await connection.sendNotification("exit");
  } finally {
    connection.dispose();
    child.kill();
  }
});
