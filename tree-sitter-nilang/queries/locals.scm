; Scopes, definitions and references for NiLang.
;
; A function is a scope; its parameters, keyword parameters, ancillas
; (`x ← expr`) and loop variables are definitions; every other identifier in an
; expression is a reference. A `for` loop is a scope of its own, for its loop
; variable. A deallocation (`x → expr`) refers to the ancilla, so it is not a
; definition.

(function_definition) @local.scope

(for_statement) @local.scope

(parameter
  name: (identifier) @local.definition)

(keyword_parameter
  name: (identifier) @local.definition)

(ancilla_statement
  name: (identifier) @local.definition
  direction: (allocate))

(for_statement
  variable: (identifier) @local.definition)

(identifier) @local.reference
