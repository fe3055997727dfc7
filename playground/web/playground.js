// The page's side of the playground: it loads the compiler (WebAssembly,
// built from the `nilang-playground` crate), sends it JSON requests
// (src/lib.rs lists them) and shows the answers. No framework, no glue
// generator: the module exports four C functions (src/wasm.rs).
"use strict";

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const $ = (id) => document.getElementById(id);

let module = null;   // the compiled WebAssembly module
let wasm = null;     // its instance's exports
let functions = [];  // the program's functions, from the last check

async function load() {
  const response = await fetch("nilang_playground.wasm");
  if (!response.ok) throw new Error(`nilang_playground.wasm: HTTP ${response.status}`);
  module = await WebAssembly.compile(await response.arrayBuffer());
  await instantiate();
}

async function instantiate() {
  const instance = await WebAssembly.instantiate(module, {});
  wasm = instance.exports;
}

// One request, one answer. A trap (a panic in the compiler) loses the
// instance's state: a fresh instance takes over and the answer says so.
function ask(request) {
  const bytes = encoder.encode(JSON.stringify(request));
  try {
    const ptr = wasm.nil_alloc(bytes.length);
    new Uint8Array(wasm.memory.buffer, ptr, bytes.length).set(bytes);
    wasm.nil_handle(ptr, bytes.length);
    const answer = new Uint8Array(wasm.memory.buffer, wasm.nil_answer_ptr(), wasm.nil_answer_len());
    return JSON.parse(decoder.decode(answer));
  } catch (e) {
    instantiate().then(() => check());
    return { error: `internal error in the compiler (${e.message}); please report the program` };
  }
}

function escapeHtml(text) {
  return text.replace(/[&<>]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;" })[c]);
}

// Diagnostics: a list under the editor and wavy underlines in the backdrop
// behind the text area (whose own text is transparent: the backdrop shows
// it, highlighted).
function showDiagnostics(text, diagnostics, tokens) {
  const list = $("diagnostics");
  list.replaceChildren();
  if (diagnostics.length === 0) {
    const li = document.createElement("li");
    li.className = "clean";
    li.textContent = "No errors or warnings.";
    list.append(li);
  }
  for (const d of diagnostics) {
    const li = document.createElement("li");
    li.className = d.severity;
    li.dataset.code = d.code;
    li.innerHTML =
      `<span class="code">${d.severity}[${d.code}]</span> ${d.line}:${d.column}: ` +
      escapeHtml(d.message) +
      (d.help ? `<br><span class="help">help: ${escapeHtml(d.help)}</span>` : "");
    li.addEventListener("click", () => {
      const source = $("source");
      source.focus();
      source.setSelectionRange(d.from, Math.max(d.to, d.from + 1));
      atCursor();
    });
    list.append(li);
  }
  renderBackdrop(text, tokens, diagnostics);
}

// The backdrop: the text cut at every token and underline boundary, each
// piece in its token's class (`hl-keyword-function` for the tag
// `keyword.function`) and inside its underline. Tokens come in order and
// do not overlap; underlines are kept first come first served.
function renderBackdrop(text, tokens, diagnostics) {
  const marks = [];
  let end = 0;
  const ranges = diagnostics
    .map((d) => ({ from: d.from, to: Math.max(d.to, d.from + 1), severity: d.severity }))
    .sort((a, b) => a.from - b.from);
  for (const r of ranges) {
    if (r.from < end) continue;
    marks.push(r);
    end = r.to;
  }
  const cuts = new Set([0, text.length]);
  for (const r of [...tokens, ...marks]) {
    cuts.add(Math.min(r.from, text.length));
    cuts.add(Math.min(r.to, text.length));
  }
  const points = [...cuts].sort((a, b) => a - b);
  let html = "";
  let t = 0;
  let m = 0;
  for (let k = 0; k + 1 < points.length; k++) {
    const [from, to] = [points[k], points[k + 1]];
    while (t < tokens.length && tokens[t].to <= from) t++;
    while (m < marks.length && marks[m].to <= from) m++;
    let piece = escapeHtml(text.slice(from, to));
    if (t < tokens.length && tokens[t].from <= from) {
      piece = `<span class="hl-${tokens[t].tag.replace(/\./g, "-")}">${piece}</span>`;
    }
    if (m < marks.length && marks[m].from <= from) {
      piece = `<mark class="${marks[m].severity}">${piece}</mark>`;
    }
    html += piece;
  }
  $("backdrop").innerHTML = html + "\n";
}

function showFunctions(list) {
  functions = list;
  const select = $("function");
  const chosen = select.value;
  select.replaceChildren(
    ...list.map((f) => {
      const option = document.createElement("option");
      option.value = f.name;
      option.textContent = `${f.name}(${f.params.join(", ")})`;
      return option;
    }),
  );
  if (list.some((f) => f.name === chosen)) {
    select.value = chosen;
  } else {
    const withExample = list.find((f) => f.example);
    if (withExample) select.value = withExample.name;
    fillExample();
  }
}

// The docstring example of the chosen function, as the run's arguments.
function fillExample() {
  const f = functions.find((f) => f.name === $("function").value);
  if (!f) return;
  if (!f.example) {
    $("args").value = "";
    return;
  }
  let call = f.example.trim();
  const uncall = call.startsWith("~");
  if (uncall) call = call.slice(1).trim();
  const open = call.indexOf("(");
  $("args").value = open >= 0 ? call.slice(open + 1, call.lastIndexOf(")")) : "";
  $("mode").value = uncall ? "uncall" : "call";
}

let firstDiagnostics = null;

function check() {
  const text = $("source").value;
  const answer = ask({ op: "check", text });
  if (answer.error) {
    $("status").textContent = answer.error;
    return;
  }
  $("tooltip").hidden = true; // the text under it changed
  showDiagnostics(text, answer.diagnostics, answer.tokens);
  showFunctions(answer.functions);
  const errors = answer.diagnostics.filter((d) => d.severity === "error").length;
  $("status").textContent = errors === 0 ? "checked: no errors" : `checked: ${errors} error(s)`;
  if (firstDiagnostics === null) {
    firstDiagnostics = performance.now();
    document.body.dataset.firstDiagnosticsMs = Math.round(firstDiagnostics);
  }
  // What the diagnostics shown are of (the browser test waits for it).
  window.checkedText = text;
  refreshTab();
}

// What the editor's hover would show at the cursor.
function atCursor() {
  const offset = $("source").selectionStart;
  const answer = ask({ op: "hover", offset });
  // The hover's Markdown, shown as plain text.
  const text = answer.markdown ? answer.markdown.replace(/```\w*\n?/g, "").replace(/\*\*/g, "") : "";
  $("cursor").innerText = text;
  if (activeTab() === "inverse") showInverse();
}

// Mouse hover: the character under the pointer, found on the editor's
// monospace grid (no wrapping; a tab reaches the next multiple of 4).
let charWidth = null;

function gridOffset(clientX, clientY) {
  const source = $("source");
  const style = getComputedStyle(source);
  if (charWidth === null) {
    const probe = document.createElement("span");
    probe.style.font = style.font;
    probe.style.visibility = "hidden";
    probe.style.position = "absolute";
    probe.textContent = "x".repeat(100);
    document.body.append(probe);
    charWidth = probe.getBoundingClientRect().width / 100;
    probe.remove();
  }
  const rect = source.getBoundingClientRect();
  const x = clientX - rect.left - parseFloat(style.paddingLeft) + source.scrollLeft;
  const y = clientY - rect.top - parseFloat(style.paddingTop) + source.scrollTop;
  if (x < 0 || y < 0) return null;
  const lines = source.value.split("\n");
  const line = Math.floor(y / parseFloat(style.lineHeight));
  if (line >= lines.length) return null;
  const column = Math.floor(x / charWidth);
  const text = lines[line];
  let visual = 0;
  let i = 0;
  for (; i < text.length; i++) {
    const width = text[i] === "\t" ? 4 - (visual % 4) : 1;
    if (visual + width > column) break;
    visual += width;
  }
  if (i >= text.length) return null;
  let offset = 0;
  for (let l = 0; l < line; l++) offset += lines[l].length + 1;
  return offset + i;
}

let hoverTimer = 0;

function hoverAt(event) {
  clearTimeout(hoverTimer);
  const tooltip = $("tooltip");
  hoverTimer = setTimeout(() => {
    const offset = gridOffset(event.clientX, event.clientY);
    const answer = offset === null ? {} : ask({ op: "hover", offset });
    if (!answer.markdown) {
      tooltip.hidden = true;
      return;
    }
    tooltip.innerText = answer.markdown.replace(/```\w*\n?/g, "").replace(/\*\*/g, "");
    tooltip.style.left = `${event.clientX + 12}px`;
    tooltip.style.top = `${event.clientY + 16}px`;
    tooltip.hidden = false;
  }, 120);
}

function showInverse() {
  const answer = ask({ op: "inverse", offset: $("source").selectionStart });
  $("inverse").textContent = answer.error ?? answer.source;
}

function showRust() {
  const answer = ask({ op: "rust" });
  $("rust").textContent = answer.error ?? answer.code;
}

function activeTab() {
  return document.querySelector("nav button.active").dataset.tab;
}

function refreshTab() {
  if (activeTab() === "inverse") showInverse();
  if (activeTab() === "rust") showRust();
}

function run() {
  const answer = ask({
    op: "run",
    function: $("function").value,
    mode: $("mode").value,
    args: $("args").value,
    seeds: $("seeds").value,
  });
  const output = $("output");
  const text = [answer.output, answer.error && `error: ${answer.error}`].filter(Boolean).join("\n");
  output.textContent = text;
  output.classList.toggle("error", Boolean(answer.error));
}

function chooseExample(name) {
  const example = examples.find((e) => e.name === name);
  if (!example) return;
  $("source").value = example.text;
  renderBackdrop(example.text, [], []);
  $("source").setSelectionRange(0, 0);
  $("function").value = "";
  check();
  atCursor();
}

let examples = [];
let pending = 0;

async function main() {
  try {
    await load();
  } catch (e) {
    $("status").textContent = `the compiler did not load: ${e.message}`;
    return;
  }
  examples = ask({ op: "examples" });
  $("examples").replaceChildren(
    ...examples.map((e) => {
      const option = document.createElement("option");
      option.value = e.name;
      option.textContent = e.name;
      return option;
    }),
  );
  $("examples").addEventListener("change", () => chooseExample($("examples").value));
  const source = $("source");
  // Diagnostics as you type: one check per frame at most.
  source.addEventListener("input", () => {
    // The text as typed at once (the check below colours it before the
    // next frame is painted).
    renderBackdrop(source.value, [], []);
    if (pending) return;
    pending = requestAnimationFrame(() => {
      pending = 0;
      check();
    });
  });
  source.addEventListener("scroll", () => {
    $("backdrop").scrollTop = source.scrollTop;
    $("backdrop").scrollLeft = source.scrollLeft;
  });
  for (const event of ["click", "keyup"]) source.addEventListener(event, atCursor);
  source.addEventListener("mousemove", hoverAt);
  source.addEventListener("mouseleave", () => {
    clearTimeout(hoverTimer);
    $("tooltip").hidden = true;
  });
  $("function").addEventListener("change", fillExample);
  $("run").addEventListener("click", run);
  for (const button of document.querySelectorAll("nav button")) {
    button.addEventListener("click", () => {
      for (const b of document.querySelectorAll("nav button")) b.classList.toggle("active", b === button);
      for (const tab of document.querySelectorAll(".tab")) tab.hidden = tab.id !== `tab-${button.dataset.tab}`;
      refreshTab();
    });
  }
  const wanted = new URLSearchParams(location.search).get("example");
  chooseExample(examples.some((e) => e.name === wanted) ? wanted : examples[0].name);
  $("examples").value = examples.some((e) => e.name === wanted) ? wanted : examples[0].name;
  document.body.dataset.ready = "true";
}

main();
