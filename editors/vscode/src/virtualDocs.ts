// Addresses of the read-only documents the extension opens beside a `.nil`
// file: the inverse of a function (or of the whole file) and the generated
// Rust. Kept free of the `vscode` module so that it can be unit-tested with
// node alone.

export const INVERSE_SCHEME = "nilang-inverse";
export const RUST_SCHEME = "nilang-rust";

/** What a virtual document shows. */
export interface Target {
  /** The `.nil` document, as the URI string the language server knows. */
  source: string;
  /** One function, or the whole file when absent. */
  functionName?: string;
}

function baseName(source: string): string {
  const path = source.split(/[?#]/)[0];
  const name = decodeURIComponent(path.substring(path.lastIndexOf("/") + 1));
  return name.replace(/\.nil$/, "") || "untitled";
}

/**
 * The virtual document's URI, as a string `scheme:/<title>?<query>`: the
 * path is the tab title (`arithmetic ~multiplier.nil`), the query carries
 * the source URI and the function name.
 */
export function encodeTarget(scheme: string, target: Target): string {
  const stem = baseName(target.source);
  let title: string;
  if (scheme === RUST_SCHEME) {
    title = `${stem}.rs`;
  } else if (target.functionName !== undefined) {
    title = `${stem} ~${target.functionName}.nil`;
  } else {
    title = `${stem} (inverse).nil`;
  }
  const query = new URLSearchParams({ source: target.source });
  if (target.functionName !== undefined) {
    query.set("function", target.functionName);
  }
  return `${scheme}:/${encodeURIComponent(title)}?${query.toString()}`;
}

/** The target of a virtual document, from the query of its URI. */
export function decodeTarget(query: string): Target | undefined {
  const params = new URLSearchParams(query);
  const source = params.get("source");
  if (source === null || source === "") {
    return undefined;
  }
  const functionName = params.get("function");
  return functionName === null ? { source } : { source, functionName };
}

/** What a virtual document shows when the server refuses: a `.nil` comment. */
export function refusalText(message: string): string {
  return message
    .split("\n")
    .map((line) => `# ${line}`)
    .join("\n")
    .concat("\n");
}
