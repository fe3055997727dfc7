// The NiLang extension: starts `nilang-lsp` for `.nil` files and shows the
// inverse of a function (the "Show inverse" code lens, or the command
// "NiLang: Show Inverse") and the generated Rust in read-only documents
// beside the source. Those documents follow the source as it is edited.

import * as vscode from "vscode";
import {
  LanguageClient,
  LanguageClientOptions,
  ServerOptions,
  TransportKind,
} from "vscode-languageclient/node";

import {
  INVERSE_SCHEME,
  RUST_SCHEME,
  Target,
  decodeTarget,
  encodeTarget,
  refusalText,
} from "./virtualDocs";

let client: LanguageClient | undefined;

function serverOptions(): ServerOptions {
  const command =
    vscode.workspace.getConfiguration("nilang").get<string>("server.path") ||
    "nilang-lsp";
  return { command, transport: TransportKind.stdio };
}

async function startClient(context: vscode.ExtensionContext): Promise<void> {
  const clientOptions: LanguageClientOptions = {
    documentSelector: [
      { scheme: "file", language: "nilang" },
      { scheme: "untitled", language: "nilang" },
    ],
  };
  client = new LanguageClient(
    "nilang",
    "NiLang language server",
    serverOptions(),
    clientOptions,
  );
  context.subscriptions.push(client);
  await client.start();
}

/** Serves the virtual documents by asking the language server. */
class PreviewProvider implements vscode.TextDocumentContentProvider {
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;

  constructor(private readonly scheme: string) {}

  refresh(source: string): void {
    for (const doc of vscode.workspace.textDocuments) {
      if (doc.uri.scheme === this.scheme && decodeTarget(doc.uri.query)?.source === source) {
        this.changed.fire(doc.uri);
      }
    }
  }

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const target = decodeTarget(uri.query);
    if (client === undefined || target === undefined) {
      return refusalText("the NiLang language server is not running");
    }
    const textDocument = { uri: target.source };
    try {
      if (this.scheme === RUST_SCHEME) {
        const result = await client.sendRequest<{ source: string }>(
          "nilang/generatedRust",
          { textDocument },
        );
        return result.source;
      }
      const result = await client.sendRequest<{ source: string }>("nilang/inverse", {
        textDocument,
        function: target.functionName,
      });
      return result.source;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      return this.scheme === RUST_SCHEME ? `// ${message}\n` : refusalText(message);
    }
  }
}

/** The function under the cursor of the active `.nil` editor, if any. */
async function targetAtCursor(): Promise<Target | undefined> {
  const editor = vscode.window.activeTextEditor;
  if (editor === undefined || editor.document.languageId !== "nilang" || client === undefined) {
    return undefined;
  }
  const source = editor.document.uri.toString();
  try {
    const result = await client.sendRequest<{ function: string | null }>("nilang/inverse", {
      textDocument: { uri: source },
      position: client.code2ProtocolConverter.asPosition(editor.selection.active),
    });
    return { source, functionName: result.function ?? undefined };
  } catch {
    // Not inside a function (or it has errors): show the whole file.
    return { source };
  }
}

async function showBeside(uri: string, languageId: string): Promise<void> {
  const doc = await vscode.workspace.openTextDocument(vscode.Uri.parse(uri));
  await vscode.languages.setTextDocumentLanguage(doc, languageId);
  await vscode.window.showTextDocument(doc, {
    viewColumn: vscode.ViewColumn.Beside,
    preserveFocus: true,
    preview: true,
  });
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const inverse = new PreviewProvider(INVERSE_SCHEME);
  const rust = new PreviewProvider(RUST_SCHEME);
  context.subscriptions.push(
    vscode.workspace.registerTextDocumentContentProvider(INVERSE_SCHEME, inverse),
    vscode.workspace.registerTextDocumentContentProvider(RUST_SCHEME, rust),
    vscode.workspace.onDidChangeTextDocument((event) => {
      if (event.document.languageId === "nilang") {
        const source = event.document.uri.toString();
        inverse.refresh(source);
        rust.refresh(source);
      }
    }),
    // From the code lens: (uri, functionName); from the palette: no arguments.
    vscode.commands.registerCommand(
      "nilang.showInverse",
      async (source?: string, functionName?: string) => {
        const target =
          typeof source === "string" ? { source, functionName } : await targetAtCursor();
        if (target === undefined) {
          void vscode.window.showInformationMessage("Open a .nil file to see an inverse.");
          return;
        }
        await showBeside(encodeTarget(INVERSE_SCHEME, target), "nilang");
      },
    ),
    vscode.commands.registerCommand("nilang.showGeneratedRust", async () => {
      const editor = vscode.window.activeTextEditor;
      if (editor === undefined || editor.document.languageId !== "nilang") {
        return;
      }
      const source = editor.document.uri.toString();
      await showBeside(encodeTarget(RUST_SCHEME, { source }), "rust");
    }),
    vscode.commands.registerCommand("nilang.restartServer", async () => {
      await client?.restart();
    }),
  );
  try {
    await startClient(context);
  } catch (error) {
    void vscode.window.showErrorMessage(
      `NiLang: could not start the language server (${String(error)}). ` +
        "Install it with `cargo install nilang-lsp` (from a checkout: `cargo install --path lsp`) or set `nilang.server.path`.",
    );
  }
}

export async function deactivate(): Promise<void> {
  await client?.stop();
}
