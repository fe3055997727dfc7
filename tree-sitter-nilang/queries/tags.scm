; Code navigation tags for NiLang: function definitions (with their
; docstrings) and the calls and uncalls of functions.

(function_definition
  doc: (docstring
    (string) @doc)?
  name: (identifier) @name) @definition.function

(struct_definition
  doc: (docstring
    (string) @doc)?
  name: (identifier) @name) @definition.class

(call_statement
  function: (identifier) @name) @reference.call

(call
  function: (identifier) @name) @reference.call

(broadcast_call
  function: (identifier) @name) @reference.call

(parenthesized_inverse
  function: (identifier) @name) @reference.call

(parenthesized_derivative
  function: (identifier) @name) @reference.call
