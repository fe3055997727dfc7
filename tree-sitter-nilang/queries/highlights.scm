; Syntax highlighting for NiLang (.nil).
;
; Capture names follow the common tree-sitter/Neovim scheme; a highlighter that
; only knows the short names (`keyword`, `function`, `string`, ...) falls back
; to them. Where two patterns capture the same node, tree-sitter-highlight
; keeps the first one, so the specific patterns come before the general ones;
; patterns that could overlap in the other direction are made disjoint with
; predicates, so editors that prefer the last match agree.

; ------------------------------------------------------------------ comments

(comment) @comment

(docstring
  (string) @string.documentation)

; ------------------------------------------------------------------ literals

(string) @string

(integer) @number

(float) @number.float

(imaginary) @number

(boolean) @constant.builtin.boolean

((identifier) @constant.builtin
  (#any-of? @constant.builtin "π" "pi" "ℯ" "im" "Inf" "NaN"))

; ------------------------------------------------------------------ keywords

(function_definition
  [
    "function"
    "end"
  ] @keyword.function)

(struct_definition
  [
    "struct"
    "end"
  ] @keyword.type)

(struct_definition
  name: (identifier) @type.definition)

(struct_field
  name: (identifier) @variable.member)

(if_statement
  [
    "if"
    "end"
  ] @keyword.conditional)

(elseif_clause
  "elseif" @keyword.conditional)

(else_clause
  "else" @keyword.conditional)

(while_statement
  [
    "while"
    "end"
  ] @keyword.repeat)

(for_statement
  [
    "for"
    "in"
    "end"
  ] @keyword.repeat)

(for_statement
  "∈" @keyword.repeat)

(begin_block
  [
    "begin"
    "end"
  ] @keyword)

(where_clause
  "where" @keyword)

(reversed_range
  "reverse" @keyword)

(using_declaration
  "using" @keyword.import)

(import_declaration
  "import" @keyword.import)

(module_path
  (identifier) @module)

(import_declaration
  name: (identifier) @function)

; ------------------------------------------------------------------ macros

(function_attribute) @attribute

(primitive_attribute
  derivative: (identifier) @function)

[
  "@routine"
  "@store"
  "@tape"
  "@safe"
  "@invcheckoff"
  "@inbounds"
] @function.macro

(unroutine_statement) @function.macro

(macro_name) @function.macro

; ------------------------------------------------------------------ functions

(function_definition
  name: (identifier) @function)

; The reversible instruction set, in call position: `SWAP(a, b)`, `~SWAP(a, b)`,
; `(~SWAP)(a, b)`, and as the callee of an expression call.
(call_statement
  function: (identifier) @function.builtin
  (#any-of? @function.builtin
    "SWAP" "ROT" "IROT" "NEG" "CONJ" "INC" "DEC" "MULINT" "DIVINT" "HADAMARD" "PUSH!" "POP!"
    "COPYPUSH!" "COPYPOP!"))

(call
  function: (identifier) @function.builtin
  (#any-of? @function.builtin
    "SWAP" "ROT" "IROT" "NEG" "CONJ" "INC" "DEC" "MULINT" "DIVINT" "HADAMARD" "PUSH!" "POP!"
    "COPYPUSH!" "COPYPOP!"))

(parenthesized_inverse
  function: (identifier) @function.builtin
  (#any-of? @function.builtin
    "SWAP" "ROT" "IROT" "NEG" "CONJ" "INC" "DEC" "MULINT" "DIVINT" "HADAMARD" "PUSH!" "POP!"
    "COPYPUSH!" "COPYPOP!"))

(call_statement
  function: (identifier) @function.call
  (#not-any-of? @function.call
    "SWAP" "ROT" "IROT" "NEG" "CONJ" "INC" "DEC" "MULINT" "DIVINT" "HADAMARD" "PUSH!" "POP!"
    "COPYPUSH!" "COPYPOP!"))

(call
  function: (identifier) @function.call
  (#not-any-of? @function.call
    "SWAP" "ROT" "IROT" "NEG" "CONJ" "INC" "DEC" "MULINT" "DIVINT" "HADAMARD" "PUSH!" "POP!"
    "COPYPUSH!" "COPYPOP!"))

(parenthesized_inverse
  function: (identifier) @function.call
  (#not-any-of? @function.call
    "SWAP" "ROT" "IROT" "NEG" "CONJ" "INC" "DEC" "MULINT" "DIVINT" "HADAMARD" "PUSH!" "POP!"
    "COPYPUSH!" "COPYPOP!"))

(parenthesized_derivative
  function: (identifier) @function.call)

(broadcast_call
  function: (identifier) @function.call)

; ------------------------------------------------------------------ variables

(parameter
  name: (identifier) @variable.parameter)

(keyword_parameter
  name: (identifier) @variable.parameter)

(keyword_argument
  name: (identifier) @variable.parameter)

(field_access
  field: (identifier) @property)

(for_statement
  variable: (identifier) @variable)

; ------------------------------------------------------------------ types

((type_identifier
  (identifier) @type.builtin)
  (#any-of? @type.builtin
    "f32" "f64" "i8" "i16" "i32" "i64" "i128" "isize" "u8" "u16" "u32" "u64" "u128" "usize" "bool"))

((type_identifier
  (identifier) @type)
  (#not-any-of? @type
    "f32" "f64" "i8" "i16" "i32" "i64" "i128" "isize" "u8" "u16" "u32" "u64" "u128" "usize" "bool"))

(generic_type
  name: (identifier) @type)

(type_bound
  name: (identifier) @type)

(type_bound
  trait: (identifier) @type)

; ------------------------------------------------------------------ operators

(instruction_operator) @operator

(allocate) @operator

(deallocate) @operator

(binary
  operator: _ @operator)

(unary
  operator: _ @operator)

(inverse_statement
  "~" @operator)

(parenthesized_inverse
  "~" @operator)

(derivative_operator) @operator

(same_as_pre) @operator

(swap_statement
  "↔" @operator)

(empty_slot
  "∅" @constant.builtin)

(end_index
  "end" @variable.builtin)

(end_index
  operator: _ @operator)

(adjoint
  "'" @operator)

(broadcast_call
  "." @operator)

(range
  ":" @operator)

(typecast
  "=>" @operator)

(for_statement
  "=" @operator)

(keyword_parameter
  "=" @operator)

(keyword_argument
  "=" @operator)

(type_bound
  [
    ":"
    "<:"
    "+"
  ] @operator)

; ------------------------------------------------------------------ punctuation

(colon) @punctuation.special

(generic_type
  [
    "<"
    ">"
    "{"
    "}"
  ] @punctuation.bracket)

[
  "("
  ")"
  "["
  "]"
  "{"
  "}"
] @punctuation.bracket

[
  ","
  ";"
  "::"
] @punctuation.delimiter

(field_access
  "." @punctuation.delimiter)
