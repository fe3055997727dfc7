import { strict as assert } from "node:assert";
import { test } from "node:test";

import {
  INVERSE_SCHEME,
  RUST_SCHEME,
  decodeTarget,
  encodeTarget,
  refusalText,
} from "../virtualDocs";

test("a function's inverse round-trips through its URI", () => {
  const source = "file:///home/me/my%20project/arithmetic.nil";
  const uri = encodeTarget(INVERSE_SCHEME, { source, functionName: "out!" });
  assert.ok(uri.startsWith("nilang-inverse:/arithmetic%20~out!.nil?"), uri);
  const query = uri.substring(uri.indexOf("?") + 1);
  assert.deepEqual(decodeTarget(query), { source, functionName: "out!" });
});

test("the whole file and the generated Rust have their own titles", () => {
  const source = "file:///tmp/bessel.nil";
  const whole = encodeTarget(INVERSE_SCHEME, { source });
  assert.ok(whole.startsWith("nilang-inverse:/bessel%20(inverse).nil?"), whole);
  assert.deepEqual(decodeTarget(whole.substring(whole.indexOf("?") + 1)), { source });
  const rust = encodeTarget(RUST_SCHEME, { source });
  assert.ok(rust.startsWith("nilang-rust:/bessel.rs?"), rust);
});

test("a query without a source is rejected", () => {
  assert.equal(decodeTarget(""), undefined);
  assert.equal(decodeTarget("function=f"), undefined);
});

test("refusals become comments", () => {
  assert.equal(refusalText("`f` has errors\nfix them"), "# `f` has errors\n# fix them\n");
});
